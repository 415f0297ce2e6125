"""Give an exported die-face model two more outputs: the pooled features its last layer reads
(`embedding`) and that layer's output before the softmax (`logits`).

    python models/feature_outputs.py models/die_face.onnx models/lodo/*_classifier.onnx

A table's learner (`vision.adapt.last_layer`) fits a correction of the last layer on these. The
probabilities stay the first output and are computed exactly as before. Needs the `train` extra
(onnx); `models/train.py` applies it to every model it exports.
"""

from __future__ import annotations

import sys
from pathlib import Path

import onnx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.read.classifier import EMBEDDING, LOGITS  # noqa: E402


def _rename(graph: onnx.GraphProto, old: str, new: str) -> None:
    for node in graph.node:
        node.output[:] = [new if name == old else name for name in node.output]
        node.input[:] = [new if name == old else name for name in node.input]


def add_feature_outputs(path: Path) -> bool:
    """Adds the outputs to the model at `path` in place; False when it already has them."""
    model = onnx.load(str(path))
    graph = model.graph
    if any(output.name == EMBEDDING for output in graph.output):
        return False
    (softmax,) = [node for node in graph.node if node.op_type == "Softmax"]
    (gemm,) = [node for node in graph.node if node.output[0] == softmax.input[0] and node.op_type == "Gemm"]
    features, logits = gemm.input[0], gemm.output[0]
    _rename(graph, features, EMBEDDING)
    _rename(graph, logits, LOGITS)
    weight = next(init for init in graph.initializer if init.name == gemm.input[1])
    trans_b = any(attribute.name == "transB" and attribute.i == 1 for attribute in gemm.attribute)
    classes, width = (weight.dims[0], weight.dims[1]) if trans_b else (weight.dims[1], weight.dims[0])
    batch = graph.output[0].type.tensor_type.shape.dim[0]
    for name, size in ((EMBEDDING, width), (LOGITS, classes)):
        output = onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, [None, size])
        output.type.tensor_type.shape.dim[0].CopyFrom(batch)
        graph.output.append(output)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return True


def main(argv: list[str]) -> int:
    for name in argv:
        changed = add_feature_outputs(Path(name))
        print(f"{name}: {'outputs added' if changed else 'already has them'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

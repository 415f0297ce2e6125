"""Cutting a detector down to the narrow widths (needs the `train` extra)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from models.detector_net import NARROW, DiceDetectorNet  # noqa: E402
from models.prune_detector import main, narrowed  # noqa: E402
from vision.read.detect import DiceDetector  # noqa: E402


def wide_net_using_only(quarter: list[int], head: list[int]) -> DiceDetectorNet:
    """A wide net with random weights whose other channels of each stream are all zero."""
    torch.manual_seed(3)
    net = DiceDetectorNet()
    with torch.no_grad():
        for name, value in net.state_dict().items():
            if value.dim() == 0:
                continue
            value.copy_(torch.rand_like(value) * 0.5 + 0.25 if "running_var" in name else torch.randn_like(value) * 0.3)
        for name, value in net.state_dict().items():
            if value.dim() == 0 or "running" in name:
                continue
            for dim, size in enumerate(value.shape):
                if size != 24:
                    continue
                stream = (
                    "quarter"
                    if name.startswith(("stem.", "down8.")) or (name.startswith("lateral4.") and dim == 1)
                    else "head"
                )
                used = quarter if stream == "quarter" else head
                dropped = [i for i in range(24) if i not in used]
                value.index_fill_(dim, torch.tensor(dropped), 0.0)
    return net.eval()


def test_the_narrow_net_computes_what_the_wide_one_does_when_the_dropped_channels_are_unused() -> None:
    rng = np.random.default_rng(0)
    quarter = sorted(rng.choice(24, NARROW["channels"][0], replace=False).tolist())
    head = sorted(rng.choice(24, NARROW["head"], replace=False).tolist())
    wide = wide_net_using_only(quarter, head)
    narrow = narrowed(wide).eval()
    assert narrow.lateral4.weight.shape == (NARROW["head"], NARROW["channels"][0], 1, 1)
    x = torch.rand(1, 3, 64, 96)
    with torch.no_grad():
        assert torch.allclose(narrow(x), wide(x), atol=1e-5)


def test_the_shipped_detector_cut_down_still_reads_as_a_detector(tmp_path: Path) -> None:
    from vision.read.models import default_model_path

    narrow_path = tmp_path / "narrow.onnx"
    assert main([str(default_model_path("dice_detector.onnx")), "--out", str(narrow_path)]) == 0
    detector = DiceDetector(narrow_path)
    assert isinstance(detector.detect(np.zeros((240, 320, 3), np.uint8)), list)
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(narrow_path))
    weights = {item.name: numpy_helper.to_array(item) for item in model.graph.initializer}
    stem = next(node for node in model.graph.node if node.op_type == "Conv")
    assert weights[stem.input[1]].shape == (NARROW["channels"][0], 3, 4, 4)

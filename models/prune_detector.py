"""Cut an exported dice detector down to the narrow widths (`detector_net.NARROW`), keeping
the channels that weigh most, for training to go on from (`train_detector.py --narrow --init`).

    python models/prune_detector.py MODEL.onnx --out NARROW.onnx

The quarter-size layers form one stream of channels (their blocks add their input to their
output), and so do the head's; each stream keeps the channels whose weights, in every layer
that writes or reads them, weigh most (each layer's share of its own weight).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "models"))

from detector_net import NARROW, DiceDetectorNet, load_exported_weights  # noqa: E402
from train_detector import export  # noqa: E402


def _stream_of(name: str, dim: int) -> str:
    """Which stream a narrowed dimension of a weight belongs to: the quarter-size layers'
    ("quarter") or the head's ("head")."""
    if name.startswith(("stem.", "down8.")):
        return "quarter"
    if name.startswith("lateral4."):
        return "quarter" if dim == 1 else "head"
    return "head"


def narrowed(wide: DiceDetectorNet) -> DiceDetectorNet:
    """A narrow net holding the wide one's weightiest channels of each stream."""
    narrow = DiceDetectorNet(**NARROW)
    wide_state, narrow_state = wide.state_dict(), narrow.state_dict()
    weight: dict[str, torch.Tensor] = {}
    for name, value in wide_state.items():
        if not name.endswith(".weight") or value.dim() < 2:
            continue  # convolutions only: the batch norms hold the folded unit scales
        share = value.abs().pow(2) / value.abs().pow(2).sum()
        for dim, (w, n) in enumerate(zip(value.shape, narrow_state[name].shape)):
            if w != n:
                stream = _stream_of(name, dim)
                other = [d for d in range(value.dim()) if d != dim]
                weight[stream] = weight.get(stream, torch.zeros(w)) + share.sum(dim=other)
    kept = {
        stream: torch.sort(torch.topk(w, NARROW["head"] if stream == "head" else NARROW["channels"][0]).indices).values
        for stream, w in weight.items()
    }
    with torch.no_grad():
        for name, value in wide_state.items():
            target = narrow_state[name]
            for dim, (w, n) in enumerate(zip(value.shape, target.shape)):
                if w != n:
                    value = value.index_select(dim, kept[_stream_of(name, dim)])
            target.copy_(value)
    return narrow


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    wide = DiceDetectorNet()
    load_exported_weights(wide, str(args.model))
    export(narrowed(wide), args.out)
    print(f"{args.model} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Render the detector's synthetic training frames (domain-randomised, fixed seed).

    python datasets/detector_scenes.py --count 6000 --out datasets/build/detector_synthetic.npz

The frames come from `vision.training.detector_frames.build`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.training.detector_frames import build  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--side", type=int, default=320)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "build" / "detector_synthetic.npz"
    )
    args = parser.parse_args(argv)
    frames, boxes = build(args.count, args.seed, args.side, args.workers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, frames=frames, boxes=boxes)
    print(f"{args.out}: {len(frames)} frames, {len(boxes)} dice")
    return 0


if __name__ == "__main__":
    sys.exit(main())

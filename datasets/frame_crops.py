"""Die crops cut from the detector's domain-randomised frames, written for the classifier.

    python datasets/frame_crops.py --frames 8000 --out datasets/build/frame_crops.npz

The crops come from `vision.training.frame_crops.build` and keep the picture's up: train on
them with `models/train.py --keep-up`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.read.classifier import N_CLASSES  # noqa: E402
from vision.training.frame_crops import build  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=8000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "build" / "frame_crops.npz")
    args = parser.parse_args(argv)
    data = build(args.frames, args.seed, workers=args.workers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    per_class = np.bincount(data["labels"], minlength=N_CLASSES).tolist()
    print(f"{args.out}: {len(data['labels'])} crops, per class {per_class}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

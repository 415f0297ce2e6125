"""Die crops cut from rendered scenes, written to an .npz for training the classifier.

    python datasets/synthetic_crops.py --count 60000 --out datasets/build/synthetic.npz

The crops come from `vision.training.rendered_crops.build`; `--keep-up` leans the dice away from
the camera and does not turn the crops, and `--steep-from N` gives the leaning ranges only to the
crops from index N on.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.read.classifier import N_CLASSES  # noqa: E402
from vision.training.rendered_crops import SIDE_TILT, STEEP_TILT, build  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=60000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--keep-up", action="store_true", help="dice lean away from the camera; crops not turned")
    parser.add_argument("--steep-tilt", type=float, nargs=2, default=STEEP_TILT, metavar=("MIN", "MAX"),
                        help="degrees the steeper half of the dice lean with --keep-up")  # fmt: skip
    parser.add_argument("--side-tilt", type=float, nargs=2, default=SIDE_TILT, metavar=("MIN", "MAX"),
                        help="degrees a die seen from the side (not a die face) leans")  # fmt: skip
    parser.add_argument("--steep-min-size", type=float, default=0.0, metavar="PX",
                        help="dice smaller than this keep the shipped steep range")  # fmt: skip
    parser.add_argument("--side-min-size", type=float, default=0.0, metavar="PX",
                        help="dice seen from the side smaller than this keep the shipped side range")  # fmt: skip
    parser.add_argument("--steep-from", type=int, default=0, metavar="N",
                        help="the crops before this index keep the shipped ranges")  # fmt: skip
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    data = build(
        args.count,
        args.seed,
        keep_up=args.keep_up,
        steep_tilt=tuple(args.steep_tilt),
        side_tilt=tuple(args.side_tilt),
        steep_min_size=args.steep_min_size,
        side_min_size=args.side_min_size,
        steep_from=args.steep_from,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    print(f"{args.out}: {args.count} crops, per class {np.bincount(data['labels'], minlength=N_CLASSES).tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

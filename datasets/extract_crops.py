"""Cut labelled dice, and patches that are not dice, out of a YOLO-format photo set.

    python datasets/extract_crops.py ../shared/datasets/nellbyler-d6 --split train \
        --out datasets/build/real_train.npz

The crops come from `vision.training.photo_crops.extract`: each die at several scales, and
with `--augment N` at N random rotations and small box errors (`--keep-up`: turned only a
little, so that a steep die's side faces stay below its top face). The output holds `crops`
(N, 32, 32, 3) uint8 BGR, `labels` (0..5 = faces 1..6, 6 = not a die), `scales` (long
side, 0 = full size) and `photos` (index into `names`). With `--webcam SHARE` that share of
the scaled photos is cut again from a copy with a webcam's noise and JPEG.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.read.classifier import N_CLASSES  # noqa: E402
from vision.training.photo_crops import REPORT_SCALES, TRAIN_SCALES, extract  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="YOLO set with <split>/images and <split>/labels")
    parser.add_argument("--split", default="train")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scales", default=None, help="comma-separated long sides, 0 = full size")
    parser.add_argument("--augment", type=int, default=0, help="random crops per die and scale (0: one exact crop)")
    parser.add_argument("--negatives", type=float, default=0.3, help="not-a-die crops per die crop")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--die-side", type=float, default=0.0, help="square boxes of this side at the labels' centres")
    parser.add_argument("--webcam", type=float, default=0.0, help="share of scaled photos also cut from a webcam copy")
    parser.add_argument("--keep-up", action="store_true", help="turn the crops only a little (the picture's up kept)")
    args = parser.parse_args(argv)
    if not 0.0 <= args.webcam <= 1.0:
        raise SystemExit(f"extract_crops: --webcam is a share between 0 and 1, not {args.webcam}")
    default = TRAIN_SCALES if args.augment else REPORT_SCALES
    scales = tuple(int(s) for s in args.scales.split(",")) if args.scales else default
    cv2.setNumThreads(1)
    try:
        data = extract(
            args.root,
            args.split,
            scales,
            args.augment,
            args.negatives,
            args.seed,
            args.die_side,
            args.webcam,
            keep_up=args.keep_up,
        )
    except ValueError as exc:  # a LabelError too
        raise SystemExit(f"extract_crops: {exc}") from None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    counts = np.bincount(data["labels"], minlength=N_CLASSES)
    print(f"{args.out}: {len(data['labels'])} crops from {len(data['names'])} photos, per class {counts.tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

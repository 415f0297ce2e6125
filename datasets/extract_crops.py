"""Cut labelled dice, and patches that are not dice, out of a YOLO-format photo set.

    python datasets/extract_crops.py ../shared/datasets/nellbyler-d6 --split train \
        --out datasets/build/real_train.npz

Each die is cut at several scales (the photo downscaled so its long side is 1280, 640, ...
pixels), because the reader sees webcam-sized dice.  With `--augment N` every die gives N
crops at random rotations and small box errors; with 0 it gives one exact crop per scale.
The output holds `crops` (N, 32, 32, 3) uint8 BGR, `labels` (0..5 = faces 1..6, 6 = not a
die), `scales` (long side, 0 = full size) and `photos` (index into `names`).
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.read.crops import crop_die  # noqa: E402
from vision.types import DieBox  # noqa: E402

NOT_A_DIE = 6
# Detector boxes range from the top face alone to the whole die with its sides.
BOX_SCALE = (0.65, 1.15)
TRAIN_SCALES = (0, 1600, 1280, 960, 640, 480)
REPORT_SCALES = (0, 1280, 640)


@dataclass(frozen=True)
class LabelledPhoto:
    path: Path
    dice: tuple[tuple[int, DieBox], ...]  # (value 1..6, box in full-size pixels)


def read_split(root: Path, split: str, die_side: float = 0.0) -> list[LabelledPhoto]:
    """The photos of a split with their dice. `die_side` > 0 replaces every box by a square of
    that side (full-size pixels) at the box's centre, for sets whose boxes hug the pips."""
    images = root / split / "images"
    if not images.is_dir():
        raise SystemExit(f"no {split}/images folder under {root}")
    photos = []
    for path in sorted(images.glob("*.jpg")):
        height, width = _image_size(path)
        dice = []
        label_file = root / split / "labels" / (path.stem + ".txt")
        for line in label_file.read_text().splitlines() if label_file.exists() else []:
            parts = line.split()
            if len(parts) != 5:
                continue
            k, x, y, w, h = int(parts[0]), *map(float, parts[1:])
            if die_side > 0:
                dice.append((k + 1, DieBox(x * width, y * height, die_side, die_side, 0.0)))
            else:
                dice.append((k + 1, DieBox(x * width, y * height, w * width, h * height, 0.0)))
        photos.append(LabelledPhoto(path, tuple(dice)))
    return photos


def _image_size(path: Path) -> tuple[int, int]:
    """(height, width) from the JPEG header, without decoding the photo."""
    size = _jpeg_size(path)
    if size is None:
        image = cv2.imread(str(path))
        if image is None:
            raise SystemExit(f"cannot read {path}")
        return image.shape[0], image.shape[1]
    return size


def _jpeg_size(path: Path) -> tuple[int, int] | None:
    data = path.read_bytes()
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[i + 5 : i + 7], "big"), int.from_bytes(data[i + 7 : i + 9], "big")
        i += 2 + length
    return None


def at_scale(image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """The photo shrunk so its long side is `long_side` (0: unchanged) and the factor used."""
    if long_side <= 0 or long_side >= max(image.shape[:2]):
        return image, 1.0
    factor = long_side / max(image.shape[:2])
    size = (round(image.shape[1] * factor), round(image.shape[0] * factor))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), factor


def jittered(box: DieBox, rng: np.random.Generator, spin: bool = True) -> DieBox:
    """The box as an imperfect detector might give it: shifted, resized, turned."""
    side = box.size
    return DieBox(
        box.cx + rng.normal(0, 0.05) * side,
        box.cy + rng.normal(0, 0.05) * side,
        box.w * rng.uniform(*BOX_SCALE),
        box.h * rng.uniform(*BOX_SCALE),
        float(rng.uniform(0, 360)) if spin else box.angle,
    )


def negative_boxes(dice: list[DieBox], width: int, height: int, rng: np.random.Generator, count: int) -> list[DieBox]:
    """Boxes a detector might wrongly propose: table, part of a die, two dice at once."""
    boxes: list[DieBox] = []
    if not dice:
        return boxes
    sides = [d.size for d in dice]
    for _ in range(count * 20):
        if len(boxes) >= count:
            break
        kind = rng.choice(("table", "half", "pair"), p=(0.45, 0.35, 0.2))
        side = float(rng.choice(sides)) * rng.uniform(0.8, 1.3)
        if kind == "table":
            if width <= 2 * side or height <= 2 * side:
                continue
            cx, cy = rng.uniform(side, width - side), rng.uniform(side, height - side)
            if all(math.hypot(cx - d.cx, cy - d.cy) > 0.9 * (d.size + side) / 2 + 0.3 * d.size for d in dice):
                boxes.append(DieBox(cx, cy, side, side, float(rng.uniform(0, 90))))
        elif kind == "half":
            d = dice[rng.integers(len(dice))]
            a = rng.uniform(0, 2 * math.pi)
            shift = rng.uniform(0.55, 0.9) * d.size
            cx, cy = d.cx + shift * math.cos(a), d.cy + shift * math.sin(a)
            others = [o for o in dice if o is not d]
            if all(math.hypot(cx - o.cx, cy - o.cy) > 0.5 * o.size for o in others):
                boxes.append(DieBox(cx, cy, d.w, d.h, float(rng.uniform(0, 90))))
        else:
            i, j = rng.choice(len(dice), 2, replace=False) if len(dice) > 1 else (0, 0)
            a, b = dice[i], dice[j]
            gap = math.hypot(a.cx - b.cx, a.cy - b.cy)
            if i != j and gap < 2.0 * max(a.size, b.size):
                angle = math.degrees(math.atan2(b.cy - a.cy, b.cx - a.cx))
                boxes.append(DieBox((a.cx + b.cx) / 2, (a.cy + b.cy) / 2, gap + (a.size + b.size) / 2, max(a.size, b.size), angle))
    return boxes


def extract(
    root: Path,
    split: str,
    scales: tuple[int, ...],
    augment: int,
    negatives_per_die: float,
    seed: int,
    die_side: float = 0.0,
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    photos = read_split(root, split, die_side)
    crops, labels, scale_of, photo_of = [], [], [], []
    for index, photo in enumerate(photos):
        full = cv2.imread(str(photo.path))
        if full is None:
            raise SystemExit(f"cannot read {photo.path}")
        for long_side in scales:
            image, factor = at_scale(full, long_side)
            boxes = [box.scaled(factor) for _, box in photo.dice]
            for (value, _), box in zip(photo.dice, boxes):
                variants = [jittered(box, rng) for _ in range(augment)] if augment else [box]
                for variant in variants:
                    crops.append(crop_die(image, variant))
                    labels.append(value - 1)
            n_negative = int(rng.poisson(negatives_per_die * len(boxes) * max(1, augment)))
            for box in negative_boxes(boxes, image.shape[1], image.shape[0], rng, n_negative):
                crops.append(crop_die(image, box))
                labels.append(NOT_A_DIE)
            scale_of.extend([long_side] * (len(labels) - len(scale_of)))
        photo_of.extend([index] * (len(labels) - len(photo_of)))
    return {
        "crops": np.asarray(crops, np.uint8).reshape(-1, 32, 32, 3),
        "labels": np.asarray(labels, np.int64),
        "scales": np.asarray(scale_of, np.int64),
        "photos": np.asarray(photo_of, np.int64),
        "names": np.asarray([p.path.name for p in photos]),
    }


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
    args = parser.parse_args(argv)
    default = TRAIN_SCALES if args.augment else REPORT_SCALES
    scales = tuple(int(s) for s in args.scales.split(",")) if args.scales else default
    cv2.setNumThreads(1)
    data = extract(args.root, args.split, scales, args.augment, args.negatives, args.seed, args.die_side)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    counts = np.bincount(data["labels"], minlength=7)
    print(f"{args.out}: {len(data['labels'])} crops from {len(data['names'])} photos, per class {counts.tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

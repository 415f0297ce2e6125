"""Die crops cut from labelled photos, and patches of the same photos that are not dice.

Each die is cut at several scales (the photo downscaled so its long side is 1280, 640, ...
pixels), because the reader sees webcam-sized dice. With `augment` N every die gives N
crops at random rotations and small box errors; with 0 it gives one exact crop per scale.
With `keep_up` the crops are turned only a little, so that a steep die's side faces stay
below its top face, as a camera looking down at a slant shows them.
With `webcam` a share of the scaled photos is also cut from a copy as a webcam stream would
show it (`webcam_copy`).
"""

from __future__ import annotations

import math
import os

import cv2
import numpy as np

from vision.eval.labels import LabelledDie, load_labelled_set
from vision.images import downscale, jpeg_round_trip
from vision.read.classifier import NOT_A_DIE
from vision.read.crops import CROP_SIZE, crop_die
from vision.types import DieBox

# Detector boxes range from the top face alone to the whole die with its sides.
BOX_SCALE = (0.65, 1.15)
TURN_SPREAD = 10.0  # degrees: how far a kept-up crop may turn
TRAIN_SCALES = (0, 1600, 1280, 960, 640, 480)
REPORT_SCALES = (0, 1280, 640)


# A webcam copy: sensor noise of this many grey levels and a JPEG round trip of this quality.
WEBCAM_NOISE = (1.0, 5.0)
WEBCAM_QUALITY = (40, 90)


def webcam_copy(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The photo as a webcam stream shows it: sensor noise, then a JPEG of middling quality,
    whose colour at half resolution washes out small pips that differ from their die by hue
    (dark dice with red pips) once a die is only 20 to 50 pixels across."""
    noise = rng.normal(0, rng.uniform(*WEBCAM_NOISE), image.shape)
    noisy = np.clip(image + noise, 0, 255).astype(np.uint8)
    return jpeg_round_trip(noisy, int(rng.integers(WEBCAM_QUALITY[0], WEBCAM_QUALITY[1] + 1)))


def die_box(die: LabelledDie, die_side: float = 0.0) -> DieBox:
    """The labelled box as a DieBox; `die_side` > 0 makes it a square of that side at the box's
    centre, for sets whose boxes hug the pips instead of the die."""
    x0, y0, x1, y1 = die.box
    cx, cy = die.center
    if die_side > 0:
        return DieBox(cx, cy, die_side, die_side, 0.0)
    return DieBox(cx, cy, x1 - x0, y1 - y0, 0.0)


def jittered(box: DieBox, rng: np.random.Generator, spin: bool = True, keep_up: bool = False) -> DieBox:
    """The box as an imperfect detector might give it: shifted, resized, turned (with `keep_up`,
    only a little)."""
    side = box.size
    return DieBox(
        box.cx + rng.normal(0, 0.05) * side,
        box.cy + rng.normal(0, 0.05) * side,
        box.w * rng.uniform(*BOX_SCALE),
        box.h * rng.uniform(*BOX_SCALE),
        (float(rng.normal(0, TURN_SPREAD)) if keep_up else float(rng.uniform(0, 360))) if spin else box.angle,
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
            one, two = dice[i], dice[j]
            gap = math.hypot(one.cx - two.cx, one.cy - two.cy)
            if i != j and gap < 2.0 * max(one.size, two.size):
                angle = math.degrees(math.atan2(two.cy - one.cy, two.cx - one.cx))
                side = max(one.size, two.size)
                middle = ((one.cx + two.cx) / 2, (one.cy + two.cy) / 2)
                boxes.append(DieBox(*middle, gap + (one.size + two.size) / 2, side, angle))
    return boxes


def extract(
    root: str | os.PathLike[str],
    split: str,
    scales: tuple[int, ...],
    augment: int,
    negatives_per_die: float,
    seed: int,
    die_side: float = 0.0,
    webcam: float = 0.0,
    keep_up: bool = False,
) -> dict[str, np.ndarray]:
    """Crops of every die of a labelled set's split at each scale, with not-a-die crops among them;
    that share (`webcam`) of the scaled photos is cut a second time from its `webcam_copy`.
    With `keep_up`, the augmented crops are turned only a little (`TURN_SPREAD`).

    Returns `crops` (N, 32, 32, 3) uint8 BGR, `labels` (0..5 = faces 1..6, 6 = not a die),
    `scales` (long side, 0 = full size), `photos` (index into `names`) and `names`.
    """
    rng = np.random.default_rng(seed)
    photos = load_labelled_set(root, split)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    scale_of: list[int] = []
    photo_of: list[int] = []
    for index, photo in enumerate(photos):
        full = cv2.imread(str(photo.path))
        if full is None:
            raise ValueError(f"cannot read {photo.path}")
        for long_side in scales:
            scaled, factor = downscale(full, long_side)
            boxes = [die_box(die, die_side).scaled(factor) for die in photo.dice]
            copies = [scaled, webcam_copy(scaled, rng)] if webcam > 0 and rng.random() < webcam else [scaled]
            for image in copies:
                for die, box in zip(photo.dice, boxes):
                    variants = [jittered(box, rng, keep_up=keep_up) for _ in range(augment)] if augment else [box]
                    for variant in variants:
                        crops.append(crop_die(image, variant))
                        labels.append(die.value - 1)
                n_negative = int(rng.poisson(negatives_per_die * len(boxes) * max(1, augment)))
                for box in negative_boxes(boxes, image.shape[1], image.shape[0], rng, n_negative):
                    crops.append(crop_die(image, box))
                    labels.append(NOT_A_DIE)
            scale_of.extend([long_side] * (len(labels) - len(scale_of)))
        photo_of.extend([index] * (len(labels) - len(photo_of)))
    return {
        "crops": np.asarray(crops, np.uint8).reshape(-1, CROP_SIZE, CROP_SIZE, 3),
        "labels": np.asarray(labels, np.int64),
        "scales": np.asarray(scale_of, np.int64),
        "photos": np.asarray(photo_of, np.int64),
        "names": np.asarray([p.path.name for p in photos]),
    }

"""Die crops cut from the detector's domain-randomised frames, for the classifier.

`vision.training.rendered_crops` draws one die on a plain table of a few kinds. The detector's
frames (`vision.synth.domain.random_sample`) hold what a table never seen brings: granite,
print, paper, carpet and painted surfaces, trays, clutter, matched sets, a slanted camera, its
light and its noise. Each labelled die of such a frame is cut as the reader cuts a die from the
detector's box (its top face), jittered as `rendered_crops` jitters it, with the picture's up
kept. Four frames in five also give a "not a die face": a box of a die's size away from every
labelled die (bare table, clutter, a die cut off by the frame's edge or leaning too far to be
labelled).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.read.classifier import NOT_A_DIE
from vision.read.crops import CROP_SIZE, crop_die
from vision.synth.domain import random_sample
from vision.training.detector_frames import in_chunks
from vision.training.rendered_crops import jittered
from vision.types import DieBox

MIN_SIDE = 12.0  # a top face smaller than this, in the frame's pixels, is not cut
NEGATIVE_SHARE = 0.2  # the share of crops, about, that are "not a die face"
CLEARANCE = 1.2  # a negative's centre lies this many die sides from every labelled die's


def _negative_box(
    rng: np.random.Generator, centres: np.ndarray, sides: np.ndarray, side: float, width: int, height: int
) -> DieBox | None:
    reach = CLEARANCE * np.maximum(sides, side)
    for _ in range(10):
        cx, cy = float(rng.uniform(0, width)), float(rng.uniform(0, height))
        if not len(centres) or np.all(np.hypot(centres[:, 0] - cx, centres[:, 1] - cy) > reach):
            return DieBox(cx, cy, side * rng.uniform(0.9, 1.2), side * rng.uniform(0.9, 1.2), 0.0)
    return None


def _cut(job: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    seed, count, side = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    for _ in range(count):
        sample = random_sample(rng, side, side)
        sides = sample.sizes.max(axis=1) if len(sample.sizes) else np.zeros(0, np.float32)
        for (cx, cy), (w, h), value, die_side in zip(sample.centres, sample.sizes, sample.values, sides):
            if die_side < MIN_SIDE:
                continue
            box = jittered(DieBox(float(cx), float(cy), float(w), float(h), 0.0), rng, keep_up=True)
            crops.append(crop_die(sample.frame, box))
            labels.append(int(value) - 1)
        # Frames hold about four dice: a negative for each of four frames in five keeps the
        # "not a die" share near `NEGATIVE_SHARE`.
        if rng.random() < 4 * NEGATIVE_SHARE:
            typical = float(np.median(sides)) if len(sides) else float(np.exp(rng.uniform(np.log(15), np.log(100))))
            negative = _negative_box(rng, sample.centres, sides, max(typical, MIN_SIDE), side, side)
            if negative is not None:
                crops.append(crop_die(sample.frame, negative))
                labels.append(NOT_A_DIE)
    empty = np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    return (np.stack(crops) if crops else empty), np.asarray(labels, np.int64)


def build(frames: int, seed: int, side: int = 384, workers: int = 2) -> dict[str, np.ndarray]:
    """Crops (N, 32, 32, 3) uint8 BGR and labels (0..5 faces 1..6, 6 not a die) cut from
    `frames` rendered frames of `side` x `side`."""
    parts = in_chunks(_cut, frames, seed, side, workers, stride=100019)
    return {"crops": np.concatenate([p[0] for p in parts]), "labels": np.concatenate([p[1] for p in parts])}

"""Scoring readings against labelled dice: matching, accuracy, precision, recall, confusion."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.eval.labels import Box, LabelledDie, inside_any, load_labelled_set, scaled_box
from vision.images import ImageError, downscale, load_image
from vision.read.reader import DiceReader
from vision.types import DieReading


def match(readings: Sequence[DieReading], labels: Sequence[LabelledDie]) -> list[tuple[int, int]]:
    """Pairs (reading index, label index), nearest first. A reading finds a label when its
    centre lies within half a die of the label's centre (the die is the label box's shorter
    side), or when its box holds the label's centre: a set that labels only a die's top face
    (matteop65-webcam) puts that centre well inside a slanted die's whole box, which a reader
    need not centre on the top face."""
    pairs = []
    for i, reading in enumerate(readings):
        corners = reading.box.corners()
        for j, label in enumerate(labels):
            gap, side = _gap(reading, label)
            if gap <= 0.5 * side or cv2.pointPolygonTest(corners, label.center, False) >= 0:
                pairs.append((gap, i, j))
    pairs.sort()
    used_readings: set[int] = set()
    used_labels: set[int] = set()
    matched = []
    for _, i, j in pairs:
        if i in used_readings or j in used_labels:
            continue
        used_readings.add(i)
        used_labels.add(j)
        matched.append((i, j))
    return matched


@dataclass
class ImageScore:
    labelled: int
    reported: int
    found: int  # labelled dice matched by a reading
    right: int  # of those, with the right value
    ms: float
    unlabelled: int = 0  # readings on dice the labels leave out, in neither `reported` nor `found`
    # For each found die, how far the reading's centre lies from its label's, in dice (the
    # label box's shorter side): where `read --annotate` draws it against where the die is.
    offsets: tuple[float, ...] = ()

    @property
    def exact(self) -> bool:
        return self.right == self.labelled == self.reported


@dataclass
class Evaluation:
    """Totals over a labelled set. `confusion[label - 1][read]`: read 0 means not found."""

    images: list[ImageScore] = field(default_factory=list)
    confusion: list[list[int]] = field(default_factory=lambda: [[0] * 7 for _ in range(6)])
    false_values: list[int] = field(default_factory=lambda: [0] * 6)  # readings with no die, by value

    def add(
        self, readings: Sequence[DieReading], labels: Sequence[LabelledDie], ms: float, unlabelled: Sequence[Box] = ()
    ) -> ImageScore:
        """Scores one image's readings. A reading that matches no label but lies on a die the
        labels leave out (`unlabelled`: cut by the border, too blurred to read) counts neither
        way: it is not reported, and not false."""
        pairs = match(readings, labels)
        right = 0
        for i, j in pairs:
            value = readings[i].value
            self.confusion[labels[j].value - 1][value] += 1
            right += value == labels[j].value
        matched_labels = {j for _, j in pairs}
        for j, label in enumerate(labels):
            if j not in matched_labels:
                self.confusion[label.value - 1][0] += 1
        matched_readings = {i for i, _ in pairs}
        aside = 0
        for i, reading in enumerate(readings):
            if i in matched_readings:
                continue
            if inside_any(reading.box.center, unlabelled):
                aside += 1
            else:
                self.false_values[reading.value - 1] += 1
        offsets = tuple(_offset(readings[i], labels[j]) for i, j in pairs)
        score = ImageScore(len(labels), len(readings) - aside, len(pairs), right, ms, aside, offsets)
        self.images.append(score)
        return score

    @property
    def labelled(self) -> int:
        return sum(s.labelled for s in self.images)

    @property
    def reported(self) -> int:
        return sum(s.reported for s in self.images)

    def summary(self) -> dict[str, float | int]:
        labelled, reported = self.labelled, self.reported
        found = sum(s.found for s in self.images)
        right = sum(s.right for s in self.images)
        count = len(self.images)
        offsets = [o for score in self.images for o in score.offsets]
        return {
            "images": count,
            "labelled_dice": labelled,
            "reported_dice": reported,
            "unlabelled_dice_read": sum(s.unlabelled for s in self.images),
            "accuracy": right / labelled if labelled else 0.0,
            "precision": found / reported if reported else 0.0,
            "recall": found / labelled if labelled else 0.0,
            "exact_throws": sum(s.exact for s in self.images) / count if count else 0.0,
            "ms_per_image": sum(s.ms for s in self.images) / count if count else 0.0,
            "placement": sum(offsets) / len(offsets) if offsets else 0.0,
        }


def _gap(reading: DieReading, label: LabelledDie) -> tuple[float, float]:
    """How far `reading` lies from the centre of the die `label` marks, and that die's side
    (the label box's shorter side), in pixels."""
    x0, y0, x1, y1 = label.box
    gap = float(np.hypot(reading.box.cx - label.center[0], reading.box.cy - label.center[1]))
    return gap, min(x1 - x0, y1 - y0)


def _offset(reading: DieReading, label: LabelledDie) -> float:
    """How far `reading` lies from the centre of the die `label` marks, in that die's sides."""
    gap, side = _gap(reading, label)
    return gap / side if side > 0 else 0.0


def evaluate_set(
    dataset: str | os.PathLike[str],
    split: str | None,
    max_side: int,
    reader: DiceReader,
    on_unreadable: Callable[[ImageError], None] | None = None,
) -> Evaluation:
    """Read every labelled image of the set (`split` may list several, "val,test") and score it.

    An image that cannot be read is left out and handed to `on_unreadable`.
    """
    evaluation = Evaluation()
    splits = split.split(",") if split else [None]
    for name in splits:
        for item in load_labelled_set(dataset, name):
            try:
                image = load_image(item.path)
            except ImageError as exc:
                if on_unreadable is not None:
                    on_unreadable(exc)
                continue
            frame, scale = downscale(image, max_side)
            labels = [d.scaled(scale) for d in item.dice]
            unlabelled = [scaled_box(box, scale) for box in item.unlabelled]
            start = time.perf_counter()
            readings = reader.read(frame)
            evaluation.add(readings, labels, (time.perf_counter() - start) * 1000.0, unlabelled)
    return evaluation

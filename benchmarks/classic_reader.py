"""A classic dice reader, for comparison: OpenCV's SimpleBlobDetector finds pip-like spots
on the whole grey frame, and spots of one size lying close together are clustered into dice.

It has no notion of a die's body, so it is fast but fooled by any round spots; it is here as
the baseline that `dicekeeper bench --live` is measured against.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.types import DieBox, DieReading


class ClassicBlobReader:
    def __init__(self, min_pip: float = 5.0, max_pip: float = 40.0, reach: float = 4.0) -> None:
        params = cv2.SimpleBlobDetector.Params()
        params.minThreshold, params.maxThreshold, params.thresholdStep = 40, 220, 15
        params.minRepeatability = 3
        params.filterByColor = False  # dark pips on light dice and light pips on dark dice
        params.filterByArea = True
        params.minArea = float(np.pi / 4 * min_pip**2)
        params.maxArea = float(np.pi / 4 * max_pip**2)
        params.filterByCircularity, params.minCircularity = True, 0.75
        params.filterByInertia, params.minInertiaRatio = True, 0.45
        params.filterByConvexity, params.minConvexity = True, 0.85
        self._detector = cv2.SimpleBlobDetector.create(params)
        self.reach = reach  # pips of one die lie within this many pip diameters of a neighbour

    def read(self, frame_bgr: np.ndarray) -> list[DieReading]:
        grey = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
        points = self._detector.detect(grey)
        if not points:
            return []
        xy = np.array([p.pt for p in points], np.float32)
        size = np.array([p.size for p in points], np.float32)
        # Single-linkage clustering: pips of similar size within reach of each other.
        gap = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
        mean = (size[:, None] + size[None, :]) / 2
        ratio = np.maximum(size[:, None], size[None, :]) / np.maximum(np.minimum(size[:, None], size[None, :]), 1e-3)
        linked = (gap < self.reach * mean) & (ratio < 1.6)
        count, labels = _components(linked)
        readings = []
        for label in range(count):
            members = np.flatnonzero(labels == label)
            n = len(members)
            if n > 6:
                continue  # a heap of touching dice: the classic reader gives up on it
            cx, cy = xy[members].mean(axis=0)
            side = float(size[members].mean() * 5)
            readings.append(DieReading(n, DieBox(float(cx), float(cy), side, side), 0.5, "classic"))
        return readings


def _components(linked: np.ndarray) -> tuple[int, np.ndarray]:
    labels = np.full(len(linked), -1)
    count = 0
    for start in range(len(linked)):
        if labels[start] >= 0:
            continue
        stack = [start]
        labels[start] = count
        while stack:
            i = stack.pop()
            for j in np.flatnonzero(linked[i] & (labels < 0)):
                labels[j] = count
                stack.append(int(j))
        count += 1
    return count, labels

"""The result types of the reading pipeline, one per stage."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

BGR = tuple[int, int, int]
"""A colour as OpenCV stores it: blue, green, red, each 0..255."""


def as_bgr(channels: Iterable[float]) -> BGR:
    """Three channel values as a colour, each clipped to 0..255 and rounded down."""
    b, g, r = (int(min(max(c, 0), 255)) for c in channels)
    return (b, g, r)


@dataclass(frozen=True)
class DieBox:
    """A die's rotated rectangle in frame pixels: centre, side lengths, angle in degrees."""

    cx: float
    cy: float
    w: float
    h: float
    angle: float = 0.0

    @property
    def center(self) -> tuple[float, float]:
        return (self.cx, self.cy)

    @property
    def size(self) -> float:
        return (self.w + self.h) / 2.0

    def bounds(self) -> tuple[float, float, float, float]:
        """Axis-aligned (x0, y0, x1, y1) that encloses the rotated rectangle."""
        a = math.radians(self.angle)
        c, s = abs(math.cos(a)), abs(math.sin(a))
        half_w = (self.w * c + self.h * s) / 2.0
        half_h = (self.w * s + self.h * c) / 2.0
        return (self.cx - half_w, self.cy - half_h, self.cx + half_w, self.cy + half_h)

    def corners(self) -> np.ndarray:
        """The rectangle's four corners, a (4, 2) float32 array in frame pixels."""
        return cv2.boxPoints(((self.cx, self.cy), (self.w, self.h), self.angle))

    def scaled(self, factor: float) -> DieBox:
        return DieBox(self.cx * factor, self.cy * factor, self.w * factor, self.h * factor, self.angle)


@dataclass(frozen=True)
class DieReading:
    """One die read from a frame: its value 1..6, where it is, how sure, and who decided."""

    value: int
    box: DieBox
    confidence: float
    method: str  # "pips", "classifier", ...

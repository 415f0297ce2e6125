"""Drawing readings on a frame. Only draws: it never reads or changes a reading."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.types import DieReading

# Colours are BGR.
GREEN = (80, 200, 40)
ORANGE = (0, 140, 255)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
METHOD_COLORS: dict[str, tuple[int, int, int]] = {"pips": GREEN, "classifier": ORANGE}


def draw_die(image: np.ndarray, reading: DieReading, colour: tuple[int, int, int], line: int) -> None:
    """Draw one die's rotated box and its value on `image` in place (colour is BGR)."""
    box = reading.box
    corners = box.corners().round().astype(np.int32)
    cv2.polylines(image, [corners], isClosed=True, color=colour, thickness=line, lineType=cv2.LINE_AA)
    label = str(reading.value)
    scale = max(0.4, box.size / 60.0)
    (text_w, text_h), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, line)
    x0, y0, _, _ = box.bounds()
    origin = (int(x0), int(max(text_h + base, y0 - base)))
    cv2.rectangle(
        image, (origin[0], origin[1] - text_h - base), (origin[0] + text_w, origin[1] + base), colour, cv2.FILLED
    )
    cv2.putText(image, label, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, WHITE, line, cv2.LINE_AA)


def annotate(frame_bgr: np.ndarray, readings: Sequence[DieReading], thickness: int | None = None) -> np.ndarray:
    """A copy of the frame with each die's rotated box and value drawn on it."""
    scene = frame_bgr.copy()
    line = thickness or max(1, round(max(scene.shape[:2]) / 640))
    for reading in readings:
        draw_die(scene, reading, METHOD_COLORS.get(reading.method, GREEN), line)
    return scene

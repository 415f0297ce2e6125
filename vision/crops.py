"""Cut one die out of a frame as a small upright square, the classifier's input."""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.types import DieBox

CROP_SIZE = 32
CROP_MARGIN = 0.15  # of the box side, on each side: the die's edge stays inside the crop


def crop_die(frame_bgr: np.ndarray, box: DieBox, size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """The box turned upright and stretched to `size` x `size` pixels (uint8 BGR).

    Outside the frame is filled by replicating the border, so a die at the edge of the
    picture still gives a full crop.
    """
    span_w = max(box.w, 1.0) * (1 + 2 * margin)
    span_h = max(box.h, 1.0) * (1 + 2 * margin)
    a = math.radians(box.angle)
    c, s = math.cos(a), math.sin(a)
    # Frame = centre + R(angle) @ (crop offset scaled to the box); invert it for warpAffine.
    sx, sy = span_w / size, span_h / size
    to_frame = np.array(
        [
            [c * sx, -s * sy, box.cx - (c * sx * size - s * sy * size) / 2],
            [s * sx, c * sy, box.cy - (s * sx * size + c * sy * size) / 2],
        ]
    )
    # Shrinking a lot in one step aliases the pips away: blur to the output scale first.
    shrink = min(span_w, span_h) / size
    source = frame_bgr
    if shrink > 2.0:
        x0, y0, x1, y1 = box.bounds()
        pad = int(max(span_w, span_h))
        fx0, fy0 = max(0, int(x0) - pad), max(0, int(y0) - pad)
        fx1, fy1 = min(frame_bgr.shape[1], int(x1) + pad), min(frame_bgr.shape[0], int(y1) + pad)
        if fx1 > fx0 and fy1 > fy0:
            source = cv2.GaussianBlur(frame_bgr[fy0:fy1, fx0:fx1], (0, 0), 0.45 * shrink)
            to_frame[0, 2] -= fx0
            to_frame[1, 2] -= fy0
    return cv2.warpAffine(
        source,
        to_frame,
        (size, size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def crop_dice(frame_bgr: np.ndarray, boxes: Sequence[DieBox], size: int = CROP_SIZE) -> np.ndarray:
    """All boxes' crops stacked as an (N, size, size, 3) uint8 array."""
    crops = np.empty((len(boxes), size, size, 3), np.uint8)
    for i, box in enumerate(boxes):
        crops[i] = crop_die(frame_bgr, box, size)
    return crops

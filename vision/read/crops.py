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
    """The box's square turned upright and scaled to `size` x `size` pixels (uint8 BGR).

    The square's side is the box's longer side: a die is square, so a box that is not
    has missed part of it, and stretching would distort the pips.  Outside the frame is
    filled by replicating the border, so a die at the edge still gives a full crop.
    """
    span = max(box.w, box.h, 1.0) * (1 + 2 * margin)
    height, width = frame_bgr.shape[:2]
    # Only the part of the frame the turned square can reach is resampled.
    reach = int(span * 0.75) + 4
    x0 = min(max(int(box.cx) - reach, 0), width - 1)
    y0 = min(max(int(box.cy) - reach, 0), height - 1)
    x1 = max(min(int(box.cx) + reach + 1, width), x0 + 1)
    y1 = max(min(int(box.cy) + reach + 1, height), y0 + 1)
    region = frame_bgr[y0:y1, x0:x1]
    cx, cy = box.cx - x0, box.cy - y0
    step = span / size  # region pixels per crop pixel
    # Sample at twice the crop's resolution and average 2x2; halve big dice first so
    # that no sample step exceeds two pixels (else small pips alias away).
    while step > 4.0 and min(region.shape[:2]) > 8:
        region = cv2.pyrDown(region)
        cx, cy, step = cx / 2, cy / 2, step / 2
    fine = step / 2
    a = math.radians(box.angle)
    c, s = math.cos(a) * fine, math.sin(a) * fine
    half = size + 0.5  # fine pixel j sits at crop coordinate j / 2 - 0.25; the centre is crop pixel size / 2
    to_region = np.array([[c, -s, cx - (c - s) * half], [s, c, cy - (s + c) * half]])
    supersampled = cv2.warpAffine(
        region,
        to_region,
        (2 * size, 2 * size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return cv2.resize(supersampled, (size, size), interpolation=cv2.INTER_AREA)


def crop_dice(frame_bgr: np.ndarray, boxes: Sequence[DieBox], size: int = CROP_SIZE) -> np.ndarray:
    """All boxes' crops stacked as an (N, size, size, 3) uint8 array."""
    crops = np.empty((len(boxes), size, size, 3), np.uint8)
    for i, box in enumerate(boxes):
        crops[i] = crop_die(frame_bgr, box, size)
    return crops

"""The app's icon (a die showing five on the table's green), drawn once per size for the favicon
and the install manifest, so no image files need to be kept in step with the colours."""

from __future__ import annotations

import struct
from functools import lru_cache

import cv2
import numpy as np

FELT = (63, 95, 31)  # BGR of --felt
DIE = (247, 253, 255)
PIP = (27, 27, 27)
SIZES = (192, 512)
OVERSAMPLE = 4  # drawn large and shrunk, for smooth edges


def _rounded_square(
    image: np.ndarray, left: int, top: int, side: int, radius: int, colour: tuple[int, int, int]
) -> None:
    right, bottom = left + side, top + side
    cv2.rectangle(image, (left + radius, top), (right - radius, bottom), colour, -1)
    cv2.rectangle(image, (left, top + radius), (right, bottom - radius), colour, -1)
    for x, y in (
        (left + radius, top + radius),
        (right - radius, top + radius),
        (left + radius, bottom - radius),
        (right - radius, bottom - radius),
    ):
        cv2.circle(image, (x, y), radius, colour, -1, lineType=cv2.LINE_AA)


@lru_cache(maxsize=8)
def icon_png(size: int) -> bytes:
    """A square PNG icon of `size` pixels."""
    big = size * OVERSAMPLE
    image = np.zeros((big, big, 3), np.uint8)
    image[:] = FELT
    margin = big // 6
    side = big - 2 * margin
    _rounded_square(image, margin, margin, side, side // 6, DIE)
    for fx, fy in ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)):
        centre = (margin + int(side * fx), margin + int(side * fy))
        cv2.circle(image, centre, side // 11, PIP, -1, lineType=cv2.LINE_AA)
    small = cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA)
    ok, encoded = cv2.imencode(".png", small)
    if not ok:
        raise RuntimeError("the icon could not be encoded as PNG")
    return encoded.tobytes()


@lru_cache(maxsize=1)
def favicon_ico() -> bytes:
    """An .ico file holding one 32x32 PNG image (every current browser reads PNG inside ICO)."""
    png = icon_png(32)
    header = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", 32, 32, 0, 0, 1, 32, len(png), 6 + 16)
    return header + entry + png

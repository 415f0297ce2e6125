"""Loading image files robustly and scaling them down for reading."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import cv2
import numpy as np


class ImageError(ValueError):
    """A file that is not a readable image; the message names the file and the reason."""


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """The image at `path` as a BGR uint8 array, or ImageError with one clear reason."""
    file = Path(path)
    if not file.exists():
        raise ImageError(f"{file}: no such file")
    if file.is_dir():
        raise ImageError(f"{file}: is a folder, not an image")
    try:
        data = np.fromfile(str(file), dtype=np.uint8)
    except OSError as exc:
        raise ImageError(f"{file}: cannot be read ({exc.strerror or exc})") from None
    if data.size == 0:
        raise ImageError(f"{file}: empty file")
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise ImageError(f"{file}: not an image OpenCV can decode")
    return image


def downscale(image: np.ndarray, max_side: int | None) -> tuple[np.ndarray, float]:
    """The image shrunk so its long side is at most `max_side`, and the factor applied (<= 1)."""
    if not max_side or max(image.shape[:2]) <= max_side:
        return image, 1.0
    factor = max_side / max(image.shape[:2])
    size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), factor


def read_image_size(path: str | os.PathLike[str]) -> tuple[int, int]:
    """(width, height) of a JPEG or PNG from its header, decoding the whole file only if needed."""
    with open(path, "rb") as handle:
        head = handle.read(26)
        if head.startswith(b"\x89PNG\r\n\x1a\n"):
            width, height = struct.unpack(">II", head[16:24])
            return int(width), int(height)
        if head.startswith(b"\xff\xd8"):
            handle.seek(2)
            while True:
                marker = handle.read(2)
                if len(marker) < 2 or marker[0] != 0xFF:
                    break
                if marker[1] in (0xD8, 0x01) or 0xD0 <= marker[1] <= 0xD7:
                    continue
                (length,) = struct.unpack(">H", handle.read(2))
                if 0xC0 <= marker[1] <= 0xCF and marker[1] not in (0xC4, 0xC8, 0xCC):
                    height, width = struct.unpack(">xHH", handle.read(5))
                    return int(width), int(height)
                handle.seek(length - 2, 1)
    image = load_image(path)
    return image.shape[1], image.shape[0]

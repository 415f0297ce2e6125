"""Loading image files robustly and scaling them down for reading."""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np

# EXIF orientations that turn the picture a quarter: 5 and 7 mirror it as well.
QUARTER_TURNS = (5, 6, 7, 8)


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


def jpeg_round_trip(image: np.ndarray, quality: int) -> np.ndarray:
    """The BGR image as a JPEG of this quality gives it back: OpenCV's encoder keeps colour at
    half resolution (4:2:0), as webcam streams and phone photos do."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
    return image if decoded is None else decoded


def read_image_size(path: str | os.PathLike[str]) -> tuple[int, int]:
    """(width, height) of the image as `load_image` gives it, from a JPEG's or PNG's header,
    decoding the whole file only if needed. A JPEG whose EXIF orientation turns it a quarter
    (a phone held upright) is decoded turned, so its width and height trade places."""
    header = read_header(path)
    if header is None:
        image = load_image(path)
        return image.shape[1], image.shape[0]
    width, height, orientation = header
    return (height, width) if orientation in QUARTER_TURNS else (width, height)


def read_header(path: str | os.PathLike[str]) -> tuple[int, int, int] | None:
    """(width, height, EXIF orientation) of a JPEG or PNG as stored, before any turning; None
    for other files or a header that ends too soon."""
    with open(path, "rb") as handle:
        head = handle.read(26)
        if head.startswith(b"\x89PNG\r\n\x1a\n"):
            width, height = struct.unpack(">II", head[16:24])
            return int(width), int(height), _png_orientation(handle)
        if head.startswith(b"\xff\xd8"):
            return _jpeg_header(handle)
    return None


def _png_orientation(handle: BinaryIO) -> int:
    """The orientation of a PNG's eXIf chunk (OpenCV turns a PNG by it too); 1 without one."""
    handle.seek(8)
    while True:
        chunk = handle.read(8)
        if len(chunk) < 8:
            return 1
        length, kind = struct.unpack(">I4s", chunk)
        if kind == b"eXIf":
            return _tiff_orientation(handle.read(min(length, 1 << 16)))
        if kind == b"IEND":
            return 1
        handle.seek(length + 4, 1)


def _jpeg_header(handle: BinaryIO) -> tuple[int, int, int] | None:
    handle.seek(2)
    orientation = 1
    while True:
        marker = handle.read(2)
        if len(marker) < 2 or marker[0] != 0xFF:
            return None
        if marker[1] in (0xD8, 0x01) or 0xD0 <= marker[1] <= 0xD7:
            continue
        length_bytes = handle.read(2)
        if len(length_bytes) < 2:
            return None
        (length,) = struct.unpack(">H", length_bytes)
        if 0xC0 <= marker[1] <= 0xCF and marker[1] not in (0xC4, 0xC8, 0xCC):
            frame = handle.read(5)
            if len(frame) < 5:
                return None
            height, width = struct.unpack(">xHH", frame)
            return int(width), int(height), orientation
        if marker[1] == 0xE1 and orientation == 1:  # APP1: EXIF (or XMP, which holds none)
            segment = handle.read(max(0, length - 2))
            orientation = _tiff_orientation(segment[6:]) if segment.startswith(b"Exif\x00\x00") else 1
        else:
            handle.seek(length - 2, 1)


def turn_box(
    box: tuple[float, float, float, float], orientation: int, width: int, height: int
) -> tuple[float, float, float, float]:
    """A box in the stored pixels of a `width` x `height` image, placed in the image as EXIF
    `orientation` turns it on loading."""
    x0, y0, x1, y1 = box
    turned = {
        2: (width - x1, y0, width - x0, y1),
        3: (width - x1, height - y1, width - x0, height - y0),
        4: (x0, height - y1, x1, height - y0),
        5: (y0, x0, y1, x1),
        6: (height - y1, x0, height - y0, x1),
        7: (height - y1, width - x1, height - y0, width - x0),
        8: (y0, width - x1, y1, width - x0),
    }
    return turned.get(orientation, box)


def _tiff_orientation(tiff: bytes) -> int:
    """The orientation tag (1..8) in the first directory of an EXIF TIFF block; 1 when none."""
    if len(tiff) < 8:
        return 1
    order = {b"II": "<", b"MM": ">"}.get(tiff[:2])
    if order is None:
        return 1
    (first,) = struct.unpack(order + "I", tiff[4:8])
    if first + 2 > len(tiff):
        return 1
    (count,) = struct.unpack(order + "H", tiff[first : first + 2])
    for index in range(count):
        start = first + 2 + 12 * index
        entry = tiff[start : start + 12]
        if len(entry) < 12:
            return 1
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag == 0x0112 and kind == 3:  # orientation, a SHORT
            (value,) = struct.unpack(order + "H", entry[8:10])
            return value if 1 <= value <= 8 else 1
    return 1

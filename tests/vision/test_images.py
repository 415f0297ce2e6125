"""Loading image files: every bad file gets one clear reason."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.images import ImageError, downscale, load_image, read_image_size


def test_loads_a_png_as_bgr(tmp_path: Path) -> None:
    image = np.zeros((30, 40, 3), np.uint8)
    image[:, :, 2] = 255
    path = tmp_path / "red.png"
    cv2.imwrite(str(path), image)
    loaded = load_image(path)
    assert loaded.shape == (30, 40, 3)
    assert loaded[0, 0].tolist() == [0, 0, 255]


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.write_bytes(b""), "empty file"),
        (lambda p: p.write_text("not a picture"), "not an image"),
        (lambda p: p.mkdir(), "is a folder"),
    ],
)
def test_bad_files_give_one_reason(tmp_path: Path, make, reason: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "input.jpg"
    make(path)
    with pytest.raises(ImageError, match=reason):
        load_image(path)


def test_downscale_keeps_small_images_and_shrinks_large_ones() -> None:
    image = np.zeros((720, 1280, 3), np.uint8)
    same, factor = downscale(image, 2000)
    assert same is image and factor == 1.0
    small, factor = downscale(image, 640)
    assert small.shape == (360, 640, 3)
    assert factor == pytest.approx(0.5)
    assert downscale(image, 0)[1] == 1.0


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_reads_size_from_the_header(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"frame{suffix}"
    cv2.imwrite(str(path), np.zeros((123, 45, 3), np.uint8))
    assert read_image_size(path) == (45, 123)

"""Loading image files: every bad file gets one clear reason."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.eval.labels import load_labelled_set
from vision.images import ImageError, downscale, jpeg_round_trip, load_image, read_image_size, turn_box


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


def test_a_jpeg_round_trip_keeps_the_picture_but_halves_its_colour_detail() -> None:
    # Stripes one pixel wide that differ only in hue: the brightness survives, the colour blurs.
    image = np.zeros((32, 32, 3), np.uint8)
    image[:, ::2] = (40, 40, 160)
    image[:, 1::2] = (80, 80, 60)
    back = jpeg_round_trip(image, 95)
    assert back.shape == image.shape and back.dtype == np.uint8
    grey, grey_back = (cv2.cvtColor(x, cv2.COLOR_BGR2GRAY).astype(int) for x in (image, back))
    assert np.abs(grey_back - grey).mean() < 4
    hue_gap = image[:, ::2, 2].astype(int).mean() - image[:, 1::2, 2].astype(int).mean()
    hue_gap_back = back[:, ::2, 2].astype(int).mean() - back[:, 1::2, 2].astype(int).mean()
    assert hue_gap_back < 0.5 * hue_gap
    assert not np.array_equal(jpeg_round_trip(image, 30), back)


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_reads_size_from_the_header(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"frame{suffix}"
    cv2.imwrite(str(path), np.zeros((123, 45, 3), np.uint8))
    assert read_image_size(path) == (45, 123)


def _jpeg_with_orientation(image: np.ndarray, orientation: int, byte_order: str = ">") -> bytes:
    """A JPEG of `image` (raw pixels) with an EXIF block holding only its orientation tag."""
    encoded = cv2.imencode(".jpg", image)[1].tobytes()
    mark = b"MM" if byte_order == ">" else b"II"
    entry = struct.pack(byte_order + "HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff = mark + struct.pack(byte_order + "HI", 42, 8) + struct.pack(byte_order + "H", 1) + entry + b"\0\0\0\0"
    body = b"Exif\0\0" + tiff
    return encoded[:2] + b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body + encoded[2:]


@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("byte_order", [">", "<"])
def test_size_from_the_header_is_the_size_as_loaded(tmp_path: Path, orientation: int, byte_order: str) -> None:
    # Phones store an upright photo lying down and say so in EXIF; OpenCV turns it on loading.
    path = tmp_path / "phone.jpg"
    path.write_bytes(_jpeg_with_orientation(np.zeros((60, 160, 3), np.uint8), orientation, byte_order))
    loaded = load_image(path)
    assert read_image_size(path) == (loaded.shape[1], loaded.shape[0])
    assert read_image_size(path) == ((60, 160) if orientation >= 5 else (160, 60))


def test_yolo_labels_of_an_upright_phone_photo_land_on_its_die(tmp_path: Path) -> None:
    raw = np.zeros((60, 160, 3), np.uint8)
    raw[:20, :40] = 255  # the die: top left of the stored pixels
    (tmp_path / "val" / "images").mkdir(parents=True)
    (tmp_path / "val" / "labels").mkdir()
    path = tmp_path / "val" / "images" / "phone.jpg"
    path.write_bytes(_jpeg_with_orientation(raw, 6))
    loaded = load_image(path)
    ys, xs = np.nonzero(loaded[:, :, 0] > 128)
    width, height = loaded.shape[1], loaded.shape[0]
    # The label is made on the picture as every viewer shows it: turned.
    x, y = (xs.min() + xs.max() + 1) / 2 / width, (ys.min() + ys.max() + 1) / 2 / height
    w, h = (xs.max() + 1 - xs.min()) / width, (ys.max() + 1 - ys.min()) / height
    (tmp_path / "val" / "labels" / "phone.txt").write_text(f"2 {x} {y} {w} {h}\n")
    (tmp_path / "data.yaml").write_text("names: ['1', '2', '3', '4', '5', '6']\n")
    (die,) = load_labelled_set(tmp_path, "val")[0].dice
    x0, y0, x1, y1 = die.box
    assert (x0, y0, x1, y1) == pytest.approx((xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), abs=0.5)
    assert loaded[int(y0) : int(y1), int(x0) : int(x1), 0].mean() > 200


@pytest.mark.parametrize("orientation", range(1, 9))
def test_a_stored_box_turns_with_the_picture(tmp_path: Path, orientation: int) -> None:
    raw = np.zeros((60, 160, 3), np.uint8)
    raw[5:25, 10:50] = 255  # a die off every axis of symmetry
    path = tmp_path / "phone.jpg"
    path.write_bytes(_jpeg_with_orientation(raw, orientation))
    loaded = load_image(path)
    ys, xs = np.nonzero(loaded[:, :, 0] > 128)
    turned = turn_box((10, 5, 50, 25), orientation, 160, 60)
    assert turned == pytest.approx((xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), abs=1.0)


def _voc(folder: Path, size: tuple[int, int], box: tuple[int, int, int, int]) -> None:
    x0, y0, x1, y1 = box
    (folder / "phone.xml").write_text(
        f"<annotation><filename>phone.jpg</filename><size><width>{size[0]}</width><height>{size[1]}</height>"
        f"<depth>3</depth></size><object><name>three</name><bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin>"
        f"<xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object></annotation>"
    )


@pytest.mark.parametrize("orientation", [6, 8])
def test_voc_boxes_in_stored_pixels_land_on_the_die(tmp_path: Path, orientation: int) -> None:
    # Some labelling tools show a phone photo as stored: the XML gives the stored size.
    raw = np.zeros((60, 160, 3), np.uint8)
    raw[5:25, 10:50] = 255
    (tmp_path / "phone.jpg").write_bytes(_jpeg_with_orientation(raw, orientation))
    _voc(tmp_path, (160, 60), (10, 5, 50, 25))
    (die,) = load_labelled_set(tmp_path)[0].dice
    loaded = load_image(tmp_path / "phone.jpg")
    x0, y0, x1, y1 = (int(round(v)) for v in die.box)
    assert loaded.shape[:2] == (160, 60)
    assert loaded[y0:y1, x0:x1, 0].mean() > 200


def test_voc_boxes_in_the_turned_picture_stay(tmp_path: Path) -> None:
    raw = np.zeros((60, 160, 3), np.uint8)
    (tmp_path / "phone.jpg").write_bytes(_jpeg_with_orientation(raw, 6))
    _voc(tmp_path, (60, 160), (10, 5, 50, 25))
    (die,) = load_labelled_set(tmp_path)[0].dice
    assert die.box == (10, 5, 50, 25)


def _png_with_orientation(image: np.ndarray, orientation: int) -> bytes:
    encoded = cv2.imencode(".png", image)[1].tobytes()
    entry = struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff = b"MM" + struct.pack(">HI", 42, 8) + struct.pack(">H", 1) + entry + b"\0\0\0\0"
    chunk = struct.pack(">I", len(tiff)) + b"eXIf" + tiff + struct.pack(">I", zlib.crc32(b"eXIf" + tiff))
    return encoded[:33] + chunk + encoded[33:]  # after the signature and the IHDR chunk


@pytest.mark.parametrize("orientation", range(1, 9))
def test_png_size_follows_its_exif_chunk_too(tmp_path: Path, orientation: int) -> None:
    path = tmp_path / "phone.png"
    path.write_bytes(_png_with_orientation(np.zeros((60, 160, 3), np.uint8), orientation))
    loaded = load_image(path)
    assert read_image_size(path) == (loaded.shape[1], loaded.shape[0])


def test_a_voc_set_still_loads_when_a_photos_header_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision.eval.labels as labels

    def unreadable(path: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    (tmp_path / "phone.jpg").write_bytes(_jpeg_with_orientation(np.zeros((60, 160, 3), np.uint8), 6))
    _voc(tmp_path, (160, 60), (10, 5, 50, 25))
    monkeypatch.setattr(labels, "read_header", unreadable)
    (die,) = load_labelled_set(tmp_path)[0].dice
    assert die.box == (10, 5, 50, 25)  # left as labelled; reading the photo reports the fault

"""The scripts under datasets/ that write the classifier's training crops."""

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "datasets"))

import extract_crops  # noqa: E402
import synthetic_crops  # noqa: E402

from vision.synth.render import DieSpec, Scene, render  # noqa: E402


@pytest.fixture
def yolo_set(tmp_path: Path) -> Path:
    dice = (DieSpec(2, 100, 120, 60), DieSpec(6, 300, 200, 70, angle=20))
    rendered = render(Scene(400, 300, "felt", (50, 110, 40), dice, seed=1))
    (tmp_path / "train" / "images").mkdir(parents=True)
    (tmp_path / "train" / "labels").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "train" / "images" / "a.jpg"), rendered.frame)
    lines = []
    for value, box in zip(rendered.values, rendered.boxes):
        x0, y0, x1, y1 = box.bounds()
        lines.append(f"{value - 1} {(x0 + x1) / 800} {(y0 + y1) / 600} {(x1 - x0) / 400} {(y1 - y0) / 300}")
    (tmp_path / "train" / "labels" / "a.txt").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_real_crops_follow_the_labels_at_every_scale(yolo_set: Path) -> None:
    photos = extract_crops.read_split(yolo_set, "train")
    assert [value for value, _ in photos[0].dice] == [2, 6]
    assert photos[0].dice[0][1].center == pytest.approx((100, 120), abs=1.5)
    data = extract_crops.extract(yolo_set, "train", scales=(0, 200), augment=3, negatives_per_die=0.5, seed=0)
    faces = data["labels"][data["labels"] < 6]
    assert sorted(set(faces.tolist())) == [1, 5] and len(faces) == 2 * 3 * 2
    assert data["crops"].shape[1:] == (32, 32, 3) and len(data["crops"]) == len(data["labels"])
    assert set(data["scales"].tolist()) == {0, 200}
    again = extract_crops.extract(yolo_set, "train", scales=(0, 200), augment=3, negatives_per_die=0.5, seed=0)
    assert np.array_equal(data["crops"], again["crops"])


def test_missing_split_is_one_clear_message(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no val/images folder"):
        extract_crops.read_split(tmp_path, "val")


def test_synthetic_crops_are_reproducible_and_hold_every_class() -> None:
    data = synthetic_crops.build(120, seed=3)
    assert data["crops"].shape == (120, 32, 32, 3)
    assert set(data["labels"].tolist()) == set(range(7))
    assert np.array_equal(synthetic_crops.build(120, seed=3)["crops"], data["crops"])

"""Labelled sets: YOLO folders with any of the usual class-name files, and Pascal VOC XML."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.eval.labels import LabelError, face_from_name, load_labelled_set


@pytest.mark.parametrize(
    ("name", "face"),
    [("1", 1), ("six", 6), ("d6-3", 3), ("dice_4", 4), ("Two", 2), ("d6-seven", None), ("coin", None), ("7", None)],
)
def test_class_names_to_faces(name: str, face: int | None) -> None:
    assert face_from_name(name) == face


def make_yolo(root: Path, split: str, lines: list[str], size: tuple[int, int] = (200, 100)) -> None:
    (root / split / "images").mkdir(parents=True)
    (root / split / "labels").mkdir(parents=True)
    cv2.imwrite(str(root / split / "images" / "a.jpg"), np.zeros((size[1], size[0], 3), np.uint8))
    (root / split / "labels" / "a.txt").write_text("\n".join(lines) + "\n")


def test_yolo_with_data_yaml_names(tmp_path: Path) -> None:
    make_yolo(tmp_path, "val", ["2 0.5 0.5 0.1 0.2", "0 0.25 0.25 0.1 0.1"])
    (tmp_path / "data.yaml").write_text('nc: 6\nnames: ["1", "2", "3", "4", "5", "6"]\n')
    (image,) = load_labelled_set(tmp_path, "val")
    assert [d.value for d in image.dice] == [3, 1]
    assert image.dice[0].box == pytest.approx((90.0, 40.0, 110.0, 60.0))


def test_yolo_with_block_names_and_other_classes_ignored(tmp_path: Path) -> None:
    make_yolo(tmp_path, "test", ["0 0.5 0.5 0.1 0.1", "1 0.5 0.5 0.1 0.1", "2 0.5 0.5 0.1 0.1"])
    (tmp_path / "data.yaml").write_text("names:\n  - coin\n  - five\n  - d6-2\n")
    (image,) = load_labelled_set(tmp_path, "test")
    assert [d.value for d in image.dice] == [5, 2]


def test_yolo_with_classes_txt(tmp_path: Path) -> None:
    make_yolo(tmp_path, "train", ["1 0.5 0.5 0.1 0.1"])
    (tmp_path / "train" / "labels" / "classes.txt").write_text("one\ntwo\nthree\nfour\nfive\nsix\n")
    (image,) = load_labelled_set(tmp_path, "train")
    assert [d.value for d in image.dice] == [2]


def test_missing_split_is_a_clear_error(tmp_path: Path) -> None:
    make_yolo(tmp_path, "val", ["1 0.5 0.5 0.1 0.1"])
    with pytest.raises(LabelError, match="no split 'test'"):
        load_labelled_set(tmp_path, "test")
    with pytest.raises(LabelError, match="not a folder"):
        load_labelled_set(tmp_path / "nowhere")


def test_pascal_voc(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "roll.jpg"), np.zeros((50, 80, 3), np.uint8))
    (tmp_path / "roll.xml").write_text(
        "<annotation><filename>roll.jpg</filename>"
        "<object><name>d6-3</name><bndbox><xmin>10</xmin><ymin>12</ymin><xmax>30</xmax><ymax>32</ymax></bndbox></object>"
        "<object><name>d20-3</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>5</xmax><ymax>5</ymax></bndbox></object>"
        "</annotation>"
    )
    (image,) = load_labelled_set(tmp_path)
    assert image.path.name == "roll.jpg"
    assert [(d.value, d.box) for d in image.dice] == [(3, (10.0, 12.0, 30.0, 32.0))]


def test_dice_the_labels_leave_out_are_read_from_the_sets_list(tmp_path: Path) -> None:
    make_yolo(tmp_path, "val", ["1 0.5 0.5 0.1 0.2"])
    make_yolo(tmp_path, "train", ["1 0.5 0.5 0.1 0.2"])
    (tmp_path / "unclear_boxes.csv").write_text(
        "split,image,xc,yc,w,h\nval,a.jpg,0.9,0.5,0.1,0.2\nval,other.jpg,0.1,0.1,0.1,0.1\nval,a.jpg,bad,0,0,0\n"
    )
    (image,) = load_labelled_set(tmp_path, "val")
    assert [d.value for d in image.dice] == [2]
    (box,) = image.unlabelled
    assert box == pytest.approx((170.0, 40.0, 190.0, 60.0))
    (other_split,) = load_labelled_set(tmp_path, "train")
    assert other_split.unlabelled == ()


def test_a_set_without_the_list_leaves_no_die_out(tmp_path: Path) -> None:
    make_yolo(tmp_path, "val", ["1 0.5 0.5 0.1 0.2"])
    (image,) = load_labelled_set(tmp_path, "val")
    assert image.unlabelled == ()

"""Labelled photo sets: YOLO folders (Roboflow, labelImg) and Pascal VOC XML, as die faces."""

from __future__ import annotations

import csv
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from vision.images import QUARTER_TURNS, read_header, read_image_size, turn_box

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
# A YOLO set's dice that its labels leave out on purpose (cut by the border, too blurred to read),
# one row each: split, image file name, then centre x, centre y, width, height in 0..1 of the image.
UNLABELLED_DICE = "unclear_boxes.csv"

Box = tuple[float, float, float, float]  # x0, y0, x1, y1
_Normalised = tuple[float, float, float, float]  # a YOLO region: centre x, centre y, width, height in 0..1
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


class LabelError(ValueError):
    """A labelled set that cannot be read: the message says what is wrong and where."""


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: its top face and its axis-aligned box in image pixels."""

    value: int
    box: Box

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2.0, (self.box[1] + self.box[3]) / 2.0)

    def scaled(self, scale: float) -> LabelledDie:
        """The same die in an image resized by `scale`."""
        return LabelledDie(self.value, scaled_box(self.box, scale))


@dataclass(frozen=True)
class LabelledImage:
    """A photo's labelled dice, and the boxes of the dice its labels leave out (`unlabelled`:
    cut by the border or too blurred to read), where a reading counts neither right nor wrong."""

    path: Path
    dice: tuple[LabelledDie, ...]
    unlabelled: tuple[Box, ...] = ()


def scaled_box(box: Box, scale: float) -> Box:
    """The box in an image resized by `scale`."""
    x0, y0, x1, y1 = box
    return (x0 * scale, y0 * scale, x1 * scale, y1 * scale)


def inside_any(point: tuple[float, float], boxes: Iterable[Box]) -> bool:
    """Whether the point lies in one of the boxes (edges included)."""
    x, y = point
    return any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in boxes)


def face_from_name(name: str) -> int | None:
    """The face value a class name stands for ("3", "three", "d6-3", "dice_3"), or None."""
    text = name.strip().lower()
    if text in _WORDS:
        return _WORDS[text]
    match = re.fullmatch(r"(?:d6|die|dice|face)?[-_ ]?([1-6])", text) or re.fullmatch(
        r"(?:d6|die|dice|face)[-_ ]?(one|two|three|four|five|six)", text
    )
    if not match:
        return None
    token = match.group(1)
    return int(token) if token.isdigit() else _WORDS[token]


def _parse_yaml_names(text: str) -> list[str] | dict[int, str] | None:
    """The `names:` entry of a data.yaml, in the inline list, block list or mapping form."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = re.match(r"^names\s*:\s*(.*)$", line)
        if not match:
            continue
        rest = match.group(1).split("#")[0].strip()
        if rest.startswith("["):
            inner = rest.strip("[]")
            return [item.strip().strip("'\"") for item in inner.split(",") if item.strip()]
        block: list[str] = []
        mapping: dict[int, str] = {}
        for follow in lines[i + 1 :]:
            if follow.strip() and not follow.startswith((" ", "\t", "-")):
                break
            item = follow.strip()
            if item.startswith("-"):
                block.append(item[1:].strip().strip("'\""))
            elif ":" in item:
                key, value = item.split(":", 1)
                if key.strip().isdigit():
                    mapping[int(key.strip())] = value.strip().strip("'\"")
        return mapping or block
    return None


def _class_faces(root: Path) -> dict[int, int]:
    """Class index -> face value, from data.yaml or classes.txt; digits 1..6 if neither."""
    names: list[str] | dict[int, str] | None = None
    for candidate in (root / "data.yaml", root / "data.yml"):
        if candidate.is_file():
            names = _parse_yaml_names(candidate.read_text(encoding="utf-8", errors="replace"))
            break
    if names is None:
        for candidate in (root / "classes.txt", *root.glob("*/labels/classes.txt")):
            if candidate.is_file():
                names = [n.strip() for n in candidate.read_text(encoding="utf-8").splitlines() if n.strip()]
                break
    if names is None:
        names = ["1", "2", "3", "4", "5", "6"]
    items = names.items() if isinstance(names, dict) else enumerate(names)
    faces = {index: face for index, name in items if (face := face_from_name(name)) is not None}
    if not faces:
        raise LabelError(f"{root}: no class name stands for a die face 1..6")
    return faces


def _yolo_split_dirs(root: Path, split: str | None) -> list[Path]:
    if (root / "images").is_dir() and split is None:
        return [root]
    splits = [split] if split else ["val", "test"]
    found = [root / s for s in splits if (root / s / "images").is_dir()]
    if split and not found:
        raise LabelError(f"{root}: no split '{split}' (expected {root / split / 'images'})")
    if not found:
        found = sorted(p for p in root.iterdir() if (p / "images").is_dir())
    return found


def _pixel_box(region: _Normalised, width: int, height: int) -> Box:
    """A YOLO region (centre x, centre y, width, height in 0..1) as a box in image pixels."""
    x, y, w, h = region
    return ((x - w / 2) * width, (y - h / 2) * height, (x + w / 2) * width, (y + h / 2) * height)


def _unlabelled_dice(root: Path) -> dict[tuple[str, str], list[_Normalised]]:
    """(split, image file name) -> the (centre x, centre y, width, height) in 0..1 of each die the
    labels leave out, from the set's `UNLABELLED_DICE` file (none without it)."""
    path = root / UNLABELLED_DICE
    regions: dict[tuple[str, str], list[_Normalised]] = {}
    if not path.is_file():
        return regions
    with path.open(newline="", encoding="utf-8") as rows:
        for row in csv.reader(rows):
            try:
                x, y, w, h = (float(v) for v in row[2:6])
            except ValueError:
                continue  # the header, or a row that is not one
            if len(row) == 6:
                regions.setdefault((row[0], row[1]), []).append((x, y, w, h))
    return regions


def _load_yolo(root: Path, split: str | None) -> Iterator[LabelledImage]:
    faces = _class_faces(root)
    unlabelled = _unlabelled_dice(root)
    for split_dir in _yolo_split_dirs(root, split):
        split_name = "" if split_dir == root else split_dir.name
        for image_path in sorted((split_dir / "images").iterdir()):
            if image_path.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            label_path = split_dir / "labels" / (image_path.stem + ".txt")
            dice: list[LabelledDie] = []
            left_out = unlabelled.get((split_name, image_path.name), [])
            width = height = 0
            if label_path.is_file() or left_out:
                width, height = read_image_size(image_path)
            if label_path.is_file():
                for line in label_path.read_text(encoding="utf-8").splitlines():
                    parts = line.split()
                    if len(parts) < 5:
                        continue
                    face = faces.get(int(float(parts[0])))
                    if face is None:
                        continue
                    x, y, w, h = (float(v) for v in parts[1:5])
                    dice.append(LabelledDie(face, _pixel_box((x, y, w, h), width, height)))
            boxes = tuple(_pixel_box(region, width, height) for region in left_out)
            yield LabelledImage(image_path, tuple(dice), boxes)


def _load_voc(root: Path, split: str | None) -> Iterator[LabelledImage]:
    folder = root / split if split and (root / split).is_dir() else root
    for xml_path in sorted(folder.rglob("*.xml")):
        tree = ET.parse(xml_path)
        filename = tree.findtext("filename") or ""
        image_path = xml_path.with_name(filename) if filename else None
        if image_path is None or not image_path.is_file():
            matches = [xml_path.with_suffix(s) for s in IMAGE_SUFFIXES if xml_path.with_suffix(s).is_file()]
            if not matches:
                continue
            image_path = matches[0]
        stored = _stored_turn(image_path, tree)
        dice = []
        for obj in tree.iterfind("object"):
            face = face_from_name(obj.findtext("name") or "")
            bndbox = obj.find("bndbox")
            if face is None or bndbox is None:
                continue
            x0, y0, x1, y1 = (float(bndbox.findtext(k) or 0) for k in ("xmin", "ymin", "xmax", "ymax"))
            box = (x0, y0, x1, y1) if stored is None else turn_box((x0, y0, x1, y1), *stored)
            dice.append(LabelledDie(face, box))
        yield LabelledImage(image_path, tuple(dice))


def _stored_turn(image_path: Path, tree: ET.ElementTree[ET.Element]) -> tuple[int, int, int] | None:
    """(orientation, width, height) when a VOC file's boxes are in the stored pixels of a photo
    that loading turns a quarter: its <size> is the stored one (some labelling tools ignore EXIF).
    None when the boxes are in the picture as loaded."""
    try:
        header = read_header(image_path)
    except OSError:
        return None  # an unreadable photo is reported when it is read, not here
    if header is None or header[2] not in QUARTER_TURNS:
        return None
    width, height, orientation = header
    try:
        size = (int(tree.findtext("size/width") or 0), int(tree.findtext("size/height") or 0))
    except ValueError:
        return None
    return (orientation, width, height) if size == (width, height) and width != height else None


def load_labelled_set(root: str | os.PathLike[str], split: str | None = None) -> list[LabelledImage]:
    """Every labelled image of a YOLO or Pascal VOC set; `split` picks a sub-folder ("val")."""
    path = Path(root)
    if not path.is_dir():
        raise LabelError(f"{path}: not a folder")
    yolo = (path / "images").is_dir() or any((p / "images").is_dir() for p in path.iterdir() if p.is_dir())
    images = list(_load_yolo(path, split) if yolo else _load_voc(path, split))
    if not images:
        raise LabelError(f"{path}: no labelled images found (expected YOLO <split>/images + labels, or VOC XML)")
    return images

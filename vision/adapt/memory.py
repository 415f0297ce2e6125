"""A table's memory: the dice of every throw a player confirmed, as crops with their true faces,
and the last confirmed pictures with every face they show.

On disk, one folder per throw under the memory's root: `crops.npz` (the (N, 32, 32, 3) crops cut
with `vision.read.crops.crop_die`) and `faces.json` (true faces, the reader's values and
confidences and boxes, in the crops' order; a true face of `NOT_A_DIE` marks something the reader
took for a die and the player said was none). Under `frames/`, one folder per confirmed picture:
`frame.jpg` and `faces.json` (every die the picture shows, in play or set aside, and how many
dice the reader got wrong in it at each detector threshold tried); only the newest
`MAX_FRAMES` are kept.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.read.crops import crop_dice
from vision.types import DieBox, DieReading

MAX_FRAMES = 30
FRAMES = "frames"
NOT_A_DIE = 0  # the true face of a reading that the player said was no die at all


@dataclass(frozen=True)
class ConfirmedFrame:
    """A picture of a confirmed throw, the faces of every die in it (in no order), and how many
    dice the reader got wrong in it by detector threshold."""

    frame: np.ndarray  # BGR uint8
    faces: tuple[int, ...]
    misread: dict[float, int]


@dataclass(frozen=True)
class Example:
    """One die a player confirmed."""

    crop: np.ndarray  # (32, 32, 3) uint8 BGR
    face: int  # the true face, or NOT_A_DIE
    read: int  # what the reader said
    confidence: float
    throw: int  # which saved throw it came from
    box: DieBox | None = None  # where it lay in the frame (throws kept before boxes were: None)

    @property
    def is_die(self) -> bool:
        return self.face != NOT_A_DIE


def crops_of(frame_bgr: np.ndarray, readings: Sequence[DieReading]) -> np.ndarray:
    """The dice's crops as the memory keeps them."""
    return crop_dice(frame_bgr, [r.box for r in readings])


class TableMemory:
    """Confirmed throws of one table in a folder; `save` is safe from several threads."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()

    def save(
        self,
        crops: np.ndarray,
        faces: Sequence[int],
        read: Sequence[int],
        confidences: Sequence[float],
        boxes: Sequence[DieBox] | None = None,
    ) -> Path:
        """Keeps one confirmed throw; crops, faces (1..6, or NOT_A_DIE), read values, confidences and
        (when known) boxes in the same order."""
        if not (len(crops) == len(faces) == len(read) == len(confidences)) or len(faces) == 0:
            raise ValueError("a confirmed throw needs one crop, face, reading and confidence per die")
        if boxes is not None and len(boxes) != len(faces):
            raise ValueError("a confirmed throw needs one box per die, or none at all")
        if any(not NOT_A_DIE <= int(f) <= 6 for f in faces):
            raise ValueError(f"faces must be 1..6 or {NOT_A_DIE} (not a die), not {list(faces)}")
        with self._lock:
            folder = _new_folder(self.root)
            partial = self.root / f".{folder.name}.partial"
            partial.mkdir()
            np.savez_compressed(partial / "crops.npz", crops=np.asarray(crops, np.uint8))
            (partial / "faces.json").write_text(
                json.dumps(
                    {
                        "faces": [int(f) for f in faces],
                        "read": [int(v) for v in read],
                        "confidences": [round(float(c), 4) for c in confidences],
                        "saved": time.time(),
                        **({} if boxes is None else {"boxes": [_box_record(b) for b in boxes]}),
                    }
                )
            )
            partial.rename(folder)  # a throw is either all there or not at all
        return folder

    def save_frame(self, frame_bgr: np.ndarray, faces: Sequence[int], misread: Mapping[float, int]) -> Path:
        """Keeps the picture of one confirmed throw with every face it shows (the dice in play as
        the player confirmed them, and those set aside) and the reader's misread dice by detector
        threshold, dropping the oldest pictures beyond `MAX_FRAMES`."""
        if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
            raise ValueError("expected a BGR uint8 frame of shape (height, width, 3)")
        if len(faces) == 0 or any(not 1 <= int(f) <= 6 for f in faces):
            raise ValueError(f"faces must be 1..6, at least one, not {list(faces)}")
        ok, jpeg = cv2.imencode(".jpg", frame_bgr, [cv2.IMWRITE_JPEG_QUALITY, 92])
        if not ok:
            raise ValueError("the frame cannot be encoded")
        root = self.root / FRAMES
        with self._lock:
            folder = _new_folder(root)
            partial = root / f".{folder.name}.partial"
            partial.mkdir()
            (partial / "frame.jpg").write_bytes(jpeg.tobytes())
            record = {
                "faces": [int(f) for f in faces],
                "misread": {str(t): int(n) for t, n in misread.items()},
                "saved": time.time(),
            }
            (partial / "faces.json").write_text(json.dumps(record))
            partial.rename(folder)
            for old in sorted(p for p in root.iterdir() if p.name.isdigit())[:-MAX_FRAMES]:
                for item in old.iterdir():
                    item.unlink()
                old.rmdir()
        return folder

    def frames(self) -> list[ConfirmedFrame]:
        """The kept pictures, oldest first; a damaged one is skipped."""
        result = []
        for folder, faces, misread in self._frame_records():
            frame = cv2.imread(str(folder / "frame.jpg"), cv2.IMREAD_COLOR)
            if frame is not None:
                result.append(ConfirmedFrame(frame, faces, misread))
        return result

    def misreads(self) -> list[dict[float, int]]:
        """Each kept picture's misread dice by detector threshold, without decoding the pictures."""
        return [misread for _, _, misread in self._frame_records()]

    def _frame_records(self) -> list[tuple[Path, tuple[int, ...], dict[float, int]]]:
        root = self.root / FRAMES
        if not root.is_dir():
            return []
        records = []
        for folder in sorted(p for p in root.iterdir() if p.name.isdigit()):
            try:
                record = json.loads((folder / "faces.json").read_text())
                faces = tuple(int(f) for f in record["faces"])
                misread = {float(t): int(n) for t, n in record["misread"].items()}
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue  # a damaged picture is skipped, not fatal
            if faces:
                records.append((folder, faces, misread))
        return records

    def examples(self) -> list[Example]:
        result: list[Example] = []
        if not self.root.is_dir():
            return result
        for folder in sorted(p for p in self.root.iterdir() if p.name.isdigit()):
            try:
                crops = np.load(folder / "crops.npz")["crops"]
                info = json.loads((folder / "faces.json").read_text())
                boxes = [DieBox(*map(float, b)) for b in info["boxes"]] if "boxes" in info else [None] * len(crops)
            except (OSError, ValueError, KeyError, TypeError):
                continue  # a damaged throw is skipped, not fatal
            for crop, face, read, confidence, box in zip(
                crops, info["faces"], info["read"], info["confidences"], boxes
            ):
                result.append(Example(crop, int(face), int(read), float(confidence), int(folder.name), box))
        return result

    def __len__(self) -> int:
        if not self.root.is_dir():
            return 0
        return sum(1 for p in self.root.iterdir() if p.name.isdigit())


def _box_record(box: DieBox) -> list[float]:
    return [round(float(v), 2) for v in (box.cx, box.cy, box.w, box.h, box.angle)]


def _new_folder(root: Path) -> Path:
    """The next numbered folder's path under `root` (created), not the folder itself."""
    root.mkdir(parents=True, exist_ok=True)
    number = 1 + max((int(p.name) for p in root.iterdir() if p.name.isdigit()), default=0)
    return root / f"{number:06d}"

"""A table's memory: the dice of every throw a player confirmed, as crops with their true faces.

On disk, one folder per throw under the memory's root: `crops.npz` (the (N, 32, 32, 3) crops cut
with `vision.read.crops.crop_die`) and `faces.json` (true faces, the reader's values and
confidences, in the crops' order).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.read.crops import crop_dice
from vision.types import DieReading


@dataclass(frozen=True)
class Example:
    """One die a player confirmed."""

    crop: np.ndarray  # (32, 32, 3) uint8 BGR
    face: int  # the true face
    read: int  # what the reader said
    confidence: float
    throw: int  # which saved throw it came from


def crops_of(frame_bgr: np.ndarray, readings: Sequence[DieReading]) -> np.ndarray:
    """The dice's crops as the memory keeps them."""
    return crop_dice(frame_bgr, [r.box for r in readings])


class TableMemory:
    """Confirmed throws of one table in a folder; `save` is safe from several threads."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()

    def save(self, crops: np.ndarray, faces: Sequence[int], read: Sequence[int], confidences: Sequence[float]) -> Path:
        """Keeps one confirmed throw; crops, faces, read values and confidences in the same order."""
        if not (len(crops) == len(faces) == len(read) == len(confidences)) or len(faces) == 0:
            raise ValueError("a confirmed throw needs one crop, face, reading and confidence per die")
        if any(not 1 <= int(f) <= 6 for f in faces):
            raise ValueError(f"faces must be 1..6, not {list(faces)}")
        with self._lock:
            self.root.mkdir(parents=True, exist_ok=True)
            number = 1 + max((int(p.name) for p in self.root.iterdir() if p.name.isdigit()), default=0)
            folder = self.root / f"{number:06d}"
            partial = self.root / f".{number:06d}.partial"
            partial.mkdir()
            np.savez_compressed(partial / "crops.npz", crops=np.asarray(crops, np.uint8))
            (partial / "faces.json").write_text(
                json.dumps(
                    {
                        "faces": [int(f) for f in faces],
                        "read": [int(v) for v in read],
                        "confidences": [round(float(c), 4) for c in confidences],
                        "saved": time.time(),
                    }
                )
            )
            partial.rename(folder)  # a throw is either all there or not at all
        return folder

    def examples(self) -> list[Example]:
        result: list[Example] = []
        if not self.root.is_dir():
            return result
        for folder in sorted(p for p in self.root.iterdir() if p.name.isdigit()):
            try:
                crops = np.load(folder / "crops.npz")["crops"]
                info = json.loads((folder / "faces.json").read_text())
            except (OSError, ValueError, KeyError):
                continue  # a damaged throw is skipped, not fatal
            for crop, face, read, confidence in zip(crops, info["faces"], info["read"], info["confidences"]):
                result.append(Example(crop, int(face), int(read), float(confidence), int(folder.name)))
        return result

    def __len__(self) -> int:
        if not self.root.is_dir():
            return 0
        return sum(1 for p in self.root.iterdir() if p.name.isdigit())

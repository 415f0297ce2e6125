"""Learning a table as a game goes on: each confirmed throw is kept, the head is rebuilt and
swapped into the live reader at once, and saved next to the memory for the next start. The
pictures of confirmed throws also set how sure the detector must be on this table
(`vision.adapt.threshold`)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.adapt.memory import TableMemory
from vision.adapt.neighbours import AdaptedReader, FaceNeighbours
from vision.adapt.threshold import ReadAt, choose_threshold, misread_by_threshold
from vision.live.settle import DiceReaderLike
from vision.read.reader import DiceReader

HEAD_FILE = "adaptation.npz"
DETECTOR_FILE = "detector.json"


@dataclass(frozen=True)
class AdaptReport:
    throws: int
    dice: int
    reader_right: int  # confirmed dice the reader had read right
    adapted_right: int  # ... that the head gets right, each throw left out of its own head
    min_similarity: float
    path: Path
    detector_threshold: float | None = None  # None: the reader's detector cannot be tuned
    pictures: int = 0  # confirmed pictures it was chosen on


def _shipped_threshold(reader: DiceReaderLike) -> float | None:
    return reader.detector_threshold if isinstance(reader, DiceReader) else None


def _read_at(reader: DiceReader) -> ReadAt:
    return lambda threshold: reader.with_detector_threshold(threshold).read


def _save_threshold(memory: TableMemory, threshold: float) -> None:
    memory.root.mkdir(parents=True, exist_ok=True)
    partial = memory.root / (DETECTOR_FILE + ".partial")
    partial.write_text(json.dumps({"threshold": threshold}))
    partial.replace(memory.root / DETECTOR_FILE)


def _load_threshold(memory: TableMemory) -> float | None:
    try:
        threshold = float(json.loads((memory.root / DETECTOR_FILE).read_text())["threshold"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return threshold if 0.0 < threshold < 1.0 else None


def build(memory: TableMemory, reader: DiceReaderLike | None = None) -> AdaptReport:
    """Builds the head from every confirmed throw in `memory` and saves it there (`dicekeeper adapt`);
    with the table's `reader`, also the detector threshold from the confirmed pictures."""
    threshold = None
    misreads = memory.misreads()
    shipped = None if reader is None else _shipped_threshold(reader)
    if shipped is not None:
        threshold = choose_threshold(shipped, misreads)
        _save_threshold(memory, threshold)
    examples = memory.examples()
    head = FaceNeighbours.fit(examples)
    path = memory.root / HEAD_FILE
    head.save(path)
    votes = head.votes(np.stack([e.crop for e in examples]), leave_out=[e.throw for e in examples]) if examples else []
    adapted_right = sum(head.decide(e.read, v) == e.face for e, v in zip(examples, votes))
    return AdaptReport(
        len({e.throw for e in examples}),
        len(examples),
        sum(e.read == e.face for e in examples),
        adapted_right,
        head.min_similarity,
        path,
        threshold,
        len(misreads),
    )


class TableLearner:
    """The live reader of one table (`reader`), which learns from every confirmed throw."""

    def __init__(self, root: str | os.PathLike[str], reader: DiceReaderLike) -> None:
        self.memory = TableMemory(root)
        self.base = reader
        # The reader whose detector threshold can be learned: the shipped one, with the learned detector.
        self._tunable = reader if isinstance(reader, DiceReader) and reader.detector_threshold is not None else None
        self.reader = AdaptedReader(self._tuned(_load_threshold(self.memory)), self._load())
        self._lock = threading.Lock()  # one rebuild at a time

    def _tuned(self, threshold: float | None) -> DiceReaderLike:
        """The base reader with the detector threshold learned for this table, if it has one."""
        if self._tunable is None or threshold in (None, self._tunable.detector_threshold):
            return self.base
        return self._tunable.with_detector_threshold(threshold)

    @property
    def detector_threshold(self) -> float | None:
        return _shipped_threshold(self.reader.inner)

    def learn_picture(self, frame_bgr: np.ndarray, faces: Sequence[int]) -> None:
        """Keeps the picture of a confirmed throw with every face it shows (in play and set aside)
        and sets the detector's threshold for this table from all the kept pictures. Reads the
        picture once per threshold tried."""
        if self._tunable is None:
            return  # a reader without the learned detector has no threshold to learn
        shipped = self._tunable.detector_threshold
        assert shipped is not None
        misread = misread_by_threshold(_read_at(self._tunable), shipped, frame_bgr, faces)
        self.memory.save_frame(frame_bgr, faces, misread)
        with self._lock:
            threshold = choose_threshold(shipped, self.memory.misreads())
            _save_threshold(self.memory, threshold)
            self.reader.inner = self._tuned(threshold)

    def _load(self) -> FaceNeighbours | None:
        path = self.memory.root / HEAD_FILE
        try:
            return FaceNeighbours.load(path) if path.is_file() else None
        except (OSError, ValueError, KeyError):
            return None  # a damaged head is rebuilt at the next confirmation

    def learn(self, crops: np.ndarray, faces: Sequence[int], read: Sequence[int], confidences: Sequence[float]) -> None:
        """Keeps one confirmed throw and adapts the live reader to it."""
        self.memory.save(crops, faces, read, confidences)
        with self._lock:
            head = FaceNeighbours.fit(self.memory.examples())
            head.save(self.memory.root / HEAD_FILE)
            self.reader.head = head

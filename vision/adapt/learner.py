"""Learning a table as a game goes on: each confirmed throw is kept, the head is rebuilt and
swapped into the live reader at once, and saved next to the memory for the next start."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.adapt.memory import TableMemory
from vision.adapt.neighbours import AdaptedReader, FaceNeighbours
from vision.live.settle import DiceReaderLike

HEAD_FILE = "adaptation.npz"


@dataclass(frozen=True)
class AdaptReport:
    throws: int
    dice: int
    reader_right: int  # confirmed dice the reader had read right
    adapted_right: int  # ... that the head gets right, each throw left out of its own head
    min_similarity: float
    path: Path


def build(memory: TableMemory) -> AdaptReport:
    """Builds the head from every confirmed throw in `memory` and saves it there (`dicekeeper adapt`)."""
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
    )


class TableLearner:
    """The live reader of one table (`reader`), which learns from every confirmed throw."""

    def __init__(self, root: str | os.PathLike[str], reader: DiceReaderLike) -> None:
        self.memory = TableMemory(root)
        self.reader = AdaptedReader(reader, self._load())
        self._lock = threading.Lock()  # one rebuild at a time

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

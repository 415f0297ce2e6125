"""A nearest-neighbour head for one table, and a reader wrapped with it.

Each confirmed die is described by its crop in grey, blurred and normalised, in all eight
orientations of a square (a die face may lie any way round). A new die is compared with them by
cosine similarity; its `k` nearest neighbours vote on its face. The head overrides the reader only
where it was right more often than the reader on the confirmed dice themselves, judged leaving
each throw out in turn: `min_similarity` is chosen that way, and is infinite (never override) when
no threshold helps.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.adapt.memory import Example, crops_of
from vision.live.settle import DiceReaderLike
from vision.types import DieBox, DieReading

K = 5
MIN_SHARE = 0.6  # of the neighbours' weighted votes for the head's face
FORMAT = 1


def describe(crops: np.ndarray) -> np.ndarray:
    """(N, D) unit vectors for (N, 32, 32, 3) crops."""
    if len(crops) == 0:
        return np.zeros((0, 256), np.float32)
    rows = []
    for crop in crops:
        grey = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2GRAY)
        small = cv2.resize(cv2.GaussianBlur(grey, (3, 3), 0), (16, 16), interpolation=cv2.INTER_AREA)
        vector = small.astype(np.float32).ravel()
        vector -= vector.mean()
        rows.append(vector / max(1e-6, float(np.linalg.norm(vector))))
    return np.stack(rows)


def _orientations(crops: np.ndarray) -> np.ndarray:
    """Each crop in the eight orientations of a square, as (8N, 32, 32, 3)."""
    turned = [np.rot90(crops, k, axes=(1, 2)) for k in range(4)]
    return np.concatenate(turned + [t[:, :, ::-1] for t in turned])


@dataclass(frozen=True)
class Vote:
    face: int
    share: float  # of the neighbours' weighted votes
    similarity: float  # of the nearest neighbour


class FaceNeighbours:
    """The table's head: stored descriptors with their faces, and when to trust it."""

    def __init__(
        self, vectors: np.ndarray, faces: np.ndarray, throws: np.ndarray, min_similarity: float = math.inf
    ) -> None:
        self.vectors = vectors.astype(np.float32)
        self.faces = faces.astype(np.int64)
        self.throws = throws.astype(np.int64)
        self.min_similarity = min_similarity

    @classmethod
    def fit(cls, examples: Sequence[Example]) -> FaceNeighbours:
        """The head of the confirmed dice among `examples` (what was no die has no face to vote)."""
        examples = [e for e in examples if e.is_die]
        if not examples:
            return cls(np.zeros((0, 256), np.float32), np.zeros(0), np.zeros(0))
        crops = np.stack([e.crop for e in examples])
        vectors = describe(_orientations(crops))
        faces = np.tile([e.face for e in examples], 8)
        throws = np.tile([e.throw for e in examples], 8)
        head = cls(vectors, faces, throws)
        return replace_threshold(head, examples)

    @property
    def size(self) -> int:
        return len(self.vectors) // 8

    def votes(self, crops: np.ndarray, leave_out: Sequence[int] | None = None) -> list[Vote | None]:
        """The head's vote for each crop (None with nothing to compare with). `leave_out`: for each
        crop, a throw whose examples are not used (to judge the head on its own examples)."""
        if len(crops) == 0:
            return []
        queries = describe(crops)
        similarity = queries @ self.vectors.T if len(self.vectors) else np.zeros((len(crops), 0))
        result: list[Vote | None] = []
        for i, row in enumerate(similarity):
            usable = np.ones(len(row), bool) if leave_out is None else self.throws != leave_out[i]
            if not usable.any():
                result.append(None)
                continue
            candidates = np.flatnonzero(usable)
            nearest = candidates[np.argsort(-row[candidates])[: K * 8]]
            best: dict[int, float] = {}
            for j in nearest:  # one neighbour per stored die: its best orientation
                key = j % max(1, self.size)
                best[key] = max(best.get(key, -1.0), float(row[j]))
            top = sorted(best.items(), key=lambda item: -item[1])[:K]
            weights: defaultdict[int, float] = defaultdict(float)
            for key, sim in top:
                weights[int(self.faces[key])] += max(0.0, sim)
            total = sum(weights.values())
            if total <= 0:
                result.append(None)
                continue
            face, weight = max(weights.items(), key=lambda item: item[1])
            result.append(Vote(face, weight / total, top[0][1]))
        return result

    def decide(self, read: int, vote: Vote | None) -> int:
        if vote is None or vote.similarity < self.min_similarity or vote.share < MIN_SHARE:
            return read
        return vote.face

    def save(self, path: str | os.PathLike[str]) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial.npz")
        np.savez_compressed(
            partial,
            format=FORMAT,
            vectors=self.vectors,
            faces=self.faces,
            throws=self.throws,
            min_similarity=self.min_similarity,
        )
        partial.replace(target)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> FaceNeighbours:
        with np.load(path) as data:
            if int(data["format"]) != FORMAT:
                raise ValueError(f"{path}: an adaptation of another format")
            return cls(data["vectors"], data["faces"], data["throws"], float(data["min_similarity"]))


def replace_threshold(head: FaceNeighbours, examples: Sequence[Example]) -> FaceNeighbours:
    """The head with the similarity threshold that, leaving each throw out in turn, gets the most
    of its confirmed dice right (ties: the stricter threshold; none better than the reader: inf)."""
    if len({e.throw for e in examples}) < 2:
        return head
    crops = np.stack([e.crop for e in examples])
    votes = head.votes(crops, leave_out=[e.throw for e in examples])
    reader_right = sum(e.read == e.face for e in examples)
    best_right, best = reader_right, math.inf
    candidates = sorted({round(v.similarity, 4) for v in votes if v is not None}, reverse=True)
    for threshold in candidates:
        trial = FaceNeighbours(head.vectors, head.faces, head.throws, threshold)
        right = sum(trial.decide(e.read, v) == e.face for e, v in zip(examples, votes))
        if right > best_right:
            best_right, best = right, threshold
    return FaceNeighbours(head.vectors, head.faces, head.throws, best)


class NoDieSpots:
    """Where on this table the players marked a reading as no die, and what it looked like there.

    A fixed camera sees a table's own features in the same place throw after throw: a coin left
    lying, a knot in the wood, a pip printed on the cloth. A new reading that lies on such a spot
    (its centre within half a box of the spot's), is about as big (0.67 to 1.5 times) and shows the
    same picture (its crop, slightly blurred, differs from the marked one by at most `MAX_CHANGE` of
    full scale on average) is the same thing again. A die that lands there covers the spot and
    changes the picture, so it stays.
    """

    MAX_CHANGE = 0.05
    MAX_SPOTS = 100  # the newest marked readings; older ones may have been moved away

    def __init__(self, boxes: Sequence[DieBox], crops: np.ndarray) -> None:
        self.boxes = tuple(boxes)
        self.pictures = _blurred(crops)

    @classmethod
    def fit(cls, examples: Sequence[Example]) -> NoDieSpots:
        marked = [e for e in examples if not e.is_die and e.box is not None][-cls.MAX_SPOTS :]
        crops = np.stack([e.crop for e in marked]) if marked else np.zeros((0, 32, 32, 3), np.uint8)
        return cls([e.box for e in marked if e.box is not None], crops)

    def __len__(self) -> int:
        return len(self.boxes)

    def covered(self, frame_bgr: np.ndarray, readings: Sequence[DieReading]) -> list[bool]:
        """For each reading, whether it is one of the table's marked spots again."""
        if not self.boxes or not readings:
            return [False] * len(readings)
        pictures = _blurred(crops_of(frame_bgr, readings))
        result = []
        for reading, picture in zip(readings, pictures):
            box = reading.box
            result.append(
                any(
                    math.hypot(box.cx - spot.cx, box.cy - spot.cy) <= 0.5 * max(spot.size, box.size)
                    and 0.67 <= box.size / max(spot.size, 1e-6) <= 1.5
                    and float(np.abs(picture - marked).mean()) <= self.MAX_CHANGE * 255
                    for spot, marked in zip(self.boxes, self.pictures)
                )
            )
        return result


def _blurred(crops: np.ndarray) -> np.ndarray:
    """Crops as float pictures, blurred a little: a box's jitter and the camera's noise matter less."""
    return np.stack([cv2.GaussianBlur(c.astype(np.float32), (0, 0), 1.0) for c in crops]) if len(crops) else crops


class AdaptedReader:
    """A reader whose values the table's head may correct and whose readings on the table's marked
    spots are dropped; `head` and `spots` may be swapped at any time."""

    def __init__(
        self, inner: DiceReaderLike, head: FaceNeighbours | None = None, spots: NoDieSpots | None = None
    ) -> None:
        self.inner = inner
        self.head = head
        self.spots = spots
        self.corrected = 0
        self.dropped = 0

    def read(self, frame_bgr: np.ndarray) -> list[DieReading]:
        readings = list(self.inner.read(frame_bgr))
        spots = self.spots
        if spots is not None and len(spots) and readings:
            covered = spots.covered(frame_bgr, readings)
            self.dropped += sum(covered)
            readings = [r for r, on_spot in zip(readings, covered) if not on_spot]
        head = self.head
        if head is None or head.size == 0 or head.min_similarity == math.inf or not readings:
            return readings
        votes = head.votes(crops_of(frame_bgr, readings))
        result = []
        for reading, vote in zip(readings, votes):
            face = head.decide(reading.value, vote)
            if face != reading.value and vote is not None:
                self.corrected += 1
                reading = replace(reading, value=face, confidence=round(vote.share, 4), method="adapted")
            result.append(reading)
        return result

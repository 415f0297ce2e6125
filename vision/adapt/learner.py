"""Learning a table as a game goes on: each confirmed throw is kept, and the head, the spots the
players marked as no die and the fix of the classifier's last layer (`vision.adapt.last_layer`) are
rebuilt and swapped into the live reader at once. The head is saved next to the memory for the next
start; the spots and the fix are made again from the memory at each start. The pictures of
confirmed throws also set how sure the detector must be on this table (`vision.adapt.threshold`)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.adapt.last_layer import LastLayerFix, TableClassifier
from vision.adapt.memory import NOT_A_DIE, Example, TableMemory
from vision.adapt.neighbours import AdaptedReader, FaceNeighbours, NoDieSpots
from vision.adapt.threshold import ReadAt, choose_threshold, misread_by_threshold
from vision.live.settle import DiceReaderLike
from vision.read.classifier import DieFaceClassifier
from vision.read.reader import DiceReader
from vision.types import DieBox

HEAD_FILE = "adaptation.npz"
DETECTOR_FILE = "detector.json"
# The classifier's last layer is fitted to the newest confirmed dice, this many at most: the
# table as it looks now, at a bounded cost.
MAX_FIX_DICE = 500


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
    # Of the newest confirmed dice (at most MAX_FIX_DICE), how many the classifier's surest face
    # gets right as shipped, and with its last layer fitted to the table, each throw left out of
    # its own fit (None: the reader's classifier cannot be fitted).
    classifier_right: int | None = None
    fitted_right: int | None = None
    not_dice: int = 0  # readings the players said were no die


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


def _features_of(reader: DiceReaderLike) -> DieFaceClassifier | None:
    """The reader's classifier, when its last layer can be fitted to a table."""
    if isinstance(reader, DiceReader) and isinstance(reader.classifier, DieFaceClassifier):
        return reader.classifier if reader.classifier.has_features else None
    return None


def _features(classifier: DieFaceClassifier, examples: list[Example]) -> tuple[np.ndarray, np.ndarray]:
    return classifier.features(np.stack([e.crop for e in examples]))


def fit_fix(classifier: DieFaceClassifier, examples: list[Example]) -> LastLayerFix:
    """The fix of `classifier`'s last layer for the confirmed dice `examples` (at least one)."""
    return LastLayerFix.fit(*_features(classifier, examples), [e.face for e in examples])


def _fix_figures(classifier: DieFaceClassifier, examples: list[Example]) -> tuple[int, int]:
    """How many of `examples` the classifier's surest face gets right as shipped, and with its last
    layer fitted to the other throws' dice."""
    embeddings, logits = _features(classifier, examples)
    faces = np.array([e.face for e in examples])
    throws = np.array([e.throw for e in examples])
    dice = faces != NOT_A_DIE
    shipped = int((logits[dice, :6].argmax(axis=1) + 1 == faces[dice]).sum())
    fitted = 0
    for throw in np.unique(throws):
        held = throws == throw
        scored = held & dice
        if held.all():
            fitted += int((logits[scored, :6].argmax(axis=1) + 1 == faces[scored]).sum())
            continue
        fix = LastLayerFix.fit(embeddings[~held], logits[~held], faces[~held].tolist())
        probabilities = fix.probabilities(embeddings[scored], logits[scored])
        fitted += int((probabilities[:, :6].argmax(axis=1) + 1 == faces[scored]).sum())
    return shipped, fitted


def build(memory: TableMemory, reader: DiceReaderLike | None = None) -> AdaptReport:
    """Builds the head from every confirmed throw in `memory` and saves it there (`dicekeeper adapt`);
    with the table's `reader`, also the detector threshold from the confirmed pictures, and how well
    its classifier reads the confirmed dice as shipped and fitted to the table."""
    threshold = None
    misreads = memory.misreads()
    shipped = None if reader is None else _shipped_threshold(reader)
    if shipped is not None:
        threshold = choose_threshold(shipped, misreads)
        _save_threshold(memory, threshold)
    examples = memory.examples()
    classifier = None if reader is None else _features_of(reader)
    shipped_right = fixed_right = None
    if classifier is not None and examples:
        shipped_right, fixed_right = _fix_figures(classifier, examples[-MAX_FIX_DICE:])
    head = FaceNeighbours.fit(examples)
    path = memory.root / HEAD_FILE
    head.save(path)
    dice = [e for e in examples if e.is_die]
    votes = head.votes(np.stack([e.crop for e in dice]), leave_out=[e.throw for e in dice]) if dice else []
    adapted_right = sum(head.decide(e.read, v) == e.face for e, v in zip(dice, votes))
    return AdaptReport(
        len({e.throw for e in examples}),
        len(dice),
        sum(e.read == e.face for e in dice),
        adapted_right,
        head.min_similarity,
        path,
        threshold,
        len(misreads),
        shipped_right,
        fixed_right,
        len(examples) - len(dice),
    )


class TableLearner:
    """The live reader of one table (`reader`), which learns from every confirmed throw."""

    def __init__(self, root: str | os.PathLike[str], reader: DiceReaderLike) -> None:
        self.memory = TableMemory(root)
        self.base = reader
        # The reader whose detector threshold can be learned: the shipped one, with the learned detector.
        self._tunable = reader if isinstance(reader, DiceReader) and reader.detector_threshold is not None else None
        self._classifier = _features_of(reader)
        self._threshold = _load_threshold(self.memory)
        # Fitted again from the memory at each start: a fix belongs to the classifier it was fitted on.
        examples = self.memory.examples()
        self._fix = self._fitted(examples)
        self.reader = AdaptedReader(self._adapted(), self._load(), NoDieSpots.fit(examples))
        self._lock = threading.Lock()  # one rebuild at a time

    def _fitted(self, examples: list[Example]) -> LastLayerFix | None:
        if self._classifier is None or not examples:
            return None
        return fit_fix(self._classifier, examples[-MAX_FIX_DICE:])

    def _adapted(self) -> DiceReaderLike:
        """The base reader with the detector threshold and the classifier's last layer learned for
        this table, where it has them."""
        reader = self.base
        if self._tunable is not None and self._threshold not in (None, self._tunable.detector_threshold):
            reader = self._tunable.with_detector_threshold(self._threshold)
        if self._fix is not None and self._classifier is not None and isinstance(reader, DiceReader):
            reader = DiceReader(
                TableClassifier(self._classifier, self._fix), reader.mode, reader.settings, reader.detector
            )
        return reader

    @property
    def classifier_fix(self) -> LastLayerFix | None:
        return self._fix

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
            self._threshold = choose_threshold(shipped, self.memory.misreads())
            _save_threshold(self.memory, self._threshold)
            self.reader.inner = self._adapted()

    def _load(self) -> FaceNeighbours | None:
        path = self.memory.root / HEAD_FILE
        try:
            return FaceNeighbours.load(path) if path.is_file() else None
        except (OSError, ValueError, KeyError):
            return None  # a damaged head is rebuilt at the next confirmation

    def learn(
        self,
        crops: np.ndarray,
        faces: Sequence[int],
        read: Sequence[int],
        confidences: Sequence[float],
        boxes: Sequence[DieBox] | None = None,
    ) -> None:
        """Keeps one confirmed throw (faces 1..6, or NOT_A_DIE for what the player said was no die)
        and adapts the live reader to it."""
        self.memory.save(crops, faces, read, confidences, boxes)
        with self._lock:
            examples = self.memory.examples()
            head = FaceNeighbours.fit(examples)
            head.save(self.memory.root / HEAD_FILE)
            self.reader.head = head
            self.reader.spots = NoDieSpots.fit(examples)
            self._fix = self._fitted(examples)
            self.reader.inner = self._adapted()

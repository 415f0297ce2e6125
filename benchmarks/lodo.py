"""The models trained without one real photo set (`models/lodo/`), for reading that set as a
table they never saw."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.read.reader import DiceReader, ReaderSettings

MODELS = Path(__file__).resolve().parent.parent / "models" / "lodo"
# The photo sets a pair of models was trained without, by the name `--without` takes.
LEFT_OUT = ("aws", "matteop65", "nellbyler")


def lodo_reader(left_out: str, settings: ReaderSettings | None = None) -> DiceReader:
    """The reader with the detector and classifier that never saw the photo set `left_out`: the
    live reader's settings (`LIVE`) unless others are given."""
    from vision.read.classifier import DieFaceClassifier
    from vision.read.detect import DiceDetector
    from vision.read.reader import LIVE, DiceReader

    if left_out not in LEFT_OUT:
        raise ValueError(f"no models were trained without {left_out!r}; known: {', '.join(LEFT_OUT)}")
    return DiceReader(
        DieFaceClassifier(MODELS / f"without_{left_out}_classifier.onnx"),
        detector=DiceDetector(MODELS / f"without_{left_out}_detector.onnx"),
        settings=LIVE if settings is None else settings,
    )

"""The reader on a table it never saw: matteop65-webcam `val` (an oblique webcam over a wood
desk), read by the models trained without that set (`models/lodo/`), and by the shipped ones.

Skipped when ../shared/datasets/matteop65-webcam is absent.
"""

from __future__ import annotations

import pytest
from photo_sets import BESIDE, photo_set

from benchmarks.lodo import lodo_reader
from vision.eval.evaluate import Evaluation, evaluate_set
from vision.read.classifier import load_default_classifier
from vision.read.detect import load_default_detector
from vision.read.reader import DiceReader, ReaderSettings

pytestmark = [pytest.mark.dataset, pytest.mark.slow]

ROOT = photo_set("matteop65-webcam") or BESIDE / "matteop65-webcam"


@pytest.fixture(scope="module")
def evaluations() -> dict[str, Evaluation]:
    if not (ROOT / "val" / "images").is_dir():
        pytest.skip(f"matteop65-webcam photos not found at {ROOT}")
    readers = {
        "unseen": lodo_reader("matteop65", ReaderSettings()),
        "shipped": DiceReader(load_default_classifier(), detector=load_default_detector()),
    }
    return {name: evaluate_set(ROOT, "val", 1280, reader) for name, reader in readers.items()}


def test_every_labelled_die_was_scored(evaluations: dict[str, Evaluation]) -> None:
    for evaluation in evaluations.values():
        assert len(evaluation.images) == 86 and evaluation.labelled == 255


def test_a_reader_that_never_saw_this_table_reads_95_percent(evaluations: dict[str, Evaluation]) -> None:
    assert evaluations["unseen"].summary()["accuracy"] >= 0.95


def test_a_reader_that_never_saw_this_table_has_97_percent_precision(evaluations: dict[str, Evaluation]) -> None:
    assert evaluations["unseen"].summary()["precision"] >= 0.97


def test_the_shipped_reader_reads_98_percent(evaluations: dict[str, Evaluation]) -> None:
    assert evaluations["shipped"].summary()["accuracy"] >= 0.98


def test_the_shipped_reader_reads_90_percent_of_throws_exactly(evaluations: dict[str, Evaluation]) -> None:
    assert evaluations["shipped"].summary()["exact_throws"] >= 0.90

"""The reader on real photos: nellbyler-d6 val + test, against the targets of the pips reader
and of the combined reader (pips and die-face classifier), and read at 1280 by the models
trained without this set (`models/lodo/`), as on a table they never saw.

The photos live outside the repository, at ../shared/datasets/nellbyler-d6 (next to the
repository) or wherever DICEKEEPER_DATA points; without them these tests are skipped.
Each photo is decoded once and read at both webcam-like scales, as `dicekeeper eval` does.
The combined-mode tests are skipped when the die-face model cannot be loaded.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest
from photo_sets import photo_set

from vision.eval.evaluate import Evaluation
from vision.eval.labels import LabelledDie, load_labelled_set
from vision.images import downscale, load_image
from vision.read.reader import DiceReader, ReaderSettings

pytestmark = [pytest.mark.dataset, pytest.mark.slow]

# The learned detector reads tables it never saw far better than the colour rules it
# replaced, but on these photos it is still short of the targets the old reader met: each
# such target is held by a strict xfail, so the day it is met the test says so.
NOT_YET = pytest.mark.xfail(strict=True, reason="not yet met by the learned reader; see docs/vision.md")

SIDES = (1280, 640)


def dataset_root() -> Path | None:
    return photo_set("nellbyler-d6")


def _unseen_reader() -> DiceReader | None:
    try:
        from benchmarks.lodo import lodo_reader

        return lodo_reader("nellbyler", ReaderSettings())
    except Exception:  # no onnxruntime or no models: the unseen-table test skips
        return None


def _combined_reader() -> DiceReader | None:
    try:
        from vision.read.classifier import load_default_classifier

        return DiceReader(load_default_classifier(), mode="combined")
    except Exception:  # no onnxruntime or no model: the combined tests skip
        return None


@pytest.fixture(scope="module")
def all_evaluations() -> dict[tuple[str, int], Evaluation]:
    """Evaluations keyed by (mode, max side)."""
    root = dataset_root()
    if root is None:
        pytest.skip("nellbyler-d6 photos not found at ../shared/datasets/nellbyler-d6 or $DICEKEEPER_DATA")
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    readers = {"pips": DiceReader(mode="pips")}
    combined = _combined_reader()
    if combined is not None:
        readers["combined"] = combined
    unseen = _unseen_reader()
    results = {(mode, side): Evaluation() for mode in readers for side in SIDES}
    if unseen is not None:
        results["unseen", SIDES[0]] = Evaluation()
    try:
        for split in ("val", "test"):
            for item in load_labelled_set(root, split):
                image = load_image(item.path)
                for side in SIDES:
                    frame, scale = downscale(image, side)
                    labels = [LabelledDie(d.value, tuple(v * scale for v in d.box)) for d in item.dice]  # type: ignore[misc]
                    for mode, reader in readers.items():
                        results[mode, side].add(reader.read(frame), labels, 0.0)
                    if unseen is not None and side == SIDES[0]:
                        results["unseen", side].add(unseen.read(frame), labels, 0.0)
    finally:
        cv2.setNumThreads(threads)
    return results


@pytest.fixture(scope="module")
def evaluations(all_evaluations: dict[tuple[str, int], Evaluation]) -> dict[int, Evaluation]:
    """The pips reader's evaluations by max side."""
    return {side: all_evaluations["pips", side] for side in SIDES}


@pytest.fixture(scope="module")
def combined(all_evaluations: dict[tuple[str, int], Evaluation]) -> dict[int, Evaluation]:
    """The combined reader's evaluations by max side."""
    if ("combined", SIDES[0]) not in all_evaluations:
        pytest.skip("the die-face model cannot be loaded")
    return {side: all_evaluations["combined", side] for side in SIDES}


def test_every_labelled_die_of_val_and_test_was_scored(all_evaluations: dict[tuple[str, int], Evaluation]) -> None:
    for evaluation in all_evaluations.values():
        assert len(evaluation.images) == 50
        assert evaluation.labelled == 337


def test_precision_at_1280_is_at_least_99_percent(evaluations: dict[int, Evaluation]) -> None:
    assert evaluations[1280].summary()["precision"] >= 0.99


@NOT_YET
def test_accuracy_at_1280_is_at_least_99_percent(evaluations: dict[int, Evaluation]) -> None:
    assert evaluations[1280].summary()["accuracy"] >= 0.99


@NOT_YET
def test_exact_throws_at_1280_are_at_least_95_percent(evaluations: dict[int, Evaluation]) -> None:
    assert evaluations[1280].summary()["exact_throws"] >= 0.95


@NOT_YET
def test_accuracy_at_640_is_at_least_97_percent(evaluations: dict[int, Evaluation]) -> None:
    assert evaluations[640].summary()["accuracy"] >= 0.97


# The combined reader (`dicekeeper eval ... --mode combined`, the default).


def test_combined_accuracy_at_1280_is_at_least_99_5_percent(combined: dict[int, Evaluation]) -> None:
    assert combined[1280].summary()["accuracy"] >= 0.995


def test_combined_exact_throws_at_1280_are_at_least_97_percent(combined: dict[int, Evaluation]) -> None:
    assert combined[1280].summary()["exact_throws"] >= 0.97


def test_combined_accuracy_at_640_is_at_least_98_5_percent(combined: dict[int, Evaluation]) -> None:
    assert combined[640].summary()["accuracy"] >= 0.985


@pytest.mark.parametrize("side", [1280, pytest.param(640, marks=NOT_YET)])
def test_combined_precision_is_at_least_99_5_percent(combined: dict[int, Evaluation], side: int) -> None:
    assert combined[side].summary()["precision"] >= 0.995


def test_a_reader_that_never_saw_this_table_reads_95_percent(
    all_evaluations: dict[tuple[str, int], Evaluation],
) -> None:
    if ("unseen", 1280) not in all_evaluations:
        pytest.skip("the leave-one-set-out models cannot be loaded")
    assert all_evaluations["unseen", 1280].summary()["accuracy"] >= 0.95

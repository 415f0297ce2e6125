"""Scoring readings against labels."""

from __future__ import annotations

import pytest

from vision.eval.evaluate import Evaluation, match
from vision.eval.labels import LabelledDie
from vision.types import DieBox, DieReading


def reading(value: int, x: float, y: float) -> DieReading:
    return DieReading(value, DieBox(x, y, 20, 20), 0.9, "pips")


def label(value: int, x: float, y: float) -> LabelledDie:
    return LabelledDie(value, (x - 10, y - 10, x + 10, y + 10))


def test_match_pairs_nearest_first_within_half_a_die() -> None:
    readings = [reading(1, 52, 50), reading(2, 100, 100), reading(3, 300, 300)]
    labels = [label(1, 50, 50), label(2, 108, 100), label(4, 500, 500)]
    assert match(readings, labels) == [(0, 0), (1, 1)]


def test_a_die_is_matched_once() -> None:
    assert match([reading(1, 50, 50), reading(1, 51, 50)], [label(1, 50, 50)]) == [(0, 0)]


def test_figures_and_confusion() -> None:
    evaluation = Evaluation()
    # Image 1: both right, nothing else: an exact throw.
    evaluation.add([reading(3, 50, 50), reading(5, 100, 50)], [label(3, 50, 50), label(5, 100, 50)], 10.0)
    # Image 2: one read wrong, one missed, one reported where no die is.
    evaluation.add([reading(2, 50, 50), reading(6, 400, 400)], [label(4, 50, 50), label(1, 100, 100)], 30.0)
    summary = evaluation.summary()
    assert summary["labelled_dice"] == 4
    assert summary["accuracy"] == pytest.approx(2 / 4)
    assert summary["precision"] == pytest.approx(3 / 4)
    assert summary["recall"] == pytest.approx(3 / 4)
    assert summary["exact_throws"] == pytest.approx(1 / 2)
    assert summary["ms_per_image"] == pytest.approx(20.0)
    assert evaluation.confusion[3][2] == 1  # a 4 read as 2
    assert evaluation.confusion[0][0] == 1  # a 1 not found
    assert evaluation.false_values == [0, 0, 0, 0, 0, 1]


def test_a_die_the_labels_leave_out_counts_neither_way() -> None:
    evaluation = Evaluation()
    cut_die = (380.0, 380.0, 420.0, 420.0)
    labels = [label(3, 50, 50)]
    score = evaluation.add([reading(3, 50, 50), reading(6, 400, 400)], labels, 0.0, [cut_die])
    assert (score.reported, score.found, score.unlabelled) == (1, 1, 1)
    assert score.exact
    # Elsewhere, a reading on no label is still a false die.
    evaluation.add([reading(3, 50, 50), reading(6, 200, 200)], labels, 0.0, [cut_die])
    summary = evaluation.summary()
    assert summary["precision"] == pytest.approx(2 / 3)
    assert summary["exact_throws"] == pytest.approx(1 / 2)
    assert summary["unlabelled_dice_read"] == 1
    assert evaluation.false_values == [0, 0, 0, 0, 0, 1]


def test_a_labelled_die_inside_a_left_out_one_still_counts() -> None:
    evaluation = Evaluation()
    score = evaluation.add([reading(2, 50, 50)], [label(4, 50, 50)], 0.0, [(0.0, 0.0, 100.0, 100.0)])
    assert (score.reported, score.found, score.right, score.unlabelled) == (1, 1, 0, 0)

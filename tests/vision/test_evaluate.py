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


def test_a_whole_die_box_finds_the_top_face_label_it_holds() -> None:
    # A slanted die boxed whole (60 px) below a label of its top face alone (16 px): the centres
    # lie 20 px apart, past half the label's side, but the box holds the label's centre.
    whole_die = DieReading(5, DieBox(100, 120, 60, 60), 0.9, "classifier")
    top_face = LabelledDie(5, (92, 92, 108, 108))
    assert match([whole_die], [top_face]) == [(0, 0)]
    # A box that holds no label's centre finds nothing, however near.
    assert match([DieReading(5, DieBox(100, 150, 40, 40), 0.9, "pips")], [top_face]) == []


def test_a_turned_box_holds_only_what_lies_inside_it() -> None:
    turned = DieReading(2, DieBox(100, 100, 80, 10, 45.0), 0.9, "pips")
    along = LabelledDie(2, (120, 120, 126, 126))  # on the box's long diagonal
    across = LabelledDie(2, (120, 74, 126, 80))  # as far off, across it
    assert match([turned], [along]) == [(0, 0)]
    assert match([turned], [across]) == []


def test_a_near_reading_takes_its_label_before_a_box_that_holds_it() -> None:
    big = DieReading(1, DieBox(100, 125, 80, 80), 0.9, "classifier")
    near = reading(1, 101, 101)
    assert match([big, near], [label(1, 100, 100)]) == [(1, 0)]


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


def test_placement_is_the_mean_distance_of_found_dice_from_their_labels_in_dice() -> None:
    evaluation = Evaluation()
    # 20-pixel dice: one read on its centre, one 4 px off, one 10 px off; a reading on no die
    # and a missed die do not count.
    evaluation.add(
        [reading(3, 50, 50), reading(5, 104, 50), reading(2, 300, 300)], [label(3, 50, 50), label(5, 100, 50)], 1.0
    )
    evaluation.add([reading(1, 50, 60)], [label(1, 50, 50), label(6, 200, 200)], 1.0)
    assert evaluation.summary()["placement"] == pytest.approx((0.0 + 0.2 + 0.5) / 3)
    assert Evaluation().summary()["placement"] == 0.0

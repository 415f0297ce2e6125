"""How the learning bench tells which labelled die a read die is."""

from __future__ import annotations

from benchmarks.adapt_bench import true_faces
from benchmarks.rest_videos import Rest
from vision.types import DieBox, DieReading


def at(x: float, y: float, side: float = 40.0, value: int = 1) -> DieReading:
    return DieReading(value, DieBox(x, y, side, side), 0.9, "pips")


def test_a_whole_die_box_finds_the_top_face_label_it_holds() -> None:
    # A slanted die labelled by its top face only: the box of the whole die is centred below it.
    rest = Rest(0, 10, (5,), "photo", ((100.0, 100.0, 120.0, 116.0),), (5,))
    assert true_faces(rest, [at(110, 126, side=44)]) == [5]
    assert true_faces(rest, [at(110, 180)]) == [None]


def test_each_labelled_die_is_found_once_by_the_nearest_reading() -> None:
    rest = Rest(0, 10, (2, 6), "photo", ((100.0, 100.0, 140.0, 140.0), (200.0, 100.0, 240.0, 140.0)), (6, 2))
    assert true_faces(rest, [at(126, 120), at(121, 121), at(219, 118)]) == [None, 6, 2]

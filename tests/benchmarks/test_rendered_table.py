"""One rendered table thrown on again and again, and the learning bench that uses it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.adapt_bench import on_no_die
from benchmarks.rendered_table import write_table
from benchmarks.rest_videos import Rest, labelled_photos
from vision.synth.domain import TableSession
from vision.types import DieBox, DieReading


def test_a_session_keeps_its_table_and_throws_new_dice_on_it() -> None:
    session = TableSession(4, width=320, height=240, die_size=(30.0, 40.0), dice=4)
    again = TableSession(4, width=320, height=240, die_size=(30.0, 40.0), dice=4)
    assert np.array_equal(session.table, again.table) and session.things == again.things
    first, second = (session.throw(np.random.default_rng(k), count=3) for k in (1, 2))
    assert first.frame.shape == (240, 320, 3) and 1 <= len(first.values) <= 3
    assert not np.array_equal(first.centres, second.centres)
    for sample in (first, second):
        for x, y in sample.centres:  # no die lands on the table's clutter
            assert all(np.hypot(x - t.cx, y - t.cy) > t.size * 0.5 for t in session.things)


def test_the_photos_of_a_table_are_a_labelled_set(tmp_path: Path) -> None:
    folder = write_table(tmp_path / "table", seed=2, throws=3)
    photos = labelled_photos([folder])
    assert len(photos) == 3 and all(photos) and all(p.dice for p in photos)
    assert all(1 <= d.value <= 6 for p in photos for d in p.dice)


def test_a_reading_on_no_labelled_die_is_told_apart_from_one_off_its_label() -> None:
    rest = Rest(0, 10, (3,), "photo", ((100.0, 100.0, 140.0, 140.0),), (3,))

    def at(x: float, y: float, side: float = 40.0) -> DieReading:
        return DieReading(1, DieBox(x, y, side, side), 0.9, "pips")

    assert not on_no_die(rest, at(120, 120))  # on the die
    assert not on_no_die(rest, at(145, 120, side=60))  # off its label's box, the label's centre in its own
    assert on_no_die(rest, at(300, 120))  # a spot elsewhere on the table
    cut = Rest(0, 10, (3,), "photo", ((100.0, 100.0, 140.0, 140.0),), (3,), ((280.0, 100.0, 320.0, 140.0),))
    assert not on_no_die(cut, at(300, 120))  # a die the labels leave out
    assert on_no_die(cut, at(400, 120))

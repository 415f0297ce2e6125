"""The classic blob-and-cluster reader that the live reader's speed is compared with."""

from __future__ import annotations

from drawn_scenes import six_dice_frame

from benchmarks.classic_reader import ClassicBlobReader


def test_reads_well_apart_dice_by_counting_their_pips() -> None:
    frame, dice = six_dice_frame()
    readings = ClassicBlobReader().read(frame)
    assert sorted(r.value for r in readings) == sorted(d.value for d in dice)
    for die in dice:
        nearest = min(readings, key=lambda r: (r.box.cx - die.cx) ** 2 + (r.box.cy - die.cy) ** 2)
        assert abs(nearest.box.cx - die.cx) < 0.2 * die.size and abs(nearest.box.cy - die.cy) < 0.2 * die.size


def test_an_empty_table_has_no_dice() -> None:
    frame, _ = six_dice_frame(values=())
    assert ClassicBlobReader().read(frame) == []

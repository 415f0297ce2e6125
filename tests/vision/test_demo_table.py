from __future__ import annotations

import numpy as np
import pytest

from vision.live.demo_table import SKIN, DemoSource, DemoTable, ThrowTruth
from vision.live.sources import PacedSource
from vision.read.reader import DiceReader


def run_until_throws(table: DemoTable, count: int, after: int = 3) -> list[np.ndarray]:
    frames = []
    while len(table.throws) < count:
        frames.append(table.step().image)
    for _ in range(after):
        frames.append(table.step().image)
    return frames


def test_same_seed_same_film_and_same_throws() -> None:
    a, b = DemoTable(seed=5, width=320, height=180), DemoTable(seed=5, width=320, height=180)
    frames_a, frames_b = run_until_throws(a, 1), run_until_throws(b, 1)
    assert len(frames_a) == len(frames_b)
    assert all(np.array_equal(x, y) for x, y in zip(frames_a, frames_b))
    assert a.throws == b.throws
    other = DemoTable(seed=6, width=320, height=180)
    run_until_throws(other, 1)
    assert other.throws != a.throws


def test_full_size_frames_are_1280_by_720_bgr() -> None:
    table = DemoTable(seed=1)
    frame = table.step()
    assert frame.image.shape == (720, 1280, 3) and frame.image.dtype == np.uint8
    assert frame.t == 0.0 and table.step().t == pytest.approx(1 / 30)


def test_the_truth_is_what_a_reader_sees_on_the_rest_frame() -> None:
    table = DemoTable(seed=9)
    reader = DiceReader(mode="pips")
    checked = 0
    while checked < 2:
        shown = table.step()
        if shown.rested is not None:
            seen = sorted(r.value for r in reader.read(shown.image))
            assert seen == sorted(shown.rested.faces + shown.rested.set_aside)
            assert sorted(v for v, _, _ in table.rested_dice()) == seen
            checked += 1


def test_dice_move_until_the_rest_frame_and_lie_still_after_it() -> None:
    table = DemoTable(seed=4, width=640, height=360, noise=0, light=False)
    frames = run_until_throws(table, 1, after=8)
    truth = table.throws[0]
    before = [
        np.abs(frames[i].astype(int) - frames[i - 1].astype(int)).max()
        for i in range(truth.start_index + 1, truth.rest_index + 1)
    ]
    after = [
        np.abs(frames[i].astype(int) - frames[i - 1].astype(int)).max()
        for i in range(truth.rest_index + 1, len(frames))
    ]
    assert min(before) > 20  # every frame up to the rest frame changed somewhere
    assert max(after) == 0


def test_a_tumbling_die_is_drawn_blurred() -> None:
    still = DemoTable(seed=4, width=640, height=360, noise=0, light=False)
    frames = run_until_throws(still, 1, after=0)
    truth = still.throws[0]
    mid = frames[(truth.start_index + truth.rest_index) // 2]
    rest = frames[truth.rest_index]

    def sharpness(image: np.ndarray) -> float:
        grey = image.mean(axis=2)
        return float(np.abs(np.diff(grey, axis=1)).max())

    assert sharpness(mid) < sharpness(rest)


def test_driven_table_keeps_the_kept_dice_and_throws_the_rest() -> None:
    table = DemoTable(seed=3, width=640, height=360, autoplay=False)
    assert table.ask(6, key="turn 1")
    run_until_throws(table, 1)
    first = table.throws[0]
    keep = first.faces[:2]
    assert table.ask(4, keep=keep, key="after keep")
    assert not table.ask(4, keep=keep, key="after keep")  # the same request twice is one throw
    hand_frames = 0
    while len(table.throws) < 2:
        shown = table.step()
        if shown.activity == "hand":
            hand_frames += 1
    second = table.throws[1]
    assert len(second.faces) == 4
    assert sorted(second.set_aside) == sorted(keep)
    assert hand_frames > 5  # a hand took the other four away first
    for _ in range(30):
        table.step()
    assert len(table.throws) == 2  # and then it waits to be asked
    assert sorted(v for v, _, _ in table.rested_dice()) == sorted(second.faces + second.set_aside)


def test_a_new_turn_clears_the_table() -> None:
    table = DemoTable(seed=8, width=320, height=180, autoplay=False)
    table.ask(6, key=1)
    run_until_throws(table, 1)
    table.ask(3, keep=table.throws[0].faces[:3], key=2)
    run_until_throws(table, 2)
    table.ask(6, key=3)
    run_until_throws(table, 3)
    assert table.throws[2].set_aside == () and len(table.throws[2].faces) == 6


def test_asking_for_an_impossible_number_of_dice_is_refused() -> None:
    with pytest.raises(ValueError, match="1..6"):
        DemoTable(seed=1, width=160, height=90).ask(7)


def test_a_hand_is_in_the_picture_while_dice_are_taken_away() -> None:
    table = DemoTable(seed=3, width=640, height=360, light=False, noise=0)
    skin = np.asarray(SKIN)
    largest = 0
    while len(table.throws) < 2:
        shown = table.step()
        if shown.activity == "hand":
            close = np.abs(shown.image.astype(int) - skin).max(axis=2) < 12
            largest = max(largest, int(close.sum()))
    die_area = table.die_size**2
    assert largest > 3 * die_area


def test_the_light_changes_but_stays_readable() -> None:
    table = DemoTable(seed=2)
    levels = [table.brightness(t / 10) for t in range(0, 1200)]
    assert 0.75 < min(levels) and max(levels) < 1.06
    jumps = [abs(b - a) for a, b in zip(levels, levels[1:])]
    assert max(jumps) > 0.02  # a lamp switched: a jump, not just a drift


def test_demo_source_ends_after_max_frames_and_plays_in_real_time() -> None:
    source = DemoSource(DemoTable(seed=1, width=160, height=90), max_frames=3)
    frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2]
    assert source.state.status == "ended"
    paced = PacedSource(DemoSource(DemoTable(seed=1, width=160, height=90), max_frames=20), fps=200).start()
    with paced:
        got = [f.index for f in paced]
        assert paced.state.status == "ended"
    assert got and got == sorted(got) and got[-1] == 19


def test_truth_is_a_plain_record() -> None:
    truth = ThrowTruth(1, (1, 2), (5,), 10, 40)
    assert truth.faces == (1, 2) and truth.rest_index > truth.start_index

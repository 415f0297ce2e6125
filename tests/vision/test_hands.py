from __future__ import annotations

import numpy as np
import pytest

from benchmarks.rest_videos import LIGHTS, under_light
from vision.live.demo_table import DemoTable, HandSprites
from vision.live.hands import HandCheck, HandConfig
from vision.live.settle import SettleConfig, SettledThrow, ThrowWatcher
from vision.read.reader import DiceReader

FPS = 15


@pytest.fixture(scope="module")
def rest() -> tuple[DemoTable, np.ndarray]:
    """A demo table with six dice lying still after a throw, and that frame."""
    table = DemoTable(seed=2, width=640, height=360, fps=FPS, autoplay=False)
    table.ask(6, key=1)
    while not table.throws:
        table.step()
    return table, table.step().image


def with_hand(table: DemoTable, image: np.ndarray, x: int, y: int, lean: float = 0.0) -> np.ndarray:
    frame = image.copy()
    HandSprites(table.die_size, table.height).draw(frame, x, y, lean)
    return frame


def test_a_hand_that_was_not_there_is_seen(rest: tuple[DemoTable, np.ndarray]) -> None:
    table, image = rest
    check = HandCheck()
    assert not check.look(image).hand  # the first frame is the reference
    sighting = check.look(with_hand(table, image, 320, 200))
    assert sighting.hand
    assert 0.02 < sighting.share < 0.5


def test_the_table_itself_and_a_moved_die_are_no_hand(rest: tuple[DemoTable, np.ndarray]) -> None:
    _, image = rest
    check = HandCheck()
    check.look(image)
    assert not check.look(image).hand
    moved = image.copy()
    moved[100:130, 100:130] = moved[200:230, 200:230]  # something die-sized changed
    assert not check.look(moved).hand


def test_a_new_scene_is_no_hand_and_becomes_the_reference(rest: tuple[DemoTable, np.ndarray]) -> None:
    table, image = rest
    check = HandCheck()
    check.look(image)
    other = np.full_like(image, (150, 60, 40))  # the camera now looks at blue cloth
    sighting = check.look(other)
    assert not sighting.hand and sighting.changed > 0.5
    assert check.look(with_hand(table, other, 320, 200)).hand


def test_a_skin_coloured_table_is_no_hand(rest: tuple[DemoTable, np.ndarray]) -> None:
    table, _ = rest
    wood = np.full((360, 640, 3), (120, 160, 214), np.uint8)  # the hand's own colour
    check = HandCheck()
    check.look(wood)
    # A hand the colour of the table cannot be told from it; what matters is that the table
    # alone is never taken for a hand.
    assert not check.look(wood).hand


def lit(frame: np.ndarray, light: str) -> np.ndarray:
    """The frame under one of the test videos' lights, as their camera films it before its noise."""
    return np.clip(under_light(frame.astype(np.float32), *LIGHTS[light]), 0, 255).astype(np.uint8)


COLOURED = ["cold", "warm"]  # the test videos' lights (benchmarks.rest_videos.LIGHTS) with a tint


@pytest.mark.parametrize("light", COLOURED)
def test_a_hand_under_a_coloured_light_is_seen_once_the_light_is_balanced(
    rest: tuple[DemoTable, np.ndarray], light: str
) -> None:
    table, image = rest
    held = lit(with_hand(table, image, 320, 200), light)
    for balance in (False, True):
        check = HandCheck(HandConfig(balance=balance))
        check.look(lit(image, light))
        # Such a light takes the hand's colour out of skin's range; the white dice show the light.
        assert check.look(held).hand is balance


@pytest.mark.parametrize("light", COLOURED)
def test_under_a_coloured_light_the_table_and_a_moved_die_are_still_no_hand(
    rest: tuple[DemoTable, np.ndarray], light: str
) -> None:
    _, image = rest
    check = HandCheck()
    check.look(lit(image, light))
    assert not check.look(lit(image, light)).hand
    moved = image.copy()
    moved[100:130, 100:130] = moved[200:230, 200:230]
    assert not check.look(lit(moved, light)).hand


def test_a_hand_accepted_as_table_is_no_longer_seen(rest: tuple[DemoTable, np.ndarray]) -> None:
    table, image = rest
    check = HandCheck()
    check.look(image)
    held = with_hand(table, image, 320, 200)
    assert check.look(held).hand
    assert check.look(held).hand  # a hand that is seen does not become the reference
    check.accept()
    assert not check.look(held).hand


def watch(frames: list[np.ndarray], config: SettleConfig | None = None) -> list[tuple[int, SettledThrow]]:
    watcher = ThrowWatcher(DiceReader(mode="pips"), config)
    found = []
    for index, frame in enumerate(frames):
        seen = watcher.feed(frame, index / FPS, index)
        if seen.settled is not None:
            found.append((index, seen.settled))
    return found


def test_dice_do_not_settle_while_a_hand_holds_still_over_them(rest: tuple[DemoTable, np.ndarray]) -> None:
    table, image = rest
    empty = np.full_like(image, image[5, 5])
    held = with_hand(table, image, 320, 230)
    frames = [empty] * 10 + [held] * 20 + [image] * 15  # the dice come with a hand that stays 1.3 s
    found = watch(frames)
    assert [index for index, _ in found] and all(index >= 30 for index, _ in found)
    assert len(found) == 1
    assert sorted(found[0][1].faces) == sorted(table.throws[0].faces)
    without_check = watch(frames, SettleConfig(hand_wait=None))
    assert without_check[0][0] < 30  # without the check, the throw is read around the hand


def test_a_hand_that_stays_is_taken_as_table_after_hand_wait(rest: tuple[DemoTable, np.ndarray]) -> None:
    table, image = rest
    empty = np.full_like(image, image[5, 5])
    held = with_hand(table, image, 560, 330)  # beside the dice, not over them
    frames = [empty] * 10 + [held] * 60
    found = watch(frames, SettleConfig(hand_wait=2.0))
    assert len(found) == 1
    index, throw = found[0]
    assert 10 + 2.0 * FPS <= index <= 10 + 2.0 * FPS + 0.5 * FPS
    assert sorted(throw.faces) == sorted(table.throws[0].faces)

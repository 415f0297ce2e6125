"""Advice on how big the dice are in the camera's picture."""

from __future__ import annotations

import pytest

from vision.live.framing import SMALL_DIE_PX, framing_advice, typical_die_px
from vision.types import DieBox, DieReading


def dice(*sides: float) -> list[DieReading]:
    return [
        DieReading(1 + i % 6, DieBox(50.0 + 90 * i, 100.0, side, side, 0.0), 0.9, "pips")
        for i, side in enumerate(sides)
    ]


def test_the_typical_die_is_the_median_one() -> None:
    assert typical_die_px(dice(30.0, 34.0, 90.0)) == pytest.approx(34.0)
    assert typical_die_px([]) is None


def test_small_dice_get_advice_that_says_their_size() -> None:
    advice = framing_advice(dice(31.0, 33.0, 35.0))
    assert "about 33 px across" in advice and "closer" in advice


@pytest.mark.parametrize("sides", [(), (SMALL_DIE_PX,), (48.0, 60.0, 70.0), (120.0,)])
def test_dice_big_enough_or_none_get_no_advice(sides: tuple[float, ...]) -> None:
    assert framing_advice(dice(*sides)) == ""

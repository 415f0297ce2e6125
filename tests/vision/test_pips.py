"""Finding pips on drawn dice, with each idea of what a pip is."""

from __future__ import annotations

import cv2
import numpy as np

from vision.faces import LAYOUTS
from vision.find import find_dice
from vision.pips import PipSettings, find_pips, find_pips_like, pip_colours
from vision.synthetic import BLACK, IVORY, DrawnDie, draw_scene

BRONZE = (60, 120, 170)  # BGR


def _pips(frame: np.ndarray, settings: PipSettings) -> int:
    (candidate,) = find_dice(frame).items
    return len(find_pips(frame, candidate, candidate.side, settings).pips)


def _glare_in_every_pip(frame: np.ndarray, die: DrawnDie) -> None:
    """A shiny die's concave pips each hold a spot of light in their middle."""
    spacing = 0.27 * die.size
    for gx, gy in LAYOUTS[die.value]:
        centre = (round(die.center[0] + gx * spacing), round(die.center[1] + gy * spacing))
        cv2.circle(frame, centre, max(1, round(0.035 * die.size)), die.body, cv2.FILLED, cv2.LINE_AA)


def test_pips_are_found_on_light_and_dark_dice() -> None:
    for body, pip in ((IVORY, BLACK), (BLACK, IVORY)):
        frame = draw_scene(640, 480, [DrawnDie(5, (320, 240), 80, 20, body, pip)], seed=1)
        assert _pips(frame, PipSettings()) == 5


def test_the_hats_see_only_their_own_polarity() -> None:
    light = draw_scene(640, 480, [DrawnDie(4, (320, 240), 80, 0, IVORY, BLACK)], seed=2)
    dark = draw_scene(640, 480, [DrawnDie(4, (320, 240), 80, 0, BLACK, IVORY)], table=(120, 160, 200), seed=2)
    assert _pips(light, PipSettings(polarity=-1)) == 4
    assert _pips(light, PipSettings(polarity=1)) == 0
    assert _pips(dark, PipSettings(polarity=1)) == 4
    assert _pips(dark, PipSettings(polarity=-1)) == 0


def test_pips_with_a_glare_spot_in_the_middle_are_found_when_any_centre_is_allowed() -> None:
    die = DrawnDie(4, (320, 240), 90, 0, BRONZE, BLACK)
    frame = draw_scene(640, 480, [die], seed=4)
    _glare_in_every_pip(frame, die)
    assert _pips(frame, PipSettings()) < 4
    assert _pips(frame, PipSettings(any_centre=True)) == 4
    assert _pips(frame, PipSettings(polarity=-1, any_centre=True)) == 4


GOLD = (60, 150, 190)  # BGR
DARK_BROWN = (30, 45, 65)
JET = (12, 12, 12)


def test_pips_like_the_ones_found_are_found_on_the_dark_part_of_a_marbled_face() -> None:
    # The five's middle pip sits where the gold half meets the brown: it barely differs from
    # the face's median colour, but it is as dark as the pips on the gold.
    frame = draw_scene(640, 480, [DrawnDie(5, (320, 240), 80, 20, GOLD, JET, streak=DARK_BROWN)], seed=1)
    (candidate,) = find_dice(frame).items
    seen = find_pips(frame, candidate, candidate.side)
    assert len(seen.pips) < 5
    like = find_pips_like(frame, candidate, candidate.side, seen.pips)
    assert len(like.pips) == 5
    assert like.contrast > 35.0  # the pips' distance from the face's colour
    # Nothing to take the colour from: nothing found.
    assert find_pips_like(frame, candidate, candidate.side, ()).pips == ()


def test_each_pip_has_the_colour_of_its_middle() -> None:
    frame = draw_scene(640, 480, [DrawnDie(3, (320, 240), 80, 10, GOLD, JET)], seed=3)
    (candidate,) = find_dice(frame).items
    pips = find_pips(frame, candidate, candidate.side).pips
    jet = cv2.cvtColor(np.array([[JET]], np.uint8), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    colours = pip_colours(frame, pips)
    assert colours.shape == (3, 3)
    assert np.abs(colours - jet).max() < 8  # the grain only, not the gold around each pip
    assert pip_colours(frame, ()).shape == (0, 3)

"""Finding pips on drawn dice, with each idea of what a pip is."""

from __future__ import annotations

import cv2
import numpy as np
from drawn import BLACK, IVORY, RED, DrawnDie, draw_scene

from vision.read.faces import LAYOUTS
from vision.read.pips import PipSettings, candidate_for, find_pips
from vision.types import DieBox

BRONZE = (60, 120, 170)  # BGR


def _pips(frame: np.ndarray, settings: PipSettings, die: DrawnDie | None = None) -> int:
    """Pips found in the box of the die drawn at the middle of a 640x480 frame."""
    centre, size, angle = (die.center, die.size, die.angle) if die else ((320.0, 240.0), 80.0, 0.0)
    candidate = candidate_for(DieBox(centre[0], centre[1], size, size, angle), frame)
    assert candidate is not None
    return len(find_pips(frame, candidate, candidate.side, settings).pips)


def test_a_box_outside_the_frame_has_no_candidate() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    assert candidate_for(DieBox(-50, -50, 20, 20), frame) is None
    inside = candidate_for(DieBox(10, 10, 40, 40), frame, face_mask=False)
    assert inside is not None and inside.origin == (0, 0) and inside.mask.shape == (30, 30)


def _glare_in_every_pip(frame: np.ndarray, die: DrawnDie) -> None:
    """A shiny die's concave pips each hold a spot of light in their middle."""
    spacing = 0.27 * die.size
    for gx, gy in LAYOUTS[die.value]:
        centre = (round(die.center[0] + gx * spacing), round(die.center[1] + gy * spacing))
        cv2.circle(frame, centre, max(1, round(0.035 * die.size)), die.body, cv2.FILLED, cv2.LINE_AA)


def test_pips_are_found_on_light_and_dark_dice() -> None:
    for body, pip in ((IVORY, BLACK), (BLACK, IVORY)):
        die = DrawnDie(5, (320, 240), 80, 20, body, pip)
        frame = draw_scene(640, 480, [die], seed=1)
        assert _pips(frame, PipSettings(), die) == 5


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
    assert _pips(frame, PipSettings(), die) < 4
    assert _pips(frame, PipSettings(any_centre=True), die) == 4
    assert _pips(frame, PipSettings(polarity=-1, any_centre=True), die) == 4


def test_a_glare_spot_among_red_pips_is_no_pip() -> None:
    # A white spot of light in the middle of a dark die's four red pips makes a perfect five.
    die = DrawnDie(4, (320, 240), 90, 0, BLACK, RED)
    frame = draw_scene(640, 480, [die], seed=5)
    cv2.circle(frame, (320, 240), 6, (250, 250, 250), cv2.FILLED, cv2.LINE_AA)
    assert _pips(frame, PipSettings(colour_spread=None), die) == 5
    assert _pips(frame, PipSettings(), die) == 4


def test_pips_of_one_colour_are_all_kept() -> None:
    for value in (3, 5, 6):
        die = DrawnDie(value, (320, 240), 90, 15, BLACK, RED)
        frame = draw_scene(640, 480, [die], seed=value)
        assert _pips(frame, PipSettings(), die) == value

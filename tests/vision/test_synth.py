"""The domain-randomised training scenes: tables, clutter, and dice labelled where they lie."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.synth.clutter import DRAWERS
from vision.synth.domain import _labelled, _slanted, random_sample
from vision.synth.render import DieSpec, Effects, draw_dice, top_face
from vision.synth.scenes import DIE_COLOURS, contrasting_colour
from vision.synth.tables import SURFACES, draw_surface


@pytest.mark.parametrize("kind", SURFACES)
def test_every_surface_draws_reproducibly(kind: str) -> None:
    first = draw_surface(kind, 120, 90, np.random.default_rng(4))
    second = draw_surface(kind, 120, 90, np.random.default_rng(4))
    assert first.shape == (90, 120, 3) and first.dtype == np.uint8
    assert np.array_equal(first, second)


def test_an_unknown_surface_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown surface"):
        draw_surface("lava", 10, 10, np.random.default_rng(0))


@pytest.mark.parametrize("kind", sorted(DRAWERS))
def test_every_clutter_kind_marks_the_table_where_it_is_put(kind: str) -> None:
    frame = np.full((200, 200, 3), 128, np.uint8)
    DRAWERS[kind](frame, 100.0, 100.0, 40.0, np.random.default_rng(2))
    changed = np.any(frame != 128, axis=2)
    assert changed[80:120, 80:120].mean() > 0.3
    assert not changed[:10, :10].all()


def test_top_face_of_a_flat_die_is_its_square() -> None:
    frame = np.zeros((100, 100, 3), np.uint8)
    die = DieSpec(4, 50, 50, 40, angle=0)
    (geometry,) = draw_dice(frame, (die,), Effects())
    face = top_face(die, geometry)
    assert face is not None
    corners, facing = face
    assert facing == pytest.approx(1.0)
    assert corners.mean(axis=0) == pytest.approx((50, 50), abs=0.01)
    assert corners.max(axis=0) - corners.min(axis=0) == pytest.approx((40, 40), abs=0.01)


def test_a_marbled_die_has_two_body_colours() -> None:
    plain = np.zeros((100, 100, 3), np.uint8)
    marbled = np.zeros((100, 100, 3), np.uint8)
    draw_dice(plain, (DieSpec(1, 50, 50, 60, body_bgr=(200, 40, 40), pip_scale=0.5),), Effects())
    draw_dice(
        marbled, (DieSpec(1, 50, 50, 60, body_bgr=(200, 40, 40), pip_scale=0.5, marble_bgr=(40, 200, 230)),), Effects()
    )
    assert np.count_nonzero(marbled[35:65, 35:65, 2] > 150) > 50
    assert np.count_nonzero(plain[35:65, 35:65, 2] > 150) == 0


def _pip_count_at(frame: np.ndarray, centre: np.ndarray, size: np.ndarray) -> int:
    """Dark or light spots inside the labelled top face that differ from its median colour."""
    half = size / 2 * 0.8
    x0, y0 = np.maximum(0, (centre - half).astype(int))
    x1, y1 = (centre + half).astype(int)
    patch = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2LAB).astype(np.float32)
    distance = np.linalg.norm(patch - np.median(patch.reshape(-1, 3), axis=0), axis=2)
    marks = (distance > 40).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(marks)
    face = marks.size
    pips = 0
    for i in range(1, count):
        area, w, h = stats[i, cv2.CC_STAT_AREA], stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        # A pip is a compact spot of a pip's size, not a streak of grain or a die's edge.
        if 0.004 * face <= area <= 0.08 * face and max(w, h) <= 2.2 * min(w, h) and area >= 0.4 * w * h:
            pips += 1
    return pips


def test_samples_are_reproducible_and_labelled_inside_the_frame() -> None:
    first = random_sample(np.random.default_rng(7), 160, 160)
    second = random_sample(np.random.default_rng(7), 160, 160)
    assert np.array_equal(first.frame, second.frame)
    assert np.array_equal(first.centres, second.centres)
    for sample in (random_sample(np.random.default_rng(seed), 160, 160) for seed in range(20)):
        assert sample.frame.shape == (160, 160, 3)
        assert len(sample.centres) == len(sample.sizes) == len(sample.values)
        assert np.all((sample.centres >= 0) & (sample.centres < 160))
        assert np.all((sample.values >= 1) & (sample.values <= 6))
        assert np.all(sample.sizes > 0)


def test_a_slant_uncovers_the_bare_table_not_mirrored_dice() -> None:
    table = np.full((120, 160, 3), 90, np.uint8)
    frame = table.copy()
    frame[2:30, 60:90] = 255  # a white die against the far edge
    squash = np.float32([[0, 0], [160, 0], [160, 120], [0, 120]])
    matrix = cv2.getPerspectiveTransform(squash, np.float32([[30, 40], [130, 40], [160, 120], [0, 120]]))
    slanted = _slanted(frame, table, matrix)
    assert (slanted[45:, :] == 255).all(axis=2).any()  # the die itself, seen at the slant
    assert not (slanted[:38, :] == 255).all(axis=2).any()  # no copy of it in the uncovered band
    mirrored = cv2.warpPerspective(frame, matrix, (160, 120), borderMode=cv2.BORDER_REFLECT)
    assert (mirrored[:38, :] == 255).all(axis=2).any()  # where plain mirroring puts one


def test_a_die_drawn_off_the_edge_is_not_labelled_where_the_slant_shows_it() -> None:
    square = np.float32([[-6, -6], [6, -6], [6, 6], [-6, 6]])
    corners = np.stack([square + (80, 60), square + (80, -4)])  # the second one's centre is off the top
    inward = np.float32([[1, 0, 0], [0, 0.8, 20], [0, 0, 1]])  # moves the whole drawing down
    sample = _labelled(np.zeros((120, 160, 3), np.uint8), corners, [3, 5], inward)
    assert sample.values.tolist() == [3]
    assert sample.centres[0] == pytest.approx((80, 68))


def test_labels_sit_on_dice_faces_that_show_their_value() -> None:
    """Marks counted inside the labelled boxes match the labelled values far more often than
    marks counted in boxes moved one die aside: the labels follow the dice through the
    camera's tilt, light and noise."""
    on_label = beside = checked = 0
    for seed in range(120):
        sample = random_sample(np.random.default_rng(seed), 320, 320, die_size=(40.0, 60.0))
        for centre, size, value in zip(sample.centres, sample.sizes, sample.values):
            moved = centre + np.array([size[0] * 1.5, 0.0])
            if np.any(centre - size < 0) or np.any(np.maximum(centre, moved) + size >= 320):
                continue
            checked += 1
            on_label += _pip_count_at(sample.frame, centre, size) == value
            beside += _pip_count_at(sample.frame, moved, size) == value
    assert checked >= 30, checked
    assert on_label > 2 * beside, (on_label, beside, checked)


def test_some_scenes_throw_a_matched_set_and_others_mix_dice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Players mostly throw one set of dice: in a share of the scenes every die has the same
    body and pip colours, in the others each die has its own."""
    import vision.synth.domain as domain

    thrown: list[list[DieSpec]] = []

    def recording_draw_dice(frame: np.ndarray, dice: list[DieSpec], effects: Effects) -> object:
        thrown.append(list(dice))
        return draw_dice(frame, dice, effects)

    monkeypatch.setattr(domain, "draw_dice", recording_draw_dice)
    for seed in range(60):
        random_sample(np.random.default_rng(seed), 160, 160, die_size=(12.0, 20.0))
    several = [dice for dice in thrown if len(dice) >= 3]
    matched = [dice for dice in several if len({(d.body_bgr, d.pip_bgr) for d in dice}) == 1]
    assert len(several) >= 20, len(several)
    assert 0.15 * len(several) <= len(matched) <= 0.7 * len(several), (len(matched), len(several))


def _lab(colour: tuple[int, int, int]) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[colour]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)


def test_pips_stand_out_by_lightness_or_by_hue_as_red_pips_on_a_black_die() -> None:
    """Pips always differ from their die, but not only by lightness: red pips on a black,
    smoke or blue die are common, and a reader trained only on light-on-dark and
    dark-on-light pips calls such dice "no die"."""
    rng = np.random.default_rng(11)
    by_hue = 0
    for body in ((25, 25, 25), (70, 65, 60), (170, 90, 30), (235, 235, 235), (40, 200, 230)):
        for _ in range(40):
            pips = contrasting_colour(rng, body)
            lightness_gap = abs(float(np.mean(pips)) - float(np.mean(body)))
            lab_gap = float(np.linalg.norm(_lab(pips) - _lab(body)))
            assert lightness_gap > 90 or lab_gap > 75, (body, pips)
            by_hue += lightness_gap <= 90
    assert by_hue >= 20
    assert ((25, 25, 25), (40, 40, 200)) in DIE_COLOURS  # black with red pips, among the common kinds


def test_the_dice_of_a_slanted_table_mostly_lean_away_from_the_camera() -> None:
    """The perspective looks up the frame, so a die's near side shows below its top face."""
    from vision.synth.domain import TableSession
    from vision.synth.render import AWAY_FROM_CAMERA

    directions = [TableSession(seed).lean_direction for seed in range(60)]
    assert 0.55 < sum(d == AWAY_FROM_CAMERA for d in directions) / len(directions) < 0.85

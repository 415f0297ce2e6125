"""Pips to a value: counts, the layout check and the reasons for doubt."""

from __future__ import annotations

import numpy as np
import pytest

from vision.read.faces import LAYOUTS, _fit_grid, layout_fit, read_face
from vision.read.pips import Pip

DIE = 60.0
SPACING = 0.25 * DIE
CENTER = (100.0, 100.0)


def pips_at(places: list[tuple[float, float]], angle: float = 0.0, spacing: float = SPACING) -> tuple[Pip, ...]:
    a = np.deg2rad(angle)
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    points = np.array(places, dtype=float) @ rotation.T * spacing + CENTER
    return tuple(Pip(float(x), float(y), 0.17 * DIE) for x, y in points)


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 30.0, 45.0, 80.0])
def test_each_face_layout_reads_its_value_without_doubt(value: int, angle: float) -> None:
    face = read_face(pips_at(list(LAYOUTS[value]), angle), DIE, contrast=90.0, face_center=CENTER)
    assert face.value == value
    assert face.doubts == ()


def test_three_pips_in_an_l_are_no_three() -> None:
    face = read_face(pips_at([(-1, -1), (-1, 1), (1, 1)]), DIE, contrast=90.0, face_center=CENTER)
    # Setting one corner aside leaves a diagonal two, which is only ever a doubtful reading.
    assert face.value != 3
    assert face.doubtful


def test_two_pips_side_by_side_are_no_two() -> None:
    # A two lies on a diagonal; two neighbours along an edge at the pip spacing are too close.
    face = read_face(pips_at([(-1, 0), (1, 0)], spacing=0.5 * SPACING), DIE, contrast=90.0, face_center=CENTER)
    assert face.value is None


def test_six_is_two_rows_of_three_not_three_rows_of_two_squashed() -> None:
    error, _ = layout_fit(np.array([(p.x, p.y) for p in pips_at(list(LAYOUTS[6]), angle=20.0)]))
    assert error < 0.05
    skewed = [(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1.9, 1)]
    assert read_face(pips_at(skewed), DIE, contrast=90.0, face_center=CENTER).value is None


@pytest.mark.parametrize("angle", [0.0, 35.0, 70.0])
def test_a_six_with_its_rows_set_close_together_is_a_six(angle: float) -> None:
    # Many dice set a six's rows only about 1.3 pip spacings apart, not two.
    tight = [(x * 0.65, y) for x, y in LAYOUTS[6]]
    face = read_face(pips_at(tight, angle), DIE, contrast=90.0, face_center=CENTER)
    assert (face.value, face.doubts) == (6, ())


def test_a_four_with_two_pips_of_a_side_face_beside_it_is_no_six() -> None:
    # The side face's pips extend the four's rows into two evenly spaced rows of three, but
    # the rows lie closer together than any six's (under half the spacing along a row).
    four_and_side = [(-1, -1), (-1, 1), (1, -1), (1, 1), (-1, -3.4), (1, -3.4)]
    face = read_face(pips_at(four_and_side, spacing=0.6 * SPACING), DIE, contrast=90.0, face_center=CENTER)
    assert face.value != 6


def test_more_than_six_pips_or_none_is_doubt_by_count() -> None:
    seven = [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1), (0, 0)]
    # The extra blob sits on the grid centre, so no face is left by setting one or two aside
    # without leaving an unbalanced pattern; either way it must not read as a clean value.
    face = read_face(pips_at(seven), DIE, contrast=90.0, face_center=CENTER)
    assert face.doubtful
    assert read_face((), DIE, contrast=0.0, face_center=CENTER).doubts == ("count",)


def test_a_glare_blob_off_the_face_is_set_aside_with_doubt() -> None:
    five = list(LAYOUTS[5]) + [(2.6, 0.4)]
    face = read_face(pips_at(five), DIE, contrast=90.0, face_center=CENTER)
    assert face.value == 5
    assert "dropped" in face.doubts


def test_a_lone_blob_far_off_centre_is_no_one() -> None:
    face = read_face(pips_at([(1.8, 0.0)]), DIE, contrast=90.0, face_center=CENTER)
    assert face.value is None


def test_faint_pips_are_doubted_for_contrast() -> None:
    face = read_face(pips_at(list(LAYOUTS[4])), DIE, contrast=20.0, face_center=CENTER)
    assert face.value == 4
    assert face.doubts == ("contrast",)


# Layouts that fit the grid one way only (a diagonal of three or four corners also fit a grid
# turned by 45 degrees, at another spacing), at turns the fit tries (every 3 degrees).
@pytest.mark.parametrize("angle", [0.0, 21.0, 45.0, 87.0])
@pytest.mark.parametrize(
    "places",
    [
        [(-1, -1), (1, -1), (0, 0), (1, 1)],
        [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
    ],
)
def test_points_on_a_turned_grid_fit_it_at_its_spacing_and_centre(angle: float, places: list[tuple[int, int]]) -> None:
    points = np.array([(p.x, p.y) for p in pips_at(places, angle)])
    error, spacing, index, centre = _fit_grid(points)
    assert error < 1e-6
    assert spacing == pytest.approx(SPACING)
    assert index >= 0
    # The grid's middle is the face's centre even where no pip marks it.
    assert centre == pytest.approx(CENTER, abs=1e-6)


def test_points_that_cannot_each_take_a_place_of_the_grid_do_not_fit() -> None:
    # Four in a row span three spacings: on a 3x3 grid two of them would share a place.
    points = np.array([(p.x, p.y) for p in pips_at([(-1.5, 0), (-0.5, 0), (0.5, 0), (1.5, 0)])])
    error, _, index, _ = _fit_grid(points)
    assert error == np.inf
    assert index == -1

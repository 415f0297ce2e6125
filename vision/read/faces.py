"""Turning pips into a face value: the count, the layout check and the reasons for doubt."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from vision.read.median import median
from vision.read.pips import Pip, PipFinding

# Pip positions of each face on a 3x3 grid (units of the pip spacing), in one orientation;
# the layout check also tries the face turned by 90 degrees.
LAYOUTS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
_ANGLES = np.deg2rad(np.arange(0.0, 90.0, 3.0))
_ROTATIONS = np.stack([np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) for a in _ANGLES])
_TARGETS = {value: (frozenset(places), frozenset((-y, x) for x, y in places)) for value, places in LAYOUTS.items()}


@dataclass(frozen=True)
class FaceSettings:
    max_layout_error: float = 0.25  # RMS distance of pips from their grid places, in pip spacings
    min_spacing: float = 0.12  # pip spacing as a fraction of the die's side
    max_spacing: float = 0.32
    # Pips' centre from the region's centre, fraction of the die's side. Side faces in view
    # shift the region, but a lone pip far off centre is more often glare than a one.
    max_offset: float = 0.35
    max_offset_single: float = 0.25
    min_contrast: float = 35.0  # below this the pips are doubtful (Lab distance)
    max_dropped: int = 2  # pips the layout check may set aside as glare or side-face pips
    sample_radius: float = 0.3  # of the pip spacing: the disc looked at on each grid place
    pip_share: float = 0.6  # a grid place holds a pip when it has this share of the pips' contrast
    single_spacing: float = 0.21  # pip spacing (of the die's side) assumed around a lone pip; 0: no check
    # Half the distance between a six's two rows of three, over the pips' spacing along a row:
    # 1 on most dice, about 0.67 on dice with the rows set close; a four with two pips of a
    # side face in line makes about 0.5 (bounds chosen on train).
    min_six_rows: float = 0.6
    max_six_rows: float = 1.3


@dataclass(frozen=True)
class FaceRead:
    """A value from pips, with the layout error and every reason to doubt it (empty: sure)."""

    value: int | None
    count: int  # pips found
    layout_error: float
    doubts: tuple[str, ...]
    used: tuple[int, ...] = ()  # indexes of the pips that make up the face

    @property
    def doubtful(self) -> bool:
        return bool(self.doubts)


def layout_fit(points: np.ndarray) -> tuple[float, float]:
    """Best (RMS error in spacings, spacing in pixels) of `points` laid out as the face with
    that many pips, over rotations; (inf, 0) when no rotation puts them on the right places."""
    error, spacing, _ = _fit(points)
    return error, float(np.mean(spacing))


def _fit(points: np.ndarray, settings: FaceSettings | None = None) -> tuple[float, np.ndarray, int]:
    """`layout_fit` with the spacing along each axis of the turned grid, and the index of the
    best rotation in `_ROTATIONS` (-1 if none)."""
    settings = settings or FaceSettings()
    value = len(points)
    centred = points - points.mean(axis=0)
    turned = np.einsum("nk,ajk->anj", centred, _ROTATIONS)
    extent = turned.max(axis=1) - turned.min(axis=1)
    if value == 6:
        # Two rows of three, which some dice set closer together than two pip spacings: each
        # axis gets its own spacing.
        spacings = extent / 2.0
    else:
        spacings = np.repeat(extent.sum(axis=1, keepdims=True) / 4.0, 2, axis=1)
    valid = spacings.min(axis=1) > 1e-6
    if not valid.any():
        return (np.inf, np.zeros(2), -1)
    scaled = turned / np.where(valid[:, None], spacings, 1.0)[:, None, :]
    places = np.rint(scaled)
    # Errors in units of the shorter spacing, so a stretched grid forgives no more than a square one.
    shortest = np.where(valid, spacings.min(axis=1), 1.0)
    residuals = (scaled - places) * (spacings / shortest[:, None])[:, None, :]
    errors = np.sqrt((residuals**2).sum(axis=2).mean(axis=1))
    errors[~valid] = np.inf
    targets = _TARGETS[value]
    for index in np.argsort(errors):
        if not np.isfinite(errors[index]):
            break
        placed = frozenset(map(tuple, places[index].astype(int).tolist()))
        if len(placed) != value or placed not in targets:
            continue
        if value == 6:
            rows_apart, along = spacings[index] if placed == targets[0] else spacings[index][::-1]
            if not settings.min_six_rows <= rows_apart / along <= settings.max_six_rows:
                continue
        return (float(errors[index]), spacings[index], int(index))
    return (np.inf, np.zeros(2), -1)


def _fit_grid(points: np.ndarray) -> tuple[float, float, int, np.ndarray]:
    """Fit points to places of a 3x3 grid, some places left empty: (RMS error in spacings,
    spacing, rotation index, grid centre in pixels); error inf when they do not fit.

    All rotations are tried at once; of those where each point has a place of its own, the
    first with the least error wins."""
    centred = points - points.mean(axis=0)
    turned = np.einsum("nk,ajk->anj", centred, _ROTATIONS)
    extent = turned.max(axis=1) - turned.min(axis=1)
    # The pips that are there still span two spacings in at least one direction.
    spacings = extent.max(axis=1) / 2.0
    usable = spacings > 1e-6
    scaled = turned / np.where(usable, spacings, 1.0)[:, None, None]
    shift = (scaled.max(axis=1) + scaled.min(axis=1)) / 2.0  # centre of the pips' span
    grid = scaled - shift[:, None, :]
    places = np.rint(grid)
    # Each place as one number from 0 to 8 (where the places lie on the grid), sorted: two
    # points on one place make two equal neighbours.
    codes = np.sort((places[:, :, 0] + 1) * 3 + places[:, :, 1] + 1, axis=1)
    usable &= (np.abs(places).max(axis=(1, 2)) <= 1) & (np.diff(codes, axis=1) != 0).all(axis=1)
    if not usable.any():
        return (np.inf, 0.0, -1, points.mean(axis=0))
    errors = np.where(usable, np.sqrt(((grid - places) ** 2).sum(axis=2).mean(axis=1)), np.inf)
    index = int(np.argmin(errors))
    spacing = spacings[index]
    centre = points.mean(axis=0) + (shift[index] * spacing) @ _ROTATIONS[index]
    return (float(errors[index]), float(spacing), index, centre)


_Fit = tuple[float, np.ndarray, int]  # what `_fit` returns


def _check(points: np.ndarray, die_size: float, center: np.ndarray, settings: FaceSettings) -> _Fit | None:
    """The points' fit as a face (see `_fit`; a lone pip fits at no rotation), or None when
    they are no face."""
    offset = float(np.hypot(*(points.mean(axis=0) - center))) / die_size
    if offset > (settings.max_offset_single if len(points) == 1 else settings.max_offset):
        return None
    if len(points) == 1:
        return (0.0, np.zeros(2), -1)
    fit = _fit(points, settings)
    spacing = float(np.mean(fit[1]))
    if fit[0] > settings.max_layout_error or not settings.min_spacing <= spacing / die_size <= settings.max_spacing:
        return None
    return fit


_GRID = np.array([(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)], dtype=np.float64)


def grid_value(
    points: np.ndarray, pips: PipFinding, settings: FaceSettings, die_size: float = 0.0, fit: _Fit | None = None
) -> int | None:
    """Look at all nine places of the face grid that `points` lie on: the value whose layout
    the places with a pip make, or None when they make no face. `fit`: the points' `_fit`,
    if known."""
    spacing: float | np.ndarray  # along each axis of the turned grid, or one for both
    if len(points) == 1:
        if settings.single_spacing <= 0:
            return None
        # One pip gives no turn or spacing: take the box's turn and a typical pip spacing.
        spacing = settings.single_spacing * die_size
        a = np.deg2rad(pips.angle)
        rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    else:
        _, spacings, index = fit if fit is not None else _fit(points, settings)
        if index < 0:
            return None
        rotation = _ROTATIONS[index]
        spacing = spacings
    places = points.mean(axis=0) + (_GRID * spacing) @ rotation
    radius = settings.sample_radius * float(np.min(spacing))
    samples = pips.contrasts_at(places, radius)
    level = float(median(pips.contrasts_at(points, radius)))
    if level <= 0:
        return None
    occupied = frozenset(
        (int(i), int(j)) for (i, j), sample in zip(_GRID, samples) if sample >= settings.pip_share * level
    )
    for value, targets in _TARGETS.items():
        if occupied in targets:
            return value
    return None


def _complete(
    points: np.ndarray, pips: PipFinding, die_size: float, center: np.ndarray, settings: FaceSettings
) -> tuple[int, float] | None:
    """(value, error) of the face whose layout the points are part of, checked on the grid."""
    error, spacing, index, grid_centre = _fit_grid(points)
    if error > settings.max_layout_error or not settings.min_spacing <= spacing / die_size <= settings.max_spacing:
        return None
    if float(np.hypot(*(grid_centre - center))) / die_size > settings.max_offset:
        return None
    places = grid_centre + (_GRID * spacing) @ _ROTATIONS[index]
    radius = settings.sample_radius * spacing
    level = float(median(pips.contrasts_at(points, radius)))
    if level <= 0:
        return None
    samples = pips.contrasts_at(places, radius)
    occupied = frozenset((int(i), int(j)) for (i, j), v in zip(_GRID, samples) if v >= settings.pip_share * level)
    for value, targets in _TARGETS.items():
        if value > len(points) and occupied in targets:
            return value, error
    return None


def read_face(
    pips: tuple[Pip, ...] | PipFinding,
    die_size: float,
    contrast: float | None = None,
    face_center: tuple[float, float] | None = None,
    settings: FaceSettings | None = None,
) -> FaceRead:
    """The face value the pips show, doubted when the count, layout or contrast is off.

    When all pips do not make a face, up to `max_dropped` of them may be set aside (glare,
    a pip on a side face); the reading is then doubtful ("dropped") but usually right.
    With a `PipFinding`, the grid the pips lie on is checked for pips the blobs missed.
    """
    settings = settings or FaceSettings()
    finding: PipFinding | None = None
    if isinstance(pips, PipFinding):
        finding = pips
        pips, contrast, face_center = finding.pips, finding.contrast, finding.face_center
    assert contrast is not None and face_center is not None
    count = len(pips)
    if count == 0:
        return FaceRead(None, 0, np.inf, ("count",))
    points = np.array([(p.x, p.y) for p in pips], dtype=np.float64)
    center = np.asarray(face_center, dtype=np.float64)
    contrast_doubt = ("contrast",) if contrast < settings.min_contrast else ()
    found: tuple[_Fit, tuple[int, ...], tuple[str, ...]] | None = None
    if count <= 6:
        fit = _check(points, die_size, center, settings)
        if fit is not None:
            found = (fit, tuple(range(count)), ())
    if found is None and finding is not None and 3 <= count <= 5:
        # Some pips of a bigger face missed (small pips of a six run together): if the pips lie
        # on a 3x3 grid, let the grid places decide.
        completed = _complete(points, finding, die_size, center, settings)
        if completed is not None:
            return FaceRead(completed[0], count, completed[1], ("grid", *contrast_doubt), tuple(range(count)))
    for dropped in range(1, settings.max_dropped + 1):
        if found is not None:
            break
        size = count - dropped
        # Any one blob near the centre would pass for a one: never drop down to a single pip.
        if not 2 <= size <= 6:
            continue
        for kept in combinations(range(count), size):
            fit = _check(points[list(kept)], die_size, center, settings)
            if fit is not None and (found is None or fit[0] < found[0][0]):
                found = (fit, kept, ("dropped",))
    if found is None:
        doubt = "count" if count > 6 else "layout"
        return FaceRead(None, count, np.inf, (doubt, *contrast_doubt))
    fit, kept, doubts = found
    error = fit[0]
    value = len(kept)
    if finding is not None and (value >= 2 or settings.single_spacing > 0):
        on_grid = grid_value(points[list(kept)], finding, settings, die_size, fit if value >= 2 else None)
        if on_grid is None:
            doubts = (*doubts, "off-grid")
        elif on_grid != value:
            value, doubts = on_grid, (*doubts, "grid")
    return FaceRead(value, count, error, (*doubts, *contrast_doubt), kept)

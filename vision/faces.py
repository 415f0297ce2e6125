"""Turning pips into a face value: the count, the layout check and the reasons for doubt."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.pips import Pip

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


@dataclass(frozen=True)
class FaceSettings:
    max_layout_error: float = 0.28  # RMS distance of pips from their grid places, in pip spacings
    min_spacing: float = 0.16  # pip spacing as a fraction of the die's side
    max_spacing: float = 0.42
    min_contrast: float = 35.0  # below this the pips are doubtful (Lab distance)


@dataclass(frozen=True)
class FaceRead:
    """A value from pips, with the layout error and every reason to doubt it (empty: sure)."""

    value: int | None
    count: int
    layout_error: float
    doubts: tuple[str, ...]

    @property
    def doubtful(self) -> bool:
        return bool(self.doubts)


def _rotated_layout(value: int, quarter_turn: bool) -> set[tuple[int, int]]:
    return {(-y, x) if quarter_turn else (x, y) for x, y in LAYOUTS[value]}


def layout_fit(points: np.ndarray, value: int) -> tuple[float, float]:
    """Best (RMS error in spacings, spacing in pixels) of `points` laid on the face `value`."""
    centred = points - points.mean(axis=0)
    best = (np.inf, 0.0)
    targets = [_rotated_layout(value, False), _rotated_layout(value, True)]
    for angle in _ANGLES:
        c, s = np.cos(angle), np.sin(angle)
        turned = centred @ np.array([[c, -s], [s, c]])
        extent = turned.max(axis=0) - turned.min(axis=0)
        spacing = float(extent.sum() / 4.0)
        if spacing <= 1e-6:
            continue
        grid = turned / spacing
        if value in (1, 2, 4):
            grid = grid - grid.mean(axis=0)  # these faces have no pip at the centre to anchor to
        places = np.rint(grid).astype(int)
        if {tuple(p) for p in places} not in targets or len({tuple(p) for p in places}) != len(points):
            continue
        error = float(np.sqrt(((grid - places) ** 2).sum(axis=1).mean()))
        if error < best[0]:
            best = (error, spacing)
    return best


def read_face(pips: tuple[Pip, ...], die_size: float, contrast: float, settings: FaceSettings | None = None) -> FaceRead:
    """The face value the pips show, doubted when the count, layout or contrast is off."""
    settings = settings or FaceSettings()
    count = len(pips)
    doubts: list[str] = []
    if not 1 <= count <= 6:
        return FaceRead(None, count, np.inf, ("count",))
    error = 0.0
    if count >= 2:
        points = np.array([(p.x, p.y) for p in pips], dtype=np.float64)
        error, spacing = layout_fit(points, count)
        if not error <= settings.max_layout_error:
            doubts.append("layout")
        elif not settings.min_spacing <= spacing / die_size <= settings.max_spacing:
            doubts.append("layout")
    if contrast < settings.min_contrast:
        doubts.append("contrast")
    return FaceRead(count, count, error, tuple(doubts))

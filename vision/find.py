"""Finding dice candidates: segment what differs from the table, measure the frame's die size."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.types import DieBox

# The table is estimated at this many pixels on the long side, with a median filter wide
# enough (about a fifth of the frame) to wipe out dice yet follow shading and tray edges.
_BACKGROUND_SIDE = 160
_BACKGROUND_KERNEL = 31


# Rows: lightness, red-green, yellow-blue, from B, G, R. A linear stand-in for Lab (which is
# slow to compute on a whole frame) with roughly Lab's units on dice and tables.
_OPPONENT = np.array([[0.25, 0.5, 0.25], [0.0, -0.6, 0.6], [-0.6, 0.3, 0.3]], np.float32)


@dataclass(frozen=True)
class FindSettings:
    """How different from the table a pixel must be, and what a die-shaped region looks like."""

    # Shadows change mostly lightness, dice change colour too: lightness counts for less.
    lightness_weight: float = 0.4
    min_difference: float = 20.0
    min_fill: float = 0.6  # region area / its rotated rectangle's area
    max_aspect: float = 1.6  # long side / short side of a single die's rectangle
    min_side_px: float = 8.0  # smaller regions (at the working scale) are noise
    # Dice are segmented on the frame shrunk to this long side (pips are read at full size).
    work_side: int = 640
    # Splitting a cluster cuts away what is thinner than twice this fraction of the die size
    # (bridges between dice, shadows, walls).
    core_fraction: float = 0.25
    # Straight bands longer than this many dice are walls or board edges, not dice; a row of
    # touching dice is rarely this long.
    wall_length: float = 8.0
    # A cluster's dice may be bigger than the frame's typical die: it is also tried as this
    # share of the dice its area suggests.
    fewest_share: float = 0.5
    edge_low: int = 25  # Canny thresholds on the blurred grey frame
    edge_high: int = 60


@dataclass(frozen=True)
class Candidate:
    """A region that may be one die: its rotated box, pixel mask and how it stands out."""

    box: DieBox
    side: float  # square root of the region's area: this die's size
    mask: np.ndarray  # uint8 0/255 of the region, placed at `origin` in the frame
    origin: tuple[int, int]  # (x, y) of the mask's top-left corner in the frame
    contrast: float  # median difference of the region from the table


@dataclass(frozen=True)
class TableView:
    """What every find on one frame shares: the frame at the working scale, its difference
    from the table and its blurred lightness. A second find on the same frame reuses it."""

    frame: np.ndarray  # the frame the view was made of (identity is checked, not pixels)
    work: np.ndarray
    scale: float  # work pixels per frame pixel
    lightness_weight: float
    difference: np.ndarray
    lightness: np.ndarray

    def fits(self, frame_bgr: np.ndarray, settings: FindSettings) -> bool:
        return (
            self.frame is frame_bgr
            and self.lightness_weight == settings.lightness_weight
            and self.scale == min(1.0, settings.work_side / max(frame_bgr.shape[:2]))
        )


@dataclass(frozen=True)
class Candidates:
    """Every candidate of one frame and the die size measured on it (side of a die, pixels)."""

    items: tuple[Candidate, ...]
    die_size: float
    view: TableView | None = None


def table_view(frame_bgr: np.ndarray, settings: FindSettings) -> TableView:
    """The frame shrunk to the working scale, with its table difference and lightness."""
    height, width = frame_bgr.shape[:2]
    scale = min(1.0, settings.work_side / max(height, width))
    work = frame_bgr
    if scale < 1.0:
        work = cv2.resize(frame_bgr, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA)
    difference = table_difference(work, settings.lightness_weight)
    lightness = cv2.GaussianBlur(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    return TableView(frame_bgr, work, scale, settings.lightness_weight, difference, lightness)


def _components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """8-connected labels and stats; Grana's algorithm is several times faster here than the
    default on masks of a few large regions."""
    count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    return count, labels, stats


def table_difference(frame_bgr: np.ndarray, lightness_weight: float = 0.4) -> np.ndarray:
    """Per-pixel weighted colour distance (float32) between the frame and a smooth table estimate."""
    height, width = frame_bgr.shape[:2]
    factor = _BACKGROUND_SIDE / max(height, width)
    small = cv2.resize(
        frame_bgr,
        (max(8, round(width * factor)), max(8, round(height * factor))),
        interpolation=cv2.INTER_AREA,
    )
    kernel = min(_BACKGROUND_KERNEL, (min(small.shape[:2]) // 2) * 2 - 1)
    table = cv2.resize(cv2.medianBlur(small, kernel), (width, height), interpolation=cv2.INTER_LINEAR)
    diff = cv2.subtract(frame_bgr, table, dtype=cv2.CV_32F)
    opponent = cv2.transform(diff, _OPPONENT * np.array([[lightness_weight], [1.0], [1.0]], np.float32))
    return cv2.sqrt(cv2.transform(opponent * opponent, np.ones((1, 3), np.float32)))


def _fill_holes(mask: np.ndarray, short_side: int) -> np.ndarray:
    """Fill holes in the mask's regions: a white die's face inside its outline, pips. Small holes
    of any shape are filled; larger ones only when die-shaped, so a tray or a ring of dice
    stays open."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return mask
    filled = mask.copy()
    small, large = (short_side / 6.0) ** 2, (short_side / 2.0) ** 2
    holes = []
    for contour, (_, _, _, parent) in zip(contours, hierarchy[0]):
        if parent < 0:
            continue
        area = cv2.contourArea(contour)
        if area < small:
            holes.append(contour)
        elif area < large:
            (_, _), (w, h), _ = cv2.minAreaRect(contour)
            if area >= 0.75 * w * h and max(w, h) <= 1.3 * min(w, h):
                holes.append(contour)
    cv2.drawContours(filled, holes, -1, 255, thickness=cv2.FILLED)
    return filled


def _shape(region: np.ndarray) -> tuple[DieBox, float, float, float]:
    """Rotated box, pixel area, fill (area / box area) and aspect of a 0/255 region."""
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    (cx, cy), (w, h), angle = cv2.minAreaRect(np.concatenate(contours))
    area = float(cv2.countNonZero(region))
    fill = area / max(w * h, 1e-6)
    aspect = max(w, h) / max(min(w, h), 1e-6)
    return DieBox(float(cx), float(cy), float(w), float(h), float(angle)), area, fill, aspect


def estimate_die_size(shapes: list[tuple[DieBox, float, float, float]], fallback: float) -> float:
    """The typical side of a single die: the median side of compact, square regions."""
    # Discs (coins, screws) fill at most pi/4 of their box, so they do not vote.
    sides = sorted(np.sqrt(area) for _, area, fill, aspect in shapes if fill >= 0.82 and aspect <= 1.3)
    if not sides:
        return fallback
    return float(np.median(sides))


def _split_region(
    region: np.ndarray, die_size: float, settings: FindSettings, roi_bgr: np.ndarray | None = None
) -> list[np.ndarray]:
    """Split a region into die-sized parts: cut off what is thinner than a die (walls, shadows),
    then divide blobs of dice lying side by side by pixel position."""
    if max(region.shape) > (settings.wall_length + 3) * die_size:
        region = _without_long_runs(region, die_size, settings.wall_length)
    width = max(3, round(settings.core_fraction * die_size) * 2 + 1)
    opened = cv2.morphologyEx(region, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width)))
    count, labels, stats = _components(opened)
    parts = []
    for k in range(1, count):
        x, y, w, h, area = stats[k]
        part = np.zeros_like(region)
        part[y : y + h, x : x + w][labels[y : y + h, x : x + w] == k] = 255
        pieces = round(area / die_size**2)
        if pieces <= 12 and not (stats[k, cv2.CC_STAT_AREA] <= 2.6 * die_size**2 and _compact(part)):
            # The die size is a guess for any one cluster: try a die more and down to far fewer
            # (bigger dice), keep the split whose parts look most like squares.
            counts = range(max(1, min(pieces - 1, round(pieces * settings.fewest_share))), pieces + 2)
            splits = [_kmeans_split(part, n) if n > 1 else [part] for n in counts]
            best = max(splits, key=_squareness)
            parts.extend(_follow_edges(best, part, roi_bgr) if roi_bgr is not None and len(best) > 1 else best)
        else:
            parts.append(part)
    return parts


def _without_long_runs(region: np.ndarray, die_size: float, wall_length: float) -> np.ndarray:
    """The region less its straight bands longer than `wall_length` dice across or down the
    frame (a tray's wall, a board's edge), so dice lying against them come apart from them."""
    length = max(3, round(wall_length * die_size))
    across = cv2.morphologyEx(region, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (length, 1)))
    down = cv2.morphologyEx(region, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, length)))
    return cv2.bitwise_and(region, cv2.bitwise_not(cv2.bitwise_or(across, down)))


def _follow_edges(parts: list[np.ndarray], region: np.ndarray, roi_bgr: np.ndarray) -> list[np.ndarray]:
    """Move the straight cuts of a k-means split onto the edges between the dice: grow each
    part's core back over the region by watershed on the picture."""
    markers = np.zeros(region.shape, np.int32)
    for index, part in enumerate(parts, start=2):
        distance = cv2.distanceTransform(part, cv2.DIST_L2, 3)
        markers[distance > 0.5 * distance.max()] = index
    markers[cv2.dilate(region, np.ones((3, 3), np.uint8)) == 0] = 1
    cv2.watershed(np.ascontiguousarray(roi_bgr), markers)
    return [((markers == index) & (region > 0)).astype(np.uint8) * 255 for index in range(2, len(parts) + 2)]


def _squareness(parts: list[np.ndarray]) -> float:
    """How much a set of regions looks like dice: mean fill of their boxes, penalised for
    elongated boxes."""
    scores = []
    for part in parts:
        if cv2.countNonZero(part) < 4:
            scores.append(0.0)
            continue
        _, _, fill, aspect = _shape(part)
        scores.append(fill / aspect)
    return float(np.mean(scores))


def _compact(region: np.ndarray) -> bool:
    _, _, fill, aspect = _shape(region)
    return fill >= 0.75 and aspect <= 1.3


def _convex(region: np.ndarray) -> np.ndarray:
    """The region's filled convex hull: a die's outline with gaps, or a bite taken out, made whole."""
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(np.concatenate(contours))
    filled = np.zeros_like(region)
    cv2.fillConvexPoly(filled, hull, 255)
    return filled


def _kmeans_split(region: np.ndarray, count: int) -> list[np.ndarray]:
    """Split a blob of `count` dice touching side by side into `count` parts by pixel position."""
    ys, xs = np.nonzero(region)
    points = np.column_stack([xs, ys]).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(7)
    _, labels, _ = cv2.kmeans(points, count, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
    parts = []
    for k in range(count):
        part = np.zeros_like(region)
        chosen = labels.ravel() == k
        part[ys[chosen], xs[chosen]] = 255
        parts.append(part)
    return parts


def foreground_mask(view: TableView, settings: FindSettings) -> np.ndarray:
    """What is not table, at the working scale: colour difference, or closed edges (a white die
    on a white table shows little colour difference but sharp outlines)."""
    mask = (view.difference > settings.min_difference).astype(np.uint8) * 255
    short = min(view.work.shape[:2])
    edges = cv2.Canny(view.lightness, settings.edge_low, settings.edge_high)
    # Gaps in a die's outline are a few pixels at any scale we read; bridge about 1% of the frame.
    bridge = max(3, int(short / 110) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (bridge, bridge))
    mask = cv2.morphologyEx(cv2.bitwise_or(mask, edges), cv2.MORPH_CLOSE, kernel)
    mask = _fill_holes(mask, short)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    return mask


def find_dice(
    frame_bgr: np.ndarray,
    settings: FindSettings | None = None,
    exclude: Sequence[DieBox] = (),
    view: TableView | None = None,
) -> Candidates:
    """Candidates for dice in a BGR frame, with the frame's die size (frame pixels). Inside the
    `exclude` boxes (dice already found, frame pixels) is taken for table, so dice pressed
    against them come free. `view` is an earlier find's view of this frame, to reuse."""
    settings = settings or FindSettings()
    height, width = frame_bgr.shape[:2]
    if view is None or not view.fits(frame_bgr, settings):
        view = table_view(frame_bgr, settings)
    work, scale, difference = view.work, view.scale, view.difference
    mask = foreground_mask(view, settings)
    for box in exclude:
        small = box.scaled(scale)
        corners = small.corners()
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 0)
    short = min(work.shape[:2])
    count, labels, stats = _components(mask)
    regions = []
    for k in range(1, count):
        x, y, w, h, area = stats[k]
        if area < settings.min_side_px**2:
            continue
        region = (labels[y : y + h, x : x + w] == k).astype(np.uint8) * 255
        regions.append(((int(x), int(y)), region, _shape(region)))
    die_size = estimate_die_size([shape for _, _, shape in regions], fallback=short / 20.0)

    items: list[Candidate] = []
    for (x, y), region, (box, area, fill, aspect) in regions:
        hull = _convex(region)
        hull_box, hull_area, hull_fill, hull_aspect = _shape(hull)
        if hull_area < 0.3 * die_size**2:
            continue
        if area < 0.75 * hull_area and hull_area <= 1.6 * die_size**2 and hull_fill >= 0.7 and hull_aspect <= 1.6:
            # An outline with gaps (a white die on a white table): the hull is the die.
            region, area, fill, aspect = hull, hull_area, hull_fill, hull_aspect
        # Dice of two sizes may share a table: a compact square up to 2.6 small dice is one die.
        single = area <= 2.6 * die_size**2 and fill >= settings.min_fill and aspect <= settings.max_aspect
        window = work[y : y + region.shape[0], x : x + region.shape[1]]
        if not single:
            parts = _split_region(region, die_size, settings, window)
        elif area > 1.3 * die_size**2 and fill < 0.85:
            # Big and not square enough: maybe two dice touching at a corner.
            pair = _follow_edges(_kmeans_split(region, 2), region, window)
            parts = pair if _squareness(pair) > _squareness([region]) + 0.1 else [region]
        else:
            parts = [region]
        for part in parts:
            if cv2.countNonZero(part) < settings.min_side_px**2:
                continue
            part = _convex(part)
            part_box, part_area, part_fill, part_aspect = _shape(part)
            if part_fill < settings.min_fill or part_aspect > settings.max_aspect:
                continue
            if not 0.6 * die_size <= np.sqrt(part_area) <= 1.8 * die_size:
                continue
            # A part of a split region comes on the whole region's canvas: keep just its box.
            px, py, pw, ph = cv2.boundingRect(part)
            part = part[py : py + ph, px : px + pw]
            part_box = DieBox(part_box.cx - px, part_box.cy - py, part_box.w, part_box.h, part_box.angle)
            inside = difference[y + py : y + py + ph, x + px : x + px + pw][part > 0]
            origin = (x + px, y + py)
            items.append(_to_frame(part, origin, part_box, part_area, float(np.median(inside)), scale, (width, height)))
    return Candidates(tuple(items), die_size / scale, view)


def _to_frame(
    part: np.ndarray,
    origin: tuple[int, int],
    box: DieBox,
    area: float,
    contrast: float,
    scale: float,
    frame_size: tuple[int, int],
) -> Candidate:
    """A candidate found on the shrunk frame, in frame pixels."""
    x, y = origin
    frame_box = DieBox((box.cx + x + 0.5) / scale - 0.5, (box.cy + y + 0.5) / scale - 0.5, box.w / scale, box.h / scale, box.angle)
    if scale == 1.0:
        return Candidate(frame_box, float(np.sqrt(area)), part, origin, contrast)
    x0, y0 = int(x / scale), int(y / scale)
    x1 = min(frame_size[0], int(np.ceil((x + part.shape[1]) / scale)))
    y1 = min(frame_size[1], int(np.ceil((y + part.shape[0]) / scale)))
    mask = cv2.resize(part, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    mask = np.where(mask >= 128, 255, 0).astype(np.uint8)
    return Candidate(frame_box, float(np.sqrt(area)) / scale, mask, (x0, y0), contrast)

"""Finding the pips inside one die candidate, with sizes scaled to the frame's die size."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import cv2
import numpy as np

from vision.read.median import median
from vision.types import DieBox


@dataclass(frozen=True)
class Candidate:
    """Where a die's pips are looked for: its box, and the box's pixels as a mask."""

    box: DieBox
    side: float  # the die's size in pixels: pip sizes are fractions of it
    mask: np.ndarray  # uint8 0/255, placed at `origin` in the frame
    origin: tuple[int, int]  # (x, y) of the mask's top-left corner in the frame


def candidate_for(box: DieBox, frame_bgr: np.ndarray, face_mask: bool = True) -> Candidate | None:
    """The candidate of a die box in a frame; None when it lies (almost) outside.

    A detector's box is upright, so a turned die leaves table in its corners, which would
    skew the face's colour and pass for pips. With `face_mask`, the mask keeps only the face:
    what has the colour of the box's middle, with the pips it holds filled in.
    """
    corners = box.corners()
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(frame_bgr.shape[1], x1), min(frame_bgr.shape[0], y1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners - (x0, y0)).astype(np.int32), 255)
    outline = Candidate(box, float(np.sqrt(box.w * box.h)), mask, (int(x0), int(y0)))
    return face_of(outline, frame_bgr) if face_mask else outline


def face_of(outline: Candidate, frame_bgr: np.ndarray) -> Candidate:
    """A candidate of the whole box (`candidate_for(..., face_mask=False)`) narrowed to the
    die's face, as `candidate_for` does with `face_mask`."""
    mask, (x0, y0) = outline.mask, outline.origin
    if min(mask.shape) < 12:
        return outline
    height, width = mask.shape
    face = _face_region(frame_bgr[y0 : y0 + height, x0 : x0 + width], mask, outline.box, (x0, y0), outline.side)
    if face is mask:
        return outline
    # Pip sizes and spacings are fractions of the die, which the box overstates.
    return Candidate(outline.box, float(np.sqrt(np.count_nonzero(face))), face, outline.origin)


# The die is what differs from the table (the colour along the box's rim) by at least this
# share of the distance between the box's middle and the table, and by at least
# `DIE_MIN_CONTRAST` (Lab); a die that differs less keeps its whole box.
DIE_SHARE = 0.5
DIE_MIN_CONTRAST = 15.0
DIE_MIN_SHARE = 0.15  # ... and the die must cover this share of its box


def _face_region(
    patch_bgr: np.ndarray, box_mask: np.ndarray, box: DieBox, origin: tuple[int, int], side: float
) -> np.ndarray:
    lab = cv2.cvtColor(patch_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    cx, cy = int(round(box.cx - origin[0])), int(round(box.cy - origin[1]))
    r = max(2, int(side * 0.2))
    middle = lab[max(0, cy - r) : cy + r + 1, max(0, cx - r) : cx + r + 1].reshape(-1, 3)
    rim = box_mask - cv2.erode(box_mask, np.ones((5, 5), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    if len(middle) == 0 or not rim.any():
        return box_mask
    table = median(lab[rim > 0])
    contrast = float(np.linalg.norm(median(middle) - table))
    if contrast < DIE_MIN_CONTRAST:
        return box_mask
    die: np.ndarray = (lab_distance(lab, table) > max(DIE_MIN_CONTRAST, DIE_SHARE * contrast)).astype(np.uint8) * 255
    die &= box_mask
    # Pips the colour of the table are holes in the die: close, then keep the middle's part.
    size = max(3, int(side * 0.15) | 1)
    die = cv2.morphologyEx(die, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(die)
    if count < 2:
        return box_mask
    inside = labels[min(max(cy, 0), labels.shape[0] - 1), min(max(cx, 0), labels.shape[1] - 1)]
    label = inside if inside > 0 else 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    # The hull of the component's outline is the hull of all its pixels, from far fewer points.
    outline, _ = cv2.findContours((labels == label).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(np.concatenate(outline))
    region = np.zeros_like(box_mask)
    cv2.fillConvexPoly(region, hull, 255)
    region &= box_mask
    if np.count_nonzero(region) < DIE_MIN_SHARE * np.count_nonzero(box_mask):
        return box_mask
    return region


@dataclass(frozen=True)
class PipSettings:
    """What a pip looks like; lengths are fractions of the die's side."""

    min_diameter: float = 0.08
    max_diameter: float = 0.30
    min_circularity: float = 0.55  # 4 pi area / perimeter^2: glare streaks score low
    min_inertia: float = 0.4  # minor / major inertia; pips on a side face look squashed
    min_contrast: float = 24.0  # Lab distance between pip and face colour
    edge_margin: float = 0.05  # ignore this much of the region's rim (die edges, shadows)
    stretch_floor: float = 60.0  # Lab distance that is stretched to full contrast at least
    # Weight of lightness in the pip-to-face distance. A second look with a low weight sees
    # coloured pips on dark dice past white glare (glare differs from the face in lightness).
    lightness_weight: float = 1.0
    # Compare each pixel with the median colour around it (this fraction of the die's side)
    # rather than with the whole face: for two-tone (marbled) dice. 0: whole face.
    local_window: float = 0.0
    grid_reach: float = 0.25  # how far past the region (of the die's side) the grid check may look
    # 0: pips are whatever differs from the face's colour. -1 / 1: pips are spots darker / lighter
    # than their surroundings within `hat` of the die's side (a black- / top-hat on lightness),
    # which ignores the light falling off across a shiny face.
    polarity: int = 0
    hat: float = 0.4
    # Take blobs whatever the colour at their centre (a shiny die's concave pip often holds a
    # glare spot in its middle), with the strongest contrast near the centre as their strength.
    any_centre: bool = False
    # The pips of one face share a colour: of three or more blobs, one whose colour lies further
    # than this (Lab) from the blobs' median colour is no pip, as a white glare spot among red
    # pips, which turns a four into a five (chosen on the train splits, see docs/vision.md).
    # None: no such check.
    colour_spread: float | None = 40.0


@dataclass(frozen=True)
class Pip:
    x: float  # frame pixels
    y: float
    diameter: float


@dataclass(frozen=True)
class PipFinding:
    """The pips of one candidate, and how clearly they stand out from the face (Lab distance)."""

    pips: tuple[Pip, ...]
    contrast: float
    face_center: tuple[float, float]  # centre of the region's inner part, frame pixels
    # Summed-area table of each pixel's Lab distance from the face colour (0 outside the
    # region), placed at `origin` in the frame: lets the face check look for missed pips.
    contrast_sums: np.ndarray | None = None
    origin: tuple[int, int] = (0, 0)
    angle: float = 0.0  # degrees: the candidate box's turn, the face grid's when pips cannot tell

    def contrast_at(self, x: float, y: float, radius: float) -> float:
        """Mean contrast in a square of half-side `radius` around a frame point; 0 where the map
        does not reach."""
        return float(self.contrasts_at(np.array([[x, y]], np.float64), radius)[0])

    def contrasts_at(self, points: np.ndarray, radius: float) -> np.ndarray:
        """`contrast_at` for each of `points` (n, 2)."""
        points = np.asarray(points, np.float64).reshape(-1, 2)
        if self.contrast_sums is None:
            return np.zeros(len(points))
        r = max(1, int(round(radius)))
        cx = np.rint(points[:, 0] - self.origin[0]).astype(np.int64)
        cy = np.rint(points[:, 1] - self.origin[1]).astype(np.int64)
        x0, y0, x1, y1 = cx - r, cy - r, cx + r + 1, cy + r + 1
        height, width = self.contrast_sums.shape[0] - 1, self.contrast_sums.shape[1] - 1
        inside = (x0 >= 0) & (y0 >= 0) & (x1 <= width) & (y1 <= height)
        x0, y0, x1, y1 = (np.where(inside, v, 0) for v in (x0, y0, x1, y1))
        sums = self.contrast_sums
        total = sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0]
        return np.where(inside, total / ((2 * r + 1) ** 2), 0.0)


_per_thread = threading.local()


def _detector(die_size: float, settings: PipSettings) -> cv2.SimpleBlobDetector:
    """A blob detector for this die size, built once per thread: OpenCV's detector keeps the
    last contours it found, so threads must not share one."""
    cache: dict[tuple[int, PipSettings], cv2.SimpleBlobDetector] = _per_thread.__dict__.setdefault("detectors", {})
    key = (max(4, round(die_size)), settings)
    if key not in cache:
        if len(cache) > 256:
            cache.clear()
        cache[key] = _build_detector(key[0], settings)
    return cache[key]


def _build_detector(die_size: int, settings: PipSettings) -> cv2.SimpleBlobDetector:
    params = cv2.SimpleBlobDetector.Params()
    params.minThreshold = 30
    params.maxThreshold = 200
    params.thresholdStep = 10
    params.minRepeatability = 2
    params.blobColor = 255
    params.filterByColor = not settings.any_centre
    params.filterByArea = True
    params.minArea = float(np.pi / 4 * (settings.min_diameter * die_size) ** 2)
    params.maxArea = float(np.pi / 4 * (settings.max_diameter * die_size) ** 2)
    params.filterByCircularity = True
    params.minCircularity = settings.min_circularity
    params.filterByInertia = True
    params.minInertiaRatio = settings.min_inertia
    params.filterByConvexity = True
    params.minConvexity = 0.8
    params.minDistBetweenBlobs = max(2.0, 0.12 * die_size)
    return cv2.SimpleBlobDetector.create(params)


def find_pips(
    frame_bgr: np.ndarray, candidate: Candidate, die_size: float, settings: PipSettings | None = None
) -> PipFinding:
    """Round blobs inside the candidate that differ from the die's face colour and are pip-sized."""
    settings = settings or PipSettings()
    x0, y0 = candidate.origin
    region = candidate.mask
    inner = _inner(region, die_size, settings)
    centre = _centre(inner)
    if centre is None:
        return PipFinding((), 0.0, candidate.box.center)
    # Contrast is measured on a window a little wider than the region: the grid check may
    # look past the region (a die the splitter cut in two).
    reach = max(1, round(settings.grid_reach * die_size))
    height, width = frame_bgr.shape[:2]
    gx0, gy0 = max(0, x0 - reach), max(0, y0 - reach)
    gx1, gy1 = min(width, x0 + region.shape[1] + reach), min(height, y0 + region.shape[0] + reach)
    wide_lab = cv2.cvtColor(frame_bgr[gy0:gy1, gx0:gx1], cv2.COLOR_BGR2LAB)
    if settings.local_window > 0:
        window = max(3, int(settings.local_window * die_size) | 1)
        wide_face: np.ndarray | float = cv2.medianBlur(wide_lab, window).astype(np.float32)
    else:
        inner_lab = wide_lab[y0 - gy0 : y0 - gy0 + region.shape[0], x0 - gx0 : x0 - gx0 + region.shape[1]]
        wide_face = median(inner_lab[inner > 0][::3]).astype(np.float32)
    if settings.polarity:
        size = max(3, int(settings.hat * die_size) | 1)
        operation = cv2.MORPH_BLACKHAT if settings.polarity < 0 else cv2.MORPH_TOPHAT
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
        wide_distance = cv2.morphologyEx(wide_lab[:, :, 0], operation, kernel).astype(np.float32)
    else:
        wide_distance = lab_distance(wide_lab, wide_face, settings.lightness_weight)
    distance = wide_distance[y0 - gy0 : y0 - gy0 + region.shape[0], x0 - gx0 : x0 - gx0 + region.shape[1]].copy()
    inside = distance[inner > 0]
    # Stretch so the strongest marks inside reach the same level on every die; the floor keeps
    # a plain region (a coin, a blank die) from having its noise stretched into pips.
    top = max(float(_percentile_99(inside[::2])), settings.stretch_floor)
    pips, contrast = _blobs(distance, top, inner, (x0, y0), die_size, settings)
    if settings.colour_spread is not None and len(pips) >= 3:
        pips = _alike_in_colour(pips, wide_lab, (gx0, gy0), settings.colour_spread)
    sums = cv2.integral(wide_distance, sdepth=cv2.CV_64F)
    centre_xy = (float(centre[0] + x0), float(centre[1] + y0))
    return PipFinding(pips, contrast, centre_xy, sums, (gx0, gy0), candidate.box.angle)


def lab_distance(lab: np.ndarray, colour: np.ndarray | float, lightness_weight: float = 1.0) -> np.ndarray:
    """Per-pixel distance (float32) of a Lab image from a colour (or from a per-pixel colour
    image), with lightness weighted."""
    difference = lab.astype(np.float32) - colour
    weights = np.array([[lightness_weight**2, 1.0, 1.0]], np.float32)
    return cv2.sqrt(cv2.transform(difference * difference, weights))


def _alike_in_colour(pips: tuple[Pip, ...], lab: np.ndarray, origin: tuple[int, int], spread: float) -> tuple[Pip, ...]:
    """The pips without those whose colour stands apart from the others' (see
    `PipSettings.colour_spread`); all of them when fewer than two would stay."""
    colours = []
    for pip in pips:  # each lies inside `lab`: the blobs are found within it
        x, y = int(round(pip.x - origin[0])), int(round(pip.y - origin[1]))
        r = max(1, int(pip.diameter / 4))
        middle = lab[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1].reshape(-1, 3)
        colours.append(median(middle))
    table = np.array(colours, np.float64)
    gaps = np.linalg.norm(table - median(table), axis=1)
    kept = tuple(pip for pip, gap in zip(pips, gaps) if gap <= spread)
    return kept if len(kept) >= 2 else pips


def _centre(inner: np.ndarray) -> np.ndarray | None:
    """Mean position (x, y) of the mask's pixels; None for fewer than four."""
    moments = cv2.moments(inner, binaryImage=True)
    if moments["m00"] < 4:
        return None
    return np.array([moments["m10"], moments["m01"]]) / moments["m00"]


def _percentile_99(values: np.ndarray) -> float:
    """`np.percentile(values, 99)` (linear), by partial sort: several times faster on a die's pixels."""
    virtual = (values.size - 1) * 0.99
    lower = int(np.floor(virtual))
    upper = min(lower + 1, values.size - 1)
    ordered = np.partition(values, [lower, upper] if upper != lower else lower)
    a, b = ordered[lower], ordered[upper]
    t = virtual - lower
    # numpy's own interpolation, from the nearer end, so the result is the same to the bit
    return float(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)


def _inner(region: np.ndarray, die_size: float, settings: PipSettings) -> np.ndarray:
    """The region without its rim (die edges, shadows)."""
    margin = max(1, round(settings.edge_margin * die_size))
    return cv2.erode(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * margin + 1, 2 * margin + 1)))


def _blobs(
    distance: np.ndarray, top: float, inner: np.ndarray, origin: tuple[int, int], die_size: float, settings: PipSettings
) -> tuple[tuple[Pip, ...], float]:
    """Pip-sized round blobs of a region's contrast map (`top` stretched to full contrast),
    in frame pixels, and their median contrast."""
    x0, y0 = origin
    image = np.clip(cv2.GaussianBlur(distance, (3, 3), 0) * (200.0 / top), 0, 255).astype(np.uint8)
    image[inner == 0] = 0
    # A pip touching the rim is cut by the mask; pad so blobs at the border stay whole.
    pad = 2
    image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    keypoints = _detector(die_size, settings).detect(image)
    pips = []
    strengths = []
    for kp in keypoints:
        px, py = kp.pt[0] - pad, kp.pt[1] - pad
        ix, iy = int(round(px)), int(round(py))
        if not (0 <= iy < inner.shape[0] and 0 <= ix < inner.shape[1]) or inner[iy, ix] == 0:
            continue
        pips.append(Pip(float(px + x0), float(py + y0), float(kp.size)))
        if settings.any_centre:
            r = max(1, int(kp.size / 4))
            strengths.append(float(distance[max(0, iy - r) : iy + r + 1, max(0, ix - r) : ix + r + 1].max()))
        else:
            strengths.append(float(distance[iy, ix]))
    # Pips of one face share a size: drop specks much smaller than the typical pip (glare, dirt).
    if len(pips) >= 2:
        typical = float(median([p.diameter for p in pips]))
        keep = [i for i, p in enumerate(pips) if 0.6 * typical <= p.diameter <= 1.6 * typical]
        pips = [pips[i] for i in keep]
        strengths = [strengths[i] for i in keep]
    return tuple(pips), float(median(strengths)) if strengths else 0.0

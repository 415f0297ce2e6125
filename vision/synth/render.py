"""Synthetic dice on a table, drawn with OpenCV.

A `Scene` is a table background, a list of `DieSpec` and some camera `Effects`; `render`
draws it and returns the frame with the true box and value of every die.  Dice are
cubes projected orthographically: a tilted die shows its side faces, shaded darker.
All colours are BGR.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.images import jpeg_round_trip
from vision.read.faces import LAYOUTS
from vision.types import BGR, DieBox, as_bgr

BACKGROUNDS = ("wood", "cloth", "felt", "plain", "tray", "sheet")
PIP_SHAPES = ("round", "square", "ring")

# Pip centres on a face of side 1 centred on the origin, x right and y down.
_PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    value: tuple((0.25 * x, (0.27 if value == 6 else 0.25) * y) for x, y in sorted(grid, key=lambda p: (p[1], p[0])))
    for value, grid in LAYOUTS.items()
}
"""The reader's pip grid (`vision.read.faces.LAYOUTS`) a quarter of the face apart; a six's rows
stand a little wider, as on most dice. Row by row, left to right."""

# Cube faces as (normal, corner order) in die coordinates; x right, y down, z toward camera.
# Corners run so that the face texture's top-left, top-right, bottom-right land on them.
_FACES: tuple[tuple[tuple[int, int, int], tuple[tuple[int, int, int], ...]], ...] = (
    ((0, 0, 1), ((-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1))),
    ((0, 0, -1), ((1, -1, -1), (-1, -1, -1), (-1, 1, -1), (1, 1, -1))),
    ((1, 0, 0), ((1, -1, 1), (1, -1, -1), (1, 1, -1), (1, 1, 1))),
    ((-1, 0, 0), ((-1, -1, -1), (-1, -1, 1), (-1, 1, 1), (-1, 1, -1))),
    ((0, 1, 0), ((-1, 1, 1), (1, 1, 1), (1, 1, -1), (-1, 1, -1))),
    ((0, -1, 0), ((-1, -1, -1), (1, -1, -1), (1, -1, 1), (-1, -1, 1))),
)


# The image direction (degrees, as `DieSpec.tilt_direction`) that an upright camera looking
# obliquely down at the table sees a die's top face lean to: up, away from the camera, with
# the die's near side below it.
AWAY_FROM_CAMERA = 270.0


@dataclass(frozen=True)
class DieSpec:
    """One die: its top value, where it lies and how it looks.

    `size` is the edge length in pixels, `angle` the spin about the vertical in degrees,
    `tilt` how far the top face leans away from the camera (0 = square on) towards the
    image direction `tilt_direction` (degrees).  `translucency` in 0..1 shows the pips of
    the hidden faces faintly through the body.  `motion_blur` is a streak length in pixels
    along `motion_angle`, for a die still rolling.
    """

    value: int
    cx: float
    cy: float
    size: float
    angle: float = 0.0
    tilt: float = 0.0
    tilt_direction: float = 0.0
    body_bgr: BGR = (235, 235, 235)
    pip_bgr: BGR = (25, 25, 25)
    pip_shape: str = "round"
    pip_scale: float = 1.0
    corner_radius: float = 0.15
    translucency: float = 0.0
    motion_blur: float = 0.0
    motion_angle: float = 0.0
    # A marbled die: swirls of this second colour through the body. `marble_seed` fixes the swirl.
    marble_bgr: BGR | None = None
    marble_seed: int = 0


@dataclass(frozen=True, kw_only=True)
class Glare:
    """A bright highlight in frame pixels, e.g. a lamp reflected on a die."""

    cx: float
    cy: float
    radius: float
    strength: float = 0.9


@dataclass(frozen=True)
class Effects:
    """What the camera and the light do to the whole frame."""

    shadow: float = 0.0  # darkness of the dice's shadows, 0..1
    shadow_offset: tuple[float, float] = (0.12, 0.18)  # in die sizes
    glares: tuple[Glare, ...] = ()
    blur_sigma: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None
    brightness: float = 1.0


@dataclass(frozen=True)
class Scene:
    width: int
    height: int
    background: str = "felt"
    background_bgr: BGR = (60, 110, 40)
    dice: tuple[DieSpec, ...] = ()
    effects: Effects = field(default_factory=Effects)
    seed: int = 0  # drives the background texture and the noise


@dataclass(frozen=True)
class RenderedScene:
    """The frame and the truth: one box and one value per die, in scene order."""

    frame: np.ndarray
    boxes: tuple[DieBox, ...]
    values: tuple[int, ...]


def render(scene: Scene) -> RenderedScene:
    if scene.background not in BACKGROUNDS:
        raise ValueError(f"unknown background {scene.background!r}; expected one of {BACKGROUNDS}")
    rng = np.random.default_rng(scene.seed)
    frame = draw_background(scene.background, scene.width, scene.height, scene.background_bgr, rng)
    effects = scene.effects
    geometries = draw_dice(frame, scene.dice, effects)
    boxes = [_box_of(geometry) for geometry in geometries]
    frame = _apply_camera(frame, effects, rng)
    return RenderedScene(frame, tuple(boxes), tuple(die.value for die in scene.dice))


def draw_dice(frame: np.ndarray, dice: tuple[DieSpec, ...], effects: Effects) -> list[_Geometry]:
    """Draw the dice, their shadows and the glares onto `frame` in place (no camera effects)."""
    geometries = [_die_geometry(die) for die in dice]
    if effects.shadow > 0 and dice:
        _draw_shadows(frame, dice, geometries, effects)
    for die, geometry in zip(dice, geometries):
        _draw_die(frame, die, geometry)
    for glare in effects.glares:
        _draw_glare(frame, glare)
    return geometries


def top_face(die: DieSpec, geometry: _Geometry) -> tuple[np.ndarray, float] | None:
    """The four image corners of the face showing `die.value` and how squarely it faces the
    camera (0..1), or None when that face is turned away."""
    for value, corners, facing in geometry.faces:
        if value == die.value:
            return corners, facing
    return None


# -- background ---------------------------------------------------------------------------


def draw_background(kind: str, width: int, height: int, bgr: BGR, rng: np.random.Generator) -> np.ndarray:
    """A table texture of the given base colour, as a uint8 BGR image."""
    base = np.asarray(bgr, np.float32)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    if kind == "wood":
        warp = _smooth_noise(rng, height, width, scale=max(width, height) / 6) * 25
        period = rng.uniform(9, 22)
        grain = np.sin((ys + warp) * (2 * math.pi / period)) * 0.5 + 0.5
        streaks = _smooth_noise(rng, height, width, scale=4) * 0.15
        shade = 0.8 + 0.3 * grain[..., None] + streaks[..., None]
        image = base * shade
    elif kind == "cloth":
        period = rng.uniform(2.5, 5)
        weave = np.sin(xs * 2 * math.pi / period) * np.sin(ys * 2 * math.pi / period)
        shade = 1 + 0.08 * weave[..., None] + 0.05 * rng.standard_normal((height, width, 1))
        image = base * shade
    elif kind == "felt":
        fibres = cv2.GaussianBlur(rng.standard_normal((height, width)).astype(np.float32), (0, 0), 1.2)
        blotches = _smooth_noise(rng, height, width, scale=40)
        image = base * (1 + 0.25 * fibres[..., None] + 0.06 * blotches[..., None])
    elif kind == "tray":
        inner = draw_background("felt", width, height, bgr, rng).astype(np.float32)
        rim = max(6, int(min(width, height) * rng.uniform(0.04, 0.1)))
        wall = base * 0.55
        image = inner.copy()
        image[:rim], image[-rim:], image[:, :rim], image[:, -rim:] = wall, wall, wall, wall
        image = cv2.GaussianBlur(image, (0, 0), 1.5)
    elif kind == "sheet":
        folds = _smooth_noise(rng, height, width, scale=max(width, height) / 3)
        image = base * (0.93 + 0.07 * folds[..., None]) + rng.normal(0, 2, (height, width, 1))
    else:  # plain
        image = np.tile(base, (height, width, 1))
    vignette = _vignette(width, height, rng.uniform(0.0, 0.25))
    return np.ascontiguousarray(np.clip(image * vignette[..., None], 0, 255), dtype=np.uint8)


def _smooth_noise(rng: np.random.Generator, height: int, width: int, scale: float) -> np.ndarray:
    """Zero-mean noise with features about `scale` pixels wide, roughly in -1..1."""
    small = rng.standard_normal((max(2, int(height / scale) + 2), max(2, int(width / scale) + 2)))
    noise = cv2.resize(small.astype(np.float32), (width, height), interpolation=cv2.INTER_CUBIC)
    return np.clip(noise, -2, 2) / 2


def _vignette(width: int, height: int, strength: float) -> np.ndarray:
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    r2 = ((xs - width / 2) / width) ** 2 + ((ys - height / 2) / height) ** 2
    return 1 - strength * r2 * 2


# -- dice ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Geometry:
    faces: tuple[tuple[int, np.ndarray, float], ...]  # (value, 4 image corners, facing 0..1)
    outline: np.ndarray  # projected corners of the whole cube


def _face_values(top: int) -> tuple[int, ...]:
    """Values of the six faces in `_FACES` order: opposite faces add up to seven."""
    a, b = [v for v in range(1, 7) if v not in (top, 7 - top)][:2]
    if a + b == 7:
        b = next(v for v in range(1, 7) if v not in (top, 7 - top, a, 7 - a))
    return (top, 7 - top, a, 7 - a, b, 7 - b)


def _rotation(die: DieSpec) -> np.ndarray:
    spin = math.radians(die.angle)
    c, s = math.cos(spin), math.sin(spin)
    rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    # Tilt about the in-plane axis perpendicular to the lean direction.
    d = math.radians(die.tilt_direction)
    axis = np.array([-math.sin(d), math.cos(d), 0.0])
    t = math.radians(die.tilt)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rt = np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k)
    return rt @ rz


def _die_geometry(die: DieSpec) -> _Geometry:
    rotation = _rotation(die)
    half = die.size / 2
    centre = np.array([die.cx, die.cy])
    values = _face_values(die.value)
    faces = []
    for value, (normal, corners) in zip(values, _FACES):
        facing = float((rotation @ np.asarray(normal, float))[2])
        if facing <= 1e-3:
            continue
        points = (rotation @ (np.asarray(corners, float).T * half)).T[:, :2] + centre
        faces.append((value, points.astype(np.float32), facing))
    cube = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * half
    outline = ((rotation @ cube.T).T[:, :2] + centre).astype(np.float32)
    return _Geometry(tuple(faces), outline)


def _box_of(geometry: _Geometry) -> DieBox:
    (cx, cy), (w, h), angle = cv2.minAreaRect(geometry.outline)
    return DieBox(float(cx), float(cy), float(w), float(h), float(angle))


def face_texture(die: DieSpec, value: int, side: int, hidden_value: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One face of `die` as a square BGR image of `side` pixels and its 0..1 alpha mask."""
    scale = 3  # draw large, then shrink: smooth edges without anti-aliasing tricks
    big = side * scale
    image: np.ndarray = np.empty((big, big, 3), np.uint8)
    image[:] = die.body_bgr
    if die.marble_bgr is not None:
        image[:] = _marbled(die, value, big)
    mask = np.zeros((big, big), np.uint8)
    radius = int(die.corner_radius * big)
    _rounded_square(mask, big, radius)
    if hidden_value is not None and die.translucency > 0:
        ghost = as_bgr(b + (p - b) * 0.35 * die.translucency for b, p in zip(die.body_bgr, die.pip_bgr))
        _draw_pips(image, hidden_value, big, die, ghost, mirror=True, shift=0.06)
    _draw_pips(image, value, big, die, die.pip_bgr)
    image = cv2.resize(image, (side, side), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(mask, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    return image, alpha


def _marbled(die: DieSpec, value: int, big: int) -> np.ndarray:
    """The body colour swirled with `marble_bgr`: sharp-edged bands of a warped noise field."""
    rng = np.random.default_rng(die.marble_seed * 7 + value)
    field = _smooth_noise(rng, big, big, scale=big / 3)
    warp = _smooth_noise(rng, big, big, scale=big / 5)
    bands = np.sin((field + 0.6 * warp) * rng.uniform(6, 14))
    share = np.clip(bands * 3 + rng.uniform(-1.5, 1.5), 0, 1)[..., None]
    body = np.asarray(die.body_bgr, np.float32)
    marble = np.asarray(die.marble_bgr, np.float32)
    return (body * (1 - share) + marble * share).astype(np.uint8)


def _rounded_square(mask: np.ndarray, big: int, radius: int) -> None:
    if radius <= 0:
        mask[:] = 255
        return
    cv2.rectangle(mask, (radius, 0), (big - 1 - radius, big - 1), 255, -1)
    cv2.rectangle(mask, (0, radius), (big - 1, big - 1 - radius), 255, -1)
    for x in (radius, big - 1 - radius):
        for y in (radius, big - 1 - radius):
            cv2.circle(mask, (x, y), radius, 255, -1)


def _draw_pips(
    image: np.ndarray, value: int, big: int, die: DieSpec, colour: BGR, mirror: bool = False, shift: float = 0.0
) -> None:
    r = big * 0.085 * die.pip_scale
    colour = as_bgr(colour)
    for px, py in _PIP_LAYOUT[value]:
        if mirror:
            px = -px
        x, y = (px + 0.5 + shift) * big, (py + 0.5 + shift) * big
        centre = (int(round(x)), int(round(y)))
        if die.pip_shape == "square":
            d = int(round(r * 0.9))
            cv2.rectangle(image, (centre[0] - d, centre[1] - d), (centre[0] + d, centre[1] + d), colour, -1)
        elif die.pip_shape == "ring":
            cv2.circle(image, centre, int(round(r)), colour, max(1, int(r * 0.4)), cv2.LINE_AA)
        else:
            cv2.circle(image, centre, int(round(r)), colour, -1, cv2.LINE_AA)


def _draw_die(frame: np.ndarray, die: DieSpec, geometry: _Geometry) -> None:
    pad = int(die.motion_blur) + 3
    x0, y0 = np.floor(geometry.outline.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(geometry.outline.max(axis=0)).astype(int) + pad
    fx0, fy0 = max(0, x0), max(0, y0)
    fx1, fy1 = min(frame.shape[1], x1), min(frame.shape[0], y1)
    if fx1 <= fx0 or fy1 <= fy0:
        return
    w, h = x1 - x0, y1 - y0
    layer: np.ndarray = np.zeros((h, w, 3), np.float32)
    alpha: np.ndarray = np.zeros((h, w), np.float32)
    side = max(16, int(die.size * 1.2))
    square = np.array([[0, 0], [side, 0], [side, side]], np.float32)
    values = _face_values(die.value)
    for value, corners, facing in geometry.faces:
        hidden = values[values.index(value) ^ 1]
        texture, mask = face_texture(die, value, side, hidden)
        light = 0.45 + 0.55 * facing
        matrix = cv2.getAffineTransform(square, (corners[:3] - np.array([x0, y0], np.float32)))
        warped = cv2.warpAffine(texture, matrix, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32) * light
        warped_alpha = cv2.warpAffine(mask, matrix, (w, h), flags=cv2.INTER_LINEAR)
        layer = layer * (1 - warped_alpha[..., None]) + warped * warped_alpha[..., None]
        alpha = np.maximum(alpha, warped_alpha)
    if die.motion_blur >= 1:
        kernel = _line_kernel(die.motion_blur, die.motion_angle)
        layer = cv2.filter2D(layer * alpha[..., None], -1, kernel)
        alpha = cv2.filter2D(alpha, -1, kernel)
        layer = layer / np.maximum(alpha, 1e-3)[..., None]
    opacity = alpha * (1 - 0.35 * die.translucency)
    roi = frame[fy0:fy1, fx0:fx1].astype(np.float32)
    sl = np.s_[fy0 - y0 : fy1 - y0, fx0 - x0 : fx1 - x0]
    a = opacity[sl][..., None]
    frame[fy0:fy1, fx0:fx1] = np.clip(roi * (1 - a) + layer[sl] * a, 0, 255).astype(np.uint8)


def _line_kernel(length: float, angle: float) -> np.ndarray:
    n = int(math.ceil(length)) | 1
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(math.radians(angle)) * length / 2, math.sin(math.radians(angle)) * length / 2
    cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1)
    return kernel / max(kernel.sum(), 1e-6)


def _draw_shadows(frame: np.ndarray, dice: tuple[DieSpec, ...], geometries: list[_Geometry], effects: Effects) -> None:
    mask: np.ndarray = np.zeros(frame.shape[:2], np.float32)
    for die, geometry in zip(dice, geometries):
        offset = np.array(effects.shadow_offset, np.float32) * die.size
        hull = cv2.convexHull((geometry.outline + offset).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1.0, cv2.LINE_AA)
    sigma = max(1.0, float(np.mean([d.size for d in dice])) * 0.12) if dice else 1.0
    mask = cv2.GaussianBlur(mask, (0, 0), sigma)
    frame[:] = np.clip(frame * (1 - effects.shadow * mask[..., None]), 0, 255).astype(np.uint8)


def _draw_glare(frame: np.ndarray, glare: Glare) -> None:
    r = max(1.0, glare.radius)
    pad = int(3 * r) + 1
    x0, y0 = max(0, int(glare.cx) - pad), max(0, int(glare.cy) - pad)
    x1, y1 = min(frame.shape[1], int(glare.cx) + pad), min(frame.shape[0], int(glare.cy) + pad)
    if x1 <= x0 or y1 <= y0:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    d2 = ((xs - glare.cx) ** 2 + (ys - glare.cy) ** 2) / (r * r)
    spot = glare.strength * np.exp(-d2 * 1.5)[..., None]
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    frame[y0:y1, x0:x1] = np.clip(roi * (1 - spot) + 255 * spot, 0, 255).astype(np.uint8)


def _apply_camera(frame: np.ndarray, effects: Effects, rng: np.random.Generator) -> np.ndarray:
    image = frame
    if effects.brightness != 1.0:
        image = np.clip(image.astype(np.float32) * effects.brightness, 0, 255).astype(np.uint8)
    if effects.blur_sigma > 0:
        image = cv2.GaussianBlur(image, (0, 0), effects.blur_sigma)
    if effects.noise_sigma > 0:
        noisy = image.astype(np.float32) + rng.normal(0, effects.noise_sigma, image.shape)
        image = np.clip(noisy, 0, 255).astype(np.uint8)
    if effects.jpeg_quality is not None:
        image = jpeg_round_trip(image, effects.jpeg_quality)
    return image

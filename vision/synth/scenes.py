"""Random but reproducible scenes for `vision.synth.render`: dice, tables and camera effects."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synth.render import BACKGROUNDS, PIP_SHAPES, DieSpec, Effects, Glare, Scene
from vision.synth.tables import random_colour
from vision.types import BGR, as_bgr

# (body, pips) pairs seen on real dice, BGR.
DIE_COLOURS: tuple[tuple[BGR, BGR], ...] = (
    ((235, 235, 235), (25, 25, 25)),
    ((225, 240, 245), (30, 30, 30)),  # cream
    ((235, 235, 235), (40, 40, 200)),  # white, red pips
    ((30, 30, 30), (235, 235, 235)),
    ((35, 35, 190), (235, 235, 235)),  # red
    ((40, 40, 200), (30, 30, 30)),
    ((60, 140, 40), (235, 235, 235)),  # green
    ((170, 90, 30), (235, 235, 235)),  # blue
    ((140, 50, 100), (235, 235, 235)),  # purple
    ((40, 200, 230), (30, 30, 30)),  # yellow
    ((60, 160, 200), (30, 30, 30)),  # gold
    ((20, 20, 20), (40, 200, 230)),  # black, yellow pips
    ((25, 25, 25), (40, 40, 200)),  # black, red pips
    ((70, 65, 60), (45, 45, 190)),  # smoke, red pips
    ((200, 200, 200), (60, 60, 60)),
)

TABLE_COLOURS: dict[str, tuple[BGR, ...]] = {
    "wood": ((60, 100, 150), (40, 70, 110), (110, 160, 200), (30, 50, 80)),
    "cloth": ((150, 120, 90), (60, 60, 60), (200, 200, 200), (40, 40, 120)),
    "felt": ((50, 110, 40), (110, 60, 30), (40, 40, 130), (70, 70, 70)),
    "plain": ((240, 240, 240), (128, 128, 128), (30, 30, 30), (180, 200, 210)),
    "tray": ((80, 80, 80), (50, 110, 40), (110, 60, 30), (20, 20, 20)),
    "sheet": ((235, 235, 235), (215, 220, 225), (245, 245, 245)),
}


# Pips stand out by lightness (black on white) or, as red pips on a black or blue die, by hue
# and some lightness: a pip colour must differ this much in mean BGR, or this much in Lab (8-bit
# OpenCV units) and at least `PIP_HUE_LIGHTNESS_GAP` in its L (a webcam's JPEG keeps colour at
# half resolution, so a pip of another hue but the same lightness fades into the die).
PIP_LIGHTNESS_GAP = 90.0
PIP_COLOUR_GAP = 75.0
PIP_HUE_LIGHTNESS_GAP = 30.0


def _lab(colour: BGR) -> np.ndarray:
    pixel = np.array([[colour]], np.uint8)
    return np.asarray(cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB), np.float64)[0, 0]


def contrasting_colour(rng: np.random.Generator, body: BGR) -> BGR:
    """A pip colour that stands out against `body`."""
    lightness = float(np.mean(body))
    body_lab = _lab(body)
    while True:
        colour = random_colour(rng)
        if abs(float(np.mean(colour)) - lightness) > PIP_LIGHTNESS_GAP:
            return colour
        pip_lab = _lab(colour)
        gap = float(np.linalg.norm(pip_lab - body_lab))
        if gap > PIP_COLOUR_GAP and abs(pip_lab[0] - body_lab[0]) > PIP_HUE_LIGHTNESS_GAP:
            return colour


def die_colours(rng: np.random.Generator, common_share: float, jitter: int) -> tuple[BGR, BGR]:
    """A die's body and pip colours: one of the common kinds (`common_share` of the time), its
    body shifted by up to `jitter` per channel, or any body with pips that stand out on it."""
    if rng.random() < common_share:
        body, pips = DIE_COLOURS[rng.integers(len(DIE_COLOURS))]
        return as_bgr(c + j for c, j in zip(body, rng.integers(-jitter, jitter + 1, 3))), pips
    body = random_colour(rng)
    return body, contrasting_colour(rng, body)


def random_die(
    rng: np.random.Generator,
    cx: float,
    cy: float,
    size: float,
    value: int | None = None,
    max_tilt: float = 40.0,
) -> DieSpec:
    body, pips = die_colours(rng, 0.7, 20)
    tilt = float(min(max_tilt, abs(rng.normal(0, max_tilt / 2.5)))) if max_tilt > 0 else 0.0
    return DieSpec(
        value=int(value if value is not None else rng.integers(1, 7)),
        cx=cx,
        cy=cy,
        size=size,
        angle=float(rng.uniform(0, 360)),
        tilt=tilt,
        tilt_direction=float(rng.uniform(0, 360)),
        body_bgr=body,
        pip_bgr=pips,
        pip_shape=str(rng.choice(PIP_SHAPES, p=(0.75, 0.13, 0.12))),
        pip_scale=float(rng.uniform(0.75, 1.3)),
        corner_radius=float(rng.uniform(0.05, 0.3)),
        translucency=float(rng.uniform(0.3, 1.0)) if rng.random() < 0.12 else 0.0,
    )


def random_effects(rng: np.random.Generator, dice: tuple[DieSpec, ...]) -> Effects:
    glares = []
    for die in dice:
        if rng.random() < 0.25:
            glares.append(
                Glare(
                    cx=die.cx + rng.uniform(-0.4, 0.4) * die.size,
                    cy=die.cy + rng.uniform(-0.4, 0.4) * die.size,
                    radius=die.size * rng.uniform(0.04, 0.15),
                    strength=float(rng.uniform(0.5, 1.0)),
                )
            )
    return Effects(
        shadow=float(rng.uniform(0.2, 0.6)) if rng.random() < 0.6 else 0.0,
        shadow_offset=(float(rng.uniform(-0.2, 0.2)), float(rng.uniform(-0.2, 0.2))),
        glares=tuple(glares),
        blur_sigma=float(rng.uniform(0.3, 1.6)) if rng.random() < 0.5 else 0.0,
        noise_sigma=float(rng.uniform(1, 9)) if rng.random() < 0.6 else 0.0,
        jpeg_quality=int(rng.integers(30, 95)) if rng.random() < 0.6 else None,
        brightness=float(rng.uniform(0.6, 1.25)),
    )


def random_table(rng: np.random.Generator) -> tuple[str, BGR]:
    kind = str(rng.choice(BACKGROUNDS))
    base = TABLE_COLOURS[kind][rng.integers(len(TABLE_COLOURS[kind]))]
    jitter = rng.integers(-25, 26, 3)
    return kind, as_bgr(c + j for c, j in zip(base, jitter))


def random_scene(
    rng: np.random.Generator,
    width: int = 1280,
    height: int = 720,
    n_dice: int = 6,
    die_size: tuple[float, float] = (40.0, 70.0),
    max_tilt: float = 40.0,
) -> Scene:
    """`n_dice` dice scattered without overlapping on a random table."""
    size = float(rng.uniform(*die_size))
    spacing = size * 1.8
    dice: list[DieSpec] = []
    for _ in range(n_dice * 50):
        if len(dice) == n_dice:
            break
        cx = float(rng.uniform(spacing, width - spacing))
        cy = float(rng.uniform(spacing, height - spacing))
        if all(math.hypot(cx - d.cx, cy - d.cy) > spacing for d in dice):
            dice.append(random_die(rng, cx, cy, size * rng.uniform(0.95, 1.05), max_tilt=max_tilt))
    kind, colour = random_table(rng)
    return Scene(
        width=width,
        height=height,
        background=kind,
        background_bgr=colour,
        dice=tuple(dice),
        effects=random_effects(rng, tuple(dice)),
        seed=int(rng.integers(2**31)),
    )

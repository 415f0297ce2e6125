"""Die crops cut from rendered scenes: every face value and many things that are not dice.

Each sample renders a small table around one die (with neighbours touching the crop edge
now and then) and cuts it with `vision.read.crops.crop_die`, the classifier's own crop.
About a fifth of the samples are "not a die face": bare table, coins, chips and other
shapes, half a die, two dice in one box, dice seen from the side.

With `keep_up`, the crops keep the picture's up, as a camera that looks down at a slant sees
dice: each die leans away from the camera (its side faces below its top face), half of them
15 to 45 degrees, and the crops are not turned.
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from vision.read.classifier import NOT_A_DIE
from vision.read.crops import CROP_SIZE, crop_die
from vision.synth.render import AWAY_FROM_CAMERA, DieSpec, Scene, render
from vision.synth.scenes import random_colour, random_die, random_effects, random_table
from vision.training.photo_crops import BOX_SCALE, TURN_SPREAD
from vision.types import DieBox

NEGATIVE_SHARE = 0.2
NEGATIVE_KINDS = ("table", "object", "half", "pair", "side")
# With `keep_up`: the spread of the direction the top face leans to (`AWAY_FROM_CAMERA`), the
# share of dice leaned further and how far.
LEAN_SPREAD = 30.0
STEEP_SHARE = 0.5
STEEP_TILT = (15.0, 45.0)
# How far a die seen from the side ("not a die face") leans: no face looks at the camera.
SIDE_TILT = (55.0, 75.0)


def jittered(box: DieBox, rng: np.random.Generator, keep_up: bool = False) -> DieBox:
    side = box.size
    angle = box.angle if rng.random() < 0.6 else 0.0
    if keep_up:  # after the draw above, so both recipes see the same random numbers
        angle = 0.0
    if angle == 0.0:  # an axis-aligned detector box encloses the turned die
        x0, y0, x1, y1 = box.bounds()
        box = DieBox(box.cx, box.cy, x1 - x0, y1 - y0, 0.0)
    return DieBox(
        box.cx + rng.normal(0, 0.05) * side,
        box.cy + rng.normal(0, 0.05) * side,
        box.w * rng.uniform(*BOX_SCALE),
        box.h * rng.uniform(*BOX_SCALE),
        float(rng.normal(0, TURN_SPREAD)) if keep_up else angle + float(rng.choice((0, 90, 180, 270))),
    )


def _neighbours(rng: np.random.Generator, cx: float, cy: float, size: float, count: int) -> list[DieSpec]:
    dice = []
    for _ in range(count):
        a = rng.uniform(0, 2 * math.pi)
        d = size * rng.uniform(1.15, 1.7)
        dice.append(random_die(rng, cx + d * math.cos(a), cy + d * math.sin(a), size * rng.uniform(0.9, 1.1)))
    return dice


def _scene(rng: np.random.Generator, size: float, target: DieSpec | None, extra: list[DieSpec]) -> Scene:
    canvas = int(size * 3.4)
    dice = ([target] if target else []) + extra
    kind, colour = random_table(rng)
    return Scene(canvas, canvas, kind, colour, tuple(dice), random_effects(rng, tuple(dice)), int(rng.integers(2**31)))


def positive(
    rng: np.random.Generator,
    value: int,
    size: float,
    keep_up: bool = False,
    steep_tilt: tuple[float, float] = STEEP_TILT,
    steep_min_size: float = 0.0,
) -> np.ndarray:
    centre = size * 1.7
    target = random_die(rng, centre, centre, size, value=value)
    if keep_up:
        target = replace(target, tilt_direction=float(AWAY_FROM_CAMERA + rng.normal(0, LEAN_SPREAD)))
        if rng.random() < STEEP_SHARE:
            # A small die leaning far shows a top face of a few pixels: it keeps the shipped range.
            tilts = steep_tilt if size >= steep_min_size else STEEP_TILT
            target = replace(target, tilt=float(rng.uniform(*tilts)))
    extra = _neighbours(rng, centre, centre, size, int(rng.choice((0, 0, 1, 2, 3))))
    rendered = render(_scene(rng, size, target, extra))
    return crop_die(rendered.frame, jittered(rendered.boxes[0], rng, keep_up))


def negative(
    rng: np.random.Generator,
    size: float,
    keep_up: bool = False,
    side_tilt: tuple[float, float] = SIDE_TILT,
    side_min_size: float = 0.0,
) -> np.ndarray:
    kind = str(rng.choice(NEGATIVE_KINDS, p=(0.25, 0.25, 0.2, 0.15, 0.15)))
    centre = size * 1.7
    box = DieBox(centre, centre, size * rng.uniform(0.9, 1.3), size * rng.uniform(0.9, 1.3), float(rng.uniform(0, 90)))
    if kind == "table":
        extra = _neighbours(rng, centre, centre, size * 0.9, int(rng.choice((0, 1, 2))))
        frame = render(
            _scene(rng, size, None, [d for d in extra if math.hypot(d.cx - centre, d.cy - centre) > 1.3 * size])
        ).frame
    elif kind == "object":
        frame = render(_scene(rng, size, None, [])).frame
        _draw_object(frame, rng, centre, size)
    elif kind == "half":
        a = rng.uniform(0, 2 * math.pi)
        shift = rng.uniform(0.55, 0.95) * size
        target = random_die(rng, centre + shift * math.cos(a), centre + shift * math.sin(a), size)
        frame = render(_scene(rng, size, target, [])).frame
    elif kind == "pair":
        a = rng.uniform(0, 360)
        gap = size * rng.uniform(1.05, 1.5)
        dx, dy = gap / 2 * math.cos(math.radians(a)), gap / 2 * math.sin(math.radians(a))
        dice = [random_die(rng, centre - dx, centre - dy, size), random_die(rng, centre + dx, centre + dy, size)]
        frame = render(_scene(rng, size, None, dice)).frame
        box = DieBox(centre, centre, gap + size * rng.uniform(0.9, 1.2), size * rng.uniform(0.9, 1.2), a)
    else:  # side: leaning so far that no face looks at the camera
        target = random_die(rng, centre, centre, size)
        direction = target.angle + float(rng.choice((0, 45, 90, 135, 180, 225, 270, 315))) + rng.normal(0, 8)
        tilts = side_tilt if size >= side_min_size else SIDE_TILT
        target = replace(target, tilt=float(rng.uniform(*tilts)), tilt_direction=direction)
        rendered = render(_scene(rng, size, target, []))
        frame, box = rendered.frame, jittered(rendered.boxes[0], rng, keep_up)
    return crop_die(frame, box)


def _draw_object(frame: np.ndarray, rng: np.random.Generator, centre: float, size: float) -> None:
    """A coin, a poker chip or some other flat shape about as big as a die."""
    c = (int(centre), int(centre))
    r = int(size * rng.uniform(0.4, 0.65))
    colour = random_colour(rng)
    shape = rng.choice(("coin", "chip", "polygon", "card", "ring"))
    if shape == "coin":
        metal = np.array(((60, 160, 200), (170, 170, 170), (50, 110, 170))[rng.integers(3)], float)
        for k in range(r, 0, -1):  # light from one side
            cv2.circle(
                frame, c, k, tuple(float(v) for v in np.clip(metal * (0.7 + 0.5 * k / r), 0, 255)), -1, cv2.LINE_AA
            )
        cv2.circle(frame, c, int(r * 0.85), tuple(float(v) for v in metal * 0.8), max(1, r // 12), cv2.LINE_AA)
    elif shape == "chip":
        cv2.circle(frame, c, r, colour, -1, cv2.LINE_AA)
        for k in range(int(rng.integers(4, 9))):
            a0 = k * 360 / 8
            cv2.ellipse(frame, c, (int(r * 0.85), int(r * 0.85)), 0, a0, a0 + 18, (235, 235, 235), max(1, r // 5))
        cv2.circle(frame, c, int(r * 0.55), random_colour(rng), -1, cv2.LINE_AA)
    elif shape == "polygon":
        n = int(rng.integers(3, 9))
        angles = np.sort(rng.uniform(0, 2 * math.pi, n))
        radii = r * rng.uniform(0.6, 1.2, n)
        points = np.stack([c[0] + radii * np.cos(angles), c[1] + radii * np.sin(angles)], 1).astype(np.int32)
        cv2.fillPoly(frame, [points], colour, cv2.LINE_AA)
    elif shape == "card":
        rect = (
            (centre, centre),
            (size * rng.uniform(1.2, 2.5), size * rng.uniform(0.6, 1.2)),
            float(rng.uniform(0, 180)),
        )
        cv2.fillPoly(frame, [cv2.boxPoints(rect).astype(np.int32)], colour, cv2.LINE_AA)
        cv2.putText(
            frame,
            str(rng.integers(2, 10)),
            (c[0] - r // 2, c[1] + r // 2),
            cv2.FONT_HERSHEY_SIMPLEX,
            r / 25,
            random_colour(rng),
            2,
        )
    else:
        cv2.circle(frame, c, r, colour, max(2, r // 4), cv2.LINE_AA)


def build(
    count: int,
    seed: int,
    sizes: tuple[float, float] = (20.0, 110.0),
    keep_up: bool = False,
    steep_tilt: tuple[float, float] = STEEP_TILT,
    side_tilt: tuple[float, float] = SIDE_TILT,
    steep_min_size: float = 0.0,
    side_min_size: float = 0.0,
    steep_from: int = 0,
) -> dict[str, np.ndarray]:
    """`count` crops (N, 32, 32, 3) uint8 BGR and their labels (0..5 faces 1..6, 6 not a die).
    `steep_tilt` is how far the steeper half of the dice lean with `keep_up` (dice smaller than
    `steep_min_size` pixels keep `STEEP_TILT`), `side_tilt` how far a die seen from the side leans
    (dice smaller than `side_min_size` keep `SIDE_TILT`). The crops before index `steep_from` keep
    the shipped ranges; since the ranges change no count of random draws, they are the very crops
    a build with the shipped ranges makes."""
    rng = np.random.default_rng(seed)
    crops = np.empty((count, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    labels = np.empty(count, np.int64)
    shipped_ranges = (STEEP_TILT, SIDE_TILT, 0.0, 0.0)
    asked_ranges = (steep_tilt, side_tilt, steep_min_size, side_min_size)
    for i in range(count):
        steep, side, steep_min, side_min = asked_ranges if i >= steep_from else shipped_ranges
        size = float(math.exp(rng.uniform(math.log(sizes[0]), math.log(sizes[1]))))
        if rng.random() < NEGATIVE_SHARE:
            crops[i], labels[i] = negative(rng, size, keep_up, side, side_min), NOT_A_DIE
        else:
            value = int(rng.integers(1, 7))
            crops[i], labels[i] = positive(rng, value, size, keep_up, steep, steep_min), value - 1
    return {"crops": crops, "labels": labels}

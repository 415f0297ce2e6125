"""Domain-randomised scenes: any table, any dice, clutter, trays, light and camera.

`random_sample` draws one frame and returns the centre and axis-aligned box of every die's
top face, the face the reader reads. Everything is seeded by the generator passed in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.images import jpeg_round_trip
from vision.synth.clutter import draw_random_clutter
from vision.synth.render import AWAY_FROM_CAMERA, DieSpec, Effects, Glare, draw_dice, top_face
from vision.synth.scenes import die_colours
from vision.synth.tables import SURFACES, draw_surface, random_colour
from vision.types import BGR

# A face turned further than this from the camera (cosine) is not read, so not labelled.
MIN_FACING = 0.45
# The share of frames whose dice are one matched set (the others mix dice of every kind).
MATCHED_SET = 0.4


@dataclass(frozen=True)
class SceneSample:
    """A frame and its dice: (n, 2) top-face centres, (n, 2) box widths and heights, values."""

    frame: np.ndarray
    centres: np.ndarray
    sizes: np.ndarray
    values: np.ndarray


def _random_die(
    rng: np.random.Generator,
    cx: float,
    cy: float,
    size: float,
    lean: float,
    lean_direction: float,
    colours: tuple[BGR, BGR] | None = None,
) -> DieSpec:
    body, pips = colours if colours is not None else die_colours(rng, 0.55, 25)
    marble = None
    if rng.random() < 0.12:
        marble = random_colour(rng)
    tilt = float(abs(rng.normal(lean, 8)))
    return DieSpec(
        value=int(rng.integers(1, 7)),
        cx=cx,
        cy=cy,
        size=size,
        angle=float(rng.uniform(0, 360)),
        tilt=min(tilt, 55.0),
        tilt_direction=float(lean_direction + rng.normal(0, 25)),
        body_bgr=body,
        pip_bgr=pips,
        pip_shape=str(rng.choice(("round", "square", "ring"), p=(0.8, 0.1, 0.1))),
        pip_scale=float(rng.uniform(0.7, 1.35)),
        corner_radius=float(rng.uniform(0.05, 0.35)),
        translucency=float(rng.uniform(0.3, 1.0)) if rng.random() < 0.1 else 0.0,
        motion_blur=float(rng.uniform(2, size * 0.6)) if rng.random() < 0.05 else 0.0,
        motion_angle=float(rng.uniform(0, 180)),
        marble_bgr=marble,
        marble_seed=int(rng.integers(1 << 30)),
    )


def _place(
    rng: np.random.Generator, count: int, size: float, width: int, height: int
) -> list[tuple[float, float, float]]:
    """Centres and sizes of `count` dice: scattered, or now and then heaped together."""
    spread = size * rng.uniform(1.05, 2.0) if rng.random() < 0.3 else size * 1.6
    placed: list[tuple[float, float, float]] = []
    for _ in range(count * 40):
        if len(placed) == count:
            break
        s = size * rng.uniform(0.85, 1.15) if rng.random() < 0.8 else size * rng.uniform(0.6, 1.5)
        if placed and rng.random() < 0.35:  # next to one already placed
            ox, oy, os_ = placed[int(rng.integers(len(placed)))]
            a = rng.uniform(0, 2 * math.pi)
            d = (os_ + s) / 2 * rng.uniform(1.05, 1.5)
            cx, cy = ox + d * math.cos(a), oy + d * math.sin(a)
        else:
            cx, cy = rng.uniform(-0.1 * s, width + 0.1 * s), rng.uniform(-0.1 * s, height + 0.1 * s)
        if all(math.hypot(cx - x, cy - y) > (s + q) / 2 * 1.05 for x, y, q in placed):
            if (
                all(math.hypot(cx - x, cy - y) > min(spread, (s + q) * 0.55) for x, y, q in placed)
                or rng.random() < 0.5
            ):
                placed.append((cx, cy, s))
    return placed


def _tray(frame: np.ndarray, rng: np.random.Generator) -> tuple[int, int, int, int]:
    """A tray or box lid: a wall band with a cast shadow inside, and its own floor."""
    height, width = frame.shape[:2]
    x0, y0 = int(rng.uniform(-0.1, 0.25) * width), int(rng.uniform(-0.1, 0.25) * height)
    x1, y1 = int(rng.uniform(0.75, 1.1) * width), int(rng.uniform(0.75, 1.1) * height)
    floor = draw_surface(str(rng.choice(("felt", "plain", "carpet", "painted", "cloth"))), width, height, rng)
    inner = np.zeros((height, width), np.uint8)
    cv2.rectangle(inner, (x0, y0), (x1, y1), 255, -1)
    frame[inner > 0] = floor[inner > 0]
    wall = max(3, int(min(width, height) * rng.uniform(0.02, 0.08)))
    colour = random_colour(rng)
    cv2.rectangle(frame, (x0, y0), (x1, y1), colour, wall)
    cv2.rectangle(
        frame,
        (x0 - wall // 2, y0 - wall // 2),
        (x1 + wall // 2, y1 + wall // 2),
        tuple(int(c * 0.6) for c in colour),
        max(1, wall // 3),
    )
    shadow: np.ndarray = np.zeros((height, width), np.float32)
    dx, dy = rng.integers(-3, 4, 2) * wall
    cv2.rectangle(shadow, (x0, y0), (x1, y1), 1.0, wall * 2)
    shadow = np.roll(shadow, (int(dy), int(dx)), (0, 1)) * (inner > 0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), wall)
    frame[:] = np.clip(frame * (1 - rng.uniform(0.2, 0.6) * shadow[..., None]), 0, 255).astype(np.uint8)
    return x0, y0, x1, y1


def _light(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    height, width = frame.shape[:2]
    image = frame.astype(np.float32)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    ramp = ((xs - width / 2) * math.cos(a) + (ys - height / 2) * math.sin(a)) / max(width, height)
    image *= (1 + rng.uniform(0, 0.8) * ramp)[..., None]
    image *= rng.uniform(0.8, 1.2, 3).astype(np.float32)  # white balance
    gain = rng.uniform(0.45, 1.35)
    image = 255 * (np.clip(image * gain, 0, 255) / 255) ** rng.uniform(0.7, 1.4)
    return np.clip(image, 0, 255).astype(np.uint8)


def _camera(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    image = frame
    if rng.random() < 0.4:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.4, 1.8))
    if rng.random() < 0.15:
        n = int(rng.integers(3, 9)) | 1
        kernel = np.zeros((n, n), np.float32)
        angle = rng.uniform(0, math.pi)
        c = n // 2
        cv2.line(
            kernel,
            (int(c - c * math.cos(angle)), int(c - c * math.sin(angle))),
            (int(c + c * math.cos(angle)), int(c + c * math.sin(angle))),
            1.0,
            1,
        )
        image = cv2.filter2D(image, -1, kernel / kernel.sum())
    if rng.random() < 0.7:
        sigma = rng.uniform(1, 10)
        noise = rng.normal(0, sigma, image.shape) + rng.normal(0, sigma / 2, image.shape[:2] + (1,))
        image = np.clip(image + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        image = jpeg_round_trip(image, int(rng.integers(25, 95)))
    return image


def _perspective(width: int, height: int, rng: np.random.Generator, strength: float) -> np.ndarray:
    """A homography that sees the table from `strength` (0 top-down .. 1 about 45 degrees)
    off vertical, looking up the frame."""
    shrink = strength * rng.uniform(0.25, 0.5)
    squash = 1 - strength * rng.uniform(0.1, 0.3)
    src = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    top = height * (1 - squash)
    dst = np.array(
        [[width * shrink / 2, top], [width * (1 - shrink / 2), top], [width, height], [0, height]], np.float32
    )
    turn = cv2.getRotationMatrix2D(
        (width / 2, height / 2), float(rng.uniform(-180, 180)) if rng.random() < 0.3 else 0.0, 1.0
    )
    turn3 = np.vstack([turn, [0, 0, 1]])
    return cv2.getPerspectiveTransform(src, dst) @ turn3


def _surface(rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    """A procedural table surface; most real tables are muted, so its colours are often pulled
    towards grey."""
    frame = draw_surface(str(rng.choice(SURFACES)), width, height, rng)
    if rng.random() < 0.6:
        grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        frame = cv2.addWeighted(frame, 1 - (k := float(rng.uniform(0.3, 0.9))), grey, k, 0)
    return frame


def _slanted(frame: np.ndarray, table: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """`frame` seen through the homography `matrix`. The corners the slant uncovers show the
    bare `table` (the frame before its dice were drawn) mirrored: mirroring the frame itself
    would put copies of its dice there, with no label."""
    height, width = frame.shape[:2]
    inside = cv2.warpPerspective(np.ones((height, width), np.uint8), matrix, (width, height))
    seen = cv2.erode(inside, np.ones((3, 3), np.uint8)) > 0  # its rim blends with the black beyond
    bare = cv2.warpPerspective(table, matrix, (width, height), borderMode=cv2.BORDER_REFLECT)
    return np.where(seen[..., None], cv2.warpPerspective(frame, matrix, (width, height)), bare)


def _within(points: np.ndarray, width: int, height: int) -> np.ndarray:
    return (points[:, 0] >= 0) & (points[:, 0] < width) & (points[:, 1] >= 0) & (points[:, 1] < height)


def _labelled(
    frame: np.ndarray, corners: np.ndarray, values: Sequence[int], matrix: np.ndarray | None = None
) -> SceneSample:
    """The frame with the centre and box of each top face (`corners`, (n, 4, 2) as drawn, before
    the slant `matrix` when there is one) whose centre lies inside the frame both as drawn and as
    seen: a die whose centre is off the drawing is cut by its edge, beyond which a slant shows
    only bare table."""
    height, width = frame.shape[:2]
    drawn = corners.mean(axis=1)
    if matrix is not None and len(corners):
        corners = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), matrix).reshape(-1, 4, 2)
    centres = corners.mean(axis=1)
    sizes = corners.max(axis=1) - corners.min(axis=1)
    inside = _within(drawn, width, height) & _within(centres, width, height)
    return SceneSample(
        frame,
        centres[inside].astype(np.float32),
        sizes[inside].astype(np.float32),
        np.asarray(values, np.int64)[inside],
    )


def random_sample(
    rng: np.random.Generator,
    width: int = 384,
    height: int = 384,
    die_size: tuple[float, float] = (10.0, 110.0),
    backgrounds: Sequence[np.ndarray] = (),
    dice_count: int | None = None,
) -> SceneSample:
    """One domain-randomised frame. `backgrounds` are photos of bare tables to draw on now
    and then, besides the procedural surfaces. `dice_count`: how many dice are thrown (as many
    as fit when fewer do); None draws it, now and then none."""
    if backgrounds and rng.random() < 0.3:
        photo = backgrounds[int(rng.integers(len(backgrounds)))]
        frame = cv2.resize(photo, (width, height), interpolation=cv2.INTER_AREA)
        if rng.random() < 0.5:
            frame = frame[::-1].copy()
    else:
        frame = _surface(rng, width, height)
    if rng.random() < 0.2:
        _tray(frame, rng)

    size = float(math.exp(rng.uniform(math.log(die_size[0]), math.log(die_size[1]))))
    oblique = float(rng.uniform(0, 1)) if rng.random() < 0.6 else 0.0
    if dice_count is None:
        count = 0 if rng.random() < 0.07 else int(min(rng.geometric(0.18), max(1, width * height / (size * size * 6))))
    else:
        count = dice_count
    spots = _place(rng, count, size, width, height)

    for _ in range(int(rng.poisson(1.2))):
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        if all(math.hypot(cx - x, cy - y) > s * 1.3 for x, y, s in spots):
            draw_random_clutter(frame, cx, cy, size * rng.uniform(0.7, 1.5), rng)

    lean = oblique * 35
    lean_direction = AWAY_FROM_CAMERA if rng.random() < 0.7 else float(rng.uniform(0, 360))
    # Players mostly throw a matched set: then every die has the same colours.
    matched = die_colours(rng, 0.55, 25) if rng.random() < MATCHED_SET else None
    dice = tuple(_random_die(rng, x, y, s, lean, lean_direction, matched) for x, y, s in spots)
    glares = tuple(
        Glare(
            cx=d.cx + rng.uniform(-0.4, 0.4) * d.size,
            cy=d.cy + rng.uniform(-0.4, 0.4) * d.size,
            radius=d.size * rng.uniform(0.04, 0.2),
            strength=float(rng.uniform(0.4, 1.0)),
        )
        for d in dice
        if rng.random() < 0.2
    )
    effects = Effects(
        shadow=float(rng.uniform(0.2, 0.7)) if rng.random() < 0.6 else 0.0,
        shadow_offset=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3))),
        glares=glares,
    )
    table = frame.copy()
    geometries = draw_dice(frame, dice, effects)

    centres, sizes, values = [], [], []
    for die, geometry in zip(dice, geometries):
        face = top_face(die, geometry)
        if face is None or face[1] < MIN_FACING:
            continue
        centres.append(face[0].mean(axis=0))
        sizes.append(face[0])
        values.append(die.value)

    if rng.random() < 0.3:  # a hand reaching in over the table, away from the dice
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        if all(math.hypot(cx - x, cy - y) > size * 5 for x, y, _ in spots):
            draw_random_clutter(frame, cx, cy, size, rng)

    matrix = None
    if oblique > 0:
        matrix = _perspective(width, height, rng, oblique)
        frame = _slanted(frame, table, matrix)
    frame = _camera(_light(frame, rng), rng)

    return _labelled(frame, np.asarray(sizes, np.float32).reshape(-1, 4, 2), values, matrix)


@dataclass(frozen=True)
class _Thing:
    """A piece of clutter that stays where it lies on a session's table."""

    cx: float
    cy: float
    size: float
    seed: int


class TableSession:
    """One table under one camera, thrown on again and again: the surface, tray, clutter, light
    and camera angle stay, and so does the player's set of dice; where the dice land and which
    faces they show change with every throw. This is what a table's learner meets
    (`vision.adapt`): a table whose own features fool the reader the same way, throw after throw.
    """

    def __init__(
        self,
        seed: int,
        width: int = 1280,
        height: int = 720,
        die_size: tuple[float, float] = (30.0, 90.0),
        dice: int = 6,
    ) -> None:
        rng = np.random.default_rng(seed)
        self.width, self.height, self.dice = width, height, dice
        table = _surface(rng, width, height)
        if rng.random() < 0.2:
            _tray(table, rng)
        self.size = float(math.exp(rng.uniform(math.log(die_size[0]), math.log(die_size[1]))))
        self.things = tuple(
            _Thing(
                float(rng.uniform(0, width)),
                float(rng.uniform(0, height)),
                self.size * float(rng.uniform(0.7, 1.5)),
                int(rng.integers(1 << 30)),
            )
            for _ in range(1 + int(rng.poisson(1.5)))
        )
        for thing in self.things:
            draw_random_clutter(table, thing.cx, thing.cy, thing.size, np.random.default_rng(thing.seed))
        self.table = table
        self.oblique = float(rng.uniform(0, 1)) if rng.random() < 0.6 else 0.0
        self.lean_direction = AWAY_FROM_CAMERA if rng.random() < 0.7 else float(rng.uniform(0, 360))
        self.matrix = _perspective(width, height, rng, self.oblique) if self.oblique > 0 else None
        self.colours = (
            [die_colours(rng, 0.55, 25)] * dice
            if rng.random() < MATCHED_SET
            else [die_colours(rng, 0.55, 25) for _ in range(dice)]
        )
        self.light_seed = int(rng.integers(1 << 30))

    def throw(self, rng: np.random.Generator, count: int | None = None) -> SceneSample:
        """The table with `count` of the set's dice (1 to all of them when None) thrown on it."""
        count = int(rng.integers(1, self.dice + 1)) if count is None else count
        spots = [
            spot
            for spot in _place(rng, count * 3, self.size, self.width, self.height)
            if all(math.hypot(spot[0] - t.cx, spot[1] - t.cy) > (spot[2] + t.size) * 0.65 for t in self.things)
        ][:count]
        lean = self.oblique * 35
        dice = tuple(
            _random_die(rng, x, y, s, lean, self.lean_direction, self.colours[i]) for i, (x, y, s) in enumerate(spots)
        )
        effects = Effects(shadow=0.4, shadow_offset=(0.15, 0.15))
        # A die turned so far that no face is read is left out, so that every die drawn is
        # labelled: whatever else the reader reports is the table's doing.
        faces = [top_face(die, geometry) for die, geometry in zip(dice, draw_dice(self.table.copy(), dice, effects))]
        shown = [(die, face) for die, face in zip(dice, faces) if face is not None and face[1] >= MIN_FACING]
        frame = self.table.copy()
        draw_dice(frame, tuple(die for die, _ in shown), effects)
        corners_list = [face[0] for _, face in shown]
        values = [die.value for die, _ in shown]
        if self.matrix is not None:
            frame = _slanted(frame, self.table, self.matrix)
        frame = _camera(_light(frame, np.random.default_rng(self.light_seed)), rng)
        return _labelled(frame, np.asarray(corners_list, np.float32).reshape(-1, 4, 2), values, self.matrix)

"""Simple drawn scenes (flat dice on a table) with known values, for tests and benchmarks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.read.faces import LAYOUTS

# Colours are BGR.
TABLE = (200, 205, 210)
IVORY = (235, 240, 245)
RED = (40, 40, 200)
BLACK = (30, 30, 30)


@dataclass(frozen=True)
class DrawnDie:
    value: int
    center: tuple[float, float]
    size: float
    angle: float = 0.0
    body: tuple[int, int, int] = IVORY
    pip: tuple[int, int, int] = BLACK
    # A marbled die: the face's half on the right of its turned x axis in this colour.
    streak: tuple[int, int, int] | None = None
    pip_diameter: float = 0.17  # of the die's side


def draw_die(frame: np.ndarray, die: DrawnDie) -> None:
    """Draw a die seen from straight above: a rounded square with its pips."""
    cx, cy = die.center
    a = np.deg2rad(die.angle)
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    half = die.size / 2
    corner = 0.12 * die.size
    body = np.zeros(frame.shape[:2], np.uint8)
    inner = half - corner
    square = np.array([[-inner, -inner], [inner, -inner], [inner, inner], [-inner, inner]]) @ rotation.T + (cx, cy)
    cv2.fillConvexPoly(body, square.round().astype(np.int32), 255, cv2.LINE_AA)
    body = cv2.dilate(body, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(corner) + 1,) * 2))
    frame[body > 0] = die.body
    if die.streak is not None:
        x, y, w, h = cv2.boundingRect(cv2.findNonZero(body))
        ys, xs = np.mgrid[y : y + h, x : x + w]
        right = (xs - cx) * rotation[0, 0] + (ys - cy) * rotation[1, 0] > 0
        frame[y : y + h, x : x + w][right & (body[y : y + h, x : x + w] > 0)] = die.streak
    spacing = 0.27 * die.size
    radius = max(1, round(die.pip_diameter / 2 * die.size))
    for gx, gy in LAYOUTS[die.value]:
        px, py = rotation @ (gx * spacing, gy * spacing) + (cx, cy)
        cv2.circle(frame, (round(px), round(py)), radius, die.pip, cv2.FILLED, cv2.LINE_AA)


def draw_coin(frame: np.ndarray, center: tuple[float, float], diameter: float) -> None:
    """A plain metal disc with a rim: round, die-sized, no pips."""
    c = (round(center[0]), round(center[1]))
    cv2.circle(frame, c, round(diameter / 2), (90, 150, 185), cv2.FILLED, cv2.LINE_AA)
    cv2.circle(frame, c, round(diameter / 2 * 0.85), (70, 125, 160), max(1, round(diameter / 30)), cv2.LINE_AA)


def draw_scene(
    width: int,
    height: int,
    dice: Sequence[DrawnDie],
    table: tuple[int, int, int] = TABLE,
    noise: float = 3.0,
    seed: int = 0,
) -> np.ndarray:
    """A table of the given colour with a little grain, and the dice drawn on it."""
    rng = np.random.default_rng(seed)
    frame = np.empty((height, width, 3), np.uint8)
    frame[:] = table
    for die in dice:
        draw_die(frame, die)
    grain = rng.normal(0.0, noise, frame.shape)
    return np.clip(frame.astype(np.float32) + grain, 0, 255).astype(np.uint8)


def draw_table(
    width: int = 1280, height: int = 720, values: Sequence[int] = (1, 2, 3, 4, 5, 6), seed: int = 0
) -> np.ndarray:
    """A webcam-like frame: the values as ivory and red dice about 60 pixels across, spread out."""
    rng = np.random.default_rng(seed)
    size = 0.085 * height
    dice = []
    for i, value in enumerate(values):
        column, row = i % 3, i // 3
        center = (width * (0.25 + 0.25 * column), height * (0.33 + 0.33 * (row % 2)) + 0.05 * height * (row // 2))
        body, pip = ((IVORY, BLACK), (RED, IVORY))[i % 2]
        dice.append(DrawnDie(value, center, size, float(rng.uniform(0, 90)), body, pip))
    return draw_scene(width, height, dice, seed=seed)


def draw_heap(values: Sequence[int] = (1, 2, 3, 4, 5, 6, 2, 5), seed: int = 0) -> list[DrawnDie]:
    """Ivory dice 60 pixels across, close together in rows of four, as a throw lands; draw them
    with `draw_scene(1280, 720, dice)`."""
    rng = np.random.default_rng(seed)
    return [
        DrawnDie(value, (400.0 + 110 * (i % 4), 250.0 + 110 * (i // 4)), 60.0, float(rng.uniform(0, 90)), IVORY, BLACK)
        for i, value in enumerate(values)
    ]

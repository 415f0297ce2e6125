"""Things on a dice table that are not six-sided dice: hands, coins, cards, pens, chips and
dice of other shapes (d4, d8, d10, d12, d20). Each draws itself into a BGR frame in place."""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

from vision.synth.tables import random_colour
from vision.types import BGR, as_bgr

SKIN: tuple[BGR, ...] = ((150, 180, 225), (120, 150, 200), (90, 120, 170), (60, 85, 120), (170, 195, 235))


def _shade(colour: BGR, factor: float) -> BGR:
    return as_bgr(c * factor for c in colour)


def _polygon(cx: float, cy: float, radius: float, sides: int, turn: float) -> np.ndarray:
    angles = turn + np.arange(sides) * 2 * math.pi / sides
    return np.stack([cx + radius * np.cos(angles), cy + radius * np.sin(angles)], 1).astype(np.int32)


def draw_polyhedral(frame: np.ndarray, cx: float, cy: float, size: float, rng: np.random.Generator) -> None:
    """A d4, d8, d10, d12 or d20 from above: facets of one body colour lit differently, and a
    number printed on the facet facing the camera."""
    sides = {"d4": 3, "d8": 4, "d10": 5, "d12": 10, "d20": 6}
    kind = str(rng.choice(list(sides)))
    body = random_colour(rng)
    ink = random_colour(rng)
    turn = rng.uniform(0, 2 * math.pi)
    r = size / 2 * rng.uniform(0.9, 1.25)
    outline = _polygon(cx, cy, r, sides[kind], turn)
    cv2.fillPoly(frame, [outline], _shade(body, 0.75), cv2.LINE_AA)
    inner_sides = 3 if kind in ("d4", "d8", "d20") else 5
    inner = _polygon(cx, cy, r * rng.uniform(0.45, 0.65), inner_sides, turn + rng.uniform(-0.3, 0.3))
    for k in range(len(outline)):  # facets between the outline and the front facet
        a, b = outline[k], outline[(k + 1) % len(outline)]
        c = inner[k % len(inner)]
        cv2.fillPoly(frame, [np.array([a, b, c])], _shade(body, rng.uniform(0.6, 1.1)), cv2.LINE_AA)
    cv2.fillPoly(frame, [inner], _shade(body, rng.uniform(0.95, 1.2)), cv2.LINE_AA)
    cv2.polylines(frame, [outline], True, _shade(body, 0.5), 1, cv2.LINE_AA)
    text = str(int(rng.integers(1, 21)))
    scale = r / 40
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, _stroke(scale))
    _print(frame, text, (int(cx - tw / 2), int(cy + th / 2)), scale, ink)


def draw_coin(frame: np.ndarray, cx: float, cy: float, size: float, rng: np.random.Generator) -> None:
    metal = [(60, 140, 190), (180, 180, 180), (50, 110, 160), (120, 120, 120)][int(rng.integers(4))]
    r = int(size / 2 * rng.uniform(0.7, 1.2))
    centre = (int(cx), int(cy))
    cv2.circle(frame, centre, r, _shade(metal, 0.7), -1, cv2.LINE_AA)
    cv2.circle(frame, centre, max(1, int(r * 0.85)), metal, -1, cv2.LINE_AA)
    if rng.random() < 0.7:  # embossed relief
        for _ in range(int(rng.integers(2, 6))):
            a = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(0, 0.5) * r
            cv2.circle(
                frame,
                (int(cx + d * math.cos(a)), int(cy + d * math.sin(a))),
                max(1, int(r * rng.uniform(0.08, 0.25))),
                _shade(metal, rng.uniform(0.6, 1.3)),
                -1,
                cv2.LINE_AA,
            )


def draw_chip(frame: np.ndarray, cx: float, cy: float, size: float, rng: np.random.Generator) -> None:
    """A poker chip: a disc with edge marks, the closest thing to a pipped die."""
    colour = random_colour(rng)
    r = int(size / 2 * rng.uniform(0.8, 1.3))
    cv2.circle(frame, (int(cx), int(cy)), r, colour, -1, cv2.LINE_AA)
    mark = random_colour(rng)
    for k in range(int(rng.integers(4, 9))):
        a = k * 2 * math.pi / 8
        cv2.circle(
            frame,
            (int(cx + 0.8 * r * math.cos(a)), int(cy + 0.8 * r * math.sin(a))),
            max(1, int(r * 0.12)),
            mark,
            -1,
            cv2.LINE_AA,
        )


def draw_card(frame: np.ndarray, cx: float, cy: float, size: float, rng: np.random.Generator) -> None:
    w, h = size * rng.uniform(1.8, 3.0), size * rng.uniform(2.6, 4.2)
    box = cv2.boxPoints(((cx, cy), (w, h), float(rng.uniform(0, 180)))).astype(np.int32)
    cv2.fillPoly(frame, [box], random_colour(rng, 200) if rng.random() < 0.7 else random_colour(rng), cv2.LINE_AA)
    ink = (30, 30, 200) if rng.random() < 0.5 else (30, 30, 30)
    scale = size / 60
    for _ in range(int(rng.integers(1, 4))):
        x = int(cx + rng.uniform(-0.3, 0.3) * w)
        y = int(cy + rng.uniform(-0.3, 0.3) * h)
        _print(frame, str(rng.choice(list("A23456789JQK"))), (x, y), scale, ink)


def draw_pen(frame: np.ndarray, cx: float, cy: float, size: float, rng: np.random.Generator) -> None:
    length = size * rng.uniform(3, 7)
    width = max(2, int(size * rng.uniform(0.15, 0.3)))
    a = rng.uniform(0, math.pi)
    dx, dy = math.cos(a) * length / 2, math.sin(a) * length / 2
    colour = random_colour(rng)
    cv2.line(frame, (int(cx - dx), int(cy - dy)), (int(cx + dx), int(cy + dy)), colour, width, cv2.LINE_AA)
    cv2.line(
        frame,
        (int(cx - dx), int(cy - dy)),
        (int(cx - 0.6 * dx), int(cy - 0.6 * dy)),
        random_colour(rng),
        width + 1,
        cv2.LINE_AA,
    )
    cv2.line(
        frame,
        (int(cx + dx), int(cy + dy)),
        (int(cx + 0.9 * dx), int(cy + 0.9 * dy)),
        _shade(colour, 1.5),
        max(1, width // 2),
        cv2.LINE_AA,
    )


def draw_hand(frame: np.ndarray, cx: float, cy: float, size: float, rng: np.random.Generator) -> None:
    """A palm and fingers, usually reaching in from outside: skin tones, soft shading."""
    skin = SKIN[int(rng.integers(len(SKIN)))]
    layer = np.zeros(frame.shape[:2], np.uint8)
    palm = size * rng.uniform(2.0, 3.5)
    a = rng.uniform(0, 2 * math.pi)
    cv2.ellipse(layer, (int(cx), int(cy)), (int(palm * 0.55), int(palm * 0.45)), math.degrees(a), 0, 360, 255, -1)
    for k in range(int(rng.integers(2, 6))):
        fa = a + (k - 2) * rng.uniform(0.25, 0.4)
        start = (cx + palm * 0.4 * math.cos(fa), cy + palm * 0.4 * math.sin(fa))
        length = palm * rng.uniform(0.5, 0.9)
        end = (start[0] + length * math.cos(fa), start[1] + length * math.sin(fa))
        cv2.line(layer, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), 255, max(2, int(palm * 0.16)))
    arm = (cx - palm * 2.5 * math.cos(a), cy - palm * 2.5 * math.sin(a))
    cv2.line(layer, (int(cx), int(cy)), (int(arm[0]), int(arm[1])), 255, max(2, int(palm * 0.7)))
    soft = cv2.GaussianBlur(layer.astype(np.float32) / 255, (0, 0), max(1.0, size * 0.05))[..., None]
    shading = 0.8 + 0.4 * cv2.GaussianBlur(layer.astype(np.float32) / 255, (0, 0), max(1.0, palm * 0.2))[..., None]
    tone = np.asarray(skin, np.float32) * shading
    frame[:] = np.clip(frame * (1 - soft) + tone * soft, 0, 255).astype(np.uint8)


DRAWERS: dict[str, Callable[[np.ndarray, float, float, float, np.random.Generator], None]] = {
    "polyhedral": draw_polyhedral,
    "coin": draw_coin,
    "chip": draw_chip,
    "card": draw_card,
    "pen": draw_pen,
    "hand": draw_hand,
}
KIND_WEIGHTS = {"polyhedral": 0.35, "coin": 0.15, "chip": 0.1, "card": 0.1, "pen": 0.15, "hand": 0.15}


def draw_random_clutter(frame: np.ndarray, cx: float, cy: float, size: float, rng: np.random.Generator) -> str:
    kinds = list(KIND_WEIGHTS)
    kind = str(rng.choice(kinds, p=np.asarray(list(KIND_WEIGHTS.values())) / sum(KIND_WEIGHTS.values())))
    DRAWERS[kind](frame, cx, cy, size, rng)
    return kind


def _stroke(scale: float) -> int:
    return max(1, int(scale * 2))


def _print(frame: np.ndarray, text: str, origin: tuple[int, int], scale: float, ink: BGR) -> None:
    """Text in the plain font, its stroke growing with its size."""
    cv2.putText(frame, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, ink, _stroke(scale), cv2.LINE_AA)

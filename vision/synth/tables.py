"""Procedural table surfaces: wood, felt, cloth, granite, marble, paper with text, prints."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synth.render import BACKGROUNDS, draw_background
from vision.types import BGR, as_bgr

SURFACES = (*BACKGROUNDS, "granite", "marble", "paper", "print", "checker", "painted", "carpet")


def random_colour(rng: np.random.Generator, low: int = 0, high: int = 256) -> BGR:
    return as_bgr(rng.integers(low, high, 3))


def _filled(height: int, width: int, base: BGR, dtype: type[np.generic]) -> np.ndarray:
    """An image of one colour."""
    image = np.empty((height, width, 3), dtype)
    image[:] = base
    return image


def smooth_noise(rng: np.random.Generator, height: int, width: int, scale: float) -> np.ndarray:
    """Zero-mean noise with features about `scale` pixels wide, in -1..1."""
    small = rng.standard_normal((max(2, int(height / scale) + 2), max(2, int(width / scale) + 2)))
    noise = cv2.resize(small.astype(np.float32), (width, height), interpolation=cv2.INTER_CUBIC)
    return np.clip(noise, -2, 2) / 2


def _granite(rng: np.random.Generator, height: int, width: int, base: BGR) -> np.ndarray:
    """Speckles of a few mineral colours at several sizes: the counter that looks like pips."""
    image = _filled(height, width, base, np.float32)
    image *= 1 + 0.1 * smooth_noise(rng, height, width, 30)[..., None]
    minerals = [random_colour(rng) for _ in range(int(rng.integers(2, 5)))]
    density = rng.uniform(0.002, 0.02)
    for colour in minerals:
        count = int(height * width * density / len(minerals))
        xs, ys = rng.integers(0, width, count), rng.integers(0, height, count)
        radii = np.clip(rng.gamma(1.5, rng.uniform(0.6, 2.5), count), 0.5, 9)
        for x, y, r in zip(xs, ys, radii):
            cv2.circle(image, (int(x), int(y)), int(round(r)), colour, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(image, (0, 0), rng.uniform(0.3, 1.0))


def _marble(rng: np.random.Generator, height: int, width: int, base: BGR) -> np.ndarray:
    field = smooth_noise(rng, height, width, max(height, width) / 4)
    warp = smooth_noise(rng, height, width, 20)
    veins = np.abs(np.sin((field * 5 + warp) * math.pi))
    veins = (veins < rng.uniform(0.05, 0.2)).astype(np.float32)
    veins = cv2.GaussianBlur(veins, (0, 0), 1.0)[..., None]
    vein_colour = np.asarray(random_colour(rng, 0, 120) if np.mean(base) > 128 else random_colour(rng, 150), np.float32)
    image = _filled(height, width, base, np.float32)
    return image * (1 - veins) + vein_colour * veins


def _paper(rng: np.random.Generator, height: int, width: int, base: BGR) -> np.ndarray:
    """A sheet with lines of small print and some handwriting-like strokes."""
    image = _filled(height, width, base, np.uint8)
    ink = random_colour(rng, 0, 90)
    scale = rng.uniform(0.3, 1.2)
    step = int(30 * scale) + 8
    letters = "abcdefghijklmnopqrstuvwxyz0123456789 .,:"
    for y in range(int(rng.integers(5, 20)), height, step):
        text = "".join(rng.choice(list(letters), int(rng.integers(10, 80))))
        cv2.putText(image, text, (int(rng.integers(-20, 20)), y), int(rng.integers(0, 8)), scale, ink, 1, cv2.LINE_AA)
    if rng.random() < 0.4:  # ruled lines
        for y in range(0, height, step):
            cv2.line(image, (0, y + 4), (width, y + 4), random_colour(rng, 120, 220), 1)
    return image.astype(np.float32)


def _print(rng: np.random.Generator, height: int, width: int, base: BGR) -> np.ndarray:
    """Printed cloth: repeated dots, flowers, stripes or blobs in a few colours."""
    image = _filled(height, width, base, np.uint8)
    colours = [random_colour(rng) for _ in range(3)]
    kind = rng.integers(4)
    period = int(rng.uniform(8, 60))
    if kind == 0:  # stripes
        angle = rng.uniform(0, math.pi)
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
        t = (xs * math.cos(angle) + ys * math.sin(angle)) / period
        band = (np.floor(t) % len(colours)).astype(int)
        image = np.asarray(colours, np.uint8)[band]
    else:
        for y in range(0, height + period, period):
            for x in range((y // period % 2) * period // 2, width + period, period):
                colour = colours[int(rng.integers(len(colours)))]
                r = max(1, int(period * rng.uniform(0.1, 0.35)))
                if kind == 1:
                    cv2.circle(image, (x, y), r, colour, -1, cv2.LINE_AA)
                elif kind == 2:
                    for k in range(5):
                        a = k * 2 * math.pi / 5
                        cv2.circle(
                            image, (int(x + r * math.cos(a)), int(y + r * math.sin(a))), max(1, r // 2), colour, -1
                        )
                else:
                    cv2.ellipse(image, (x, y), (r, max(1, r // 2)), float(rng.uniform(0, 180)), 0, 360, colour, -1)
    return image.astype(np.float32)


def _checker(rng: np.random.Generator, height: int, width: int, base: BGR) -> np.ndarray:
    period = int(rng.uniform(15, 90))
    other = np.asarray(random_colour(rng), np.float32)
    ys, xs = np.mgrid[0:height, 0:width]
    board = (((xs // period) + (ys // period)) % 2).astype(np.float32)[..., None]
    image = _filled(height, width, base, np.float32)
    return image * (1 - board) + other * board


def _painted(rng: np.random.Generator, height: int, width: int, base: BGR) -> np.ndarray:
    image = _filled(height, width, base, np.float32)
    strokes = smooth_noise(rng, height, width, rng.uniform(3, 12))
    return image * (1 + rng.uniform(0.02, 0.12) * strokes[..., None])


def _carpet(rng: np.random.Generator, height: int, width: int, base: BGR) -> np.ndarray:
    fibres: np.ndarray = rng.standard_normal((height, width)).astype(np.float32)
    fibres = cv2.GaussianBlur(fibres, (0, 0), rng.uniform(0.8, 2.0))
    angle = rng.uniform(0, 180)
    kernel: np.ndarray = np.zeros((9, 9), np.float32)
    cv2.line(kernel, (0, 4), (8, 4), 1.0, 1)
    kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D((4, 4), angle, 1), (9, 9))
    fibres = cv2.filter2D(fibres, -1, kernel / max(kernel.sum(), 1e-3))
    fibres = fibres / max(float(fibres.std()), 1e-3)
    image = _filled(height, width, base, np.float32)
    return image * (1 + 0.35 * fibres[..., None])


def draw_surface(kind: str, width: int, height: int, rng: np.random.Generator, base: BGR | None = None) -> np.ndarray:
    """A table surface of the given kind as a uint8 BGR image."""
    base = base if base is not None else random_colour(rng)
    if kind in BACKGROUNDS:
        return draw_background(kind, width, height, base, rng)
    makers = {
        "granite": _granite,
        "marble": _marble,
        "paper": _paper,
        "print": _print,
        "checker": _checker,
        "painted": _painted,
        "carpet": _carpet,
    }
    if kind not in makers:
        raise ValueError(f"unknown surface {kind!r}; expected one of {SURFACES}")
    image = makers[kind](rng, height, width, base)
    return np.ascontiguousarray(np.clip(image, 0, 255), dtype=np.uint8)

"""The detector's synthetic training frames (domain-randomised, fixed seed), rendered on worker processes.

Each frame comes from `vision.synth.domain.random_sample`: procedural tables, trays, clutter
and dice of every look, with the top-face centre and box of each die. With `heaps`, every
frame is a `random_heap` instead: packed dice at a slant, with boxes the loss skips where a
face is half hidden.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np

from vision.synth.domain import random_heap, random_sample


def _render(job: tuple[int, int, int, bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    seed, count, side, heaps = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    frames = np.empty((count, side, side, 3), np.uint8)
    boxes, ignore = [np.zeros((0, 5), np.float32)], [np.zeros((0, 5), np.float32)]
    for i in range(count):
        sample = random_heap(rng, side, side) if heaps else random_sample(rng, side, side)
        frames[i] = sample.frame
        boxes.append(
            np.concatenate([np.full((len(sample.centres), 1), i, np.float32), sample.centres, sample.sizes], 1)
        )
        ignore.append(np.concatenate([np.full((len(sample.ignore), 1), i, np.float32), sample.ignore], 1))
    return frames, np.concatenate(boxes), np.concatenate(ignore)


def build(
    count: int, seed: int, side: int = 320, workers: int = 2, heaps: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`count` frames of `side` x `side`, a (n, 5) table of dice (frame index, centre x, y, box
    w, h) and a (m, 5) table of regions the loss skips (frame index, x0, y0, x1, y1)."""
    chunk = 250
    jobs = [
        (seed * 100003 + k, min(chunk, count - start), side, heaps) for k, start in enumerate(range(0, count, chunk))
    ]
    if workers == 1:  # no pool: a fork of a process that runs threads (OpenCV's) can hang
        parts = [_render(job) for job in jobs]
    else:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_render, jobs))
    frames = np.concatenate([p[0] for p in parts])
    offsets = np.cumsum([0] + [len(p[0]) for p in parts[:-1]])
    shift = np.array([[1, 0, 0, 0, 0]], np.float32)
    boxes = np.concatenate([p[1] + shift * off for p, off in zip(parts, offsets)])
    ignore = np.concatenate([p[2] + shift * off for p, off in zip(parts, offsets)])
    return frames, boxes, ignore

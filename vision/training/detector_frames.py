"""The detector's synthetic training frames (domain-randomised, fixed seed), rendered on worker processes.

Each frame comes from `vision.synth.domain.random_sample`: procedural tables, trays, clutter
and dice of every look, with the top-face centre and box of each die.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

import cv2
import numpy as np

from vision.synth.domain import random_sample

T = TypeVar("T")


def _render(job: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    seed, count, side = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    frames = np.empty((count, side, side, 3), np.uint8)
    boxes = [np.zeros((0, 5), np.float32)]
    for i in range(count):
        sample = random_sample(rng, side, side)
        frames[i] = sample.frame
        boxes.append(
            np.concatenate([np.full((len(sample.centres), 1), i, np.float32), sample.centres, sample.sizes], 1)
        )
    return frames, np.concatenate(boxes)


def in_chunks(
    work: Callable[[tuple[int, int, int]], T], count: int, seed: int, side: int, workers: int, stride: int = 100003
) -> list[T]:
    """`work` done on jobs (seed, frames, side) of up to 250 frames each, on `workers` processes;
    each job's seed is drawn from `seed` and its place, so the result is the same for any
    number of workers."""
    chunk = 250
    jobs = [(seed * stride + k, min(chunk, count - start), side) for k, start in enumerate(range(0, count, chunk))]
    if workers == 1:  # no pool: a fork of a process that runs threads (OpenCV's) can hang
        return [work(job) for job in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(work, jobs))


def build(count: int, seed: int, side: int = 320, workers: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """`count` frames of `side` x `side` and a (n, 5) table: frame index, centre x, y, box w, h."""
    parts = in_chunks(_render, count, seed, side, workers)
    frames = np.concatenate([p[0] for p in parts])
    offsets = np.cumsum([0] + [len(p[0]) for p in parts[:-1]])
    boxes = np.concatenate([p[1] + np.array([[off, 0, 0, 0, 0]], np.float32) for p, off in zip(parts, offsets)])
    return frames, boxes

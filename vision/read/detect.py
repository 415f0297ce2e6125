"""The learned dice detector: a small fully convolutional ONNX network, run with onnxruntime,
that finds the top face of every six-sided die in a frame.

The network sees the frame shrunk (or enlarged) to `input_side` pixels on its long side and
answers, on a grid a quarter of that size, how likely each cell holds a die's centre, where
in the cell, and how wide and high the die's top face is. It may also look at the frame
mirrored, a die's score then being its mean over the views. A second, coarse look at the
frame shrunk further finds dice too big for the first.
"""

from __future__ import annotations

import copy
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.read.models import ModelError, default_model_path, open_session
from vision.types import DieBox

MODEL_NAME = "dice_detector.onnx"
STRIDE = 4
_MULTIPLE = 32  # the net halves the frame five times
# A camera's frames all have one size. Planned for one input shape, the network runs about a
# fifth faster than in a session that takes any shape (docs/vision.md, "Speed"), so each shape
# gets a session of its own; the latest few are kept.
_SHAPED_SESSIONS = 4
# The views by their number, as cv2.flip codes: None as it is, 1 mirrored left to right,
# 0 upside down, -1 both.
_VIEWS: dict[int, tuple[int | None, ...]] = {1: (None,), 2: (None, 1), 4: (None, 1, 0, -1)}


@dataclass(frozen=True)
class DetectorSettings:
    input_side: int = 640  # the long side the network sees, in pixels
    threshold: float = 0.35  # a peak below this is not a die (chosen on the train splits, see docs/vision.md)
    # Two peaks closer than this share of the larger die are one die seen twice.
    merge_distance: float = 0.5
    max_dice: int = 64
    # How many views of the frame are looked at: 1 as it is, 2 also mirrored, 4 also upside
    # down and both. A die's score is its mean over the views, a view that does not find it
    # giving 0; each view reports peaks down to half the threshold. Its box is the first
    # view's that found it.
    views: int = 1
    # A die much bigger than the network learned (a die close to the camera) is found by a
    # second look at the frame shrunk to this long side; None: no second look. Of that look
    # only dice at least `coarse_min_die` across (in its own pixels) count, and each one
    # takes the place of the much smaller finds inside it (often its own pips, seen as dice).
    coarse_side: int | None = 320
    coarse_min_die: float = 50.0  # chosen on the train splits and rendered tables, see docs/vision.md

    def __post_init__(self) -> None:
        if self.views not in _VIEWS:
            raise ValueError(f"views must be one of {sorted(_VIEWS)}, not {self.views!r}")
        if self.coarse_side is not None and not 32 <= self.coarse_side < self.input_side:
            raise ValueError(f"coarse_side must lie between 32 and input_side, not {self.coarse_side!r}")


@dataclass(frozen=True)
class Detection:
    """One die the detector found: its top face's box in frame pixels and how sure it is.

    A die of the coarse look `covers` the first look's finds it took the place of: its own pips
    seen as dice, or, when it is really a clump of dice seen as one, those dice (the reader's
    classifier tells which, see `vision.read.reader.ReaderSettings.clump_dice`)."""

    box: DieBox
    score: float
    covers: tuple[Detection, ...] = ()


class DiceDetector:
    def __init__(self, model_path: str | Path, threads: int = 1, settings: DetectorSettings | None = None) -> None:
        path = Path(model_path)
        self._session: Any = open_session(path, threads, "dice detector")
        inputs, outputs = self._session.get_inputs(), self._session.get_outputs()
        if len(inputs) != 1 or len(inputs[0].shape) != 4 or inputs[0].shape[1] != 3 or outputs[0].shape[1] != 5:
            raise ModelError(f"{path} is not a dice detector (input {inputs[0].shape}, output {outputs[0].shape})")
        self._input = inputs[0].name
        self._dims = tuple(inputs[0].shape)  # (batch, 3, height, width): sizes, or names where free
        self._threads = threads
        self._shaped: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self._shaped_lock = threading.Lock()
        self._buffers = _ThreadBuffers()
        self.path = path
        self.settings = settings or DetectorSettings()

    def with_threshold(self, threshold: float) -> DiceDetector:
        """The same network (its session shared) with another threshold."""
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"a detector threshold lies between 0 and 1, not {threshold!r}")
        other = copy.copy(self)
        other.settings = replace(self.settings, threshold=threshold)
        return other

    def network_input(self, frame_bgr: np.ndarray) -> tuple[np.ndarray, float]:
        """The (1, 3, H, W) input for a frame, padded to a multiple of 32, and its scale."""
        resized, scale = self._resized(frame_bgr)
        return _batch(resized), scale

    def run_network(self, batch: np.ndarray) -> np.ndarray:
        """The network's (5, H/4, W/4) output maps for a `network_input` batch, from the session
        planned for its shape, as a look takes them (for timing the network alone)."""
        (maps,) = self._session_for(batch.shape).run(None, {self._input: batch})
        return np.asarray(maps[0], np.float32)

    def _resized(self, frame_bgr: np.ndarray) -> tuple[np.ndarray, float]:
        height, width = frame_bgr.shape[:2]
        scale = self.settings.input_side / max(height, width)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        return cv2.resize(frame_bgr, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR), scale

    def detect(
        self, frame_bgr: np.ndarray, coarse_wanted: Callable[[list[Detection]], bool] | None = None
    ) -> list[Detection]:
        """Every die found, surest first.

        `coarse_wanted`, when given, is asked with the first look's finds whether the coarse
        look is worth taking; the first look's finds are returned as they are when it says no."""
        return self.detect_with_near_misses(frame_bgr, None, coarse_wanted)[0]

    def detect_with_near_misses(
        self,
        frame_bgr: np.ndarray,
        floor: float | None,
        coarse_wanted: Callable[[list[Detection]], bool] | None = None,
    ) -> tuple[list[Detection], list[Detection]]:
        """`detect`'s dice, and the first look's near misses: the peaks it scored from `floor`
        up to the threshold that lie on none of its dice, surest first. Only a single view
        (`DetectorSettings.views`) gives near misses, and only when it found a die; no `floor`,
        none."""
        if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
            raise ValueError(
                f"expected a BGR uint8 frame of shape (height, width, 3), got {frame_bgr.dtype} {frame_bgr.shape}"
            )
        settings = self.settings
        resized, scale = self._resized(frame_bgr)
        near: list[Detection] = []
        if floor is not None and settings.views == 1:
            maps = self._maps(resized)
            found = self.decode(maps, scale, frame_bgr.shape)
            # Near misses are wanted beside dice found; none found, none looked for.
            if found and floor < settings.threshold and np.count_nonzero(maps[0] >= floor) > len(found):
                sure = {detection.box for detection in found}
                near = [d for d in self.decode(maps, scale, frame_bgr.shape, floor) if d.box not in sure]
        else:
            found = self._detect_fine(resized, scale, frame_bgr.shape)
        if settings.coarse_side is None or (coarse_wanted is not None and not coarse_wanted(found)):
            return found, near
        return self._with_big_dice(found, resized, scale, frame_bgr.shape, settings.coarse_side), near

    def _with_big_dice(
        self, found: list[Detection], resized: np.ndarray, scale: float, shape: tuple[int, ...], side: int
    ) -> list[Detection]:
        """`found` with the dice the coarse look finds that are too big for the first look.

        A coarse die on which the first look found a die at least half its size is that die,
        seen better by the first look; otherwise it takes the place of the smaller finds
        inside it (its pips, which the first look takes for small dice), and covers them."""
        settings = self.settings
        # Shrunk from the first look's input, not from the frame: a tenth of the work.
        factor = side / max(resized.shape[:2])
        size = (max(1, round(resized.shape[1] * factor)), max(1, round(resized.shape[0] * factor)))
        coarse = cv2.resize(resized, size, interpolation=cv2.INTER_AREA)
        scale *= factor
        kept, added = list(found), False
        for big in self._look(coarse, scale, shape, settings.threshold):
            if big.box.size * scale < settings.coarse_min_die:
                continue
            inside = [
                d
                for d in kept
                if np.hypot(d.box.cx - big.box.cx, d.box.cy - big.box.cy) < settings.merge_distance * big.box.size
            ]
            if any(d.box.size >= 0.5 * big.box.size for d in inside):
                continue
            kept, added = [d for d in kept if d not in inside] + [replace(big, covers=tuple(inside))], True
        return self._distinct(sorted(kept, key=lambda d: -d.score)) if added else found

    def _detect_fine(self, resized: np.ndarray, scale: float, shape: tuple[int, ...]) -> list[Detection]:
        settings = self.settings
        views = _VIEWS[settings.views]
        if len(views) == 1:
            return self._look(resized, scale, shape, settings.threshold)
        # A flipped view's positions are turned back about the resized frame's far edges.
        far_x, far_y = resized.shape[1] / scale, resized.shape[0] / scale
        groups: list[_Group] = []
        for flip in views:
            view = resized if flip is None else cv2.flip(resized, flip)
            for found in self._look(view, scale, shape, settings.threshold / 2):
                box = found.box
                if flip in (1, -1):
                    box = replace(box, cx=far_x - box.cx)
                if flip in (0, -1):
                    box = replace(box, cy=far_y - box.cy)
                _join(groups, box, found.score, settings.merge_distance)
        sure = [group for group in groups if group.score / len(views) >= settings.threshold]
        return self._distinct([group.detection(len(views)) for group in sorted(sure, key=lambda g: -g.score)])

    def _look(self, resized: np.ndarray, scale: float, shape: tuple[int, ...], threshold: float) -> list[Detection]:
        return self.decode(self._maps(resized), scale, shape, threshold)

    def _maps(self, resized: np.ndarray) -> np.ndarray:
        """The network's (5, H/4, W/4) output maps for a resized frame."""
        return self.run_network(_batch(resized, self._buffers.by_shape))

    def _session_for(self, shape: tuple[int, ...]) -> Any:
        """The session planned for network inputs of this shape (see `_SHAPED_SESSIONS`)."""
        fixed = {name: size for name, size in zip(self._dims, shape) if isinstance(name, str)}
        if not fixed:
            return self._session
        with self._shaped_lock:
            session = self._shaped.get(shape)
            if session is not None:
                self._shaped.move_to_end(shape)
                return session
        session = open_session(self.path, self._threads, "dice detector", fixed)
        with self._shaped_lock:
            self._shaped[shape] = session
            while len(self._shaped) > _SHAPED_SESSIONS:
                self._shaped.popitem(last=False)
        return session

    def decode(
        self, maps: np.ndarray, scale: float, shape: tuple[int, ...], threshold: float | None = None
    ) -> list[Detection]:
        """The peaks of the network's output maps at or above `threshold` (the settings' by
        default) as dice in frame pixels, surest first, one die seen twice kept once."""
        settings = self.settings
        threshold = settings.threshold if threshold is None else threshold
        rows, columns = np.nonzero(maps[0] >= threshold)
        order = np.argsort(-maps[0, rows, columns], kind="stable")[: settings.max_dice * 2]
        rows, columns = rows[order], columns[order]
        # All peaks at once, each number by the same float operations as one at a time.
        xs = (columns + maps[1, rows, columns].astype(np.float64)) * STRIDE / scale
        ys = (rows + maps[2, rows, columns].astype(np.float64)) * STRIDE / scale
        widths = np.exp(np.clip(maps[3, rows, columns], 0.0, 7.0)).astype(np.float64) / scale
        heights = np.exp(np.clip(maps[4, rows, columns], 0.0, 7.0)).astype(np.float64) / scale
        scores = maps[0, rows, columns].astype(np.float64)
        height, width = shape[:2]
        peaks = [
            Detection(DieBox(cx, cy, w, h, 0.0), round(score, 3))
            for cx, cy, w, h, score in zip(xs.tolist(), ys.tolist(), widths.tolist(), heights.tolist(), scores.tolist())
            if 0 <= cx < width and 0 <= cy < height
        ]
        return self._distinct(peaks)

    def _distinct(self, ordered: list[Detection]) -> list[Detection]:
        """The detections, surest first, without those that lie on a surer one."""
        settings = self.settings
        kept: list[Detection] = []
        placed: list[tuple[float, float, float]] = []  # the kept boxes' centres and sizes
        for detection in ordered:
            box = detection.box
            x, y, size = box.cx, box.cy, box.size
            # Plain floats: this runs for every pair of peaks, where numpy's scalars cost more
            # than the sums.
            if any(math.hypot(x - kx, y - ky) < settings.merge_distance * max(ks, size) for kx, ky, ks in placed):
                continue
            kept.append(detection)
            placed.append((x, y, size))
            if len(kept) == settings.max_dice:
                break
        return kept


def _batch(resized: np.ndarray, buffers: dict[tuple[int, ...], np.ndarray] | None = None) -> np.ndarray:
    """The network's (1, 3, H, W) input: the resized frame padded to a multiple of 32 (its last
    row and column repeated), in 0..1.

    With `buffers`, it is written into the array kept there for its shape (made if missing)."""
    height, width = resized.shape[:2]
    shape = (1, 3, height + -height % _MULTIPLE, width + -width % _MULTIPLE)
    planes = None if buffers is None else buffers.get(shape)
    if planes is None:
        planes = np.empty(shape, np.float32)
        if buffers is not None:
            if len(buffers) >= _SHAPED_SESSIONS:
                buffers.clear()
            buffers[shape] = planes
    # Split into planes first, then each converted and padded in place, and scaled at once:
    # a strided copy straight from the interleaved colours takes about twice as long.
    for plane, channel in zip(planes[0], cv2.split(resized)):
        plane[:height, :width] = channel
        plane[height:, :width] = channel[-1]
        plane[:, width:] = plane[:, width - 1 : width]
    planes *= np.float32(1.0 / 255.0)
    return planes


class _ThreadBuffers(threading.local):
    """Each thread's input arrays, by shape. A fresh array of a frame's size a look costs the
    first touch of its memory every time, and onnxruntime's run slows down after it too
    (docs/vision.md, "Speed")."""

    def __init__(self) -> None:
        self.by_shape: dict[tuple[int, ...], np.ndarray] = {}


class _Group:
    """The detections of one die over several views: its first box (the frame as it is, where
    that view found it: the pips are read there), and sums of the boxes and scores."""

    def __init__(self, box: DieBox, score: float) -> None:
        self.first = box
        self.sums = np.array([box.cx, box.cy, box.w, box.h], np.float64)
        self.score = score
        self.count = 1

    @property
    def centre(self) -> tuple[float, float]:
        return (self.sums[0] / self.count, self.sums[1] / self.count)

    @property
    def size(self) -> float:
        return float(self.sums[2] + self.sums[3]) / 2 / self.count

    def add(self, box: DieBox, score: float) -> None:
        self.sums += (box.cx, box.cy, box.w, box.h)
        self.score += score
        self.count += 1

    def detection(self, views: int) -> Detection:
        return Detection(self.first, round(self.score / views, 3))


def _join(groups: list[_Group], box: DieBox, score: float, merge_distance: float) -> None:
    """Adds a view's detection to the nearest group it lies on, or starts a group."""
    nearest: tuple[float, _Group] | None = None
    for group in groups:
        gap = float(np.hypot(box.cx - group.centre[0], box.cy - group.centre[1]))
        if gap < merge_distance * max(box.size, group.size) and (nearest is None or gap < nearest[0]):
            nearest = (gap, group)
    if nearest is None:
        groups.append(_Group(box, score))
    else:
        nearest[1].add(box, score)


def load_default_detector(threads: int = 1, settings: DetectorSettings | None = None) -> DiceDetector:
    """The detector shipped with dicekeeper; raises `ModelError` if it is missing or broken."""
    return DiceDetector(default_model_path(MODEL_NAME), threads=threads, settings=settings)

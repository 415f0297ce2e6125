"""The learned dice detector: a small fully convolutional ONNX network, run with onnxruntime,
that finds the top face of every six-sided die in a frame.

The network sees the frame shrunk (or enlarged) to `input_side` pixels on its long side and
answers, on a grid a quarter of that size, how likely each cell holds a die's centre, where
in the cell, and how wide and high the die's top face is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.read.models import ModelError, default_model_path, open_session
from vision.types import DieBox

MODEL_NAME = "dice_detector.onnx"
STRIDE = 4
_MULTIPLE = 32  # the net halves the frame five times


@dataclass(frozen=True)
class DetectorSettings:
    input_side: int = 640  # the long side the network sees, in pixels
    threshold: float = 0.4  # a peak below this is not a die (chosen on the train splits, see docs/vision.md)
    # Two peaks closer than this share of the larger die are one die seen twice.
    merge_distance: float = 0.5
    max_dice: int = 64


@dataclass(frozen=True)
class Detection:
    """One die the detector found: its top face's box in frame pixels and how sure it is."""

    box: DieBox
    score: float


class DiceDetector:
    def __init__(self, model_path: str | Path, threads: int = 1, settings: DetectorSettings | None = None) -> None:
        path = Path(model_path)
        self._session: Any = open_session(path, threads, "dice detector")
        inputs, outputs = self._session.get_inputs(), self._session.get_outputs()
        if len(inputs) != 1 or len(inputs[0].shape) != 4 or inputs[0].shape[1] != 3 or outputs[0].shape[1] != 5:
            raise ModelError(f"{path} is not a dice detector (input {inputs[0].shape}, output {outputs[0].shape})")
        self._input = inputs[0].name
        self.path = path
        self.settings = settings or DetectorSettings()

    def network_input(self, frame_bgr: np.ndarray) -> tuple[np.ndarray, float]:
        """The (1, 3, H, W) input for a frame, padded to a multiple of 32, and its scale."""
        height, width = frame_bgr.shape[:2]
        scale = self.settings.input_side / max(height, width)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        resized = cv2.resize(frame_bgr, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        pad_h, pad_w = -size[1] % _MULTIPLE, -size[0] % _MULTIPLE
        if pad_h or pad_w:
            resized = cv2.copyMakeBorder(resized, 0, pad_h, 0, pad_w, cv2.BORDER_REPLICATE)
        batch = resized.transpose(2, 0, 1)[None].astype(np.float32) * (1.0 / 255.0)
        return batch, scale

    def detect(self, frame_bgr: np.ndarray) -> list[Detection]:
        """Every die found, surest first."""
        if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
            raise ValueError(
                f"expected a BGR uint8 frame of shape (height, width, 3), got {frame_bgr.dtype} {frame_bgr.shape}"
            )
        batch, scale = self.network_input(frame_bgr)
        (maps,) = self._session.run(None, {self._input: batch})
        return self.decode(np.asarray(maps[0], np.float32), scale, frame_bgr.shape[:2])

    def decode(self, maps: np.ndarray, scale: float, shape: tuple[int, ...]) -> list[Detection]:
        settings = self.settings
        rows, columns = np.nonzero(maps[0] >= settings.threshold)
        order = np.argsort(-maps[0, rows, columns], kind="stable")[: settings.max_dice * 2]
        height, width = shape[:2]
        found: list[Detection] = []
        for index in order:
            r, c = rows[index], columns[index]
            cx = (c + float(maps[1, r, c])) * STRIDE / scale
            cy = (r + float(maps[2, r, c])) * STRIDE / scale
            if not (0 <= cx < width and 0 <= cy < height):
                continue
            w = float(np.exp(np.clip(maps[3, r, c], 0.0, 7.0))) / scale
            h = float(np.exp(np.clip(maps[4, r, c], 0.0, 7.0))) / scale
            box = DieBox(cx, cy, w, h, 0.0)
            if any(
                np.hypot(cx - d.box.cx, cy - d.box.cy) < settings.merge_distance * max(d.box.size, box.size)
                for d in found
            ):
                continue
            found.append(Detection(box, round(float(maps[0, r, c]), 3)))
            if len(found) == settings.max_dice:
                break
        return found


def load_default_detector(threads: int = 1, settings: DetectorSettings | None = None) -> DiceDetector:
    """The detector shipped with dicekeeper; raises `ModelError` if it is missing or broken."""
    return DiceDetector(default_model_path(MODEL_NAME), threads=threads, settings=settings)

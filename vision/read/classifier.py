"""The die-face classifier: a small ONNX network run with onnxruntime on die crops.

`predict` returns, per box, seven probabilities: faces 1..6 then "not a die face".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.read.crops import CROP_SIZE, crop_dice
from vision.read.models import ModelError, default_model_path, open_session
from vision.types import DieBox

N_CLASSES = 7
NOT_A_DIE = 6  # column of "not a die face"
MODEL_NAME = "die_face.onnx"
EMBEDDING = "embedding"  # the optional outputs' names
LOGITS = "logits"


class DieFaceClassifier:
    def __init__(self, model_path: str | Path, threads: int = 1) -> None:
        path = Path(model_path)
        self._session: Any = open_session(path, threads, "die-face")
        inputs, outputs = self._session.get_inputs(), self._session.get_outputs()
        if len(inputs) != 1 or inputs[0].shape[1:] != [3, CROP_SIZE, CROP_SIZE] or outputs[0].shape[-1] != N_CLASSES:
            raise ModelError(f"{path} is not a die-face model (input {inputs[0].shape}, output {outputs[0].shape})")
        self._input = inputs[0].name
        self._probabilities = outputs[0].name
        names = {output.name for output in outputs}
        # Models exported with `models/feature_outputs.py` also give what their last layer reads.
        self.has_features = {EMBEDDING, LOGITS} <= names
        self.path = path

    def predict(self, frame_bgr: np.ndarray, boxes: Sequence[DieBox]) -> np.ndarray:
        """(N, 7) float32 probabilities: columns 0..5 are faces 1..6, column 6 "not a die face"."""
        return predict_boxes(self.predict_crops, frame_bgr, boxes)

    def predict_crops(self, crops: np.ndarray) -> np.ndarray:
        """Probabilities for (N, 32, 32, 3) uint8 BGR crops cut with `vision.read.crops.crop_die`."""
        (probabilities,) = self._session.run([self._probabilities], {self._input: _batch(crops)})
        return np.asarray(probabilities, np.float32)

    def features(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, D) features the last layer reads and its (N, 7) output before the softmax, for
        crops as `predict_crops` takes them; ModelError for a model without these outputs."""
        if not self.has_features:
            raise ModelError(f"{self.path} gives no features (see models/feature_outputs.py)")
        embedding, logits = self._session.run([EMBEDDING, LOGITS], {self._input: _batch(crops)})
        return np.asarray(embedding, np.float32), np.asarray(logits, np.float32)


def predict_boxes(
    predict_crops: Callable[[np.ndarray], np.ndarray], frame_bgr: np.ndarray, boxes: Sequence[DieBox]
) -> np.ndarray:
    """`predict_crops` of the boxes' crops (see `DieFaceClassifier.predict`)."""
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
        raise ValueError(
            f"expected a BGR uint8 frame of shape (height, width, 3), got {frame_bgr.dtype} {frame_bgr.shape}"
        )
    if len(boxes) == 0:
        return np.zeros((0, N_CLASSES), np.float32)
    return predict_crops(crop_dice(frame_bgr, boxes))


def _batch(crops: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


def load_default_classifier(threads: int = 1) -> DieFaceClassifier:
    """The model shipped with dicekeeper; raises `ModelError` if it is missing or broken."""
    return DieFaceClassifier(default_model_path(), threads=threads)


__all__ = [
    "MODEL_NAME",
    "N_CLASSES",
    "NOT_A_DIE",
    "DieFaceClassifier",
    "ModelError",
    "load_default_classifier",
    "predict_boxes",
]

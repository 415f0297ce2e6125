"""The classifier's last layer, corrected for one table.

The shipped classifier ends in one linear layer over features it pools from a die's crop
(`DieFaceClassifier.features`). From a table's confirmed dice, and the readings its players
marked as no die, a correction of that layer is fitted: a small change of its weights and bias,
by gradient descent on the cross-entropy of the confirmed faces plus a penalty on the change's
size, so that a few confirmed dice can only nudge the shipped layer, not replace it. The reader
then decides with the corrected probabilities, through its usual rules: a die the pips leave in
doubt, and a pip-less die the shipped layer was not sure enough of, can be read, and a reading
like those marked as no die can be dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.adapt.memory import NOT_A_DIE
from vision.read.classifier import N_CLASSES, DieFaceClassifier, predict_boxes
from vision.types import DieBox

STRENGTH = 1.0  # the penalty on the change, per confirmed die
STEPS = 1000


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class LastLayerFix:
    """A change to the last layer: `weights` (7, D) and `bias` (7,) added to the shipped ones.

    Confirmed dice teach faces; only readings a player marked as no die teach what is no die.
    Fitted on dice alone, the fix reorders the faces and leaves how sure the shipped layer is that a
    crop is no die as it was: a table's dice, every one of them a die, would otherwise teach it
    that everything is one, and it would read the table's spots and coins too.
    """

    weights: np.ndarray
    bias: np.ndarray
    dice: int  # how many confirmed dice (and readings marked as no die) it was fitted on
    not_dice: int = 0  # of those, readings marked as no die

    @classmethod
    def fit(
        cls,
        embeddings: np.ndarray,
        logits: np.ndarray,
        faces: Sequence[int],
        strength: float = STRENGTH,
        steps: int = STEPS,
    ) -> LastLayerFix:
        """The change that fits dice with these features and shipped `logits` to their true
        `faces` (1..6, or NOT_A_DIE for what a player said was no die)."""
        embeddings = np.asarray(embeddings, np.float64)
        logits = np.asarray(logits, np.float64)
        count, width = embeddings.shape
        weights, bias = np.zeros((N_CLASSES, width)), np.zeros(N_CLASSES)
        face = np.asarray(faces, int)
        if count == 0:
            return cls(weights.astype(np.float32), bias.astype(np.float32), 0)
        target = np.zeros((count, N_CLASSES))
        target[np.arange(count), np.where(face == NOT_A_DIE, N_CLASSES - 1, face - 1)] = 1.0
        # The loss's gradient changes by at most half the features' largest squared norm (plus
        # the penalty) per unit step: a step of its inverse always lowers the loss.
        rate = 1.0 / (0.5 * (float((embeddings**2).sum(axis=1).max()) + 1.0) + strength / count)
        for _ in range(steps):
            error = softmax(logits + embeddings @ weights.T + bias) - target
            weights -= rate * (error.T @ embeddings / count + strength / count * weights)
            bias -= rate * (error.mean(axis=0) + strength / count * bias)
        return cls(weights.astype(np.float32), bias.astype(np.float32), count, int((face == NOT_A_DIE).sum()))

    def probabilities(self, embeddings: np.ndarray, logits: np.ndarray) -> np.ndarray:
        fitted = softmax(logits + embeddings @ self.weights.T + self.bias)
        if self.not_dice == 0:
            no_die = softmax(logits)[:, N_CLASSES - 1 :]
            faces = fitted[:, : N_CLASSES - 1]
            fitted = np.concatenate([faces / faces.sum(axis=1, keepdims=True) * (1 - no_die), no_die], axis=1)
        return fitted.astype(np.float32)


class TableClassifier:
    """The shipped classifier with a table's fix of its last layer."""

    def __init__(self, base: DieFaceClassifier, fix: LastLayerFix) -> None:
        self.base = base
        self.fix = fix

    def predict(self, frame_bgr: np.ndarray, boxes: Sequence[DieBox]) -> np.ndarray:
        return predict_boxes(self.predict_crops, frame_bgr, boxes)

    def predict_crops(self, crops: np.ndarray) -> np.ndarray:
        embeddings, logits = self.base.features(crops)
        return self.fix.probabilities(embeddings, logits)

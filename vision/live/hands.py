"""A still hand in the picture: a skin-coloured object that was not on the table before.

Motion tells a moving hand from a resting table, but a hand can stop over the dice, or rest
beside them, for longer than the dice need to settle. `HandCheck` compares a still frame with
the table as it last lay without a hand (the reference) and finds a large region that

- has changed since the reference,
- has the chroma of skin (any tone: skin differs in lightness far more than in chroma), in the
  picture as it is or balanced so that the reference's brightest colours are white (a warm or
  cold light moves skin's chroma out of its range; white dice, pips and glare bring it back),
- differs from the table's own colour (so a wooden table, skin-like itself, is not a hand),
- and belongs to a changed region that reaches the frame's edge, as an arm does.

A change over
most of the frame is no hand but a new scene (the camera or the table moved); the frame then
becomes the reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Skin's chroma in YCrCb (OpenCV's 8-bit scaling), wide enough for light to dark skin under
# warm or neutral light.
_SKIN_CR = (135, 180)
_SKIN_CB = (80, 130)


@dataclass(frozen=True)
class HandConfig:
    width: int = 160  # frames are shrunk to this width
    min_share: float = 0.02  # a hand's skin covers at least this share of the frame
    new_scene_share: float = 0.2  # a change over more than this share is a new scene, not a hand
    change: float = 30.0  # Lab distance from the reference that counts as changed
    table_distance: float = 25.0  # Lab distance from the table's colour that a hand has at least
    # Also look for skin in the picture balanced so that the reference's brightest colours are
    # white: for a coloured light (chosen on rendered tables and `train` videos, see docs/camera.md).
    balance: bool = True


@dataclass(frozen=True)
class HandSighting:
    """What the check saw in one frame."""

    share: float  # of the frame: the most skin in one new region reaching the frame's edge
    changed: float  # of the frame: everything that changed since the reference
    hand: bool  # the region is large enough to be a hand


class HandCheck:
    """`look` at still frames (BGR). A frame without a hand becomes the reference; one with a
    hand leaves the reference as it was, unless it is `accept`ed as the table (something that
    stays for good is no hand)."""

    def __init__(self, config: HandConfig | None = None) -> None:
        self.config = config or HandConfig()
        # The table as it last lay without a hand: its Lab picture and the per-channel gains
        # that make its brightest colours white.
        self._reference: tuple[np.ndarray, np.ndarray] | None = None
        self._last: tuple[np.ndarray, np.ndarray] | None = None

    def reset(self) -> None:
        self._reference = self._last = None

    def _small_lab(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        width = self.config.width
        height = max(1, round(image.shape[0] * width / image.shape[1]))
        small = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
        return small, cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)

    def accept(self) -> None:
        """Takes the frame last looked at as the table, whatever it shows."""
        self._reference = self._last

    def look(self, image: np.ndarray) -> HandSighting:
        """How much new skin reaches into the frame from its edge. The first frame (or the first
        of another size) only becomes the reference, as does a new scene."""
        config = self.config
        small, lab = self._small_lab(image)
        # The light's colour, from the brightest of each channel (white dice and pips, glare): a
        # table's mean would take a green cloth's colour for the light's.
        brightest = np.percentile(small.reshape(-1, 3), 99.5, axis=0)
        gains = (brightest.max() / np.maximum(brightest, 1.0)).astype(np.float32)
        reference, self._last = self._reference, (lab, gains)
        if reference is None or reference[0].shape != lab.shape:
            self._reference = self._last
            return HandSighting(0.0, 0.0, False)
        changed = np.linalg.norm(lab - reference[0], axis=2) > config.change
        changed_share = float(np.count_nonzero(changed)) / changed.size
        if changed_share > config.new_scene_share:
            self._reference = self._last
            return HandSighting(0.0, changed_share, False)
        skin = _skin(small)
        if config.balance:
            balanced = np.clip(small * reference[1], 0, 255).astype(np.uint8)
            skin |= _skin(balanced)
        table = np.median(lab.reshape(-1, 3)[::7], axis=0)
        unlike_table = np.linalg.norm(lab - table, axis=2) > config.table_distance
        # A hand comes with its arm from beyond the frame's edge: only a changed region that
        # reaches the edge can hold one (dice that moved, however skin-coloured, lie inside).
        joined = cv2.dilate(changed.astype(np.uint8), np.ones((3, 3), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(joined)
        height, width = joined.shape
        left, top = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
        right, bottom = left + stats[:, cv2.CC_STAT_WIDTH], top + stats[:, cv2.CC_STAT_HEIGHT]
        at_edge = (left == 0) | (top == 0) | (right == width) | (bottom == height)
        at_edge[0] = False  # the unchanged background
        skin_counts = np.bincount(labels[changed & skin & unlike_table], minlength=count)
        share = float(skin_counts[at_edge].max()) / changed.size if at_edge.any() else 0.0
        seen = share >= config.min_share
        if not seen:
            self._reference = self._last
        return HandSighting(share, changed_share, seen)


def _skin(small: np.ndarray) -> np.ndarray:
    """Where a BGR picture has the chroma of skin."""
    ycrcb = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
    cr, cb = ycrcb[:, :, 1], ycrcb[:, :, 2]
    return (cr >= _SKIN_CR[0]) & (cr <= _SKIN_CR[1]) & (cb >= _SKIN_CB[0]) & (cb <= _SKIN_CB[1])

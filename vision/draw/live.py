"""Drawing the live view: every die with its value, in play or set aside, and the settle state.

Only draws; the observation it is given is never changed. Colours are BGR.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.draw.readings import draw_die
from vision.live.settle import SettleStatus, match_dice
from vision.types import DieReading

IN_PLAY = (80, 200, 40)  # green
SET_ASIDE = (150, 150, 150)  # grey
DOUBTFUL = (0, 140, 255)  # orange
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
PHASE_COLOURS: dict[str, tuple[int, int, int]] = {
    "waiting": (120, 120, 120),
    "moving": (0, 90, 230),  # red-orange: dice rolling or a hand in the picture
    "hand": (0, 90, 230),  # a hand holding still: as moving
    "steadying": (0, 190, 250),  # amber
    "settled": (80, 200, 40),  # green
}


def draw_live(
    frame_bgr: np.ndarray,
    readings: Sequence[DieReading],
    status: SettleStatus,
    doubtful_below: float = 0.6,
    note: str = "",
) -> np.ndarray:
    """A copy of the frame with the dice and a banner saying what the settle detector thinks."""
    image = frame_bgr.copy()
    line = max(1, round(max(image.shape[:2]) / 640))
    aside = match_dice(readings, status.set_aside, same_place=0.3)
    for reading, unmoved in zip(readings, aside):
        if unmoved is not None:
            colour = SET_ASIDE
        elif reading.confidence < doubtful_below:
            colour = DOUBTFUL
        else:
            colour = IN_PLAY
        draw_die(image, reading, colour, line)
    text: str = status.phase
    if status.phase == "settled" and status.in_play:
        text += ": " + " ".join(str(r.value) for r in status.in_play)
    if note:
        text += "  " + note
    scale = max(0.5, image.shape[0] / 900)
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, line)
    pad = int(8 * scale)
    cv2.rectangle(image, (0, 0), (w + 2 * pad, h + base + 2 * pad), PHASE_COLOURS.get(status.phase, BLACK), cv2.FILLED)
    cv2.putText(image, text, (pad, h + pad), cv2.FONT_HERSHEY_SIMPLEX, scale, WHITE, line, cv2.LINE_AA)
    return image

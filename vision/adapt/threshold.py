"""Learning how sure the detector must be on one table, from the pictures of confirmed throws.

Where a table's light or dice make the detector score real dice lower than on the tables it
learned from, dice go missing; where its pattern (granite specks, printed spots) or other
objects look like dice to it, dice appear that are not there. Either way players correct the
count on the phone. Each confirmed picture is read at the shipped threshold and a few lower and
higher ones, and the dice misread at each are kept with it. The threshold with the fewest
misread dice over the kept pictures is taken, but only when it beats the shipped threshold by
`MIN_GAIN` dice or more; of thresholds that tie, the one nearest the shipped one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from vision.types import DieReading

STEP = 0.05
STEPS = 4  # thresholds tried: the shipped one and up to STEPS * STEP below and above it
MIN_GAIN = 2  # dice, over all the kept pictures

ReadAt = Callable[[float], Callable[[np.ndarray], Sequence[DieReading]]]
"""For a threshold, a function that reads a frame with the detector at that threshold."""


def misread(readings: Sequence[DieReading], faces: Sequence[int]) -> int:
    """Dice a reading got wrong against the confirmed faces: missed, extra or of another value
    (a die read 5 for a 3 counts twice, one 3 missed and one 5 extra)."""
    read, true = Counter(r.value for r in readings), Counter(faces)
    return sum(((read - true) + (true - read)).values())


def candidates(shipped: float) -> tuple[float, ...]:
    """The thresholds tried, nearest the shipped one first, lower before higher."""
    tried = [shipped]
    for k in range(1, STEPS + 1):
        tried += [t for t in (shipped - k * STEP, shipped + k * STEP) if 0.0 < t < 1.0]
    return tuple(round(t, 3) for t in tried)


def misread_by_threshold(
    read_at: ReadAt, shipped: float, frame_bgr: np.ndarray, faces: Sequence[int]
) -> dict[float, int]:
    """How many dice of one confirmed picture the reader gets wrong at each candidate threshold."""
    return {t: misread(read_at(t)(frame_bgr), faces) for t in candidates(shipped)}


def choose_threshold(shipped: float, misreads: Sequence[Mapping[float, int]]) -> float:
    """The detector threshold for this table, from each kept picture's misread dice by threshold."""
    tried = [t for t in candidates(shipped) if misreads and all(t in m for m in misreads)]
    if shipped not in tried:
        return shipped
    errors = {t: sum(m[t] for m in misreads) for t in tried}
    best = min(tried, key=lambda t: (errors[t], abs(t - shipped), -t))
    return best if errors[shipped] - errors[best] >= MIN_GAIN else shipped

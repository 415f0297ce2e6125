"""Whether the camera shows the dice big enough to read them well, and what to tell the player.

On webcam frames of real dice, the reader misses dice of about 40 pixels across that it reads as
photos at about 70 (`python -m benchmarks.webcam_costs`, docs/camera.md): the detector loses
some small dark dice among many, and JPEG washes out coloured pips on small dice.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from vision.types import DieReading

SMALL_DIE_PX = 50.0  # dice under this across are missed more often
GOOD_DIE_PX = 70.0  # from about this size they read as well as in photos


def typical_die_px(dice: Sequence[DieReading]) -> float | None:
    """The median die's side in frame pixels; None without dice."""
    if not dice:
        return None
    return float(statistics.median(d.box.size for d in dice))


def framing_advice(dice: Sequence[DieReading]) -> str:
    """A sentence for the player when the dice are small in the picture, else ""."""
    size = typical_die_px(dice)
    if size is None or size >= SMALL_DIE_PX:
        return ""
    return (
        f"the dice are about {size:.0f} px across, small enough to be missed now and then: move the "
        f"camera closer or frame the rolling area more tightly (from about {GOOD_DIE_PX:.0f} px they read best)"
    )

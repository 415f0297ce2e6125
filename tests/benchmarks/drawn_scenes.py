"""Rendered frames for the benchmark tests."""

from __future__ import annotations

import numpy as np

from vision.synth.render import DieSpec, Scene, render


def six_dice_frame(values: tuple[int, ...] = (1, 2, 3, 4, 5, 6)) -> tuple[np.ndarray, tuple[DieSpec, ...]]:
    dice = tuple(
        DieSpec(
            v,
            160.0 + 190.0 * i,
            360.0 + 80.0 * (-1) ** i,
            56.0,
            angle=11.0 * v,
            body_bgr=(235, 235, 235),
            pip_bgr=(25, 25, 25),
        )
        for i, v in enumerate(values)
    )
    return render(Scene(1280, 720, background="felt", background_bgr=(50, 110, 40), dice=dice, seed=3)).frame, dice

"""A small YOLO-labelled photo set of rendered dice, for tests that need labelled photos."""

from __future__ import annotations

import random
from pathlib import Path

import cv2

from vision.synth.render import DieSpec, Scene, render


def write_photo_set(root: Path, photos: int = 4, seed: int = 5, split: str = "val") -> Path:
    """Writes `photos` 640x480 photos of 2 to 5 dice with YOLO labels under root/split; returns root/split."""
    rng = random.Random(seed)
    (root / split / "images").mkdir(parents=True)
    (root / split / "labels").mkdir(parents=True)
    (root / "data.yaml").write_text("nc: 6\nnames: ['1', '2', '3', '4', '5', '6']\n")
    for n in range(photos):
        dice = []
        for i in range(rng.randint(2, 5)):
            x, y = 90 + 110 * i + rng.uniform(-10, 10), rng.uniform(120, 360)
            dice.append(
                DieSpec(
                    rng.randint(1, 6),
                    x,
                    y,
                    48.0,
                    angle=rng.uniform(0, 80),
                    body_bgr=(235, 235, 235),
                    pip_bgr=(25, 25, 25),
                )
            )
        frame = render(
            Scene(640, 480, background="felt", background_bgr=(50, 110, 40), dice=tuple(dice), seed=seed + n)
        ).frame
        cv2.imwrite(str(root / split / "images" / f"photo_{n}.png"), frame)
        lines = [f"{d.value - 1} {d.cx / 640:.6f} {d.cy / 480:.6f} {52 / 640:.6f} {52 / 480:.6f}" for d in dice]
        (root / split / "labels" / f"photo_{n}.txt").write_text("\n".join(lines) + "\n")
    return root / split

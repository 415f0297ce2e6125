import math

import cv2
import numpy as np
import pytest

from vision.read.crops import crop_die
from vision.synth.render import BACKGROUNDS, PIP_SHAPES, DieSpec, Effects, Scene, render
from vision.synth.scenes import random_scene


def one_die(die: DieSpec, background: str = "plain", **effects) -> Scene:
    return Scene(200, 200, background, (128, 128, 128), (die,), Effects(**effects), seed=3)


def count_pips(crop: np.ndarray) -> int:
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    _, dark = cv2.threshold(grey, 100, 255, cv2.THRESH_BINARY_INV)
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    return sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 4)


@pytest.mark.parametrize("shape", PIP_SHAPES)
@pytest.mark.parametrize("value", range(1, 7))
def test_top_face_shows_as_many_pips_as_its_value(value: int, shape: str) -> None:
    die = DieSpec(value, 100, 100, 80, angle=20, body_bgr=(240, 240, 240), pip_bgr=(10, 10, 10), pip_shape=shape)
    scene = render(one_die(die))
    crop = crop_die(scene.frame, scene.boxes[0], size=96, margin=-0.08)  # top face only
    assert count_pips(crop) == value


def test_boxes_and_values_follow_the_dice() -> None:
    dice = (DieSpec(2, 60, 50, 40, angle=30), DieSpec(5, 140, 150, 50, angle=0))
    scene = render(Scene(200, 200, "felt", (50, 110, 40), dice))
    assert scene.frame.shape == (200, 200, 3) and scene.frame.dtype == np.uint8
    assert scene.values == (2, 5)
    for die, box in zip(dice, scene.boxes):
        assert box.center == pytest.approx((die.cx, die.cy), abs=0.5)
        assert (box.w, box.h) == pytest.approx((die.size, die.size), abs=1.0)


def test_tilted_die_shows_a_side_and_a_bigger_outline() -> None:
    flat = render(one_die(DieSpec(3, 100, 100, 60, body_bgr=(0, 0, 220))))
    tilted = render(one_die(DieSpec(3, 100, 100, 60, tilt=35, body_bgr=(0, 0, 220))))
    assert tilted.boxes[0].w * tilted.boxes[0].h > flat.boxes[0].w * flat.boxes[0].h * 1.15

    # The side face is shaded: darker red pixels appear that the flat die does not have.
    def dark_red(frame: np.ndarray) -> int:
        return int(np.count_nonzero((frame[..., 2] > 60) & (frame[..., 2] < 180) & (frame[..., 0] < 40)))

    assert dark_red(tilted.frame) > dark_red(flat.frame) + 100


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_every_background_draws_and_is_reproducible(background: str) -> None:
    scene = Scene(160, 120, background, (90, 120, 150), (DieSpec(4, 80, 60, 30),), seed=11)
    first, second = render(scene).frame, render(scene).frame
    assert np.array_equal(first, second)
    assert first.std() > 1.0


def test_unknown_background_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown background"):
        render(Scene(50, 50, "marble"))


def test_camera_effects_change_the_frame_as_asked() -> None:
    die = DieSpec(6, 100, 100, 60)
    clean = render(one_die(die)).frame

    def sharpness(frame: np.ndarray) -> float:
        return float(cv2.Laplacian(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())

    assert sharpness(render(one_die(die, blur_sigma=2.0)).frame) < sharpness(clean) / 2
    streak = render(one_die(DieSpec(6, 100, 100, 60, motion_blur=15))).frame
    assert sharpness(streak) < sharpness(clean) / 2
    shadowed = render(one_die(die, shadow=0.6, shadow_offset=(0.3, 0.3))).frame
    assert shadowed[140, 140].mean() < clean[140, 140].mean() - 20
    noisy = render(one_die(die, noise_sigma=8)).frame
    assert np.abs(noisy.astype(int) - clean).mean() > 3


def test_random_scene_keeps_dice_apart_and_inside() -> None:
    scene = random_scene(np.random.default_rng(5), 640, 360, n_dice=6, die_size=(30, 40))
    assert len(scene.dice) == 6
    for i, a in enumerate(scene.dice):
        assert 0 < a.cx < 640 and 0 < a.cy < 360
        for b in scene.dice[i + 1 :]:
            assert math.hypot(a.cx - b.cx, a.cy - b.cy) > 1.5 * max(a.size, b.size)
    rendered = render(scene)
    assert len(rendered.boxes) == 6 and rendered.frame.shape == (360, 640, 3)

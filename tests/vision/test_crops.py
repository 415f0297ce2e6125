import numpy as np

from vision.read.crops import crop_dice, crop_die
from vision.synth.render import DieSpec, Scene, render
from vision.types import DieBox


def scene_of(value: int, angle: float) -> tuple[np.ndarray, DieBox]:
    die = DieSpec(value, 120, 100, 70, angle=angle, body_bgr=(230, 230, 230), pip_bgr=(20, 20, 20))
    rendered = render(Scene(240, 200, "plain", (100, 100, 100), (die,)))
    return rendered.frame, rendered.boxes[0]


def test_crop_turns_the_die_upright() -> None:
    upright = crop_die(*scene_of(5, 0.0)).astype(int)
    turned = crop_die(*scene_of(5, 37.0)).astype(int)
    other_face = crop_die(*scene_of(4, 0.0)).astype(int)
    assert np.abs(upright - turned).mean() < 8
    assert np.abs(upright - other_face).mean() > 2 * np.abs(upright - turned).mean()


def test_crop_at_the_frame_edge_and_of_tiny_boxes_has_the_full_size() -> None:
    frame = np.full((50, 60, 3), 77, np.uint8)
    crops = crop_dice(frame, [DieBox(0, 0, 30, 30, 10), DieBox(59, 49, 0.5, 0.5), DieBox(30, 25, 400, 300, 45)])
    assert crops.shape == (3, 32, 32, 3) and crops.dtype == np.uint8
    assert (crops == 77).all()
    assert crop_dice(frame, []).shape == (0, 32, 32, 3)


def test_large_die_is_smoothed_before_shrinking() -> None:
    frame = np.zeros((400, 400, 3), np.uint8)
    frame[::2] = 255  # stripes finer than one crop pixel must average to grey, not alias
    crop = crop_die(frame, DieBox(200, 200, 300, 300))
    assert abs(float(crop.mean()) - 127.5) < 15 and crop.std() < 20

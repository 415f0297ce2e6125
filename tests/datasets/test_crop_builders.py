"""The classifier's training crops: the library in vision.training and the scripts under datasets/ that write them."""

import shutil
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "datasets"))

import build_training_set  # noqa: E402
import extract_crops  # noqa: E402
import synthetic_crops  # noqa: E402

from vision.eval.labels import load_labelled_set  # noqa: E402
from vision.read.classifier import NOT_A_DIE  # noqa: E402
from vision.synth.render import DieSpec, Scene, render  # noqa: E402
from vision.training import detector_frames, frame_crops, photo_crops, rendered_crops  # noqa: E402
from vision.types import DieBox  # noqa: E402


@pytest.fixture
def yolo_set(tmp_path: Path) -> Path:
    dice = (DieSpec(2, 100, 120, 60), DieSpec(6, 300, 200, 70, angle=20))
    rendered = render(Scene(400, 300, "felt", (50, 110, 40), dice, seed=1))
    (tmp_path / "train" / "images").mkdir(parents=True)
    (tmp_path / "train" / "labels").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "train" / "images" / "a.jpg"), rendered.frame)
    lines = []
    for value, box in zip(rendered.values, rendered.boxes):
        x0, y0, x1, y1 = box.bounds()
        lines.append(f"{value - 1} {(x0 + x1) / 800} {(y0 + y1) / 600} {(x1 - x0) / 400} {(y1 - y0) / 300}")
    (tmp_path / "train" / "labels" / "a.txt").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_real_crops_follow_the_labels_at_every_scale(yolo_set: Path) -> None:
    photos = load_labelled_set(yolo_set, "train")
    assert [die.value for die in photos[0].dice] == [2, 6]
    assert photo_crops.die_box(photos[0].dice[0]).center == pytest.approx((100, 120), abs=1.5)
    assert photo_crops.die_box(photos[0].dice[0], die_side=40).w == 40
    data = photo_crops.extract(yolo_set, "train", scales=(0, 200), augment=3, negatives_per_die=0.5, seed=0)
    faces = data["labels"][data["labels"] < NOT_A_DIE]
    assert sorted(set(faces.tolist())) == [1, 5] and len(faces) == 2 * 3 * 2
    assert data["crops"].shape[1:] == (32, 32, 3) and len(data["crops"]) == len(data["labels"])
    assert set(data["scales"].tolist()) == {0, 200}
    again = photo_crops.extract(yolo_set, "train", scales=(0, 200), augment=3, negatives_per_die=0.5, seed=0)
    assert np.array_equal(data["crops"], again["crops"])


def test_the_script_writes_the_crops(yolo_set: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out" / "real.npz"
    assert (
        extract_crops.main([str(yolo_set), "--split", "train", "--scales", "0", "--seed", "0", "--out", str(out)]) == 0
    )
    with np.load(out) as written:
        assert sorted(set(written["labels"].tolist()) - {NOT_A_DIE}) == [1, 5]
    assert "crops from 1 photos" in capsys.readouterr().out


def test_missing_split_is_one_clear_message(yolo_set: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no split 'val'"):
        extract_crops.main([str(yolo_set), "--split", "val", "--out", str(tmp_path / "x.npz")])
    assert not (tmp_path / "x.npz").exists()


def test_synthetic_crops_are_reproducible_and_hold_every_class() -> None:
    data = rendered_crops.build(120, seed=3)
    assert data["crops"].shape == (120, 32, 32, 3)
    assert set(data["labels"].tolist()) == set(range(7))
    assert np.array_equal(rendered_crops.build(120, seed=3)["crops"], data["crops"])


def test_the_synthetic_script_writes_what_the_library_builds(tmp_path: Path, capsys) -> None:
    out = tmp_path / "synthetic.npz"
    assert synthetic_crops.main(["--count", "12", "--seed", "5", "--out", str(out)]) == 0
    with np.load(out) as written:
        assert np.array_equal(written["crops"], rendered_crops.build(12, seed=5)["crops"])
    assert "12 crops" in capsys.readouterr().out


def test_detector_frames_are_reproducible_and_index_their_dice() -> None:
    frames, boxes = detector_frames.build(3, seed=2, side=96, workers=1)
    assert frames.shape == (3, 96, 96, 3) and boxes.shape[1] == 5 and len(boxes) > 0
    assert set(boxes[:, 0].astype(int).tolist()) <= {0, 1, 2}
    assert ((boxes[:, 1:3] >= 0) & (boxes[:, 1:3] <= 96)).all()
    again_frames, again_boxes = detector_frames.build(3, seed=2, side=96, workers=1)
    assert np.array_equal(frames, again_frames) and np.array_equal(boxes, again_boxes)


def test_webcam_copies_add_crops_of_the_same_dice_with_a_webcams_colour(yolo_set: Path) -> None:
    plain = photo_crops.extract(yolo_set, "train", scales=(0, 200), augment=2, negatives_per_die=0.0, seed=0)
    both = photo_crops.extract(yolo_set, "train", scales=(0, 200), augment=2, negatives_per_die=0.0, seed=0, webcam=1.0)
    assert len(both["labels"]) == 2 * len(plain["labels"])
    assert sorted(both["labels"].tolist()) == sorted(2 * plain["labels"].tolist())
    assert set(both["scales"].tolist()) == {0, 200}
    # Without the share nothing changes, to the bit: the random draws are the same as before.
    again = photo_crops.extract(
        yolo_set, "train", scales=(0, 200), augment=2, negatives_per_die=0.0, seed=0, webcam=0.0
    )
    assert np.array_equal(plain["crops"], again["crops"])


def test_a_webcam_copy_is_noisy_and_loses_colour_detail_but_not_its_size() -> None:
    # Red dots two pixels wide on a dark grey die: a JPEG's colour at half resolution smears them.
    image = np.full((64, 64, 3), 60, np.uint8)
    image[::4, ::4] = (30, 30, 200)
    image[1::4, ::4] = (30, 30, 200)
    copy = photo_crops.webcam_copy(image, np.random.default_rng(0))
    assert copy.shape == image.shape and copy.dtype == np.uint8
    red = image[:, :, 2].astype(int) - image[:, :, 1]
    red_copy = copy[:, :, 2].astype(int) - copy[:, :, 1]
    assert red_copy[::4, ::4].mean() < 0.8 * red[::4, ::4].mean()
    assert not np.array_equal(photo_crops.webcam_copy(image, np.random.default_rng(1)), copy)


def test_the_script_refuses_a_webcam_share_outside_0_to_1(yolo_set: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--webcam is a share"):
        extract_crops.main([str(yolo_set), "--webcam", "2", "--out", str(tmp_path / "x.npz")])
    assert not (tmp_path / "x.npz").exists()


def test_a_die_leaning_away_from_the_camera_shows_its_side_faces_below_its_top_face() -> None:
    # The convention the kept-up crops rely on: the lit top face above, the shaded side below.
    die = DieSpec(1, 100, 100, 80, tilt=35, tilt_direction=rendered_crops.AWAY_FROM_CAMERA, body_bgr=(235, 235, 235))
    rendered = render(Scene(200, 200, "felt", (40, 110, 40), (die,), seed=1))
    x0, y0, x1, y1 = (int(v) for v in rendered.boxes[0].bounds())
    grey = cv2.cvtColor(rendered.frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(float)
    upper, lower = grey[: len(grey) // 3], grey[-len(grey) // 3 :]
    assert upper.mean() > lower.mean() + 20


def test_kept_up_photo_crops_turn_only_a_little() -> None:
    box = DieBox(50, 50, 30, 30, 0.0)
    rng = np.random.default_rng(0)
    kept = np.array([photo_crops.jittered(box, rng, keep_up=True).angle for _ in range(400)])
    spun = np.array([photo_crops.jittered(box, rng).angle for _ in range(400)])
    assert np.abs(kept).max() < 5 * photo_crops.TURN_SPREAD and 5 < kept.std() < 15
    assert spun.min() < 30 and spun.max() > 330


def test_kept_up_rendered_crops_are_reproducible_and_differ_from_the_turned_ones(tmp_path: Path) -> None:
    kept = rendered_crops.build(40, seed=4, keep_up=True)
    assert np.array_equal(rendered_crops.build(40, seed=4, keep_up=True)["crops"], kept["crops"])
    assert not np.array_equal(rendered_crops.build(40, seed=4)["crops"], kept["crops"])
    out = tmp_path / "kept.npz"
    assert synthetic_crops.main(["--count", "40", "--seed", "4", "--keep-up", "--out", str(out)]) == 0
    with np.load(out) as written:
        assert np.array_equal(written["crops"], kept["crops"])


def test_steep_from_keeps_the_shipped_lean_before_it_and_the_labels_everywhere(tmp_path: Path) -> None:
    steep = {"steep_tilt": (15.0, 65.0), "side_tilt": (75.0, 85.0), "steep_min_size": 40.0}
    shipped = rendered_crops.build(24, seed=6, keep_up=True)
    leaning = rendered_crops.build(24, seed=6, keep_up=True, **steep)
    assert not np.array_equal(shipped["crops"], leaning["crops"])
    mixed = rendered_crops.build(24, seed=6, keep_up=True, steep_from=12, **steep)
    assert np.array_equal(mixed["crops"][:12], shipped["crops"][:12])
    assert np.array_equal(mixed["crops"][12:], leaning["crops"][12:])
    assert np.array_equal(mixed["labels"], shipped["labels"]) and np.array_equal(mixed["labels"], leaning["labels"])
    out = tmp_path / "mixed.npz"
    args = ["--count", "24", "--seed", "6", "--keep-up", "--steep-tilt", "15", "65", "--side-tilt", "75", "85"]
    assert synthetic_crops.main([*args, "--steep-min-size", "40", "--steep-from", "12", "--out", str(out)]) == 0
    with np.load(out) as written:
        assert np.array_equal(written["crops"], mixed["crops"])


def test_the_script_cuts_kept_up_crops(yolo_set: Path, tmp_path: Path) -> None:
    out = tmp_path / "kept.npz"
    args = [str(yolo_set), "--scales", "0", "--augment", "2", "--seed", "0", "--out", str(out)]
    assert extract_crops.main([*args, "--keep-up"]) == 0
    kept = photo_crops.extract(yolo_set, "train", (0,), 2, 0.3, 0, keep_up=True)
    with np.load(out) as written:
        assert np.array_equal(written["crops"], kept["crops"])
    assert not np.array_equal(kept["crops"], photo_crops.extract(yolo_set, "train", (0,), 2, 0.3, 0)["crops"])


def test_frame_crops_cut_the_labelled_dice_of_the_detectors_frames_reproducibly() -> None:
    data = frame_crops.build(6, seed=2, side=160, workers=1)
    assert data["crops"].shape[1:] == (32, 32, 3) and len(data["crops"]) == len(data["labels"]) > 0
    assert set(data["labels"].tolist()) <= set(range(7))
    again = frame_crops.build(6, seed=2, side=160, workers=1)
    assert np.array_equal(data["crops"], again["crops"]) and np.array_equal(data["labels"], again["labels"])


def test_frame_crops_show_each_labelled_die_of_a_frame_and_a_negative_away_from_them(monkeypatch) -> None:
    from vision.synth.domain import SceneSample

    frame = np.full((200, 200, 3), 90, np.uint8)
    cv2.rectangle(frame, (40, 40), (80, 80), (240, 240, 240), -1)
    sample = SceneSample(
        frame, np.array([[60.0, 60.0], [150.0, 150.0]], np.float32), np.array([[40.0, 40.0], [8.0, 8.0]], np.float32),
        np.array([5, 2]),
    )  # fmt: skip
    monkeypatch.setattr(frame_crops, "random_sample", lambda rng, width, height: sample)
    monkeypatch.setattr(frame_crops, "NEGATIVE_SHARE", 0.25)  # a negative in every frame
    data = frame_crops.build(1, seed=0, side=200, workers=1)
    # The 8-pixel die is too small to cut; the negative is bare table, the die's crop is not.
    assert data["labels"].tolist() == [4, NOT_A_DIE]
    assert data["crops"][0].std() > 20 and data["crops"][1].std() < 1


def test_the_frame_crops_script_writes_what_the_library_builds(tmp_path: Path, capsys) -> None:
    import frame_crops as frame_crops_script

    out = tmp_path / "frame_crops.npz"
    assert frame_crops_script.main(["--frames", "3", "--seed", "4", "--workers", "1", "--out", str(out)]) == 0
    with np.load(out) as written:
        assert np.array_equal(written["crops"], frame_crops.build(3, seed=4, workers=1)["crops"])
    assert "crops, per class" in capsys.readouterr().out


def test_rendered_crops_lean_as_far_as_asked_and_the_script_passes_it_on(tmp_path: Path) -> None:
    kept = rendered_crops.build(40, seed=4, keep_up=True)
    # The ranges as they are change nothing, to the bit: the random draws are the same.
    same = rendered_crops.build(40, seed=4, keep_up=True, steep_tilt=rendered_crops.STEEP_TILT)
    assert np.array_equal(same["crops"], kept["crops"])
    steeper = rendered_crops.build(40, seed=4, keep_up=True, steep_tilt=(60.0, 70.0), side_tilt=(78.0, 85.0))
    assert np.array_equal(steeper["labels"], kept["labels"])
    changed = (steeper["crops"] != kept["crops"]).any(axis=(1, 2, 3))
    # Only the steeper half of the dice and the dice seen from the side are drawn anew.
    assert 0 < changed.sum() < len(changed)
    # Dice under the size keep the shipped range: with every die under it, only the side views change.
    big_only = rendered_crops.build(
        40, seed=4, keep_up=True, steep_tilt=(60.0, 70.0), side_tilt=(78.0, 85.0), steep_min_size=1000.0
    )
    side_only = rendered_crops.build(40, seed=4, keep_up=True, side_tilt=(78.0, 85.0))
    assert np.array_equal(big_only["crops"], side_only["crops"])
    # With the side views held to their size as well, every die under it is drawn as shipped.
    all_small = rendered_crops.build(
        40,
        seed=4,
        keep_up=True,
        steep_tilt=(60.0, 70.0),
        side_tilt=(78.0, 85.0),
        steep_min_size=1000.0,
        side_min_size=1000.0,
    )
    assert np.array_equal(all_small["crops"], kept["crops"])
    out = tmp_path / "steep.npz"
    args = ["--count", "40", "--seed", "4", "--keep-up", "--steep-tilt", "60", "70", "--side-tilt", "78", "85"]
    assert synthetic_crops.main([*args, "--out", str(out)]) == 0
    with np.load(out) as written:
        assert np.array_equal(written["crops"], steeper["crops"])
    assert synthetic_crops.main([*args, "--steep-min-size", "1000", "--out", str(out)]) == 0
    with np.load(out) as written:
        assert np.array_equal(written["crops"], big_only["crops"])
    assert synthetic_crops.main([*args, "--steep-min-size", "1000", "--side-min-size", "1000", "--out", str(out)]) == 0
    with np.load(out) as written:
        assert np.array_equal(written["crops"], kept["crops"])


def test_the_whole_build_skips_the_plain_rendered_set_when_asked(yolo_set: Path, tmp_path: Path) -> None:
    data = tmp_path / "shared" / "nellbyler-d6"
    for split in ("train", "val", "test"):
        shutil.copytree(yolo_set / "train", data / split)
    out = tmp_path / "build"
    common = ["--data", str(data), "--out", str(out), "--synthetic", "8", "--keep-up"]
    assert build_training_set.main([*common, "--no-plain"]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert written == ["real_test.npz", "real_train.npz", "real_val.npz", "synthetic_mix.npz"]
    assert build_training_set.main(common) == 0
    assert (out / "synthetic.npz").exists()
    with np.load(out / "synthetic.npz") as plain, np.load(out / "synthetic_mix.npz") as mix:
        # the mix's first half is the plain set's; the steeper lean starts halfway
        assert np.array_equal(plain["crops"][:4], mix["crops"][:4])
        assert not np.array_equal(plain["crops"][4:], mix["crops"][4:])

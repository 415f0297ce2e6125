"""Camera-sized frames for timing the live reader: clean crops, or photos filmed as the test videos do."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from rendered_photo_set import write_photo_set

from benchmarks.live_frames import camera_frame, main
from vision.images import load_image


@pytest.fixture(scope="module")
def photo_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_photo_set(tmp_path_factory.mktemp("photos") / "set", photos=3, split="train").parent


def frames_in(folder: Path) -> dict[str, np.ndarray]:
    return {path.name: cv2.imread(str(path)) for path in sorted(folder.glob("*.png"))}


def test_clean_frames_are_the_photos_cut_to_the_camera_size(photo_set: Path, tmp_path: Path) -> None:
    assert main([str(photo_set), "--count", "2", "--out", str(tmp_path)]) == 0
    written = frames_in(tmp_path)
    assert list(written) == ["photo_0.png", "photo_1.png"]
    for name, frame in written.items():
        photo = load_image(photo_set / "train" / "images" / name)
        assert np.array_equal(frame, camera_frame(photo))


def test_webcam_frames_place_each_photo_and_film_it_the_same_way_for_a_seed(photo_set: Path, tmp_path: Path) -> None:
    runs = {}
    for run, seed in (("a", 4), ("b", 4), ("c", 5)):
        assert (
            main([str(photo_set), "--count", "2", "--webcam", "--seed", str(seed), "--out", str(tmp_path / run)]) == 0
        )
        runs[run] = frames_in(tmp_path / run)
    assert list(runs["a"]) == ["photo_0.png", "photo_1.png"]
    for name, frame in runs["a"].items():
        assert frame.shape == (720, 1280, 3)
        assert np.array_equal(frame, runs["b"][name])  # the seed decides the placing and the noise
        assert not np.array_equal(frame, runs["c"][name])
        # the 640x480 photo is enlarged into the frame, not cut: its dice stay whole, and noisy
        assert not np.array_equal(frame, camera_frame(load_image(photo_set / "train" / "images" / name)))
        assert float(np.std(frame[:20, :20].astype(np.float32))) > 0.5 or float(np.std(frame[-20:, -20:])) > 0.5


def test_a_count_below_one_is_refused(photo_set: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main([str(photo_set), "--count", "0", "--out", str(tmp_path)])
    assert not any(tmp_path.iterdir())

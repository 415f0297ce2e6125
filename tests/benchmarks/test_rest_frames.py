"""The reader scored on the still middle frames of generated videos' rests."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from rendered_photo_set import write_photo_set

from benchmarks.rest_frames import main, middle_frames, photos_tag, score_rests
from benchmarks.rest_videos import HEIGHT, WIDTH, VideoTruth, labelled_photos, make_video
from vision.eval.evaluate import Evaluation
from vision.read.reader import DiceReader


@pytest.fixture(scope="module")
def photo_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_photo_set(tmp_path_factory.mktemp("photos") / "set")


@pytest.fixture(scope="module")
def video(photo_set: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, VideoTruth]:
    path = tmp_path_factory.mktemp("video") / "rests.avi"
    return path, make_video(labelled_photos([photo_set]), path, rests=3, seed=7)


def test_one_middle_frame_for_each_rest(video: tuple[Path, VideoTruth]) -> None:
    path, truth = video
    frames = middle_frames(path, truth)
    assert len(frames) == len(truth.rests) == 3
    assert all(frame.shape == (HEIGHT, WIDTH, 3) for frame in frames)


def test_a_truth_longer_than_its_video_is_an_error(video: tuple[Path, VideoTruth]) -> None:
    path, truth = video
    late = replace(truth.rests[-1], start=truth.frames + 10, end=truth.frames + 20)
    with pytest.raises(OSError, match="ends before"):
        middle_frames(path, replace(truth, rests=(*truth.rests[:-1], late)))


def test_plain_dice_on_felt_are_read_right_in_every_rest(video: tuple[Path, VideoTruth]) -> None:
    path, truth = video
    evaluation = Evaluation()
    score_rests(DiceReader(mode="pips"), path, truth, evaluation)
    summary = evaluation.summary()
    assert summary["images"] == 3
    assert summary["labelled_dice"] == sum(len(rest.values) for rest in truth.rests)
    assert summary["accuracy"] == summary["precision"] == summary["exact_throws"] == 1.0


def test_a_reader_that_sees_nothing_scores_nothing(video: tuple[Path, VideoTruth]) -> None:
    class Blind:
        def detect(self, frame: object) -> list[object]:
            return []

    path, truth = video
    evaluation = Evaluation()
    score_rests(DiceReader(mode="pips", detector=Blind()), path, truth, evaluation)  # type: ignore[arg-type]
    assert evaluation.summary()["accuracy"] == 0.0 and evaluation.reported == 0


def test_the_command_prints_one_json_line_and_reuses_kept_videos(
    photo_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(photo_set), "--rests", "2", "--videos", "1", "--seed", "3", "--keep", str(tmp_path), "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    name = f"rests_3_2_{photos_tag([str(photo_set)])}.avi"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name, f"{name}.json"]
    stamp = (tmp_path / name).stat().st_mtime_ns
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert (tmp_path / name).stat().st_mtime_ns == stamp
    assert first["rests"] == 2 and first["per_die"] == 100.0


def test_videos_kept_from_other_photos_are_not_taken_for_these(
    photo_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = write_photo_set(tmp_path / "other", seed=11)
    kept = tmp_path / "kept"
    for photos in (photo_set, other):
        assert main([str(photos), "--rests", "2", "--videos", "1", "--seed", "3", "--keep", str(kept), "--json"]) == 0
    assert len(list(kept.glob("*.avi"))) == 2
    assert photos_tag([str(photo_set)]) != photos_tag([str(other)])
    assert photos_tag([str(photo_set)]) == photos_tag([str(photo_set) + "/"])

"""What a webcam costs the reader, step by step, on a small rendered photo set."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rendered_photo_set import write_photo_set

from benchmarks.rest_videos import HEIGHT, WIDTH, labelled_photos
from benchmarks.webcam_costs import Losses, main, steps, tally
from vision.eval.evaluate import Evaluation
from vision.read.reader import DiceReader


@pytest.fixture(scope="module")
def photo_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_photo_set(tmp_path_factory.mktemp("photos") / "set", photos=3)


def test_each_step_adds_one_thing_to_the_one_before(photo_set: Path) -> None:
    photo = labelled_photos([photo_set])[0]
    shown = steps(photo, seed=1, qualities=(90, 70))
    assert [name for name, _, _ in shown] == [
        "photo, long side 1280",
        "in a 1280x720 frame",
        "+ sensor noise",
        "+ JPEG quality 90",
        "+ JPEG quality 70",
    ]
    (_, still, still_labels), (_, pasted, labels), (_, noisy, _), (_, q90, _), (_, q70, _) = shown
    assert still.shape == (480, 640, 3) and [d.box for d in still_labels] == [d.box for d in photo.dice]
    assert pasted.shape == noisy.shape == q90.shape == q70.shape == (HEIGHT, WIDTH, 3)
    # Pasted smaller than the frame's height allows, and the labels moved with the photo.
    for die, moved in zip(photo.dice, labels):
        assert 0 <= moved.box[0] < moved.box[2] <= WIDTH and 0 <= moved.box[1] < moved.box[3] <= HEIGHT
        assert (moved.box[2] - moved.box[0]) / (die.box[2] - die.box[0]) == pytest.approx(1.5 * 0.925, abs=0.12)
    assert 0 < np.abs(noisy.astype(int) - pasted).mean() < 5
    assert np.abs(q70.astype(int) - noisy).mean() > np.abs(q90.astype(int) - noisy).mean()


def test_plain_dice_lose_nothing_and_a_blind_reader_finds_nothing(photo_set: Path) -> None:
    photo = labelled_photos([photo_set])[0]
    _, frame, labels = steps(photo, seed=1, qualities=())[1]

    class Blind:
        def detect(self, frame: object) -> list[object]:
            return []

    for reader, expected in (
        (DiceReader(mode="pips"), Losses()),
        (DiceReader(mode="pips", detector=Blind()), Losses(not_found=len(labels))),  # type: ignore[arg-type]
    ):
        evaluation, losses = Evaluation(), Losses()
        tally(reader, frame, labels, evaluation, losses)
        assert losses == expected
        assert evaluation.summary()["labelled_dice"] == len(labels)


def test_the_command_prints_one_line_a_step(photo_set: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(photo_set), "--limit", "2", "--quality", "80", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["step"] for row in rows] == [
        "photo, long side 1280",
        "in a 1280x720 frame",
        "+ sensor noise",
        "+ JPEG quality 80",
    ]
    for row in rows:
        assert row["photos"] == 2
        lost = row["not_found"] + row["dropped"] + row["misread"]
        assert lost == round(row["labelled_dice"] * (1 - row["per_die"] / 100))


def test_a_quality_out_of_range_is_refused(photo_set: Path) -> None:
    with pytest.raises(SystemExit):
        main([str(photo_set), "--quality", "0"])

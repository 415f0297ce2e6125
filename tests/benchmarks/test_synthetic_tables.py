"""Rendered tables read as a regression check, and the empty ones alone."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks.synthetic_tables import labelled_frames, main

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_frames_are_labelled_and_reproducible() -> None:
    first = labelled_frames(3, seed=5, width=320, height=240)
    again = labelled_frames(3, seed=5, width=320, height=240)
    assert len(first) == 3
    assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(first, again))
    for frame, labels in first:
        assert frame.shape == (240, 320, 3)
        for die in labels:
            x0, y0, x1, y1 = die.box
            assert 1 <= die.value <= 6 and x0 < x1 and y0 < y1


def test_empty_only_keeps_the_first_frames_without_a_die() -> None:
    everything = labelled_frames(40, seed=11, width=160, height=120)
    empties = [frame for frame, labels in everything if not labels]
    assert empties, "seed 11 should draw an empty table among its first 40 frames"
    only = labelled_frames(len(empties), seed=11, width=160, height=120, empty_only=True)
    assert all(not labels for _, labels in only)
    assert all(np.array_equal(a, b) for a, (b, _) in zip(empties, only))


def test_the_command_counts_dice_reported_on_empty_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--frames", "2", "--seed", "11", "--empty-only", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["empty_tables"] == 2 and result["labelled_dice"] == 0
    assert isinstance(result["dice_reported_on_empty_tables"], int)


@pytest.mark.parametrize("dice", [1, 3])
def test_every_table_gets_the_dice_asked_for(dice: int) -> None:
    frames = labelled_frames(12, seed=3, width=320, height=240, dice=dice)
    counts = [len(labels) for _, labels in frames]
    # A die that lands leaning shows no top face and is not labelled; none is ever added.
    assert max(counts) == dice
    assert sum(count == dice for count in counts) >= len(frames) // 2


@pytest.mark.parametrize("args", [["--dice", "-1"], ["--dice", "2", "--empty-only"]])
def test_a_number_of_dice_that_cannot_be_drawn_is_refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["--frames", "1", *args])
    assert refused.value.code == 2
    assert "--dice" in capsys.readouterr().err


def test_each_pair_reads_the_same_tables_as_a_run_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    shipped = [str(MODELS / "dice_detector.onnx"), str(MODELS / "die_face.onnx")]
    unseen = [str(MODELS / "lodo" / "without_aws_detector.onnx"), str(MODELS / "lodo" / "without_aws_classifier.onnx")]
    drawn = ["--frames", "2", "--seed", "7001", "--json"]
    assert main([*drawn, "--pair", *shipped, "--pair", *unseen]) == 0
    both = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["detector_model"], r["classifier_model"]) for r in both] == [tuple(shipped), tuple(unseen)]
    for models, result in zip((shipped, unseen), both):
        assert main([*drawn, "--detector-model", models[0], "--classifier-model", models[1]]) == 0
        alone = json.loads(capsys.readouterr().out)
        assert {key: result[key] for key in alone} == alone


@pytest.mark.parametrize(
    "args",
    [
        ["--pair", "a.onnx", "b.onnx", "--detector-model", "a.onnx"],
        ["--pair", "missing_detector.onnx", "missing_classifier.onnx"],
    ],
)
def test_pairs_that_cannot_be_read_are_refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["--frames", "1", *args])
    assert refused.value.code == 2
    assert capsys.readouterr().err.strip()

"""The leave-one-set-out models the benchmarks read unseen tables with."""

from __future__ import annotations

import pytest

from benchmarks import rest_bench
from benchmarks.lodo import LEFT_OUT, MODELS, lodo_reader
from vision.read.detect import DiceDetector
from vision.read.reader import LIVE, DiceReader


@pytest.mark.parametrize("left_out", LEFT_OUT)
def test_each_left_out_set_has_its_pair_of_models(left_out: str) -> None:
    reader = lodo_reader(left_out)
    assert isinstance(reader, DiceReader) and reader.settings == LIVE
    assert isinstance(reader.detector, DiceDetector)
    assert reader.detector.path == MODELS / f"without_{left_out}_detector.onnx"


def test_every_committed_pair_is_known() -> None:
    pairs = {
        path.name.removeprefix("without_").removesuffix("_detector.onnx") for path in MODELS.glob("*_detector.onnx")
    }
    assert pairs == set(LEFT_OUT)


def test_an_unknown_set_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="known: aws, matteop65, nellbyler"):
        lodo_reader("granite")


def test_rest_bench_refuses_an_unknown_set_before_making_a_video(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        rest_bench.main(["somewhere", "--without", "granite"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'granite'" in capsys.readouterr().err

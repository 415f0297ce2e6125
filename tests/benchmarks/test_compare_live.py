"""The live reader timed beside the classic blob reader, with the dice it looks at closely."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from benchmarks.compare_live import main
from vision.live.settle import default_reader
from vision.read.models import default_model_path
from vision.read.reader import DiceReader
from vision.synth.render import DieSpec, Scene, render


def test_json_gives_both_medians_and_the_dice_looked_at_per_frame(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dice = (DieSpec(3, 400.0, 300.0, 70.0), DieSpec(5, 700.0, 380.0, 70.0, angle=20.0))
    frame = render(Scene(1280, 720, background="felt", dice=dice, seed=6)).frame
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frame)
    assert main(["--repeat", "1", "--rounds", "1", "--json", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["median_ms"]) == {"live", "classic"} and all(ms > 0 for ms in result["median_ms"].values())
    assert result["frames"] == 1 and result["reads_each"] == 1
    live = default_reader()
    assert isinstance(live, DiceReader)
    looked = sum(item.pips_looked_for for item in live.inspect(frame))
    assert result["live_pips_looked_for_per_frame"] == looked


@pytest.mark.parametrize(
    "option",
    [
        "--always-coarse",  # the coarse look taken on every frame
        "--no-near-misses",  # without looking again at the detector's near misses
        "--network",  # the detector's network alone
    ],
)
def test_the_live_reader_can_also_be_timed_another_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    frame = render(Scene(1280, 720, background="wood", dice=(DieSpec(6, 500.0, 330.0, 80.0),), seed=2)).frame
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frame)
    assert main(["--repeat", "1", "--rounds", "1", option, "--json", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["median_ms"]) == {"live", "classic", option.removeprefix("--")}
    assert all(ms > 0 for ms in result["median_ms"].values())


def test_another_classifier_is_timed_beside_the_shipped_one_and_a_missing_one_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = render(Scene(1280, 720, background="felt", dice=(DieSpec(2, 640.0, 360.0, 80.0),), seed=4)).frame
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frame)
    baseline = default_model_path("die_face.onnx")
    assert main(["--repeat", "1", "--rounds", "1", "--classifier-model", str(baseline), "--json", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["median_ms"]) == {"live", "classic", "live, die_face"}
    with pytest.raises(SystemExit) as refused:
        main(["--classifier-model", str(tmp_path / "gone.onnx"), str(path)])
    assert refused.value.code == 2
    assert "not found" in capsys.readouterr().err

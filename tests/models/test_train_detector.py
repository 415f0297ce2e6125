"""The detector's training script: its step budget (needs the `train` extra)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from models.train_detector import main, progress_of  # noqa: E402
from vision.read.detect import DiceDetector  # noqa: E402
from vision.training.detector_frames import build  # noqa: E402


def test_progress_runs_on_steps_when_a_step_budget_is_given() -> None:
    assert progress_of(step=50, seconds=9999.0, minutes=1.0, steps=200) == 0.25
    assert progress_of(step=50, seconds=30.0, minutes=1.0, steps=None) == 0.5


def test_a_step_budget_trains_that_many_steps_and_the_same_model_twice(tmp_path: Path) -> None:
    frames, boxes = build(4, 3, 320, 1)
    synthetic = tmp_path / "frames.npz"
    np.savez(synthetic, frames=frames, boxes=boxes)
    no_photos = tmp_path / "no_photos"
    no_photos.mkdir()
    models = []
    for run in range(2):
        out = tmp_path / f"detector{run}.onnx"
        argv = ["--steps", "3", "--batch", "4", "--synthetic", str(synthetic), "--data", str(no_photos)]
        assert main([*argv, "--out", str(out)]) == 0
        info = json.loads(out.with_suffix(".json").read_text())
        assert info["steps"] == 3 and info["step_budget"] == 3
        models.append(out.read_bytes())
    assert models[0] == models[1]  # one thread and a step budget: the run can be repeated
    assert isinstance(DiceDetector(out).detect(np.zeros((240, 320, 3), np.uint8)), list)


def test_a_step_budget_below_one_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--steps", "0"])
    assert stopped.value.code == 2
    assert "--steps must be at least 1" in capsys.readouterr().err

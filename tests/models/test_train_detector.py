"""The detector's training script: its step budget, its checkpoint and its teacher (needs the `train` extra)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import torch  # noqa: E402

import models.train_detector as train_detector  # noqa: E402
from models import checkpoints  # noqa: E402
from models.train_detector import distillation_loss, load_domain, main, progress_of  # noqa: E402
from vision.read.detect import DiceDetector  # noqa: E402
from vision.read.models import default_model_path  # noqa: E402
from vision.training.detector_frames import build  # noqa: E402


def test_progress_runs_on_steps_when_a_step_budget_is_given() -> None:
    assert progress_of(step=50, seconds=9999.0, minutes=1.0, steps=200) == 0.25
    assert progress_of(step=50, seconds=30.0, minutes=1.0, steps=None) == 0.5


@pytest.fixture
def tiny_run(tmp_path: Path) -> list[str]:
    """The arguments of a short run on four rendered frames and no photos."""
    frames, boxes = build(4, 3, 320, 1)
    synthetic = tmp_path / "frames.npz"
    np.savez(synthetic, frames=frames, boxes=boxes)
    no_photos = tmp_path / "no_photos"
    no_photos.mkdir()
    return ["--batch", "4", "--synthetic", str(synthetic), "--data", str(no_photos)]


def test_a_step_budget_trains_that_many_steps_and_the_same_model_twice(tmp_path: Path, tiny_run: list[str]) -> None:
    models = []
    for run in range(2):
        out = tmp_path / f"detector{run}.onnx"
        assert main(["--steps", "3", *tiny_run, "--out", str(out)]) == 0
        info = json.loads(out.with_suffix(".json").read_text())
        assert info["steps"] == 3 and info["step_budget"] == 3
        models.append(out.read_bytes())
    assert models[0] == models[1]  # one thread and a step budget: the run can be repeated
    assert isinstance(DiceDetector(out).detect(np.zeros((240, 320, 3), np.uint8)), list)


def _weights(model: Path) -> list[np.ndarray]:
    import onnx
    from onnx import numpy_helper

    return [numpy_helper.to_array(t) for t in onnx.load(str(model)).graph.initializer]


def test_a_stopped_training_goes_on_from_its_checkpoint_to_the_same_model(
    tmp_path: Path, tiny_run: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(train_detector, "CHECKPOINT_STEPS", 2)
    args = ["--steps", "5", *tiny_run]
    straight = tmp_path / "straight.onnx"
    assert main([*args, "--out", str(straight)]) == 0

    checkpoint = tmp_path / "trial.pt"
    save = train_detector.save_checkpoint

    def save_then_stop(*saved: object) -> None:
        save(*saved)  # type: ignore[arg-type]
        if saved[1].step == 4:  # type: ignore[attr-defined]
            raise KeyboardInterrupt  # killed after its fourth step

    monkeypatch.setattr(train_detector, "save_checkpoint", save_then_stop)
    resumed = tmp_path / "resumed.onnx"
    with pytest.raises(KeyboardInterrupt):
        main([*args, "--checkpoint", str(checkpoint), "--out", str(resumed)])
    assert checkpoint.exists() and not resumed.exists()
    assert main([*args, "--checkpoint", str(checkpoint), "--out", str(resumed)]) == 0

    assert not checkpoint.exists()
    for ours, theirs in zip(_weights(resumed), _weights(straight), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    info, unbroken = (json.loads(p.with_suffix(".json").read_text()) for p in (resumed, straight))
    assert info["steps"] == 5 and info["final_loss"] == pytest.approx(unbroken["final_loss"], rel=1e-4)


def _stopped_with_a_checkpoint(
    tmp_path: Path, tiny_run: list[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], Path, bytes]:
    """A tiny run stopped just before its export: its arguments, checkpoint and the bytes saved."""
    monkeypatch.setattr(train_detector, "CHECKPOINT_STEPS", 1)
    checkpoint = tmp_path / "trial.pt"
    args = ["--steps", "2", *tiny_run, "--checkpoint", str(checkpoint)]
    monkeypatch.setattr(train_detector, "export", lambda net, path: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        main([*args, "--out", str(tmp_path / "a.onnx")])
    return args, checkpoint, checkpoint.read_bytes()


def test_a_checkpoint_of_other_settings_is_refused_and_kept(
    tmp_path: Path, tiny_run: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args, checkpoint, saved = _stopped_with_a_checkpoint(tmp_path, tiny_run, monkeypatch)
    with pytest.raises(SystemExit, match=r"other settings \(constant_lr, lr, seed\)"):
        main([*args, "--seed", "5", "--lr", "1e-3", "--constant-lr", "--out", str(tmp_path / "b.onnx")])
    assert checkpoint.read_bytes() == saved and not (tmp_path / "b.onnx").exists()


def test_a_checkpoint_of_a_setting_the_script_no_longer_has_names_it(
    tmp_path: Path, tiny_run: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(train_detector, "RECIPE", (*train_detector.RECIPE, "mosaic"))
    monkeypatch.setattr(checkpoints, "recipe", lambda parsed, names: {n: str(getattr(parsed, n, "0.5")) for n in names})
    args, checkpoint, saved = _stopped_with_a_checkpoint(tmp_path, tiny_run, monkeypatch)
    monkeypatch.setattr(train_detector, "RECIPE", train_detector.RECIPE[:-1])
    with pytest.raises(SystemExit, match=r"other settings \(mosaic\)"):
        main([*args, "--out", str(tmp_path / "b.onnx")])
    assert checkpoint.read_bytes() == saved


def test_a_file_that_is_no_checkpoint_is_refused_and_kept(tmp_path: Path, tiny_run: list[str]) -> None:
    checkpoint = tmp_path / "trial.pt"
    checkpoint.write_bytes(b"not a checkpoint")
    with pytest.raises(SystemExit, match="is not a checkpoint of this script"):
        main(["--steps", "2", *tiny_run, "--checkpoint", str(checkpoint), "--out", str(tmp_path / "a.onnx")])
    assert checkpoint.read_bytes() == b"not a checkpoint" and not (tmp_path / "a.onnx").exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--steps", "0"], "--steps must be at least 1"),
        (["--narrow", "--wide"], "not allowed with"),
    ],
    ids=["a step budget below one", "narrow and wide together"],
)
def test_bad_arguments_are_refused(arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(arguments)
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_a_net_that_answers_as_its_teacher_does_has_no_distillation_loss() -> None:
    torch.manual_seed(0)
    taught = torch.randn(2, 5, 12, 12)
    taught[:, 0, 3, 4] = 4.0  # one cell the teacher is sure holds a die
    assert abs(float(distillation_loss(taught, taught))) < 1e-4
    for change in (torch.tensor([1.0, 0, 0, 0, 0]), torch.tensor([0, 0.5, 0, 0, 0]), torch.tensor([0, 0, 0, 0.3, 0])):
        other = taught + change[None, :, None, None]
        assert float(distillation_loss(other, taught)) > 1e-3


def test_a_run_with_a_teacher_records_it_and_exports_a_detector(tmp_path: Path, tiny_run: list[str]) -> None:
    out = tmp_path / "narrow.onnx"
    teacher = default_model_path("dice_detector.onnx")
    assert main(["--steps", "2", *tiny_run, "--narrow", "--teacher", str(teacher), "--out", str(out)]) == 0
    info = json.loads(out.with_suffix(".json").read_text())
    assert info["teacher"] == str(teacher) and info["steps"] == 2
    assert isinstance(DiceDetector(out).detect(np.zeros((240, 320, 3), np.uint8)), list)


def test_a_wide_run_exports_a_detector_of_the_wider_widths(tmp_path: Path, tiny_run: list[str]) -> None:
    import onnx

    out = tmp_path / "wide.onnx"
    assert main(["--steps", "1", *tiny_run, "--wide", "--out", str(out)]) == 0
    info = json.loads(out.with_suffix(".json").read_text())
    assert info["widths"] == {"channels": [32, 32, 64, 128, 192], "head": 32}
    graph = onnx.load(str(out)).graph
    stem = next(node for node in graph.node if node.op_type == "Conv")
    weights = {item.name: item for item in graph.initializer}
    assert list(weights[stem.input[1]].dims)[:2] == [32, 3]
    assert isinstance(DiceDetector(out).detect(np.zeros((240, 320, 3), np.uint8)), list)


def test_the_dice_a_set_leaves_unlabelled_are_left_out_of_the_loss(tmp_path: Path) -> None:
    root = tmp_path / "nellbyler-d6"
    (root / "train" / "images").mkdir(parents=True)
    (root / "train" / "labels").mkdir(parents=True)
    cv2.imwrite(str(root / "train" / "images" / "a.jpg"), np.zeros((1000, 2000, 3), np.uint8))
    (root / "train" / "labels" / "a.txt").write_text("0 0.5 0.5 0.05 0.1\n")
    (root / "unclear_boxes.csv").write_text("split,image,xc,yc,w,h\ntrain,a.jpg,0.9,0.5,0.1,0.2\n")
    (photo,) = load_domain(tmp_path, "nellbyler")
    # The photo is kept at 1024 px on its long side, the box with it.
    assert photo.image.shape[:2] == (512, 1024)
    assert photo.ignore.shape == (1, 4)
    assert photo.ignore[0].tolist() == pytest.approx([870.4, 204.8, 972.8, 307.2], abs=0.01)

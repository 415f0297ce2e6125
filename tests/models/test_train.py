"""The classifier's training script: going on from an exported model, learning from a teacher
(needs the `train` extra)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import torch  # noqa: E402

from models.train import (  # noqa: E402
    SHIPPED,
    SHIPPED_CARD,
    TEACHER_SHARE,
    DieFaceNet,
    augment,
    card_path,
    freeze_batch_norms,
    load_exported_classifier,
    load_teacher,
    main,
    squashed,
    taught_loss,
    to_tensor,
    write_card,
)
from vision.read.classifier import NOT_A_DIE, load_default_classifier  # noqa: E402
from vision.read.models import default_model_path  # noqa: E402


def shipped_width() -> float:
    return float(json.loads(SHIPPED.with_suffix(".json").read_text()).get("width", 1.0))


def test_a_net_given_the_shipped_weights_computes_what_the_shipped_model_does() -> None:
    net = DieFaceNet(shipped_width())
    load_exported_classifier(net, str(default_model_path("die_face.onnx")))
    net.eval()
    crops = np.random.default_rng(0).integers(0, 256, (16, 32, 32, 3), dtype=np.uint8)
    with torch.no_grad():
        ours = torch.softmax(net(to_tensor(crops)), dim=1).numpy()
    shipped = load_default_classifier().predict_crops(crops)
    assert np.abs(ours - shipped).max() < 1e-5
    assert (ours.argmax(1) == shipped.argmax(1)).all()


def test_frozen_batch_norms_keep_their_statistics_while_the_net_trains() -> None:
    net = DieFaceNet(shipped_width())
    load_exported_classifier(net, str(default_model_path("die_face.onnx")))
    net.train()
    freeze_batch_norms(net)
    norm = net.features[1]
    before = norm.running_mean.clone()
    net(torch.rand(8, 3, 32, 32))
    assert not norm.training and torch.equal(norm.running_mean, before)


def _turns_seen(keep_up: bool) -> set[str]:
    """Where a pattern drawn in the top half of a crop ends up after augmenting, over many batches."""
    pattern = torch.full((8, 3, 32, 32), 0.5)
    pattern[:, :, :16] = (torch.arange(16)[:, None] // 4 + torch.arange(32)[None, :] // 4) % 2  # coarse checks
    where = set()
    for seed in range(16):
        out = augment(pattern.clone(), torch.Generator().manual_seed(seed), keep_up=keep_up)
        halves = {
            "top": out[:, :, :16].std(),
            "bottom": out[:, :, 16:].std(),
            "left": out[:, :, :, :16].std(),
            "right": out[:, :, :, 16:].std(),
        }
        where.add(max(halves, key=lambda k: float(halves[k])))
    return where


def test_kept_up_augmentation_never_turns_a_crop() -> None:
    assert _turns_seen(keep_up=True) == {"top"}
    assert len(_turns_seen(keep_up=False)) > 1


def test_a_squashed_crop_keeps_its_width_and_middle_and_loses_height() -> None:
    crops = torch.zeros(2, 3, 32, 32)
    crops[:, :, 8:24, 8:24] = 1.0  # a 16-pixel square face in the middle
    out = squashed(crops, torch.tensor([1.0, 0.5]))
    assert torch.allclose(out[0], crops[0], atol=1e-6)
    face = out[1, 0] > 0.5
    rows, columns = face.any(1).nonzero().flatten(), face.any(0).nonzero().flatten()
    assert (rows.min().item(), rows.max().item()) == (12, 19)  # half as tall, about the middle
    assert (columns.min().item(), columns.max().item()) == (8, 23)


def test_a_model_trained_elsewhere_writes_its_card_beside_it_not_over_the_shipped_one(tmp_path: Path) -> None:
    assert card_path(SHIPPED) == SHIPPED_CARD
    assert card_path(tmp_path / "trial.onnx") == tmp_path / "trial.md"
    lodo = SHIPPED.parent / "lodo" / "without_aws_classifier.onnx"
    assert card_path(lodo) == lodo.with_suffix(".md") != SHIPPED_CARD


@pytest.fixture
def tiny_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The training script, reading two tiny crop sets from `tmp_path` as its build folder."""
    import models.train as train_script

    rng = np.random.default_rng(0)
    for name in ("synthetic_steep.npz", "real_train.npz"):
        crops = rng.integers(0, 256, (48, 32, 32, 3), dtype=np.uint8)
        np.savez(tmp_path / name, crops=crops, labels=rng.integers(0, 7, 48))
    monkeypatch.setattr(train_script, "BUILD", tmp_path)
    return train_script


def test_a_run_without_the_report_reads_no_val_crop_and_writes_no_card(tmp_path: Path, tiny_build: ModuleType) -> None:
    train_script = tiny_build  # no real_val.npz or real_test.npz here: a report would fail to find them
    out = tmp_path / "trial.onnx"
    args = ["--epochs", "1", "--per-epoch", "32", "--batch", "16", "--squash", "0.3", "--keep-up"]
    assert (
        train_script.main([*args, "--sets", "synthetic_steep.npz,real_train.npz", "--no-report", "--out", str(out)])
        == 0
    )
    figures = json.loads(out.with_suffix(".json").read_text())
    assert figures["accuracy"] is None
    assert (figures["synthetic_crops"], figures["real_crops"], figures["squash"]) == (48, 48, 0.3)
    assert out.exists() and not out.with_suffix(".md").exists()
    with pytest.raises(SystemExit, match="no accuracy"):
        train_script.main(["--out", str(out), "--card-only", "python models/train.py"])
    assert not out.with_suffix(".md").exists()
    # Asked for the report without its crops, it says so before training, not after.
    with pytest.raises(SystemExit, match="real_val.npz is missing for the report"):
        train_script.main([*args, "--sets", "real_train.npz", "--out", str(tmp_path / "reported.onnx")])
    assert not (tmp_path / "reported.onnx").exists()


def test_a_chosen_model_gets_its_report_after_a_run_without_it(tmp_path: Path, tiny_build: ModuleType) -> None:
    train_script = tiny_build
    out = tmp_path / "chosen.onnx"
    with pytest.raises(SystemExit, match="chosen.json is missing"):
        train_script.main(["--out", str(out), "--report-only"])
    args = ["--epochs", "1", "--per-epoch", "32", "--batch", "16", "--keep-up", "--sets", "real_train.npz"]
    assert train_script.main([*args, "--no-report", "--out", str(out)]) == 0
    trained = json.loads(out.with_suffix(".json").read_text())
    with pytest.raises(SystemExit, match="real_val.npz is missing"):
        train_script.main(["--out", str(out), "--report-only"])
    rng = np.random.default_rng(1)
    for split in ("val", "test"):
        crops = rng.integers(0, 256, (12, 32, 32, 3), dtype=np.uint8)
        labels, scales = np.tile([0, 5, NOT_A_DIE], 4), np.repeat([0, 640], 6)
        np.savez(tmp_path / f"real_{split}.npz", crops=crops, labels=labels, scales=scales)
    assert train_script.main(["--out", str(out), "--report-only"]) == 0
    figures = json.loads(out.with_suffix(".json").read_text())
    assert sorted(figures["accuracy"]) == ["test/0", "test/640", "val/0", "val/640"]
    assert figures["accuracy"]["val/640"]["dice"] == 4 and figures["accuracy"]["val/640"]["negatives"] == 2
    assert figures | {"accuracy": None} == trained  # nothing else of the training's figures changes
    assert train_script.main(["--out", str(out), "--card-only", "python models/train.py --seed 2"]) == 0
    assert "`python models/train.py --seed 2`" in out.with_suffix(".md").read_text()


def test_width_scales_every_layer_of_the_first_network() -> None:
    def channels(net: DieFaceNet) -> list[int]:
        return [layer.out_channels for layer in net.features if isinstance(layer, torch.nn.Conv2d)]

    assert channels(DieFaceNet()) == [16, 32, 64, 64, 96]
    wide = DieFaceNet(2.0)
    assert channels(wide) == [32, 64, 128, 128, 192]
    assert wide(torch.rand(2, 3, 32, 32)).shape == (2, 7)


@pytest.mark.parametrize("width", ["0", "-1", "100"])
def test_an_absurd_width_is_refused_before_anything_is_read(width: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--width", width, "--no-report", "--out", "/nonexistent/x.onnx"])
    assert stopped.value.code == 2
    assert "--width must lie between 0.25 and 8" in capsys.readouterr().err


def test_the_card_names_the_channels_of_the_width_trained(tmp_path: Path) -> None:
    figures = json.loads(SHIPPED.with_suffix(".json").read_text()) | {"width": 2.0}
    write_card(figures, tmp_path / "card.md", "python models/train.py --width 2")
    card = (tmp_path / "card.md").read_text()
    assert "(32, 64, 128, 128, 192 channels)" in card
    assert "give the 192 pooled features" in card


def _weights(model: Path) -> list[np.ndarray]:
    import onnx
    from onnx import numpy_helper

    return [numpy_helper.to_array(t) for t in onnx.load(str(model)).graph.initializer]


def test_a_stopped_training_goes_on_from_its_checkpoint_to_the_same_model(
    tmp_path: Path, tiny_build: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    train_script = tiny_build
    args = ["--epochs", "3", "--per-epoch", "32", "--batch", "16", "--squash", "0.3", "--no-report"]
    args += ["--sets", "synthetic_steep.npz,real_train.npz"]
    assert train_script.main([*args, "--out", str(tmp_path / "straight.onnx")]) == 0

    checkpoint = tmp_path / "trial.pt"
    save = train_script.save_checkpoint

    def save_then_stop(*saved: object) -> None:
        save(*saved)  # type: ignore[arg-type]
        if saved[1] == 2:
            raise KeyboardInterrupt  # killed after its second epoch

    monkeypatch.setattr(train_script, "save_checkpoint", save_then_stop)
    resumed = tmp_path / "resumed.onnx"
    with pytest.raises(KeyboardInterrupt):
        train_script.main([*args, "--checkpoint", str(checkpoint), "--out", str(resumed)])
    assert checkpoint.exists() and not resumed.exists()
    assert train_script.main([*args, "--checkpoint", str(checkpoint), "--out", str(resumed)]) == 0

    assert not checkpoint.exists()
    for ours, theirs in zip(_weights(resumed), _weights(tmp_path / "straight.onnx"), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert json.loads(resumed.with_suffix(".json").read_text())["epochs"] == 3


def test_a_checkpoint_of_other_settings_is_refused_and_kept(
    tmp_path: Path, tiny_build: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    train_script = tiny_build
    checkpoint = tmp_path / "trial.pt"
    args = ["--epochs", "1", "--per-epoch", "32", "--batch", "16", "--no-report"]
    args += ["--sets", "synthetic_steep.npz,real_train.npz", "--checkpoint", str(checkpoint)]
    monkeypatch.setattr(train_script, "export", lambda net, path: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        train_script.main([*args, "--out", str(tmp_path / "a.onnx")])
    saved = checkpoint.read_bytes()
    with pytest.raises(SystemExit, match=r"other settings \(seed\)"):
        train_script.main([*args, "--seed", "5", "--out", str(tmp_path / "b.onnx")])
    assert checkpoint.read_bytes() == saved and not (tmp_path / "b.onnx").exists()


def test_a_file_that_is_no_checkpoint_is_refused_and_kept(tmp_path: Path, tiny_build: ModuleType) -> None:
    train_script = tiny_build
    checkpoint = tmp_path / "trial.pt"
    checkpoint.write_bytes(b"not a checkpoint")
    args = ["--epochs", "1", "--per-epoch", "32", "--batch", "16", "--no-report", "--out", str(tmp_path / "a.onnx")]
    with pytest.raises(SystemExit, match="is not a checkpoint of this script"):
        train_script.main([*args, "--sets", "synthetic_steep.npz,real_train.npz", "--checkpoint", str(checkpoint)])
    assert checkpoint.read_bytes() == b"not a checkpoint" and not (tmp_path / "a.onnx").exists()


def test_a_teacher_loaded_from_its_export_answers_as_the_exported_model(tmp_path: Path) -> None:
    teacher = load_teacher(default_model_path("die_face.onnx"))
    crops = np.random.default_rng(1).integers(0, 256, (8, 32, 32, 3), dtype=np.uint8)
    with torch.no_grad():
        ours = torch.softmax(teacher(to_tensor(crops)), dim=1).numpy()
    assert np.abs(ours - load_default_classifier().predict_crops(crops)).max() < 1e-5
    assert not any(weight.requires_grad for weight in teacher.parameters())


def test_the_taught_loss_is_the_labels_alone_without_a_teacher_and_grows_as_the_answers_part() -> None:
    torch.manual_seed(0)
    logits, labels = torch.randn(6, 7), torch.tensor([0, 1, 2, 3, 4, 6])
    plain = taught_loss(logits, labels, None)
    assert torch.allclose(plain, torch.nn.functional.cross_entropy(logits, labels, label_smoothing=0.05))
    agreeing = taught_loss(logits, labels, logits.clone())
    assert torch.allclose(agreeing, (1 - TEACHER_SHARE) * plain, atol=1e-6)  # no soft part when they agree
    assert float(taught_loss(logits, labels, logits + torch.randn(6, 7))) > float(agreeing)


def test_a_run_with_a_teacher_records_it(tmp_path: Path, tiny_build: ModuleType) -> None:
    train_script = tiny_build
    out = tmp_path / "taught.onnx"
    teacher = default_model_path("die_face.onnx")
    args = ["--epochs", "1", "--per-epoch", "32", "--batch", "16", "--keep-up", "--no-report"]
    assert train_script.main([*args, "--sets", "synthetic_steep.npz,real_train.npz", "--teacher", str(teacher),
                              "--out", str(out)]) == 0  # fmt: skip
    assert json.loads(out.with_suffix(".json").read_text())["teacher"] == str(teacher)
    assert train_script.DieFaceClassifier(out).predict_crops(np.zeros((2, 32, 32, 3), np.uint8)).shape == (2, 7)

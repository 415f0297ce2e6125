"""`dicekeeper read` without a usable die-face model: one warning, pips alone, no traceback."""

from pathlib import Path

import cv2
import pytest

import vision.read.classifier
from dicekeeper.cli import main
from vision.synth.render import DieSpec, Scene, render


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    dice = tuple(DieSpec(v, 120 + 160 * i, 200, 60, angle=10 * i, body_bgr=(235, 235, 235), pip_bgr=(20, 20, 20))
                 for i, v in enumerate((2, 5, 6)))  # fmt: skip
    path = tmp_path / "throw.png"
    cv2.imwrite(str(path), render(Scene(640, 400, "felt", (50, 110, 40), dice, seed=4)).frame)
    return path


@pytest.mark.parametrize("content", [None, b"", b"garbage, not a network"])
def test_read_falls_back_to_pips_with_a_warning(photo: Path, tmp_path: Path, monkeypatch, capsys, content) -> None:
    model = tmp_path / "die_face.onnx"
    if content is not None:
        model.write_bytes(content)
    monkeypatch.setattr(vision.read.classifier, "default_model_path", lambda: model)
    assert main(["read", "--json", str(photo)]) == 0
    out, err = capsys.readouterr()
    assert "warning" in err and "die_face.onnx" in err and "Traceback" not in err
    assert '"method": "pips"' in out and '"method": "classifier"' not in out


def test_classifier_mode_without_model_is_one_clear_error(photo: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(vision.read.classifier, "default_model_path", lambda: tmp_path / "missing.onnx")
    assert main(["read", "--mode", "classifier", str(photo)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "missing.onnx" in err

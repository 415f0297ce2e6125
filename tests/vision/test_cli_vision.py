"""`dicekeeper read`, `eval` and `bench` on drawn photos and a tiny labelled set."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from drawn import BLACK, IVORY, RED, DrawnDie, draw_scene

from dicekeeper.cli import main

DICE = [DrawnDie(2, (400, 500), 120, 20, IVORY, BLACK), DrawnDie(5, (1200, 700), 120, 55, RED, IVORY)]


@pytest.fixture()
def photo(tmp_path: Path) -> Path:
    """A 1600x1200 photo with dice about 120 pixels across."""
    path = tmp_path / "throw.png"
    cv2.imwrite(str(path), draw_scene(1600, 1200, DICE, seed=11))
    return path


def test_read_json_reports_dice_in_original_pixels_when_downscaled(
    photo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["read", "--json", "--mode", "pips", "--max-side", "800", str(photo)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["image"], record["width"], record["height"]) == (str(photo), 1600, 1200)
    assert record["ms"] > 0
    dice = sorted(record["dice"], key=lambda d: d["center"][0])
    assert [d["value"] for d in dice] == [2, 5]
    for die, drawn in zip(dice, DICE):
        assert die["center"] == pytest.approx(drawn.center, abs=6)
        x0, y0, x1, y1 = die["box"]
        # Upright boxes: around a die turned 55 degrees the box is 1.39 sides wide.
        assert 110 < x1 - x0 < 1.7 * 120 and 110 < y1 - y0 < 1.7 * 120
        assert die["method"] == "pips"
        assert 0 < die["confidence"] <= 1


def test_read_goes_on_after_bad_files_and_exits_1(
    photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    text = tmp_path / "notes.png"
    text.write_text("hello")
    code = main(["read", "--json", "--mode", "pips", str(empty), str(tmp_path / "missing.jpg"), str(text), str(photo)])
    out, err = capsys.readouterr()
    assert code == 1
    assert [json.loads(line)["image"] for line in out.splitlines()] == [str(photo)]
    lines = err.splitlines()
    assert len(lines) == 3
    assert "empty file" in lines[0] and "no such file" in lines[1] and "not an image" in lines[2]
    assert "Traceback" not in err


def test_read_annotates_a_copy(photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "drawn"
    assert main(["read", "--mode", "pips", "--annotate", str(out_dir), str(photo)]) == 0
    assert "2 5" in capsys.readouterr().out
    drawn = cv2.imread(str(out_dir / "throw.jpg"))
    original = cv2.imread(str(photo))
    assert drawn.shape == original.shape
    assert np.abs(drawn.astype(int) - original.astype(int)).max() > 100


def test_bad_max_side_is_a_usage_error(photo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["read", "--max-side", "ten", str(photo)])
    assert exit_info.value.code == 2
    assert "not a whole number" in capsys.readouterr().err


def test_classifier_mode_without_a_classifier_is_one_clear_error(
    photo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision.read.classifier

    def missing() -> None:
        raise FileNotFoundError("die-face model not found")

    monkeypatch.setattr(vision.read.classifier, "load_default_classifier", missing)
    assert main(["read", "--mode", "classifier", str(photo)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "classifier" in err and "Traceback" not in err


def make_labelled_set(root: Path) -> None:
    for split, seed in (("val", 1), ("test", 2)):
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
        cv2.imwrite(str(root / split / "images" / "throw.jpg"), draw_scene(1600, 1200, DICE, seed=seed))
        lines = [
            f"{d.value - 1} {d.center[0] / 1600:.6f} {d.center[1] / 1200:.6f} {d.size * 1.2 / 1600:.6f} "
            f"{d.size * 1.2 / 1200:.6f}"
            for d in DICE
        ]
        if split == "test":
            lines.append("3 0.9 0.1 0.05 0.06")  # a die the reader cannot see: must count as missed
        (root / split / "labels" / "throw.txt").write_text("\n".join(lines) + "\n")
    (root / "data.yaml").write_text("names: ['1', '2', '3', '4', '5', '6']\n")


def test_eval_reports_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_labelled_set(tmp_path)
    assert main(["eval", str(tmp_path), "--json", "--mode", "pips", "--max-side", "800"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["images"] == 2
    assert figures["labelled_dice"] == 5
    assert figures["accuracy"] == pytest.approx(4 / 5)
    assert figures["precision"] == pytest.approx(1.0)
    assert figures["recall"] == pytest.approx(4 / 5)
    assert figures["exact_throws"] == pytest.approx(1 / 2)
    assert figures["confusion"][3][0] == 1
    assert 0.0 <= figures["placement"] < 0.25  # the drawn dice are found where they were drawn


def test_eval_text_and_bad_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_labelled_set(tmp_path)
    assert main(["eval", str(tmp_path), "--split", "val", "--mode", "pips"]) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "100.00 %" in out
    assert "placement" in out
    assert main(["eval", str(tmp_path / "nothing")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_bench_prints_the_median(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--repeat", "3"]) == 0
    assert "median" in capsys.readouterr().out


def test_bench_live_times_the_watch_reader_on_frames_and_reports_bad_ones(
    photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a picture")
    assert main(["bench", "--live", "--json", "--repeat", "2", str(photo), str(broken)]) == 1
    captured = capsys.readouterr()
    (line,) = captured.out.splitlines()
    record = json.loads(line)
    assert record["median_ms"] > 0 and record["frames"] == 1 and record["repeat"] == 2
    assert record["sizes"] == ["1600x1200"]
    assert captured.err.count("\n") == 1 and "broken.jpg" in captured.err


def test_bench_live_needs_a_readable_frame(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--live"]) == 2
    assert "IMAGE" in capsys.readouterr().err
    assert main(["bench", "--live", str(tmp_path / "missing.png")]) == 2
    assert "no readable frames" in capsys.readouterr().err

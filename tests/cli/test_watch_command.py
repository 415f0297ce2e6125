from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from dicekeeper.cli import main
from vision.live.demo_table import DemoTable
from vision.live.settle import PACED, SettleConfig


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def record_demo(folder: Path, throws: int, video: Path | None = None) -> DemoTable:
    """Writes the demo table's frames as numbered PNGs (and optionally a video) until `throws` settled."""
    table = DemoTable(seed=31, width=640, height=360, fps=15)
    writer = None
    if video is not None:
        writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 15.0, (640, 360))
    folder.mkdir(exist_ok=True)
    while len(table.throws) < throws or table.index < table.throws[-1].rest_index + 10:
        shown = table.step()
        cv2.imwrite(str(folder / f"frame_{shown.index:05d}.png"), shown.image)
        if writer is not None:
            writer.write(shown.image)
    if writer is not None:
        writer.release()
    return table


def test_watch_the_demo_prints_one_json_line_per_throw(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "demo", "--fast", "--throws", "2", "--details", "--mode", "pips"]) == 0
    captured = capsys.readouterr()
    out = lines(captured.out)
    assert len(out) == 2
    for record in out:
        assert {"t", "dice", "confidence"} <= set(record)
        assert record["dice"] == record["truth"]
        assert 0 < record["confidence"] <= 1
        assert record["die_px"] > 50  # dice 8.5 % of the 720 px height: no advice
    assert "px across" not in captured.err
    assert out[0]["t"] < out[1]["t"]


def test_watch_a_folder_and_a_video_of_a_recorded_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = record_demo(tmp_path / "frames", throws=3, video=tmp_path / "table.avi")
    assert main(["watch", str(tmp_path / "frames"), "--fps", "15", "--mode", "pips"]) == 0
    captured = capsys.readouterr()
    from_folder = lines(captured.out)
    assert [sorted(r["dice"]) for r in from_folder] == [sorted(t.faces) for t in table.throws]
    # t is the source time of the frame in which the dice came to rest.
    assert [r["t"] for r in from_folder] == pytest.approx([t.rest_index / 15 for t in table.throws], abs=0.01)
    assert "all" in captured.err and "images read" in captured.err
    # Dice 31 px on a side in these 640x360 frames (their upright boxes wider as they turn): the
    # camera should come closer, said once.
    advice = [line for line in captured.err.splitlines() if "px across" in line]
    assert len(advice) == 1 and "closer" in advice[0]
    assert 30 <= int(re.search(r"about (\d+) px across", advice[0]).group(1)) < 50  # type: ignore[union-attr]

    assert main(["watch", str(tmp_path / "table.avi"), "--mode", "pips"]) == 0
    from_video = lines(capsys.readouterr().out)
    assert [sorted(r["dice"]) for r in from_video] == [sorted(t.faces) for t in table.throws]


def test_watch_a_missing_source_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", str(tmp_path / "nothing.mp4")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such file or folder" in err[0]
    assert main(["watch", "/dev/video-none"]) == 2
    assert "no such device" in capsys.readouterr().err


def test_watch_a_bad_turn_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("45", "-90", "360", "upside-down", ""):
        assert main(["watch", "demo", "--turn", bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
        assert err[0].startswith("dicekeeper watch: --turn must be one of 0, 90, 180, 270") and repr(bad) in err[0]


def test_watch_a_camera_mounted_upside_down_with_turn_180(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = record_demo(tmp_path / "upright", throws=1)
    flipped = tmp_path / "upside-down"
    flipped.mkdir()
    for path in sorted((tmp_path / "upright").iterdir()):
        cv2.imwrite(str(flipped / path.name), cv2.imread(str(path))[::-1, ::-1])
    shots = tmp_path / "shots"
    argv = ["watch", str(flipped), "--fps", "15", "--mode", "pips", "--details", "--annotate", str(shots)]
    assert main([*argv, "--turn", "180"]) == 0
    out = lines(capsys.readouterr().out)
    assert [sorted(r["dice"]) for r in out] == [sorted(t.faces) for t in table.throws]
    # The annotated picture of the throw is the table set upright: much nearer the upright frame
    # than the upside-down one (the drawn boxes and labels cover a small part of it).
    picture = cv2.imread(str(shots / "throw_0001.jpg")).astype(np.float32)
    upright = cv2.imread(str(tmp_path / "upright" / f"frame_{out[0]['settled_frame']:05d}.png")).astype(np.float32)
    assert picture.shape == upright.shape == (360, 640, 3)
    assert np.abs(picture - upright).mean() * 2 < np.abs(picture - upright[::-1, ::-1]).mean()


def test_watch_a_camera_on_its_side_with_turn_90(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = record_demo(tmp_path / "upright", throws=1)
    sideways = tmp_path / "sideways"
    sideways.mkdir()
    for path in sorted((tmp_path / "upright").iterdir()):  # the camera turned a quarter to the left
        cv2.imwrite(str(sideways / path.name), cv2.rotate(cv2.imread(str(path)), cv2.ROTATE_90_COUNTERCLOCKWISE))
    shots = tmp_path / "shots"
    argv = ["watch", str(sideways), "--fps", "15", "--mode", "pips", "--annotate", str(shots), "--turn", "90"]
    assert main(argv) == 0
    out = lines(capsys.readouterr().out)
    assert [sorted(r["dice"]) for r in out] == [sorted(t.faces) for t in table.throws]
    assert cv2.imread(str(shots / "throw_0001.jpg")).shape == (360, 640, 3)  # upright again: wider than high


@pytest.mark.parametrize(("flags", "expected"), [([], None), (["--paced"], PACED)])
def test_watch_settles_as_the_server_does_when_paced(
    flags: list[str], expected: SettleConfig | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import vision.live.settle as settle

    configs: list[SettleConfig | None] = []
    watcher = settle.ThrowWatcher

    def recording(reader: Any, config: SettleConfig | None = None) -> Any:
        configs.append(config)
        return watcher(reader, config)

    monkeypatch.setattr(settle, "ThrowWatcher", recording)
    assert main(["watch", "demo", "--fast", "--throws", "1", "--mode", "pips", *flags]) == 0
    assert len(lines(capsys.readouterr().out)) == 1
    assert configs == [expected]

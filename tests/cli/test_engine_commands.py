import io
import json
import subprocess
import sys

import pytest

from dicekeeper.cli import main


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.strip()], err


def test_score_lists_keeps_highest_first(capsys):
    code, [obj], err = run(capsys, "score", "--rules", "tenthousand", "5", "6", "3", "3", "4", "3")
    assert code == 0 and err == ""
    assert obj["rules"] == "tenthousand" and obj["dice"] == [5, 6, 3, 3, 4, 3] and obj["farkle"] is False
    assert obj["keeps"][0] == {"dice": [3, 3, 3, 5], "points": 350, "instant_win": False}
    points = [k["points"] for k in obj["keeps"]]
    assert points == sorted(points, reverse=True)


def test_score_farkle_and_settings(capsys):
    code, [obj], _ = run(capsys, "score", "--rules", "farke", "--set", "three_pairs=off", "2", "2", "3", "3", "6", "6")
    assert code == 0 and obj["farkle"] is True and obj["keeps"] == [] and obj["rules"] == "farke+"


def test_score_batch_reads_one_throw_per_line(capsys, monkeypatch):
    code, objs, err = run(
        capsys,
        "score",
        "--batch",
        "--rules",
        "zilch",
        stdin="1 2 3 4 5 6\n\n2 2 3 3 6 6\n1 9\n",
        monkeypatch=monkeypatch,
    )
    assert [o["keeps"][0]["points"] for o in objs] == [3000, 1000]
    assert code == 2 and "line 4" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["score", "7", "1"], "from 1 to 6"),
        (["score", "--rules", "family", "1", "2", "3", "4", "5", "6"], "played with 5"),
        (["score", "--rules", "poker", "1"], "known presets: family"),
        (["score", "--set", "speed=3", "1"], "unknown knob 'speed'"),
        (["score", "--set", "entry=lots", "1"], "entry must be a whole number"),
        (["score", "--set", "entry", "1"], "KEY=VALUE"),
        (["odds", "--rules", "missing.toml"], "cannot read rules file"),
        (["rules", "nope"], "unknown rules"),
        (["score", "--set", "target=\u00b2", "1"], "target must be a whole number from 1 to 1000000"),
        (["score", "--set", "target=" + "9" * 5000, "1"], "target must be a whole number from 1 to 1000000"),
        (["score", "--set", "entry=99999999999", "1"], "entry must be a whole number from 0 to 100000"),
        (["score", "--set", "dice=7", "1"], "dice must be 5 or 6"),
        (["rules", "family", "--set", "straight=75"], "straight must be a multiple of 50 from 50 to 10000"),
        (["score", "\u0663", "1"], "a die face must be a whole number from 1 to 6"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == []
    assert message in err and len(err.strip().splitlines()) == 1


def test_odds_prints_every_dice_count(capsys):
    code, [obj], _ = run(capsys, "odds", "--rules", "farkle")
    assert code == 0 and [o["dice"] for o in obj["odds"]] == [1, 2, 3, 4, 5, 6]
    assert obj["odds"][5]["farkle"] == pytest.approx(0.0231481, abs=1e-6)


def test_rules_lists_presets_and_shows_one(capsys, tmp_path):
    code, objs, _ = run(capsys, "rules")
    assert code == 0 and {o["name"] for o in objs} >= {"family", "zilch", "farkle"}
    assert main(["rules", "zilch"]) == 0
    table = capsys.readouterr().out
    assert "target_strict" in table and "true" in table
    path = tmp_path / "house.toml"
    path.write_text('preset = "family"\nhouse = ["greed"]\n')
    code, [obj], _ = run(capsys, "rules", str(path), "--json")
    assert obj["entry"] == 1000


def test_console_script_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "dicekeeper", "score", "1", "1", "1"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["keeps"][0]["points"] == 1000

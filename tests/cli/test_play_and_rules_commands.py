import io
import json
import sys

import pytest

from dicekeeper.cli import main
from scorekeeper import PRESETS, Game
from scorekeeper.scoring import combinations


def play(capsys, monkeypatch, lines, *argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code = main(["play", *argv])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_play_roll_off_typed_points_changes_and_undo(capsys, monkeypatch, tmp_path):
    saved = tmp_path / "game.json"
    code, states, err = play(
        capsys,
        monkeypatch,
        [
            "roll 2",
            "roll 6",
            "+350",
            "+100",
            "bank",
            "farkle",
            "rename Ann Anna",
            "target 5000",
            "add Cy",
            "throw 1 5 2 3 4",
            "keep 1",
            "undo-turn",
            "redo",
            "undo",
        ],
        "--players",
        "Ann,Bob",
        "--save",
        str(saved),
    )
    assert code == 0 and err == ""
    assert states[1]["current"] == 1 and states[1]["phase"] == "throw"  # Bob rolled highest
    assert states[4]["players"][1]["score"] == 450 and states[5]["players"][0]["farkles_in_a_row"] == 1
    assert states[8]["players"][2]["name"] == "Cy" and states[7]["target"] == 5000
    assert states[11]["turn_total"] == 0 and states[12]["turn_total"] == 100 and states[13]["phase"] == "keep"
    assert [p["name"] for p in states[-1]["players"]] == ["Anna", "Bob", "Cy"]
    data = json.loads(saved.read_text())
    assert {"type": "points", "points": 350} in data["events"]
    code, [state], _ = play(capsys, monkeypatch, ["keep 1 5"], "--load", str(saved))
    assert code == 0 and state["turn_total"] == 150
    assert Game.from_dict(data).state.to_dict()["version"] == state["version"] - 1


def test_play_tells_malformed_from_forbidden_and_goes_on(capsys, monkeypatch):
    code, states, err = play(
        capsys,
        monkeypatch,
        ["+75", "dance", "+5x", "throw 1 2 3 4 6 9", "throw 1 2 3 4 6", "bank 1"],
        "--players",
        "Ann",
        "--rules",
        "farkle",
    )
    assert code == 2 and len(states) == 0
    lines = err.splitlines()
    assert lines[0].startswith("dicekeeper play: line 1: not allowed: points come in multiples of 50")
    assert "line 2: malformed: not an action" in lines[1] and "line 3: malformed" in lines[2]
    assert "line 4: malformed" in lines[3]
    assert "line 5: not allowed: 5 dice thrown, but 6" in lines[4] and "line 6: not allowed" in lines[5]


def test_play_needs_players(capsys, monkeypatch):
    code, _, err = play(capsys, monkeypatch, [])
    assert code == 2 and "--players" in err


@pytest.mark.parametrize("rules, example", [("family", "1 5 3 3 3"), ("zilch", "1 5 3 3 3 2")])
def test_score_without_dice_suggests_a_throw_that_works(capsys, rules, example):
    assert main(["score", "--rules", rules]) == 2
    err = capsys.readouterr().err
    assert f"dicekeeper score {example}`" in err
    assert main(["score", "--rules", rules, *example.split()]) == 0


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_rules_shows_every_combination_with_points_and_source(capsys, name):
    assert main(["rules", name]) == 0
    out = capsys.readouterr().out
    shown = out.split("combinations\n")[1].splitlines()
    names = {c.name for c in combinations(PRESETS[name])}
    assert {line.split("  ")[1].strip() for line in shown} == names
    for combo in combinations(PRESETS[name]):
        line = next(row for row in shown if row.split("  ")[1].strip() == combo.name)
        assert str(combo.points) in line
    text = {"family": "dice-10000-family-rules.md", "zilch": "greedy-dice-zilch.txt"}.get(name)
    if text:
        assert all(text in row for row in shown)


def test_rules_names_the_house_rule_a_choice_comes_from(capsys):
    assert main(["rules", "wikipedia", "--house", "alternative-sets"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.strip().startswith("full house"))
    assert "750" in row and "house rule alternative-sets: dice-10000-encyclopedia.md:41-43" in row
    assert "boxcar" in out.split("combinations")[1]

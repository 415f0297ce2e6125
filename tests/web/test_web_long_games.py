"""A long game costs no more per action than a short one: undo and throw at event 6,000 against event 6.

`pytest tests/web/test_web_long_games.py --benchmark-enable` prints both groups side by side.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest

from scorekeeper import Game, IllegalAction, preset

RULES = preset("family").replace(target=1_000_000)  # the game never ends, however long
FARKLE = [2, 2, 3, 4, 6]  # no scoring die in the family rules: the turn ends at once


@functools.lru_cache(maxsize=4)
def exported(length: int, seed: int = 17) -> dict[str, Any]:
    """A game of at least `length` events ending where a throw of all five dice is due."""
    rng = random.Random(seed)
    game = Game(["Ann", "Bob", "Cy"], RULES)
    while (
        game.version < length
        or game.state.phase != "throw"
        or game.state.dice_left != 5
        or game.state.leftover is not None
    ):
        state = game.state
        try:
            if state.phase == "keep":
                keep = rng.choice(state.keeps)
                game.bank(keep.dice) if rng.random() < 0.4 else game.keep(keep.dice)
            elif state.can_bank and rng.random() < 0.5:
                game.bank()
            elif game.version and rng.random() < 0.03:
                game.undo()
            else:
                game.throw([rng.randint(1, 6) for _ in range(state.dice_left)])
        except IllegalAction:
            continue
    return {**game.to_dict(), "source": "manual"}


def imported(client, length: int) -> tuple[str, dict[str, str], int]:
    response = client.post("/api/games/import", json=exported(length))
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["state"]["version"] >= length
    return f"/api/games/{body['id']}", {"Authorization": f"Bearer {body['token']}"}, body["state"]["version"]


@pytest.mark.parametrize("length", [6, 6000])
def test_throw_then_undo_benchmark(client, benchmark, length):
    url, auth, version = imported(client, length)
    before = client.get(url).get_json()
    seen = {"version": version}

    def throw_then_undo() -> None:
        thrown = client.post(f"{url}/throw", json={"dice": FARKLE}, headers=auth)
        assert thrown.status_code == 200 and thrown.get_json()["current"] != before["current"]
        undone = client.post(f"{url}/undo", json={}, headers=auth)
        assert undone.status_code == 200
        seen["version"] += 2
        assert undone.get_json()["version"] == seen["version"]

    benchmark.group = "throw + undo through the API"
    benchmark.extra_info["events"] = version
    benchmark.pedantic(throw_then_undo, rounds=30, iterations=1, warmup_rounds=2)
    after = client.get(url).get_json()
    assert after["players"] == before["players"] and after["current"] == before["current"]


@pytest.mark.parametrize("length", [6, 6000])
def test_engine_undo_benchmark(benchmark, length):
    data = exported(length)
    game = Game.from_dict(data)
    rounds = {"n": 0}

    def throw_then_undo() -> None:
        game.throw(FARKLE)
        game.undo()
        rounds["n"] += 1

    benchmark.group = "engine throw + undo"
    benchmark.pedantic(throw_then_undo, rounds=200, iterations=1, warmup_rounds=5)
    assert game.version == len(data["events"]) + 2 * rounds["n"]
    # The game has just undone a throw, so it can redo it; the fold of the export has no history.
    assert game.state.can_redo and not Game.from_dict(data).state.can_redo
    history = {"version": 0, "can_redo": False}
    assert game.state.to_dict() | history == Game.from_dict(data).state.to_dict() | history

"""Whole games played to a winner through the API, one per preset, with seeded virtual dice."""

from __future__ import annotations

import pytest

from scorekeeper import PRESETS, Game, event_from_dict, preset

MAX_ACTIONS = 5000


def play_to_the_end(table) -> dict:
    """A plain strategy: keep the best keep; bank from 350 points or with two dice or fewer left."""
    state = table.state
    for _ in range(MAX_ACTIONS):
        if state["finished"]:
            return state
        version = state["version"]
        if state["can_piggyback"] and state["leftover"]["turn_total"] >= 300:
            state = table.post("piggyback", {"version": version})
        elif state["throw"] is not None:
            best = state["keeps"][0]
            after = state["turn_total"] + best["points"]
            dice_after = state["dice_left"] - len(best["dice"])
            entry_ok = state["players"][state["current"]]["on_board"] or after >= state_entry(table)
            if dice_after > 0 and entry_ok and (after >= 350 or dice_after <= 2):
                trial = table.client.post(
                    f"/api/games/{table.id}/bank", headers=table.auth, json={"dice": best["dice"], "version": version}
                )
                if trial.status_code == 200:
                    state = table.state = trial.get_json()
                    continue
                assert trial.status_code == 422, trial.get_json()
            state = table.post("keep", {"dice": best["dice"], "version": version})
        else:
            state = table.post("throw", {"version": version})
    raise AssertionError(f"no winner after {MAX_ACTIONS} actions")


def state_entry(table) -> int:
    return PRESETS[table.state["rules"].rstrip("+")].entry


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_a_whole_game_reaches_a_winner(client, new_table, rules):
    table = new_table(["Ann", "Bob", "*Cy"], rules=rules)
    final = play_to_the_end(table)
    ruleset = preset(rules)
    winner = next(p for p in final["players"] if p["name"] == final["winner"])
    top = max(p["score"] for p in final["players"])
    assert winner["score"] == top
    assert ruleset.is_reached(winner["score"]) or any(
        e["type"] == "keep" and len(e["dice"]) == 6 for e in table.events()
    )
    events = table.events()
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1)) == list(range(1, final["version"] + 1))
    replayed = Game(["Ann", "Bob", "*Cy"], ruleset, [event_from_dict(e) for e in events]).state
    assert replayed.winner_name == final["winner"]
    assert [p.score for p in replayed.players] == [p["score"] for p in final["players"]]
    listed = next(g for g in client.get("/api/games").get_json() if g["id"] == table.id)
    assert listed["finished"] is True and listed["winner"] == final["winner"]
    assert table.post("throw", {}, expect=422)["error"].startswith("the game is over")

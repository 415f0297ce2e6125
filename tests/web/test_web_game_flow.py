"""The API's game-flow actions: typed points, the roll-off, mid-game changes, undo of a turn, redo."""

from __future__ import annotations

import pytest


def kinds(table) -> list[str]:
    return [event["type"] for event in table.events()]


# ---- typed points ---------------------------------------------------------------------------------
def test_a_turn_scored_by_typed_points_then_banked(new_table):
    table = new_table(["Ann", "Bob"], rules="farke", source="manual")
    table.post("points", {"points": "+350"})
    state = table.post("points", {"points": 500})
    assert state["turn_total"] == 850 and state["turn_mode"] == "points" and state["can_bank"]
    state = table.post("bank")
    assert state["players"][0]["score"] == 850 and state["current"] == 1
    assert kinds(table) == ["points", "points", "bank"]
    assert table.events()[0]["points"] == 350


def test_a_typed_farkle_ends_the_turn_with_nothing(new_table):
    table = new_table(["Ann", "Bob"], rules="farke", source="virtual")
    table.post("points", {"points": 300})
    state = table.post("farkle")
    assert state["current"] == 1 and state["players"][0]["score"] == 0 and state["turn_total"] == 0
    assert state["last_farkle"] == {"player": "Ann", "faces": []}


@pytest.mark.parametrize(
    "points, words",
    [
        (30, "multiples of 50"),
        (0, "multiples of 50"),
        (-50, "multiples of 50"),
        (99950, "no throw of 6 dice scores 99950"),
    ],
)
def test_typed_points_must_be_possible(new_table, points, words):
    table = new_table(["Ann", "Bob"], rules="farke", source="manual")
    error = table.post("points", {"points": points}, expect=422)["error"]
    assert words in error
    assert table.events() == []


def test_a_typed_bank_below_the_entry_score_is_refused(new_table):
    table = new_table(["Ann", "Bob"], rules="farke", source="manual")
    table.post("points", {"points": 500})
    assert "needs 750 in one turn" in table.post("bank", expect=422)["error"]
    assert kinds(table) == ["points"]


def test_points_cannot_be_typed_into_a_turn_played_with_dice(new_table):
    table = new_table(["Ann", "Bob"], rules="farke", source="manual")
    table.post("throw", {"dice": [1, 2, 3, 4, 6, 6]})
    table.post("keep", {"dice": [1]})
    assert "played with dice" in table.post("points", {"points": 100}, expect=422)["error"]
    assert "played with dice" in table.post("farkle", expect=422)["error"]
    assert kinds(table) == ["throw", "keep"]


# ---- the roll-off for the first turn ------------------------------------------------------------------------
def test_a_typed_roll_off_where_a_tie_rolls_again(new_table):
    table = new_table(["Ann", "Bob", "Cy"], rules="family", source="manual")
    assert table.state["starts"] == "highest-roll" and table.state["roll_off_open"]
    table.post("roll-off", {"face": 2})
    table.post("roll-off", {"face": 6})
    state = table.post("roll-off", {"face": 6})  # Bob and Cy tie: they roll again
    assert state["phase"] == "roll-off" and state["roll_off"]["contenders"] == [1, 2] and state["current"] == 1
    state = table.post("throw", {"dice": [3]})  # once the roll-off has begun, a throw is a roll of one die
    assert state["roll_off"]["rolls"] == [{"player": 1, "face": 3}]
    assert "rolls one die" in table.post("throw", {"dice": [1, 2, 3, 4, 5]}, expect=422)["error"]
    state = table.post("roll-off", {"face": 4})
    assert state["phase"] == "throw" and state["first"] == 2 and state["current"] == 2
    assert not state["roll_off_open"]
    assert "decided" in table.post("roll-off", {"face": 1}, expect=422)["error"]
    assert kinds(table) == ["start-roll"] * 5


def test_a_virtual_roll_off_rolls_one_die_per_player_until_decided(new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="virtual")
    for _ in range(40):
        state = table.post("roll-off")
        if state["roll_off"]["decided"]:
            break
    assert state["roll_off"]["decided"] and state["current"] == state["first"]
    faces = [event["face"] for event in table.events()]
    assert all(1 <= face <= 6 for face in faces) and kinds(table) == ["start-roll"] * len(faces)
    winner = state["first"]
    assert state["roll_off"]["rolls"][-1]["face"] <= max(r["face"] for r in state["roll_off"]["rolls"])
    assert any(r["player"] == winner for r in state["roll_off"]["rolls"])


def test_a_throw_before_any_roll_keeps_the_seat_order(new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    state = table.post("throw", {"dice": [2, 2, 3, 4, 6]})  # a farkle: Ann started
    assert state["current"] == 1 and not state["roll_off_open"]
    assert "too late" in table.post("roll-off", {"face": 5}, expect=422)["error"]


@pytest.mark.parametrize(
    "create, body, status, words",
    [
        ({"rules": "stone", "source": "manual"}, {"face": 3}, 422, "start in seat order"),
        ({"rules": "family", "source": "manual"}, {}, 400, 'send the roll as {"face": N}'),
        ({"rules": "family", "source": "virtual"}, {"face": 3}, 400, "rolls virtual dice"),
        ({"rules": "family", "source": "manual"}, {"face": 7}, 400, "from 1 to 6"),
        ({"rules": "family", "source": "manual"}, {"face": "six"}, 400, "from 1 to 6"),
        ({"rules": "family", "source": "manual"}, {"faces": [3]}, 400, "unknown field 'faces'"),
    ],
)
def test_bad_roll_off_requests_change_nothing(new_table, create, body, status, words):
    table = new_table(["Ann", "Bob"], **create)
    assert words in table.post("roll-off", body, expect=status)["error"]
    assert table.events() == []


def test_seat_order_rules_offer_no_roll_off(new_table):
    table = new_table(["Ann", "Bob"], rules="family", set={"starts": "seat-order"}, source="manual")
    assert table.state["starts"] == "seat-order" and not table.state["roll_off_open"]


# ---- mid-game changes -------------------------------------------------------------------------------------
def test_rename_target_add_and_remove_between_turns(new_table, client):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    table.post("rename", {"player": 0, "name": "Annie"})
    table.post("rename", {"player": "Bob", "name": "Robert"})
    state = table.post("target", {"target": 3000})
    assert state["target"] == 3000 and [p["name"] for p in state["players"]] == ["Annie", "Robert"]
    state = table.post("add-player", {"name": "Cy"})
    assert [p["name"] for p in state["players"]] == ["Annie", "Robert", "Cy"]
    state = table.post("remove-player", {"player": 1})
    assert [p["playing"] for p in state["players"]] == [True, False, True]
    assert kinds(table) == ["rename", "rename", "target", "add-player", "remove-player"]
    table.post("throw", {"dice": [1, 2, 3, 4, 6]})
    table.post("bank", {"dice": [1]})
    assert table.get()["current"] == 2  # Robert left: Cy is next
    seats = client.get(f"/api/games/{table.id}/seats", headers=table.auth).get_json()
    assert [s["name"] for s in seats] == ["Annie", "Robert", "Cy"]
    # The history and the CSV name the players as they are now, the player who joined included.
    table.post("throw", {"dice": [5, 2, 3, 4, 6]})
    table.post("bank", {"dice": [5]})
    page = client.get(f"/history/{table.id}").get_data(as_text=True)
    assert "Cy:" in page and "Annie:" in page and "target 3000" in page
    assert "Cy" in client.get(f"/history/{table.id}.csv").get_data(as_text=True)


@pytest.mark.parametrize(
    "setup, action, body, status, words",
    [
        ([], "rename", {"player": 0, "name": "Bob"}, 422, "already called Bob"),
        ([], "rename", {"player": 5, "name": "Zed"}, 422, "no player in seat 5"),
        ([], "rename", {"player": "Zed", "name": "Yan"}, 422, "no player is called Zed"),
        ([], "rename", {"player": True, "name": "Yan"}, 400, "seat number or a name"),
        ([], "rename", {"player": [0], "name": "Yan"}, 400, "seat number or a name"),
        ([], "rename", {"name": "Yan"}, 400, "send the player"),
        ([], "rename", {"player": 0, "name": ""}, 400, "non-empty text"),
        ([], "rename", {"player": 0, "name": 7}, 400, '"name" must be text'),
        ([], "rename", {"player": 0, "name": "A\u202enn"}, 400, "control character U+202E"),
        ([], "rename", {"player": 0, "name": "*Hal"}, 400, "join when the game is created"),
        ([], "rename", {"player": 0, "name": "x" * 41}, 400, "at most 40"),
        ([], "target", {}, 400, "send the target"),
        ([], "target", {"target": "lots"}, 400, "whole number"),
        ([], "target", {"target": 0}, 422, "from 1 to 1000000"),
        ([("points", {"points": 500}), ("bank", {})], "target", {"target": 400}, 422, "already has 400 or more"),
        ([("points", {"points": 500})], "add-player", {"name": "Cy"}, 422, "between two turns"),
        ([], "add-player", {"name": "Ann"}, 422, "already in the game"),
        ([], "add-player", {"name": "*Hal"}, 400, "join when the game is created"),
        ([], "add-player", {"nom": "Cy"}, 400, "unknown field 'nom'"),
        ([], "remove-player", {"player": -1}, 422, "no player in seat -1"),
        ([("points", {"points": 500})], "remove-player", {"player": 1}, 422, "between two turns"),
        ([], "undo-turn", {}, 422, "no turn has begun"),
        ([], "redo", {}, 422, "nothing to redo"),
        ([], "farkle", {"dice": []}, 400, "unknown field 'dice'"),
        ([], "points", {}, 400, "send the points"),
        ([], "points", {"points": [350]}, 400, "whole number"),
        ([], "points", {"points": "350.5"}, 400, "whole number"),
    ],
)
def test_bad_flow_requests_are_4xx_and_change_nothing(new_table, setup, action, body, status, words):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    for step, step_body in setup:
        table.post(step, step_body)
    before = table.events()
    error = table.post(action, body, expect=status)["error"]
    assert words in error, error
    assert table.events() == before


def test_the_last_player_cannot_leave(new_table):
    table = new_table(["Ann", "Bob"], source="manual")
    table.post("remove-player", {"player": 0})
    assert "last player" in table.post("remove-player", {"player": 1}, expect=422)["error"]


def test_the_game_over_refuses_changes(new_table):
    table = new_table(["Ann", "Bob"], rules="family", set={"target": 300}, source="manual")
    table.post("points", {"points": 300})
    assert table.post("bank")["finished"]
    assert "game is over" in table.post("rename", {"player": 0, "name": "Al"}, expect=422)["error"]


# ---- undo of a turn and redo ----------------------------------------------------------------------------------
def test_undo_turn_and_redo(new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    table.post("throw", {"dice": [1, 1, 2, 3, 4]})
    banked = table.post("bank", {"dice": [1, 1]})
    table.post("throw", {"dice": [5, 2, 3, 4, 6]})
    state = table.post("undo-turn")  # Bob's turn had begun: it goes back to its start
    assert state["current"] == 1 and state["throw"] is None and state["can_redo"]
    state = table.post("undo-turn")  # between turns: Ann's finished turn goes
    assert state["current"] == 0 and state["players"][0]["score"] == 0
    state = table.post("redo")
    assert state["players"][0]["score"] == banked["players"][0]["score"] and state["current"] == 1
    state = table.post("redo")
    assert state["throw"] == [5, 2, 3, 4, 6] and not state["can_redo"]
    assert kinds(table)[-4:] == ["undo-turn", "undo-turn", "redo", "redo"]


def test_a_new_action_ends_what_can_be_redone(new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    table.post("throw", {"dice": [1, 2, 2, 3, 4]})
    table.post("undo")
    table.post("throw", {"dice": [5, 2, 2, 3, 4]})
    assert "nothing to redo" in table.post("redo", expect=422)["error"]


# ---- seats ----------------------------------------------------------------------------------------------------
def test_a_seat_types_points_on_its_turn_but_only_the_table_changes_the_game(client, new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    seat = client.post(f"/api/games/{table.id}/seats/0", headers=table.auth).get_json()["seat"]
    auth = {"Authorization": f"Bearer {seat}"}
    url = f"/api/games/{table.id}"
    assert client.post(f"{url}/roll-off", json={"face": 4}, headers=auth).status_code == 200
    for action, body in (
        ("rename", {"player": 0, "name": "Al"}),
        ("target", {"target": 500}),
        ("add-player", {"name": "Cy"}),
        ("remove-player", {"player": 1}),
        ("undo-turn", {}),
        ("redo", {}),
    ):
        response = client.post(f"{url}/{action}", json=body, headers=auth)
        assert response.status_code == 403 and "only the table" in response.get_json()["error"], action
    assert client.post(f"{url}/roll-off", json={"face": 2}, headers=auth).status_code == 403  # Bob's roll
    table.post("roll-off", {"face": 2})
    response = client.post(f"{url}/points", json={"points": 300}, headers=auth)
    assert response.status_code == 200 and response.get_json()["turn_total"] == 300
    assert kinds(table) == ["start-roll", "start-roll", "points"]


# ---- the history shows what was undone --------------------------------------------------------------------
def events_on_page(client, game_id: int) -> list[tuple[str, str, bool]]:
    """(kind, status, struck through) of each event the history page lists, oldest first."""
    import re

    page = client.get(f"/history/{game_id}").get_data(as_text=True)
    items = re.findall(r'<li class="([a-z-]+)" data-seq="\d+" data-kind="([a-z-]+)">(.*?)</li>', page, re.S)
    return [(kind, status, "<del>" in body) for status, kind, body in items]


def test_the_history_strikes_through_undone_and_corrected_events(client, new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    table.post("throw", {"dice": [1, 2, 3, 4, 6]})
    table.post("undo")
    table.post("throw", {"dice": [2, 2, 3, 4, 5]})
    table.post("correct", {"dice": [1, 2, 3, 4, 5]})
    table.post("keep", {"dice": [1, 5]})
    table.post("rename", {"player": 1, "name": "Robert"})
    table.post("undo")
    assert events_on_page(client, table.id) == [
        ("throw", "undone", True),
        ("undo", "control", False),
        ("throw", "corrected", True),
        ("correct", "in-effect", False),
        ("keep", "in-effect", False),
        ("rename", "undone", True),
        ("undo", "control", False),
    ]
    page = client.get(f"/history/{table.id}").get_data(as_text=True)
    assert "<del>seat 1 renamed Robert</del>" in page and "corrected the throw to 1-2-3-4-5" in page
    table.post("redo")
    assert events_on_page(client, table.id)[5] == ("rename", "in-effect", False)


# ---- who starts, chosen on the new-game form -----------------------------------------------------------------
@pytest.mark.parametrize(
    "rules, choice, starts",
    [
        ("stone", "highest-roll", "highest-roll"),
        ("family", "seat-order", "seat-order"),
        ("family", "", "highest-roll"),
        ("stone", "", "seat-order"),
    ],
)
def test_the_form_chooses_who_starts(client, rules, choice, starts):
    page = client.get("/").get_data(as_text=True)
    assert 'name="knob_starts"' in page and 'value="highest-roll"' in page
    response = client.post(
        "/games", data={"player": ["Ann", "Bob"], "rules": rules, "source": "manual", "knob_starts": choice}
    )
    assert response.status_code == 302
    state = client.get(response.headers["Location"].split("/table")[0].replace("/games/", "/api/games/")).get_json()
    assert state["starts"] == starts and state["roll_off_open"] == (starts == "highest-roll")

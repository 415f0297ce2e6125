"""The JSON API through Flask's test client: every endpoint, every error code, the rule paths."""

from __future__ import annotations

import json

import pytest

from scorekeeper import Game, event_from_dict, preset


# ---- creating and listing -----------------------------------------------------------------------
def test_create_game_answers_id_token_and_state(new_table):
    table = new_table(["Ann", "Bob"], rules="farke", source="manual")
    assert table.id >= 1 and len(table.token) >= 20
    state = table.state
    assert state["id"] == table.id and state["version"] == 0 and state["rules"] == "farke"
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    assert all(p["score"] == 0 and p["on_board"] is False for p in state["players"])
    assert state["current"] == 0 and state["turn_total"] == 0 and state["dice_left"] == 6
    assert state["throw"] is None and state["keeps"] == [] and state["finished"] is False
    assert state["winner"] is None and state["source"] == "manual"


def test_two_games_get_different_tokens(new_table):
    assert new_table().token != new_table().token


def test_knobs_and_house_rules_are_applied(new_table):
    table = new_table(rules="family", set={"target": "2000"}, house=["greed"], source="manual")
    assert table.state["rules"] == "family+"
    table.post("throw", {"dice": [1, 1, 1, 2, 3]})
    table.post("keep", {"dice": [1, 1]})
    assert "needs 1000 in one turn" in table.post("bank", expect=422)["error"]  # greed: entry 1000


def test_the_rules_fidelity_knobs_are_applied(new_table):
    knobs = {
        "pass_scores_throw": "true",
        "tie_replay": "everyone",
        "starts": "highest-roll",
        "boxcar": "yes",
        "piggyback_sweep": "off",
    }
    table = new_table(["Ann", "Bob"], rules="family", set=knobs, source="manual")
    assert table.state["rules"] == "family+"
    table.post("throw", {"dice": [1, 1, 1, 2, 3]})
    state = table.post("bank", {})  # pass_scores_throw: passing scores the throw's best keep
    assert state["players"][0]["score"] == 1000 and state["current"] == 1


@pytest.mark.parametrize(
    "knob, value, words",
    [
        ("tie_replay", "coin", "tie_replay must be one of tied-only, everyone"),
        ("starts", 6, "starts must be"),
        ("boxcar", "sometimes", "boxcar must be true or false"),
        ("piggyback_sweep", ["x"], "piggyback_sweep must be true or false"),
    ],
)
def test_bad_rules_fidelity_knobs_are_400(client, knob, value, words):
    response = client.post("/api/games", json={"players": ["Ann"], "set": {knob: value}})
    assert response.status_code == 400 and words in response.get_json()["error"]


def test_list_games_newest_first_without_tokens(client, new_table):
    first, second = new_table(["A"]), new_table(["B", "C"], rules="zilch")
    listed = client.get("/api/games").get_json()
    assert [g["id"] for g in listed] == [second.id, first.id]
    assert listed[0]["players"] == ["B", "C"] and listed[0]["rules"] == "zilch"
    assert "token" not in str(listed) and first.token not in str(listed)


def test_computer_players_are_stored_and_flagged(new_table):
    table = new_table(["Ann", "*Robot"])
    assert [p["computer"] for p in table.state["players"]] == [False, True]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"players": []}, "at least one player"),
        ({"players": "Ann"}, "list of names"),
        ({"players": ["Ann", "Ann"]}, "must differ"),
        ({"players": ["Ann", " "]}, "non-empty"),
        ({"players": ["x" * 41]}, "longer than 40"),
        ({"players": [f"P{i}" for i in range(13)]}, "at most 12"),
        ({"players": ["Ann"], "rules": "poker"}, "unknown rules 'poker'"),
        ({"players": ["Ann"], "rules": 7}, "preset name"),
        ({"players": ["Ann"], "set": {"colour": "red"}}, "unknown knob 'colour'"),
        ({"players": ["Ann"], "set": {"entry": "lots"}}, "entry must be a whole number"),
        ({"players": ["Ann"], "set": ["entry"]}, '"set" must be an object'),
        ({"players": ["Ann"], "house": ["cheat"]}, "unknown house rule"),
        ({"players": ["Ann"], "source": "dice-robot"}, "unknown dice source"),
        ({"players": ["Ann"], "source": 3}, "source must be a text"),
        ({"players": ["Ann"], "colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_create_rejects_bad_input_with_400_and_stores_nothing(client, body, message):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert message in response.get_json()["error"]
    assert client.get("/api/games").get_json() == []


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b'"text"', b"\xff\xfe"])
def test_create_rejects_malformed_json(client, raw):
    response = client.post("/api/games", data=raw, content_type="application/json")
    assert response.status_code == 400 and "JSON" in response.get_json()["error"]


def test_camera_without_device_falls_back_to_virtual_with_notice(client, monkeypatch):
    monkeypatch.setattr("web.dice_sources.camera_present", lambda: False)
    response = client.post("/api/games", json={"players": ["Ann"], "source": "camera"})
    assert response.status_code == 201
    body = response.get_json()
    assert body["state"]["source"] == "virtual" and "no camera" in body["notice"]


def test_camera_is_used_when_a_device_is_present(client, monkeypatch):
    monkeypatch.setattr("web.dice_sources.camera_present", lambda: True)
    body = client.post("/api/games", json={"players": ["Ann"], "source": "camera"}).get_json()
    assert body["state"]["source"] == "camera" and "notice" not in body


# ---- reading ------------------------------------------------------------------------------------
def test_unknown_game_is_404_everywhere(client):
    for path in ("/api/games/99", "/api/games/99/events", "/api/games/99/stream"):
        response = client.get(path)
        assert response.status_code == 404 and "no game 99" in response.get_json()["error"]
    response = client.post("/api/games/99/throw", json={})
    assert response.status_code == 404


def test_unknown_api_path_and_method_answer_json(client, new_table):
    table = new_table()
    assert client.get("/api/nothing").status_code == 404
    assert "error" in client.get("/api/nothing").get_json()
    response = client.post(f"/api/games/{table.id}/dance", json={}, headers=table.auth)
    assert response.status_code == 404 and "unknown action 'dance'" in response.get_json()["error"]
    response = client.put(f"/api/games/{table.id}")
    assert response.status_code == 405 and "error" in response.get_json()


def test_reading_needs_no_token(client, new_table):
    table = new_table()
    assert client.get(f"/api/games/{table.id}").get_json()["id"] == table.id


# ---- access -------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["throw", "keep", "bank", "piggyback", "correct", "undo"])
def test_every_action_needs_the_token(client, new_table, action):
    table = new_table(source="manual")
    table.post("throw", {"dice": [1, 5, 2, 3, 4]})
    for headers, query in (
        ({}, ""),
        ({"Authorization": "Bearer wrong"}, ""),
        ({}, "?token=wrong"),
        ({"Authorization": f"Token {table.token}"}, ""),
    ):
        response = client.post(f"/api/games/{table.id}/{action}{query}", json={"dice": [1]}, headers=headers)
        assert response.status_code == 403, (headers, query)
        assert "token" in response.get_json()["error"]
    assert table.get() == table.state and len(table.events()) == 1


def test_token_of_another_game_is_refused(client, new_table):
    mine, other = new_table(), new_table()
    response = client.post(f"/api/games/{mine.id}/throw", json={}, headers=other.auth)
    assert response.status_code == 403 and mine.get()["version"] == 0


def test_token_in_the_page_link_is_accepted(client, new_table):
    table = new_table()
    response = client.post(f"/api/games/{table.id}/throw?token={table.token}", json={})
    assert response.status_code == 200 and response.get_json()["version"] == 1


# ---- actions and rule paths -----------------------------------------------------------------------
def test_virtual_throw_rolls_the_dice_in_play(new_table):
    table = new_table(rules="farke")
    state = table.post("throw")
    assert state["version"] == 1 and len(table.events()) == 1
    faces = table.events()[0]["faces"]
    assert len(faces) == 6 and all(1 <= f <= 6 for f in faces)
    assert state["throw"] == faces or state["current"] == 1  # a farkle passes the turn at once


def test_virtual_game_refuses_typed_dice(new_table):
    table = new_table()
    assert "virtual dice" in table.post("throw", {"dice": [1, 1, 1, 1, 1]}, expect=400)["error"]
    assert table.events() == []


def test_manual_game_needs_the_faces(new_table):
    table = new_table(source="manual")
    assert "send the faces" in table.post("throw", {}, expect=400)["error"]


def test_keep_roll_on_and_bank(new_table):
    table = new_table(rules="family", source="manual")
    state = table.post("throw", {"dice": [1, 5, 2, 3, 3]})
    assert state["throw"] == [1, 5, 2, 3, 3]
    assert [(k["dice"], k["points"]) for k in state["keeps"]] == [([1, 5], 150), ([1], 100), ([5], 50)]
    state = table.post("keep", {"dice": [1]})
    assert state["turn_total"] == 100 and state["dice_left"] == 4 and state["throw"] is None
    state = table.post("throw", {"dice": [5, 2, 3, 4]})
    state = table.post("bank", {"dice": [5]})  # keep and bank in one step
    assert state["players"][0]["score"] == 150 and state["current"] == 1 and state["version"] == 5
    assert [e["type"] for e in table.events()] == ["throw", "keep", "throw", "keep", "bank"]


def test_farkle_passes_the_turn(new_table):
    table = new_table(rules="family", source="manual")
    state = table.post("throw", {"dice": [2, 3, 4, 6, 6]})
    assert state["current"] == 1 and state["turn_total"] == 0
    assert state["last_farkle"] == {"player": "Ann", "faces": [2, 3, 4, 6, 6]}


@pytest.mark.parametrize(
    ("action", "body", "message"),
    [
        ("keep", {"dice": [1]}, "no throw to keep"),
        ("bank", {}, "nothing set aside"),
        ("correct", {"dice": [1, 1, 1, 1, 1]}, "only the last throw"),
        ("undo", {}, "nothing to undo"),
        ("piggyback", {}, "do not allow"),
    ],
)
def test_illegal_actions_at_the_start_are_422(new_table, action, body, message):
    table = new_table(rules="family", source="manual")
    assert message in table.post(action, body, expect=422)["error"]
    assert table.get()["version"] == 0 and table.events() == []


def test_illegal_keeps_are_422_and_change_nothing(new_table):
    table = new_table(rules="family", source="manual")
    table.post("throw", {"dice": [1, 5, 2, 3, 3]})
    before = table.get()
    assert "do not all score" in table.post("keep", {"dice": [1, 2]}, expect=422)["error"]
    assert "not all in the throw" in table.post("keep", {"dice": [1, 1]}, expect=422)["error"]
    assert "before throwing again" in table.post("throw", {"dice": [1, 2, 3, 4, 5]}, expect=422)["error"]
    assert table.get() == before and len(table.events()) == 1


@pytest.mark.parametrize(
    ("action", "body", "message"),
    [
        ("keep", {"dice": [7]}, "from 1 to 6"),
        ("keep", {"dice": ["one"]}, "whole number"),
        ("keep", {"dice": [True]}, "whole number"),
        ("keep", {"dice": "15"}, "list of faces"),
        ("keep", {"dice": []}, "no dice"),
        ("keep", {}, "needs the dice"),
        ("keep", {"dice": [1, 1, 1, 1, 1, 1]}, "played with 5"),
        ("correct", {"dice": None}, "needs the dice"),
        ("keep", {"dice": [1], "extra": 1}, "unknown field 'extra'"),
        ("undo", {"dice": [1]}, "unknown field 'dice'"),
        ("keep", {"dice": [1], "version": "1"}, '"version" must be'),
        ("keep", {"dice": [1], "version": -1}, '"version" must be'),
    ],
)
def test_malformed_actions_are_400_and_change_nothing(new_table, action, body, message):
    table = new_table(rules="family", source="manual")
    table.post("throw", {"dice": [1, 5, 2, 3, 3]})
    assert message in table.post(action, body, expect=400)["error"]
    assert table.get()["version"] == 1 and len(table.events()) == 1


def test_malformed_json_on_an_action_is_400(client, new_table):
    table = new_table()
    for raw in (b"{", b"[]", b"null", b"12"):
        response = client.post(
            f"/api/games/{table.id}/throw", data=raw, headers=table.auth, content_type="application/json"
        )
        assert response.status_code == 400
    assert table.events() == []


def test_stale_version_is_409_with_the_current_state(client, new_table):
    table = new_table(source="manual")
    table.post("throw", {"dice": [1, 5, 2, 3, 3]})
    ok = table.post("keep", {"dice": [1], "version": 1})
    stale = table.post("keep", {"dice": [5], "version": 1}, expect=409)
    assert "version 1" in stale["error"] and stale["state"] == ok == table.get()
    assert len(table.events()) == 2


def test_if_match_header_carries_the_version(client, new_table):
    table = new_table()
    response = client.post(f"/api/games/{table.id}/throw", json={}, headers={**table.auth, "If-Match": '"5"'})
    assert response.status_code == 409 and response.get_json()["state"]["version"] == 0
    response = client.post(f"/api/games/{table.id}/throw", json={}, headers={**table.auth, "If-Match": "x"})
    assert response.status_code == 400
    response = client.post(f"/api/games/{table.id}/throw", json={}, headers={**table.auth, "If-Match": "0"})
    assert response.status_code == 200


def test_empty_body_counts_as_empty_object(client, new_table):
    table = new_table()
    response = client.post(f"/api/games/{table.id}/throw", headers=table.auth)
    assert response.status_code == 200 and response.get_json()["version"] == 1


def test_correct_a_misread_throw(new_table):
    table = new_table(rules="family", source="manual")
    table.post("throw", {"dice": [1, 2, 3, 4, 6]})
    state = table.post("correct", {"dice": [1, 1, 3, 4, 6]})
    assert state["throw"] == [1, 1, 3, 4, 6] and state["keeps"][0] == {
        "dice": [1, 1],
        "points": 200,
        "instant_win": False,
        "can_bank": True,
    }
    assert "corrected throw has 4 dice" in table.post("correct", {"dice": [1, 1, 3, 4]}, expect=422)["error"]
    assert [e["type"] for e in table.events()] == ["throw", "correct"]


def test_undo_takes_back_the_last_event_and_is_logged(new_table):
    table = new_table(rules="family", source="manual")
    table.post("throw", {"dice": [1, 5, 2, 3, 3]})
    table.post("keep", {"dice": [1, 5]})
    state = table.post("undo")
    assert state["throw"] == [1, 5, 2, 3, 3] and state["turn_total"] == 0 and state["version"] == 3
    state = table.post("undo")
    assert state["throw"] is None and state["version"] == 4
    assert [e["type"] for e in table.events()] == ["throw", "keep", "undo", "undo"]


def test_entry_score_blocks_bank(new_table):
    table = new_table(rules="farke", source="manual")  # entry 750
    table.post("throw", {"dice": [1, 5, 2, 3, 4, 6]})
    table.post("keep", {"dice": [1]})
    assert "needs 750" in table.post("bank", expect=422)["error"]


def test_hot_dice_must_be_rolled_in_tenthousand(new_table):
    table = new_table(rules="tenthousand", source="manual")
    table.post("throw", {"dice": [1, 1, 1, 5, 5, 1]})
    state = table.post("keep", {"dice": [1, 1, 1, 1, 5, 5]})
    assert state["hot_dice"] is True and state["dice_left"] == 6 and state["can_bank"] is False
    assert "hot dice" in table.post("bank", expect=422)["error"]


def test_piggyback_takes_over_the_leftover_dice(new_table):
    table = new_table(["Ann", "Bob"], rules="wikipedia", set={"entry": 0}, source="manual")
    table.post("throw", {"dice": [1, 1, 1, 2, 3, 4]})
    table.post("keep", {"dice": [1, 1, 1]})
    state = table.post("bank")
    assert state["can_piggyback"] is True and state["leftover"] == {"dice": 3, "turn_total": 1000}
    state = table.post("piggyback")
    assert state["current"] == 1 and state["turn_total"] == 1000 and state["dice_left"] == 3
    assert "start of a turn" in table.post("piggyback", expect=422)["error"]


def test_instant_win_ends_the_game_and_then_only_undo_works(new_table):
    table = new_table(rules="farke", source="manual")
    table.post("throw", {"dice": [1, 1, 1, 1, 1, 1]})
    state = table.post("keep", {"dice": [1, 1, 1, 1, 1, 1]})
    assert state["finished"] is True and state["winner"] == "Ann"
    assert "game is over" in table.post("throw", {"dice": [1, 2, 3, 4, 5, 6]}, expect=422)["error"]
    assert "game is over" in table.post("bank", expect=422)["error"]
    assert table.post("undo")["finished"] is False


def test_last_chance_final_round(new_table):
    table = new_table(["Ann", "Bob"], rules="zilch", set={"target": 500, "entry": 0}, source="manual")
    table.post("throw", {"dice": [1, 1, 1, 2, 3, 4]})
    state = table.post("bank", {"dice": [1, 1, 1]})
    assert state["final_round"] is True and state["finished"] is False and state["current"] == 1
    state = table.post("throw", {"dice": [2, 2, 3, 3, 4, 6]})
    assert state["finished"] is True and state["winner"] == "Ann"


def test_three_farkles_cost_the_penalty(new_table):
    table = new_table(["Ann"], rules="farkle", source="manual")
    for _ in range(3):
        state = table.post("throw", {"dice": [2, 2, 3, 3, 4, 6]})
    assert state["players"][0]["score"] == -1000 and state["players"][0]["farkles_in_a_row"] == 0


# ---- events and the log ------------------------------------------------------------------------------
def test_events_replay_to_the_served_state(client, new_table):
    table = new_table(rules="family", source="manual")
    for action, body in [
        ("throw", {"dice": [1, 5, 2, 3, 3]}),
        ("keep", {"dice": [1]}),
        ("throw", {"dice": [5, 5, 5, 2]}),
        ("correct", {"dice": [5, 5, 2, 2]}),
        ("keep", {"dice": [5]}),
        ("undo", {}),
        ("bank", {"dice": [5, 5]}),
    ]:
        table.post(action, body)
    events = table.events()
    assert [e["seq"] for e in events] == list(
        range(1, 9)
    )  # bank with dice stores keep + bank and all(e["at"] for e in events)
    replayed = Game(["Ann", "Bob"], preset("family"), [event_from_dict(e) for e in events])
    served = table.get()
    for player in served["players"]:
        del player["computer"]
    assert replayed.state.to_dict() == {k: v for k, v in served.items() if k in replayed.state.to_dict()}
    assert [{"name": p["name"], "score": p["score"]} for p in served["players"]] == [
        {"name": "Ann", "score": 200},
        {"name": "Bob", "score": 0},
    ]


def test_stream_through_the_test_client_opens_with_the_state(client, new_table):
    table = new_table()
    response = client.get(f"/api/games/{table.id}/stream", buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    chunks = iter(response.response)
    assert next(chunks) == b"retry: 1000\n\n"
    head, data = next(chunks).decode().split("data: ", 1)
    assert head == "id: 0\nevent: state\n" and json.loads(data) == table.get()
    response.close()

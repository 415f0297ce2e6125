"""Careless and hostile input: every one is a 4xx that names the problem and changes nothing stored."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from web.inputs import MAX_JSON_DEPTH, too_deep

HUGE_ID = 2**63


def stored(db_path: Path) -> str:
    """A digest of every stored game and event: equal digests, equal stored state."""
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute("SELECT id, players, rules, source, token FROM games ORDER BY id").fetchall()
        rows += conn.execute("SELECT game_id, seq, event FROM events ORDER BY game_id, seq").fetchall()
    finally:
        conn.close()
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def nested(depth: int) -> bytes:
    return b'{"players": ' + b"[" * depth + b"]" * depth + b"}"


# ---- the inputs the issue lists, one by one -------------------------------------------------------
@pytest.mark.parametrize(
    "body, status, words",
    [
        ({"players": ["Ann"], "set": {"entry": 10_000_000}}, 400, ["entry", "from 0 to 100000"]),
        ({"players": ["Ann"], "set": {"target": "\u00b2"}}, 400, ["target", "from 1 to 1000000"]),
        ({"players": ["Ann"], "set": {"target": "7" * 5000}}, 400, ["target", "from 1 to 1000000"]),
        ({"players": ["Ann"], "set": {"target": 10**400}}, 400, ["at most 15 digits"]),
        ({"players": ["Ann"], "set": {"target": 10**12}}, 400, ["target", "from 1 to 1000000"]),
        ({"players": ["Ann"], "set": {"dice": 4}}, 400, ["dice must be 5 or 6"]),
        ({"players": ["Ann"], "set": {"straight": 1234}}, 400, ["straight", "multiple of 50 from 50 to 10000"]),
        ({"players": ["Ann\x00"]}, 400, ["control character U+0000"]),
        ({"players": ["\u202eevil"]}, 400, ["control character U+202E"]),
        ({"players": ["Ann", "B\u2066ob"]}, 400, ["control character U+2066"]),
    ],
)
def test_bad_create_bodies_are_400_with_the_reason(client, db_path, body, status, words):
    before = stored(db_path)
    response = client.post("/api/games", data=json.dumps(body), content_type="application/json")
    assert response.status_code == status
    error = response.get_json()["error"]
    assert all(word in error for word in words), error
    assert stored(db_path) == before


def test_names_may_hold_emoji_joiners(client):
    response = client.post("/api/games", json={"players": ["\U0001f469\u200d\U0001f4bb Ann", "Bob"]})
    assert response.status_code == 201


@pytest.mark.parametrize(
    "path, depth",
    [
        ("/api/games/import", 100_000),
        ("/api/games", 20_000),
        ("/api/games", MAX_JSON_DEPTH + 1),
        ("/api/games/import", MAX_JSON_DEPTH + 1),
    ],
)
def test_deeply_nested_json_is_400(client, db_path, path, depth):
    before = stored(db_path)
    response = client.post(path, data=nested(depth), content_type="application/json")
    assert response.status_code == 400 and "nests more than" in response.get_json()["error"]
    assert stored(db_path) == before


def test_a_create_body_past_its_cap_is_413(client):
    response = client.post("/api/games", data=nested(100_000), content_type="application/json")
    assert response.status_code == 413 and "at most" in response.get_json()["error"]


def test_json_just_within_the_depth_limit_is_read(client):
    response = client.post("/api/games", data=nested(MAX_JSON_DEPTH - 1), content_type="application/json")
    assert response.status_code == 400 and "nests" not in response.get_json()["error"]


@pytest.mark.parametrize(
    "raw, deep",
    [
        (b"[" * 17 + b"]" * 17, True),
        (b"[" * 16 + b"]" * 16, False),
        (b'{"a": "[[[[[[[[[[[[[[[[[[[[[[[["}', False),
        (b'["\\"[[[[[[[[[[[[[[[[[[[["]', False),
    ],
)
def test_depth_ignores_brackets_inside_strings(raw, deep):
    assert too_deep(raw) is deep


def test_a_huge_game_id_is_404_everywhere(client, new_table):
    table = new_table()
    for path in (
        f"/api/games/{HUGE_ID}",
        f"/api/games/{HUGE_ID}/events",
        f"/api/games/{HUGE_ID}/stream",
        f"/games/{HUGE_ID}/table?token={table.token}",
        f"/history/{HUGE_ID}",
        f"/history/{HUGE_ID}.csv",
        f"/camera/games/{HUGE_ID}/pending",
    ):
        assert client.get(path).status_code == 404, path
    response = client.post(f"/api/games/{HUGE_ID}/throw", json={}, headers=table.auth)
    assert response.status_code == 404


@pytest.mark.parametrize(
    "headers, body, words",
    [
        ({"If-Match": "\u00b2"}, {}, ["If-Match", "whole number"]),
        ({"If-Match": "9" * 5000}, {}, ["If-Match", "whole number"]),
        ({}, {"dice": ["\u00b2"]}, ["from 1 to 6"]),
        ({}, {"dice": [1] * 100_000}, ["100000 dice given"]),
        ({}, {"version": 10**30}, ["at most 15 digits"]),
    ],
)
def test_bad_actions_are_400_and_change_nothing(client, db_path, new_table, headers, body, words):
    table = new_table(source="manual")
    before = stored(db_path)
    response = client.post(
        f"/api/games/{table.id}/throw",
        data=json.dumps(body),
        content_type="application/json",
        headers={**table.auth, **headers},
    )
    assert response.status_code in (400, 413)
    error = response.get_json()["error"]
    assert all(word in error for word in words) or response.status_code == 413, error
    assert stored(db_path) == before


def test_an_oversized_action_body_is_413(client, new_table):
    table = new_table()
    response = client.post(
        f"/api/games/{table.id}/throw", data=b" " * 20_000 + b"{}", content_type="application/json", headers=table.auth
    )
    assert response.status_code == 413


@pytest.mark.parametrize(
    "knob, value, words",
    [
        ("knob_entry", "99999999999", ["entry must be a whole number from 0 to 100000"]),
        ("knob_target", "\u00b2", ["target must be a whole number from 1 to 1000000"]),
        ("knob_target", "9" * 5000, ["target must be a whole number from 1 to 1000000"]),
        ("knob_dice", "9", ["dice must be 5 or 6"]),
        ("knob_piggyback", "maybe", ["piggyback must be true or false"]),
        ("knob_boxcar", "maybe", ["boxcar must be true or false"]),
        ("knob_tie_replay", "coin", ["tie_replay must be one of tied-only, everyone"]),
        ("knob_starts", "\u00b2", ["starts must be one of seat-order, highest-roll"]),
    ],
)
def test_bad_form_knobs_are_400_with_the_form_again(client, db_path, knob, value, words):
    before = stored(db_path)
    response = client.post("/games", data={"player": ["Ann"], "rules": "family", knob: value})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert all(word in page for word in words)
    assert stored(db_path) == before


# ---- hygiene ----------------------------------------------------------------------------------------
def test_create_and_import_want_json_not_forms_or_text(client, db_path):
    before = stored(db_path)
    for path in ("/api/games", "/api/games/import"):
        response = client.post(path, data='{"players": ["Ann"]}', content_type="text/plain")
        assert response.status_code == 415
    assert stored(db_path) == before


@pytest.mark.parametrize(
    "origin, status",
    [
        ("https://evil.example", 403),
        ("null", 403),
        ("http://localhost", 201),
        (None, 201),
    ],
)
def test_posts_from_another_site_are_refused(client, db_path, origin, status):
    headers = {"Origin": origin} if origin else {}
    before = stored(db_path)
    response = client.post("/api/games", json={"players": ["Ann"]}, headers=headers)
    assert response.status_code == status
    form = client.post("/games", data={"player": ["Ann"], "rules": "family"}, headers=headers)
    assert form.status_code == (403 if status == 403 else 302)
    if status == 403:
        assert stored(db_path) == before


def test_a_public_url_is_a_trusted_origin(app, client):
    app.config["PUBLIC_URL"] = "http://192.168.1.20:8000"
    response = client.post("/api/games", json={"players": ["Ann"]}, headers={"Origin": "http://192.168.1.20:8000"})
    assert response.status_code == 201


def test_cross_site_fetch_without_origin_is_refused(client):
    response = client.post("/api/games", json={"players": ["Ann"]}, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403


def test_csv_export_defuses_formulas_in_names(client):
    created = client.post(
        "/api/games", json={"players": ['=HYPERLINK("x")', "+Bob", "Cy"], "source": "manual"}
    ).get_json()
    auth = {"Authorization": f"Bearer {created['token']}"}
    client.post(f"/api/games/{created['id']}/throw", json={"dice": [2, 3, 4, 6, 6]}, headers=auth)
    client.post(f"/api/games/{created['id']}/throw", json={"dice": [2, 3, 4, 6, 2]}, headers=auth)
    text = client.get(f"/history/{created['id']}.csv").get_data(as_text=True)
    lines = text.splitlines()[1:]
    assert len(lines) == 2
    players = [line.split(",")[2] for line in lines]
    assert players[0].startswith("\"'=HYPERLINK") and players[1] == "'+Bob"


# ---- fuzzing: never a 5xx, and a refused request stores nothing -------------------------------------
HOSTILE_TEXT = st.sampled_from(
    [
        "\u00b2",
        "\u0663",
        "\uff15",
        "9" * 5000,
        "1e400",
        "-1",
        "NaN",
        "\x00",
        "\u202e",
        "",
        " ",
        "0",
        "06",
        "1_000",
        "1,000",
        "true",
        "off",
        "family",
        "6",
        "10000",
    ]
)
NUMBERS = st.integers(-(10**15) + 1, 10**15 - 1) | st.sampled_from([0, 1, 5, 6, 50, 1_000_000, 2**63])
SCALARS = (
    st.none()
    | st.booleans()
    | NUMBERS
    | st.floats(allow_nan=False, allow_infinity=False)
    | HOSTILE_TEXT
    | st.text(max_size=12)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.sampled_from(["dice", "version", "type"]), inner, max_size=4)
    ),
    max_leaves=12,
)
KNOBS = st.dictionaries(
    st.sampled_from(
        [
            "dice",
            "target",
            "entry",
            "straight",
            "three_pairs",
            "piggyback",
            "kinds",
            "hot_dice",
            "three_farkle_penalty",
            "speed",
            "boxcar",
            "pass_scores_throw",
            "piggyback_sweep",
            "tie_replay",
            "starts",
        ]
    ),
    SCALARS | JSON,
    max_size=3,
)
CREATE = st.fixed_dictionaries(
    {},
    optional={
        "players": st.lists(HOSTILE_TEXT | st.text(max_size=6), max_size=14) | JSON,
        "rules": st.sampled_from(["family", "zilch", "farkle", "poker"]) | JSON,
        "set": KNOBS | JSON,
        "house": st.lists(st.sampled_from(["greed", "amish", "alternative-sets", "cheat"]), max_size=3) | JSON,
        "source": st.sampled_from(["virtual", "manual", "camera", "robot"]) | JSON,
    },
)
ACTION = (
    st.fixed_dictionaries(
        {},
        optional={
            "dice": st.lists(st.integers(0, 7) | HOSTILE_TEXT, max_size=8) | JSON,
            "version": NUMBERS | HOSTILE_TEXT | JSON,
            "face": st.integers(-1, 8) | HOSTILE_TEXT | JSON,
            "points": NUMBERS | HOSTILE_TEXT | st.sampled_from(["+350", "+ 350", "++50", "50.0"]) | JSON,
            "player": NUMBERS | HOSTILE_TEXT | st.sampled_from(["Ann", "Bob"]) | JSON,
            "name": HOSTILE_TEXT | st.sampled_from(["Ann", "*Hal", "Cy", "x" * 41]) | st.text(max_size=8) | JSON,
            "target": NUMBERS | HOSTILE_TEXT | JSON,
        },
    )
    | JSON
)
FLOW_ACTIONS = ["roll-off", "points", "farkle", "undo-turn", "redo", "rename", "target", "add-player", "remove-player"]
RAW = st.binary(max_size=64) | st.sampled_from([nested(5000), b"[" * 40, b'{"a": 1e999}', b"\xff\xfe", b"{}"])
FORM = st.dictionaries(
    st.sampled_from(
        [
            "player",
            "rules",
            "source",
            "house",
            "knob_target",
            "knob_entry",
            "knob_dice",
            "knob_straight",
            "knob_piggyback",
            "knob_kinds",
            "knob_boxcar",
            "knob_tie_replay",
            "knob_starts",
            "knob_pass_scores_throw",
            "knob_piggyback_sweep",
        ]
    ),
    HOSTILE_TEXT | st.text(max_size=10),
    max_size=6,
)

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def check(response: Any, db_path: Path, before: str) -> str:
    """Asserts the answer is not a server error and that a refusal stored nothing; the new digest."""
    assert response.status_code < 500, response.get_data(as_text=True)[:300]
    after = stored(db_path)
    if response.status_code >= 400:
        assert after == before, response.get_data(as_text=True)[:300]
    return after


@FUZZ
@given(body=CREATE | JSON)
def test_fuzzed_create_bodies(client, db_path, body):
    before = stored(db_path)
    check(client.post("/api/games", data=json.dumps(body), content_type="application/json"), db_path, before)


@FUZZ
@given(raw=RAW, path=st.sampled_from(["/api/games", "/api/games/import", "/api/games/1/keep", "/api/games/1/throw"]))
def test_fuzzed_raw_bodies(client, db_path, new_table, raw, path):
    table = new_table(source="manual")
    before = stored(db_path)
    check(
        client.post(
            path.replace("/1/", f"/{table.id}/"), data=raw, content_type="application/json", headers=table.auth
        ),
        db_path,
        before,
    )


@FUZZ
@given(
    body=ACTION,
    action=st.sampled_from(["throw", "keep", "bank", "correct", "piggyback", "undo", *FLOW_ACTIONS]),
    if_match=st.none() | HOSTILE_TEXT,
)
def test_fuzzed_action_bodies(client, db_path, new_table, body, action, if_match):
    table = new_table(source="manual")
    client.post(f"/api/games/{table.id}/throw", json={"dice": [1, 5, 2, 3, 3]}, headers=table.auth)
    headers = {**table.auth, **({"If-Match": if_match} if if_match is not None else {})}
    before = stored(db_path)
    check(
        client.post(
            f"/api/games/{table.id}/{action}", data=json.dumps(body), content_type="application/json", headers=headers
        ),
        db_path,
        before,
    )


@FUZZ
@given(
    exported=st.fixed_dictionaries(
        {
            "players": st.lists(HOSTILE_TEXT, min_size=1, max_size=3) | JSON,
            "rules": st.fixed_dictionaries(
                {"name": HOSTILE_TEXT | JSON}, optional={"dice": SCALARS, "target": SCALARS, "entry": SCALARS}
            )
            | JSON,
            "events": st.lists(
                st.fixed_dictionaries(
                    {
                        "type": st.sampled_from(
                            [
                                "throw",
                                "keep",
                                "bank",
                                "x",
                                "start-roll",
                                "points",
                                "farkle",
                                "rename",
                                "target",
                                "add-player",
                                "remove-player",
                                "undo",
                                "undo-turn",
                                "redo",
                            ]
                        )
                        | JSON
                    },
                    optional={
                        "faces": JSON,
                        "dice": JSON,
                        "face": SCALARS,
                        "points": SCALARS,
                        "player": SCALARS,
                        "name": SCALARS,
                        "target": SCALARS,
                    },
                ),
                max_size=4,
            )
            | JSON,
        },
        optional={"source": st.sampled_from(["manual", "camera", "robot"]) | JSON},
    )
)
def test_fuzzed_imports(client, db_path, exported):
    before = stored(db_path)
    raw = json.dumps(exported).encode()
    before = check(client.post("/api/games/import", data=raw, content_type="application/json"), db_path, before)
    check(
        client.post(
            "/history/import", data={"game": (io.BytesIO(raw), "game.json")}, content_type="multipart/form-data"
        ),
        db_path,
        before,
    )


@FUZZ
@given(form=FORM)
def test_fuzzed_new_game_forms(client, db_path, form):
    before = stored(db_path)
    check(client.post("/games", data=form), db_path, before)


def test_an_import_past_the_event_cap_is_400(client, db_path):
    from web.games import MAX_IMPORT_EVENTS

    before = stored(db_path)
    body = {"players": ["Ann"], "rules": {"name": "family"}, "events": [{"type": "bank"}] * (MAX_IMPORT_EVENTS + 1)}
    response = client.post("/api/games/import", json=body)
    assert response.status_code == 400 and f"at most {MAX_IMPORT_EVENTS} events" in response.get_json()["error"]
    assert stored(db_path) == before


@pytest.mark.parametrize(
    "event, words",
    [
        ({"type": "points", "points": "\u00b2"}, ["points must be a whole number"]),
        ({"type": "points", "points": "9" * 5000}, ["points must be a whole number"]),
        ({"type": "target", "target": 10**14}, ["the target must be a whole number"]),
        ({"type": "target", "target": 2_000_000}, ["the target must be a whole number from 1 to 1000000"]),
        ({"type": "rename", "player": 0, "name": "x" * 500}, ["at most 40 printable characters"]),
        ({"type": "add-player", "name": "Zed\x00"}, ["at most 40 printable characters"]),
        ({"type": "remove-player", "player": 2**40}, ["a seat must be a whole number"]),
        ({"type": "remove-player", "player": 99}, ["no player in seat 99"]),
    ],
)
def test_bad_new_events_in_an_import_are_400(client, db_path, event, words):
    before = stored(db_path)
    body = {"players": ["Ann", "Bob"], "rules": {"name": "family"}, "events": [event]}
    response = client.post("/api/games/import", json=body)
    assert response.status_code == 400, response.get_data(as_text=True)[:300]
    assert all(word in response.get_json()["error"] for word in words)
    assert stored(db_path) == before


@FUZZ
@given(body=ACTION, action=st.sampled_from(FLOW_ACTIONS), source=st.sampled_from(["manual", "virtual"]))
def test_fuzzed_flow_actions_before_the_first_turn(client, db_path, new_table, body, action, source):
    """Before anything was thrown every flow action may apply; a refused one stores nothing."""
    table = new_table(["Ann", "Bob"], rules="family", source=source)
    before = stored(db_path)
    check(
        client.post(
            f"/api/games/{table.id}/{action}",
            data=json.dumps(body),
            content_type="application/json",
            headers=table.auth,
        ),
        db_path,
        before,
    )

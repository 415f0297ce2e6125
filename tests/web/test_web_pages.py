"""The HTML pages through the test client: forms, access, the QR link, history, export and import."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from scorekeeper import PRESETS


def play_a_short_game(table) -> None:
    """Ann banks 1000 then wins at once with six 1s worth 8000 (farke rules, manual dice)."""
    table.post("throw", {"dice": [1, 1, 1, 2, 3, 4]})
    table.post("bank", {"dice": [1, 1, 1]})
    table.post("throw", {"dice": [2, 2, 3, 3, 4, 6]})  # Bob farkles
    table.post("throw", {"dice": [1, 1, 1, 1, 1, 1]})
    table.post("keep", {"dice": [1, 1, 1, 1, 1, 1]})


def test_new_game_form_offers_presets_house_rules_and_sources(client):
    page = client.get("/").get_data(as_text=True)
    for name in PRESETS:
        assert f'<option value="{name}"' in page
    for house in ("greed", "amish", "alternative-sets"):
        assert f'value="{house}"' in page
    for source in ("virtual", "manual", "camera"):
        assert f'name="source" value="{source}"' in page
    assert 'name="knob_target"' in page and 'name="knob_three_farkle_penalty"' in page
    assert 'value="virtual" checked' in page  # the app's default source


def test_the_form_creates_a_game_and_opens_its_table_view(client):
    response = client.post(
        "/games",
        data={
            "player": ["Ann", "", "Bot"],
            "rules": "zilch",
            "house": ["greed"],
            "knob_target": "5000",
            "source": "manual",
        },
    )
    assert response.status_code == 302
    match = re.fullmatch(r"/games/(\d+)/table\?token=([\w-]+)", response.headers["Location"])
    assert match
    state = client.get(f"/api/games/{match.group(1)}").get_json()
    assert [p["name"] for p in state["players"]] == ["Ann", "Player 2", "Bot"] and state["rules"] == "zilch+"
    assert state["source"] == "manual"
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Ann" in page and "Bot" in page


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"rules": "family"}, "at least one player"),
        ({"player": ["Ann", "Ann"], "rules": "family"}, "must differ"),
        ({"player": ["Ann"], "rules": "family", "knob_target": "lots"}, "target must be a whole number"),
        ({"player": ["Ann"], "rules": "nope"}, "unknown rules"),
        ({"player": ["Ann"], "rules": "family", "source": "radio"}, "unknown dice source"),
    ],
)
def test_a_bad_form_is_shown_again_with_the_message(client, form, message):
    response = client.post("/games", data=form)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert message in page and 'id="form-error"' in page
    assert client.get("/api/games").get_json() == []


def test_camera_asked_without_camera_is_told_on_the_table_view(client, monkeypatch):
    monkeypatch.setattr("web.dice_sources.camera_present", lambda: False)
    response = client.post(
        "/games", data={"player": ["Ann"], "rules": "family", "source": "camera"}, follow_redirects=True
    )
    assert response.status_code == 200 and "no camera found" in response.get_data(as_text=True)


@pytest.mark.parametrize("view", ["table", "play"])
def test_game_views_need_the_token(client, new_table, view):
    table = new_table()
    assert client.get(f"/games/{table.id}/{view}").status_code == 403
    assert "secret token" in client.get(f"/games/{table.id}/{view}?token=nope").get_data(as_text=True)
    assert client.get(f"/games/999/{view}?token={table.token}").status_code == 404
    assert client.get(f"/games/{table.id}/{view}?token={table.token}").status_code == 200


def test_table_view_shows_the_qr_code_of_the_phone_link(app, client, new_table):
    app.config["PUBLIC_URL"] = "http://192.168.1.20:8000"
    table = new_table(["Ann", "Bob"])
    page = client.get(f"/games/{table.id}/table?token={table.token}").get_data(as_text=True)
    link = f"http://192.168.1.20:8000/games/{table.id}/play?token={table.token}"
    assert f'href="{link}"' in page
    assert re.search(r'<div class="qr" id="qr"><svg [^>]*class="segno"', page)
    config = json.loads(re.search(r'<script id="game-config" type="application/json">(.*?)</script>', page).group(1))
    assert config["id"] == table.id and config["token"] == table.token and config["state"] == table.state
    assert "/static/shortcuts.js" in page and "<kbd>R</kbd> roll" in page and 'id="shortcuts-help"' in page


def test_the_qr_code_decodes_to_the_phone_link(app, client, new_table):
    """The QR matrix is compared with one made from the expected link, so a wrong link fails."""
    import segno

    table = new_table()
    page = client.get(f"/games/{table.id}/table?token={table.token}").get_data(as_text=True)
    expected = segno.make(f"http://localhost/games/{table.id}/play?token={table.token}", error="m")
    assert expected.svg_inline(scale=4, dark="#111", light="#fff") in page


def test_phone_view_has_no_keyboard_shortcuts_but_the_same_board(client, new_table):
    table = new_table(source="manual")
    page = client.get(f"/games/{table.id}/play?token={table.token}").get_data(as_text=True)
    assert "/static/shortcuts.js" not in page and 'id="shortcuts-help"' not in page
    for element in ('id="dice"', 'id="keeps"', 'id="roll"', 'id="bank"', 'id="undo"', 'id="correct"', 'id="entry"'):
        assert element in page


def test_history_lists_games_with_players_rules_and_winner(client, new_table):
    finished = new_table(["Ann", "Bob"], rules="farke", source="manual")
    play_a_short_game(finished)
    playing = new_table(["Cy"], rules="zilch")
    page = client.get("/history/").get_data(as_text=True)
    rows = re.findall(r'<tr data-game="(\d+)">(.*?)</tr>', page, re.S)
    assert [int(r[0]) for r in rows] == [playing.id, finished.id]
    assert "zilch" in rows[0][1] and "<em>playing</em>" in rows[0][1]
    assert "Ann (9000)" in rows[1][1] and "<strong>Ann</strong>" in rows[1][1] and "farke" in rows[1][1]
    assert finished.token not in page


def test_history_of_one_game_shows_the_log_and_the_chart(client, new_table):
    table = new_table(["Ann", "Bob"], rules="farke", source="manual")
    play_a_short_game(table)
    page = client.get(f"/history/{table.id}").get_data(as_text=True)
    assert 'id="winner">Ann won with 9000.' in page
    turns = re.findall(r'<li class="(\w[\w-]*)" data-turn="(\d+)">(.*?)</li>', page, re.S)
    assert [(kind, int(n)) for kind, n, _ in turns] == [("instant-win", 3), ("farkle", 2), ("bank", 1)]
    assert "threw 1-1-1-2-3-4, kept 1-1-1 (1000)" in re.sub(r"\s+", " ", turns[2][2])
    lines = dict(re.findall(r'<polyline class="series" data-player="(\w+)".*?points="([^"]*)"', page, re.S))
    assert set(lines) == {"Ann", "Bob"}
    ann = [tuple(map(float, p.split(","))) for p in lines["Ann"].split()]
    assert len(ann) == 3 and ann[0][1] > ann[1][1] > ann[2][1]  # two rising steps (SVG y grows downwards)
    assert len(lines["Bob"].split()) == 2


def test_history_of_an_unknown_game_is_404(client):
    assert client.get("/history/42").status_code == 404
    assert client.get("/history/42.json").status_code == 404
    assert client.get("/history/42.csv").status_code == 404


def test_csv_export_has_one_row_per_throw(client, new_table):
    table = new_table(["Ann", "Bob"], rules="farke", source="manual")
    play_a_short_game(table)
    response = client.get(f"/history/{table.id}.csv")
    assert response.mimetype == "text/csv" and "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [(r["turn"], r["player"], r["faces"], r["kept"], r["result"], r["score_after"]) for r in rows] == [
        ("1", "Ann", "1-1-1-2-3-4", "1-1-1", "bank", "1000"),
        ("2", "Bob", "2-2-3-3-4-6", "", "farkle", "0"),
        ("3", "Ann", "1-1-1-1-1-1", "1-1-1-1-1-1", "instant-win", "9000"),
    ]


def test_json_export_imports_as_the_same_game(client, new_table):
    table = new_table(["Ann", "Bob"], rules="farke", set={"target": 3000}, source="manual")
    play_a_short_game(table)
    table.post("undo")
    exported = client.get(f"/history/{table.id}.json")
    assert "attachment" in exported.headers["Content-Disposition"]
    data = exported.get_json()
    assert data["format"] == "dicekeeper-game/1" and data["rules"]["target"] == 3000
    response = client.post("/api/games/import", json=data)
    assert response.status_code == 201
    imported = response.get_json()
    assert imported["id"] != table.id and imported["token"] != table.token
    original = table.get()
    assert {k: v for k, v in imported["state"].items() if k not in ("id", "created_at")} == {
        k: v for k, v in original.items() if k not in ("id", "created_at")
    }
    assert [e["type"] for e in client.get(f"/api/games/{imported['id']}/events").get_json()] == [
        e["type"] for e in table.events()
    ]


def test_the_import_form_takes_an_exported_file(client, new_table):
    table = new_table(["Ann", "Bob"], rules="farke", source="manual")
    play_a_short_game(table)
    exported = client.get(f"/history/{table.id}.json").get_data()
    response = client.post(
        "/history/import", data={"game": (io.BytesIO(exported), "game.json")}, content_type="multipart/form-data"
    )
    assert response.status_code == 302 and response.headers["Location"] == f"/history/{table.id + 1}"
    assert client.get(f"/api/games/{table.id + 1}").get_json()["winner"] == "Ann"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", "not an exported game"),
        (b"[]", "must be a JSON object"),
        (b'{"players": ["Ann"], "rules": {"name": "x", "dice": 9}, "events": []}', "dice must be 5 or 6"),
        (b'{"players": ["Ann"], "rules": {"name": "x"}, "events": [{"type": "bank"}]}', "does not replay"),
        (b'{"players": ["Ann"], "rules": {"name": "x"}, "events": [{"type": "fly"}]}', "unknown event type"),
        (b'{"players": [], "rules": {"name": "x"}, "events": []}', "at least one player"),
        (b"\xff\xfe\x00", "not an exported game"),
    ],
)
def test_a_bad_import_is_refused_and_stores_nothing(client, content, message):
    response = client.post(
        "/history/import", data={"game": (io.BytesIO(content), "bad.json")}, content_type="multipart/form-data"
    )
    assert response.status_code == 400 and message in response.get_data(as_text=True)
    api = client.post("/api/games/import", data=content, content_type="application/json")
    assert api.status_code == 400 and "error" in api.get_json()
    assert client.get("/api/games").get_json() == []


def test_import_without_a_file_is_explained(client):
    response = client.post("/history/import", data={}, content_type="multipart/form-data")
    assert response.status_code == 400 and "Choose an exported game file" in response.get_data(as_text=True)


def test_unknown_page_is_a_404_page(client):
    response = client.get("/nowhere")
    assert response.status_code == 404 and "<html" in response.get_data(as_text=True)

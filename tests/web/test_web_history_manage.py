"""History: resume, abandon and delete games; readable import errors; player stats across games."""

from __future__ import annotations

import io
import re

import pytest
from test_web_browser import LAPTOP, shoot, wait_for
from web_helpers import Table

from web.stats import player_stats


def test_abandon_and_delete_through_the_api_need_the_table(client, new_table):
    table = new_table(["Ann", "Bob"], rules="family")
    seat = client.post(f"/api/games/{table.id}/seats/0", headers=table.auth).get_json()["seat"]
    for headers in ({}, {"Authorization": f"Bearer {seat}"}):
        assert client.post(f"/api/games/{table.id}/abandon", json={}, headers=headers).status_code == 403
        assert client.delete(f"/api/games/{table.id}", headers=headers).status_code == 403
    bad = client.post(f"/api/games/{table.id}/abandon", json={"abandoned": "yes"}, headers=table.auth)
    assert bad.status_code == 400 and "true or false" in bad.get_json()["error"]
    assert client.post(f"/api/games/{table.id}/abandon", json={}, headers=table.auth).status_code == 200
    assert client.get("/api/games").get_json()[0]["abandoned_at"] is not None
    back = client.post(f"/api/games/{table.id}/abandon", json={"abandoned": False}, headers=table.auth)
    assert back.status_code == 200 and client.get("/api/games").get_json()[0]["abandoned_at"] is None
    assert client.delete(f"/api/games/{table.id}", headers=table.auth).status_code == 204
    assert client.get("/api/games").get_json() == []
    assert client.get(f"/api/games/{table.id}").status_code == 404
    other = new_table(["Cy"])
    assert client.get(f"/api/games/{other.id}").status_code == 200


def test_a_finished_game_cannot_be_abandoned(client, new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="manual", set={"target": 300})
    table.post("throw", {"dice": [1, 1, 1, 2, 3]})
    table.post("bank", {"dice": [1, 1, 1]})
    answer = client.post(f"/api/games/{table.id}/abandon", json={}, headers=table.auth)
    assert answer.status_code == 400 and "finished" in answer.get_json()["error"]


def test_deleting_takes_events_and_seats_with_it(app, client, new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    table.post("throw", {"dice": [1, 2, 3, 4, 6]})
    client.post(f"/api/games/{table.id}/seats/1", headers=table.auth)
    assert client.post(f"/history/{table.id}/delete").status_code == 403  # no token
    response = client.post(f"/history/{table.id}/delete?token={table.token}")
    assert response.status_code == 302
    from web.db import connect

    conn = connect(app.config["DATABASE"])
    assert [conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0] for name in ("games", "events", "seats")] == [
        0,
        0,
        0,
    ]
    conn.close()
    assert client.post(f"/history/{table.id}/delete?token={table.token}").status_code == 404


def test_an_open_stream_hears_that_its_game_was_deleted(app, live_server):
    from web_helpers import EventStream

    table = Table(app.test_client(), ["Ann", "Bob"], rules="family")
    stream = EventStream(f"{live_server.url}/api/games/{table.id}/stream")
    try:
        event, data, _ = stream.next_event()
        assert event == "state" and data["id"] == table.id
        assert app.test_client().delete(f"/api/games/{table.id}", headers=table.auth).status_code == 204
        event, data, _ = stream.next_event()
        assert (event, data) == ("gone", {"id": table.id})
    finally:
        stream.close()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "bad.json is empty: choose a file saved with Export JSON."),
        (b"\x89PNG\r\n\x1a\n", "bad.json is not an exported game: it is not JSON text."),
        (
            b'{"players": ["Ann"], "rules": {"name": "x"}, "events": [{"type": "throw", "faces": [2, 2, 3, 4, 6, 6]},'
            b' {"type": "bank"}]}',
            "does not replay under its rules: event 2 of 2 (bank) is refused: ",
        ),
        (
            b'{"players": ["Ann"], "rules": {"name": "x"}, "events": [{"type": "fly"}]}',
            "event 1 of 1 (fly) is refused: unknown event type",
        ),
    ],
)
def test_import_errors_say_what_is_wrong_in_plain_words(client, content, message):
    response = client.post(
        "/history/import", data={"game": (io.BytesIO(content), "bad.json")}, content_type="multipart/form-data"
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 400 and message in page.replace("&#39;", "'"), page[:2000]
    assert "Traceback" not in page and "JSONDecodeError" not in page
    assert client.get("/api/games").get_json() == []


def play(table: Table, moves: list[tuple[str, list[int] | None]]) -> None:
    for action, dice in moves:
        table.post(action, {} if dice is None else {"dice": dice})


def test_stats_count_games_wins_turns_farkles_and_the_best_turn(client, new_table):
    first = new_table(["Ann", "Bob"], rules="family", source="manual", set={"target": 1000})
    play(
        first,
        [
            ("throw", [2, 2, 3, 3, 4]),  # Ann farkles
            ("throw", [1, 5, 2, 3, 4]),
            ("bank", [1, 5]),  # Bob banks 150
            ("throw", [1, 1, 1, 2, 3]),
            ("bank", [1, 1, 1]),
        ],
    )  # Ann banks 1000 and wins
    second = new_table(["Bob", "Ann", "Cy"], rules="family", source="manual")
    play(second, [("throw", [5, 2, 3, 4, 6]), ("bank", [5])])  # Bob banks 50
    abandoned = new_table(["Ann", "Dee"], rules="family", source="manual")
    play(abandoned, [("throw", [1, 1, 1, 1, 2]), ("bank", [1, 1, 1, 1])])
    client.post(f"/api/games/{abandoned.id}/abandon", json={}, headers=abandoned.auth)

    page = client.get("/history/stats").get_data(as_text=True)
    rows = {
        m.group(1): [c for c in re.findall(r"<td>([^<]*)</td>", m.group(2))]
        for m in re.finditer(r'<tr data-player="([^"]+)">(.*?)</tr>', page, re.S)
    }
    # games, wins, turns, average turn, farkle rate, best turn
    assert rows["Ann"] == ["2", "1", "2", "500", "50 %", "1000"]
    assert rows["Bob"] == ["2", "0", "2", "100", "0 %", "150"]
    assert rows["Cy"] == ["1", "0", "0", "0", "0 %", "0"]
    assert "Dee" not in rows  # only in an abandoned game
    assert page.count('class="series"') == 2  # Ann's and Bob's lines; Cy has not played a turn
    one = client.get("/history/stats?player=Bob").get_data(as_text=True)
    assert 'data-player="Bob"' in one and 'data-player="Ann"' not in one and one.count('class="series"') == 1
    assert client.get("/history/stats?player=Nobody").status_code == 404


def test_player_stats_per_game_average(client, new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    play(
        table,
        [
            ("throw", [1, 2, 3, 4, 6]),
            ("bank", [1]),
            ("throw", [2, 2, 3, 3, 4]),
            ("throw", [5, 2, 3, 4, 6]),
            ("bank", [5]),
        ],
    )
    book = client.application.extensions["dicekeeper.games"]
    with client.application.app_context():
        from web.db import get_db

        _, game = book.load(get_db(), table.id)
    stats = player_stats([(table.id, game)])
    assert stats["Ann"].per_game == [(table.id, 75.0)] and stats["Bob"].farkle_rate == 1.0


@pytest.mark.browser
@pytest.mark.slow
def test_an_import_error_in_the_browser_is_one_plain_sentence(live_server, open_window, tmp_path):
    bad = tmp_path / "photo.json"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n not a game")
    window = open_window(LAPTOP)
    window.get(f"{live_server.url}/history/")
    window.find_element("css selector", "#import-form input[type=file]").send_keys(str(bad))
    window.find_element("css selector", "#import-form button[type=submit]").click()
    wait_for(window, lambda d: d.find_elements("id", "import-error"), 5, "no import error shown")
    message = window.find_element("id", "import-error").text
    assert message == (
        "photo.json is not an exported game: it is not JSON text. Import a file saved with "
        "Export JSON on a game's history page."
    )


@pytest.mark.browser
@pytest.mark.slow
def test_resume_abandon_and_delete_from_the_history_list(app, live_server, open_window):
    window = open_window(LAPTOP)
    games = [Table(app.test_client(), ["Ann", "Bob"], rules="family") for _ in range(2)]
    for table in games:  # the table view of each game was open in this browser: it holds the tokens
        window.get(f"{live_server.url}/games/{table.id}/table?token={table.token}")
    stranger = Table(app.test_client(), ["Cy", "Dee"], rules="family")
    window.get(f"{live_server.url}/history/")

    def row(game_id: int):
        return window.find_element("css selector", f"tr[data-game='{game_id}']")

    assert not row(stranger.id).find_elements("css selector", ".resume a, .resume button")
    resume = row(games[0].id).find_element("css selector", ".resume a")
    assert resume.text == "Resume" and resume.get_attribute("href").endswith(f"token={games[0].token}")

    row(games[0].id).find_element("css selector", "button.manage-abandon").click()
    wait_for(window, lambda d: d.find_elements("id", "abandoned"), 5, "no abandoned section")
    assert "Abandoned games (1)" in window.find_element("id", "abandoned").text
    window.find_element("css selector", "#abandoned summary").click()
    shoot(window, "history-abandoned")
    row(games[0].id).find_element("css selector", "button.manage-resume").click()
    wait_for(window, lambda d: f"/games/{games[0].id}/table" in d.current_url, 5, "resume did not open the table")
    window.get(f"{live_server.url}/history/")
    assert not window.find_elements("id", "abandoned")

    row(games[1].id).find_element("css selector", "button.manage-delete").click()
    window.switch_to.alert.dismiss()  # asked first; no: nothing happens
    assert row(games[1].id).is_displayed()
    row(games[1].id).find_element("css selector", "button.manage-delete").click()
    window.switch_to.alert.accept()
    wait_for(
        window,
        lambda d: not d.find_elements("css selector", f"tr[data-game='{games[1].id}']"),
        5,
        "the game was not deleted",
    )
    assert [g["id"] for g in app.test_client().get("/api/games").get_json()] == [stranger.id, games[0].id]

    assert window.find_element("id", "stats-link").get_attribute("href").endswith("/history/stats")
    for moves in (
        [("throw", [1, 5, 2, 3, 4]), ("bank", [1, 5]), ("throw", [2, 2, 3, 3, 4])],
        [("throw", [2, 2, 3, 3, 6]), ("throw", [1, 1, 1, 5, 2]), ("bank", [1, 1, 1, 5])],
        [("throw", [5, 2, 3, 4, 6]), ("bank", [5]), ("throw", [1, 1, 2, 3, 4]), ("bank", [1, 1])],
    ):
        play(Table(app.test_client(), ["Ann", "Bob"], rules="family", source="manual"), moves)
    window.get(f"{live_server.url}/history/stats")
    wait_for(window, lambda d: d.find_elements("id", "stats"), 5)
    names = [r.get_attribute("data-player") for r in window.find_elements("css selector", "#stats tbody tr")]
    assert sorted(names) == ["Ann", "Bob", "Cy", "Dee"]
    assert len(window.find_elements("css selector", "#chart polyline.series")) == 2
    shoot(window, "stats", doc="stats.png")


def test_the_stats_chart_counts_games_from_one():
    from web.stats import PlayerStats, average_turn_chart

    chart = average_turn_chart(
        [PlayerStats("Ann", per_game=[(4, 120.0), (9, 80.0), (12, 300.0)]), PlayerStats("Bob", per_game=[(4, 50.0)])]
    )
    assert [x for _, x in chart.x_ticks] == [1, 2, 3]
    ann, bob = chart.series
    assert ann.scores == (120, 80, 300) and bob.scores == (50,)
    assert ann.points[0][0] == chart.left and ann.points[-1][0] == chart.right  # game 1 to game 3
    single = average_turn_chart([PlayerStats("Cy", per_game=[(1, 75.0)])])
    assert single.series[0].points[0][0] == single.left

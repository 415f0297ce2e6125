"""Rematch from the game-over screen: the same players and rules, the starting player moved on."""

from __future__ import annotations

import re

import pytest
from test_web_browser import LAPTOP, wait_for, wait_live
from web_helpers import Table, api_state


def finished_game(client, players: list[str]) -> Table:
    table = Table(client, players, rules="family", source="manual", set={"target": 300})
    table.post("throw", {"dice": [1, 1, 1, 2, 3]})
    table.post("bank", {"dice": [1, 1, 1]})
    assert table.state["finished"]
    return table


def test_rematch_through_the_api_rotates_the_start_and_keeps_the_rules(client):
    table = finished_game(client, ["Ann", "Bob", "Cy"])
    seat = client.post(f"/api/games/{table.id}/seats/1", headers=table.auth).get_json()["seat"]
    refused = client.post(f"/api/games/{table.id}/rematch", headers={"Authorization": f"Bearer {seat}"})
    assert refused.status_code == 403 and "only the table" in refused.get_json()["error"]
    assert client.post(f"/api/games/{table.id}/rematch").status_code == 403
    response = client.post(f"/api/games/{table.id}/rematch", headers=table.auth)
    assert response.status_code == 201
    body = response.get_json()
    assert body["id"] != table.id and body["token"] != table.token
    state = body["state"]
    assert [p["name"] for p in state["players"]] == ["Bob", "Cy", "Ann"]
    assert state["target"] == 300 and state["rules"] == "family+" and state["source"] == "manual"
    assert all(p["score"] == 0 for p in state["players"]) and state["version"] == 0
    again = client.post(f"/api/games/{body['id']}/rematch", headers={"Authorization": f"Bearer {body['token']}"})
    assert [p["name"] for p in again.get_json()["state"]["players"]] == ["Cy", "Ann", "Bob"]


def test_a_second_rematch_joins_the_first(client):
    table = finished_game(client, ["Ann", "Bob"])
    first = client.post(f"/api/games/{table.id}/rematch", headers=table.auth).get_json()
    second = client.post(f"/api/games/{table.id}/rematch", headers=table.auth).get_json()
    assert second["id"] == first["id"] and second["token"] == first["token"]
    assert len(client.get("/api/games").get_json()) == 2


def test_other_devices_follow_into_the_rematch(client):
    table = finished_game(client, ["Ann", "Bob", "Cy"])
    bob = client.post(f"/api/games/{table.id}/seats/1", headers=table.auth).get_json()["seat"]
    early = client.get(f"/games/{table.id}/next?token={bob}")
    assert early.status_code == 404 and "No rematch" in early.get_data(as_text=True)
    assert client.get(f"/games/{table.id}/next").status_code == 403
    fresh = client.post(f"/api/games/{table.id}/rematch", headers=table.auth).get_json()

    phone = client.get(f"/games/{table.id}/next?token={table.token}&view=play")
    assert phone.status_code == 302
    assert phone.headers["Location"] == f"/games/{fresh['id']}/play?token={fresh['token']}"

    seated = client.get(f"/games/{table.id}/next?token={bob}")
    assert seated.status_code == 302
    match = re.fullmatch(rf"/games/{fresh['id']}/play\?token=([\w-]+)", seated.headers["Location"])
    assert match and match.group(1) not in (bob, fresh["token"])
    seats = client.get(f"/api/games/{fresh['id']}/seats", headers={"Authorization": f"Bearer {fresh['token']}"})
    given = {s["name"]: s["seat"] for s in seats.get_json()}
    assert given["Bob"] == match.group(1) and given["Ann"] is None  # Bob's phone is Bob's seat again
    page = client.get(seated.headers["Location"]).get_data(as_text=True)
    assert "This phone: Bob" in page


def test_rematch_of_a_missing_game_is_404(client):
    assert client.post("/api/games/999/rematch", headers={"Authorization": "Bearer x"}).status_code == 404
    assert client.post("/games/999/rematch?token=x").status_code == 404


@pytest.mark.browser
@pytest.mark.slow
def test_rematch_from_the_game_over_screen(app, live_server, open_window):
    table = finished_game(app.test_client(), ["Ann", "Bob", "Cy"])
    window = open_window(LAPTOP)
    window.get(f"{live_server.url}/games/{table.id}/table?token={table.token}")
    wait_live(window)
    assert "Game over" in window.find_element("id", "turn-line").text
    assert not window.find_element("id", "roll").is_displayed() and not window.find_element("id", "bank").is_displayed()
    assert "Hot dice" not in window.find_element("id", "selection").text
    link = window.find_element("id", "new-with-players")
    assert link.is_displayed() and link.get_attribute("href").endswith(f"/?from={table.id}")
    assert window.find_element("id", "join-rematch").is_displayed()
    window.find_element("id", "rematch").click()
    wait_for(window, lambda d: f"/games/{table.id}/" not in d.current_url, 10, "no new game opened")
    new_id = int(window.current_url.split("/games/")[1].split("/")[0])
    assert "/table?token=" in window.current_url
    wait_live(window)
    state = api_state(live_server, new_id)
    assert [p["name"] for p in state["players"]] == ["Bob", "Cy", "Ann"] and state["target"] == 300
    assert window.find_element("id", "turn-line").text.startswith("Bob")
    assert not window.find_element("id", "game-over").is_displayed()

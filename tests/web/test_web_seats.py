"""Seats: each player's phone acts on that player's turn only; the table's token still does everything."""

from __future__ import annotations

import re

import pytest


def seat(client, table, player: int) -> str:
    response = client.post(f"/api/games/{table.id}/seats/{player}", headers=table.auth)
    assert response.status_code == 201
    body = response.get_json()
    assert body["player"] == player and body["name"] == table.state["players"][player]["name"]
    return body["seat"]


def act(client, table, token: str, action: str, body: dict | None = None):
    return client.post(f"/api/games/{table.id}/{action}", json=body or {}, headers={"Authorization": f"Bearer {token}"})


def test_a_seat_acts_on_its_players_turn_only(client, new_table):
    table = new_table(["Ann", "Bob"], source="manual")
    ann, bob = seat(client, table, 0), seat(client, table, 1)
    refused = act(client, table, bob, "throw", {"dice": [2, 2, 3, 4, 6]})
    assert refused.status_code == 403 and "Bob's seat" in refused.get_json()["error"]
    assert table.get()["version"] == 0
    farkle = act(client, table, ann, "throw", {"dice": [2, 2, 3, 4, 6]})
    assert farkle.status_code == 200 and farkle.get_json()["current"] == 1
    assert act(client, table, ann, "throw", {"dice": [1, 2, 3, 4, 6]}).status_code == 403
    assert act(client, table, bob, "throw", {"dice": [1, 2, 3, 4, 6]}).status_code == 200


def test_a_seat_cannot_undo_the_previous_players_turn_but_the_table_can(client, new_table):
    table = new_table(["Ann", "Bob"], source="manual")
    bob = seat(client, table, 1)
    table.post("throw", {"dice": [2, 2, 3, 4, 6]})  # Ann farkles: Bob's turn
    refused = act(client, table, bob, "undo")
    assert refused.status_code == 403 and "Ann's turn" in refused.get_json()["error"]
    assert table.get()["version"] == 1
    assert act(client, table, bob, "throw", {"dice": [1, 2, 2, 3, 4]}).status_code == 200
    assert act(client, table, bob, "undo").status_code == 200  # his own throw
    assert table.post("undo")["current"] == 0  # the table takes back Ann's farkle


def test_seating_again_replaces_the_old_token(client, new_table):
    table = new_table(["Ann", "Bob"], source="manual")
    lost = seat(client, table, 0)
    new = seat(client, table, 0)
    assert new != lost
    assert act(client, table, lost, "throw", {"dice": [2, 2, 3, 4, 6]}).status_code == 403
    assert act(client, table, new, "throw", {"dice": [2, 2, 3, 4, 6]}).status_code == 200
    listed = client.get(f"/api/games/{table.id}/seats", headers=table.auth).get_json()
    assert listed == [{"player": 0, "name": "Ann", "seat": new}, {"player": 1, "name": "Bob", "seat": None}]


def test_only_the_table_hands_out_seats(client, new_table):
    table = new_table(["Ann", "Bob"])
    ann = seat(client, table, 0)
    for token in (ann, "wrong", None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        assert client.post(f"/api/games/{table.id}/seats/1", headers=headers).status_code == 403
        assert client.get(f"/api/games/{table.id}/seats", headers=headers).status_code == 403
    assert client.post(f"/api/games/{table.id}/seats/2", headers=table.auth).status_code == 400
    other = new_table(["Cy"])
    assert act(client, other, ann, "throw").status_code == 403  # a seat belongs to one game


def test_a_seat_opens_the_phone_view_but_not_the_table_view(client, new_table):
    table = new_table(["Ann", "Bob"])
    ann = seat(client, table, 0)
    play = client.get(f"/games/{table.id}/play?token={ann}")
    assert play.status_code == 200
    page = play.get_data(as_text=True)
    assert table.token not in page and '"seat": 0' in page
    assert client.get(f"/games/{table.id}/table?token={ann}").status_code == 403


def test_the_table_view_seats_a_player_and_shows_the_seat_qr(client, new_table):
    table = new_table(["Ann", "Bob"])
    response = client.post(f"/games/{table.id}/seats/1?token={table.token}")
    assert response.status_code == 302
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    link = re.search(r'class="seat-link" href="([^"]+)"', page).group(1)
    seat_token = link.split("token=")[1]
    assert seat_token != table.token and "<svg" in page and "Bob's seat" in page
    assert act(client, table, seat_token, "throw").status_code == 403  # Ann's turn
    assert client.post(f"/games/{table.id}/seats/1?token={seat_token}").status_code == 403


@pytest.mark.parametrize("player", [5, 2**63])
def test_seating_a_player_that_does_not_exist(client, new_table, player):
    table = new_table(["Ann", "Bob"])
    assert client.post(f"/api/games/{table.id}/seats/{player}", headers=table.auth).status_code == 400
    assert client.post(f"/games/{table.id}/seats/{player}?token={table.token}").status_code == 404

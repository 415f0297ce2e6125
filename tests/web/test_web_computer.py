"""Computer players on the server: `*` players of virtual games play their own turns, through
`record_action`, never twice for one decision, and the worker stops with the server."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from web_helpers import Table

from scorekeeper import Game, GameState, event_from_dict, preset
from scorekeeper.players import Threshold
from web import create_app
from web.computer import EXTENSION, ComputerPlayers, enabled
from web.db import connect
from web.live import ALL_GAMES
from web.workers import start_workers

SHORT = {"target": 2000}  # short games keep the tests quick


def make_app(db_path: Path, **config: Any) -> Flask:
    """An app whose workers run, as under `serve`."""
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "DICE_SEED": 7,
            "DICE_SOURCE": "virtual",
            "COMPUTER_PLAYERS": True,
            "COMPUTER_PACE": 0,
            **config,
        }
    )
    start_workers(app)
    return app


@pytest.fixture
def computer_app(db_path: Path):
    app = make_app(db_path)
    yield app
    app.extensions["dicekeeper.live"].close()
    app.extensions[EXTENSION].stop()


def wait_until(check, timeout: float = 20.0, message: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(message or "timed out")


def family(settings: dict[str, Any] | None = None):
    return preset("family").with_settings(settings) if settings else preset("family")


def stored_events(table: Table) -> list[Any]:
    return [event_from_dict({k: v for k, v in e.items() if k not in ("seq", "at")}) for e in table.events()]


def actors(
    players: list[str], table: Table, settings: dict[str, Any] | None = None
) -> list[tuple[str, GameState, Any]]:
    """Each stored event with the player who made it and the state it was made in, found by replaying the log."""
    game = Game(players, family(settings))
    out = []
    for event in stored_events(table):
        out.append((game.state.current_player.name, game.state, event))
        game.apply(event)
    return out


def replayed(table: Table, players: list[str], settings: dict[str, Any] | None = None) -> GameState:
    return Game(players, family(settings), stored_events(table)).state


def test_two_computer_players_play_a_whole_game_by_themselves(computer_app):
    players = ["*Hal", "*threshold300"]
    table = Table(computer_app.test_client(), players, set=SHORT)
    final = wait_until(lambda: (s := table.get())["finished"] and s, message="the computers did not finish")
    events = table.events()
    assert [e["seq"] for e in events] == list(range(1, final["version"] + 1))
    state = replayed(table, players, SHORT)
    assert state.finished and state.winner_name == final["winner"]
    assert final["advice"] is None
    worker = computer_app.extensions[EXTENSION]
    assert worker.moves == final["version"] and worker.errors == 0
    # Each player followed its own strategy: the threshold player banked only at 300 or more.
    banks = [
        before.turn_total
        for name, before, event in actors(players, table, SHORT)
        if name == "*threshold300" and event.kind == "bank"
    ]
    assert banks and min(banks) >= 300


def test_a_computer_plays_only_its_own_turns(computer_app):
    players = ["Ann", "*Hal"]
    table = Table(computer_app.test_client(), players)
    time.sleep(0.3)
    assert table.get()["version"] == 0, "the computer acted on a person's turn"
    for _ in range(3):  # three of Ann's turns: throw, then bank whatever the first keep gives
        state = table.post("throw")
        if state["phase"] == "keep":
            table.post("bank", {"dice": state["keeps"][0]["dice"]})
        handed_over = table.state["version"]
        back = wait_until(
            lambda since=handed_over: (s := table.get())["current"] == 0 and s["version"] > since and s,
            message="the computer did not give the turn back",
        )
        time.sleep(0.2)
        assert table.get()["version"] == back["version"], "the computer acted on Ann's turn"
        table.state = back
    who = [name for name, _, _ in actors(players, table)]
    ann = [i for i, name in enumerate(who) if name == "Ann"]
    hal = [i for i, name in enumerate(who) if name == "*Hal"]
    assert ann and hal and len(ann) + len(hal) == len(who)
    worker = computer_app.extensions[EXTENSION]
    assert worker.moves == len(hal), "every event of Hal's turns is the worker's, and only those"


def test_the_pace_spaces_the_moves(db_path):
    app = make_app(db_path, COMPUTER_PACE=0.15)
    try:
        table = Table(app.test_client(), ["*Hal", "Ann"])
        started = time.monotonic()
        wait_until(lambda: table.get()["version"] >= 2, message="the computer did not move")
        assert time.monotonic() - started >= 0.3
    finally:
        app.extensions["dicekeeper.live"].close()
        app.extensions[EXTENSION].stop()


def test_a_person_acting_first_wins_and_the_worker_reads_again(app, client):
    """A move chosen from version N is refused once a person has acted on N."""
    table = Table(client, ["*Hal", "Ann"])
    book = app.extensions["dicekeeper.games"]
    worker = ComputerPlayers(app.config["DATABASE"], book, app.extensions["dicekeeper.live"], pace=0)
    real_snapshot = book.snapshot

    def read_then_person_acts(conn, game_id):
        read = real_snapshot(conn, game_id)
        table.post("throw", {"version": read[1].version})  # the person throws for Hal meanwhile
        return read

    conn = connect(app.config["DATABASE"])
    try:
        book.snapshot = read_then_person_acts
        try:
            assert worker.play_one(conn, table.id) is None
        finally:
            book.snapshot = real_snapshot
        assert worker.conflicts == 1 and worker.moves == 0
        assert [e["type"] for e in table.events()] == ["throw"], "only the person's throw is stored"
        after = worker.play_one(conn, table.id)  # reads again: now a keep is due
    finally:
        conn.close()
    assert after is not None and after["version"] == 2 and table.events()[1]["type"] == "keep"


def test_no_double_events_when_people_and_the_worker_race(db_path):
    """A person plays the computers' turns too, racing the worker; every stored event is one actor's move."""
    computer_app = make_app(db_path, COMPUTER_PACE=0.01)  # a pace of 0 would leave the person no chance
    try:
        race(computer_app)
    finally:
        computer_app.extensions["dicekeeper.live"].close()
        computer_app.extensions[EXTENSION].stop()
    worker = computer_app.extensions[EXTENSION]
    assert worker.errors == 0


def race(computer_app: Flask) -> None:
    players = ["*Hal", "*Cy"]
    client = computer_app.test_client()
    table = Table(client, players, set=SHORT)
    person = Threshold(350)
    person_moves = 0
    refused = 0
    rng = random.Random(3)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = table.get()
        if state["finished"]:
            break
        game = replayed(table, players, SHORT)
        if game.version != state["version"]:
            continue  # the worker moved between the two reads
        action = person.act(game, rng)
        body: dict[str, Any] = {"version": state["version"]}
        if action.kind == "keep":
            body["dice"] = list(action.dice)
        response = client.post(f"/api/games/{table.id}/{action.kind}", json=body, headers=table.auth)
        if response.status_code == 200:
            person_moves += 1
        else:
            assert response.status_code == 409, response.get_json()  # only ever a lost race
            refused += 1
    final = table.get()
    assert final["finished"], "the raced game did not finish"
    worker = computer_app.extensions[EXTENSION]
    wait_until(
        lambda: worker.moves + person_moves == final["version"],
        timeout=2,
        message=f"{worker.moves} worker + {person_moves} person moves != {final['version']} events",
    )
    assert person_moves > 0 and worker.moves > 0, (person_moves, worker.moves, refused)
    assert replayed(table, players, SHORT).winner_name == final["winner"]


def test_computers_need_virtual_dice(client):
    for source in ("manual", "camera"):
        response = client.post("/api/games", json={"players": ["Ann", "*Hal"], "source": source})
        # no camera in the tests: "camera" falls back to virtual dice, which computers can use
        if source == "camera" and response.get_json().get("state", {}).get("source") == "virtual":
            assert response.status_code == 201
            continue
        assert response.status_code == 400
        assert "need virtual dice" in response.get_json()["error"] and "*Hal" in response.get_json()["error"]
    page = client.post("/games", data={"player": ["Ann", "*Hal"], "rules": "family", "source": "manual"})
    assert page.status_code == 400 and "need virtual dice" in page.get_data(as_text=True)


def test_the_worker_leaves_imported_real_dice_games_alone(computer_app):
    client = computer_app.test_client()
    exported = {"players": ["*Hal", "Ann"], "rules": preset("family").to_dict(), "events": [], "source": "manual"}
    response = client.post("/api/games/import", json=exported)
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    time.sleep(0.3)
    assert client.get(f"/api/games/{body['id']}").get_json()["version"] == 0
    # Someone types Hal's throw: the keep that follows is still not the worker's to make.
    thrown = client.post(
        f"/api/games/{body['id']}/throw",
        json={"dice": [1, 5, 2, 3, 2]},
        headers={"Authorization": f"Bearer {body['token']}"},
    )
    assert thrown.status_code == 200 and thrown.get_json()["phase"] == "keep", thrown.get_json()
    time.sleep(1.3)  # longer than the worker's pause after a failed move
    assert client.get(f"/api/games/{body['id']}").get_json()["version"] == 1


def test_a_failing_game_does_not_stop_the_others(computer_app, monkeypatch):
    import web.computer as computer

    real = computer.choose_action

    def broken_for_bad(strategy, state, rng):
        if state.current_player.name == "*Bad":
            raise RuntimeError("a broken strategy")
        return real(strategy, state, rng)

    monkeypatch.setattr(computer, "choose_action", broken_for_bad)
    client = computer_app.test_client()
    bad = Table(client, ["*Bad", "Ann"])
    good = Table(client, ["*Hal", "*Cy"], set=SHORT)
    wait_until(lambda: good.get()["finished"], message="the good game stopped with the bad one")
    worker = computer_app.extensions[EXTENSION]
    assert worker.errors >= 1 and worker.running
    assert bad.get()["version"] == 0


def test_the_worker_stops_on_shutdown(db_path):
    app = make_app(db_path, COMPUTER_PACE=0.05)
    worker = app.extensions[EXTENSION]
    assert worker.running
    table = Table(app.test_client(), ["*Hal", "*Cy"], set=SHORT)
    wait_until(lambda: table.get()["version"] > 0, message="the worker never moved")
    started = time.monotonic()
    app.extensions["dicekeeper.live"].close()  # what the serve command does on Ctrl+C
    wait_until(lambda: not worker.running, timeout=3, message="the worker outlived the server")
    assert time.monotonic() - started < 1.5
    stopped_at = table.get()["version"]
    time.sleep(0.3)
    assert table.get()["version"] == stopped_at
    assert worker._thread not in threading.enumerate()


def test_stop_ends_an_idle_worker_quickly(db_path):
    app = make_app(db_path)
    worker = app.extensions[EXTENSION]
    time.sleep(0.1)
    started = time.monotonic()
    worker.stop()
    assert not worker.running and time.monotonic() - started < 1.0
    app.extensions["dicekeeper.live"].close()


def test_the_worker_is_off_in_testing_apps_unless_asked(app):
    assert not enabled(app) and EXTENSION not in app.extensions


def test_games_of_another_process_are_found_too(computer_app, db_path):
    """Another app on the same database does not ring this app's change notices: the idle rescan finds its game."""
    other = create_app({"TESTING": True, "DATABASE": str(db_path), "DICE_SOURCE": "virtual"})
    try:
        table = Table(other.test_client(), ["*Hal", "Ann"])
        assert computer_app.extensions["dicekeeper.live"].tick(ALL_GAMES) == 0
        wait_until(lambda: table.get()["version"] > 0, timeout=5, message="the other process's game was not played")
    finally:
        other.extensions["dicekeeper.live"].close()


def test_a_computer_rolls_its_die_in_a_begun_roll_off(computer_app):
    client = computer_app.test_client()
    table = Table(client, ["Ann", "*Hal"], rules="family", set=SHORT, source="virtual")
    table.post("roll-off")  # Ann rolls: Hal's roll is next, and the worker rolls it

    def decided_or_ann_again() -> dict | None:
        state = table.get()
        return (
            state
            if state["roll_off"]["decided"] or (state["current"] == 0 and not state["roll_off"]["rolls"])
            else None
        )

    for _ in range(20):  # a tie makes both roll again: Ann by hand, Hal by the worker
        state = wait_until(decided_or_ann_again, message="Hal never rolled")
        if state["roll_off"]["decided"]:
            break
        table.post("roll-off")
    assert state["roll_off"]["decided"] and state["first"] in (0, 1)
    rolls = [e for e in table.events() if e["type"] == "start-roll"]
    assert len(rolls) % 2 == 0 and table.events()[: len(rolls)] == rolls  # Hal rolled each time, before any throw

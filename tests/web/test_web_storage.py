"""SQLite storage: migrations, pragmas, the append-only event log and resuming after a restart."""

from __future__ import annotations

import json
import sqlite3

import pytest

from web import create_app
from web import db as database
from web.games import StaleVersion


def test_migrations_bring_a_new_file_to_the_newest_version(db_path):
    newest = database.migrations()[-1][0]
    assert database.migrate(db_path) == newest
    assert database.migrate(db_path) == newest  # running again changes nothing
    conn = database.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == newest
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"games", "events"} <= tables


def test_migration_numbers_are_unique_and_start_at_one():
    numbers = [n for n, _ in database.migrations()]
    assert numbers[0] == 1 and numbers == sorted(set(numbers))


def test_a_failing_migration_leaves_the_database_as_it_was(db_path, monkeypatch):
    database.migrate(db_path)
    broken = database.migrations() + [(999, "CREATE TABLE extra (x INTEGER);\nTHIS IS NOT SQL;")]
    monkeypatch.setattr(database, "migrations", lambda: broken)
    with pytest.raises(sqlite3.OperationalError):
        database.migrate(db_path)
    conn = database.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == broken[-2][0]
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'extra'").fetchone() is None


def test_an_event_cannot_be_stored_twice(app, new_table, db_path):
    table = new_table()
    table.post("throw")
    conn = database.connect(db_path)
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO events (game_id, seq, event, created_at) VALUES (?, 1, '{}', 'now')", (table.id,))
    with pytest.raises(sqlite3.IntegrityError):  # foreign keys are on
        conn.execute("INSERT INTO events (game_id, seq, event, created_at) VALUES (999, 1, '{}', 'now')")


def test_the_game_row_is_never_rewritten(app, new_table, db_path):
    table = new_table(source="manual")
    conn = database.connect(db_path)
    before = tuple(conn.execute("SELECT * FROM games").fetchone())
    table.post("throw", {"dice": [1, 2, 3, 4, 6]})
    table.post("keep", {"dice": [1]})
    table.post("undo")
    assert tuple(conn.execute("SELECT * FROM games").fetchone()) == before
    stored = [json.loads(r[0]) for r in conn.execute("SELECT event FROM events ORDER BY seq")]
    assert stored == [{"type": "throw", "faces": [1, 2, 3, 4, 6]}, {"type": "keep", "dice": [1]}, {"type": "undo"}]


def test_a_restart_resumes_every_game_exactly(db_path, new_table):
    table = new_table(rules="farke", source="manual")
    table.post("throw", {"dice": [1, 1, 5, 2, 3, 4]})
    table.post("keep", {"dice": [1, 1]})
    table.post("throw", {"dice": [5, 2, 3, 6]})
    before = table.get()

    restarted = create_app({"TESTING": True, "DATABASE": str(db_path), "DICE_SOURCE": "virtual"})
    client = restarted.test_client()
    assert client.get(f"/api/games/{table.id}").get_json() == before
    response = client.post(
        f"/api/games/{table.id}/keep", json={"dice": [5], "version": before["version"]}, headers=table.auth
    )
    assert response.status_code == 200 and response.get_json()["turn_total"] == 250


def test_two_servers_on_one_database_see_each_others_events(db_path, new_table):
    table = new_table(source="manual")
    table.post("throw", {"dice": [1, 2, 3, 4, 6]})  # this server's cache now holds the game
    other = create_app({"TESTING": True, "DATABASE": str(db_path)}).test_client()
    assert other.post(f"/api/games/{table.id}/keep", json={"dice": [1]}, headers=table.auth).status_code == 200
    assert table.get()["turn_total"] == 100  # the cached game caught up from the log
    state = table.post("throw", {"dice": [5, 5, 2, 3], "version": 2})
    assert state["version"] == 3 and len(table.events()) == 3


def test_the_service_layer_is_what_the_api_calls(app, new_table):
    """The seam a camera loop uses: record_action on a connection, outside any request."""
    table = new_table(source="manual")
    book = app.extensions["dicekeeper.games"]
    live = app.extensions["dicekeeper.live"]
    conn = database.connect(app.config["DATABASE"])
    tick = live.tick(table.id)
    state = book.record_action(conn, table.id, "throw", {"dice": [5, 2, 3, 4, 6]}, expected_version=0)
    assert state["throw"] == [5, 2, 3, 4, 6] and live.tick(table.id) > tick
    with pytest.raises(StaleVersion):
        book.record_action(conn, table.id, "keep", {"dice": [5]}, expected_version=0)
    assert table.get() == state


def test_a_failed_write_answers_503_and_changes_nothing(app, client, new_table, db_path):
    table = new_table(source="manual")
    table.post("throw", {"dice": [1, 2, 3, 4, 6]})
    conn = database.connect(db_path)
    conn.execute(
        "CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.seq = 2 BEGIN SELECT RAISE(ABORT, 'disk trouble'); END"
    )
    response = client.post(f"/api/games/{table.id}/keep", json={"dice": [1]}, headers=table.auth)
    assert response.status_code == 503 and "nothing was changed" in response.get_json()["error"]
    assert table.get()["version"] == 1 and table.get()["throw"] == [1, 2, 3, 4, 6]
    conn.execute("DROP TRIGGER refuse")
    assert table.post("keep", {"dice": [1], "version": 1})["turn_total"] == 100
    assert [e["seq"] for e in table.events()] == [1, 2]

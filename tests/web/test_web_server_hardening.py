"""The production server and its limits: waitress streams, the stream cap, header timeouts, writes
from other processes, a database that cannot be written, and tokens kept out of the access log."""

from __future__ import annotations

import json
import logging
import socket
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from flask import Flask
from web_helpers import EventStream, WaitressServer, create_game

from dicekeeper import cli
from web import create_app
from web.access_log import AccessLog, redact
from web.db import DatabaseUnavailable, check_writable


def other_process(db_path: Path) -> Flask:
    """A second app on the same database: its own broker and cache, as another server process has."""
    return create_app({"TESTING": True, "DATABASE": str(db_path), "DICE_SEED": 99, "DICE_SOURCE": "virtual"})


@pytest.fixture
def waitress_server(app):
    server = WaitressServer(app)
    yield server
    server.stop()
    assert app.extensions["dicekeeper.live"].open_streams == 0, "an event stream outlived the server"


def post(url: str, token: str, body: dict) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def test_waitress_streams_each_change_at_once(waitress_server):
    game = create_game(waitress_server, players=["Ann", "Bob"], source="manual")
    stream = EventStream(f"{waitress_server.url}/api/games/{game['id']}/stream")
    try:
        assert stream.state_at(0)[0] == game["state"]
        served = post(f"{waitress_server.url}/api/games/{game['id']}/throw", game["token"], {"dice": [1, 5, 2, 3, 3]})
        assert stream.state_at(1)[0] == served  # a buffered stream would hold it back
    finally:
        stream.close()


def test_streams_past_the_cap_are_refused_with_503(app, waitress_server):
    app.config["MAX_STREAMS"] = 2
    game = create_game(waitress_server, players=["Ann"])
    url = f"{waitress_server.url}/api/games/{game['id']}/stream"
    streams = [EventStream(url) for _ in range(2)]
    try:
        for stream in streams:
            stream.state_at(0)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=10)
        assert refused.value.code == 503 and refused.value.headers["Retry-After"] == "5"
        assert app.extensions["dicekeeper.live"].open_streams == 2
    finally:
        for stream in streams:
            stream.close()


def test_a_connection_that_never_finishes_its_headers_is_closed(app):
    server = WaitressServer(app, channel_timeout=1, cleanup_interval=1)
    try:
        with socket.create_connection(("127.0.0.1", server.server.effective_port), timeout=15) as slow:
            slow.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
            assert slow.recv(1024) == b""  # closed by the server, not by our 15 s timeout
    finally:
        server.stop()


def test_a_write_by_another_process_reaches_this_ones_streams(app, db_path, waitress_server):
    game = create_game(waitress_server, players=["Ann", "Bob"], source="manual")
    game_stream = EventStream(f"{waitress_server.url}/api/games/{game['id']}/stream")
    list_stream = EventStream(f"{waitress_server.url}/api/stream")
    other = other_process(db_path)
    try:
        game_stream.state_at(0)
        assert list_stream.next_event()[0] == "change"
        response = other.test_client().post(
            f"/api/games/{game['id']}/throw",
            json={"dice": [1, 5, 2, 3, 3]},
            headers={"Authorization": f"Bearer {game['token']}"},
        )
        assert response.status_code == 200
        streamed, _ = game_stream.state_at(1)
        assert streamed["throw"] == [1, 5, 2, 3, 3]
        assert list_stream.next_event()[0] == "change"
        assert app.test_client().get(f"/api/games/{game['id']}").get_json()["version"] == 1
    finally:
        game_stream.close()
        list_stream.close()
        other.extensions["dicekeeper.live"].close()


def test_a_stream_sends_nothing_for_a_change_to_another_game(db_path, waitress_server):
    game = create_game(waitress_server, players=["Ann"], source="manual")
    stream = EventStream(f"{waitress_server.url}/api/games/{game['id']}/stream")
    other = other_process(db_path)
    try:
        stream.state_at(0)
        assert other.test_client().post("/api/games", json={"players": ["Zed"]}).status_code == 201
        response = other.test_client().post(
            f"/api/games/{game['id']}/throw",
            json={"dice": [2, 2, 3, 4, 6]},
            headers={"Authorization": f"Bearer {game['token']}"},
        )
        assert response.status_code == 200
        event, data, _ = stream.next_event()
        assert event == "state" and data["version"] == 1  # the other game's creation sent no state
    finally:
        stream.close()
        other.extensions["dicekeeper.live"].close()


def test_a_locked_database_is_one_clear_sentence(tmp_path):
    path = tmp_path / "locked.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(DatabaseUnavailable, match="is locked by another program"):
            check_writable(path, timeout=0.1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    check_writable(path)


def test_a_read_only_database_stops_serve_with_one_line(tmp_path, monkeypatch, capsys):
    path = tmp_path / "ro.sqlite3"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    real_connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda p, *a, **k: real_connect(f"file:{p}?mode=ro", *a, uri=True, **k))
    assert cli.main(["serve", "--db", str(path), "--port", "0", "--source", "virtual"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is read-only" in err[0] and "Traceback" not in err[0]


def test_the_access_log_masks_tokens(app, new_table, caplog):
    table = new_table()
    app.wsgi_app = AccessLog(app.wsgi_app)
    client = app.test_client()
    with caplog.at_level(logging.INFO, logger="dicekeeper.access"):
        assert client.get(f"/games/{table.id}/table?token={table.token}&x=1").status_code == 200
        assert client.get(f"/games/{table.id}/play?Token={table.token}").status_code == 403  # still masked
    lines = [r.getMessage() for r in caplog.records if r.name == "dicekeeper.access"]
    assert len(lines) == 2 and all(table.token not in line for line in lines)
    assert f"/games/{table.id}/table?token=***&x=1 200" in lines[0]


@pytest.mark.parametrize(
    "query, shown",
    [
        ("token=abc", "token=***"),
        ("a=1&token=abc&b=2", "a=1&token=***&b=2"),
        ("seat=s3cr3t", "seat=***"),
        ("notoken=1", "notoken=1"),
    ],
)
def test_redact(query, shown):
    assert redact(query) == shown

"""Fixtures for the web tests: an app on a temporary database, its test client, and game helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from web import create_app
from web.workers import start_workers, stop_workers

pytest.register_assert_rewrite("web_helpers")
from web_helpers import LiveServer, Table  # noqa: E402  (after the rewrite hook, for clear assertion messages)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def app(db_path: Path) -> Iterator[Flask]:
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "DICE_SEED": 1234, "DICE_SOURCE": "virtual"})
    yield app
    app.extensions["dicekeeper.live"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def new_table(client: FlaskClient):
    def make(players: list[str] | None = None, **create: Any) -> Table:
        return Table(client, players, **create)
    return make


@pytest.fixture
def live_server(app: Flask) -> Iterator[LiveServer]:
    server = LiveServer(app)
    yield server
    server.stop()
    assert app.extensions["dicekeeper.live"].open_streams == 0, "an event stream outlived the server"


@pytest.fixture
def workers() -> Iterator[Callable[[Flask], Flask]]:
    """Starts an app's background workers as `serve` does; stops them and its streams afterwards."""
    started: list[Flask] = []

    def start(app: Flask) -> Flask:
        start_workers(app)
        started.append(app)
        return app

    yield start
    for app in started:
        app.extensions["dicekeeper.live"].close()
        stop_workers(app)

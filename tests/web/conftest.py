"""Fixtures for the web tests: an app on a temporary database, its test client, and game helpers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from web import create_app


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


class Table:
    """One game driven through the API with its token, as a phone would."""

    def __init__(self, client: FlaskClient, players: list[str] | None = None, **create: Any) -> None:
        self.client = client
        response = client.post("/api/games", json={"players": players or ["Ann", "Bob"], **create})
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        self.id: int = body["id"]
        self.token: str = body["token"]
        self.state: dict[str, Any] = body["state"]

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def post(self, action: str, body: dict[str, Any] | None = None, *, expect: int = 200) -> dict[str, Any]:
        response = self.client.post(f"/api/games/{self.id}/{action}", json=body or {}, headers=self.auth)
        assert response.status_code == expect, (action, body, response.get_json())
        data = response.get_json()
        if expect == 200:
            self.state = data
        return data

    def get(self) -> dict[str, Any]:
        response = self.client.get(f"/api/games/{self.id}")
        assert response.status_code == 200
        return response.get_json()

    def events(self) -> list[dict[str, Any]]:
        return self.client.get(f"/api/games/{self.id}/events").get_json()


@pytest.fixture
def new_table(client: FlaskClient):
    def make(players: list[str] | None = None, **create: Any) -> Table:
        return Table(client, players, **create)
    return make

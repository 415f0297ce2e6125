"""A whole game played from the demo table through the server's camera loop.

The demo table runs on virtual time (frames are drawn as fast as the loop reads them, and time
stands still while the table waits for the players), at 640x360 and 15 frames a second to keep
the test short. Everything else is the server's own path: the camera loop thread, settle
detection, `GameBook.record_action`, the database and the JSON API the phones use.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from vision.live.demo_table import DemoSource, DemoTable
from vision.live.settle import SettleConfig
from vision.read.reader import DiceReader
from web import create_app
from web.camera_loop import CameraLoop

SEED = 5
TARGET = 6000


def choose_keep(state: dict[str, Any]) -> list[int]:
    """The keep worth most points; of equal ones, the one with the fewest dice."""
    best = max(state["keeps"], key=lambda k: (k["points"], -len(k["dice"])))
    return list(best["dice"])


class Player:
    """Plays every seat from the phone: keeps, banks, and confirms the camera's doubts with the
    faces a person at the table would see."""

    def __init__(self, client: FlaskClient, game_id: int, token: str, table: DemoTable) -> None:
        self.client, self.game_id, self.table = client, game_id, table
        self.auth = {"Authorization": f"Bearer {token}"}
        self.confirmed: list[dict[str, Any]] = []

    def state(self) -> dict[str, Any]:
        return self.client.get(f"/api/games/{self.game_id}").get_json()

    def post(self, action: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self.client.post(f"/api/games/{self.game_id}/{action}", json=body, headers=self.auth)
        assert response.status_code == 200, (action, body, response.get_json())
        return response.get_json()

    def pending(self) -> dict[str, Any] | None:
        response = self.client.get(f"/camera/games/{self.game_id}/pending", headers=self.auth)
        assert response.status_code == 200
        return response.get_json()["pending"]

    def act(self) -> bool:
        """One move if there is one to make; False when it is the camera's turn."""
        proposal = self.pending()
        state = self.state()
        if proposal is not None:
            truth = self.table.throws[-1].faces
            response = self.client.post(
                f"/camera/games/{self.game_id}/confirm",
                headers=self.auth,
                json={"proposal": proposal["id"], "dice": list(truth), "version": state["version"]},
            )
            assert response.status_code == 200, response.get_json()
            self.confirmed.append(proposal)
            return True
        if state["phase"] != "keep":
            return False
        state = self.post("keep", {"dice": choose_keep(state), "version": state["version"]})
        if state["can_bank"] and (state["turn_total"] >= 350 or state["dice_left"] <= 2):
            self.post("bank", {"version": state["version"]})
        return True


@pytest.fixture
def demo_app(tmp_path: Path, workers) -> Iterator[tuple[Flask, DemoTable]]:
    table = DemoTable(seed=SEED, width=640, height=360, fps=15, autoplay=False, min_idle=1.0)
    source = DemoSource(table, hold_when_waiting=True)
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "camera.sqlite3"),
            "DICE_SOURCE": "camera",
            "CAMERA_SOURCE": lambda: source,
            "CAMERA_READER": DiceReader(mode="pips"),
            "CAMERA_SETTLE": SettleConfig(read_interval=0.1),
        }
    )
    yield workers(app), table


def test_a_whole_game_from_the_demo_table_records_exactly_the_faces_thrown(demo_app) -> None:
    app, table = demo_app
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    client = app.test_client()
    created = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": "farkle", "set": {"target": TARGET}})
    assert created.status_code == 201
    body = created.get_json()
    assert body["state"]["source"] == "camera"
    player = Player(client, body["id"], body["token"], table)
    broker = app.extensions["dicekeeper.live"]

    deadline = time.monotonic() + 240
    seen = broker.tick(body["id"])
    while not player.state()["finished"]:
        assert time.monotonic() < deadline, f"game not over after {len(table.throws)} throws"
        assert loop.running, loop.state().error
        if not player.act():
            broker.wait(body["id"], seen, timeout=0.5)
            seen = broker.tick(body["id"])

    events = client.get(f"/api/games/{body['id']}/events").get_json()
    recorded = [tuple(e["faces"]) for e in events if e["type"] == "throw"]
    thrown = [t.faces for t in table.throws]
    # Every throw the server recorded is the throw the table made, in order, none missing or extra.
    assert len(recorded) == len(thrown)
    assert [sorted(r) for r in recorded] == [sorted(t) for t in thrown]
    assert len(recorded) >= 30
    assert sum(1 for t in table.throws if t.set_aside) >= 5  # kept dice lay on the table meanwhile
    # The camera alone recorded them: nobody had to confirm a doubtful reading.
    assert player.confirmed == []
    outcomes = [outcome for _, outcome in loop.recorder.settled]
    assert outcomes == ["recorded"] * len(recorded)
    assert loop.state().error == ""

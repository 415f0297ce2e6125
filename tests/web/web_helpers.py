"""Helpers shared by the web tests: a game driven through the API, a live server, an event-stream reader."""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

from flask import Flask
from flask.testing import FlaskClient


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


class LiveServer:
    """The app served over real HTTP by the threaded development server, in a background thread."""

    def __init__(self, app: Flask) -> None:
        from werkzeug.serving import make_server

        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        app.config["PUBLIC_URL"] = self.url
        self.thread = threading.Thread(target=self.server.serve_forever, name="live-server", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.app.extensions["dicekeeper.live"].close(wait=5.0)
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


class EventStream:
    """Reads a Server-Sent Events stream in a thread; `next_event()` hands out (event, data, time)."""

    def __init__(self, url: str) -> None:
        import http.client
        import queue
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self.connection.connect()
        self.sock = self.connection.sock  # the connection lets go of it once the response is read
        self.connection.request("GET", parts.path, headers={"Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type", "").startswith("text/event-stream")
        self.events: queue.Queue = queue.Queue()
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        import http.client
        import json
        import time

        event, data = "message", []
        try:
            while True:
                line = self.response.readline()
                if not line:
                    break
                text = line.decode().rstrip("\r\n")
                if text == "":
                    if data:
                        self.events.put((event, json.loads("\n".join(data)), time.perf_counter()))
                    event, data = "message", []
                elif text.startswith("event:"):
                    event = text[6:].strip()
                elif text.startswith("data:"):
                    data.append(text[5:].strip())
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            pass  # the connection ended: cut, closed by the test, or read after close()
        finally:
            self.ended.set()

    def next_event(self, timeout: float = 5.0) -> tuple[str, Any, float]:
        return self.events.get(timeout=timeout)

    def state_at(self, version: int, timeout: float = 5.0) -> tuple[dict[str, Any], float]:
        """The first streamed state at `version` or later, and when it arrived."""
        while True:
            event, data, at = self.next_event(timeout)
            if event == "state" and data["version"] >= version:
                return data, at

    def close(self) -> None:
        import socket

        try:
            # Wakes the reading thread first: closing the response while it reads would wait for it.
            self.sock.shutdown(socket.SHUT_RDWR)
            self.thread.join(timeout=5)
            self.response.close()
            self.connection.close()
        except OSError:
            pass


def create_game(server: LiveServer, **body: Any) -> dict:
    """A new game made through a live server's API, as its JSON reply."""
    request = urllib.request.Request(
        f"{server.url}/api/games",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def api_state(server: LiveServer, game_id: int) -> dict:
    with urllib.request.urlopen(f"{server.url}/api/games/{game_id}", timeout=10) as response:
        return json.load(response)


class WaitressServer:
    """The app served by the production server (`web.server`), in a background thread."""

    def __init__(self, app: Flask, **overrides: Any) -> None:
        from web.server import make_server

        self.app = app
        self.server = make_server(app, "127.0.0.1", 0, **overrides)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        app.config["PUBLIC_URL"] = self.url
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, name="waitress", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            self.server.run()
        except OSError:
            # close() from another thread can pull a socket from under the loop's select().
            if not self.stopping.is_set():
                raise

    def stop(self) -> None:
        self.app.extensions["dicekeeper.live"].close(wait=5.0)
        self.stopping.set()
        self.server.close()
        self.thread.join(timeout=5)

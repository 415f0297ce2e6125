"""Live updates over Server-Sent Events through a real threaded server, and their latency."""

from __future__ import annotations

import json
import time
import urllib.request

from web_helpers import EventStream, create_game


def post(server, table_id: int, token: str, action: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"{server.url}/api/games/{table_id}/{action}",
        data=json.dumps(body or {}).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def test_a_stream_opens_with_the_state_and_follows_every_change(live_server):
    game = create_game(live_server, players=["Ann", "Bob"], source="manual")
    stream = EventStream(f"{live_server.url}/api/games/{game['id']}/stream")
    try:
        first, _ = stream.state_at(0)
        assert first == game["state"]
        served = post(live_server, game["id"], game["token"], "throw", {"dice": [1, 5, 2, 3, 3]})
        streamed, _ = stream.state_at(1)
        assert streamed == served
        served = post(live_server, game["id"], game["token"], "keep", {"dice": [1]})
        assert stream.state_at(2)[0] == served
    finally:
        stream.close()


def test_the_all_games_stream_ticks_on_any_change(live_server):
    stream = EventStream(f"{live_server.url}/api/stream")
    try:
        event, first, _ = stream.next_event()
        assert event == "change"
        create_game(live_server, players=["Ann"])
        event, second, _ = stream.next_event()
        assert event == "change" and second["tick"] > first["tick"]
    finally:
        stream.close()


def test_streams_end_when_the_server_stops(app, live_server):
    game = create_game(live_server, players=["Ann"])
    streams = [EventStream(f"{live_server.url}/api/games/{game['id']}/stream") for _ in range(3)]
    for stream in streams:
        stream.state_at(0)
    assert app.extensions["dicekeeper.live"].open_streams == 3
    started = time.perf_counter()
    live_server.stop()
    for stream in streams:
        assert stream.ended.wait(5)
    assert time.perf_counter() - started < 5  # nothing waited for a keep-alive timeout
    assert app.extensions["dicekeeper.live"].open_streams == 0


def test_an_idle_stream_sends_keepalives(app, live_server):
    app.config["STREAM_KEEPALIVE"] = 0.2
    game = create_game(live_server, players=["Ann"])
    stream = EventStream(f"{live_server.url}/api/games/{game['id']}/stream")
    try:
        stream.state_at(0)
        time.sleep(0.7)
        assert stream.events.empty() and not stream.ended.is_set()  # comments only, no repeated state
        post(live_server, game["id"], game["token"], "throw")
        assert stream.state_at(1)[0]["version"] == 1
    finally:
        stream.close()


def test_latency_of_a_change_reaching_another_page(live_server, benchmark):
    """From sending an action until another client's open stream has the new state.

    `pytest tests/web/test_web_live.py --benchmark-enable` reports the median over the rounds.
    """
    game = create_game(live_server, players=["Ann", "Bob"], source="manual")
    stream = EventStream(f"{live_server.url}/api/games/{game['id']}/stream")
    stream.state_at(0)
    version = {"now": 0}
    moves = [("throw", {"dice": [1, 2, 3, 4, 6]}), ("undo", {})]

    def one_change() -> None:
        action, body = moves[version["now"] % 2]
        post(live_server, game["id"], game["token"], action, body)
        version["now"] += 1
        state, _ = stream.state_at(version["now"])
        assert state["version"] == version["now"]

    try:
        benchmark.pedantic(one_change, rounds=100, iterations=1, warmup_rounds=5)
    finally:
        stream.close()
    assert version["now"] >= 1

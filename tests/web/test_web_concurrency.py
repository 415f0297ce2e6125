"""Twenty clients acting on and listening to one game at once through the real threaded server."""

from __future__ import annotations

import json
import queue
import random
import threading
import time
import urllib.error
import urllib.request

import pytest
from web_helpers import EventStream

from scorekeeper import Game, event_from_dict, preset

CLIENTS = 20
SECONDS = 30.0


def send(url: str, token: str, action: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{url}/{action}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def choose(state: dict, rng: random.Random) -> tuple[str, dict]:
    """A legal move for the state, picked at random, so every kind of event gets stored."""
    if rng.random() < 0.08 and state["version"] > 0:
        return "undo", {}
    if state["throw"] is not None:
        keep = rng.choice(state["keeps"])
        return ("bank" if rng.random() < 0.3 else "keep"), {"dice": keep["dice"]}
    if state["can_bank"] and rng.random() < 0.3:
        return "bank", {}
    return "throw", {}


@pytest.mark.slow
def test_twenty_clients_for_thirty_seconds_lose_and_double_nothing(live_server):
    rules = preset("family").replace(target=1_000_000)  # the highest target: the game does not end in 30 s
    status, created = send(
        f"{live_server.url}/api",
        "",
        "games",
        {"players": ["Ann", "Bob", "Cy"], "rules": "family", "set": {"target": rules.target}},
    )
    assert status == 201
    game_url = f"{live_server.url}/api/games/{created['id']}"
    token = created["token"]
    stop = threading.Event()
    problems: queue.Queue = queue.Queue()
    accepted: list[tuple[int, int]] = []  # (version before, version after) of every stored action
    answered: dict[int, int] = {}
    lock = threading.Lock()
    streams = [EventStream(f"{game_url}/stream") for _ in range(CLIENTS)]

    def client(number: int) -> None:
        rng = random.Random(number)
        stream = streams[number]
        latest, _ = stream.state_at(0)
        counts: dict[int, int] = {}
        try:
            while not stop.is_set():
                while not stream.events.empty():  # what the other clients did meanwhile
                    event, data, _ = stream.events.get_nowait()
                    if event == "state" and data["version"] > latest["version"]:
                        latest = data
                action, body = choose(latest, rng)
                status, answer = send(game_url, token, action, {**body, "version": latest["version"]})
                counts[status] = counts.get(status, 0) + 1
                if status == 200:
                    with lock:
                        accepted.append((latest["version"], answer["version"]))
                    latest = answer
                elif status == 409:
                    latest = answer["state"]
                else:
                    problems.put((number, action, body, status, answer))
        except Exception as exc:  # noqa: BLE001 - every failure is reported below
            problems.put((number, "exception", repr(exc)))
        with lock:
            for status, count in counts.items():
                answered[status] = answered.get(status, 0) + count

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    time.sleep(SECONDS)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    print(f"\n{CLIENTS} clients, {SECONDS:.0f} s: answers by status {answered}")
    assert list(problems.queue) == []
    assert set(answered) <= {200, 409} and answered.get(200, 0) > 100

    with urllib.request.urlopen(game_url, timeout=10) as response:
        served = json.load(response)
    with urllib.request.urlopen(f"{game_url}/events", timeout=10) as response:
        events = json.load(response)

    # Every stored action covers its own run of versions: together they tile 1..N with no gap or overlap.
    covered = sorted(accepted)
    assert covered[0][0] == 0 and covered[-1][1] == served["version"] == len(events)
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:]))
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    print(f"{len(events)} events stored, {sum(e['type'] == 'undo' for e in events)} of them undos")

    replayed = Game(["Ann", "Bob", "Cy"], rules, [event_from_dict(e) for e in events]).state.to_dict()
    for player in served["players"]:
        del player["computer"]
    for keep in served["keeps"]:  # the server adds whether Bank is allowed with each keep
        assert isinstance(keep.pop("can_bank"), bool)
    assert replayed["players"] == served["players"]
    assert {k: served[k] for k in replayed if k != "rules"} == {k: v for k, v in replayed.items() if k != "rules"}

    for stream in streams:  # every listener ends on the served state
        assert stream.state_at(served["version"], timeout=10)[0]["version"] == served["version"]
        stream.close()

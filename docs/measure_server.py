"""Measures the figures of docs/security.md against real `dicekeeper serve`
processes (waitress) on a temporary database. Run: `.venv/bin/python docs/measure_server.py [part ...]`
with parts hostile, long, phones, processes, stops (default: all). Prints one JSON object per part.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serve_process import start_serve  # noqa: E402
from scorekeeper import Game, IllegalAction, preset  # noqa: E402


# ---- a server process and a client ------------------------------------------------------------------
class Server:
    def __init__(self, db: Path, source: str = "manual") -> None:
        self.process = start_serve(db, source, stderr=subprocess.DEVNULL)
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"the server did not start: {lines}")
            lines.append(line)
            if "Press Ctrl+C" in line:
                break
        self.url = re.search(r"(http://\S+)/\n", "".join(lines)).group(1)

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=30)
        self.process.stdout.close()
        return code


def call(
    url: str, body: bytes | None = None, headers: dict[str, str] | None = None, method: str | None = None
) -> tuple[int, Any]:
    request = urllib.request.Request(
        url, data=body, method=method or ("POST" if body is not None else "GET"), headers=headers or {}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        try:
            return error.code, json.load(error)
        except ValueError:
            return error.code, None


def post_json(url: str, body: object, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return call(url, json.dumps(body).encode(), headers)


class Stream:
    """Reads a game's event stream in a thread, noting when each version first arrived."""

    def __init__(self, url: str) -> None:
        host, port = re.match(r"http://([^:/]+):(\d+)", url).groups()
        self.connection = http.client.HTTPConnection(host, int(port), timeout=120)
        self.connection.request("GET", url[url.index("/", 8) :])
        self.response = self.connection.getresponse()
        self.arrived: dict[int, float] = {}
        self.ended_cleanly = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                line = self.response.readline()
                if not line:
                    self.ended_cleanly = True
                    return
                if line.startswith(b"data: "):
                    data = json.loads(line[6:])
                    if "version" in data:
                        self.arrived.setdefault(data["version"], time.perf_counter())
        except (OSError, http.client.HTTPException, ValueError):
            return

    def wait_for(self, version: int, timeout: float = 10) -> float | None:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            seen = [at for v, at in list(self.arrived.items()) if v >= version]
            if seen:
                return min(seen)
            time.sleep(0.002)
        return None

    def close(self) -> None:
        try:
            self.connection.sock.shutdown(2)
        except (OSError, AttributeError):
            pass
        self.connection.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# ---- the parts ----------------------------------------------------------------------------------------
HOSTILE: list[tuple[str, bytes, dict[str, str]]] = [
    ("entry 10,000,000", b'{"players": ["A"], "set": {"entry": 10000000}}', {}),
    ("target \\u00b2", '{"players": ["A"], "set": {"target": "\u00b2"}}'.encode(), {}),
    ("5,000-digit number string", b'{"players": ["A"], "set": {"target": "' + b"9" * 5000 + b'"}}', {}),
    ("5,000-digit JSON number", b'{"players": ["A"], "set": {"target": ' + b"9" * 5000 + b"}}", {}),
    ("JSON 100,000 deep", b"[" * 100_000 + b"]" * 100_000, {}),
    ("target 10^400", b'{"players": ["A"], "set": {"target": 1' + b"0" * 400 + b"}}", {}),
    ("NUL and bidi in names", '{"players": ["A\\u0000", "\u202eB"]}'.encode(), {}),
]


def part_hostile(tmp: Path) -> dict[str, Any]:
    server = Server(tmp / "hostile.sqlite3")
    try:
        rss_before = server.rss_mb()
        answers = []

        def timed(name: str, run: Any) -> None:
            started = time.perf_counter()
            status, _ = run()
            answers.append((name, status, 1000 * (time.perf_counter() - started)))

        for name, body, _ in HOSTILE:
            timed(name, lambda body=body: call(f"{server.url}/api/games", body, {"Content-Type": "application/json"}))
            timed(
                name + " (import)",
                lambda body=body: call(f"{server.url}/api/games/import", body, {"Content-Type": "application/json"}),
            )
        form = b"player=A&rules=family&knob_entry=99999999999"
        timed(
            "form knob_entry=99999999999",
            lambda: call(f"{server.url}/games", form, {"Content-Type": "application/x-www-form-urlencoded"}),
        )
        timed(
            "form knob_target=\\u00b2",
            lambda: call(
                f"{server.url}/games",
                "player=A&knob_target=\u00b2".encode(),
                {"Content-Type": "application/x-www-form-urlencoded"},
            ),
        )
        timed("game id 2^63", lambda: call(f"{server.url}/api/games/{2**63}"))
        _, created = post_json(f"{server.url}/api/games", {"players": ["A", "B"]})
        timed(
            "If-Match \\u00b2",
            lambda: call(
                f"{server.url}/api/games/{created['id']}/throw",
                b'{"dice": [1]}',
                {
                    "Authorization": f"Bearer {created['token']}",
                    "Content-Type": "application/json",
                    "If-Match": "\u00b2",
                },
            ),
        )
        rng = random.Random(1)
        alphabet = list(b'{}[]":,0123456789abc\\ ') + [0xB2, 0xFF]
        for _ in range(500):
            raw = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
            timed(
                "random bytes",
                lambda raw=raw: call(f"{server.url}/api/games", raw, {"Content-Type": "application/json"}),
            )
        rss_after = server.rss_mb()
    finally:
        code = server.stop()
    listed = [a for a in answers if a[0] != "random bytes"]
    return {
        "part": "hostile",
        "requests": len(answers),
        "answers_5xx": sum(1 for a in answers if a[1] >= 500),
        "slowest_ms": round(max(a[2] for a in answers), 1),
        "listed": {name: [status, round(ms, 1)] for name, status, ms in listed},
        "rss_growth_mb": round(rss_after - rss_before, 1),
        "exit_code": code,
    }


def long_game(length: int, seed: int = 17) -> dict[str, Any]:
    rng = random.Random(seed)
    game = Game(["Ann", "Bob", "Cy"], preset("family").replace(target=1_000_000))
    while game.version < length or game.state.phase != "throw" or game.state.dice_left != 5:
        state = game.state
        try:
            if state.phase == "keep":
                keep = rng.choice(state.keeps)
                game.bank(keep.dice) if rng.random() < 0.4 else game.keep(keep.dice)
            elif state.can_bank and rng.random() < 0.5:
                game.bank()
            else:
                game.throw([rng.randint(1, 6) for _ in range(state.dice_left)])
        except IllegalAction:
            continue
    return {**game.to_dict(), "source": "manual"}


def part_long(tmp: Path) -> dict[str, Any]:
    server = Server(tmp / "long.sqlite3")
    exported = long_game(6000)
    stop = threading.Event()
    reads: list[float] = []
    try:
        _, other = post_json(f"{server.url}/api/games", {"players": ["Zed", "Yan"]})

        def reader() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                call(f"{server.url}/api/games/{other['id']}")
                reads.append(1000 * (time.perf_counter() - started))
                time.sleep(0.01)

        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        imports, undos, throws = [], [], []
        for _ in range(3):
            started = time.perf_counter()
            status, game = post_json(f"{server.url}/api/games/import", exported)
            imports.append(1000 * (time.perf_counter() - started))
            assert status == 201, game
            url, token = f"{server.url}/api/games/{game['id']}", game["token"]
            for _ in range(20):
                started = time.perf_counter()
                status, _ = post_json(f"{url}/throw", {"dice": [2, 2, 3, 4, 6]}, token)
                throws.append(1000 * (time.perf_counter() - started))
                started = time.perf_counter()
                status2, _ = post_json(f"{url}/undo", {}, token)
                undos.append(1000 * (time.perf_counter() - started))
                assert status == status2 == 200
        stop.set()
        thread.join()
    finally:
        server.stop()
    return {
        "part": "long",
        "events": len(exported["events"]),
        "import_ms_max": round(max(imports), 1),
        "throw_ms_median": round(statistics.median(throws), 1),
        "throw_ms_max": round(max(throws), 1),
        "undo_ms_median": round(statistics.median(undos), 1),
        "undo_ms_max": round(max(undos), 1),
        "other_reads": len(reads),
        "other_read_ms_max": round(max(reads), 1),
    }


def part_phones(tmp: Path, phones: int = 20, seconds: float = 30.0) -> dict[str, Any]:
    server = Server(tmp / "phones.sqlite3", source="virtual")
    try:
        status, game = post_json(
            f"{server.url}/api/games", {"players": ["Ann", "Bob", "Cy"], "set": {"target": 1_000_000}}
        )
        url, token = f"{server.url}/api/games/{game['id']}", game["token"]
        streams = [Stream(f"{url}/stream") for _ in range(phones)]
        sent: dict[int, float] = {}  # version -> when the post that made it was sent
        accepted: list[tuple[int, int]] = []
        refused = {"stale": 0, "other": 0}
        lock = threading.Lock()
        stop = time.perf_counter() + seconds

        def phone(n: int) -> None:
            rng = random.Random(n)
            while time.perf_counter() < stop:
                time.sleep(rng.uniform(0.1, 0.9))
                _, state = call(url)
                if state["phase"] == "keep":
                    action, body = "keep", {"dice": state["keeps"][0]["dice"]}
                elif state["can_bank"] and rng.random() < 0.4:
                    action, body = "bank", {}
                else:
                    action, body = "throw", {}
                started = time.perf_counter()
                code, answer = post_json(f"{url}/{action}", {**body, "version": state["version"]}, token)
                with lock:
                    if code == 200:
                        accepted.append((state["version"], answer["version"]))
                        for v in range(state["version"] + 1, answer["version"] + 1):
                            sent[v] = started
                    elif code == 409:
                        refused["stale"] += 1
                    else:
                        refused["other"] += 1

        threads = [threading.Thread(target=phone, args=(n,)) for n in range(phones)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        latencies, missed = [], 0
        for version, at in sent.items():
            for stream in streams:
                arrived = stream.wait_for(version, timeout=5)
                if arrived is None:
                    missed += 1
                else:
                    latencies.append(1000 * (arrived - at))
        for stream in streams:
            stream.close()
        _, events = call(f"{url}/events")
        seqs = [e["seq"] for e in events]
        tiles = sorted(accepted)
        contiguous = all(a[1] == b[0] for a, b in zip(tiles, tiles[1:])) and (not tiles or tiles[0][0] == 0)
    finally:
        server.stop()
    return {
        "part": "phones",
        "phones": phones,
        "seconds": seconds,
        "accepted_actions": len(accepted),
        "refused_stale": refused["stale"],
        "refused_other": refused["other"],
        "stored_events": len(events),
        "lost_or_doubled": 0
        if contiguous and seqs == list(range(1, len(seqs) + 1)) and tiles[-1][1] == len(seqs)
        else "yes",
        "stream_updates": len(latencies),
        "never_seen": missed,
        "latency_ms_p50": round(percentile(latencies, 0.5), 1),
        "latency_ms_p99": round(percentile(latencies, 0.99), 1),
    }


def part_processes(tmp: Path, rounds: int = 20) -> dict[str, Any]:
    db = tmp / "shared.sqlite3"
    first = Server(db)
    second = Server(db)
    try:
        _, game = post_json(f"{first.url}/api/games", {"players": ["Ann", "Bob"]})
        streams = {s.url: Stream(f"{s.url}/api/games/{game['id']}/stream") for s in (first, second)}
        time.sleep(0.5)
        latencies = []
        rng = random.Random(3)
        for n in range(rounds):
            time.sleep(rng.uniform(0.0, 0.5))  # writes at any point of the other server's polling
            writer, watcher = (first, second) if n % 2 == 0 else (second, first)
            action = {"dice": [1, 5, 2, 3, 3]} if n % 2 == 0 else {}
            started = time.perf_counter()
            status, state = post_json(
                f"{writer.url}/api/games/{game['id']}/{'throw' if n % 2 == 0 else 'undo'}", action, game["token"]
            )
            assert status == 200, state
            arrived = streams[watcher.url].wait_for(state["version"], timeout=5)
            latencies.append(None if arrived is None else 1000 * (arrived - started))
        for stream in streams.values():
            stream.close()
    finally:
        first.stop()
        second.stop()
    seen = [ms for ms in latencies if ms is not None]
    return {
        "part": "processes",
        "writes": rounds,
        "seen_by_the_other": len(seen),
        "latency_ms_median": round(statistics.median(seen), 1),
        "latency_ms_max": round(max(seen), 1),
    }


def part_stops(tmp: Path, rounds: int = 50) -> dict[str, Any]:
    clean = 0
    slowest = 0.0
    for _ in range(rounds):
        server = Server(tmp / "stops.sqlite3", source="virtual")
        stream = Stream(f"{server.url}/api/games/1/stream")
        stream.wait_for(0)
        started = time.perf_counter()
        code = server.stop()
        stream.thread.join(timeout=10)
        slowest = max(slowest, time.perf_counter() - started)
        clean += code == 0 and stream.ended_cleanly
        stream.close()
    return {"part": "stops", "rounds": rounds, "clean": clean, "slowest_stop_s": round(slowest, 2)}


PARTS = {
    "hostile": part_hostile,
    "long": part_long,
    "phones": part_phones,
    "processes": part_processes,
    "stops": part_stops,
}


def main(names: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for name in names or list(PARTS):
            print(json.dumps(PARTS[name](Path(folder))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Stops `dicekeeper serve` again and again while everything runs, and counts the clean stops.

    python -m benchmarks.clean_stops --rounds 50

Each round starts a server with the demo camera, starts a game of two computer players (they play
by themselves), opens the game's event stream and the camera's MJPEG stream, then sends SIGTERM or
SIGINT (Ctrl+C), alternately. A clean stop exits 0 within 10 s, prints nothing about an abort, and
ends both streams properly.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.serve_process import start_serve


@dataclass(frozen=True)
class StopResult:
    signal: str
    code: int | None
    seconds: float
    events_ended: bool
    camera_ended: bool
    moves: int  # computer moves made before the stop
    stderr_tail: str

    @property
    def clean(self) -> bool:
        aborted = "terminate called" in self.stderr_tail or "Traceback" in self.stderr_tail
        return self.code == 0 and self.events_ended and self.camera_ended and not aborted


class _StreamReader:
    """Reads an HTTP response to its end in a thread; `ended` says whether it ended properly."""

    def __init__(self, host: str, port: int, path: str) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=60)
        self.connection.request("GET", path)
        self.response = self.connection.getresponse()
        self.started = threading.Event()
        self.ended = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                chunk = self.response.read1(65536)
                self.started.set()
                if not chunk:
                    self.ended = True
                    return
        except (OSError, http.client.HTTPException):
            return

    def close(self) -> None:
        self.connection.close()


def _post(host: str, port: int, path: str, body: dict[str, object]) -> dict[str, object]:
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


def _get(host: str, port: int, path: str) -> dict[str, object]:
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        connection.request("GET", path)
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


def one_stop(database: Path, which: signal.Signals = signal.SIGTERM, run_for: float = 1.0) -> StopResult:
    """One server started, busy for `run_for` seconds, and stopped with `which`."""
    process = start_serve(database, "demo")
    streams: list[_StreamReader] = []
    try:
        assert process.stdout is not None and process.stderr is not None
        lines: list[str] = []
        while True:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"the server did not start: {''.join(lines)}{process.stderr.read()}")
            lines.append(line)
            if "Press Ctrl+C" in line:
                break
        host, port = re.search(r"http://([^:/\s]+):(\d+)/", "".join(lines)).groups()  # type: ignore[union-attr]
        created = _post(host, int(port), "/api/games", {"players": ["*Hal", "*Cy"], "source": "virtual"})
        game = created["id"]
        events = _StreamReader(host, int(port), f"/api/games/{game}/stream?token={created['token']}")
        camera = _StreamReader(host, int(port), "/camera/stream.mjpg")
        streams = [events, camera]
        for stream in streams:
            stream.started.wait(10)
        time.sleep(run_for)
        moves = int(_get(host, int(port), f"/api/games/{game}?token={created['token']}")["version"])  # type: ignore[call-overload]
        started = time.perf_counter()
        process.send_signal(which)
        try:
            code: int | None = process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        seconds = time.perf_counter() - started
        for stream in streams:
            stream.thread.join(timeout=5)
        tail = process.stderr.read()[-2000:] if code is not None else ""
        return StopResult(which.name, code, seconds, events.ended, camera.ended, moves, tail)
    finally:
        for stream in streams:
            stream.close()
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
        if process.stderr is not None:
            process.stderr.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args(argv)
    clean, slowest, failures = 0, 0.0, []
    with tempfile.TemporaryDirectory() as folder:
        for n in range(args.rounds):
            result = one_stop(Path(folder) / "stops.sqlite3", signal.SIGTERM if n % 2 == 0 else signal.SIGINT)
            clean += result.clean
            slowest = max(slowest, result.seconds)
            if not result.clean:
                failures.append(
                    {
                        "round": n,
                        "signal": result.signal,
                        "code": result.code,
                        "events_ended": result.events_ended,
                        "camera_ended": result.camera_ended,
                        "stderr": result.stderr_tail[-300:],
                    }
                )
    print(
        json.dumps({"rounds": args.rounds, "clean": clean, "slowest_stop_s": round(slowest, 2), "failures": failures})
    )
    return 0 if clean == args.rounds else 1


if __name__ == "__main__":
    raise SystemExit(main())

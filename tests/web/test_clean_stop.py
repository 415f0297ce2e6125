"""SIGTERM and Ctrl+C stop a busy server cleanly: demo camera, computer players and open streams."""

from __future__ import annotations

import signal
from pathlib import Path

from benchmarks.clean_stops import one_stop


def test_a_busy_server_stops_cleanly_on_sigterm_and_ctrl_c_every_time(tmp_path: Path) -> None:
    results = [
        one_stop(tmp_path / "stops.sqlite3", which, run_for=1.2)
        for which in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM, signal.SIGINT)
    ]
    for result in results:
        assert result.code == 0, result
        assert result.events_ended and result.camera_ended, result
        assert "terminate called" not in result.stderr_tail and "Traceback" not in result.stderr_tail
        assert "dicekeeper: stopping" in result.stderr_tail
        assert result.seconds < 8
    assert sum(r.moves for r in results) > 0  # the computer players were really playing

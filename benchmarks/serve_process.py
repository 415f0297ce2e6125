"""`dicekeeper serve` as a real process, for the measurements and tests that stop or load it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def start_serve(database: Path, source: str, stderr: int = subprocess.PIPE) -> subprocess.Popen[str]:
    """`dicekeeper serve` on a free loopback port, its output piped so the caller can read the
    address it prints (a caller that never reads stderr passes `subprocess.DEVNULL`)."""
    command = [sys.executable, "-m", "dicekeeper", "serve", "--host", "127.0.0.1", "--port", "0"]
    return subprocess.Popen(
        [*command, "--db", str(database), "--source", source],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )

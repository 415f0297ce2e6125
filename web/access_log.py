"""An access log that never writes a game's token: the `token` and `seat` query values are masked."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger("dicekeeper.access")

_SECRET_VALUE = re.compile(r"((?:^|&)(?:token|seat)=)[^&]*", re.IGNORECASE)


def redact(query: str) -> str:
    return _SECRET_VALUE.sub(r"\1***", query)


class AccessLog:
    """WSGI middleware: one line per request with method, path, masked query, status and time."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = time.monotonic()
        status: list[str] = []

        def recording_start_response(code: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            status.append(code.split(" ", 1)[0])
            return start_response(code, headers, *rest)

        query = environ.get("QUERY_STRING", "")
        target = environ.get("PATH_INFO", "") + ("?" + redact(query) if query else "")
        try:
            return self.app(environ, recording_start_response)
        finally:
            log.info(
                "%s %s %s %s %.1f ms",
                environ.get("REMOTE_ADDR", "-"),
                environ.get("REQUEST_METHOD", "-"),
                target,
                status[0] if status else "-",
                1000 * (time.monotonic() - started),
            )

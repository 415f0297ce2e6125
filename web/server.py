"""The production server: waitress, with the limits a table's Wi-Fi calls for.

Each open event stream holds one of waitress's threads, so the thread count is the stream cap
plus room for ordinary requests. `channel_timeout` closes connections idle that long, including
those that send their headers slowly or not at all.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from waitress import create_server
from waitress.server import BaseWSGIServer

from web.access_log import AccessLog

SPARE_THREADS = 8  # for ordinary requests while every stream slot is taken
HEADER_TIMEOUT = 20  # seconds a connection may stay silent before a full request
MAX_HEADER_BYTES = 16_384
CONNECTION_LIMIT = 200


def make_server(app: Flask, host: str, port: int, **overrides: Any) -> BaseWSGIServer:
    """A waitress server for `app` (not yet running: call `.run()`); port 0 picks a free port."""
    settings: dict[str, Any] = {
        "host": host,
        "port": port,
        "threads": int(app.config["MAX_STREAMS"]) + SPARE_THREADS,
        "channel_timeout": HEADER_TIMEOUT,
        "cleanup_interval": 5,
        "max_request_header_size": MAX_HEADER_BYTES,
        "max_request_body_size": int(app.config["MAX_CONTENT_LENGTH"]),
        "connection_limit": CONNECTION_LIMIT,
        "ident": "dicekeeper",
        "clear_untrusted_proxy_headers": True,
    }
    settings.update(overrides)
    return create_server(AccessLog(app), **settings)

"""Refuses state-changing requests that a page of another site makes a browser send.

Browsers add `Origin` to every POST; a request that carries one must come from this server's own
address (as the browser reached it, or `PUBLIC_URL`, or one of `TRUSTED_ORIGINS`). Clients that are
not browsers (the tests, scripts, the CLI) send no Origin and are let through: the game token or
the JSON content type still guards them.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, abort, current_app, request

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def trusted_origins() -> set[str]:
    trusted = {origin_of(request.host_url)}
    public = current_app.config.get("PUBLIC_URL")
    if public:
        trusted.add(origin_of(public))
    trusted.update(origin_of(o) for o in current_app.config.get("TRUSTED_ORIGINS") or ())
    return trusted


def check_origin() -> None:
    if request.method not in STATE_CHANGING:
        return
    origin = request.headers.get("Origin")
    if origin is None:
        if request.headers.get("Sec-Fetch-Site") == "cross-site":
            abort(403, "this request came from a page of another site")
        return
    if origin.lower().rstrip("/") not in trusted_origins():
        abort(403, f"requests from {origin[:80]} may not change games here")


def init_app(app: Flask) -> None:
    app.before_request(check_origin)

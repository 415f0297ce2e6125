"""Who may act on a game: whoever holds its secret token (the link in the table view's QR code)."""

from __future__ import annotations

import hmac

from flask import Request


def token_from(request: Request) -> str | None:
    header = request.headers.get("Authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip() or None
    return request.args.get("token") or None


def allowed(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())

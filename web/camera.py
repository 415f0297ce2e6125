"""The camera's pages under /camera: the annotated picture (MJPEG or single JPEG), the camera's state
as JSON, and the phone's confirm / dismiss of a throw the camera was unsure about.

The loop itself is a worker that `serve` starts (`web.workers.start_camera`); without it the pages
say that no camera runs.
"""

from __future__ import annotations

import functools
import sqlite3
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from scorekeeper import DiceError, IllegalAction, RulesError
from web import db as database
from web.access import allowed, token_from
from web.camera_loop import CameraLoop
from web.games import GameBook, GameNotFound, InputError, StaleVersion, check_version
from web.inputs import load_json
from web.throw_recorder import ProposalGone

bp = Blueprint("camera", __name__, url_prefix="/camera")
EXTENSION = "dicekeeper.camera"  # where web.workers keeps the running loop
BOUNDARY = "frame"


def camera_loop() -> CameraLoop | None:
    return current_app.extensions.get(EXTENSION)


def _error(status: int, message: str, **extra: Any):
    return jsonify({"error": message, **extra}), status


@bp.get("/state")
def state():
    loop = camera_loop()
    if loop is None:
        return jsonify(
            {
                "source": {"name": "none", "status": "off", "message": "no camera source configured"},
                "phase": "waiting",
                "in_play": [],
                "set_aside": [],
                "fps": 0.0,
                "read_ms": 0.0,
                "game": None,
                "recorded": 0,
                "last_throw": None,
                "error": "",
            }
        )
    return jsonify(loop.state().to_dict())


@bp.get("/frame.jpg")
def frame():
    loop = camera_loop()
    data = loop.jpeg()[0] if loop is not None else None
    if data is None:
        return _error(503, "no camera picture yet")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/stream.mjpg")
def stream():
    """The annotated picture as MJPEG, at most `CAMERA_STREAM_FPS` frames a second."""
    loop = camera_loop()
    if loop is None:
        return _error(503, "no camera source configured")
    period = 1.0 / float(current_app.config.get("CAMERA_STREAM_FPS", 12))
    broker = current_app.extensions["dicekeeper.live"]

    def generate() -> Iterator[bytes]:
        seen = -1
        while not broker.closed and loop.running:
            started = time.monotonic()
            index = loop.wait_frame(seen, timeout=1.0)
            if index == seen:
                continue
            data, seen = loop.jpeg()
            if data is None:
                continue
            yield (
                (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(data)}\r\n\r\n").encode()
                + data
                + b"\r\n"
            )
            rest = period - (time.monotonic() - started)
            if rest > 0:
                time.sleep(rest)

    return Response(
        generate(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}", headers={"Cache-Control": "no-store"}
    )


def _needs_game_token(
    view: Callable[[sqlite3.Connection, int], ResponseReturnValue],
) -> Callable[[int], ResponseReturnValue]:
    """The view of one game, called with the database once the request's token opens the game;
    404 for no such game, 403 for any other token."""

    @functools.wraps(view)
    def checked(game_id: int) -> ResponseReturnValue:
        book: GameBook = current_app.extensions["dicekeeper.games"]
        conn = database.get_db()
        try:
            record = book.record(conn, game_id)
        except GameNotFound as exc:
            return _error(404, str(exc))
        if not allowed(token_from(request), record.token):
            return _error(403, "this game needs its token: open the link from the table view's QR code")
        return view(conn, game_id)

    return checked


@bp.get("/games/<int:game_id>/pending")
@_needs_game_token
def pending(conn: sqlite3.Connection, game_id: int):
    loop = camera_loop()
    proposal = loop.recorder.pending(conn, game_id) if loop is not None else None
    return jsonify({"pending": proposal.to_dict() if proposal is not None else None})


def _body() -> dict[str, Any] | None:
    try:
        body = load_json(request.get_data(cache=True))
    except InputError:
        return None
    return body if isinstance(body, dict) else None


@bp.post("/games/<int:game_id>/confirm")
@_needs_game_token
def confirm(conn: sqlite3.Connection, game_id: int):
    """Body: {"proposal": id, "dice": [faces], "version": n (optional)}. `dice` lists the camera's dice
    in the proposal's order, null for one that is no die, then any dice the camera missed."""
    loop = camera_loop()
    if loop is None:
        return _error(404, "no camera source configured")
    body = _body()
    if body is None or not isinstance(body.get("proposal"), int) or not isinstance(body.get("dice"), list):
        return _error(400, 'send {"proposal": id, "dice": [faces]}')
    try:
        state = loop.recorder.confirm(conn, game_id, body["proposal"], body["dice"], check_version(body.get("version")))
    except ProposalGone as exc:
        return _error(409, str(exc))
    except StaleVersion as exc:
        return _error(409, str(exc), state=exc.state)
    except (InputError, DiceError, RulesError) as exc:
        return _error(400, str(exc))
    except IllegalAction as exc:
        return _error(422, str(exc))
    return jsonify(state)


@bp.post("/games/<int:game_id>/dismiss")
@_needs_game_token
def dismiss(conn: sqlite3.Connection, game_id: int):
    loop = camera_loop()
    body = _body()
    if loop is None or body is None or not isinstance(body.get("proposal"), int):
        return _error(400, 'send {"proposal": id}')
    try:
        loop.recorder.dismiss(game_id, body["proposal"])
    except ProposalGone as exc:
        return _error(409, str(exc))
    return jsonify({"pending": None})

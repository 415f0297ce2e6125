"""The JSON API under /api: what the pages call and the tests drive."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from scorekeeper import DiceError, IllegalAction, RulesError
from web import db as database
from web.access import token_from
from web.games import (
    ACTIONS,
    GameBook,
    GameNotFound,
    InputError,
    NotYourTurn,
    StaleVersion,
    import_payload,
    ruleset_from_request,
)
from web.inputs import load_json, whole_number
from web.live import ALL_GAMES, Broker
from web.lookup import book
from web.seats import Actor, actor_for, give_seat, seated

bp = Blueprint("api", __name__, url_prefix="/api")

CREATE_FIELDS = {"players", "rules", "set", "house", "source"}
MAX_ACTION_BODY = 16 * 1024  # an action carries a few dice and a version
MAX_CREATE_BODY = 64 * 1024


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def broker() -> Broker:
    return current_app.extensions["dicekeeper.live"]


def json_body(max_bytes: int | None = None, require_json_type: bool = False) -> dict[str, Any]:
    """The request's JSON object; an empty body counts as {}.

    `require_json_type` refuses other content types: a page on another site can post a form or
    text to this server without asking first, but not JSON.
    """
    if max_bytes is not None and (request.content_length or 0) > max_bytes:
        raise ApiError(413, f"the request body may be at most {max_bytes} bytes")
    raw = request.get_data(cache=True)
    if max_bytes is not None and len(raw) > max_bytes:
        raise ApiError(413, f"the request body may be at most {max_bytes} bytes")
    if not raw.strip():
        return {}
    if require_json_type and request.mimetype != "application/json":
        raise ApiError(415, "send the body as JSON, with the header Content-Type: application/json")
    data = load_json(raw)
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def expected_version(body: dict[str, Any]) -> object:
    """The version the caller saw: the body's "version", else an If-Match header."""
    if "version" in body:
        return body["version"]
    header = request.headers.get("If-Match", "").strip().strip('"')
    if not header:
        return None
    return whole_number(header, "If-Match (a version number)")


@bp.errorhandler(ApiError)
def on_api_error(exc: ApiError) -> ResponseReturnValue:
    return jsonify({"error": exc.message, **exc.extra}), exc.status


ERROR_STATUS: dict[type[Exception], int] = {
    InputError: 400,
    DiceError: 400,
    RulesError: 400,
    IllegalAction: 422,
    GameNotFound: 404,
    NotYourTurn: 403,
}
"""The HTTP status each error of the engine or the game book answers with; the message is the error's."""


def on_known_error(exc: Exception) -> ResponseReturnValue:
    status = next(ERROR_STATUS[cls] for cls in type(exc).__mro__ if cls in ERROR_STATUS)
    return jsonify({"error": str(exc)}), status


for _error in ERROR_STATUS:
    bp.register_error_handler(_error, on_known_error)


@bp.errorhandler(StaleVersion)
def on_stale(exc: StaleVersion) -> ResponseReturnValue:
    return jsonify({"error": str(exc), "state": exc.state}), 409


@bp.errorhandler(sqlite3.Error)
def on_storage_error(exc: sqlite3.Error) -> ResponseReturnValue:
    # The transaction was rolled back, so the game is as it was: say so rather than fail with a 500.
    current_app.logger.warning("database error: %s", exc)
    return jsonify({"error": f"the database could not store this ({exc}); nothing was changed, try again"}), 503


@bp.app_errorhandler(HTTPException)
def on_http(exc: HTTPException) -> ResponseReturnValue:
    if not request.path.startswith(bp.url_prefix or "/api"):
        return exc
    return jsonify({"error": exc.description or exc.name}), exc.code or 500


def require_token(game_id: int, table_only: bool = False) -> Actor:
    """The table or the seat the request's token stands for; 403 for any other token or none."""
    conn = database.get_db()
    record = book().record(conn, game_id)
    actor = actor_for(conn, record, token_from(request))
    if actor is None:
        raise ApiError(403, "this game needs its token: open the link from the table view's QR code")
    if table_only and not actor.is_table:
        raise ApiError(403, "only the table can do this, not a player's seat")
    return actor


@bp.post("/games")
def create_game() -> ResponseReturnValue:
    body = json_body(MAX_CREATE_BODY, require_json_type=True)
    unknown = sorted(set(body) - CREATE_FIELDS)
    if unknown:
        raise ApiError(400, f"unknown field {unknown[0]!r}; known: {', '.join(sorted(CREATE_FIELDS))}")
    rules = ruleset_from_request(body.get("rules"), body.get("set"), body.get("house", ()))
    source = body.get("source")
    if source is not None and not isinstance(source, str):
        raise ApiError(400, f"source must be a text, not {source!r}")
    record, game, notice = book().create(database.get_db(), body.get("players"), rules, source)
    answer: dict[str, Any] = {"id": record.id, "token": record.token, "state": GameBook.state_dict(record, game.state)}
    if notice:
        answer["notice"] = notice
    return jsonify(answer), 201


@bp.post("/games/import")
def import_game() -> ResponseReturnValue:
    players, rules, events, source = import_payload(json_body(require_json_type=True))
    try:
        record, game, _ = book().create(database.get_db(), players, rules, source or "manual", events)
    except IllegalAction as exc:
        raise ApiError(400, f"the exported game does not replay: {exc}") from None
    return jsonify({"id": record.id, "token": record.token, "state": GameBook.state_dict(record, game.state)}), 201


@bp.post("/games/<int:game_id>/rematch")
def rematch(game_id: int) -> ResponseReturnValue:
    """The same players and rules again, the starting player moved on by one (table only)."""
    require_token(game_id, table_only=True)
    conn = database.get_db()
    record, notice = book().rematch(conn, game_id)
    answer: dict[str, Any] = {"id": record.id, "token": record.token, "state": book().state(conn, record.id)}
    if notice:
        answer["notice"] = notice
    return jsonify(answer), 201


@bp.post("/games/<int:game_id>/abandon")
def abandon_game(game_id: int) -> ResponseReturnValue:
    """Set an unfinished game aside; {"abandoned": false} takes it up again (table only)."""
    require_token(game_id, table_only=True)
    body = json_body(MAX_ACTION_BODY)
    unknown = sorted(set(body) - {"abandoned"})
    if unknown:
        raise ApiError(400, f"unknown field {unknown[0]!r}; known: abandoned")
    abandoned = body.get("abandoned", True)
    if not isinstance(abandoned, bool):
        raise ApiError(400, f'"abandoned" must be true or false, not {abandoned!r}')
    book().abandon(database.get_db(), game_id, abandoned)
    return jsonify({"id": game_id, "abandoned": abandoned})


@bp.delete("/games/<int:game_id>")
def delete_game(game_id: int) -> ResponseReturnValue:
    """Remove a game, its events and its seats for good (table only)."""
    require_token(game_id, table_only=True)
    book().delete(database.get_db(), game_id)
    return "", 204


@bp.get("/games")
def list_games() -> ResponseReturnValue:
    return jsonify(book().summaries(database.get_db()))


@bp.get("/games/<int:game_id>")
def get_game(game_id: int) -> ResponseReturnValue:
    return jsonify(book().state(database.get_db(), game_id))


@bp.get("/games/<int:game_id>/events")
def get_events(game_id: int) -> ResponseReturnValue:
    return jsonify(book().events(database.get_db(), game_id))


@bp.post("/games/<int:game_id>/<action>")
def act(game_id: int, action: str) -> ResponseReturnValue:
    if action not in ACTIONS:
        raise ApiError(404, f"unknown action {action!r}; known: {', '.join(ACTIONS)}")
    actor = require_token(game_id)
    body = json_body(MAX_ACTION_BODY)
    version = expected_version(body)
    payload = {k: v for k, v in body.items() if k != "version"}
    state = book().record_action(database.get_db(), game_id, action, payload, version, seat=actor.seat)
    return jsonify(state)


@bp.get("/games/<int:game_id>/seats")
def list_seats(game_id: int) -> ResponseReturnValue:
    """The table's view of the seats: which players have one, and its link."""
    require_token(game_id, table_only=True)
    conn = database.get_db()
    record = book().record(conn, game_id)
    given = seated(conn, record)
    names = book().names(conn, game_id)
    return jsonify([{"player": i, "name": name, "seat": given.get(i)} for i, name in enumerate(names)])


@bp.post("/games/<int:game_id>/seats/<int:player>")
def seat_player(game_id: int, player: int) -> ResponseReturnValue:
    """A seat for one player (again: the old token stops working), for the table to hand out."""
    require_token(game_id, table_only=True)
    conn = database.get_db()
    record = book().record(conn, game_id)
    names = book().names(conn, game_id)
    token = give_seat(conn, record, player, len(names))
    return jsonify({"player": player, "name": names[player], "seat": token}), 201


def _sse(event: str, data: Any, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


Render = Callable[[sqlite3.Connection], tuple[object, str]]


def _stream(channel: int, render: Render) -> Response:
    """An event stream that sends `render(conn)` now and after every change on `channel`.

    `render` returns (key, chunk); a chunk is sent only when its key differs from the last one sent.
    Changes made by other processes on the same database do not reach this process's broker, so the
    stream also polls SQLite's `PRAGMA data_version`, which moves on every commit of another connection.
    """
    path = current_app.config["DATABASE"]
    keepalive = float(current_app.config["STREAM_KEEPALIVE"])
    poll = float(current_app.config["STREAM_POLL"])
    live = broker()
    if not live.stream_opened(int(current_app.config["MAX_STREAMS"])):
        response = jsonify({"error": "too many live pages are open on this server; try again shortly"})
        response.status_code = 503
        response.headers["Retry-After"] = "5"
        return response

    def generate() -> Iterator[str]:
        conn = database.connect(path)
        try:
            yield "retry: 1000\n\n"
            seen: tuple[int, int] | None = None
            sent_key: object = None
            quiet_since = time.monotonic()
            while not live.closed:
                now = (live.tick(channel), database.data_version(conn))
                if now != seen:
                    seen = now
                    key, chunk = render(conn)
                    if key != sent_key:
                        sent_key, quiet_since = key, time.monotonic()
                        yield chunk
                elif not live.wait(channel, seen[0], min(poll, keepalive)):
                    if live.closed:
                        break
                    if time.monotonic() - quiet_since >= keepalive:
                        quiet_since = time.monotonic()
                        yield ": keepalive\n\n"
        finally:
            conn.close()

    response = Response(
        generate(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )
    # Counted until the server has written the stream's last chunk, so shutdown can wait for it.
    response.call_on_close(live.stream_ended)
    return response


@bp.get("/games/<int:game_id>/stream")
def stream_game(game_id: int) -> ResponseReturnValue:
    """Server-Sent Events: the game's state now and after every change."""
    games = book()
    games.record(database.get_db(), game_id)  # 404 before the stream starts

    def render(conn: sqlite3.Connection) -> tuple[object, str]:
        try:
            state = games.state(conn, game_id)
        except GameNotFound:  # deleted while the page was open
            return "gone", _sse("gone", {"id": game_id})
        return state["version"], _sse("state", state, state["version"])

    return _stream(game_id, render)


@bp.get("/stream")
def stream_all() -> ResponseReturnValue:
    """Server-Sent Events for the history list: a notice after any change to any game."""
    live = broker()

    def render(conn: sqlite3.Connection) -> tuple[object, str]:
        mark = (live.tick(ALL_GAMES), database.data_version(conn))
        return mark, _sse("change", {"tick": mark[0], "data": mark[1]})

    return _stream(ALL_GAMES, render)

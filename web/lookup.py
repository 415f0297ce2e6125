"""The game a request names, and who is asking: shared by the pages, the history and the API."""

from __future__ import annotations

from flask import abort, current_app, request

from web import db as database
from web.access import token_from
from web.games import GameBook, GameNotFound, GameRecord
from web.seats import Actor, actor_for


def book() -> GameBook:
    return current_app.extensions["dicekeeper.games"]


def game_and_actor(game_id: int) -> tuple[GameRecord, Actor | None]:
    """The game (404 when there is none) and the seat or table the request's token opens."""
    conn = database.get_db()
    try:
        record = book().record(conn, game_id)
    except GameNotFound:
        abort(404, f"There is no game {game_id}.")
    return record, actor_for(conn, record, token_from(request))

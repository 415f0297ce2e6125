"""Seats: a token per player, handed to that player's phone, that acts only on that player's turn.

Giving a seat again replaces its token, so a lost phone is re-seated from the table and the old
link stops working at once.
"""

from __future__ import annotations

import hmac
import secrets
import sqlite3
from dataclasses import dataclass

from web.access import allowed
from web.games import GameRecord, InputError, utc_now


@dataclass(frozen=True)
class Actor:
    """Who sent a request: the table (seat None, may do everything) or the phone of one seat."""

    seat: int | None = None

    @property
    def is_table(self) -> bool:
        return self.seat is None


def actor_for(db: sqlite3.Connection, record: GameRecord, given: str | None) -> Actor | None:
    """The actor a token stands for in this game, or None when it stands for nobody."""
    if given is None:
        return None
    if allowed(given, record.token):
        return Actor()
    for row in db.execute("SELECT player, token FROM seats WHERE game_id = ?", (record.id,)):
        if hmac.compare_digest(given.encode(), row["token"].encode()):
            return Actor(seat=int(row["player"]))
    return None


def give_seat(db: sqlite3.Connection, record: GameRecord, player: int, seats: int) -> str:
    """A new seat token for `player` (an index into the game's `seats` seats), replacing any earlier one."""
    if not 0 <= player < seats:
        raise InputError(f"game {record.id} has players 0 to {seats - 1}, not {player}")
    token = secrets.token_urlsafe(18)
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(
            "INSERT INTO seats (game_id, player, token, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (game_id, player) DO UPDATE SET token = excluded.token, "
            "created_at = excluded.created_at",
            (record.id, player, token, utc_now()),
        )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return token


def seated(db: sqlite3.Connection, record: GameRecord) -> dict[int, str]:
    """Player index -> seat token, for the players that have a seat."""
    rows = db.execute("SELECT player, token FROM seats WHERE game_id = ? ORDER BY player", (record.id,))
    return {int(row["player"]): row["token"] for row in rows}

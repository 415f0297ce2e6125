"""Computer players on the server: when a `*` player is to act in a game of virtual dice, a
background worker plays its turn, one action at a time, through `GameBook.record_action`.

Every move is therefore an ordinary stored event that the pages see live. Each action carries the
version it was chosen from, so a person who acts in the meantime wins the race: the worker gets
StaleVersion, reads the game again and decides afresh. It never acts in games of real dice.
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import time
from typing import Any

from flask import Flask

from scorekeeper.players import choose_action, computer_strategy
from web import db as database
from web.background import BackgroundWorker
from web.games import GameBook, GameNotFound, StaleVersion, is_computer
from web.live import ALL_GAMES, Broker

log = logging.getLogger(__name__)

EXTENSION = "dicekeeper.computer"

# Every virtual game with a computer player, with its number of events.
CANDIDATES = """
    SELECT g.id, g.players, (SELECT COALESCE(MAX(e.seq), 0) FROM events e WHERE e.game_id = g.id) AS version
    FROM games g WHERE g.source = 'virtual' ORDER BY g.id
"""


class ComputerPlayers(BackgroundWorker):
    """Plays the `*` players of every virtual game in one database. `start()` runs it in a daemon
    thread; it stops on `stop()` or when the broker closes (the server shutting down)."""

    def __init__(
        self,
        database_path: str,
        book: GameBook,
        broker: Broker,
        pace: float = 0.8,
        poll: float = 0.25,
        rescan: float = 2.0,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__("computer players", broker)
        self.database_path = database_path
        self.book = book
        self.pace = pace  # seconds before each move, so people can follow it
        self.poll = poll  # how often an idle worker looks at its stop flag
        self.rescan = rescan  # how often an idle worker looks for moves of other processes
        self.rng = rng or random.Random()
        self.moves = 0  # actions recorded
        self.conflicts = 0  # actions refused because someone acted first
        self.errors = 0
        # Games checked at a version where no computer is to act (or where acting failed): skipped
        # until they change.
        self._idle_at: dict[int, int] = {}

    # ---- running -------------------------------------------------------------------------------
    def _run(self) -> None:
        conn = database.connect(self.database_path)
        try:
            seen, scanned = None, 0.0
            while not self._stopping():
                tick = self.broker.tick(ALL_GAMES)
                if tick == seen and time.monotonic() - scanned < self.rescan:
                    self.broker.wait(ALL_GAMES, tick, self.poll)
                    continue
                seen, scanned = tick, time.monotonic()
                try:
                    due = self.due_games(conn)
                except Exception:  # a locked or broken database: try again later, never end the loop
                    self.errors += 1
                    log.exception("computer players: cannot read the games")
                    self._stop.wait(1.0)
                    continue
                if not due:
                    continue
                seen = None  # after moving, look again at once
                if self.pace > 0 and self._stop.wait(self.pace):
                    break
                errors = self.errors
                for game_id in due:
                    if self._stopping():
                        break
                    self.play_one(conn, game_id)
                if self.errors > errors:
                    self._stop.wait(1.0)  # something is wrong: do not retry at full speed
        finally:
            conn.close()

    # ---- deciding ------------------------------------------------------------------------------
    def due_games(self, conn: sqlite3.Connection) -> list[int]:
        """The virtual games where a computer player is to act now."""
        due = []
        for row in conn.execute(CANDIDATES).fetchall():
            game_id, version = row["id"], row["version"]
            if self._idle_at.get(game_id) == version or not any(map(is_computer, json.loads(row["players"]))):
                continue
            state = self.book.state(conn, game_id)
            if state["finished"] or not state["players"][state["current"]]["computer"]:
                self._idle_at[game_id] = state["version"]
            else:
                due.append(game_id)
        return due

    def play_one(self, conn: sqlite3.Connection, game_id: int) -> dict[str, Any] | None:
        """One action of the computer player to act in `game_id`, chosen from the game as stored now.

        Returns the new state, or None when there was nothing to do or someone else acted first.
        """
        version = -1
        try:
            record, state = self.book.snapshot(conn, game_id)  # no copy of the game: O(1) however long
            version = state.version
            strategy = computer_strategy(state.current_player.name) if not state.finished else None
            if record.source != "virtual" or strategy is None:
                self._idle_at[game_id] = version
                return None
            action = choose_action(strategy, state, self.rng)
            payload: dict[str, object] = {"dice": list(action.dice)} if action.kind == "keep" else {}
            new_state = self.book.record_action(conn, game_id, action.kind, payload, expected_version=version)
        except StaleVersion:
            self.conflicts += 1  # a person acted first: the next round reads the game again
            return None
        except GameNotFound:
            self._idle_at.pop(game_id, None)
            return None
        except Exception:
            # Logged and skipped until the game changes (an undo, a person's move), so one bad game
            # cannot spin the worker or stop the others.
            self.errors += 1
            self._idle_at[game_id] = version
            log.exception("computer player of game %s could not act", game_id)
            return None
        self.moves += 1
        return new_state


def enabled(app: Flask) -> bool:
    """COMPUTER_PLAYERS true or false decides; unset, they play except in a TESTING app."""
    setting = app.config.get("COMPUTER_PLAYERS")
    return bool(setting) if setting is not None else not app.testing

"""The demo table driven by the game: when the camera game waits for a throw, the table takes away
the dice that are not kept and throws as many as are in play."""

from __future__ import annotations

from typing import Any

from vision.live.frames import BaseSource
from vision.live.sources import demo_table_of
from web.games import GameBook
from web.live import ALL_GAMES, Broker
from web.throw_recorder import ThrowRecorder


class DemoDriver:
    """Asks the demo table for a throw whenever the camera game changed and waits for one. Used by
    the camera thread only, so it needs no lock."""

    def __init__(self, book: GameBook, broker: Broker, recorder: ThrowRecorder) -> None:
        self.book = book
        self.broker = broker
        self.recorder = recorder
        self._seen_tick = -1
        self.game: int | None = None  # the camera game, as of the last change to any game
        self.error = ""

    def drive(self, source: BaseSource, conn: Any) -> None:
        """One look at the games, when any changed since the last look."""
        table = demo_table_of(source)
        if table is None:
            return
        tick = self.broker.tick(ALL_GAMES)
        if tick == self._seen_tick:
            return
        self._seen_tick = tick
        game_id = self.game = self.recorder.camera_game(conn)
        if game_id is None or self.recorder.waiting(game_id):
            return
        state = self.book.state(conn, game_id)
        if state["phase"] != "throw":
            return
        kept = state["kept"][-1]["dice"] if state["kept"] else []
        total = self.book.record(conn, game_id).rules.dice
        try:
            table.ask(state["dice_left"], kept, key=(game_id, state["version"]), total=total)
        except ValueError as exc:  # a game of more dice than the demo table has
            self.error = f"demo table: {exc}"

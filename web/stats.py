"""Each player's record across games, by name: games, wins, average turn, farkle rate, best turn."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from scorekeeper import Game
from web.chart import Chart, line_chart
from web.games import GameBook


@dataclass
class PlayerStats:
    name: str
    games: int = 0
    wins: int = 0
    turns: int = 0
    points: int = 0  # scored in turns: banks and instant wins
    farkles: int = 0
    best_turn: int = 0
    per_game: list[tuple[int, float]] = field(default_factory=list)  # (game id, average turn in it)

    @property
    def average_turn(self) -> float:
        return self.points / self.turns if self.turns else 0.0

    @property
    def farkle_rate(self) -> float:
        return self.farkles / self.turns if self.turns else 0.0


def player_stats(games: Iterable[tuple[int, Game]]) -> dict[str, PlayerStats]:
    """Stats per player name over `games` ((id, game) pairs, oldest first)."""
    found: dict[str, PlayerStats] = {}
    for game_id, game in games:
        state = game.state
        names = [p.name for p in state.players]
        turns_of: dict[int, list[int]] = {}
        for turn in game.turns():
            stats = found.setdefault(names[turn.player], PlayerStats(names[turn.player]))
            stats.turns += 1
            points = turn.points if turn.result != "farkle" else 0
            stats.points += points
            stats.farkles += turn.result == "farkle"
            stats.best_turn = max(stats.best_turn, points)
            turns_of.setdefault(turn.player, []).append(points)
        for seat, name in enumerate(names):
            stats = found.setdefault(name, PlayerStats(name))
            stats.games += 1
            stats.wins += state.finished and state.winner == seat
            if seat in turns_of:
                stats.per_game.append((game_id, sum(turns_of[seat]) / len(turns_of[seat])))
    return found


def stored_games(book: GameBook, db: sqlite3.Connection) -> list[tuple[int, Game]]:
    """Every game not abandoned, oldest first."""
    ids = [row["id"] for row in db.execute("SELECT id FROM games WHERE abandoned_at IS NULL ORDER BY id")]
    return [(game_id, book.load(db, game_id)[1]) for game_id in ids]


def average_turn_chart(players: list[PlayerStats]) -> Chart:
    """Each player's average turn in each of their games, game after game."""
    lines = [(p.name, [(i, round(avg)) for i, (_, avg) in enumerate(p.per_game, start=1)]) for p in players]
    longest = max((len(p.per_game) for p in players), default=1)
    return line_chart(lines, max(longest, 1), x_min=1)

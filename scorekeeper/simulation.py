"""Seeded games between computer players, played through `Game` so every move is checked by the engine.

Game i of a run with seed S draws its dice from `random.Random(f"{S}:{i}")` and seats the strategies
rotated by i, so a run can be split into parts by game number and merged to the same result, and
each strategy sits in each seat equally often.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from scorekeeper.game import Game, GameState
from scorekeeper.players import Strategy, choose_action, perform, strategy_by_name
from scorekeeper.rules import RANGES, Ruleset
from scorekeeper.strategy import Situation

MAX_TURNS = 5000
"""A game still running after this many turns is stopped with an error (a strategy that cannot finish)."""

Z95 = 1.959963984540054


@dataclass(frozen=True, kw_only=True)
class GameResult:
    """One finished game; every tuple is in the order the strategies were given, not the seating order."""

    winner: int
    scores: tuple[int, ...]
    turns: int
    rounds: int
    turn_points: tuple[tuple[int, ...], ...]
    instant_win: bool = False


def game_rng(seed: int, game: int) -> random.Random:
    return random.Random(f"{seed}:{game}")


def player_names(strategies: Sequence[Strategy]) -> tuple[str, ...]:
    """`*name` for each strategy, numbered where the same strategy plays more than once."""
    names = [f"*{s.name}" for s in strategies]
    return tuple(f"{n}#{names[:i].count(n) + 1}" if names.count(n) > 1 else n for i, n in enumerate(names))


def play_game(strategies: Sequence[Strategy], rules: Ruleset, rng: random.Random, first: int = 0) -> GameResult:
    """Play one game; strategy `first` sits in the first seat, the others follow in their order."""
    k = len(strategies)
    seats = [(first + s) % k for s in range(k)]
    names = player_names(strategies)
    game = Game([names[i] for i in seats], rules)
    state = game.state
    while not state.finished:
        if state.turn_number > MAX_TURNS:
            raise RuntimeError(f"game stopped after {MAX_TURNS} turns: {[p.score for p in state.players]}")
        state = perform(game, choose_action(strategies[seats[state.current]], state, rng), rng)
    points: list[list[int]] = [[] for _ in range(k)]
    for turn in game.turns():
        points[seats[turn.player]].append(turn.points - turn.penalty)
    scores = [0] * k
    for seat, player in enumerate(state.players):
        scores[seats[seat]] = player.score
    assert state.winner is not None
    return GameResult(
        winner=seats[state.winner],
        scores=tuple(scores),
        turns=len(game.turns()),
        rounds=(len(game.turns()) - 1) // k + 1,
        turn_points=tuple(tuple(p) for p in points),
        instant_win=game.turns()[-1].result == "instant-win",
    )


def _add(mine: tuple[int, ...], theirs: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(a + b for a, b in zip(mine, theirs))


@dataclass(frozen=True)
class Tally:
    """Totals over games between the same strategies; `merge` adds two parts of one run."""

    names: tuple[str, ...]
    games: int
    wins: tuple[int, ...]
    turns: tuple[int, ...]
    points: tuple[int, ...]
    squares: tuple[int, ...]
    game_turns: int
    game_rounds: int

    @classmethod
    def empty(cls, names: Sequence[str]) -> Tally:
        zero = (0,) * len(names)
        return cls(tuple(names), 0, zero, zero, zero, zero, 0, 0)

    def add(self, result: GameResult) -> Tally:
        return Tally(
            self.names,
            self.games + 1,
            tuple(w + (i == result.winner) for i, w in enumerate(self.wins)),
            tuple(n + len(p) for n, p in zip(self.turns, result.turn_points)),
            tuple(s + sum(p) for s, p in zip(self.points, result.turn_points)),
            tuple(s + sum(x * x for x in p) for s, p in zip(self.squares, result.turn_points)),
            self.game_turns + result.turns,
            self.game_rounds + result.rounds,
        )

    def merge(self, other: Tally) -> Tally:
        if other.names != self.names:
            raise ValueError(f"cannot merge tallies of {self.names} and {other.names}")
        return Tally(
            self.names,
            self.games + other.games,
            _add(self.wins, other.wins),
            _add(self.turns, other.turns),
            _add(self.points, other.points),
            _add(self.squares, other.squares),
            self.game_turns + other.game_turns,
            self.game_rounds + other.game_rounds,
        )

    def win_rate(self, i: int) -> float:
        return self.wins[i] / self.games

    def win_interval(self, i: int, z: float = Z95) -> tuple[float, float]:
        """Wilson score interval of strategy i's win rate (95% by default)."""
        return wilson(self.wins[i], self.games, z)

    def mean_turn(self, i: int) -> float:
        return self.points[i] / self.turns[i]

    def mean_turn_interval(self, i: int, z: float = Z95) -> tuple[float, float]:
        n = self.turns[i]
        mean = self.points[i] / n
        variance = max(0.0, (self.squares[i] - n * mean * mean) / (n - 1)) if n > 1 else 0.0
        half = z * math.sqrt(variance / n)
        return mean - half, mean + half

    def report(self, rules: Ruleset) -> list[dict[str, object]]:
        """One object per strategy, then one for the whole run."""
        lines: list[dict[str, object]] = []
        for i, name in enumerate(self.names):
            lo, hi = self.win_interval(i)
            tlo, thi = self.mean_turn_interval(i)
            lines.append(
                {
                    "player": name,
                    "games": self.games,
                    "wins": self.wins[i],
                    "win_rate": round(self.win_rate(i), 4),
                    "win_rate_ci95": [round(lo, 4), round(hi, 4)],
                    "turns": self.turns[i],
                    "mean_turn_score": round(self.mean_turn(i), 1),
                    "mean_turn_score_ci95": [round(tlo, 1), round(thi, 1)],
                }
            )
        lines.append(
            {
                "rules": rules.name,
                "games": self.games,
                "mean_turns_per_game": round(self.game_turns / self.games, 2),
                "mean_rounds_per_game": round(self.game_rounds / self.games, 2),
            }
        )
        return lines


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def simulate(strategies: Sequence[Strategy], rules: Ruleset, games: int, seed: int = 0, first_game: int = 0) -> Tally:
    """Play games first_game .. first_game + games - 1 of the run with this seed."""
    k = len(strategies)
    if k < 2:
        raise ValueError("a simulated game needs at least two strategies")
    tally = Tally.empty([name.lstrip("*") for name in player_names(strategies)])
    for i in range(first_game, first_game + games):
        tally = tally.add(play_game(strategies, rules, game_rng(seed, i), first=i % k))
    return tally


def simulate_by_name(names: Sequence[str], rules: Ruleset, games: int, seed: int = 0, workers: int = 1) -> Tally:
    """`simulate` with the strategies given by name (`strategy_by_name`) and the games shared out
    among `workers` processes. Game i is seeded by (seed, i) alone, so the tally is the same
    however the games are split."""
    if games < 1:
        raise ValueError("a simulation needs at least one game")
    workers = max(1, min(workers, games))
    bounds = [games * k // workers for k in range(workers + 1)]
    jobs = [(tuple(names), rules, hi - lo, seed, lo) for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
    if workers == 1:
        shares = [_play_share(job) for job in jobs]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            shares = list(pool.map(_play_share, jobs))
    tally = shares[0]
    for share in shares[1:]:
        tally = tally.merge(share)
    return tally


def _play_share(job: tuple[tuple[str, ...], Ruleset, int, int, int]) -> Tally:
    names, rules, games, seed, first = job
    return simulate([strategy_by_name(n) for n in names], rules, games, seed=seed, first_game=first)


def solo_turns(strategy: Strategy, rules: Ruleset, turns: int, seed: int) -> tuple[tuple[Situation, int], ...]:
    """The results of `turns` turns of one player alone, each with the situation it started in.

    The game's target is moved out of reach and taking over dice is switched off (a solo player
    would take over its own). A new game starts after an instant win and every 100 turns.
    """
    # The highest target allowed: 100 turns of about 500 points each stay far below it.
    solo = rules.replace(target=RANGES["target"][1], piggyback=False, name=rules.name)
    rng = random.Random(f"solo:{seed}")
    results: list[tuple[Situation, int]] = []
    game = Game(["*solo"], solo)
    state: GameState = game.state
    while len(results) < turns:
        situation = Situation.of(state)
        done = len(game.turns())
        while len(game.turns()) == done:
            state = perform(game, choose_action(strategy, state, rng), rng)
        turn = game.turns()[-1]
        results.append((situation, turn.points - turn.penalty))
        if state.finished or done + 1 >= 100:
            game = Game(["*solo"], solo)
            state = game.state
    return tuple(results)


__all__ = [
    "GameResult",
    "MAX_TURNS",
    "Tally",
    "game_rng",
    "play_game",
    "player_names",
    "simulate",
    "solo_turns",
    "wilson",
]

"""Computer players: strategies that choose the next action of the player to act from a game state.

Every strategy is a frozen value with a `name` (what `strategy_by_name` accepts) and
`act(state, rng) -> Action`. They are deterministic; `rng` is there for strategies that are not.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Protocol

from scorekeeper.dice import parse_faces
from scorekeeper.errors import GameOver, ScorekeeperError
from scorekeeper.game import Game, GameState
from scorekeeper.strategy import Action, advise


class UnknownStrategy(ScorekeeperError, ValueError):
    """A strategy name that is not known; the message lists the known ones."""


class Strategy(Protocol):
    @property
    def name(self) -> str: ...

    def act(self, state: GameState, rng: random.Random) -> Action: ...


@dataclass(frozen=True)
class MaxExpected:
    """Follows the advice: every choice maximises the expected points of the current turn."""

    @property
    def name(self) -> str:
        return "maxexp"

    def act(self, state: GameState, rng: random.Random) -> Action:
        return advise(state).action


@dataclass(frozen=True)
class Threshold:
    """The cautious rule of thumb: keep the most points, bank as soon as the turn total reaches `points`.

    It never takes over another player's dice.
    """

    points: int

    @property
    def name(self) -> str:
        return f"threshold{self.points}"

    def act(self, state: GameState, rng: random.Random) -> Action:
        if state.phase == "keep":
            return Action.keep(state.keeps[0].dice)
        if state.can_bank and state.turn_total >= self.points:
            return Action.bank()
        return Action.throw()


@dataclass(frozen=True)
class Endgame:
    """Maximum expected points, but watching the scores near the end of the game.

    It banks whenever that wins the game at once and will not bank a total that leaves it losing
    in the final round. Where reaching the target ends the game at once, a leader within `near`
    points of it may win on the next turn, so it rolls on until banking would at least draw level
    with that leader: a small bank is of little use then. (Where the others get a last chance,
    every bank still shortens the final turn's task, so it plays for points as before.)
    """

    near: int = 1000

    @property
    def name(self) -> str:
        return "endgame" if self.near == 1000 else f"endgame{self.near}"

    def act(self, state: GameState, rng: random.Random) -> Action:
        advice = advise(state)
        if state.phase == "keep" or not state.can_bank:
            return advice.action
        rules = state.rules
        after = state.current_player.score + state.turn_total
        leader = max(p.score for i, p in enumerate(state.players) if i != state.current)
        if rules.finish == "immediate" and rules.is_reached(after):
            return Action.bank()
        if state.final_round:
            return Action.bank() if after > leader else Action.throw()
        if rules.finish == "immediate" and rules.target - leader <= self.near and after < leader:
            return Action.throw()
        return advice.action


STRATEGY_NAMES = ("maxexp", "endgame", "endgame<N>", "threshold<N>")


def strategy_by_name(name: str) -> Strategy:
    """`maxexp`, `endgame`, `endgame<N>` (leader within N of the target) or `threshold<N>`.

    A leading `*` (how computer players are named in a game) is ignored.
    """
    text = name.strip().lower().lstrip("*") if isinstance(name, str) else ""
    if text == "maxexp":
        return MaxExpected()
    match = re.fullmatch(r"(threshold|endgame)(\d+)?", text)
    if match and match.group(1) == "endgame":
        return Endgame(int(match.group(2))) if match.group(2) else Endgame()
    if match and match.group(2):
        points = int(match.group(2))
        if points > 0:
            return Threshold(points)
    raise UnknownStrategy(
        f"unknown strategy {name!r}; known: maxexp, endgame, endgame<N>, threshold<N> (e.g. threshold300)"
    )


DEFAULT_COMPUTER = "endgame"
"""The strategy of a computer player whose name does not name one (`*Hal`): the strongest measured."""


def computer_strategy(player: str) -> Strategy | None:
    """The strategy of a player by name: None for people; `*threshold300` plays threshold300, and
    any other `*` name the default strategy."""
    if not player.startswith("*"):
        return None
    try:
        return strategy_by_name(player)
    except UnknownStrategy:
        return strategy_by_name(DEFAULT_COMPUTER)


def choose_action(strategy: Strategy, state: GameState, rng: random.Random) -> Action:
    """The next action of the player to act; a finished game raises GameOver."""
    if state.finished:
        raise GameOver(f"the game is over: {state.winner_name} won")
    return strategy.act(state, rng)


def roll(rng: random.Random, dice: int) -> tuple[int, ...]:
    """Faces of `dice` fair virtual dice."""
    return tuple(int(rng.random() * 6) + 1 for _ in range(dice))


def perform(game: Game, action: Action, rng: random.Random) -> GameState:
    """Carry out an action in a game of virtual dice; a throw rolls the dice in play with `rng`.

    Like every game action it raises and changes nothing when the action is not allowed.
    """
    if action.kind == "throw" and game.state.phase == "roll-off":
        return game.roll_for_start(roll(rng, 1)[0])  # one die each for the first turn
    if action.kind == "throw":
        return game.throw(roll(rng, game.state.dice_left))
    if action.kind == "keep":
        return game.keep(parse_faces(action.dice, game.rules.dice))
    if action.kind == "bank":
        return game.bank()
    if action.kind == "piggyback":
        return game.piggyback()
    raise ValueError(f"unknown action {action!r}")


__all__ = [
    "DEFAULT_COMPUTER",
    "Endgame",
    "MaxExpected",
    "STRATEGY_NAMES",
    "Strategy",
    "Threshold",
    "UnknownStrategy",
    "choose_action",
    "computer_strategy",
    "perform",
    "roll",
    "strategy_by_name",
]

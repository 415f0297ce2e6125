"""What a scoreboard shows of a game: immutable values the event fold produces."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from scorekeeper.dice import Keep
from scorekeeper.rules import Ruleset

Phase = Literal["throw", "keep", "roll-off", "over"]


@dataclass(frozen=True)
class PlayerState:
    name: str
    score: int = 0
    on_board: bool = False
    farkles_in_a_row: int = 0
    playing: bool = True  # False once the player has left the game

    def __repr__(self) -> str:
        left = "" if self.playing else ", playing=False"
        return (
            f"PlayerState(name={self.name!r}, score={self.score}, on_board={self.on_board}, "
            f"farkles_in_a_row={self.farkles_in_a_row}{left})"
        )


@dataclass(frozen=True)
class ThrowRecord:
    """One throw of a turn and what was kept from it (empty for a farkle or an unfinished keep).

    Typed points have no faces: `faces` and `kept` are empty and `points` is what was typed.
    """

    faces: tuple[int, ...]
    kept: tuple[int, ...] = ()
    points: int = 0


@dataclass(frozen=True)
class TurnRecord:
    """One finished turn, for the game's history."""

    number: int
    player: int
    throws: tuple[ThrowRecord, ...]
    result: Literal["bank", "farkle", "instant-win"]
    points: int
    score_after: int
    piggyback: int = 0
    penalty: int = 0


@dataclass(frozen=True)
class RollOff:
    """The roll for the first turn: who still rolls and what this round of rolls showed."""

    contenders: tuple[int, ...]
    rolls: tuple[tuple[int, int], ...]  # (seat, face), in the order rolled
    decided: bool

    @property
    def next_roller(self) -> int | None:
        rolled = {seat for seat, _ in self.rolls}
        return None if self.decided else next(s for s in self.contenders if s not in rolled)

    def to_dict(self) -> dict[str, object]:
        return {
            "contenders": list(self.contenders),
            "rolls": [{"player": s, "face": f} for s, f in self.rolls],
            "decided": self.decided,
            "next": self.next_roller,
        }


@dataclass(frozen=True)
class GameState:
    """Everything a scoreboard shows. `throw` is the throw waiting for a keep, if any."""

    rules: Ruleset
    players: tuple[PlayerState, ...]
    current: int
    phase: Phase
    turn_total: int
    dice_left: int
    throw: tuple[int, ...] | None
    keeps: tuple[Keep, ...]
    kept: tuple[Keep, ...]
    hot_dice: bool
    leftover: tuple[int, int] | None
    can_bank: bool
    can_piggyback: bool
    final_round: bool
    finished: bool
    winner: int | None
    turn_number: int
    round_number: int
    last_farkle: tuple[int, tuple[int, ...]] | None
    version: int
    first: int = 0
    roll_off: RollOff | None = None
    turn_mode: Literal["dice", "points"] | None = None
    tied: tuple[int, ...] | None = None
    can_undo: bool = False
    can_redo: bool = False

    @property
    def current_player(self) -> PlayerState:
        return self.players[self.current]

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.players[self.winner].name

    def to_dict(self) -> dict[str, object]:
        return {
            "version": self.version,
            "rules": self.rules.name,
            "players": [
                {
                    "name": p.name,
                    "score": p.score,
                    "on_board": p.on_board,
                    "farkles_in_a_row": p.farkles_in_a_row,
                    "playing": p.playing,
                }
                for p in self.players
            ],
            "current": self.current,
            "phase": self.phase,
            "turn_total": self.turn_total,
            "dice_left": self.dice_left,
            "throw": None if self.throw is None else list(self.throw),
            "keeps": [k.to_dict() for k in self.keeps],
            "kept": [k.to_dict() for k in self.kept],
            "hot_dice": self.hot_dice,
            "leftover": None if self.leftover is None else {"dice": self.leftover[0], "turn_total": self.leftover[1]},
            "can_bank": self.can_bank,
            "can_piggyback": self.can_piggyback,
            "final_round": self.final_round,
            "finished": self.finished,
            "winner": self.winner_name,
            "turn_number": self.turn_number,
            "round_number": self.round_number,
            "last_farkle": None
            if self.last_farkle is None
            else {"player": self.players[self.last_farkle[0]].name, "faces": list(self.last_farkle[1])},
            "target": self.rules.target,
            "first": self.first,
            "roll_off": None if self.roll_off is None else self.roll_off.to_dict(),
            "turn_mode": self.turn_mode,
            "tied": None if self.tied is None else list(self.tied),
            "can_undo": self.can_undo,
            "can_redo": self.can_redo,
        }

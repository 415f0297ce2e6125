"""The event-sourced game: its state is a pure function of players, ruleset and events.

`Game` checks every action before it appends the event, so an illegal action raises and leaves the
game as it was. Undo and corrections go back to a saved table and replay the few events since.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from copy import copy
from dataclasses import dataclass, field, replace
from typing import Literal

from scorekeeper.dice import Keep, counts_of, parse_faces
from scorekeeper.errors import (
    DiceError,
    GameOver,
    IllegalBank,
    IllegalKeep,
    IllegalPiggyback,
    IllegalThrow,
    NothingToUndo,
)
from scorekeeper.events import Banked, Corrected, Event, Kept, Piggybacked, Thrown, Undone, event_from_dict
from scorekeeper.rules import Ruleset
from scorekeeper.scoring import legal_keeps, score_table

Phase = Literal["throw", "keep", "over"]


@dataclass(frozen=True)
class PlayerState:
    name: str
    score: int = 0
    on_board: bool = False
    farkles_in_a_row: int = 0


@dataclass(frozen=True)
class ThrowRecord:
    """One throw of a turn and what was kept from it (empty for a farkle or an unfinished keep)."""

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
                {"name": p.name, "score": p.score, "on_board": p.on_board, "farkles_in_a_row": p.farkles_in_a_row}
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
            "last_farkle": None if self.last_farkle is None
            else {"player": self.players[self.last_farkle[0]].name, "faces": list(self.last_farkle[1])},
        }


_CONTAINERS = ("players", "kept", "last_chance_left", "reached_at", "throws")
"""The mutable fields of `_Table` apart from `turns`: each small, bounded by the players or one turn."""


@dataclass(frozen=True)
class _Saved:
    fields: dict[str, object]
    turns: int


@dataclass
class _Table:
    """The mutable state one game's events are folded into. Each handler checks, then changes."""

    rules: Ruleset
    players: list[PlayerState]
    current: int = 0
    phase: Phase = "throw"
    turn_total: int = 0
    dice_left: int = 0
    throw: tuple[int, ...] | None = None
    kept: list[Keep] = field(default_factory=list)
    hot_dice: bool = False
    started: bool = False  # the current turn has had a throw or a piggyback
    leftover: tuple[int, int] | None = None
    final_round: bool = False
    last_chance_left: set[int] = field(default_factory=set)
    reached_at: dict[int, int] = field(default_factory=dict)  # player -> turn that gave the score
    winner: int | None = None
    turn_number: int = 1
    last_farkle: tuple[int, tuple[int, ...]] | None = None
    piggyback_total: int = 0
    throws: list[ThrowRecord] = field(default_factory=list)
    turns: list[TurnRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.dice_left = self.rules.dice
        if self.rules.entry == 0:
            self.players = [replace(p, on_board=True) for p in self.players]

    # ---- saving and restoring ------------------------------------------------------------------
    def save(self) -> _Saved:
        """Everything needed to come back to this point. `turns` only ever grows, so its length is enough."""
        fields = {name: value for name, value in vars(self).items() if name != "turns"}
        for name in _CONTAINERS:
            fields[name] = copy(fields[name])
        return _Saved(fields, len(self.turns))

    def restore(self, saved: _Saved) -> None:
        """Come back to a point `save` returned; the point can be restored again later."""
        del self.turns[saved.turns:]
        for name, value in saved.fields.items():
            setattr(self, name, copy(value) if name in _CONTAINERS else value)

    # ---- checks -------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self.phase == "over":
            raise GameOver(f"the game is over: {self.players[self.winner or 0].name} won")

    def bank_problem(self) -> str | None:
        if self.phase == "over":
            return "the game is over"
        if self.phase == "keep":
            return "set aside scoring dice from the throw before banking"
        if not self.kept:
            return "nothing set aside this turn: throw first"
        if self.hot_dice and self.rules.hot_dice == "must-roll":
            return "hot dice: every die has scored, so all dice must be thrown again"
        player = self.players[self.current]
        if not player.on_board and self.turn_total < self.rules.entry:
            return f"{player.name} needs {self.rules.entry} in one turn to get on the board, not {self.turn_total}"
        return None

    def piggyback_problem(self) -> str | None:
        if not self.rules.piggyback:
            return f"the {self.rules.name} rules do not allow taking over the previous player's dice"
        if self.phase == "over":
            return "the game is over"
        if self.started:
            return "dice can only be taken over at the start of a turn"
        if self.leftover is None:
            return "the previous player left no dice to take over"
        if not self.players[self.current].on_board:
            return f"{self.players[self.current].name} must be on the board to take over dice"
        return None

    # ---- handlers -----------------------------------------------------------------------------
    def apply(self, event: Event) -> None:
        if isinstance(event, Thrown):
            self.on_throw(event.faces)
        elif isinstance(event, Kept):
            self.on_keep(event.dice)
        elif isinstance(event, Banked):
            self.on_bank()
        elif isinstance(event, Piggybacked):
            self.on_piggyback()
        else:
            raise TypeError(f"{type(event).__name__} cannot be folded directly")

    def on_throw(self, faces: tuple[int, ...]) -> None:
        self._check_open()
        faces = parse_faces(faces, self.rules.dice)
        if self.phase == "keep":
            raise IllegalThrow("set aside at least one scoring die from the last throw before throwing again")
        if len(faces) != self.dice_left:
            raise IllegalThrow(f"{len(faces)} dice thrown, but {self.dice_left} are in play")
        self.started = True
        self.leftover = None
        self.hot_dice = False
        if legal_keeps(faces, self.rules):
            self.throw = faces
            self.phase = "keep"
            self.throws.append(ThrowRecord(faces))
            return
        self.throws.append(ThrowRecord(faces))
        self.last_farkle = (self.current, faces)
        player = self.players[self.current]
        farkles = player.farkles_in_a_row + 1
        penalty = 0
        if self.rules.three_farkle_penalty and farkles >= 3:
            penalty = self.rules.three_farkle_penalty
            farkles = 0
        self.players[self.current] = replace(player, score=player.score - penalty, farkles_in_a_row=farkles)
        self._record_turn("farkle", 0, penalty)
        self._end_turn()

    def on_keep(self, dice: tuple[int, ...]) -> None:
        self._check_open()
        dice = parse_faces(dice, self.rules.dice)
        if self.phase != "keep" or self.throw is None:
            raise IllegalKeep("there is no throw to keep dice from: throw first")
        kept, thrown = counts_of(dice), counts_of(self.throw)
        if any(k > t for k, t in zip(kept, thrown)):
            raise IllegalKeep(f"{_show(dice)} are not all in the throw {_show(self.throw)}")
        value = score_table(self.rules).value(kept)
        if value is None:
            raise IllegalKeep(f"{_show(dice)} do not all score")
        keep = Keep(tuple(sorted(dice)), value[0], value[1])
        self.kept.append(keep)
        self.turn_total += keep.points
        self.throws[-1] = replace(self.throws[-1], kept=keep.dice, points=keep.points)
        self.dice_left = len(self.throw) - len(dice)
        self.throw = None
        self.phase = "throw"
        if self.dice_left == 0:
            self.dice_left = self.rules.dice
            self.hot_dice = True
        if keep.instant_win:
            player = self.players[self.current]
            self.players[self.current] = replace(
                player, score=player.score + self.turn_total, on_board=True, farkles_in_a_row=0
            )
            self._record_turn("instant-win", self.turn_total, 0)
            self._finish(self.current)

    def on_bank(self) -> None:
        self._check_open()
        problem = self.bank_problem()
        if problem:
            raise IllegalBank(problem)
        player = self.players[self.current]
        score = player.score + self.turn_total
        self.players[self.current] = replace(player, score=score, on_board=True, farkles_in_a_row=0)
        self.reached_at[self.current] = self.turn_number
        self._record_turn("bank", self.turn_total, 0)
        leftover = (self.dice_left, self.turn_total)
        if self.rules.is_reached(score):
            if self.rules.finish == "immediate":
                self._finish(self.current)
                return
            if self.rules.finish == "last-chance" and not self.final_round:
                self.final_round = True
                self.last_chance_left = set(range(len(self.players))) - {self.current}
            if self.rules.finish == "complete-round":
                self.final_round = True
        self._end_turn()
        if self.phase != "over":
            self.leftover = leftover

    def on_piggyback(self) -> None:
        self._check_open()
        problem = self.piggyback_problem()
        if problem:
            raise IllegalPiggyback(problem)
        assert self.leftover is not None
        self.dice_left, self.turn_total = self.leftover
        self.piggyback_total = self.turn_total
        self.leftover = None
        self.started = True

    # ---- turn and game end ------------------------------------------------------------------------
    def _record_turn(self, result: Literal["bank", "farkle", "instant-win"], points: int, penalty: int) -> None:
        self.turns.append(TurnRecord(
            number=self.turn_number, player=self.current, throws=tuple(self.throws), result=result,
            points=points, score_after=self.players[self.current].score,
            piggyback=self.piggyback_total, penalty=penalty,
        ))

    def _end_turn(self) -> None:
        ended = self.current
        n = len(self.players)
        self.current = (self.current + 1) % n
        self.turn_number += 1
        self.phase, self.turn_total, self.throw = "throw", 0, None
        self.dice_left, self.kept, self.hot_dice, self.started = self.rules.dice, [], False, False
        self.leftover, self.piggyback_total, self.throws = None, 0, []
        if self.rules.finish == "last-chance" and self.final_round:
            self.last_chance_left.discard(ended)  # the player who started the final round is not in it
            if not self.last_chance_left:
                self._finish(self._leader())
        elif self.rules.finish == "complete-round" and self.final_round and ended == n - 1:
            top = max(p.score for p in self.players)
            leaders = [i for i, p in enumerate(self.players) if p.score == top]
            if len(leaders) == 1 and self.rules.is_reached(top):
                self._finish(leaders[0])

    def _leader(self) -> int:
        top = max(p.score for p in self.players)
        leaders = [i for i, p in enumerate(self.players) if p.score == top]
        # Equal top scores: whoever reached that score first keeps the lead.
        return min(leaders, key=lambda i: self.reached_at.get(i, 0))

    def _finish(self, winner: int) -> None:
        self.phase = "over"
        self.winner = winner
        self.current = winner

    def snapshot(self, version: int) -> GameState:
        problem_bank = self.bank_problem()
        return GameState(
            rules=self.rules,
            players=tuple(self.players),
            current=self.current,
            phase=self.phase,
            turn_total=self.turn_total,
            dice_left=len(self.throw) if self.throw is not None else self.dice_left,
            throw=self.throw,
            keeps=legal_keeps(self.throw, self.rules) if self.throw is not None else (),
            kept=tuple(self.kept),
            hot_dice=self.hot_dice,
            leftover=self.leftover if self.rules.piggyback else None,
            can_bank=problem_bank is None,
            can_piggyback=self.piggyback_problem() is None,
            final_round=self.final_round,
            finished=self.phase == "over",
            winner=self.winner,
            turn_number=self.turn_number,
            round_number=(self.turn_number - 1) // len(self.players) + 1,
            last_farkle=self.last_farkle,
            version=version,
        )


def _show(faces: Iterable[int]) -> str:
    return "-".join(str(f) for f in faces)


def check_players(players: Sequence[str]) -> tuple[str, ...]:
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise DiceError("players must be a list of names")
    names = tuple(players)
    if not names:
        raise DiceError("a game needs at least one player")
    if not all(isinstance(n, str) and n.strip() for n in names):
        raise DiceError("every player needs a non-empty name")
    names = tuple(n.strip() for n in names)
    if len(set(names)) != len(names):
        raise DiceError("player names must differ")
    return names


CHECKPOINT_EVERY = 32
"""The table is saved before every 32nd event in effect: undo restores the nearest save at or
below its target and replays at most 31 events, however long the game."""


class Game:
    """A game of Dice 10,000: players in order, a ruleset and the append-only list of events."""

    def __init__(self, players: Sequence[str], rules: Ruleset, events: Iterable[Event] = ()) -> None:
        self.players = check_players(players)
        self.rules = rules
        self._events: list[Event] = []
        self._table = self._new_table()
        self._effective: list[Event] = []
        self._checkpoints: list[_Saved] = []  # [i]: the table before effective event i * CHECKPOINT_EVERY
        for event in events:
            self.apply(event)

    def _new_table(self) -> _Table:
        return _Table(self.rules, [PlayerState(name) for name in self.players])

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    def events_since(self, version: int) -> tuple[Event, ...]:
        """The events after the first `version` ones: what an action has just added."""
        return tuple(self._events[version:])

    @property
    def version(self) -> int:
        return len(self._events)

    @property
    def state(self) -> GameState:
        return self._table.snapshot(self.version)

    def turns(self) -> tuple[TurnRecord, ...]:
        """The finished turns, oldest first."""
        return tuple(self._table.turns)

    def copy(self) -> Game:
        """An independent game with the same events, without replaying them."""
        twin = Game.__new__(Game)
        twin.players, twin.rules = self.players, self.rules
        twin._events, twin._effective = list(self._events), list(self._effective)
        twin._checkpoints = list(self._checkpoints)  # restore() copies out of a save, so saves can be shared
        twin._table = self._new_table()
        twin._table.turns = list(self._table.turns)
        twin._table.restore(self._table.save())
        return twin

    def apply(self, event: Event) -> GameState:
        """Check and append one event; an illegal one raises and changes nothing."""
        if isinstance(event, Undone):
            if not self._effective:
                raise NothingToUndo("there is nothing to undo")
            self._rewind(len(self._effective) - 1)
        elif isinstance(event, Corrected):
            self._check_correction(event)
            self._correct(Thrown(event.faces))
        else:
            self._fold(event)
        self._events.append(event)
        return self.state

    def _fold(self, event: Event) -> None:
        """Apply one event in effect; the table checks before it changes, so a raise changes nothing."""
        index = len(self._effective)
        saved = self._table.save() if index % CHECKPOINT_EVERY == 0 else None
        self._table.apply(event)
        if saved is not None:
            del self._checkpoints[index // CHECKPOINT_EVERY:]
            self._checkpoints.append(saved)
        self._effective.append(event)

    def _rewind(self, length: int) -> None:
        """Bring the table back to just after the first `length` events in effect."""
        at = length // CHECKPOINT_EVERY
        self._table.restore(self._checkpoints[at])
        replay = self._effective[at * CHECKPOINT_EVERY:length]
        del self._effective[at * CHECKPOINT_EVERY:]
        del self._checkpoints[at:]
        for event in replay:
            self._fold(event)

    def _correct(self, thrown: Thrown) -> None:
        wrong = self._effective[-1]
        self._rewind(len(self._effective) - 1)
        try:
            self._fold(thrown)
        except BaseException:
            self._fold(wrong)  # legal before, so legal again: the game is as it was
            raise

    def _check_correction(self, event: Corrected) -> None:
        last = self._effective[-1] if self._effective else None
        if not isinstance(last, Thrown):
            raise IllegalThrow("only the last throw can be corrected, before anything was kept from it")
        if len(event.faces) != len(last.faces):
            raise IllegalThrow(f"the corrected throw has {len(event.faces)} dice, the throw had {len(last.faces)}")

    # ---- actions ----------------------------------------------------------------------------------
    def throw(self, faces: Iterable[object]) -> GameState:
        return self.apply(Thrown(parse_faces(faces, self.rules.dice)))

    def keep(self, dice: Iterable[object]) -> GameState:
        return self.apply(Kept(parse_faces(dice, self.rules.dice)))

    def bank(self, dice: Iterable[object] | None = None) -> GameState:
        """Bank the turn; with `dice`, first set those aside from the throw (both or neither happen)."""
        if dice is None:
            return self.apply(Banked())
        kept = Kept(parse_faces(dice, self.rules.dice))
        version, effective = self.version, len(self._effective)
        self.apply(kept)
        try:
            return self.apply(Banked())
        except BaseException:
            del self._events[version:]
            self._rewind(effective)
            raise

    def piggyback(self) -> GameState:
        return self.apply(Piggybacked())

    def correct(self, faces: Iterable[object]) -> GameState:
        return self.apply(Corrected(parse_faces(faces, self.rules.dice)))

    def undo(self) -> GameState:
        return self.apply(Undone())

    # ---- storage ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, object]:
        return {
            "players": list(self.players),
            "rules": self.rules.to_dict(),
            "events": [e.to_dict() for e in self._events],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Game:
        """A game from `to_dict` output; every event is checked again as it is replayed."""
        from scorekeeper.rules import Ruleset as _Ruleset, parse_knob

        rules_data = data.get("rules")
        if not isinstance(rules_data, Mapping):
            raise DiceError("a saved game needs its rules as an object")
        name = rules_data.get("name", "custom")
        if not isinstance(name, str):
            raise DiceError("a saved game's rules need a name as text")
        knobs = {k: parse_knob(k, v) for k, v in rules_data.items() if k != "name"}
        rules = _Ruleset(name=name, **knobs)
        events = data.get("events", [])
        if not isinstance(events, list):
            raise DiceError("a saved game's events must be a list")
        return cls(data.get("players", ()), rules, [event_from_dict(e) for e in events])  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"Game({list(self.players)!r}, {self.rules!r}, events={len(self._events)})"

"""The fold of a game's events into its state. Each handler checks first, then changes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from copy import copy
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from scorekeeper import events as ev
from scorekeeper.dice import Keep, counts_of, parse_face, parse_faces
from scorekeeper.errors import (
    GameOver,
    IllegalAction,
    IllegalBank,
    IllegalChange,
    IllegalKeep,
    IllegalPiggyback,
    IllegalPoints,
    IllegalRollOff,
    IllegalThrow,
)
from scorekeeper.events import Event
from scorekeeper.numbers import short
from scorekeeper.rules import RANGES, Ruleset, range_text
from scorekeeper.scoring import is_three_pairs, legal_keeps, score_table, throw_values
from scorekeeper.state import GameState, Phase, PlayerState, RollOff, ThrowRecord, TurnRecord

MAX_SEATS = 24
"""Players who join take a new seat and those who leave keep theirs: this bounds the table (and
the work of every event) however many join and leave."""

TURN_OPENERS = (ev.Thrown, ev.Piggybacked, ev.PointsEntered, ev.FarkleDeclared)
"""Events that begin a turn when nothing has happened in it yet."""


_CONTAINERS = ("players", "kept", "last_chance_left", "reached_at", "throws", "turns_played", "sweep_kept")
"""The mutable fields of `Table` apart from the two that only grow: each small, bounded by the
players or one turn."""

_GROWING = ("turns", "turn_starts")
"""Fields appended to and never otherwise changed: a save keeps only their lengths."""


@dataclass(frozen=True)
class Saved:
    fields: dict[str, object]
    lengths: dict[str, int]


@dataclass
class Table:
    """The mutable state one game's events are folded into."""

    rules: Ruleset
    players: list[PlayerState]
    current: int = 0
    phase: Phase = "throw"
    turn_total: int = 0
    dice_left: int = 0
    throw: tuple[int, ...] | None = None
    kept: list[Keep] = field(default_factory=list)
    hot_dice: bool = False
    started: bool = False  # the current turn has had a throw, a piggyback or typed points
    turn_mode: Literal["dice", "points"] | None = None
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
    first: int = 0
    roll_off: RollOff | None = None
    tied: tuple[int, ...] | None = None  # who replays rounds after a tie, where only they replay
    turns_played: dict[int, int] = field(default_factory=dict)
    # Dice set aside since the last sweep and their points; None after a piggyback, whose
    # set-aside dice were the previous player's.
    sweep_kept: list[int] | None = field(default_factory=list)
    sweep_points: int = 0
    applied: int = 0  # events folded so far
    turn_began: int = 0  # index of the event that began the current turn
    turn_starts: list[int] = field(default_factory=list)  # the same for every finished turn

    def __post_init__(self) -> None:
        self.dice_left = self.rules.dice
        if self.rules.entry == 0:
            self.players = [replace(p, on_board=True) for p in self.players]

    # ---- saving and restoring ------------------------------------------------------------------
    def save(self) -> Saved:
        """Everything needed to come back to this point. `turns` and `turn_starts` only ever grow,
        so their lengths are enough."""
        fields = {name: value for name, value in vars(self).items() if name not in _GROWING}
        for name in _CONTAINERS:
            fields[name] = copy(fields[name])
        return Saved(fields, {name: len(getattr(self, name)) for name in _GROWING})

    def restore(self, saved: Saved) -> None:
        """Come back to a point `save` returned; the point can be restored again later."""
        for name, length in saved.lengths.items():
            del getattr(self, name)[length:]
        for name, value in saved.fields.items():
            setattr(self, name, copy(value) if name in _CONTAINERS else value)

    def clone(self) -> Table:
        """An independent table in the same state."""
        twin = copy(self)
        for name in _GROWING:
            setattr(twin, name, list(getattr(self, name)))
        twin.restore(self.save())
        return twin

    # ---- checks -------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self.phase == "over":
            raise GameOver(f"the game is over: {self.players[self.winner or 0].name} won")

    def rolling_off(self) -> bool:
        return self.roll_off is not None and not self.roll_off.decided

    def between_turns(self) -> bool:
        return self.phase == "throw" and not self.started

    def bank_problem(self) -> str | None:
        if self.phase == "over":
            return "the game is over"
        if self.rolling_off():
            return "the roll-off for the first turn is not finished"
        total = self.turn_total
        if self.phase == "keep":
            if not self.rules.pass_scores_throw:
                return "set aside scoring dice from the throw before banking"
            best = self.keeps()[0]
            if len(best.dice) == len(self.throw or ()) and self.rules.hot_dice == "must-roll":
                return "every die of the throw scores: all dice must be thrown again"
            total += best.points
        else:
            if not self.kept and self.turn_mode != "points":
                return "nothing set aside this turn: throw first"
            if self.hot_dice and self.rules.hot_dice == "must-roll":
                return "hot dice: every die has scored, so all dice must be thrown again"
        player = self.players[self.current]
        if not player.on_board and total < self.rules.entry:
            return f"{player.name} needs {self.rules.entry} in one turn to get on the board, not {total}"
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

    def keeps(self) -> tuple[Keep, ...]:
        """The legal keeps of the throw waiting for one, the boxcar included, best first."""
        if self.throw is None:
            return ()
        keeps = legal_keeps(self.throw, self.rules)
        boxcar = self._boxcar(self.throw)
        if boxcar is None:
            return keeps
        others = [k for k in keeps if k.dice != boxcar.dice]
        return tuple(sorted([*others, boxcar], key=lambda k: (-k.points, -len(k.dice), k.dice)))

    def _boxcar(self, faces: tuple[int, ...]) -> Keep | None:
        """Keeping the whole throw when it makes three pairs with the dice set aside since the last
        sweep: their points are replaced by the three pairs' (only where that is worth more)."""
        rules = self.rules
        if not rules.boxcar or rules.three_pairs is None or rules.dice != 6 or self.sweep_kept is None:
            return None
        union = [*self.sweep_kept, *faces]
        if len(union) != 6 or not is_three_pairs(counts_of(union), rules):
            return None
        points = rules.three_pairs - self.sweep_points
        plain = score_table(rules).value(counts_of(faces))
        if plain is not None and plain[0] >= points:
            return None
        return Keep(tuple(sorted(faces)), points)

    # ---- handlers -----------------------------------------------------------------------------
    def apply(self, event: Event) -> None:
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise TypeError(f"{type(event).__name__} cannot be folded directly")
        began, farkle = self.turn_began, self.last_farkle
        if isinstance(event, TURN_OPENERS) and not self.started:
            self.turn_began = self.applied
        self.last_farkle = None  # a farkle is news only until the next event
        try:
            handler(self, event)
        except BaseException:
            self.turn_began, self.last_farkle = began, farkle  # a refused event changes nothing, not even these
            raise
        self.applied += 1

    def _check_next_throw(self, error: type[IllegalAction], keep_waiting: str, other_mode: str, mixed: str) -> None:
        """A throw, or typed points, may come next: the roll-off is over, no keep is waiting and the
        turn is not already played the other way (`other_mode`)."""
        if self.rolling_off():
            raise error("the roll-off for the first turn is not finished")
        if self.phase == "keep":
            raise error(keep_waiting)
        if self.turn_mode == other_mode:
            raise error(mixed)

    def on_throw(self, faces: tuple[int, ...]) -> None:
        self._check_open()
        faces = parse_faces(faces, self.rules.dice)
        self._check_next_throw(
            IllegalThrow,
            "set aside at least one scoring die from the last throw before throwing again",
            "points",
            "this turn is scored by typed points: type more, bank or type a farkle",
        )
        if len(faces) != self.dice_left:
            raise IllegalThrow(f"{len(faces)} dice thrown, but {self.dice_left} are in play")
        self.started = True
        self.turn_mode = "dice"
        self.leftover = None
        self.hot_dice = False
        self.throws.append(ThrowRecord(faces))
        if legal_keeps(faces, self.rules) or self._boxcar(faces):
            self.throw = faces
            self.phase = "keep"
            return
        self._farkle(faces)

    def _farkle(self, faces: tuple[int, ...]) -> None:
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
        boxcar = self._boxcar(self.throw) if kept == thrown else None
        value = score_table(self.rules).value(kept)
        if boxcar is not None:
            keep = boxcar
        elif value is not None:
            keep = Keep(tuple(sorted(dice)), value[0], value[1])
        else:
            raise IllegalKeep(f"{_show(dice)} do not all score")
        self.kept.append(keep)
        self.turn_total += keep.points
        if self.sweep_kept is not None:
            self.sweep_kept.extend(keep.dice)
        self.sweep_points += keep.points
        self.throws[-1] = replace(self.throws[-1], kept=keep.dice, points=keep.points)
        self.dice_left = len(self.throw) - len(dice)
        self.throw = None
        self.phase = "throw"
        if self.dice_left == 0:
            self.dice_left = self.rules.dice
            self.hot_dice = True
            self.sweep_kept, self.sweep_points = [], 0
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
        if self.phase == "keep":  # passing scores every scoring die of the throw
            self.on_keep(self.keeps()[0].dice)
            if self.phase == "over":
                return
        player = self.players[self.current]
        score = player.score + self.turn_total
        self.players[self.current] = replace(player, score=score, on_board=True, farkles_in_a_row=0)
        self.reached_at[self.current] = self.turn_number
        self._record_turn("bank", self.turn_total, 0)
        leftover: tuple[int, int] | None = (self.dice_left, self.turn_total)
        if self.turn_mode == "points" or (self.hot_dice and not self.rules.piggyback_sweep):
            leftover = None
        if self.rules.is_reached(score):
            if self.rules.finish == "immediate":
                self._finish(self.current)
                return
            if self.rules.finish == "last-chance" and not self.final_round:
                self.final_round = True
                self.last_chance_left = set(self._playing()) - {self.current}
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
        self.turn_mode = "dice"
        self.sweep_kept, self.sweep_points = None, 0

    def on_points(self, points: int) -> None:
        self._check_open()
        self._check_next_throw(
            IllegalPoints,
            "a throw is waiting for a keep: keep dice or correct the throw",
            "dice",
            "this turn is played with dice: points cannot be typed into it",
        )
        if points <= 0 or points % 50:
            raise IllegalPoints(f"points come in multiples of 50, not {points}")
        if points not in throw_values(self.rules):
            raise IllegalPoints(f"no throw of {self.rules.dice} dice scores {points} under the {self.rules.name} rules")
        self.started = True
        self.turn_mode = "points"
        self.leftover = None
        self.turn_total += points
        self.throws.append(ThrowRecord((), (), points))

    def on_farkle_declared(self) -> None:
        self._check_open()
        if self.rolling_off():
            raise IllegalPoints("the roll-off for the first turn is not finished")
        if self.turn_mode == "dice":
            raise IllegalPoints("this turn is played with dice: a farkle shows in the throw")
        self._farkle(())

    def on_start_roll(self, face: int) -> None:
        self._check_open()
        face = parse_face(face)
        if self.turns or self.started:
            raise IllegalRollOff("the first turn has begun: it is too late to roll for it")
        if self.roll_off is not None and self.roll_off.decided:
            raise IllegalRollOff(f"the roll-off is decided: {self.players[self.first].name} starts")
        roll_off = self.roll_off or RollOff(tuple(self._playing()), (), False)
        seat = roll_off.next_roller
        assert seat is not None
        rolls = (*roll_off.rolls, (seat, face))
        if len(rolls) < len(roll_off.contenders):
            self.roll_off = replace(roll_off, rolls=rolls)
        else:
            top = max(f for _, f in rolls)
            leaders = tuple(s for s, f in rolls if f == top)
            if len(leaders) == 1:
                self.roll_off = replace(roll_off, rolls=rolls, decided=True)
                self.first = self.current = leaders[0]
                return
            self.roll_off = RollOff(leaders, (), False)  # the tied players roll again
        roller = self.roll_off.next_roller
        assert roller is not None  # a roll-off that is not decided has someone left to roll
        self.current = roller

    def on_rename(self, seat: int, name: str) -> None:
        self._check_open()
        self._check_seat(seat)
        if any(p.name == name for i, p in enumerate(self.players) if i != seat):
            raise IllegalChange(f"another player is already called {name}")
        self.players[seat] = replace(self.players[seat], name=name)

    def on_target(self, target: int) -> None:
        self._check_open()
        low, high = RANGES["target"]
        if not low <= target <= high:
            raise IllegalChange(f"the target must be {range_text('target')}, not {short(target)}")
        if self.final_round:
            raise IllegalChange("the final round has begun: the target can no longer change")
        new = self.rules.replace(target=target, name=self.rules.name)
        reached = [self.players[i].name for i in self._playing() if new.is_reached(self.players[i].score)]
        if reached:
            raise IllegalChange(f"{reached[0]} already has {target} or more: choose a higher target")
        self.rules = new

    def on_add(self, name: str) -> None:
        self._check_changing_players()
        if len(self.players) >= MAX_SEATS:
            raise IllegalChange(f"a game has at most {MAX_SEATS} seats, those of players who left included")
        if any(p.name == name for p in self.players):
            raise IllegalChange(f"a player called {name} is already in the game")
        # The new seat comes right after the last seat in play; it starts level with that seat, so
        # it plays in the current round only when that seat has yet to play in it.
        self.turns_played[len(self.players)] = self.turns_played.get(max(self._playing()), 0)
        self.players.append(PlayerState(name, on_board=self.rules.entry == 0))

    def on_remove(self, seat: int) -> None:
        self._check_changing_players()
        self._check_seat(seat)
        if len(self._playing()) == 1:
            raise IllegalChange("the last player in the game cannot leave it")
        self.players[seat] = replace(self.players[seat], playing=False)
        if seat == self.current:
            self.current = self._seat_from(seat)

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < len(self.players) or not self.players[seat].playing:
            raise IllegalChange(f"there is no player in seat {seat}")

    def _check_changing_players(self) -> None:
        self._check_open()
        if not self.between_turns():
            raise IllegalChange("players can only join or leave between two turns")
        if self.rolling_off():
            raise IllegalChange("players cannot join or leave during the roll-off")
        if self.final_round:
            raise IllegalChange("players cannot join or leave in the final round")

    # ---- turn and game end ------------------------------------------------------------------------
    def _playing(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if p.playing]

    def _seat_from(self, seat: int) -> int:
        """The first seat after `seat` whose player plays (and, in a tie replay, is tied)."""
        n = len(self.players)
        for step in range(1, n + 1):
            s = (seat + step) % n
            if self.players[s].playing and (self.tied is None or s in self.tied):
                return s
        return seat

    def _record_turn(self, result: Literal["bank", "farkle", "instant-win"], points: int, penalty: int) -> None:
        self.turns.append(
            TurnRecord(
                number=self.turn_number,
                player=self.current,
                throws=tuple(self.throws),
                result=result,
                points=points,
                score_after=self.players[self.current].score,
                piggyback=self.piggyback_total,
                penalty=penalty,
            )
        )
        self.turn_starts.append(self.turn_began)

    def _end_turn(self) -> None:
        ended = self.current
        self.turns_played[ended] = self.turns_played.get(ended, 0) + 1
        self.current = self._seat_from(ended)
        self.turn_number += 1
        self.phase, self.turn_total, self.throw, self.turn_mode = "throw", 0, None, None
        self.dice_left, self.kept, self.hot_dice, self.started = self.rules.dice, [], False, False
        self.leftover, self.piggyback_total, self.throws = None, 0, []
        self.sweep_kept, self.sweep_points = [], 0
        if self.rules.finish == "last-chance" and self.final_round:
            self.last_chance_left.discard(ended)  # the player who started the final round is not in it
            if not self.last_chance_left:
                self._finish(self._leader())
        elif self.rules.finish == "complete-round" and self.final_round and self._round_complete():
            self._settle_round()

    def _round_complete(self) -> bool:
        seats = self.tied if self.tied is not None else self._playing()
        return len({self.turns_played.get(s, 0) for s in seats}) == 1

    def _settle_round(self) -> None:
        """After a complete final round: one leader wins; a tie replays rounds, among the tied
        players only or among everyone, as the ruleset says."""
        pool = self.tied if self.tied is not None else tuple(self._playing())
        top = max(self.players[i].score for i in pool)
        leaders = tuple(i for i in pool if self.players[i].score == top)
        if len(leaders) == 1 and self.rules.is_reached(top):
            self._finish(leaders[0])
        elif self.rules.tie_replay == "tied-only" and len(leaders) > 1:
            self.tied = leaders
            self.current = self._seat_from(self.first - 1)

    def _leader(self) -> int:
        playing = self._playing()
        top = max(self.players[i].score for i in playing)
        leaders = [i for i in playing if self.players[i].score == top]
        # Equal top scores: whoever reached that score first keeps the lead.
        return min(leaders, key=lambda i: self.reached_at.get(i, 0))

    def _finish(self, winner: int) -> None:
        self.phase = "over"
        self.winner = winner
        self.current = winner

    def undo_turn_cut(self) -> int | None:
        """How many events stay when the current turn (or, before it begins, the last finished
        turn) is taken back; None when no turn has begun."""
        if self.started:
            return self.turn_began
        return self.turn_starts[-1] if self.turn_starts else None

    def snapshot(self, version: int, can_undo: bool = False, can_redo: bool = False) -> GameState:
        if self.phase == "over":
            round_number = (self.turn_number - 1) // len(self.players) + 1
        else:
            round_number = self.turns_played.get(self.current, 0) + 1
        return GameState(
            rules=self.rules,
            players=tuple(self.players),
            current=self.current,
            phase="roll-off" if self.rolling_off() and self.phase != "over" else self.phase,
            turn_total=self.turn_total,
            dice_left=len(self.throw) if self.throw is not None else self.dice_left,
            throw=self.throw,
            keeps=self.keeps(),
            kept=tuple(self.kept),
            hot_dice=self.hot_dice,
            leftover=self.leftover if self.rules.piggyback else None,
            can_bank=self.bank_problem() is None,
            can_piggyback=self.piggyback_problem() is None,
            final_round=self.final_round,
            finished=self.phase == "over",
            winner=self.winner,
            turn_number=self.turn_number,
            round_number=round_number,
            last_farkle=self.last_farkle,
            version=version,
            first=self.first,
            roll_off=self.roll_off,
            turn_mode=self.turn_mode,
            tied=self.tied,
            can_undo=can_undo,
            can_redo=can_redo,
        )


_HANDLERS: dict[type[Event], Callable[[Table, Any], None]] = {
    ev.Thrown: lambda t, e: t.on_throw(e.faces),
    ev.Kept: lambda t, e: t.on_keep(e.dice),
    ev.Banked: lambda t, e: t.on_bank(),
    ev.Piggybacked: lambda t, e: t.on_piggyback(),
    ev.PointsEntered: lambda t, e: t.on_points(e.points),
    ev.FarkleDeclared: lambda t, e: t.on_farkle_declared(),
    ev.StartRolled: lambda t, e: t.on_start_roll(e.face),
    ev.Renamed: lambda t, e: t.on_rename(e.player, e.name),
    ev.TargetChanged: lambda t, e: t.on_target(e.target),
    ev.PlayerAdded: lambda t, e: t.on_add(e.name),
    ev.PlayerRemoved: lambda t, e: t.on_remove(e.player),
}


def _show(faces: Iterable[int]) -> str:
    return "-".join(str(f) for f in faces)

"""The event-sourced game: its state is a pure function of players, ruleset and events.

`Game` checks every action before it appends the event, so an illegal action raises and leaves the
game as it was. Undo, undo of a turn, redo and corrections go back to a saved table and replay
the few events since.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from scorekeeper.dice import parse_face, parse_faces
from scorekeeper.errors import DiceError, IllegalChange, IllegalThrow, NothingToRedo, NothingToUndo
from scorekeeper.events import (
    Banked,
    Corrected,
    Event,
    FarkleDeclared,
    Kept,
    Piggybacked,
    PlayerAdded,
    PlayerRemoved,
    PointsEntered,
    Redone,
    Renamed,
    StartRolled,
    TargetChanged,
    Thrown,
    TurnUndone,
    Undone,
    event_from_dict,
    parse_name,
    parse_whole,
)
from scorekeeper.rules import Ruleset, ruleset_from_dict
from scorekeeper.state import GameState, Phase, PlayerState, RollOff, ThrowRecord, TurnRecord
from scorekeeper.table import Saved, Table

Status = Literal["in-effect", "undone", "corrected", "control"]


@dataclass(frozen=True)
class LogEntry:
    """One event of a game's log: `undone` events were taken back (a history strikes them
    through), `corrected` throws were replaced, `control` events are the undos and redos."""

    index: int
    event: Event
    status: Status

    def __repr__(self) -> str:
        return f"<LogEntry {self.index} {self.event.kind} {self.status}>"


__all__ = [
    "Game",
    "LogEntry",
    "GameState",
    "Phase",
    "PlayerState",
    "RollOff",
    "ThrowRecord",
    "TurnRecord",
    "check_players",
]


CHECKPOINT_EVERY = 32
"""The table is saved before every 32nd event in effect: undo restores the nearest save at or
below its target and replays at most 31 events, however long the game."""


def check_players(players: object) -> tuple[str, ...]:
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


class Game:
    """A game of Dice 10,000: players in order, a ruleset and the append-only list of events."""

    def __init__(self, players: Sequence[str], rules: Ruleset, events: Iterable[Event] = ()) -> None:
        self.players = check_players(players)
        self.rules = rules
        self._events: list[Event] = []
        self._table = self._new_table()
        self._effective: list[Event] = []
        self._checkpoints: list[Saved] = []  # [i]: the table before effective event i * CHECKPOINT_EVERY
        self._sources: list[int] = []  # for each event in effect, the index of the event that put it there
        self._corrected: set[int] = set()  # throws a correction replaced
        # Groups of events undone together (last undone last), with their sources.
        self._redo: list[tuple[list[Event], list[int]]] = []
        for event in events:
            self.apply(event)

    def _new_table(self) -> Table:
        return Table(self.rules, [PlayerState(name) for name in self.players])

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
        return self._table.snapshot(self.version, can_undo=bool(self._effective), can_redo=bool(self._redo))

    def turns(self) -> tuple[TurnRecord, ...]:
        """The finished turns, oldest first."""
        return tuple(self._table.turns)

    def copy(self) -> Game:
        """An independent game with the same events, without replaying them."""
        twin = Game.__new__(Game)
        twin.players, twin.rules = self.players, self.rules
        twin._events, twin._effective = list(self._events), list(self._effective)
        twin._checkpoints = list(self._checkpoints)  # restore() copies out of a save, so saves can be shared
        twin._sources, twin._corrected = list(self._sources), set(self._corrected)
        twin._redo = [(list(events), list(sources)) for events, sources in self._redo]
        twin._table = self._table.clone()
        return twin

    def apply(self, event: Event) -> GameState:
        """Check and append one event; an illegal one raises and changes nothing."""
        if isinstance(event, Undone):
            if not self._effective:
                raise NothingToUndo("there is nothing to undo")
            self._undo_to(len(self._effective) - 1)
        elif isinstance(event, TurnUndone):
            cut = self._table.undo_turn_cut()
            if cut is None:
                raise NothingToUndo("no turn has begun: there is no turn to undo")
            self._undo_to(cut)
        elif isinstance(event, Redone):
            if not self._redo:
                raise NothingToRedo("there is nothing to redo")
            events, sources = self._redo[-1]
            self._redo_events(events)
            self._sources += sources
            self._redo.pop()
        elif isinstance(event, Corrected):
            self._check_correction(event)
            self._correct(Thrown(event.faces))
            self._corrected.add(self._sources[-1])
            self._sources[-1] = len(self._events)
            self._redo.clear()
        else:
            self._fold(event)
            self._sources.append(len(self._events))
            self._redo.clear()
        self._events.append(event)
        return self.state

    def _check_correction(self, event: Corrected) -> None:
        last = self._effective[-1] if self._effective else None
        if not isinstance(last, Thrown):
            raise IllegalThrow("only the last throw can be corrected, before anything was kept from it")
        if len(event.faces) != len(last.faces):
            raise IllegalThrow(f"the corrected throw has {len(event.faces)} dice, the throw had {len(last.faces)}")

    def _undo_to(self, keep: int) -> None:
        undone = (self._effective[keep:], self._sources[keep:])
        self._rewind(keep)
        del self._sources[keep:]
        self._redo.append(undone)

    def _fold(self, event: Event) -> None:
        """Apply one event in effect; the table checks before it changes, so a raise changes nothing."""
        index = len(self._effective)
        saved = self._table.save() if index % CHECKPOINT_EVERY == 0 else None
        self._table.apply(event)
        if saved is not None:
            del self._checkpoints[index // CHECKPOINT_EVERY :]
            self._checkpoints.append(saved)
        self._effective.append(event)

    def _rewind(self, length: int) -> None:
        """Bring the table back to just after the first `length` events in effect."""
        at = length // CHECKPOINT_EVERY
        self._table.restore(self._checkpoints[at])
        replay = self._effective[at * CHECKPOINT_EVERY : length]
        del self._effective[at * CHECKPOINT_EVERY :]
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

    def _redo_events(self, events: list[Event]) -> None:
        """Fold the events an undo took back; they were legal from here before, so they are again."""
        length = len(self._effective)
        try:
            for event in events:
                self._fold(event)
        except BaseException:
            self._rewind(length)
            raise

    # ---- actions ----------------------------------------------------------------------------------
    def throw(self, faces: object) -> GameState:
        return self.apply(Thrown(parse_faces(faces, self.rules.dice)))

    def keep(self, dice: Iterable[object]) -> GameState:
        return self.apply(Kept(parse_faces(dice, self.rules.dice)))

    def bank(self, dice: object = None) -> GameState:
        """Bank the turn; with `dice`, first set those aside from the throw (both or neither happen)."""
        if dice is None:
            return self.apply(Banked())
        kept = Kept(parse_faces(dice, self.rules.dice))
        version, effective = self.version, len(self._effective)
        sources, corrected = list(self._sources), set(self._corrected)
        redo = list(self._redo)
        self.apply(kept)
        try:
            return self.apply(Banked())
        except BaseException:
            del self._events[version:]
            self._rewind(effective)
            self._sources, self._corrected, self._redo = sources, corrected, redo
            raise

    def piggyback(self) -> GameState:
        return self.apply(Piggybacked())

    def correct(self, faces: Iterable[object]) -> GameState:
        return self.apply(Corrected(parse_faces(faces, self.rules.dice)))

    def undo(self) -> GameState:
        return self.apply(Undone())

    def undo_turn(self) -> GameState:
        return self.apply(TurnUndone())

    def redo(self) -> GameState:
        return self.apply(Redone())

    def roll_for_start(self, face: object) -> GameState:
        """The next player of the roll-off for the first turn rolled one die showing `face`."""
        return self.apply(StartRolled(parse_face(face)))

    def enter_points(self, points: object) -> GameState:
        """Points typed for a throw of real dice, e.g. 350 or "+350"."""
        return self.apply(PointsEntered(parse_whole(points, "points")))

    def declare_farkle(self) -> GameState:
        return self.apply(FarkleDeclared())

    def rename(self, player: int | str, name: object) -> GameState:
        return self.apply(Renamed(self.seat_of(player), parse_name(name)))

    def change_target(self, target: object) -> GameState:
        return self.apply(TargetChanged(parse_whole(target, "the target")))

    def add_player(self, name: object) -> GameState:
        return self.apply(PlayerAdded(parse_name(name)))

    def remove_player(self, player: int | str) -> GameState:
        return self.apply(PlayerRemoved(self.seat_of(player)))

    def seat_of(self, player: int | str) -> int:
        """A seat by number or by the player's current name."""
        if isinstance(player, int) and not isinstance(player, bool):
            return player
        names = [p.name for p in self._table.players]
        name = parse_name(player)
        if name not in names:
            raise IllegalChange(f"no player is called {name}; the players are {', '.join(names)}")
        return names.index(name)

    def log(self) -> tuple[LogEntry, ...]:
        """Every event ever added, oldest first, with what became of it: a history that shows
        undos and corrections instead of hiding them."""
        in_effect = set(self._sources)

        def status(index: int, event: Event) -> Status:
            if isinstance(event, (Undone, TurnUndone, Redone)):
                return "control"
            if index in in_effect:
                return "in-effect"
            return "corrected" if index in self._corrected else "undone"

        return tuple(LogEntry(i, e, status(i, e)) for i, e in enumerate(self._events))

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
        rules_data = data.get("rules")
        if not isinstance(rules_data, Mapping):
            raise DiceError("a saved game needs its rules as an object")
        if not isinstance(rules_data.get("name", "custom"), str):
            raise DiceError("a saved game's rules need a name as text")
        rules = ruleset_from_dict(rules_data)
        events = data.get("events", [])
        if not isinstance(events, list):
            raise DiceError("a saved game's events must be a list")
        return cls(check_players(data.get("players", ())), rules, [event_from_dict(e) for e in events])

    def __repr__(self) -> str:
        return f"Game({list(self.players)!r}, {self.rules!r}, events={len(self._events)})"

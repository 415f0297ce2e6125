"""The events of a game. A game is its players, its ruleset and an append-only list of these."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, dataclass_transform

from scorekeeper.dice import parse_face, parse_faces
from scorekeeper.errors import DiceError, MalformedInput
from scorekeeper.numbers import MAX_DIGITS, short
from scorekeeper.numbers import parse_whole as parse_whole_text

__all__ = [
    "Banked", "Corrected", "Event", "FarkleDeclared", "Kept", "Piggybacked", "PlayerAdded", "PlayerRemoved",
    "PointsEntered", "Redone", "Renamed", "StartRolled", "TargetChanged", "Thrown", "TurnUndone", "Undone",
    "event_from_dict",
]  # fmt: skip


EVENT_TYPES: dict[str, type[Event]] = {}
"""Each event class by its `kind`, filled as the classes below are declared."""


@dataclass_transform(frozen_default=True)
@dataclass(frozen=True)
class Event:
    """Each event is a frozen dataclass declared as `class Name(Event, kind="its JSON type")`."""

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, kind: str) -> None:
        super().__init_subclass__()
        cls.kind = kind
        dataclass(frozen=True)(cls)
        EVENT_TYPES[kind] = cls

    def to_dict(self) -> dict[str, object]:
        """The event as JSON: its type, then its fields in order, tuples as lists."""
        data: dict[str, object] = {"type": self.kind}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            data[field.name] = list(value) if isinstance(value, tuple) else value
        return data


class Thrown(Event, kind="throw"):
    """The player to act threw the dice in play and they show these faces."""

    faces: tuple[int, ...]


class Kept(Event, kind="keep"):
    """Dice set aside from the last throw."""

    dice: tuple[int, ...]


class Banked(Event, kind="bank"):
    """The player ends the turn and adds the turn total to the score."""


class Piggybacked(Event, kind="piggyback"):
    """The player takes over the dice and the turn total the previous player left."""


class Corrected(Event, kind="correct"):
    """The last throw was misread: these are its real faces."""

    faces: tuple[int, ...]


class Undone(Event, kind="undo"):
    """Takes back the last event that is still in effect."""


class TurnUndone(Event, kind="undo-turn"):
    """Takes back every event of the current turn, or of the last finished turn when the current
    one has not begun."""


class Redone(Event, kind="redo"):
    """Puts back what the last undo took back; any other new event ends what can be redone."""


class StartRolled(Event, kind="start-roll"):
    """The next player of the roll-off for the first turn rolled one die and it shows `face`."""

    face: int


class PointsEntered(Event, kind="points"):
    """Points typed for a throw of real dice that nobody read ("+350")."""

    points: int


class FarkleDeclared(Event, kind="farkle"):
    """A farkle typed by hand: the turn ends with nothing."""


class Renamed(Event, kind="rename"):
    """The player in seat `player` (0 first) is called `name` from now on."""

    player: int
    name: str


class TargetChanged(Event, kind="target"):
    """The score that wins the game is `target` from now on."""

    target: int


class PlayerAdded(Event, kind="add-player"):
    """A new player takes the last seat, between two turns."""

    name: str


class PlayerRemoved(Event, kind="remove-player"):
    """The player in seat `player` leaves the game between two turns; the seat keeps its history."""

    player: int


MAX_PLAYER_NAME = 40
"""The longest player name an event may carry, as on the web's new-game form."""


def parse_whole(value: object, what: str) -> int:
    """A whole number from JSON or text ("350", "+350"): ASCII digits of bounded length (see
    scorekeeper.numbers); anything else is MalformedInput."""
    if isinstance(value, str):
        text = value.strip()
        number = parse_whole_text(text[1:] if text.startswith("+") else text, separators=",_")
        if number is not None:
            return number
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**MAX_DIGITS:
        return value
    raise MalformedInput(f"{what} must be a whole number of at most {MAX_DIGITS} digits, not {short(value)}")


def parse_name(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise MalformedInput(f"a player's name must be non-empty text, not {short(value)}")
    name = value.strip()
    if len(name) > MAX_PLAYER_NAME or not name.isprintable():
        raise MalformedInput(
            f"a player's name must be at most {MAX_PLAYER_NAME} printable characters, not {short(value)}"
        )
    return name


def event_from_dict(data: object) -> Event:
    """An event from its JSON form; malformed data raises DiceError (a ValueError)."""
    if not isinstance(data, Mapping):
        raise DiceError(f"an event must be an object, not {short(data)}")
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise DiceError(f"unknown event type {short(kind)}; known: {', '.join(EVENT_TYPES)}")
    if cls is Thrown:
        return Thrown(parse_faces(data.get("faces", ())))
    if cls is Corrected:
        return Corrected(parse_faces(data.get("faces", ())))
    if cls is Kept:
        return Kept(parse_faces(data.get("dice", ())))
    if cls is StartRolled:
        return StartRolled(parse_face(data.get("face")))
    if cls is PointsEntered:
        return PointsEntered(parse_whole(data.get("points"), "points"))
    if cls is Renamed:
        return Renamed(parse_whole(data.get("player"), "a seat"), parse_name(data.get("name")))
    if cls is TargetChanged:
        return TargetChanged(parse_whole(data.get("target"), "the target"))
    if cls is PlayerAdded:
        return PlayerAdded(parse_name(data.get("name")))
    if cls is PlayerRemoved:
        return PlayerRemoved(parse_whole(data.get("player"), "a seat"))
    return cls()

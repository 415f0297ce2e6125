"""The events of a game. A game is its players, its ruleset and an append-only list of these."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from scorekeeper.dice import parse_face, parse_faces
from scorekeeper.errors import DiceError, MalformedInput
from scorekeeper.numbers import MAX_DIGITS, short
from scorekeeper.numbers import parse_whole as parse_whole_text

__all__ = [
    "Banked", "Corrected", "Event", "FarkleDeclared", "Kept", "Piggybacked", "PlayerAdded", "PlayerRemoved",
    "PointsEntered", "Redone", "Renamed", "StartRolled", "TargetChanged", "Thrown", "TurnUndone", "Undone",
    "event_from_dict",
]  # fmt: skip


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, object]:
        """The event as JSON: its type, then its fields in order, tuples as lists."""
        data: dict[str, object] = {"type": self.kind}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            data[field.name] = list(value) if isinstance(value, tuple) else value
        return data


@dataclass(frozen=True)
class Thrown(Event):
    """The player to act threw the dice in play and they show these faces."""

    faces: tuple[int, ...]
    kind: ClassVar[str] = "throw"


@dataclass(frozen=True)
class Kept(Event):
    """Dice set aside from the last throw."""

    dice: tuple[int, ...]
    kind: ClassVar[str] = "keep"


@dataclass(frozen=True)
class Banked(Event):
    """The player ends the turn and adds the turn total to the score."""

    kind: ClassVar[str] = "bank"


@dataclass(frozen=True)
class Piggybacked(Event):
    """The player takes over the dice and the turn total the previous player left."""

    kind: ClassVar[str] = "piggyback"


@dataclass(frozen=True)
class Corrected(Event):
    """The last throw was misread: these are its real faces."""

    faces: tuple[int, ...]
    kind: ClassVar[str] = "correct"


@dataclass(frozen=True)
class Undone(Event):
    """Takes back the last event that is still in effect."""

    kind: ClassVar[str] = "undo"


@dataclass(frozen=True)
class TurnUndone(Event):
    """Takes back every event of the current turn, or of the last finished turn when the current
    one has not begun."""

    kind: ClassVar[str] = "undo-turn"


@dataclass(frozen=True)
class Redone(Event):
    """Puts back what the last undo took back; any other new event ends what can be redone."""

    kind: ClassVar[str] = "redo"


@dataclass(frozen=True)
class StartRolled(Event):
    """The next player of the roll-off for the first turn rolled one die and it shows `face`."""

    face: int
    kind: ClassVar[str] = "start-roll"


@dataclass(frozen=True)
class PointsEntered(Event):
    """Points typed for a throw of real dice that nobody read ("+350")."""

    points: int
    kind: ClassVar[str] = "points"


@dataclass(frozen=True)
class FarkleDeclared(Event):
    """A farkle typed by hand: the turn ends with nothing."""

    kind: ClassVar[str] = "farkle"


@dataclass(frozen=True)
class Renamed(Event):
    """The player in seat `player` (0 first) is called `name` from now on."""

    player: int
    name: str
    kind: ClassVar[str] = "rename"


@dataclass(frozen=True)
class TargetChanged(Event):
    """The score that wins the game is `target` from now on."""

    target: int
    kind: ClassVar[str] = "target"


@dataclass(frozen=True)
class PlayerAdded(Event):
    """A new player takes the last seat, between two turns."""

    name: str
    kind: ClassVar[str] = "add-player"


@dataclass(frozen=True)
class PlayerRemoved(Event):
    """The player in seat `player` leaves the game between two turns; the seat keeps its history."""

    player: int
    kind: ClassVar[str] = "remove-player"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        Thrown,
        Kept,
        Banked,
        Piggybacked,
        Corrected,
        Undone,
        TurnUndone,
        Redone,
        StartRolled,
        PointsEntered,
        FarkleDeclared,
        Renamed,
        TargetChanged,
        PlayerAdded,
        PlayerRemoved,
    )
}


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

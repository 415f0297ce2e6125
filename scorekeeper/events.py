"""The events of a game. A game is its players, its ruleset and an append-only list of these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from scorekeeper.dice import parse_faces
from scorekeeper.errors import DiceError


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, object]:
        return {"type": self.kind}


@dataclass(frozen=True)
class Thrown(Event):
    """The player to act threw the dice in play and they show these faces."""

    faces: tuple[int, ...]
    kind: ClassVar[str] = "throw"

    def to_dict(self) -> dict[str, object]:
        return {"type": self.kind, "faces": list(self.faces)}


@dataclass(frozen=True)
class Kept(Event):
    """Dice set aside from the last throw."""

    dice: tuple[int, ...]
    kind: ClassVar[str] = "keep"

    def to_dict(self) -> dict[str, object]:
        return {"type": self.kind, "dice": list(self.dice)}


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

    def to_dict(self) -> dict[str, object]:
        return {"type": self.kind, "faces": list(self.faces)}


@dataclass(frozen=True)
class Undone(Event):
    """Takes back the last event that is still in effect."""

    kind: ClassVar[str] = "undo"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (Thrown, Kept, Banked, Piggybacked, Corrected, Undone)
}


def event_from_dict(data: Mapping[str, object]) -> Event:
    """An event from its JSON form; malformed data raises DiceError (a ValueError)."""
    if not isinstance(data, Mapping):
        raise DiceError(f"an event must be an object, not {data!r}")
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise DiceError(f"unknown event type {kind!r}; known: {', '.join(EVENT_TYPES)}")
    if cls in (Thrown, Corrected):
        return cls(parse_faces(data.get("faces", ())))  # type: ignore[call-arg]
    if cls is Kept:
        return Kept(parse_faces(data.get("dice", ())))
    return cls()

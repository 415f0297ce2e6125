"""The dice vocabulary: faces, throws and keeps as immutable values."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from dataclasses import dataclass
from enum import IntEnum

from scorekeeper.errors import DiceError
from scorekeeper.numbers import parse_whole, short

MAX_DICE = 6
"""No ruleset plays with more dice."""

Counts = tuple[int, int, int, int, int, int]
"""How many dice show each face: index 0 counts the 1s, index 5 the 6s."""


class Face(IntEnum):
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6


def parse_face(value: object) -> int:
    """One face as an int 1..6; a string such as "4" is accepted, anything else is a DiceError."""
    if isinstance(value, bool):
        raise DiceError(f"a die face must be a whole number from 1 to 6, not {value!r}")
    if isinstance(value, str):
        number = parse_whole(value, max_digits=2)
        if number is None:
            raise DiceError(f"a die face must be a whole number from 1 to 6, not {short(value)}")
        value = number
    if not isinstance(value, int):
        raise DiceError(f"a die face must be a whole number from 1 to 6, not {short(value)}")
    if not 1 <= value <= 6:
        raise DiceError(f"a die face must be from 1 to 6, not {short(value)}")
    return int(value)


def parse_faces(values: object, max_dice: int | None = None) -> tuple[int, ...]:
    """Faces as a tuple of ints, checked one by one and, when given, against the number of dice."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise DiceError(f"dice must be a list of faces, not {short(values)}")
    limit = MAX_DICE if max_dice is None else max_dice
    if isinstance(values, Sized) and len(values) > limit:  # before parsing a list of any length
        raise DiceError(f"{len(values)} dice given, but the game is played with {limit}")
    faces = tuple(parse_face(v) for v in values)
    if not faces:
        raise DiceError("no dice given")
    if len(faces) > limit:
        raise DiceError(f"{len(faces)} dice given, but the game is played with {limit}")
    return faces


def counts_of(faces: Iterable[int]) -> Counts:
    c = [0, 0, 0, 0, 0, 0]
    for f in faces:
        c[f - 1] += 1
    return as_counts(c)


def as_counts(values: Sequence[int]) -> Counts:
    """Six per-face numbers as a `Counts` tuple."""
    a, b, c, d, e, f = values
    return (a, b, c, d, e, f)


def faces_of(counts: Counts) -> tuple[int, ...]:
    """The sorted faces of a count vector."""
    return tuple(face for face, n in enumerate(counts, start=1) for _ in range(n))


@dataclass(frozen=True)
class Throw:
    """The faces of one throw, in the order they were read."""

    faces: tuple[int, ...]

    def __init__(self, faces: Iterable[object]) -> None:
        object.__setattr__(self, "faces", parse_faces(faces))

    @property
    def counts(self) -> Counts:
        return counts_of(self.faces)

    def __len__(self) -> int:
        return len(self.faces)

    def __iter__(self) -> Iterator[int]:
        return iter(self.faces)

    def __repr__(self) -> str:
        return f"Throw({', '.join(map(str, self.faces))})"


@dataclass(frozen=True, order=True)
class Keep:
    """Dice set aside from one throw (sorted faces), what they score, and whether they win at once."""

    dice: tuple[int, ...]
    points: int
    instant_win: bool = False

    @property
    def counts(self) -> Counts:
        return counts_of(self.dice)

    def to_dict(self) -> dict[str, object]:
        return {"dice": list(self.dice), "points": self.points, "instant_win": self.instant_win}

    def __repr__(self) -> str:
        win = ", instant_win=True" if self.instant_win else ""
        return f"Keep({list(self.dice)}, points={self.points}{win})"

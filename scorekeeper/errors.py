"""Errors of the rules engine: malformed input is told apart from a move the rules forbid."""

from __future__ import annotations

__all__ = [
    "DiceError", "GameOver", "IllegalAction", "IllegalBank", "IllegalChange", "IllegalKeep", "IllegalPiggyback",
    "IllegalPoints", "IllegalRollOff", "IllegalThrow", "MalformedInput", "NothingToRedo", "NothingToUndo",
    "RulesError", "ScorekeeperError",
]  # fmt: skip


class ScorekeeperError(Exception):
    """Base class of every error the engine raises on purpose."""


class DiceError(ScorekeeperError, ValueError):
    """Malformed dice: a face outside 1..6, not a whole number, or more dice than the game has."""


class RulesError(ScorekeeperError, ValueError):
    """An unknown preset or knob, or a knob value of the wrong kind."""


class IllegalAction(ScorekeeperError):
    """A well-formed action that the rules or the state of the game forbid."""


class IllegalThrow(IllegalAction):
    """A throw out of turn order: before keeping, with the wrong number of dice, ..."""


class IllegalKeep(IllegalAction):
    """Keeping dice that were not thrown, or dice that do not all score."""


class IllegalBank(IllegalAction):
    """Banking with nothing set aside, below the entry score, or when hot dice must be rolled."""


class IllegalPiggyback(IllegalAction):
    """Taking over the previous player's dice when the rules or the state do not allow it."""


class GameOver(IllegalAction):
    """Any action after the game has ended (undo excepted)."""


class NothingToUndo(IllegalAction):
    """Undo with no event left to take back."""


class MalformedInput(DiceError):
    """Malformed input other than faces: points that are not a whole number, an empty name, an
    unknown action word. A DiceError, so callers that catch malformed dice catch it too."""


class IllegalPoints(IllegalAction):
    """Typed points the rules cannot give: not a multiple of 50, more than a throw can score, or
    typed into a turn played with dice."""


class IllegalChange(IllegalAction):
    """Renaming, a new target, or adding or removing a player when the game does not allow it."""


class IllegalRollOff(IllegalAction):
    """A roll for the first turn after the first turn has begun or the roll-off is decided."""


class NothingToRedo(IllegalAction):
    """Redo with nothing undone since the last new event."""

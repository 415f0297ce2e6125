"""The rules engine of Dice 10,000: rulesets, scoring, legal keeps, the event-sourced game and odds.

Pure Python with no I/O: it imports nothing from the vision or web packages.
"""

from scorekeeper import errors, events
from scorekeeper.dice import Face, Keep, Throw, parse_face, parse_faces
from scorekeeper.errors import *  # noqa: F403  (the errors, as listed in its __all__)
from scorekeeper.events import *  # noqa: F403  (the events, as listed in its __all__)
from scorekeeper.game import Game, GameState, LogEntry, PlayerState, RollOff, ThrowRecord, TurnRecord
from scorekeeper.odds import ThrowOdds, odds, throw_odds
from scorekeeper.rules import (
    DEFAULT_PRESET,
    HOUSE_RULES,
    PRESETS,
    Ruleset,
    compose_ruleset,
    house_rule,
    knob_names,
    preset,
    ruleset_from_dict,
    ruleset_from_toml,
)
from scorekeeper.scoring import is_farkle, is_legal_keep, legal_keeps, score

__all__ = [
    "DEFAULT_PRESET", "Face", "Game", "GameState", "HOUSE_RULES", "Keep", "LogEntry", "PRESETS", "PlayerState",
    "RollOff", "Ruleset", "Throw", "ThrowOdds", "ThrowRecord", "TurnRecord", "compose_ruleset", "house_rule",
    "is_farkle", "is_legal_keep", "knob_names", "legal_keeps", "odds", "parse_face", "parse_faces", "preset",
    "ruleset_from_dict", "ruleset_from_toml", "score", "throw_odds",
]  # fmt: skip
__all__ += errors.__all__
__all__ += events.__all__

"""The rules engine of Dice 10,000.

It owns the rules and the game: rulesets as data and their composition (presets, house rules,
knobs), scoring and legal keeps, the events of a game and the fold of them into its state
(`Game`), odds, the best play (`strategy`), computer players and simulated games.

Pure Python with no I/O: it imports nothing from `vision`, `web` or `dicekeeper` (an
import contract in pyproject.toml checks this).
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

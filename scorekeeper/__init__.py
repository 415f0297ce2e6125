"""The rules engine of Dice 10,000: rulesets, scoring, legal keeps, the event-sourced game and odds.

Pure Python with no I/O: it imports nothing from the vision or web packages.
"""

from scorekeeper.dice import Face, Keep, Throw, parse_face, parse_faces
from scorekeeper.errors import (
    DiceError,
    GameOver,
    IllegalAction,
    IllegalBank,
    IllegalChange,
    IllegalKeep,
    IllegalPiggyback,
    IllegalPoints,
    IllegalRollOff,
    IllegalThrow,
    MalformedInput,
    NothingToRedo,
    NothingToUndo,
    RulesError,
    ScorekeeperError,
)
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
)
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
    "Banked", "Corrected", "DEFAULT_PRESET", "DiceError", "Event", "Face", "Game", "GameOver", "GameState", "HOUSE_RULES",
    "IllegalAction", "IllegalBank", "IllegalKeep", "IllegalPiggyback", "IllegalThrow", "Keep", "Kept",
    "NothingToUndo", "PRESETS", "Piggybacked", "PlayerState", "Ruleset", "RulesError", "ScorekeeperError",
    "Throw", "ThrowOdds", "ThrowRecord", "Thrown", "TurnRecord", "Undone", "event_from_dict", "house_rule",
    "is_farkle", "is_legal_keep", "knob_names", "legal_keeps", "odds", "parse_face", "parse_faces", "preset",
    "ruleset_from_toml", "score", "throw_odds", "compose_ruleset", "ruleset_from_dict",
    "FarkleDeclared", "IllegalChange", "IllegalPoints", "IllegalRollOff", "MalformedInput", "NothingToRedo",
    "PlayerAdded", "PlayerRemoved", "PointsEntered", "Redone", "Renamed", "RollOff", "StartRolled",
    "TargetChanged", "TurnUndone", "LogEntry",
]

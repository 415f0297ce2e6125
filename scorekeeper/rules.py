"""Rulesets: every variant is data, one immutable value of knobs, with presets looked up by name."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from scorekeeper.errors import RulesError
from scorekeeper.numbers import parse_whole, short

KINDS = ("doubling", "per-face", "flat", "triples")
INSTANT_WIN = ("none", "six-ones", "six-of-a-kind")
HOT_DICE = ("must-roll", "may-roll")
FINISH = ("immediate", "last-chance", "complete-round")
TIE_REPLAY = ("tied-only", "everyone")
STARTS = ("seat-order", "highest-roll")

# Whole-throw combinations: a points value, or None when the ruleset does not use them.
COMBINATIONS = ("three_pairs", "straight", "small_straight", "full_house", "two_triplets")

POINT_GRID = 50
"""Combination points are multiples of this, like every other score, so strategy tables keep their grid."""

RANGES: dict[str, tuple[int, int]] = {
    "dice": (5, 6),
    "target": (1, 1_000_000),
    # The strategy tables behind the advice grow with the entry score: 100,000 builds in ~0.25 s.
    "entry": (0, 100_000),
    "three_farkle_penalty": (0, 100_000),
    **{key: (POINT_GRID, 10_000) for key in COMBINATIONS},
}
"""The smallest and largest value of every whole-number knob, both included."""

MAX_NAME_LENGTH = 60


@dataclass(frozen=True)
class Ruleset:
    """One variant of Dice 10,000. Knob names are the command line's `--set KEY=VALUE` keys."""

    name: str = "custom"
    dice: int = 6
    target: int = 10000
    target_strict: bool = False
    kinds: str = "doubling"
    three_pairs: int | None = None
    four_and_pair: bool = False
    straight: int | None = None
    small_straight: int | None = None
    full_house: int | None = None
    two_triplets: int | None = None
    instant_win: str = "none"
    entry: int = 0
    piggyback: bool = False
    hot_dice: str = "may-roll"
    finish: str = "immediate"
    three_farkle_penalty: int = 0
    boxcar: bool = False
    pass_scores_throw: bool = False
    piggyback_sweep: bool = True
    tie_replay: str = "tied-only"
    starts: str = "seat-order"

    def __post_init__(self) -> None:
        _check(
            isinstance(self.name, str) and 0 < len(self.name) <= MAX_NAME_LENGTH and self.name.isprintable(),
            f"a ruleset's name must be 1 to {MAX_NAME_LENGTH} printable characters, not {short(self.name)}",
        )
        for key in ("dice", "target", "entry", "three_farkle_penalty"):
            _check_range(key, getattr(self, key))
        _check(self.kinds in KINDS, f"kinds must be one of {', '.join(KINDS)}, not {short(self.kinds)}")
        _check(
            self.instant_win in INSTANT_WIN,
            f"instant_win must be one of {', '.join(INSTANT_WIN)}, not {short(self.instant_win)}",
        )
        _check(self.hot_dice in HOT_DICE, f"hot_dice must be one of {', '.join(HOT_DICE)}, not {short(self.hot_dice)}")
        _check(self.finish in FINISH, f"finish must be one of {', '.join(FINISH)}, not {short(self.finish)}")
        _check(
            self.tie_replay in TIE_REPLAY,
            f"tie_replay must be one of {', '.join(TIE_REPLAY)}, not {short(self.tie_replay)}",
        )
        _check(self.starts in STARTS, f"starts must be one of {', '.join(STARTS)}, not {short(self.starts)}")
        for key in COMBINATIONS:
            value = getattr(self, key)
            if value is not None:
                _check_range(key, value, "or off")
        for key in ("target_strict", "four_and_pair", "piggyback", "boxcar", "pass_scores_throw", "piggyback_sweep"):
            _check(
                isinstance(getattr(self, key), bool), f"{key} must be true or false, not {short(getattr(self, key))}"
            )

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some knobs changed; the name becomes "<name>+" unless given."""
        unknown = sorted(set(changes) - set(knob_names()) - {"name"})
        if unknown:
            raise RulesError(f"unknown knob {short(unknown[0])}; known knobs: {', '.join(knob_names())}")
        if "name" not in changes and any(getattr(self, k) != v for k, v in changes.items()):
            changes["name"] = self.name if self.name.endswith("+") else f"{self.name}+"
        return dataclasses.replace(self, **changes)

    def with_settings(self, settings: Mapping[str, object]) -> Ruleset:
        """Apply `KEY=VALUE` style settings whose values may still be strings."""
        return self.replace(**{key: parse_knob(key, value) for key, value in settings.items()})

    def knobs(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "name"}

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, **self.knobs()}

    def is_reached(self, score: int) -> bool:
        return score > self.target if self.target_strict else score >= self.target

    def __repr__(self) -> str:
        base = PRESETS.get(self.name.rstrip("+"), Ruleset())
        diff = ", ".join(f"{k}={v!r}" for k, v in self.knobs().items() if getattr(base, k) != v)
        return f"Ruleset({self.name!r}{', ' + diff if diff else ''})"


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise RulesError(message)


def range_text(key: str) -> str:
    """How a knob's documented range reads in an error message."""
    low, high = RANGES[key]
    if high - low == 1:
        return f"{low} or {high}"
    if key in COMBINATIONS:
        return f"a multiple of {POINT_GRID} from {low} to {high}"
    return f"a whole number from {low} to {high}"


def _check_range(key: str, value: object, alternative: str = "") -> None:
    low, high = RANGES[key]
    ok = _is_int(value) and low <= value <= high
    if ok and key in COMBINATIONS:
        ok = _is_int(value) and value % POINT_GRID == 0
    _check(ok, f"{key} must be {range_text(key)}{' ' + alternative if alternative else ''}, not {short(value)}")


def knob_names() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(Ruleset) if f.name != "name")


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_OFF = {"off", "none", "no", "false", "0", ""}


def parse_knob(key: str, value: object) -> object:
    """A knob's value from text (the command line, a form) or from JSON/TOML, checked for its kind."""
    if not isinstance(key, str) or key not in knob_names():
        raise RulesError(f"unknown knob {short(key)}; known knobs: {', '.join(knob_names())}")
    field_type = {f.name: f.type for f in dataclasses.fields(Ruleset)}[key]
    text = value.strip().lower() if isinstance(value, str) else None
    if field_type == "bool":
        if isinstance(value, bool):
            return value
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise RulesError(f"{key} must be true or false, not {short(value)}")
    if field_type == "int | None":
        if value is None or value is False or text in _OFF:
            return None
        return _parse_int(key, value)
    if field_type == "int":
        return _parse_int(key, value)
    if not isinstance(value, str):
        raise RulesError(f"{key} must be text, not {short(value)}")
    return text


def _parse_int(key: str, value: object) -> int:
    number = value if _is_int(value) else parse_whole(value, separators="_,") if isinstance(value, str) else None
    if number is None:
        raise RulesError(f"{key} must be {range_text(key)}, not {short(value)}")
    _check_range(key, number)
    return number


# A table: each preset keeps its knobs on a line or two.
# fmt: off
PRESETS: dict[str, Ruleset] = {
    r.name: r
    for r in (
        # The family text's three pairs, straight and six 1s need a sixth die: they are Farke's.
        Ruleset(name="family", dice=5, kinds="doubling", entry=0, hot_dice="may-roll", finish="immediate",
                starts="highest-roll"),
        Ruleset(name="farke", dice=6, kinds="doubling", three_pairs=750, straight=1500,
                instant_win="six-ones", entry=750, hot_dice="may-roll", finish="immediate",
                starts="highest-roll"),
        Ruleset(name="tenthousand", dice=6, kinds="per-face", three_pairs=1000, straight=1500,
                entry=500, hot_dice="must-roll", finish="complete-round"),
        Ruleset(name="wikipedia", dice=6, kinds="doubling", three_pairs=750, straight=2000,
                instant_win="six-of-a-kind", entry=550, piggyback=True, hot_dice="may-roll",
                finish="last-chance"),
        Ruleset(name="zilch", dice=6, kinds="doubling", three_pairs=1000, straight=3000, entry=500,
                piggyback=True, hot_dice="must-roll", finish="last-chance", target_strict=True,
                pass_scores_throw=True),
        Ruleset(name="stone", dice=6, kinds="triples", three_pairs=1500, four_and_pair=True,
                straight=3000, entry=0, hot_dice="may-roll", finish="immediate"),
        Ruleset(name="farkle", dice=6, kinds="flat", three_pairs=1500, four_and_pair=True,
                straight=1500, two_triplets=2500, entry=500, hot_dice="must-roll",
                finish="last-chance", three_farkle_penalty=1000),
    )
}
# fmt: on

HOUSE_RULES: dict[str, dict[str, object]] = {
    "greed": {"entry": 1000},
    "amish": {"piggyback": True, "piggyback_sweep": False},
    "alternative-sets": {"small_straight": 1000, "full_house": 750, "boxcar": True},
}
"""House rules named in the rule texts, as knob settings to lay over any preset."""


DEFAULT_PRESET = "family"
"""The preset used where none is named: the family game the name Dice 10,000 comes from."""


def preset(name: str) -> Ruleset:
    """The preset called `name`; an unknown name lists the known ones."""
    try:
        return PRESETS[name.strip().lower()]
    except (KeyError, AttributeError):
        raise RulesError(f"unknown rules {short(name)}; known presets: {', '.join(PRESETS)}") from None


def house_rule(name: str) -> dict[str, object]:
    try:
        return dict(HOUSE_RULES[name.strip().lower()])
    except (KeyError, AttributeError):
        raise RulesError(f"unknown house rule {short(name)}; known: {', '.join(HOUSE_RULES)}") from None


def compose_ruleset(base: Ruleset | str = DEFAULT_PRESET, houses: object = (), settings: object = None) -> Ruleset:
    """A ruleset (or the preset of that name) with named house rules, then knob settings, laid over it.

    Each layer overrides the one before: a knob set by hand beats a house rule's value for it.
    Values may still be text (a form, the command line); a bad name or value raises RulesError.
    """
    rules = base if isinstance(base, Ruleset) else preset(base)
    if isinstance(houses, str):
        houses = [houses]
    if not isinstance(houses, (list, tuple)) or not all(isinstance(h, str) for h in houses):
        raise RulesError("house rules must be a list of house-rule names")
    if settings is None:
        settings = {}
    if not isinstance(settings, Mapping):
        raise RulesError("knob settings must map knob names to values")
    merged: dict[str, object] = {}
    for house in houses:
        merged.update(house_rule(house))
    merged.update(settings)
    return rules.with_settings(merged) if merged else rules


def ruleset_from_dict(data: Mapping[str, object]) -> Ruleset:
    """A ruleset back from `Ruleset.to_dict()` (a stored or exported game): its name and every knob."""
    name = data.get("name", "custom")
    if not isinstance(name, str):
        raise RulesError(f"a ruleset's name must be text, not {short(name)}")
    knobs: dict[str, Any] = {key: parse_knob(key, value) for key, value in data.items() if key != "name"}
    return Ruleset(name=name, **knobs)


def ruleset_from_toml(text: str) -> Ruleset:
    """A ruleset from TOML: an optional `preset = NAME` (default `DEFAULT_PRESET`), `house = [...]` and knobs.

    The knobs may stand at the top level or in a `[rules]` table.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"not valid TOML: {exc}") from None
    table = data.get("rules", data)
    if not isinstance(table, dict):
        raise RulesError("the [rules] entry must be a table")
    table = dict(table)
    base = str(table.pop("preset", DEFAULT_PRESET))
    name = table.pop("name", None)
    rules = compose_ruleset(base, table.pop("house", []), table)
    return rules.replace(name=str(name)) if name else rules

"""Where each preset's choices come from: the rule text and line behind every knob and combination."""

from __future__ import annotations

from dataclasses import dataclass

from scorekeeper.rules import HOUSE_RULES, PRESETS, Ruleset
from scorekeeper.scoring import combinations

TEXTS: dict[str, str] = {
    "family": "dice-10000-family-rules.md",
    "farke": "dice-10000-family-rules.md",
    "tenthousand": "ten-thousand-web-game.txt",
    "wikipedia": "dice-10000-encyclopedia.md",
    "zilch": "greedy-dice-zilch.txt",
    "stone": "ten-thousand-dice-game-rules.md",
    "farkle": "README.md",
}
"""The rule text of each preset, in the folder of the five texts (farkle: the common chart in its README)."""

_FAMILY = {
    "dice": "17",
    "target": "61",
    "target_strict": "61",
    "singles": "33-34",
    "triples": "35-40",
    "kinds": "41-42",
    "hot_dice": "28",
    "finish": "61",
    "starts": "23",
    "entry": "22",
    # Three pairs, the straight and six 1s need a sixth die: off with five.
    "three_pairs": "45 (six dice only)",
    "straight": "46 (six dice only)",
    "instant_win": "44 (six dice only)",
}
# Lines of each preset's text that state the knob; a knob missing here is not in the text and
# keeps the engine's default.
LINES: dict[str, dict[str, str]] = {
    "family": _FAMILY,
    "farke": {
        **_FAMILY,
        "dice": "67",
        "entry": "67",
        "kinds": "41-43",
        "instant_win": "44",
        "three_pairs": "45",
        "straight": "46",
    },
    "tenthousand": {
        "dice": "3",
        "singles": "7-8",
        "triples": "9",
        "kinds": "10-12",
        "three_pairs": "13",
        "straight": "14",
        "hot_dice": "29",
        "entry": "33",
        "target": "57",
        "target_strict": "57",
        "finish": "57",
        "tie_replay": "59",
    },
    "wikipedia": {
        "dice": "11",
        "singles": "39",
        "triples": "39",
        "kinds": "37",
        "instant_win": "39",
        "three_pairs": "39",
        "straight": "39",
        "entry": "25",
        "piggyback": "29-31",
        "piggyback_sweep": "23, 31",
        "hot_dice": "23",
        "target": "47",
        "finish": "49",
        "small_straight": "43",
        "full_house": "43",
        "boxcar": "43",
    },
    "zilch": {
        "singles": "9-11",
        "straight": "13",
        "three_pairs": "15",
        "triples": "17-19",
        "kinds": "21-25",
        "target": "28",
        "target_strict": "28",
        "finish": "28",
        "dice": "34",
        "hot_dice": "34",
        "pass_scores_throw": "34",
        "entry": "38",
        "piggyback": "41",
    },
    "stone": {
        "dice": "9",
        "singles": "9",
        "triples": "9",
        "kinds": "9",
        "straight": "9",
        "three_pairs": "9",
        "four_and_pair": "9",
        "hot_dice": "11",
        "target": "13",
        "finish": "13",
    },
    "farkle": {
        key: "15-17"
        for key in (
            "kinds",
            "singles",
            "triples",
            "straight",
            "three_pairs",
            "four_and_pair",
            "two_triplets",
            "three_farkle_penalty",
        )
    },
}


HOUSE_LINES: dict[str, str] = {
    "greed": "dice-10000-family-rules.md:65",
    "amish": "dice-10000-family-rules.md:66",
    "alternative-sets": "dice-10000-encyclopedia.md:41-43",
}


def knob_source(rules: Ruleset, knob: str) -> str:
    """The text and line a knob's value comes from, or why it has that value."""
    base = PRESETS.get(rules.name.rstrip("+"))
    if base is None:
        return "custom rules"
    if knob in rules.knobs() and getattr(rules, knob) != getattr(base, knob):
        for house, settings in HOUSE_RULES.items():
            if settings.get(knob, ...) == getattr(rules, knob):
                return f"house rule {house}: {HOUSE_LINES[house]}"
        return "changed from the preset by a setting"
    line = LINES[base.name].get(knob)
    if line is None:
        return f"not in {TEXTS[base.name]}: the engine's default"
    return f"{TEXTS[base.name]}:{line}"


@dataclass(frozen=True)
class KnobLine:
    """One knob of a ruleset: its name, its value as `dicekeeper rules` writes it, and its source."""

    name: str
    value: str
    source: str


def knob_text(value: object) -> str:
    """A knob's value as the command line takes it: `off` for an unused combination, true/false."""
    if value is None:
        return "off"
    return str(value).lower() if isinstance(value, bool) else str(value)


def knob_lines(rules: Ruleset) -> tuple[KnobLine, ...]:
    """Every knob of the ruleset with its value and the text and line it comes from."""
    return tuple(KnobLine(key, knob_text(value), knob_source(rules, key)) for key, value in rules.knobs().items())


@dataclass(frozen=True)
class CombinationLine:
    """One scoring combination of a ruleset: what it is, its points and where it comes from."""

    name: str
    points: int
    instant_win: bool
    source: str

    def __repr__(self) -> str:
        win = ", instant win" if self.instant_win else ""
        return f"<CombinationLine {self.name}: {self.points}{win} ({self.source})>"


def _knob_of(name: str) -> str:
    if name.startswith("single"):
        return "singles"
    if name.startswith("3 x"):
        return "triples"
    if name[0].isdigit():
        return "kinds"
    return {
        "three pairs": "three_pairs",
        "four and a pair": "four_and_pair",
        "straight": "straight",
        "full house": "full_house",
        "two triplets": "two_triplets",
    }.get(name, "small_straight")


def combination_lines(rules: Ruleset) -> tuple[CombinationLine, ...]:
    """Every combination the ruleset scores, once per name (a full house is worth the same for any
    faces), with the source of its value."""
    seen: dict[str, CombinationLine] = {}
    for combo in combinations(rules):
        knob = "instant_win" if combo.instant_win else _knob_of(combo.name)
        line = CombinationLine(combo.name, combo.points, combo.instant_win, knob_source(rules, knob))
        if combo.name not in seen or combo.instant_win:
            seen[combo.name] = line
    lines = list(seen.values())
    if rules.boxcar and rules.three_pairs is not None and rules.dice == 6:
        lines.append(
            CombinationLine(
                "three pairs over dice set aside (boxcar)", rules.three_pairs, False, knob_source(rules, "boxcar")
            )
        )
    return tuple(lines)

"""What the pages call each preset: a friendly title and one line on what sets it apart.
The codes (family, farke, ...) stay the names the API, the CLI and stored games use."""

from __future__ import annotations

from typing import NamedTuple

from scorekeeper import PRESETS


class PresetLabel(NamedTuple):
    title: str
    description: str


LABELS: dict[str, PresetLabel] = {
    "family": PresetLabel(
        "Dice 10,000 (family, 5 dice)", "Five dice, no score needed to get on the board; the highest roll starts."
    ),
    "farke": PresetLabel(
        "Farke (6 dice, six 1s win)", "Six dice, 750 in one turn to get on the board, and six 1s win the game at once."
    ),
    "tenthousand": PresetLabel(
        "Ten Thousand (classic web rules)",
        "Six dice, each die past a triple adds the triple's value again, "
        "500 to get on the board, and everyone finishes the last round.",
    ),
    "wikipedia": PresetLabel(
        "Dice 10,000 (encyclopedia rules)",
        "Six dice, 550 to get on the board, take over the last player's dice, six of a kind wins at once.",
    ),
    "zilch": PresetLabel(
        "Zilch",
        "Six dice, 500 to get on the board, take over the last player's dice, "
        "and the target must be passed, not just reached.",
    ),
    "stone": PresetLabel(
        "Ten Thousand (triples only)",
        "Six dice, sets count only in threes, no score needed to get on the board, a straight 3000.",
    ),
    "farkle": PresetLabel(
        "Farkle (modern)",
        "Six dice, flat 1000/2000/3000 for four, five and six of a kind; three farkles in a row cost 1000.",
    ),
}


def label(code: str) -> PresetLabel:
    """The preset's label; a changed preset ("zilch+") or an unknown name falls back to its code."""
    base = code.rstrip("+")
    found = LABELS.get(base)
    if found is None:
        return PresetLabel(code, "")
    return found if base == code else PresetLabel(f"{found.title}, changed", found.description)


def missing_labels() -> list[str]:
    return [code for code in PRESETS if code not in LABELS]

"""Exact odds of a single throw: every outcome of n dice is enumerated as a multiset with its weight."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from math import factorial

from scorekeeper.dice import Counts, counts_of
from scorekeeper.rules import Ruleset
from scorekeeper.scoring import _keeps_of_counts


@dataclass(frozen=True)
class ThrowOdds:
    """For a throw of `dice` dice: the chance of a farkle and the expected points of the best keep."""

    dice: int
    farkle: float
    expected_points: float

    def to_dict(self) -> dict[str, float | int]:
        return {"dice": self.dice, "farkle": self.farkle, "expected_points": self.expected_points}


@lru_cache(maxsize=8)
def outcomes(n: int) -> tuple[tuple[Counts, int], ...]:
    """Every distinct outcome of throwing n dice, as (counts, ways); the ways add up to 6**n."""
    result = []
    for combo in itertools.combinations_with_replacement(range(1, 7), n):
        counts = counts_of(combo)
        ways = factorial(n)
        for c in counts:
            ways //= factorial(c)
        result.append((counts, ways))
    return tuple(result)


def throw_odds(n: int, rules: Ruleset) -> ThrowOdds:
    farkle_ways = 0
    points_ways = 0
    for counts, ways in outcomes(n):
        keeps = _keeps_of_counts(counts, rules)
        if keeps:
            points_ways += ways * keeps[0].points
        else:
            farkle_ways += ways
    return ThrowOdds(n, farkle_ways / 6**n, points_ways / 6**n)


def odds(rules: Ruleset) -> tuple[ThrowOdds, ...]:
    """Odds for 1 up to all of the ruleset's dice."""
    return tuple(throw_odds(n, rules) for n in range(1, rules.dice + 1))

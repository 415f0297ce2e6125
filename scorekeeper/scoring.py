"""Scoring: what a set of dice from one throw is worth, and every legal keep of a throw.

A keep is a sub-multiset of one throw in which every die belongs to a scoring combination; it is
worth the best way of splitting it into combinations. For each ruleset the value of every multiset
of up to `dice` dice is computed once (at most 923 of them) and kept in a table.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from scorekeeper.dice import Counts, Keep, as_counts, counts_of, faces_of, parse_faces
from scorekeeper.errors import DiceError
from scorekeeper.rules import Ruleset

ZERO: Counts = (0, 0, 0, 0, 0, 0)


@dataclass(frozen=True)
class Combination:
    """One scoring pattern: the dice it takes (as counts), its points and whether it wins at once."""

    name: str
    counts: Counts
    points: int
    instant_win: bool = False


def _vector(pairs: Iterable[tuple[int, int]]) -> Counts:
    c = [0] * 6
    for face, n in pairs:
        c[face - 1] += n
    return as_counts(c)


def kind_points(face: int, n: int, rules: Ruleset) -> int | None:
    """Points of n dice of one face (n >= 3) under the ruleset's `kinds`, None if it does not score."""
    triple = 1000 if face == 1 else 100 * face
    if n == 3:
        return triple
    if rules.kinds == "doubling":
        return triple * 2 ** (n - 3)
    if rules.kinds == "per-face":
        return {4: 200, 5: 400, 6: 1000}[n] * (10 if face == 1 else face)
    if rules.kinds == "flat":
        return {4: 1000, 5: 2000, 6: 3000}[n]
    return None  # "triples": only sets of three score


def combinations(rules: Ruleset) -> tuple[Combination, ...]:
    """Every scoring pattern of the ruleset that fits in one throw of its dice."""
    combos: list[Combination] = [
        Combination("single 1", _vector([(1, 1)]), 100),
        Combination("single 5", _vector([(5, 1)]), 50),
    ]
    for face in range(1, 7):
        for n in range(3, rules.dice + 1):
            points = kind_points(face, n, rules)
            if points is None:
                continue
            instant = n == 6 and (
                rules.instant_win == "six-of-a-kind" or (rules.instant_win == "six-ones" and face == 1)
            )
            combos.append(Combination(f"{n} x {face}", _vector([(face, n)]), points, instant))
    if rules.dice == 6 and rules.instant_win != "none" and rules.kinds == "triples":
        # Six of a kind is two triples under "triples", but it still wins at once where the rules say so.
        for face in range(1, 7):
            if rules.instant_win == "six-of-a-kind" or face == 1:
                triple = kind_points(face, 3, rules)
                assert triple is not None  # three of a kind always scores
                combos.append(Combination(f"6 x {face}", _vector([(face, 6)]), 2 * triple, True))
    faces = range(1, 7)
    if rules.straight is not None and rules.dice == 6:
        combos.append(Combination("straight", (1, 1, 1, 1, 1, 1), rules.straight))
    if rules.small_straight is not None:
        combos.append(Combination("small straight 1-5", (1, 1, 1, 1, 1, 0), rules.small_straight))
        combos.append(Combination("small straight 2-6", (0, 1, 1, 1, 1, 1), rules.small_straight))
    if rules.three_pairs is not None and rules.dice == 6:
        for a, b, c in itertools.combinations(faces, 3):
            combos.append(Combination("three pairs", _vector([(a, 2), (b, 2), (c, 2)]), rules.three_pairs))
        if rules.four_and_pair:
            for a, b in itertools.permutations(faces, 2):
                combos.append(Combination("four and a pair", _vector([(a, 4), (b, 2)]), rules.three_pairs))
            for a in faces:
                combos.append(Combination("four and a pair", _vector([(a, 6)]), rules.three_pairs))
    if rules.full_house is not None:
        for a, b in itertools.permutations(faces, 2):
            combos.append(Combination("full house", _vector([(a, 3), (b, 2)]), rules.full_house))
    if rules.two_triplets is not None and rules.dice == 6:
        for a, b in itertools.combinations(faces, 2):
            combos.append(Combination("two triplets", _vector([(a, 3), (b, 3)]), rules.two_triplets))
    return tuple(combos)


def _sub_multisets(counts: Counts) -> Iterator[Counts]:
    yield from itertools.product(*(range(n + 1) for n in counts))


@dataclass(frozen=True)
class ScoreTable:
    """The best split of every multiset of up to `dice` dice: points and instant win, or absent."""

    rules: Ruleset
    best: dict[Counts, tuple[int, bool]]

    def value(self, counts: Counts) -> tuple[int, bool] | None:
        return self.best.get(counts)


@lru_cache(maxsize=64)
def score_table(rules: Ruleset) -> ScoreTable:
    combos = combinations(rules)
    best: dict[Counts, tuple[int, bool]] = {ZERO: (0, False)}
    # Visit multisets by size so every smaller remainder is already known.
    by_size = sorted((c for c in _sub_multisets((rules.dice,) * 6) if 0 < sum(c) <= rules.dice), key=sum)
    for counts in by_size:
        top: tuple[int, bool] | None = None
        for combo in combos:
            rest = as_counts([a - b for a, b in zip(counts, combo.counts)])
            if min(rest) < 0:
                continue
            tail = best.get(rest)
            if tail is None:
                continue
            candidate = (combo.points + tail[0], combo.instant_win or tail[1])
            if top is None or candidate > top:
                top = candidate
        if top is not None:
            best[counts] = top
    return ScoreTable(rules, best)


def score(dice: Iterable[object], rules: Ruleset) -> int | None:
    """Points of dice set aside together from one throw, or None when some die does not score."""
    faces = parse_faces(dice, rules.dice)
    found = score_table(rules).value(counts_of(faces))
    return None if found is None else found[0]


@lru_cache(maxsize=8192)
def _keeps_of_counts(counts: Counts, rules: Ruleset) -> tuple[Keep, ...]:
    table = score_table(rules).best
    keeps = []
    for sub in _sub_multisets(counts):
        found = table.get(sub)
        if found is not None and sub != ZERO:
            keeps.append(Keep(faces_of(sub), found[0], found[1]))
    keeps.sort(key=lambda k: (-k.points, -len(k.dice), k.dice))
    return tuple(keeps)


def legal_keeps(throw: Iterable[object], rules: Ruleset) -> tuple[Keep, ...]:
    """Every legal keep of a throw, highest points first; empty for a farkle."""
    faces = parse_faces(throw, rules.dice)
    return _keeps_of_counts(counts_of(faces), rules)


def is_legal_keep(keep: Iterable[object], throw: Iterable[object], rules: Ruleset) -> bool:
    """Whether `keep` is part of `throw` and every die of it scores."""
    try:
        kept = counts_of(parse_faces(keep, rules.dice))
        thrown = counts_of(parse_faces(throw, rules.dice))
    except DiceError:
        return False
    if any(k > t for k, t in zip(kept, thrown)):
        return False
    return kept in score_table(rules).best and kept != ZERO


def is_farkle(throw: Iterable[object], rules: Ruleset) -> bool:
    return not legal_keeps(throw, rules)


def is_three_pairs(counts: Counts, rules: Ruleset) -> bool:
    """Whether six dice make three pairs under the ruleset (four and a pair too with `four_and_pair`)."""
    shape = sorted(n for n in counts if n)
    return shape == [2, 2, 2] or (rules.four_and_pair and shape in ([2, 4], [6]))


@lru_cache(maxsize=64)
def throw_values(rules: Ruleset) -> frozenset[int]:
    """Every number of points that the dice set aside from one throw can be worth."""
    return frozenset(points for points, _ in score_table(rules).best.values() if points > 0)

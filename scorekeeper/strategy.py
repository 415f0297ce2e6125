"""The strategy that maximises the expected points of one turn, computed exactly, and advice from it.

The value of a turn depends on the turn total t and the dice n about to be thrown:

    roll(t, n)  = sum over throws of n dice of (ways / 6**n) * best keep value, or -cost on a farkle
    after(t, m) = max(t, roll(t, m')) when banking is allowed, else roll(t, m')

where m is the number of dice left after a keep and m' = m, or all dice on hot dice. Every keep adds
points, so t only grows: the tables are filled from a cap downwards. Above the cap `bank_cap` banking
is always at least as good as rolling on (see `bank_cap` for the proof), so there after(t, m) = t;
only hot dice that must be rolled keep a turn going above the cap, and the tables run far enough past
it that what lies beyond changes no value by more than rounding.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from scorekeeper.dice import Keep, parse_faces
from scorekeeper.errors import DiceError
from scorekeeper.game import GameState
from scorekeeper.odds import outcomes
from scorekeeper.rules import Ruleset
from scorekeeper.scoring import _keeps_of_counts, legal_keeps

ActionKind = Literal["throw", "keep", "bank", "piggyback"]


@dataclass(frozen=True)
class Action:
    """One move of a player: throw the dice in play, keep some dice, bank, or take over the leftover dice."""

    kind: ActionKind
    dice: tuple[int, ...] = ()

    @classmethod
    def throw(cls) -> Action:
        return cls("throw")

    @classmethod
    def keep(cls, dice: Iterable[int]) -> Action:
        return cls("keep", tuple(sorted(dice)))

    @classmethod
    def bank(cls) -> Action:
        return cls("bank")

    @classmethod
    def piggyback(cls) -> Action:
        return cls("piggyback")

    def to_dict(self) -> dict[str, object]:
        return {"action": self.kind, "dice": list(self.dice)} if self.kind == "keep" else {"action": self.kind}

    def __repr__(self) -> str:
        return f"Action.keep({list(self.dice)})" if self.kind == "keep" else f"Action.{self.kind}()"


@dataclass(frozen=True)
class Situation:
    """What else decides a turn's value: the turn total needed before banking, and what a farkle costs."""

    entry: int = 0
    farkle_cost: int = 0

    @classmethod
    def of(cls, state: GameState) -> Situation:
        """The situation of the player to act."""
        player = state.current_player
        return cls.of_player(state.rules, player.on_board, player.farkles_in_a_row)

    @classmethod
    def of_player(cls, rules: Ruleset, on_board: bool, farkles_in_a_row: int) -> Situation:
        """A player's situation: the entry score still to reach, and the penalty a third farkle costs."""
        entry = 0 if on_board else rules.entry
        cost = rules.three_farkle_penalty if farkles_in_a_row + 1 >= 3 else 0
        return cls(entry, cost)


ON_BOARD = Situation()


def situations(rules: Ruleset) -> list[Situation]:
    """Every situation a player of these rules can be in at the start of a turn."""
    entries = {0, rules.entry}
    costs = {0, rules.three_farkle_penalty}
    return [Situation(entry, cost) for entry in sorted(entries) for cost in sorted(costs)]


# ---- the throws of n dice, reduced to what the dynamic programme needs -------------------------------


@dataclass(frozen=True)
class ThrowGroups:
    """All throws of `dice` dice, grouped by their useful keeps.

    Turn values never fall when the turn total rises, so of the keeps that leave the same number of
    dice only the highest scoring one matters. Each option is (points, dice left, instant win); dice
    left is 0 on hot dice.
    """

    dice: int
    farkle_ways: int
    groups: tuple[tuple[int, tuple[tuple[int, int, bool], ...]], ...]


@lru_cache(maxsize=64)
def throw_groups(rules: Ruleset) -> tuple[ThrowGroups, ...]:
    """Index n holds the throws of n dice (index 0 is empty)."""
    result = [ThrowGroups(0, 0, ())]
    for n in range(1, rules.dice + 1):
        farkle = 0
        merged: dict[tuple[tuple[int, int, bool], ...], int] = {}
        for counts, ways in outcomes(n):
            keeps = _keeps_of_counts(counts, rules)
            if not keeps:
                farkle += ways
                continue
            best: dict[tuple[int, bool], int] = {}
            for keep in keeps:
                key = (n - len(keep.dice), keep.instant_win)
                best[key] = max(best.get(key, 0), keep.points)
            options = tuple(sorted((points, left, instant) for (left, instant), points in best.items()))
            merged[options] = merged.get(options, 0) + ways
        result.append(ThrowGroups(n, farkle, tuple(sorted((ways, options) for options, ways in merged.items()))))
    return tuple(result)


@lru_cache(maxsize=64)
def point_step(rules: Ruleset) -> int:
    """The greatest common divisor of all keep points: turn totals move on a grid of this step."""
    step = 0
    for groups in throw_groups(rules)[1:]:
        for _, options in groups.groups:
            for points, _, _ in options:
                step = math.gcd(step, points)
    return step


@lru_cache(maxsize=64)
def bank_cap(rules: Ruleset) -> int:
    """A turn total from which banking is always at least as good as rolling on.

    Let E(n) be the expected points of the best keep of n dice (0 on a farkle) and p(n) the farkle
    chance. Let B be the largest amount by which any turn value from a total t >= C exceeds t. Rolling
    n dice from t gains at most E(n) + (1 - p(n)) * B and loses t with chance p(n), so
    B <= max(0, E(n) + (1 - p(n)) * B - p(n) * C). When C >= E(n) / p(n) for every n this gives
    B <= (1 - p) * B, hence B = 0: from C upwards rolling on never beats banking.
    """
    cap = 0.0
    for groups in throw_groups(rules)[1:]:
        total = 6**groups.dice
        expected = sum(ways * max(p for p, _, _ in options) for ways, options in groups.groups) / total
        if groups.farkle_ways == 0:
            raise ValueError(f"{rules!r}: every throw of {groups.dice} dice scores, so a turn never has to end")
        cap = max(cap, expected / (groups.farkle_ways / total))
    step = point_step(rules)
    return max(rules.entry, math.ceil(cap / step) * step)


# ---- the tables --------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class TurnTable:
    """Exact turn values for one ruleset and situation, for turn totals start, start + step, ... .

    `roll_values[n][i]` is the expected turn result of throwing n dice with turn total
    start + i * step; `after_values[m][i]` is the value right after a keep that leaves m dice
    (0 = hot dice), playing on as well as possible.
    """

    rules: Ruleset
    situation: Situation
    start: int
    step: int
    size: int
    roll_values: tuple[tuple[float, ...], ...]
    after_values: tuple[tuple[float, ...], ...]

    def index(self, turn_total: int) -> int:
        i, rest = divmod(turn_total - self.start, self.step)
        if rest or not 0 <= i < self.size:
            raise ValueError(f"turn total {turn_total} is not in this table")
        return i

    def roll(self, turn_total: int, dice: int) -> float:
        """Expected turn result of throwing `dice` dice now with this turn total."""
        return self.roll_values[dice][self.index(turn_total)]

    def after(self, turn_total: int, dice_left: int) -> float:
        """Expected turn result right after a keep that leaves `dice_left` dice (0 = hot dice)."""
        return self.after_values[dice_left][self.index(turn_total)]

    def may_bank(self, turn_total: int, hot: bool) -> bool:
        """Whether banking is allowed right after a keep (the turn has set dice aside)."""
        if hot and self.rules.hot_dice == "must-roll":
            return False
        return turn_total >= self.situation.entry

    def __repr__(self) -> str:
        top = self.start + (self.size - 1) * self.step
        return f"TurnTable({self.rules.name!r}, {self.situation!r}, totals {self.start}..{top} by {self.step})"


def table(rules: Ruleset, situation: Situation = ON_BOARD, turn_total: int = 0) -> TurnTable:
    """The (cached) table that holds `turn_total`."""
    if turn_total < 0:
        raise ValueError(f"a turn total cannot be negative, not {turn_total}")
    start = turn_total % point_step(rules)
    if turn_total > _top(rules, situation, start):
        start = turn_total
    return _table(rules, situation, start)


def _top(rules: Ruleset, situation: Situation, start: int) -> int:
    """The highest turn total of a table: the cap, plus `hot_chain_reach` where hot dice must be rolled."""
    cap = max(bank_cap(rules), situation.entry)
    reach = hot_chain_reach(rules) if rules.hot_dice == "must-roll" else 0
    step = point_step(rules)
    return max(cap, start) + math.ceil(reach / step) * step


@lru_cache(maxsize=64)
def hot_chain_reach(rules: Ruleset) -> int:
    """How far above the cap a turn must be followed when hot dice must be rolled.

    Above the cap every keep that leaves dice is banked, so a turn only goes on by keeping all dice
    of a throw of all dice, again and again. With f(x) the chance of such a throw times
    exp(x * its points), the chance that the chain climbs D points is at most
    exp(-x * D) / (1 - f(x)) for any x with f(x) < 1 (a Chernoff bound). The reach is the D that
    makes this below 1e-15 at the x where f(x) = 1/2.
    """
    whole = [
        (ways / 6**rules.dice, points)
        for ways, options in throw_groups(rules)[rules.dice].groups
        for points, left, instant in options
        if left == 0 and not instant
    ]

    def f(x: float) -> float:
        return sum(chance * math.exp(x * points) for chance, points in whole)

    if f(0.0) >= 0.5:
        raise ValueError(f"{rules!r}: half of all throws score with every die; hot dice never end")
    low, high = 0.0, 1e-4
    while f(high) < 0.5:
        low, high = high, high * 2
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if f(middle) < 0.5 else (low, middle)
    return math.ceil(math.log(2 / 1e-15) / low)


@lru_cache(maxsize=32)
def _table(rules: Ruleset, situation: Situation, start: int) -> TurnTable:
    return build_table(rules, situation, start)


def build_table(rules: Ruleset, situation: Situation, start: int, beyond: float | None = None) -> TurnTable:
    """Fill the table from its top down.

    Past the top, a keep is worth its new total (exact: the top is above `bank_cap`), except hot
    dice that must be rolled, which are worth `beyond` (default: the total, an upper bound). The
    top lies so far above the cap that the choice of `beyond` does not show in the values below it.
    """
    groups = throw_groups(rules)
    step = point_step(rules)
    dice = rules.dice
    size = (_top(rules, situation, start) - start) // step + 1
    longest = max(p for g in groups[1:] for _, options in g.groups for p, _, _ in options) // step
    length = size + longest
    totals = [start + i * step for i in range(length)]
    must_roll_hot = rules.hot_dice == "must-roll"
    entry, cost = situation.entry, situation.farkle_cost

    roll = [[0.0] * length for _ in range(dice + 1)]
    after = [[float(t) for t in totals] for _ in range(dice)]
    if must_roll_hot and beyond is not None:
        after[0] = [float(beyond)] * length
    # A keep's value is read from after[left][i + points]; an instant win ends the turn with its total.
    plans = []
    for n in range(1, dice + 1):
        g = groups[n]
        plan = tuple(
            (ways, tuple((totals if instant else after[left], p // step) for p, left, instant in options))
            for ways, options in g.groups
        )
        plans.append((n, plan, g.farkle_ways * cost, 6**n))

    for i in range(size - 1, -1, -1):
        t = totals[i]
        for n, plan, farkle_loss, total_ways in plans:
            acc = 0.0
            for ways, options in plan:
                best = -math.inf
                for values, p in options:
                    v = values[i + p]
                    if v > best:
                        best = v
                acc += ways * best
            roll[n][i] = (acc - farkle_loss) / total_ways
        bank_ok = t >= entry
        for m in range(1, dice):
            r = roll[m][i]
            after[m][i] = r if not bank_ok or r > t else float(t)
        r = roll[dice][i]
        after[0][i] = r if must_roll_hot or not bank_ok or r > t else float(t)

    return TurnTable(
        rules=rules,
        situation=situation,
        start=start,
        step=step,
        size=size,
        roll_values=tuple(tuple(row[:size]) for row in roll),
        after_values=tuple(tuple(row[:size]) for row in after),
    )


def farkle_chance(rules: Ruleset, dice: int) -> float:
    """The chance that a throw of `dice` dice scores nothing."""
    g = throw_groups(rules)[dice]
    return g.farkle_ways / 6**dice


def expected_turn(rules: Ruleset, situation: Situation = ON_BOARD) -> float:
    """The expected points of a whole turn started with all dice, playing for the most points."""
    return table(rules, situation).roll(0, rules.dice)


def bank_thresholds(rules: Ruleset, situation: Situation = ON_BOARD) -> dict[int, int | None]:
    """For each number of dice left after a keep (0 = hot dice), the lowest turn total from which the
    strategy always banks; None where it may never bank (hot dice that must be rolled)."""
    tab = table(rules, situation)
    result: dict[int, int | None] = {}
    for left in range(rules.dice):
        if left == 0 and rules.hot_dice == "must-roll":
            result[left] = None
            continue
        dice = left or rules.dice
        lowest = tab.start + tab.size * tab.step
        for i in range(tab.size - 1, -1, -1):
            t = tab.start + i * tab.step
            if not (tab.may_bank(t, left == 0) and t >= tab.roll_values[dice][i]):
                break
            lowest = t
        result[left] = lowest
    return result


# ---- advice ------------------------------------------------------------------------------------------


def _points(value: float | None) -> float | None:
    """Expected points as shown in JSON: two decimals are more than any table needs."""
    return None if value is None else round(value, 2)


@dataclass(frozen=True)
class KeepAdvice:
    """One legal keep: its points, the farkle chance of the next throw, and what the turn is worth after it.

    `expected_if_roll` is None after an instant win (the turn is over); `expected_if_bank` is None
    when banking is not allowed after this keep.
    """

    keep: Keep
    dice_next: int
    farkle_next: float
    expected_if_roll: float | None
    expected_if_bank: int | None
    best: bool = False

    @property
    def expected(self) -> float:
        values = [v for v in (self.expected_if_roll, self.expected_if_bank) if v is not None]
        return max(values) if values else float(self.keep.points)

    @property
    def then(self) -> Action | None:
        """What to do after this keep: bank or throw again (None when the keep wins at once)."""
        if self.keep.instant_win:
            return None
        if self.expected_if_bank is not None and self.expected_if_bank >= (self.expected_if_roll or 0.0):
            return Action.bank()
        return Action.throw()

    def to_dict(self) -> dict[str, object]:
        return {
            "dice": list(self.keep.dice),
            "points": self.keep.points,
            "instant_win": self.keep.instant_win,
            "dice_next": self.dice_next,
            "farkle_next": round(self.farkle_next, 6),
            "expected_if_roll": _points(self.expected_if_roll),
            "expected_if_bank": self.expected_if_bank,
            "best": self.best,
        }

    def __repr__(self) -> str:
        mark = ", best" if self.best else ""
        return f"KeepAdvice({list(self.keep.dice)}, points={self.keep.points}, expected={self.expected:.1f}{mark})"


@dataclass(frozen=True)
class Advice:
    """What the strategy advises for one moment of a turn.

    With a throw waiting for a keep, `keeps` rates every legal keep and `action` keeps the best one,
    `then` saying whether to bank or throw after it. Before a throw, `keeps` is empty and `action`
    is throw, bank or piggyback. `expected` is the expected turn result when the advice is followed
    (the game's later turns are not part of it); `farkle_chance` is that of the dice about to be
    thrown, or of the throw being kept from.
    """

    rules: Ruleset
    situation: Situation
    turn_total: int
    dice: int
    throw: tuple[int, ...] | None
    farkle_chance: float
    keeps: tuple[KeepAdvice, ...]
    action: Action
    then: Action | None
    expected: float
    expected_if_bank: int | None = None
    expected_if_roll: float | None = None
    expected_if_piggyback: float | None = None

    def to_dict(self) -> dict[str, object]:
        advice: dict[str, object] = dict(self.action.to_dict())
        if self.then is not None:
            advice["then"] = self.then.kind
        advice["expected"] = _points(self.expected)
        if self.throw is None:
            advice["expected_if_roll"] = _points(self.expected_if_roll)
            advice["expected_if_bank"] = self.expected_if_bank
            if self.expected_if_piggyback is not None:
                advice["expected_if_piggyback"] = _points(self.expected_if_piggyback)
        return {
            "rules": self.rules.name,
            "turn_total": self.turn_total,
            "dice": self.dice,
            "throw": None if self.throw is None else list(self.throw),
            "farkle_chance": round(self.farkle_chance, 6),
            "keeps": [k.to_dict() for k in self.keeps],
            "advice": advice,
        }

    def __repr__(self) -> str:
        then = f", then={self.then!r}" if self.then is not None else ""
        return f"Advice({self.action!r}{then}, expected={self.expected:.1f})"


Subject = GameState | Sequence[object]


def advise(
    subject: Subject,
    rules: Ruleset | None = None,
    *,
    turn_total: int = 0,
    situation: Situation = ON_BOARD,
) -> Advice:
    """Advice for a game state (the player to act), or for a throw given a ruleset and a turn total.

    A game that is over, or a malformed throw, raises before anything is computed.
    """
    if isinstance(subject, GameState):
        return _advise_state(subject)
    if rules is None:
        raise TypeError("advice for a throw needs the ruleset")
    faces = parse_faces(subject, rules.dice)
    if isinstance(turn_total, bool) or not isinstance(turn_total, int) or turn_total < 0:
        raise DiceError(f"the turn total must be a whole number >= 0, not {turn_total!r}")
    return _advise_throw(faces, rules, turn_total, situation)


def _advise_throw(faces: tuple[int, ...], rules: Ruleset, turn_total: int, situation: Situation) -> Advice:
    keeps = legal_keeps(faces, rules)
    rated = []
    for keep in keeps:
        total = turn_total + keep.points
        left = len(faces) - len(keep.dice)
        dice_next = left or rules.dice
        if keep.instant_win:
            rated.append(KeepAdvice(keep, dice_next, farkle_chance(rules, dice_next), None, total))
            continue
        tab = table(rules, situation, total)
        bank = total if tab.may_bank(total, left == 0) else None
        rated.append(KeepAdvice(keep, dice_next, farkle_chance(rules, dice_next), tab.roll(total, dice_next), bank))
    chance = farkle_chance(rules, len(faces))
    if not rated:
        # A farkle: nothing to keep; the turn is over and the next throw is the next player's.
        lost = -situation.farkle_cost
        return Advice(rules, situation, turn_total, len(faces), faces, chance, (), Action.throw(), None, float(lost))
    # Highest points first on equal value: the order of `legal_keeps`.
    best_at = max(range(len(rated)), key=lambda k: (rated[k].expected, -k))
    rated[best_at] = dataclasses.replace(rated[best_at], best=True)
    best = rated[best_at]
    return Advice(
        rules,
        situation,
        turn_total,
        len(faces),
        faces,
        chance,
        tuple(rated),
        Action.keep(best.keep.dice),
        best.then,
        best.expected,
    )


def _advise_state(state: GameState) -> Advice:
    if state.finished:
        raise ValueError("the game is over: there is nothing to advise")
    rules, situation = state.rules, Situation.of(state)
    if state.phase == "keep" and state.throw is not None:
        return _advise_throw(state.throw, rules, state.turn_total, situation)
    t, n = state.turn_total, state.dice_left
    roll = table(rules, situation, t).roll(t, n)
    bank = t if state.can_bank else None
    piggyback = None
    if state.can_piggyback and state.leftover is not None:
        left_dice, left_total = state.leftover
        piggyback = table(rules, situation, left_total).roll(left_total, left_dice)
    action, expected = Action.throw(), roll
    if bank is not None and bank >= roll:
        action, expected = Action.bank(), float(bank)
    if piggyback is not None and piggyback > expected:
        action, expected = Action.piggyback(), piggyback
    return Advice(
        rules,
        situation,
        t,
        n,
        None,
        farkle_chance(rules, n),
        (),
        action,
        None,
        expected,
        expected_if_bank=bank,
        expected_if_roll=roll,
        expected_if_piggyback=piggyback,
    )


__all__ = [
    "Action",
    "Advice",
    "KeepAdvice",
    "ON_BOARD",
    "Situation",
    "ThrowGroups",
    "TurnTable",
    "advise",
    "bank_cap",
    "bank_thresholds",
    "build_table",
    "expected_turn",
    "farkle_chance",
    "hot_chain_reach",
    "point_step",
    "table",
    "throw_groups",
]

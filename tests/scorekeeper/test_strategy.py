import json
import random
import sys
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper import PRESETS, DiceError, Game, IllegalAction, is_legal_keep, legal_keeps, odds, preset
from scorekeeper.odds import outcomes
from scorekeeper.players import perform, roll
from scorekeeper.strategy import (
    ON_BOARD,
    Action,
    Situation,
    advise,
    bank_cap,
    bank_thresholds,
    build_table,
    expected_turn,
    hot_chain_reach,
    table,
)

# A five-dice game with every rule that changes a turn's value: entry, forced hot dice, the penalty.
FIVE_DICE_FARKLE = preset("farkle").replace(dice=5, name="farkle5")


def brute_force(rules, situation, limit):
    """Turn values straight from the definition, over every legal keep (no pruning, no grid)."""
    must_roll = rules.hot_dice == "must-roll"

    @cache
    def roll_value(t, n):
        total = 0.0
        for counts, ways in outcomes(n):
            faces = [f for f in range(1, 7) for _ in range(counts[f - 1])]
            keeps = legal_keeps(faces, rules)
            if not keeps:
                total -= ways * situation.farkle_cost
                continue
            total += ways * max(after_value(t + k.points, n - len(k.dice), k.instant_win) for k in keeps)
        return total / 6**n

    def after_value(t, left, instant):
        if instant:
            return t
        if t > limit:
            return t  # far above the cap; hot dice there are priced as the tables price them
        hot = left == 0
        bank_ok = t >= situation.entry and not (hot and must_roll)
        rolled = roll_value(t, left or rules.dice)
        return max(t, rolled) if bank_ok else rolled

    return roll_value


@pytest.mark.parametrize(
    "rules, situation",
    [
        (preset("family"), ON_BOARD),
        (FIVE_DICE_FARKLE, ON_BOARD),
        (FIVE_DICE_FARKLE, Situation(entry=500, farkle_cost=1000)),
        (preset("family").replace(kinds="per-face", hot_dice="must-roll", straight=None), Situation(entry=300)),
    ],
)
def test_tables_equal_the_definition_over_every_keep(rules, situation):
    # Forced hot dice can climb far above the cap; follow them as far as the tables do.
    limit = bank_cap(rules) + (hot_chain_reach(rules) if rules.hot_dice == "must-roll" else bank_cap(rules))
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 20000))
    try:
        exact = brute_force(rules, situation, limit)
        exact(0, rules.dice)
    finally:
        sys.setrecursionlimit(old_limit)
    tab = table(rules, situation)
    for t in (0, 50, 300, 350, 1000, 2500):
        for n in range(1, rules.dice + 1):
            assert tab.roll(t, n) == pytest.approx(exact(t, n), rel=1e-9, abs=1e-9), (t, n)


@pytest.mark.parametrize("name", list(PRESETS))
def test_banking_is_best_from_the_cap_upwards(name):
    rules = preset(name)
    tab = table(rules)
    cap = bank_cap(rules)
    assert cap >= rules.entry
    for i in range(tab.index(cap), tab.size):
        t = tab.start + i * tab.step
        for n in range(1, rules.dice + 1):
            assert tab.roll_values[n][i] <= t + 1e-9, (t, n)
    # Below the cap some state still prefers rolling on: the cap is not a wild overestimate.
    below = tab.index(cap) - max(1, cap // tab.step // 10)
    assert any(tab.roll_values[n][below] > tab.start + below * tab.step for n in range(1, rules.dice + 1))


@pytest.mark.parametrize("name", ["tenthousand", "zilch", "farkle"])
def test_what_lies_beyond_the_table_top_does_not_change_any_value(name):
    # Hot dice that must be rolled are the only way past the top; pricing them at the farkle
    # loss instead of their total (the lowest and highest possible values) changes nothing.
    rules = preset(name)
    for situation in (ON_BOARD, Situation(rules.entry, rules.three_farkle_penalty)):
        high = build_table(rules, situation, 0)
        low = build_table(rules, situation, 0, beyond=-situation.farkle_cost)
        last = high.index(bank_cap(rules))
        for n in range(1, rules.dice + 1):
            assert high.roll_values[n][: last + 1] == pytest.approx(low.roll_values[n][: last + 1], abs=1e-6)


@pytest.mark.parametrize("name", list(PRESETS))
def test_values_never_fall_as_the_turn_total_rises(name):
    # The tables keep only the best keep per number of dice left, which is right because of this.
    rules = preset(name)
    for situation in (ON_BOARD, Situation(rules.entry, rules.three_farkle_penalty)):
        tab = table(rules, situation)
        for row in tab.roll_values[1:] + tab.after_values:
            assert all(a <= b + 1e-9 for a, b in zip(row, row[1:]))


def test_values_do_not_depend_on_the_grid_offset():
    rules = preset("wikipedia")
    on_grid, off_grid = table(rules, ON_BOARD, 400), table(rules, ON_BOARD, 420)
    assert on_grid.start == 0 and off_grid.start == 20
    # 20 points more can only help, and by at most 20 points.
    for n in range(1, 7):
        assert on_grid.roll(400, n) <= off_grid.roll(420, n) <= on_grid.roll(400, n) + 20


def test_a_huge_turn_total_gets_its_own_table_and_banks():
    rules = preset("farkle")
    t = 10 * bank_cap(rules) + 7
    tab = table(rules, ON_BOARD, t)
    assert tab.start == t
    assert tab.roll(t, 1) < t
    assert advise([1, 2, 3, 4, 6, 6], rules, turn_total=t).then == Action.bank()


def test_entry_and_penalty_lower_the_value_of_a_turn():
    rules = preset("farkle")
    free = expected_turn(rules)
    assert expected_turn(rules, Situation(entry=500)) < free
    assert expected_turn(rules, Situation(farkle_cost=1000)) < free
    assert expected_turn(rules, Situation(500, 1000)) < min(
        expected_turn(rules, Situation(entry=500)), expected_turn(rules, Situation(farkle_cost=1000))
    )


def test_bank_thresholds_split_banking_from_rolling():
    rules = preset("wikipedia")
    tab = table(rules)
    found = bank_thresholds(rules)
    assert set(found) == set(range(6))
    for left, lowest in found.items():
        dice = left or 6
        assert tab.roll(lowest, dice) <= lowest
        assert tab.roll(lowest - tab.step, dice) > lowest - tab.step
    assert bank_thresholds(preset("farkle"))[0] is None  # hot dice must be rolled there


def test_advice_rates_every_legal_keep():
    rules = preset("farkle")
    throw = (1, 1, 5, 2, 3, 4)
    advice = advise(throw, rules, turn_total=300)
    assert [k.keep for k in advice.keeps] == list(legal_keeps(throw, rules))
    assert sum(k.best for k in advice.keeps) == 1
    best = next(k for k in advice.keeps if k.best)
    assert advice.action == Action.keep(best.keep.dice)
    assert advice.expected == max(k.expected for k in advice.keeps) == best.expected
    chances = {o.dice: o.farkle for o in odds(rules)}
    tab = table(rules)
    for k in advice.keeps:
        dice_next = 6 - len(k.keep.dice) or 6
        assert k.dice_next == dice_next and k.farkle_next == chances[dice_next]
        assert k.expected_if_bank == 300 + k.keep.points
        assert k.expected_if_roll == tab.roll(300 + k.keep.points, dice_next)


def test_advice_on_a_known_throw():
    # 1-1-5 with three more dice: keeping a single 1 and rolling five dice is worth the most.
    advice = advise([1, 1, 5, 2, 3, 4], preset("farkle"))
    assert advice.action == Action.keep([1]) and advice.then == Action.throw()
    assert advice.expected == pytest.approx(table(preset("farkle")).roll(100, 5))


def test_hot_dice_that_must_be_rolled_cannot_be_banked():
    rules = preset("farkle")
    advice = advise([1, 2, 3, 4, 5, 6], rules, turn_total=20000)
    straight = next(k for k in advice.keeps if len(k.keep.dice) == 6)
    assert straight.expected_if_bank is None and straight.expected_if_roll is not None
    may_roll = advise([1, 2, 3, 4, 5, 6], preset("wikipedia"), turn_total=20000)
    assert next(k for k in may_roll.keeps if len(k.keep.dice) == 6).expected_if_bank == 22000


def test_entry_forbids_banking_below_it():
    rules = preset("farkle").replace(entry=1000)
    advice = advise([1, 5, 2, 3, 4, 6], rules, turn_total=300, situation=Situation(entry=1000))
    assert all(k.expected_if_bank is None for k in advice.keeps if 300 + k.keep.points < 1000)
    assert all(k.then == Action.throw() for k in advice.keeps if k.expected_if_bank is None)


def test_instant_win_ends_the_turn():
    six_ones = advise([1, 1, 1, 1, 1, 1], preset("farke"))
    winner = six_ones.keeps[0]
    assert winner.keep.instant_win and winner.expected_if_roll is None and winner.then is None
    assert winner.best and six_ones.then is None


def test_a_farkle_advises_nothing_to_keep():
    advice = advise([2, 3, 4, 6, 6, 2], preset("farkle"), turn_total=500, situation=Situation(farkle_cost=1000))
    assert advice.keeps == () and advice.expected == -1000


@pytest.mark.parametrize(
    "bad, message",
    [
        ([7, 1], "from 1 to 6"),
        ([1, 1, 1, 1, 1, 1, 1], "7 dice"),
        ([], "no dice"),
        ("115", "list of faces"),
    ],
)
def test_bad_dice_raise_one_clear_error(bad, message):
    with pytest.raises(DiceError, match=message):
        advise(bad, preset("farkle"))


@pytest.mark.parametrize("total", [-50, 1.5, True, "100"])
def test_bad_turn_total_raises(total):
    with pytest.raises(DiceError, match="turn total"):
        advise([1, 5], preset("farkle"), turn_total=total)


def test_advice_for_a_throw_needs_rules():
    with pytest.raises(TypeError):
        advise([1, 5])


def test_advice_on_a_finished_game_raises():
    game = Game(["a", "b"], preset("family").replace(target=100))
    game.throw([1, 2, 3, 4, 6])
    state = game.bank([1])
    assert state.finished
    with pytest.raises(ValueError, match="over"):
        advise(state)


def test_advice_before_a_throw():
    rules = preset("wikipedia")
    game = Game(["a", "b"], rules)
    start = advise(game.state)
    assert start.action == Action.throw() and start.expected_if_bank is None
    assert start.expected == pytest.approx(expected_turn(rules, Situation(entry=550)))
    game.throw([1, 1, 1, 5, 5, 2])
    state = game.keep([1, 1, 1, 5, 5])
    advice = advise(state)
    assert advice.expected_if_bank == 1100 and advice.action == Action.bank()
    assert advice.farkle_chance == odds(rules)[0].farkle


def test_piggyback_is_advised_when_it_is_worth_more_than_a_fresh_turn():
    rules = preset("wikipedia")
    game = Game(["a", "b"], rules)
    game.throw([1, 1, 1, 5, 2, 3])
    game.bank([1, 1, 1, 5])  # a is on the board; b is not, so b may not take over
    assert advise(game.state).expected_if_piggyback is None
    game.throw([5, 5, 5, 1, 2, 3])
    game.keep([5, 5, 5, 1])
    game.bank()  # b banks 600 with two dice left
    game.throw([5, 2, 3, 4, 6, 6])
    game.keep([5])
    game.throw([1, 5, 2, 3, 4])
    game.bank([1, 5])  # a banks 200 with three dice left
    state = game.state
    assert state.can_piggyback and state.leftover == (3, 200)
    advice = advise(state)
    fresh = expected_turn(rules)
    taking = table(rules).roll(200, 3)
    assert advice.expected_if_piggyback == pytest.approx(taking)
    assert advice.action == (Action.piggyback() if taking > fresh else Action.throw())


def _random_legal(state, rng):
    if state.phase == "keep":
        return Action.keep(rng.choice(state.keeps).dice)
    choices = [Action.throw()]
    if state.can_bank:
        choices.append(Action.bank())
    if state.can_piggyback:
        choices.append(Action.piggyback())
    return rng.choice(choices)


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**6))
def test_advice_never_recommends_an_illegal_action(name, seed):
    # Random legal play reaches odd states (off the board with big totals, leftovers, penalties);
    # in each, the advised action is tried on a copy of the game.
    rng = random.Random(seed)
    rules = preset(name).replace(target=3000)
    game = Game(["a", "b", "c"], rules)
    for _ in range(120):
        state = game.state
        if state.finished:
            break
        advice = advise(state)
        trial = Game(game.players, rules, game.events)
        try:
            perform(trial, advice.action, rng)
            if advice.action.kind == "keep" and advice.then == Action.bank():
                trial.bank()
        except IllegalAction as exc:
            pytest.fail(f"{advice!r} in {state!r}: {exc}")
        if advice.action.kind == "keep":
            assert is_legal_keep(advice.action.dice, state.throw, rules)
        perform(game, _random_legal(state, rng), rng)


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**6), total=st.integers(0, 400).map(lambda k: 10 * k)
)
def test_advised_keep_is_legal_and_its_bank_allowed(name, seed, total):
    rules = preset(name)
    rng = random.Random(seed)
    throw = roll(rng, rng.randint(1, rules.dice))
    situation = Situation(entry=rng.choice([0, rules.entry]))
    advice = advise(throw, rules, turn_total=total, situation=situation)
    if not legal_keeps(throw, rules):
        assert advice.keeps == ()
        return
    assert is_legal_keep(advice.action.dice, throw, rules)
    best = next(k for k in advice.keeps if k.best)
    after = total + best.keep.points
    hot = len(best.keep.dice) == len(throw)
    if advice.then == Action.bank():
        assert after >= situation.entry and not (hot and rules.hot_dice == "must-roll")


def test_advice_to_dict_has_the_documented_fields():
    data = advise([1, 5, 5, 2, 3, 3], preset("zilch"), turn_total=250).to_dict()
    assert set(data) >= {"keeps", "advice"}
    for keep in data["keeps"]:
        assert set(keep) >= {"dice", "points", "farkle_next", "expected_if_roll", "expected_if_bank", "best"}
    assert data["advice"]["action"] == "keep" and data["advice"]["then"] in ("throw", "bank")
    assert repr(advise([1, 5], preset("zilch"))).startswith("Advice(Action.keep([1, 5]), then=Action.throw()")


def test_table_building_benchmark(benchmark):
    rules = preset("farkle")
    built = benchmark(build_table, rules, ON_BOARD, 0)
    assert built.roll(0, 6) == pytest.approx(expected_turn(rules))


def test_dashboard_lookup_benchmark(benchmark):
    # The dashboard asks for advice on a throw waiting for a keep; tables are already cached.
    game = Game(["a", "b"], preset("farkle"))
    game.throw([1, 1, 5, 2, 3, 3])
    game.keep([1])
    state = game.throw([1, 5, 5, 3, 4])
    advise(state)
    advice = benchmark(advise, state)
    assert advice.action.kind == "keep"


def run_cli(capsys, *argv):
    from dicekeeper.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.strip()], err


def test_advise_command_prints_the_advice(capsys):
    code, [obj], err = run_cli(
        capsys, "advise", "--rules", "farkle", "--turn-total", "300", "1", "1", "5", "2", "3", "4"
    )
    assert code == 0 and err == ""
    assert obj == json.loads(json.dumps(advise([1, 1, 5, 2, 3, 4], preset("farkle"), turn_total=300).to_dict()))
    assert obj["advice"]["action"] == "keep" and sum(k["best"] for k in obj["keeps"]) == 1


def test_advise_command_situation_flags(capsys):
    _, [free], _ = run_cli(capsys, "advise", "--rules", "farkle", "1", "5", "2", "3", "4", "6")
    _, [off], _ = run_cli(
        capsys, "advise", "--rules", "farkle", "--off-board", "--farkles", "2", "1", "5", "2", "3", "4", "6"
    )
    assert off == json.loads(
        json.dumps(advise([1, 5, 2, 3, 4, 6], preset("farkle"), situation=Situation(500, 1000)).to_dict())
    )
    assert all(k["expected_if_bank"] is None for k in off["keeps"])
    assert max(k["expected_if_roll"] for k in off["keeps"]) < max(k["expected_if_roll"] for k in free["keeps"])


@pytest.mark.parametrize(
    "argv, message",
    [
        (("1", "7"), "from 1 to 6"),
        ((), "give the faces"),
        (("--turn-total", "-5", "1"), "--turn-total must be a whole number >= 0"),
        (("--farkles", "two", "1"), "--farkles must be"),
        (("--rules", "nope", "1"), "unknown rules"),
        (("--set", "entry=lots", "1"), "entry must be a whole number"),
    ],
)
def test_advise_command_rejects_bad_input(capsys, argv, message):
    code, lines, err = run_cli(capsys, "advise", *argv)
    assert code == 2 and lines == [] and message in err and len(err.strip().splitlines()) == 1

"""Rules of the five texts that the worked examples do not reach: boxcar, passing, sweeps, ties."""

import pytest

from scorekeeper import Game, IllegalBank, IllegalKeep, IllegalPiggyback, Keep, house_rule, preset, score

ALTERNATIVE = preset("wikipedia").with_settings(house_rule("alternative-sets")).replace(entry=0)


def test_alternative_set_small_straight_and_full_house():
    assert score([1, 2, 3, 4, 5], ALTERNATIVE) == 1000
    assert score([2, 3, 4, 5, 6], ALTERNATIVE) == 1000
    assert score([3, 3, 3, 6, 6], ALTERNATIVE) == 750
    assert score([2, 3, 4, 5, 6], preset("wikipedia")) is None


def test_boxcar_builds_three_pairs_over_dice_set_aside():
    game = Game(["A"], ALTERNATIVE)
    game.throw([1, 5, 2, 3, 4, 6])
    game.keep([1, 5])
    state = game.throw([1, 5, 3, 3])
    assert state.keeps[0] == Keep((1, 3, 3, 5), 600)  # 750 replaces the 150 set aside
    state = game.keep([1, 3, 3, 5])
    assert (state.turn_total, state.hot_dice, state.dice_left) == (750, True, 6)


def test_boxcar_saves_a_throw_that_would_farkle():
    game = Game(["A"], ALTERNATIVE)
    game.throw([1, 1, 5, 5, 2, 3])
    game.keep([1, 1, 5, 5])
    state = game.throw([4, 4])
    assert state.phase == "keep" and [k.points for k in state.keeps] == [450]
    assert game.keep([4, 4]).turn_total == 750
    plain = Game(["A"], preset("wikipedia").replace(entry=0))
    plain.throw([1, 1, 5, 5, 2, 3])
    plain.keep([1, 1, 5, 5])
    assert plain.throw([4, 4]).turn_number == 2  # a farkle without the boxcar


def test_boxcar_is_only_taken_where_it_is_worth_more_and_not_after_a_piggyback():
    game = Game(["A"], ALTERNATIVE)
    game.throw([1, 5, 2, 3, 4, 6])
    game.keep([1, 5])
    game.throw([2, 2, 3, 5])
    with pytest.raises(IllegalKeep):
        game.keep([2, 2, 3, 5])  # with the 1 and 5 set aside these are not three pairs
    four = Game(["A"], ALTERNATIVE.replace(four_and_pair=True))
    four.throw([1, 2, 3, 4, 6, 6])
    four.keep([1])
    state = four.throw([1, 1, 1, 5, 5])  # with the 1 set aside: four 1s and a pair, a boxcar of 650
    assert state.keeps[0] == Keep((1, 1, 1, 5, 5), 1100)  # the ordinary value is worth more
    assert four.keep([1, 1, 1, 5, 5]).turn_total == 1200
    rules = ALTERNATIVE.replace(piggyback=True)
    game = Game(["A", "B"], rules)
    game.throw([1, 1, 5, 5, 2, 3])
    game.keep([1, 1, 5, 5])
    game.bank()
    game.piggyback()
    assert game.throw([4, 4]).turn_number == 3  # B did not set those dice aside: no boxcar


def test_zilch_pass_scores_the_running_total_and_the_scoring_dice_of_the_throw():
    rules = preset("zilch").replace(entry=0)
    game = Game(["A", "B"], rules)
    state = game.throw([1, 5, 2, 3, 4, 4])
    assert state.phase == "keep" and state.can_bank
    state = game.bank()
    assert state.players[0].score == 150 and state.current == 1
    assert game.turns()[0].throws[0].kept == (1, 5)
    assert state.leftover == (4, 150)  # the dice that did not score go to the next player


def test_zilch_pass_needs_the_entry_with_the_throw_and_cannot_skip_rounding_the_horn():
    game = Game(["A"], preset("zilch"))
    game.throw([1, 5, 2, 3, 4, 4])
    with pytest.raises(IllegalBank, match="500"):
        game.bank()
    game = Game(["A"], preset("zilch").replace(entry=0))
    game.throw([1, 2, 3, 4, 5, 6])  # every die scores: rounding the horn
    with pytest.raises(IllegalBank, match="thrown again"):
        game.bank()
    assert not game.state.can_bank


def test_without_pass_scoring_the_keep_comes_first():
    game = Game(["A"], preset("wikipedia").replace(entry=0))
    game.throw([1, 5, 2, 3, 4, 4])
    with pytest.raises(IllegalBank, match="set aside"):
        game.bank()


def test_zilch_never_hands_six_dice_to_the_next_player():
    game = Game(["A", "B"], preset("zilch").replace(entry=0))
    game.throw([1, 1, 1, 5, 5, 5])
    state = game.keep([1, 1, 1, 5, 5, 5])
    assert state.hot_dice and not state.can_bank  # the horn is rounded: all six are thrown again
    state = game.throw([1, 2, 3, 4, 6, 6])
    state = game.bank()
    assert state.leftover == (5, 1600)


@pytest.mark.parametrize("sweep, expected", [(True, (6, 1500)), (False, None)])
def test_piggyback_after_a_sweep_follows_the_knob(sweep, expected):
    rules = preset("wikipedia").replace(entry=0, piggyback_sweep=sweep)
    game = Game(["A", "B"], rules)
    game.throw([1, 1, 1, 2, 3, 4])
    game.keep([1, 1, 1])
    game.throw([5, 5, 5])
    game.keep([5, 5, 5])  # sweep: 1500
    state = game.bank()
    assert state.leftover == expected
    if expected is None:
        with pytest.raises(IllegalPiggyback):
            game.piggyback()
    else:
        assert game.piggyback().dice_left == 6


def test_amish_takes_over_only_the_remaining_dice():
    rules = preset("family").with_settings(house_rule("amish"))
    game = Game(["A", "B"], rules)
    game.throw([1, 5, 2, 3, 4])
    game.keep([1, 5])
    assert game.bank().leftover == (3, 150)
    game.throw([2, 3, 4, 6, 6])
    game.throw([1, 1, 1, 5, 5])
    game.keep([1, 1, 1, 5, 5])
    assert game.bank().leftover is None

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper import PRESETS, Game, GameOver, IllegalBank, preset
from scorekeeper.players import (
    Endgame,
    MaxExpected,
    Threshold,
    UnknownStrategy,
    choose_action,
    computer_strategy,
    perform,
    roll,
    strategy_by_name,
)
from scorekeeper.strategy import Action, advise


@pytest.mark.parametrize(
    "name, expected",
    [
        ("maxexp", MaxExpected()),
        ("*maxexp", MaxExpected()),
        (" MaxExp ", MaxExpected()),
        ("threshold300", Threshold(300)),
        ("*threshold1000", Threshold(1000)),
        ("endgame", Endgame()),
        ("endgame2000", Endgame(2000)),
    ],
)
def test_strategies_by_name(name, expected):
    strategy = strategy_by_name(name)
    assert strategy == expected
    assert strategy_by_name(strategy.name) == strategy


@pytest.mark.parametrize("name", ["", "threshold", "threshold0", "threshold-5", "maximum", "random", None])
def test_unknown_strategy_lists_the_known_ones(name):
    with pytest.raises(UnknownStrategy, match=r"known: maxexp, endgame, endgame<N>, threshold<N>"):
        strategy_by_name(name)


def test_reprs_are_readable():
    assert repr(Threshold(300)) == "Threshold(points=300)"
    assert repr(Action.keep([5, 1])) == "Action.keep([1, 5])" and repr(Action.bank()) == "Action.bank()"
    assert Action.keep([5, 1]).to_dict() == {"action": "keep", "dice": [1, 5]}


def test_max_expected_follows_the_advice():
    game = Game(["a", "b"], preset("farkle"))
    state = game.throw([1, 1, 5, 2, 3, 4])
    assert choose_action(MaxExpected(), state, random.Random(0)) == advise(state).action == Action.keep([1])


def test_threshold_keeps_the_most_points_and_banks_at_its_threshold():
    rules = preset("family")
    game = Game(["a", "b"], rules)
    rng = random.Random(0)
    state = game.throw([1, 1, 5, 2, 3])
    assert choose_action(Threshold(300), state, rng) == Action.keep([1, 1, 5])
    state = game.keep([1, 1])
    assert choose_action(Threshold(300), state, rng) == Action.throw()
    assert choose_action(Threshold(200), state, rng) == Action.bank()


def test_threshold_rolls_on_where_it_may_not_bank():
    rules = preset("farkle")  # entry 500
    game = Game(["a", "b"], rules)
    game.throw([1, 1, 1, 2, 3, 4])
    state = game.keep([1, 1, 1])
    assert state.turn_total == 1000 and state.can_bank
    assert choose_action(Threshold(300), state, random.Random(0)) == Action.bank()
    game = Game(["a", "b"], rules)
    game.throw([1, 5, 2, 3, 4, 6])
    state = game.keep([1, 5])
    assert not state.can_bank  # below the entry of 500
    assert choose_action(Threshold(100), state, random.Random(0)) == Action.throw()


def test_threshold_never_takes_over_dice():
    game = Game(["a", "b"], preset("wikipedia").replace(entry=0))
    game.throw([1, 1, 1, 5, 2, 3])
    state = game.bank([1, 1, 1])
    assert state.can_piggyback
    assert choose_action(Threshold(300), state, random.Random(0)) == Action.throw()


def _play_to(rules, scores_wanted):
    """A two-player game where a and b have banked the given scores with 1000-point turns."""
    game = Game(["a", "b"], rules)
    while (game.state.players[0].score, game.state.players[1].score) != scores_wanted:
        player = game.state.current
        if game.state.players[player].score < scores_wanted[player]:
            game.throw([1, 1, 1, 2, 3, 4][: rules.dice])
            game.bank([1, 1, 1])
        else:
            game.throw([2, 3, 4, 6, 6, 2][: rules.dice])  # a farkle passes the turn
    return game


def test_endgame_banks_when_that_wins_the_game():
    rules = preset("family").replace(target=9100)  # the first to reach the target wins at once
    game = _play_to(rules, (9000, 0))
    game.throw([2, 3, 4, 6, 6])  # b farkles
    game.throw([1, 2, 3, 4, 6])
    state = game.keep([1])
    assert MaxExpected().act(state, random.Random(0)) == Action.throw()  # 100 with four dice: roll on
    assert choose_action(Endgame(), state, random.Random(0)) == Action.bank()


def test_endgame_will_not_bank_a_losing_total_in_the_final_round():
    rules = preset("zilch").replace(entry=0)  # last chance
    game = _play_to(rules, (10000, 0))
    # zilch: reaching 10000 is not enough, the target is strict; one more bank for a.
    while game.state.current != 0:
        game.throw([2, 3, 4, 6, 6, 2])
    game.throw([1, 1, 1, 2, 3, 4])
    state = game.bank([1, 1, 1])
    assert state.final_round and state.current == 1
    game.throw([1, 1, 1, 5, 2, 3])
    state = game.keep([1, 1, 1, 5])
    assert MaxExpected().act(state, random.Random(0)) == Action.bank()
    assert choose_action(Endgame(), state, random.Random(0)) == Action.throw()


def test_endgame_catches_up_with_a_leader_close_to_the_target():
    rules = preset("family")
    game = _play_to(rules, (9000, 5000))
    while game.state.current != 1:
        game.throw([2, 3, 4, 6, 6])
    game.throw([1, 1, 1, 2, 3])
    state = game.keep([1, 1, 1])
    assert MaxExpected().act(state, random.Random(0)) == Action.bank()
    assert choose_action(Endgame(), state, random.Random(0)) == Action.throw()
    assert choose_action(Endgame(near=500), state, random.Random(0)) == Action.bank()


def test_a_finished_game_has_no_next_action():
    game = Game(["a", "b"], preset("family").replace(target=100))
    game.throw([1, 2, 3, 4, 6])
    state = game.bank([1])
    with pytest.raises(GameOver, match="a won"):
        choose_action(MaxExpected(), state, random.Random(0))


def test_perform_rolls_the_dice_in_play_and_refuses_an_illegal_action():
    rng = random.Random(3)
    assert all(len(roll(rng, n)) == n and set(roll(rng, n)) <= set(range(1, 7)) for n in range(1, 7))
    game = Game(["a", "b"], preset("farkle"))
    state = perform(game, Action.throw(), rng)
    assert state.throw is not None and len(state.throw) == 6
    with pytest.raises(IllegalBank):
        perform(game, Action.bank(), rng)
    assert game.state == state


@settings(max_examples=12, deadline=None)
@given(
    name=st.sampled_from(sorted(PRESETS)),
    seed=st.integers(0, 10**6),
    lineup=st.permutations(["maxexp", "threshold350", "endgame"]),
)
def test_computer_players_only_make_legal_moves(name, seed, lineup):
    # The game raises on any illegal action, so finishing the game is the test.
    rules = preset(name).replace(target=4000)
    strategies = [strategy_by_name(n) for n in lineup]
    game = Game(list(lineup), rules)
    rng = random.Random(seed)
    state = game.state
    for _ in range(5000):
        if state.finished:
            break
        state = perform(game, choose_action(strategies[state.current], state, rng), rng)
    assert state.finished and state.winner is not None


def test_endgame_plays_for_points_near_the_end_when_others_get_a_last_chance():
    rules = preset("farkle").replace(entry=0, three_farkle_penalty=0)  # last chance
    game = _play_to(rules, (9000, 5000))
    while game.state.current != 1:
        game.throw([2, 3, 4, 6, 6, 2])
    game.throw([1, 1, 1, 2, 3, 4])
    state = game.keep([1, 1, 1])
    assert not state.final_round
    assert (
        choose_action(Endgame(), state, random.Random(0)) == MaxExpected().act(state, random.Random(0)) == Action.bank()
    )


@pytest.mark.parametrize(
    "player, expected",
    [
        ("Ann", None),
        ("*threshold300", Threshold(300)),
        ("*maxexp", MaxExpected()),
        ("*Hal", Endgame()),
    ],
)
def test_computer_players_are_named_with_a_star(player, expected):
    assert computer_strategy(player) == expected


def test_a_computer_rolls_one_die_in_the_roll_off():
    game = Game(["*Hal", "Ann"], preset("family"))
    game.roll_for_start(3)  # Hal rolled by hand; Ann's roll is next
    rng = random.Random(4)
    while game.state.phase == "roll-off":
        state = perform(game, choose_action(strategy_by_name("maxexp"), game.state, rng), rng)
    assert state.roll_off.decided and state.phase == "throw"
    assert all(len(e.to_dict()) == 2 and e.kind == "start-roll" for e in game.events)

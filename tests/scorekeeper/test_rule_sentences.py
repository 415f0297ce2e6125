"""One test per rule sentence of the five texts that no worked example already checks.

docs/rules-traceability.md maps each sentence to the test that checks it.
"""

import pytest

from scorekeeper import Game, IllegalBank, house_rule, legal_keeps, preset, score
from scorekeeper.sources import LINES, knob_source


@pytest.mark.parametrize(
    "name, knob, value",
    [
        ("wikipedia", "dice", 6),
        ("wikipedia", "entry", 550),
        ("wikipedia", "target", 10000),
        ("wikipedia", "finish", "last-chance"),
        ("wikipedia", "hot_dice", "may-roll"),
        ("wikipedia", "piggyback", True),
        ("wikipedia", "piggyback_sweep", True),
        ("family", "dice", 5),
        ("family", "entry", 0),
        ("family", "target", 10000),
        ("family", "finish", "immediate"),
        ("family", "hot_dice", "may-roll"),
        ("family", "starts", "highest-roll"),
        ("farke", "dice", 6),
        ("farke", "entry", 750),
        ("zilch", "dice", 6),
        ("zilch", "target_strict", True),
        ("zilch", "finish", "last-chance"),
        ("zilch", "hot_dice", "must-roll"),
        ("zilch", "entry", 500),
        ("zilch", "piggyback", True),
        ("zilch", "pass_scores_throw", True),
        ("tenthousand", "dice", 6),
        ("tenthousand", "entry", 500),
        ("tenthousand", "hot_dice", "must-roll"),
        ("tenthousand", "finish", "complete-round"),
        ("tenthousand", "tie_replay", "tied-only"),
        ("tenthousand", "target_strict", False),
        ("stone", "dice", 6),
        ("stone", "kinds", "triples"),
        ("stone", "hot_dice", "may-roll"),
        ("stone", "finish", "immediate"),
        ("stone", "target", 10000),
    ],
)
def test_preset_knob_states_its_text(name, knob, value):
    rules = preset(name)
    assert getattr(rules, knob) == value
    assert knob in LINES[name] and knob_source(rules, knob).endswith(LINES[name][knob])


def test_encyclopedia_entry_is_550_over_a_turn_not_one_roll():
    game = Game(["A"], preset("wikipedia"))
    game.throw([1, 1, 5, 2, 3, 4])
    game.keep([1, 1, 5])
    with pytest.raises(IllegalBank, match="550"):
        game.bank()
    game.throw([5, 5, 5])
    state = game.bank([5, 5, 5])
    assert state.players[0].score == 750 and state.players[0].on_board


def test_encyclopedia_seven_hundred_with_two_dice_example():
    game = Game(["P1", "P2"], preset("wikipedia").replace(entry=0))
    game.throw([6, 1, 3, 4, 2, 2])
    game.keep([1])
    game.throw([6, 6, 6, 3, 4])
    game.keep([6, 6, 6])  # 700 with two dice left
    state = game.bank()
    assert state.players[0].score == 700 and state.leftover == (2, 700)
    game.piggyback()
    game.throw([1, 4])
    state = game.bank([1])
    assert [p.score for p in state.players] == [700, 800]


def test_family_one_player_starts_at_zero():
    state = Game(["Solo"], preset("family")).state
    assert [p.score for p in state.players] == [0] and state.current == 0


def test_family_all_five_dice_set_aside_may_roll_all_five_again():
    game = Game(["A"], preset("family"))
    game.throw([1, 1, 1, 5, 5])
    state = game.keep([1, 1, 1, 5, 5])
    assert state.hot_dice and state.dice_left == 5 and state.can_bank
    assert game.throw([1, 2, 3, 4, 6]).dice_left == 5


def test_family_scoring_lines():
    rules = preset("family")
    assert [score([1], rules), score([5], rules)] == [100, 50]
    assert [score([f] * 3, rules) for f in range(1, 7)] == [1000, 200, 300, 400, 500, 600]
    assert score([4] * 4, rules) == 800 and score([4] * 5, rules) == 1600


def test_farke_six_dice_lines():
    rules = preset("farke")
    assert score([2] * 6, rules) == 1600  # six of a kind doubles five of a kind
    assert legal_keeps([1] * 6, rules)[0].instant_win
    assert score([2, 2, 3, 3, 6, 6], rules) == 750 and score([1, 2, 3, 4, 5, 6], rules) == 1500


def test_family_first_to_the_target_wins_at_once():
    game = Game(["A", "B"], preset("family").replace(target=1000))
    game.throw([1, 1, 1, 2, 3])
    state = game.bank([1, 1, 1])
    assert state.finished and state.winner_name == "A"


def test_greed_no_stopping_short_of_1000_before_entering():
    game = Game(["A"], preset("family").with_settings(house_rule("greed")))
    game.throw([1, 5, 5, 2, 3])
    game.keep([1])
    with pytest.raises(IllegalBank, match="1000"):
        game.bank()
    game.throw([1, 1, 1, 5])
    state = game.bank([1, 1, 1, 5])
    assert state.players[0].on_board and state.players[0].score == 1150
    game.throw([5, 2, 3, 4, 6])
    assert game.bank([5]).players[0].score == 1200  # once entered, any total may be banked


@pytest.mark.parametrize(
    "faces, points",
    [
        ([1], 100),
        ([5], 50),
        ([1, 2, 3, 4, 5, 6], 3000),
        ([2, 2, 4, 4, 6, 6], 1000),
        ([4, 4, 4], 400),
        ([1, 1, 1], 1000),
        ([4, 4, 4, 4], 800),
        ([4, 4, 4, 4, 4], 1600),
        ([4, 4, 4, 4, 4, 4], 3200),
    ],
)
def test_zilch_scoring_lines(faces, points):
    assert score(faces, preset("zilch")) == points


def test_zilch_loses_the_turn_not_the_game():
    game = Game(["A", "B"], preset("zilch").replace(entry=0))
    game.throw([1, 1, 1, 2, 3, 4])
    game.bank([1, 1, 1])
    game.throw([2, 3, 4, 6, 6, 2])
    game.throw([5, 2, 3, 4, 6, 6])
    game.keep([5])
    state = game.throw([2, 3, 4, 6, 2])  # a zilch: the 50 of this turn is lost
    assert state.players[0].score == 1000 and state.current == 1 and game.turns()[-1].result == "farkle"


def test_zilch_passing_example_two_dice_that_did_not_score():
    game = Game(["A", "B"], preset("zilch").replace(entry=0))
    game.throw([1, 1, 1, 2, 3, 6])
    game.keep([1, 1, 1])
    state = game.throw([2, 3, 5])
    state = game.bank()  # the pass takes the 5 with it; the 2 and the 3 did not score
    assert state.players[0].score == 1050 and state.leftover == (2, 1050)
    fresh = Game(["A", "B"], preset("zilch").replace(entry=0), game.events)
    fresh.throw([5, 2, 3, 4, 6, 6])
    assert fresh.bank([5]).players[1].score == 50  # rolling all six starts over from zero
    game.piggyback()
    game.throw([1, 4])
    state = game.bank([1])
    assert [p.score for p in state.players] == [1050, 1150]  # taking over leaves A's score alone


def test_tenthousand_table_of_dice_obtained_at_once():
    rules = preset("tenthousand")
    table = {
        1: [100, 200, 1000, 2000, 4000, 10000],
        2: [0, 0, 200, 400, 800, 2000],
        3: [0, 0, 300, 600, 1200, 3000],
        4: [0, 0, 400, 800, 1600, 4000],
        5: [50, 100, 500, 1000, 2000, 5000],
        6: [0, 0, 600, 1200, 2400, 6000],
    }
    for face, row in table.items():
        assert [score([face] * n, rules) or 0 for n in range(1, 7)] == row


def test_tenthousand_points_of_a_shot_add_up_and_may_reroll_scoring_dice():
    game = Game(["A"], preset("tenthousand"))
    game.throw([5, 6, 3, 3, 4, 3])
    game.keep([3, 3, 3])  # the 5 is thrown again
    state = game.throw([5, 5, 2])
    assert state.turn_total == 300 and state.dice_left == 3
    assert game.keep([5, 5]).turn_total == 400


def test_complete_round_highest_score_wins():
    game = Game(["A", "B", "C"], preset("tenthousand").replace(target=1000, entry=0))
    game.throw([1, 1, 1, 2, 3, 4])
    game.bank([1, 1, 1])  # A 1000
    game.throw([1, 1, 1, 5, 3, 4])
    game.bank([1, 1, 1, 5])  # B 1050
    state = game.throw([2, 3, 4, 6, 6, 2])  # C ends the round
    assert state.finished and state.winner_name == "B"


def test_stone_each_throw_counts_once():
    game = Game(["A"], preset("stone"))
    game.throw([1, 2, 3, 4, 6, 6])
    game.keep([1])
    game.throw([1, 1, 2, 3, 4])
    state = game.keep([1, 1])
    assert state.turn_total == 300


def test_stone_play_goes_on_until_a_player_reaches_the_target():
    game = Game(["A", "B"], preset("stone").replace(target=1500))
    game.throw([1, 1, 1, 2, 3, 4])
    assert not game.bank([1, 1, 1]).finished
    game.throw([2, 3, 4, 6, 6, 2])
    game.throw([5, 5, 5, 2, 3, 4])
    state = game.bank([5, 5, 5])
    assert state.finished and state.players[0].score == 1500

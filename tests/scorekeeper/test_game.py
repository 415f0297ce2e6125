import pytest

from scorekeeper import (
    DiceError,
    Game,
    GameOver,
    IllegalBank,
    IllegalKeep,
    IllegalPiggyback,
    IllegalThrow,
    NothingToUndo,
    preset,
)


def bank_turn(game, faces, keep=None):
    """Throw all dice in play, keep `keep` (default: the best keep) and bank."""
    state = game.throw(faces)
    game.bank(keep if keep is not None else state.keeps[0].dice)


def farkle_turn(game):
    game.throw(
        [2, 3, 4, 6, 6, 2][: game.state.dice_left]
        if game.state.dice_left == 6
        else [2, 3, 4, 6, 2][: game.state.dice_left]
    )


def test_stone_sample_round():
    game = Game(["Ann", "Bob"], preset("stone"))
    game.throw([1, 3, 3, 4, 4, 6])
    game.keep([1])
    game.throw([2, 2, 2, 3, 4])
    game.keep([2, 2, 2])
    game.throw([5, 5])
    game.keep([5, 5])
    state = game.state
    assert (state.turn_total, state.dice_left, state.hot_dice) == (400, 6, True)
    state = game.throw([2, 2, 3, 4, 4, 6])
    assert state.current == 1 and state.players[0].score == 0 and state.last_farkle == (0, (2, 2, 3, 4, 4, 6))
    game.throw([5, 5, 5, 2, 4, 4])
    game.keep([5, 5, 5])
    game.throw([1, 2, 3])
    state = game.bank([1])
    assert [p.score for p in state.players] == [0, 600]
    assert [t.result for t in game.turns()] == ["farkle", "bank"]


def test_family_sample_turns():
    game = Game(["P1", "P2"], preset("family"))
    game.throw([1, 5, 5, 2, 6])
    game.keep([1, 5, 5])
    game.throw([1, 4])
    state = game.bank([1])
    assert state.players[0].score == 300
    game.throw([2, 2, 2, 2, 3])
    game.keep([2, 2, 2, 2])
    assert game.state.turn_total == 400
    state = game.throw([2])
    assert state.players[1].score == 0 and state.current == 0


def test_sets_only_form_within_one_throw():
    game = Game(["A"], preset("wikipedia").replace(entry=0))
    game.throw([5, 5, 5, 2, 3, 4])
    game.keep([5, 5, 5])
    game.throw([5, 2, 3])
    game.keep([5])
    assert game.state.turn_total == 550


def test_illegal_actions_raise_and_change_nothing():
    game = Game(["A", "B"], preset("farkle"))
    with pytest.raises(IllegalKeep):
        game.keep([1])
    with pytest.raises(IllegalBank):
        game.bank()
    with pytest.raises(IllegalThrow, match="6 are in play"):
        game.throw([1, 2, 3])
    with pytest.raises(DiceError):
        game.throw([1, 2, 3, 4, 5, 9])
    game.throw([1, 5, 2, 3, 4, 4])
    before = (game.state, game.version)
    with pytest.raises(IllegalThrow, match="before throwing again"):
        game.throw([1, 1, 1, 1, 1, 1])
    with pytest.raises(IllegalKeep, match="not all in the throw"):
        game.keep([1, 1])
    with pytest.raises(IllegalKeep, match="do not all score"):
        game.keep([1, 2])
    with pytest.raises(IllegalBank, match="before banking"):
        game.bank()
    game.keep([1, 5])
    with pytest.raises(IllegalBank, match="needs 500"):
        game.bank()
    assert game.version == before[1] + 1


def test_entry_then_free_banking():
    game = Game(["A"], preset("zilch"))
    game.throw([1, 1, 1, 2, 3, 4])
    game.keep([1, 1, 1])
    assert game.state.can_bank
    game.bank()
    assert game.state.players[0].on_board
    game.throw([5, 2, 3, 4, 6, 6])
    state = game.bank([5])
    assert state.players[0].score == 1050


def test_hot_dice_must_roll_versus_may_roll():
    must = Game(["A"], preset("tenthousand"))
    must.throw([1, 1, 5, 5, 6, 6])
    must.keep([1, 1, 5, 5, 6, 6])
    assert must.state.hot_dice and must.state.dice_left == 6
    with pytest.raises(IllegalBank, match="hot dice"):
        must.bank()
    may = Game(["A"], preset("stone"))
    may.throw([1, 1, 5, 5, 6, 6])
    may.keep([1, 1, 5, 5, 6, 6])
    assert may.bank().players[0].score == 1500


def test_three_farkles_in_a_row_cost_the_penalty():
    game = Game(["A", "B"], preset("farkle").replace(entry=0))
    bank_turn(game, [1, 1, 1, 2, 3, 4])  # A: 1000
    game.throw([2, 3, 4, 6, 6, 2])  # B farkles
    for turn in range(3):
        game.throw([2, 3, 4, 6, 6, 2])  # A farkles
        if turn < 2:
            assert game.state.players[0].farkles_in_a_row == turn + 1
        game.throw([2, 3, 4, 6, 6, 2])  # B farkles too
    assert game.state.players[0].score == 0
    assert game.state.players[0].farkles_in_a_row == 0
    assert game.turns()[-2].penalty == 1000


def test_piggyback_takes_over_dice_and_total():
    game = Game(["A", "B"], preset("wikipedia").replace(entry=0))
    game.throw([1, 5, 2, 3, 4, 6])
    game.keep([1, 5])
    game.throw([5, 2, 3, 4])
    game.bank([5])  # A banks 200 with 3 dice left
    state = game.state
    assert state.leftover == (3, 200) and state.can_piggyback
    state = game.piggyback()
    assert (state.turn_total, state.dice_left) == (200, 3)
    with pytest.raises(IllegalBank):
        game.bank()  # must throw before banking inherited points
    game.throw([1, 2, 3])
    state = game.bank([1])
    assert [p.score for p in state.players] == [200, 300]
    assert game.turns()[-1].piggyback == 200


def test_piggyback_refused_where_not_allowed():
    game = Game(["A", "B"], preset("stone"))
    bank_turn(game, [1, 2, 3, 4, 6, 6])
    with pytest.raises(IllegalPiggyback, match="do not allow"):
        game.piggyback()
    wiki = Game(["A", "B"], preset("wikipedia"))
    wiki.throw([1, 1, 1, 2, 3, 4])
    wiki.bank([1, 1, 1])
    with pytest.raises(IllegalPiggyback, match="on the board"):
        wiki.piggyback()  # B is not on the board yet
    wiki.throw([2, 3, 4, 6, 6, 2])  # B farkles
    with pytest.raises(IllegalPiggyback, match="left no dice"):
        wiki.piggyback()


def test_immediate_finish_and_game_over():
    game = Game(["A", "B"], preset("stone").replace(target=1000))
    bank_turn(game, [1, 1, 1, 2, 3, 4])
    state = game.state
    assert state.finished and state.winner_name == "A"
    with pytest.raises(GameOver):
        game.throw([1, 2, 3, 4, 5, 6])
    assert game.undo().finished is False


def test_instant_win_ends_the_game():
    game = Game(["A", "B"], preset("wikipedia"))
    state = game.throw([4, 4, 4, 4, 4, 4])
    assert state.keeps[0].instant_win
    state = game.keep([4, 4, 4, 4, 4, 4])
    assert state.finished and state.winner_name == "A"


def test_last_chance_others_get_one_turn_and_can_top():
    rules = preset("wikipedia").replace(entry=0, target=1000)
    game = Game(["A", "B", "C"], rules)
    bank_turn(game, [1, 1, 1, 2, 3, 4])  # A reaches 1000
    assert game.state.final_round and not game.state.finished
    bank_turn(game, [1, 1, 1, 1, 3, 4])  # B 2000
    bank_turn(game, [5, 2, 3, 4, 6, 6])  # C 50
    state = game.state
    assert state.finished and state.winner_name == "B"


def test_last_chance_tie_goes_to_who_reached_it_first():
    rules = preset("wikipedia").replace(entry=0, target=1000)
    game = Game(["A", "B"], rules)
    bank_turn(game, [1, 1, 1, 2, 3, 4])  # A 1000
    bank_turn(game, [1, 1, 1, 2, 3, 4])  # B ties at 1000
    assert game.state.finished and game.state.winner_name == "A"


def test_target_strict_needs_more_than_the_target():
    rules = preset("zilch").replace(target=1000)
    game = Game(["A", "B"], rules)
    bank_turn(game, [1, 1, 1, 2, 3, 4])  # exactly 1000: not over
    assert not game.state.final_round
    game.throw([2, 3, 4, 6, 6, 2])
    bank_turn(game, [1, 1, 1, 5, 3, 4])  # 1050 > 1000
    assert game.state.final_round


def test_tie_replays_full_rounds_of_everyone_under_the_everyone_reading():
    rules = preset("tenthousand").replace(target=1000, entry=0, tie_replay="everyone")
    game = Game(["A", "B", "C"], rules)
    game.throw([2, 3, 4, 6, 6, 2])  # A farkles
    bank_turn(game, [1, 1, 1, 2, 3, 4])  # B 1000: round goes on
    assert game.state.final_round and not game.state.finished
    bank_turn(game, [1, 1, 1, 2, 3, 4])  # C 1000: tie, end of round
    assert not game.state.finished and game.state.current == 0
    game.throw([2, 3, 4, 6, 6, 2])  # A
    game.throw([2, 3, 4, 6, 6, 2])  # B farkles
    bank_turn(game, [5, 2, 3, 4, 6, 6])  # C 1050
    state = game.state
    assert state.finished and state.winner_name == "C"


def test_tie_replays_rounds_among_the_tied_players_only():
    # ten-thousand-web-game.txt: a tie is settled by further complete rounds until one winner.
    game = Game(["A", "B", "C"], preset("tenthousand").replace(target=1000, entry=0))
    game.throw([2, 3, 4, 6, 6, 2])  # A farkles
    bank_turn(game, [1, 1, 1, 2, 3, 4])  # B 1000
    bank_turn(game, [1, 1, 1, 2, 3, 4])  # C 1000: tie at the end of the round
    state = game.state
    assert not state.finished and state.tied == (1, 2) and state.current == 1  # A sits out
    bank_turn(game, [5, 2, 3, 4, 6, 6])  # B 1050
    assert not game.state.finished and game.state.current == 2
    bank_turn(game, [5, 2, 3, 4, 6, 6])  # C 1050: tied again, another round
    assert game.state.tied == (1, 2) and game.state.current == 1
    game.throw([2, 3, 4, 6, 6, 2])  # B farkles
    state = game.throw([1, 2, 3, 4, 6, 6])
    state = game.bank([1])  # C 1150 wins the replay
    assert state.finished and state.winner_name == "C"
    assert [t.player for t in game.turns()] == [0, 1, 2, 1, 2, 1, 2]


def test_complete_round_last_seat_finishes_at_once():
    rules = preset("tenthousand").replace(target=1000, entry=0)
    game = Game(["A", "B"], rules)
    game.throw([2, 3, 4, 6, 6, 2])
    bank_turn(game, [1, 1, 1, 2, 3, 4])
    assert game.state.finished and game.state.winner_name == "B"


def test_undo_and_correct():
    game = Game(["A", "B"], preset("farkle"))
    game.throw([1, 5, 2, 3, 4, 4])
    game.keep([1])
    state = game.undo()
    assert state.phase == "keep" and state.turn_total == 0
    state = game.correct([1, 1, 1, 3, 4, 4])
    assert state.keeps[0].dice == (1, 1, 1) and state.version == 4
    with pytest.raises(IllegalThrow, match="has 3 dice"):
        game.correct([1, 1, 1])
    game.keep([1, 1, 1])
    with pytest.raises(IllegalThrow, match="only the last throw"):
        game.correct([1, 1, 1, 3, 4, 4])
    game.undo()  # takes back the keep
    assert game.undo().throw is None  # takes back the corrected throw: a correction replaced it
    with pytest.raises(NothingToUndo):
        game.undo()
    assert game.version == 7


def test_a_misread_farkle_can_be_corrected():
    game = Game(["A", "B"], preset("farkle"))
    assert game.throw([2, 3, 4, 6, 6, 2]).current == 1
    state = game.correct([2, 3, 4, 6, 6, 1])
    assert state.current == 0 and state.phase == "keep"


def test_save_and_load_round_trip():
    game = Game(["A", "B"], preset("zilch").replace(entry=0))
    bank_turn(game, [1, 5, 2, 3, 4, 4])
    game.throw([5, 2, 3, 4, 6, 6])
    game.undo()
    game.throw([1, 2, 3, 4, 6, 6])
    loaded = Game.from_dict(game.to_dict())
    assert loaded.state == game.state and loaded.events == game.events
    assert loaded.turns() == game.turns()


def test_loading_a_tampered_game_raises():
    data = Game(["A"], preset("farkle")).to_dict()
    data["events"] = [{"type": "keep", "dice": [1]}]
    with pytest.raises(IllegalKeep):
        Game.from_dict(data)
    data["events"] = [{"type": "explode"}]
    with pytest.raises(DiceError, match="unknown event"):
        Game.from_dict(data)


@pytest.mark.parametrize("players", [[], ["A", "A"], ["A", ""], "AB"])
def test_bad_player_lists(players):
    with pytest.raises(DiceError):
        Game(players, preset("farkle"))

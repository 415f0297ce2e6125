"""Game flow beyond the dice: roll-off, typed points, mid-game changes, undo of a turn, redo."""

import pytest

from scorekeeper import (
    DiceError,
    Game,
    GameOver,
    IllegalBank,
    IllegalChange,
    IllegalPoints,
    IllegalRollOff,
    IllegalThrow,
    MalformedInput,
    NothingToRedo,
    NothingToUndo,
    PointsEntered,
    StartRolled,
    event_from_dict,
    preset,
)

FAMILY = preset("family")


def test_highest_roll_starts_and_ties_roll_again():
    game = Game(["Ann", "Bob", "Cy"], FAMILY)
    assert game.state.phase == "throw" and game.state.roll_off is None
    state = game.roll_for_start(4)
    assert state.phase == "roll-off" and state.current == 1 and state.roll_off.next_roller == 1
    game.roll_for_start(6)
    state = game.roll_for_start(6)  # Bob and Cy tie on 6: they roll again, Ann does not
    assert state.roll_off.contenders == (1, 2) and state.current == 1
    with pytest.raises(IllegalThrow, match="roll-off"):
        game.throw([1, 2, 3, 4, 6])
    game.roll_for_start(2)
    state = game.roll_for_start(5)
    assert state.phase == "throw" and state.first == 2 and state.current == 2 and state.roll_off.decided
    with pytest.raises(IllegalRollOff, match="Cy starts"):
        game.roll_for_start(3)
    game.throw([1, 2, 3, 4, 6])
    state = game.bank([1])
    assert state.players[2].score == 100 and state.current == 0  # play goes on from Cy's left


def test_roll_off_is_refused_once_the_first_turn_began_and_faces_are_checked():
    game = Game(["Ann", "Bob"], FAMILY)
    game.throw([1, 2, 3, 4, 6])
    with pytest.raises(IllegalRollOff):
        game.roll_for_start(6)
    with pytest.raises(DiceError):
        Game(["Ann", "Bob"], FAMILY).roll_for_start(7)


def test_complete_rounds_count_from_the_player_who_starts():
    rules = preset("tenthousand").replace(target=500, entry=0)
    game = Game(["A", "B", "C"], rules)
    for face in (2, 6, 3):
        game.roll_for_start(face)
    game.throw([5, 5, 5, 2, 3, 4])
    game.bank([5, 5, 5])  # B reaches 500 first
    assert game.state.final_round and not game.state.finished
    game.throw([2, 3, 4, 6, 6, 2])  # C
    state = game.throw([2, 3, 4, 6, 6, 2])  # A ends the round
    assert state.finished and state.winner_name == "B"


def test_typed_points_then_bank_or_farkle():
    game = Game(["Ann", "Bob"], preset("farkle"))
    game.enter_points("+350")
    with pytest.raises(IllegalThrow, match="typed points"):
        game.throw([1, 2, 3, 4, 6, 6])
    state = game.enter_points(300)
    assert state.turn_total == 650 and state.turn_mode == "points" and state.can_bank
    state = game.bank()
    assert state.players[0].score == 650 and state.leftover is None
    state = game.declare_farkle()
    assert state.current == 0 and state.players[1].farkles_in_a_row == 1
    record = game.turns()[0]
    assert [t.points for t in record.throws] == [350, 300] and record.result == "bank"


@pytest.mark.parametrize(
    "points, error, message",
    [
        (75, IllegalPoints, "multiples of 50"),
        (0, IllegalPoints, "multiples of 50"),
        (20000, IllegalPoints, "no throw"),
        ("lots", MalformedInput, "whole number"),
    ],
)
def test_typed_points_are_checked(points, error, message):
    game = Game(["Ann"], preset("farkle"))
    with pytest.raises(error, match=message):
        game.enter_points(points)
    assert game.version == 0


def test_typed_points_must_reach_the_entry_and_cannot_mix_with_dice():
    game = Game(["Ann"], preset("farkle"))
    game.enter_points(300)
    assert not game.state.can_bank
    with pytest.raises(IllegalBank, match="500"):
        game.bank()
    game = Game(["Ann"], preset("farkle"))
    game.throw([1, 2, 3, 4, 6, 6])
    game.keep([1])
    with pytest.raises(IllegalPoints, match="played with dice"):
        game.enter_points(100)
    with pytest.raises(IllegalPoints, match="played with dice"):
        game.declare_farkle()


def test_family_typed_points_are_what_five_dice_can_score():
    game = Game(["Ann"], FAMILY)
    with pytest.raises(IllegalPoints):
        game.enter_points(1150)  # four 1s are 2000 under doubling: no five dice make 1150
    assert game.enter_points(1100).turn_total == 1100  # 1-1-1 and two 5s


def test_typed_points_export_and_import():
    game = Game(["Ann", "Bob"], preset("zilch"))
    game.enter_points(500)
    game.bank()
    game.declare_farkle()
    data = game.to_dict()
    assert data["events"][0] == {"type": "points", "points": 500}
    assert {"type": "farkle"} in data["events"]
    assert Game.from_dict(data).state == game.state
    assert event_from_dict({"type": "points", "points": "+350"}) == PointsEntered(350)
    with pytest.raises(DiceError):
        event_from_dict({"type": "points", "points": 3.5})


def test_rename_and_target_are_events_undo_takes_back():
    game = Game(["Ann", "Bob"], FAMILY)
    state = game.rename("Bob", "Robert")
    assert [p.name for p in state.players] == ["Ann", "Robert"] and game.players == ("Ann", "Bob")
    with pytest.raises(IllegalChange, match="already called"):
        game.rename(0, "Robert")
    state = game.change_target(5000)
    assert state.rules.target == 5000 and state.rules.name == "family"
    game.throw([1, 1, 1, 5, 5])
    game.bank([1, 1, 1, 5, 5])
    game.throw([2, 2, 3, 4, 6])
    with pytest.raises(IllegalChange, match="Ann already has"):
        game.change_target(1000)
    assert game.undo().turn_number == 2  # the farkle is taken back
    game.undo()
    game.undo()  # the bank and the keep
    assert game.undo().players[0].score == 0  # the throw
    assert game.undo().rules.target == 10000
    assert game.undo().players[1].name == "Bob"


def test_target_change_counts_for_the_end_of_the_game():
    game = Game(["Ann", "Bob"], FAMILY)
    game.change_target(1000)
    game.throw([1, 1, 1, 2, 3])
    state = game.bank([1, 1, 1])
    assert state.finished and state.winner_name == "Ann"


def test_players_join_and_leave_between_turns():
    game = Game(["Ann", "Bob"], FAMILY)
    game.add_player("Cy")
    game.throw([1, 2, 3, 4, 6])
    with pytest.raises(IllegalChange, match="between two turns"):
        game.add_player("Dee")
    game.bank([1])
    state = game.remove_player("Bob")
    assert state.current == 2 and not state.players[1].playing
    game.throw([5, 2, 3, 4, 6])
    state = game.bank([5])
    assert state.current == 0 and [p.score for p in state.players] == [100, 0, 50]
    with pytest.raises(IllegalChange, match="no player in seat 1"):
        game.remove_player(1)
    game.remove_player("Cy")
    with pytest.raises(IllegalChange, match="last player"):
        game.remove_player("Ann")
    with pytest.raises(IllegalChange, match="already in the game"):
        game.add_player("Bob")


def test_undo_turn_goes_back_to_the_start_of_the_turn_and_redo_brings_it_back():
    game = Game(["Ann", "Bob"], FAMILY)
    game.throw([1, 5, 2, 3, 4])
    game.bank([1, 5])
    game.throw([1, 2, 3, 4, 6])
    game.keep([1])
    before = game.state
    state = game.undo_turn()
    assert state.current == 1 and state.turn_total == 0 and state.phase == "throw" and state.can_redo
    state = game.undo_turn()  # nothing happened in Bob's turn now: back to the start of Ann's
    assert state.current == 0 and state.players[0].score == 0
    game.redo()
    state = game.redo()
    assert state == type(before)(**{**before.__dict__, "version": state.version})
    with pytest.raises(NothingToRedo):
        game.redo()


def test_a_new_event_ends_what_can_be_redone():
    game = Game(["Ann", "Bob"], FAMILY)
    game.throw([1, 5, 2, 3, 4])
    game.undo()
    game.throw([5, 2, 3, 4, 6])
    assert not game.state.can_redo
    with pytest.raises(NothingToRedo):
        game.redo()
    with pytest.raises(NothingToUndo):
        Game(["Ann"], FAMILY).undo_turn()


def test_undo_turn_after_the_game_is_over_reopens_it():
    game = Game(["Ann", "Bob"], FAMILY.replace(target=500))
    game.throw([5, 5, 5, 2, 3])
    state = game.bank([5, 5, 5])
    assert state.finished
    with pytest.raises(GameOver):
        game.rename("Ann", "Anna")
    state = game.undo_turn()
    assert not state.finished and state.players[0].score == 0


def test_every_new_event_round_trips_through_its_json_form():
    game = Game(["Ann", "Bob"], FAMILY)
    game.roll_for_start(3)
    game.roll_for_start(5)
    game.rename(1, "Bo")
    game.change_target(8000)
    game.add_player("Cy")
    game.remove_player("Cy")
    game.enter_points(200)
    game.bank()
    game.undo()
    game.redo()
    game.undo_turn()
    game.redo()
    kinds = [e.to_dict()["type"] for e in game.events]
    assert kinds == [
        "start-roll",
        "start-roll",
        "rename",
        "target",
        "add-player",
        "remove-player",
        "points",
        "bank",
        "undo",
        "redo",
        "undo-turn",
        "redo",
    ]
    events = [event_from_dict(e.to_dict()) for e in game.events]
    assert events == list(game.events) and events[0] == StartRolled(3)
    assert Game(["Ann", "Bob"], FAMILY, events).state == game.state


def test_the_log_shows_undone_and_corrected_events():
    game = Game(["Ann", "Bob"], FAMILY)
    game.throw([1, 5, 2, 3, 4])
    game.correct([1, 1, 2, 3, 4])
    game.keep([1, 1])
    game.undo()
    game.keep([1])
    game.throw([5, 5, 5, 2])
    game.undo_turn()
    game.redo()
    statuses = [(entry.event.kind, entry.status) for entry in game.log()]
    assert statuses == [
        ("throw", "corrected"),
        ("correct", "in-effect"),
        ("keep", "undone"),
        ("undo", "control"),
        ("keep", "in-effect"),
        ("throw", "in-effect"),
        ("undo-turn", "control"),
        ("redo", "control"),
    ]
    game.undo()
    assert game.log()[5].status == "undone" and game.log()[4].status == "in-effect"


def test_the_target_keeps_to_the_knob_range_and_seats_are_bounded():
    from scorekeeper.rules import RANGES
    from scorekeeper.table import MAX_SEATS

    game = Game(["Ann", "Bob"], preset("family"))
    with pytest.raises(IllegalChange, match="from 1 to 1000000"):
        game.change_target(RANGES["target"][1] + 1)
    game.change_target(RANGES["target"][1])
    assert game.state.rules.target == RANGES["target"][1]
    for n in range(MAX_SEATS - 2):
        game.add_player(f"P{n}")
        game.remove_player(f"P{n}")
    with pytest.raises(IllegalChange, match=f"at most {MAX_SEATS} seats"):
        game.add_player("One too many")
    assert len(game.state.players) == MAX_SEATS

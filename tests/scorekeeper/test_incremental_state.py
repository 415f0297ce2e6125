"""Undo, corrections and keep+bank restore saved tables instead of replaying the game: the state must
be exactly the one a replay of the events still in effect gives, at any length of game."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper import Banked, Game, IllegalAction, Kept, Thrown, preset
from scorekeeper.events import Corrected, Event, Piggybacked, Undone
from scorekeeper.game import CHECKPOINT_EVERY


def folded(game: Game, effective: list[Event]) -> Game:
    """The reference: the events in effect applied one by one to a new game, with no undo at all."""
    return Game(game.players, game.rules, effective)


def same(game: Game, reference: Game) -> bool:
    """The same table; `can_redo` is about the game's history, which a fold of the events in effect
    does not have, so it is checked on its own."""
    left, right = game.state, reference.state
    unrelated = {"version": 0, "can_redo": False}
    return (
        left.to_dict() | unrelated == right.to_dict() | unrelated
        and left.keeps == right.keeps
        and game.turns() == reference.turns()
    )


def step(game: Game, effective: list[Event], rng: random.Random, undo_bias: float) -> None:
    """One random action; `effective` follows what should be in effect afterwards."""
    state = game.state
    roll = rng.random()
    if (roll < undo_bias or state.finished) and effective:
        game.undo()
        effective.pop()
        return
    if state.finished:
        return
    if state.phase == "keep":
        assert state.throw is not None
        if roll < undo_bias + 0.08:
            faces = tuple(rng.randint(1, 6) for _ in state.throw)
            game.correct(faces)
            effective[-1] = Thrown(faces)
            return
        keep = rng.choice(state.keeps)
        if roll < 0.45:
            game.bank(keep.dice)
            effective += [Kept(keep.dice), Banked()]
        else:
            game.keep(keep.dice)
            effective.append(Kept(keep.dice))
    elif roll < 0.3 and state.can_piggyback:
        game.piggyback()
        effective.append(Piggybacked())
    elif roll < 0.5 and state.can_bank:
        game.bank()
        effective.append(Banked())
    else:
        faces = tuple(rng.randint(1, 6) for _ in range(state.dice_left))
        game.throw(faces)
        effective.append(Thrown(faces))


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(["family", "wikipedia", "zilch", "farkle", "tenthousand"]),
    seed=st.integers(0, 2**32 - 1),
    undo_bias=st.sampled_from([0.05, 0.3, 0.55]),
)
def test_every_step_matches_a_fold_of_the_events_in_effect(name, seed, undo_bias):
    rng = random.Random(seed)
    game = Game(["Ann", "Bob", "Cy"], preset(name).replace(target=3000))
    effective: list[Event] = []
    for _ in range(4 * CHECKPOINT_EVERY + 7):
        before = game.state
        try:
            step(game, effective, rng, undo_bias)
        except IllegalAction:
            assert game.state == before  # refused, and nothing changed: the reference list was not touched
            continue
        assert same(game, folded(game, effective)), (name, seed, len(effective))
        assert game.state.can_redo == isinstance(game.events[-1], Undone)
    copied = game.copy()
    assert copied.state == game.state and copied.turns() == game.turns() and copied.events == game.events


def test_undo_walks_a_long_game_all_the_way_back():
    rng = random.Random(7)
    game = Game(["Ann", "Bob"], preset("family").replace(target=1_000_000))
    effective: list[Event] = []
    while len(effective) < 5 * CHECKPOINT_EVERY + 3:
        try:
            step(game, effective, rng, 0.0)
        except IllegalAction:
            pass
    snapshots = []
    for length in range(len(effective), 0, -1):
        snapshots.append(game.state.to_dict() | {"version": 0})
        assert same(game, folded(game, effective[:length]))
        game.undo()
    assert game.state.can_redo and table_of(game) == table_of(Game(game.players, game.rules))
    assert len(snapshots) == len(effective)
    for snapshot in reversed(snapshots):  # and redo walks it all the way forward again
        game.redo()
        assert game.state.to_dict() | {"version": 0, "can_redo": True} == snapshot | {"can_redo": True}
    assert not game.state.can_redo and same(game, folded(game, effective))


def test_a_refused_keep_and_bank_leaves_the_game_as_it_was():
    game = Game(["Ann", "Bob"], preset("farkle"))  # entry 500
    game.throw([1, 2, 3, 4, 6, 6])
    before, events = game.state, game.events
    with pytest.raises(IllegalAction, match="needs 500"):
        game.bank([1])
    assert game.state == before and game.events == events
    game.keep([1])
    assert game.state.turn_total == 100


def test_a_copy_goes_its_own_way():
    game = Game(["Ann", "Bob"], preset("family"))
    game.throw([1, 1, 2, 3, 4])
    twin = game.copy()
    twin.keep([1, 1])
    twin.undo()
    twin.undo()
    assert game.state.phase == "keep" and game.state.throw == (1, 1, 2, 3, 4)
    assert twin.state.phase == "throw" and twin.version == 4 and game.version == 1


def in_effect(game: Game) -> list[Event]:
    """The events the game's log says are in effect, a correction standing for the throw it made."""
    return [
        Thrown(e.event.faces) if isinstance(e.event, Corrected) else e.event
        for e in game.log()
        if e.status == "in-effect"
    ]


def table_of(game: Game) -> dict[str, object]:
    return game.state.to_dict() | {"version": 0, "can_undo": False, "can_redo": False}


def other_step(game: Game, rng: random.Random) -> None:
    """One random action among every kind of event, the new ones included."""
    state = game.state
    names = [p.name for p in state.players if p.playing]
    roll = rng.random()
    if state.phase == "roll-off":
        game.roll_for_start(rng.randint(1, 6))
    elif roll < 0.08:
        game.undo()
    elif roll < 0.14:
        game.undo_turn()
    elif roll < 0.22:
        game.redo()
    elif roll < 0.25:
        game.rename(rng.choice(names), f"P{rng.randint(0, 9)}")
    elif roll < 0.27:
        game.change_target(rng.choice([1500, 3000, 4000]))
    elif roll < 0.29:
        game.add_player(f"N{rng.randint(0, 9)}")
    elif roll < 0.31:
        game.remove_player(rng.choice(names))
    elif roll < 0.36 and state.turn_mode != "dice":
        game.enter_points(rng.choice([50, 100, 150, 300, 500]))
    elif roll < 0.39 and state.turn_mode != "dice":
        game.declare_farkle()
    elif state.phase == "keep":
        assert state.throw is not None
        if roll < 0.44:
            game.correct(tuple(rng.randint(1, 6) for _ in state.throw))
        elif roll < 0.6:
            game.bank(rng.choice(state.keeps).dice)
        else:
            game.keep(rng.choice(state.keeps).dice)
    elif roll < 0.5 and state.can_piggyback:
        game.piggyback()
    elif roll < 0.65 and state.can_bank:
        game.bank()
    else:
        game.throw(tuple(rng.randint(1, 6) for _ in range(state.dice_left)))


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(["family", "farke", "wikipedia", "zilch", "tenthousand"]), seed=st.integers(0, 2**32 - 1))
def test_the_new_events_match_a_fold_too(name, seed):
    """Roll-offs, typed points and farkles, renames, targets, players joining and leaving, undo of
    a turn and redo all go through the saved tables: every step still equals a fold of the events in
    effect, and a redo brings back exactly the table the undo left."""
    rng = random.Random(seed)
    game = Game(["Ann", "Bob", "Cy"], preset(name).replace(target=3000))
    undone: list[dict[str, object]] = []  # the table before each undo still redoable
    for _ in range(5 * CHECKPOINT_EVERY):
        before, version = game.state, game.version
        try:
            other_step(game, rng)
        except IllegalAction:
            assert game.state == before and game.version == version
            continue
        added = game.events[version:]
        kinds = {type(e).__name__ for e in added}
        if kinds & {"Undone", "TurnUndone"}:
            undone.append(before.to_dict() | {"version": 0, "can_undo": False, "can_redo": False})
        elif kinds == {"Redone"}:
            assert table_of(game) == undone.pop()
        else:
            undone.clear()
        assert game.state.can_redo == bool(undone)
        assert same(game, folded(game, in_effect(game))), (name, seed, game.version)
    copied = game.copy()
    assert copied.state == game.state and copied.log() == game.log()
    if game.state.can_redo:
        copied.redo()
        assert game.state.can_redo  # the copy's redo is its own

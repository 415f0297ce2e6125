"""Undo, corrections and keep+bank restore saved tables instead of replaying the game: the state must
be exactly the one a replay of the events still in effect gives, at any length of game."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper import Banked, Game, IllegalAction, Kept, Thrown, preset
from scorekeeper.game import CHECKPOINT_EVERY
from scorekeeper.events import Event, Piggybacked


def folded(game: Game, effective: list[Event]) -> Game:
    """The reference: the events in effect applied one by one to a new game, with no undo at all."""
    return Game(game.players, game.rules, effective)


def same(game: Game, reference: Game) -> bool:
    left, right = game.state, reference.state
    return left.to_dict() | {"version": 0} == right.to_dict() | {"version": 0} \
        and left.keeps == right.keeps and game.turns() == reference.turns()


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
@given(name=st.sampled_from(["family", "wikipedia", "zilch", "farkle", "tenthousand"]),
       seed=st.integers(0, 2 ** 32 - 1), undo_bias=st.sampled_from([0.05, 0.3, 0.55]))
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
    assert game.state.to_dict() | {"version": 0} == Game(game.players, game.rules).state.to_dict() | {"version": 0}
    assert len(snapshots) == len(effective)


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

"""Property tests over random games of every preset with every kind of event."""

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper import PRESETS, Game, house_rule
from scorekeeper.errors import IllegalAction
from scorekeeper.scoring import throw_values

rulesets = st.builds(
    lambda name, house, target, tie: PRESETS[name].with_settings(
        {**({} if house is None else house_rule(house)), "target": target, "tie_replay": tie}
    ),
    st.sampled_from(sorted(PRESETS)),
    st.sampled_from([None, "greed", "amish", "alternative-sets"]),
    st.sampled_from([1000, 2000]),
    st.sampled_from(["tied-only", "everyone"]),
)


def act(game: Game, rng: random.Random) -> None:
    """One random action; an illegal one must raise and change nothing."""
    state = game.state
    choice = rng.random()
    seats = [i for i, p in enumerate(state.players) if p.playing]
    actions = [
        (0.04, lambda: game.undo()),
        (0.06, lambda: game.redo()),
        (0.08, lambda: game.undo_turn()),
        (0.10, lambda: game.roll_for_start(rng.randint(1, 6))),
        (0.11, lambda: game.rename(rng.choice(seats), f"N{rng.randint(0, 9)}")),
        (0.12, lambda: game.change_target(rng.choice([500, 1000, 3000]))),
        (0.13, lambda: game.add_player(f"X{rng.randint(0, 9)}")),
        (0.14, lambda: game.remove_player(rng.choice(seats))),
        (0.20, lambda: game.enter_points(rng.choice(sorted(throw_values(state.rules))[:12]))),
        (0.22, lambda: game.declare_farkle()),
        (0.30, lambda: game.piggyback()),
        (0.45, lambda: game.bank()),
    ]
    for limit, action in actions:
        if choice < limit:
            action()
            return
    if state.phase == "keep":
        game.keep(rng.choice(state.keeps).dice)
    else:
        game.throw([rng.randint(1, 6) for _ in range(state.dice_left)])


def check_invariants(game: Game) -> None:
    state = game.state
    rules = state.rules
    assert 1 <= state.dice_left <= rules.dice and state.turn_total >= 0
    assert state.players[state.current].playing
    assert (state.phase == "keep") == (state.throw is not None)
    if state.finished:
        assert state.winner == state.current and state.players[state.winner].playing
    totals = [0] * len(state.players)
    for turn in game.turns():
        totals[turn.player] += turn.points - turn.penalty
        assert turn.points % 50 == 0
    assert [p.score for p in state.players] == totals
    assert all(p.on_board or p.score <= 0 for p in state.players)


@settings(max_examples=60, deadline=None)
@given(rules=rulesets, seed=st.integers(0, 2**32 - 1), players=st.integers(1, 3))
def test_random_games_replay_and_keep_their_invariants(rules, seed, players):
    rng = random.Random(seed)
    game = Game([f"P{i}" for i in range(players)], rules)
    for _ in range(150):
        before, version = game.state, game.version
        try:
            act(game, rng)
        except IllegalAction:
            assert game.state == before and game.version == version
            continue
        check_invariants(game)
    assert Game(game.players, rules, game.events).state == game.state
    loaded = Game.from_dict(game.to_dict())
    assert loaded.state == game.state and loaded.turns() == game.turns()


@settings(max_examples=60, deadline=None)
@given(rules=rulesets, seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60))
def test_undo_then_redo_is_the_identity(rules, seed, steps):
    rng = random.Random(seed)
    game = Game(["A", "B"], rules)
    for _ in range(steps):
        try:
            act(game, rng)
        except IllegalAction:
            pass
    for undo in (game.undo, game.undo_turn):
        trial = Game(game.players, rules, game.events)
        before = trial.state
        try:
            getattr(trial, undo.__name__)()
        except IllegalAction:
            continue
        after = trial.redo()
        assert after == replace(before, version=after.version)
        assert trial.turns() == Game(game.players, rules, game.events).turns()


def random_game(rules, seed: int, players: int, steps: int) -> Game:
    rng = random.Random(seed)
    game = Game([f"P{i}" for i in range(players)], rules)
    for _ in range(steps):
        try:
            act(game, rng)
        except IllegalAction:
            pass
    return game


@pytest.mark.parametrize("name", sorted(PRESETS))
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4))
def test_each_preset_replays_its_exported_events_to_the_same_scores(name, seed, players):
    game = random_game(PRESETS[name], seed, players, 120)
    exported = json.loads(json.dumps(game.to_dict()))  # through JSON text, as a file holds it
    loaded = Game.from_dict(exported)
    assert [p.score for p in loaded.state.players] == [p.score for p in game.state.players]
    assert loaded.state == game.state and loaded.log() == game.log()


@settings(max_examples=60, deadline=None)
@given(rules=rulesets, seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 80), back=st.integers(1, 6))
def test_several_undos_then_as_many_redos_is_the_identity(rules, seed, steps, back):
    game = random_game(rules, seed, 2, steps)
    before, turns = game.state, game.turns()
    undone = 0
    for _ in range(back):
        try:
            game.undo_turn() if undone % 2 else game.undo()
        except IllegalAction:
            break
        undone += 1
        check_invariants(game)
    for _ in range(undone):
        game.redo()
    after = game.state
    assert after == replace(before, version=after.version)  # the redo stack below is as it was, too
    assert game.turns() == turns

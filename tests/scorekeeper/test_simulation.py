import json
import math
import statistics
import sys
from functools import cache

import pytest

from dicekeeper.cli import main
from scorekeeper import Game, legal_keeps, preset
from scorekeeper.odds import outcomes
from scorekeeper.players import MaxExpected, Threshold, strategy_by_name
from scorekeeper.simulation import (
    Tally,
    game_rng,
    play_game,
    player_names,
    simulate,
    simulate_by_name,
    solo_turns,
    wilson,
)
from scorekeeper.strategy import ON_BOARD, expected_turn

Z99_TWO_SIDED = 2.5758293035489
Z99_ONE_SIDED = 2.3263478740408


@pytest.mark.parametrize("name", ["family", "farkle", "wikipedia", "tenthousand"])
def test_exact_turn_value_agrees_with_simulated_turns(name):
    # Each simulated turn is compared with the exact value of the situation it started in (on the
    # board or not, a farkle penalty pending or not); the mean difference must be 0 within 99%.
    rules = preset(name)
    turns = solo_turns(MaxExpected(), rules, 8000, seed=11)
    differences = [points - expected_turn(rules, situation) for situation, points in turns]
    mean = statistics.fmean(differences)
    error = statistics.stdev(differences) / math.sqrt(len(differences))
    assert abs(mean) <= Z99_TWO_SIDED * error, (mean, error)


def threshold_value(rules, bank_at):
    """Exact expected turn of Threshold(bank_at) on the board: keep the most points, bank at `bank_at`."""
    must_roll = rules.hot_dice == "must-roll"
    moves = {}
    for n in range(1, rules.dice + 1):
        moves[n] = []
        for counts, ways in outcomes(n):
            keeps = legal_keeps([f for f in range(1, 7) for _ in range(counts[f - 1])], rules)
            moves[n].append((ways, keeps[0] if keeps else None))
    ceiling = bank_at + 40000  # forced hot dice above this are priced at their total: far below 1e-9

    @cache
    def roll(t, n):
        total = 0.0
        for ways, keep in moves[n]:
            if keep is None:
                continue
            after, left = t + keep.points, n - len(keep.dice)
            if keep.instant_win or after > ceiling or (after >= bank_at and not (left == 0 and must_roll)):
                total += ways * after
            else:
                total += ways * roll(after, left or rules.dice)
        return total / 6**n

    return roll(0, rules.dice)


THRESHOLDS = (100, 200, 300, 350, 400, 500, 600, 750, 1000, 1500, 2000, 3000)


@pytest.mark.parametrize("name", ["family", "farkle", "wikipedia", "zilch", "stone"])
def test_no_threshold_strategy_has_a_higher_exact_value(name):
    rules = preset(name)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10000))
    try:
        values = {bank_at: threshold_value(rules, bank_at) for bank_at in THRESHOLDS}
    finally:
        sys.setrecursionlimit(old)
    best = expected_turn(rules)
    assert all(value <= best + 1e-9 for value in values.values()), values


@pytest.mark.parametrize("name, bank_at", [("farkle", 400), ("family", 200)])
def test_exact_threshold_values_agree_with_simulation(name, bank_at):
    # Checks the evaluator above, and that the simulation can tell a weaker strategy apart.
    rules = preset(name)
    turns = [p for s, p in solo_turns(Threshold(bank_at), rules, 5000, seed=12) if s == ON_BOARD]
    mean = statistics.fmean(turns)
    error = statistics.stdev(turns) / math.sqrt(len(turns))
    assert abs(mean - threshold_value(rules, bank_at)) <= Z99_TWO_SIDED * error
    assert mean < expected_turn(rules) - Z99_ONE_SIDED * error


@pytest.mark.parametrize("name", ["farkle", "wikipedia"])
def test_following_the_advice_scores_no_less_than_thresholds_in_simulation(name):
    rules = preset(name)
    mine = [p for s, p in solo_turns(MaxExpected(), rules, 5000, seed=21) if s == ON_BOARD]
    for bank_at in (300, 400, 550):
        theirs = [p for s, p in solo_turns(Threshold(bank_at), rules, 4000, seed=22) if s == ON_BOARD]
        gap = statistics.fmean(mine) - statistics.fmean(theirs)
        error = math.sqrt(statistics.variance(mine) / len(mine) + statistics.variance(theirs) / len(theirs))
        assert gap > -Z99_ONE_SIDED * error, (bank_at, gap, error)


def test_a_game_is_a_function_of_its_seed():
    strategies = [MaxExpected(), Threshold(400), strategy_by_name("endgame")]
    rules = preset("zilch")
    first = play_game(strategies, rules, game_rng(5, 3), first=1)
    again = play_game(strategies, rules, game_rng(5, 3), first=1)
    other = play_game(strategies, rules, game_rng(5, 4), first=1)
    assert first == again and first != other


@pytest.mark.parametrize("name", ["family", "tenthousand", "wikipedia", "farkle"])
def test_game_results_add_up(name):
    rules = preset(name)
    strategies = [MaxExpected(), Threshold(350)]
    for game in range(6):
        result = play_game(strategies, rules, game_rng(1, game), first=game % 2)
        # Every point of a final score was banked in a turn (penalties count negative).
        assert [sum(p) for p in result.turn_points] == list(result.scores)
        assert result.scores[result.winner] == max(result.scores)
        assert rules.is_reached(result.scores[result.winner]) or result.instant_win
        assert result.turns == sum(len(p) for p in result.turn_points)
        assert result.rounds == (result.turns - 1) // 2 + 1


def test_a_game_replays_in_the_engine():
    # The simulator drives a real Game: replaying its events gives the same final state.
    rules = preset("wikipedia")
    strategies = [MaxExpected(), Threshold(300)]
    from scorekeeper.players import choose_action, perform

    rng = game_rng(9, 0)
    game = Game(list(player_names(strategies)), rules)
    state = game.state
    while not state.finished:
        state = perform(game, choose_action(strategies[state.current], state, rng), rng)
    replay = Game(game.players, rules, game.events).state
    assert replay == state
    result = play_game(strategies, rules, game_rng(9, 0), first=0)
    assert result.scores == tuple(p.score for p in state.players) and result.winner == state.winner


def test_a_run_splits_by_game_number_and_merges_to_the_same_tally():
    strategies = [MaxExpected(), Threshold(500)]
    rules = preset("family")
    whole = simulate(strategies, rules, 12, seed=3)
    parts = simulate(strategies, rules, 5, seed=3).merge(simulate(strategies, rules, 7, seed=3, first_game=5))
    assert parts == whole and whole.games == 12 and sum(whole.wins) == 12


def test_merging_tallies_of_different_players_is_refused():
    with pytest.raises(ValueError, match="cannot merge"):
        Tally.empty(["maxexp", "threshold300"]).merge(Tally.empty(["maxexp", "endgame"]))


def test_a_simulation_needs_two_players():
    with pytest.raises(ValueError, match="two"):
        simulate([MaxExpected()], preset("family"), 3)


def test_seats_rotate_so_every_strategy_starts_equally_often():
    strategies = [Threshold(300), Threshold(1000), MaxExpected()]
    names = player_names(strategies)
    starters = []
    for game in range(6):
        result = play_game(strategies, preset("family").replace(target=500), game_rng(0, game), first=game % 3)
        starters.append(game % 3)
        assert len(result.turn_points[game % 3]) >= max(len(p) for p in result.turn_points)
    assert sorted(starters) == [0, 0, 1, 1, 2, 2] and names == ("*threshold300", "*threshold1000", "*maxexp")


def test_player_names_number_repeated_strategies():
    assert player_names([MaxExpected(), MaxExpected(), Threshold(300)]) == ("*maxexp#1", "*maxexp#2", "*threshold300")
    tally = simulate([Threshold(300), Threshold(300)], preset("family").replace(target=1000), 4, seed=1)
    assert tally.names == ("threshold300#1", "threshold300#2") and sum(tally.wins) == 4


def test_wilson_interval():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)


def test_the_strategy_wins_head_to_head_against_a_cautious_threshold():
    tally = simulate([MaxExpected(), Threshold(300)], preset("farkle"), 300, seed=2)
    low, _ = tally.win_interval(0, z=Z99_TWO_SIDED)
    assert low > 0.5, tally


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.strip()], err


def test_simulate_command_reports_each_player_and_the_run(capsys):
    code, lines, err = run(
        capsys,
        "simulate",
        "--rules",
        "family",
        "--players",
        "maxexp,threshold300",
        "--games",
        "20",
        "--seed",
        "4",
        "--jobs",
        "1",
    )
    assert code == 0 and err == ""
    mine, theirs, summary = lines
    assert mine["player"] == "maxexp" and theirs["player"] == "threshold300"
    assert mine["wins"] + theirs["wins"] == 20 == summary["games"]
    assert mine["win_rate_ci95"][0] <= mine["win_rate"] <= mine["win_rate_ci95"][1]
    assert summary["rules"] == "family" and summary["mean_turns_per_game"] > 2


def test_simulate_on_two_cores_gives_the_same_report(capsys):
    argv = ("simulate", "--rules", "family", "--players", "maxexp,endgame", "--games", "10", "--seed", "8")
    _, one, _ = run(capsys, *argv, "--jobs", "1")
    _, two, _ = run(capsys, *argv, "--jobs", "2")
    assert one == two


@pytest.mark.parametrize(
    "argv, message",
    [
        (("--players", "maxexp,bogus"), "unknown strategy 'bogus'; known: maxexp"),
        (("--players", "maxexp"), "at least two"),
        (("--players", "maxexp,threshold300", "--games", "0"), "--games must be a whole number >= 1"),
        (("--players", "maxexp,threshold300", "--seed", "x"), "--seed must be"),
        (("--players", "maxexp,threshold300", "--rules", "nope"), "unknown rules"),
    ],
)
def test_simulate_command_rejects_bad_input(capsys, argv, message):
    code, lines, err = run(capsys, "simulate", *argv)
    assert code == 2 and lines == [] and message in err and len(err.strip().splitlines()) == 1


def test_simulate_command_runs_as_a_program():
    import subprocess

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "dicekeeper",
            "simulate",
            "--rules",
            "family",
            "--players",
            "maxexp,threshold300",
            "--games",
            "4",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 3


def test_simulating_by_name_plays_the_same_games_as_simulate():
    rules = preset("family").replace(target=1000)
    named = simulate_by_name(["maxexp", "threshold300"], rules, 4, seed=6)
    assert named == simulate([strategy_by_name("maxexp"), strategy_by_name("threshold300")], rules, 4, seed=6)
    assert named.games == 4
    with pytest.raises(ValueError, match="at least one game"):
        simulate_by_name(["maxexp", "threshold300"], rules, 0)

"""The small parts of the web package on their own: dice sources, change notices, the chart."""

from __future__ import annotations

import threading
import time

import pytest

from scorekeeper import Game, preset
from web.chart import _nice_step, score_chart
from web.dice_sources import Roller, choose_source
from web.live import ALL_GAMES, Broker


@pytest.mark.parametrize(
    ("requested", "camera", "source", "notice"),
    [
        (None, True, "camera", False),
        (None, False, "virtual", False),
        ("auto", True, "camera", False),
        ("camera", True, "camera", False),
        ("camera", False, "virtual", True),
        ("manual", True, "manual", False),
        (" Virtual ", False, "virtual", False),
    ],
)
def test_choose_source(requested, camera, source, notice):
    choice = choose_source(requested, camera=camera)
    assert choice.source == source and (choice.notice is not None) == notice


def test_unknown_source_is_an_error():
    with pytest.raises(ValueError, match="unknown dice source 'webcam'"):
        choose_source("webcam", camera=True)


def test_seeded_roller_repeats_and_stays_in_range():
    first, second = Roller(7).roll(600), Roller(7).roll(600)
    assert first == second and set(first) == {1, 2, 3, 4, 5, 6}
    assert Roller(8).roll(600) != first
    assert len(Roller().roll(5)) == 5


def test_broker_wakes_waiters_on_their_game_only():
    broker = Broker()
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(broker.wait(1, broker.tick(1), timeout=5)))
    waiter.start()
    time.sleep(0.05)
    broker.publish(2)
    assert waiter.is_alive()  # another game's change does not wake it
    broker.publish(1)
    waiter.join(timeout=2)
    assert woke == [True] and broker.tick(ALL_GAMES) == broker.tick(1) > broker.tick(2) > 0


def test_broker_wait_times_out_and_close_ends_waits():
    broker = Broker()
    assert broker.wait(1, 0, timeout=0.05) is False
    results: list[bool] = []
    waiter = threading.Thread(target=lambda: results.append(broker.wait(1, 0, timeout=30)))
    waiter.start()
    broker.stream_opened()
    closer = threading.Thread(target=lambda: broker.close(wait=5))
    closer.start()
    waiter.join(timeout=2)
    assert results == [False] and broker.closed
    assert closer.is_alive()  # close() waits for the open stream to end
    broker.stream_ended()
    closer.join(timeout=2)
    assert not closer.is_alive() and broker.open_streams == 0


def test_chart_follows_each_players_score_by_round():
    game = Game(["Ann", "Bob"], preset("family"))
    game.throw([1, 1, 1, 2, 3])
    game.bank([1, 1, 1])  # Ann 1000 in round 1
    game.throw([2, 3, 4, 6, 6])  # Bob farkles
    game.throw([5, 2, 3, 4, 6])
    game.bank([5])  # Ann 1050 in round 2
    chart = score_chart(game.players, game.turns(), 10000)
    ann, bob = chart.series
    assert ann.scores == (0, 1000, 1050) and bob.scores == (0, 0)
    xs = [x for x, _ in ann.points]
    assert xs[0] == chart.left and xs[-1] == chart.right and xs == sorted(xs)
    assert ann.points[0][1] == chart.bottom and ann.points[1][1] > ann.points[2][1] > chart.top - 1
    assert chart.target_y == chart.top  # the target is the top of the scale
    assert [score for _, score in chart.y_ticks][:2] == [0, 2000]


def test_chart_scale_takes_in_penalties_below_zero():
    game = Game(["Ann"], preset("farkle"))
    for _ in range(3):
        game.throw([2, 2, 3, 3, 4, 6])
    chart = score_chart(game.players, game.turns(), 10000)
    (ann,) = chart.series
    assert ann.scores[-1] == -1000
    assert chart.y_ticks[0] == (chart.bottom, -2000)  # the scale reaches a whole step below zero
    zero_y = next(y for y, score in chart.y_ticks if score == 0)
    assert chart.top < zero_y < ann.points[-1][1] < chart.bottom


@pytest.mark.parametrize(("raw", "step"), [(0.5, 1), (1, 1), (3, 5), (7, 10), (1200, 2000), (2000, 2000), (2001, 5000)])
def test_nice_steps(raw, step):
    assert _nice_step(raw) == step

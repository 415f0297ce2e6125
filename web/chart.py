"""The score-progression chart of a game as inline SVG: one line per player over the rounds."""

from __future__ import annotations

from dataclasses import dataclass

from scorekeeper import TurnRecord

COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#393b79",
    "#637939",
)
WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 16, 36


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    series: tuple[Series, ...]
    y_ticks: tuple[tuple[float, int], ...]  # (y, score)
    x_ticks: tuple[tuple[float, int], ...]  # (x, round)
    target_y: float | None
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM


@dataclass(frozen=True)
class Series:
    name: str
    colour: str
    points: tuple[tuple[float, float], ...]  # (x, y) in SVG coordinates
    scores: tuple[int, ...]


def score_chart(players: tuple[str, ...], turns: tuple[TurnRecord, ...], target: int) -> Chart:
    """Each player's score after each of their turns, against the round it was played in."""
    n = len(players)
    rounds = max([(t.number - 1) // n + 1 for t in turns], default=1)
    history: list[list[tuple[int, int]]] = [[(0, 0)] for _ in players]
    for turn in turns:
        history[turn.player].append(((turn.number - 1) // n + 1, turn.score_after))
    return line_chart(list(zip(players, history)), rounds, target)


def line_chart(
    lines: list[tuple[str, list[tuple[int, int]]]], x_max: int, reference: int | None = None, x_min: int = 0
) -> Chart:
    """One line per name through its (x, value) points, x from `x_min` to `x_max`; `reference` is a
    dashed line across (a target), and is always in range."""
    values = [v for _, points in lines for _, v in points]
    high = max(reference or 0, *values, 1)
    step = _nice_step((high - min(0, *values)) / 6)
    low = (min(0, *values) // step) * step  # penalties: down to a whole step below zero

    def x_of(x: float) -> float:
        return round(LEFT + (WIDTH - LEFT - RIGHT) * (x - x_min) / max(x_max - x_min, 1), 1)

    def y_of(value: float) -> float:
        return round(HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * (value - low) / (high - low), 1)

    y_ticks = tuple((y_of(v), v) for v in range(int(low), int(high) + 1, int(step)))
    x_step = max(1, _nice_step((x_max - x_min) / 8))
    x_ticks = tuple((x_of(x), x) for x in range(x_min, x_max + 1, int(x_step)))
    series = tuple(
        Series(
            name, COLOURS[i % len(COLOURS)], tuple((x_of(x), y_of(v)) for x, v in points), tuple(v for _, v in points)
        )
        for i, (name, points) in enumerate(lines)
    )
    target_y = y_of(reference) if reference is not None and reference <= high else None
    return Chart(WIDTH, HEIGHT, series, y_ticks, x_ticks, target_y)


def _nice_step(raw: float) -> int:
    """A round step (1, 2, 5 times a power of ten) at least `raw`."""
    if raw <= 1:
        return 1
    power = 10 ** (len(str(int(raw))) - 1)
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power

"""Learning a table: the memory of confirmed throws, the nearest-neighbour head and the wrapped reader."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from vision.adapt.learner import TableLearner, build
from vision.adapt.memory import NOT_A_DIE, TableMemory, crops_of
from vision.adapt.neighbours import AdaptedReader, FaceNeighbours
from vision.synth.render import DieSpec, Scene, render
from vision.types import DieBox, DieReading


def table_scene(seed: int, count: int = 5) -> tuple[np.ndarray, list[DieSpec]]:
    """Dice of one table (cream dice, brown pips, on blue cloth) at random faces and spins."""
    rng = random.Random(seed)
    dice = [
        DieSpec(
            rng.randint(1, 6),
            90 + 110 * i,
            rng.uniform(150, 330),
            56.0,
            angle=rng.uniform(0, 90),
            body_bgr=(200, 230, 240),
            pip_bgr=(30, 60, 110),
        )
        for i in range(count)
    ]
    frame = render(Scene(640, 480, background="felt", background_bgr=(120, 60, 30), dice=tuple(dice), seed=seed)).frame
    return frame, dice


class SixBlindReader:
    """Finds every die but reads a 6 as a 5 (and a 3 as a 2): a reader on a table it does not know."""

    def __init__(self, dice: list[DieSpec]) -> None:
        self.dice = dice

    def read(self, frame_bgr: np.ndarray) -> list[DieReading]:
        wrong = {6: 5, 3: 2}
        return [
            DieReading(wrong.get(d.value, d.value), DieBox(d.cx, d.cy, d.size, d.size, d.angle), 0.7, "pips")
            for d in self.dice
        ]


def test_the_memory_keeps_each_confirmed_throw_and_refuses_bad_ones(tmp_path: Path) -> None:
    memory = TableMemory(tmp_path / "memory")
    assert len(memory) == 0 and memory.examples() == []
    frame, dice = table_scene(1, 3)
    readings = SixBlindReader(dice).read(frame)
    crops = crops_of(frame, readings)
    memory.save(crops, [d.value for d in dice], [r.value for r in readings], [0.7] * 3)
    memory.save(crops[:1], [dice[0].value], [readings[0].value], [0.7])
    examples = memory.examples()
    assert len(memory) == 2 and len(examples) == 4
    assert [e.face for e in examples[:3]] == [d.value for d in dice] and {e.throw for e in examples} == {1, 2}
    assert np.array_equal(examples[0].crop, crops[0]) and examples[0].crop.shape == (32, 32, 3)
    with pytest.raises(ValueError):
        memory.save(crops, [1, 2], [1, 2, 3], [0.5] * 3)
    with pytest.raises(ValueError):
        memory.save(crops, [1, 2, 7], [1, 2, 3], [0.5] * 3)
    with pytest.raises(ValueError):
        memory.save(crops, [1, 2, -1], [1, 2, 3], [0.5] * 3)
    with pytest.raises(ValueError):
        memory.save(crops, [1, 2, 3], [1, 2, 3], [0.5] * 3, boxes=[r.box for r in readings[:2]])
    assert len(memory) == 2
    memory.save(crops, [1, NOT_A_DIE, 3], [1, 2, 3], [0.5] * 3, boxes=[r.box for r in readings])
    marked = memory.examples()[-3:]
    assert [e.is_die for e in marked] == [True, False, True]
    for example, reading in zip(marked, readings):  # kept to a hundredth of a pixel
        assert example.box is not None and example.box.center == pytest.approx(reading.box.center, abs=0.01)
        assert (example.box.w, example.box.angle) == pytest.approx((reading.box.w, reading.box.angle), abs=0.01)
    assert examples[0].box is None
    assert FaceNeighbours.fit(memory.examples()).size == 6  # what is no die has no face to vote for


def test_the_head_learns_what_the_reader_gets_wrong_on_this_table(tmp_path: Path) -> None:
    confirmed_scenes = [table_scene(seed, 6) for seed in range(10, 16)]
    first_frame, first_dice = confirmed_scenes[0]
    learner = TableLearner(tmp_path / "memory", SixBlindReader(first_dice))
    for frame, dice in confirmed_scenes:
        reader = SixBlindReader(dice)
        readings = reader.read(frame)
        learner.learn(
            crops_of(frame, readings),
            [d.value for d in dice],
            [r.value for r in readings],
            [r.confidence for r in readings],
        )
    head = learner.reader.head
    assert head is not None and head.size == 36 and math.isfinite(head.min_similarity)
    right_before = right_after = total = 0
    for seed in range(40, 46):  # later throws on the same table
        frame, dice = table_scene(seed, 6)
        plain = SixBlindReader(dice)
        learner_reader = AdaptedReader(plain, head)
        before, after = plain.read(frame), learner_reader.read(frame)
        total += len(dice)
        right_before += sum(r.value == d.value for r, d in zip(before, dice))
        right_after += sum(r.value == d.value for r, d in zip(after, dice))
    assert right_after > right_before
    assert right_after >= 0.9 * total

    report = build(TableMemory(tmp_path / "memory"))  # what `dicekeeper adapt` does
    assert (report.throws, report.dice) == (6, 36) and report.adapted_right > report.reader_right
    again = FaceNeighbours.load(report.path)
    assert again.size == 36 and again.min_similarity == pytest.approx(report.min_similarity)
    reloaded = TableLearner(tmp_path / "memory", SixBlindReader(first_dice))  # the next server start
    assert reloaded.reader.head is not None and reloaded.reader.head.size == 36


def test_a_reader_that_is_already_right_is_never_overridden(tmp_path: Path) -> None:
    class RightReader(SixBlindReader):
        def read(self, frame_bgr: np.ndarray) -> list[DieReading]:
            return [DieReading(d.value, DieBox(d.cx, d.cy, d.size, d.size, d.angle), 0.9, "pips") for d in self.dice]

    memory = TableMemory(tmp_path / "memory")
    for seed in range(3):
        frame, dice = table_scene(seed, 5)
        readings = RightReader(dice).read(frame)
        memory.save(crops_of(frame, readings), [d.value for d in dice], [r.value for r in readings], [0.9] * 5)
    head = FaceNeighbours.fit(memory.examples())
    assert math.isinf(head.min_similarity)
    frame, dice = table_scene(50, 5)
    wrapped = AdaptedReader(RightReader(dice), head)
    assert [r.value for r in wrapped.read(frame)] == [d.value for d in dice] and wrapped.corrected == 0


def test_the_adapt_command_builds_the_head_or_says_there_is_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dicekeeper.cli import main

    assert main(["adapt", "--db", str(tmp_path / "games.sqlite3")]) == 2
    assert "no confirmed throws yet" in capsys.readouterr().err
    memory = TableMemory(tmp_path / "table-memory")
    for seed in range(4):
        frame, dice = table_scene(seed, 6)
        readings = SixBlindReader(dice).read(frame)
        memory.save(crops_of(frame, readings), [d.value for d in dice], [r.value for r in readings], [0.7] * 6)
    assert main(["adapt", "--db", str(tmp_path / "games.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert "4 confirmed throws, 24 dice" in out and "overrides the reader from similarity" in out
    assert "right as shipped" in out and "fitted to this table (each throw left out of its own fit)" in out
    assert (tmp_path / "table-memory" / "adaptation.npz").is_file()
    assert "marked as no die" not in out
    frame, dice = table_scene(9, 2)  # a throw with a spot the players marked as no die
    readings = SixBlindReader(dice).read(frame)
    memory.save(crops_of(frame, readings), [dice[0].value, NOT_A_DIE], [r.value for r in readings], [0.7] * 2)
    assert main(["adapt", "--db", str(tmp_path / "games.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert "5 confirmed throws, 25 dice" in out and "1 readings marked as no die" in out

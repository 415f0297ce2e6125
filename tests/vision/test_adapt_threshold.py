"""Learning the detector's threshold for one table from the pictures of confirmed throws."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.adapt import memory as memory_module
from vision.adapt.learner import DETECTOR_FILE, TableLearner, build
from vision.adapt.memory import TableMemory
from vision.adapt.threshold import MIN_GAIN, candidates, choose_threshold, misread
from vision.read.classifier import default_model_path
from vision.read.detect import Detection, DetectorSettings, DiceDetector
from vision.read.reader import DiceReader
from vision.synth.render import DieSpec, Scene, render
from vision.types import DieBox, DieReading

FACES = [2, 4, 5]


def reading(value: int) -> DieReading:
    return DieReading(value, DieBox(10.0, 10.0, 20.0, 20.0), 0.9, "pips")


class FaintTableDetector(DiceDetector):
    """The shipped network's wrapper, but its dice are fixed: two sure ones and a faint one
    (scored 0.33), as on a table whose dice the network scores low. Its threshold starts at
    0.4, whatever the shipped one, so the steps the learner tries are known."""

    dice = (
        (DieSpec(2, 150.0, 200.0, 60.0), 0.9),
        (DieSpec(4, 320.0, 240.0, 60.0), 0.9),
        (DieSpec(5, 490.0, 200.0, 60.0), 0.33),
    )

    def detect(self, frame_bgr: np.ndarray) -> list[Detection]:
        return [
            Detection(DieBox(d.cx, d.cy, d.size, d.size), score)
            for d, score in self.dice
            if score >= self.settings.threshold
        ]


@pytest.fixture
def table() -> tuple[np.ndarray, DiceReader]:
    dice = tuple(d for d, _ in FaintTableDetector.dice)
    frame = render(Scene(640, 400, background="felt", background_bgr=(60, 110, 40), dice=dice, seed=3)).frame
    return frame, DiceReader(
        mode="pips",
        detector=FaintTableDetector(
            default_model_path("dice_detector.onnx"), settings=DetectorSettings(threshold=0.4, views=1)
        ),
    )


def test_misread_counts_missed_extra_and_wrong_dice() -> None:
    assert misread([reading(2), reading(4), reading(5)], [5, 4, 2]) == 0
    assert misread([reading(2), reading(4)], FACES) == 1
    assert misread([reading(2), reading(4), reading(5), reading(1)], FACES) == 1
    assert misread([reading(2), reading(4), reading(3)], FACES) == 2


def test_thresholds_around_the_shipped_one_are_tried_nearest_first() -> None:
    assert candidates(0.4) == (0.4, 0.35, 0.45, 0.3, 0.5, 0.25, 0.55, 0.2, 0.6)
    assert candidates(0.1) == (0.1, 0.05, 0.15, 0.2, 0.25, 0.3)


def test_a_lower_threshold_is_taken_only_when_it_pays() -> None:
    assert choose_threshold(0.4, []) == 0.4
    pays = [{0.4: 2, 0.35: 1, 0.3: 0, 0.25: 0, 0.2: 1}] * 2
    assert choose_threshold(0.4, pays) == 0.3  # fewest misread dice, the stricter of a tie
    barely = [{0.4: MIN_GAIN - 1, 0.35: 0, 0.3: 0, 0.25: 0, 0.2: 0}]
    assert choose_threshold(0.4, barely) == 0.4
    assert choose_threshold(0.4, [{0.35: 0}]) == 0.4  # not read at the shipped threshold: unknown
    ghosts = [{0.4: 1, 0.35: 2, 0.45: 0, 0.5: 0}] * 2
    assert choose_threshold(0.4, ghosts) == 0.45  # of a tie, the nearest the shipped one


def test_the_memory_keeps_the_newest_pictures_and_refuses_bad_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_module, "MAX_FRAMES", 2)
    memory = TableMemory(tmp_path)
    frame = np.full((40, 60, 3), 128, np.uint8)
    for errors in range(3):
        memory.save_frame(frame, FACES, {0.4: errors})
    assert memory.misreads() == [{0.4: 1}, {0.4: 2}]
    (kept,) = memory.frames()[-1:]
    assert kept.faces == tuple(FACES) and kept.frame.shape == frame.shape
    with pytest.raises(ValueError, match="faces must be 1..6"):
        memory.save_frame(frame, [7], {})
    with pytest.raises(ValueError, match="BGR uint8"):
        memory.save_frame(np.zeros((4, 4), np.uint8), FACES, {})
    assert len(memory.misreads()) == 2 and len(memory) == 0  # no throw of crops was kept


def test_the_learner_lowers_the_threshold_on_a_table_whose_dice_score_low(
    tmp_path: Path, table: tuple[np.ndarray, DiceReader]
) -> None:
    frame, reader = table
    assert sorted(r.value for r in reader.read(frame)) == [2, 4]  # the faint die is missed
    learner = TableLearner(tmp_path / "memory", reader)
    learner.learn_picture(frame, FACES)
    assert learner.detector_threshold == 0.4  # one missed die is not enough to go on
    learner.learn_picture(frame, FACES)
    assert learner.detector_threshold == 0.3
    assert sorted(r.value for r in learner.reader.read(frame)) == FACES
    assert reader.detector_threshold == 0.4  # the shipped reader itself is unchanged
    again = TableLearner(tmp_path / "memory", reader)  # the next server start
    assert again.detector_threshold == 0.3


def test_a_table_the_reader_reads_right_keeps_the_shipped_threshold(
    tmp_path: Path, table: tuple[np.ndarray, DiceReader]
) -> None:
    frame, reader = table
    learner = TableLearner(tmp_path / "memory", reader)
    for _ in range(3):
        learner.learn_picture(frame, [2, 4])  # the faint spot was no die after all
    assert learner.detector_threshold == 0.4


def test_the_offline_build_chooses_the_threshold_too(tmp_path: Path, table: tuple[np.ndarray, DiceReader]) -> None:
    frame, reader = table
    learner = TableLearner(tmp_path / "memory", reader)
    for _ in range(2):
        learner.learn_picture(frame, FACES)
    (tmp_path / "memory" / DETECTOR_FILE).unlink()
    report = build(learner.memory, reader)
    assert (report.detector_threshold, report.pictures) == (0.3, 2)
    assert build(learner.memory).detector_threshold is None  # without the reader, the head alone


def test_a_reader_without_the_learned_detector_learns_no_threshold(tmp_path: Path) -> None:
    class Finder:
        def detect(self, frame_bgr: np.ndarray) -> list[Detection]:
            return []

    reader = DiceReader(mode="pips", detector=Finder())
    learner = TableLearner(tmp_path / "memory", reader)
    learner.learn_picture(np.zeros((40, 60, 3), np.uint8), FACES)
    assert learner.detector_threshold is None and learner.memory.misreads() == []
    with pytest.raises(ValueError, match="learned detector"):
        reader.with_detector_threshold(0.3)


class PrintedDieDetector(FaintTableDetector):
    """Three real dice, and a die printed on the tablecloth that the network scores 0.45."""

    dice = (
        (DieSpec(2, 150.0, 200.0, 60.0), 0.9),
        (DieSpec(4, 320.0, 240.0, 60.0), 0.9),
        (DieSpec(5, 490.0, 200.0, 60.0), 0.9),
        (DieSpec(6, 560.0, 330.0, 50.0), 0.45),
    )


def test_the_learner_raises_the_threshold_where_the_table_shows_dice_that_are_not_there(tmp_path: Path) -> None:
    dice = tuple(d for d, _ in PrintedDieDetector.dice)
    frame = render(Scene(640, 400, background="felt", background_bgr=(60, 110, 40), dice=dice, seed=4)).frame
    reader = DiceReader(mode="pips", detector=PrintedDieDetector(default_model_path("dice_detector.onnx")))
    assert sorted(r.value for r in reader.read(frame)) == [2, 4, 5, 6]
    learner = TableLearner(tmp_path / "memory", reader)
    for _ in range(2):
        learner.learn_picture(frame, FACES)  # the players confirm the three real dice
    assert learner.detector_threshold == 0.5
    assert sorted(r.value for r in learner.reader.read(frame)) == FACES

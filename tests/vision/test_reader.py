"""The reader on drawn frames: dice of known values at known places must read exactly."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import cv2
import hypothesis
import numpy as np
import pytest
from drawn import BLACK, IVORY, RED, DrawnDie, draw_coin, draw_heap, draw_scene, draw_table
from hypothesis import strategies as st

from vision.read.detect import Detection, DiceDetector, load_default_detector
from vision.read.reader import LIVE, DiceReader, FaceClassifier, Mode, NearMisses, ReaderSettings
from vision.types import DieBox, DieReading

GREEN = (60, 140, 30)  # BGR
NAVY = (90, 30, 20)
WOOD = (70, 110, 150)
TAN = (140, 190, 220)


class BoxesAt:
    """A stand-in detector that finds the given boxes in every frame."""

    def __init__(self, *boxes: DieBox) -> None:
        self.boxes = boxes

    def detect(self, frame_bgr: np.ndarray) -> list[object]:
        from vision.read.detect import Detection

        return [Detection(box, 0.9) for box in self.boxes]


# Where `two_dice_and_a_blank` puts its three dice: the decision tests do not depend on the
# learned detector.
THREE_FOUND = BoxesAt(DieBox(250, 300, 90, 90), DieBox(650, 300, 95, 95), DieBox(1000, 300, 90, 90))


def by_position(readings: Sequence[DieReading]) -> list[tuple[int, int, int]]:
    return sorted((round(r.box.cx / 10) * 10, round(r.box.cy / 10) * 10, r.value) for r in readings)


def assert_reads(readings: Sequence[DieReading], dice: Sequence[DrawnDie]) -> None:
    """Every drawn die read once, with its value, by a reading whose box holds the die's centre
    and whose centre lies within a quarter of a die of it; nothing else."""
    assert len(readings) == len(dice), [(r.value, r.box.center) for r in readings]
    for die in dice:
        near = [
            r
            for r in readings
            if cv2.pointPolygonTest(r.box.corners(), (float(die.center[0]), float(die.center[1])), False) >= 0
            and np.hypot(r.box.cx - die.center[0], r.box.cy - die.center[1]) < 0.25 * die.size
        ]
        assert len(near) == 1, f"die {die.value} at {die.center}: {[(r.value, r.box.center) for r in readings]}"
        assert near[0].value == die.value
        assert near[0].method == "pips"


@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 71.0])
def test_reads_every_face_light_and_dark_at_any_rotation(angle: float) -> None:
    dice = [
        DrawnDie(value, (160 + 190 * (value - 1), 200 + 200 * (value % 2)), 70, angle + 9 * value, body, pip)
        for value in range(1, 7)
        for body, pip in [((IVORY, BLACK), (NAVY, IVORY))[value % 2]]
    ]
    frame = draw_scene(1280, 720, dice, seed=int(angle))
    assert_reads(DiceReader().read(frame), dice)


def test_dark_dice_with_light_pips_on_a_wooden_table() -> None:
    dice = [
        DrawnDie(v, (200 + 170 * i, 300 + 40 * (i % 2)), 64, 30.0 * i, GREEN if i % 2 else RED, IVORY)
        for i, v in enumerate((6, 5, 4, 3, 2, 1))
    ]
    frame = draw_scene(1280, 720, dice, table=WOOD, seed=5)
    assert_reads(DiceReader().read(frame), dice)


def test_a_coin_is_not_read_as_a_die() -> None:
    dice = [DrawnDie(5, (300, 300), 70, 10), DrawnDie(2, (900, 400), 70, 40, RED, IVORY)]
    frame = draw_scene(1280, 720, dice, seed=2)
    draw_coin(frame, (600, 500), 72)
    assert_reads(DiceReader().read(frame), dice)


def test_an_empty_table_reads_no_dice() -> None:
    assert DiceReader().read(draw_scene(640, 480, [], seed=1)) == []


def test_webcam_scale_dice_read() -> None:
    # About 40 pixels a die, as on a 640-pixel webcam frame.
    dice = [DrawnDie(v, (80 + 95 * i, 200 + 60 * (i % 2)), 40, 12.0 * i) for i, v in enumerate((1, 2, 3, 4, 5, 6))]
    frame = draw_scene(640, 480, dice, seed=4)
    assert_reads(DiceReader().read(frame), dice)


def test_readings_carry_box_confidence_and_method() -> None:
    dice = [DrawnDie(4, (320, 240), 80, 30)]
    found = DieBox(322, 236, 109, 110)  # an upright box around the turned die, a little off
    (reading,) = DiceReader(detector=BoxesAt(found)).read(draw_scene(640, 480, dice, seed=3))
    x0, y0, x1, y1 = reading.box.bounds()
    assert x0 < 320 < x1 and y0 < 240 < y1
    assert (reading.box.w, reading.box.h) == (109, 110)
    assert reading.method == "pips"
    assert 0.5 < reading.confidence <= 1.0


def test_rejects_a_frame_that_is_not_bgr() -> None:
    with pytest.raises(ValueError, match="BGR"):
        DiceReader().read(np.zeros((10, 10), np.uint8))


# The seam for the die-face classifier.


class FakeClassifier:
    """Says every box is `face` (1..6) with `sure` probability, or no die when face is 0."""

    def __init__(self, face: int, sure: float = 0.95) -> None:
        self.face = face
        self.sure = sure
        self.calls: list[int] = []

    def predict(self, frame_bgr: np.ndarray, boxes: Sequence[DieBox]) -> np.ndarray:
        self.calls.append(len(boxes))
        column = 6 if self.face == 0 else self.face - 1
        out = np.full((len(boxes), 7), (1.0 - self.sure) / 6)
        out[:, column] = self.sure
        return out


class FaceByPlace:
    """Says each box is the face listed for the nearest x in `faces`, with `sure` probability."""

    def __init__(self, faces: dict[int, int], sure: float = 0.95) -> None:
        self.faces = faces
        self.sure = sure

    def predict(self, frame_bgr: np.ndarray, boxes: Sequence[DieBox]) -> np.ndarray:
        out = np.full((len(boxes), 7), (1.0 - self.sure) / 6)
        for row, box in enumerate(boxes):
            face = self.faces[min(self.faces, key=lambda x: abs(x - box.cx))]
            out[row, face - 1] = self.sure
        return out


def two_dice_and_a_blank() -> tuple[np.ndarray, list[DrawnDie]]:
    """Two clear dice, and a die-shaped tile with no pips (doubtful: no pips to count)."""
    dice = [DrawnDie(3, (250, 300), 80, 20), DrawnDie(6, (650, 300), 80, 50)]
    frame = draw_scene(1280, 720, dice, seed=9)
    blank = DrawnDie(1, (1000, 300), 80, 10, body=RED, pip=RED)
    from drawn import draw_die

    draw_die(frame, blank)
    return frame, dice


def test_fake_classifier_fits_the_protocol() -> None:
    assert isinstance(FakeClassifier(1), FaceClassifier)


def test_without_classifier_doubtful_candidates_are_dropped() -> None:
    frame, dice = two_dice_and_a_blank()
    assert_reads(DiceReader(detector=THREE_FOUND).read(frame), dice)


def test_combined_mode_lets_the_classifier_decide_doubtful_dice_only() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = DiceReader(FaceByPlace({250: 3, 650: 6, 1000: 2}), detector=THREE_FOUND).read(frame)
    assert by_position(readings) == [(250, 300, 3), (650, 300, 6), (1000, 300, 2)]
    assert [r.method for r in sorted(readings, key=lambda r: r.box.cx)] == ["pips", "pips", "classifier"]


def test_combined_mode_drops_what_the_classifier_is_sure_is_no_die() -> None:
    frame, _ = two_dice_and_a_blank()
    assert DiceReader(FakeClassifier(face=0, sure=0.97), detector=THREE_FOUND).read(frame) == []


def test_combined_mode_keeps_pips_when_the_classifier_is_unsure_it_is_no_die() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = DiceReader(FakeClassifier(face=0, sure=0.6), detector=THREE_FOUND).read(frame)
    assert by_position(readings) == [(250, 300, 3), (650, 300, 6)]


def test_classifier_mode_decides_every_die() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = DiceReader(FakeClassifier(face=5), mode="classifier", detector=THREE_FOUND).read(frame)
    assert by_position(readings) == [(250, 300, 5), (650, 300, 5), (1000, 300, 5)]
    assert {r.method for r in readings} == {"classifier"}


def test_pips_mode_ignores_the_classifier() -> None:
    frame, dice = two_dice_and_a_blank()
    classifier = FakeClassifier(face=0)
    assert_reads(DiceReader(classifier, mode="pips", detector=THREE_FOUND).read(frame), dice)
    assert classifier.calls == []


def test_bad_modes_and_bad_classifier_output_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        DiceReader(mode="guess")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a classifier"):
        DiceReader(mode="classifier")

    class Broken:
        def predict(self, frame_bgr: np.ndarray, boxes: Sequence[DieBox]) -> np.ndarray:
            return np.zeros((len(boxes), 6))

    with pytest.raises(ValueError, match="expected"):
        DiceReader(Broken()).read(draw_table(seed=1))


def test_one_reader_serves_several_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    frames = [draw_table(seed=seed) for seed in (1, 2, 3, 4)]
    reader = DiceReader()
    alone = [by_position(reader.read(frame)) for frame in frames]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda frame: by_position(reader.read(frame)), frames * 3))
    assert together == alone * 3
    assert all(len(readings) == 6 for readings in alone)


def test_combined_mode_asks_the_classifier_about_every_candidate_at_once() -> None:
    frame, _ = two_dice_and_a_blank()
    classifier = FakeClassifier(face=2)
    DiceReader(classifier, detector=THREE_FOUND).read(frame)
    assert classifier.calls == [3]


def test_combined_mode_needs_a_surer_classifier_where_no_pip_was_seen() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = DiceReader(FaceByPlace({250: 3, 650: 6, 1000: 2}, sure=0.8), detector=THREE_FOUND).read(frame)
    assert by_position(readings) == [(250, 300, 3), (650, 300, 6)]


def test_combined_mode_a_sure_classifier_overrules_a_pip_count_it_disagrees_with() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = sorted(
        DiceReader(FaceByPlace({250: 3, 650: 5, 1000: 2}), detector=THREE_FOUND).read(frame), key=lambda r: r.box.cx
    )
    assert [(r.value, r.method) for r in readings] == [(3, "pips"), (5, "classifier"), (2, "classifier")]


def test_combined_mode_reads_a_face_the_classifier_is_sure_of_without_looking_for_pips(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vision.read.reader as reader_module

    looked: list[object] = []
    find_pips = reader_module.find_pips
    monkeypatch.setattr(reader_module, "find_pips", lambda *args: looked.append(args[1]) or find_pips(*args))
    frame, _ = two_dice_and_a_blank()
    settings = LIVE
    assert settings.pips_only_in_doubt
    sure = settings.sure_probability
    assert sure == 0.9
    readings = DiceReader(
        FaceByPlace({250: 3, 650: 5, 1000: 2}, sure=sure), detector=THREE_FOUND, settings=settings
    ).read(frame)
    assert [(r.value, r.method) for r in sorted(readings, key=lambda r: r.box.cx)] == [
        (3, "classifier"),
        (5, "classifier"),
        (2, "classifier"),
    ]
    assert looked == []
    # Any less sure, a blank face (the third die) is dropped: the pips are looked for.
    readings = DiceReader(
        FaceByPlace({250: 3, 650: 5, 1000: 2}, sure=sure - 0.01), detector=THREE_FOUND, settings=settings
    ).read(frame)
    assert [(r.value, r.method) for r in sorted(readings, key=lambda r: r.box.cx)] == [
        (3, "classifier"),
        (5, "classifier"),
    ]
    assert len(looked) >= 3
    # Less sure than it must be to overrule the pips, the pips decide.
    readings = DiceReader(
        FaceByPlace({250: 1, 650: 5, 1000: 2}, sure=settings.overrule_probability - 0.05),
        detector=THREE_FOUND,
        settings=settings,
    ).read(frame)
    assert [(r.value, r.method) for r in sorted(readings, key=lambda r: r.box.cx)] == [(3, "pips"), (6, "pips")]


def test_the_live_reader_stops_at_the_first_pip_when_the_classifier_has_settled_the_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vision.read.reader as reader_module

    faces_read: list[object] = []
    read_face = reader_module.read_face
    monkeypatch.setattr(reader_module, "read_face", lambda *a, **k: faces_read.append(a[0]) or read_face(*a, **k))
    frame, _ = two_dice_and_a_blank()
    settled = FaceByPlace({250: 3, 650: 5, 1000: 2}, sure=LIVE.overrule_probability)
    live = DiceReader(settled, detector=THREE_FOUND, settings=LIVE).inspect(frame)
    # The two dice show pips: found, not read as faces. The blank one gets every look.
    assert [len(item.pips.pips) > 0 for item in live] == [True, True, False]
    assert [item.pips_looked_for for item in live] == [True, True, True]
    assert len(faces_read) == 1 + len(LIVE.second_looks)
    assert [item.reading and (item.reading.value, item.reading.method) for item in live] == [
        (3, "classifier"),
        (5, "classifier"),
        None,
    ]


def test_an_inspection_says_whether_the_pips_were_looked_for() -> None:
    frame, _ = two_dice_and_a_blank()
    sure = LIVE.sure_probability
    classifier = FaceByPlace({250: 3, 650: 5, 1000: 2}, sure=sure)
    live = DiceReader(classifier, detector=THREE_FOUND, settings=LIVE).inspect(frame)
    assert [item.pips_looked_for for item in live] == [False, False, False]
    still = DiceReader(classifier, detector=THREE_FOUND).inspect(frame)
    assert [item.pips_looked_for for item in still] == [True, True, True]
    unsure = FaceByPlace({250: 3, 650: 5, 1000: 2}, sure=sure - 0.01)
    assert all(item.pips_looked_for for item in DiceReader(unsure, detector=THREE_FOUND, settings=LIVE).inspect(frame))


def test_combined_mode_an_unsure_classifier_leaves_a_clear_pip_count_alone() -> None:
    frame, _ = two_dice_and_a_blank()
    settings = ReaderSettings()
    unsure = settings.overrule_probability - 0.05
    assert unsure >= settings.decide_probability
    readings = DiceReader(FaceByPlace({250: 1, 650: 5, 1000: 2}, sure=unsure), detector=THREE_FOUND).read(frame)
    assert by_position(readings) == [(250, 300, 3), (650, 300, 6)]
    assert {r.method for r in readings} == {"pips"}


class ScriptedLooks:
    """Stands in for the pip finder and face reader: each look gives the next scripted face."""

    def __init__(self, faces: Sequence[tuple[int | None, bool]]) -> None:
        from vision.read.faces import FaceRead

        self.faces = [FaceRead(value, value or 0, 0.0, ("layout",) if doubtful else ()) for value, doubtful in faces]
        self.looks = 0

    def find_pips(self, *args: object, **kwargs: object) -> int:
        self.looks += 1
        return self.looks - 1

    def read_face(self, index: int, *args: object, **kwargs: object) -> object:
        return self.faces[index]


@pytest.mark.parametrize(
    ("faces", "value", "looks"),
    [
        ([(4, False)], 4, 1),  # a clear 4 stands at once
        ([(1, False), (1, False)], 1, 2),  # a clear 1 stands when the next look agrees
        ([(1, False), (2, False), (1, True), (2, False), (2, False)], 2, 5),  # otherwise all vote
        ([(2, False), (3, True), (3, True), (None, True), (1, False)], 2, 5),  # a tie goes to the earlier look
        ([(6, True), (3, True), (None, True), (3, True), (6, True)], 6, 5),  # none clear: most faces win
        ([(None, True)] * 5, None, 5),
    ],
)
def test_without_a_classifier_doubtful_faces_and_clear_ones_and_twos_are_put_to_a_vote(
    monkeypatch: pytest.MonkeyPatch, faces: list[tuple[int | None, bool]], value: int | None, looks: int
) -> None:
    import vision.read.reader as reader_module
    from vision.read.pips import Candidate

    script = ScriptedLooks(faces)
    monkeypatch.setattr(reader_module, "find_pips", script.find_pips)
    monkeypatch.setattr(reader_module, "read_face", script.read_face)
    candidate = Candidate(DieBox(50.0, 50.0, 40.0, 40.0), 40.0, np.full((40, 40), 255, np.uint8), (30, 30))
    _, face = DiceReader(mode="pips")._look_at(np.zeros((100, 100, 3), np.uint8), candidate)
    assert (face.value, script.looks) == (value, looks)
    assert len(ReaderSettings().voting_looks) == 4


@pytest.mark.parametrize("mode", ["pips", "combined"])
def test_a_die_is_placed_where_the_detector_boxed_it(mode: Mode) -> None:
    die = DrawnDie(5, (300, 200), 80, 10)
    frame = draw_scene(640, 400, [die], seed=3)
    off_centre = DieBox(312.0, 191.0, 100.0, 100.0)
    (reading,) = DiceReader(mode=mode, detector=BoxesAt(off_centre)).read(frame)
    assert reading.value == 5
    assert (reading.box.cx, reading.box.cy) == (312.0, 191.0)


def test_every_found_box_is_read_and_nothing_else() -> None:
    dice = [DrawnDie(2, (150, 200), 70, 0), DrawnDie(6, (450, 200), 70, 30)]
    frame = draw_scene(640, 400, dice, seed=4)
    boxes = [DieBox(150, 200, 75, 75), DieBox(450, 200, 90, 90), DieBox(-200, -200, 30, 30)]
    readings = DiceReader(mode="pips", detector=BoxesAt(*boxes)).read(frame)
    assert_reads(readings, dice)


def speck_beside_three_dice() -> tuple[np.ndarray, list[DrawnDie], BoxesAt]:
    """Three dice about 70 pixels across and a dark speck on the table, found as a small die."""
    dice = [DrawnDie(v, (250 + 300 * i, 300), 70, 15.0 * i) for i, v in enumerate((3, 5, 6))]
    frame = draw_scene(1280, 720, dice, seed=6)
    cv2.circle(frame, (1100, 520), 5, (40, 40, 40), cv2.FILLED, cv2.LINE_AA)
    boxes = [DieBox(float(d.center[0]), float(d.center[1]), 72.0, 72.0) for d in dice]
    return frame, dice, BoxesAt(*boxes, DieBox(1100.0, 520.0, 30.0, 30.0))


def test_a_speck_much_smaller_than_the_dice_is_not_read_as_a_one() -> None:
    frame, dice, finder = speck_beside_three_dice()
    assert_reads(DiceReader(mode="pips", detector=finder).read(frame), dice)
    unchecked = DiceReader(mode="pips", detector=finder, settings=ReaderSettings(speck_size=None)).read(frame)
    assert sorted(r.value for r in unchecked) == [1, 3, 5, 6]  # without the check it is a one


def test_the_live_reader_drops_a_speck_read_as_a_one_as_the_reader_of_photos_does() -> None:
    frame, dice, finder = speck_beside_three_dice()
    classifier = FaceByPlace({250: 3, 550: 5, 850: 6, 1100: 1}, sure=0.95)  # sure the speck is a one
    for settings in (ReaderSettings(), LIVE):
        readings = DiceReader(classifier, detector=finder, settings=settings).read(frame)
        assert sorted(r.value for r in readings) == [3, 5, 6]


def test_the_live_reader_looks_only_at_the_pips_of_sure_ones_small_enough_to_be_specks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vision.read.reader as reader_module

    looked: list[DieBox] = []
    find_pips = reader_module.find_pips
    monkeypatch.setattr(reader_module, "find_pips", lambda *args: looked.append(args[1].box) or find_pips(*args))
    dice = [DrawnDie(v, (250 + 250 * i, 300), 70, 15.0 * i) for i, v in enumerate((3, 5, 6, 1))]
    frame = draw_scene(1280, 720, dice, seed=6)
    cv2.circle(frame, (1150, 560), 5, (40, 40, 40), cv2.FILLED, cv2.LINE_AA)
    speck = DieBox(1150.0, 560.0, 30.0, 30.0)
    finder = BoxesAt(*[DieBox(float(d.center[0]), float(d.center[1]), 72.0, 72.0) for d in dice], speck)
    classifier = FaceByPlace({250: 3, 500: 5, 750: 6, 1000: 1, 1150: 1}, sure=0.95)
    readings = DiceReader(classifier, detector=finder, settings=LIVE).read(frame)
    assert sorted(r.value for r in readings) == [1, 3, 5, 6]
    assert looked == [speck]


def test_a_small_die_showing_more_than_one_pip_is_kept() -> None:
    dice = [DrawnDie(v, (250 + 300 * i, 300), 70 if i < 3 else 36, 0.0) for i, v in enumerate((3, 5, 6, 2))]
    frame = draw_scene(1280, 720, dice, seed=7)
    boxes = [DieBox(float(d.center[0]), float(d.center[1]), d.size + 2.0, d.size + 2.0) for d in dice]
    assert_reads(DiceReader(mode="pips", detector=BoxesAt(*boxes)).read(frame), dice)


def test_the_live_reader_reads_every_die_as_the_still_reader_does() -> None:
    from vision.read.classifier import load_default_classifier

    classifier = load_default_classifier()
    still, live = DiceReader(classifier), DiceReader(classifier, settings=LIVE)
    skipped = 0
    for seed in range(4):
        frame = draw_table(values=(1, 2, 3, 4, 5, 6, 2, 5), seed=seed)
        seen_still, seen_live = still.inspect(frame), live.inspect(frame)
        assert [i.candidate.box for i in seen_live] == [i.candidate.box for i in seen_still]
        assert [i.reading and i.reading.value for i in seen_live] == [i.reading and i.reading.value for i in seen_still]
        skipped += sum(not i.pips.pips and i.reading is not None for i in seen_live)
    assert skipped > 0


class CountingClassifier:
    """The shipped classifier, counting the boxes it is asked about."""

    def __init__(self) -> None:
        from vision.read.classifier import load_default_classifier

        self.inner = load_default_classifier()
        self.asked: list[int] = []

    def predict(self, frame_bgr: np.ndarray, boxes: Sequence[DieBox]) -> np.ndarray:
        self.asked.append(len(boxes))
        return self.inner.predict(frame_bgr, boxes)


@pytest.mark.parametrize("seed", range(3))
def test_the_live_reader_skips_the_coarse_look_when_every_find_is_a_clear_die(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    from vision.read.detect import load_default_detector

    frame = draw_table(values=(1, 2, 3, 4, 5, 6), seed=seed)
    detector = load_default_detector()
    looks: list[int] = []
    maps = detector._maps
    monkeypatch.setattr(detector, "_maps", lambda view: looks.append(view.shape[1]) or maps(view))
    classifier = CountingClassifier()
    readings = DiceReader(classifier, detector=detector, settings=LIVE).read(frame)
    assert looks == [640]  # the first look alone
    assert classifier.asked == [6]  # once, its answer used for the reading too
    always = DiceReader(classifier, detector=detector, settings=replace(LIVE, coarse_only_in_doubt=False))
    assert always.read(frame) == readings
    assert looks == [640, 640, 320]
    assert sorted(r.value for r in readings) == [1, 2, 3, 4, 5, 6]


def test_the_live_reader_takes_the_coarse_look_when_a_find_is_in_doubt(monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.read.detect import load_default_detector

    frame = draw_table(values=(3, 5), seed=1)
    detector = load_default_detector()
    looks: list[int] = []
    maps = detector._maps
    monkeypatch.setattr(detector, "_maps", lambda view: looks.append(view.shape[1]) or maps(view))
    DiceReader(DieWhere(lambda box: box.cx < 500.0, 3), detector=detector, settings=LIVE).read(frame)
    assert looks == [640, 320]
    looks.clear()
    empty_table = np.full((720, 1280, 3), 90, np.uint8)
    DiceReader(DieWhere(lambda box: True, 3), detector=detector, settings=LIVE).read(empty_table)
    assert looks == [640, 320]  # nothing found: a die too big for the first look may be there


@hypothesis.settings(max_examples=400, deadline=None)
@hypothesis.given(
    weights=st.lists(st.floats(0.0, 1.0), min_size=7, max_size=7).filter(lambda w: sum(w) > 0.01),
    looks=st.lists(
        st.tuples(st.integers(0, 7), st.sampled_from([None, 1, 2, 3, 4, 5, 6]), st.booleans()), min_size=4, max_size=4
    ),
)
def test_the_live_reader_reads_every_value_its_full_look_reads(
    weights: list[float], looks: list[tuple[int, int | None, bool]]
) -> None:
    """Stopping at the first pip found (see `DiceReader._value_is_settled`) never changes a
    die's value, nor whether it is kept, whatever the classifier says and the looks show."""
    import vision.read.reader as reader_module
    from vision.read.faces import FaceRead
    from vision.read.pips import Candidate, Pip, PipFinding

    def find_pips(frame: object, candidate: object, side: float, pip_settings: object) -> PipFinding:
        index = len(seen)
        seen.append(index)
        count = looks[index][0]
        return PipFinding(tuple(Pip(1.0, 1.0, 1.0) for _ in range(count)), float(index), (0.0, 0.0))

    def read_face(pips: PipFinding, side: float, settings: object = None) -> FaceRead:
        count, value, doubtful = looks[int(pips.contrast)]
        if count == 0 or value is None:
            return FaceRead(None, count, float("inf"), ("count",))
        return FaceRead(value, count, 0.1, ("layout",) if doubtful else ())

    p = np.asarray(weights, np.float64) / sum(weights)
    candidate = Candidate(DieBox(50.0, 50.0, 10.0, 10.0), 10.0, np.full((10, 10), 255, np.uint8), (45, 45))
    frame = np.zeros((100, 100, 3), np.uint8)
    classifier = FaceByPlace({}, sure=0.5)
    values = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reader_module, "find_pips", find_pips)
        patch.setattr(reader_module, "read_face", read_face)
        for reader_settings in (LIVE, replace(LIVE, pips_only_in_doubt=False)):
            seen: list[int] = []
            reader = DiceReader(classifier, detector=THREE_FOUND, settings=reader_settings)
            reading = reader._inspect_one(frame, candidate, p).reading
            values.append(None if reading is None else reading.value)
    assert values[0] == values[1]


class CoarseClump:
    """A stand-in detector whose coarse look saw `covered` as one big die around them."""

    def __init__(self, big: DieBox, *covered: DieBox) -> None:
        self.big, self.covered = big, covered

    def detect(self, frame_bgr: np.ndarray) -> list[object]:
        from vision.read.detect import Detection

        covers = tuple(Detection(box, 0.7) for box in self.covered)
        return [Detection(self.big, 0.6, covers=covers)]


class DieWhere:
    """Says a box is a `face` (0.94 sure) where `is_die` says so, and no die elsewhere."""

    def __init__(self, is_die: Callable[[DieBox], bool], face: int) -> None:
        self.is_die, self.face = is_die, face

    def predict(self, frame_bgr: np.ndarray, boxes: Sequence[DieBox]) -> np.ndarray:
        out = np.full((len(boxes), 7), 0.01)
        for row, box in enumerate(boxes):
            out[row, self.face - 1 if self.is_die(box) else 6] = 0.94
        return out


def three_dice_in_a_clump() -> tuple[np.ndarray, list[DrawnDie], CoarseClump]:
    dice = [DrawnDie(v, (560 + 80 * i, 330 + 30 * (i % 2)), 64, 10.0 * i) for i, v in enumerate((2, 4, 6))]
    frame = draw_scene(1280, 720, dice, seed=5)
    boxes = [DieBox(float(d.center[0]), float(d.center[1]), 66.0, 66.0) for d in dice]
    return frame, dice, CoarseClump(DieBox(640.0, 345.0, 240.0, 240.0), *boxes)


@pytest.mark.parametrize("settings", [ReaderSettings(), LIVE])
def test_a_clump_of_dice_the_coarse_look_saw_as_one_is_read_as_its_dice(settings: ReaderSettings) -> None:
    frame, dice, clump = three_dice_in_a_clump()
    classifier = FaceByPlace({560: 2, 640: 4, 720: 6})
    readings = DiceReader(classifier, detector=clump, settings=settings).read(frame)
    expected = [DieReading(d.value, DieBox(*d.center, 64, 64), 1.0, "pips") for d in dice]
    assert by_position(readings) == by_position(expected)


def test_a_big_die_whose_covered_finds_are_no_dice_stays_one_die() -> None:
    frame, _, clump = three_dice_in_a_clump()
    readings = DiceReader(DieWhere(lambda box: box.size >= 200.0, 5), detector=clump, mode="classifier").read(frame)
    assert [(r.value, r.box.size) for r in readings] == [(5, 240.0)]


def test_without_the_clump_check_the_coarse_die_stands() -> None:
    frame, _, clump = three_dice_in_a_clump()
    classifier = FaceByPlace({640: 5})
    reader = DiceReader(classifier, detector=clump, mode="classifier", settings=ReaderSettings(clump_dice=None))
    assert [r.box.size for r in reader.read(frame)] == [240.0]


def test_the_pips_reader_leaves_the_detectors_choice_alone() -> None:
    frame, _, clump = three_dice_in_a_clump()
    inspections = DiceReader(FakeClassifier(3), detector=clump, mode="pips").inspect(frame)
    assert [item.candidate.box.size for item in inspections] == [240.0]


def test_a_clump_needs_at_least_one_die() -> None:
    with pytest.raises(ValueError, match="clump_dice"):
        ReaderSettings(clump_dice=0)


def found_at(x: float, y: float, size: float = 60.0) -> Detection:
    return Detection(DieBox(x, y, size, size), 0.3)


def test_a_near_miss_like_the_dice_beside_it_is_kept() -> None:
    dice = [found_at(400, 300), found_at(470, 300), found_at(540, 300, 66)]
    beside, rule = found_at(470, 380), NearMisses()
    assert rule.like_the_dice([beside], dice, 0.5) == [beside]
    assert rule.like_the_dice([found_at(470, 380, 30)], dice, 0.5) == []  # half their size
    assert rule.like_the_dice([found_at(470, 380, 100)], dice, 0.5) == []  # far bigger
    assert rule.like_the_dice([found_at(900, 300)], dice, 0.5) == []  # far from them all
    assert rule.like_the_dice([found_at(480, 310)], dice, 0.5) == []  # on a die already found
    assert rule.like_the_dice([beside], [], 0.5) == []
    assert NearMisses(reach=1.0).like_the_dice([beside], dice, 0.5) == []
    assert NearMisses(size_ratio=2.0).like_the_dice([found_at(470, 380, 31)], dice, 0.5) != []


@pytest.mark.parametrize(
    "knob", [{"floor": 0.0}, {"floor": 1.0}, {"size_ratio": 0.9}, {"reach": 0.0}, {"sureness": 0.0}, {"sureness": 1.5}]
)
def test_near_misses_refuse_an_absurd_setting(knob: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        NearMisses(**knob)


def strict_detector_for(frame: np.ndarray) -> DiceDetector:
    """The shipped detector with its threshold between the scores of the frame's dice, so that
    half of them are near misses."""
    detector = load_default_detector()
    scores = sorted(d.score for d in detector.detect(frame))
    middle = len(scores) // 2
    return detector.with_threshold((scores[middle - 1] + scores[middle]) / 2)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("live", [False, True])
def test_near_misses_in_a_heap_of_dice_are_read(seed: int, live: bool) -> None:
    from vision.read.classifier import load_default_classifier

    dice = draw_heap(seed=seed)
    frame = draw_scene(1280, 720, dice, seed=seed)
    detector = strict_detector_for(frame)
    settings = LIVE if live else ReaderSettings()
    classifier = load_default_classifier()
    kept = DiceReader(classifier, detector=detector, settings=settings).read(frame)
    dropped = DiceReader(classifier, detector=detector, settings=replace(settings, near_misses=None)).read(frame)
    assert len(dropped) < len(kept) <= len(dice)
    for reading in kept:
        die = min(dice, key=lambda d: np.hypot(d.center[0] - reading.box.cx, d.center[1] - reading.box.cy))
        assert np.hypot(die.center[0] - reading.box.cx, die.center[1] - reading.box.cy) < 0.25 * die.size
        assert reading.value == die.value


def test_a_near_miss_is_kept_only_as_sure_as_the_rule_asks() -> None:
    frame = draw_scene(1280, 720, draw_heap(), seed=0)
    detector = strict_detector_for(frame)
    found = len(detector.detect(frame))

    def read(sureness: float) -> list[DieReading]:
        settings = ReaderSettings(near_misses=NearMisses(sureness=sureness))
        return DiceReader(FakeClassifier(3, sure=0.85), detector=detector, settings=settings).read(frame)

    assert len(read(0.9)) == found
    assert len(read(0.8)) > found
    assert all(reading.value == 3 for reading in read(0.8))


def test_the_pips_reader_keeps_no_near_miss() -> None:
    frame = draw_scene(1280, 720, draw_heap(), seed=0)
    detector = strict_detector_for(frame)
    kept = DiceReader(FakeClassifier(3), detector=detector, mode="pips").inspect(frame)
    assert len(kept) == len(detector.detect(frame))

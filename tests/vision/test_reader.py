"""The reader on drawn frames: dice of known values at known places must read exactly."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from vision.reader import DiceReader, FaceClassifier, ReaderSettings
from vision.synthetic import BLACK, IVORY, RED, DrawnDie, draw_coin, draw_scene, draw_table
from vision.types import DieBox, DieReading

GREEN = (60, 140, 30)  # BGR
NAVY = (90, 30, 20)
WOOD = (70, 110, 150)
TAN = (140, 190, 220)


def by_position(readings: Sequence[DieReading]) -> list[tuple[int, int, int]]:
    return sorted((round(r.box.cx / 10) * 10, round(r.box.cy / 10) * 10, r.value) for r in readings)


def assert_reads(readings: Sequence[DieReading], dice: Sequence[DrawnDie]) -> None:
    """Every drawn die read once, with its value, centred within a tenth of a die; nothing else."""
    assert len(readings) == len(dice), [(r.value, r.box.center) for r in readings]
    for die in dice:
        near = [r for r in readings if np.hypot(r.box.cx - die.center[0], r.box.cy - die.center[1]) < 0.1 * die.size]
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
    dice = [DrawnDie(v, (200 + 170 * i, 300 + 40 * (i % 2)), 64, 30.0 * i, GREEN if i % 2 else RED, IVORY)
            for i, v in enumerate((6, 5, 4, 3, 2, 1))]
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
    (reading,) = DiceReader().read(draw_scene(640, 480, dice, seed=3))
    x0, y0, x1, y1 = reading.box.bounds()
    assert x0 < 320 < x1 and y0 < 240 < y1
    assert 70 < reading.box.size < 100
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
    from vision.synthetic import draw_die

    draw_die(frame, blank)
    return frame, dice


def test_fake_classifier_fits_the_protocol() -> None:
    assert isinstance(FakeClassifier(1), FaceClassifier)


def test_without_classifier_doubtful_candidates_are_dropped() -> None:
    frame, dice = two_dice_and_a_blank()
    assert_reads(DiceReader().read(frame), dice)


def test_combined_mode_lets_the_classifier_decide_doubtful_dice_only() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = DiceReader(FaceByPlace({250: 3, 650: 6, 1000: 2})).read(frame)
    assert by_position(readings) == [(250, 300, 3), (650, 300, 6), (1000, 300, 2)]
    assert [r.method for r in sorted(readings, key=lambda r: r.box.cx)] == ["pips", "pips", "classifier"]


def test_combined_mode_drops_what_the_classifier_is_sure_is_no_die() -> None:
    frame, _ = two_dice_and_a_blank()
    assert DiceReader(FakeClassifier(face=0, sure=0.97)).read(frame) == []


def test_combined_mode_keeps_pips_when_the_classifier_is_unsure_it_is_no_die() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = DiceReader(FakeClassifier(face=0, sure=0.6)).read(frame)
    assert by_position(readings) == [(250, 300, 3), (650, 300, 6)]


def test_classifier_mode_decides_every_die() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = DiceReader(FakeClassifier(face=5), mode="classifier").read(frame)
    assert by_position(readings) == [(250, 300, 5), (650, 300, 5), (1000, 300, 5)]
    assert {r.method for r in readings} == {"classifier"}


def test_pips_mode_ignores_the_classifier() -> None:
    frame, dice = two_dice_and_a_blank()
    classifier = FakeClassifier(face=0)
    assert_reads(DiceReader(classifier, mode="pips").read(frame), dice)
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
    DiceReader(classifier).read(frame)
    assert classifier.calls == [3]


def test_combined_mode_needs_a_surer_classifier_where_no_pip_was_seen() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = DiceReader(FaceByPlace({250: 3, 650: 6, 1000: 2}, sure=0.8)).read(frame)
    assert by_position(readings) == [(250, 300, 3), (650, 300, 6)]


def test_combined_mode_a_sure_classifier_overrules_a_pip_count_it_disagrees_with() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = sorted(DiceReader(FaceByPlace({250: 3, 650: 5, 1000: 2})).read(frame), key=lambda r: r.box.cx)
    assert [(r.value, r.method) for r in readings] == [(3, "pips"), (5, "classifier"), (2, "classifier")]


def test_combined_mode_an_unsure_classifier_leaves_a_clear_pip_count_alone() -> None:
    frame, _ = two_dice_and_a_blank()
    settings = ReaderSettings()
    unsure = settings.overrule_probability - 0.05
    assert unsure >= settings.decide_probability
    readings = DiceReader(FaceByPlace({250: 1, 650: 5, 1000: 2}, sure=unsure)).read(frame)
    assert by_position(readings) == [(250, 300, 3), (650, 300, 6)]
    assert {r.method for r in readings} == {"pips"}


def a_clear_die_and_a_pale_one() -> np.ndarray:
    """A 3 and, barely lighter than the table, a 5 with grey pips that the first find misses."""
    pale = DrawnDie(5, (700, 350), 80, 35, body=(212, 216, 220), pip=(150, 150, 150))
    return draw_scene(1280, 720, [DrawnDie(3, (250, 300), 80, 20), pale], seed=9)


FIRST_FIND_ONLY = ReaderSettings(pip_second_finds=())


def test_with_a_classifier_a_second_find_keeps_a_pale_die_the_classifier_is_sure_of() -> None:
    frame = a_clear_die_and_a_pale_one()
    assert by_position(DiceReader(settings=FIRST_FIND_ONLY).read(frame)) == [(250, 300, 3)]
    readings = sorted(DiceReader(FaceByPlace({250: 3, 700: 5})).read(frame), key=lambda r: r.box.cx)
    assert [(r.value, r.method) for r in readings] == [(3, "pips"), (5, "classifier")]
    assert abs(readings[1].box.cx - 700) < 8 and abs(readings[1].box.cy - 350) < 8


def test_the_second_find_keeps_nothing_the_classifier_is_unsure_of() -> None:
    frame = a_clear_die_and_a_pale_one()
    unsure = ReaderSettings().second_find_probability - 0.05
    assert by_position(DiceReader(FaceByPlace({250: 3, 700: 5}, sure=unsure)).read(frame)) == [(250, 300, 3)]
    assert by_position(DiceReader(FakeClassifier(face=0)).read(frame)) == []


def test_without_a_classifier_a_second_find_keeps_a_pale_die_whose_pips_are_clear() -> None:
    readings = sorted(DiceReader().read(a_clear_die_and_a_pale_one()), key=lambda r: r.box.cx)
    assert [(r.value, r.method) for r in readings] == [(3, "pips"), (5, "pips")]
    assert abs(readings[1].box.cx - 700) < 8 and abs(readings[1].box.cy - 350) < 8


def test_without_a_classifier_the_second_find_keeps_nothing_without_a_clear_face() -> None:
    from vision.synthetic import draw_die

    frame = draw_scene(1280, 720, [DrawnDie(3, (250, 300), 80, 20)], seed=9)
    draw_die(frame, DrawnDie(5, (700, 350), 80, 35, body=(212, 216, 220), pip=(212, 216, 220)))
    assert by_position(DiceReader().read(frame)) == [(250, 300, 3)]


@pytest.mark.parametrize("rounds, looks, found", [(3, 3, 2), (1, 1, 1), (2, 2, 2)])
def test_without_a_classifier_the_second_find_looks_again_while_it_finds_dice(
    monkeypatch: pytest.MonkeyPatch, rounds: int, looks: int, found: int
) -> None:
    # Each look frees the next die of a cluster; the third finds nothing more.
    from vision.reader import Inspection

    frame = draw_scene(640, 480, [DrawnDie(3, (200, 200), 70, 10)], seed=5)
    calls: list[int] = []

    def look_again(self: DiceReader, frame_bgr: np.ndarray, kept: list[Inspection], found: object) -> list[Inspection]:
        calls.append(len(kept))
        if len(calls) > 2:
            return []
        return [Inspection(None, None, None, DieReading(5, DieBox(400.0 + 80 * len(calls), 300.0, 60.0, 60.0), 0.9, "pips"))]  # type: ignore[arg-type]

    monkeypatch.setattr(DiceReader, "_look_again_by_pips", look_again)
    readings = DiceReader(settings=ReaderSettings(pip_second_rounds=rounds, extend_values=(), like_pips=False, two_colours=0.0)).read(frame)
    assert len(calls) == looks
    assert calls == [1 + k for k in range(looks)]  # each look sees the dice the one before kept
    assert len(readings) == 1 + found


def test_the_second_find_reports_no_die_twice() -> None:
    frame, _ = two_dice_and_a_blank()
    readings = DiceReader(FaceByPlace({250: 3, 650: 6, 1000: 2})).read(frame)
    assert by_position(readings) == [(250, 300, 3), (650, 300, 6), (1000, 300, 2)]


def test_two_readings_of_one_die_become_the_one_the_classifier_likes_better() -> None:
    from vision.reader import Inspection, _without_duplicates

    def seen(value: int, x: float) -> Inspection:
        return Inspection(None, None, None, DieReading(value, DieBox(x, 100.0, 60.0, 60.0), 0.9, "pips"))  # type: ignore[arg-type]

    inspections = [seen(4, 100.0), seen(5, 120.0), seen(2, 170.0), seen(1, 400.0)]
    probabilities = np.zeros((4, 7))
    probabilities[0, 3], probabilities[1, 4], probabilities[2, 1], probabilities[3, 0] = 0.4, 0.9, 0.8, 0.3
    kept = _without_duplicates(inspections, probabilities, distance=0.65)
    assert [item.reading.value if item.reading else None for item in kept] == [None, 5, 2, 1]


def test_a_new_candidate_is_also_seen_as_die_size_squares_around_its_centre() -> None:
    from vision.find import Candidate
    from vision.reader import _reframed

    candidate = Candidate(DieBox(100.0, 200.0, 90.0, 40.0, 10.0), 60.0, np.zeros((1, 1), np.uint8), (0, 0), 30.0)
    framed = _reframed(candidate, die_size=60.0, shift=0.5)
    assert framed[0] is candidate
    assert len(framed) == 10
    assert {(b.cx, b.cy) for b in (c.box for c in framed[1:])} == {(100.0 + dx, 200.0 + dy) for dx in (-30, 0, 30) for dy in (-30, 0, 30)}
    assert all((c.box.w, c.box.h, c.box.angle) == (60.0, 60.0, 10.0) for c in framed[1:])


def test_a_die_seen_in_part_is_read_again_on_die_size_squares() -> None:
    from vision.find import Candidate
    from vision.reader import Inspection

    small = DieBox(300.0, 200.0, 30.0, 35.0)
    candidate = Candidate(small, 32.0, np.zeros((1, 1), np.uint8), (0, 0), 30.0)
    seen = Inspection(candidate, None, None, DieReading(1, small, 0.9, "pips"))  # type: ignore[arg-type]
    frame = np.zeros((480, 640, 3), np.uint8)
    read_again = DiceReader(FaceByPlace({300: 2}))._reframe_small(frame, seen, die_size=60.0)
    assert read_again.reading is not None
    assert (read_again.reading.value, read_again.reading.method, read_again.reading.box.w) == (2, "classifier", 60.0)
    unsure = DiceReader(FaceByPlace({300: 2}, sure=0.6))._reframe_small(frame, seen, die_size=60.0)
    assert unsure is seen
    assert DiceReader(FaceByPlace({300: 2}))._reframe_small(frame, seen, die_size=31.0) is seen


def test_without_a_classifier_a_die_seen_in_part_is_read_again_on_a_die_size_square() -> None:
    from vision.find import Candidate
    from vision.reader import Inspection

    frame = draw_scene(640, 480, [DrawnDie(2, (300, 200), 60, 0)], seed=4)
    half = DieBox(288.0, 188.0, 30.0, 30.0)  # the corner with one of the two pips
    candidate = Candidate(half, 30.0, np.full((30, 30), 255, np.uint8), (273, 173), 30.0)
    seen = Inspection(candidate, None, None, DieReading(1, half, 0.9, "pips"))  # type: ignore[arg-type]
    read_again = DiceReader()._reframe_small_by_pips(frame, seen, die_size=60.0)
    assert read_again.reading is not None
    assert (read_again.reading.value, read_again.reading.method, read_again.reading.box.w) == (2, "pips", 60.0)
    assert DiceReader()._reframe_small_by_pips(frame, seen, die_size=31.0) is seen
    blank = np.full_like(frame, 200)
    assert DiceReader()._reframe_small_by_pips(blank, seen, die_size=60.0) is seen


def test_without_a_classifier_a_two_along_the_edge_of_a_bigger_face_is_read_again() -> None:
    from dataclasses import replace

    from vision.faces import FaceRead

    frame = draw_scene(640, 480, [DrawnDie(4, (300, 200), 64, 0), DrawnDie(2, (450, 300), 64, 0)], seed=4)
    reader = DiceReader()
    inspections = {item.reading.value: item for item in reader.inspect(frame) if item.reading is not None}
    assert sorted(inspections) == [2, 4]
    four = inspections[4]
    top = sorted(range(4), key=lambda k: four.pips.pips[k].y)[:2]  # the pips along the top edge
    pips = replace(four.pips, pips=tuple(four.pips.pips[k] for k in top))
    seen = replace(four, pips=pips, face=FaceRead(2, 2, 0.0, (), (0, 1)), reading=replace(four.reading, value=2))
    read_again = reader._reread_edge_pair(frame, seen)
    assert read_again.reading is not None and read_again.reading.value == 4
    assert abs(read_again.reading.box.cx - 300) < 6 and abs(read_again.reading.box.cy - 200) < 6
    assert reader._reread_edge_pair(frame, inspections[2]) is inspections[2]  # a 2 on its diagonal
    never = DiceReader(settings=ReaderSettings(edge_pair_angle=45.0))
    assert [r.value for r in never.read(frame)] == [4, 2]


GOLD = (60, 150, 190)
DARK_BROWN = (30, 45, 65)
JET = (12, 12, 12)


@pytest.mark.parametrize("angle", [0.0, 20.0, 45.0, 80.0])
def test_without_a_classifier_a_marbled_face_is_read_again_by_its_pips_colour(angle: float) -> None:
    dice = [
        DrawnDie(v, (110 + 200 * ((v - 1) % 3), 200 if v <= 3 else 450), 80, angle + 5 * v, GOLD, JET, streak=DARK_BROWN)
        for v in range(1, 7)
    ]
    frame = draw_scene(800, 600, dice, seed=int(angle))
    assert_reads(DiceReader(mode="pips").read(frame), dice)
    # The five's middle pip lies where the gold meets the brown: the face-colour looks miss it.
    unlike = DiceReader(mode="pips", settings=ReaderSettings(like_pips=False)).read(frame)
    assert [r.value for r in sorted(unlike, key=lambda r: (r.box.cy > 325, r.box.cx))] == [1, 2, 3, 4, 4, 6]


@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_without_a_classifier_a_two_whose_pips_differ_in_colour_is_a_one_beside_a_spot(angle: float) -> None:
    # A red 1 with a dark hole where a 2's pip would be: pips of one face share a colour.
    import cv2

    frame = draw_scene(640, 480, [DrawnDie(1, (320, 240), 80, angle, RED, IVORY)], seed=2)
    a = np.deg2rad(angle)
    corner = 0.27 * 80 * np.array([np.cos(a) - np.sin(a), np.sin(a) + np.cos(a)])
    cv2.circle(frame, (round(320 + corner[0]), round(240 + corner[1])), 7, BLACK, cv2.FILLED, cv2.LINE_AA)
    (one,) = [item for item in DiceReader(mode="pips").inspect(frame) if item.reading is not None]
    assert one.reading is not None and one.reading.value == 1
    (kept,) = one.face.used
    assert np.hypot(one.pips.pips[kept].x - 320, one.pips.pips[kept].y - 240) < 3
    unchecked = DiceReader(mode="pips", settings=ReaderSettings(two_colours=0.0)).read(frame)
    assert [r.value for r in unchecked] == [2]


def _left_half_of_a_four(frame: np.ndarray) -> tuple[DiceReader, object]:
    """The 4 drawn at (300, 200) as the finder sees a pale die in part: its left side, a 2."""
    from dataclasses import replace

    from vision.faces import FaceRead
    from vision.find import Candidate

    reader = DiceReader()
    (four,) = [item for item in reader.inspect(frame) if item.reading is not None]
    left = sorted(range(4), key=lambda k: four.pips.pips[k].x)[:2]
    pips = replace(four.pips, pips=tuple(four.pips.pips[k] for k in left))
    half = DieBox(287.0, 197.0, 38.0, 58.0)  # its pips lie off this box's centre
    candidate = Candidate(half, 47.0, np.full((58, 38), 255, np.uint8), (268, 168), 30.0)
    seen = replace(four, candidate=candidate, pips=pips, face=FaceRead(2, 2, 0.0, (), (0, 1)), reading=DieReading(2, half, 0.9, "pips"))
    return reader, seen


def test_without_a_classifier_a_face_seen_in_part_takes_in_its_pips_past_the_box() -> None:
    frame = draw_scene(640, 480, [DrawnDie(4, (300, 200), 64, 0)], seed=4)
    reader, seen = _left_half_of_a_four(frame)
    extended = reader._extend_face(frame, seen, [seen], 64.0)  # type: ignore[arg-type]
    assert extended.reading is not None and extended.reading.value == 4
    assert abs(extended.reading.box.cx - 300) < 4 and abs(extended.reading.box.cy - 200) < 4
    # Not when the other pips belong to a die already read there ...
    other = replace_reading(seen, DieBox(318.0, 200.0, 30.0, 64.0))
    assert reader._extend_face(frame, seen, [seen, other], 64.0) is seen  # type: ignore[arg-type]
    # ... nor when they lie on something of another colour than the face.
    two_tone = frame.copy()
    right = two_tone[168:232, 302:332]
    right[np.abs(right.astype(int) - frame[200, 290].astype(int)).sum(axis=2) < 30] = TAN
    assert reader._extend_face(two_tone, seen, [seen], 64.0) is seen  # type: ignore[arg-type]


def _upper_left_pip_of_a_two(frame: np.ndarray, offset: float, side: float) -> tuple[DiceReader, object]:
    """The 2 drawn at (300, 200) as the finder sees a die in part: its upper left pip alone, in
    a square box of `side` whose centre lies `offset` below and right of the pip (a 1 off its
    box's centre). The reader assumes pips spaced as drawn."""
    from dataclasses import replace

    from vision.faces import FaceRead, FaceSettings
    from vision.find import Candidate

    reader = DiceReader(settings=ReaderSettings(faces=FaceSettings(single_spacing=0.27)))
    (two,) = [item for item in reader.inspect(frame) if item.reading is not None]
    assert two.reading is not None and two.reading.value == 2
    pip = min(two.pips.pips, key=lambda p: p.x)
    part = DieBox(pip.x + offset, pip.y + offset, side, side)
    origin = (int(part.cx - side / 2), int(part.cy - side / 2))
    candidate = Candidate(part, side, np.full((round(side), round(side)), 255, np.uint8), origin, 30.0)
    seen = replace(
        two,
        candidate=candidate,
        pips=replace(two.pips, pips=(pip,)),
        face=FaceRead(1, 1, 0.0, (), (0,)),
        reading=DieReading(1, part, 0.9, "pips"),
    )
    return reader, seen


def test_without_a_classifier_a_lone_pip_seen_in_part_looks_as_far_as_the_frames_dice_space_pips() -> None:
    frame = draw_scene(640, 480, [DrawnDie(2, (300, 200), 64, 0, pip_diameter=0.11)], seed=6)  # small pips
    reader, seen = _upper_left_pip_of_a_two(frame, 7.0, 38.0)
    extended = reader._extend_face(frame, seen, [seen], 64.0)  # type: ignore[arg-type]
    assert extended.reading is not None and extended.reading.value == 2
    # Pips this small alone would have it look too near.
    assert reader._extend_face(frame, seen, [seen], 0.0) is seen  # type: ignore[arg-type]


def test_a_dark_face_seen_in_part_looks_for_its_pips_on_its_own_colour_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # A navy 2 on a white table, seen as its upper left pip: most of the square the reader
    # looks on is table, which must not count as the face (nor swallow the pip near the edge).
    import vision.reader as reader_module

    frame = draw_scene(640, 480, [DrawnDie(2, (300, 200), 64, 0, NAVY, (200, 200, 200))], table=(235, 238, 240), seed=6)
    reader, seen = _upper_left_pip_of_a_two(frame, 8.0, 36.0)
    extended = reader._extend_face(frame, seen, [seen], 64.0)  # type: ignore[arg-type]
    assert extended.reading is not None and extended.reading.value == 2
    monkeypatch.setattr(reader_module, "_near_colour", lambda frame, origin, shape, *rest: np.full(shape[:2], 255, np.uint8))
    assert reader._extend_face(frame, seen, [seen], 64.0) is seen  # type: ignore[arg-type]


def replace_reading(item: object, box: DieBox) -> object:
    from dataclasses import replace

    return replace(item, reading=DieReading(2, box, 0.9, "pips"))  # type: ignore[type-var]


def test_a_second_find_reuses_the_first_finds_view_of_the_same_frame_only() -> None:
    from vision.find import FindSettings, find_dice

    dice = [DrawnDie(3, (250, 300), 80, 20), DrawnDie(6, (650, 300), 80, 50)]
    frame = draw_scene(1280, 720, dice, seed=9)
    first = find_dice(frame)
    assert first.view is not None and first.view.fits(frame, FindSettings())
    again = find_dice(frame, view=first.view)
    assert again.view is first.view
    assert [c.box for c in again.items] == [c.box for c in first.items]
    other = frame.copy()
    assert not first.view.fits(other, FindSettings())
    assert find_dice(other, view=first.view).view is not first.view
    assert not first.view.fits(frame, FindSettings(lightness_weight=0.8))


def test_the_finder_takes_excluded_boxes_for_table() -> None:
    from vision.find import find_dice

    dice = [DrawnDie(3, (250, 300), 80, 20), DrawnDie(6, (650, 300), 80, 50)]
    frame = draw_scene(1280, 720, dice, seed=9)
    both = find_dice(frame).items
    assert len(both) == 2
    first = min(both, key=lambda c: c.box.cx).box
    (left,) = find_dice(frame, exclude=[first]).items
    assert abs(left.box.cx - 650) < 8 and abs(left.box.cy - 300) < 8


class ScriptedLooks:
    """Stands in for the pip finder and face reader: each look gives the next scripted face."""

    def __init__(self, faces: Sequence[tuple[int | None, bool]]) -> None:
        from vision.faces import FaceRead

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
    import vision.reader as reader_module
    from vision.find import Candidate

    script = ScriptedLooks(faces)
    monkeypatch.setattr(reader_module, "find_pips", script.find_pips)
    monkeypatch.setattr(reader_module, "read_face", script.read_face)
    candidate = Candidate(DieBox(50.0, 50.0, 40.0, 40.0), 40.0, np.full((40, 40), 255, np.uint8), (30, 30), 40.0)
    _, face = DiceReader(mode="pips")._look_at(np.zeros((100, 100, 3), np.uint8), candidate)
    assert (face.value, script.looks) == (value, looks)
    assert len(ReaderSettings().voting_looks) == 4

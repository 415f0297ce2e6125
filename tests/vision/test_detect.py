"""The learned dice detector: decoding its output, its input, and the shipped model on
rendered tables."""

from __future__ import annotations

import math
import threading
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from drawn import draw_heap, draw_scene
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

import vision.read.detect as detect_module
from vision.read.classifier import ModelError, default_model_path
from vision.read.detect import STRIDE, Detection, DetectorSettings, DiceDetector, load_default_detector
from vision.synth.render import DieSpec, Scene, render
from vision.types import DieBox


@pytest.fixture(scope="module")
def detector() -> DiceDetector:
    return load_default_detector()


def maps_with(
    peaks: list[tuple[int, int, float, float, float, float]], rows: int = 40, columns: int = 60
) -> np.ndarray:
    """Output maps holding (row, column, score, offset x, offset y, box side) peaks."""
    maps = np.zeros((5, rows, columns), np.float32)
    for r, c, score, ox, oy, side in peaks:
        maps[:, r, c] = (score, ox, oy, math.log(side), math.log(side))
    return maps


def test_decode_places_a_peak_in_frame_pixels(detector: DiceDetector) -> None:
    maps = maps_with([(10, 20, 0.9, 0.25, 0.5, 32.0)])
    (found,) = detector.decode(maps, 0.5, (480, 640))
    assert found.box.center == pytest.approx(((20.25) * STRIDE / 0.5, (10.5) * STRIDE / 0.5))
    assert (found.box.w, found.box.h) == pytest.approx((64.0, 64.0), rel=1e-4)
    assert found.score == pytest.approx(0.9)


def test_decode_drops_weak_peaks_and_merges_one_die_seen_twice(detector: DiceDetector) -> None:
    maps = maps_with(
        [(10, 20, 0.9, 0, 0, 40.0), (11, 21, 0.6, 0, 0, 40.0), (30, 50, 0.2, 0, 0, 40.0), (30, 10, 0.5, 0, 0, 40.0)]
    )
    found = detector.decode(maps, 1.0, (160, 240))
    assert [d.score for d in found] == [0.9, 0.5]


def test_network_input_keeps_the_aspect_and_pads_to_32(detector: DiceDetector) -> None:
    batch, scale = detector.network_input(np.zeros((720, 1280, 3), np.uint8))
    assert scale == pytest.approx(640 / 1280)
    assert batch.shape == (1, 3, 384, 640)
    assert batch.dtype == np.float32


def test_network_input_holds_each_colour_plane_in_0_to_1(detector: DiceDetector) -> None:
    frame = np.random.default_rng(3).integers(0, 256, (64, 96, 3), dtype=np.uint8)
    batch, scale = detector.network_input(frame)
    resized = cv2.resize(frame, (640, round(64 * scale)), interpolation=cv2.INTER_LINEAR)
    expected = resized.transpose(2, 0, 1).astype(np.float32) / 255.0
    assert batch.shape == (1, 3, 448, 640)
    np.testing.assert_allclose(batch[0, :, : resized.shape[0]], expected, atol=1e-6)
    np.testing.assert_array_equal(
        batch[0, :, resized.shape[0] :],
        batch[0, :, resized.shape[0] - 1 : resized.shape[0]].repeat(448 - resized.shape[0], 1),
    )


def test_a_session_planned_for_one_shape_gives_what_the_open_session_gives() -> None:
    detector = DiceDetector(default_model_path("dice_detector.onnx"))
    frame = render(Scene(640, 360, background="wood", dice=(DieSpec(4, 300.0, 200.0, 50.0),), seed=2)).frame
    batch, _ = detector.network_input(frame)
    shaped = detector._session_for(batch.shape)
    assert shaped is not detector._session and detector._session_for(batch.shape) is shaped
    (planned,) = shaped.run(None, {detector._input: batch})
    (open_shape,) = detector._session.run(None, {detector._input: batch})
    np.testing.assert_allclose(planned, open_shape, atol=1e-4)


def test_the_network_run_alone_gives_the_maps_a_look_decodes(detector: DiceDetector) -> None:
    frame = render(Scene(1280, 720, background="felt", dice=(DieSpec(5, 600.0, 300.0, 70.0),), seed=4)).frame
    batch, scale = detector.network_input(frame)
    maps = detector.run_network(batch)
    assert maps.shape == (5, 384 // STRIDE, 640 // STRIDE) and maps.dtype == np.float32
    (die,) = detector.decode(maps, scale, frame.shape)
    assert die.box.center == pytest.approx((600.0, 300.0), abs=6.0)
    assert [d.box for d in detector.detect(frame)] == [die.box]


def test_only_the_latest_shapes_keep_their_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(detect_module, "_SHAPED_SESSIONS", 2)
    detector = DiceDetector(default_model_path("dice_detector.onnx"))
    first = detector._session_for((1, 3, 64, 64))
    detector._session_for((1, 3, 64, 96))
    assert detector._session_for((1, 3, 64, 64)) is first  # used again: now the latest
    detector._session_for((1, 3, 96, 64))
    assert list(detector._shaped) == [(1, 3, 64, 64), (1, 3, 96, 64)]


def test_a_look_reads_the_same_whether_its_input_array_is_new_or_kept(detector: DiceDetector) -> None:
    frame = render(Scene(640, 360, background="felt", dice=(DieSpec(2, 200.0, 150.0, 40.0),), seed=4)).frame
    resized = cv2.resize(frame, (640, 360))
    buffers: dict[tuple[int, ...], np.ndarray] = {}
    kept = detect_module._batch(resized, buffers)
    assert detect_module._batch(resized[::-1], buffers) is kept  # the same shape: the same array
    np.testing.assert_array_equal(kept, detect_module._batch(resized[::-1]))
    first_read = DiceDetector(detector.path).detect(frame)
    detector.detect(frame[::-1].copy())  # leaves another frame in the kept arrays
    assert detector.detect(frame) == first_read and first_read


@hypothesis_settings(max_examples=60, deadline=None)
@given(height=st.integers(1, 80), width=st.integers(1, 80), seed=st.integers(0, 2**16), flipped=st.booleans())
def test_the_input_is_the_frame_padded_with_its_last_row_and_column_in_planes(
    height: int, width: int, seed: int, flipped: bool
) -> None:
    frame = np.random.default_rng(seed).integers(0, 256, (height, width, 3), np.uint8)
    if flipped:
        frame = frame[::-1]  # a view with negative strides
    padded = cv2.copyMakeBorder(frame, 0, -height % 32, 0, -width % 32, cv2.BORDER_REPLICATE)
    expected = padded.transpose(2, 0, 1)[None].astype(np.float32) * np.float32(1.0 / 255.0)
    np.testing.assert_array_equal(detect_module._batch(frame), expected)
    np.testing.assert_array_equal(detect_module._batch(frame, {}), expected)


def test_each_thread_writes_its_own_input_array(detector: DiceDetector) -> None:
    arrays = []

    def keep() -> None:
        arrays.append(detect_module._batch(np.zeros((64, 64, 3), np.uint8), detector._buffers.by_shape))

    threads = [threading.Thread(target=keep) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(arrays) == 2 and arrays[0] is not arrays[1]


def test_a_file_that_is_no_model_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot load dice detector"):
        DiceDetector(junk)
    with pytest.raises(ModelError, match="not found"):
        DiceDetector(tmp_path / "missing.onnx")


def test_the_face_classifier_is_not_taken_for_a_detector() -> None:
    with pytest.raises(ModelError, match="not a dice detector"):
        DiceDetector(default_model_path())


def test_a_bad_frame_is_refused(detector: DiceDetector) -> None:
    with pytest.raises(ValueError, match="BGR uint8"):
        detector.detect(np.zeros((10, 10), np.uint8))


@pytest.mark.parametrize("background", ["felt", "wood", "sheet"])
def test_the_shipped_model_finds_every_die_of_a_rendered_table(detector: DiceDetector, background: str) -> None:
    dice = tuple(
        DieSpec(v, 160.0 + 190.0 * (v - 1), 360.0 + 80.0 * (-1) ** v, 50.0, angle=12.0 * v) for v in range(1, 7)
    )
    frame = render(Scene(1280, 720, background=background, background_bgr=(70, 110, 150), dice=dice, seed=5)).frame
    found = detector.detect(frame)
    assert len(found) == 6
    for die in dice:
        nearest = min(found, key=lambda d: math.hypot(d.box.cx - die.cx, d.box.cy - die.cy))
        assert math.hypot(nearest.box.cx - die.cx, nearest.box.cy - die.cy) < 0.25 * die.size
        # Upright boxes: a die turned 45 degrees fills a box 1.41 sides wide.
        assert 0.6 * die.size < nearest.box.size < 1.9 * die.size


@pytest.mark.parametrize("background", ["felt", "wood", "cloth", "sheet", "tray"])
def test_an_empty_table_has_no_dice(detector: DiceDetector, background: str) -> None:
    frame = render(Scene(1280, 720, background=background, background_bgr=(90, 120, 160), seed=2)).frame
    assert detector.detect(frame) == []


def test_settings_change_the_threshold() -> None:
    strict = DiceDetector(default_model_path("dice_detector.onnx"), settings=DetectorSettings(threshold=0.99))
    maps = maps_with([(5, 5, 0.9, 0, 0, 30.0)])
    assert strict.decode(maps, 1.0, (160, 240)) == []


def test_views_must_be_one_two_or_four() -> None:
    with pytest.raises(ValueError, match="views must be one of"):
        DetectorSettings(views=3)


def test_a_die_scores_its_mean_over_the_views(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen in both views (the mirrored one mirrored back) a die keeps the mean score and the
    box of the frame as it is; seen in one view only, half its score, below the threshold."""
    detector = DiceDetector(
        default_model_path("dice_detector.onnx"), settings=DetectorSettings(threshold=0.4, views=2, coarse_side=None)
    )
    frame = np.zeros((100, 200, 3), np.uint8)
    frame[:, :100] = 255  # tells the views apart: the mirrored one is dark on the left
    both = Detection(DieBox(40.0, 50.0, 20.0, 20.0), 0.9)
    mirrored_both = Detection(DieBox(200 - 44.0, 50.0, 24.0, 24.0), 0.7)
    only_one = Detection(DieBox(150.0, 30.0, 20.0, 20.0), 0.7)

    def look(view: np.ndarray, scale: float, shape: tuple[int, ...], threshold: float) -> list[Detection]:
        assert threshold == pytest.approx(0.2) and shape == frame.shape
        return [both, only_one] if view[0, 0, 0] == 255 else [mirrored_both]

    monkeypatch.setattr(detector, "_look", look)
    (found,) = detector.detect(frame)
    assert found.score == pytest.approx(0.8)
    assert found.box == both.box


def test_one_view_reads_the_frame_as_it_is(detector: DiceDetector) -> None:
    frame = render(Scene(640, 360, background="felt", dice=(DieSpec(3, 200.0, 180.0, 40.0),), seed=1)).frame
    single = DiceDetector(detector.path, settings=DetectorSettings(views=1))
    (plain,) = single.detect(frame)
    (fused,) = detector.detect(frame)
    assert math.hypot(plain.box.cx - fused.box.cx, plain.box.cy - fused.box.cy) < 3.0


def test_another_threshold_shares_the_network(detector: DiceDetector) -> None:
    lower = detector.with_threshold(0.3)
    assert lower.settings.threshold == 0.3 and detector.settings.threshold == DetectorSettings().threshold
    assert lower._session is detector._session
    assert lower._shaped is detector._shaped
    with pytest.raises(ValueError, match="between 0 and 1"):
        detector.with_threshold(1.5)


@pytest.mark.parametrize("background", ["felt", "wood", "sheet"])
def test_a_die_close_to_the_camera_is_found_whole(detector: DiceDetector, background: str) -> None:
    """A die 320 px across in a 1280x720 frame, twice what the first look learned, is one die
    of about its size, not its pips seen as dice."""
    die = DieSpec(5, 640.0, 360.0, 320.0, angle=10.0)
    frame = render(Scene(1280, 720, background=background, background_bgr=(70, 110, 150), dice=(die,), seed=3)).frame
    (found,) = detector.detect(frame)
    assert math.hypot(found.box.cx - die.cx, found.box.cy - die.cy) < 0.25 * die.size
    assert 0.6 * die.size < found.box.size < 1.9 * die.size


def test_a_big_die_of_the_coarse_look_takes_the_place_of_the_finds_inside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    detector = DiceDetector(default_model_path("dice_detector.onnx"))
    frame = np.zeros((720, 1280, 3), np.uint8)
    big = Detection(DieBox(400.0, 300.0, 300.0, 300.0), 0.6)
    small_coarse = Detection(DieBox(1000.0, 300.0, 60.0, 60.0), 0.9)  # 15 px in the coarse look: left to the first
    pip = Detection(DieBox(410.0, 310.0, 50.0, 50.0), 0.8)
    beside = Detection(DieBox(1000.0, 600.0, 60.0, 60.0), 0.7)

    def look(view: np.ndarray, scale: float, shape: tuple[int, ...], threshold: float) -> list[Detection]:
        return [big, small_coarse] if view.shape[1] == 320 else [pip, beside]

    monkeypatch.setattr(detector, "_look", look)
    assert detector.detect(frame) == [beside, replace(big, covers=(pip,))]
    off = DiceDetector(detector.path, settings=DetectorSettings(coarse_side=None))
    monkeypatch.setattr(off, "_look", look)
    assert off.detect(frame) == [pip, beside]


def test_a_die_the_first_look_saw_whole_keeps_its_box(monkeypatch: pytest.MonkeyPatch) -> None:
    detector = DiceDetector(default_model_path("dice_detector.onnx"))
    frame = np.zeros((480, 640, 3), np.uint8)
    first = Detection(DieBox(300.0, 240.0, 110.0, 110.0), 0.7)
    coarse = Detection(DieBox(305.0, 236.0, 140.0, 140.0), 0.9)  # 70 px in the coarse look

    def look(view: np.ndarray, scale: float, shape: tuple[int, ...], threshold: float) -> list[Detection]:
        return [coarse] if view.shape[1] == 320 else [first]

    monkeypatch.setattr(detector, "_look", look)
    assert detector.detect(frame) == [first]


@pytest.mark.parametrize("wanted", [True, False])
def test_the_coarse_look_is_taken_only_when_wanted(monkeypatch: pytest.MonkeyPatch, wanted: bool) -> None:
    detector = DiceDetector(default_model_path("dice_detector.onnx"))
    frame = np.zeros((720, 1280, 3), np.uint8)
    big = Detection(DieBox(400.0, 300.0, 300.0, 300.0), 0.6)
    pip = Detection(DieBox(410.0, 310.0, 50.0, 50.0), 0.8)
    looked: list[int] = []
    asked: list[list[Detection]] = []

    def look(view: np.ndarray, scale: float, shape: tuple[int, ...], threshold: float) -> list[Detection]:
        looked.append(view.shape[1])
        return [big] if view.shape[1] == 320 else [pip]

    def coarse_wanted(found: list[Detection]) -> bool:
        asked.append(found)
        return wanted

    monkeypatch.setattr(detector, "_look", look)
    found = detector.detect(frame, coarse_wanted)
    assert asked == [[pip]]
    assert looked == ([640, 320] if wanted else [640])
    assert found == ([replace(big, covers=(pip,))] if wanted else [pip])


def test_the_coarse_look_must_be_smaller_than_the_first() -> None:
    with pytest.raises(ValueError, match="coarse_side"):
        DetectorSettings(coarse_side=800)


@pytest.mark.parametrize("value", [3, 4, 6])
def test_the_pips_of_a_die_close_to_the_camera_are_not_taken_for_a_clump(value: int) -> None:
    """On wood the first look takes three to five of a big die's pips for dice; the classifier
    does not, so the reader keeps the coarse look's one die. So does the live reader, which
    takes the coarse look only when the first look found something the classifier doubts."""
    from vision.read.classifier import load_default_classifier
    from vision.read.reader import LIVE, DiceReader, ReaderSettings

    die = DieSpec(value, 640.0, 360.0, 320.0, angle=10.0)
    frame = render(Scene(1280, 720, background="wood", background_bgr=(70, 110, 150), dice=(die,), seed=3)).frame
    reader = DiceReader(load_default_classifier())
    (found,) = reader.detector.detect(frame)
    assert len(found.covers) >= 3
    for settings in (ReaderSettings(), LIVE):
        (reading,) = DiceReader(reader.classifier, settings=settings, detector=reader.detector).read(frame)
        assert math.hypot(reading.box.cx - die.cx, reading.box.cy - die.cy) < 0.25 * die.size


@pytest.mark.parametrize("seed", range(3))
def test_near_misses_are_the_peaks_under_the_threshold_beside_the_dice(detector: DiceDetector, seed: int) -> None:
    frame = draw_scene(1280, 720, draw_heap(seed=seed), seed=seed)
    plain = replace(detector.settings, coarse_side=None)
    every = DiceDetector(detector.path, settings=replace(plain, threshold=0.2)).detect(frame)
    scores = sorted(d.score for d in every)
    middle = len(scores) // 2  # the threshold between two dice's scores: half of them are near misses
    strict = DiceDetector(detector.path, settings=replace(plain, threshold=(scores[middle - 1] + scores[middle]) / 2))
    found, near = strict.detect_with_near_misses(frame, 0.2)
    assert found == strict.detect(frame) and near
    assert all(0.2 <= d.score < strict.settings.threshold for d in near)
    assert sorted(d.box.center for d in found + near) == sorted(d.box.center for d in every)
    assert strict.detect_with_near_misses(frame, None) == (found, [])
    assert strict.detect_with_near_misses(frame, 0.99) == (found, [])  # a floor above the threshold


def test_several_views_give_no_near_misses(detector: DiceDetector) -> None:
    frame = draw_scene(1280, 720, draw_heap(), seed=0)
    mirrored = DiceDetector(detector.path, settings=replace(detector.settings, views=2, threshold=0.9))
    assert mirrored.detect_with_near_misses(frame, 0.2)[1] == []


def test_a_frame_without_dice_found_gives_no_near_misses(detector: DiceDetector) -> None:
    """Near misses count only beside dice found: where no peak reaches the threshold, the
    lower ones are left alone."""
    strict = DiceDetector(detector.path, settings=replace(detector.settings, threshold=0.99))
    frame = draw_scene(1280, 720, draw_heap(), seed=1)
    assert strict.detect_with_near_misses(frame, 0.2) == ([], [])
    assert DiceDetector(detector.path, settings=replace(detector.settings, threshold=0.2)).detect(frame)

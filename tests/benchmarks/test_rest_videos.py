"""Generated test videos with known rests, `watch` on one, and the benchmark's scoring."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from rendered_photo_set import write_photo_set

from benchmarks import rest_bench
from benchmarks.rest_bench import score, set_of_photos, watch_video
from benchmarks.rest_videos import HEIGHT, WIDTH, VideoStyle, VideoTruth, labelled_photos, make_video
from dicekeeper.cli import main
from vision.eval.labels import LabelledImage
from vision.live.settle import PACED, SettleConfig, SettledThrow
from vision.read.reader import DiceReader
from vision.types import DieBox, DieReading


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, VideoTruth]:
    root = tmp_path_factory.mktemp("photos")
    photos = labelled_photos([write_photo_set(root / "set")])
    path = root / "rests.avi"
    return path, make_video(photos, path, rests=3, seed=4, style=VideoStyle(hand_share=1.0))


def test_the_video_is_720p_and_its_truth_matches_it(video: tuple[Path, VideoTruth]) -> None:
    path, truth = video
    assert VideoTruth.from_json(Path(f"{path}.json").read_text()) == truth
    capture = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, image = capture.read()
        if not ok:
            break
        frames.append(image)
    assert len(frames) == truth.frames and frames[0].shape == (HEIGHT, WIDTH, 3)
    assert len(truth.rests) == 3
    for rest in truth.rests:
        assert rest.end - rest.start == round(1.5 * truth.fps)
        first, last = frames[rest.start].astype(np.int16), frames[rest.end - 1].astype(np.int16)
        noise = np.abs(first - last).mean()
        assert 0 < noise < 6  # still, but each frame has its own noise
        before = frames[rest.start - 5].astype(np.int16)
        assert np.abs(before - first).mean() > 2 * noise  # the dice were moving just before
        x0, y0, x1, y1 = rest.boxes[0]
        assert 0 <= x0 < x1 <= WIDTH and 0 <= y0 < y1 <= HEIGHT
        assert rest.faces == tuple(sorted(rest.values))


@pytest.mark.parametrize("pace", [[], ["--paced"]], ids=["every-frame", "paced"])
def test_watch_reports_each_rest_of_a_generated_video_once_and_soon(
    pace: list[str], video: tuple[Path, VideoTruth], capsys: pytest.CaptureFixture[str]
) -> None:
    path, truth = video
    assert main(["watch", str(path), "--mode", "pips", "--details", *pace]) == 0
    reports = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert len(reports) == len(truth.rests)
    for report, rest in zip(reports, truth.rests):
        assert rest.start - 1 <= report["settled_frame"] < rest.end
        assert (report["settled_frame"] - rest.start) / truth.fps <= 0.5
        assert sorted(report["dice"] + report["set_aside"]) == list(rest.faces)


def test_the_benchmark_scores_once_extra_missed_and_latency(video: tuple[Path, VideoTruth]) -> None:
    path, truth = video
    throws = watch_video(path, DiceReader(mode="pips"))
    result = score(truth, throws).to_dict()
    assert result["reported_once"] == 3 and result["extra"] == 0 and result["missed"] == 0
    assert result["read_exactly"] == 3
    assert result["latency_worst_s"] is not None and result["latency_worst_s"] <= 0.5

    def fake(index: int, faces: tuple[int, ...]) -> SettledThrow:
        dice = tuple(DieReading(v, DieBox(10.0 * i, 0.0, 5.0, 5.0), 0.9, "pips") for i, v in enumerate(faces))
        return SettledThrow(dice, (), index / truth.fps, index, index / truth.fps, index)

    first, second = truth.rests[0], truth.rests[1]
    made_up = [
        fake(first.start + 9, first.faces),
        fake(first.start + 30, first.faces),  # twice in one rest
        fake(first.end + 3, (1,)),  # while moving
        fake(second.start + 15, tuple(reversed(second.faces))[:-1] + (7,)),
    ]  # one die wrong
    made = score(truth, made_up)
    assert (made.reported_once, made.extra, made.missed, made.exact) == (2, 2, 1, 1)
    assert made.latencies == pytest.approx([9 / truth.fps, 15 / truth.fps])


def test_a_die_the_photos_labels_leave_out_counts_neither_way(video: tuple[Path, VideoTruth]) -> None:
    _, truth = video
    rest = truth.rests[0]
    x0, y0, x1, y1 = rest.boxes[0]
    side = x1 - x0
    beside = (x0 - 3 * side, y0, x1 - 3 * side, y1)  # where no labelled die lies
    cut = replace(rest, unlabelled=(beside,))
    truth = replace(truth, rests=(cut,) + truth.rests[1:])
    dice = tuple(
        DieReading(v, DieBox((a + c) / 2, (b + d) / 2, side, side), 0.9, "pips")
        for (a, b, c, d), v in zip(rest.boxes, rest.values)
    )
    extra = DieReading(6, DieBox((beside[0] + beside[2]) / 2, (beside[1] + beside[3]) / 2, side, side), 0.9, "pips")
    throw = SettledThrow(
        dice + (extra,), (), rest.start / truth.fps, rest.start, rest.start / truth.fps, rest.start + 5
    )
    assert score(truth, [throw]).exact == 1
    uncut = replace(truth, rests=(rest,) + truth.rests[1:])
    assert score(uncut, [throw]).exact == 0
    assert VideoTruth.from_json(truth.to_json()) == truth


STILL_HANDS = VideoStyle(hand_share=0.0, still_hand_share=1.0, hand_hold=1.0)


@dataclass(frozen=True)
class HandVideos:
    """Three-rest videos of one photo set and seed: without hands, and with a hand coming straight
    up and holding still before each rest."""

    photos: list[LabelledImage]
    folder: Path
    plain: VideoTruth
    straight: VideoTruth

    @property
    def straight_path(self) -> Path:
        return self.folder / "hands.avi"


@pytest.fixture(scope="module")
def hand_videos(tmp_path_factory: pytest.TempPathFactory) -> HandVideos:
    folder = tmp_path_factory.mktemp("hands")
    photos = labelled_photos([write_photo_set(folder / "set")])
    plain = make_video(photos, folder / "plain.avi", rests=3, seed=5, style=VideoStyle(hand_share=0.0))
    straight = make_video(photos, folder / "hands.avi", rests=3, seed=5, style=STILL_HANDS)
    return HandVideos(photos, folder, plain, straight)


def test_a_hand_holding_still_before_each_rest_is_waited_out(hand_videos: HandVideos) -> None:
    path, truth, plain = hand_videos.straight_path, hand_videos.straight, hand_videos.plain
    # Each rest comes a hand's visit (0.15 s before it, 1 s still, 0.3 s each way) later than without.
    assert truth.rests[0].start - plain.rests[0].start == round(0.15 * truth.fps) + round(1.6 * truth.fps)
    result = score(truth, watch_video(path, DiceReader(mode="pips"))).to_dict()
    assert result["reported_once"] == 3 and result["extra"] == 0 and result["missed"] == 0
    assert result["read_exactly"] == 3
    assert result["latency_worst_s"] is not None and result["latency_worst_s"] <= 0.5
    # Without the check, the dice are reported while the hand holds still: before their rest.
    blind = watch_video(path, DiceReader(mode="pips"), SettleConfig(hand_wait=None))
    assert score(truth, blind).to_dict()["extra"] >= 1


def _covered_on_the_way_in(path: Path, still: int, way_in: int) -> float:
    """The share of the picture a hand passed over on its way in: the frames from `still` + 0.15 s
    (when it starts coming) for `way_in` frames, against the still table at `still`."""
    capture = cv2.VideoCapture(str(path))
    frames = [capture.read()[1] for _ in range(still + round(0.15 * 30) + way_in)]
    capture.release()
    table = cv2.cvtColor(frames[still], cv2.COLOR_BGR2GRAY).astype(np.int16)
    covered = np.zeros(table.shape, bool)
    for frame in frames[still + round(0.15 * 30) :]:
        covered |= np.abs(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.int16) - table) > 30
    return float(covered.mean())


def test_a_hand_that_sweeps_across_the_picture_and_holds_still_is_waited_out(
    hand_videos: HandVideos, tmp_path: Path
) -> None:
    path = tmp_path / "sweeps.avi"
    style = replace(STILL_HANDS, sweeping_hand_share=1.0)
    truth = make_video(hand_videos.photos, path, rests=3, seed=5, style=style)
    plain, straight = hand_videos.plain, hand_videos.straight
    # Each rest comes a sweeping hand's visit (0.15 s before it, 1 s still, 0.6 s each way) later.
    assert truth.fps == 30 and truth.rests[0].start - plain.rests[0].start == round(0.15 * 30) + round(2.2 * 30)
    # On its way in the hand passes over a wide band of the picture, more than twice what a hand
    # coming straight up from the bottom edge passes over.
    swept = _covered_on_the_way_in(path, plain.rests[0].start, round(0.6 * 30))
    assert swept > 0.25 and swept > 2 * _covered_on_the_way_in(hand_videos.straight_path, plain.rests[0].start, 9)
    assert straight.rests[0].start - plain.rests[0].start == round(0.15 * 30) + round(1.6 * 30)
    result = score(truth, watch_video(path, DiceReader(mode="pips"))).to_dict()
    assert result["reported_once"] == 3 and result["extra"] == 0 and result["missed"] == 0
    assert result["latency_worst_s"] is not None and result["latency_worst_s"] <= 0.5


def test_rests_read_exactly_are_counted_by_photo_set(video: tuple[Path, VideoTruth]) -> None:
    path, truth = video
    set_of = set_of_photos([str(path.parent / "set" / "val")])
    assert {rest.photo for rest in truth.rests} <= set(set_of) and set(set_of.values()) == {"set"}
    first = truth.rests[0]
    dice = tuple(DieReading(v, DieBox(10.0 * i, 0.0, 5.0, 5.0), 0.9, "pips") for i, v in enumerate(first.faces))
    made = score(
        truth, [SettledThrow(dice, (), first.start / truth.fps, first.start, first.start / truth.fps, first.start + 9)]
    )
    assert made.exact_by_set(set_of) == {"set": {"rests": len(truth.rests), "read_exactly": 1}}
    assert made.exact_by_set({}) == {"?": {"rests": len(truth.rests), "read_exactly": 1}}


def test_the_paced_watcher_still_catches_each_rest_once_and_soon(video: tuple[Path, VideoTruth]) -> None:
    path, truth = video
    result = score(truth, watch_video(path, DiceReader(mode="pips"), PACED)).to_dict()
    assert result["reported_once"] == 3 and result["extra"] == 0 and result["missed"] == 0
    assert result["read_exactly"] == 3
    assert result["latency_worst_s"] is not None and result["latency_worst_s"] <= 0.5


@pytest.mark.parametrize(("flags", "expected"), [([], SettleConfig()), (["--paced"], PACED)])
def test_the_benchmark_settles_as_asked(
    flags: list[str], expected: SettleConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    used: list[SettleConfig | None] = []
    monkeypatch.setattr(rest_bench, "watch_video", lambda path, reader, config=None, **_: used.append(config) or [])
    folder = write_photo_set(tmp_path / "set")
    assert rest_bench.main([str(folder), "--rests", "1", "--keep", str(tmp_path / "videos"), *flags]) == 0
    assert used == [expected]


def test_rests_missed_or_late_behind_a_still_hand_are_counted(video: tuple[Path, VideoTruth]) -> None:
    _, truth = video
    first, second, third = truth.rests

    def throw(index: int, faces: tuple[int, ...]) -> SettledThrow:
        dice = tuple(DieReading(v, DieBox(10.0 * i, 0.0, 5.0, 5.0), 0.9, "pips") for i, v in enumerate(faces))
        return SettledThrow(dice, (), index / truth.fps, index, index / truth.fps, index)

    late = first.start + round(0.8 * truth.fps)
    throws = [throw(late, first.faces), throw(second.start + 9, second.faces)]  # the third missed
    hand = set(range(first.start, late)) | set(range(second.start, second.end)) | set(range(third.start, third.end))
    # The first is late and the third missed behind a hand; the second came in time despite one.
    assert score(truth, throws, hand).held_by_a_hand == 2
    assert score(truth, throws).held_by_a_hand == 0
    # A hand in under half of a missed rest's frames did not hold it back.
    brief = set(range(third.start, third.start + (third.end - third.start) // 3))
    assert score(truth, throws, brief).held_by_a_hand == 0


def test_the_watcher_tells_the_frames_it_saw_a_hand_in(tmp_path: Path) -> None:
    photos = labelled_photos([write_photo_set(tmp_path / "set")])
    path = tmp_path / "hands.avi"
    truth = make_video(photos, path, rests=2, seed=5, style=VideoStyle(hand_share=0.0, still_hand_share=1.0))
    seen: set[int] = set()
    watch_video(path, DiceReader(mode="pips"), hand_frames=seen)
    # Each still hand holds for a second before its rest, and none lies on a rest.
    assert len(seen) >= truth.fps
    assert not any(rest.start <= index < rest.end for rest in truth.rests for index in seen)

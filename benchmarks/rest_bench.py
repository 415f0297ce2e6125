"""How well the live watcher catches the rests of generated videos (see `benchmarks.rest_videos`).

    python -m benchmarks.rest_bench ../shared/datasets/*/val --rests 16 --videos 2

For each video: rests reported exactly once, missed, extra reports (a second report of one rest, or a
report while the picture moves), rests read exactly (all faces, in play plus set aside) and the
latency from the first still frame of a rest to the frame that reported it, median and worst, and
how many rests were missed or late behind a still "hand" (`held_by_a_hand`). With
`--read-share 1` reading is paced as on one core in real time: a read that takes 80 ms of wall time
blocks reading for the next 80 ms of video. `--light warm` or `cold` films the table under a
coloured light the camera's white balance did not make up for, and `--still-hands SHARE` puts a
hand that holds still before that share of the rests (`--sweeping-hands SHARE`: that share of those
hands sweeps in from one side, over much of the picture). `--paced` settles as the server's camera
loop does (`vision.live.settle.PACED`: a still picture read at most ten times a second, with at most
half a core for reading); by default every still frame is read, as `dicekeeper watch` does.
`--without SET` reads with the models trained without that photo set (`models/lodo/`), as a table
the reader never saw.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from benchmarks.lodo import LEFT_OUT, lodo_reader
from benchmarks.rest_videos import LIGHTS, VideoStyle, VideoTruth, labelled_photos, lit_by, make_video
from vision.live.settle import PACED, DiceReaderLike, SettleConfig, SettledThrow, ThrowWatcher
from vision.live.sources import VideoFileSource

SPLITS = ("train", "val", "test")
LATE = 0.5  # seconds after the dice stop: a report later than this misses the live camera's target


@dataclass
class RestScore:
    rests: int = 0
    reported_once: int = 0
    missed: int = 0
    extra: int = 0
    exact: int = 0
    latencies: list[float] = field(default_factory=list)
    dice: int = 0
    dice_right: int = 0
    # Each rest's photo and whether it was read exactly (a missed rest was not).
    photos_exact: list[tuple[str, bool]] = field(default_factory=list)
    # Rests missed or reported later than `LATE` while the watcher saw a still hand through at
    # least half of their frames. The videos' hands come and go before a rest begins, so these
    # are tables taken for a hand (docs/camera.md, "Tables the hand check takes for a hand").
    held_by_a_hand: int = 0

    def add(self, other: RestScore) -> None:
        for name in ("rests", "reported_once", "missed", "extra", "exact", "dice", "dice_right", "held_by_a_hand"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.latencies += other.latencies
        self.photos_exact += other.photos_exact

    def exact_by_set(self, set_of: Mapping[str, str]) -> dict[str, dict[str, int]]:
        """Rests and rests read exactly for each photo set, `set_of` naming each photo's set."""
        counts: dict[str, dict[str, int]] = {}
        for photo, exact in self.photos_exact:
            row = counts.setdefault(set_of.get(photo, "?"), {"rests": 0, "read_exactly": 0})
            row["rests"] += 1
            row["read_exactly"] += exact
        return dict(sorted(counts.items()))

    def to_dict(self) -> dict[str, object]:
        return {
            "rests": self.rests,
            "reported_once": self.reported_once,
            "missed": self.missed,
            "extra": self.extra,
            "read_exactly": self.exact,
            "read_exactly_share": round(self.exact / self.rests, 3) if self.rests else 0.0,
            "dice_right_share": round(self.dice_right / self.dice, 3) if self.dice else 0.0,
            "latency_median_s": round(statistics.median(self.latencies), 3) if self.latencies else None,
            "latency_worst_s": round(max(self.latencies), 3) if self.latencies else None,
            "held_by_a_hand": self.held_by_a_hand,
        }


def _faces_right(seen: Sequence[int], truth: Sequence[int]) -> int:
    """Dice read right, as a multiset overlap (which die is which does not matter for a score)."""
    left = list(truth)
    right = 0
    for value in seen:
        if value in left:
            left.remove(value)
            right += 1
    return right


def score(truth: VideoTruth, throws: Sequence[SettledThrow], hand_frames: Collection[int] = ()) -> RestScore:
    """Each report belongs to the rest its settling frame lies in; reports outside every rest are extra.
    `hand_frames`: the frames in which the watcher saw a still hand (see `RestScore.held_by_a_hand`)."""
    result = RestScore(rests=len(truth.rests))
    by_rest: dict[int, list[SettledThrow]] = {}
    for throw in throws:
        owner = next((i for i, r in enumerate(truth.rests) if r.start - 1 <= throw.index < r.end), None)
        if owner is None:
            result.extra += 1
        else:
            by_rest.setdefault(owner, []).append(throw)
    for i, rest in enumerate(truth.rests):
        reports = by_rest.get(i, [])
        result.dice += len(rest.faces)
        latency = (reports[0].index - rest.start) / truth.fps if reports else None
        late = latency is None or latency > LATE
        behind_hand = sum(rest.start <= index < rest.end for index in hand_frames)
        result.held_by_a_hand += late and 2 * behind_hand >= rest.end - rest.start
        if latency is None:
            result.missed += 1
            result.photos_exact.append((rest.photo, False))
            continue
        result.reported_once += 1
        result.extra += len(reports) - 1
        first = reports[0]
        seen = sorted(d.value for d in rest.scored(first.dice + first.set_aside))
        result.exact += tuple(seen) == rest.faces
        result.photos_exact.append((rest.photo, tuple(seen) == rest.faces))
        result.dice_right += _faces_right(seen, rest.faces)
        result.latencies.append(latency)
    return result


def watch_video(
    path: str | Path,
    reader: DiceReaderLike,
    config: SettleConfig | None = None,
    on_settled: Callable[[SettledThrow, np.ndarray], None] | None = None,
    hand_frames: set[int] | None = None,
) -> list[SettledThrow]:
    """Every throw the watcher reports on a video, reading as fast as it can (frame time, not wall
    time). `on_settled` also gets the frame each throw settled in; `hand_frames`, when given,
    gets the index of each frame in which the watcher saw a still hand."""
    watcher = ThrowWatcher(reader, config or SettleConfig())
    found = []
    with VideoFileSource(path) as source:
        while not source.finished:
            frame = source.read()
            if frame is None:
                continue
            seen = watcher.feed(frame.image, frame.t, frame.index)
            if hand_frames is not None and seen.status.phase == "hand":
                hand_frames.add(frame.index)
            if seen.settled is not None:
                found.append(seen.settled)
                if on_settled is not None:
                    on_settled(seen.settled, frame.image)
    return found


def main(argv: list[str] | None = None) -> int:
    from vision.live.settle import default_reader

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="labelled photo folders, e.g. ../shared/datasets/*/val")
    parser.add_argument("--rests", type=int, default=16, help="rests per video")
    parser.add_argument("--videos", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--read-share",
        type=float,
        default=None,
        help="pace reading as on one core in real time (1: reading may use the whole core)",
    )
    parser.add_argument(
        "--paced",
        action="store_true",
        help="settle as the server's camera loop does: at most ten reads a second, half a core",
    )
    parser.add_argument("--still-hands", type=float, default=0.0, help="share of rests a still hand comes before")
    parser.add_argument(
        "--sweeping-hands", type=float, default=0.0, help="share of the still hands that sweep in from one side"
    )
    parser.add_argument("--light", choices=sorted(LIGHTS), default="plain", help="a light the camera did not balance")
    parser.add_argument("--no-hand-check", action="store_true", help="settle without looking for still hands")
    parser.add_argument("--keep", type=Path, default=None, help="keep the videos in this folder")
    parser.add_argument(
        "--without",
        choices=LEFT_OUT,
        help="read with the models trained without this photo set (models/lodo/), so its table is new to them",
    )
    args = parser.parse_args(argv)
    photos = labelled_photos(args.folders)
    reader = default_reader() if args.without is None else lodo_reader(args.without)
    total = RestScore()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(args.videos):
            video = folder / f"rests_{args.seed + n}.avi"
            style = lit_by(
                VideoStyle(still_hand_share=args.still_hands, sweeping_hand_share=args.sweeping_hands), args.light
            )
            truth = make_video(photos, video, args.rests, seed=args.seed + n, style=style)
            config = PACED if args.paced else SettleConfig()
            if args.read_share is not None:
                config = replace(config, read_share=args.read_share)
            if args.no_hand_check:
                config = replace(config, hand_wait=None)
            hand_frames: set[int] = set()
            throws = watch_video(video, reader, config, hand_frames=hand_frames)
            result = score(truth, throws, hand_frames)
            print(json.dumps({"video": video.name, **result.to_dict()}), flush=True)
            total.add(result)
    print(json.dumps({"video": "all", **total.to_dict(), "by_set": total.exact_by_set(set_of_photos(args.folders))}))
    return 0


def set_of_photos(folders: Sequence[str]) -> dict[str, str]:
    """Each photo's file name and the set it comes from: the dataset's folder name for a split
    folder (`.../aws-vegas/val`), the folder's own name otherwise."""
    names = {}
    for folder in folders:
        path = Path(folder).resolve()
        name = path.parent.name if path.name in SPLITS else path.name
        for photo in labelled_photos([folder]):
            names[photo.path.name] = name
    return names


if __name__ == "__main__":
    raise SystemExit(main())

"""Does learning a table help? Per-die accuracy of later throws before and after adapting.

    python -m benchmarks.adapt_bench ../shared/datasets/matteop65-webcam/val --rests 20 --confirmed 5
    python -m benchmarks.adapt_bench --rendered-table 3 --rests 20 --confirmed 5

A video is made from the photos under a light the reader was not trained on (a colour cast and a
gamma). The plain reader watches it; the dice of the first `--confirmed` rests are saved to a table
memory with their true faces, as a player confirming them on the phone would, and what the reader
took for a die where none lies is saved as no die, as the player marking it so would (`--no-marks`:
not); so are their pictures with every true face. The table's learner builds the head, fits the
classifier's last layer and chooses the detector's threshold from them (as `serve` does) and the
video is watched again with the adapted reader.
Per-die accuracy counts, over the later rests, the true dice that were found and read right; false
dice, the dice reported where none lies. `--rendered-table SEED` makes the photos first: throws
on one rendered table (`benchmarks.rendered_table`), whose clutter and pattern stay from throw to
throw.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.lodo import LEFT_OUT, lodo_reader
from benchmarks.rendered_table import write_table
from benchmarks.rest_bench import watch_video
from benchmarks.rest_videos import Rest, VideoStyle, VideoTruth, labelled_photos, lit_by, make_video
from vision.adapt.learner import TableLearner
from vision.adapt.memory import NOT_A_DIE, crops_of
from vision.adapt.neighbours import FaceNeighbours
from vision.eval.evaluate import match
from vision.eval.labels import LabelledDie, inside_any
from vision.live.settle import DiceReaderLike, SettledThrow
from vision.types import DieReading

UNSEEN_LIGHT = lit_by(VideoStyle(), "warm")


def true_faces(rest: Rest, dice: Sequence[DieReading]) -> list[int | None]:
    """For each read die, the face of the labelled die it finds as `dicekeeper eval` pairs them
    (`vision.eval.evaluate.match`; None: it finds none). Each labelled die is found once."""
    labels = [LabelledDie(value, box) for box, value in zip(rest.boxes, rest.values)]
    result: list[int | None] = [None] * len(dice)
    for i, j in match(dice, labels):
        result[i] = rest.values[j]
    return result


def on_no_die(rest: Rest, die: DieReading) -> bool:
    """Whether a read die lies on no labelled die: its centre in no label's box, and no label's
    centre in its box (a die read off its label's centre is still that die). A die the labels
    leave out (`Rest.unlabelled`) is a die."""
    box = die.box
    if inside_any(box.center, (*rest.boxes, *rest.unlabelled)):
        return False
    for x0, y0, x1, y1 in rest.boxes:
        if abs((x0 + x1) / 2 - box.cx) <= box.w / 2 and abs((y0 + y1) / 2 - box.cy) <= box.h / 2:
            return False
    return True


def _rest_of(truth: VideoTruth, throw: SettledThrow) -> Rest | None:
    return next((r for r in truth.rests if r.start - 1 <= throw.index < r.end), None)


def per_die_accuracy(truth: VideoTruth, throws: Sequence[SettledThrow], after_rest: int) -> dict[str, float | int]:
    """Over the rests after the first `after_rest`: labelled dice, dice found, and found dice read right."""
    later = truth.rests[after_rest:]
    labelled = sum(len(r.values) for r in later)
    found = right = false = 0
    for throw in throws:
        rest = _rest_of(truth, throw)
        if rest is None or rest not in later:
            continue
        dice = throw.dice + throw.set_aside
        for die, face in zip(dice, true_faces(rest, dice)):
            if face is not None:
                found += 1
                right += die.value == face
            elif on_no_die(rest, die):
                false += 1
    return {
        "labelled": labelled,
        "found": found,
        "right": right,
        "false": false,
        "right_share_of_found": round(right / found, 3) if found else 0.0,
        "right_share_of_labelled": round(right / labelled, 3) if labelled else 0.0,
    }


def confirm_first(
    truth: VideoTruth, video: Path, reader: DiceReaderLike, learner: TableLearner, rests: int, marks: bool = True
) -> int:
    """Watches the video and teaches the learner the first `rests` rests: their dice with their true
    faces (with `marks`, what lies on no die as no die), and their pictures with every true face."""
    saved = 0

    def keep(throw: SettledThrow, image: np.ndarray) -> None:
        nonlocal saved
        rest = _rest_of(truth, throw)
        if rest is None or truth.rests.index(rest) >= rests:
            return
        dice = list(throw.dice + throw.set_aside)
        faces: list[int | None] = [
            NOT_A_DIE if face is None and marks and on_no_die(rest, die) else face
            for die, face in zip(dice, true_faces(rest, dice))
        ]
        known = [(d, f) for d, f in zip(dice, faces) if f is not None]
        if known:
            learner.learn(
                crops_of(image, [d for d, _ in known]),
                [f for _, f in known],
                [d.value for d, _ in known],
                [d.confidence for d, _ in known],
            )
        learner.learn_picture(image, list(rest.values))
        saved += 1

    watch_video(video, reader, on_settled=keep)
    return saved


def main(argv: list[str] | None = None) -> int:
    from vision.live.settle import default_reader

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", help="labelled photo folders of one table, e.g. .../val")
    parser.add_argument("--rendered-table", type=int, metavar="SEED", help="throws on this rendered table instead")
    parser.add_argument("--no-marks", action="store_true", help="teach only the dice, nothing as no die")
    parser.add_argument("--rests", type=int, default=20)
    parser.add_argument("--confirmed", type=int, default=5, help="rests confirmed by the players")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--without",
        choices=LEFT_OUT,
        help="read with the models trained without this photo set (models/lodo/), so the table is new to them",
    )
    args = parser.parse_args(argv)
    if bool(args.folders) == (args.rendered_table is not None):
        parser.error("give photo folders or --rendered-table, one of the two")
    reader = default_reader() if args.without is None else lodo_reader(args.without)
    with tempfile.TemporaryDirectory() as scratch:
        folders = args.folders
        if args.rendered_table is not None:
            folders = [write_table(Path(scratch) / "photos", args.rendered_table, args.rests)]
        photos = labelled_photos(folders)
        video = Path(scratch) / "table.avi"
        truth = make_video(photos, video, args.rests, seed=args.seed, style=UNSEEN_LIGHT)
        learner = TableLearner(Path(scratch) / "memory", reader)
        saved = confirm_first(truth, video, reader, learner, args.confirmed, marks=not args.no_marks)
        before_throws = watch_video(video, reader)
        adapted = learner.reader
        after_throws = watch_video(video, adapted)
        head = adapted.head or FaceNeighbours.fit([])
        print(
            json.dumps(
                {
                    "rests": len(truth.rests),
                    "confirmed_rests": saved,
                    "confirmed_dice": head.size,
                    "min_similarity": None if math.isinf(head.min_similarity) else head.min_similarity,
                    "detector_threshold": learner.detector_threshold,
                    "before": per_die_accuracy(truth, before_throws, args.confirmed),
                    "after": per_die_accuracy(truth, after_throws, args.confirmed),
                    "corrections": adapted.corrected,
                    "classifier_fitted_on": 0 if learner.classifier_fix is None else learner.classifier_fix.dice,
                    "marked_no_die": 0 if learner.classifier_fix is None else learner.classifier_fix.not_dice,
                }
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

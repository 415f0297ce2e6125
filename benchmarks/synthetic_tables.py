"""Read domain-randomised synthetic tables that no model was trained on.

    python benchmarks/synthetic_tables.py [--frames 150] [--seed 9001] [--json]
        [--die-size MIN MAX] [--dice N] [--empty-only] [--no-coarse] [--detector-model PATH]
        [--classifier-model PATH] [--pair DETECTOR CLASSIFIER]...

Frames come from `vision.synth.domain.random_sample` at 1280x720, from a seed far from the
training seeds (the detector's scenes use seeds 100003 and up, see
`datasets/detector_scenes.py`): granite, marble, paper, prints, checks, wood, felt and cloth,
trays, hands, coins, cards, pens and non-d6 dice, dice of any colour, oblique cameras, blur,
noise and JPEG; about one frame in fourteen is an empty table (`--empty-only`: only those, the
first `--frames` of them, to count the dice the reader reports where there are none). `--dice N`
throws N dice on every table (one die: a player's last throw). The
renderer is the one the models learned from, so these figures are a check that nothing
regressed on the kinds of table that real photo sets lack, not a measure of real tables.

Drawing the tables takes about nine tenths of a run, so `--pair` (repeated) reads the same
tables with several detector and classifier models and prints a result for each pair.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.scores import in_percent, print_result  # noqa: E402
from vision.eval.evaluate import Evaluation  # noqa: E402
from vision.eval.labels import LabelledDie  # noqa: E402
from vision.read.classifier import DieFaceClassifier, load_default_classifier  # noqa: E402
from vision.read.detect import DetectorSettings, DiceDetector, load_default_detector  # noqa: E402
from vision.read.models import ModelError  # noqa: E402
from vision.read.reader import DiceReader  # noqa: E402
from vision.synth.domain import random_sample  # noqa: E402


def labelled_frames(
    count: int,
    seed: int,
    width: int = 1280,
    height: int = 720,
    die_size: tuple[float, float] = (15.0, 150.0),
    empty_only: bool = False,
    dice: int | None = None,
) -> list[tuple[np.ndarray, list[LabelledDie]]]:
    """`count` synthetic frames with their dice as labels (top-face boxes); `die_size`: the
    range of die sides in pixels; `dice`: how many dice each table gets (None: drawn). With
    `empty_only`, the first `count` frames without a labelled die."""
    rng = np.random.default_rng(seed)
    frames: list[tuple[np.ndarray, list[LabelledDie]]] = []
    while len(frames) < count:
        sample = random_sample(rng, width, height, die_size=die_size, dice_count=dice)
        if empty_only and len(sample.values):
            continue
        labels = [
            LabelledDie(int(value), (float(x - w / 2), float(y - h / 2), float(x + w / 2), float(y + h / 2)))
            for (x, y), (w, h), value in zip(sample.centres, sample.sizes, sample.values)
        ]
        frames.append((sample.frame, labels))
    return frames


def _reader(detector_model: Path | None, classifier_model: Path | None, settings: DetectorSettings) -> DiceReader:
    detector = (
        DiceDetector(detector_model, settings=settings) if detector_model else load_default_detector(settings=settings)
    )
    classifier = DieFaceClassifier(classifier_model) if classifier_model else load_default_classifier()
    return DiceReader(classifier, detector=detector)


def _score(
    reader: DiceReader, frames: list[tuple[np.ndarray, list[LabelledDie]]], counts_empty_tables: bool
) -> dict[str, object]:
    """The reader's figures on `frames`; with `counts_empty_tables`, the dice it reports on tables
    without a labelled die too (with `--dice`, such a table holds a leaning die, so not then)."""
    evaluation = Evaluation()
    empty_frames = empty_false = 0
    for frame, labels in frames:
        readings = reader.read(frame)
        evaluation.add(readings, labels, 0.0)
        if not labels and counts_empty_tables:
            empty_frames += 1
            empty_false += len(readings)
    summary = evaluation.summary()
    return {
        "labelled_dice": summary["labelled_dice"],
        **in_percent(summary),
        "empty_tables": empty_frames,
        "dice_reported_on_empty_tables": empty_false,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--seed", type=int, default=9001)
    parser.add_argument(
        "--die-size", type=float, nargs=2, default=(15.0, 150.0), metavar=("MIN", "MAX"), help="die sides in pixels"
    )
    parser.add_argument("--dice", type=int, default=None, help="throw this many dice on every table")
    parser.add_argument("--empty-only", action="store_true", help="only frames without a die")
    parser.add_argument("--no-coarse", action="store_true", help="the detector without its coarse look for big dice")
    parser.add_argument("--detector-model", type=Path)
    parser.add_argument("--classifier-model", type=Path)
    parser.add_argument(
        "--pair",
        type=Path,
        nargs=2,
        action="append",
        metavar=("DETECTOR", "CLASSIFIER"),
        help="read the tables with this pair of models; repeated, with each pair (not with the options above)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.pair and (args.detector_model or args.classifier_model):
        parser.error("--pair names both models of each pair; it cannot go with --detector-model or --classifier-model")
    if args.dice is not None and args.dice < 0:
        parser.error(f"--dice must be 0 or more, not {args.dice}")
    if args.dice and args.empty_only:
        parser.error("--empty-only reads tables without dice; it cannot go with --dice above 0")
    cv2.setNumThreads(1)
    settings = DetectorSettings(coarse_side=None) if args.no_coarse else DetectorSettings()
    pairs = args.pair or [(args.detector_model, args.classifier_model)]
    try:
        readers = [_reader(detector, classifier, settings) for detector, classifier in pairs]
    except ModelError as exc:
        parser.error(str(exc))
    frames = labelled_frames(
        args.frames, args.seed, die_size=tuple(args.die_size), empty_only=args.empty_only, dice=args.dice
    )
    for (detector, classifier), reader in zip(pairs, readers):
        result = _score(reader, frames, counts_empty_tables=not args.dice)
        models = {"detector_model": str(detector), "classifier_model": str(classifier)} if args.pair else {}
        drawn = {"frames": args.frames, "seed": args.seed, "die_size": list(args.die_size), "dice_per_table": args.dice}
        result = {**models, **drawn, **result}
        print_result(result, args.json, 30)
    return 0


if __name__ == "__main__":
    sys.exit(main())

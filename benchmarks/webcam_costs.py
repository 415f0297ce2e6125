"""What a webcam costs the reader: a labelled photo set read as stills, then step by step as a
webcam over the table would show it.

    python -m benchmarks.webcam_costs ../shared/datasets/nellbyler-d6/train [--limit 60]
        [--quality 90 70] [--detector-model ONNX] [--classifier-model ONNX] [--json]

Each step adds one thing to the one before: the photo pasted into a 1280x720 frame at the test
videos' scale (`benchmarks.rest_videos`), then the videos' sensor noise, then a JPEG round trip
at each `--quality`. For each step it prints per-die accuracy, precision and exact throws, and
where the dice that were not read right went: not found by the detector, found but dropped (no
face read), or misread.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from benchmarks.rest_videos import compose_frame, labelled_photos, place_photo
from benchmarks.scores import in_percent, print_result
from vision.eval.evaluate import Evaluation, match
from vision.eval.labels import LabelledDie, LabelledImage
from vision.images import downscale, jpeg_round_trip, load_image
from vision.read.classifier import DieFaceClassifier, load_default_classifier
from vision.read.detect import DiceDetector, load_default_detector
from vision.read.reader import DiceReader
from vision.types import DieReading

NOISE = 3.0  # grey levels, as the test videos' camera


@dataclass
class Losses:
    """Where the labelled dice that were not read right went."""

    not_found: int = 0
    dropped: int = 0
    misread: int = 0


def tally(
    reader: DiceReader, frame: np.ndarray, labels: Sequence[LabelledDie], evaluation: Evaluation, losses: Losses
) -> None:
    """Reads `frame`, adds the result to `evaluation` and each lost die to `losses`."""
    inspections = reader.inspect(frame)
    readings = [item.reading for item in inspections if item.reading is not None]
    evaluation.add(readings, labels, 0.0)
    read = {label: index for index, label in match(readings, labels)}
    unread = [DieReading(1, item.candidate.box, 0.0, "dropped") for item in inspections if item.reading is None]
    dropped = {label for _, label in match(unread, labels)}
    for index, label in enumerate(labels):
        if index in read:
            losses.misread += readings[read[index]].value != label.value
        elif index in dropped:
            losses.dropped += 1
        else:
            losses.not_found += 1


def steps(photo: LabelledImage, seed: int, qualities: Sequence[int]) -> list[tuple[str, np.ndarray, list[LabelledDie]]]:
    """The photo as each step shows it, with its dice in that picture's pixels."""
    still, factor = downscale(load_image(photo.path), 1280)
    shown = [("photo, long side 1280", still, [d.scaled(factor) for d in photo.dice])]
    placed = place_photo(photo, random.Random(seed))
    labels = placed.labels()
    frame = compose_frame(placed)
    shown.append(("in a 1280x720 frame", frame, labels))
    noise = np.random.default_rng(seed).normal(0, NOISE, frame.shape)
    frame = np.clip(frame + noise, 0, 255).astype(np.uint8)
    shown.append(("+ sensor noise", frame, labels))
    shown += [(f"+ JPEG quality {quality}", jpeg_round_trip(frame, quality), labels) for quality in qualities]
    return shown


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="labelled photo folders, e.g. ../shared/datasets/aws-vegas/train")
    parser.add_argument("--limit", type=int, default=60, help="read this many photos, drawn with --seed")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--quality", type=int, nargs="+", default=[90, 70], help="JPEG qualities, one step each")
    parser.add_argument("--detector-model", type=Path)
    parser.add_argument("--classifier-model", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.limit < 1 or any(not 1 <= q <= 100 for q in args.quality):
        parser.error("--limit must be at least 1 and each --quality between 1 and 100")
    cv2.setNumThreads(1)
    detector = DiceDetector(args.detector_model) if args.detector_model else load_default_detector()
    classifier = DieFaceClassifier(args.classifier_model) if args.classifier_model else load_default_classifier()
    reader = DiceReader(classifier, detector=detector)
    photos = labelled_photos(args.folders)
    random.Random(args.seed).shuffle(photos)
    results: dict[str, tuple[Evaluation, Losses]] = {}
    for number, photo in enumerate(photos[: args.limit]):
        for name, frame, labels in steps(photo, args.seed * 1000 + number, args.quality):
            evaluation, losses = results.setdefault(name, (Evaluation(), Losses()))
            tally(reader, frame, labels, evaluation, losses)
    for name, (evaluation, losses) in results.items():
        summary = evaluation.summary()
        result = {"step": name, "photos": summary["images"], "labelled_dice": summary["labelled_dice"]}
        print_result({**result, **in_percent(summary), **vars(losses)}, args.json, 15)
        if not args.json:
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The reader alone on webcam frames: the middle frame of each rest of generated videos, read as a still.

    python -m benchmarks.rest_frames ../shared/datasets/nellbyler-d6/train --videos 3 --seed 101
        [--rests 16] [--keep DIR] [--detector-model ONNX] [--classifier-model ONNX] [--json]

The videos are those of `benchmarks.rest_videos` (photos pasted into 1280x720 frames, sensor
noise and JPEG as a webcam gives), so the dice are as small and as compressed as a live camera
shows them. Each rest's middle frame is scored against the rest's boxes as `dicekeeper eval`
scores a photo: per-die accuracy, precision and exact throws. Unlike `benchmarks.rest_bench`,
no watcher, tracking or vote is involved, which keeps the reader's own losses apart.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from benchmarks.rest_videos import VideoTruth, labelled_photos, make_video
from benchmarks.scores import in_percent, print_result
from vision.eval.evaluate import Evaluation
from vision.eval.labels import LabelledDie
from vision.read.classifier import DieFaceClassifier, load_default_classifier
from vision.read.detect import DiceDetector, load_default_detector
from vision.read.reader import DiceReader


def middle_frames(video: str | Path, truth: VideoTruth) -> list[np.ndarray]:
    """The middle frame of each rest of a generated video, in the order of `truth.rests`."""
    wanted = {(rest.start + rest.end) // 2: k for k, rest in enumerate(truth.rests)}
    frames: list[np.ndarray | None] = [None] * len(truth.rests)
    capture = cv2.VideoCapture(str(video))
    try:
        index, last = 0, max(wanted, default=-1)
        while index <= last:
            ok, image = capture.read()
            if not ok:
                break
            if index in wanted:
                frames[wanted[index]] = image
            index += 1
    finally:
        capture.release()
    if any(frame is None for frame in frames):
        raise OSError(f"{video} ends before its last rest")
    return [frame for frame in frames if frame is not None]


def score_rests(reader: DiceReader, video: str | Path, truth: VideoTruth, evaluation: Evaluation) -> None:
    """Adds each rest's middle frame, read by `reader`, to `evaluation`."""
    for rest, frame in zip(truth.rests, middle_frames(video, truth)):
        labels = [LabelledDie(value, box) for value, box in zip(rest.values, rest.boxes)]
        evaluation.add(reader.read(frame), labels, 0.0, rest.unlabelled)


def photos_tag(folders: Sequence[str]) -> str:
    """A short name for the photo folders a video is made from, so that videos of other
    photos kept in the same folder are never taken for these."""
    resolved = "\n".join(str(Path(folder).resolve()) for folder in folders)
    return hashlib.sha256(resolved.encode()).hexdigest()[:10]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="labelled photo folders, e.g. ../shared/datasets/aws-vegas/train")
    parser.add_argument("--rests", type=int, default=16, help="rests per video")
    parser.add_argument("--videos", type=int, default=3)
    parser.add_argument("--seed", type=int, default=101, help="the first video's seed; the next ones count up")
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="keep the videos here and reuse those made from the same photo folders",
    )
    parser.add_argument("--detector-model", type=Path)
    parser.add_argument("--classifier-model", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    detector = DiceDetector(args.detector_model) if args.detector_model else load_default_detector()
    classifier = DieFaceClassifier(args.classifier_model) if args.classifier_model else load_default_classifier()
    reader = DiceReader(classifier, detector=detector)
    photos = labelled_photos(args.folders)
    evaluation = Evaluation()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for seed in range(args.seed, args.seed + args.videos):
            video = folder / f"rests_{seed}_{args.rests}_{photos_tag(args.folders)}.avi"
            saved = Path(f"{video}.json")
            if args.keep and saved.exists():
                truth = VideoTruth.from_json(saved.read_text())
            else:
                truth = make_video(photos, video, args.rests, seed=seed)
            score_rests(reader, video, truth, evaluation)
    summary = evaluation.summary()
    result = {
        "rests": summary["images"],
        "labelled_dice": summary["labelled_dice"],
        **in_percent(summary),
    }
    print_result(result, args.json, 15)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

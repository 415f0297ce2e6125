"""Where the tests find the labelled photo sets: beside the checkout, at ../shared/datasets/NAME,
or under $DICEKEEPER_DATA, which may name one set or the folder that holds the sets."""

from __future__ import annotations

import os
from pathlib import Path

import cv2

from vision.eval.evaluate import Evaluation
from vision.eval.labels import LabelledDie, load_labelled_set
from vision.images import downscale, load_image
from vision.read.classifier import DieFaceClassifier
from vision.read.detect import DiceDetector
from vision.read.reader import DiceReader

REPO = Path(__file__).resolve().parents[2]
BESIDE = REPO.parent / "shared" / "datasets"
LODO = REPO / "models" / "lodo"


def photo_set(name: str, split: str = "val") -> Path | None:
    """The folder of the set `name` that has `split`/images, or None when it is nowhere to be found."""
    given = os.environ.get("DICEKEEPER_DATA")
    candidates = [Path(given), Path(given) / name] if given else []
    for candidate in (*candidates, BESIDE / name):
        if candidate.name == name and (candidate / split / "images").is_dir():
            return candidate
    return None


def unseen_reader(left_out: str) -> DiceReader:
    """The reader with the detector and classifier trained without the photo set `left_out`."""
    return DiceReader(
        DieFaceClassifier(LODO / f"without_{left_out}_classifier.onnx"),
        detector=DiceDetector(LODO / f"without_{left_out}_detector.onnx"),
    )


def evaluate_readers(
    root: Path, split: str, readers: dict[str, DiceReader], max_side: int = 1280
) -> dict[str, Evaluation]:
    """Each reader's evaluation on `split` of the set at `root`, every photo shrunk to `max_side`
    once and read by all of them, OpenCV on one thread."""
    results = {name: Evaluation() for name in readers}
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        for item in load_labelled_set(root, split):
            frame, scale = downscale(load_image(item.path), max_side)
            labels = [LabelledDie(d.value, tuple(v * scale for v in d.box)) for d in item.dice]  # type: ignore[misc]
            for name, reader in readers.items():
                results[name].add(reader.read(frame), labels, 0.0)
    finally:
        cv2.setNumThreads(threads)
    return results

"""The reader on phone photos of many dice on tables it never saw: aws-vegas `val`, read by the
models trained without that set (`models/lodo/`). These photos are the closest of the three
sets to the tables never given out (phone photos, oblique, assorted tables and trays), so they
are held to the bar those tables are held to: 90 % of dice read right at 95 % precision.

Skipped when ../shared/datasets/aws-vegas is absent.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest
from photo_sets import BESIDE, photo_set

from vision.eval.evaluate import Evaluation
from vision.eval.labels import LabelledDie, load_labelled_set
from vision.images import downscale, load_image
from vision.read.classifier import DieFaceClassifier
from vision.read.detect import DiceDetector
from vision.read.reader import DiceReader

pytestmark = [pytest.mark.dataset, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ROOT = photo_set("aws-vegas") or BESIDE / "aws-vegas"
LODO = REPO / "models" / "lodo"
NOT_YET = pytest.mark.xfail(strict=True, reason="not yet met by the learned reader; see docs/vision.md")


@pytest.fixture(scope="module")
def unseen() -> Evaluation:
    if not (ROOT / "val" / "images").is_dir():
        pytest.skip(f"aws-vegas photos not found at {ROOT}")
    reader = DiceReader(
        DieFaceClassifier(LODO / "without_aws_classifier.onnx"),
        detector=DiceDetector(LODO / "without_aws_detector.onnx"),
    )
    evaluation = Evaluation()
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        for item in load_labelled_set(ROOT, "val"):
            frame, scale = downscale(load_image(item.path), 1280)
            labels = [LabelledDie(d.value, tuple(v * scale for v in d.box)) for d in item.dice]  # type: ignore[misc]
            evaluation.add(reader.read(frame), labels, 0.0)
    finally:
        cv2.setNumThreads(threads)
    return evaluation


def test_every_labelled_die_was_scored(unseen: Evaluation) -> None:
    assert len(unseen.images) == 50 and unseen.labelled == 343


@NOT_YET
def test_a_reader_that_never_saw_these_tables_reads_90_percent(unseen: Evaluation) -> None:
    assert unseen.summary()["accuracy"] >= 0.90


def test_a_reader_that_never_saw_these_tables_has_95_percent_precision(unseen: Evaluation) -> None:
    assert unseen.summary()["precision"] >= 0.95

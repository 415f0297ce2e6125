"""How fast the reader reads a webcam frame (pytest-benchmark; `make bench` times it)."""

from __future__ import annotations

import cv2
import pytest
from drawn import draw_table

from vision.read.reader import DiceReader


@pytest.fixture()
def one_thread():  # type: ignore[no-untyped-def]
    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    yield
    cv2.setNumThreads(before)


def test_read_a_1280x720_frame_with_six_dice(benchmark, one_thread) -> None:  # type: ignore[no-untyped-def]
    frame = draw_table(width=1280, height=720, values=(1, 2, 3, 4, 5, 6), seed=3)
    reader = DiceReader(mode="pips")
    readings = benchmark(reader.read, frame)
    assert sorted(r.value for r in readings) == [1, 2, 3, 4, 5, 6]

"""The camera's newest frame for the pages: the picture, what was read in it, and its annotated JPEG,
encoded at most once per frame however many pages watch."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.draw.live import draw_live
from vision.live.settle import Observation
from vision.types import DieReading


@dataclass
class _Newest:
    image: np.ndarray | None = None
    index: int = -1
    observation: Observation | None = None
    readings: tuple[DieReading, ...] = ()
    jpeg: bytes | None = None
    jpeg_index: int = -2


class FrameCache:
    """Written by the camera thread (`put`), read by page threads. Its condition guards all of it."""

    def __init__(self, doubtful_below: float = 0.6) -> None:
        self.doubtful_below = doubtful_below
        self._changed = threading.Condition()
        self._newest = _Newest()

    def put(self, image: np.ndarray, index: int, observation: Observation) -> None:
        with self._changed:
            newest = self._newest
            newest.image, newest.index, newest.observation = image, index, observation
            if observation.readings is not None:
                newest.readings = observation.readings
            elif observation.status.phase in ("moving", "hand"):
                newest.readings = ()
            self._changed.notify_all()

    def wake(self) -> None:
        """Wakes the pages waiting for a frame (the loop is stopping)."""
        with self._changed:
            self._changed.notify_all()

    @property
    def observation(self) -> Observation | None:
        with self._changed:
            return self._newest.observation

    def image(self) -> tuple[np.ndarray | None, int]:
        with self._changed:
            return self._newest.image, self._newest.index

    def annotated(self, note: str = "") -> tuple[np.ndarray | None, int]:
        """The newest frame with the dice and the settle state drawn, and its frame index."""
        with self._changed:
            newest = self._newest
            image, index, observation, readings = newest.image, newest.index, newest.observation, newest.readings
        if image is None or observation is None:
            return None, -1
        return draw_live(image, readings, observation.status, self.doubtful_below, note), index

    def jpeg(self, note: str = "", quality: int = 75) -> tuple[bytes | None, int]:
        with self._changed:
            if self._newest.jpeg_index == self._newest.index and self._newest.jpeg is not None:
                return self._newest.jpeg, self._newest.index
        picture, index = self.annotated(note)
        if picture is None:
            return None, -1
        ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            return None, -1
        with self._changed:
            self._newest.jpeg, self._newest.jpeg_index = data.tobytes(), index
        return data.tobytes(), index

    def wait_frame(self, after: int, timeout: float, stopped: Callable[[], bool]) -> int:
        """Waits for a frame newer than `after` (or for `stopped`); returns the newest index."""
        with self._changed:
            self._changed.wait_for(lambda: self._newest.index != after or stopped(), timeout=timeout)
            return self._newest.index

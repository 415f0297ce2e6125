"""What every frame source shares: the frame, the source's state and the base class.

Both the camera sources (`vision.live.sources`) and the demo table (`vision.live.demo_table`)
build on this module, which imports neither.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from typing import Literal, Protocol

import numpy as np

SourceStatus = Literal["starting", "live", "stalled", "reconnecting", "ended", "failed", "closed"]


class SourceError(Exception):
    """A source that cannot be opened at all (no such file, not a video, unknown name)."""


@dataclass(frozen=True)
class Frame:
    """One BGR picture and when it was taken, in seconds on the source's clock."""

    image: np.ndarray
    t: float
    index: int


@dataclass(frozen=True)
class SourceState:
    """What the dashboard shows about a source."""

    name: str
    status: SourceStatus
    message: str = ""
    frames: int = 0
    fps: float = 0.0  # frames delivered per second, measured
    reconnects: int = 0

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "fps": round(self.fps, 1)}


class FrameSource(Protocol):
    name: str

    def read(self, timeout: float | None = None) -> Frame | None:
        """The next frame, or None when none came within `timeout` or the source has ended."""

    @property
    def state(self) -> SourceState: ...

    @property
    def finished(self) -> bool:
        """No frame will ever come again (ended, failed for good, or closed)."""

    def close(self) -> None: ...


class Capture(Protocol):
    """The part of `cv2.VideoCapture` the sources use; tests pass stand-ins."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def set(self, prop: int, value: float) -> bool: ...

    def get(self, prop: int) -> float: ...

    def release(self) -> None: ...


Opener = Callable[[int | str], Capture]


class RateMeter:
    """Frames per second over the last couple of seconds."""

    def __init__(self, window: float = 2.0) -> None:
        self.window = window
        self._times: list[float] = []

    def tick(self, now: float) -> float:
        self._times.append(now)
        cutoff = now - self.window
        while self._times and self._times[0] < cutoff:
            self._times.pop(0)
        if len(self._times) < 2:
            return 0.0
        return (len(self._times) - 1) / max(1e-6, self._times[-1] - self._times[0])


class BaseSource:
    """State bookkeeping, context manager and iteration shared by all sources."""

    name: str = "source"

    def __init__(self, name: str) -> None:
        self.name = name
        self._state_lock = threading.Lock()
        self._state = SourceState(name, "starting")
        self._rate = RateMeter()

    @property
    def state(self) -> SourceState:
        with self._state_lock:
            return self._state

    @property
    def finished(self) -> bool:
        return self.state.status in ("ended", "failed", "closed")

    def _set_state(self, status: SourceStatus, message: str = "", **changes: object) -> None:
        with self._state_lock:
            self._state = replace(self._state, status=status, message=message, **changes)  # type: ignore[arg-type]  # callers pass only its number fields

    def _delivered(self, now: float) -> None:
        fps = self._rate.tick(now)
        with self._state_lock:
            self._state = replace(self._state, frames=self._state.frames + 1, fps=fps)

    def read(self, timeout: float | None = None) -> Frame | None:
        raise NotImplementedError

    def close(self) -> None:
        self._set_state("closed", "closed")

    def __enter__(self) -> BaseSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        """Every frame until the source finishes; waits through gaps of a live source."""
        while not self.finished:
            frame = self.read(timeout=0.5)
            if frame is not None:
                yield frame

"""Frame sources behind one interface: a camera, a video file, a folder of images, the demo table.

Every source is a context manager that hands out `Frame`s with `read()` and always releases what
it opened on `close()`. Two kinds of delivery:

- live (camera, or a file/demo played in real time): a capture thread keeps only the newest frame,
  so a slow consumer skips frames instead of falling behind; timestamps are `time.monotonic()`.
- pulled (video file, image folder, demo table in virtual time): `read()` returns every frame in
  order, as fast as it is asked; timestamps are frame index / fps on the source's own clock.

A camera that stops delivering is released and reopened with growing pauses; `state` says so.
A camera mounted upside down or on its side is set upright by `TurnedSource` (`open_source(turn=...)`).
"""

from __future__ import annotations

import glob
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.live.frames import (  # noqa: F401  (re-exported: the sources' vocabulary)
    BaseSource,
    Capture,
    Frame,
    FrameSource,
    Opener,
    RateMeter,
    SourceError,
    SourceState,
    SourceStatus,
)

if TYPE_CHECKING:
    from vision.live.demo_table import DemoTable

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mkv", ".mov", ".webm", ".mjpeg", ".mjpg", ".m4v", ".wmv"})

# How far a source's pictures can be turned, in degrees clockwise, and OpenCV's code for each turn.
TURNS = (0, 90, 180, 270)
ROTATE_CODES: dict[int, int] = {
    90: cv2.ROTATE_90_CLOCKWISE,
    180: cv2.ROTATE_180,
    270: cv2.ROTATE_90_COUNTERCLOCKWISE,
}


class LatestFrame:
    """A one-frame mailbox: the producer overwrites, the consumer waits for something newer."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._frame: Frame | None = None
        self._seq = 0
        self._closed = False

    def put(self, frame: Frame) -> None:
        with self._changed:
            self._frame = frame
            self._seq += 1
            self._changed.notify_all()

    def wake(self) -> None:
        """Wakes waiting consumers (the producer's state changed)."""
        with self._changed:
            self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def take(self, seen: int, timeout: float | None, stop: Callable[[], bool]) -> tuple[Frame | None, int]:
        """A frame newer than sequence number `seen`, and its sequence number."""
        with self._changed:
            self._changed.wait_for(lambda: self._closed or self._seq != seen or stop(), timeout=timeout)
            if self._seq != seen and self._frame is not None:
                return self._frame, self._seq
            return None, seen


class LiveSource(BaseSource):
    """Runs `_produce()` in a capture thread; `read()` returns the newest frame not yet handed out.

    A live source that sends no frame for `stall_after` seconds is `stalled` (a camera whose driver
    hangs rather than failing), and `live` again with the next frame.
    """

    stall_after = 0.8

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._box = LatestFrame()
        self._seen = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"capture {name}", daemon=True)
        self._last_frame_at = time.monotonic()

    def start(self) -> LiveSource:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self._produce()
        except Exception as exc:  # a capture thread must never die silently
            self._set_state("failed", f"capture stopped: {exc}")
        finally:
            self._box.wake()

    def _produce(self) -> None:
        raise NotImplementedError

    def _publish(self, image: np.ndarray, index: int) -> None:
        now = time.monotonic()
        self._last_frame_at = now
        if self.state.status == "stalled":
            self._set_state("live")
        self._box.put(Frame(image, now, index))
        self._delivered(now)

    def read(self, timeout: float | None = None) -> Frame | None:
        frame, self._seen = self._box.take(self._seen, timeout, lambda: self.finished)
        if frame is None:
            quiet = time.monotonic() - self._last_frame_at
            if quiet > self.stall_after and self.state.status == "live":
                self._set_state("stalled", f"{self.name} sent no frame for {quiet:.1f} s")
        return frame

    def close(self) -> None:
        self._stop.set()
        self._box.close()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
        self._set_state("closed", "closed")


@dataclass(frozen=True)
class Backoff:
    """Pauses between attempts to reopen a lost camera: first, doubled each time, at most `longest`."""

    first: float = 0.5
    longest: float = 8.0

    def delays(self) -> Iterator[float]:
        delay = self.first
        while True:
            yield delay
            delay = min(self.longest, delay * 2)


class CameraSource(LiveSource):
    """A camera by index (0, 1, ...) or device path (/dev/video0), reopened with backoff when lost."""

    def __init__(
        self,
        device: int | str,
        width: int = 1280,
        height: int = 720,
        fps: float = 30.0,
        opener: Opener | None = None,
        backoff: Backoff = Backoff(),
    ) -> None:
        super().__init__(f"camera {device}")
        self.device = device
        self.size = (width, height)
        self.fps = fps
        self._opener: Opener = opener or _open_capture
        self.backoff = backoff

    def _open(self) -> Capture | None:
        try:
            capture = self._opener(self.device)
        except Exception:  # some backends raise instead of returning a closed capture
            return None
        if not capture.isOpened():
            capture.release()
            return None
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        capture.set(cv2.CAP_PROP_FPS, self.fps)
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # we want the newest frame, not a queue of old ones
        return capture

    def _produce(self) -> None:
        index = 0
        delays = self.backoff.delays()
        ever_opened = False
        while not self._stop.is_set():
            capture = self._open()
            if capture is None:
                delay = next(delays)
                verb = "lost; reopening" if ever_opened else "cannot be opened; retrying"
                self._set_state("reconnecting", f"{self.name} {verb} in {delay:.1f} s")
                self._box.wake()
                self._stop.wait(delay)
                continue
            try:
                if ever_opened:
                    with self._state_lock:
                        self._state = replace(self._state, reconnects=self._state.reconnects + 1)
                ever_opened = True
                self._last_frame_at = time.monotonic()  # a camera just opened is not stalled yet
                self._set_state("live", "")
                while not self._stop.is_set():
                    ok, image = capture.read()
                    if not ok or image is None or image.size == 0:
                        break
                    self._publish(image, index)
                    index += 1
                    delays = self.backoff.delays()  # a camera that delivered starts over with short pauses
            finally:
                capture.release()
            if not self._stop.is_set():
                self._set_state("reconnecting", f"{self.name} stopped sending frames; reopening")
                self._box.wake()


def _open_capture(device: int | str) -> Capture:
    return cv2.VideoCapture(device)


class VideoFileSource(BaseSource):
    """Every frame of a video file in order; `t` is the frame's time in the video."""

    def __init__(self, path: str | os.PathLike[str], opener: Opener | None = None) -> None:
        super().__init__(str(path))
        file = Path(path)
        if not file.is_file():
            raise SourceError(f"{file}: no such video file")
        self._capture: Capture | None = (opener or _open_capture)(str(file))
        if not self._capture.isOpened():
            self._capture.release()
            self._capture = None
            raise SourceError(f"{file}: not a video OpenCV can open")
        fps = self._capture.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and 1.0 <= fps <= 240.0 else 30.0
        self._index = 0
        self._set_state("live")

    def read(self, timeout: float | None = None) -> Frame | None:
        if self._capture is None:
            return None
        ok, image = self._capture.read()
        if not ok or image is None:
            self._capture.release()
            self._capture = None
            self._set_state("ended", f"{self.name}: end of video after {self._index} frames")
            return None
        frame = Frame(image, self._index / self.fps, self._index)
        self._index += 1
        self._delivered(time.monotonic())
        return frame

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None
        if self.state.status != "ended":
            super().close()


class ImageFolderSource(BaseSource):
    """The images of a folder in name order, as frames `1 / fps` seconds apart."""

    def __init__(self, path: str | os.PathLike[str], fps: float = 30.0) -> None:
        super().__init__(str(path))
        folder = Path(path)
        if not folder.is_dir():
            raise SourceError(f"{folder}: no such folder")
        self.files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"{folder}: no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self.fps = fps
        self._next = 0
        self.skipped: list[str] = []
        self._set_state("live")

    def read(self, timeout: float | None = None) -> Frame | None:
        while self._next < len(self.files):
            index = self._next
            self._next += 1
            image = cv2.imread(str(self.files[index]), cv2.IMREAD_COLOR)
            if image is None:
                self.skipped.append(self.files[index].name)
                continue
            self._delivered(time.monotonic())
            return Frame(image, index / self.fps, index)
        if self.state.status == "live":
            skipped = f", {len(self.skipped)} unreadable skipped" if self.skipped else ""
            self._set_state("ended", f"{self.name}: all {len(self.files)} images read{skipped}")
        return None


class PacedSource(LiveSource):
    """Plays a pulled source in real time in its own thread, keeping only the newest frame, as a
    camera would deliver it. Ends when the pulled source ends."""

    def __init__(self, inner: BaseSource, fps: float) -> None:
        super().__init__(inner.name)
        self.inner = inner
        self.fps = fps
        self.shown_at: dict[int, float] = {}  # frame index -> monotonic time it was handed out (last 1000)

    def _publish(self, image: np.ndarray, index: int) -> None:
        super()._publish(image, index)
        self.shown_at[index] = time.monotonic()
        self.shown_at.pop(index - 1000, None)

    def _produce(self) -> None:
        self._set_state("live")
        period = 1.0 / self.fps
        due = time.monotonic()
        while not self._stop.is_set():
            frame = self.inner.read()
            if frame is None:
                inner = self.inner.state
                self._set_state("ended" if inner.status != "failed" else "failed", inner.message)
                return
            self._publish(frame.image, frame.index)
            due += period
            lag = due - time.monotonic()
            if lag > 0:
                self._stop.wait(lag)
            else:
                due = time.monotonic()  # fell behind: drop the debt rather than rush

    def close(self) -> None:
        super().close()
        self.inner.close()


def check_turn(turn: object) -> int:
    """`turn` when it is one of `TURNS` (degrees clockwise); anything else raises `SourceError`."""
    if isinstance(turn, bool) or not isinstance(turn, int) or turn not in TURNS:
        raise SourceError(f"turn must be 0, 90, 180 or 270 degrees clockwise, not {turn!r}")
    return turn


def turn_image(image: np.ndarray, turn: int) -> np.ndarray:
    """`image` turned clockwise by `turn` degrees (one of `TURNS`); the same array for 0."""
    code = ROTATE_CODES.get(check_turn(turn))
    return image if code is None else cv2.rotate(image, code)


class TurnedSource(BaseSource):
    """Another source whose every frame is turned clockwise by `turn` degrees, for a camera mounted
    upside down (180) or on its side (90, 270). Everything else is the inner source's: its state,
    `finished`, the frames' times and indexes; closing this closes the inner source. Frames are
    turned as they are handed out, so a live source turns only the frames that are read."""

    def __init__(self, inner: BaseSource, turn: int) -> None:
        self.turn = check_turn(turn)
        super().__init__(inner.name)
        self.inner = inner

    @property
    def state(self) -> SourceState:
        return self.inner.state

    @property
    def finished(self) -> bool:
        return self.inner.finished

    def read(self, timeout: float | None = None) -> Frame | None:
        frame = self.inner.read(timeout)
        return None if frame is None else replace(frame, image=turn_image(frame.image, self.turn))

    def close(self) -> None:
        self.inner.close()


def turned(source: BaseSource, turn: int) -> BaseSource:
    """`source` with its pictures turned clockwise by `turn` degrees: `source` itself for 0.
    A bad `turn` closes `source` and raises `SourceError`."""
    try:
        check_turn(turn)
    except SourceError:
        source.close()
        raise
    return source if turn == 0 else TurnedSource(source, turn)


def innermost(source: BaseSource) -> BaseSource:
    """The source at the bottom of a stack of wrappers (`PacedSource`, `TurnedSource`)."""
    inner = getattr(source, "inner", None)
    while isinstance(inner, BaseSource):
        source, inner = inner, getattr(inner, "inner", None)
    return source


def demo_table_of(source: BaseSource) -> DemoTable | None:
    """The demo table behind `source` (possibly paced or turned), or None for any other source."""
    from vision.live.demo_table import DemoSource

    inner = innermost(source)
    return inner.table if isinstance(inner, DemoSource) else None


def camera_devices() -> list[str]:
    return sorted(glob.glob("/dev/video*"))


def open_source(
    spec: str,
    realtime: bool | None = None,
    fps: float | None = None,
    seed: int = 1,
    autoplay: bool = True,
    turn: int = 0,
) -> BaseSource:
    """The source a command-line word names: `demo`, a camera index, `/dev/videoN`, a video file or
    a folder of images. `realtime` paces files and the demo like a camera (default: only the demo).
    `autoplay=False` makes the demo table wait to be driven by a game. `turn` (0, 90, 180 or 270
    degrees clockwise) sets upright the pictures of a camera mounted upside down or on its side."""
    check_turn(turn)  # before anything is opened
    return turned(_open_upright(spec, realtime, fps, seed, autoplay), turn)


def _open_upright(spec: str, realtime: bool | None, fps: float | None, seed: int, autoplay: bool) -> BaseSource:
    text = spec.strip()
    if not text:
        raise SourceError("no source given: use demo, a camera number, /dev/videoN, a video file or a folder")
    if text == "demo":
        from vision.live.demo_table import DemoSource, DemoTable

        table = DemoTable(seed=seed, fps=fps or 30.0, autoplay=autoplay)
        source: BaseSource = DemoSource(table)
        return PacedSource(source, table.fps).start() if realtime in (None, True) else source
    if text.isdigit():
        return CameraSource(int(text), fps=fps or 30.0).start()
    if text.startswith("/dev/"):
        if not os.path.exists(text):
            raise SourceError(f"{text}: no such device (found: {', '.join(camera_devices()) or 'none'})")
        return CameraSource(text, fps=fps or 30.0).start()
    path = Path(text)
    if path.is_dir():
        folder = ImageFolderSource(path, fps=fps or 30.0)
        return PacedSource(folder, folder.fps).start() if realtime else folder
    if path.is_file():
        video = VideoFileSource(path)
        return PacedSource(video, fps or video.fps).start() if realtime else video
    raise SourceError(f"{text}: no such file or folder, and not demo, a camera number or /dev/videoN")

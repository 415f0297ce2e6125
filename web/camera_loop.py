"""The live camera loop: one background thread per server that watches the frame source, detects
settled throws and hands them to the `ThrowRecorder`.

Nothing the camera does can stop the server or touch a game by mistake: a source that fails is
reported in the state and opened again later; a frame that fails to read is reported and skipped
before anything reaches the recorder; a source that stops sending frames is shown as stalled.
The loop owns its helpers: a `FrameCache` for the pages, a `ThrowRecorder` for the game and a
`DemoDriver` for the demo table. Lock policy: see `web.workers`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from vision.adapt.memory import crops_of
from vision.live.frames import RateMeter
from vision.live.framing import framing_advice
from vision.live.settle import PACED, DiceReaderLike, SettleConfig, ThrowWatcher
from vision.live.sources import BaseSource, SourceError, SourceState, check_turn, open_source, turned
from web import db as database
from web.background import BackgroundWorker
from web.demo_driver import DemoDriver
from web.frame_cache import FrameCache
from web.games import GameBook
from web.live import Broker
from web.throw_recorder import ThrowRecorder

log = logging.getLogger(__name__)

SourceFactory = Callable[[], BaseSource]


@dataclass(frozen=True)
class LoopState:
    """What the table view shows about the camera."""

    source: SourceState
    phase: str
    in_play: tuple[int, ...] = ()
    set_aside: tuple[int, ...] = ()
    fps: float = 0.0
    read_ms: float = 0.0
    game: int | None = None
    recorded: int = 0
    last_throw: dict[str, Any] | None = None
    error: str = ""
    advice: str = ""  # how to place the camera, when the last throw's dice were small in the picture

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source.to_dict(),
            "phase": self.phase,
            "in_play": list(self.in_play),
            "set_aside": list(self.set_aside),
            "fps": round(self.fps, 1),
            "read_ms": round(self.read_ms, 1),
            "game": self.game,
            "recorded": self.recorded,
            "last_throw": self.last_throw,
            "error": self.error,
            "advice": self.advice,
        }


class BadFrame(ValueError):
    """A frame that is not a colour picture (a camera that delivered garbage): skipped, never read."""


def source_factory(spec: str | SourceFactory, seed: int = 1, turn: int = 0) -> SourceFactory:
    """Opens `spec` (see `vision.live.sources.open_source`) in real time, its pictures turned clockwise
    by `turn` degrees. A video file that has ended is opened again only once it changes on disk, so the
    same recording is never counted twice. A callable `spec` (tests) opens its own source, which is
    turned too. A bad `turn` raises `SourceError` here, before any thread runs."""
    check_turn(turn)
    if callable(spec):
        opener = spec
        return lambda: turned(opener(), turn)
    path = Path(spec)
    seen: dict[str, tuple[float, int]] = {}

    def open_it() -> BaseSource:
        if path.is_file():
            stat = path.stat()
            mark = (stat.st_mtime, stat.st_size)
            if seen.get("file") == mark:
                raise SourceError(f"{spec}: ended; waiting for a new recording")
            seen["file"] = mark
        return open_source(spec, realtime=True, seed=seed, autoplay=False, turn=turn)  # the game drives the demo

    return open_it


class CameraLoop(BackgroundWorker):
    """Frames in, throws recorded. `start()` runs it in a daemon thread; `stop()` ends it and
    releases the source."""

    def __init__(
        self,
        database_path: str,
        book: GameBook,
        broker: Broker,
        open_source: SourceFactory,
        reader: DiceReaderLike,
        config: SettleConfig | None = None,
        doubtful_below: float = 0.6,
        retry_after: float = 2.0,
        on_stop: Callable[[], None] | None = None,
        recorder: ThrowRecorder | None = None,
    ) -> None:
        super().__init__("camera loop", broker)
        self.database_path = database_path
        self.open_source = open_source
        self.config = config or PACED
        self.watcher = ThrowWatcher(reader, self.config)
        self.retry_after = retry_after
        self.on_stop = on_stop
        self.frames = FrameCache(doubtful_below)
        self.recorder = recorder or ThrowRecorder(book, broker, doubtful_below)
        self.demo = DemoDriver(book, broker, self.recorder)
        self._lock = threading.Lock()  # guards the fields below
        self._source: BaseSource | None = None
        self._source_state = SourceState("camera", "starting", "starting")
        self._error = ""
        self._rate = RateMeter()
        self._fps = 0.0
        self._read_ms = 0.0
        self._advice = ""
        self._conn: Any = None

    # ---- running -------------------------------------------------------------------------------
    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        source = self._source
        if source is not None:
            source.close()
        super().stop(timeout)
        self.frames.wake()

    @property
    def running(self) -> bool:
        return super().running and not self._stopping()

    def _run(self) -> None:
        self._conn = database.connect(self.database_path)
        try:
            while not self._stopping():
                source = self._open()
                if source is None:
                    self._stop.wait(self.retry_after)
                    continue
                self._watch(source)
                if not self._stopping():
                    self._stop.wait(self.retry_after)
        finally:
            if self._source is not None:
                self._source.close()
            self._conn.close()
            self.frames.wake()
            if self.on_stop is not None:
                self.on_stop()

    def _open(self) -> BaseSource | None:
        try:
            source = self.open_source()
        except SourceError as exc:
            self._set_source_state(replace(self._source_state, status="failed", message=str(exc)))
            return None
        except Exception as exc:  # a broken backend must not end the loop
            log.exception("cannot open the camera source")
            self._set_source_state(replace(self._source_state, status="failed", message=f"cannot open: {exc}"))
            return None
        self._source = source
        self.watcher.motion.reset()  # the first frame of a new source is not motion
        return source

    def _watch(self, source: BaseSource) -> None:
        with source:
            while not self._stopping():
                frame = source.read(timeout=0.5)
                self._set_source_state(source.state)
                if frame is None:
                    if source.finished:
                        return
                    self._drive_demo(source)
                    continue
                try:
                    self._process(frame.image, frame.t, frame.index)
                    self._drive_demo(source)
                except Exception as exc:  # one bad frame or a database hiccup: report, keep going
                    log.exception("camera loop: frame %s", frame.index)
                    with self._lock:
                        self._error = f"{type(exc).__name__}: {exc}"
        self._set_source_state(source.state)

    def _set_source_state(self, state: SourceState) -> None:
        with self._lock:
            self._source_state = state

    def _process(self, image: np.ndarray, t: float, index: int) -> None:
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise BadFrame(f"frame {index} could not be read as a colour picture; skipped")
        started = time.perf_counter()
        seen = self.watcher.feed(image, t, index)
        spent = time.perf_counter() - started
        with self._lock:
            if seen.readings is not None:
                self._read_ms = spent * 1000.0
            self._fps = self._rate.tick(time.monotonic())
        self.frames.put(image, index, seen)
        if seen.settled is not None:
            advice = framing_advice(seen.settled.dice + seen.settled.set_aside)
            with self._lock:
                self._advice = advice
            self.recorder.on_settled(self._conn, seen.settled, crops_of(image, seen.settled.dice), image)

    def _drive_demo(self, source: BaseSource) -> None:
        self.demo.drive(source, self._conn)
        if self.demo.error:
            with self._lock:
                self._error, self.demo.error = self.demo.error, ""

    # ---- for the pages -----------------------------------------------------------------------
    def state(self) -> LoopState:
        observation = self.frames.observation
        status = observation.status if observation is not None else None
        recorded, last_throw = self.recorder.counts()
        with self._lock:
            return LoopState(
                source=self._source_state,
                phase=status.phase if status is not None else "waiting",
                in_play=tuple(d.value for d in status.in_play) if status is not None else (),
                set_aside=tuple(d.value for d in status.set_aside) if status is not None else (),
                fps=self._fps,
                read_ms=self._read_ms,
                game=self.demo.game,
                recorded=recorded,
                last_throw=last_throw,
                error=self._error,
                advice=self._advice,
            )

    def jpeg(self, quality: int = 75) -> tuple[bytes | None, int]:
        """The annotated newest frame as JPEG, marked when the source is not live."""
        with self._lock:
            status = self._source_state.status
        return self.frames.jpeg("" if status == "live" else status, quality)

    def wait_frame(self, after: int, timeout: float) -> int:
        return self.frames.wait_frame(after, timeout, self._stop.is_set)


def camera_for_serve(requested: str | None) -> str | None:
    """The camera source `dicekeeper serve --source REQUESTED` watches: the first video device,
    or the demo table when asked for (`demo`) or when there is no camera and no source was named."""
    from vision.live.sources import camera_devices

    if requested == "demo":
        return "demo"
    devices = camera_devices()
    if devices:
        return devices[0]
    return "demo" if requested in (None, "auto") else None

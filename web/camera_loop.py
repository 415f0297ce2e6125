"""The live camera loop: one background thread per server that watches the frame source, detects
settled throws and records them in the game that uses the camera.

A settled throw is recorded through `GameBook.record_action` (like every other change) only when
it fits: the game waits for a throw of exactly that many dice and every die was read with
confidence. Otherwise it becomes a pending `Proposal` that the phone shows, to confirm or
correct. Nothing the camera does can stop the server: a source that fails is reported in the
state and opened again later; an error in one frame is reported and the loop goes on.

With the demo table as source, the loop also drives it from the game: when the game waits for a
throw, the table takes away the dice that are not kept and throws as many as are in play.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorekeeper import ScorekeeperError
from vision.draw.live import draw_live
from vision.live.settle import DiceReaderLike, Observation, SettleConfig, SettledThrow, ThrowWatcher
from vision.live.sources import BaseSource, SourceError, SourceState, open_source
from web import db as database
from web.games import GameBook, InputError, StaleVersion
from web.live import ALL_GAMES, Broker

log = logging.getLogger(__name__)

SourceFactory = Callable[[], BaseSource]


class ProposalGone(LookupError):
    """The proposal to confirm is no longer pending (confirmed, replaced or dismissed meanwhile)."""


@dataclass(frozen=True)
class Proposal:
    """A settled throw that did not fit the game: the phone asks the player to confirm or correct it."""

    id: int
    game_id: int
    turn: int  # the game's turn number when it was seen; a later turn drops it
    faces: tuple[int, ...]
    confidences: tuple[float, ...]
    expected: int  # dice the game waits for (0 when it does not wait for a throw)
    reason: str
    t: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "game": self.game_id, "faces": list(self.faces),
            "confidences": [round(c, 3) for c in self.confidences], "expected": self.expected,
            "reason": self.reason,
        }


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source.to_dict(), "phase": self.phase, "in_play": list(self.in_play),
            "set_aside": list(self.set_aside), "fps": round(self.fps, 1), "read_ms": round(self.read_ms, 1),
            "game": self.game, "recorded": self.recorded, "last_throw": self.last_throw, "error": self.error,
        }


@dataclass
class _Shown:
    """The newest frame and what was read in it, for the annotated picture."""

    image: np.ndarray | None = None
    index: int = -1
    observation: Observation | None = None
    readings: tuple = ()
    jpeg: bytes | None = None
    jpeg_index: int = -2


@dataclass
class _Rate:
    times: list[float] = field(default_factory=list)

    def tick(self, now: float) -> float:
        self.times.append(now)
        while self.times and self.times[0] < now - 2.0:
            self.times.pop(0)
        return (len(self.times) - 1) / max(1e-6, self.times[-1] - self.times[0]) if len(self.times) > 1 else 0.0


def source_factory(spec: str, seed: int = 1) -> SourceFactory:
    """Opens `spec` (see `vision.live.sources.open_source`) in real time. A video file that has ended is
    opened again only once it changes on disk, so the same recording is never counted twice."""
    path = Path(spec)
    seen: dict[str, tuple[float, int]] = {}

    def open_it() -> BaseSource:
        if path.is_file():
            stat = path.stat()
            mark = (stat.st_mtime, stat.st_size)
            if seen.get("file") == mark:
                raise SourceError(f"{spec}: ended; waiting for a new recording")
            seen["file"] = mark
        return open_source(spec, realtime=True, seed=seed, autoplay=False)  # the game drives the demo

    return open_it


class CameraLoop:
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
    ) -> None:
        self.database_path = database_path
        self.book = book
        self.broker = broker
        self.open_source = open_source
        self.config = config or SettleConfig(read_interval=0.1, read_share=0.5)
        self.watcher = ThrowWatcher(reader, self.config)
        self.doubtful_below = doubtful_below
        self.retry_after = retry_after
        self.on_stop = on_stop
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._source: BaseSource | None = None
        self._source_state = SourceState("camera", "starting", "starting")
        self._shown = _Shown()
        self._new_frame = threading.Condition()
        self._pending: dict[int, Proposal] = {}
        self._proposal_ids = 0
        self._recorded = 0
        self._last_throw: dict[str, Any] | None = None
        self._error = ""
        self._rate = _Rate()
        self._fps = 0.0
        self._read_ms = 0.0
        self._game: int | None = None
        self._game_tick = -1
        self._conn: sqlite3.Connection | None = None
        self.settled: deque[tuple[SettledThrow, str]] = deque(maxlen=500)  # recent settled throws and their fate

    # ---- running -------------------------------------------------------------------------------
    def start(self) -> CameraLoop:
        self._thread = threading.Thread(target=self._run, name="camera loop", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        source = self._source
        if source is not None:
            source.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        with self._new_frame:
            self._new_frame.notify_all()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stopping()

    def _stopping(self) -> bool:
        """Asked to stop, or the server is shutting down (its broker closed)."""
        if self.broker.closed:
            self._stop.set()
        return self._stop.is_set()

    def _run(self) -> None:
        conn = self._conn = database.connect(self.database_path)
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
            conn.close()
            with self._new_frame:
                self._new_frame.notify_all()
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
                    self._process(source, frame.image, frame.t, frame.index)
                except Exception as exc:  # one bad frame or a database hiccup: report, keep going
                    log.exception("camera loop: frame %s", frame.index)
                    with self._lock:
                        self._error = f"{type(exc).__name__}: {exc}"
        self._set_source_state(source.state)

    def _set_source_state(self, state: SourceState) -> None:
        with self._lock:
            self._source_state = state

    def _process(self, source: BaseSource, image: np.ndarray, t: float, index: int) -> None:
        started = time.perf_counter()
        seen = self.watcher.feed(image, t, index)
        spent = time.perf_counter() - started
        with self._lock:
            if seen.readings is not None:
                self._read_ms = spent * 1000.0
            self._fps = self._rate.tick(time.monotonic())
        with self._new_frame:
            shown = self._shown
            shown.image, shown.index, shown.observation = image, index, seen
            if seen.readings is not None:
                shown.readings = seen.readings
            elif seen.status.phase == "moving":
                shown.readings = ()
            self._new_frame.notify_all()
        if seen.settled is not None:
            self._on_settled(seen.settled)
        self._drive_demo(source)

    # ---- the game ------------------------------------------------------------------------------
    def camera_game(self) -> int | None:
        """The newest unfinished game that reads its dice from the camera."""
        conn = self._conn
        assert conn is not None
        for row in conn.execute("SELECT id FROM games WHERE source = 'camera' ORDER BY id DESC LIMIT 5"):
            if not self.book.state(conn, row["id"])["finished"]:
                return int(row["id"])
        return None

    def _on_settled(self, throw: SettledThrow) -> None:
        conn = self._conn
        assert conn is not None
        game_id = self.camera_game()
        faces = throw.faces
        summary = {"dice": list(faces), "confidence": round(throw.confidence, 3), "t": round(throw.rest_t, 3),
                   "set_aside": [d.value for d in throw.set_aside], "game": game_id}
        if game_id is None:
            self._note(throw, summary, "no camera game")
            return
        state = self.book.state(conn, game_id)
        problem = self._misfit(throw, state)
        if problem is None:
            try:
                self.book.record_action(conn, game_id, "throw", {"dice": list(faces)}, state["version"])
            except StaleVersion:
                problem = "the game changed while the dice settled"
            except (ScorekeeperError, InputError) as exc:
                problem = str(exc)
            else:
                with self._lock:
                    self._pending.pop(game_id, None)
                    self._recorded += 1
                self._note(throw, summary, "recorded")
                return
        expected = state["dice_left"] if state["phase"] == "throw" else 0
        with self._lock:
            self._proposal_ids += 1
            self._pending[game_id] = Proposal(
                self._proposal_ids, game_id, state["turn_number"], faces,
                tuple(d.confidence for d in throw.dice), expected, problem, throw.rest_t)
        self._note(throw, summary, f"to confirm: {problem}")
        self.broker.publish(game_id)  # wakes the phone, which then fetches the proposal

    def _misfit(self, throw: SettledThrow, state: dict[str, Any]) -> str | None:
        """Why the throw cannot be recorded as seen, or None when it fits."""
        if state["phase"] != "throw":
            return "the game is not waiting for a throw" if state["phase"] == "over" else \
                "the game waits for dice to be set aside before the next throw"
        if len(throw.faces) != state["dice_left"]:
            return f"the camera sees {len(throw.faces)} dice thrown, but {state['dice_left']} are in play"
        if throw.doubtful:
            return "the dice were hard to read while they lay still"
        doubtful = [d.value for d in throw.dice if d.confidence < self.doubtful_below]
        if doubtful:
            return f"unsure about {'a die' if len(doubtful) == 1 else 'some dice'} read as {' '.join(map(str, doubtful))}"
        return None

    def _note(self, throw: SettledThrow, summary: dict[str, Any], outcome: str) -> None:
        with self._lock:
            self._last_throw = {**summary, "outcome": outcome}
            self.settled.append((throw, outcome))

    # ---- confirming ----------------------------------------------------------------------------
    def pending(self, conn: Any, game_id: int) -> Proposal | None:
        """The proposal waiting for the player, if any and still about the current turn."""
        with self._lock:
            proposal = self._pending.get(game_id)
        if proposal is None:
            return None
        state = self.book.state(conn, game_id)
        if state["turn_number"] != proposal.turn or state["finished"]:
            with self._lock:
                if self._pending.get(game_id) is proposal:
                    del self._pending[game_id]
            return None
        return proposal

    def confirm(self, conn: Any, game_id: int, proposal_id: int, faces: list[object],
                version: int | None) -> dict[str, Any]:
        """Records the throw the player confirmed (or corrected). Raises ProposalGone, or whatever
        `record_action` raises for faces or a version that do not fit."""
        with self._lock:
            proposal = self._pending.get(game_id)
            if proposal is None or proposal.id != proposal_id:
                raise ProposalGone("nothing to confirm: the camera's proposal was already handled")
            state = self.book.record_action(conn, game_id, "throw", {"dice": faces}, version)
            del self._pending[game_id]
            self._recorded += 1
        return state

    def dismiss(self, game_id: int, proposal_id: int) -> None:
        with self._lock:
            proposal = self._pending.get(game_id)
            if proposal is None or proposal.id != proposal_id:
                raise ProposalGone("nothing to dismiss: the camera's proposal was already handled")
            del self._pending[game_id]
        self.broker.publish(game_id)

    # ---- the demo table ----------------------------------------------------------------------
    def _drive_demo(self, source: BaseSource) -> None:
        from vision.live.demo_table import DemoSource

        inner = getattr(source, "inner", source)
        if not isinstance(inner, DemoSource):
            return
        tick = self.broker.tick(ALL_GAMES)
        if tick == self._game_tick:
            return
        self._game_tick = tick
        conn = self._conn
        assert conn is not None
        game_id = self.camera_game()
        with self._lock:
            self._game = game_id
            waiting = game_id in self._pending
        if game_id is None or waiting:
            return
        state = self.book.state(conn, game_id)
        if state["phase"] != "throw":
            return
        kept = state["kept"][-1]["dice"] if state["kept"] else []
        total = self.book.record(conn, game_id).rules.dice
        try:
            inner.table.ask(state["dice_left"], kept, key=(game_id, state["version"]), total=total)
        except ValueError as exc:  # a game of more dice than the demo table has
            with self._lock:
                self._error = f"demo table: {exc}"

    # ---- for the pages -----------------------------------------------------------------------
    def state(self) -> LoopState:
        with self._lock:
            source_state = self._source_state
            observation = self._shown.observation
            status = observation.status if observation is not None else None
            return LoopState(
                source=source_state,
                phase=status.phase if status is not None else "waiting",
                in_play=tuple(d.value for d in status.in_play) if status is not None else (),
                set_aside=tuple(d.value for d in status.set_aside) if status is not None else (),
                fps=self._fps, read_ms=self._read_ms, game=self._game, recorded=self._recorded,
                last_throw=self._last_throw, error=self._error,
            )

    def annotated(self) -> tuple[np.ndarray | None, int]:
        """The newest frame with the dice and the settle state drawn, and its frame index."""
        with self._new_frame:
            shown = self._shown
            image, index, observation, readings = shown.image, shown.index, shown.observation, shown.readings
        if image is None or observation is None:
            return None, -1
        with self._lock:
            status = self._source_state.status
        note = "" if status == "live" else status
        return draw_live(image, readings, observation.status, self.doubtful_below, note), index

    def jpeg(self, quality: int = 75) -> tuple[bytes | None, int]:
        """The annotated frame as JPEG, encoded at most once per frame however many pages watch."""
        with self._new_frame:
            if self._shown.jpeg_index == self._shown.index and self._shown.jpeg is not None:
                return self._shown.jpeg, self._shown.index
        picture, index = self.annotated()
        if picture is None:
            return None, -1
        ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            return None, -1
        with self._new_frame:
            self._shown.jpeg, self._shown.jpeg_index = data.tobytes(), index
        return data.tobytes(), index

    def wait_frame(self, after: int, timeout: float) -> int:
        """Waits for a frame newer than `after`; returns the newest index."""
        with self._new_frame:
            self._new_frame.wait_for(lambda: self._shown.index != after or self._stop.is_set(), timeout=timeout)
            return self._shown.index


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

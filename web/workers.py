"""The server's background workers: the camera loop and the computer players.

They run only when started: `dicekeeper serve` calls `start_workers(app)` after `create_app`, and
tests that want them use a fixture that does the same. `create_app` and blueprint registration
start no thread, so a test app or a second app never runs workers it did not ask for.
`stop_workers(app)` stops them and waits for their threads; closing the app's broker (the server
shutting down) also makes every worker end by itself.

Lock policy, for every worker and its helpers:
- each object guards its own mutable state with its own lock and holds it only for that state;
- a lock may be held while calling the `GameBook` (which takes only a game's lock and the
  database) but never while calling another worker object, waiting on the broker or the source,
  or reading dice, so no two of our locks are ever nested and none is held for a frame's work;
- a thread owns its own SQLite connection; page threads use `web.db.get_db()`.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from vision.adapt.learner import TableLearner
from vision.adapt.memory import NOT_A_DIE
from web import dice_sources
from web.camera import EXTENSION as CAMERA
from web.camera_loop import CameraLoop, source_factory
from web.computer import EXTENSION as COMPUTERS
from web.computer import ComputerPlayers, enabled
from web.throw_recorder import Proposal, ThrowRecorder

LEARNER = "dicekeeper.table"


def start_camera(app: Flask) -> CameraLoop | None:
    """Starts the camera loop when `CAMERA_SOURCE` is set: "demo", a camera number, a device path, a
    video file or folder, or (tests) a callable returning an opened `vision.live.sources` source.
    `CAMERA_TURN` (0, 90, 180 or 270 degrees clockwise) turns its pictures upright; any other value
    raises `vision.live.sources.SourceError` before the loop starts."""
    spec = app.config.get("CAMERA_SOURCE")
    if not spec or app.extensions.get(CAMERA) is not None:
        return app.extensions.get(CAMERA)
    from vision.live.settle import PACED, default_reader

    seed = int(app.config.get("CAMERA_SEED") or 1)
    # A bad CAMERA_TURN raises SourceError here, at start, rather than in the camera thread.
    opener = source_factory(spec if callable(spec) else str(spec), seed=seed, turn=app.config.get("CAMERA_TURN", 0))
    learner = TableLearner(table_memory_folder(app), app.config.get("CAMERA_READER") or default_reader())
    book, broker = app.extensions["dicekeeper.games"], app.extensions["dicekeeper.live"]
    recorder = ThrowRecorder(book, broker, on_confirmed=lambda proposal, faces: learn(learner, proposal, faces))
    loop = CameraLoop(
        app.config["DATABASE"],
        book,
        broker,
        opener,
        learner.reader,
        app.config.get("CAMERA_SETTLE") or PACED,
        retry_after=float(app.config.get("CAMERA_RETRY_AFTER") or 2.0),
        recorder=recorder,
    )
    app.extensions[LEARNER] = learner
    loop.on_stop = lambda: dice_sources.watch_camera(id(loop), False)
    app.extensions[CAMERA] = loop
    if not app.config.get("CAMERA_FRAME_URL"):
        app.config["CAMERA_FRAME_URL"] = "/camera/stream.mjpg"
    dice_sources.watch_camera(id(loop), True)
    return loop.start()


def table_memory_folder(app: Flask) -> Path:
    """Where the confirmed throws of the camera's table are kept: `TABLE_MEMORY`, or next to the database."""
    return Path(app.config.get("TABLE_MEMORY") or Path(app.config["DATABASE"]).parent / "table-memory")


def learn(learner: TableLearner, proposal: Proposal, faces: list[int | None]) -> None:
    """A throw the player confirmed or corrected: its picture with every face in it, and the camera's
    dice with their crops (a die marked as none is taught as no die). `faces` lists the camera's dice
    in the proposal's order, then any the camera missed."""
    dice = [face for face in faces if face is not None]
    if not dice:
        return
    if proposal.picture is not None:
        learner.learn_picture(proposal.picture, [*dice, *proposal.set_aside])
    crops = proposal.crops
    if crops is None or len(faces) < len(crops):
        return  # a die of the camera's removed on the phone: which crop is which face is unknown
    seen = [NOT_A_DIE if face is None else face for face in faces[: len(crops)]]
    boxes = proposal.boxes if len(proposal.boxes) == len(crops) else None
    learner.learn(crops, seen, proposal.faces, proposal.confidences, boxes)


def start_computers(app: Flask) -> ComputerPlayers | None:
    """Starts the computer players unless `COMPUTER_PLAYERS` is false (or unset in a TESTING app)."""
    if not enabled(app) or app.extensions.get(COMPUTERS) is not None:
        return app.extensions.get(COMPUTERS)
    worker = ComputerPlayers(
        app.config["DATABASE"],
        app.extensions["dicekeeper.games"],
        app.extensions["dicekeeper.live"],
        pace=float(app.config.get("COMPUTER_PACE") or 0.0),
    )
    app.extensions[COMPUTERS] = worker
    return worker.start()


def start_workers(app: Flask) -> None:
    start_camera(app)
    start_computers(app)


def stop_workers(app: Flask, timeout: float = 5.0) -> None:
    """Stops every worker of `app` and waits up to `timeout` seconds for each thread to end."""
    loop: CameraLoop | None = app.extensions.get(CAMERA)
    if loop is not None:
        loop.stop(timeout)
    computers: ComputerPlayers | None = app.extensions.get(COMPUTERS)
    if computers is not None:
        computers.stop(timeout)

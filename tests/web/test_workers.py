"""Background workers run only when started: never as a side effect of create_app."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from vision.adapt.memory import NOT_A_DIE
from vision.live.sources import SourceError
from vision.read.reader import DiceReader
from vision.types import DieBox
from web import create_app
from web.throw_recorder import Proposal
from web.workers import learn, start_workers, stop_workers


def config(tmp_path: Path) -> dict[str, object]:
    return {
        "TESTING": True,
        "DATABASE": str(tmp_path / "workers.sqlite3"),
        "DICE_SOURCE": "camera",
        "CAMERA_SOURCE": "demo",
        "CAMERA_READER": DiceReader(mode="pips"),
        "COMPUTER_PLAYERS": True,
    }


def test_create_app_starts_no_thread(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    app = create_app(config(tmp_path))
    app.test_client().get("/camera/state")
    time.sleep(0.2)
    assert set(threading.enumerate()) - before == set()
    assert "dicekeeper.camera" not in app.extensions and "dicekeeper.computer" not in app.extensions
    assert app.test_client().get("/camera/state").get_json()["source"]["status"] == "off"


def test_start_and_stop_workers_of_one_app_leave_no_thread_behind(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    app = create_app(config(tmp_path))
    other = create_app({**config(tmp_path), "DATABASE": str(tmp_path / "other.sqlite3")})
    start_workers(app)
    start_workers(app)  # a second call starts nothing more
    names = sorted(t.name for t in set(threading.enumerate()) - before)
    assert names.count("camera loop") == 1 and names.count("computer players") == 1
    assert "dicekeeper.camera" not in other.extensions
    deadline = time.monotonic() + 10
    while app.test_client().get("/camera/state").get_json()["source"]["status"] != "live":
        assert time.monotonic() < deadline, "the demo camera never went live"
        time.sleep(0.05)
    stop_workers(app)
    time.sleep(0.1)
    assert set(threading.enumerate()) - before == set()


def test_the_camera_turn_defaults_to_0_and_a_bad_one_is_refused_before_any_thread(tmp_path: Path) -> None:
    assert create_app(config(tmp_path)).config["CAMERA_TURN"] == 0
    for bad in (45, "180", None):
        before = set(threading.enumerate())
        app = create_app({**config(tmp_path), "CAMERA_TURN": bad})
        with pytest.raises(SourceError, match="turn must be 0, 90, 180 or 270 degrees clockwise"):
            start_workers(app)
        assert set(threading.enumerate()) - before == set()
        assert "dicekeeper.camera" not in app.extensions
        stop_workers(app)
        app.extensions["dicekeeper.live"].close()


class RecordingLearner:
    def __init__(self) -> None:
        self.pictures: list[list[int]] = []
        self.throws: list[list[int]] = []
        self.boxes: list[object] = []

    def learn_picture(self, frame_bgr: np.ndarray, faces: list[int]) -> None:
        self.pictures.append(list(faces))

    def learn(self, crops: np.ndarray, faces: list[int], read: object, confidences: object, boxes: object) -> None:
        assert len(crops) == len(faces) and (boxes is None or len(boxes) == len(faces))
        self.throws.append(list(faces))
        self.boxes.append(boxes)


def test_a_corrected_throw_teaches_its_picture_and_the_crops_it_can_tell_apart() -> None:
    picture = np.zeros((20, 30, 3), np.uint8)
    crops = np.zeros((2, 32, 32, 3), np.uint8)
    boxes = (DieBox(8, 10, 8, 8), DieBox(20, 10, 8, 8))
    proposal = Proposal(1, 1, 1, (2, 4), (0.9, 0.9), 3, "2 dice, 3 expected", 0.0, (), crops, picture, (6,), boxes)
    learner = RecordingLearner()
    learn(learner, proposal, [2, 4, 5])  # a die the camera missed, added after its own two
    assert learner.pictures == [[2, 4, 5, 6]] and learner.throws == [[2, 4]] and learner.boxes == [boxes]
    learn(learner, proposal, [2, 3])
    assert learner.pictures[-1] == [2, 3, 6] and learner.throws[-1] == [2, 3]
    learn(learner, proposal, [None, 3])  # the first "die" was a spot on the table
    assert learner.pictures[-1] == [3, 6] and learner.throws[-1] == [NOT_A_DIE, 3]
    learn(learner, proposal, [5])  # one of the camera's dice removed: which is which is unknown
    assert learner.pictures[-1] == [5, 6] and len(learner.throws) == 3
    learn(learner, proposal, [None, None])  # nothing left to record: nothing is taught
    assert len(learner.pictures) == 4 and len(learner.throws) == 3

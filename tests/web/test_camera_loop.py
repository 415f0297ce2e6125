"""The server's camera loop: throws that fit are recorded, the others wait on the phone; the camera's
state on the dashboard; a source that dies mid-game and comes back."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from web_helpers import LiveServer

from vision.adapt.memory import NOT_A_DIE, TableMemory
from vision.live.demo_table import DemoTable
from vision.live.settle import SettleConfig
from vision.live.sources import Backoff, BaseSource, CameraSource, Frame
from vision.read.reader import DiceReader
from vision.types import DieBox, DieReading
from web import create_app
from web.camera_loop import CameraLoop

FPS = 30.0


def die(value: int, x: float, confidence: float = 0.95) -> DieReading:
    return DieReading(value, DieBox(x, 200.0, 40.0, 40.0, 0.0), confidence, "pips")


class ScriptedReader:
    """Reads what the script says the frame shows (frames carry their script line in pixel 0,0)."""

    def __init__(self, script: list[Sequence[DieReading]]) -> None:
        self.script = script

    def read(self, frame_bgr: np.ndarray) -> list[DieReading]:
        line = int(frame_bgr[0, 0, 0])
        if line == 255:
            raise RuntimeError("the reader choked on this frame")
        return list(self.script[line])


class ScriptedSource(BaseSource):
    """Pulled frames: `roll()` queues tumbling frames then still frames showing a script line."""

    def __init__(self) -> None:
        super().__init__("scripted")
        self._frames: list[np.ndarray] = []
        self._lock = threading.Lock()
        self._index = 0
        self._rng = np.random.default_rng(1)
        self._set_state("live")

    def show(self, line: int, moving: int = 8, still: int = 20) -> None:
        frames = []
        for _ in range(moving):
            image = self._rng.integers(0, 250, (120, 160, 3), dtype=np.uint8)
            frames.append(image)
        calm = np.full((120, 160, 3), 90, np.uint8)
        calm[0, 0, 0] = line
        calm[40:80, 10 + 10 * (line % 10) : 40 + 10 * (line % 10)] = 200  # each line looks different
        frames.extend([calm] * still)
        with self._lock:
            self._frames.extend(frames)

    def read(self, timeout: float | None = None) -> Frame | None:
        with self._lock:
            if not self._frames:
                image = None
            else:
                image = self._frames.pop(0)
        if image is None:
            time.sleep(0.01)
            return None
        frame = Frame(image, self._index / FPS, self._index)
        self._index += 1
        return frame

    def push(self, image: np.ndarray) -> None:
        with self._lock:
            self._frames.append(image)

    @property
    def drained(self) -> bool:
        with self._lock:
            return not self._frames


def wait_for(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


@pytest.fixture
def scripted(tmp_path: Path, workers) -> Iterator[tuple[Flask, ScriptedSource, list[list[DieReading]]]]:
    script: list[list[DieReading]] = [[]]
    source = ScriptedSource()
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "loop.sqlite3"),
            "DICE_SOURCE": "camera",
            "CAMERA_SOURCE": lambda: source,
            "CAMERA_READER": ScriptedReader(script),
            "CAMERA_SETTLE": SettleConfig(read_interval=0.0),
        }
    )
    yield workers(app), source, script


def camera_app(database: Path, source: Any, **config: Any) -> Flask:
    """A camera game's app reading `source` with the pips reader (no model needed)."""
    settings = {"TESTING": True, "DATABASE": str(database), "DICE_SOURCE": "camera", "CAMERA_SOURCE": source}
    return create_app({**settings, "CAMERA_READER": DiceReader(mode="pips"), **config})


def new_game(client, **create: Any) -> tuple[int, dict[str, str]]:
    body = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": "farkle", **create}).get_json()
    assert body["state"]["source"] == "camera"
    return body["id"], {"Authorization": f"Bearer {body['token']}"}


def show(source: ScriptedSource, script: list[list[DieReading]], dice: list[DieReading]) -> int:
    script.append(dice)
    line = len(script) - 1
    source.show(line)
    assert wait_for(lambda: source.drained)
    time.sleep(0.05)
    return line


def events(client, game_id: int) -> list[dict[str, Any]]:
    return client.get(f"/api/games/{game_id}/events").get_json()


SIX = [die(v, 30 + 60 * i) for i, v in enumerate([1, 5, 2, 3, 4, 6])]


def test_a_throw_that_fits_is_recorded_once(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    game_id, auth = new_game(client)
    show(source, script, SIX)
    assert wait_for(lambda: len(events(client, game_id)) == 1)
    assert events(client, game_id)[0] == {**events(client, game_id)[0], "type": "throw", "faces": [1, 5, 2, 3, 4, 6]}
    show(source, script, SIX)  # the same dice after a bump of the table
    time.sleep(0.1)
    assert len(events(client, game_id)) == 1
    state = client.get("/camera/state").get_json()
    assert state["recorded"] == 1 and state["last_throw"]["outcome"] == "recorded"
    assert state["source"]["status"] == "live" and state["game"] in (None, game_id)


def test_a_wrong_count_waits_for_the_phone_which_can_correct_it(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    game_id, auth = new_game(client)
    show(source, script, SIX[:5])  # one die rolled off the table
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    assert wait_for(lambda: loop.state().last_throw is not None)
    assert events(client, game_id) == []
    assert client.get(f"/camera/games/{game_id}/pending").status_code == 403  # needs the token
    pending = client.get(f"/camera/games/{game_id}/pending", headers=auth).get_json()["pending"]
    assert pending["faces"] == [1, 5, 2, 3, 4] and pending["expected"] == 6
    assert "5 dice" in pending["reason"] and "6 are in play" in pending["reason"]

    bad = client.post(
        f"/camera/games/{game_id}/confirm", headers=auth, json={"proposal": pending["id"], "dice": [1, 5, 2, 3, 4]}
    )
    assert bad.status_code == 422  # the rules want six dice: nothing recorded, still pending
    assert client.get(f"/camera/games/{game_id}/pending", headers=auth).get_json()["pending"] is not None
    ok = client.post(
        f"/camera/games/{game_id}/confirm",
        headers=auth,
        json={"proposal": pending["id"], "dice": [1, 5, 2, 3, 4, 4], "version": 0},
    )
    assert ok.status_code == 200 and ok.get_json()["throw"] == [1, 5, 2, 3, 4, 4]
    again = client.post(
        f"/camera/games/{game_id}/confirm", headers=auth, json={"proposal": pending["id"], "dice": [1, 5, 2, 3, 4, 4]}
    )
    assert again.status_code == 409  # never twice
    assert [e["faces"] for e in events(client, game_id) if e["type"] == "throw"] == [[1, 5, 2, 3, 4, 4]]


def test_a_doubtful_die_is_proposed_and_can_be_dismissed(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    game_id, auth = new_game(client)
    unsure = SIX[:5] + [die(6, 330, confidence=0.3)]
    show(source, script, unsure)
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    assert wait_for(lambda: loop.state().last_throw is not None)
    pending = client.get(f"/camera/games/{game_id}/pending", headers=auth).get_json()["pending"]
    assert pending["faces"] == [1, 5, 2, 3, 4, 6] and "read as 6" in pending["reason"]
    assert (
        client.post(f"/camera/games/{game_id}/dismiss", headers=auth, json={"proposal": pending["id"]}).status_code
        == 200
    )
    assert client.get(f"/camera/games/{game_id}/pending", headers=auth).get_json()["pending"] is None
    assert (
        client.post(f"/camera/games/{game_id}/dismiss", headers=auth, json={"proposal": pending["id"]}).status_code
        == 409
    )
    assert events(client, game_id) == []


def test_a_corrected_throw_is_kept_with_its_crops_and_the_reader_learns_it(scripted, tmp_path: Path) -> None:
    app, source, script = scripted
    client = app.test_client()
    game_id, auth = new_game(client)
    show(source, script, SIX[:5] + [die(6, 330, confidence=0.3)])
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    assert wait_for(lambda: loop.state().last_throw is not None)
    pending = client.get(f"/camera/games/{game_id}/pending", headers=auth).get_json()["pending"]
    corrected = [1, 5, 2, 3, 4, 5]  # the player says the unsure 6 is a 5
    answer = client.post(
        f"/camera/games/{game_id}/confirm", headers=auth, json={"proposal": pending["id"], "dice": corrected}
    )
    assert answer.status_code == 200
    memory = TableMemory(tmp_path / "table-memory")
    examples = memory.examples()
    assert len(memory) == 1 and [e.face for e in examples] == corrected
    assert [e.read for e in examples] == [1, 5, 2, 3, 4, 6] and examples[0].crop.shape == (32, 32, 3)
    learner = app.extensions["dicekeeper.table"]
    assert learner.reader is loop.watcher.reader and learner.reader.head.size == 6
    assert (tmp_path / "table-memory" / "adaptation.npz").is_file()


def test_a_spot_the_camera_took_for_a_die_can_be_marked_as_none_and_is_taught(scripted, tmp_path: Path) -> None:
    app, source, script = scripted
    client = app.test_client()
    game_id, auth = new_game(client)
    show(source, script, SIX + [die(1, 400)])  # a coin beside the six dice, read as a one
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    assert wait_for(lambda: loop.state().last_throw is not None)
    pending = client.get(f"/camera/games/{game_id}/pending", headers=auth).get_json()["pending"]
    assert pending["faces"] == [1, 5, 2, 3, 4, 6, 1] and "7 dice" in pending["reason"]
    url = f"/camera/games/{game_id}/confirm"
    beyond = client.post(url, headers=auth, json={"proposal": pending["id"], "dice": [1, 5, 2, 3, 4, 6, 1, None]})
    assert beyond.status_code == 400 and "camera saw" in beyond.get_json()["error"]
    nothing = client.post(url, headers=auth, json={"proposal": pending["id"], "dice": [None] * 7})
    assert 400 <= nothing.status_code < 500
    assert events(client, game_id) == [] and len(TableMemory(tmp_path / "table-memory")) == 0
    ok = client.post(url, headers=auth, json={"proposal": pending["id"], "dice": [1, 5, 2, 3, 4, 6, None]})
    assert ok.status_code == 200 and ok.get_json()["throw"] == [1, 5, 2, 3, 4, 6]
    assert [e["faces"] for e in events(client, game_id) if e["type"] == "throw"] == [[1, 5, 2, 3, 4, 6]]
    examples = TableMemory(tmp_path / "table-memory").examples()
    assert [e.face for e in examples] == [1, 5, 2, 3, 4, 6, NOT_A_DIE] and not examples[-1].is_die
    learner = app.extensions["dicekeeper.table"]
    assert learner.reader.head.size == 6  # the head votes on faces: what is no die has none


def faces_shown(phone) -> list[str]:
    return [b.text for b in phone.find_elements("css selector", "#camera-faces button")]


def tap(phone, index: int, times: int = 1) -> None:
    for _ in range(times):
        phone.find_elements("css selector", "#camera-faces button")[index].click()


@pytest.mark.browser
@pytest.mark.slow
def test_the_phone_marks_a_spot_as_no_die_and_confirms_the_throw_in_a_browser(
    scripted, tmp_path: Path, open_window
) -> None:
    app, source, script = scripted
    server = LiveServer(app)
    try:
        client = app.test_client()
        game = client.post("/api/games", json={"players": ["Ann"], "rules": "farkle", "source": "camera"}).get_json()
        phone = open_window((390, 844))
        phone.get(f"{server.url}/games/{game['id']}/play?token={game['token']}")
        show(source, script, SIX + [die(1, 400)])  # a coin beside the six dice, read as a one
        panel = phone.find_element("id", "camera-confirm")
        assert wait_for(panel.is_displayed, 10), "the phone never asked about the throw"
        assert faces_shown(phone) == ["1", "5", "2", "3", "4", "6", "1"]
        tap(phone, 6, 5)
        assert faces_shown(phone)[6] == "6"
        tap(phone, 6)  # after 6 comes "not a die" for the camera's own dice
        assert faces_shown(phone)[6] == "✕"
        assert "not a die" in phone.find_elements("css selector", "#camera-faces button")[6].get_attribute("aria-label")
        phone.find_element("id", "camera-add").click()  # a die the player adds goes 6 -> 1, never to "not a die"
        tap(phone, 7, 6)
        assert faces_shown(phone)[7] == "1"
        phone.find_element("id", "camera-remove").click()  # the added die goes
        assert faces_shown(phone) == ["1", "5", "2", "3", "4", "6", "✕"]
        phone.find_element("id", "camera-remove").click()  # then the camera's own are marked, not taken away
        assert faces_shown(phone) == ["1", "5", "2", "3", "4", "✕", "✕"]
        tap(phone, 5)
        assert faces_shown(phone)[5] == "1"
        tap(phone, 5, 5)
        phone.find_element("id", "camera-ok").click()
        assert wait_for(lambda: [e["faces"] for e in events(client, game["id"]) if e["type"] == "throw"] != [], 10)
        assert [e["faces"] for e in events(client, game["id"]) if e["type"] == "throw"] == [[1, 5, 2, 3, 4, 6]]
        assert wait_for(lambda: not panel.is_displayed(), 5)
        examples = TableMemory(tmp_path / "table-memory").examples()
        assert [e.face for e in examples] == [1, 5, 2, 3, 4, 6, NOT_A_DIE]
    finally:
        server.stop()


def test_a_throw_while_the_game_waits_for_a_keep_is_not_recorded(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    game_id, auth = new_game(client)
    show(source, script, SIX)
    assert wait_for(lambda: len(events(client, game_id)) == 1)
    show(source, script, [die(2, 500), die(2, 560)])  # thrown again before setting aside
    time.sleep(0.1)
    assert len(events(client, game_id)) == 1
    pending = client.get(f"/camera/games/{game_id}/pending", headers=auth).get_json()["pending"]
    assert pending is not None and "set aside" in pending["reason"]


def test_without_a_camera_game_nothing_is_recorded(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    other = client.post("/api/games", json={"players": ["Ann"], "source": "virtual"}).get_json()["id"]
    show(source, script, SIX)
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    assert wait_for(lambda: loop.state().last_throw is not None)
    assert loop.state().last_throw["outcome"] == "no camera game"
    assert events(client, other) == []


def test_a_frame_that_breaks_the_reader_is_reported_and_the_loop_goes_on(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    game_id, _ = new_game(client)
    source.show(255, moving=3, still=6)
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    assert wait_for(lambda: "choked" in loop.state().error)
    assert loop.running
    show(source, script, SIX)
    assert wait_for(lambda: len(events(client, game_id)) == 1)


def test_a_frame_that_failed_to_read_is_skipped_and_never_touches_the_game(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    game_id, _ = new_game(client)
    show(source, script, SIX)
    assert wait_for(lambda: len(events(client, game_id)) == 1)
    state = client.get(f"/api/games/{game_id}").get_json()
    for broken in (np.zeros((120, 160), np.uint8), np.zeros((0, 0, 3), np.uint8)):
        source.push(broken)
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    assert wait_for(lambda: "could not be read" in loop.state().error)
    calm = np.full((120, 160, 3), 90, np.uint8)  # the picture after the bad frames is judged as before
    calm[0, 0, 0] = len(script) - 1
    calm[40:80, 10 + 10 * ((len(script) - 1) % 10) : 40 + 10 * ((len(script) - 1) % 10)] = 200
    for _ in range(20):
        source.push(calm)
    assert wait_for(lambda: source.drained)
    time.sleep(0.1)
    assert client.get(f"/api/games/{game_id}").get_json() == state
    assert loop.running


def test_the_annotated_picture_as_jpeg_and_mjpeg(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    show(source, script, SIX)
    response = client.get("/camera/frame.jpg")
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    picture = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == (120, 160, 3)
    stream = client.get("/camera/stream.mjpg", buffered=False)
    assert stream.mimetype == "multipart/x-mixed-replace"
    first = next(stream.response)
    assert first.startswith(b"--frame\r\nContent-Type: image/jpeg") and b"\xff\xd8" in first
    stream.close()


def test_the_table_page_shows_the_camera_picture(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    body = client.post("/api/games", json={"players": ["Ann"]}).get_json()
    page = client.get(f"/games/{body['id']}/table?token={body['token']}").get_data(as_text=True)
    assert 'src="/camera/stream.mjpg"' in page


def test_no_camera_configured_says_so(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "none.sqlite3")})
    try:
        assert app.test_client().get("/camera/state").get_json()["source"]["status"] == "off"
        assert app.test_client().get("/camera/frame.jpg").status_code == 503
    finally:
        app.extensions["dicekeeper.live"].close()


# ---- a source that dies mid-game ----------------------------------------------------------------


class DemoCamera:
    """A camera (for `CameraSource`) filming the demo table in real time; it can be unplugged."""

    def __init__(self, table: DemoTable) -> None:
        self.table = table
        self.plugged = threading.Event()
        self.plugged.set()
        self.flowing = threading.Event()  # cleared: reads block, as a hung camera driver's do
        self.flowing.set()

    def __call__(self, device: object) -> DemoCamera.Capture:
        return DemoCamera.Capture(self)

    class Capture:
        def __init__(self, camera: DemoCamera) -> None:
            self.camera = camera
            self.open = camera.plugged.is_set()

        def isOpened(self) -> bool:
            return self.open

        def set(self, prop: int, value: float) -> bool:
            return True

        def get(self, prop: int) -> float:
            return 0.0

        def read(self) -> tuple[bool, np.ndarray | None]:
            if not self.open or not self.camera.plugged.is_set():
                return False, None
            self.camera.flowing.wait()
            time.sleep(1 / self.camera.table.fps)
            return True, self.camera.table.step().image

        def release(self) -> None:
            self.open = False


def test_the_camera_vanishes_mid_game_the_dashboard_says_so_and_the_game_goes_on(tmp_path: Path, workers) -> None:
    table = DemoTable(seed=3, width=640, height=360, fps=30, autoplay=False)
    camera = DemoCamera(table)
    app = workers(
        camera_app(
            tmp_path / "vanish.sqlite3",
            lambda: CameraSource("/dev/video9", opener=camera, backoff=Backoff(first=0.05, longest=0.2)).start(),
        )
    )
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    client = app.test_client()
    try:
        game_id, auth = new_game(client)
        table.ask(6, key="first")
        assert wait_for(lambda: len(events(client, game_id)) == 1, timeout=20)
        state = client.get(f"/api/games/{game_id}").get_json()
        keep = max(state["keeps"], key=lambda k: k["points"])["dice"]
        state = client.post(
            f"/api/games/{game_id}/keep", headers=auth, json={"dice": keep, "version": state["version"]}
        ).get_json()

        camera.plugged.clear()  # unplugged before the next throw
        assert wait_for(lambda: client.get("/camera/state").get_json()["source"]["status"] == "reconnecting")
        shown = client.get("/camera/state").get_json()["source"]
        assert "camera /dev/video9" in shown["message"]
        assert client.get(f"/api/games/{game_id}").get_json() == state  # the game is intact
        assert client.get("/camera/frame.jpg").status_code == 200  # the last picture, marked
        table.ask(state["dice_left"], keep, key="second", total=6)  # the player throws meanwhile

        camera.plugged.set()
        assert wait_for(lambda: client.get("/camera/state").get_json()["source"]["status"] == "live")
        assert wait_for(lambda: len([e for e in events(client, game_id) if e["type"] == "throw"]) == 2, timeout=20)
        recorded = [sorted(e["faces"]) for e in events(client, game_id) if e["type"] == "throw"]
        assert recorded == [sorted(t.faces) for t in table.throws]
        assert client.get("/camera/state").get_json()["source"]["reconnects"] >= 1
    finally:
        app.extensions["dicekeeper.live"].close()
        loop.stop()


def test_a_camera_that_stops_sending_frames_is_reported_within_2_s_and_picked_up_again(tmp_path: Path, workers) -> None:
    table = DemoTable(seed=3, width=640, height=360, fps=30, autoplay=False)
    camera = DemoCamera(table)
    app = workers(camera_app(tmp_path / "stall.sqlite3", lambda: CameraSource("/dev/video9", opener=camera).start()))
    client = app.test_client()
    game_id, _ = new_game(client)
    table.ask(6, key="first")
    assert wait_for(lambda: len(events(client, game_id)) == 1, timeout=20)
    state = client.get(f"/api/games/{game_id}").get_json()

    camera.flowing.clear()
    stalled_at = time.monotonic()
    assert wait_for(lambda: client.get("/camera/state").get_json()["source"]["status"] == "stalled", timeout=2.0)
    assert time.monotonic() - stalled_at < 2.0
    assert "no frame" in client.get("/camera/state").get_json()["source"]["message"]
    time.sleep(1.0)
    assert client.get(f"/api/games/{game_id}").get_json() == state

    camera.flowing.set()
    assert wait_for(lambda: client.get("/camera/state").get_json()["source"]["status"] == "live", timeout=2.0)
    time.sleep(1.0)  # the same dice, still lying there: no second throw
    assert client.get(f"/api/games/{game_id}").get_json() == state


def write_video(path: Path, frames: list[np.ndarray], fps: float) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, frames[0].shape[1::-1])
    for frame in frames:
        writer.write(frame)
    writer.release()


def film(table: DemoTable, until_throws: int, after: int) -> list[np.ndarray]:
    frames = []
    while len(table.throws) < until_throws:
        frames.append(table.step().image)
    frames.extend(table.step().image for _ in range(after))
    return frames


def test_a_video_that_ends_is_reported_and_a_new_recording_resumes_the_game(tmp_path: Path, workers) -> None:
    table = DemoTable(seed=6, width=640, height=360, fps=15, autoplay=False)
    video = tmp_path / "table.avi"
    table.ask(6, key=1)
    write_video(video, film(table, 1, after=20), 15)
    app = workers(camera_app(tmp_path / "video.sqlite3", str(video), CAMERA_RETRY_AFTER=0.2))
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    client = app.test_client()
    try:
        game_id, auth = new_game(client)
        assert wait_for(lambda: len(events(client, game_id)) == 1, timeout=20)
        assert wait_for(lambda: client.get("/camera/state").get_json()["source"]["status"] in ("ended", "failed"))
        time.sleep(0.5)  # ended stays ended: the same recording is not read twice
        shown = client.get("/camera/state").get_json()["source"]
        assert "ended" in shown["message"] or "end of video" in shown["message"]
        assert len(events(client, game_id)) == 1

        state = client.get(f"/api/games/{game_id}").get_json()
        keep = max(state["keeps"], key=lambda k: k["points"])["dice"]
        state = client.post(
            f"/api/games/{game_id}/keep", headers=auth, json={"dice": keep, "version": state["version"]}
        ).get_json()
        table.ask(state["dice_left"], keep, key=2, total=6)
        partial = tmp_path / "next.avi"
        write_video(partial, film(table, 2, after=20), 15)
        partial.replace(video)  # a new recording appears at the same path
        assert wait_for(lambda: len([e for e in events(client, game_id) if e["type"] == "throw"]) == 2, timeout=20)
        recorded = [sorted(e["faces"]) for e in events(client, game_id) if e["type"] == "throw"]
        assert recorded == [sorted(t.faces) for t in table.throws]
    finally:
        app.extensions["dicekeeper.live"].close()
        loop.stop()


def test_the_phone_page_of_a_camera_game_can_confirm_and_the_table_shows_the_state(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    camera = client.post("/api/games", json={"players": ["Ann"], "source": "camera"}).get_json()
    virtual = client.post("/api/games", json={"players": ["Ann"], "source": "virtual"}).get_json()
    phone = client.get(f"/games/{camera['id']}/play?token={camera['token']}").get_data(as_text=True)
    assert 'id="camera-confirm"' in phone and "camera.js" in phone
    assert f"/camera/games/{camera['id']}/confirm" in phone
    table = client.get(f"/games/{camera['id']}/table?token={camera['token']}").get_data(as_text=True)
    assert 'id="camera-state"' in table and 'data-state-url="/camera/state"' in table
    other = client.get(f"/games/{virtual['id']}/play?token={virtual['token']}").get_data(as_text=True)
    assert 'id="camera-confirm"' not in other
    assert client.get("/static/camera.js").status_code == 200


def test_the_table_view_advises_a_closer_camera_when_the_dice_are_small(scripted) -> None:
    app, source, script = scripted
    client = app.test_client()
    new_game(client)
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    show(source, script, SIX)  # dice 40 px across
    assert wait_for(lambda: loop.state().last_throw is not None)
    advice = client.get("/camera/state").get_json()["advice"]
    assert "about 40 px across" in advice and "closer" in advice
    big = [DieReading(v, DieBox(60.0 + 100 * i, 200.0, 80.0, 80.0, 0.0), 0.95, "pips") for i, v in enumerate([2, 3, 4])]
    show(source, script, big)
    assert wait_for(lambda: client.get("/camera/state").get_json()["advice"] == "")


# ---- a camera mounted on its side or upside down ------------------------------------------------


class ShapeReader:
    """Sees no dice; remembers the size of every picture it was given."""

    def __init__(self) -> None:
        self.shapes: set[tuple[int, ...]] = set()

    def read(self, frame_bgr: np.ndarray) -> list[DieReading]:
        self.shapes.add(frame_bgr.shape)
        return []


def test_a_camera_on_its_side_is_read_and_shown_upright(tmp_path: Path, workers) -> None:
    source = ScriptedSource()
    reader = ShapeReader()
    app = workers(
        camera_app(
            tmp_path / "turned.sqlite3",
            lambda: source,
            CAMERA_READER=reader,
            CAMERA_SETTLE=SettleConfig(read_interval=0.0),
            CAMERA_TURN=90,
        )
    )
    loop: CameraLoop = app.extensions["dicekeeper.camera"]
    picture = np.full((120, 160, 3), 30, np.uint8)
    picture[80:120, 60:100] = 230  # bottom middle: a clockwise quarter turn takes it to the middle left
    for _ in range(20):
        source.push(picture)
    assert wait_for(lambda: source.drained and loop.frames.image()[0] is not None)
    time.sleep(0.05)
    shown, _ = loop.frames.image()
    assert shown is not None and shown.shape == (160, 120, 3)
    assert np.array_equal(shown, np.rot90(picture, k=-1))  # np.rot90 turns counterclockwise for k > 0
    assert shown[60:100, 0:40].min() == 230 and shown[60:100, 80:120].max() == 30
    assert reader.shapes == {(160, 120, 3)}  # the reader sees the upright picture only
    response = app.test_client().get("/camera/frame.jpg")
    assert response.status_code == 200
    assert cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR).shape == (160, 120, 3)


def test_the_demo_table_turned_upside_down_is_still_driven_by_the_game() -> None:
    from vision.live.sources import TurnedSource
    from web.camera_loop import source_factory
    from web.demo_driver import demo_table_of

    source = source_factory("demo", turn=180)()
    try:
        assert isinstance(source, TurnedSource) and source.turn == 180
        assert isinstance(demo_table_of(source), DemoTable)
    finally:
        source.close()
    assert source.state.status == "closed"

from __future__ import annotations

import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.live.demo_table import DemoSource
from vision.live.sources import (
    TURNS,
    Backoff,
    BaseSource,
    CameraSource,
    Frame,
    ImageFolderSource,
    PacedSource,
    SourceError,
    TurnedSource,
    VideoFileSource,
    innermost,
    open_source,
    turned,
)


def numbered(i: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    """A small frame whose pixels encode `i`, so a test can tell frames apart."""
    image = np.zeros((size[1], size[0], 3), np.uint8)
    image[:] = (i % 256, (i // 256) % 256, 77)
    return image


def frame_number(image: np.ndarray) -> int:
    return int(image[0, 0, 0]) + 256 * int(image[0, 0, 1])


class FakeCapture:
    """Stands in for cv2.VideoCapture: numbered frames, dies after `lifetime` frames."""

    def __init__(self, device: object, opened: bool, lifetime: int | None, period: float, counter: list[int]) -> None:
        self.device, self.opened, self.lifetime, self.period = device, opened, lifetime, period
        self.counter = counter
        self.released = False
        self.delivered = 0

    def isOpened(self) -> bool:
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        return True

    def get(self, prop: int) -> float:
        return 0.0

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.released or (self.lifetime is not None and self.delivered >= self.lifetime):
            return False, None
        time.sleep(self.period)
        self.delivered += 1
        self.counter[0] += 1
        return True, numbered(self.counter[0])

    def release(self) -> None:
        self.released = True


class FakeCamera:
    """An opener whose device is there or not as the test says; records every capture it made."""

    def __init__(self, lifetime: int | None = None, period: float = 0.002) -> None:
        self.present = True
        self.lifetime = lifetime
        self.period = period
        self.captures: list[FakeCapture] = []
        self.counter = [0]
        self.lock = threading.Lock()

    def __call__(self, device: object) -> FakeCapture:
        with self.lock:
            capture = FakeCapture(device, self.present, self.lifetime, self.period, self.counter)
            self.captures.append(capture)
            return capture


def wait_for(condition, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return False


def test_camera_hands_out_the_newest_frame_not_a_backlog() -> None:
    camera = FakeCamera(period=0.001)
    with CameraSource(0, opener=camera).start() as source:
        first = source.read(timeout=2.0)
        assert first is not None
        time.sleep(0.1)  # the capture thread delivers about a hundred frames meanwhile
        newest_before = camera.counter[0]
        second = source.read(timeout=2.0)
        assert second is not None
        # Not the frame after `first`, but one at least as new as the newest when we asked: the
        # newest counted may still be on its way from the capture to the hand-over slot.
        assert frame_number(second.image) >= newest_before - 1
        assert frame_number(second.image) > frame_number(first.image) + 10
        assert second.t > first.t


def test_camera_never_hands_out_the_same_frame_twice() -> None:
    camera = FakeCamera(lifetime=None, period=0.02)
    with CameraSource(0, opener=camera).start() as source:
        numbers = [frame_number(f.image) for f in (source.read(timeout=2.0) for _ in range(5)) if f is not None]
    assert len(numbers) == 5
    assert numbers == sorted(set(numbers))


def test_lost_camera_is_reopened_and_the_state_says_so() -> None:
    camera = FakeCamera(lifetime=20)
    source = CameraSource("/dev/video7", opener=camera, backoff=Backoff(first=0.01, longest=0.05)).start()
    try:
        assert wait_for(lambda: source.state.status == "live")
        camera.present = False  # unplugged: the running capture dies after its 20 frames
        assert wait_for(lambda: source.state.status == "reconnecting")
        assert "camera /dev/video7" in source.state.message
        attempts = len(camera.captures)
        assert wait_for(lambda: len(camera.captures) >= attempts + 3)  # it keeps trying
        assert source.read(timeout=0.05) is None or source.state.status == "reconnecting"
        camera.present = True
        assert wait_for(lambda: source.state.status == "live" and source.state.reconnects >= 1)
        frame = source.read(timeout=2.0)
        assert frame is not None
    finally:
        source.close()
    assert source.state.status == "closed"
    assert all(c.released for c in camera.captures)


def test_backoff_doubles_up_to_the_longest_pause() -> None:
    delays = Backoff(first=0.5, longest=3.0).delays()
    assert [next(delays) for _ in range(6)] == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]


def test_closing_while_waiting_to_reopen_returns_at_once_and_releases() -> None:
    camera = FakeCamera()
    camera.present = False
    source = CameraSource(3, opener=camera, backoff=Backoff(first=30.0, longest=30.0)).start()
    assert wait_for(lambda: source.state.status == "reconnecting")
    started = time.monotonic()
    source.close()
    assert time.monotonic() - started < 2.0
    assert source.state.status == "closed"
    assert camera.captures and all(c.released for c in camera.captures)
    assert source.read(timeout=0.01) is None


def test_an_opener_that_raises_counts_as_a_missing_camera() -> None:
    def broken(device: object) -> FakeCapture:
        raise RuntimeError("backend exploded")

    with CameraSource(0, opener=broken, backoff=Backoff(first=0.01, longest=0.01)).start() as source:
        assert wait_for(lambda: source.state.status == "reconnecting")
        assert "cannot be opened" in source.state.message


def write_video(path: Path, count: int, fps: float = 10.0) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    assert writer.isOpened()
    for i in range(count):
        writer.write(np.full((48, 64, 3), i * 20, np.uint8))
    writer.release()


def test_video_file_gives_every_frame_in_order_then_ends(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    write_video(path, 12, fps=10.0)
    with VideoFileSource(path) as source:
        frames = list(source)
        assert source.state.status == "ended"
        assert "12 frames" in source.state.message
        assert source.read() is None
    assert [f.index for f in frames] == list(range(12))
    assert [f.t for f in frames] == pytest.approx([i / 10.0 for i in range(12)])
    # MJPG is lossy: the encoded number survives to within a few levels.
    assert [round(float(f.image.mean()) / 20) for f in frames] == list(range(12))


def test_video_file_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such video file"):
        VideoFileSource(tmp_path / "missing.mp4")
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"this is not a video")
    with pytest.raises(SourceError, match="junk.mp4"):
        VideoFileSource(junk)


def test_image_folder_reads_in_name_order_and_skips_broken_images(tmp_path: Path) -> None:
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"shot_{i}.png"), numbered(i + 1))
    (tmp_path / "shot_1b.jpg").write_bytes(b"broken")
    (tmp_path / "notes.txt").write_text("not an image")
    with ImageFolderSource(tmp_path, fps=4.0) as source:
        frames = list(source)
        assert source.state.status == "ended"
        assert "1 unreadable" in source.state.message
    assert [frame_number(f.image) for f in frames] == [1, 2, 3]
    assert source.skipped == ["shot_1b.jpg"]
    assert [f.t for f in frames] == pytest.approx([0.0, 0.25, 0.75])


def test_empty_or_missing_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no images"):
        ImageFolderSource(tmp_path)
    with pytest.raises(SourceError, match="no such folder"):
        ImageFolderSource(tmp_path / "nope")


def test_paced_source_plays_a_folder_in_real_time_and_ends(tmp_path: Path) -> None:
    for i in range(6):
        cv2.imwrite(str(tmp_path / f"{i}.png"), numbered(i + 1))
    source = PacedSource(ImageFolderSource(tmp_path), fps=50.0).start()
    with source:
        seen = []
        while not source.finished:
            frame = source.read(timeout=0.5)
            if frame is not None:
                seen.append(frame_number(frame.image))
        assert source.state.status == "ended"
    assert seen and seen == sorted(seen) and seen[-1] == 6


def test_open_source_understands_each_kind_of_name(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), numbered(1))
    with open_source(str(tmp_path)) as folder:
        assert isinstance(folder, ImageFolderSource)
    with open_source("demo", realtime=False) as demo:
        assert isinstance(demo, DemoSource)
        frame = demo.read()
        assert frame is not None and frame.image.shape == (720, 1280, 3)
    with pytest.raises(SourceError, match="no such device"):
        open_source("/dev/video-that-is-not-there")
    with pytest.raises(SourceError, match="no such file or folder"):
        open_source(str(tmp_path / "nothing.mp4"))
    with pytest.raises(SourceError, match="no source given"):
        open_source("  ")


# ---- a camera mounted upside down or on its side ------------------------------------------------


def marked(height: int = 48, width: int = 64) -> tuple[np.ndarray, tuple[int, int]]:
    """A dark picture with one bright pixel away from every axis of symmetry, and where it is."""
    image = np.full((height, width, 3), 20, np.uint8)
    spot = (5, 11)  # row, column
    image[spot] = (250, 128, 3)
    return image, spot


def bright_spot(image: np.ndarray) -> tuple[int, int]:
    row, column = np.unravel_index(int(np.argmax(image[:, :, 0])), image.shape[:2])
    return int(row), int(column)


def folder_of(tmp_path: Path, *images: np.ndarray) -> Path:
    for i, image in enumerate(images):
        cv2.imwrite(str(tmp_path / f"shot_{i}.png"), image)
    return tmp_path


def test_a_quarter_turn_swaps_height_and_width_and_moves_a_pixel_clockwise(tmp_path: Path) -> None:
    image, (row, column) = marked()
    height, width = image.shape[:2]
    folder = folder_of(tmp_path, image, numbered(2))
    with open_source(str(folder), turn=90) as source:
        assert isinstance(source, TurnedSource) and source.turn == 90
        frame = source.read()
    assert frame is not None and frame.image.shape == (width, height, 3)
    # A clockwise quarter turn takes the left column to the top row: (r, c) -> (c, height - 1 - r).
    assert bright_spot(frame.image) == (column, height - 1 - row)
    assert (frame.t, frame.index) == (0.0, 0)
    with open_source(str(folder), turn=270) as source:
        frame = source.read()
    assert frame is not None and frame.image.shape == (width, height, 3)
    assert bright_spot(frame.image) == (width - 1 - column, row)  # a counterclockwise quarter turn


def test_a_half_turn_flips_the_picture_both_ways_and_keeps_times_and_indexes(tmp_path: Path) -> None:
    image, (row, column) = marked()
    height, width = image.shape[:2]
    folder = folder_of(tmp_path, numbered(1), image)
    with ImageFolderSource(folder, fps=4.0) as upright:
        expected = list(upright)
    with open_source(str(folder), fps=4.0, turn=180) as source:
        frames = list(source)
        assert source.state.status == "ended" and "all 2 images read" in source.state.message
        assert source.finished and source.read() is None
    assert [(f.t, f.index) for f in frames] == [(f.t, f.index) for f in expected] == [(0.0, 0), (0.25, 1)]
    for got, want in zip(frames, expected):
        assert got.image.shape == want.image.shape
        assert np.array_equal(got.image, want.image[::-1, ::-1])
    assert bright_spot(frames[1].image) == (height - 1 - row, width - 1 - column)


def test_no_turn_gives_the_source_itself_and_its_frames_unchanged(tmp_path: Path) -> None:
    image, spot = marked()
    folder = folder_of(tmp_path, image)
    with open_source(str(folder), turn=0) as source:
        assert isinstance(source, ImageFolderSource)
        frame = source.read()
    assert frame is not None and np.array_equal(frame.image, cv2.imread(str(folder / "shot_0.png")))
    assert bright_spot(frame.image) == spot
    plain = ImageFolderSource(folder)
    assert turned(plain, 0) is plain


@pytest.mark.parametrize("turn", [45, -90, 360, 1, "90", 90.5, None, True])
def test_a_bad_turn_is_refused_before_anything_is_opened(tmp_path: Path, turn: object) -> None:
    folder = folder_of(tmp_path, numbered(1))
    threads = set(threading.enumerate())
    with pytest.raises(SourceError, match=r"turn must be 0, 90, 180 or 270 degrees clockwise") as refused:
        open_source("demo", realtime=True, turn=turn)  # type: ignore[arg-type]  # what a caller might pass
    assert "\n" not in str(refused.value) and repr(turn) in str(refused.value)
    assert set(threading.enumerate()) == threads  # the demo was never started
    inner = ImageFolderSource(folder)
    with pytest.raises(SourceError, match="turn must be"):
        TurnedSource(inner, turn)  # type: ignore[arg-type]
    with pytest.raises(SourceError, match="turn must be"):
        turned(inner, turn)  # type: ignore[arg-type]
    assert inner.state.status == "closed"  # turned() closes what it was handed when it refuses


def test_the_turns_are_the_four_right_angles() -> None:
    assert TURNS == (0, 90, 180, 270)


class BlockingCapture(FakeCapture):
    """Delivers `first` frames, then hangs (as a stuck camera driver does) until `flowing` is set."""

    def __init__(self, flowing: threading.Event, first: int) -> None:
        super().__init__(0, True, None, 0.001, [0])
        self.flowing = flowing
        self.first = first

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.delivered >= self.first:
            self.flowing.wait()
        return super().read()

    def release(self) -> None:
        super().release()
        self.flowing.set()  # a released capture stops hanging


def test_a_turned_camera_keeps_the_cameras_state_and_closing_it_releases_the_camera() -> None:
    flowing = threading.Event()
    captures: list[BlockingCapture] = []

    def opener(device: object) -> BlockingCapture:
        captures.append(BlockingCapture(flowing, first=3))
        return captures[-1]

    camera = CameraSource(0, opener=opener)
    camera.stall_after = 0.05
    source = turned(camera.start(), 90)
    assert isinstance(source, TurnedSource) and source.inner is camera and source.name == "camera 0"
    with source:
        assert wait_for(lambda: camera.state.frames == 3)
        frame = source.read(timeout=1.0)
        assert frame is not None and frame.image.shape == (64, 48, 3)  # the camera's 48 x 64, turned
        assert frame.index == 2 and frame_number(frame.image) == 3  # the newest, not a backlog
        assert source.state == camera.state and source.state.status == "live" and not source.finished
        time.sleep(0.1)
        assert source.read(timeout=0.05) is None
        assert source.state.status == "stalled" and "sent no frame" in source.state.message
        flowing.set()
        later = source.read(timeout=1.0)
        assert later is not None and later.index > frame.index and later.t > frame.t
        assert source.state.status == "live"
    assert captures and all(c.released for c in captures)
    assert camera.state.status == "closed" and source.state.status == "closed" and source.finished


class BrokenSource(BaseSource):
    """A pulled source whose reading fails."""

    def __init__(self) -> None:
        super().__init__("broken")
        self._set_state("live")

    def read(self, timeout: float | None = None) -> Frame | None:
        raise RuntimeError("the disk is gone")


def test_a_turned_source_fails_when_the_source_it_turns_fails() -> None:
    paced = PacedSource(BrokenSource(), fps=50.0).start()
    with turned(paced, 180) as source:
        assert wait_for(lambda: source.finished)
        assert source.state.status == "failed" and "the disk is gone" in source.state.message
        assert source.read(timeout=0.01) is None
    assert paced.state.status == "closed"


def test_the_demo_behind_pacing_and_a_turn_is_still_found_and_turned() -> None:
    with open_source("demo", realtime=True, turn=270, fps=60.0) as source:
        assert isinstance(source, TurnedSource) and isinstance(source.inner, PacedSource)
        demo = innermost(source)
        assert isinstance(demo, DemoSource) and innermost(demo) is demo
        frame = source.read(timeout=2.0)
        assert frame is not None and frame.image.shape == (1280, 720, 3)
        assert list(source.inner.shown_at) and frame.index in source.inner.shown_at

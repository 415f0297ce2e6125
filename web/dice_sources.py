"""Where a game's dice come from: the server's virtual roller, manual entry, or (later) the camera."""

from __future__ import annotations

import glob
import random
from dataclasses import dataclass

SOURCES = ("virtual", "manual", "camera")
AUTO = "auto"


_watched_cameras: set[int] = set()  # camera loops running in this process (web.camera_loop)


def camera_present() -> bool:
    """A video device exists, or a camera loop of this process watches a source (the demo table counts)."""
    return bool(_watched_cameras) or bool(glob.glob("/dev/video*"))


def watch_camera(key: int, running: bool) -> None:
    """Called by the camera loop when it starts (`running`) and when it stops."""
    if running:
        _watched_cameras.add(key)
    else:
        _watched_cameras.discard(key)


@dataclass(frozen=True)
class SourceChoice:
    source: str
    notice: str | None = None  # why the asked-for source was not used


def choose_source(requested: str | None, camera: bool | None = None) -> SourceChoice:
    """The source a game uses. `auto` (or None) means the camera when present, virtual dice otherwise."""
    if camera is None:
        camera = camera_present()
    wanted = (requested or AUTO).strip().lower()
    if wanted not in (*SOURCES, AUTO):
        raise ValueError(f"unknown dice source {requested!r}; use one of {', '.join(SOURCES)}")
    if wanted == AUTO:
        return SourceChoice("camera" if camera else "virtual")
    if wanted == "camera" and not camera:
        return SourceChoice("virtual", "no camera found (no /dev/video* device): using virtual dice instead")
    return SourceChoice(wanted)


class Roller:
    """Virtual dice. Real games use the system's entropy; tests pass a seed to replay the same throws."""

    def __init__(self, seed: int | None = None) -> None:
        self._random: random.Random = random.SystemRandom() if seed is None else random.Random(seed)

    def roll(self, count: int) -> list[int]:
        return [self._random.randint(1, 6) for _ in range(count)]

"""Settle detection: a stream of frames in, exactly one `SettledThrow` per roll out.

Per frame the detector gets the motion between this frame and the previous one and, on quiet
frames, the dice readings. A quiet spell starts when the picture stops moving; its readings feed a
`DieTracker` that follows each die by position and size, so a die the reader misses for a frame or
two, or reads as another face now and then, stays the same die. The dice have settled when the
picture has been quiet and every tracked die has lain still for `settle_time` seconds of frame time
(not wall time, so a recording or a faster-than-real-time test behaves like a live camera) over at
least `min_reads` readings. Each die's value is the vote of its readings; a die whose vote stays
split is marked doubtful, so that a person confirms it. Each quiet spell is judged once:

- the dice are compared with the previous resting scene; a die with the same value at the same
  place (within `same_place` die sizes) has not moved and counts as set aside;
- the others are in play; when there are any, the spell yields one throw. Dice taken away or a
  table shaken without moving the dice give no in-play dice, hence no throw.

Motion (dice rolling, a hand reaching in) ends the spell: nothing is reported while it lasts. So
does a hand that holds still in the picture, for up to `hand_wait`. Dice whose boxes keep drifting
without moving the picture settle after `max_wait`, marked doubtful.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

import cv2
import numpy as np

from vision.live.hands import HandCheck, HandConfig
from vision.live.tracking import DieTracker, TrackConfig, VotedDie
from vision.types import DieReading

SettlePhase = Literal["waiting", "moving", "hand", "steadying", "settled"]


@dataclass(frozen=True)
class SettleConfig:
    settle_time: float = 0.3  # seconds the picture and every tracked die have been still
    min_reads: int = 3  # readings of the rest before it is judged
    max_wait: float = 1.5  # still picture but the boxes keep drifting: settle anyway, doubtful
    read_interval: float = 0.0  # seconds between readings of a still picture (0: every frame)
    # At most this share of wall-clock time goes to reading (None: no limit). A reading that takes
    # long (a hand in the picture costs the reader ten times a die) then delays the next one, so a
    # live loop keeps up with the camera whatever lies on the table.
    read_share: float | None = None
    motion_width: int = 320  # frames are shrunk to this width to measure motion
    pixel_change: float = 14.0  # grey levels (after brightness normalising) that count as a change
    # Frames are brightened to one mean grey, but one darker than this is brightened no further: in
    # a dim room the sensor's noise and the compression's flicker would be brightened with it.
    dark_mean: float = 64.0
    motion_fraction: float = 0.0015  # share of changed pixels above which the picture is moving
    same_place: float = 0.3  # die sizes: a die that moved less than this (same value) lay still
    # A still picture with a hand in it (see `vision.live.hands`) is not read. A "hand" that stays
    # this many seconds is taken as part of the table (a cup, a card): then the dice settle. None:
    # no check for hands.
    hand_wait: float | None = 2.0
    hands: HandConfig = field(default_factory=HandConfig)
    # Optional rolling area (x0, y0, x1, y1) in frame pixels: dice outside it count as set aside.
    rolling_area: tuple[float, float, float, float] | None = None
    tracking: TrackConfig = field(default_factory=TrackConfig)


# How the server's camera loop settles: it reads a still picture at most ten times a second and
# spends at most half a core on reading, so the camera, the page and the phones keep up.
# `dicekeeper watch` reads every still frame unless asked to read so (`--paced`).
PACED = SettleConfig(read_interval=0.1, read_share=0.5)


class MotionMeter:
    """Share of pixels that changed since the previous frame, in 0..1.

    Frames are shrunk, blurred and divided by their mean brightness, so sensor noise and a light
    that slowly dims or brightens do not count as motion; a die, a hand or a shaken table do.
    """

    def __init__(self, config: SettleConfig | None = None) -> None:
        self.config = config or SettleConfig()
        self._previous: np.ndarray | None = None

    def reset(self) -> None:
        self._previous = None

    def __call__(self, image: np.ndarray) -> float:
        width = self.config.motion_width
        height = max(1, round(image.shape[0] * width / image.shape[1]))
        small = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
        grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0).astype(np.float32)
        grey *= 128.0 / max(1.0, self.config.dark_mean, float(grey.mean()))
        previous, self._previous = self._previous, grey
        if previous is None or previous.shape != grey.shape:
            return 1.0
        changed = cv2.absdiff(grey, previous) > self.config.pixel_change
        return float(np.count_nonzero(changed)) / changed.size


@dataclass(frozen=True)
class SettledThrow:
    """Dice that came to rest: those just thrown (in play) and those that did not move (set aside)."""

    dice: tuple[DieReading, ...]  # in play, left to right
    set_aside: tuple[DieReading, ...]
    rest_t: float  # time of the frame in which the dice came to rest
    rest_index: int
    t: float  # time of the frame that settled it
    index: int
    doubtful: bool = False  # some die's vote stayed split, or the dice never lay still
    doubtful_dice: tuple[int, ...] = ()  # indexes in `dice` of the dice whose vote stayed split
    shares: tuple[float, ...] = ()  # each die's share of its votes, as `dice`

    @property
    def faces(self) -> tuple[int, ...]:
        return tuple(d.value for d in self.dice)

    @property
    def confidence(self) -> float:
        return min((d.confidence for d in self.dice), default=0.0)

    def to_dict(self) -> dict[str, object]:
        return {
            "t": round(self.rest_t, 3),
            "dice": list(self.faces),
            "confidence": round(self.confidence, 3),
            "set_aside": [d.value for d in self.set_aside],
            "doubtful": self.doubtful,
            "doubtful_dice": list(self.doubtful_dice),
        }


@dataclass(frozen=True)
class SettleStatus:
    """The detector's state for the dashboard."""

    phase: SettlePhase
    since: float  # frame time the phase began
    in_play: tuple[DieReading, ...] = ()
    set_aside: tuple[DieReading, ...] = ()
    motion: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "phase": self.phase,
            "since": round(self.since, 3),
            "motion": round(self.motion, 4),
            "in_play": [d.value for d in self.in_play],
            "set_aside": [d.value for d in self.set_aside],
        }


def _die_size(readings: Sequence[DieReading]) -> float:
    return float(np.median([r.box.size for r in readings])) if readings else 0.0


def match_dice(now: Sequence[DieReading], before: Sequence[DieReading], same_place: float) -> list[int | None]:
    """For each die in `now`, the index of the same die in `before` (same value, within `same_place`
    die sizes), or None. Closest pairs are matched first and each die of `before` at most once.

    Box angles are not compared: on small dice they wobble by 20 degrees between frames.
    """
    size = _die_size(list(now) + list(before))
    limit = same_place * size
    pairs = []
    for i, a in enumerate(now):
        for j, b in enumerate(before):
            if a.value == b.value:
                d = math.hypot(a.box.cx - b.box.cx, a.box.cy - b.box.cy)
                if d <= limit:
                    pairs.append((d, i, j))
    result: list[int | None] = [None] * len(now)
    used: set[int] = set()
    for _, i, j in sorted(pairs):
        if result[i] is None and j not in used:
            result[i] = j
            used.add(j)
    return result


def same_scene(a: Sequence[DieReading], b: Sequence[DieReading], same_place: float) -> bool:
    """Two readings of a still picture agree: the same values at the same places."""
    return len(a) == len(b) and all(m is not None for m in match_dice(a, b, same_place))


@dataclass
class _Spell:
    """One quiet spell: since when the picture is still and how often it was read."""

    start_t: float
    start_index: int
    reads: int = 0
    judged: bool = False


class SettleDetector:
    """Feed every frame with `update`; it returns a `SettledThrow` at most once per quiet spell.

    Only motion starts a new spell: while the picture stays still, a reading that changes (a
    flickering pip, a shadow) can never turn into a second throw.
    """

    def __init__(self, config: SettleConfig | None = None) -> None:
        self.config = config or SettleConfig()
        self.rest_scene: tuple[DieReading, ...] = ()  # the dice of the previous resting scene
        self._rest_unsure: frozenset[int] = frozenset()  # indexes in rest_scene whose vote was split
        self.tracker = DieTracker(self.config.tracking)
        self._spell: _Spell | None = None
        self._last: tuple[float, int] | None = None  # previous frame's (t, index)
        self._last_read_t: float | None = None
        self._status = SettleStatus("waiting", 0.0)

    @property
    def status(self) -> SettleStatus:
        return self._status

    def wants_reading_after_quiet(self, t: float) -> bool:
        """Whether a still frame at `t` is worth reading: at most every `read_interval` seconds, and
        only now and then once the spell is judged (just to keep the picture current)."""
        spell = self._spell
        if self._last_read_t is None:
            return True
        if spell is None:  # the first still frame after motion
            return t - self._last_read_t >= self.config.read_interval
        if not spell.judged and spell.reads < self.config.min_reads and spell.start_t + self.config.settle_time <= t:
            return True  # too few readings for the dice to settle: look at once rather than at the next interval
        interval = self.config.read_interval if not spell.judged else max(self.config.read_interval, 0.5)
        return t - self._last_read_t >= interval

    def update(
        self, t: float, index: int, motion: float, readings: Sequence[DieReading] | None, hand: bool = False
    ) -> SettledThrow | None:
        """One frame: its time, index, motion since the previous frame, its readings if read, and
        whether a hand holds still in it (which, like motion, keeps the dice from settling)."""
        previous, self._last = self._last, (t, index)
        moving = previous is None or motion > self.config.motion_fraction
        if previous is None or moving or hand:
            phase: SettlePhase = "moving" if moving else "hand"
            since = self._status.since if self._status.phase == phase else t
            self._status = SettleStatus(phase, since, motion=motion)
            self._spell = None  # the last read time stays: a hand that stops and goes is not read every stop
            self.tracker.reset()
            return None
        if self._spell is None:
            # This frame equals the previous one: the dice were already at rest in that one.
            self._spell = _Spell(previous[0], previous[1])
            self._status = SettleStatus("steadying", previous[0], motion=motion)
        spell = self._spell
        if spell.judged:
            if readings is not None:
                self._last_read_t = t
            self._status = replace(self._status, motion=motion)
            return None
        if readings is not None:
            self._last_read_t = t
            self.tracker.update(readings, t, quiet_since=spell.start_t)
            spell.reads += 1
        still_since = max(spell.start_t, self.tracker.still_since())
        waited = t - spell.start_t
        # An unread frame can settle the throw too: the picture has stayed still since the last
        # reading, so the dice lie where they were read and waiting for another reading only adds
        # its time to the latency.
        if spell.reads >= self.config.min_reads and t - still_since >= self.config.settle_time - 1e-9:
            return self._judge(spell, t, index, drifting=False)
        if readings is None:
            self._status = replace(self._status, motion=motion)
            return None
        if spell.reads >= 2 and waited >= self.config.max_wait:
            return self._judge(spell, t, index, drifting=True)
        self._status = SettleStatus("steadying", spell.start_t, motion=motion)
        return None

    def _judge(self, spell: _Spell, t: float, index: int, drifting: bool) -> SettledThrow | None:
        spell.judged = True
        voted = self.tracker.dice()
        scene = tuple(v.reading for v in voted)
        unsure = frozenset(i for i, v in enumerate(voted) if v.doubtful)
        in_play, set_aside = self.split(scene, unsure)
        self.rest_scene, self._rest_unsure = scene, unsure
        self._status = SettleStatus("settled", t, in_play, set_aside, self._status.motion)
        if not in_play:
            return None
        by_box = {id(v.reading): v for v in voted}
        votes: list[VotedDie] = [by_box[id(d)] for d in in_play]
        split = tuple(i for i, v in enumerate(votes) if v.doubtful)
        return SettledThrow(
            in_play,
            set_aside,
            spell.start_t,
            spell.start_index,
            t,
            index,
            doubtful=drifting or bool(split),
            doubtful_dice=split,
            shares=tuple(round(v.share, 3) for v in votes),
        )

    def split(
        self,
        scene: Sequence[DieReading],
        unsure: frozenset[int] = frozenset(),
    ) -> tuple[tuple[DieReading, ...], tuple[DieReading, ...]]:
        """(in play, set aside): dice that moved since the previous rest, and those that did not.

        A die counts as unmoved when the previous rest had a die of the same value at its place, or
        a die of any value there while either vote was split (`unsure` indexes `scene`): a face the
        reader cannot decide on must not turn a bump of the table into a second throw.
        """
        matches = match_dice(scene, self.rest_scene, self.config.same_place)
        taken = {m for m in matches if m is not None}
        size = float(np.median([r.box.size for r in (*scene, *self.rest_scene)])) if scene else 0.0
        for i, reading in enumerate(scene):
            if matches[i] is not None:
                continue
            for j, before in enumerate(self.rest_scene):
                if j in taken or (i not in unsure and j not in self._rest_unsure):
                    continue
                if (
                    math.hypot(reading.box.cx - before.box.cx, reading.box.cy - before.box.cy)
                    <= self.config.same_place * size
                ):
                    matches[i] = j
                    taken.add(j)
                    break
        in_play: list[DieReading] = []
        set_aside: list[DieReading] = []
        for reading, match in zip(scene, matches):
            unmoved = match is not None or not self._in_rolling_area(reading)
            (set_aside if unmoved else in_play).append(reading)
        return tuple(in_play), tuple(set_aside)

    def _in_rolling_area(self, reading: DieReading) -> bool:
        area = self.config.rolling_area
        if area is None:
            return True
        x0, y0, x1, y1 = area
        return x0 <= reading.box.cx <= x1 and y0 <= reading.box.cy <= y1


@dataclass(frozen=True)
class Observation:
    """What the watcher made of one frame."""

    index: int
    t: float
    motion: float
    readings: tuple[DieReading, ...] | None  # None: this frame was not read
    status: SettleStatus
    settled: SettledThrow | None = None


class DiceReaderLike(Protocol):
    """What the watcher reads still frames with, like `vision.read.reader.DiceReader`."""

    def read(self, frame_bgr: np.ndarray) -> list[DieReading]: ...


class ThrowWatcher:
    """Frames in, observations out: measures motion, reads still frames, detects settled throws."""

    def __init__(self, reader: DiceReaderLike, config: SettleConfig | None = None) -> None:
        self.config = config or SettleConfig()
        self.reader = reader
        self.motion = MotionMeter(self.config)
        self.detector = SettleDetector(self.config)
        self.hands = HandCheck(self.config.hands)
        self._hand_since: float | None = None
        self._reader_free_at = -math.inf  # frame time before which the read share forbids reading

    def _hand_in(self, image: np.ndarray, t: float) -> bool:
        """Whether a hand holds still in this still frame (for less than `hand_wait`)."""
        if self.config.hand_wait is None or not self.hands.look(image).hand:
            self._hand_since = None
            return False
        if self._hand_since is None:
            self._hand_since = t
        if t - self._hand_since >= self.config.hand_wait:
            self.hands.accept()
            self._hand_since = None
            return False
        return True

    def feed(self, image: np.ndarray, t: float, index: int) -> Observation:
        motion = self.motion(image)
        quiet = motion <= self.config.motion_fraction
        hand = quiet and self._hand_in(image, t)
        # The detector decides on the motion first: a moving frame is never worth reading, nor
        # one with a hand in it.
        readings = None
        share = self.config.read_share
        if (
            quiet
            and not hand
            and self.detector.wants_reading_after_quiet(t)
            and (share is None or t >= self._reader_free_at)
        ):
            started = time.perf_counter()
            readings = tuple(self.reader.read(image))
            if share is not None:
                # Measured in wall time, spaced in frame time: live, the two run alike.
                self._reader_free_at = t + (time.perf_counter() - started) * (1.0 / share - 1.0)
        settled = self.detector.update(t, index, motion, readings, hand)
        return Observation(index, t, motion, readings, self.detector.status, settled)


def default_reader(mode: str = "combined") -> DiceReaderLike:
    """The reader for live video: the learned dice detector, the die-face classifier, and pips
    for the faces the classifier is not sure of (`vision.read.reader.LIVE`). Without the
    classifier's model it reads by pips alone: a missing classifier must not stop the camera.
    A missing detector raises `vision.read.classifier.ModelError`, which says which file is
    missing."""
    from vision.read.classifier import load_default_classifier
    from vision.read.detect import load_default_detector
    from vision.read.reader import LIVE, DiceReader

    detector = load_default_detector()
    if mode == "pips":
        return DiceReader(mode="pips", detector=detector, settings=LIVE)
    try:
        classifier = load_default_classifier()
    except Exception:
        if mode == "classifier":
            raise
        return DiceReader(mode="pips", detector=detector, settings=LIVE)
    return DiceReader(classifier, mode=mode, detector=detector, settings=LIVE)  # type: ignore[arg-type]  # DiceReader checks the mode

"""Dice followed across the frames of a rest: detections are matched to tracks by position and size,
a die may be missed for a read or two, and each track votes on its face value.

The reader flickers on still, noisy frames: a die found in one frame is lost in the next, or read as
another face. A track smooths both: it stays alive through short gaps, and its value is the one read
most often (weighted by confidence) while it lay still.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from vision.types import DieBox, DieReading


@dataclass(frozen=True)
class TrackConfig:
    match_distance: float = 0.6  # die sizes: a detection further than this from a track is another die
    size_ratio: float = 1.6  # a detection this much larger or smaller than the track is another die
    # Die sizes: a track whose last `recent` reads all lie further than this from where it lay
    # has moved. A box that jumps now and then (a reader that centres a box on the pips it found
    # moves it by a quarter die when it misses one) has not.
    still_tolerance: float = 0.25
    recent: int = 3
    max_misses: int = 2  # reads in a row a track may be missed before it is dropped
    split_share: float = 0.7  # a winning value below this share of the votes leaves the die doubtful


@dataclass
class Track:
    """One die followed over the reads of a rest."""

    id: int
    box: DieBox
    anchor: tuple[float, float]  # where it lay when it stopped moving
    still_since: float  # frame time since which it has stayed near `anchor`
    first_read: int = 0  # the tracker's read number at `still_since`
    hits: int = 0  # reads that found it since `still_since`
    misses: int = 0  # reads in a row that missed it
    weights: defaultdict[int, float] = field(default_factory=lambda: defaultdict(float))  # value -> summed confidence
    counts: Counter[int] = field(default_factory=Counter)  # value -> reads
    centres: list[tuple[float, float, float]] = field(default_factory=list)  # the last few reads' (x, y, t)

    def vote(self) -> tuple[int, float]:
        """The winning value and its share of the weighted votes."""
        total = sum(self.weights.values())
        if total <= 0:
            value = self.counts.most_common(1)[0][0]
            return value, 1.0 / max(1, len(self.counts))
        value, weight = max(self.weights.items(), key=lambda item: (item[1], self.counts[item[0]]))
        return value, weight / total

    def observe(self, reading: DieReading, t: float, read: int, config: TrackConfig) -> None:
        self.centres = [*self.centres, (reading.box.cx, reading.box.cy, t)][-config.recent :]
        limit = config.still_tolerance * max(1.0, reading.box.size)
        if all(math.hypot(x - self.anchor[0], y - self.anchor[1]) > limit for x, y, _ in self.centres):
            # Moved: each of its last reads lies away from where it lay. A box that flickers
            # between two places (a detection that takes in a neighbour now and then) keeps
            # some reads at the anchor, so it never holds the throw back.
            self.anchor = (
                statistics.median(c[0] for c in self.centres),
                statistics.median(c[1] for c in self.centres),
            )
            self.still_since = self.centres[0][2]
            self.first_read = read - len(self.centres) + 1
            self.hits = len(self.centres) - 1
            self.weights.clear()
            self.counts.clear()
        self.box = reading.box
        self.hits += 1
        self.misses = 0
        self.weights[reading.value] += max(1e-3, reading.confidence)
        self.counts[reading.value] += 1


@dataclass(frozen=True)
class VotedDie:
    """A tracked die's verdict: the reading it stands for, its vote share and whether it is split."""

    reading: DieReading
    share: float
    reads: int
    doubtful: bool


class DieTracker:
    """Feed it the readings of each read frame; `dice()` gives the dice it believes in, with votes."""

    def __init__(self, config: TrackConfig | None = None) -> None:
        self.config = config or TrackConfig()
        self.tracks: list[Track] = []
        self.reads = 0
        self._next_id = 0

    def reset(self) -> None:
        self.tracks = []
        self.reads = 0

    def update(self, readings: Sequence[DieReading], t: float, quiet_since: float | None = None) -> None:
        """One read frame. `quiet_since`: since when the picture has been still, so a die first
        found now (missed before, or the first read) has lain still since then."""
        self.reads += 1
        matched = self._associate(readings)
        config = self.config
        for track_index, reading_index in matched.items():
            self.tracks[track_index].observe(readings[reading_index], t, self.reads, config)
        taken = set(matched.values())
        for index, track in enumerate(self.tracks):
            if index not in matched:
                track.misses += 1
        self.tracks = [track for track in self.tracks if track.misses <= config.max_misses]
        for index, reading in enumerate(readings):
            if index not in taken:
                self._next_id += 1
                born = t if quiet_since is None else min(t, quiet_since)
                track = Track(self._next_id, reading.box, (reading.box.cx, reading.box.cy), born, self.reads)
                track.observe(reading, t, self.reads, config)
                self.tracks.append(track)

    def _associate(self, readings: Sequence[DieReading]) -> dict[int, int]:
        """Track index -> reading index, closest pairs first, each used once."""
        pairs = []
        for i, track in enumerate(self.tracks):
            for j, reading in enumerate(readings):
                size = max(1.0, (track.box.size + reading.box.size) / 2.0)
                ratio = max(track.box.size, reading.box.size) / max(1.0, min(track.box.size, reading.box.size))
                distance = math.hypot(track.box.cx - reading.box.cx, track.box.cy - reading.box.cy) / size
                if distance <= self.config.match_distance and ratio <= self.config.size_ratio:
                    pairs.append((distance, i, j))
        matched: dict[int, int] = {}
        used: set[int] = set()
        for _, i, j in sorted(pairs):
            if i not in matched and j not in used:
                matched[i] = j
                used.add(j)
        return matched

    def still_since(self) -> float:
        """The frame time since which every tracked die has lain still (-inf with none). A die that
        just moved has just been anchored, so it holds the rest back until it has lain still."""
        return max((track.still_since for track in self.tracks), default=-math.inf)

    def confirmed(self, min_share: float = 0.5) -> list[Track]:
        """Tracks found in at least `min_share` of the reads since they lay still (and at least twice
        once there were two reads), so a one-off false detection does not count as a die."""
        result = []
        for track in self.tracks:
            possible = self.reads - track.first_read + 1
            if track.hits / possible >= min_share and (track.hits >= 2 or self.reads < 2):
                result.append(track)
        return result

    def dice(self, min_share: float = 0.5) -> list[VotedDie]:
        """The believed dice, left to right, each with its voted value."""
        result = []
        for track in sorted(self.confirmed(min_share), key=lambda tr: (tr.box.cx, tr.box.cy)):
            value, share = track.vote()
            mean = track.weights[value] / max(1, track.counts[value])
            reading = DieReading(value, track.box, round(min(1.0, mean) * share, 4), "vote")
            result.append(VotedDie(reading, share, sum(track.counts.values()), share < self.config.split_share))
        return result

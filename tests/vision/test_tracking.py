"""Following dice across reads: matched by place and size, kept through short gaps, voted."""

from __future__ import annotations

from vision.live.tracking import DieTracker, TrackConfig
from vision.types import DieBox, DieReading


def die(value: int, x: float, y: float = 200.0, size: float = 50.0, confidence: float = 0.9) -> DieReading:
    return DieReading(value, DieBox(x, y, size, size), confidence, "pips")


def test_a_die_missed_for_two_reads_is_kept_and_dropped_after_a_third() -> None:
    tracker = DieTracker(TrackConfig(max_misses=2))
    tracker.update([die(3, 100), die(5, 300)], t=0.0)
    first = {t.id for t in tracker.tracks}
    tracker.update([die(3, 102)], t=0.1)
    tracker.update([die(3, 101)], t=0.2)
    assert {t.id for t in tracker.tracks} == first  # the 5 is still the same die
    tracker.update([die(3, 100), die(5, 301)], t=0.3)
    assert {t.id for t in tracker.tracks} == first and len(tracker.dice()) == 2
    for k in range(3):
        tracker.update([die(3, 100)], t=0.4 + 0.1 * k)
    assert [d.reading.value for d in tracker.dice()] == [3]


def test_something_much_bigger_or_further_away_is_another_die() -> None:
    tracker = DieTracker()
    tracker.update([die(4, 100)], t=0.0)
    tracker.update([die(4, 100, size=120)], t=0.1)  # a hand-sized blob where the die was
    tracker.update([die(4, 150)], t=0.2)  # a die a whole die away
    assert len({t.id for t in tracker.tracks}) == 3


def test_the_vote_weighs_confidence_and_a_split_vote_is_doubtful() -> None:
    tracker = DieTracker(TrackConfig(split_share=0.7))
    for value, confidence in [(6, 0.9), (6, 0.9), (5, 0.3), (6, 0.8)]:
        tracker.update([die(value, 100, confidence=confidence)], t=0.0)
    (clear,) = tracker.dice()
    assert clear.reading.value == 6 and not clear.doubtful and clear.reads == 4
    tracker.reset()
    for value in [2, 3, 2, 3, 3]:
        tracker.update([die(value, 100)], t=0.0)
    (split,) = tracker.dice()
    assert split.reading.value == 3 and split.doubtful and abs(split.share - 0.6) < 1e-9
    assert split.reading.method == "vote"


def test_a_box_that_flickers_between_two_places_does_not_hold_the_rest_back() -> None:
    tracker = DieTracker(TrackConfig(still_tolerance=0.25, recent=3))
    for k in range(12):  # a box that jumps 0.36 die from one read to the next and back
        tracker.update([die(2, 100 + 18 * (k % 2))], t=0.1 * k)
    assert tracker.still_since() == 0.0
    assert len(tracker.tracks) == 1


def test_a_die_whose_reads_all_lie_elsewhere_has_moved_since_the_first_of_them() -> None:
    tracker = DieTracker(TrackConfig(still_tolerance=0.25, recent=3))
    for k in range(4):
        tracker.update([die(2, 100)], t=0.1 * k)
    for k in range(4, 7):  # tipped over by half a die and lying there
        tracker.update([die(2, 125)], t=0.1 * k)
    assert tracker.still_since() == 0.4
    (track,) = tracker.tracks
    assert track.anchor == (125.0, 200.0) and track.hits == 3

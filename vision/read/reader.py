"""The reading pipeline: frame in, die readings out.

The learned detector finds each die's top face; the pips inside it are found at the die's
own scale and read as a face; the die-face classifier decides the dice the pips leave in
doubt, drops what is no die, and overrules a pip count it is sure is wrong.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol, TypeGuard, runtime_checkable

import numpy as np

from vision.read.classifier import NOT_A_DIE
from vision.read.faces import FaceRead, FaceSettings, read_face
from vision.read.median import median
from vision.read.pips import Candidate, PipFinding, PipSettings, candidate_for, face_of, find_pips
from vision.types import DieBox, DieReading

Mode = Literal["pips", "classifier", "combined"]
MODES: tuple[str, ...] = ("pips", "classifier", "combined")


@runtime_checkable
class FaceClassifier(Protocol):
    """Anything that scores die boxes in a frame.

    `predict` returns an (N, 7) float array of probabilities: columns 0..5 are the faces
    1..6, column 6 is "not a die face". The classifier crops the boxes itself.
    """

    def predict(self, frame_bgr: np.ndarray, boxes: Sequence[DieBox]) -> np.ndarray: ...


class Detected(Protocol):
    @property
    def box(self) -> DieBox: ...

    @property
    def score(self) -> float: ...


@runtime_checkable
class DiceFinder(Protocol):
    """Anything that finds dice in a frame, like the learned `vision.read.detect.DiceDetector`."""

    def detect(self, frame_bgr: np.ndarray) -> Sequence[Detected]: ...


@dataclass(frozen=True)
class Inspection:
    """Everything the reader saw for one found die, for drawing and debugging."""

    candidate: Candidate
    pips: PipFinding
    face: FaceRead
    reading: DieReading | None

    @property
    def pips_looked_for(self) -> bool:
        """Whether the die's pips were looked for: the live reader skips those of the dice the
        classifier is sure of, and of the dice it is sure are none."""
        return self.face is not _UNREAD


@dataclass(frozen=True)
class NearMisses:
    """Which of the detector's near misses (peaks scored from `floor` up to its threshold) are
    dice after all: those like the frame's dice, as a set's dice are alike in size and lie
    together (a heap of glossy dice seen at a slant is where the detector scores dice lowest).
    A near miss is kept when its size is within `size_ratio` of the median size of the dice
    found, either way, it lies within `reach` times that size of one of them, and the
    classifier reads it as a die at least `sureness` sure. The three bounds were set before the
    train splits and rendered tables were read, the sureness from a count on aws-vegas `train`,
    and each was held to a bar written before those were read with it: docs/vision.md, "Near
    misses like the dice beside them"."""

    floor: float = 0.2
    size_ratio: float = 1.4
    reach: float = 2.0
    sureness: float = 0.8

    def __post_init__(self) -> None:
        if not 0.0 < self.floor < 1.0:
            raise ValueError(f"a near miss's floor lies between 0 and 1, not {self.floor!r}")
        if not 0.0 < self.sureness <= 1.0:
            raise ValueError(f"a near miss's sureness lies above 0 and at most 1, not {self.sureness!r}")
        if not self.size_ratio >= 1.0:
            raise ValueError(f"size_ratio must be at least 1, not {self.size_ratio!r}")
        if not self.reach > 0.0:
            raise ValueError(f"reach must be above 0, not {self.reach!r}")

    def like_the_dice(self, misses: Sequence[Detected], dice: Sequence[Detected], apart: float) -> list[Detected]:
        """The `misses` alike in size to the `dice` and near one of them, but not on one (a
        centre closer than `apart` times the larger size)."""
        if not dice or not misses:
            return []
        typical = float(median([d.box.size for d in dice]))
        kept = []
        for miss in misses:
            box = miss.box
            if not typical / self.size_ratio <= box.size <= typical * self.size_ratio:
                continue
            gaps = [float(np.hypot(box.cx - d.box.cx, box.cy - d.box.cy)) for d in dice]
            if min(gaps) > self.reach * typical:
                continue
            if any(gap < apart * max(box.size, d.box.size) for gap, d in zip(gaps, dice)):
                continue
            kept.append(miss)
        return kept


@dataclass(frozen=True)
class ReaderSettings:
    pips: PipSettings = field(default_factory=PipSettings)
    # With a classifier, a face in doubt is looked at again with each of these ideas of a pip
    # until one reads clearly.
    second_looks: tuple[PipSettings, ...] = (
        PipSettings(lightness_weight=0.3),  # coloured pips on dark dice, past white glare
        PipSettings(local_window=0.45),  # pips on two-tone dice
        PipSettings(lightness_weight=0.3, local_window=0.45),
    )
    # Without a classifier, a die whose first look is in doubt is read again with each of these
    # ideas of a pip and the value most clear faces show wins (empty: the second looks above
    # instead). A clear face stands at once, unless its value is one of `confirm_values`: those
    # need the first of these looks to agree, or go to the vote.
    voting_looks: tuple[PipSettings, ...] = (
        PipSettings(lightness_weight=0.3),
        PipSettings(lightness_weight=0.3, local_window=0.45),
        PipSettings(polarity=-1),  # dark pips on a shiny face whose light falls off
        PipSettings(polarity=-1, any_centre=True),  # ... with a glare spot in each pip
    )
    confirm_values: tuple[int, ...] = (1, 2)
    faces: FaceSettings = field(default_factory=FaceSettings)
    # In "combined" mode the classifier drops a die only when this sure it is no die.
    veto_probability: float = 0.9
    # ... and decides a doubtful die only when at least this sure of its face.
    decide_probability: float = 0.5
    decide_pipless_probability: float = 0.9
    # ... and overrules a pip count it disagrees with when at least this sure.
    overrule_probability: float = 0.7
    # In "combined" mode, a die whose face the classifier is so sure of that no pip count could
    # change its value (`sure_probability`, the surest of the three above) is read as it says,
    # and its pips are not looked for: they cost most of a die's time. Ones excepted, for the
    # speck check below. A die the classifier is sure enough of to overrule its pips
    # has them looked for once: if any are found, its face is neither read nor looked at again
    # (see `DiceReader._value_is_settled`).
    pips_only_in_doubt: bool = False
    # Pips are looked for on the face alone, not on the table in the corners of its box.
    face_mask: bool = True
    # A die read as a one (a lone spot) that is smaller than this share of the median size of
    # the other dice found, at least two of them, is a speck on the table, not a die: a set's
    # dice are all alike in size. The classifier may still keep it, when it decided the one at
    # least `veto_probability` sure; a one whose pips agree with a sure classifier is still
    # dropped (keeping those too kept specks on the nellbyler-d6 table). None: no such check.
    speck_size: float | None = 0.6
    # A die of the detector's coarse look covers the first look's finds it took the place of
    # (`vision.read.detect.Detection.covers`). When at least this many of them are dice to the
    # classifier (`reads_as_die`), it is a clump of dice seen as one, and they are read instead;
    # a big die's own pips, seen as dice, are not dice to it (see docs/vision.md, "Dice close
    # to the camera"). None: the detector's choice stands. Chosen on the train splits and
    # rendered tables.
    clump_dice: int | None = 2
    # The detector's coarse look is taken only when the first look found nothing, or something
    # the classifier does not read as a die (`reads_as_die`): a big die's pips seen as dice, or
    # a clump of dice seen as one, are what it is for. A live camera's frames mostly hold only
    # clear dice, and skipping the look saves about a tenth of its time (docs/vision.md, "Speed").
    coarse_only_in_doubt: bool = False
    # The detector's near misses that are dice after all (see `NearMisses`); None: none kept.
    near_misses: NearMisses | None = field(default_factory=NearMisses)

    def __post_init__(self) -> None:
        if self.clump_dice is not None and self.clump_dice < 1:
            raise ValueError(f"clump_dice must be at least 1, or None, not {self.clump_dice!r}")

    def reads_as_die(self, p: np.ndarray, sure: float | None = None) -> bool:
        """Whether the classifier's `p` is at least `sure` (by default as sure as it must be to
        decide a die in doubt) of its likeliest face, and surer of it than that there is no die."""
        best = int(np.argmax(p[:NOT_A_DIE]))
        needed = self.decide_probability if sure is None else sure
        return bool(p[best] >= needed and p[best] > p[NOT_A_DIE])

    @property
    def sure_probability(self) -> float:
        """From this sureness of the classifier on, no pip count changes a die's value."""
        return max(self.decide_probability, self.decide_pipless_probability, self.overrule_probability)


# The reader under a live camera, where each frame's time counts: the faces the classifier is
# sure of skip the pips, and the detector's coarse look is taken only when the first leaves a doubt.
LIVE = ReaderSettings(pips_only_in_doubt=True, coarse_only_in_doubt=True)


def _classified(classifier: FaceClassifier, frame_bgr: np.ndarray, boxes: list[DieBox]) -> np.ndarray:
    """The classifier's (N, 7) probabilities for the boxes, or ValueError for another shape."""
    probabilities = np.asarray(classifier.predict(frame_bgr, boxes), dtype=np.float64)
    if probabilities.shape != (len(boxes), 7):
        raise ValueError(f"classifier returned shape {probabilities.shape}, expected ({len(boxes)}, 7)")
    return probabilities


def _stands(
    asked: tuple[list[Candidate], np.ndarray] | None, detections: Sequence[Detected]
) -> TypeGuard[tuple[list[Candidate], np.ndarray]]:
    """Whether the classifier was `asked` about exactly these detections, in this order."""
    return asked is not None and [c.box for c in asked[0]] == [d.box for d in detections]


def _pips_confidence(face: FaceRead, contrast: float) -> float:
    layout = 1.0 if face.count == 1 else max(0.0, 1.0 - face.layout_error / 0.5)
    clarity = min(1.0, contrast / 80.0)
    return round(0.5 + 0.5 * layout * clarity if not face.doubtful else 0.5 * layout * clarity, 3)


_UNREAD = FaceRead(None, 0, float("inf"), ("not read",))


def _pips_unread(pips: PipFinding) -> FaceRead:
    """The face of a die whose pips were found but not read as a face."""
    return FaceRead(None, len(pips.pips), float("inf"), ("not read",))


def _without_specks(
    inspections: list[Inspection],
    share: float,
    sure: float,
    unlooked_ones: Collection[int] = (),
    look: Callable[[int], Inspection] | None = None,
) -> list[Inspection]:
    """The inspections with each one-pip reading much smaller than the other dice dropped (see
    `ReaderSettings.speck_size`).

    `unlooked_ones` are the indexes of ones read as the classifier says without a look at their
    pips; only those small enough to be specks are looked at, with `look`: the others are kept
    whatever their pips show."""
    read = [(i, item.reading) for i, item in enumerate(inspections) if item.reading is not None]
    if len(read) < 3:
        return inspections
    sides = [max(reading.box.w, reading.box.h) for _, reading in read]
    kept = list(inspections)
    for k, (i, reading) in enumerate(read):
        if reading.value != 1 or sides[k] >= share * float(median(sides[:k] + sides[k + 1 :])):
            continue
        if i in unlooked_ones and look is not None:
            kept[i] = look(i)
            looked = kept[i].reading
            if looked is None or looked.value != 1:
                continue
            reading = looked
        if reading.method == "classifier" and reading.confidence >= sure:
            continue
        kept[i] = replace(kept[i], reading=None)
    return kept


class DiceReader:
    """Reads every die in a BGR frame.

    `read` keeps no state between calls, so one reader can serve several threads at once
    provided its detector and classifier are thread-safe too (onnxruntime sessions are).
    Without a `detector`, the shipped one is loaded.
    """

    def __init__(
        self,
        classifier: FaceClassifier | None = None,
        mode: Mode = "combined",
        settings: ReaderSettings | None = None,
        detector: DiceFinder | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        if mode == "classifier" and classifier is None:
            raise ValueError("mode 'classifier' needs a classifier")
        if detector is None:
            from vision.read.detect import load_default_detector

            detector = load_default_detector()
        self.classifier = classifier
        self.mode = mode
        self.settings = settings or ReaderSettings()
        self.detector = detector

    @property
    def detector_threshold(self) -> float | None:
        """The detector's threshold, when it is the learned detector (None for another finder)."""
        from vision.read.detect import DiceDetector

        return self.detector.settings.threshold if isinstance(self.detector, DiceDetector) else None

    def with_detector_threshold(self, threshold: float) -> DiceReader:
        """This reader with the learned detector's threshold changed (for a table whose dice it
        scores lower); the models are shared. Another finder cannot be changed: ValueError."""
        from vision.read.detect import DiceDetector

        if not isinstance(self.detector, DiceDetector):
            raise ValueError("only the learned detector's threshold can be changed")
        return DiceReader(self.classifier, self.mode, self.settings, self.detector.with_threshold(threshold))

    def read(self, frame_bgr: np.ndarray) -> list[DieReading]:
        """The dice in the frame, as readings in frame pixels."""
        return [item.reading for item in self.inspect(frame_bgr) if item.reading is not None]

    def inspect(self, frame_bgr: np.ndarray) -> list[Inspection]:
        """Every die found, with its pips, face read and final reading (None when dropped)."""
        if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
            raise ValueError("expected a BGR uint8 frame of shape (height, width, 3)")
        detections, asked, near = self._detected(frame_bgr)
        if near:
            detections, asked = self._with_near_misses(frame_bgr, detections, asked, near)
        if self.settings.clump_dice is not None and self.classifier is not None and self.mode != "pips":
            detections = self._unclumped(frame_bgr, detections, self.classifier, self.settings.clump_dice)
        probabilities = None
        if _stands(asked, detections):
            found, probabilities = asked  # the finds the classifier was asked about stand
        else:
            found = [
                outline
                for outline in (candidate_for(d.box, frame_bgr, face_mask=False) for d in detections)
                if outline is not None
            ]
            if self.classifier is not None and self.mode != "pips" and found:
                probabilities = _classified(self.classifier, frame_bgr, [c.box for c in found])

        def p_of(index: int) -> np.ndarray | None:
            return None if probabilities is None else probabilities[index]

        inspections = [self._inspect_one(frame_bgr, outline, p_of(index)) for index, outline in enumerate(found)]
        if self.settings.speck_size is not None:
            # A one is what a speck on the table looks like, to the classifier too, and the speck
            # check needs to know whether a small one's pips show a one: those are looked at now.
            unlooked_ones = [
                i
                for i, item in enumerate(inspections)
                if not item.pips_looked_for and item.reading is not None and item.reading.value == 1
            ]
            inspections = _without_specks(
                inspections,
                self.settings.speck_size,
                self.settings.veto_probability,
                unlooked_ones,
                look=lambda i: self._inspect_one(frame_bgr, found[i], p_of(i), look=True),
            )
        return inspections

    def _detected(
        self, frame_bgr: np.ndarray
    ) -> tuple[list[Detected], tuple[list[Candidate], np.ndarray] | None, list[Detected]]:
        """The detector's finds; when the classifier was asked about the first look's
        (`ReaderSettings.coarse_only_in_doubt`), their outlines and its answer; and the
        detector's near misses, when they are looked at (`ReaderSettings.near_misses`)."""
        from vision.read.detect import Detection, DiceDetector

        classifier, settings, detector = self.classifier, self.settings, self.detector
        if not isinstance(detector, DiceDetector) or classifier is None or self.mode == "pips":
            return list(detector.detect(frame_bgr)), None, []
        floor = None if settings.near_misses is None else settings.near_misses.floor
        if not settings.coarse_only_in_doubt:
            found, near = detector.detect_with_near_misses(frame_bgr, floor)
            return list(found), None, list(near)
        asked: list[tuple[list[Candidate], np.ndarray]] = []

        def coarse_wanted(found: list[Detection]) -> bool:
            outlines = [candidate_for(d.box, frame_bgr, face_mask=False) for d in found]
            whole = [outline for outline in outlines if outline is not None]
            if not whole or len(whole) < len(found):
                return True
            asked.append((whole, _classified(classifier, frame_bgr, [outline.box for outline in whole])))
            return not all(settings.reads_as_die(p) for p in asked[0][1])

        found, near = detector.detect_with_near_misses(frame_bgr, floor, coarse_wanted)
        return list(found), (asked[0] if asked else None), list(near)

    def _with_near_misses(
        self,
        frame_bgr: np.ndarray,
        detections: list[Detected],
        asked: tuple[list[Candidate], np.ndarray] | None,
        near: list[Detected],
    ) -> tuple[list[Detected], tuple[list[Candidate], np.ndarray] | None]:
        """The detections with the near misses that are dice after all (see `NearMisses`), and
        `asked` with what the classifier said of those."""
        from vision.read.detect import DiceDetector

        rule, classifier = self.settings.near_misses, self.classifier
        if rule is None or classifier is None or not isinstance(self.detector, DiceDetector):
            return detections, asked
        alike = rule.like_the_dice(near, detections, self.detector.settings.merge_distance)
        outlined = [(miss, candidate_for(miss.box, frame_bgr, face_mask=False)) for miss in alike]
        whole = [(miss, outline) for miss, outline in outlined if outline is not None]
        if not whole:
            return detections, asked
        said = _classified(classifier, frame_bgr, [outline.box for _, outline in whole])
        dice = [(item, p) for item, p in zip(whole, said) if self.settings.reads_as_die(p, rule.sureness)]
        if not dice:
            return detections, asked
        if _stands(asked, detections):
            asked = (asked[0] + [outline for (_, outline), _ in dice], np.vstack([asked[1]] + [p for _, p in dice]))
        return detections + [miss for (miss, _), _ in dice], asked

    def _unclumped(
        self, frame_bgr: np.ndarray, detections: list[Detected], classifier: FaceClassifier, clump_dice: int
    ) -> list[Detected]:
        """The detections with each clump of dice seen as one die replaced by the dice it covers
        (see `ReaderSettings.clump_dice`)."""
        covering = [(i, tuple(getattr(d, "covers", ()))) for i, d in enumerate(detections)]
        covering = [(i, covers) for i, covers in covering if len(covers) >= clump_dice]
        if not covering:
            return detections
        boxes = [covered.box for _, covers in covering for covered in covers]
        probabilities = _classified(classifier, frame_bgr, boxes)
        clumps: dict[int, tuple[Detected, ...]] = {}
        start = 0
        for i, covers in covering:
            dice = sum(self.settings.reads_as_die(p) for p in probabilities[start : start + len(covers)])
            if dice >= clump_dice:
                clumps[i] = covers
            start += len(covers)
        return [one for i, detection in enumerate(detections) for one in clumps.get(i, (detection,))]

    def _inspect_one(
        self, frame_bgr: np.ndarray, outline: Candidate, p: np.ndarray | None, look: bool = False
    ) -> Inspection:
        """One found die's inspection. Unless `look`, what the classifier is sure of is read
        without its pips (see `ReaderSettings.pips_only_in_doubt`)."""
        settings = self.settings
        settled: int | None = None  # the face the classifier has settled, if any
        if p is not None and self.mode == "combined":
            unlooked = PipFinding((), 0.0, outline.box.center)
            if p[NOT_A_DIE] >= settings.veto_probability:
                # What the classifier is this sure is no die is dropped whatever its pips say,
                # so its pips are not looked for.
                return Inspection(outline, unlooked, _UNREAD, None)
            best = int(np.argmax(p[:NOT_A_DIE]))
            if settings.pips_only_in_doubt and not look:
                if p[best] >= settings.sure_probability:
                    reading = DieReading(best + 1, outline.box, round(float(p[best]), 3), "classifier")
                    return Inspection(outline, unlooked, _UNREAD, reading)
                if self._value_is_settled(p):
                    settled = best
        candidate = face_of(outline, frame_bgr) if settings.face_mask else outline
        first = find_pips(frame_bgr, candidate, candidate.side, settings.pips)
        if p is not None and settled is not None and first.pips:
            # Whatever face these pips or the second looks show, the value is the classifier's.
            reading = DieReading(settled + 1, candidate.box, round(float(p[settled]), 3), "classifier")
            return Inspection(candidate, first, _pips_unread(first), reading)
        pips, face = self._look_at(frame_bgr, candidate, first)
        return Inspection(candidate, pips, face, self._decide(candidate, pips, face, p))

    def _value_is_settled(self, p: np.ndarray) -> bool:
        """Whether the classifier's `p`, short of the veto, leaves a die's pips only one
        question in "combined" mode: are there any? With at least one pip found, `_decide`
        reads the classifier's likeliest face however the pips read: a clear face of another value is overruled,
        a doubtful one decided by the classifier, and a clear face of this value is this
        value. With none, the die may be dropped, as a blank face needs a surer classifier."""
        settings = self.settings
        return settings.reads_as_die(p, max(settings.overrule_probability, settings.decide_probability))

    def _look_at(
        self, frame_bgr: np.ndarray, candidate: Candidate, first: PipFinding | None = None
    ) -> tuple[PipFinding, FaceRead]:
        """The candidate's pips (`first`, when already found) and face; doubtful faces get
        further looks, with other ideas of what a pip is."""
        settings = self.settings
        pips = first if first is not None else find_pips(frame_bgr, candidate, candidate.side, settings.pips)
        face = read_face(pips, candidate.side, settings=settings.faces)
        if settings.voting_looks and (self.classifier is None or self.mode == "pips"):
            return self._vote(frame_bgr, candidate, pips, face)
        for second in settings.second_looks:
            if not face.doubtful:
                break
            other_pips = find_pips(frame_bgr, candidate, candidate.side, second)
            other_face = read_face(other_pips, candidate.side, settings=settings.faces)
            if not other_face.doubtful:
                pips, face = other_pips, other_face
        return pips, face

    def _vote(
        self, frame_bgr: np.ndarray, candidate: Candidate, pips: PipFinding, face: FaceRead
    ) -> tuple[PipFinding, FaceRead]:
        """Reads by several ideas of a pip, when the first look is not enough.

        A clear face stands, except a 1 or 2 (a glare spot or a pip seen alone makes those most
        easily), which stands when the next look agrees. Otherwise every look votes: the value
        most clear faces show wins (if none is clear, most faces), ties going to the earlier look.
        """
        looks = [(pips, face)]

        def look(settings: PipSettings) -> tuple[PipFinding, FaceRead]:
            other_pips = find_pips(frame_bgr, candidate, candidate.side, settings)
            looks.append((other_pips, read_face(other_pips, candidate.side, settings=self.settings.faces)))
            return looks[-1]

        voting = self.settings.voting_looks
        if face.value is not None and not face.doubtful:
            if face.value not in self.settings.confirm_values:
                return pips, face
            second = look(voting[0])[1]
            if second.value == face.value and not second.doubtful:
                return pips, face
            voting = voting[1:]
        for settings in voting:
            look(settings)
        clear = [item for item in looks if item[1].value is not None and not item[1].doubtful]
        voters = clear or [item for item in looks if item[1].value is not None]
        if not voters:
            return pips, face
        counts = Counter(item[1].value for item in voters)
        most = max(counts.values())
        return next(item for item in voters if counts[item[1].value] == most)

    def _decide(
        self, candidate: Candidate, pips: PipFinding, face: FaceRead, p: np.ndarray | None
    ) -> DieReading | None:
        box = candidate.box
        if p is not None:
            best = int(np.argmax(p[:NOT_A_DIE]))
            if self.mode == "classifier":
                if int(np.argmax(p)) == NOT_A_DIE:
                    return None
                return DieReading(best + 1, box, round(float(p[best]), 3), "classifier")
            if p[NOT_A_DIE] >= self.settings.veto_probability:
                return None
            if face.doubtful or face.value is None:
                # A face without a single pip is more often a coin or a screw than a die.
                needed = self.settings.decide_probability if face.count else self.settings.decide_pipless_probability
                if not self.settings.reads_as_die(p, needed):
                    return None
                return DieReading(best + 1, box, round(float(p[best]), 3), "classifier")
            if face.value != best + 1 and p[best] >= self.settings.overrule_probability:
                return DieReading(best + 1, box, round(float(p[best]), 3), "classifier")
        if face.value is None:
            return None
        return DieReading(face.value, box, _pips_confidence(face, pips.contrast), "pips")

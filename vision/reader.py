"""The reading pipeline: frame in, die readings out (find dice, find pips, read faces)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol, runtime_checkable

import cv2
import numpy as np

from vision.faces import FaceRead, FaceSettings, layout_fit, read_face
from vision.find import Candidate, Candidates, FindSettings, find_dice
from vision.pips import Pip, PipFinding, PipSettings, find_pips, find_pips_like, lab_distance, pip_colours
from vision.types import DieBox, DieReading

Mode = Literal["pips", "classifier", "combined"]
MODES: tuple[str, ...] = ("pips", "classifier", "combined")
NOT_A_DIE = 6  # classifier column for "not a die face"


@runtime_checkable
class FaceClassifier(Protocol):
    """Anything that scores die boxes in a frame.

    `predict` returns an (N, 7) float array of probabilities: columns 0..5 are the faces
    1..6, column 6 is "not a die face". The classifier crops the boxes itself.
    """

    def predict(self, frame_bgr: np.ndarray, boxes: Sequence[DieBox]) -> np.ndarray: ...


@dataclass(frozen=True)
class Inspection:
    """Everything the reader saw for one candidate, for drawing and debugging."""

    candidate: Candidate
    pips: PipFinding
    face: FaceRead
    reading: DieReading | None


@dataclass(frozen=True)
class ReaderSettings:
    find: FindSettings = field(default_factory=FindSettings)
    pips: PipSettings = field(default_factory=PipSettings)
    second_looks: tuple[PipSettings, ...] = (
        PipSettings(lightness_weight=0.3),  # coloured pips on dark dice, past white glare
        PipSettings(local_window=0.45),  # pips on two-tone dice
        PipSettings(lightness_weight=0.3, local_window=0.45),
    )
    # Without a classifier, a die whose first look is in doubt is read again with each of these
    # ideas of a pip and the value most clear faces show wins (chosen on train; empty: the
    # second looks above instead). A clear face stands at once, unless its value is one of
    # `confirm_values`: those need the first of these looks to agree, or go to the vote.
    voting_looks: tuple[PipSettings, ...] = (
        PipSettings(lightness_weight=0.3),
        PipSettings(lightness_weight=0.3, local_window=0.45),
        PipSettings(polarity=-1),  # dark pips on a shiny face whose light falls off
        PipSettings(polarity=-1, any_centre=True),  # ... with a glare spot in each pip
    )
    confirm_values: tuple[int, ...] = (1, 2)
    faces: FaceSettings = field(default_factory=FaceSettings)
    # In "combined" mode the classifier drops a candidate only when this sure it is no die.
    veto_probability: float = 0.9
    # ... and decides a doubtful die only when at least this sure of its face.
    decide_probability: float = 0.5
    decide_pipless_probability: float = 0.9
    # ... and overrules a pip count it disagrees with when at least this sure (chosen on train).
    overrule_probability: float = 0.7
    # With a classifier, more permissive finds look again for dice the first find missed
    # (pale dice on a pale table, dice pressed together), with the kept dice taken for table;
    # the classifier must be this sure of a face to keep one.
    second_finds: tuple[FindSettings, ...] = (
        FindSettings(min_difference=8.0, edge_low=10, edge_high=30, min_fill=0.5, max_aspect=1.8),
        FindSettings(min_difference=14.0, edge_low=15, edge_high=40, core_fraction=0.35),
        FindSettings(),  # the first find again, now that the kept dice no longer hold the rest in clusters
    )
    second_find_probability: float = 0.9
    # Without a classifier, this find looks again for missed dice; a new candidate is kept only
    # when its pips make a face beyond doubt (one permissive find does as well as several).
    pip_second_finds: tuple[FindSettings, ...] = (
        FindSettings(min_difference=14.0, edge_low=15, edge_high=40, core_fraction=0.35),
    )
    # ... again while it finds dice, up to this many times: the dice it keeps are table for the
    # next look, which frees what was pressed against them.
    pip_second_rounds: int = 3
    # Without a classifier, a 2 or 3 whose pips run more than this many degrees off the box's
    # diagonal is read again as the edge of a bigger face (45: never).
    edge_pair_angle: float = 20.0
    # A new candidate whose centre is closer than this many die sizes to a kept die is that die.
    same_die_distance: float = 0.75
    # Two readings closer than this many die sides (the larger box's short side) are one die
    # cut twice by the finder: the one the classifier finds less like its value goes.
    duplicate_distance: float = 0.65
    # A new candidate's box is often off (a pale die's faint edge, a cluster cut wrongly): the
    # classifier also sees die-size squares at its centre and shifted by this many die sizes,
    # and the first find's dropped candidates get the same second chance.
    reframe_shift: float = 0.35
    retry_dropped: bool = True
    # A kept die whose box's short side is under this fraction of the frame's die size was
    # likely seen in part; the classifier reads it again on die-size squares around it (without
    # a classifier, its pips are read again on a die-size square at its centre).
    small_box: float = 0.9
    # Without a classifier, a clear face of these values whose pips lie this far (of its box's
    # side) or more off the box's centre may be part of a bigger face seen in part: pips within
    # `extend_reach` pip spacings (at least `extend_spacing` pip diameters, and around a lone
    # pip at least `faces.single_spacing` of the frame's die size), on what lies within
    # `extend_colour` (Lab) of the face's colour, are read with its own if the ring around each
    # new one is within `extend_colour` of the face's colour too.
    extend_values: tuple[int, ...] = (1, 2, 3)
    extend_offset: float = 0.1
    extend_reach: float = 2.9
    extend_spacing: float = 1.4
    extend_colour: float = 24.0
    # Without a classifier, a face still in doubt at the end is read again by the colour of its
    # own pips (a marbled die hides the pips on its dark part from the face-colour looks); a
    # face of more pips, sure but for its grid completion, replaces it.
    like_pips: bool = True
    # Without a classifier, a clear 2 whose pips differ in colour by more than this share of
    # their distance from the face's colour is a 1 beside a glare spot or a hole (the pips of
    # one face share a colour; chosen on train). 0: no check.
    two_colours: float = 0.4


def _pips_confidence(face: FaceRead, contrast: float) -> float:
    layout = 1.0 if face.count == 1 else max(0.0, 1.0 - face.layout_error / 0.5)
    clarity = min(1.0, contrast / 80.0)
    return round(0.5 + 0.5 * layout * clarity if not face.doubtful else 0.5 * layout * clarity, 3)


_NEIGHBOURS = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (1, -1), (-1, 1))


def _reframed(candidate: Candidate, die_size: float, shift: float) -> list[Candidate]:
    """The candidate as found, then with die-size square boxes at its centre and around it."""
    box = candidate.box
    step = shift * die_size
    return [candidate] + [
        replace(candidate, box=DieBox(box.cx + dx * step, box.cy + dy * step, die_size, die_size, box.angle))
        for dx, dy in (_NEIGHBOURS if shift > 0 else _NEIGHBOURS[:1])
    ]


def _square_candidate(box: DieBox, shape: tuple[int, ...]) -> Candidate | None:
    corners = box.corners()
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(shape[1], x1), min(shape[0], y1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners - (x0, y0)).astype(np.int32), 255)
    return Candidate(box, float(np.sqrt(box.w * box.h)), mask, (int(x0), int(y0)), 0.0)


def _face_colour(frame_bgr: np.ndarray, candidate: Candidate) -> np.ndarray:
    """Median Lab colour of the candidate's region."""
    x0, y0 = candidate.origin
    height, width = candidate.mask.shape
    lab = cv2.cvtColor(frame_bgr[y0 : y0 + height, x0 : x0 + width], cv2.COLOR_BGR2LAB)
    inside = lab[candidate.mask[: lab.shape[0], : lab.shape[1]] > 0]
    return np.median(inside[::3], axis=0).astype(np.float64) if len(inside) else np.zeros(3)


def _near_colour(
    frame_bgr: np.ndarray, origin: tuple[int, int], shape: tuple[int, ...], colour: np.ndarray, distance: float, hole: float
) -> np.ndarray:
    """0/255 mask (`shape`, placed at `origin`) of the pixels within `distance` (Lab) of
    `colour`, closed over holes up to `hole` pixels across (the pips of a face)."""
    x0, y0 = origin
    lab = cv2.cvtColor(frame_bgr[y0 : y0 + shape[0], x0 : x0 + shape[1]], cv2.COLOR_BGR2LAB)
    near = lab_distance(lab, np.asarray(colour, np.float32)) < distance
    size = max(3, int(hole) | 1)
    closed = cv2.morphologyEx(near.astype(np.uint8) * 255, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    out = np.zeros(shape[:2], np.uint8)
    out[: closed.shape[0], : closed.shape[1]] = closed
    return out


def _ring_colour(frame_bgr: np.ndarray, pip: Pip) -> np.ndarray | None:
    """Median Lab colour of a ring around a pip, from its rim to one diameter beyond."""
    outer = int(np.ceil(1.5 * pip.diameter))
    cx, cy = int(round(pip.x)), int(round(pip.y))
    x0, y0 = max(0, cx - outer), max(0, cy - outer)
    x1, y1 = min(frame_bgr.shape[1], cx + outer + 1), min(frame_bgr.shape[0], cy + outer + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    ys, xs = np.mgrid[y0:y1, x0:x1]
    distance = np.hypot(xs - pip.x, ys - pip.y)
    ring = (distance >= 0.5 * pip.diameter) & (distance <= 1.5 * pip.diameter)
    if not ring.any():
        return None
    lab = cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)
    return np.median(lab[ring], axis=0).astype(np.float64)


def _clear_of(box: DieBox, boxes: Sequence[DieBox], reach: float) -> bool:
    return all(np.hypot(box.cx - other.cx, box.cy - other.cy) >= reach for other in boxes)


def _without_duplicates(inspections: list[Inspection], probabilities: np.ndarray, distance: float) -> list[Inspection]:
    """The inspections with the reading dropped from every pair of readings of one die."""
    kept = [i for i, item in enumerate(inspections) if item.reading is not None]
    likeness = {i: probabilities[i, inspections[i].reading.value - 1] for i in kept}  # type: ignore[union-attr]
    dropped: set[int] = set()
    for i in sorted(kept, key=lambda i: -likeness[i]):
        if i in dropped:
            continue
        a = inspections[i].reading.box  # type: ignore[union-attr]
        for j in kept:
            if j == i or j in dropped:
                continue
            b = inspections[j].reading.box  # type: ignore[union-attr]
            side = max(min(a.w, a.h), min(b.w, b.h))
            if likeness[j] <= likeness[i] and np.hypot(a.cx - b.cx, a.cy - b.cy) < distance * side:
                dropped.add(j)
    return [replace(item, reading=None) if i in dropped else item for i, item in enumerate(inspections)]


class DiceReader:
    """Reads every die in a BGR frame.

    `read` keeps no state between calls, so one reader can serve several threads at once
    provided its classifier (if any) is thread-safe too (an onnxruntime session is).
    """

    def __init__(
        self,
        classifier: FaceClassifier | None = None,
        mode: Mode = "combined",
        settings: ReaderSettings | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        if mode == "classifier" and classifier is None:
            raise ValueError("mode 'classifier' needs a classifier")
        self.classifier = classifier
        self.mode = mode
        self.settings = settings or ReaderSettings()

    def read(self, frame_bgr: np.ndarray) -> list[DieReading]:
        """The dice in the frame, as readings in frame pixels."""
        return [item.reading for item in self.inspect(frame_bgr) if item.reading is not None]

    def inspect(self, frame_bgr: np.ndarray) -> list[Inspection]:
        """Every candidate with its pips, face read and final reading (None when dropped)."""
        if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
            raise ValueError("expected a BGR uint8 frame of shape (height, width, 3)")
        settings = self.settings
        found = find_dice(frame_bgr, settings.find)
        looked: list[tuple[Candidate, PipFinding, FaceRead]] = []
        for candidate in found.items:
            looked.append((candidate, *self._look_at(frame_bgr, candidate)))

        probabilities = None
        if self.classifier is not None and self.mode != "pips" and looked:
            probabilities = np.asarray(
                self.classifier.predict(frame_bgr, [c.box for c, _, _ in looked]), dtype=np.float64
            )
            if probabilities.shape != (len(looked), 7):
                raise ValueError(f"classifier returned shape {probabilities.shape}, expected ({len(looked)}, 7)")

        inspections = []
        for index, (candidate, pips, face) in enumerate(looked):
            p = None if probabilities is None else probabilities[index]
            inspections.append(Inspection(candidate, pips, face, self._decide(candidate, pips, face, p)))
        if self.classifier is not None and self.mode != "pips":
            if probabilities is not None and settings.small_box < 1.0:
                inspections = [self._reframe_small(frame_bgr, item, found.die_size) for item in inspections]
            if probabilities is not None and settings.duplicate_distance > 0:
                inspections = _without_duplicates(inspections, probabilities, settings.duplicate_distance)
            if settings.second_finds:
                inspections.extend(self._look_again(frame_bgr, inspections, found))
        else:
            if settings.small_box < 1.0:
                inspections = [self._reframe_small_by_pips(frame_bgr, item, found.die_size) for item in inspections]
            if settings.edge_pair_angle < 45.0:
                inspections = [self._reread_edge_pair(frame_bgr, item) for item in inspections]
            if settings.pip_second_finds:
                for _ in range(settings.pip_second_rounds):
                    added = self._look_again_by_pips(frame_bgr, inspections, found)
                    inspections.extend(added)
                    if not added:
                        break
            if settings.extend_values:
                inspections = [self._extend_face(frame_bgr, item, inspections, found.die_size) for item in inspections]
            if settings.like_pips:
                inspections = [self._reread_like_pips(frame_bgr, item) for item in inspections]
            if settings.two_colours > 0:
                inspections = [self._one_beside_a_spot(frame_bgr, item) for item in inspections]
        return inspections

    def _reframe_small_by_pips(self, frame_bgr: np.ndarray, item: Inspection, die_size: float) -> Inspection:
        """A kept die whose box is much smaller than the frame's dice is read again on a
        die-size square at its centre; that reading counts if its face is beyond doubt."""
        reading = item.reading
        if reading is None or min(reading.box.w, reading.box.h) >= self.settings.small_box * die_size:
            return item
        box = reading.box
        return self._clear_face_on(frame_bgr, DieBox(box.cx, box.cy, die_size, die_size, box.angle)) or item

    def _extend_face(self, frame_bgr: np.ndarray, item: Inspection, inspections: list[Inspection], die_size: float) -> Inspection:
        """A clear 1, 2 or 3 whose pips lie off its box's centre may be part of a bigger face
        the finder saw in part (a pale die on a pale table). Pips of the same size within a
        face's reach, on the face's colour and clear of other dice, are read with its own; a
        clear face of more pips replaces it."""
        reading, face = item.reading, item.face
        settings = self.settings
        if reading is None or reading.value not in settings.extend_values or not face.used:
            return item
        mine = [item.pips.pips[k] for k in face.used]
        points = np.array([(p.x, p.y) for p in mine])
        centre = points.mean(axis=0)
        box = reading.box
        if np.hypot(*(centre - box.center)) < settings.extend_offset * min(box.w, box.h):
            return item  # pips centred in the box: the face is seen whole
        diameter = float(np.median([p.diameter for p in mine]))
        # A lone pip or a pair gives no sure spacing (a pair may be a face's edge or its
        # diagonal): take at least what pips of this size are usually spaced, and around a lone
        # pip (often a one's big pip, or a small pip of a face seen in part) what the frame's dice
        # usually space theirs.
        spacing = max(layout_fit(points)[1] if len(mine) >= 2 else 0.0, settings.extend_spacing * diameter)
        if len(mine) == 1:
            spacing = max(spacing, settings.faces.single_spacing * die_size)
        # Pips seen along a face's edge may be its whole width apart: the rest of the face
        # lies within half as far again.
        width = max(float(np.hypot(*(a - b))) for a in points for b in points)
        reach = max(settings.extend_reach * spacing, 1.5 * width)
        side = spacing / settings.faces.single_spacing
        square = _square_candidate(DieBox(float(centre[0]), float(centre[1]), 2 * reach, 2 * reach, box.angle), frame_bgr.shape)
        if square is None:
            return item
        mask = square.mask.copy()
        for other in inspections:
            if other is not item and other.reading is not None:
                corners = other.reading.box.corners() - square.origin
                cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 0)
        # Only what has the face's colour, with the pips it holds: the table around a die would
        # skew the face colour and swallow the pips near its edge.
        face_colour = _face_colour(frame_bgr, item.candidate)
        mask = cv2.bitwise_and(mask, _near_colour(frame_bgr, square.origin, mask.shape, face_colour, settings.extend_colour, 2 * diameter))
        wide = find_pips(frame_bgr, replace(square, mask=mask), side, settings.pips)
        near = [
            p for p in wide.pips
            if 0.6 <= p.diameter / diameter <= 1.6 and np.hypot(*(points - (p.x, p.y)).T).max() <= reach
        ]

        def apart(p: Pip, others: Sequence[Pip]) -> bool:
            return min(np.hypot(p.x - q.x, p.y - q.y) for q in others) > 0.35 * spacing

        if not len(mine) < len(near) <= 6 or any(apart(p, near) for p in mine):
            return item
        for p in near:
            ring = _ring_colour(frame_bgr, p) if apart(p, mine) else face_colour
            # (a dark gap between two dice makes a pip-like blob too)
            if ring is None or float(np.linalg.norm(ring - face_colour)) > settings.extend_colour:
                return item
        face_centre = tuple(float(v) for v in np.mean([(p.x, p.y) for p in near], axis=0))
        finding = replace(wide, pips=tuple(near), face_center=face_centre)
        bigger = read_face(finding, side, settings=settings.faces)
        if bigger.value is None or bigger.doubtful or bigger.value <= reading.value:
            return item
        size = max(side, min(box.w, box.h))
        grown = DieBox(face_centre[0], face_centre[1], size, size, box.angle)
        return Inspection(item.candidate, finding, bigger, DieReading(bigger.value, grown, _pips_confidence(bigger, finding.contrast), "pips"))

    def _reread_like_pips(self, frame_bgr: np.ndarray, item: Inspection) -> Inspection:
        """A doubtful face read again with its pips' own colour for a pip; a face of more pips
        whose only doubt is the grid's completion of it replaces the reading."""
        reading, face = item.reading, item.face
        if reading is None or not face.doubtful or not face.used:
            return item
        candidate = item.candidate
        found = [item.pips.pips[k] for k in face.used]
        pips = find_pips_like(frame_bgr, candidate, candidate.side, found, self.settings.pips)
        other = read_face(pips, candidate.side, settings=self.settings.faces)
        if other.value is None or other.value <= reading.value or set(other.doubts) - {"grid"}:
            return item
        return Inspection(candidate, pips, other, replace(reading, value=other.value, confidence=_pips_confidence(other, pips.contrast)))

    def _one_beside_a_spot(self, frame_bgr: np.ndarray, item: Inspection) -> Inspection:
        """A clear 2 whose two pips are not of one colour reads as a 1: its pip is the one
        nearer the face's centre. Pips that barely stand out from the face give no sure colour."""
        reading, face = item.reading, item.face
        if reading is None or reading.value != 2 or face.doubtful or len(face.used) != 2:
            return item
        pips = [item.pips.pips[k] for k in face.used]
        colours = pip_colours(frame_bgr, pips)
        contrast = float(np.linalg.norm(colours - _face_colour(frame_bgr, item.candidate), axis=1).max())
        if contrast < self.settings.faces.min_contrast:
            return item
        if float(np.linalg.norm(colours[0] - colours[1])) <= self.settings.two_colours * contrast:
            return item
        centre = item.pips.face_center
        kept = min(face.used, key=lambda k: np.hypot(item.pips.pips[k].x - centre[0], item.pips.pips[k].y - centre[1]))
        one = FaceRead(1, face.count, 0.0, (), (kept,))
        return Inspection(item.candidate, item.pips, one, replace(reading, value=1, confidence=_pips_confidence(one, item.pips.contrast)))

    def _clear_face_on(self, frame_bgr: np.ndarray, box: DieBox) -> Inspection | None:
        """The pips read on a square box, if they make a face beyond doubt."""
        square = _square_candidate(box, frame_bgr.shape)
        return None if square is None else self._clear_face(frame_bgr, square)

    def _clear_face(self, frame_bgr: np.ndarray, candidate: Candidate) -> Inspection | None:
        """The candidate read by its pips, if they make a face beyond doubt."""
        pips, face = self._look_at(frame_bgr, candidate)
        if face.value is None or face.doubtful:
            return None
        return Inspection(candidate, pips, face, DieReading(face.value, candidate.box, _pips_confidence(face, pips.contrast), "pips"))

    def _reread_edge_pair(self, frame_bgr: np.ndarray, item: Inspection) -> Inspection:
        """A 2 or 3 whose pips run along the box's edge rather than its diagonal is more often
        the edge of a 4, 5 or 6 seen in part: its pips are read again on die-size squares on
        either side of them, and a clear face of more pips replaces it."""
        reading, face = item.reading, item.face
        if reading is None or reading.value not in (2, 3) or len(face.used) < 2:
            return item
        points = np.array([(item.pips.pips[k].x, item.pips.pips[k].y) for k in face.used])
        centre = points.mean(axis=0)
        end = points[np.argmax(((points - centre) ** 2).sum(axis=1))]
        direction = 2 * (end - centre)
        length = float(np.hypot(*direction))
        turn = float(np.degrees(np.arctan2(direction[1], direction[0])))
        if length <= 0 or abs((turn - item.candidate.box.angle) % 90 - 45) <= self.settings.edge_pair_angle:
            return item
        # The pips of a face's edge lie two spacings apart; the face's centre is one spacing
        # (half their distance) away from them, and its side about twice their distance.
        normal = np.array([-direction[1], direction[0]]) / length
        bigger = []
        for sign in (1.0, -1.0):
            cx, cy = centre + sign * normal * length / 2
            other = self._clear_face_on(frame_bgr, DieBox(float(cx), float(cy), 2 * length, 2 * length, turn))
            if other is not None and other.reading is not None and other.reading.value > reading.value:
                bigger.append(other)
        return max(bigger, key=lambda other: other.reading.value, default=item)  # type: ignore[union-attr]

    def _look_at(self, frame_bgr: np.ndarray, candidate: Candidate) -> tuple[PipFinding, FaceRead]:
        """The candidate's pips and face; doubtful faces get further looks, with other ideas of
        what a pip is."""
        settings = self.settings
        pips = find_pips(frame_bgr, candidate, candidate.side, settings.pips)
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

    def _vote(self, frame_bgr: np.ndarray, candidate: Candidate, pips: PipFinding, face: FaceRead) -> tuple[PipFinding, FaceRead]:
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

    def _look_again_by_pips(self, frame_bgr: np.ndarray, kept: list[Inspection], found: Candidates) -> list[Inspection]:
        """Dice the first find missed, without a classifier: candidates of the permissive finds
        that lie clear of every kept die and whose pips make a face beyond doubt, surest first."""
        settings = self.settings
        taken = [item.reading.box for item in kept if item.reading is not None]
        reach = settings.same_die_distance * found.die_size
        fresh = [
            candidate
            for find_settings in settings.pip_second_finds
            for candidate in find_dice(frame_bgr, find_settings, exclude=taken, view=found.view).items
            if _clear_of(candidate.box, taken, reach)
        ]
        clear = [item for item in (self._clear_face(frame_bgr, candidate) for candidate in fresh) if item is not None]
        added = []
        for item in sorted(clear, key=lambda item: -item.reading.confidence):  # type: ignore[union-attr]
            if _clear_of(item.candidate.box, taken, reach):
                taken.append(item.candidate.box)
                added.append(item)
        return added

    def _reframe_small(self, frame_bgr: np.ndarray, item: Inspection, die_size: float) -> Inspection:
        """A kept die whose box is much smaller than the frame's dice (a pale die seen in part)
        is read again by the classifier on die-size squares around it, if one is sure enough."""
        assert self.classifier is not None
        settings = self.settings
        reading = item.reading
        if reading is None or min(reading.box.w, reading.box.h) >= settings.small_box * die_size:
            return item
        framed = _reframed(item.candidate, die_size, settings.reframe_shift)[1:]
        probabilities = np.asarray(self.classifier.predict(frame_bgr, [c.box for c in framed]), dtype=np.float64)
        index = int(np.argmax(probabilities[:, :NOT_A_DIE].max(axis=1)))
        p = probabilities[index]
        best = int(np.argmax(p[:NOT_A_DIE]))
        if p[best] < settings.second_find_probability:
            return item
        return replace(item, reading=DieReading(best + 1, framed[index].box, round(float(p[best]), 3), "classifier"))

    def _look_again(self, frame_bgr: np.ndarray, kept: list[Inspection], found: Candidates) -> list[Inspection]:
        """Dice the first find missed: candidates of the permissive finds (and the first find's
        dropped ones), reframed, that lie clear of every kept die and that the classifier is sure
        are a die face, surest first."""
        assert self.classifier is not None
        settings = self.settings
        die_size = found.die_size
        taken = [item.reading.box for item in kept if item.reading is not None]
        reach = settings.same_die_distance * die_size
        fresh = [
            candidate
            for find_settings in settings.second_finds
            for candidate in find_dice(frame_bgr, find_settings, exclude=taken, view=found.view).items
            if _clear_of(candidate.box, taken, reach)
        ]
        if settings.retry_dropped:
            fresh += [item.candidate for item in kept if item.reading is None and _clear_of(item.candidate.box, taken, reach)]
        if not fresh:
            return []
        fresh = [framed for candidate in fresh for framed in _reframed(candidate, die_size, settings.reframe_shift)]
        probabilities = np.asarray(self.classifier.predict(frame_bgr, [c.box for c in fresh]), dtype=np.float64)
        faces = probabilities[:, :NOT_A_DIE]
        added = []
        for index in np.argsort(-faces.max(axis=1), kind="stable"):
            candidate, p = fresh[index], probabilities[index]
            best = int(np.argmax(p[:NOT_A_DIE]))
            if p[best] < settings.second_find_probability:
                break
            if not _clear_of(candidate.box, taken, reach):
                continue
            taken.append(candidate.box)
            pips = find_pips(frame_bgr, candidate, candidate.side, settings.pips)
            face = read_face(pips, candidate.side, settings=settings.faces)
            reading = DieReading(best + 1, candidate.box, round(float(p[best]), 3), "classifier")
            added.append(Inspection(candidate, pips, face, reading))
        return added

    def _decide(self, candidate: Candidate, pips: PipFinding, face: FaceRead, p: np.ndarray | None) -> DieReading | None:
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
                # A region without a single pip is more often a coin or a screw than a die.
                needed = self.settings.decide_probability if face.count else self.settings.decide_pipless_probability
                if p[best] < needed or p[NOT_A_DIE] >= p[best]:
                    return None
                return DieReading(best + 1, box, round(float(p[best]), 3), "classifier")
            if face.value != best + 1 and p[best] >= self.settings.overrule_probability:
                return DieReading(best + 1, box, round(float(p[best]), 3), "classifier")
        if face.value is None:
            return None
        return DieReading(face.value, box, _pips_confidence(face, pips.contrast), "pips")

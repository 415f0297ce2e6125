"""The demo table: a synthetic top-down camera over a Dice 10,000 game, for machines without a camera.

Dice fly in from the player's edge, tumble with motion blur, come to rest; a hand reaches in to take
away the dice that are thrown again; the room light drifts and now and then jumps. Everything comes
from the seed, so a run is repeatable, and the table logs the true faces of every throw (`throws`).

The table plays by itself (`autoplay`), or a game drives it: `ask(count, keep)` makes it leave the
kept dice where they lie, take the others away and throw `count` dice.

Dice are drawn with `vision.synth.render`: each pose is rendered once over black and once over white,
which gives its colour and its transparency exactly; frames are then composed from those sprites,
so a frame costs a few milliseconds instead of a full render.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.live.frames import BaseSource, Frame
from vision.synth.render import DieSpec, Effects, Scene, render
from vision.types import BGR

# (body, pips) of the six dice, BGR: colours that stand out on green felt.
DIE_LOOKS: tuple[tuple[BGR, BGR], ...] = (
    ((232, 236, 240), (28, 28, 28)),  # ivory, black pips
    ((40, 40, 200), (240, 240, 240)),  # red, white pips
    ((30, 30, 30), (240, 240, 240)),  # black, white pips
    ((170, 95, 35), (240, 240, 240)),  # blue, white pips
    ((40, 200, 230), (25, 25, 25)),  # yellow, black pips
    ((225, 225, 225), (40, 40, 190)),  # white, red pips
)
FELT: BGR = (50, 110, 40)
SKIN: BGR = (120, 160, 214)
SKIN_SHADE: BGR = (88, 122, 170)
SLEEVE: BGR = (110, 70, 50)


@dataclass(frozen=True)
class ThrowTruth:
    """What the demo table really threw."""

    number: int
    faces: tuple[int, ...]  # the dice thrown, left to right
    set_aside: tuple[int, ...]  # dice left lying from earlier throws, left to right
    start_index: int  # frame in which the dice came into view
    rest_index: int  # first frame in which every thrown die lies still


@dataclass(frozen=True)
class DemoFrame:
    image: np.ndarray
    index: int
    t: float
    activity: str  # "idle", "pause", "hand", "throw"
    rested: ThrowTruth | None = None  # set on the frame in which a throw comes to rest


@dataclass
class _Die:
    look: int
    value: int = 1
    x: float = 0.0
    y: float = 0.0
    angle: float = 0.0
    tilt: float = 0.0
    tilt_direction: float = 0.0
    blur: float = 0.0
    blur_angle: float = 0.0
    on_table: bool = False


@dataclass
class _Flight:
    """One die's way from the edge to where it stops."""

    die: _Die
    start: float  # table time of release
    duration: float
    from_xy: tuple[float, float]
    to_xy: tuple[float, float]
    wobble: float  # sideways swing in pixels
    angle0: float
    spin: float
    tilt_rest: float
    tilt_direction: float
    face: int
    tumbles: tuple[int, ...]  # faces shown while rolling

    def pose(self, t: float) -> bool:
        """Moves the die to where it is at `t`; True once it lies still."""
        u = (t - self.start) / self.duration
        die = self.die
        if u < 0:
            die.on_table = False
            return False
        die.on_table = True
        if u >= 1:
            die.x, die.y = self.to_xy
            die.angle, die.value = self.angle0 + self.spin, self.face
            die.tilt, die.tilt_direction, die.blur = self.tilt_rest, self.tilt_direction, 0.0
            return True
        ease = 1 - (1 - u) ** 2.6
        (x0, y0), (x1, y1) = self.from_xy, self.to_xy
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy) or 1.0
        swing = self.wobble * math.sin(math.pi * 2 * ease) * (1 - u)
        die.x = x0 + dx * ease - dy / length * swing
        die.y = y0 + dy * ease + dx / length * swing
        die.angle = self.angle0 + self.spin * (1 - (1 - u) ** 2)
        speed = 2.6 * (1 - u) ** 1.6 * length / self.duration  # pixels per second
        die.blur = speed / 40.0  # streak over about 1/40 s of exposure
        die.blur_angle = math.degrees(math.atan2(dy, dx))
        if u < 0.72:
            step = min(len(self.tumbles) - 1, int(u / 0.72 * len(self.tumbles)))
            die.value = self.tumbles[step]
            die.tilt = 28.0 * abs(math.sin(u * 19.0 + self.angle0))
        else:
            die.value = self.face
            die.tilt = self.tilt_rest + (1 - u) / 0.28 * 10.0
        die.tilt_direction = (self.tilt_direction + 400 * u) % 360
        return False


@dataclass
class _HandPass:
    """A hand that comes in from the bottom edge, picks up `targets` one by one and leaves."""

    start: float
    waypoints: list[tuple[float, float, float]]  # (t, x, y)
    pickups: list[tuple[float, _Die]]  # (t, die): the die is gone from then on

    @property
    def end(self) -> float:
        return self.waypoints[-1][0]

    def position(self, t: float) -> tuple[float, float]:
        points = self.waypoints
        if t <= points[0][0]:
            return points[0][1], points[0][2]
        for (ta, xa, ya), (tb, xb, yb) in zip(points, points[1:]):
            if t <= tb:
                u = (t - ta) / max(1e-6, tb - ta)
                u = u * u * (3 - 2 * u)
                return xa + (xb - xa) * u, ya + (yb - ya) * u
        return points[-1][1], points[-1][2]


@dataclass
class _Request:
    count: int
    keep: tuple[int, ...]
    total: int  # dice in the game: asking for all of them clears the table
    asked_at: int = 0  # frame index


@dataclass
class _Step:
    kind: str  # "pause", "hand", "throw"
    until: float
    flights: list[_Flight] = field(default_factory=list)
    hand: _HandPass | None = None
    truth_number: int = 0


class _Sprites:
    """Die pictures by pose, rendered with `vision.synth.render` over black and over white.

    Over black a pixel is colour x alpha; over white it is that plus (1 - alpha) x white, so
    the two renders give the premultiplied colour and the alpha of the die exactly.
    """

    def __init__(self, size: float) -> None:
        self.size = size
        self.side = int(math.ceil(size * 2.0)) | 1
        self._cache: dict[tuple[int, int, int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        empty = Scene(self.side, self.side, "plain", (255, 255, 255), (), Effects(), seed=0)
        self._white = render(empty).frame.astype(np.float32)

    def get(self, look: int, value: int, tilt: float, direction: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(premultiplied BGR, alpha, soft shadow alpha) as float32, the die upright in the middle."""
        tilt_q = 0 if tilt < 2.5 else (5 if tilt < 12 else (20 if tilt < 27 else 32))
        direction_q = 0 if tilt_q == 0 else int(round(direction / 90.0)) % 4 * 90
        key = (look, value, tilt_q, direction_q)
        sprite = self._cache.get(key)
        if sprite is None:
            sprite = self._cache[key] = self._draw(look, value, tilt_q, direction_q)
        return sprite

    def _draw(self, look: int, value: int, tilt: float, direction: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        body, pips = DIE_LOOKS[look % len(DIE_LOOKS)]
        c = self.side / 2
        die = DieSpec(value, c, c, self.size, 0.0, tilt, direction, body, pips, corner_radius=0.16)
        over = [
            render(Scene(self.side, self.side, "plain", bg, (die,), Effects(), seed=0)).frame.astype(np.float32)
            for bg in ((0, 0, 0), (255, 255, 255))
        ]
        alpha = 1.0 - (over[1] - over[0]).mean(axis=2) / np.maximum(self._white.mean(axis=2), 1.0)
        alpha = np.clip(alpha, 0.0, 1.0)
        shadow = cv2.GaussianBlur(alpha, (0, 0), self.size * 0.1)
        return over[0], alpha, shadow


class DemoTable:
    """A repeatable animated table of `dice` dice seen from above at `width` x `height`."""

    def __init__(
        self,
        seed: int = 1,
        width: int = 1280,
        height: int = 720,
        fps: float = 30.0,
        dice: int = 6,
        autoplay: bool = True,
        light: bool = True,
        noise: float = 2.0,
        min_idle: float = 0.0,
        reaction: float = 0.5,
    ) -> None:
        self.seed, self.width, self.height, self.fps = seed, width, height, fps
        self.autoplay = autoplay
        # A request is started no sooner than this many seconds after the table fell still, so the
        # film does not depend on how quickly the request came (tests replay it frame for frame).
        self.min_idle = min_idle
        self.reaction = reaction  # seconds a request must stay the newest before the table acts on it
        self._idle_since = 0
        self.asked = threading.Event()
        self.light = light
        self.die_size = 0.085 * height
        self.dice = [_Die(look=i) for i in range(dice)]
        self.throws: list[ThrowTruth] = []
        self.index = 0
        self._lock = threading.Lock()
        self._faces = np.random.default_rng([seed, 1])  # faces thrown: independent of timing
        self._places = np.random.default_rng([seed, 2])
        self._moves = np.random.default_rng([seed, 3])
        self._set_aside: list[_Die] = []
        self._last_thrown: list[_Die] = []
        self._steps: list[_Step] = []
        self._request: _Request | None = None
        self._asked_key: object = None
        self._auto_round = 0
        self._sprites = _Sprites(self.die_size)
        self._hands = HandSprites(self.die_size, height)
        table = Scene(width, height, "felt", FELT, (), Effects(), seed=seed)
        self._table = render(table).frame
        self._static: np.ndarray | None = None  # table with the resting dice drawn
        self._static_key: tuple[object, ...] = ()
        noise_rng = np.random.default_rng([seed, 4])
        self._noise: list[tuple[np.ndarray, np.ndarray]] = []
        for _ in range(3 if noise > 0 else 0):
            grain = np.clip(np.round(noise_rng.normal(0, noise, (height, width, 3))), -8, 8)
            self._noise.append((np.maximum(grain, 0).astype(np.uint8), np.maximum(-grain, 0).astype(np.uint8)))
        light_rng = np.random.default_rng([seed, 5])
        # Light jumps (a lamp switched, a cloud): (time, new level), every 12..25 s.
        jumps, t = [], float(light_rng.uniform(6, 12))
        while t < 3600:
            jumps.append((t, float(light_rng.choice([0.84, 0.9, 0.96, 1.0]))))
            t += float(light_rng.uniform(12, 25))
        self._light_jumps = jumps

    # ---- driving -----------------------------------------------------------------------------
    @property
    def t(self) -> float:
        return self.index / self.fps

    def index_time(self, index: int) -> float:
        """Table time of frame `index`."""
        return index / self.fps

    @property
    def idle(self) -> bool:
        with self._lock:
            return not self._steps and self._request is None

    @property
    def waiting(self) -> bool:
        """Nothing to do, and still for at least `min_idle` seconds: only a request changes the film."""
        with self._lock:
            return (
                not self._steps
                and self._request is None
                and not self.autoplay
                and self.index - self._idle_since >= self.min_idle * self.fps
            )

    def ask(self, count: int, keep: Sequence[int] = (), key: object = None, total: int | None = None) -> bool:
        """Throw `count` dice next, leaving the last throw's `keep` faces (and dice set aside
        before) where they lie; a game of `total` dice (default: all on the table) that asks for
        all of them starts afresh. Asking again with the same `key` does nothing. Returns whether
        the request was taken."""
        total = len(self.dice) if total is None else total
        if not 1 <= count <= total <= len(self.dice):
            raise ValueError(f"can throw 1..{min(total, len(self.dice))} dice of {len(self.dice)}, not {count}")
        with self._lock:
            self.autoplay = False
            if key is not None and key == self._asked_key:
                return False
            self._asked_key = key
            self._request = _Request(count, tuple(keep), total, self.index)
            self.asked.set()
            return True

    def rested_dice(self) -> tuple[tuple[int, float, float], ...]:
        """(value, x, y) of every die lying still on the table."""
        with self._lock:
            return tuple((d.value, d.x, d.y) for d in self._set_aside + self._last_thrown if d.on_table)

    # ---- planning ------------------------------------------------------------------------------
    def _plan(self, now: float) -> None:
        """Turns a request (or, in autoplay, the next move) into steps. Called with the lock held."""
        if self._steps:
            return
        if self.index - self._idle_since < self.min_idle * self.fps:
            return
        request = self._request
        if request is not None and self.index - request.asked_at < self.reaction * self.fps:
            return  # a player who keeps may still bank a moment later: the newest request wins
        if request is None and self.autoplay:
            request = self._auto_request()
        if request is None:
            return
        self._request = None
        self.asked.clear()
        stay, remove = self._choose_stay(request)
        t = now + float(self._moves.uniform(0.4, 0.8))
        self._steps.append(_Step("pause", t))
        if remove:
            hand = self._hand_pass(t, remove)
            self._steps.append(_Step("hand", hand.end, hand=hand))
            t = hand.end + float(self._moves.uniform(0.3, 0.6))
            self._steps.append(_Step("pause", t))
        free = [d for d in self.dice if d not in stay and d not in remove and not d.on_table] + remove
        thrown = free[: request.count]
        flights = self._flights(t, thrown, stay)
        self._set_aside = stay
        self._last_thrown = thrown
        self._steps.append(
            _Step("throw", max(f.start + f.duration for f in flights), flights, truth_number=len(self.throws) + 1)
        )

    def _auto_request(self) -> _Request:
        """A plausible next move when nobody drives the table: keep one or two dice, throw the rest,
        and after a few throws gather everything and start over with all dice."""
        self._auto_round += 1
        left = len(self.dice) - len(self._set_aside) - len(self._last_thrown)
        in_play = len(self._last_thrown)
        total = len(self.dice)
        if in_play == 0 or self._auto_round % 4 == 1 or in_play <= 2:
            return _Request(total, (), total)
        keep_n = int(self._moves.integers(1, min(3, in_play - 1) + 1))
        keep = tuple(d.value for d in self._last_thrown[:keep_n])
        return _Request(in_play - keep_n + left, keep, total)

    def _choose_stay(self, request: _Request) -> tuple[list[_Die], list[_Die]]:
        on_table = [d for d in self._set_aside + self._last_thrown if d.on_table]
        if request.count >= request.total:
            return [], on_table
        room = request.total - request.count
        stay = [d for d in self._set_aside if d.on_table][:room]
        wanted = list(request.keep)
        for die in self._last_thrown:
            if len(stay) < room and die.value in wanted:
                wanted.remove(die.value)
                stay.append(die)
        for die in self._last_thrown:  # not told which: keep any to make up the number
            if len(stay) < room and die not in stay:
                stay.append(die)
        return stay, [d for d in on_table if d not in stay]

    def _hand_pass(self, start: float, remove: list[_Die]) -> _HandPass:
        size, h = self.die_size, self.height
        speed = 1.4 * h  # pixels per second
        x = float(
            np.clip(
                np.mean([d.x for d in remove]) + self._moves.uniform(-2, 2) * size, 0.1 * self.width, 0.9 * self.width
            )
        )
        points = [(start, x, h + 3.0 * size)]
        pickups = []
        left = list(remove)
        px, py = points[0][1], points[0][2]
        t = start
        while left:
            die = min(left, key=lambda d: math.hypot(d.x - px, d.y - py))
            left.remove(die)
            t += math.hypot(die.x - px, die.y - py) / speed
            points.append((t, die.x, die.y))
            pickups.append((t + 0.08, die))
            # Linger a little while closing the fingers, never quite still.
            t += 0.18
            px, py = die.x + 0.25 * size, die.y + 0.2 * size
            points.append((t, px, py))
        exit_x = px + float(self._moves.uniform(-1, 1)) * size
        t += math.hypot(exit_x - px, h + 3.0 * size - py) / speed
        points.append((t, exit_x, h + 3.0 * size))
        return _HandPass(start, points, pickups)

    def _flights(self, start: float, thrown: list[_Die], stay: list[_Die]) -> list[_Flight]:
        size, w, h = self.die_size, self.width, self.height
        targets: list[tuple[float, float]] = []
        occupied = [(d.x, d.y) for d in stay]
        spacing = 1.9 * size
        for _ in range(len(thrown)):
            for attempt in range(500):
                x = float(self._places.uniform(0.1 * w, 0.9 * w))
                y = float(self._places.uniform(0.14 * h, 0.78 * h))
                gap = spacing if attempt < 400 else 1.45 * size
                if all(math.hypot(x - ox, y - oy) > gap for ox, oy in occupied + targets):
                    break
            targets.append((x, y))
        origin_x = float(self._places.uniform(0.3 * w, 0.7 * w))
        flights = []
        for i, (die, target) in enumerate(zip(thrown, targets)):
            face = int(self._faces.integers(1, 7))
            flights.append(
                _Flight(
                    die=die,
                    start=start + 0.04 * i,
                    duration=float(self._moves.uniform(0.75, 1.25)),
                    from_xy=(origin_x + float(self._moves.uniform(-1.5, 1.5)) * size, h + 1.2 * size),
                    to_xy=target,
                    wobble=float(self._moves.uniform(-0.6, 0.6)) * size,
                    angle0=float(self._moves.uniform(0, 360)),
                    spin=float(self._moves.uniform(-540, 540)),
                    tilt_rest=float(self._moves.choice([0.0, 0.0, 4.0])),
                    tilt_direction=float(self._moves.uniform(0, 360)),
                    face=face,
                    tumbles=tuple(int(v) for v in self._moves.integers(1, 7, 8)),
                )
            )
        return flights

    # ---- animation -------------------------------------------------------------------------
    def step(self) -> DemoFrame:
        """The next frame, one `1 / fps` later than the previous one."""
        with self._lock:
            t = self.t
            rested = None
            activity = "idle"
            self._plan(t)
            hand_at: tuple[float, float] | None = None
            while self._steps:
                step = self._steps[0]
                activity = step.kind
                if step.kind == "hand" and step.hand is not None:
                    hand_at = step.hand.position(t)
                    for when, die in step.hand.pickups:
                        if t >= when:
                            die.on_table = False
                if step.kind == "throw":
                    done = all([f.pose(t) for f in step.flights])
                    if done:
                        rested = self._record(step)
                        self._steps.pop(0)
                        self._idle_since = self.index
                        activity = "idle"
                    break
                if t < step.until:
                    break
                self._steps.pop(0)
                self._idle_since = self.index
                activity = "idle"
            image = self._draw(t, hand_at)
            frame = DemoFrame(image, self.index, t, activity, rested)
            self.index += 1
            return frame

    def _record(self, step: _Step) -> ThrowTruth:
        thrown = sorted((d for f in step.flights for d in [f.die]), key=lambda d: (d.x, d.y))
        aside = sorted(self._set_aside, key=lambda d: (d.x, d.y))
        start = min(f.start for f in step.flights)
        truth = ThrowTruth(
            number=step.truth_number,
            faces=tuple(d.value for d in thrown),
            set_aside=tuple(d.value for d in aside),
            start_index=int(math.ceil(start * self.fps)),
            rest_index=self.index,
        )
        self.throws.append(truth)
        return truth

    def brightness(self, t: float) -> float:
        if not self.light:
            return 1.0
        level = 1.0
        for when, value in self._light_jumps:
            if when > t:
                break
            level = value if t - when >= 0.2 else level + (value - level) * (t - when) / 0.2
        return level * (1.0 + 0.03 * math.sin(2 * math.pi * t / 27.0))

    # ---- drawing ---------------------------------------------------------------------------
    def _draw(self, t: float, hand_at: tuple[float, float] | None) -> np.ndarray:
        resting = [d for d in self.dice if d.on_table and d.blur == 0.0]
        moving = [d for d in self.dice if d.on_table and d.blur > 0.0]
        key = tuple((d.look, d.value, round(d.x, 1), round(d.y, 1), round(d.angle, 1), d.tilt) for d in resting)
        if self._static is None or key != self._static_key:
            static = self._table.copy()
            for die in resting:
                self._paste(static, die)
            self._static, self._static_key = static, key
        frame = self._static.copy()
        for die in moving:
            self._paste(frame, die)
        if hand_at is not None:
            lean = (hand_at[0] - self.width / 2) / self.width * 0.6
            self._hands.draw(frame, round(hand_at[0]), round(hand_at[1]), lean)
        level = self.brightness(t)
        if level != 1.0:
            frame = cv2.convertScaleAbs(frame, alpha=level)
        if self._noise:
            brighter, darker = self._noise[self.index % len(self._noise)]
            frame = cv2.subtract(cv2.add(frame, brighter), darker)
        return frame

    def _paste(self, frame: np.ndarray, die: _Die) -> None:
        colour, alpha, shadow = self._sprites.get(die.look, die.value, die.tilt, die.tilt_direction)
        side = colour.shape[0]
        c = side / 2
        rotation = cv2.getRotationMatrix2D((c, c), -die.angle, 1.0)
        rotation[:, 2] += np.array((die.x - c, die.y - c))
        # Work in a window around the die only.
        pad = int(die.blur) + side // 2 + 2
        x0, y0 = max(0, int(die.x) - pad), max(0, int(die.y) - pad)
        x1, y1 = min(frame.shape[1], int(die.x) + pad + 1), min(frame.shape[0], int(die.y) + pad + 1)
        if x1 <= x0 or y1 <= y0:
            return
        size = (x1 - x0, y1 - y0)
        local = rotation.copy()
        local[:, 2] -= np.array((x0, y0))
        lift = 0.12 if die.blur == 0 else 0.35  # a die in the air casts its shadow further away
        shifted = local.copy()
        shifted[:, 2] += np.array((lift * self.die_size, lift * 1.3 * self.die_size))
        c_w = cv2.warpAffine(colour, local, size, flags=cv2.INTER_LINEAR)
        a_w = cv2.warpAffine(alpha, local, size, flags=cv2.INTER_LINEAR)
        s_w = cv2.warpAffine(shadow, shifted, size, flags=cv2.INTER_LINEAR)
        if die.blur >= 1.5:
            kernel = _streak(die.blur, die.blur_angle)
            c_w = cv2.filter2D(c_w, -1, kernel)
            a_w = cv2.filter2D(a_w, -1, kernel)
        roi: np.ndarray = frame[y0:y1, x0:x1].astype(np.float32)
        roi *= (1.0 - 0.45 * s_w)[..., None]
        roi = roi * (1.0 - a_w[..., None]) + c_w
        frame[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


def _streak(length: float, angle: float) -> np.ndarray:
    n = int(math.ceil(length)) | 1
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(math.radians(angle)) * length / 2, math.sin(math.radians(angle)) * length / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return kernel / max(float(kernel.sum()), 1e-6)


class HandSprites:
    """Pictures of a hand reaching in from the bottom edge, drawn once per lean and then pasted.

    Each is (premultiplied BGR, alpha, shadow alpha) as float32 with the palm centre at `anchor`.
    """

    LEANS = (-0.3, -0.15, 0.0, 0.15, 0.3)  # sideways pixels per pixel up the arm

    def __init__(self, die_size: float, frame_height: int) -> None:
        self.s = die_size
        self.height = int(math.ceil(3.4 * die_size + frame_height + 3.0 * die_size))
        self.width = int(math.ceil(8.5 * die_size + 0.3 * self.height * 2))
        self.anchor = (self.width // 2, int(3.4 * die_size))
        self._sprites: dict[float, tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}

    def get(self, lean: float) -> tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(columns cut on the left, sprite) for the lean nearest to `lean`."""
        nearest = min(self.LEANS, key=lambda v: abs(v - lean))
        if nearest not in self._sprites:
            self._sprites[nearest] = self._crop(self._draw(nearest))
        return self._sprites[nearest]

    def draw(self, frame: np.ndarray, x: float, y: float, lean: float = 0.0) -> None:
        """Lays the hand for `lean` on `frame` with its palm centre at (x, y)."""
        cut, sprite = self.get(lean)
        ax, ay = self.anchor
        paste(frame, sprite, int(x - ax + cut), int(y - ay))

    def _draw(self, lean: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        s = self.s
        ax, ay = self.anchor

        def at(dx: float, dy: float) -> tuple[int, int]:
            return int(round(ax + dx * s - lean * dy * s)), int(round(ay + dy * s))

        mask = np.zeros((self.height, self.width), np.uint8)
        reach = (self.height - ay) / s + 1
        cv2.fillConvexPoly(
            mask,
            np.array([at(-0.85, 1.0), at(0.85, 1.0), at(1.05, reach), at(-1.05, reach)], np.int32),
            255,
            cv2.LINE_AA,
        )
        cv2.ellipse(mask, at(0, 0), (int(1.15 * s), int(1.3 * s)), 0, 0, 360, 255, -1, cv2.LINE_AA)
        fingers = (
            (-0.75, -0.9, -0.95, -2.1),
            (-0.25, -1.1, -0.3, -2.5),
            (0.25, -1.1, 0.3, -2.45),
            (0.72, -0.9, 0.9, -2.0),
            (1.0, 0.2, 1.7, -0.55),
        )
        for fx0, fy0, fx1, fy1 in fingers:
            cv2.line(mask, at(fx0, fy0), at(fx1, fy1), 255, max(2, int(0.42 * s)), cv2.LINE_AA)
        alpha = cv2.GaussianBlur(mask, (0, 0), max(1.0, s * 0.04)).astype(np.float32) / 255.0
        shadow = cv2.GaussianBlur(alpha, (0, 0), s * 0.35)
        shadow = cv2.warpAffine(
            shadow, np.array([[1, 0, 0.5 * s], [0, 1, 0.6 * s]], np.float32), (self.width, self.height)
        )
        # Shade towards the edges so the hand reads as round, not as a flat cut-out.
        inner = cv2.GaussianBlur(
            cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, int(s * 0.12))), (0, 0), s * 0.2
        )
        depth = (inner.astype(np.float32) / 255.0)[..., None]
        colour = np.asarray(SKIN_SHADE, np.float32) * (1 - depth) + np.asarray(SKIN, np.float32) * depth
        sleeve = (np.arange(self.height, dtype=np.float32) > ay + 2.2 * s)[:, None, None]
        colour = np.where(sleeve, np.asarray(SLEEVE, np.float32), colour)
        return colour * alpha[..., None], alpha, shadow

    def _crop(
        self, sprite: tuple[np.ndarray, np.ndarray, np.ndarray]
    ) -> tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The sprite cut to the columns it covers, and how many columns were cut on the left."""
        used = np.flatnonzero((sprite[1] > 0.002).any(axis=0) | (sprite[2] > 0.01).any(axis=0))
        left, right = int(used[0]), int(used[-1]) + 1
        colour, alpha, shadow = (np.ascontiguousarray(part[:, left:right]) for part in sprite)
        return left, (colour, alpha, shadow)


def paste(
    frame: np.ndarray, sprite: tuple[np.ndarray, np.ndarray, np.ndarray], x: int, y: int, shadow_strength: float = 0.45
) -> None:
    """Lays a (premultiplied BGR, alpha, shadow) sprite on `frame` with its top-left at (x, y)."""
    colour, alpha, shadow = sprite
    h, w = alpha.shape
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(frame.shape[1], x + w), min(frame.shape[0], y + h)
    if x1 <= x0 or y1 <= y0:
        return
    window = np.s_[y0 - y : y1 - y, x0 - x : x1 - x]
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    roi *= (1.0 - shadow_strength * shadow[window])[..., None]
    roi = roi * (1.0 - alpha[window][..., None]) + colour[window]
    frame[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


class DemoSource(BaseSource):
    """The demo table as a pulled frame source: every `read()` draws the next frame at once, with
    `t` on the table's own clock. Wrap it in `PacedSource` to play it in real time."""

    def __init__(self, table: DemoTable, max_frames: int | None = None, hold_when_waiting: bool = False) -> None:
        super().__init__("demo")
        self.table = table
        self.max_frames = max_frames
        # Virtual time stands still while the table waits to be asked: no frames until then.
        self.hold_when_waiting = hold_when_waiting
        self.last: DemoFrame | None = None
        self._set_state("live", "demo table")

    def read(self, timeout: float | None = None) -> Frame | None:
        if self.finished:
            return None
        if self.max_frames is not None and self.table.index >= self.max_frames:
            self._set_state("ended", f"demo ended after {self.max_frames} frames")
            return None
        if self.hold_when_waiting and self.table.waiting:
            self.table.asked.wait(0.5 if timeout is None else timeout)
            if self.table.waiting:
                return None
        shown = self.table.step()
        self.last = shown
        self._delivered(time.monotonic())
        return Frame(shown.image, shown.t, shown.index)

"""Test videos with known rests, made from labelled photos.

    python -m benchmarks.rest_videos ../shared/datasets/*/val --rests 16 --out /tmp/rests.avi

Each rest is one labelled photo pasted into a 1280x720 table frame, still for `rest_seconds`. Between
rests the old photo slides out and the next slides in with motion blur, and now and then a hand
sweeps across (with `still_hand_share`, a hand may also reach in and hold still before a rest;
with `sweeping_hand_share`, some of those hands come in sweeping across the picture).
Every frame gets sensor noise, a small brightness flicker and a JPEG round trip, as a webcam would
give. Next to the video a JSON file holds the truth: for each rest its first and last frame and
the faces in it.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.eval.labels import Box, LabelledDie, LabelledImage, inside_any, load_labelled_set, scaled_box
from vision.images import jpeg_round_trip, load_image
from vision.live.demo_table import HandSprites
from vision.types import DieReading

WIDTH, HEIGHT = 1280, 720


@dataclass(frozen=True)
class VideoStyle:
    fps: float = 30.0
    rest_seconds: float = 1.5
    move_seconds: tuple[float, float] = (0.7, 1.1)
    hand_share: float = 0.35  # share of the moves with a hand sweeping across
    # Share of the rests before which a hand reaches in over the dice that have just stopped,
    # holds still for `hand_hold` seconds and goes: the rest begins once it has gone.
    still_hand_share: float = 0.0
    hand_hold: float = 1.0
    # Share of those still hands that come in from one side, sweeping over much of the picture
    # (an arm reaching across the table), rather than straight up from the bottom edge.
    sweeping_hand_share: float = 0.0
    noise: float = 3.0  # grey levels of sensor noise
    jpeg_quality: int = 70
    # Per-channel gain (B, G, R) and gamma: a warm light or a colour cast, so the video shows a table
    # the reader was never trained on.
    tint: tuple[float, float, float] | None = None
    gamma: float = 1.0


# Lights the camera's white balance did not make up for: (tint, gamma) for `VideoStyle`.
LIGHTS: dict[str, tuple[tuple[float, float, float] | None, float]] = {
    "plain": (None, 1.0),
    "warm": ((0.75, 0.95, 1.25), 1.35),  # an orange cast, darker mid-tones: a bulb at night
    "cold": ((1.25, 1.0, 0.8), 0.9),  # a blue cast: a cold LED or shade
}


def lit_by(style: VideoStyle, light: str) -> VideoStyle:
    """`style` filmed under one of `LIGHTS`."""
    tint, gamma = LIGHTS[light]
    return replace(style, tint=tint, gamma=gamma)


def under_light(picture: np.ndarray, tint: tuple[float, float, float] | None, gamma: float) -> np.ndarray:
    """A float32 picture (0..255, BGR) under a light: a gamma, then a gain per channel."""
    return 255.0 * (picture / 255.0) ** gamma * np.array(tint or (1.0, 1.0, 1.0), np.float32)


@dataclass(frozen=True)
class Rest:
    """One rest in a video: frames [start, end) show `faces` lying still."""

    start: int
    end: int
    faces: tuple[int, ...]  # sorted
    photo: str
    boxes: tuple[Box, ...]  # each die's (x0, y0, x1, y1) in the frame, as `values`
    values: tuple[int, ...]
    # The dice the photo's labels leave out (cut by its border, too blurred to read), in the frame:
    # a die read there counts neither way.
    unlabelled: tuple[Box, ...] = ()

    def scored(self, dice: Sequence[DieReading]) -> list[DieReading]:
        """The dice without those read on a die the labels leave out (and on no labelled one)."""
        return [
            die
            for die in dice
            if not inside_any(die.box.center, self.unlabelled) or inside_any(die.box.center, self.boxes)
        ]


@dataclass(frozen=True)
class VideoTruth:
    fps: float
    frames: int
    rests: tuple[Rest, ...]

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> VideoTruth:
        data = json.loads(text)
        rests = tuple(
            Rest(
                r["start"],
                r["end"],
                tuple(r["faces"]),
                r["photo"],
                tuple(tuple(b) for b in r["boxes"]),
                tuple(r["values"]),
                tuple(tuple(b) for b in r.get("unlabelled", ())),
            )
            for r in data["rests"]
        )
        return cls(data["fps"], data["frames"], rests)


@dataclass
class PlacedPhoto:
    """A photo scaled into the frame: its picture, top-left corner and the labelled dice."""

    image: np.ndarray
    x: int
    y: int
    source: LabelledImage
    scale: float

    def labels(self) -> list[LabelledDie]:
        """The photo's labelled dice in frame pixels."""
        return [LabelledDie(die.value, self._placed(die.box)) for die in self.source.dice]

    def _placed(self, box: Box) -> Box:
        x0, y0, x1, y1 = scaled_box(box, self.scale)
        return (x0 + self.x, y0 + self.y, x1 + self.x, y1 + self.y)

    def rest(self, start: int, end: int) -> Rest:
        labels = self.labels()
        boxes = tuple(d.box for d in labels)
        values = tuple(d.value for d in labels)
        unlabelled = tuple(self._placed(box) for box in self.source.unlabelled)
        return Rest(start, end, tuple(sorted(values)), self.source.path.name, boxes, values, unlabelled)


def labelled_photos(folders: Sequence[str | Path]) -> list[LabelledImage]:
    """Every labelled photo with at least one die in the given YOLO folders (a split folder such as
    `.../val`, or a set's root)."""
    photos: list[LabelledImage] = []
    for folder in map(Path, folders):
        if (folder / "images").is_dir() and (folder.parent / "data.yaml").exists():
            photos += load_labelled_set(folder.parent, folder.name)
        else:
            photos += load_labelled_set(folder)
    return [p for p in photos if p.dice]


def place_photo(photo: LabelledImage, rng: random.Random) -> PlacedPhoto:
    image = load_image(photo.path)
    fit = min(WIDTH / image.shape[1], HEIGHT / image.shape[0])
    scale = fit * rng.uniform(0.85, 1.0)
    w, h = max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale))
    scaled = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    x, y = rng.randint(0, WIDTH - w), rng.randint(0, HEIGHT - h)
    return PlacedPhoto(scaled, x, y, photo, scale)


def _table(placed: PlacedPhoto | None) -> np.ndarray:
    """The table around a photo: the colour of the photo's border, so the seam does not shout."""
    frame = np.empty((HEIGHT, WIDTH, 3), np.uint8)
    if placed is None:
        frame[:] = (60, 90, 70)
        return frame
    border = np.concatenate([placed.image[0], placed.image[-1], placed.image[:, 0], placed.image[:, -1]])
    frame[:] = np.median(border, axis=0).astype(np.uint8)
    return frame


def compose_frame(placed: PlacedPhoto | None, dx: float = 0.0, blur: float = 0.0) -> np.ndarray:
    frame = _table(placed)
    if placed is None:
        return frame
    x, y = int(round(placed.x + dx)), placed.y
    h, w = placed.image.shape[:2]
    x0, x1 = max(0, x), min(WIDTH, x + w)
    if x1 > x0:
        frame[y : y + h, x0:x1] = placed.image[:, x0 - x : x1 - x]
    if blur >= 2:
        kernel = np.zeros((1, int(blur)), np.float32)
        kernel[:] = 1.0 / int(blur)
        frame = cv2.filter2D(frame, -1, kernel)
    return frame


class Camera:
    """What a webcam does to a picture: noise, flicker and compression."""

    def __init__(self, style: VideoStyle, seed: int) -> None:
        self.style = style
        self.rng = np.random.default_rng(seed)

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        gain = 1.0 + self.rng.normal(0, 0.008)
        light = frame.astype(np.float32)
        if self.style.tint is not None or self.style.gamma != 1.0:
            light = under_light(light, self.style.tint, self.style.gamma)
        noisy = light * gain + self.rng.normal(0, self.style.noise, frame.shape).astype(np.float32)
        picture = np.clip(noisy, 0, 255).astype(np.uint8)
        return jpeg_round_trip(picture, self.style.jpeg_quality)


def _move(
    old: PlacedPhoto | None, new: PlacedPhoto | None, frames: int, hand: bool, hands: HandSprites, rng: random.Random
) -> Iterator[np.ndarray]:
    """The old photo slides out to the left, the new one in from the right, blurred by its speed."""
    half = max(1, frames // 2)
    lean = rng.uniform(-0.3, 0.3)
    hand_x0, hand_x1 = rng.uniform(0.1, 0.4) * WIDTH, rng.uniform(0.6, 0.9) * WIDTH
    for k in range(frames):
        if k < half:
            u = (k + 1) / half
            dx = -u * u * (WIDTH + 50)
            frame = compose_frame(old, dx, blur=abs(2 * u * (WIDTH + 50) / half) * 0.5)
        else:
            u = (k - half + 1) / max(1, frames - half)
            dx = (1 - u) ** 2 * (WIDTH + 50)
            frame = compose_frame(new, dx, blur=abs(2 * (1 - u) * (WIDTH + 50) / max(1, frames - half)) * 0.5)
        if hand:
            v = k / max(1, frames - 1)
            hx = hand_x0 + (hand_x1 - hand_x0) * v
            hy = HEIGHT * (1.05 - 0.75 * math.sin(math.pi * v))
            hands.draw(frame, hx, hy, lean)
        yield frame


def _still_hand(
    placed: PlacedPhoto, style: VideoStyle, hands: HandSprites, rng: random.Random, sweep: bool = False
) -> Iterator[np.ndarray]:
    """A hand comes up from the bottom edge to a point over the photo soon after the dice stop,
    holds still and goes back. With `sweep` it comes from beyond the frame's far side instead,
    rising high over the picture on its way."""
    lean = rng.uniform(-0.3, 0.3)
    h, w = placed.image.shape[:2]
    hx = placed.x + rng.uniform(0.2, 0.8) * w
    hy = placed.y + rng.uniform(0.3, 0.8) * h
    still = compose_frame(placed)
    # The dice lie still a moment before the hand comes: less than a throw needs to settle.
    yield from [still] * round(0.15 * style.fps)
    if sweep:
        below = HEIGHT + 3.5 * hands.s  # the whole hand under the frame
        travel = max(2, round(0.6 * style.fps))
        start = -0.1 * WIDTH if hx > WIDTH / 2 else 1.1 * WIDTH
        steps = [(k + 1) / travel for k in range(travel)]
        path = [
            (
                start + (hx - start) * t,
                below + (hy - below) * math.sin(0.5 * math.pi * t) - 0.3 * HEIGHT * math.sin(math.pi * t),
            )
            for t in steps
        ]
    else:
        travel = max(2, round(0.3 * style.fps))
        path = [
            (hx, HEIGHT + 3.5 * hands.s + (hy - HEIGHT - 3.5 * hands.s) * math.sin(0.5 * math.pi * (k + 1) / travel))
            for k in range(travel)
        ]
    for x, y in path + [(hx, hy)] * round(style.hand_hold * style.fps) + path[::-1]:
        frame = still.copy()
        hands.draw(frame, x, y, lean)
        yield frame


def make_video(
    photos: Sequence[LabelledImage], path: str | Path, rests: int, seed: int = 1, style: VideoStyle | None = None
) -> VideoTruth:
    """Writes a video of `rests` rests (photos drawn without repeats while they last) and returns its
    truth, also written next to it as `<path>.json`."""
    style = style or VideoStyle()
    rng = random.Random(seed)
    order = list(photos)
    rng.shuffle(order)
    chosen = [order[i % len(order)] for i in range(rests)]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), style.fps, (WIDTH, HEIGHT))
    if not writer.isOpened():
        raise OSError(f"cannot write a video to {path}")
    camera = Camera(style, seed)
    hands = HandSprites(60.0, HEIGHT)
    truth: list[Rest] = []
    index = 0

    def write(frame: np.ndarray) -> None:
        nonlocal index
        writer.write(camera(frame))
        index += 1

    try:
        for _ in range(round(0.5 * style.fps)):
            write(compose_frame(None))
        previous: PlacedPhoto | None = None
        for photo in chosen:
            placed = place_photo(photo, rng)
            moving = round(rng.uniform(*style.move_seconds) * style.fps)
            for frame in _move(previous, placed, moving, rng.random() < style.hand_share, hands, rng):
                write(frame)
            if style.still_hand_share > 0 and rng.random() < style.still_hand_share:
                # Drawn only when asked for, so that the videos without sweeping hands stay as they were.
                sweep = style.sweeping_hand_share > 0 and rng.random() < style.sweeping_hand_share
                for frame in _still_hand(placed, style, hands, rng, sweep):
                    write(frame)
            start = index
            still = compose_frame(placed)
            for _ in range(round(style.rest_seconds * style.fps)):
                write(still)
            truth.append(placed.rest(start, index))
            previous = placed
        for frame in _move(previous, None, round(0.8 * style.fps), False, hands, rng):
            write(frame)
        for _ in range(round(0.5 * style.fps)):
            write(compose_frame(None))
    finally:
        writer.release()
    result = VideoTruth(style.fps, index, tuple(truth))
    Path(f"{path}.json").write_text(result.to_json())
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="labelled photo folders (YOLO), e.g. ../shared/datasets/*/val")
    parser.add_argument("--rests", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rest-seconds", type=float, default=1.5)
    parser.add_argument("--still-hands", type=float, default=0.0, help="share of rests a still hand comes before")
    parser.add_argument(
        "--sweeping-hands", type=float, default=0.0, help="share of the still hands that sweep in from one side"
    )
    parser.add_argument("--light", choices=sorted(LIGHTS), default="plain")
    parser.add_argument("--out", type=Path, required=True, help="the video (.avi); the truth goes to OUT.json")
    args = parser.parse_args(argv)
    photos = labelled_photos(args.folders)
    truth = make_video(
        photos,
        args.out,
        args.rests,
        args.seed,
        lit_by(
            VideoStyle(
                rest_seconds=args.rest_seconds,
                still_hand_share=args.still_hands,
                sweeping_hand_share=args.sweeping_hands,
            ),
            args.light,
        ),
    )
    print(f"{args.out}: {truth.frames} frames, {len(truth.rests)} rests; truth in {args.out}.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

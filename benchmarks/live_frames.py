"""Write 1280x720 camera-sized frames cut from labelled photos, for timing the live reader.

    python benchmarks/live_frames.py ../shared/datasets/nellbyler-d6 --split train --count 12 --out /tmp/frames
    python benchmarks/live_frames.py ../shared/datasets/aws-vegas --split train --count 12 --webcam --out /tmp/webcam

Each photo is shrunk to 1280 pixels wide and the middle 720 rows are kept. With `--webcam`, each
is instead placed in the frame as the test videos of `benchmarks.rest_videos` place it (a random
size and place, the table around it in its border's colour) and filmed by their webcam: sensor
noise, a flicker of the light and a JPEG round trip. Those are the frames `watch` reads: small
dice, compressed, on which the live reader leaves more dice in doubt than on clean photos.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.rest_videos import Camera, VideoStyle, compose_frame, place_photo  # noqa: E402
from vision.eval.labels import LabelledImage, load_labelled_set  # noqa: E402
from vision.images import load_image  # noqa: E402


def camera_frame(image: cv2.typing.MatLike, width: int = 1280, height: int = 720) -> cv2.typing.MatLike:
    scale = width / image.shape[1]
    resized = cv2.resize(image, (width, max(height, round(image.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    top = (resized.shape[0] - height) // 2
    return resized[top : top + height]


def webcam_frames(photos: list[LabelledImage], seed: int = 1) -> list[cv2.typing.MatLike]:
    """Each photo placed in a 1280x720 frame and filmed as the test videos do."""
    rng, camera = random.Random(seed), Camera(VideoStyle(), seed)
    return [camera(compose_frame(place_photo(photo, rng))) for photo in photos]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--split", default="train")
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--webcam", action="store_true", help="place each photo and film it as the test videos do")
    parser.add_argument("--seed", type=int, default=1, help="the placing and the webcam's noise (with --webcam)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error(f"--count must be at least 1, not {args.count}")
    args.out.mkdir(parents=True, exist_ok=True)
    images = load_labelled_set(args.dataset, args.split)
    step = max(1, len(images) // args.count)
    chosen = images[::step][: args.count]
    frames = webcam_frames(chosen, args.seed) if args.webcam else [camera_frame(load_image(i.path)) for i in chosen]
    for item, frame in zip(chosen, frames):
        target = args.out / (item.path.stem + ".png")
        cv2.imwrite(str(target), frame)
        print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())

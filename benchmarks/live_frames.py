"""Write 1280x720 camera-sized frames cut from labelled photos, for timing the live reader.

    python benchmarks/live_frames.py ../shared/datasets/nellbyler-d6 --split train --count 12 --out /tmp/frames

Each photo is shrunk to 1280 pixels wide and the middle 720 rows are kept.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.eval.labels import load_labelled_set  # noqa: E402
from vision.images import load_image  # noqa: E402


def camera_frame(image: cv2.typing.MatLike, width: int = 1280, height: int = 720) -> cv2.typing.MatLike:
    scale = width / image.shape[1]
    resized = cv2.resize(image, (width, max(height, round(image.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    top = (resized.shape[0] - height) // 2
    return resized[top : top + height]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--split", default="train")
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    images = load_labelled_set(args.dataset, args.split)
    step = max(1, len(images) // args.count)
    for item in images[::step][: args.count]:
        target = args.out / (item.path.stem + ".png")
        cv2.imwrite(str(target), camera_frame(load_image(item.path)))
        print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())

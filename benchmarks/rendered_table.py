"""Photos of one rendered table, thrown on again and again, as a labelled YOLO folder.

    python -m benchmarks.rendered_table --seed 3 --throws 20 --out /tmp/table3

`vision.synth.domain.TableSession` keeps the table, its clutter, the light, the camera and the
player's dice from throw to throw, so a table's own features fool the reader the same way each
time, as a real table does. The folder can be given to `benchmarks.adapt_bench` or
`benchmarks.rest_bench` like a photo set's split.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.synth.domain import TableSession


def write_table(out: Path, seed: int, throws: int) -> Path:
    """Writes `throws` photos of the table of `seed` with YOLO labels under `out`; returns `out`."""
    session = TableSession(seed)
    rng = np.random.default_rng(seed + 1_000_003)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    width, height = session.width, session.height
    written = 0
    while written < throws:
        sample = session.throw(rng)
        if len(sample.values) == 0:
            continue  # every die landed out of view: not a throw anyone would confirm
        name = f"table{seed}_{written:03d}"
        cv2.imwrite(str(out / "images" / f"{name}.png"), sample.frame)
        lines = [
            f"{value - 1} {cx / width:.6f} {cy / height:.6f} {w / width:.6f} {h / height:.6f}"
            for (cx, cy), (w, h), value in zip(sample.centres, sample.sizes, sample.values)
        ]
        (out / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
        written += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, required=True, help="which table")
    parser.add_argument("--throws", type=int, default=20)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    print(write_table(args.out, args.seed, args.throws))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Write every crop set the die-face classifier needs, reproducibly (fixed seeds).

    python datasets/build_training_set.py [--data ../shared/datasets/nellbyler-d6] [--keep-up] [--no-plain]

Writes under datasets/build/ (not committed):
  synthetic.npz   rendered crops, every face value and "not a die face" (`--no-plain`: not
                  written; the shipped recipe trains on `synthetic_mix.npz` instead)
  synthetic_mix.npz
                  the same scenes, the second half of them with dice leaning further (40 px
                  and up) and side views from 75 to 85 degrees: the shipped classifier's crops
  real_train.npz  augmented crops of the nellbyler-d6 `train` photos at several scales
  matteop65_train.npz, aws_train.npz
                  the same for the `train` photos of the other real sets found beside it
  real_val.npz    one exact crop per die and scale of `val`, for reporting only
  real_test.npz   the same for `test`

`--keep-up` cuts the training crops so that the picture's up is kept (dice leaning away from the
camera, crops barely turned); train on them with `models/train.py --keep-up`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent))

import extract_crops  # noqa: E402
import synthetic_crops  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = Path(os.environ.get("DICEKEEPER_DATA", ROOT.parent / "shared" / "datasets" / "nellbyler-d6"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=ROOT / "datasets" / "build")
    parser.add_argument("--synthetic", type=int, default=40000, help="number of rendered crops")
    parser.add_argument("--keep-up", action="store_true", help="crops that keep the picture's up")
    parser.add_argument("--no-plain", action="store_true",
                        help="skip synthetic.npz, which the shipped recipe does not train on")  # fmt: skip
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    out = str(args.out)
    up = ["--keep-up"] if args.keep_up else []
    if not args.no_plain:
        synthetic_crops.main(["--count", str(args.synthetic), "--seed", "1", "--out", f"{out}/synthetic.npz", *up])
    steeper = ["--steep-tilt", "15", "65", "--side-tilt", "75", "85", "--steep-min-size", "40"]
    synthetic_crops.main(["--count", str(args.synthetic), "--seed", "1", "--out", f"{out}/synthetic_mix.npz", *up,
                          *steeper, "--steep-from", str(args.synthetic // 2)])  # fmt: skip
    extract_crops.main(
        [str(args.data), "--split", "train", "--augment", "5", "--seed", "0", "--out", f"{out}/real_train.npz", *up]
    )
    shared = args.data.parent
    # matteop65-webcam boxes hug the pips: crops take the die's own size (about 56 px) instead.
    if (shared / "matteop65-webcam").is_dir():
        extract_crops.main([str(shared / "matteop65-webcam"), "--split", "train", "--augment", "8", "--scales", "0,480",
                            "--die-side", "56", "--seed", "0", "--out", f"{out}/matteop65_train.npz", *up])  # fmt: skip
    if (shared / "aws-vegas").is_dir():
        extract_crops.main([str(shared / "aws-vegas"), "--split", "train", "--augment", "8", "--scales", "0,400",
                            "--seed", "0", "--out", f"{out}/aws_train.npz", *up])  # fmt: skip
    for split in ("val", "test"):
        extract_crops.main([str(args.data), "--split", split, "--seed", "0", "--out", f"{out}/real_{split}.npz"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

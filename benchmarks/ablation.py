"""Each part of the reader, switched off in turn, on the leave-one-domain-out sets.

    python benchmarks/ablation.py --lodo models/lodo [--max-side 1280] [--train] [--default-only] [--sets SET...]

A photo set is read with the detector and classifier trained without it
(`models/lodo/without_<set>_{detector,classifier}.onnx`), so every figure is on a table the
models never saw. Prints a Markdown table: per-die accuracy, precision, exact throws and
placement (how far a found die's reading lies from its label's centre, in dice).

`--train` reads the sets' `train` splits instead (the left-out set's `train` split is just as
unseen by its models): that is where the reader's constants are chosen, so that `val` and
`test` stay report-only. `--default-only` reads with the shipped settings alone.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.eval.evaluate import evaluate_set  # noqa: E402
from vision.read.classifier import DieFaceClassifier  # noqa: E402
from vision.read.detect import DetectorSettings, DiceDetector  # noqa: E402
from vision.read.pips import PipSettings  # noqa: E402
from vision.read.reader import DiceReader, NearMisses, ReaderSettings  # noqa: E402

SETS = {
    "matteop65": ("matteop65-webcam", "val"),
    "nellbyler": ("nellbyler-d6", "val,test"),
    "aws": ("aws-vegas", "val"),
}
FULL = ReaderSettings()
WITHOUT_NEAR_MISSES = replace(FULL, near_misses=None)
UNCHECKED = replace(WITHOUT_NEAR_MISSES, speck_size=None)
BARE = replace(UNCHECKED, voting_looks=(), second_looks=(), face_mask=False)


def _without_colour_check(settings: ReaderSettings) -> ReaderSettings:
    """`settings` with every look's pip colour check off."""

    def off(pips: PipSettings) -> PipSettings:
        return replace(pips, colour_spread=None)

    return replace(
        settings,
        pips=off(settings.pips),
        second_looks=tuple(map(off, settings.second_looks)),
        voting_looks=tuple(map(off, settings.voting_looks)),
    )


def _near_misses(**knobs: float) -> ReaderSettings:
    """The shipped settings with one knob of the near misses changed."""
    return replace(FULL, near_misses=replace(NearMisses(), **knobs))


ONE_LOOK = DetectorSettings(coarse_side=None)  # the detector's first look alone, one view
SHIPPED = ("+ near misses like the dice beside them (combined, the default)", "combined", FULL, DetectorSettings())
VARIANTS: list[tuple[str, str, ReaderSettings, DetectorSettings]] = [
    ("detector + pips in the whole box, one look", "pips", BARE, ONE_LOOK),
    ("+ pips on the die's own region", "pips", replace(BARE, face_mask=True), ONE_LOOK),
    ("+ the vote of five looks", "pips", UNCHECKED, ONE_LOOK),
    ("+ small ones dropped as specks (pips reader)", "pips", WITHOUT_NEAR_MISSES, ONE_LOOK),
    ("detector + classifier alone", "classifier", WITHOUT_NEAR_MISSES, ONE_LOOK),
    ("detector + pips + classifier, whole box, one look", "combined", BARE, ONE_LOOK),
    ("+ pips on the die's own region", "combined", replace(BARE, face_mask=True), ONE_LOOK),
    ("+ second looks at doubtful faces", "combined", UNCHECKED, ONE_LOOK),
    ("+ small ones dropped as specks", "combined", WITHOUT_NEAR_MISSES, ONE_LOOK),
    ("+ the coarse look for big dice", "combined", WITHOUT_NEAR_MISSES, DetectorSettings()),
    SHIPPED,
    ("+ the detector's mirrored view (not the default)", "combined", FULL, replace(DetectorSettings(), views=2)),
    ("shipped without the pip colour check", "combined", _without_colour_check(FULL), DetectorSettings()),
    ("shipped without the clump check", "combined", replace(FULL, clump_dice=None), DetectorSettings()),
    ("shipped, near misses of any size", "combined", _near_misses(size_ratio=math.inf), DetectorSettings()),
    ("shipped, near misses however far", "combined", _near_misses(reach=math.inf), DetectorSettings()),
    ("shipped, near misses down to 0.1", "combined", _near_misses(floor=0.1), DetectorSettings()),
    ("shipped, near misses only 0.9 sure", "combined", _near_misses(sureness=0.9), DetectorSettings()),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lodo", type=Path, default=ROOT / "models" / "lodo")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--max-side", type=int, default=1280)
    parser.add_argument("--train", action="store_true", help="read the train splits (for choosing constants)")
    parser.add_argument("--default-only", action="store_true", help="only the shipped settings")
    parser.add_argument(
        "--sets", nargs="+", choices=sorted(SETS), default=list(SETS), help="the left-out sets to read (all by default)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    variants = [SHIPPED] if args.default_only else VARIANTS
    sets = {name: SETS[name] for name in args.sets}
    cv2.setNumThreads(1)
    rows = []
    for name, (folder, split) in sets.items():
        classifier = DieFaceClassifier(args.lodo / f"without_{name}_classifier.onnx")
        for label, mode, settings, detector_settings in variants:
            detector = DiceDetector(args.lodo / f"without_{name}_detector.onnx", settings=detector_settings)
            reader = DiceReader(classifier, mode=mode, settings=settings, detector=detector)  # type: ignore[arg-type]
            summary = evaluate_set(
                str(args.data / folder), "train" if args.train else split, args.max_side, reader
            ).summary()
            rows.append({"set": name, "variant": label, "mode": mode, **summary})  # in VARIANTS order
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows))
        return 0
    print("| variant | " + " | ".join(f"{n} per-die | {n} precision | {n} exact | {n} placement" for n in sets) + " |")
    print("|---|" + "---|---|---|---|" * len(sets))
    for index, (label, _mode, _, _detector_settings) in enumerate(variants):
        cells = []
        for name in sets:
            row = [r for r in rows if r["set"] == name][index]
            cells += [
                f"{100 * row['accuracy']:.1f}",
                f"{100 * row['precision']:.1f}",
                f"{100 * row['exact_throws']:.1f}",
                f"{row['placement']:.3f}",
            ]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

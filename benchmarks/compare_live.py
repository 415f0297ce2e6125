"""Time the live reader (`dicekeeper bench --live`) and the classic blob reader side by side,
in one run, one thread, on the same frames.

    python benchmarks/compare_live.py [--repeat 20] [--mirrored] [--no-coarse] [--always-coarse] [--all-pips]
        [--no-near-misses] [--network] [--classifier-model MODEL] [--json] FRAME...

`--mirrored` also times the live reader with the detector looking at the frame mirrored too
(`DetectorSettings(views=2)`), to show what that view costs; `--no-coarse` also times it
without the detector's coarse look for big dice (`DetectorSettings(coarse_side=None)`);
`--always-coarse` also times it taking the coarse look on every frame, not only when the first
look found something the classifier doubts (`coarse_only_in_doubt=False`);
`--all-pips` also times it looking for the pips of every die, as the reader of photos does
(`ReaderSettings()` instead of `LIVE`); `--no-near-misses` also times it without looking again
at the detector's near misses (`near_misses=None`); `--network` also times the detector's network
alone on the first look's input, made beforehand (untimed); `--classifier-model MODEL` also times
the live reader with another die-face classifier, such as the one shipped before. It also
counts, untimed, the dice a frame whose pips the live reader looks for (the dice the classifier
is not sure of, and small ones): each costs more than the rest of such a die's reading, so a
detector that leaves more dice in doubt can make the reader slower even with a faster network.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.classic_reader import ClassicBlobReader  # noqa: E402
from dicekeeper.commands.vision import time_reads  # noqa: E402
from vision.images import load_image  # noqa: E402
from vision.live.settle import default_reader  # noqa: E402
from vision.read.classifier import DieFaceClassifier, ModelError, load_default_classifier  # noqa: E402
from vision.read.detect import DetectorSettings, DiceDetector, load_default_detector  # noqa: E402
from vision.read.reader import LIVE, DiceReader  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("frames", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="alternate the two readers this many times")
    parser.add_argument("--mirrored", action="store_true", help="also time the detector with the mirrored view")
    parser.add_argument("--no-coarse", action="store_true", help="also time the detector without its coarse look")
    parser.add_argument(
        "--always-coarse", action="store_true", help="also time it taking the coarse look on every frame"
    )
    parser.add_argument("--all-pips", action="store_true", help="also time it looking for every die's pips")
    parser.add_argument("--no-near-misses", action="store_true", help="also time it without the near misses")
    parser.add_argument("--network", action="store_true", help="also time the detector's network alone")
    parser.add_argument(
        "--classifier-model", type=Path, help="also time the live reader with this classifier (a baseline)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    frames = [load_image(path) for path in args.frames]
    live = default_reader()
    readers: dict[str, Callable[[np.ndarray], object]] = {"live": live.read, "classic": ClassicBlobReader().read}
    others = {"mirrored": DetectorSettings(views=2), "no-coarse": DetectorSettings(coarse_side=None)}
    for name, wanted in (("mirrored", args.mirrored), ("no-coarse", args.no_coarse)):
        if wanted:
            detector = load_default_detector(settings=others[name])
            readers[name] = DiceReader(load_default_classifier(), detector=detector, settings=LIVE).read
    if args.always_coarse:
        always = replace(LIVE, coarse_only_in_doubt=False)
        readers["always-coarse"] = DiceReader(
            load_default_classifier(), detector=load_default_detector(), settings=always
        ).read
    if args.all_pips:
        readers["all-pips"] = DiceReader(load_default_classifier(), detector=load_default_detector()).read
    if args.no_near_misses:
        without = replace(LIVE, near_misses=None)
        readers["no-near-misses"] = DiceReader(
            load_default_classifier(), detector=load_default_detector(), settings=without
        ).read
    if args.classifier_model:
        try:
            other = DieFaceClassifier(args.classifier_model)
        except ModelError as error:
            parser.exit(2, f"compare_live: {error}\n")
        readers["live, " + args.classifier_model.stem] = DiceReader(
            other, detector=load_default_detector(), settings=LIVE
        ).read
    if args.network and isinstance(live, DiceReader) and isinstance(live.detector, DiceDetector):
        detector = live.detector
        batches = {id(frame): detector.network_input(frame)[0] for frame in frames}
        readers["network"] = lambda frame: detector.run_network(batches[id(frame)])
    times: dict[str, list[float]] = {name: [] for name in readers}
    for _ in range(args.rounds):  # alternating, so a busy spell of the machine hits both
        for name, read in readers.items():
            times[name] += time_reads(read, frames, args.repeat)[0]
    result = {name: round(statistics.median(values), 3) for name, values in times.items()}
    # A die in doubt costs the live reader more than its network's look at the whole frame, so
    # how many there are says as much about its time as the network does (untimed).
    looked = (
        statistics.mean(sum(item.pips_looked_for for item in live.inspect(frame)) for frame in frames)
        if isinstance(live, DiceReader)
        else None
    )
    if args.json:
        print(
            json.dumps(
                {
                    "median_ms": result,
                    "frames": len(frames),
                    "reads_each": len(times["live"]),
                    "live_pips_looked_for_per_frame": None if looked is None else round(looked, 3),
                }
            )
        )
    else:
        width = max(13, *map(len, result))
        for name, ms in result.items():
            print(f"{name:<{width}} median {ms:7.2f} ms a frame ({len(times[name])} reads of {len(frames)} frames)")
        if looked is not None:
            print(f"the live reader looked for the pips of {looked:.2f} dice a frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())

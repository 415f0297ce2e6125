"""`dicekeeper read`, `eval`, `bench`: the dice reader on photos and labelled sets."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import cv2

from dicekeeper.cli import CliError, add_command, positive_int
from vision.eval.evaluate import evaluate_set
from vision.eval.labels import LabelError
from vision.images import ImageError, downscale, load_image
from vision.read.reader import MODES, DiceReader
from vision.types import DieReading


def _max_side(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of pixels: {text!r}") from None
    if value < 0 or 0 < value < 64:
        raise argparse.ArgumentTypeError("must be 0 (full size) or at least 64 pixels")
    return value


def _reader(mode: str, detector: str | None = None, classifier: str | None = None) -> DiceReader:
    """A reader for the mode, with the shipped models unless paths are given. "combined" falls
    back to pips alone when no classifier loads."""
    from vision.read.classifier import DieFaceClassifier, ModelError, load_default_classifier
    from vision.read.detect import DiceDetector, load_default_detector

    try:
        finder = DiceDetector(detector) if detector else load_default_detector()
    except ModelError as exc:
        raise CliError(f"the dice detector cannot be loaded: {exc}") from None
    if mode == "pips":
        return DiceReader(mode="pips", detector=finder)
    try:
        face_model = DieFaceClassifier(classifier) if classifier else load_default_classifier()
    except Exception as exc:  # missing module or model file: one line, never a traceback
        if mode == "combined" and not classifier:
            print(f"dicekeeper: warning: reading with pips alone, no die-face classifier: {exc}", file=sys.stderr)
            return DiceReader(mode="combined", detector=finder)
        raise CliError(f"--mode {mode} needs the die-face classifier, which cannot be loaded: {exc}") from None
    return DiceReader(face_model, mode=mode, detector=finder)  # type: ignore[arg-type]  # DiceReader checks the mode


def reading_json(reading: DieReading, scale: float) -> dict[str, Any]:
    """One reading in the original image's pixels (`scale` is the factor the image was shrunk by)."""
    box = reading.box.scaled(1.0 / scale)
    return {
        "value": reading.value,
        "box": [round(v, 1) for v in box.bounds()],
        "center": [round(box.cx, 1), round(box.cy, 1)],
        "confidence": reading.confidence,
        "method": reading.method,
    }


def cmd_read(args: argparse.Namespace) -> int:
    """read the dice in photos

    Read the dice in photos.
    """
    reader = _reader(args.mode, args.detector_model, args.classifier_model)
    if args.annotate:
        os.makedirs(args.annotate, exist_ok=True)
    failed = 0
    for path in args.images:
        try:
            image = load_image(path)
        except ImageError as exc:
            print(f"dicekeeper read: {exc}", file=sys.stderr)
            failed += 1
            continue
        frame, scale = downscale(image, args.max_side)
        start = time.perf_counter()
        readings = reader.read(frame)
        ms = (time.perf_counter() - start) * 1000.0
        dice = [reading_json(r, scale) for r in readings]
        if args.json:
            record = {
                "image": path,
                "width": image.shape[1],
                "height": image.shape[0],
                "dice": dice,
                "ms": round(ms, 1),
            }
            print(json.dumps(record), flush=True)
        else:
            values = " ".join(str(d["value"]) for d in sorted(dice, key=lambda d: d["center"][0])) or "no dice"
            print(f"{path}: {values}  ({len(dice)} dice, {ms:.1f} ms)", flush=True)
        if args.annotate:
            from vision.draw.readings import annotate

            full = [r.__class__(r.value, r.box.scaled(1.0 / scale), r.confidence, r.method) for r in readings]
            target = Path(args.annotate) / (Path(path).stem + ".jpg")
            if not cv2.imwrite(str(target), annotate(image, full)):
                print(f"dicekeeper read: {target}: cannot write the annotated image", file=sys.stderr)
                failed += 1
    return 1 if failed else 0


def _unreadable(exc: ImageError) -> None:
    print(f"dicekeeper eval: {exc}", file=sys.stderr)


def cmd_eval(args: argparse.Namespace) -> int:
    """score the reader on a labelled photo set

    Score the reader on a YOLO or Pascal VOC labelled set.
    """
    reader = _reader(args.mode, args.detector_model, args.classifier_model)
    try:
        evaluation = evaluate_set(args.dataset, args.split, args.max_side, reader, on_unreadable=_unreadable)
    except LabelError as exc:
        raise CliError(str(exc)) from None
    summary = evaluation.summary()
    if args.json:
        print(json.dumps({**summary, "confusion": evaluation.confusion, "false_by_value": evaluation.false_values}))
        return 0
    print(f"{args.dataset} [{args.split or 'all'}] at --max-side {args.max_side}, mode {args.mode}")
    print(f"images {summary['images']}, labelled dice {summary['labelled_dice']}, reported {summary['reported_dice']}")
    if summary["unlabelled_dice_read"]:
        print(f"also read {summary['unlabelled_dice_read']} dice the labels leave out (cut or blurred), not scored")
    for key in ("accuracy", "precision", "recall", "exact_throws"):
        print(f"{key:<13} {summary[key] * 100:6.2f} %")
    print(f"{'placement':<13} {summary['placement']:6.3f} dice from the label's centre (mean over found dice)")
    print(f"{'ms/image':<13} {summary['ms_per_image']:6.1f}")
    print("confusion (rows: labelled value; columns: read value, - = not found)")
    print("      -    1    2    3    4    5    6")
    for value, row in enumerate(evaluation.confusion, start=1):
        print(f"{value} " + "".join(f"{n:5d}" for n in row))
    print("  +  " + "".join(f"{n:5d}" for n in evaluation.false_values) + "   (reported where no die is)")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """time the reader: on a rendered 1280x720 frame, or with --live on camera frames"""
    cv2.setNumThreads(args.threads)
    if args.live:
        return _bench_live(args)
    if args.images:
        raise CliError("IMAGE arguments go with --live")
    frame = bench_frame()
    reader = _reader(args.mode)
    wall, cpu = time_reads(reader.read, [frame], args.repeat)
    # CPU time is what one read costs; wall time also counts waiting for a busy machine.
    print(
        f"1280x720, six dice, {args.repeat} reads on {args.threads} thread(s): "
        f"median {statistics.median(wall):.2f} ms (min {min(wall):.2f}, max {max(wall):.2f}), "
        f"CPU time median {statistics.median(cpu):.2f} ms"
    )
    return 0


def bench_frame() -> Any:
    """A rendered 1280x720 frame of six dice, one of each value, on felt: the same every run."""
    from vision.synth.render import DieSpec, Scene, render

    dice = tuple(DieSpec(value, 200.0 + 170.0 * (value - 1), 360.0 + 60.0 * (-1) ** value, 56.0, angle=15.0 * value)
                 for value in range(1, 7))  # fmt: skip
    return render(Scene(1280, 720, background="felt", dice=dice, seed=3)).frame


def time_reads(read: Any, frames: list[Any], repeat: int) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of every read, `repeat` rounds over the frames (after one
    untimed warm-up round)."""
    for frame in frames:
        read(frame)
    wall, cpu = [], []
    for _ in range(repeat):
        for frame in frames:
            start, start_cpu = time.perf_counter(), time.process_time()
            read(frame)
            wall.append((time.perf_counter() - start) * 1000.0)
            cpu.append((time.process_time() - start_cpu) * 1000.0)
    return wall, cpu


def _bench_live(args: argparse.Namespace) -> int:
    """Times the reader `watch` uses, on one thread, on the given frames."""
    from vision.live.settle import default_reader

    if not args.images:
        raise CliError("bench --live needs at least one IMAGE (a camera frame)")
    frames, failed = [], 0
    for path in args.images:
        try:
            frames.append(load_image(path))
        except ImageError as exc:
            print(f"dicekeeper bench: {exc}", file=sys.stderr)
            failed += 1
    if not frames:
        raise CliError("no readable frames")
    reader = default_reader()
    wall, cpu = time_reads(reader.read, frames, args.repeat)
    sizes = sorted({f"{f.shape[1]}x{f.shape[0]}" for f in frames})
    if args.json:
        medians = {"median_ms": round(statistics.median(wall), 3), "cpu_median_ms": round(statistics.median(cpu), 3)}
        print(json.dumps({**medians, "frames": len(frames), "repeat": args.repeat, "sizes": sizes}))
    else:
        print(
            f"live reader, {len(frames)} frame(s) ({', '.join(sizes)}), {args.repeat} round(s), one thread: "
            f"median {statistics.median(wall):.2f} ms a frame, CPU time median {statistics.median(cpu):.2f} ms"
        )
    return 1 if failed else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    read = add_command(subparsers, "read", cmd_read)
    read.add_argument("images", nargs="+", metavar="IMAGE")
    read.add_argument("--json", action="store_true", help="one JSON line per image")
    read.add_argument("--annotate", metavar="DIR", help="write a copy of each image with the readings drawn")
    _reading_options(read)

    evaluate = add_command(subparsers, "eval", cmd_eval)
    evaluate.add_argument("dataset", metavar="DATASET")
    evaluate.add_argument(
        "--split", default=None, metavar="NAME", help="split(s) to read, comma-separated (default: val,test if present)"
    )
    evaluate.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    _reading_options(evaluate)

    bench = add_command(subparsers, "bench", cmd_bench)
    bench.add_argument("images", nargs="*", metavar="IMAGE", help="frames to read (with --live)")
    bench.add_argument("--live", action="store_true", help="time the reader `watch` uses on the IMAGE frames")
    bench.add_argument("--json", action="store_true", help="with --live: one JSON line with median_ms")
    bench.add_argument("--repeat", type=positive_int, default=200)
    bench.add_argument("--threads", type=positive_int, default=1, help="OpenCV threads (default 1)")
    add_mode_argument(bench, default="pips")


def add_mode_argument(parser: argparse.ArgumentParser, default: str = "combined") -> None:
    parser.add_argument("--mode", choices=MODES, default=default, help=f"who decides the values (default {default})")


def _reading_options(parser: argparse.ArgumentParser) -> None:
    """What `read` and `eval` share: the image size, the mode and the models."""
    parser.add_argument(
        "--max-side",
        type=_max_side,
        default=1280,
        metavar="PX",
        help="shrink images to this long side before reading (0: full size; default 1280)",
    )
    add_mode_argument(parser)
    parser.add_argument("--detector-model", metavar="ONNX", help="dice detector to use instead of the shipped one")
    parser.add_argument(
        "--classifier-model", metavar="ONNX", help="die-face classifier to use instead of the shipped one"
    )

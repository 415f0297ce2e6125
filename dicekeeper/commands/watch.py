"""`dicekeeper watch SOURCE`: settled throws from a camera, a video, a folder or the demo, as JSON lines."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from dicekeeper.cli import CliError, add_command, positive_int
from dicekeeper.commands.vision import add_mode_argument

TURN_HELP = (
    "turn the camera's picture clockwise by this much, 0, 90, 180 or 270 degrees (default 0): "
    "for a camera mounted upside down (180) or on its side (90 or 270)"
)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def add_turn_argument(parser: argparse.ArgumentParser) -> None:
    """`--turn DEGREES`, read with `turn_of(args)`. The text is checked there rather than by argparse,
    so that a bad value is one line on stderr (argparse would print its usage too)."""
    parser.add_argument("--turn", metavar="DEGREES", default="0", help=TURN_HELP)


def turn_of(args: argparse.Namespace) -> int:
    """The degrees of `--turn`; anything but 0, 90, 180 or 270 is a `CliError`."""
    from vision.live.sources import TURNS

    text = str(args.turn).strip()
    if not text.isdigit() or int(text) not in TURNS:
        shown = ", ".join(str(turn) for turn in TURNS)
        raise CliError(f"--turn must be one of {shown} (degrees clockwise), not {args.turn!r}")
    return int(text)


def register(subparsers: argparse._SubParsersAction) -> None:
    watch = add_command(subparsers, "watch", cmd_watch)
    watch.add_argument("source", metavar="SOURCE")
    add_mode_argument(watch)
    watch.add_argument(
        "--realtime",
        action="store_true",
        help="video or folder: play at its frame rate, dropping frames when reading is slower",
    )
    watch.add_argument(
        "--fps", type=_positive_float, default=None, help="frame rate of a folder of images or the demo (default 30)"
    )
    watch.add_argument(
        "--fast", action="store_true", help="demo: draw frames as fast as they are read instead of in real time"
    )
    watch.add_argument(
        "--paced",
        action="store_true",
        help="settle as the server does: read a still picture at most ten times a second, on half a core",
    )
    watch.add_argument("--seed", type=int, default=1, help="demo: seed of the demo table (default 1)")
    watch.add_argument("--throws", type=positive_int, default=None, help="stop after this many throws")
    watch.add_argument("--seconds", type=_positive_float, default=None, help="stop after this much source time")
    watch.add_argument(
        "--details",
        action="store_true",
        help="also print the set-aside dice, doubt, frame numbers and, for the demo, the truth",
    )
    watch.add_argument("--annotate", metavar="DIR", help="write the annotated frame of each settled throw to DIR")
    watch.add_argument(
        "--wait",
        type=_positive_float,
        default=10.0,
        help="give up on a camera that has not delivered a frame after this many seconds (default 10)",
    )
    add_turn_argument(watch)


def cmd_watch(args: argparse.Namespace) -> int:
    """print each settled throw a camera, video, image folder or the demo table shows

    Print each settled throw as a JSON line: {"t": seconds, "dice": [...], "confidence": c}. SOURCE is demo, a
    camera number (0), a device (/dev/video0), a video file or a folder of images.
    """
    import cv2

    from vision.draw.live import draw_live
    from vision.live.framing import framing_advice, typical_die_px
    from vision.live.settle import PACED, ThrowWatcher, default_reader
    from vision.live.sources import SourceError, demo_table_of, open_source

    turn = turn_of(args)
    realtime = (not args.fast) if args.source.strip() == "demo" else args.realtime
    try:
        source = open_source(args.source, realtime=realtime, fps=args.fps, seed=args.seed, turn=turn)
    except SourceError as exc:
        raise CliError(str(exc)) from None
    try:
        reader = default_reader(args.mode)
    except Exception as exc:
        source.close()
        raise CliError(f"--mode {args.mode} needs the die-face classifier, which cannot be loaded: {exc}") from None
    if args.annotate:
        os.makedirs(args.annotate, exist_ok=True)
    watcher = ThrowWatcher(reader, PACED if args.paced else None)
    demo = demo_table_of(source)
    printed = 0
    advised = False  # the advice on the dice's size in the picture is printed once
    shown_state = None
    started = time.monotonic()
    first_t: float | None = None
    try:
        with source:
            while not source.finished:
                frame = source.read(timeout=0.5)
                state = source.state
                if (state.status, state.message) != shown_state and state.status != "live" and state.message:
                    print(f"dicekeeper watch: {state.message}", file=sys.stderr, flush=True)
                shown_state = (state.status, state.message)
                if frame is None:
                    if state.frames == 0 and time.monotonic() - started > args.wait:
                        raise CliError(
                            f"{source.name}: no frame after {args.wait:g} s ({state.message or state.status})"
                        )
                    continue
                if first_t is None:
                    first_t = frame.t
                seen = watcher.feed(frame.image, frame.t, frame.index)
                throw = seen.settled
                if throw is not None:
                    record: dict[str, object] = {
                        "t": round(throw.rest_t - first_t, 3),
                        "dice": list(throw.faces),
                        "confidence": round(throw.confidence, 3),
                    }
                    advice = framing_advice(throw.dice + throw.set_aside)
                    if advice and not advised:
                        print(f"dicekeeper watch: {advice}", file=sys.stderr, flush=True)
                        advised = True
                    if args.details:
                        size = typical_die_px(throw.dice + throw.set_aside)
                        record.update(
                            die_px=None if size is None else round(size, 1),
                            set_aside=[d.value for d in throw.set_aside],
                            doubtful=throw.doubtful,
                            doubtful_dice=list(throw.doubtful_dice),
                            rest_frame=throw.rest_index,
                            settled_frame=throw.index,
                            settled_after=round(throw.t - throw.rest_t, 3),
                        )
                        if demo is not None:
                            truth = next((x for x in reversed(demo.throws) if x.rest_index <= throw.rest_index), None)
                            record["truth"] = None if truth is None else list(truth.faces)
                    print(json.dumps(record), flush=True)
                    if args.annotate:
                        picture = draw_live(frame.image, throw.dice + throw.set_aside, seen.status)
                        cv2.imwrite(str(Path(args.annotate) / f"throw_{printed + 1:04d}.jpg"), picture)
                    printed += 1
                    if args.throws is not None and printed >= args.throws:
                        break
                if args.seconds is not None and frame.t - first_t >= args.seconds:
                    break
            state = source.state
            if state.status in ("ended", "failed") and state.message:
                print(f"dicekeeper watch: {state.message}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        pass
    return 1 if source.state.status == "failed" else 0

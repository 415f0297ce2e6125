"""The `dicekeeper` command: one sub-command per module, each a thin layer over a package."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from dicekeeper import __version__

# Each module has `register(subparsers)`, which adds its sub-commands and sets `func`
# on them; `func(args)` returns the exit code.
COMMAND_MODULES = (
    "dicekeeper.commands.engine",
    "dicekeeper.commands.play",
    "dicekeeper.commands.vision",
    "dicekeeper.commands.serve",
    "dicekeeper.commands.strategy",
    "dicekeeper.commands.watch",
    "dicekeeper.commands.camera_bench",
    "dicekeeper.commands.adapt",
)


class CliError(Exception):
    """Bad input on the command line: printed as one line on stderr, exit code 2."""


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dicekeeper",
        description="Keep score of Dice 10,000 played with real dice.",
    )
    parser.add_argument("--version", action="version", version=f"dicekeeper {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"dicekeeper {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

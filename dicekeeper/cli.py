"""The `dicekeeper` command: one sub-command per module, each a thin layer over a package."""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from collections.abc import Callable, Sequence

from dicekeeper import __version__

# Each module has `register(subparsers)`, which adds its sub-commands with `add_command`;
# `func(args)` returns the exit code.
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


def add_command(
    subparsers: argparse._SubParsersAction, name: str, func: Callable[[argparse.Namespace], int]
) -> argparse.ArgumentParser:
    """The sub-command `name`, which runs `func`. The first line of `func`'s docstring is its help
    in the list of commands; the text after the first blank line, if any, its description."""
    summary, _, rest = inspect.cleandoc(func.__doc__ or "").partition("\n\n")
    parser = subparsers.add_parser(name, help=summary, description=" ".join(rest.split()) or None)
    parser.set_defaults(func=func)
    return parser


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

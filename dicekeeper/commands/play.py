"""`dicekeeper play`: keep score of a game from action lines, one JSON state per action."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from dicekeeper.cli import CliError, add_command
from dicekeeper.commands.engine import add_rules_arguments, rules_from_args
from scorekeeper import DiceError, Game, GameState, MalformedInput, ScorekeeperError

ACTIONS = (
    "throw F..",
    "keep F..",
    "bank [F..]",
    "piggyback",
    "correct F..",
    "+N",
    "farkle",
    "roll F",
    "rename WHO NAME",
    "target N",
    "add NAME",
    "remove WHO",
    "undo",
    "undo-turn",
    "redo",
)


def _who(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def perform_line(game: Game, line: str) -> GameState:
    """Carry out one action line; malformed lines raise MalformedInput, forbidden ones IllegalAction."""
    words = line.replace(",", " ").split()
    if not words:
        raise MalformedInput("an empty action")
    word, rest = words[0].lower(), words[1:]
    if word.startswith("+"):
        return game.enter_points(word)
    one: dict[str, Callable[[], GameState]] = {
        "piggyback": game.piggyback,
        "farkle": game.declare_farkle,
        "undo": game.undo,
        "undo-turn": game.undo_turn,
        "redo": game.redo,
    }
    if word in one and not rest:
        return one[word]()
    if word == "bank":
        return game.bank(rest or None)
    if word in ("throw", "keep", "correct") and rest:
        return getattr(game, word)(rest)
    if word == "points" and len(rest) == 1:
        return game.enter_points(rest[0])
    if word == "roll" and len(rest) == 1:
        return game.roll_for_start(rest[0])
    if word == "rename" and len(rest) == 2:
        return game.rename(_who(rest[0]), rest[1])
    if word == "target" and len(rest) == 1:
        return game.change_target(rest[0])
    if word == "add" and len(rest) == 1:
        return game.add_player(rest[0])
    if word == "remove" and len(rest) == 1:
        return game.remove_player(_who(rest[0]))
    raise MalformedInput(f"not an action: {line.strip()!r}; actions: {', '.join(ACTIONS)}")


def _load(path: str) -> Game:
    try:
        return Game.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, ScorekeeperError) as exc:
        raise CliError(f"{path} is not a saved game: {exc}") from None


def cmd_play(args: argparse.Namespace) -> int:
    """keep score from action lines on stdin (throw, keep, bank, +350, undo...)"""
    if args.load:
        game = _load(args.load)
    else:
        if not args.players:
            raise CliError("name the players with --players Ann,Bob, or --load a saved game")
        try:
            game = Game(args.players.split(","), rules_from_args(args))
        except DiceError as exc:
            raise CliError(str(exc)) from None
    failed = False
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            state = perform_line(game, line)
        except ScorekeeperError as exc:
            kind = "malformed" if isinstance(exc, DiceError) else "not allowed"
            print(f"dicekeeper play: line {number}: {kind}: {exc}", file=sys.stderr)
            failed = True
            continue
        print(json.dumps(state.to_dict()))
    if args.save:
        Path(args.save).write_text(json.dumps(game.to_dict()) + "\n", encoding="utf-8")
    return 2 if failed else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    play = add_command(subparsers, "play", cmd_play)
    add_rules_arguments(play)
    play.add_argument("--players", metavar="A,B", help="the players in seat order")
    play.add_argument("--load", metavar="FILE", help="go on with a game saved by --save")
    play.add_argument("--save", metavar="FILE", help="write the game (players, rules, events) as JSON at the end")

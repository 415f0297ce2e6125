"""`dicekeeper advise` and `simulate`: the turn strategy and the computer players on the command line."""

from __future__ import annotations

import argparse
import json
import os

from dicekeeper.cli import CliError, add_command
from dicekeeper.commands.engine import EXAMPLE_THROW, add_rules_arguments, faces_from, rules_from_args
from scorekeeper import DiceError
from scorekeeper.players import UnknownStrategy, strategy_by_name
from scorekeeper.simulation import simulate_by_name
from scorekeeper.strategy import Situation, advise


def _print(obj: object) -> None:
    print(json.dumps(obj))


def _whole(text: str, what: str, lowest: int) -> int:
    value = text.strip().replace("_", "")
    if not value.lstrip("-").isdigit() or int(value) < lowest:
        raise CliError(f"{what} must be a whole number >= {lowest}, not {text!r}")
    return int(value)


def cmd_advise(args: argparse.Namespace) -> int:
    """rate every keep of a throw and advise keep, roll on or bank (maximum expected points)"""
    rules = rules_from_args(args)
    if not args.dice:
        example = " ".join(map(str, EXAMPLE_THROW[: rules.dice]))
        raise CliError(f"give the faces of a throw, e.g. `dicekeeper advise {example}`")
    faces = faces_from(args.dice, rules)
    turn_total = _whole(args.turn_total, "--turn-total", 0)
    farkles = _whole(args.farkles, "--farkles", 0)
    situation = Situation.of_player(rules, on_board=not args.off_board, farkles_in_a_row=farkles)
    try:
        advice = advise(faces, rules, turn_total=turn_total, situation=situation)
    except DiceError as exc:
        raise CliError(str(exc)) from None
    _print(advice.to_dict())
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    """play computer players against each other and report win rates"""
    rules = rules_from_args(args)
    names = tuple(n.strip() for n in args.players.split(",") if n.strip())
    if len(names) < 2:
        raise CliError("--players needs at least two strategies, e.g. --players maxexp,threshold300")
    try:
        for name in names:
            strategy_by_name(name)
    except UnknownStrategy as exc:
        raise CliError(str(exc)) from None
    games = _whole(args.games, "--games", 1)
    seed = _whole(args.seed, "--seed", 0)
    tally = simulate_by_name(names, rules, games, seed, workers=_whole(args.jobs, "--jobs", 1))
    for line in tally.report(rules):
        _print(line)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    advise_parser = add_command(subparsers, "advise", cmd_advise)
    add_rules_arguments(advise_parser)
    advise_parser.add_argument(
        "--turn-total", default="0", metavar="T", help="points set aside earlier in this turn (default 0)"
    )
    advise_parser.add_argument(
        "--off-board", action="store_true", help="the player is not on the board yet: banking needs the entry score"
    )
    advise_parser.add_argument(
        "--farkles",
        default="0",
        metavar="N",
        help="farkles in a row before this throw (the third may cost the penalty)",
    )
    advise_parser.add_argument("dice", nargs="*", metavar="DIE")

    sim = add_command(subparsers, "simulate", cmd_simulate)
    add_rules_arguments(sim)
    sim.add_argument(
        "--players", required=True, metavar="A,B,...", help="strategies in seat order, e.g. maxexp,threshold300,endgame"
    )
    sim.add_argument("--games", default="1000", metavar="N", help="games to play (default 1000)")
    sim.add_argument("--seed", default="0", metavar="S", help="seed of game 0; game i uses (S, i) (default 0)")
    sim.add_argument(
        "--jobs",
        default=str(min(2, os.cpu_count() or 1)),
        metavar="J",
        help="worker processes (default: 2, or 1 on a one-core machine)",
    )

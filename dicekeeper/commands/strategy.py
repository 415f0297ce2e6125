"""`dicekeeper advise` and `simulate`: the turn strategy and the computer players on the command line."""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import ProcessPoolExecutor

from dicekeeper.cli import CliError
from dicekeeper.commands.engine import EXAMPLE_THROW, add_rules_arguments, faces_from, rules_from_args
from scorekeeper import DiceError, Ruleset
from scorekeeper.players import UnknownStrategy, strategy_by_name
from scorekeeper.simulation import Tally, simulate
from scorekeeper.strategy import Situation, advise


def _print(obj: object) -> None:
    print(json.dumps(obj))


def _whole(text: str, what: str, lowest: int) -> int:
    value = text.strip().replace("_", "")
    if not value.lstrip("-").isdigit() or int(value) < lowest:
        raise CliError(f"{what} must be a whole number >= {lowest}, not {text!r}")
    return int(value)


def cmd_advise(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    if not args.dice:
        example = " ".join(map(str, EXAMPLE_THROW[: rules.dice]))
        raise CliError(f"give the faces of a throw, e.g. `dicekeeper advise {example}`")
    faces = faces_from(args.dice, rules)
    turn_total = _whole(args.turn_total, "--turn-total", 0)
    farkles = _whole(args.farkles, "--farkles", 0)
    situation = Situation(
        entry=rules.entry if args.off_board else 0,
        farkle_cost=rules.three_farkle_penalty if farkles + 1 >= 3 else 0,
    )
    try:
        advice = advise(faces, rules, turn_total=turn_total, situation=situation)
    except DiceError as exc:
        raise CliError(str(exc)) from None
    _print(advice.to_dict())
    return 0


def _play_share(job: tuple[tuple[str, ...], Ruleset, int, int, int]) -> Tally:
    names, rules, games, seed, first = job
    return simulate([strategy_by_name(n) for n in names], rules, games, seed=seed, first_game=first)


def cmd_simulate(args: argparse.Namespace) -> int:
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
    workers = max(1, min(_whole(args.jobs, "--jobs", 1), games))
    # Game i is seeded by (seed, i) alone, so the result does not depend on how the games are split.
    bounds = [games * k // workers for k in range(workers + 1)]
    jobs = [(names, rules, hi - lo, seed, lo) for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
    if workers == 1:
        shares = [_play_share(job) for job in jobs]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            shares = list(pool.map(_play_share, jobs))
    tally = shares[0]
    for share in shares[1:]:
        tally = tally.merge(share)
    for line in tally.report(rules):
        _print(line)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    advise_parser = subparsers.add_parser(
        "advise", help="rate every keep of a throw and advise keep, roll on or bank (maximum expected points)")
    add_rules_arguments(advise_parser)
    advise_parser.add_argument("--turn-total", default="0", metavar="T",
                               help="points set aside earlier in this turn (default 0)")
    advise_parser.add_argument("--off-board", action="store_true",
                               help="the player is not on the board yet: banking needs the entry score")
    advise_parser.add_argument("--farkles", default="0", metavar="N",
                               help="farkles in a row before this throw (the third may cost the penalty)")
    advise_parser.add_argument("dice", nargs="*", metavar="DIE")
    advise_parser.set_defaults(func=cmd_advise)

    sim = subparsers.add_parser("simulate", help="play computer players against each other and report win rates")
    add_rules_arguments(sim)
    sim.add_argument("--players", required=True, metavar="A,B,...",
                     help="strategies in seat order, e.g. maxexp,threshold300,endgame")
    sim.add_argument("--games", default="1000", metavar="N", help="games to play (default 1000)")
    sim.add_argument("--seed", default="0", metavar="S", help="seed of game 0; game i uses (S, i) (default 0)")
    sim.add_argument("--jobs", default=str(min(2, os.cpu_count() or 1)), metavar="J",
                     help="worker processes (default: 2, or 1 on a one-core machine)")
    sim.set_defaults(func=cmd_simulate)

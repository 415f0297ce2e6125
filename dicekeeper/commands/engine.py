"""`dicekeeper rules`, `score` and `odds`: the rules engine on the command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

from dicekeeper.cli import CliError, add_command
from scorekeeper import (
    DEFAULT_PRESET,
    HOUSE_RULES,
    PRESETS,
    DiceError,
    RulesError,
    Ruleset,
    compose_ruleset,
    legal_keeps,
    odds,
    parse_faces,
    preset,
    ruleset_from_toml,
)
from scorekeeper.sources import combination_lines, knob_lines


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """`--rules NAME|FILE.toml`, `--house NAME` and `--set KEY=VALUE`, shared by every engine command."""
    presets, houses = ", ".join(PRESETS), ", ".join(HOUSE_RULES)
    rules_help = f"a preset ({presets}) or a TOML file; default {DEFAULT_PRESET}"
    parser.add_argument("--rules", default=DEFAULT_PRESET, metavar="NAME", help=rules_help)
    parser.add_argument(
        "--house", action="append", default=[], metavar="NAME", help=f"lay a house rule over it ({houses})"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="settings",
        help="change one knob, e.g. --set entry=1000 (repeatable)",
    )


def rules_from_args(args: argparse.Namespace) -> Ruleset:
    try:
        settings: dict[str, object] = {}
        for item in args.settings:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise CliError(f"--set needs KEY=VALUE, not {item!r}")
            settings[key.strip()] = value
        return compose_ruleset(_base_rules(args.rules), args.house, settings)
    except RulesError as exc:
        raise CliError(str(exc)) from None


def _base_rules(name: str) -> Ruleset:
    if name.endswith(".toml"):
        path = Path(name)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot read rules file {name}: {exc.strerror}") from None
        return ruleset_from_toml(text)
    return preset(name)


def faces_from(values: Iterable[str], rules: Ruleset) -> tuple[int, ...]:
    try:
        return parse_faces(list(values), rules.dice)
    except DiceError as exc:
        raise CliError(str(exc)) from None


def score_object(faces: tuple[int, ...], rules: Ruleset) -> dict[str, object]:
    keeps = legal_keeps(faces, rules)
    return {"rules": rules.name, "dice": list(faces), "farkle": not keeps, "keeps": [k.to_dict() for k in keeps]}


EXAMPLE_THROW = (1, 5, 3, 3, 3, 2)


def _print(obj: object) -> None:
    print(json.dumps(obj), flush=False)


def cmd_score(args: argparse.Namespace) -> int:
    """list the legal keeps of a throw with their points"""
    rules = rules_from_args(args)
    if not args.batch:
        if not args.dice:
            example = " ".join(map(str, EXAMPLE_THROW[: rules.dice]))
            raise CliError(f"give the faces of a throw, e.g. `dicekeeper score {example}`, or --batch")
        _print(score_object(faces_from(args.dice, rules), rules))
        return 0
    failed = False
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            faces = parse_faces(line.replace(",", " ").split(), rules.dice)
        except DiceError as exc:
            print(f"dicekeeper score: line {number}: {exc}", file=sys.stderr)
            failed = True
            continue
        _print(score_object(faces, rules))
    return 2 if failed else 0


def cmd_odds(args: argparse.Namespace) -> int:
    """exact farkle chance and expected points per number of dice"""
    rules = rules_from_args(args)
    _print({"rules": rules.name, "odds": [o.to_dict() for o in odds(rules)]})
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    """list the presets, or show one as a table"""
    if args.name is None:
        for rules in PRESETS.values():
            _print(rules.to_dict())
        return 0
    rules = rules_from_args(argparse.Namespace(rules=args.name, house=args.house, settings=args.settings))
    if args.json:
        _print(rules.to_dict())
        return 0
    lines = combination_lines(rules)
    knobs = knob_lines(rules)
    width = max(len(k) for k in (*(k.name for k in knobs), *(c.name for c in lines)))
    print(f"{rules.name}")
    for knob in knobs:
        print(f"  {knob.name:<{width}}  {knob.value:<13} {knob.source}")
    print("combinations")
    for line in lines:
        points = f"{line.points}{' wins' if line.instant_win else ''}"
        print(f"  {line.name:<{width}}  {points:<13} {line.source}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    score = add_command(subparsers, "score", cmd_score)
    add_rules_arguments(score)
    score.add_argument("--batch", action="store_true", help="read one throw per line from stdin")
    score.add_argument("dice", nargs="*", metavar="DIE")

    odds_parser = add_command(subparsers, "odds", cmd_odds)
    add_rules_arguments(odds_parser)

    rules = add_command(subparsers, "rules", cmd_rules)
    rules.add_argument("name", nargs="?", help="a preset or a TOML file")
    rules.add_argument("--house", action="append", default=[], metavar="NAME")
    rules.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="settings")
    rules.add_argument("--json", action="store_true", help="print the ruleset as one JSON object")

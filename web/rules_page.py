"""The rules page: every knob and scoring combination of a preset, or of one game's ruleset, with
the rule text and line each value comes from (the same lines as `dicekeeper rules PRESET`)."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template, request
from flask.typing import ResponseReturnValue

from scorekeeper import DEFAULT_PRESET, PRESETS, RulesError, Ruleset, preset
from scorekeeper.sources import TEXTS, combination_lines, knob_lines
from web import db as database
from web.games import GameBook, GameNotFound

bp = Blueprint("rules", __name__)


def render_rules(rules: Ruleset, heading: str, game_id: int | None = None) -> ResponseReturnValue:
    base = PRESETS.get(rules.name.rstrip("+"))
    return render_template(
        "rules.html",
        rules=rules,
        heading=heading,
        game_id=game_id,
        presets=PRESETS,
        text=TEXTS.get(base.name) if base else None,
        knobs=knob_lines(rules),
        combinations=combination_lines(rules),
    )


@bp.get("/rules/")
def rules_index() -> ResponseReturnValue:
    name = request.args.get("preset", DEFAULT_PRESET)
    return show_preset(name)


@bp.get("/rules/<name>")
def show_preset(name: str) -> ResponseReturnValue:
    try:
        rules = preset(name)
    except RulesError as exc:
        abort(404, str(exc))
    return render_rules(rules, f"The {rules.name} rules")


@bp.get("/games/<int:game_id>/rules")
def game_rules(game_id: int) -> ResponseReturnValue:
    """The ruleset a game is played by now (a target changed mid-game included)."""
    book: GameBook = current_app.extensions["dicekeeper.games"]
    try:
        _, state = book.snapshot(database.get_db(), game_id)
    except GameNotFound:
        abort(404, f"There is no game {game_id}.")
    return render_rules(state.rules, f"Game {game_id}: {state.rules.name} rules", game_id)

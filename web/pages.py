"""HTML pages for playing: the new-game form, the table view (laptop) and the phone view."""

from __future__ import annotations

from typing import Any

import segno
from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from scorekeeper import HOUSE_RULES, PRESETS, ScorekeeperError, knob_names
from web import db as database
from web.access import allowed, token_from
from web.dice_sources import SOURCES, camera_present
from web.games import MAX_PLAYERS, GameBook, GameNotFound, GameRecord, InputError, ruleset_from_request

bp = Blueprint("pages", __name__)

# Knobs the form shows by themselves; the rest go under "More rules".
MAIN_KNOBS = ("target", "entry")


def book() -> GameBook:
    return current_app.extensions["dicekeeper.games"]


def base_url() -> str:
    return (current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


def form_context(error: str | None = None, form: dict[str, Any] | None = None) -> dict[str, Any]:
    default_source = current_app.config["DICE_SOURCE"]
    if default_source not in SOURCES:
        default_source = "camera" if camera_present() else "virtual"
    return {
        "presets": PRESETS, "house_rules": HOUSE_RULES, "sources": SOURCES, "error": error,
        "extra_knobs": [k for k in knob_names() if k not in MAIN_KNOBS], "max_players": MAX_PLAYERS,
        "form": form or {"players": ["", ""], "rules": "family", "source": default_source},
    }


@bp.get("/")
def new_game() -> ResponseReturnValue:
    return render_template("new_game.html", **form_context())


@bp.post("/games")
def create_game() -> ResponseReturnValue:
    form = request.form
    players = [name.strip() for name in form.getlist("player") if name.strip()]
    settings = {key: form[f"knob_{key}"].strip() for key in knob_names()
                if form.get(f"knob_{key}", "").strip()}
    houses = form.getlist("house")
    submitted = {"players": form.getlist("player") or ["", ""], "rules": form.get("rules", "family"),
                 "source": form.get("source"), "house": houses, "knobs": settings}
    try:
        rules = ruleset_from_request(form.get("rules", "family"), settings, houses)
        record, _, notice = book().create(database.get_db(), players, rules, form.get("source") or None)
    except (ScorekeeperError, InputError) as exc:
        return render_template("new_game.html", **form_context(str(exc), submitted)), 400
    return redirect(url_for("pages.table", game_id=record.id, token=record.token, notice=notice))


def game_for_page(game_id: int) -> tuple[GameRecord, dict[str, Any]]:
    conn = database.get_db()
    try:
        record = book().record(conn, game_id)
    except GameNotFound:
        abort(404, f"There is no game {game_id}.")
    if not allowed(token_from(request), record.token):
        abort(403, "This game can only be opened with its link, which carries a secret token: "
                   "scan the QR code on the table view.")
    return record, book().state(conn, game_id)


def page_context(record: GameRecord, state: dict[str, Any]) -> dict[str, Any]:
    phone_link = f"{base_url()}{url_for('pages.play', game_id=record.id, token=record.token)}"
    return {
        "game": record, "state": state, "token": record.token, "phone_link": phone_link,
        "qr_svg": segno.make(phone_link, error="m").svg_inline(scale=4, dark="#111", light="#fff"),
        "camera_url": current_app.config.get("CAMERA_FRAME_URL") if record.source == "camera" else None,
        "notice": request.args.get("notice"),
    }


@bp.get("/games/<int:game_id>/table")
def table(game_id: int) -> ResponseReturnValue:
    record, state = game_for_page(game_id)
    return render_template("table.html", **page_context(record, state))


@bp.get("/games/<int:game_id>/play")
def play(game_id: int) -> ResponseReturnValue:
    record, state = game_for_page(game_id)
    return render_template("play.html", **page_context(record, state))


@bp.app_errorhandler(403)
@bp.app_errorhandler(404)
@bp.app_errorhandler(405)
def page_error(exc: HTTPException) -> ResponseReturnValue:
    if request.path.startswith("/api"):
        from web.api import on_http
        return on_http(exc)
    return render_template("error.html", error=exc), exc.code

"""HTML pages for playing: the new-game form, the table view (laptop) and the phone view."""

from __future__ import annotations

import json
from typing import Any

import segno
from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from scorekeeper import DEFAULT_PRESET, HOUSE_RULES, PRESETS, ScorekeeperError, knob_names
from web import db as database
from web.access import token_from
from web.dice_sources import SOURCES, camera_present
from web.games import MAX_PLAYERS, GameRecord, InputError, ruleset_from_request
from web.lookup import book, game_and_actor
from web.presets import LABELS, label
from web.seats import Actor, give_seat, seated

bp = Blueprint("pages", __name__)

# Knobs the form shows by themselves; the rest go under "More rules".
MAIN_KNOBS = ("target", "entry", "starts")


def base_url() -> str:
    return (current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


def form_context(error: str | None = None, form: dict[str, Any] | None = None) -> dict[str, Any]:
    default_source = current_app.config["DICE_SOURCE"]
    if default_source not in SOURCES:
        default_source = "camera" if camera_present() else "virtual"
    return {
        "presets": PRESETS,
        "labels": LABELS,
        "house_rules": HOUSE_RULES,
        "sources": SOURCES,
        "error": error,
        "extra_knobs": [k for k in knob_names() if k not in MAIN_KNOBS],
        "max_players": MAX_PLAYERS,
        "form": form or last_setup(default_source, request.args.get("from", type=int)),
    }


def knob_text(value: object) -> str:
    """A knob's value as the form's text field takes it back."""
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def last_setup(default_source: str, game_id: int | None = None) -> dict[str, Any]:
    """The form filled in as for game `game_id`, else the newest game: its players, preset, changed
    knobs and dice."""
    conn = database.get_db()
    row = None
    if game_id is not None:
        row = conn.execute("SELECT players, rules, source FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        row = conn.execute("SELECT players, rules, source FROM games ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        return {"players": ["", ""], "rules": DEFAULT_PRESET, "source": default_source}
    rules = json.loads(row["rules"])
    code = str(rules.get("name", DEFAULT_PRESET)).rstrip("+")
    if code not in PRESETS:
        return {"players": json.loads(row["players"]), "rules": DEFAULT_PRESET, "source": row["source"]}
    base = PRESETS[code].knobs()
    knobs = {key: knob_text(value) for key, value in rules.items() if key in base and base[key] != value}
    return {"players": json.loads(row["players"]), "rules": code, "source": row["source"], "knobs": knobs}


def names_from_form(rows: list[str]) -> list[str]:
    """The players' names; a blank row is "Player N" after its place. Blank rows at the end, past
    the first two, are left out."""
    names = [row.strip() for row in rows]
    while len(names) > 2 and not names[-1]:
        names.pop()
    return [name or f"Player {place}" for place, name in enumerate(names, start=1)]


@bp.app_template_filter("preset_title")
def preset_title(code: str) -> str:
    return label(code).title


@bp.get("/")
def new_game() -> ResponseReturnValue:
    return render_template("new_game.html", **form_context())


@bp.post("/games")
def create_game() -> ResponseReturnValue:
    form = request.form
    players = names_from_form(form.getlist("player"))
    settings = {key: form[f"knob_{key}"].strip() for key in knob_names() if form.get(f"knob_{key}", "").strip()}
    houses = form.getlist("house")
    submitted = {
        "players": form.getlist("player") or ["", ""],
        "rules": form.get("rules", DEFAULT_PRESET),
        "source": form.get("source"),
        "house": houses,
        "knobs": settings,
    }
    try:
        rules = ruleset_from_request(form.get("rules", DEFAULT_PRESET), settings, houses)
        record, _, notice = book().create(database.get_db(), players, rules, form.get("source") or None)
    except (ScorekeeperError, InputError) as exc:
        return render_template("new_game.html", **form_context(str(exc), submitted)), 400
    return redirect(url_for("pages.table", game_id=record.id, token=record.token, notice=notice))


def game_for_page(game_id: int, seats_welcome: bool = False) -> tuple[GameRecord, dict[str, Any], Actor]:
    record, actor = game_and_actor(game_id)
    if actor is None or (not actor.is_table and not seats_welcome):
        abort(
            403,
            "This game can only be opened with its link, which carries a secret token: "
            "scan the QR code on the table view.",
        )
    return record, book().state(database.get_db(), game_id), actor


def play_link(record: GameRecord, token: str) -> str:
    return f"{base_url()}{url_for('pages.play', game_id=record.id, token=token)}"


def qr(link: str) -> str:
    return segno.make(link, error="m").svg_inline(scale=4, dark="#111", light="#fff")


def page_context(record: GameRecord, state: dict[str, Any], actor: Actor) -> dict[str, Any]:
    given = token_from(request) or ""
    context: dict[str, Any] = {
        "game": record,
        "state": state,
        "token": given,
        "seat": actor.seat,
        "camera_url": current_app.config.get("CAMERA_FRAME_URL") if record.source == "camera" else None,
        "notice": request.args.get("notice"),
    }
    if actor.is_table:  # only the table sees the game's token and the seats
        phone_link = play_link(record, record.token)
        context.update(phone_link=phone_link, qr_svg=qr(phone_link), seats=seated(database.get_db(), record))
        shown = request.args.get("seat_shown", "")
        if shown.isascii() and shown.isdigit() and int(shown) in context["seats"]:
            link = play_link(record, context["seats"][int(shown)])
            name = state["players"][int(shown)]["name"]
            context["seat_shown"] = {"player": name, "link": link, "qr_svg": qr(link)}
    return context


@bp.get("/games/<int:game_id>/table")
def table(game_id: int) -> ResponseReturnValue:
    record, state, actor = game_for_page(game_id)
    return render_template("table.html", **page_context(record, state, actor))


@bp.get("/games/<int:game_id>/play")
def play(game_id: int) -> ResponseReturnValue:
    record, state, actor = game_for_page(game_id, seats_welcome=True)
    return render_template("play.html", **page_context(record, state, actor))


@bp.post("/games/<int:game_id>/rematch")
def rematch(game_id: int) -> ResponseReturnValue:
    """The game-over screen's Rematch: opens the new game in the same view (table or phone)."""
    record, _, _ = game_for_page(game_id)
    try:
        fresh, notice = book().rematch(database.get_db(), record.id)
    except (ScorekeeperError, InputError) as exc:
        abort(400, str(exc))
    view = "pages.play" if request.args.get("view") == "play" else "pages.table"
    return redirect(url_for(view, game_id=fresh.id, token=fresh.token, notice=notice))


@bp.get("/games/<int:game_id>/next")
def follow_rematch(game_id: int) -> ResponseReturnValue:
    """Another device's way into the rematch: the table's link opens the new game as the table,
    a seat's link opens a seat of the same player in it."""
    record, _, actor = game_for_page(game_id, seats_welcome=True)
    conn = database.get_db()
    fresh = book().rematch_of(conn, record.id)
    if fresh is None:
        abort(404, f"No rematch of game {game_id} has been started yet: press Rematch on the table view.")
    if actor.seat is None:  # the table
        view = "pages.play" if request.args.get("view") == "play" else "pages.table"
        return redirect(url_for(view, game_id=fresh.id, token=fresh.token))
    _, state = book().snapshot(conn, record.id)
    name = state.players[actor.seat].name
    if name not in fresh.players:
        abort(403, f"{name} is not in the rematch.")
    seat_token = give_seat(conn, fresh, fresh.players.index(name), len(fresh.players))
    return redirect(url_for("pages.play", game_id=fresh.id, token=seat_token))


@bp.post("/games/<int:game_id>/seats/<int:player>")
def give_seat_page(game_id: int, player: int) -> ResponseReturnValue:
    """The table's button for a player's seat: a new seat token, shown as a QR code on the table view."""
    record, state, _ = game_for_page(game_id)
    try:
        give_seat(database.get_db(), record, player, len(state["players"]))
    except InputError:
        abort(404, f"Game {game_id} has no player {player}.")
    return redirect(url_for("pages.table", game_id=game_id, token=record.token, seat_shown=player))


@bp.app_errorhandler(400)
@bp.app_errorhandler(403)
@bp.app_errorhandler(404)
@bp.app_errorhandler(405)
def page_error(exc: HTTPException) -> ResponseReturnValue:
    if request.path.startswith("/api"):
        from web.api import on_http

        return on_http(exc)
    return render_template("error.html", error=exc), exc.code or 500

"""History pages: every game, one game's turn-by-turn log and chart, export and import."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from flask import Blueprint, Response, abort, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from scorekeeper import Event, Game, LogEntry, ScorekeeperError, TurnRecord
from web import db as database
from web.chart import score_chart
from web.games import GameBook, GameNotFound, GameRecord, import_payload, replay_problem, utc_now
from web.games import player_names as checked_names
from web.inputs import InputError, load_json
from web.lookup import book, game_and_actor
from web.stats import average_turn_chart, player_stats, stored_games

bp = Blueprint("history", __name__, url_prefix="/history")

EXPORT_FORMAT = "dicekeeper-game/1"


def load(game_id: int) -> tuple[GameRecord, Game]:
    try:
        return book().load(database.get_db(), game_id)
    except GameNotFound:
        abort(404, f"There is no game {game_id}.")


def render_index(error: str | None = None, status: int = 200) -> ResponseReturnValue:
    games = book().summaries(database.get_db())
    return render_template("history.html", games=games, error=error), status


@bp.get("/")
def index() -> ResponseReturnValue:
    return render_index()


def player_names(played: Game) -> tuple[str, ...]:
    """One name per seat as the game stands now: renamed players under their new name, players
    who joined or left included."""
    return tuple(p.name for p in played.state.players)


def turn_rows(names: tuple[str, ...], turns: tuple[TurnRecord, ...]) -> list[dict[str, Any]]:
    n = len(names)
    return [
        {
            "number": t.number,
            "round": (t.number - 1) // n + 1,
            "player": names[t.player],
            "throws": t.throws,
            "result": t.result,
            "points": t.points,
            "score_after": t.score_after,
            "piggyback": t.piggyback,
            "penalty": t.penalty,
        }
        for t in turns
    ]


def event_text(event: Event, names: tuple[str, ...]) -> str:
    """One event of the log in words; seats are named as the players are called now."""
    data = event.to_dict()
    listed = data.get("faces", data.get("dice", ()))
    faces = "-".join(str(f) for f in listed) if isinstance(listed, (list, tuple)) else ""
    seat = data.get("player")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"
    texts = {
        "throw": f"threw {faces}",
        "keep": f"kept {faces}",
        "bank": "banked",
        "piggyback": "took over the dice",
        "correct": f"corrected the throw to {faces}",
        "undo": "undo",
        "undo-turn": "undo of a turn",
        "redo": "redo",
        "start-roll": f"rolled {data.get('face')} for the start",
        "points": f"typed +{data.get('points')}",
        "farkle": "typed a farkle",
        "rename": f"seat {seat} renamed {data.get('name')}",
        "target": f"target changed to {data.get('target')}",
        "add-player": f"{data.get('name')} joined",
        "remove-player": f"{who} left",
    }
    return texts.get(event.kind, event.kind)


def log_rows(entries: tuple[LogEntry, ...], names: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every event with what became of it, for a history that strikes through what was taken back."""
    return [
        {"seq": e.index + 1, "text": event_text(e.event, names), "status": e.status, "kind": e.event.kind}
        for e in entries
    ]


@bp.get("/<int:game_id>")
def game(game_id: int) -> ResponseReturnValue:
    record, played = load(game_id)
    turns = played.turns()
    names = player_names(played)
    return render_template(
        "history_game.html",
        game=record,
        state=GameBook.state_dict(record, played.state),
        turns=list(reversed(turn_rows(names, turns))),
        events=log_rows(played.log(), names),
        chart=score_chart(names, turns, played.state.rules.target),
    )


def export_dict(record: GameRecord, played: Game) -> dict[str, Any]:
    return {
        "format": EXPORT_FORMAT,
        "id": record.id,
        "created_at": record.created_at,
        "exported_at": utc_now(),
        "source": record.source,
        **played.to_dict(),
    }


@bp.get("/<int:game_id>.json")
def export_json(game_id: int) -> ResponseReturnValue:
    record, played = load(game_id)
    body = json.dumps(export_dict(record, played), indent=2)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="dicekeeper-game-{game_id}.json"'},
    )


CSV_COLUMNS = (
    "turn",
    "round",
    "player",
    "throw",
    "faces",
    "kept",
    "kept_points",
    "result",
    "turn_points",
    "piggyback",
    "penalty",
    "score_after",
)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A text cell that a spreadsheet would run as a formula gets a leading apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


@bp.get("/<int:game_id>.csv")
def export_csv(game_id: int) -> ResponseReturnValue:
    record, played = load(game_id)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in turn_rows(player_names(played), played.turns()):
        for index, throw in enumerate(row["throws"], start=1):
            writer.writerow(
                [
                    row["number"],
                    row["round"],
                    csv_cell(row["player"]),
                    index,
                    "-".join(map(str, throw.faces)),
                    "-".join(map(str, throw.kept)),
                    throw.points,
                    row["result"],
                    row["points"],
                    row["piggyback"],
                    row["penalty"],
                    row["score_after"],
                ]
            )
    return Response(
        out.getvalue(),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="dicekeeper-game-{game_id}.csv"'},
    )


@bp.get("/stats")
def stats() -> ResponseReturnValue:
    """Every player's record across the games kept (abandoned ones left out); ?player=NAME picks one."""
    everyone = sorted(
        player_stats(stored_games(book(), database.get_db())).values(),
        key=lambda p: (-p.wins, -p.games, p.name.casefold()),
    )
    chosen = request.args.get("player")
    shown = [p for p in everyone if p.name == chosen] if chosen else everyone
    if chosen and not shown:
        abort(404, f"No game has a player called {chosen[:40]!r}.")
    charted = [p for p in shown if p.per_game][:12]
    return render_template(
        "history_stats.html",
        players=everyone,
        shown=shown,
        chosen=chosen,
        chart=average_turn_chart(charted) if charted else None,
    )


def table_record(game_id: int) -> GameRecord:
    """The game, when the request carries its table token (the browser that holds it sends it)."""
    record, actor = game_and_actor(game_id)
    if actor is None or not actor.is_table:
        abort(403, "Only the device that started this game (it holds the game's secret token) can change it here.")
    return record


@bp.post("/<int:game_id>/abandon")
def abandon(game_id: int) -> ResponseReturnValue:
    record = table_record(game_id)
    try:
        book().abandon(database.get_db(), record.id)
    except InputError as exc:
        return render_index(str(exc), 400)
    return redirect(url_for("history.index"))


@bp.post("/<int:game_id>/resume")
def resume(game_id: int) -> ResponseReturnValue:
    """Take an abandoned game up again, or simply go back to an unfinished one: its table view."""
    record = table_record(game_id)
    book().abandon(database.get_db(), record.id, abandoned=False)
    return redirect(url_for("pages.table", game_id=record.id, token=record.token))


@bp.post("/<int:game_id>/delete")
def delete(game_id: int) -> ResponseReturnValue:
    record = table_record(game_id)
    book().delete(database.get_db(), record.id)
    return redirect(url_for("history.index"))


@bp.post("/import")
def import_game() -> ResponseReturnValue:
    upload = request.files.get("game")
    if upload is None or not upload.filename:
        return render_index("Choose an exported game file (.json) to import.", 400)
    raw = upload.read()
    if not raw.strip():
        return render_index(f"{upload.filename} is empty: choose a file saved with Export JSON.", 400)
    try:
        data = load_json(raw)
    except InputError:
        return render_index(
            f"{upload.filename} is not an exported game: it is not JSON text. Import a file "
            "saved with Export JSON on a game's history page.",
            400,
        )
    try:
        players, rules, events, source = import_payload(data)
        names = checked_names(players)
    except (ValueError, ScorekeeperError) as exc:  # InputError, DiceError, RulesError
        return render_index(f"{upload.filename} is not an exported game: {exc}.", 400)
    problem = replay_problem(names, rules, events)
    if problem:
        return render_index(f"That game does not replay under its rules: {problem}.", 400)
    try:
        record, _, _ = book().create(database.get_db(), names, rules, source or "manual", events)
    except (ValueError, ScorekeeperError) as exc:
        return render_index(f"That game cannot be imported: {exc}.", 400)
    return redirect(url_for("history.game", game_id=record.id))

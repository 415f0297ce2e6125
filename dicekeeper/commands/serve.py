"""`dicekeeper serve`: the web dashboard for the table and the phones."""

from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from dicekeeper.cli import add_command
from dicekeeper.commands.watch import add_turn_argument, turn_of

DEFAULT_PORT = 8000
DEFAULT_PLAYERS = ["Player 1", "Player 2"]
SHOWN_GAMES = 5


def register(subparsers: Any) -> None:
    parser = add_command(subparsers, "serve", run)
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})")
    parser.add_argument("--db", type=Path, default=None, help="SQLite file (default: in the user data folder)")
    parser.add_argument(
        "--source",
        choices=("virtual", "manual", "camera", "demo"),
        default=None,
        help="dice source of new games (default: the camera when present, else the demo table)",
    )
    add_turn_argument(parser)


def lan_address() -> str:
    """The address other machines on the network reach this one at; 127.0.0.1 when there is none."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))  # UDP connect sends nothing; it only picks a route
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def public_url(host: str, port: int) -> str:
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    return f"http://{shown}:{port}"


def run(args: argparse.Namespace) -> int:
    """run the web dashboard

    Run the web dashboard for the table and the phones.
    """
    from dicekeeper.cli import CliError
    from web import create_app, default_database
    from web.db import DatabaseUnavailable, check_writable
    from web.dice_sources import choose_source
    from web.server import make_server
    from web.workers import start_workers, stop_workers

    turn = turn_of(args)
    if not 0 <= args.port < 65536:
        raise CliError(f"--port must be from 0 (any free port) to 65535, not {args.port}")
    database = args.db or Path(default_database())
    try:
        check_writable(database)
    except DatabaseUnavailable as exc:
        raise CliError(str(exc)) from None
    from web.camera_loop import camera_for_serve

    camera = camera_for_serve(args.source)  # a /dev/video* device, "demo" (the synthetic table) or None
    choice = choose_source("camera" if args.source == "demo" else args.source, camera=camera is not None)
    if choice.notice:
        print(choice.notice)
    try:
        app = create_app(
            {"DATABASE": str(database), "DICE_SOURCE": choice.source, "CAMERA_SOURCE": camera, "CAMERA_TURN": turn}
        )
    except Exception as exc:  # an unreadable or foreign database file
        raise CliError(f"cannot open the database {database}: {exc}") from None
    try:
        server = make_server(app, args.host, args.port)
    except OSError as exc:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    url = public_url(args.host, server.effective_port)  # --port 0 picks a free port
    app.config["PUBLIC_URL"] = url
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)

    links = game_links(app, url)
    print(f"dicekeeper is running with {choice.source} dice; database {database}")
    if camera == "demo":
        print("The camera is the demo table: synthetic dice thrown on a drawn table (--source virtual for none).")
    print(f"Open on a phone or laptop on this network: {url}/")
    for line in links:
        print(line)
    print("Press Ctrl+C to stop.", flush=True)
    broker = app.extensions["dicekeeper.live"]
    stopping = threading.Event()

    def stop(signum: int, frame: object) -> None:
        if stopping.is_set():
            return  # a second Ctrl+C while stopping must not cut the clean stop short
        stopping.set()
        broker.close()  # wakes every event stream and worker, so that waitress's threads can finish
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        start_workers(app)  # the camera loop and the computer players
        server.run()  # returns on Ctrl+C or SIGTERM: waitress catches the KeyboardInterrupt
    except KeyboardInterrupt:
        pass  # stopped before the server ran
    finally:
        stopping.set()
        print("dicekeeper: stopping", file=sys.stderr, flush=True)
        broker.close(wait=2.0)  # ends open event streams
        # Worker threads must end before the interpreter does: a thread still inside the reader's
        # native code at exit aborts the process.
        stop_workers(app)
        server.close()
    return 0


def game_links(app: Any, url: str) -> list[str]:
    """Links to every unfinished game; with none, a new game is started so there is one to open."""
    from scorekeeper import DEFAULT_PRESET, preset
    from web import db as database

    book = app.extensions["dicekeeper.games"]
    with app.app_context():
        conn = database.get_db()
        games = [g for g in book.summaries(conn) if not g["finished"]]
        if not games:
            book.create(conn, DEFAULT_PLAYERS, preset(DEFAULT_PRESET))
            games = [g for g in book.summaries(conn) if not g["finished"]]
        lines = []
        for summary in games[:SHOWN_GAMES]:
            token = book.record(conn, summary["id"]).token
            lines.append(f"Game {summary['id']} ({', '.join(summary['players'])}, {summary['rules']}):")
            lines.append(f"  table  {url}/games/{summary['id']}/table?token={token}")
            lines.append(f"  phone  {url}/games/{summary['id']}/play?token={token}")
    return lines

"""The dicekeeper web app: table view, phone view, history and the JSON API they use.

It owns the application (`create_app`), storage (SQLite with migrations, `web.db`), the one
path every action takes into a game (`web.games.GameBook`), live updates (`web.live`, sent
as server-sent events) and the workers that play for the camera and computer players. It
uses `scorekeeper` and `vision` and never imports the command line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from platformdirs import user_data_path

from web import db, guard
from web.dice_sources import Roller
from web.games import GameBook
from web.live import Broker


def default_database() -> Path:
    return user_data_path("dicekeeper") / "dicekeeper.sqlite3"


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(
        SECRET_KEY=os.environ.get("DICEKEEPER_SECRET_KEY") or os.urandom(24).hex(),
        DATABASE=str(default_database()),
        DICE_SOURCE="auto",  # virtual | manual | camera | auto (camera when present)
        DICE_SEED=None,  # a number replays the same virtual throws (tests)
        PUBLIC_URL=None,  # the address phones use, e.g. http://192.168.1.20:8000
        STREAM_KEEPALIVE=15.0,  # seconds between comments on an idle event stream
        STREAM_POLL=0.25,  # seconds between looks for changes made by other processes
        MAX_STREAMS=48,  # open event streams at once; more get 503 (each holds a server thread)
        CAMERA_FRAME_URL=None,  # where the table view finds the camera image (camera games)
        CAMERA_TURN=0,  # degrees clockwise (0, 90, 180, 270) that set a turned camera's picture upright
        COMPUTER_PLAYERS=None,  # True/False: * players play by themselves; None: yes, except when TESTING
        COMPUTER_PACE=0.8,  # seconds before each computer move, so people can follow it
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
        TRUSTED_ORIGINS=(),  # more addresses pages may post from, e.g. behind a proxy
    )
    if test_config is not None:
        app.config.from_mapping(test_config)

    db.init_app(app)
    guard.init_app(app)
    broker = Broker()
    app.extensions["dicekeeper.live"] = broker
    app.extensions["dicekeeper.games"] = GameBook(Roller(app.config["DICE_SEED"]), broker, app.config["DICE_SOURCE"])

    from web import api, camera, history, install, pages, rules_page

    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(rules_page.bp)
    app.register_blueprint(install.bp)
    app.register_blueprint(camera.bp)  # the camera's pages; its loop is a worker (web.workers)
    return app

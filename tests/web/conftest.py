"""Fixtures for the web tests: an app on a temporary database, its test client, and game helpers."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from web import create_app
from web.workers import start_workers, stop_workers

pytest.register_assert_rewrite("web_helpers")
from web_helpers import LiveServer, Table  # noqa: E402  (after the rewrite hook, for clear assertion messages)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def app(db_path: Path) -> Iterator[Flask]:
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "DICE_SEED": 1234, "DICE_SOURCE": "virtual"})
    yield app
    app.extensions["dicekeeper.live"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def new_table(client: FlaskClient):
    def make(players: list[str] | None = None, **create: Any) -> Table:
        return Table(client, players, **create)

    return make


@pytest.fixture
def live_server(app: Flask) -> Iterator[LiveServer]:
    server = LiveServer(app)
    yield server
    server.stop()
    assert app.extensions["dicekeeper.live"].open_streams == 0, "an event stream outlived the server"


@pytest.fixture
def workers() -> Iterator[Callable[[Flask], Flask]]:
    """Starts an app's background workers as `serve` does; stops them and its streams afterwards."""
    started: list[Flask] = []

    def start(app: Flask) -> Flask:
        start_workers(app)
        started.append(app)
        return app

    yield start
    for app in started:
        app.extensions["dicekeeper.live"].close()
        stop_workers(app)


# Browser tests: a real headless Chromium driven by selenium.
CHROMIUM = os.environ.get("DICEKEEPER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("DICEKEEPER_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"


def browser_problem() -> str | None:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(path)]
    if missing:
        return f"{' and '.join(missing)} not found"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed"
    return None


@pytest.fixture(scope="module")
def browser_ready() -> None:
    problem = browser_problem()
    if problem is None:
        return
    message = f"browser tests need Chromium and chromedriver: {problem} (apt-get install chromium chromium-driver)"
    if os.environ.get("DICEKEEPER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"DICEKEEPER_REQUIRE_BROWSER=1 but {message}")
    pytest.skip(f"SKIPPED browser tests: {message}")


@pytest.fixture
def open_window(browser_ready, tmp_path) -> Iterator:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    drivers = []

    def make(size: tuple[int, int]):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in (
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            f"--user-data-dir={tmp_path / f'profile-{len(drivers)}'}",
            f"--window-size={size[0]},{size[1]}",
        ):
            options.add_argument(flag)
        driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
        driver.set_window_size(*size)
        driver.set_page_load_timeout(30)
        drivers.append(driver)
        return driver

    yield make
    for driver in drivers:
        driver.quit()

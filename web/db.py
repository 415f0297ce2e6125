"""SQLite access: one connection per request on `g`, numbered migrations from `web/schema/`."""

from __future__ import annotations

import re
import sqlite3
import threading
from importlib import resources
from pathlib import Path

from flask import Flask, current_app, g

_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
_migrate_lock = threading.Lock()


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection in autocommit mode: callers open transactions themselves (`BEGIN IMMEDIATE`)."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


def get_db() -> sqlite3.Connection:
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    return g.db


def close_db(exc: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


def migrations() -> list[tuple[int, str]]:
    """(number, SQL) of every migration shipped in `web/schema/`, in order."""
    found = []
    for entry in resources.files("web").joinpath("schema").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.read_text(encoding="utf-8")))
    return sorted(found)


def migrate(path: str | Path) -> int:
    """Bring the database at `path` up to the newest schema; returns its schema version."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with _migrate_lock:
        conn = connect(path)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for number, sql in migrations():
                if number <= version:
                    continue
                conn.execute("BEGIN IMMEDIATE")
                try:
                    # executescript() would commit first; run the statements one by one instead.
                    for statement in _statements(sql):
                        conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {number:d}")
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                version = number
            return version
        finally:
            conn.close()


def _statements(sql: str) -> list[str]:
    statements, buffer = [], ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip() and not all(l.strip().startswith("--") for l in buffer.strip().splitlines()):
        raise ValueError(f"incomplete SQL statement in migration: {buffer.strip()[:60]!r}")
    return statements


def init_app(app: Flask) -> None:
    migrate(app.config["DATABASE"])
    app.teardown_appcontext(close_db)

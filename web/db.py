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


class DatabaseUnavailable(Exception):
    """The database cannot be written: read-only, locked by another program, or not a database."""


def check_writable(path: str | Path, timeout: float = 5.0) -> None:
    """Raise DatabaseUnavailable with one clear sentence unless `path` can be opened for writing."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            conn.execute(f"PRAGMA user_version = {version:d}")  # a real write, rolled back
            conn.execute("ROLLBACK")
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        text = str(exc).lower()
        if "readonly" in text or "read-only" in text:
            raise DatabaseUnavailable(
                f"the database {path} is read-only: dicekeeper must write to it; check the permissions of the "
                "file and its folder, or choose another file with --db"
            ) from None
        if "locked" in text or "busy" in text:
            raise DatabaseUnavailable(
                f"the database {path} is locked by another program (waited {timeout:g} s); close it, "
                "or choose another file with --db"
            ) from None
        raise DatabaseUnavailable(f"cannot open the database {path}: {exc}") from None
    except OSError as exc:
        raise DatabaseUnavailable(f"cannot open the database {path}: {exc.strerror or exc}") from None


def data_version(conn: sqlite3.Connection) -> int:
    """A number that changes whenever another connection, in any process, commits to the database."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


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
    if buffer.strip() and not all(line.strip().startswith("--") for line in buffer.strip().splitlines()):
        raise ValueError(f"incomplete SQL statement in migration: {buffer.strip()[:60]!r}")
    return statements


def init_app(app: Flask) -> None:
    migrate(app.config["DATABASE"])
    app.teardown_appcontext(close_db)

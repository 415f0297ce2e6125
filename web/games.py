"""The one place games are created, loaded and changed. The API, the pages and (later) the camera
loop all go through `GameBook.record_action`, so every change is checked, stored and announced alike.

The database is the truth: each action runs inside `BEGIN IMMEDIATE`, compares the version, folds
the action into the engine and appends the new events under UNIQUE(game_id, seq). Live `Game`
objects are cached per process and brought up to date from the event rows whenever they lag.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from scorekeeper import (
    DEFAULT_PRESET,
    Game,
    GameState,
    IllegalAction,
    Keep,
    RulesError,
    Ruleset,
    ScorekeeperError,
    compose_ruleset,
    event_from_dict,
    ruleset_from_dict,
)
from scorekeeper.game import check_players
from web.actions import ACTIONS, TABLE_ONLY, apply_action, roll_off_open, undo
from web.advice import advice_for
from web.dice_sources import SOURCES, Roller, choose_source
from web.inputs import InputError, name_problem, valid_game_id
from web.live import Broker

MAX_PLAYERS = 12
MAX_NAME_LENGTH = 40
CACHE_SIZE = 64
MAX_IMPORT_EVENTS = 20_000  # replayed once on import: about 0.4 s at this length


class GameNotFound(LookupError):
    pass


class NotYourTurn(Exception):
    """A seat acted on another player's turn: answered with 403."""


class StaleVersion(Exception):
    """The caller acted on a state that has since changed: answered with 409 and the current state."""

    def __init__(self, expected: int, state: dict[str, Any]) -> None:
        super().__init__(
            f"the game has moved on: you acted on version {expected}, it is now at version {state['version']}"
        )
        self.state = state


@dataclass(frozen=True)
class GameRecord:
    """A stored game's fixed part: everything except its events."""

    id: int
    created_at: str
    players: tuple[str, ...]
    rules: Ruleset
    source: str
    token: str


def is_computer(name: str) -> bool:
    """Names starting with `*` belong to computer players, which play by themselves (web.computer)."""
    return name.startswith("*")


def check_computers_can_play(names: tuple[str, ...], source: str) -> None:
    """Computer players throw the server's virtual dice, so a new game with real dice cannot have any."""
    computers = [name for name in names if is_computer(name)]
    if computers and source != "virtual":
        raise InputError(
            f"computer players ({', '.join(computers)}) need virtual dice, and this game would use {source} dice: "
            "choose virtual dice, or drop the * from the names"
        )


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def ruleset_from_request(name: object, settings: object, houses: object = ()) -> Ruleset:
    """The request's preset (the default one if none is named) with its house rules and "set" knobs."""
    if name is None:
        name = DEFAULT_PRESET
    if not isinstance(name, str):
        raise RulesError(f"rules must be a preset name, not {name!r}")
    if isinstance(houses, str):
        houses = [houses]
    if not isinstance(houses, (list, tuple)):
        raise RulesError("house must be a list of house-rule names")
    if settings is not None and not isinstance(settings, Mapping):
        raise RulesError('"set" must be an object of knob: value')
    return compose_ruleset(name, houses, settings)


def player_names(players: object) -> tuple[str, ...]:
    if isinstance(players, list) and len(players) > MAX_PLAYERS:
        raise InputError(f"at most {MAX_PLAYERS} players can play, not {len(players)}")
    names = check_players(players)
    for name in names:
        if len(name) > MAX_NAME_LENGTH:
            raise InputError(f"player name {name[:12]!r}... is longer than {MAX_NAME_LENGTH} characters")
        problem = name_problem(name)
        if problem:
            raise InputError(problem)
    return names


def check_version(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f'"version" must be a whole number >= 0, not {value!r}')
    return value


@dataclass
class _Live:
    """A game kept in memory, with the lock that serialises its use; no lock spans two games."""

    record: GameRecord
    game: Game
    lock: threading.Lock = field(default_factory=threading.Lock)


class GameBook:
    """All games of one database, with a per-process cache of their `Game` objects.

    `_cache_lock` guards only the cache's dictionary, for microseconds; the work on a game happens
    under that game's own lock, and advice is computed from an immutable GameState after it.
    """

    def __init__(self, roller: Roller, broker: Broker, default_source: str = "auto") -> None:
        self.roller = roller
        self.broker = broker
        self.default_source = default_source
        self._cache_lock = threading.Lock()
        self._rematch_lock = threading.Lock()
        self._cache: OrderedDict[int, _Live] = OrderedDict()

    # ---- reading ----------------------------------------------------------------------------
    def record(self, db: sqlite3.Connection, game_id: int) -> GameRecord:
        if not valid_game_id(game_id):
            raise GameNotFound(f"no game {game_id}")
        row = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFound(f"no game {game_id}")
        return GameRecord(
            id=row["id"],
            created_at=row["created_at"],
            players=tuple(json.loads(row["players"])),
            rules=ruleset_from_dict(json.loads(row["rules"])),
            source=row["source"],
            token=row["token"],
        )

    def _live(self, db: sqlite3.Connection, game_id: int) -> _Live:
        """The cached game (not yet caught up with the database), made when missing."""
        with self._cache_lock:
            live = self._cache.get(game_id)
            if live is not None:
                self._cache.move_to_end(game_id)
                return live
        record = self.record(db, game_id)
        return self._remember(game_id, _Live(record, Game(record.players, record.rules)))

    def _remember(self, game_id: int, live: _Live) -> _Live:
        """Caches `live` unless the game is cached already; returns the cached one."""
        with self._cache_lock:
            live = self._cache.setdefault(game_id, live)
            self._cache.move_to_end(game_id)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
            return live

    def _forget(self, game_id: int, live: _Live) -> None:
        with self._cache_lock:
            if self._cache.get(game_id) is live:
                del self._cache[game_id]

    @staticmethod
    def _catch_up(db: sqlite3.Connection, game_id: int, game: Game) -> None:
        """Fold in the events stored since the cached game was last used. Call with the game's lock."""
        rows = db.execute(
            "SELECT seq, event FROM events WHERE game_id = ? AND seq > ? ORDER BY seq", (game_id, game.version)
        ).fetchall()
        for row in rows:
            if row["seq"] != game.version + 1:
                raise RuntimeError(f"game {game_id}: event {game.version + 1} is missing from the log")
            game.apply(event_from_dict(json.loads(row["event"])))

    def _read(self, db: sqlite3.Connection, game_id: int, copy: bool) -> tuple[GameRecord, GameState, Game | None]:
        return self._caught_up(db, game_id, self._live(db, game_id), copy)

    def _caught_up(
        self, db: sqlite3.Connection, game_id: int, live: _Live, copy: bool
    ) -> tuple[GameRecord, GameState, Game | None]:
        with live.lock:
            db.execute("BEGIN")  # one snapshot of the events
            try:
                self._catch_up(db, game_id, live.game)
            except BaseException:
                self._forget(game_id, live)
                raise
            finally:
                db.execute("COMMIT")
            return live.record, live.game.state, live.game.copy() if copy else None

    def load(self, db: sqlite3.Connection, game_id: int) -> tuple[GameRecord, Game]:
        """The record and a private copy of the game, as stored now."""
        record, _, game = self._read(db, game_id, copy=True)
        assert game is not None
        return record, game

    def snapshot(self, db: sqlite3.Connection, game_id: int) -> tuple[GameRecord, GameState]:
        """The record and the game's state as stored now, without copying the game."""
        record, state, _ = self._read(db, game_id, copy=False)
        return record, state

    def names(self, db: sqlite3.Connection, game_id: int) -> tuple[str, ...]:
        """The players' names as they are now, one per seat (renames and players who joined
        included; players who left keep their seat)."""
        _, state = self.snapshot(db, game_id)
        return tuple(p.name for p in state.players)

    def state(self, db: sqlite3.Connection, game_id: int) -> dict[str, Any]:
        record, state = self.snapshot(db, game_id)
        return self.state_dict(record, state)

    @staticmethod
    def state_dict(record: GameRecord, state: GameState) -> dict[str, Any]:
        data = state.to_dict()
        players = data["players"]
        assert isinstance(players, list)
        for player in players:
            player["computer"] = is_computer(player["name"])
        keeps = data["keeps"]
        assert isinstance(keeps, list)
        for keep, listed in zip(state.keeps, keeps):
            listed["can_bank"] = can_bank_with(state, keep)
        return {
            "id": record.id,
            "source": record.source,
            "created_at": record.created_at,
            **data,
            "starts": state.rules.starts,
            "roll_off_open": roll_off_open(state),
            "advice": advice_for(state),
        }

    def events(self, db: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
        self.record(db, game_id)
        rows = db.execute(
            "SELECT seq, event, created_at FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
        return [{"seq": r["seq"], "at": r["created_at"], **json.loads(r["event"])} for r in rows]

    def summaries(self, db: sqlite3.Connection) -> list[dict[str, Any]]:
        """Every game, newest first, with its outcome so far."""
        rows = db.execute("SELECT id, abandoned_at FROM games ORDER BY id DESC").fetchall()
        out = []
        for row in rows:
            state = self.state(db, row["id"])
            out.append(
                {
                    "id": row["id"],
                    "created_at": state["created_at"],
                    "source": state["source"],
                    "players": [p["name"] for p in state["players"]],
                    "rules": state["rules"],
                    "version": state["version"],
                    "finished": state["finished"],
                    "winner": state["winner"],
                    "scores": [p["score"] for p in state["players"]],
                    "abandoned_at": row["abandoned_at"],
                }
            )
        return out

    def abandon(self, db: sqlite3.Connection, game_id: int, abandoned: bool = True) -> None:
        """Set an unfinished game aside (or, with `abandoned` False, take it up again)."""
        record, state = self.snapshot(db, game_id)
        if abandoned and state.finished:
            raise InputError(f"game {game_id} is finished: only a game still being played can be abandoned")
        with _transaction(db):
            db.execute("UPDATE games SET abandoned_at = ? WHERE id = ?", (utc_now() if abandoned else None, record.id))
        self.broker.publish(game_id)

    def delete(self, db: sqlite3.Connection, game_id: int) -> None:
        """Remove a game with its events and seats, for good."""
        self.record(db, game_id)
        with _transaction(db):
            db.execute("DELETE FROM games WHERE id = ?", (game_id,))  # events and seats go with it (ON DELETE CASCADE)
        with self._cache_lock:
            self._cache.pop(game_id, None)
        self.broker.publish(game_id)

    # ---- writing ----------------------------------------------------------------------------
    def create(
        self,
        db: sqlite3.Connection,
        players: object,
        rules: Ruleset,
        source: str | None = None,
        events: list[object] | None = None,
    ) -> tuple[GameRecord, Game, str | None]:
        """Store a new game (optionally with the events of an imported one). Returns the notice of
        a dice source that could not be used, if any."""
        names = player_names(players)
        try:
            choice = choose_source(source if source is not None else self.default_source)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        if events is None:  # an imported game keeps its players, whatever its dice
            check_computers_can_play(names, choice.source)
        game = Game(names, rules, [event_from_dict(e) for e in (events or [])])
        token = secrets.token_urlsafe(18)
        now = utc_now()
        db.execute("BEGIN IMMEDIATE")
        try:
            cursor = db.execute(
                "INSERT INTO games (created_at, players, rules, source, token) VALUES (?, ?, ?, ?, ?)",
                (now, json.dumps(list(names)), json.dumps(rules.to_dict()), choice.source, token),
            )
            game_id = int(cursor.lastrowid or 0)
            db.executemany(
                "INSERT INTO events (game_id, seq, event, created_at) VALUES (?, ?, ?, ?)",
                [(game_id, seq, json.dumps(e.to_dict()), now) for seq, e in enumerate(game.events, start=1)],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        record = GameRecord(game_id, now, names, rules, choice.source, token)
        # An imported game was replayed above; cached, its first action does not replay it again.
        self._remember(game_id, _Live(record, game.copy()))
        self.broker.publish(game_id)
        return record, game, choice.notice

    def rematch(self, db: sqlite3.Connection, game_id: int) -> tuple[GameRecord, str | None]:
        """A new game of the same players (those still playing) and rules, on the same dice; the
        player who started goes last, so the start moves round the table. A game has one rematch:
        asking again answers the one already started."""
        with self._rematch_lock:
            started = self.rematch_of(db, game_id)
            if started is not None:
                return started, None
            record, state = self.snapshot(db, game_id)
            names = [player.name for player in state.players if player.playing]
            fresh, _, notice = self.create(db, names[1:] + names[:1], record.rules, record.source)
            with _transaction(db):
                db.execute("UPDATE games SET rematch_id = ? WHERE id = ?", (fresh.id, record.id))
            return fresh, notice

    def rematch_of(self, db: sqlite3.Connection, game_id: int) -> GameRecord | None:
        """The rematch started from this game, if there is one."""
        self.record(db, game_id)
        row = db.execute("SELECT rematch_id FROM games WHERE id = ?", (game_id,)).fetchone()
        return self.record(db, row["rematch_id"]) if row["rematch_id"] is not None else None

    def record_action(
        self,
        db: sqlite3.Connection,
        game_id: int,
        action: str,
        payload: Mapping[str, object],
        expected_version: object = None,
        seat: int | None = None,
    ) -> dict[str, Any]:
        """Check and store one action; returns the new state as the API serves it.

        Raises InputError (malformed), a ScorekeeperError (DiceError/RulesError: malformed dice;
        IllegalAction: the rules say no), GameNotFound, StaleVersion or, when `seat` (a player's
        index) acts off its turn, NotYourTurn; none of them stores anything.
        """
        if action not in ACTIONS:
            raise InputError(f"unknown action {action!r}; known: {', '.join(ACTIONS)}")
        if not isinstance(payload, Mapping):
            raise InputError("the request body must be a JSON object")
        unknown = sorted(set(payload) - ACTIONS[action] - {"version"})
        if unknown:
            raise InputError(f"unknown field {unknown[0]!r} for {action}")
        expected = check_version(expected_version)

        # Caught up before the write lock, so a game that is not cached is not replayed while other
        # games wait on the database.
        live = self._live(db, game_id)
        self._caught_up(db, game_id, live, copy=False)
        db.execute("BEGIN IMMEDIATE")
        try:
            with live.lock:
                game = live.game
                try:
                    self._catch_up(db, game_id, game)
                except BaseException:
                    self._forget(game_id, live)
                    raise
                stale = expected is not None and expected != game.version
                state = game.state
                if not stale:
                    if seat is not None:
                        check_seat(live.record, game, seat, action)
                    before = game.version
                    try:
                        apply_action(game, live.record.source, self.roller, action, payload)
                        now = utc_now()
                        db.executemany(
                            "INSERT INTO events (game_id, seq, event, created_at) VALUES (?, ?, ?, ?)",
                            [
                                (game_id, seq, json.dumps(e.to_dict()), now)
                                for seq, e in enumerate(game.events_since(before), start=before + 1)
                            ],
                        )
                        db.execute("COMMIT")
                    except BaseException:
                        if game.version != before:
                            # The engine holds events that were never stored: rebuild from the log next time.
                            self._forget(game_id, live)
                        raise
                    state = game.state
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        if stale and expected is not None:
            raise StaleVersion(expected, self.state_dict(live.record, state))
        self.broker.publish(game_id)
        return self.state_dict(live.record, state)


def can_bank_with(state: GameState, keep: Keep) -> bool:
    """Whether Bank is allowed right after setting `keep` aside from the throw on the table."""
    rules = state.rules
    if state.throw is not None and len(keep.dice) == len(state.throw) and rules.hot_dice == "must-roll":
        return False
    player = state.players[state.current]
    return player.on_board or state.turn_total + keep.points >= rules.entry


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def check_seat(record: GameRecord, game: Game, seat: int, action: str) -> None:
    """Raise NotYourTurn unless `seat` is to act and the action stays within its turn (for undo:
    the seat is still to act after it)."""
    names = [p.name for p in game.state.players]
    if action in TABLE_ONLY:
        raise NotYourTurn(f"only the table can {action.replace('-', ' ')}, not {names[seat]}'s seat")
    current = game.state.current
    farkle = game.state.last_farkle
    if action == "correct" and farkle is not None and farkle[0] == seat and farkle[1]:
        return  # the farkle just thrown by this seat may be corrected, though the turn has passed on
    if current != seat:
        raise NotYourTurn(f"this phone is {names[seat]}'s seat, and it is {names[current]}'s turn")
    if action == "undo" and game.version:
        trial = game.copy()
        try:
            undo(trial)
        except IllegalAction:
            return  # the game refuses it anyway, with its own reason
        if trial.state.current != seat:
            raise NotYourTurn(f"undo would take back {names[trial.state.current]}'s turn: only the table can do that")


def import_payload(data: object) -> tuple[object, Ruleset, list[object], str | None]:
    """Players, rules, events and source of an exported game, each checked; raises InputError/DiceError."""
    if not isinstance(data, Mapping):
        raise InputError("an exported game must be a JSON object")
    rules_data = data.get("rules")
    if not isinstance(rules_data, Mapping):
        raise InputError('an exported game needs "rules" as an object')
    rules = ruleset_from_dict(rules_data)
    events = data.get("events", [])
    if not isinstance(events, list):
        raise InputError('"events" must be a list')
    if len(events) > MAX_IMPORT_EVENTS:
        raise InputError(f"an imported game may have at most {MAX_IMPORT_EVENTS} events, not {len(events)}")
    source = data.get("source")
    if source is not None and source not in SOURCES:
        raise InputError(f"unknown dice source {source!r}")
    # An imported game keeps its recorded dice; a camera game becomes manual on a machine without one.
    if source == "camera":
        source = "manual"
    return data.get("players"), rules, events, source


def replay_problem(players: tuple[str, ...], rules: Ruleset, events: list[object]) -> str | None:
    """Why an imported game's events do not replay, naming the first one refused; None when they do."""
    game = Game(players, rules)
    for number, data in enumerate(events, start=1):
        kind = data.get("type") if isinstance(data, Mapping) else None
        label = f"event {number} of {len(events)}" + (f" ({kind[:20]})" if isinstance(kind, str) else "")
        try:
            game.apply(event_from_dict(data))
        except ScorekeeperError as exc:
            return f"{label} is refused: {exc}"
    return None

"""Settled throws into the game that uses the camera.

A settled throw is recorded through `GameBook.record_action` (like every other change) only when it
fits: the game waits for a throw of exactly that many dice and every die was read with confidence.
Otherwise it becomes a pending `Proposal` that the phone shows, to confirm or correct. A throw the
player confirmed is handed to `on_confirmed` with its die crops (the table's memory learns from it).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorekeeper import ScorekeeperError
from vision.live.settle import SettledThrow
from vision.types import DieBox
from web.games import GameBook, InputError, StaleVersion
from web.live import Broker

log = logging.getLogger(__name__)


class ProposalGone(LookupError):
    """The proposal to confirm is no longer pending (confirmed, replaced or dismissed meanwhile)."""


@dataclass(frozen=True)
class Proposal:
    """A settled throw that did not fit the game: the phone asks the player to confirm or correct it."""

    id: int
    game_id: int
    turn: int  # the game's turn number when it was seen; a later turn drops it
    faces: tuple[int, ...]
    confidences: tuple[float, ...]
    expected: int  # dice the game waits for (0 when it does not wait for a throw)
    reason: str
    t: float
    doubtful: tuple[int, ...] = ()  # indexes in `faces` of the dice whose reading stayed split
    crops: np.ndarray | None = field(default=None, compare=False, repr=False)  # (N, 32, 32, 3), as `faces`
    picture: np.ndarray | None = field(default=None, compare=False, repr=False)  # the frame it was read from
    set_aside: tuple[int, ...] = ()  # faces of the dice set aside in that frame
    boxes: tuple[DieBox, ...] = field(default=(), compare=False, repr=False)  # where each die lay, as `faces`

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game_id,
            "faces": list(self.faces),
            "confidences": [round(c, 3) for c in self.confidences],
            "expected": self.expected,
            "reason": self.reason,
            "doubtful": list(self.doubtful),
        }


# The proposal and the faces the player confirmed: the camera's dice in order (None: no die), then
# any the camera missed.
Confirmed = Callable[[Proposal, list[int | None]], None]


class ThrowRecorder:
    """Records settled throws or keeps them as proposals. Its lock guards the proposals and counters;
    it is held across `record_action` in `confirm` so that one proposal is never recorded twice."""

    def __init__(
        self, book: GameBook, broker: Broker, doubtful_below: float = 0.6, on_confirmed: Confirmed | None = None
    ) -> None:
        self.book = book
        self.broker = broker
        self.doubtful_below = doubtful_below
        self.on_confirmed = on_confirmed
        self._lock = threading.Lock()
        self._pending: dict[int, Proposal] = {}
        self._proposal_ids = 0
        self.recorded = 0
        self.last_throw: dict[str, Any] | None = None
        self.settled: deque[tuple[SettledThrow, str]] = deque(maxlen=500)  # recent settled throws and their fate

    def camera_game(self, conn: Any) -> int | None:
        """The newest unfinished game that reads its dice from the camera."""
        for row in conn.execute("SELECT id FROM games WHERE source = 'camera' ORDER BY id DESC LIMIT 5"):
            if not self.book.state(conn, row["id"])["finished"]:
                return int(row["id"])
        return None

    def waiting(self, game_id: int) -> bool:
        with self._lock:
            return game_id in self._pending

    def on_settled(
        self, conn: Any, throw: SettledThrow, crops: np.ndarray | None = None, picture: np.ndarray | None = None
    ) -> None:
        """Records `throw` in the camera game, or keeps it for the phone. `crops`: the in-play dice's
        pictures, as `throw.dice`; `picture`: the frame they were read from."""
        game_id = self.camera_game(conn)
        faces = throw.faces
        summary = {
            "dice": list(faces),
            "confidence": round(throw.confidence, 3),
            "t": round(throw.rest_t, 3),
            "set_aside": [d.value for d in throw.set_aside],
            "game": game_id,
            "doubtful": list(throw.doubtful_dice),
        }
        if game_id is None:
            self._note(throw, summary, "no camera game")
            return
        state = self.book.state(conn, game_id)
        problem = self._misfit(throw, state)
        if problem is None:
            try:
                self.book.record_action(conn, game_id, "throw", {"dice": list(faces)}, state["version"])
            except StaleVersion:
                problem = "the game changed while the dice settled"
            except (ScorekeeperError, InputError) as exc:
                problem = str(exc)
            else:
                with self._lock:
                    self._pending.pop(game_id, None)
                    self.recorded += 1
                self._note(throw, summary, "recorded")
                return
        expected = state["dice_left"] if state["phase"] == "throw" else 0
        with self._lock:
            self._proposal_ids += 1
            self._pending[game_id] = Proposal(
                self._proposal_ids,
                game_id,
                state["turn_number"],
                faces,
                tuple(d.confidence for d in throw.dice),
                expected,
                problem,
                throw.rest_t,
                throw.doubtful_dice,
                crops,
                picture,
                tuple(d.value for d in throw.set_aside),
                tuple(d.box for d in throw.dice),
            )
        self._note(throw, summary, f"to confirm: {problem}")
        self.broker.publish(game_id)  # wakes the phone, which then fetches the proposal

    def _misfit(self, throw: SettledThrow, state: dict[str, Any]) -> str | None:
        """Why the throw cannot be recorded as seen, or None when it fits."""
        if state["phase"] != "throw":
            return (
                "the game is not waiting for a throw"
                if state["phase"] == "over"
                else "the game waits for dice to be set aside before the next throw"
            )
        if len(throw.faces) != state["dice_left"]:
            return f"the camera sees {len(throw.faces)} dice thrown, but {state['dice_left']} are in play"
        split = [throw.faces[i] for i in throw.doubtful_dice]
        if split:
            return (
                f"{'a die' if len(split) == 1 else 'some dice'} looked different from frame to frame "
                f"(read as {' '.join(map(str, split))})"
            )
        if throw.doubtful:
            return "the dice were hard to read while they lay still"
        doubtful = [d.value for d in throw.dice if d.confidence < self.doubtful_below]
        if doubtful:
            return (
                f"unsure about {'a die' if len(doubtful) == 1 else 'some dice'} read as {' '.join(map(str, doubtful))}"
            )
        return None

    def _note(self, throw: SettledThrow, summary: dict[str, Any], outcome: str) -> None:
        with self._lock:
            self.last_throw = {**summary, "outcome": outcome}
            self.settled.append((throw, outcome))

    def pending(self, conn: Any, game_id: int) -> Proposal | None:
        """The proposal waiting for the player, if any and still about the current turn."""
        with self._lock:
            proposal = self._pending.get(game_id)
        if proposal is None:
            return None
        state = self.book.state(conn, game_id)
        if state["turn_number"] != proposal.turn or state["finished"]:
            with self._lock:
                if self._pending.get(game_id) is proposal:
                    del self._pending[game_id]
            return None
        return proposal

    def confirm(
        self, conn: Any, game_id: int, proposal_id: int, faces: list[object], version: int | None
    ) -> dict[str, Any]:
        """Records the throw the player confirmed (or corrected). `faces`: the camera's dice in the
        proposal's order, None for one the player says is no die, then any dice the camera missed.
        Raises ProposalGone, InputError for a None that is not one of the camera's dice, or whatever
        `record_action` raises for faces or a version that do not fit."""
        with self._lock:
            proposal = self._pending.get(game_id)
            if proposal is None or proposal.id != proposal_id:
                raise ProposalGone("nothing to confirm: the camera's proposal was already handled")
            if any(face is None for face in faces[len(proposal.faces) :]):
                raise InputError("only a die the camera saw can be marked as no die")
            dice = [face for face in faces if face is not None]
            state = self.book.record_action(conn, game_id, "throw", {"dice": dice}, version)
            del self._pending[game_id]
            self.recorded += 1
        if self.on_confirmed is not None:
            try:
                self.on_confirmed(proposal, [f if isinstance(f, int) else None for f in faces])
            except Exception:  # learning must never undo a recorded throw
                log.exception("cannot keep the confirmed throw for learning")
        return state

    def dismiss(self, game_id: int, proposal_id: int) -> None:
        with self._lock:
            proposal = self._pending.get(game_id)
            if proposal is None or proposal.id != proposal_id:
                raise ProposalGone("nothing to dismiss: the camera's proposal was already handled")
            del self._pending[game_id]
        self.broker.publish(game_id)

    def counts(self) -> tuple[int, dict[str, Any] | None]:
        with self._lock:
            return self.recorded, self.last_throw

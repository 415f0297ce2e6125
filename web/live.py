"""Change notices for open pages: every recorded action bumps a tick that Server-Sent Event streams wait on."""

from __future__ import annotations

import threading

ALL_GAMES = 0  # the channel that ticks on a change to any game (game ids start at 1)


class Broker:
    """Per-game change counters guarded by one condition; waiting streams wake on publish or close."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._ticks: dict[int, int] = {}
        self._clock = 0
        self._closed = False
        self._streams = 0

    @property
    def closed(self) -> bool:
        return self._closed

    def tick(self, game_id: int) -> int:
        with self._changed:
            return self._ticks.get(game_id, 0)

    def publish(self, game_id: int) -> None:
        with self._changed:
            self._clock += 1
            self._ticks[game_id] = self._clock
            self._ticks[ALL_GAMES] = self._clock
            self._changed.notify_all()

    def wait(self, game_id: int, seen: int, timeout: float) -> bool:
        """Block until the channel moves past `seen`, the broker closes, or `timeout` passes.

        Returns True when there is something new to send.
        """
        with self._changed:
            self._changed.wait_for(lambda: self._closed or self._ticks.get(game_id, 0) != seen, timeout=timeout)
            return not self._closed and self._ticks.get(game_id, 0) != seen

    def stream_opened(self, limit: int | None = None) -> bool:
        """Counts a new stream; False (and not counted) when `limit` streams are open already."""
        with self._changed:
            if limit is not None and self._streams >= limit:
                return False
            self._streams += 1
            return True

    def stream_ended(self) -> None:
        with self._changed:
            self._streams -= 1
            self._changed.notify_all()

    @property
    def open_streams(self) -> int:
        with self._changed:
            return self._streams

    def close(self, wait: float = 0.0) -> None:
        """Ends every stream (called when the server shuts down), waiting up to `wait` seconds for
        them to finish so that clients see a clean end rather than a cut connection."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._streams == 0, timeout=wait)

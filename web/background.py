"""A worker that runs in its own daemon thread until asked to stop or until its broker closes."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import Self

from web.live import Broker


class BackgroundWorker(ABC):
    """`start()` runs `_run` in a daemon thread called `thread_name`; `_run` goes on while `_stopping()` is false."""

    def __init__(self, thread_name: str, broker: Broker) -> None:
        self.thread_name = thread_name
        self.broker = broker
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _stopping(self) -> bool:
        """Asked to stop, or the server is shutting down (its broker closed)."""
        if self.broker.closed:
            self._stop.set()
        return self._stop.is_set()

    @abstractmethod
    def _run(self) -> None: ...

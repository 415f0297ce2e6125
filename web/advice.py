"""The strategy's advice as the pages show it: served inside every game state under "advice".

A lookup is a few tens of microseconds once the strategy tables of a ruleset exist, but building
them takes a good part of a second. The situation the first state asks for is built on the spot;
the other situations of the same ruleset (not yet on the board, one farkle from the penalty) are
built in a background thread, so later turns do not wait for them.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from scorekeeper import GameState, Ruleset
from scorekeeper.strategy import advise, situations, table

log = logging.getLogger(__name__)

_warmed: set[Ruleset] = set()
_warm_lock = threading.Lock()
# At most this many rulesets are warmed at once; past that, tables are built when first asked for,
# so a flood of games with new rules cannot start a flood of threads.
WARM_THREADS = 2
_warm_slots = threading.BoundedSemaphore(WARM_THREADS)


def advice_for(state: GameState) -> dict[str, Any] | None:
    """`advise(state).to_dict()`, or None when the game is over or the strategy cannot rate these rules."""
    if state.finished:
        return None
    try:
        advice = advise(state).to_dict()
    except Exception:  # advice is a help, never a reason to fail a request
        log.exception("no advice for %s rules", state.rules.name)
        return None
    warm(state.rules)
    return advice


def warm(rules: Ruleset) -> threading.Thread | None:
    """Build the tables of every situation of `rules` in the background, once per process."""
    with _warm_lock:
        if rules in _warmed:
            return None
        if not _warm_slots.acquire(blocking=False):
            return None  # not marked warmed: a later state of these rules tries again
        _warmed.add(rules)
    thread = threading.Thread(target=_build, args=(rules,), name="advice tables", daemon=True)
    thread.start()
    return thread


def _build(rules: Ruleset) -> None:
    try:
        for situation in situations(rules):
            try:
                table(rules, situation, 0)
            except Exception:
                log.exception("cannot build the strategy table of %s rules for %r", rules.name, situation)
                return
    finally:
        _warm_slots.release()

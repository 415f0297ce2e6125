"""Whole numbers from text: ASCII digits only, of bounded length.

`str.isdigit` accepts characters such as "²" that `int` rejects, and `int` on thousands of digits
costs time or raises; both ended requests in errors, so numbers from clients come through here.
"""

from __future__ import annotations

MAX_DIGITS = 12
"""More than any knob, version or id needs, and far below int()'s digit limit."""

_ASCII_DIGITS = frozenset("0123456789")


def parse_whole(text: str, max_digits: int = MAX_DIGITS, separators: str = "") -> int | None:
    """The number `text` spells in ASCII digits (surrounding spaces and `separators` ignored), or None."""
    if len(text) > 2 * max_digits + 8:  # checked before any copying work on a long string
        return None
    digits = text.strip()
    for separator in separators:
        digits = digits.replace(separator, "")
    if not digits or len(digits) > max_digits or not _ASCII_DIGITS.issuperset(digits):
        return None
    return int(digits)


def short(value: object, limit: int = 40) -> str:
    """`repr(value)` cut to `limit` characters, for echoing a client's input in an error message."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + "..."
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**limit:
        return "a number of over 40 digits"
    shown = repr(value)
    return shown if len(shown) <= limit else shown[:limit] + "..."

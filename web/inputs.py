"""Checks on what clients send, before anything is parsed in earnest: JSON size and depth, numbers, ids, names.

Each failure raises `InputError`, which every route answers with a 4xx.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from scorekeeper.numbers import parse_whole, short

MAX_JSON_DEPTH = 16  # an exported game nests 4 deep
MAX_JSON_DIGITS = 15  # per number in a JSON body; ids, versions and knobs need far fewer
MAX_GAME_ID = 2**63 - 1  # SQLite's largest INTEGER

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_INNERMOST = re.compile(rb"\[[^\[\]{}]*\]|\{[^\[\]{}]*\}")
_BRACKETS = re.compile(rb"[\[\]{}]")
# Unicode categories a name may not contain: controls (NUL, newlines, escapes) and format
# characters, which include the bidi overrides and isolates that make text display reversed.
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_JOINERS = frozenset("\u200c\u200d")  # format characters that emoji and some scripts need


class InputError(ValueError):
    """A request that is malformed before the rules are even asked: answered with 400."""


def too_deep(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON text nests arrays and objects more than `limit` deep (strings ignored).

    Peels the innermost brackets off `limit` times with regular expressions, so it runs in C
    rather than stepping through a body of megabytes one character at a time in Python.
    """
    rest = _STRING.sub(b"", raw)
    for _ in range(limit):
        if not _BRACKETS.search(rest):
            return False
        rest = _INNERMOST.sub(b"", rest)
    return _BRACKETS.search(rest) is not None


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_DIGITS:
        raise InputError(f"numbers may have at most {MAX_JSON_DIGITS} digits, not {len(text)}")
    return int(text)


def _no_constant(name: str) -> Any:
    raise InputError(f"{name} is not a number JSON allows")


def load_json(raw: bytes) -> Any:
    """`json.loads` that refuses deep nesting, long numbers, NaN and Infinity with InputError."""
    if too_deep(raw):
        raise InputError(f"the JSON nests more than {MAX_JSON_DEPTH} levels deep")
    try:
        return json.loads(raw, parse_int=_bounded_int, parse_constant=_no_constant)
    except InputError:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InputError("the request body is not valid JSON") from None


def whole_number(text: str, what: str, max_digits: int = 12) -> int:
    """A whole number written in ASCII digits, else InputError naming `what`."""
    number = parse_whole(text, max_digits)
    if number is None:
        raise InputError(f"{what} must be a whole number of at most {max_digits} digits, not {short(text)}")
    return number


def valid_game_id(game_id: int) -> bool:
    return 0 < game_id <= MAX_GAME_ID


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a player's name (a control or bidi character), or None when it can."""
    for char in name:
        if unicodedata.category(char) in _FORBIDDEN_CATEGORIES and char not in _JOINERS:
            return f"player name {short(name)} contains the control character U+{ord(char):04X}"
    return None

"""How the photo benchmarks print an `Evaluation`'s figures."""

from __future__ import annotations

import json
from collections.abc import Mapping


def in_percent(summary: Mapping[str, float | int]) -> dict[str, float]:
    """Per-die accuracy, precision and exact throws of `Evaluation.summary()`, in % to 2 places."""
    return {
        "per_die": round(100 * summary["accuracy"], 2),
        "precision": round(100 * summary["precision"], 2),
        "exact_throws": round(100 * summary["exact_throws"], 2),
    }


def print_result(result: Mapping[str, object], as_json: bool, width: int) -> None:
    """One JSON line, or a `key value` line for each entry with keys padded to `width`."""
    if as_json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:<{width}} {value}")

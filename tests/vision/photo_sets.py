"""Where the tests find the labelled photo sets: beside the checkout, at ../shared/datasets/NAME,
or under $DICEKEEPER_DATA, which may name one set or the folder that holds the sets."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BESIDE = REPO.parent / "shared" / "datasets"


def photo_set(name: str, split: str = "val") -> Path | None:
    """The folder of the set `name` that has `split`/images, or None when it is nowhere to be found."""
    given = os.environ.get("DICEKEEPER_DATA")
    candidates = [Path(given), Path(given) / name] if given else []
    for candidate in (*candidates, BESIDE / name):
        if candidate.name == name and (candidate / split / "images").is_dir():
            return candidate
    return None

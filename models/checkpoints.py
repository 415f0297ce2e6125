"""A training's checkpoints: written whole or not at all, and gone on from only by a training
of the same settings (its recipe: the options that shape it, as text)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch


def recipe(args: argparse.Namespace, names: Sequence[str]) -> dict[str, str]:
    return {name: str(getattr(args, name)) for name in names}


def save(path: Path, state: dict[str, Any]) -> None:
    """Write `state` to `path` so that a run killed while saving keeps its last good checkpoint."""
    partial = path.with_name(path.name + ".partial")
    torch.save(state, partial)
    partial.replace(path)


def load(path: Path, wanted: dict[str, str]) -> dict[str, Any]:
    """The state saved at `path`; SystemExit, leaving the file alone, when it is no checkpoint or
    one of a training whose recipe differs from `wanted`."""
    try:
        state: dict[str, Any] = torch.load(path, weights_only=True)
        saved = state["recipe"]
    except Exception as error:  # torch raises many kinds for a file that is not its checkpoint
        raise SystemExit(
            f"{path} is not a checkpoint of this script ({type(error).__name__}): "
            "remove it or name another --checkpoint"
        ) from error
    if saved != wanted:
        # A setting the script no longer has (or did not have yet) differs too.
        differ = sorted(name for name in saved.keys() | wanted.keys() if saved.get(name) != wanted.get(name))
        raise SystemExit(
            f"{path} was saved by a training with other settings ({', '.join(differ)}): "
            "remove it or name another --checkpoint"
        )
    return state

"""Where the shipped ONNX models live and how a session is opened, for every model."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any


class ModelError(Exception):
    """The model file is missing, unreadable or not the network this code expects."""


def default_model_path(name: str = "die_face.onnx") -> Path:
    """A shipped model: inside the installed package, else `models/` of a source checkout."""
    installed = resources.files("vision").joinpath("models", name)
    if installed.is_file():
        return Path(str(installed))
    return Path(__file__).resolve().parents[2] / "models" / name


def open_session(path: Path, threads: int, what: str, fixed: Mapping[str, int] | None = None) -> Any:
    """An onnxruntime CPU session for `path`, or `ModelError` saying what is wrong.

    `fixed` gives named dimensions of the inputs (such as a height) a size, for a session that
    only ever sees inputs of that shape; onnxruntime then plans such a session's work ahead."""
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ModelError(f"onnxruntime is not installed: {exc}") from None
    if not path.is_file():
        raise ModelError(f"{what} model not found: {path}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 4  # our own message says what went wrong
    for name, size in (fixed or {}).items():
        options.add_free_dimension_override_by_name(name, size)
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises several unrelated types for a bad file
        raise ModelError(f"cannot load {what} model {path}: {str(exc).splitlines()[0]}") from None

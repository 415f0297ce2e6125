"""Where the shipped ONNX models live and how a session is opened, for every model."""

from __future__ import annotations

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


def open_session(path: Path, threads: int, what: str) -> Any:
    """An onnxruntime CPU session for `path`, or `ModelError` saying what is wrong."""
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
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises several unrelated types for a bad file
        raise ModelError(f"cannot load {what} model {path}: {str(exc).splitlines()[0]}") from None

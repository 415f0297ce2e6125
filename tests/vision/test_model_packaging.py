"""`pip install .` (not editable) must ship the die-face model inside the `vision` package."""

import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def setuptools_version() -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in metadata.version("setuptools").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return (0,)


@pytest.mark.slow
@pytest.mark.skipif(setuptools_version() < (77,), reason="building offline needs setuptools>=77 in this environment")
def test_wheel_ships_the_model(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("scorekeeper", "vision", "web", "dicekeeper"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    (source / "models").mkdir()
    shutil.copy(ROOT / "models" / "die_face.onnx", source / "models")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("dicekeeper-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = archive.read("vision/models/die_face.onnx")
    assert shipped == (ROOT / "models" / "die_face.onnx").read_bytes()

"""The design card's layering: the rules engine is pure, the reader knows nothing of games."""

import json
import subprocess
import sys

import pytest


def modules_after_import(package: str) -> set[str]:
    code = f"import json, sys; import {package}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return {name.split(".")[0] for name in json.loads(out)}


def test_scorekeeper_imports_no_io_or_other_package():
    loaded = modules_after_import("scorekeeper")
    for name in ("vision", "web", "dicekeeper", "cv2", "numpy", "flask", "sqlite3", "onnxruntime"):
        assert name not in loaded


@pytest.mark.parametrize("module", ["vision.read.reader", "vision.live.sources", "vision.live.settle", "vision.live.demo_table"])
def test_vision_knows_nothing_of_games_or_the_web(module):
    try:
        loaded = modules_after_import(module)
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"{module} does not import: {exc.stderr.strip().splitlines()[-1]}")
    for name in ("scorekeeper", "web", "flask", "dicekeeper"):
        assert name not in loaded

"""The design card's layering: the rules engine is pure, the reader knows nothing of games."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest


def modules_after_import(package: str) -> set[str]:
    code = f"import json, sys; import {package}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return {name.split(".")[0] for name in json.loads(out)}


def test_scorekeeper_imports_no_io_or_other_package():
    loaded = modules_after_import("scorekeeper")
    for name in ("vision", "web", "dicekeeper", "cv2", "numpy", "flask", "sqlite3", "onnxruntime"):
        assert name not in loaded


@pytest.mark.parametrize(
    "module", ["vision.read.reader", "vision.live.sources", "vision.live.settle", "vision.live.demo_table"]
)
def test_vision_knows_nothing_of_games_or_the_web(module):
    try:
        loaded = modules_after_import(module)
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"{module} does not import: {exc.stderr.strip().splitlines()[-1]}")
    for name in ("scorekeeper", "web", "flask", "dicekeeper"):
        assert name not in loaded


ROOT = Path(__file__).resolve().parents[2]


def check_contracts(config: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports over `config`, run as `make lint` runs it."""
    command = [str(Path(sys.executable).with_name("lint-imports")), "--config", str(config), "--no-cache"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_import_contracts_name_every_rule_of_the_layering():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    forbidden = {
        (c["source_modules"][0], m) for c in contracts if c["type"] == "forbidden" for m in c["forbidden_modules"]
    }
    assert {
        ("scorekeeper", "vision"),
        ("scorekeeper", "web"),
        ("scorekeeper", "dicekeeper"),
        ("vision", "web"),
        ("vision", "dicekeeper"),
        ("web", "dicekeeper"),
    } <= forbidden
    acyclic = [c for c in contracts if c["type"] == "acyclic_siblings"]
    assert acyclic and set(acyclic[0]["ancestors"]) == {"scorekeeper", "vision", "web", "dicekeeper"}


def test_the_import_contracts_hold():
    result = check_contracts(ROOT / "pyproject.toml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_broken_contract_is_reported(tmp_path):
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["scorekeeper", "web"]\n\n'
        '[[tool.importlinter.contracts]]\nname = "web without the rules engine"\ntype = "forbidden"\n'
        'source_modules = ["web"]\nforbidden_modules = ["scorekeeper"]\n'
    )
    result = check_contracts(config)
    assert result.returncode != 0
    assert "1 broken" in result.stdout and "web.games -> scorekeeper" in result.stdout

"""The photo-set tests find the sets beside the checkout without any environment variable."""

from __future__ import annotations

from pathlib import Path

import photo_sets
import pytest


def make_set(folder: Path) -> Path:
    (folder / "val" / "images").mkdir(parents=True)
    return folder


def test_sets_beside_the_checkout_are_found_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("DICEKEEPER_DATA", raising=False)
    monkeypatch.setattr(photo_sets, "BESIDE", tmp_path / "shared" / "datasets")
    assert photo_sets.photo_set("nellbyler-d6") is None
    found = make_set(tmp_path / "shared" / "datasets" / "nellbyler-d6")
    assert photo_sets.photo_set("nellbyler-d6") == found
    assert photo_sets.photo_set("matteop65-webcam") is None


def test_the_variable_may_name_one_set_or_the_folder_of_sets(tmp_path, monkeypatch):
    monkeypatch.setattr(photo_sets, "BESIDE", tmp_path / "nowhere")
    one = make_set(tmp_path / "mine" / "nellbyler-d6")
    monkeypatch.setenv("DICEKEEPER_DATA", str(one))
    assert photo_sets.photo_set("nellbyler-d6") == one
    assert photo_sets.photo_set("matteop65-webcam") is None  # a set's folder is not another set
    monkeypatch.setenv("DICEKEEPER_DATA", str(tmp_path / "mine"))
    assert photo_sets.photo_set("nellbyler-d6") == one


@pytest.mark.skipif(
    not (photo_sets.REPO.parent / "shared" / "datasets").is_dir(), reason="no photo sets beside this checkout"
)
def test_this_checkouts_neighbouring_sets_are_found(monkeypatch):
    monkeypatch.delenv("DICEKEEPER_DATA", raising=False)
    found = [name for name in ("nellbyler-d6", "matteop65-webcam") if photo_sets.photo_set(name)]
    assert found, "../shared/datasets is there, but neither set was found in it"

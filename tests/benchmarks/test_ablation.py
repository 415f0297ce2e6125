"""The ablation's rows switch the reader's parts on in order, the shipped row last of them."""

from __future__ import annotations

from dataclasses import fields

from benchmarks.ablation import SHIPPED, VARIANTS
from vision.read.detect import DetectorSettings
from vision.read.reader import NearMisses, ReaderSettings


def test_the_shipped_row_reads_with_the_default_settings() -> None:
    _, mode, settings, detector_settings = SHIPPED
    assert (mode, settings, detector_settings) == ("combined", ReaderSettings(), DetectorSettings())


def test_every_row_before_the_shipped_one_reads_without_near_misses() -> None:
    before = VARIANTS[: VARIANTS.index(SHIPPED)]
    assert before and all(settings.near_misses is None for _, _, settings, _ in before)


def test_each_near_miss_row_changes_one_bound_of_the_shipped_ones() -> None:
    rows = [settings.near_misses for label, _, settings, _ in VARIANTS if label.startswith("shipped, near misses")]
    shipped = NearMisses()
    changed = [
        [field.name for field in fields(NearMisses) if getattr(row, field.name) != getattr(shipped, field.name)]
        for row in rows
        if row is not None
    ]
    assert changed == [["size_ratio"], ["reach"], ["floor"], ["sureness"]]

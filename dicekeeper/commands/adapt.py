"""`dicekeeper adapt`: build the table's adaptation from the throws confirmed on the phone."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from dicekeeper.cli import CliError, add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "adapt", run)
    parser.add_argument("--db", type=Path, default=None, help="the server's database (default: the user data folder)")
    parser.add_argument("--memory", type=Path, default=None, help="the table memory folder (default: next to --db)")


def run(args: argparse.Namespace) -> int:
    """adapt the reader to the table from the throws confirmed on the phone

    Build the table's nearest-neighbour head from the confirmed throws that `serve` kept (next to its database,
    in table-memory/), and choose the detector's threshold for the table from their pictures; save both there.
    `serve` uses them at the next start. Also say how well the classifier's last layer, fitted to these dice,
    reads them (`serve` fits it again from them at each start).
    """
    from vision.adapt.learner import build
    from vision.adapt.memory import TableMemory
    from vision.live.settle import default_reader
    from web import default_database

    folder = args.memory or Path(args.db or default_database()).parent / "table-memory"
    memory = TableMemory(folder)
    if len(memory) == 0:
        raise CliError(f"{folder}: no confirmed throws yet (confirm or correct throws on the phone first)")
    report = build(memory, default_reader())
    threshold = (
        "never overrides the reader"
        if math.isinf(report.min_similarity)
        else f"overrides the reader from similarity {report.min_similarity:.3f}"
    )
    print(
        f"{report.throws} confirmed throws, {report.dice} dice; the reader had {report.reader_right} right, "
        f"the adapted reader {report.adapted_right} (each throw left out of its own head)"
    )
    if report.not_dice:
        print(f"{report.not_dice} readings marked as no die: kept as spots and taught to the classifier")
    print(f"head: {threshold}; saved to {report.path}")
    if report.classifier_right is not None:
        print(
            f"classifier: {report.classifier_right} right as shipped, {report.fitted_right} with its last layer "
            "fitted to this table (each throw left out of its own fit)"
        )
    if report.detector_threshold is not None:
        print(f"detector threshold {report.detector_threshold:g}, chosen on {report.pictures} confirmed pictures")
    return 0

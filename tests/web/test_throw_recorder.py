"""The throw recorder: a die whose vote stayed split is proposed to the phone, marked as doubtful."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from scorekeeper import preset
from vision.live.settle import SettledThrow
from vision.types import DieBox, DieReading
from web import create_app, db, dice_sources
from web.throw_recorder import ThrowRecorder


def throw(faces: list[int], doubtful_dice: tuple[int, ...] = ()) -> SettledThrow:
    dice = tuple(DieReading(v, DieBox(60.0 * i, 100.0, 40.0, 40.0), 0.9, "vote") for i, v in enumerate(faces))
    return SettledThrow(dice, (), 1.0, 30, 1.3, 39, doubtful=bool(doubtful_dice), doubtful_dice=doubtful_dice)


def camera_app(tmp_path: Path) -> Flask:
    return create_app({"TESTING": True, "DATABASE": str(tmp_path / "rec.sqlite3"), "DICE_SOURCE": "camera"})


def test_a_split_vote_becomes_a_proposal_that_names_the_unsure_die(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(dice_sources, "camera_present", lambda: True)
    app = camera_app(tmp_path)
    book, broker = app.extensions["dicekeeper.games"], app.extensions["dicekeeper.live"]
    recorder = ThrowRecorder(book, broker)
    with app.app_context():
        conn = db.get_db()
        game_id = book.create(conn, ["Ann", "Bob"], preset("family"), source="camera")[0].id
        dice = book.state(conn, game_id)["dice_left"]
        faces = [1, 5, 2, 3, 4, 6][: dice - 1] + [6]
        recorder.on_settled(conn, throw(faces, doubtful_dice=(dice - 1,)))
        proposal = recorder.pending(conn, game_id)
        assert proposal is not None and proposal.to_dict()["doubtful"] == [dice - 1]
        assert "looked different" in proposal.reason and "read as 6" in proposal.reason
        assert book.state(conn, game_id)["version"] == 0  # nothing recorded on a doubt
        recorder.on_settled(conn, throw(faces))  # read steadily: recorded at once
        assert book.state(conn, game_id)["version"] == 1 and recorder.pending(conn, game_id) is None
    broker.close()

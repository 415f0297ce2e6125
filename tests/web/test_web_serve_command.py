"""`dicekeeper serve`: options, the printed addresses, a real server process and its clean shutdown."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from benchmarks.serve_process import start_serve
from dicekeeper import cli
from dicekeeper.commands import serve


def test_serve_is_registered_with_its_options():
    args = cli.build_parser().parse_args(
        ["serve", "--host", "127.0.0.1", "--port", "9000", "--db", "x.db", "--source", "manual"]
    )
    assert args.func is serve.run and (args.host, args.port, args.db, args.source) == (
        "127.0.0.1",
        9000,
        Path("x.db"),
        "manual",
    )
    defaults = cli.build_parser().parse_args(["serve"])
    assert (defaults.host, defaults.port, defaults.db, defaults.source) == ("0.0.0.0", 8000, None, None)


def test_unknown_source_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["serve", "--source", "dice-robot"])
    assert exit_info.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_serve_takes_the_turn_of_the_camera():
    assert cli.build_parser().parse_args(["serve", "--turn", "180"]).turn == "180"
    assert serve.turn_of(cli.build_parser().parse_args(["serve", "--turn", "270"])) == 270
    assert serve.turn_of(cli.build_parser().parse_args(["serve"])) == 0


def test_a_bad_turn_is_one_line_and_exit_2(capsys, tmp_path):
    for bad in ("45", "sideways"):
        assert cli.main(["serve", "--turn", bad, "--db", str(tmp_path / "g.db")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("dicekeeper serve: --turn must be one of 0, 90, 180, 270")
    assert not (tmp_path / "g.db").exists()  # refused before anything was opened


def test_the_turn_reaches_the_apps_camera_settings(monkeypatch, capsys, tmp_path):
    import web
    import web.server

    made = []

    def create_app(config):
        made.append(real_create_app(config))
        return made[-1]

    def no_server(app, host, port):
        raise OSError(98, "Address already in use")

    real_create_app = web.create_app
    monkeypatch.setattr(web, "create_app", create_app)
    monkeypatch.setattr(web.server, "make_server", no_server)
    try:
        argv = ["serve", "--source", "demo", "--turn", "270", "--db", str(tmp_path / "g.db")]
        assert cli.main(argv) == 2  # stopped at the server, after the app was made
        assert "cannot listen" in capsys.readouterr().err
        assert len(made) == 1
        assert (made[0].config["CAMERA_SOURCE"], made[0].config["CAMERA_TURN"]) == ("demo", 270)
        assert "dicekeeper.camera" not in made[0].extensions  # no worker was started
    finally:
        for app in made:
            app.extensions["dicekeeper.live"].close()


def test_bad_port_is_a_cli_error(capsys, tmp_path):
    assert cli.main(["serve", "--port", "70000", "--db", str(tmp_path / "g.db")]) == 2
    assert "--port must be from 0" in capsys.readouterr().err


def test_public_url_uses_the_lan_address_for_every_interface(monkeypatch):
    monkeypatch.setattr(serve, "lan_address", lambda: "192.168.1.20")
    assert serve.public_url("0.0.0.0", 8000) == "http://192.168.1.20:8000"
    assert serve.public_url("127.0.0.1", 8001) == "http://127.0.0.1:8001"


def test_lan_address_is_an_ipv4_address():
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", serve.lan_address())


def read_until(process: subprocess.Popen, marker: str, seconds: float = 20) -> list[str]:
    lines, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if marker in line:
            return lines
    raise AssertionError(f"{marker!r} not printed; got {lines}")


def test_a_real_server_prints_links_serves_and_stops_cleanly(tmp_path):
    database = tmp_path / "served.sqlite3"
    process = start_serve(database, "camera")
    try:
        lines = read_until(process, "Press Ctrl+C")
        text = "\n".join(lines)
        if not list(Path("/dev").glob("video*")):
            assert "no camera found" in text and "with virtual dice" in text
        url = re.search(r"Open on a phone or laptop on this network: (http://\S+)/", text).group(1)
        table_link = re.search(r"table  (http://\S+/games/1/table\?token=\S+)", text).group(1)
        assert re.search(r"phone  http://\S+/games/1/play\?token=\S+", text)
        games = json.load(urllib.request.urlopen(f"{url}/api/games", timeout=5))
        assert [g["players"] for g in games] == [serve.DEFAULT_PLAYERS]  # a fresh game to open at once
        token = table_link.split("token=")[1]
        request = urllib.request.Request(
            f"{url}/api/games/1/throw", data=b"{}", method="POST", headers={"Authorization": f"Bearer {token}"}
        )
        thrown = json.load(urllib.request.urlopen(request, timeout=5))
        assert thrown["version"] == 1
        stream = urllib.request.urlopen(f"{url}/api/games/1/stream", timeout=10)
        assert stream.readline().startswith(b"retry:")
        while not stream.readline().startswith(b"data: "):  # up to the state event's data line
            pass
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        assert "dicekeeper: stopping" in process.stderr.read()
        # The blank line ending the event, then the end of the chunked body; a cut stream would raise.
        assert stream.read() == b"\n"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()

    again = start_serve(database, "virtual")
    try:
        text = "\n".join(read_until(again, "Press Ctrl+C"))
        assert "Game 1 (Player 1, Player 2, family)" in text and "Game 2" not in text  # resumed, no new game
        url = re.search(r"Open on a phone or laptop on this network: (http://\S+)/", text).group(1)
        resumed = json.load(urllib.request.urlopen(f"{url}/api/games/1", timeout=5))
        assert resumed == thrown  # exactly where the first server left it
    finally:
        again.send_signal(signal.SIGTERM)
        again.wait(timeout=10)
        again.stdout.close()
        again.stderr.close()

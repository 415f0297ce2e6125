"""Bugs found on a game night, each pinned by a browser test in real headless Chromium."""

from __future__ import annotations

import pytest
from test_web_browser import DOC_SHOTS, LAPTOP, PHONE, shoot, wait_for, wait_live
from web_helpers import Table, api_state

from web.dice_sources import watch_camera

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def open_game(live_server, open_window, table: Table, size=PHONE, view: str = "play"):
    window = open_window(size)
    window.get(f"{live_server.url}/games/{table.id}/{view}?token={table.token}")
    wait_live(window)
    return window


def wait_state(window, version: int) -> None:
    wait_for(
        window,
        lambda d: int(d.find_element("id", "board").get_attribute("data-version")) >= version,
        10,
        f"board never reached version {version}",
    )


def tap_keep(window, points: int) -> None:
    for button in window.find_elements("css selector", "#keeps button.keep"):
        if button.find_element("tag name", "strong").text == str(points):
            button.click()
            return
    raise AssertionError(f"no keep worth {points}")


def test_a_farkle_is_not_shown_once_the_next_player_has_played(app, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob"], rules="family", source="manual")
    table.post("throw", {"dice": [2, 2, 3, 3, 4]})  # Ann farkles
    window = open_game(live_server, open_window, table)
    assert "Farkle: Ann threw 2-2-3-3-4" in window.find_element("id", "selection").text
    table.post("throw", {"dice": [1, 2, 3, 4, 6]})
    table.post("bank", {"dice": [1]})  # Bob banks 100: a new turn with no points yet
    wait_state(window, table.state["version"])
    assert table.state["last_farkle"] is None
    assert "Farkle" not in window.find_element("id", "selection").text


def test_a_misread_that_caused_a_farkle_can_be_fixed(app, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob"], rules="family", source="manual")
    table.post("throw", {"dice": [2, 2, 3, 3, 4]})  # the 4 was really a 1
    window = open_game(live_server, open_window, table)
    fix = window.find_element("id", "correct")
    assert fix.is_displayed(), "Fix a die is hidden after a farkle"
    fix.click()
    window.find_element("css selector", "#dice button.die[data-face='4']").click()
    window.find_element("css selector", "#correct-picker button[data-face='1']").click()
    wait_for(window, lambda d: api_state(live_server, table.id)["throw"] is not None, 10, "the throw was not fixed")
    state = api_state(live_server, table.id)
    assert state["current"] == 0 and state["throw"] == [2, 2, 3, 3, 1] and state["last_farkle"] is None
    wait_state(window, state["version"])
    assert window.find_elements("css selector", "#keeps button.keep")


def test_undo_after_bank_puts_the_throw_back(app, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob"], rules="family", source="manual")
    table.post("throw", {"dice": [1, 5, 2, 3, 4]})
    window = open_game(live_server, open_window, table)
    tap_keep(window, 150)
    window.find_element("id", "bank").click()
    wait_for(window, lambda d: api_state(live_server, table.id)["current"] == 1, 10, "the bank did not happen")
    banked = api_state(live_server, table.id)
    wait_state(window, banked["version"])
    window.find_element("id", "undo").click()
    wait_for(window, lambda d: api_state(live_server, table.id)["version"] > banked["version"], 10, "no undo")
    state = api_state(live_server, table.id)
    assert state["current"] == 0 and state["players"][0]["score"] == 0
    assert state["throw"] == [1, 5, 2, 3, 4] and state["turn_total"] == 0 and state["kept"] == []
    wait_state(window, state["version"])
    assert len(window.find_elements("css selector", "#dice button.die")) == 5


def test_bank_is_disabled_below_the_entry_score(app, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob"], rules="farke", source="manual")  # entry 750
    table.post("throw", {"dice": [1, 2, 3, 4, 6, 6]})
    window = open_game(live_server, open_window, table)
    tap_keep(window, 100)
    assert "100 points" in window.find_element("id", "selection").text
    assert window.find_element("id", "roll").is_enabled()
    assert not window.find_element("id", "bank").is_enabled(), "Bank is enabled at 100 with an entry of 750"
    table.post("keep", {"dice": [1]})
    table.post("throw", {"dice": [1, 1, 1, 5, 2]})
    wait_state(window, table.state["version"])
    tap_keep(window, 1050)  # 100 + 1050 gets Ann on the board
    assert window.find_element("id", "bank").is_enabled()


def test_a_camera_game_asks_for_a_throw_under_the_camera_not_typed(app, live_server, open_window):
    watch_camera(id(app), True)
    try:
        table = Table(app.test_client(), ["Ann", "Bob"], rules="family", source="camera")
    finally:
        watch_camera(id(app), False)
    assert table.state["source"] == "camera"
    window = open_game(live_server, open_window, table, LAPTOP, "table")
    wait_for(window, lambda d: d.find_element("id", "camera-wait").is_displayed(), 5, "no camera prompt")
    assert "Throw 5 dice under the camera" in window.find_element("id", "camera-wait").text
    assert not window.find_element("id", "entry").is_displayed()
    assert "type the throw" not in window.find_element("id", "board").text.lower().replace("type the throw instead", "")
    window.find_element("id", "type-instead").click()  # the camera cannot see: typing stays possible
    assert window.find_element("id", "entry").is_displayed()


def test_screenshots_for_the_docs_are_written_only_when_asked(live_server, open_window, monkeypatch):
    window = open_window(PHONE)
    window.get(f"{live_server.url}/")
    target = DOC_SHOTS / "phone-view.png"
    before = target.read_bytes() if target.exists() else None
    monkeypatch.delenv("DICEKEEPER_UPDATE_SCREENSHOTS", raising=False)
    shoot(window, "new-game-check", doc="phone-view.png")
    assert (target.read_bytes() if target.exists() else None) == before

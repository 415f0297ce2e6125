"""The pages in real headless Chromium: a phone plays by tapping, other windows follow live.

Skipped when Chromium or chromedriver is missing, unless DICEKEEPER_REQUIRE_BROWSER=1 (set by CI),
which turns the skip into a failure. Screenshots go to artifacts/web/; the table view, phone view and
history page are also copied to docs/screenshots/ when DICEKEEPER_UPDATE_SCREENSHOTS=1, so a test
run leaves the tracked files alone.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import time
from pathlib import Path

import pytest
from web_helpers import api_state, create_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "web"
DOC_SHOTS = ROOT / "docs" / "screenshots"
PHONE = (390, 844)
LAPTOP = (1280, 860)


def shoot(driver, name: str, *, doc: str | None = None) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    if doc and os.environ.get("DICEKEEPER_UPDATE_SCREENSHOTS") == "1":
        DOC_SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOC_SHOTS / doc)


def wait_for(driver, condition, timeout: float = 10, message: str = ""):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(condition, message)


def version_of(driver) -> int:
    return int(driver.find_element("id", "board").get_attribute("data-version"))


def wait_version(driver, version: int, timeout: float = 10) -> None:
    wait_for(driver, lambda d: version_of(d) >= version, timeout, f"board never reached version {version}")


def wait_live(driver) -> None:
    wait_for(driver, lambda d: d.find_element("id", "live-text").text == "live", 10, "event stream not open")


def tap_dice(driver, faces: list[int]) -> None:
    """Taps one die per face in `faces` on the board."""
    used: set[str] = set()
    for face in faces:
        die = next(
            d
            for d in driver.find_elements("css selector", "#dice button.die")
            if d.get_attribute("data-face") == str(face) and d.get_attribute("data-index") not in used
        )
        used.add(die.get_attribute("data-index"))
        die.click()


RECORD_CHANGES = """
window.__changes = {};
new MutationObserver(() => {
  const v = document.getElementById('board').dataset.version;
  if (!(v in window.__changes)) window.__changes[v] = Date.now();
}).observe(document.getElementById('board'), {attributes: true, attributeFilter: ['data-version']});
"""


def table_and_phone(live_server, open_window, players):
    """A new family game with its table view on a laptop and its phone view, both live."""
    game = create_game(live_server, players=players, rules="family")
    base = f"{live_server.url}/games/{game['id']}"
    table = open_window(LAPTOP)
    table.get(f"{base}/table?token={game['token']}")
    phone = open_window(PHONE)
    phone.get(f"{base}/play?token={game['token']}")
    for window in (table, phone):
        wait_live(window)
    return game, table, phone


def test_a_phone_plays_a_turn_by_tapping_and_the_table_follows_live(live_server, open_window):
    game, table, phone = table_and_phone(live_server, open_window, ["Ann", "Bob"])
    table.execute_script(RECORD_CHANGES)
    shoot(phone, "phone-start")

    banked = False
    for _ in range(12):  # turns, until one is banked (a farkle passes the turn at once)
        player = api_state(live_server, game["id"])["current"]
        phone.find_element("id", "roll").click()
        wait_version(phone, api_state(live_server, game["id"])["version"])
        while True:
            state = api_state(live_server, game["id"])
            wait_version(phone, state["version"])
            if state["current"] != player or state["throw"] is None:
                break  # a farkle ended the turn
            keep = state["keeps"][0]
            if len(keep["dice"]) < len(state["throw"]):
                loose = next(f for f in state["throw"] if f not in (1, 5))
                tap_dice(phone, [loose])  # a die that does not score: the keep cannot be confirmed
                assert "not a scoring keep" in phone.find_element("id", "selection").text
                assert not phone.find_element("id", "roll").is_enabled()
                tap_dice(phone, [loose])  # tapped again: deselected
            tap_dice(phone, keep["dice"])
            selection = phone.find_element("id", "selection").text
            assert f"{keep['points']} points" in selection, selection
            if state["turn_total"] + keep["points"] >= 300 or len(state["throw"]) - len(keep["dice"]) <= 2:
                shoot(phone, "phone-view", doc="phone-view.png")
                phone.find_element("id", "bank").click()
                wait_for(phone, lambda d, player=player: api_state(live_server, game["id"])["current"] != player)
                banked = True
                break
            phone.find_element("id", "roll").click()
            wait_for(
                phone,
                lambda d, state=state, player=player: (
                    api_state(live_server, game["id"])["version"] > state["version"] + 1
                    or api_state(live_server, game["id"])["current"] != player
                ),
            )
        if banked:
            break
    assert banked, "no turn was banked in twelve turns"

    final = api_state(live_server, game["id"])
    wait_version(table, final["version"], timeout=5)  # the other window saw it without reloading
    scores = [row.text for row in table.find_elements("css selector", "#scores tbody tr")]
    banker = final["players"][player]
    assert banker["score"] > 0 and any(f"{banker['name']} {banker['score']} yes" in s for s in scores), scores
    changes = table.execute_script("return window.__changes")
    assert str(final["version"]) in changes
    assert table.execute_script("return performance.getEntriesByType('navigation').length") == 1  # no reload
    shoot(table, "table-after-turn")


def test_table_keyboard_shortcuts_and_latency_to_another_window(live_server, open_window):
    """R throws, 1-6 picks dice, G banks, Ctrl+Z undoes; each change is timed into a second window."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    game, table, phone = table_and_phone(live_server, open_window, ["Ann", "Bob", "*Robo"])
    phone.execute_script(RECORD_CHANGES)
    table.execute_script(
        "window.__sent = {}; document.addEventListener('keydown', () => "
        "{ window.__sent[document.getElementById('board').dataset.version] = Date.now(); }, true);"
    )
    body = table.find_element("tag name", "body")

    latencies = []
    for round_number in range(25):
        before = version_of(table)
        if round_number % 2 == 0:
            body.send_keys("r")
        else:
            ActionChains(table).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        wait_version(phone, before + 1)
        sent = table.execute_script("return window.__sent")[str(before)]
        seen = phone.execute_script("return window.__changes")[str(before + 1)]
        latencies.append(seen - sent)

    # Pick a scoring die by its number key, then bank with G.
    state = api_state(live_server, game["id"])
    if state["throw"] is None:
        body.send_keys("r")
        wait_version(table, state["version"] + 1)
        state = api_state(live_server, game["id"])
    if state["throw"] is not None:
        keep = state["keeps"][-1]["dice"]  # a single 1 or 5
        body.send_keys(str(state["throw"].index(keep[0]) + 1))
        assert f"{state['keeps'][-1]['points']} points" in table.find_element("id", "selection").text
        shoot(table, "table-view", doc="table-view.png")
        body.send_keys("g")
        wait_version(phone, state["version"] + 2)
        after = api_state(live_server, game["id"])
        assert after["players"][state["current"]]["score"] == state["keeps"][-1]["points"]
    else:
        shoot(table, "table-view", doc="table-view.png")

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    median = statistics.median(latencies)
    (ARTIFACTS / "latency-browser.json").write_text(
        json.dumps(
            {"changes": len(latencies), "median_ms": median, "max_ms": max(latencies), "all_ms": latencies}, indent=1
        )
    )
    print(f"\nkey press in one window to update in another: median {median} ms over {len(latencies)} changes")
    assert len(latencies) == 25 and all(value >= 0 for value in latencies)


def test_a_manual_game_to_the_end_then_history_shows_it_live(live_server, open_window):
    game = create_game(live_server, players=["Ann", "Bob"], rules="farke", source="manual")
    phone = open_window(PHONE)
    phone.get(f"{live_server.url}/games/{game['id']}/play?token={game['token']}")
    history = open_window(LAPTOP)
    history.get(f"{live_server.url}/history/{game['id']}")
    wait_live(phone)
    time.sleep(0.3)  # lets the history page's stream open

    def enter(faces: list[int]) -> None:
        version = version_of(phone)
        pad = phone.find_element("id", "entry")
        for face in faces:
            pad.find_element("css selector", f"button[data-face='{face}']").click()
        phone.find_element("id", "entry-done").click()
        wait_version(phone, version + 1)

    def tap_keep(points: int) -> None:
        for button in phone.find_elements("css selector", "#keeps button.keep"):
            if button.find_element("tag name", "strong").text == str(points):
                button.click()
                return
        raise AssertionError(f"no keep worth {points}")

    enter([1, 1, 1, 2, 3, 4])
    tap_keep(1000)
    version = version_of(phone)
    phone.find_element("id", "bank").click()
    wait_version(phone, version + 2)
    enter([2, 2, 3, 3, 4, 6])  # Bob farkles
    assert "Farkle: Bob threw 2-2-3-3-4-6" in phone.find_element("id", "selection").text
    enter([1, 1, 2, 1, 1, 1])
    # a misread die: the 2 was a 1
    phone.find_element("id", "correct").click()
    phone.find_element("css selector", "#dice button.die[data-face='2']").click()
    version = version_of(phone)
    phone.find_element("css selector", "#correct-picker button[data-face='1']").click()
    wait_version(phone, version + 1)
    tap_keep(8000)
    version = version_of(phone)
    phone.find_element("id", "roll").click()
    wait_version(phone, version + 1)
    wait_for(phone, lambda d: "Ann wins!" in d.find_element("id", "banner").text)

    wait_for(history, lambda d: d.find_elements("id", "winner"), 5, "history page did not update live")
    assert "Ann won with 9000" in history.find_element("id", "winner").text
    assert history.execute_script("return performance.getEntriesByType('navigation').length") == 1
    lines = history.find_elements("css selector", "#chart polyline.series")
    assert sorted(line.get_attribute("data-player") for line in lines) == ["Ann", "Bob"]
    assert len(history.find_elements("css selector", "#log li")) == 3
    shoot(history, "history-game")

    history.get(f"{live_server.url}/history/")
    row = history.find_element("css selector", f"tr[data-game='{game['id']}']")
    assert "Ann" in row.text and "farke" in row.text
    shoot(history, "history-list")
    shoot(phone, "phone-finished")
    assert not row.find_elements("css selector", ".resume a")  # that browser never held the token

    phone.get(f"{live_server.url}/history/")  # the phone opened the game, so it may reopen it
    resume = phone.find_element("css selector", f"tr[data-game='{game['id']}'] .resume a")
    assert resume.get_attribute("href").endswith(f"/games/{game['id']}/table?token={game['token']}")


def test_history_page_of_a_whole_game(app, live_server, open_window):
    """A full virtual game played through the API, then its history page (the README's screenshot)."""
    from test_web_full_games import play_to_the_end
    from web_helpers import Table

    window = open_window((1100, 1500))
    window.get(f"{live_server.url}/history/")
    assert window.find_elements("id", "no-games")
    time.sleep(0.3)  # lets the list's stream open
    table = Table(app.test_client(), ["Ann", "Bob", "*Cy"], rules="family", set={"target": 5000})
    final = play_to_the_end(table)

    def finished_row(driver) -> bool:
        # Each refresh replaces the rows, so the row is looked up afresh every time.
        text = driver.execute_script(
            f"const row = document.querySelector(\"tr[data-game='{table.id}']\"); return row ? row.innerText : ''"
        )
        return final["winner"] in text and "playing" not in text

    wait_for(window, finished_row, 5, "the history list did not show the finished game live")
    assert window.execute_script("return performance.getEntriesByType('navigation').length") == 1
    window.get(f"{live_server.url}/history/{table.id}")
    assert f"{final['winner']} won with" in window.find_element("id", "winner").text
    lines = window.find_elements("css selector", "#chart polyline.series")
    assert len(lines) == 3
    assert len(window.find_elements("css selector", "#log li")) == final["turn_number"]  # the last turn ended the game
    shoot(window, "history-whole-game", doc="history.png")

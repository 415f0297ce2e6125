"""The game flow in real headless Chromium: shortcuts and their help, the roll-off, typed points,
mid-game changes, undo of a turn and redo, and the history striking through what was undone.

Same fixtures and rules as test_web_browser.py: screenshots go to artifacts/web/, and into
docs/screenshots/ only when DICEKEEPER_UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import json
import urllib.request

import pytest
from test_web_browser import LAPTOP, PHONE, shoot, version_of, wait_for, wait_live, wait_version
from web_helpers import api_state, create_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def open_table(live_server, open_window, **create):
    game = create_game(live_server, **create)
    window = open_window(LAPTOP)
    window.get(f"{live_server.url}/games/{game['id']}/table?token={game['token']}")
    wait_live(window)
    return game, window


def press(window, keys: str) -> None:
    window.find_element("tag name", "body").send_keys(keys)


def ctrl(window, letter: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(window).key_down(Keys.CONTROL).send_keys(letter).key_up(Keys.CONTROL).perform()


def shown(window, element_id: str) -> bool:
    return window.find_element("id", element_id).is_displayed()


def test_every_shortcut_and_the_help_overlay(live_server, open_window):
    from selenium.webdriver.common.keys import Keys

    game, table = open_table(live_server, open_window, players=["Ann", "Bob"], rules="stone", source="virtual")
    url = f"{live_server.url}/games/{game['id']}/table?token={game['token']}"

    assert not shown(table, "shortcuts-help")
    press(table, "?")
    wait_for(table, lambda d: shown(d, "shortcuts-help"), 5, "? did not open the help")
    help_text = table.find_element("id", "shortcuts-help").text
    for words in ("G or +", "Ctrl+Z", "save this game", "load a saved game", "start a new game", "1–6", "Esc"):
        assert words in help_text, (words, help_text)
    shoot(table, "shortcuts-help", doc="shortcuts-help.png")
    press(table, "r")  # ignored while the help is open
    assert version_of(table) == 0
    table.find_element("tag name", "body").send_keys(Keys.ESCAPE)
    wait_for(table, lambda d: not shown(d, "shortcuts-help"), 5, "Esc did not close the help")
    press(table, "?")
    wait_for(table, lambda d: shown(d, "shortcuts-help"))
    table.find_element("id", "shortcuts-close").click()
    wait_for(table, lambda d: not shown(d, "shortcuts-help"))

    # R throws until a throw scores; a number key picks a die; + banks.
    for _ in range(20):
        before = api_state(live_server, game["id"])
        press(table, "r")
        wait_version(table, before["version"] + 1)
        state = api_state(live_server, game["id"])
        if state["throw"] is not None:
            break
    assert state["throw"] is not None, "twenty throws and no scoring one"
    single = state["keeps"][-1]
    press(table, str(state["throw"].index(single["dice"][0]) + 1))
    assert f"{single['points']} points" in table.find_element("id", "selection").text
    press(table, "+")
    wait_version(table, state["version"] + 2)
    banked = api_state(live_server, game["id"])
    assert banked["players"][state["current"]]["score"] == single["points"]
    ctrl(table, "z")  # takes back the bank
    wait_version(table, banked["version"] + 1)
    assert api_state(live_server, game["id"])["players"][state["current"]]["score"] == 0

    # S saves the game: a download of its export.
    table.execute_script(
        "HTMLAnchorElement.prototype.click = function () {"
        " window.__saved = {href: this.href, download: this.download}; };"
    )
    press(table, "s")
    saved = wait_for(table, lambda d: d.execute_script("return window.__saved"), 5, "S saved nothing")
    assert saved["href"] == f"{live_server.url}/history/{game['id']}.json"
    assert saved["download"] == f"dicekeeper-game-{game['id']}.json"
    with urllib.request.urlopen(saved["href"], timeout=10) as response:
        exported = json.load(response)
    assert exported["events"][-1]["type"] == "undo" and exported["players"] == ["Ann", "Bob"]

    # L opens the import of a saved game, P the new-game form.
    press(table, "l")
    wait_for(table, lambda d: d.current_url.endswith("/history/#import-form"), 5, "L did not open the import")
    assert table.find_element("id", "import-form").is_displayed()
    table.get(url)
    wait_live(table)
    press(table, "p")
    wait_for(table, lambda d: d.current_url == f"{live_server.url}/", 5, "P did not open a new game")
    assert table.find_element("id", "new-game").is_displayed()


def test_a_typed_roll_off_with_a_tie_then_a_turn_of_typed_points(live_server, open_window):
    game, table = open_table(live_server, open_window, players=["Ann", "Bob"], rules="family", source="manual")
    # Before the first roll, a typed throw would still start in seat order: both are offered.
    assert shown(table, "roll-off") and shown(table, "entry")
    pad = table.find_element("id", "roll-off-pad")

    press(table, "3")  # Ann rolls a 3 (typed by key)
    wait_version(table, 1)
    assert "Ann 3. Bob rolls" in table.find_element("id", "roll-off-status").text
    assert "Who starts? Bob rolls one die" in table.find_element("id", "turn-line").text
    assert not shown(table, "entry")  # the typed-dice pad waits for the roll-off
    pad.find_element("css selector", "button[data-face='3']").click()  # Bob too: a tie
    wait_version(table, 2)
    assert "Tie: Ann and Bob roll again" in table.find_element("id", "roll-off-status").text
    shoot(table, "roll-off", doc="roll-off.png")
    pad.find_element("css selector", "button[data-face='2']").click()
    wait_version(table, 3)
    press(table, "5")
    wait_version(table, 4)
    wait_for(table, lambda d: not shown(d, "roll-off"), 5, "the roll-off panel stayed after it was decided")
    state = api_state(live_server, game["id"])
    assert state["first"] == 1 and state["current"] == 1
    assert "Bob to throw" in table.find_element("id", "turn-line").text

    # Bob scores his turn by typed points: a bad entry is refused with the reason, then +350 and G.
    field = table.find_element("id", "points-input")
    field.send_keys("+30\n")
    wait_for(table, lambda d: "multiples of 50" in d.find_element("id", "message").text, 5)
    assert version_of(table) == 4 and field.get_attribute("value") == "+30"
    field.clear()
    field.send_keys("+350g")  # keys typed into the field are not shortcuts
    assert version_of(table) == 4
    field.clear()
    field.send_keys("+350\n")
    wait_version(table, 5)
    assert table.find_element("id", "turn-total").text == "350" and field.get_attribute("value") == ""
    assert not shown(table, "entry")  # a typed turn takes no dice
    shoot(table, "points-entry", doc="points-entry.png")
    press(table, "g")
    wait_version(table, 6)
    # Ann types 500 and then a farkle: she scores nothing.
    table.find_element("id", "points-input").send_keys("500\n")
    wait_version(table, 7)
    table.find_element("id", "points-farkle").click()
    wait_version(table, 8)
    final = api_state(live_server, game["id"])
    assert [p["score"] for p in final["players"]] == [0, 350] and final["current"] == 1
    kinds = [e["type"] for e in json.load(urllib.request.urlopen(f"{live_server.url}/api/games/{game['id']}/events"))]
    assert kinds == ["start-roll"] * 4 + ["points", "bank", "points", "farkle"]


def test_a_virtual_roll_off_on_the_phone(live_server, open_window):
    game = create_game(live_server, players=["Ann", "Bob", "Cy"], rules="family", source="virtual")
    phone = open_window(PHONE)
    phone.get(f"{live_server.url}/games/{game['id']}/play?token={game['token']}")
    wait_live(phone)
    assert shown(phone, "roll-off") and shown(phone, "flow-actions")  # the table's token: undo turn and redo
    for _ in range(30):
        version = version_of(phone)
        phone.find_element("id", "roll-off-roll").click()
        wait_version(phone, version + 1)
        if api_state(live_server, game["id"])["roll_off"]["decided"]:
            break
    state = api_state(live_server, game["id"])
    assert state["roll_off"]["decided"] and state["current"] == state["first"]
    wait_for(phone, lambda d: not shown(d, "roll-off"), 5)
    assert phone.find_element("id", "turn-line").text.startswith(state["players"][state["first"]]["name"])


def test_changes_undo_turn_redo_and_the_history_strikes_through(live_server, open_window):
    game, table = open_table(live_server, open_window, players=["Ann", "Bob"], rules="stone", source="manual")
    table.find_element("css selector", "#changes summary").click()
    table.find_element("id", "rename-name").send_keys("Annie\n")
    wait_version(table, 1)
    table.find_element("id", "add-name").send_keys("Cy\n")
    wait_version(table, 2)
    rows = [row.text for row in table.find_elements("css selector", "#scores tbody tr")]
    assert rows[0].startswith("Annie") and rows[2].startswith("Cy")
    table.find_element("id", "target-value").send_keys("3000\n")
    wait_version(table, 3)
    assert api_state(live_server, game["id"])["target"] == 3000
    table.find_element("id", "add-name").send_keys("Bob\n")  # a name already taken: refused, nothing stored
    wait_for(table, lambda d: "already in the game" in d.find_element("id", "message").text, 5)
    assert version_of(table) == 3

    # Annie types a turn; Undo turn takes it back, Redo puts it back, Ctrl+Z then undoes the target.
    table.find_element("id", "points-input").send_keys("+500\n")
    wait_version(table, 4)
    table.find_element("id", "undo-turn").click()
    wait_version(table, 5)
    assert table.find_element("id", "turn-total").text == "0"
    assert table.find_element("id", "redo").is_enabled()
    table.find_element("id", "redo").click()
    wait_version(table, 6)
    assert table.find_element("id", "turn-total").text == "500"
    assert not table.find_element("id", "redo").is_enabled()
    ctrl(table, "z")  # the typed points
    wait_version(table, 7)
    from selenium.webdriver.support.ui import Select

    Select(table.find_element("id", "remove-player")).select_by_visible_text("Cy")
    table.find_element("css selector", "#remove-form button").click()
    wait_version(table, 8)
    assert "left" in table.find_elements("css selector", "#scores tbody tr")[2].text

    history = open_window(LAPTOP)
    history.get(f"{live_server.url}/history/{game['id']}")
    items = history.find_elements("css selector", "#events li")
    assert [i.get_attribute("data-kind") for i in items] == [
        "rename",
        "add-player",
        "target",
        "points",
        "undo-turn",
        "redo",
        "undo",
        "remove-player",
    ]
    struck = history.find_elements("css selector", "#events li.undone del")
    assert [s.text for s in struck] == ["typed +500"]
    assert "line-through" in struck[0].value_of_css_property("text-decoration")
    assert "Annie, Bob, Cy" in history.find_element("tag name", "h1").text
    assert history.find_element("css selector", "#chart line.target") is not None
    history.execute_script("document.getElementById('events').scrollIntoView()")
    shoot(history, "history-struck-through", doc="history-undone.png")

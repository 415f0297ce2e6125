"""The table view on a laptop or a big screen, in real headless Chromium: readable from across
the table, the QR code in sight, full screen and a screen that stays awake while a game runs."""

from __future__ import annotations

import pytest
from test_web_browser import shoot, wait_for, wait_live
from web_helpers import Table

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FULL_HD = (1920, 1080)
SMALL_LAPTOP = (1366, 768)

# Stands in for the Screen Wake Lock API, which headless Chromium refuses, and records its use.
FAKE_WAKE_LOCK = """
window.__wake = {requests: 0, releases: 0, held: false};
Object.defineProperty(navigator, 'wakeLock', {configurable: true, value: {
  request: async (kind) => {
    if (kind !== 'screen') throw new Error('unexpected kind ' + kind);
    window.__wake.requests += 1; window.__wake.held = true;
    const sentinel = new EventTarget();
    sentinel.release = async () => { if (!window.__wake.held) return; window.__wake.held = false;
      window.__wake.releases += 1; sentinel.dispatchEvent(new Event('release')); };
    return sentinel;
  }}});
"""


def table_window(live_server, open_window, table: Table, size, fake_wake_lock: bool = False):
    window = open_window(size)
    if fake_wake_lock:
        window.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_WAKE_LOCK})
    window.get(f"{live_server.url}/games/{table.id}/table?token={table.token}")
    wait_live(window)
    return window


def test_scores_are_at_least_64_px_high_on_a_1080p_screen(app, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob", "Cy", "Dee"], rules="family", source="manual")
    table.post("throw", {"dice": [1, 1, 5, 2, 3]})
    window = table_window(live_server, open_window, table, FULL_HD)
    cells = window.find_elements("css selector", "#scores td.score")
    assert len(cells) == 4
    for cell in cells:
        size = float(window.execute_script("return parseFloat(getComputedStyle(arguments[0]).fontSize)", cell))
        assert size >= 64, f"a score is drawn {size} px high"
        assert cell.size["height"] >= 64 and cell.is_displayed()
    dice = window.find_elements("css selector", "#dice button.die")
    assert len(dice) == 5 and all(d.size["width"] >= 140 for d in dice), [d.size for d in dice]
    keeps = window.find_elements("css selector", "#keeps button.keep")
    assert len(keeps) == len(table.state["keeps"]) >= 3  # every legal keep is listed
    assert [k.find_element("tag name", "strong").text for k in keeps] == [
        str(k["points"]) for k in table.state["keeps"]
    ]
    shoot(window, "table-1080p")


def test_the_qr_code_is_in_sight_without_scrolling_on_a_1366x768_laptop(app, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob", "Cy", "Dee"], rules="family", source="manual")
    table.post("throw", {"dice": [1, 1, 5, 2, 3]})
    table.post("bank", {"dice": [1, 1, 5]})
    table.post("throw", {"dice": [5, 5, 5, 1, 4]})  # Bob's throw waits for a keep
    window = table_window(live_server, open_window, table, SMALL_LAPTOP)
    window.find_element("css selector", "#keeps button.keep").click()
    assert window.execute_script("return window.innerHeight") <= 768
    box = window.execute_script(
        "const r = document.querySelector('#qr svg').getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,"
        " width: innerWidth, view: innerHeight, scrolled: scrollY};"
    )
    assert box["scrolled"] == 0 and box["top"] >= 0 and box["height"] >= 100
    assert box["bottom"] <= box["view"] and box["right"] <= box["width"], box
    shoot(window, "table-1366x768", doc="table-laptop.png")


def test_full_screen_button_and_wake_lock_while_the_game_runs(app, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob"], rules="family", source="manual", set={"target": 300})
    window = table_window(live_server, open_window, table, SMALL_LAPTOP, fake_wake_lock=True)
    wait_for(window, lambda d: d.execute_script("return window.__wake.held"), 5, "no wake lock asked for")
    assert "awake" in window.find_element("id", "wake-state").text

    rules = window.find_element("id", "table-rules")  # the scoring table, one click away
    assert rules.is_displayed() and rules.get_attribute("href").endswith(f"/games/{table.id}/rules")
    button = window.find_element("id", "fullscreen")
    assert button.is_displayed() and button.text == "Full screen"
    button.click()
    wait_for(window, lambda d: d.execute_script("return Boolean(document.fullscreenElement)"), 5, "not full screen")
    assert button.get_attribute("aria-pressed") == "true"
    button.click()
    wait_for(window, lambda d: not d.execute_script("return Boolean(document.fullscreenElement)"), 5)

    table.post("throw", {"dice": [1, 1, 1, 2, 3]})
    table.post("bank", {"dice": [1, 1, 1]})  # 1000 reaches the target of 300: the game is over
    assert table.state["finished"]
    wait_for(window, lambda d: not d.execute_script("return window.__wake.held"), 5, "lock kept after the game")
    wake = window.execute_script("return window.__wake")
    assert wake["requests"] == 1 and wake["releases"] == 1


# Stands in for Web Audio and records the frequency of every tone played.
RECORD_TONES = """
window.__tones = [];
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() {
    return {frequency: {set value(f) { window.__tones.push(f); }}, connect: (node) => node, start() {}, stop() {}};
  }
  createGain() { return {gain: {setValueAtTime() {}, exponentialRampToValueAtTime() {}}, connect: (n) => n}; }
};
"""


def test_the_table_plays_a_sound_on_a_farkle_and_hot_dice_once_switched_on(app, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob"], rules="family", source="manual")
    window = open_window(SMALL_LAPTOP)
    window.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_TONES})
    window.get(f"{live_server.url}/games/{table.id}/table?token={table.token}")
    wait_live(window)
    sound = window.find_element("id", "sound")
    assert sound.text == "Sound: off"
    table.post("throw", {"dice": [2, 2, 3, 3, 4]})  # a farkle, with the sound off: silence
    wait_for(window, lambda d: "Farkle" in d.find_element("id", "selection").text, 5)
    assert window.execute_script("return window.__tones") == []

    sound.click()
    assert sound.text == "Sound: on" and sound.get_attribute("aria-pressed") == "true"
    table.post("throw", {"dice": [2, 3, 3, 4, 6]})  # Bob farkles: a low tune
    wait_for(window, lambda d: d.execute_script("return window.__tones") == [330, 220], 5, "no sound on a farkle")
    table.post("throw", {"dice": [1, 1, 1, 5, 5]})
    table.post("keep", {"dice": [1, 1, 1, 5, 5]})  # hot dice: a rising tune
    wait_for(window, lambda d: len(d.execute_script("return window.__tones")) == 4, 5, "no sound on hot dice")
    assert window.execute_script("return window.__tones") == [330, 220, 660, 880]
    window.refresh()  # the choice is remembered on this device
    assert window.find_element("id", "sound").text == "Sound: on"

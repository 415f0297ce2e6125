"""Look and install: the manifest, icons and favicon, dark mode, and the phone's own view."""

from __future__ import annotations

import struct

import pytest
from test_web_browser import LAPTOP, PHONE, shoot, wait_for, wait_live
from web_helpers import Table

PNG_START = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG_START)
    return struct.unpack(">II", data[16:24])


def test_the_manifest_its_icons_and_the_favicon_are_served(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200 and response.mimetype == "application/manifest+json"
    manifest = response.get_json()
    assert manifest["name"] == "dicekeeper" and manifest["display"] == "standalone" and manifest["start_url"] == "/"
    sizes = set()
    for icon in manifest["icons"]:
        image = client.get(icon["src"])
        assert image.status_code == 200 and image.mimetype == "image/png"
        width, height = png_size(image.data)
        assert icon["sizes"] == f"{width}x{height}" and width == height
        sizes.add(width)
    assert {192, 512} <= sizes
    assert client.get("/icons/icon-7.png").status_code == 404
    favicon = client.get("/favicon.ico")
    assert favicon.status_code == 200 and favicon.mimetype == "image/x-icon"
    reserved, kind, count = struct.unpack("<HHH", favicon.data[:6])
    assert (reserved, kind, count) == (0, 1, 1) and png_size(favicon.data[22:]) == (32, 32)
    page = client.get("/").get_data(as_text=True)
    assert 'rel="manifest" href="/manifest.webmanifest"' in page and 'rel="icon" href="/favicon.ico"' in page
    assert '<html lang="en">' in page


def luminance(rgb: str) -> float:
    """Relative luminance (WCAG) of a computed "rgb(r, g, b)" colour."""
    values = [int(v) / 255 for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    linear = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in values]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def colours(window, selector: str) -> tuple[float, float]:
    found = window.execute_script(
        "const s = getComputedStyle(document.querySelector(arguments[0]));return [s.color, s.backgroundColor];",
        selector,
    )
    return luminance(found[0]), luminance(found[1])


@pytest.mark.browser
@pytest.mark.slow
def test_dark_mode_follows_the_system_setting(app, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob"], rules="family")
    url = f"{live_server.url}/games/{table.id}/table?token={table.token}"
    seen = {}
    for scheme in ("light", "dark"):
        window = open_window(LAPTOP)
        window.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
        )
        window.get(url)
        wait_live(window)
        assert window.execute_script(f"return matchMedia('(prefers-color-scheme: {scheme})').matches")
        text, page = colours(window, "html")
        _, card = colours(window, "#scores")
        seen[scheme] = (text, page, card)
        ratio = (max(text, page) + 0.05) / (min(text, page) + 0.05)
        assert ratio >= 7, f"{scheme}: text on the page has a contrast of {ratio:.1f}"
        shoot(window, f"table-{scheme}", doc="table-dark.png" if scheme == "dark" else None)
    assert seen["light"][1] > 0.8 and seen["dark"][1] < 0.05  # the page itself turns dark
    assert seen["dark"][2] < 0.05 and seen["dark"][0] > 0.7  # and so do the cards, with light text


# Records what the page asks navigator.vibrate to do.
RECORD_VIBRATION = """
window.__buzz = [];
Object.defineProperty(navigator, 'vibrate', {configurable: true, value: (pattern) => {
  window.__buzz.push(Array.isArray(pattern) ? pattern.length : 1); return true; }});
"""


@pytest.mark.browser
@pytest.mark.slow
def test_a_seated_phone_knows_who_it_is_and_buzzes_on_farkle_and_hot_dice(app, client, live_server, open_window):
    table = Table(app.test_client(), ["Ann", "Bob"], rules="family", source="manual")
    seat = client.post(f"/api/games/{table.id}/seats/1", headers=table.auth).get_json()["seat"]
    phone = open_window(PHONE)
    phone.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_VIBRATION})
    phone.get(f"{live_server.url}/games/{table.id}/play?token={seat}")
    wait_live(phone)
    assert phone.find_element("css selector", ".topbar").size["height"] <= 48  # the links fit one line
    assert phone.find_element("id", "whoami").text == "This phone: Bob"
    assert phone.find_element("id", "whose-turn").text == "Ann's turn"
    assert phone.execute_script("return window.__buzz") == []

    table.post("throw", {"dice": [2, 2, 3, 3, 4]})  # Ann farkles: Bob's turn
    wait_for(phone, lambda d: d.find_element("id", "whose-turn").text == "Your turn", 5, "turn not shown")
    assert "mine" in phone.find_element("id", "whose-turn").get_attribute("class")
    assert phone.execute_script("return window.__buzz") == [3]  # the farkle pattern

    table.post("throw", {"dice": [1, 1, 1, 5, 5]})
    table.post("keep", {"dice": [1, 1, 1, 5, 5]})  # every die scored: hot dice
    wait_for(phone, lambda d: len(d.execute_script("return window.__buzz")) == 2, 5, "no buzz on hot dice")
    assert phone.execute_script("return window.__buzz") == [3, 5]
    shoot(phone, "phone-seat", doc="phone-seat.png")

    for button in phone.find_elements("css selector", ".actions button"):
        if button.is_displayed():
            assert button.size["height"] >= 48 and button.size["width"] >= 48, button.text
    rules = phone.find_element("id", "phone-rules")
    assert rules.is_displayed()
    rules.click()  # the scoring table, one tap away
    wait_for(phone, lambda d: f"/games/{table.id}/rules" in d.current_url, 5)
    assert "1-1-1" in phone.page_source or "1000" in phone.page_source


@pytest.mark.browser
@pytest.mark.slow
def test_the_browser_finds_the_manifest_and_keyboard_focus_is_visible(live_server, open_window):
    from selenium.webdriver.common.keys import Keys

    window = open_window(LAPTOP)
    window.get(f"{live_server.url}/")
    manifest = window.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(document.querySelector('link[rel=manifest]').href)"
        ".then(r => r.json().then(m => done({type: r.headers.get('content-type'), name: m.name, icons: m.icons})))"
        ".catch(e => done({error: String(e)}));"
    )
    assert manifest.get("name") == "dicekeeper", manifest
    assert manifest["type"].startswith("application/manifest+json")
    loaded = window.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "Promise.all(arguments[0].map(src => new Promise(ok => { const i = new Image();"
        " i.onload = () => ok(i.naturalWidth); i.onerror = () => ok(0); i.src = src; }))).then(done);",
        [icon["src"] for icon in manifest["icons"]] + ["/favicon.ico"],
    )
    assert loaded == [192, 512, 32]
    assert window.execute_script("return document.documentElement.lang") == "en"

    body = window.find_element("tag name", "body")
    body.send_keys(Keys.TAB)
    outlines = []
    for _ in range(6):
        focused = window.switch_to.active_element
        style = window.execute_script(
            "const s = getComputedStyle(arguments[0]); return [s.outlineStyle, parseFloat(s.outlineWidth)];", focused
        )
        outlines.append((focused.tag_name, style[0], style[1]))
        focused.send_keys(Keys.TAB)
    assert all(kind != "none" and width >= 2 for _, kind, width in outlines), outlines

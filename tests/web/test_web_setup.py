"""The new-game form in one screen: friendly preset names, blank names, the last game remembered."""

from __future__ import annotations

import pytest
from test_web_browser import LAPTOP, shoot, wait_for
from web_helpers import api_state

from scorekeeper import PRESETS
from web.presets import label, missing_labels


def test_every_preset_has_a_title_and_a_one_line_description():
    assert missing_labels() == []
    titles = [label(code).title for code in PRESETS]
    assert len(set(titles)) == len(titles)
    assert all(label(code).description.endswith(".") and len(label(code).description) < 140 for code in PRESETS)
    assert label("zilch+").title == "Zilch, changed" and label("mine").title == "mine"


def test_the_form_remembers_the_last_games_players_rules_and_dice(client):
    assert 'value=""' in client.get("/").get_data(as_text=True)  # nothing to remember yet
    client.post(
        "/games", data={"player": ["Ann", "Bob", "Cy"], "rules": "zilch", "knob_target": "5000", "source": "manual"}
    )
    page = client.get("/").get_data(as_text=True)
    for name in ("Ann", "Bob", "Cy"):
        assert f'name="player" value="{name}"' in page
    assert "selected>Zilch</option>" in page
    assert 'name="knob_target" inputmode="numeric" placeholder="preset\'s target" value="5000"' in page
    assert 'value="manual" checked' in page and 'id="remembered"' in page


def test_blank_names_become_player_n(client):
    response = client.post("/games", data={"player": ["", "Bob", "", "", ""], "rules": "family"})
    assert response.status_code == 302
    game = client.get("/api/games").get_json()[0]
    assert game["players"] == ["Player 1", "Bob"]  # blank rows at the end are left out


@pytest.mark.browser
@pytest.mark.slow
def test_setup_in_the_browser_shows_friendly_presets_and_starts_with_blank_names(live_server, open_window):
    from selenium.webdriver.support.ui import Select

    window = open_window(LAPTOP)
    window.get(f"{live_server.url}/")
    select = Select(window.find_element("id", "rules"))
    assert "Farkle (modern)" in [o.text for o in select.options]
    assert "Ten Thousand (classic web rules)" in [o.text for o in select.options]
    select.select_by_value("farkle")
    description = window.find_element("id", "rules-description").text
    assert "three farkles in a row cost 1000" in description and "farkle." in description
    shoot(window, "setup", doc="setup.png")
    start = window.find_element("id", "start")
    assert start.location["y"] + start.size["height"] <= window.execute_script("return innerHeight"), (
        "the start button is below the fold: setup is not one screen"
    )
    start.click()
    wait_for(window, lambda d: "/table" in d.current_url, 10, "the game did not start")
    game_id = int(window.current_url.split("/games/")[1].split("/")[0])
    state = api_state(live_server, game_id)
    assert [p["name"] for p in state["players"]] == ["Player 1", "Player 2"] and state["rules"] == "farkle"

    window.get(f"{live_server.url}/")  # the next game starts from this one
    assert Select(window.find_element("id", "rules")).first_selected_option.get_attribute("value") == "farkle"
    names = [i.get_attribute("value") for i in window.find_elements("css selector", "#players input")]
    assert names == ["Player 1", "Player 2"]


def test_pages_show_the_presets_title_with_its_code(client, new_table):
    table = new_table(["Ann", "Bob"], rules="farkle")
    history = client.get("/history/").get_data(as_text=True)
    assert 'Farkle (modern) <small class="code">farkle</small>' in history
    view = client.get(f"/games/{table.id}/table?token={table.token}").get_data(as_text=True)
    assert "· Farkle (modern) ·" in view

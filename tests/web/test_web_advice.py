"""The strategy's advice in the served game state, live on the pages, and hidden per device only."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from web_helpers import EventStream, Table

from scorekeeper import Game, event_from_dict, preset
from scorekeeper.players import Threshold
from scorekeeper.strategy import Situation, advise, farkle_chance, situations, table

ROOT = Path(__file__).resolve().parents[2]


def engine_state(table_: Table, players: list[str], rules) -> Any:
    events = [event_from_dict({k: v for k, v in e.items() if k not in ("seq", "at")}) for e in table_.events()]
    return Game(players, rules, events).state


def throw_until_keep(table_: Table) -> dict[str, Any]:
    for _ in range(20):
        state = table_.post("throw", {"version": table_.state["version"]})
        if state["phase"] == "keep":
            return state
    raise AssertionError("twenty farkles in a row")


def test_advice_before_the_first_throw(new_table):
    table_ = new_table(["Ann", "Bob"], rules="farkle")
    advice = table_.state["advice"]
    rules = preset("farkle")
    assert advice == advise(Game(["Ann", "Bob"], rules).state).to_dict()
    assert advice["throw"] is None and advice["keeps"] == []
    assert advice["dice"] == table_.state["dice_left"] == rules.dice
    assert advice["farkle_chance"] == round(farkle_chance(rules, rules.dice), 6)
    assert advice["advice"]["action"] == "throw"  # nothing to bank yet
    assert table_.get()["advice"] == advice


def test_advice_for_a_throw_matches_the_strategy(new_table):
    table_ = new_table(["Ann", "Bob"], rules="family")
    state = throw_until_keep(table_)
    rules = preset("family")
    engine = engine_state(table_, ["Ann", "Bob"], rules)
    expected = advise(list(state["throw"]), rules, turn_total=state["turn_total"], situation=Situation.of(engine))
    advice = state["advice"]
    assert advice == expected.to_dict()
    assert sorted(map(tuple, (k["dice"] for k in advice["keeps"]))) == sorted(
        map(tuple, (k["dice"] for k in state["keeps"]))
    )
    best = [k for k in advice["keeps"] if k["best"]]
    assert len(best) == 1 and advice["advice"]["action"] == "keep" and advice["advice"]["dice"] == best[0]["dice"]
    for keep in advice["keeps"]:
        assert keep["farkle_next"] == round(farkle_chance(rules, keep["dice_next"]), 6)
        assert keep["expected_if_bank"] in (None, state["turn_total"] + keep["points"])
    chosen = advice["advice"]["then"]
    roll, bank = best[0]["expected_if_roll"], best[0]["expected_if_bank"]
    assert chosen == ("bank" if bank is not None and bank >= roll else "throw")


@pytest.mark.parametrize("rules_name", ["farkle", "zilch"])
def test_advice_after_every_action_of_a_game(new_table, rules_name):
    """Entry scores, the three-farkle penalty and banking all show up as the strategy computes them."""
    players = ["Ann", "Bob"]
    rules = preset(rules_name).with_settings({"target": 2500})
    table_ = new_table(players, rules=rules_name, set={"target": 2500})
    person, rng = Threshold(400), random.Random(1)
    for _ in range(300):
        served = table_.get()
        engine = engine_state(table_, players, rules)
        if served["finished"]:
            assert served["advice"] is None
            break
        assert served["advice"] == advise(engine).to_dict(), served["version"]
        action = person.act(engine, rng)
        body: dict[str, Any] = {"version": served["version"]}
        if action.kind == "keep":
            body["dice"] = list(action.dice)
        table_.post(action.kind, body)
    else:
        raise AssertionError("the game did not finish")


def test_a_failing_strategy_leaves_the_state_without_advice(new_table, monkeypatch):
    import web.advice

    def broken(state):
        raise ValueError("no table for these rules")

    monkeypatch.setattr(web.advice, "advise", broken)
    table_ = new_table(["Ann"])
    assert table_.state["advice"] is None
    assert table_.post("throw")["advice"] is None  # the action is stored all the same
    assert table_.get()["version"] == 1


def test_a_new_ruleset_warms_every_situation(new_table):
    settings = {"target": 7350, "entry": 650, "three_farkle_penalty": 350}  # tables no other test builds
    rules = preset("farkle").with_settings(settings)
    assert len(situations(rules)) == 4
    for thread in [t for t in threading.enumerate() if t.name == "advice tables"]:
        thread.join(timeout=20)  # warming of earlier tests' rules, which holds the few slots
    new_table(["Ann"], rules="farkle", set=settings)
    for thread in [t for t in threading.enumerate() if t.name == "advice tables"]:
        thread.join(timeout=20)
    started = time.perf_counter()
    for situation in situations(rules):
        table(rules, situation, 0)
    assert time.perf_counter() - started < 0.02, "a situation's table was built on demand, not warmed"


def test_the_event_stream_carries_the_advice_of_each_version(live_server, client):
    table_ = Table(client, ["Ann", "Bob"])
    stream = EventStream(f"{live_server.url}/api/games/{table_.id}/stream")
    try:
        first, _ = stream.state_at(0)
        assert first["advice"]["throw"] is None
        thrown = throw_until_keep(table_)
        streamed, _ = stream.state_at(thrown["version"])
        assert streamed["advice"] == thrown["advice"] and streamed["advice"]["throw"] == thrown["throw"]
    finally:
        stream.close()


def test_the_pages_carry_a_panel_that_each_device_hides_for_itself(client, new_table):
    table_ = new_table(["Ann", "*Hal"])
    for view, page in (("table", "table"), ("phone", "play")):
        html = client.get(f"/games/{table_.id}/{page}?token={table_.token}").get_data(as_text=True)
        assert 'id="advice"' in html and f'data-view="{view}"' in html and 'id="advice-toggle"' in html
        assert "advice.js" in html
    script = (ROOT / "web" / "static" / "advice.js").read_text()
    # Hiding is remembered on the device only: nothing in the script talks to the server.
    assert "localStorage" in script and "fetch(" not in script and "XMLHttpRequest" not in script


# ---- in a real browser -------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_the_advice_panel_follows_the_game_and_hides_per_view(live_server, open_window):  # noqa: F811 (a fixture)
    from test_web_browser import shoot, table_and_phone, wait_for, wait_live
    from web_helpers import api_state

    game, table_window, phone = table_and_phone(live_server, open_window, ["Ann", "Bob"])
    for window in (table_window, phone):
        body = window.find_element("id", "advice-body")
        assert body.is_displayed()
        chance = f"{game['state']['advice']['farkle_chance'] * 100:.1f}%"
        assert window.find_element("id", "advice-farkle-chance").text == chance

    # A throw from the phone: both windows show the keeps with the best one marked.
    phone.find_element("id", "roll").click()
    wait_for(phone, lambda d: api_state(live_server, game["id"])["version"] >= 1, 10, "the throw was not stored")
    state = api_state(live_server, game["id"])
    while state["phase"] != "keep":  # a farkle: the next player throws
        phone.find_element("id", "roll").click()
        wait_for(phone, lambda d, v=state["version"]: api_state(live_server, game["id"])["version"] > v, 10)
        state = api_state(live_server, game["id"])
    best = next(k for k in state["advice"]["keeps"] if k["best"])
    for window in (table_window, phone):
        wait_for(
            window,
            lambda d: d.find_element("id", "advice").get_attribute("data-version") == str(state["version"]),
            10,
            "the advice did not follow the throw",
        )
        row = window.find_element("css selector", "#advice-keeps tr.best")
        assert row.get_attribute("data-dice") == ",".join(map(str, best["dice"]))
        assert len(window.find_elements("css selector", "#advice-keeps tbody tr")) == len(state["keeps"])
        assert len(row.find_elements("css selector", "td.pick")) == (1 if state["advice"]["advice"].get("then") else 0)
    shoot(table_window, "advice-table")
    shoot(phone, "advice-phone")

    # Hiding on the table view is remembered there, after a reload, and nowhere else.
    table_window.find_element("id", "advice-toggle").click()
    assert not table_window.find_element("id", "advice-body").is_displayed()
    assert table_window.find_element("id", "advice-toggle").text == "Show"
    table_window.refresh()
    wait_live(table_window)
    assert not table_window.find_element("id", "advice-body").is_displayed()
    assert phone.find_element("id", "advice-body").is_displayed()
    assert api_state(live_server, game["id"])["version"] == state["version"], "hiding changed the game"
    table_window.find_element("id", "advice-toggle").click()
    assert table_window.find_element("id", "advice-body").is_displayed()


def test_warming_never_runs_more_threads_than_its_slots(monkeypatch):
    import web.advice

    monkeypatch.setattr(web.advice, "_warm_slots", threading.BoundedSemaphore(1))
    started = []
    monkeypatch.setattr(web.advice, "_build", lambda rules: started.append(rules))  # holds its slot
    first = preset("zilch").with_settings({"entry": 1150})
    second = preset("zilch").with_settings({"entry": 1250})
    thread = web.advice.warm(first)
    assert thread is not None
    thread.join()
    assert web.advice.warm(second) is None and second not in web.advice._warmed  # tried again later
    web.advice._warm_slots.release()
    assert web.advice.warm(second) is not None

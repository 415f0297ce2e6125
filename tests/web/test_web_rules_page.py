"""The rules page: every combination and knob of a preset with its points and rule-text source."""

from __future__ import annotations

import html
import re

import pytest

from scorekeeper import PRESETS, preset
from scorekeeper.sources import combination_lines, knob_lines


def rows(page: str, table: str) -> list[list[str]]:
    body = page.split(f'id="{table}"', 1)[1].split("</table>", 1)[0]
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<td>(.*?)</td>", row)]
        for row in re.findall(r"<tr data-[a-z]+=.*?</tr>", body)
    ]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_combination_and_knob_of_each_preset_with_its_source(client, name):
    response = client.get(f"/rules/{name}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    rules = preset(name)
    expected = [
        [c.name, f"{c.points}{' wins the game' if c.instant_win else ''}", c.source] for c in combination_lines(rules)
    ]
    assert rows(page, "combinations") == expected
    assert rows(page, "knobs") == [[k.name, k.value, k.source] for k in knob_lines(rules)]
    assert f"dicekeeper rules {name}" in page


def test_the_boxcar_shows_under_the_alternative_sets(client, new_table):
    table = new_table(["Ann"], rules="wikipedia", house=["alternative-sets"], source="manual")
    page = client.get(f"/games/{table.id}/rules").get_data(as_text=True)
    names = [row[0] for row in rows(page, "combinations")]
    assert "three pairs over dice set aside (boxcar)" in names and "full house" in names
    assert "house rule alternative-sets: dice-10000-encyclopedia.md:41-43" in page


def test_a_game_rules_page_follows_a_changed_target(client, new_table):
    table = new_table(["Ann", "Bob"], rules="family", source="manual")
    table.post("target", {"target": 3000})
    page = client.get(f"/games/{table.id}/rules").get_data(as_text=True)
    assert ["target", "3000", "changed from the preset by a setting"] in rows(page, "knobs")


def test_the_index_picks_a_preset_and_unknowns_are_404(client):
    assert "The zilch rules" in client.get("/rules/?preset=zilch").get_data(as_text=True)
    assert "The family rules" in client.get("/rules/").get_data(as_text=True)
    assert client.get("/rules/poker").status_code == 404
    assert client.get("/rules/?preset=%00").status_code == 404
    assert client.get("/games/999/rules").status_code == 404

import argparse
import dataclasses

import pytest

from scorekeeper import (
    DEFAULT_PRESET,
    PRESETS,
    RulesError,
    Ruleset,
    compose_ruleset,
    house_rule,
    preset,
    ruleset_from_dict,
    ruleset_from_toml,
)


def test_presets_match_their_rule_texts():
    fam = preset("family")
    assert (fam.dice, fam.three_pairs, fam.straight, fam.instant_win, fam.starts) == (
        5,
        None,
        None,
        "none",
        "highest-roll",
    )
    fa = preset("farke")
    assert (fa.dice, fa.entry, fa.three_pairs, fa.straight, fa.instant_win) == (6, 750, 750, 1500, "six-ones")
    tt = preset("tenthousand")
    assert (tt.kinds, tt.three_pairs, tt.straight, tt.entry, tt.hot_dice, tt.finish) == (
        "per-face",
        1000,
        1500,
        500,
        "must-roll",
        "complete-round",
    )
    wk = preset("wikipedia")
    assert (wk.straight, wk.entry, wk.piggyback, wk.instant_win, wk.finish) == (
        2000,
        550,
        True,
        "six-of-a-kind",
        "last-chance",
    )
    z = preset("zilch")
    assert (z.straight, z.three_pairs, z.target_strict, z.piggyback, z.hot_dice) == (
        3000,
        1000,
        True,
        True,
        "must-roll",
    )
    assert z.pass_scores_throw and not preset("wikipedia").pass_scores_throw
    assert tt.tie_replay == "tied-only"
    st = preset("stone")
    assert (st.kinds, st.three_pairs, st.four_and_pair, st.straight, st.entry) == ("triples", 1500, True, 3000, 0)
    fk = preset("farkle")
    assert (fk.kinds, fk.two_triplets, fk.three_farkle_penalty, fk.entry) == ("flat", 2500, 1000, 500)


def test_no_preset_names_a_combination_its_dice_cannot_make():
    from scorekeeper.scoring import combinations

    for rules in PRESETS.values():
        names = {c.name for c in combinations(rules)}
        for knob, name in [
            ("three_pairs", "three pairs"),
            ("straight", "straight"),
            ("small_straight", "small straight 1-5"),
            ("full_house", "full house"),
            ("two_triplets", "two triplets"),
        ]:
            assert (getattr(rules, knob) is not None) == (name in names), (rules.name, knob)
        six = {f"6 x {face}" for face in range(1, 7)}
        assert (rules.instant_win != "none") == any(c.instant_win for c in combinations(rules)), rules.name
        assert rules.dice == 6 or not names & six


def test_unknown_preset_lists_the_known_names():
    with pytest.raises(RulesError) as info:
        preset("yahtzee")
    for name in PRESETS:
        assert name in str(info.value)


def test_settings_parse_text_values():
    rules = preset("family").with_settings(
        {"entry": "1000", "piggyback": "yes", "straight": "off", "target": "5,000", "hot_dice": "must-roll"}
    )
    assert (rules.entry, rules.piggyback, rules.straight, rules.target, rules.hot_dice) == (
        1000,
        True,
        None,
        5000,
        "must-roll",
    )
    assert rules.name == "family+"
    assert preset("family").entry == 0  # presets are immutable values


@pytest.mark.parametrize(
    "key, value",
    [
        ("entry", "lots"),
        ("dice", "4"),
        ("kinds", "squares"),
        ("piggyback", "maybe"),
        ("finish", "never"),
        ("colour", "red"),
        ("target", "-5"),
        ("three_pairs", "-1"),
        ("tie_replay", "coin"),
        ("starts", "youngest"),
        ("boxcar", "sometimes"),
    ],
)
def test_bad_settings_raise_rules_error(key, value):
    with pytest.raises(RulesError):
        preset("family").with_settings({key: value})


def test_house_rules_are_knob_settings():
    greed = preset("family").with_settings(house_rule("greed"))
    assert greed.entry == 1000
    amish = preset("family").with_settings(house_rule("amish"))
    assert amish.piggyback and not amish.piggyback_sweep
    alternative = preset("wikipedia").with_settings(house_rule("alternative-sets"))
    assert (alternative.small_straight, alternative.full_house, alternative.boxcar) == (1000, 750, True)
    with pytest.raises(RulesError, match="greed"):
        house_rule("nope")


def test_ruleset_from_toml():
    rules = ruleset_from_toml('preset = "zilch"\nname = "our table"\nentry = 1000\nstraight = "off"\n')
    assert (rules.name, rules.entry, rules.straight, rules.three_pairs) == ("our table", 1000, None, 1000)
    table = ruleset_from_toml('[rules]\npreset = "family"\nhouse = ["greed"]\n')
    assert table.entry == 1000
    with pytest.raises(RulesError):
        ruleset_from_toml("entry = = 3")
    with pytest.raises(RulesError):
        ruleset_from_toml("speed = 3")


def test_repr_shows_what_differs_from_the_preset():
    assert repr(preset("zilch")) == "Ruleset('zilch')"
    assert repr(preset("zilch").replace(entry=0)) == "Ruleset('zilch+', entry=0)"


def test_every_knob_round_trips_through_to_dict():
    for rules in PRESETS.values():
        data = rules.to_dict()
        assert set(data) == {f.name for f in dataclasses.fields(Ruleset)}
        assert Ruleset(**data) == rules


@pytest.mark.parametrize(
    "key, low, high",
    [
        ("dice", 5, 6),
        ("target", 1, 1_000_000),
        ("entry", 0, 100_000),
        ("three_farkle_penalty", 0, 100_000),
        ("straight", 50, 10_000),
        ("three_pairs", 50, 10_000),
    ],
)
def test_every_number_knob_takes_its_range_and_nothing_past_it(key, low, high):
    assert getattr(Ruleset().replace(**{key: low}), key) == low
    assert getattr(Ruleset().replace(**{key: high}), key) == high
    for outside in (low - 1, high + 1, 10**400):
        with pytest.raises(RulesError, match=f"^{key} must be .*{low}.*{high}"):
            Ruleset().replace(**{key: outside})
        with pytest.raises(RulesError, match=f"^{key} must be .*{low}.*{high}"):
            Ruleset().with_settings({key: str(outside) if outside < 10**20 else "9" * 5000})


@pytest.mark.parametrize("text", ["\u00b2", "\u0663", "\uff11", "1e3", "-5", "0x10", " ", "1" * 13])
def test_number_knobs_read_ascii_digits_only(text):
    with pytest.raises(RulesError, match="target must be a whole number from 1 to 1000000"):
        Ruleset().with_settings({"target": text})


def test_number_knobs_still_read_separators_and_spaces():
    assert Ruleset().with_settings({"target": " 12_000 ", "entry": "1,000"}).knobs()["target"] == 12000


def test_combination_points_stay_on_the_fifty_point_grid():
    with pytest.raises(RulesError, match="straight must be a multiple of 50 from 50 to 10000 or off, not 1520"):
        Ruleset(straight=1520)
    assert Ruleset().with_settings({"straight": "off"}).straight is None


def test_compose_lays_house_rules_then_knobs_over_the_preset():
    rules = compose_ruleset("zilch", ["greed", "amish"], {"entry": "750", "target": 5000})
    assert (rules.entry, rules.piggyback, rules.piggyback_sweep, rules.target) == (750, True, False, 5000)
    assert rules.straight == preset("zilch").straight and rules.name == "zilch+"
    assert compose_ruleset(preset("farkle"), "greed").entry == 1000  # a ruleset value and a single name
    assert compose_ruleset() == preset(DEFAULT_PRESET)


@pytest.mark.parametrize(
    "houses, settings, message",
    [
        (5, None, "list of house-rule names"),
        (["greed", 3], None, "list of house-rule names"),
        (["royal"], None, "unknown house rule"),
        ((), ["entry"], "knob settings must map"),
        ((), {"speed": 3}, "unknown knob"),
    ],
)
def test_compose_rejects_malformed_layers(houses, settings, message):
    with pytest.raises(RulesError, match=message):
        compose_ruleset("family", houses, settings)


def test_every_front_end_composes_the_same_ruleset():
    from dicekeeper.commands.engine import rules_from_args
    from web.games import ruleset_from_request

    args = argparse.Namespace(rules="wikipedia", house=["greed"], settings=["target=8000", "straight=off"])
    from_cli = rules_from_args(args)
    from_web = ruleset_from_request("wikipedia", {"target": 8000, "straight": None}, ["greed"])
    from_toml = ruleset_from_toml('preset = "wikipedia"\nhouse = "greed"\ntarget = 8000\nstraight = "off"\n')
    assert from_cli == from_web == from_toml
    assert (from_cli.entry, from_cli.target, from_cli.straight) == (1000, 8000, None)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_ruleset_comes_back_from_its_dict(name):
    rules = compose_ruleset(name, ["alternative-sets"], {"target": 7000})
    assert ruleset_from_dict(rules.to_dict()) == rules
    with pytest.raises(RulesError):
        ruleset_from_dict({**rules.to_dict(), "name": 7})

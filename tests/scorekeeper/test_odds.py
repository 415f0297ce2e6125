import itertools

import pytest

from scorekeeper import Ruleset, legal_keeps, odds, preset


def test_farkle_chances_of_the_common_scoring():
    found = [round(o.farkle * 100, 3) for o in odds(preset("farkle"))]
    assert found == [66.667, 44.444, 27.778, 15.741, 7.716, 2.315]


def test_expected_points_match_hooley_for_ones_fives_and_triples():
    rules = Ruleset(kinds="triples")  # extra dice beyond three count as singles
    expected = [o.expected_points for o in odds(rules)][:4]
    assert expected == pytest.approx([25, 50, 86.8056, 141.3194], abs=1e-4)


@pytest.mark.parametrize("name", ["family", "tenthousand", "stone"])
def test_odds_agree_with_brute_force_over_every_ordered_throw(name):
    rules = preset(name)
    for o in odds(rules)[:4]:
        outcomes = list(itertools.product(range(1, 7), repeat=o.dice))
        farkles = sum(1 for t in outcomes if not legal_keeps(t, rules))
        points = sum(legal_keeps(t, rules)[0].points for t in outcomes if legal_keeps(t, rules))
        assert o.farkle == pytest.approx(farkles / len(outcomes), rel=1e-12)
        assert o.expected_points == pytest.approx(points / len(outcomes), rel=1e-12)


def test_odds_benchmark(benchmark):
    from scorekeeper.scoring import _keeps_of_counts, score_table

    def cold():
        # Clear the caches so every round pays for building the ruleset's tables.
        score_table.cache_clear()
        _keeps_of_counts.cache_clear()
        return odds(preset("farkle"))

    result = benchmark(cold)
    assert len(result) == 6 and result[5].farkle == pytest.approx(0.0231481, abs=1e-6)

import pytest

from scorekeeper import DiceError, Keep, Ruleset, is_farkle, is_legal_keep, legal_keeps, preset, score


def best(faces, rules):
    keeps = legal_keeps(faces, preset(rules) if isinstance(rules, str) else rules)
    return keeps[0].points if keeps else 0


# Worked examples from the rule texts.
@pytest.mark.parametrize(
    "rules, faces, points",
    [
        ("tenthousand", [3, 4, 3, 2, 3, 3], 600),
        ("tenthousand", [5, 6, 3, 3, 4, 3], 350),
        ("tenthousand", [1, 6, 5, 5], 200),
        ("tenthousand", [1, 1, 6, 5, 5, 6], 1000),
        ("tenthousand", [2, 1, 4, 6, 5, 3], 1500),
        ("tenthousand", [4, 4, 4, 4], 800),
        ("tenthousand", [4, 4, 4, 4, 4], 1600),
        ("tenthousand", [4, 4, 4, 4, 4, 4], 4000),
        ("tenthousand", [1, 1, 1, 1, 1, 1], 10000),
        ("tenthousand", [1, 1, 1, 1, 1], 4000),
        ("tenthousand", [5, 5, 5, 5, 5], 2000),
        ("family", [2, 2, 2, 2, 3], 400),
        ("family", [1, 5, 5, 2, 6], 200),
        ("family", [1, 4], 100),
        ("wikipedia", [4, 4, 4, 4, 4], 1600),
        ("wikipedia", [1, 2, 3, 4, 5, 6], 2000),
        ("wikipedia", [2, 2, 3, 3, 6, 6], 750),
        ("zilch", [1, 2, 3, 4, 5, 6], 3000),
        ("zilch", [2, 2, 3, 3, 6, 6], 1000),
        ("zilch", [3, 3, 3, 3], 600),
        ("zilch", [3, 3, 3, 3, 3], 1200),
        ("zilch", [3, 3, 3, 3, 3, 3], 2400),
        ("stone", [1, 3, 3, 4, 4, 6], 100),
        ("stone", [2, 2, 2, 3, 4], 200),
        ("stone", [5, 5], 100),
        ("stone", [5, 5, 5, 2, 4, 4], 500),
        ("stone", [2, 2, 2, 2, 3, 3], 1500),
        ("stone", [1, 2, 3, 4, 5, 6], 3000),
        ("stone", [2, 2, 2, 2], 200),
        ("stone", [1, 1, 1, 1, 1], 1200),
        ("farkle", [2, 2, 2, 2], 1000),
        ("farkle", [6, 6, 6, 6, 6], 2000),
        ("farkle", [3, 3, 3, 3, 3, 3], 3000),
        ("farkle", [4, 4, 4, 6, 6, 6], 2500),
        ("farkle", [2, 2, 2, 2, 3, 3], 1500),
        ("farkle", [1, 2, 3, 4, 5, 6], 1500),
    ],
)
def test_worked_examples(rules, faces, points):
    assert best(faces, rules) == points


@pytest.mark.parametrize("rules", ["tenthousand", "stone"])
def test_scoreless_throws_are_farkles(rules):
    assert is_farkle([2, 2, 3, 4, 4, 6], preset(rules))
    assert legal_keeps([2, 3, 4, 6, 6, 2], preset(rules)) == ()


def test_keep_lists_are_sorted_and_complete_for_a_small_throw():
    keeps = legal_keeps([1, 5, 2], preset("family"))
    assert keeps == (Keep((1, 5), 150), Keep((1,), 100), Keep((5,), 50))


def test_dice_beyond_a_triple_count_as_singles_under_triples():
    rules = preset("stone")
    assert score([5, 5, 5, 5], rules) == 550
    assert score([2, 2, 2, 2], rules) is None  # the fourth 2 does not score


def test_four_and_a_pair_is_three_pairs_only_when_the_knob_is_on():
    on = preset("farkle")
    off = on.replace(four_and_pair=False)
    assert score([3, 3, 3, 3, 4, 4], on) == 1500
    assert score([3, 3, 3, 3, 4, 4], off) is None


def test_small_straight_and_full_house_from_the_alternative_set():
    rules = preset("wikipedia").with_settings({"small_straight": "1000", "full_house": "750"})
    assert score([1, 2, 3, 4, 5], rules) == 1000
    assert score([2, 3, 4, 5, 6], rules) == 1000  # the 5 belongs to the straight, it does not score again
    assert score([2, 2, 2, 3, 3], rules) == 750
    assert score([2, 3, 4, 5, 6], preset("wikipedia")) is None


def test_instant_win_flags():
    assert legal_keeps([1] * 6, preset("farke"))[0].instant_win
    assert not legal_keeps([2] * 6, preset("farke"))[0].instant_win
    assert legal_keeps([2] * 6, preset("wikipedia"))[0].instant_win
    assert not legal_keeps([1] * 6, preset("tenthousand"))[0].instant_win


def test_flat_kinds_score_the_same_for_every_face():
    rules = Ruleset(kinds="flat")
    assert {score([f] * 4, rules) for f in (2, 3, 4, 6)} == {1000}
    # Four 1s split better as three 1s (1000) and a single 1 (100) than as four of a kind.
    assert score([1] * 4, rules) == 1100


def test_is_legal_keep():
    rules = preset("farkle")
    assert is_legal_keep([1, 5], [1, 5, 2, 3, 4, 4], rules)
    assert not is_legal_keep([1, 1], [1, 5, 2, 3, 4, 4], rules)  # only one 1 was thrown
    assert not is_legal_keep([1, 2], [1, 5, 2, 3, 4, 4], rules)  # the 2 does not score
    assert not is_legal_keep([9], [1, 5, 2, 3, 4, 4], rules)


@pytest.mark.parametrize("bad", [[0], [7], ["x"], [1.5], [True], "123", []])
def test_malformed_dice_raise_dice_error(bad):
    with pytest.raises(DiceError):
        legal_keeps(bad, preset("farkle"))


def test_more_dice_than_the_ruleset_has():
    with pytest.raises(DiceError, match="played with 5"):
        legal_keeps([1, 2, 3, 4, 5, 6], preset("family"))


def test_listing_keeps_benchmark(benchmark):
    rules = preset("farkle")
    throws = [(1, 1, 5, 2, 3, 3), (2, 3, 4, 6, 6, 2), (1, 2, 3, 4, 5, 6), (5, 5, 5, 1, 4, 4)]
    legal_keeps(throws[0], rules)  # the ruleset's table is built once

    def run():
        return [legal_keeps(t, rules) for t in throws]

    result = benchmark(run)
    assert [len(k) for k in result] == [len(legal_keeps(t, rules)) for t in throws]


def test_listing_keeps_uncached_benchmark(benchmark):
    """The cost without the per-throw cache: every sub-multiset looked up in the ruleset's table."""
    from scorekeeper.dice import counts_of
    from scorekeeper.scoring import _keeps_of_counts

    rules = preset("farkle")
    counts = counts_of((1, 1, 5, 2, 3, 3))
    compute = _keeps_of_counts.__wrapped__
    compute(counts, rules)
    keeps = benchmark(compute, counts, rules)
    assert keeps == legal_keeps((1, 1, 5, 2, 3, 3), rules)

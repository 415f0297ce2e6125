"""The fast median gives `np.median`'s numbers to the bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vision.read.median import median

_shapes = hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=40)


@given(hnp.arrays(np.uint8, _shapes))
def test_bytes_match_numpy(values: np.ndarray) -> None:
    expected = np.median(values, axis=0)
    got = median(values)
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected)


@given(hnp.arrays(np.float32, _shapes, elements=st.floats(-300, 300, width=32)))
def test_float32_matches_numpy(values: np.ndarray) -> None:
    expected = np.median(values, axis=0)
    got = median(values)
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected)


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30))
def test_a_list_of_floats_matches_numpy(values: list[float]) -> None:
    assert float(median(values)) == float(np.median(values))


def test_even_and_odd_counts() -> None:
    assert float(median([3, 1, 2])) == 2.0
    assert float(median([4, 1, 3, 2])) == 2.5
    assert median(np.array([[1, 10], [3, 30]], np.uint8)).tolist() == [2.0, 20.0]


def test_no_values_is_an_error() -> None:
    with pytest.raises(ValueError, match="no values"):
        median([])

"""A median along the first axis, the same to the bit as `np.median`, for small arrays.

A die's region is read with some ninety medians a frame, most of a few pixels or pips, where
`np.median` spends far longer on its checks than on the values; a partial sort gives the same
numbers in a tenth of the time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def median(values: np.ndarray | Sequence[float]) -> np.ndarray:
    """`np.median(values, axis=0)`: the middle value along the first axis, or the mean of the
    two middle ones, in `np.median`'s type (float64 for integers). The array must not be empty
    nor hold NaN."""
    array = np.asarray(values)
    count = array.shape[0]
    if count == 0:
        raise ValueError("the median of no values")
    half = count // 2
    if count % 2:
        middle = np.partition(array, half, axis=0)[half]
        return middle.astype(np.float64) if array.dtype.kind in "biu" else middle
    ordered = np.partition(array, (half - 1, half), axis=0)
    low, high = ordered[half - 1], ordered[half]
    if array.dtype.kind in "biu":
        low, high = low.astype(np.float64), high.astype(np.float64)
    return np.asarray((low + high) / 2)

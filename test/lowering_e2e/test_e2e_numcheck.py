"""The comparison helper itself: it accepts what it should and rejects the rest."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numcheck import assert_bitexact, assert_ulps, check, sum_abs  # noqa: E402


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_ulps(dt):
    w = np.array([1.0, -3.0, 1e-30, 0.0], dtype=dt)
    g = np.nextafter(np.nextafter(w, dt(np.inf)), dt(np.inf))  # 2 ulps up
    assert_ulps(g, w, 2)
    with pytest.raises(AssertionError):
        assert_ulps(g, w, 1)
    with pytest.raises(AssertionError):
        assert_ulps(g.astype(np.float64 if dt is np.float32 else np.float32), w, 4)  # dtype differs
    with pytest.raises(AssertionError):
        assert_ulps(g[:3], w[:3].reshape(3, 1), 4)  # shape differs


def test_nan_inf_and_zero_sign():
    w = np.array([np.nan, np.inf, -0.0])
    assert_ulps(np.array([np.nan, np.inf, 0.0]), w, 1)
    with pytest.raises(AssertionError):
        assert_ulps(np.array([1.0, np.inf, 0.0]), w, 1)
    with pytest.raises(AssertionError):
        assert_ulps(np.array([np.nan, -np.inf, 0.0]), w, 1)
    assert_bitexact(np.array([np.nan, np.inf, -0.0]), w)
    with pytest.raises(AssertionError):
        assert_bitexact(np.array([np.nan, np.inf, 0.0]), w)
    assert_bitexact(np.array([np.nan, np.inf, 0.0]), w, zero_sign=False)


def test_reduction_scale():
    x = np.array([1e17, 1.0, -1e17])
    # summed in another order the 1.0 may be lost: within a few ulps of sum|x|
    check((np.float64(0.0),), (np.float64(1.0),), ("reduce", 4, lambda x: sum_abs(x, (0,))), (x,))
    with pytest.raises(AssertionError):
        check((np.float64(0.0),), (np.float64(1.0),), ("ulps", 4))
    with pytest.raises(AssertionError):
        check((np.float64(1e-6),), (np.float64(1.0),), ("reduce", 4, lambda x: 1.0), (x,))


def test_integers_and_bools_must_be_equal():
    assert_ulps(np.array([1, 2], np.int32), np.array([1, 2], np.int32), 4)
    with pytest.raises(AssertionError):
        assert_ulps(np.array([1, 3], np.int32), np.array([1, 2], np.int32), 4)
    with pytest.raises(AssertionError):
        check((np.array([True]),), (np.array([False]),), "exact")

"""posenc.validate, the one validation idiom: what each check accepts, what it refuses, and the sentence it says."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc.validate import HEAD_D, MAX_D, MAX_D_LAB, MAX_D_PAGE, ROPE_PAIRS, real, whole, width


# ---------------------------------------------------------------- whole
@given(st.integers(-10**12, 10**12), st.integers(-10**12, 10**12))
def test_whole_keeps_every_int_in_range_and_refuses_the_rest(v, other):
    lo, hi = min(v, other), max(v, other)
    assert whole(v, "x", lo, hi) == v
    for out in (lo - 1, hi + 1):
        with pytest.raises(ValueError, match=f"^x must be between {lo:,} and {hi:,}; got {out:,}.$"):
            whole(out, "x", lo, hi)


@pytest.mark.parametrize("kind", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64])
def test_whole_takes_numpy_ints_and_gives_back_a_python_int(kind):
    v = whole(kind(7), "x", 0, 10)
    assert v == 7 and type(v) is int


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), 3.0, 2.5, np.float64(4.0), float("nan"), float("inf"),
                                 "3", None, [3], 3 + 0j])
def test_whole_refuses_what_is_not_a_whole_number(bad):
    """bool is an int subclass, 3.0 equals 3: both are still refused, so a float never slips in as a count."""
    with pytest.raises(ValueError, match=f"^The count must be a whole number; got {re.escape(repr(bad))}.$"):
        whole(bad, "The count", 0, 10)


def test_whole_without_an_upper_bound():
    assert whole(10**30, "n", 1, math.inf) == 10**30
    with pytest.raises(ValueError, match="^n must be at least 1; got 0.$"):
        whole(0, "n", 1, math.inf)


def test_whole_writes_big_bounds_with_thousands_separators():
    with pytest.raises(ValueError, match="between 0 and 10,000,000; got 10,000,001"):
        whole(10_000_001, "The position", 0, 10_000_000)


# ---------------------------------------------------------------- real
@given(st.floats(-1e6, 1e6), st.floats(0, 1e6))
def test_real_keeps_every_finite_number_in_range(v, span):
    assert real(v, "x", v, v + span) == v
    assert real(v + span, "x", v, v + span) == v + span


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), np.float64("nan"), np.float32("inf")])
def test_real_refuses_nan_and_inf(bad):
    with pytest.raises(ValueError, match=r"^x must be a number in \[0, 1\]; got"):
        real(bad, "x", 0.0, 1.0)


def test_real_takes_ints_and_numpy_numbers_and_gives_back_a_float():
    for v in (1, np.int64(1), np.float32(1.0), np.float64(1.0)):
        out = real(v, "x", 0.0, 2.0)
        assert out == 1.0 and type(out) is float


@pytest.mark.parametrize("bad", [True, "1.5", None, 1j, [1.0]])
def test_real_refuses_what_is_not_a_number(bad):
    with pytest.raises(ValueError, match=f"^x must be a number; got {re.escape(repr(bad))}.$"):
        real(bad, "x", 0.0, 2.0)


def test_real_open_lower_bound_refuses_the_bound_itself():
    assert real(1e-300, "h", 0.0, 1.0, open_lo=True) == 1e-300
    with pytest.raises(ValueError, match=r"^h must be a number in \(0, 1\]; got 0.0.$"):
        real(0.0, "h", 0.0, 1.0, open_lo=True)
    assert real(0.0, "h", 0.0, 1.0) == 0.0  # closed: the bound is allowed


@pytest.mark.parametrize("lo, hi, open_lo, value, says", [
    (1.0, math.inf, True, 1.0, "a number greater than 1"),
    (1.0, math.inf, False, 0.5, "a number of at least 1"),
    (-math.inf, 0.0, False, 0.5, "a number of at most 0"),
    (-math.inf, math.inf, False, math.nan, "a finite number"),
    (-1.0, 1.0, False, 1.5, r"a number in \[-1, 1\]"),
])
def test_real_says_the_range_in_words(lo, hi, open_lo, value, says):
    with pytest.raises(ValueError, match=f"^The base must be {says}; got"):
        real(value, "The base", lo, hi, open_lo=open_lo)


# ---------------------------------------------------------------- width and the caps
def test_the_caps_nest():
    """The lab trains at most what the sidebar offers, which is at most what the maths accepts."""
    assert MAX_D_LAB <= MAX_D_PAGE <= MAX_D


@pytest.mark.parametrize("d", [2, 3, 64, 511, MAX_D])
def test_width_keeps_any_width_in_range(d):
    assert width(d) == d


@pytest.mark.parametrize("d", [1, 0, -2, MAX_D + 1])
def test_width_refuses_out_of_range(d):
    with pytest.raises(ValueError, match=f"^The model width d must be between 2 and {MAX_D:,}; got {d:,}.$"):
        width(d)


@pytest.mark.parametrize("d", [64.0, True, "64", np.float64(64)])
def test_width_refuses_a_width_that_is_not_whole(d):
    with pytest.raises(ValueError, match="^The model width d must be a whole number"):
        width(d)


@pytest.mark.parametrize("d", [3, 63, MAX_D - 1])
def test_width_even_refuses_odd_widths_and_says_why(d):
    assert width(d) == d  # odd is fine where nothing is paired
    with pytest.raises(ValueError, match=f"^The model width d = {d} is odd: sines and cosines come in "
                                         r"\(sin, cos\) pairs, so it must be even.$"):
        width(d, even=True)


def test_width_with_its_own_name_bounds_and_reason():
    assert width(np.int64(4), name=HEAD_D, lo=4, even=True, why=ROPE_PAIRS) == 4
    with pytest.raises(ValueError, match=r"^d \(the head dimension\) must be between 4 and 1,024; got 2.$"):
        width(2, name=HEAD_D, lo=4, even=True, why=ROPE_PAIRS)
    with pytest.raises(ValueError, match=r"^d \(the head dimension\) = 7 is odd: RoPE turns the dimensions in pairs"):
        width(7, name=HEAD_D, lo=4, even=True, why=ROPE_PAIRS)
    with pytest.raises(ValueError, match=f"between 2 and {MAX_D_LAB}; got {MAX_D_LAB + 2}"):
        width(MAX_D_LAB + 2, hi=MAX_D_LAB, even=True)

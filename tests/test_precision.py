"""Tests for posenc.precision: float32 angles, bfloat16 rounding, RoPE's offset invariance in finite precision."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc.precision import angle_error_f32, angle_errors_f32, rope_offset_error, to_bf16

# ---------------------------------------------------------------- bfloat16


def test_bf16_reference_values():
    assert np.array_equal(to_bf16([257.0, 256.0, 258.0]), [256.0, 256.0, 258.0])
    # 259 lies halfway between 258 and 260; ties go to the even significand (260 = 1.0000010b·2^8)
    assert to_bf16(259.0) == 260.0
    assert to_bf16(-257.0) == -256.0


def test_bf16_integers_exact_up_to_256():
    ints = np.arange(0, 257, dtype=np.float64)
    assert np.array_equal(to_bf16(ints), ints)


def test_bf16_special_values():
    out = to_bf16([np.inf, -np.inf, np.nan, 0.0, -0.0])
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])
    assert out[3] == 0.0 and out[4] == 0.0
    assert out.dtype == np.float64
    # float32's largest value is past bf16's largest + half a step: it rounds up to inf (as hardware does)
    assert to_bf16(np.finfo(np.float32).max) == np.inf


def _bf16_neighbours(x: float) -> tuple[float, float]:
    """The two bf16 values around float32(x), found by truncating the float32 bit pattern (struct, not numpy)."""
    (bits,) = struct.unpack("<I", struct.pack("<f", x))
    down = bits & 0xFFFF0000
    up = down + 0x10000
    to_f = lambda b: struct.unpack("<f", struct.pack("<I", b))[0]  # noqa: E731
    return to_f(down), to_f(up)


finite_f32 = st.floats(allow_nan=False, allow_infinity=False, width=32)


@given(x=finite_f32)
def test_bf16_is_nearest_neighbour(x):
    y = float(to_bf16(x))
    a, b = _bf16_neighbours(x)
    assert y in (a, b)
    # IEEE rounding treats the step past the largest finite value as 2^128, which is stored as ±inf
    as_num = lambda v: math.copysign(2.0**128, v) if math.isinf(v) else v  # noqa: E731
    assert abs(as_num(y) - x) <= abs(as_num(b if y == a else a) - x)  # never the farther one
    # representable: the low 16 bits of its float32 pattern are zero
    assert struct.unpack("<I", struct.pack("<f", y))[0] & 0xFFFF == 0


@given(x=st.floats(min_value=1e-30, max_value=1e30, allow_nan=False))
def test_bf16_relative_error_at_most_half_ulp(x):
    # 8 significant bits -> relative error ≤ 2^-8 (plus the float32 rounding before)
    assert abs(float(to_bf16(x)) - x) <= x * (2.0**-8 + 2.0**-23)


def test_bf16_positions_collapse():
    positions = np.arange(256, 1024, dtype=np.float64)
    assert np.unique(to_bf16(positions)).size < positions.size / 2


# ---------------------------------------------------------------- float32 angles


def test_angle_error_small_positions_tiny():
    err = angle_error_f32(np.arange(0, 1001), 128)
    assert err[0] == 0.0
    assert np.all(err < 1e-3)
    assert np.all(err >= 0)


def test_angle_error_at_five_million():
    # REFERENCES: at p = 5e6 the float32 angle is off by up to ~0.4 rad
    err = float(angle_error_f32(5_000_000, 128))
    assert 0.05 < err < 1.0
    # worst case bound: float32 rounding of θ (≤ 2^-24 relative) plus of the product (half an ulp of p·θ ≤ 0.25)
    assert err <= 5_000_000 * 2.0**-24 + 0.25 + 1e-9


def test_angle_error_grows_with_position():
    pos = np.array([10.0, 1e3, 1e5, 1e7])
    err = angle_error_f32(pos, 64)
    assert err.shape == (4,)
    assert np.all(np.diff(err) > 0)


def test_angle_error_bad_inputs():
    with pytest.raises(ValueError, match="negative"):
        angle_error_f32([-1, 2], 64)
    with pytest.raises(ValueError):
        angle_error_f32([1, 2], 63)


# ---------------------------------------------------------------- offset invariance


def test_offset_invariance_float64_holds_float32_breaks():
    e64 = float(rope_offset_error(5_000_000, 10, 128, "float64"))
    e32 = float(rope_offset_error(5_000_000, 10, 128, "float32"))
    assert e64 < 1e-6
    assert e32 > 1e-3
    assert e32 > 1e4 * e64


def test_offset_error_float32_typical_size():
    # over several q, k the float32 drift at 5e6 is clearly visible; float64 stays ~1e-9 or better
    e32 = [float(rope_offset_error(5_000_000, 10, 128, np.float32, seed=s)) for s in range(10)]
    e64 = [float(rope_offset_error(5_000_000, 10, 128, np.float64, seed=s)) for s in range(10)]
    assert np.median(e32) > 5e-3
    assert max(e64) < 1e-8


def test_offset_error_zero_at_origin_and_small_nearby():
    errs = rope_offset_error(np.array([0, 1, 10, 100]), 7, 64, "float32")
    assert errs.shape == (4,)
    assert errs[0] == 0.0
    assert np.all(errs < 1e-4)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_offset_error_is_exactly_zero_at_the_origin_wherever_it_sits_in_a_batch(dtype):
    """first_drift searches in batches: m = 0 must drift by exactly 0 in any batch, first, in the middle or alone."""
    for ms in ([0.0], [0.0, 5.0, 9.0], [3.0, 0.0, 7.0, 11.0, 2.0], [float(m) for m in range(50, 0, -7)] + [0.0]):
        errs = rope_offset_error(np.array(ms), 3, 64, dtype)
        assert errs[ms.index(0.0)] == 0.0, (dtype, ms)


def test_offset_error_bf16_breaks_early():
    # bf16 cannot tell 1000 from 1001 apart (spacing 4 or 8 there) -> large drift already at m = 1000
    assert float(rope_offset_error(1000, 1, 64, "bfloat16")) > 1e-2


def test_offset_error_float16_overflow_is_explained():
    with pytest.raises(ValueError, match="float16"):
        rope_offset_error(100_000, 1, 64, "float16")


@given(m=st.integers(0, 10_000_000), gap=st.integers(0, 2048))
def test_float64_invariance_property(m, gap):
    assert float(rope_offset_error(m, gap, 64, "float64")) < 1e-6


def test_offset_error_bad_inputs():
    with pytest.raises(ValueError):
        rope_offset_error(-5, 1, 64)
    with pytest.raises(ValueError):
        rope_offset_error(5, -1, 64)
    with pytest.raises(ValueError):
        rope_offset_error(5, 1, 64, dtype="int32")
    with pytest.raises(ValueError):
        rope_offset_error(5, 1, 65)


# ---------------------------------------------------------------- every pair at one position


def _f32(x: float) -> float:
    """Round a Python float to float32 with struct (independent of numpy)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def test_angle_errors_per_pair_by_struct():
    # fl32(fl32(p)·fl32(θ_i)): the exact product of two float32s fits a double, so rounding it once to float32 is
    # IEEE float32 multiplication
    p, d = 5_000_000, 128
    e = angle_errors_f32(p, d)
    for i in range(d // 2):
        theta = 10000.0 ** (-2 * i / d)
        t32 = _f32(theta)
        exact = p * theta
        assert e.angle[i] == pytest.approx(exact, rel=1e-15)
        assert e.error[i] == pytest.approx(abs(_f32(_f32(p) * t32) - exact), abs=1e-9)
        assert e.theta_part[i] == pytest.approx(p * abs(t32 - theta), abs=1e-9)
        assert e.product_part[i] == pytest.approx(abs(_f32(p * t32) - p * t32), abs=1e-9)
        # the float32 grid step at p·θ: 2^(e − 23) for 2^e ≤ p·θ < 2^(e+1)
        assert e.spacing[i] == 2.0 ** (math.floor(math.log2(exact)) - 23)
        assert e.product_part[i] <= e.spacing[i] / 2
        assert e.error[i] <= e.theta_part[i] + e.product_part[i] + 1e-12


def test_the_fastest_pair_is_exact_below_2_to_the_24():
    # θ_0 = 1 and an integer p < 2^24 are float32 numbers, and so is their product
    for p in (1, 1000, 5_000_000, 2**24 - 1):
        assert angle_errors_f32(p, 64).error[0] == 0.0


def test_the_worst_pair_is_the_max_and_not_pair_zero_at_five_million():
    e = angle_errors_f32(5_000_000, 128)
    assert e.error.max() == float(angle_error_f32(5_000_000, 128))
    worst = int(np.argmax(e.error))
    assert worst != 0
    # it is among the fast pairs: its angle is within a factor 4 of the largest
    assert e.angle[worst] > e.angle[0] / 4

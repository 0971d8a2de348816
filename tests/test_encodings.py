"""Properties of posenc.encodings: sinusoids and their shift rule, RoPE, binary codes.

Every expected value is derived independently (trig identities, complex rotation, powers of two),
never copied from the functions' output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc import chapter
from posenc.encodings import MAX_POSITION, binary, frequencies, rope, rope_score, shift_matrix, sinusoidal

EPS = np.finfo(np.float64).eps
even_d = st.integers(min_value=1, max_value=64).map(lambda h: 2 * h)  # 2 … 128
bases = st.sampled_from([100.0, 10000.0, 500000.0])
positions = st.integers(min_value=0, max_value=MAX_POSITION)
offsets = st.integers(min_value=-5000, max_value=5000)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _angle_tol(*xs: float) -> float:
    """Float64 angles p·ω carry an absolute error ~ eps·|p|: the tolerance grows with the position."""
    return 4 * EPS * sum(abs(x) for x in xs) + 1e-12


# ---------------------------------------------------------------- frequencies and wavelengths


@settings(deadline=None)
@given(even_d, bases)
def test_frequencies_are_a_geometric_ladder(d, base):
    w = frequencies(d, base)
    assert w.shape == (d // 2,)
    assert w[0] == 1.0  # first pair: ω = base^0
    i = np.arange(d // 2)
    np.testing.assert_allclose(w, base ** (-2.0 * i / d), rtol=1e-14)
    assert np.all(np.diff(w) < 0)


@settings(deadline=None)
@given(even_d, bases)
def test_wavelengths_run_from_2pi_towards_2pi_base(d, base):
    lam = 2 * np.pi / frequencies(d, base)
    assert lam[0] == pytest.approx(2 * np.pi, rel=1e-15)  # first pair period 2π
    assert np.all(lam >= 2 * np.pi * (1 - 1e-15))
    assert np.all(lam < 2 * np.pi * base)
    # one more rung of the ladder (ratio base^(2/d)) would reach exactly 2π·base
    assert lam[-1] * base ** (2 / d) == pytest.approx(2 * np.pi * base, rel=1e-12)
    if d >= 4:
        np.testing.assert_allclose(lam[1:] / lam[:-1], base ** (2 / d), rtol=1e-12)


@pytest.mark.parametrize("base, says", [(1.0, "a number greater than 1; got 1.0"), (0.5, "a number greater than 1"),
                                        (float("nan"), "a number greater than 1"), (float("inf"), "a number greater than 1"),
                                        ("10000", "a number; got '10000'"), (True, "a number; got True")])
def test_frequencies_reject_a_bad_base(base, says):
    with pytest.raises(ValueError, match=rf"The base \(the paper uses {chapter.BASE:g}\) must be {says}"):
        frequencies(8, base=base)


def test_frequencies_reject_an_odd_d():
    with pytest.raises(ValueError, match="The model width d = 7 is odd: sines and cosines come in"):
        frequencies(7)


def test_every_default_base_is_the_chapters():
    """The base has one home, ``chapter.BASE``: every function with a ``base`` argument defaults to it."""
    import inspect

    from posenc import beyond, binary_codes, encodings, rope_demo, sinusoid_demo, stretch

    defaults = {f"{m.__name__}.{name}": p.default
                for m in (encodings, sinusoid_demo, rope_demo, stretch, beyond, binary_codes)
                for name, f in vars(m).items() if inspect.isfunction(f) and f.__module__ == m.__name__
                for p in inspect.signature(f).parameters.values() if p.name == "base"
                and p.default is not inspect.Parameter.empty}
    assert len(defaults) > 10  # the scan sees the functions
    assert {k: v for k, v in defaults.items() if v is not chapter.BASE} == {}


# ---------------------------------------------------------------- sinusoidal


@pytest.mark.parametrize("d", [3, 5, 63, 511])
def test_sinusoidal_odd_d_is_a_clear_error(d):
    with pytest.raises(ValueError, match="even"):
        sinusoidal([0, 1], d)


@pytest.mark.parametrize("d", [1, 0, -4, 2048])
def test_sinusoidal_d_out_of_range(d):
    with pytest.raises(ValueError, match="between"):
        sinusoidal([0], d)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_sinusoidal_rejects_non_finite_positions(bad):
    with pytest.raises(ValueError, match="finite"):
        sinusoidal([0, bad], 8)


@settings(deadline=None)
@given(even_d)
def test_pe_zero_is_sin0_cos0(d):
    pe0 = sinusoidal(0, d)[0]
    expected = np.tile([0.0, 1.0], d // 2)
    np.testing.assert_array_equal(pe0, expected)


@settings(deadline=None)
@given(even_d, st.lists(positions, min_size=1, max_size=8))
def test_sinusoidal_shape_range_and_norm(d, ps):
    pe = sinusoidal(ps, d)
    assert pe.shape == (len(ps), d)
    assert np.all(np.abs(pe) <= 1.0)
    # each (sin, cos) pair has length 1, so |PE(p)|² = d/2
    np.testing.assert_allclose(np.sum(pe**2, axis=1), d / 2, rtol=1e-12)


@settings(deadline=None)
@given(even_d, positions, bases)
def test_sinusoidal_matches_the_formula_by_hand(d, p, base):
    pe = sinusoidal([p], d, base)[0]
    for i in {0, d // 4, d // 2 - 1}:
        angle = p / base ** (2 * i / d)
        assert pe[2 * i] == pytest.approx(math.sin(angle), abs=_angle_tol(p))
        assert pe[2 * i + 1] == pytest.approx(math.cos(angle), abs=_angle_tol(p))


@settings(max_examples=300, deadline=None)
@given(even_d, positions, offsets, bases)
def test_shift_rule_pe_p_plus_k_is_a_rotation_of_pe_p(d, p, k, base):
    """sinusoidal(p + k) == sinusoidal(p) @ shift_matrix(k).T, for every p up to MAX_POSITION."""
    lhs = sinusoidal([p + k], d, base)
    rhs = sinusoidal([p], d, base) @ shift_matrix(k, d, base).T
    err = np.max(np.abs(lhs - rhs))
    assert err <= _angle_tol(p, k), err


@settings(deadline=None)
@given(even_d, st.lists(positions, min_size=2, max_size=20, unique=True), offsets)
def test_one_shift_matrix_serves_every_position(d, ps, k):
    """M_k is built from k alone: one matrix moves every row of the table by k."""
    ps = np.asarray(ps, dtype=float)
    M = shift_matrix(k, d)
    err = np.max(np.abs(sinusoidal(ps + k, d) - sinusoidal(ps, d) @ M.T))
    assert err <= _angle_tol(ps.max(), k)


@settings(deadline=None)
@given(even_d, st.floats(min_value=-1e4, max_value=1e4), st.floats(min_value=-1e4, max_value=1e4))
def test_shift_matrices_are_rotations_that_compose(d, a, b):
    Ma, Mb = shift_matrix(a, d), shift_matrix(b, d)
    np.testing.assert_allclose(Ma @ Ma.T, np.eye(d), atol=1e-12)
    np.testing.assert_allclose(Ma @ Mb, shift_matrix(a + b, d), atol=_angle_tol(a, b) * 4)
    np.testing.assert_allclose(Ma.T, shift_matrix(-a, d), atol=1e-15)
    np.testing.assert_array_equal(shift_matrix(0, d), np.eye(d))


@settings(max_examples=200, deadline=None)
@given(even_d, st.lists(positions, min_size=2, max_size=6), offsets, bases)
def test_dot_product_depends_on_the_offset_only(d, ps, k, base):
    """PE(p)·PE(p+k) = Σ_i cos(ω_i k), the same for every p."""
    ps = np.asarray(ps, dtype=float)
    dots = np.sum(sinusoidal(ps, d, base) * sinusoidal(ps + k, d, base), axis=1)
    expected = sum(math.cos(k * base ** (-2 * i / d)) for i in range(d // 2))
    tol = d * _angle_tol(ps.max(), k)
    np.testing.assert_allclose(dots, expected, atol=tol)


# ---------------------------------------------------------------- RoPE


def _complex_rope(x: np.ndarray, p: float, base: float = 10000.0) -> np.ndarray:
    """RoPE as complex multiplication: (x_2i + i x_2i+1) · e^{i p ω_i} — an independent derivation."""
    d = x.shape[-1]
    w = np.array([base ** (-2 * i / d) for i in range(d // 2)])
    z = (x[0::2] + 1j * x[1::2]) * np.exp(1j * p * w)
    out = np.empty(d)
    out[0::2], out[1::2] = z.real, z.imag
    return out


@settings(deadline=None)
@given(even_d, seeds, st.integers(min_value=0, max_value=100_000))
def test_rope_is_complex_rotation(d, seed, p):
    x = np.random.default_rng(seed).standard_normal(d)
    y = rope(x[None, :], [p])[0]
    np.testing.assert_allclose(y, _complex_rope(x, p), atol=1e-12 + 4 * EPS * p * np.abs(x).max())


@settings(deadline=None)
@given(even_d, seeds, st.lists(positions, min_size=1, max_size=8))
def test_rope_preserves_norms(d, seed, ps):
    x = np.random.default_rng(seed).standard_normal((len(ps), d))
    y = rope(x, ps)
    np.testing.assert_allclose(np.linalg.norm(y, axis=1), np.linalg.norm(x, axis=1), rtol=1e-12)


@settings(deadline=None)
@given(even_d, seeds)
def test_rope_at_position_zero_is_identity(d, seed):
    x = np.random.default_rng(seed).standard_normal((3, d))
    np.testing.assert_array_equal(rope(x, [0, 0, 0]), x)


@settings(deadline=None)
@given(even_d, seeds, st.integers(min_value=0, max_value=1000), st.integers(min_value=0, max_value=1000))
def test_rope_single_1d_vector(d, seed, m, n):
    """A single vector of shape (d,) is one row: the result has shape (1, d), like ``rope(x[None], [p])``.

    (posenc.rope_demo and rope_score rely on this: ``rope(q, [m])[0]`` is the turned vector.)
    """
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    for p in (m, [m], np.array([m])):
        y = rope(q, p)
        assert y.shape == (1, d)
        np.testing.assert_array_equal(y, rope(q[None, :], [m]))
    assert np.linalg.norm(y) == pytest.approx(np.linalg.norm(q), rel=1e-12)
    score = float(rope(q, [m])[0] @ rope(k, [n])[0])
    assert score == pytest.approx(rope_score(q, k, m, n), rel=1e-12, abs=1e-12)
    with pytest.raises(ValueError, match="positions"):
        rope(q, [m, n])  # one vector, two positions


def test_rope_batched_leading_axes():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 8))  # (…, n, d)
    y = rope(x, [0, 5, 11, 40])
    assert y.shape == x.shape
    for idx in np.ndindex(2, 3):
        np.testing.assert_array_equal(y[idx], rope(x[idx], [0, 5, 11, 40]))


def test_rope_errors():
    with pytest.raises(ValueError, match="odd"):
        rope(np.ones((2, 5)), [0, 1])
    with pytest.raises(ValueError, match="positions"):
        rope(np.ones((3, 4)), [0, 1])
    with pytest.raises(ValueError, match="finite"):
        rope(np.ones((1, 4)), [np.nan])


@settings(max_examples=200, deadline=None)
@given(even_d, seeds, st.integers(min_value=0, max_value=1000), st.integers(min_value=0, max_value=1000),
       st.integers(min_value=0, max_value=MAX_POSITION // 2))
def test_rope_score_depends_on_the_gap_only(d, seed, m, n, shift):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    scale = np.linalg.norm(q) * np.linalg.norm(k)
    a = rope_score(q, k, m, n)
    b = rope_score(q, k, m + shift, n + shift)
    c = rope_score(q, k, m - n, 0)
    assert abs(a - b) <= 1e-6 * scale
    assert abs(a - c) <= 1e-9 * scale


@pytest.mark.parametrize("d", [2, 64, 128])
@pytest.mark.parametrize("gap", [0, 1, 7, 100, 4096])
def test_rope_score_near_five_million(d, gap):
    """m near 5,000,000: float64 angles keep the score a function of m − n to ~1e-6 relative."""
    rng = np.random.default_rng(d + gap)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    scale = np.linalg.norm(q) * np.linalg.norm(k)
    near = rope_score(q, k, 0, gap)  # key `gap` after the query
    for m in (4_999_999, 5_000_000, 5_000_001, 5_123_457):
        far = rope_score(q, k, m - gap, m)
        assert abs(far - near) <= 1e-6 * scale


def test_rope_score_equals_q_dot_rotated_k():
    """(R_m q)·(R_n k) = q·(R_{n−m} k): rotate only the key by the gap."""
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    for m, n in [(3, 10), (10, 3), (0, 0), (1000, 1)]:
        assert rope_score(q, k, m, n) == pytest.approx(float(q @ _complex_rope(k, n - m)), abs=1e-10)


# ---------------------------------------------------------------- binary


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_binary_round_trips(data):
    n_bits = data.draw(st.integers(min_value=1, max_value=62))
    ps = data.draw(st.lists(st.integers(min_value=0, max_value=2**n_bits - 1), min_size=1, max_size=10))
    bits = binary(ps, n_bits)
    assert bits.shape == (len(ps), n_bits)
    assert set(np.unique(bits).tolist()) <= {0, 1}
    for row, p in zip(bits, ps):
        assert sum(int(b) << i for i, b in enumerate(row)) == p  # Σ bit_b 2^b = p


def test_binary_bits_by_hand():
    # 6 = 0b110: b0 = 0, b1 = 1, b2 = 1; column 0 is the least significant bit
    assert binary([6], 4).tolist() == [[0, 1, 1, 0]]
    assert binary([0, 1, 2, 3], 2).tolist() == [[0, 0], [1, 0], [0, 1], [1, 1]]
    # column b flips every 2^b positions
    bits = binary(np.arange(64), 6)
    for b in range(6):
        flips = np.flatnonzero(np.diff(bits[:, b])) + 1
        np.testing.assert_array_equal(flips % 2**b, 0)
        assert len(flips) == 64 // 2**b - 1


def test_binary_accepts_whole_floats():
    np.testing.assert_array_equal(binary([5.0, 2.0], 3), binary([5, 2], 3))


@settings(deadline=None)
@given(st.integers(min_value=1, max_value=62), st.integers(min_value=1, max_value=2**40))
def test_binary_negative_positions_raise(n_bits, minus):
    with pytest.raises(ValueError, match="0 or more"):
        binary([0, -minus], n_bits)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=62), st.integers(min_value=0, max_value=2**80))
def test_binary_too_large_positions_raise(n_bits, extra):
    """p ≥ 2**n_bits does not fit: a ValueError that says so, also for p far past int64."""
    p = 2**n_bits + extra
    with pytest.raises(ValueError, match="does not fit"):
        binary([p], n_bits)


@pytest.mark.parametrize("p", [1e30, 2.0**70, float(2**64)])
def test_binary_huge_float_positions_say_they_do_not_fit(p):
    with pytest.raises(ValueError, match="does not fit"):
        binary([p], 8)


@pytest.mark.parametrize("bad", [2.5, np.nan, np.inf])
def test_binary_non_whole_positions_raise(bad):
    with pytest.raises(ValueError):
        binary([1, bad], 8)


@pytest.mark.parametrize("n_bits", [0, -1, 63, 1000])
def test_binary_bit_count_range(n_bits):
    with pytest.raises(ValueError, match="bits"):
        binary([0], n_bits)

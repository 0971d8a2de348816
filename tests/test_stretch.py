"""Tests for posenc.stretch: properties and independently derived values (REFERENCES.md, closed forms)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.encodings import frequencies as rope_frequencies
from posenc.encodings import rope_score
from posenc.stretch import (
    DECAY_IDENTITY,
    DELTA,
    abel_bound,
    alibi_bias,
    alibi_slopes,
    decay_bound,
    dynamic_ntk_frequencies,
    mean_rope_score,
    ntk_frequencies,
    pair_products,
    pi_frequencies,
    rope_score_sum,
    rotations_within,
    wavelengths,
    yarn_attention_factor,
    yarn_correction_range,
    yarn_frequencies,
)

even_d = st.integers(min_value=2, max_value=128).map(lambda n: 2 * n)  # 4 … 256
stretch = st.floats(min_value=1.0, max_value=64.0, allow_nan=False)
bases = st.sampled_from([500.0, 10000.0, 500000.0])


# ---------------------------------------------------------------- plain frequencies


def test_rope_frequencies_ends():
    theta = rope_frequencies(128)
    assert theta.shape == (64,)
    assert theta[0] == 1.0
    assert theta[-1] == pytest.approx(10000.0 ** (-126 / 128))
    # consecutive ratio is constant: base^(-2/d)
    assert np.allclose(theta[1:] / theta[:-1], 10000.0 ** (-2 / 128))


def test_wavelengths_and_rotations():
    theta = rope_frequencies(64)
    lam = wavelengths(theta)
    assert lam[0] == pytest.approx(2 * np.pi)
    assert np.all(np.diff(lam) > 0)
    r = rotations_within(theta, 4096)
    assert np.allclose(r * lam, 4096)
    assert r[0] == pytest.approx(4096 / (2 * np.pi))


@pytest.mark.parametrize("bad_d", [0, -2, 7, 129, 2.0, "64"])
def test_bad_d_rejected(bad_d):
    """The stretch functions check d with ``validate.width`` (whole, in range, even): 2.0 and "64" are not whole."""
    with pytest.raises(ValueError):
        pi_frequencies(bad_d, 2.0)


def test_bad_inputs_rejected():
    with pytest.raises(ValueError, match="at least 1"):
        pi_frequencies(64, 0.5)
    with pytest.raises(ValueError):
        ntk_frequencies(2, 2.0)  # d/(d-2) undefined
    with pytest.raises(ValueError):
        rope_frequencies(64, base=1.0)
    with pytest.raises(ValueError):
        dynamic_ntk_frequencies(64, 2.0, seq_len=0, L_train=2048)
    with pytest.raises(ValueError):
        yarn_frequencies(64, 2.0, L_train=2048, beta_fast=1, beta_slow=32)
    with pytest.raises(ValueError):
        wavelengths([1.0, 0.0])
    with pytest.raises(ValueError):
        yarn_attention_factor(0.0)


# ---------------------------------------------------------------- stretching


@given(d=even_d, s=stretch, base=bases)
def test_pi_divides_every_frequency(d, s, base):
    assert np.allclose(pi_frequencies(d, s, base) * s, rope_frequencies(d, base), rtol=1e-12)


@given(d=even_d.filter(lambda d: d >= 4), s=stretch, base=bases)
def test_ntk_fastest_unchanged_slowest_divided(d, s, base):
    theta = rope_frequencies(d, base)
    ntk = ntk_frequencies(d, s, base)
    assert ntk[0] == pytest.approx(theta[0])  # = 1 for any base
    assert ntk[-1] == pytest.approx(theta[-1] / s, rel=1e-9)
    assert np.all(ntk <= theta * (1 + 1e-12))  # never faster
    assert np.all(ntk >= theta / s * (1 - 1e-12))  # never slower than PI


def test_ntk_closed_form():
    # recomputed directly: base' = 10000 * 4^(128/126)
    new_base = 10000.0 * 4.0 ** (128 / 126)
    expected = np.array([new_base ** (-2 * i / 128) for i in range(64)])
    assert np.allclose(ntk_frequencies(128, 4.0), expected, rtol=1e-12)


@given(d=even_d.filter(lambda d: d >= 4), s=stretch, L_train=st.integers(16, 8192), frac=st.floats(0.01, 1.0))
def test_dynamic_ntk_unchanged_inside_training_length(d, s, L_train, frac):
    seq_len = max(1, int(frac * L_train))
    assert np.allclose(dynamic_ntk_frequencies(d, s, seq_len, L_train), rope_frequencies(d), rtol=1e-12)


def test_dynamic_ntk_closed_form():
    d, s, L_train = 64, 4.0, 2048
    seq_len = 8192  # L/L_train = 4 → factor = 4·4 − 3 = 13
    expected_base = 10000.0 * 13.0 ** (d / (d - 2))
    assert np.allclose(dynamic_ntk_frequencies(d, s, seq_len, L_train), rope_frequencies(d, expected_base))
    # grows monotonically with the sequence length
    a = dynamic_ntk_frequencies(d, s, 4096, L_train)
    b = dynamic_ntk_frequencies(d, s, 16384, L_train)
    assert np.all(b[1:] < a[1:])


def test_yarn_reference_example():
    # REFERENCES.md: d=128, L_train=4096, s=16 -> low=20, high=46, factor 1.2773
    assert yarn_correction_range(128, 4096) == (20, 46)
    assert yarn_attention_factor(16) == pytest.approx(1.2773, abs=5e-5)
    # and recomputed by hand from c(r) = d ln(L/(2πr)) / (2 ln base)
    c32 = 128 * math.log(4096 / (2 * math.pi * 32)) / (2 * math.log(10000))
    c1 = 128 * math.log(4096 / (2 * math.pi * 1)) / (2 * math.log(10000))
    assert (math.floor(c32), math.ceil(c1)) == (20, 46)


def test_yarn_ramp_shape_and_blend():
    theta = rope_frequencies(128)
    theta_new, ramp = yarn_frequencies(128, 16.0, 4096)
    assert ramp.shape == theta_new.shape == (64,)
    assert np.all(ramp[:21] == 0.0)  # pairs 0..low keep their frequency
    assert np.all(ramp[46:] == 1.0)  # pairs high.. are fully interpolated
    assert ramp[33] == pytest.approx((33 - 20) / (46 - 20))
    assert np.all(np.diff(ramp) >= 0)
    assert np.allclose(theta_new[:21], theta[:21])
    assert np.allclose(theta_new[46:], theta[46:] / 16)
    assert np.all(theta_new <= theta * (1 + 1e-12)) and np.all(theta_new >= theta / 16 * (1 - 1e-12))


def test_yarn_low_equals_high_is_a_step():
    # L_train tiny: c(32) and c(1) are both < 0 -> low = 0, high = ceil(c(1)); find a case with low == high == 0
    # d=8, L_train=6: c(32) < 0 -> low = 0; c(1) = 8 ln(6/2π)/(2 ln 1e4) ≈ −0.02 -> ceil = 0 = high
    d, base, L_train = 8, 10000.0, 6
    assert -1 < 8 * math.log(6 / (2 * math.pi)) / (2 * math.log(base)) < 0
    assert yarn_correction_range(d, L_train, base) == (0, 0)
    theta_new, ramp = yarn_frequencies(d, 2.0, L_train, base)
    # HF adds 0.001 to high: ramp_i = clip(i / 0.001, 0, 1) -> 0 for pair 0, 1 for every other pair
    assert ramp[0] == 0.0 and np.all(ramp[1:] == 1.0)
    assert np.allclose(theta_new[1:], rope_frequencies(d, base)[1:] / 2)


def test_yarn_high_may_exceed_last_pair():
    # HF clamps to d-1, not d/2-1: for a huge L_train the ramp never reaches 1 inside the d/2 pairs
    low, high = yarn_correction_range(128, 1 << 20)
    assert high > 63
    _, ramp = yarn_frequencies(128, 4.0, 1 << 20)
    assert ramp[-1] < 1.0


def test_yarn_attention_factor_values():
    assert yarn_attention_factor(1.0) == 1.0
    assert yarn_attention_factor(0.5) == 1.0
    assert yarn_attention_factor(math.e) == pytest.approx(1.1)


@given(d=even_d.filter(lambda d: d >= 4), base=bases, L_train=st.integers(64, 32768))
def test_s_equal_one_changes_nothing(d, base, L_train):
    theta = rope_frequencies(d, base)
    assert np.allclose(pi_frequencies(d, 1.0, base), theta, rtol=1e-12)
    assert np.allclose(ntk_frequencies(d, 1.0, base), theta, rtol=1e-12)
    assert np.allclose(dynamic_ntk_frequencies(d, 1.0, L_train, L_train, base), theta, rtol=1e-12)
    assert np.allclose(yarn_frequencies(d, 1.0, L_train, base)[0], theta, rtol=1e-12)
    assert yarn_attention_factor(1.0) == 1.0


def test_dynamic_ntk_with_s_one_still_grows_past_training_length():
    # HF's formula with factor 1: base' = base·(L/L_train)^(d/(d−2)), so s = 1 is NOT "off" past L_train
    d, L_train = 64, 2048
    expected = rope_frequencies(d, 10000.0 * 4.0 ** (d / (d - 2)))
    assert np.allclose(dynamic_ntk_frequencies(d, 1.0, 4 * L_train, L_train), expected, rtol=1e-12)


# ---------------------------------------------------------------- ALiBi


def _reference_get_slopes(n):
    """The ALiBi paper's get_slopes, written out independently."""

    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + _reference_get_slopes(2 * closest)[0::2][: n - closest]


def test_alibi_slopes_8_heads():
    assert np.allclose(alibi_slopes(8), [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256])


def test_alibi_slopes_12_heads():
    expected = _reference_get_slopes(12)
    assert len(expected) == 12
    assert np.allclose(alibi_slopes(12), expected, rtol=1e-12)
    # first 8 are the 8-head series, the next 4 are 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5
    assert np.allclose(alibi_slopes(12)[8:], [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5])


@given(n=st.integers(1, 100))
def test_alibi_slopes_match_reference(n):
    slopes = alibi_slopes(n)
    assert slopes.shape == (n,)
    assert np.allclose(slopes, _reference_get_slopes(n), rtol=1e-12)
    assert np.all((slopes > 0) & (slopes < 1))
    assert len(set(slopes.tolist())) == n  # every head distinct


@pytest.mark.parametrize("bad", [0, -3, 2.5])
def test_alibi_slopes_bad(bad):
    with pytest.raises(ValueError):
        alibi_slopes(bad)


def test_alibi_bias():
    b = alibi_bias(5, 0.5)
    assert b.shape == (5, 5)
    assert np.all(np.diag(b) == 0)
    assert b[4, 1] == -1.5  # -slope·(i-j) below the diagonal
    assert np.array_equal(b, b.T)  # the |i-j| choice: symmetric; callers apply the causal mask
    assert np.all(np.diff(b[4, :5]) > 0)  # closer keys get a smaller penalty
    with pytest.raises(ValueError):
        alibi_bias(0, 0.5)
    with pytest.raises(ValueError):
        alibi_bias(4, -1.0)


def test_alibi_bias_is_toeplitz():
    b = alibi_bias(7, 0.25)
    for k in range(-6, 7):
        assert np.unique(np.diagonal(b, k)).size == 1


# ---------------------------------------------------------------- decay bound


def test_decay_bound_reference_values():
    b = decay_bound([0, 10, 100, 250], 128)
    assert b[0] == pytest.approx((64 + 1) / 2)
    assert b[1] == pytest.approx(17.95, abs=0.01)
    assert b[2] == pytest.approx(10.23, abs=0.01)
    assert b[3] == pytest.approx(6.55, abs=0.01)


def test_decay_bound_loop_form_and_symmetry():
    # recomputed with plain Python loops from S_j = sum_{k<j} e^{iΔθ_k}
    d = 16
    theta = [10000.0 ** (-2 * i / d) for i in range(d // 2)]
    for delta in [0.0, 3.0, 17.5]:
        sums, acc = [], 0j
        for t in theta:
            acc += complex(math.cos(delta * t), math.sin(delta * t))
            sums.append(abs(acc))
        assert decay_bound([delta], d)[0] == pytest.approx(sum(sums) / len(sums))
    deltas = np.linspace(-300, 300, 61)
    assert np.allclose(decay_bound(deltas, 64), decay_bound(-deltas, 64))


@given(d=even_d)
@settings(deadline=None)  # a shared machine: time belongs in the benchmark
def test_decay_bound_at_zero_and_max(d):
    b = decay_bound(np.arange(0, 400, 7), d)
    assert b[0] == pytest.approx((d / 2 + 1) / 2)
    assert np.all(b <= b[0] + 1e-9)  # |S_j| ≤ j
    assert np.all(b >= 0)


# ---------------------------------------------------------------- mean RoPE score


def test_mean_rope_score_matches_expectation():
    # with q = k ~ N(0, I): E[score(Δ)] = Σ_i E|k_i|² cos(Δθ_i) = 2 Σ_i cos(Δθ_i)
    d = 64
    deltas = np.arange(0, 200, 5)
    stats = mean_rope_score(deltas, d, n_samples=4000, seed=1)
    expected = 2 * np.cos(np.outer(deltas, rope_frequencies(d))).sum(axis=1)
    stderr = stats.std / math.sqrt(4000)
    assert np.all(np.abs(stats.mean - expected) < 5 * stderr + 1e-9)
    assert np.all(stats.p05 <= stats.mean) and np.all(stats.mean <= stats.p95)
    assert np.all(stats.std > 0)


def test_mean_rope_score_uncorrelated_is_zero_on_average():
    stats = mean_rope_score(np.arange(50), 64, n_samples=4000, seed=2, correlation=0.0)
    assert np.all(np.abs(stats.mean) < 5 * stats.std / math.sqrt(4000))


def test_mean_rope_score_bound_is_not_a_promise():
    # the spread is wide: some pairs score far from the mean curve
    stats = mean_rope_score(np.arange(0, 500), 128, n_samples=256, seed=0)
    assert np.all(stats.p95 - stats.p05 > 0)
    assert stats.mean[0] > stats.mean[-1]  # decays on average


def test_mean_rope_score_reproducible():
    deltas = np.arange(500)
    a = mean_rope_score(deltas, 128, n_samples=256, seed=7)
    b = mean_rope_score(deltas, 128, n_samples=256, seed=7)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_mean_rope_score_bad_inputs():
    with pytest.raises(ValueError):
        mean_rope_score([0, 1], 63)
    with pytest.raises(ValueError):
        mean_rope_score([0, 1], 64, n_samples=0)
    with pytest.raises(ValueError):
        mean_rope_score([0, 1], 64, correlation=1.5)


@settings(max_examples=25, deadline=None)
@given(d=st.sampled_from([8, 32, 64]), seed=st.integers(0, 1000))
def test_score_at_zero_is_squared_norm(d, seed):
    # with q = k the score at Δ = 0 is ‖k‖² ≥ 0 for every sample
    stats = mean_rope_score([0.0], d, n_samples=64, seed=seed)
    assert stats.p05[0] >= 0


# ---------------------------------------------------------------- the identity behind the bound, as the page writes it


def test_the_page_formula_names_delta_from_the_tested_constant():
    # the page renders DECAY_IDENTITY; its Δ is DELTA[0] − DELTA[1], and h_{d/2} = 0 is stated
    assert rf"\Delta = {DELTA[0]} - {DELTA[1]}" in DECAY_IDENTITY[0]
    assert any(r"h_{d/2} = 0" in line for line in DECAY_IDENTITY)
    assert r"(R_m q)\cdot(R_n k)" in DECAY_IDENTITY[0]


@settings(max_examples=40, deadline=None)
@given(d=st.sampled_from([2, 4, 16, 64, 128]), seed=st.integers(0, 10_000), m=st.integers(0, 5000),
       n=st.integers(0, 5000), base=bases)
def test_decay_identity_holds_for_the_apps_rotation(d, seed, m, n, base):
    # (R_m q)·(R_n k) with the app's own R (posenc.encodings.rope, via rope_score) equals Re Σ h_i e^{iΔθ_i}
    # with Δ read from the constant the page renders
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    where = {"m": m, "n": n}
    delta = where[DELTA[0]] - where[DELTA[1]]
    expected = rope_score(q, k, m, n, base)
    assert rope_score_sum(q, k, delta, base).real == pytest.approx(expected, abs=1e-8 * (1 + abs(m) + abs(n)))


def test_the_other_sign_of_delta_is_wrong_for_the_apps_rotation():
    # with Δ of the wrong sign (at m = 10, n = 3) the identity fails (it is not symmetric in Δ)
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(64), rng.standard_normal(64)
    right = rope_score(q, k, 10, 3)
    assert rope_score_sum(q, k, 10 - 3).real == pytest.approx(right, abs=1e-10)
    assert abs(rope_score_sum(q, k, 3 - 10).real - right) > 0.1


def test_pair_products_by_hand():
    # d = 2: h_0 = (q0 + i q1)·conj(k0 + i k1) = (1 + 2i)(3 − 4i) = 3 − 4i + 6i + 8 = 11 + 2i
    assert pair_products([1.0, 2.0], [3.0, 4.0]).tolist() == [11 + 2j]
    with pytest.raises(ValueError):
        pair_products([1.0, 2.0], [1.0, 2.0, 3.0, 4.0])


@settings(max_examples=30, deadline=None)
@given(d=st.sampled_from([4, 16, 64]), seed=st.integers(0, 10_000), delta=st.floats(-2000, 2000))
def test_abel_summation_with_h_last_zero(d, seed, delta):
    # Σ_i h_i e^{iΔθ_i} = Σ_{j=1}^{d/2} (h_{j−1} − h_j) S_j with h_{d/2} = 0 (written with loops), and the bound
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    h = [complex(q[2 * i], q[2 * i + 1]) * complex(k[2 * i], -k[2 * i + 1]) for i in range(d // 2)] + [0j]
    theta = [10000.0 ** (-2 * i / d) for i in range(d // 2)]
    partial, acc = [], 0j
    for t in theta:
        acc += complex(math.cos(delta * t), math.sin(delta * t))
        partial.append(acc)  # S_1 … S_{d/2}
    by_parts = sum((h[j - 1] - h[j]) * partial[j - 1] for j in range(1, d // 2 + 1))
    direct = rope_score_sum(q, k, delta)
    assert abs(by_parts - direct) < 1e-9 * (1 + abs(direct))
    bound = max(abs(h[i + 1] - h[i]) for i in range(d // 2)) * sum(abs(S) for S in partial)
    assert abel_bound(q, k, delta) == pytest.approx(bound, rel=1e-12)
    assert abs(direct) <= abel_bound(q, k, delta) * (1 + 1e-12) + 1e-12


@pytest.mark.parametrize("d, L, base", [(4, 2 ** 15, 1e7), (4, 16, 100.0), (64, 2 ** 20, 1e4), (64, 2 ** 20, 1e7),
                                        (512, 16, 1e4)])
def test_has_slow_pair_is_a_pair_short_of_one_turn(d, L, base):
    """A slow pair: r_i = L·θ_i/2π < 1 for some i (at d = 4, L = 2^15 even base 10^7 turns both pairs at least once)."""
    from posenc.stretch import has_slow_pair

    r = L * base ** (-2 * np.arange(d // 2) / d) / (2 * np.pi)
    assert has_slow_pair(d, L, base) == bool((r < 1).any())
    assert has_slow_pair(4, 2 ** 15, 1e7) is False and has_slow_pair(64, 2 ** 20, 1e7) is True

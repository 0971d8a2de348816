"""Math of the binary-codes page: the bit table, Hamming distance, the step, the square wave's sine."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.binary_codes import (
    MAX_BITS,
    binary_demo,
    bit_of,
    bit_runs,
    bit_table,
    check_bits,
    code_strings,
    distance_matrix,
    flips_per_bit,
    hamming,
    hamming_matrix,
    square_wave_sums,
    step_slope,
)

ALL_N = range(1, MAX_BITS + 1)


@pytest.mark.parametrize("n", ALL_N)
def test_bit_table_writes_every_position_once(n):
    t = bit_table(n)
    assert t.shape == (2**n, n)
    assert np.array_equal(t @ (2 ** np.arange(n)), np.arange(2**n))  # p = Σ_b bit_b(p) 2^b
    assert len({tuple(r) for r in t}) == 2**n


def test_chapter_codes():
    codes = code_strings(bit_table(4))
    assert codes[7] == "0111" and codes[8] == "1000" and codes[0] == "0000"
    assert all(int(c, 2) == p for p, c in enumerate(codes))


@pytest.mark.parametrize("n", ALL_N)
def test_bit_b_flips_every_2_to_the_b_steps(n):
    assert flips_per_bit(bit_table(n)).tolist() == [2 ** (n - b) - 1 for b in range(n)]


@pytest.mark.parametrize("n", ALL_N)
def test_runs_tile_the_table(n):
    bit, start, stop, value = bit_runs(n)
    assert len(bit) == 2 ** (n + 1) - 2
    t = bit_table(n)
    for b in range(n):
        sel = bit == b
        assert start[sel][0] == 0 and stop[sel][-1] == 2**n
        assert np.array_equal(start[sel][1:], stop[sel][:-1])  # no gaps, no overlaps
        for s, e, v in zip(start[sel], stop[sel], value[sel]):
            assert np.all(t[s:e, b] == v)


def test_hamming_examples_by_hand():
    assert hamming(7, 8) == 4  # 0111 vs 1000
    assert hamming(0, 8) == 1  # 0000 vs 1000
    assert hamming(511, 512) == 10
    assert hamming(5, 5) == 0


@pytest.mark.parametrize("n", [1, 3, 6])
def test_hamming_matrix_is_popcount_of_xor(n):
    H = hamming_matrix(bit_table(n))
    m = 2**n
    assert all(H[i, j] == bin(i ^ j).count("1") for i in range(m) for j in range(m))
    assert np.array_equal(H, H.T) and np.all(np.diag(H) == 0)


@given(st.integers(0, 1023), st.integers(0, 1023), st.integers(0, 1023))
@settings(max_examples=100, deadline=None)
def test_hamming_is_a_metric(i, j, k):
    assert hamming(i, k) <= hamming(i, j) + hamming(j, k)
    assert (hamming(i, j) == 0) == (i == j)


def test_distance_matrix():
    D = distance_matrix(5)
    assert D[0, 4] == 4 and D[3, 1] == 2 and np.all(np.diag(D) == 0)


@pytest.mark.parametrize("n", ALL_N)
def test_demo_pairs(n):
    res = binary_demo(n)
    i, j = res.near_pair
    assert j - i == 1  # neighbours
    assert hamming(*res.far_pair) == 1  # far apart, one bit
    w0, w1 = res.worst_pair
    assert w1 - w0 == 1 and hamming(w0, w1) == n  # neighbours that differ in every bit
    assert res.shown == min(2**n, 64)
    assert res.hamming.shape == res.distance.shape == (res.shown, res.shown)
    if n >= 4:
        assert res.near_pair == (7, 8) and res.far_pair == (0, 8)  # the chapter's example


@pytest.mark.parametrize("bad", [0, MAX_BITS + 1, -1, True, 2.5])
def test_bad_number_of_bits(bad):
    with pytest.raises(ValueError):
        check_bits(bad)


def test_bit_of_extends_the_table_to_real_positions():
    t = bit_table(5)
    p = np.arange(32)
    for b in range(5):
        assert np.array_equal(bit_of(p, b), t[:, b])
        assert np.array_equal(bit_of(p + 0.5, b), t[:, b])  # flat between whole positions


@pytest.mark.parametrize("b", [0, 2, 5])
def test_step_has_zero_slope_except_at_jumps(b):
    h = 1 / 32
    s = step_slope(b, 4 * 2**b, h)
    assert s.steepest == pytest.approx(1 / h)
    assert s.flat_share == pytest.approx(1 - s.jumps / s.x.size)
    assert s.jumps == 4  # 4·2^b positions hold 4 jumps of bit b (at 2^b, 2·2^b, 3·2^b and the end)
    assert set(np.unique(s.slope)) <= {0.0, 1 / h, -1 / h}


def test_square_wave_first_harmonic_is_the_sine():
    x = np.linspace(0, 16, 401)
    sums = square_wave_sums(2, x, [1])
    assert np.allclose(sums[1], 0.5 - 2 / np.pi * np.sin(2 * np.pi * x / 8), atol=1e-12)


def test_partial_sums_approach_the_bit_away_from_jumps():
    b = 1
    x = np.linspace(0, 8, 801)
    dist_to_jump = np.abs(((x / 2**b) - np.round(x / 2**b))) * 2**b
    far = dist_to_jump > 0.4
    sums = square_wave_sums(b, x, [1, 7, 63, 255])
    errs = [np.max(np.abs(sums[K][far] - bit_of(x[far], b))) for K in (1, 7, 63, 255)]
    assert errs == sorted(errs, reverse=True) and errs[-1] < 0.01
    # at a jump every partial sum sits at the midpoint 1/2
    at_jump = np.isclose(dist_to_jump, 0)
    assert np.allclose(sums[63][at_jump], 0.5, atol=1e-9)


# ---------------------------------------------------------------- the page's charts (Vega-Lite specs)
def _specs(n: int) -> list[dict]:
    from posenc.charts import binary_codes as bc

    res = binary_demo(n)
    codes = code_strings(res.table)
    b = min(2, n - 1)
    T = 2 ** (b + 1)
    x = np.linspace(0, 2 * T, 480)
    sums = square_wave_sums(b, x, [15, 7, 3, 1])
    sl = step_slope(b, 2.0 * T, 1 / 32)
    curves = [bit_of(x, b)] + [sums[K] for K in (15, 7, 3, 1)]
    whole = np.arange(0, 2 * T + 1)
    return [bc.bit_table(*bit_runs(n), n, res.table if n <= 5 else None),
            bc.hamming_vs_distance(res.hamming, res.distance, codes, res.near_pair, res.far_pair),
            *bc.step_and_slope(sl.x, sl.value, sl.slope, b),
            bc.square_to_sine(x, curves, list("abcde"), curves[0], sums[1], whole, bit_of(whole, b), b)]


@pytest.mark.parametrize("n", [1, 2, 4, 6, MAX_BITS])
def test_every_chart_is_valid_vega_lite_with_tooltips(n):
    import json

    from posenc.charts import validate

    for spec in _specs(n):
        full = validate(spec)  # the Vega-Lite schema, as Altair's to_dict() checks it
        assert '"tooltip"' in json.dumps(full)
        assert all(isinstance(raw, bytes) for raw in spec["datasets"].values())
        assert sum(len(raw) for raw in spec["datasets"].values()) < 150_000


def test_hamming_tooltips_carry_the_codes():
    from posenc.charts import records

    res = binary_demo(6)
    codes = code_strings(res.table)
    spec = records(_specs(6)[1])
    rows = spec["datasets"]["cells"]
    assert all(r["bits that differ"] == hamming(r["i"], r["j"]) and r["|i − j|"] == abs(r["i"] - r["j"])
               for r in rows)
    looked_up = {r["position"]: r["code"] for r in spec["datasets"]["codes"]}
    assert looked_up == dict(enumerate(codes[:64]))
    heat = spec["hconcat"][0]["layer"][0]
    assert heat["mark"]["tooltip"] == {"content": "data"}  # the row, with both codes looked up
    assert [t["as"] for t in heat["transform"]] == [["code i"], ["code j"]]


def test_more_bits_change_only_the_data():
    """The bit table keeps one spec for every n, and the heatmaps from 32 positions on: the browser swaps their
    data into the charts on screen instead of building new ones when n moves (and skips data that did not
    change)."""
    import json

    def skeleton(spec):
        return json.dumps({k: v for k, v in spec.items() if k != "datasets"}, sort_keys=True)

    tables = {skeleton(_specs(n)[0]) for n in ALL_N}
    heatmaps = {skeleton(_specs(n)[1]) for n in range(5, MAX_BITS + 1)}
    assert len(tables) == 1 and len(heatmaps) == 1
    # from 64 positions on, the 8,192 cells are the same bytes (only the codes table changes)
    assert len({_specs(n)[1]["datasets"]["cells"] for n in range(6, MAX_BITS + 1)}) == 1

"""Math of the binary-codes page: the bit table, Hamming distance, the step, the square wave's sine."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import data_refs
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
    dist_to_jump = np.abs((x / 2**b) - np.round(x / 2**b)) * 2**b
    far = dist_to_jump > 0.4
    sums = square_wave_sums(b, x, [1, 7, 63, 255])
    errs = [np.max(np.abs(sums[K][far] - bit_of(x[far], b))) for K in (1, 7, 63, 255)]
    assert errs == sorted(errs, reverse=True) and errs[-1] < 0.01
    # at a jump every partial sum sits at the midpoint 1/2
    at_jump = np.isclose(dist_to_jump, 0)
    assert np.allclose(sums[63][at_jump], 0.5, atol=1e-9)


# ---------------------------------------------------------------- the chapter's pairs, ladders, sizes, smoothing
def test_demo_uses_the_chapters_pairs_when_they_fit():
    from posenc import chapter

    assert binary_demo(4).near_pair == chapter.BINARY_NEIGHBOURS
    assert binary_demo(4).far_pair == chapter.BINARY_FAR
    assert binary_demo(3).near_pair == (3, 4)  # 8 needs 4 bits: the same roles at h = 4


@pytest.mark.parametrize("d, base", [(64, 10000.0), (16, 100.0)])
def test_ladders_bits_double_sinusoids_do_not(d, base):
    from posenc.binary_codes import ladders

    lad = ladders(MAX_BITS, d, base)
    assert lad.bit_wavelengths.tolist() == [2.0 ** (b + 1) for b in range(MAX_BITS)]
    assert lad.bit_ratio == 2.0
    assert lad.pair_ratio == pytest.approx(base ** (2 / d), rel=1e-12)
    assert lad.pair_wavelengths[0] == pytest.approx(2 * np.pi)
    assert lad.pair_wavelengths.size == d // 2


def test_ladder_at_d_64_is_not_2():
    from posenc.binary_codes import ladders

    assert round(ladders(4, 64, 10000.0).pair_ratio, 4) == 1.3335  # 10000 ** (1/32), by hand


def test_sizes_bits_stay_in_the_content_range():
    from posenc.binary_codes import sizes
    from posenc.core import embed, tokenize

    toks = tokenize("The cat chased the mouse")
    sz = sizes(toks, 2, 64, 0, MAX_BITS)
    x = embed(toks, 64, 0)[2]
    assert np.array_equal(sz.content, x)
    assert sz.content_max == pytest.approx(np.max(np.abs(x)))
    assert (sz.bits_min, sz.bits_max) == (0, 1)
    assert sz.largest_position == 2**MAX_BITS - 1
    with pytest.raises(ValueError):
        sizes(toks, 5, 64, 0, 4)


def test_smoothing_levels_end_in_the_sine():
    from posenc.binary_codes import HARMONICS, STEP_BIT, smoothing

    w = smoothing(STEP_BIT)
    T = 2 ** (STEP_BIT + 1)
    assert w.wavelength == T and len(w.curves) == len(w.names) == len(HARMONICS) + 1
    assert np.array_equal(w.curves[0], bit_of(w.x, STEP_BIT))
    assert np.allclose(w.curves[-1], 0.5 - 2 / np.pi * np.sin(2 * np.pi * w.x / T))
    assert np.array_equal(w.whole_bits, bit_of(np.arange(2 * T + 1), STEP_BIT))


# ---------------------------------------------------------------- the page's charts (one pipeline)
def _figs(n: int) -> list:
    from posenc.binary_codes import ladders, sizes, smoothing
    from posenc.charts import binary_codes as bc

    res = binary_demo(n)
    codes = code_strings(res.table)
    w = smoothing(2)
    sz = sizes(["the", "cat"], 1, 8, 0, n)
    lad = ladders(n, 64)
    return [bc.bit_table(*bit_runs(n), n, res.table if n <= 5 else None),
            bc.hamming_heatmap(res.hamming, res.distance, codes, res.near_pair, res.far_pair, show="hamming"),
            bc.hamming_heatmap(res.hamming, res.distance, codes, res.near_pair, res.far_pair, show="distance"),
            bc.sizes_strip(sz.content, n, 500, "word (2)"),
            *bc.step_and_slope(w.slope.x, w.slope.value, w.slope.slope, w.b),
            bc.square_to_sine(w.x, w.curves, w.names, w.whole, w.whole_bits, w.b),
            bc.ladder(lad.bit_wavelengths, lad.pair_wavelengths, lad.bit_ratio, lad.pair_ratio, 64)]


@pytest.mark.parametrize("n", [1, 2, 4, 6, MAX_BITS])
def test_every_chart_is_valid_vega_lite_with_tooltips(n):
    import json

    from posenc.charts import spec

    for fig in _figs(n):
        full = spec.validate(fig)  # the Vega-Lite schema
        assert '"tooltip"' in json.dumps(full)
        assert fig.description and fig.rows <= spec.MAX_MARKS
        assert "width" not in fig.spec  # fills its container: nothing spills on a phone
        refs = list(data_refs(fig.spec))
        assert refs and all(set(r) == {"name"} and r["name"] in fig.datasets for r in refs)


def test_hamming_cells_and_codes():
    from posenc.charts import spec

    res = binary_demo(6)
    codes = code_strings(res.table)
    for fig in _figs(6)[1:3]:
        data = spec.records(fig)["datasets"]
        assert all(r["bits that differ"] == hamming(r["i"], r["j"]) and r["|i − j|"] == abs(r["i"] - r["j"])
                   for r in data["cells"])
        assert {r["position"]: r["code"] for r in data["codes"]} == dict(enumerate(codes[:64]))
        outlined = {(r["i"], r["j"]) for r in data["pairs"]}
        assert outlined == {(7, 8), (8, 7), (0, 8), (8, 0)}  # the chapter's pairs and their mirrors


def test_sizes_slider_computes_the_bits_in_the_chart():
    import json

    fig = _figs(4)[3]
    params = fig.spec["params"]
    assert params[0]["name"] == "bn_raw" and params[0]["bind"]["max"] == 15 and params[0]["value"] == 15
    assert "floor(bn_raw / pow(2, datum.b)) % 2" in json.dumps(fig.spec)  # bit_b(p), as posenc.binary computes it


def test_smoothing_slider_lives_inside_the_chart():
    from posenc.binary_codes import HARMONICS

    fig = _figs(4)[6]
    smooth = fig.spec["params"][0]
    assert smooth["name"] == "bn_smooth" and smooth["bind"]["input"] == "range"
    assert smooth["bind"]["max"] == len(HARMONICS)  # the bit, the partial sums, the sine


@pytest.mark.parametrize("d, seed", [(2, 0), (8, 3), (64, 0), (64, 1), (512, 2)])
def test_the_sizes_axis_is_a_nice_bound_that_holds_the_content_and_the_bits(d, seed):
    from posenc.binary_codes import sizes
    from posenc.charts import binary_codes as bc
    from posenc.charts.spec import nice_bound

    sz = sizes(["the", "cat"], 1, d, seed, 4)
    fig = bc.sizes_strip(sz.content, 4, 500, "word (2)")
    low, high = fig.spec["layer"][0]["encoding"]["x"]["scale"]["domain"]
    edge = -low
    assert nice_bound(edge) == edge and high > edge  # on the ladder: a new seed or d mostly reuses the layout
    assert edge >= np.max(np.abs(sz.content)) and edge >= 1  # every content coordinate and a bit's 1 on the axis


def test_the_ladder_names_its_ratios_in_the_data_so_every_d_shares_one_layout():
    from posenc.binary_codes import ladders
    from posenc.charts import binary_codes as bc

    figs = []
    for d in (32, 64, 66):
        lad = ladders(MAX_BITS, d)
        fig = bc.ladder(lad.bit_wavelengths, lad.pair_wavelengths, lad.bit_ratio, lad.pair_ratio, d)
        names = set(fig.datasets["rungs"].column("ladder").to_pylist())
        # the sinusoid factor is the next page's Predict: the legend names the rule, never the number
        assert "sinusoid pairs: ×base^(2/d) per rung" in names
        assert not any(f"{lad.pair_ratio:.4f}" in name for name in names)
        assert f"{lad.pair_ratio:.4f}" not in fig.spoken and f"{lad.pair_ratio:.3g}" not in fig.reading
        # the numbers of this d are read out after the chart: d, the rungs, the last wavelength, and how the
        # factor compares with the bits' 2 (10000^(2/d) < 2 for every d ≥ 27)
        assert fig.reading.startswith(f"At d = {d}, ") and f"over {MAX_BITS} rungs" in fig.reading
        assert f"a smaller factor, over more rungs ({d // 2})" in fig.reading
        assert f"to {2 * np.pi * 10000.0 ** ((d - 2) / d):,.0f}." in fig.reading
        figs.append(fig.spec)  # the description included: it names no number of d
    assert figs[0] == figs[1] == figs[2]


@pytest.mark.parametrize("n", ALL_N)
def test_the_hamming_heatmap_reads_out_its_pairs_bits_and_keeps_its_description(n):
    """The description names the pairs (the layout's own arguments); the bits they differ in are the reading's,
    counted here by hand."""
    from posenc.charts import binary_codes as bc

    res = binary_demo(n)
    codes = code_strings(res.table)
    fig = bc.hamming_heatmap(res.hamming, res.distance, codes, res.near_pair, res.far_pair, show="hamming")
    (a, b), (c, e) = res.near_pair, res.far_pair
    ha, hc = bin(a ^ b).count("1"), bin(c ^ e).count("1")
    assert f"outlined: {a} and {b}, neighbours" in fig.description
    assert f"positions 0 … {res.shown - 1};" in fig.description
    if n == 1:  # two positions: the bits that differ are the distance
        assert fig.reading == "It does here: over positions 0 … 1 the bits that differ are |i − j| itself; " \
                              "0 and 1 differ in 1 bit."
    else:
        assert ha > hc
        assert fig.reading == (f"It does not: {a} and {b} are neighbours yet differ in {ha} bits; {c} and {e} are "
                               f"{e - c} apart yet differ in {hc} {'bit' if hc == 1 else 'bits'}.")
    assert not any(ch.isdigit() for ch in bc.hamming_heatmap(
        res.hamming, res.distance, codes, res.near_pair, res.far_pair, show="distance").reading)


def test_the_sizes_strip_reads_the_spread_and_keeps_its_layout():
    """Two words on the same axis rung: one spec (description included); the reading says whether a bit of 1
    stays inside the word's spread."""
    from posenc.charts import binary_codes as bc

    low, high = (bc.sizes_strip(np.array(c), 4, 500, "word (2)") for c in ([0.9, -0.2], [1.0, 0.3]))
    assert low.spec == high.spec  # both on the axis rung 2
    assert low.reading == "The word's 2 coordinates reach ±0.90: a bit of 1 sticks out of that spread by 0.10, " \
                          "still nothing like the raw index."
    assert high.reading == "The word's 2 coordinates reach ±1.00: every bit stays inside that spread, at every " \
                           "position."
    assert "the 4 bits stay 0 or 1" in low.description and "walks off to 15" in low.description


@pytest.mark.parametrize("n", [1, 4, MAX_BITS])
def test_the_counters_column_fits_a_phones_cell_and_its_subtitle_reads(n):
    """The column at p is sized from one position's width on the x scale as drawn (a phone's cells are ~15 px: a
    fixed 20 px square with a 4 px outline covered the neighbours' digits); the subtitle writes 2ᵇ, not 2^b, on
    two short lines at a size a phone can read (12 px, the projector's 16)."""
    import json

    from posenc.charts import binary_codes as bc

    fig = _figs(n)[0]
    [square] = [layer["mark"] for layer in fig.spec["layer"] if layer["mark"]["type"] == "square"]
    assert "scale('x', 1) - scale('x', 0)" in square["size"]["expr"]
    title = fig.spec["title"]
    assert title["subtitle"] == bc.BIT_TABLE_SUBTITLE and all(len(line) <= 50 for line in title["subtitle"])
    assert "2ᵇ" in json.dumps(title, ensure_ascii=False) and "^" not in "".join(title["subtitle"])
    assert title["subtitleFontSize"]["expr"].endswith("? 16 : 12")

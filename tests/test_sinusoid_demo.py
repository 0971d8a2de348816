"""Properties of posenc.sinusoid_demo: the table, any position, the shift rule, the catch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import data_refs
from posenc import chapter
from posenc.core import block_average, embed, projections, tokenize
from posenc.encodings import MAX_POSITION, frequencies, shift_matrix, sinusoidal
from posenc.sinusoid_demo import (
    COLOUR_STOPS,
    MAX_LENGTH,
    additive_scores,
    angle_tolerance,
    any_position,
    catch,
    check_position,
    diverging_rgb,
    shift_rule,
    table,
    wave_pairs,
)

SENT = tokenize("The cat chased the mouse")
even_d = st.integers(min_value=1, max_value=64).map(lambda h: 2 * h)
bases = st.sampled_from([2.0, 100.0, 10000.0, 500000.0])


# ---------------------------------------------------------------- colour map and block means
def test_colour_map_ends_and_middle():
    rgb = diverging_rgb(np.array([-1.0, 0.0, 1.0, np.nan, -5.0, 5.0]))
    assert rgb.dtype == np.uint8 and rgb.shape == (6, 3)
    assert tuple(rgb[0]) == COLOUR_STOPS[0][1]
    assert tuple(rgb[1]) == COLOUR_STOPS[2][1]
    assert tuple(rgb[2]) == COLOUR_STOPS[-1][1]
    assert tuple(rgb[3]) == (128, 128, 128)
    assert tuple(rgb[4]) == tuple(rgb[0]) and tuple(rgb[5]) == tuple(rgb[2])  # clipped


def test_colour_map_is_halfway_between_stops():
    (a, ca), (b, cb) = COLOUR_STOPS[0], COLOUR_STOPS[1]
    mid = diverging_rgb(np.array([(a + b) / 2]))[0]
    assert np.all(np.abs(mid.astype(int) - (np.array(ca) + np.array(cb)) / 2) <= 0.5)


@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 12), st.integers(1, 12))
def test_block_average_bounds_and_constant(rows, cols, max_r, max_c):
    m = np.full((rows, cols), 3.25)
    small, r, c = block_average(m, max_r, max_c)
    assert small.shape[0] <= max_r and small.shape[1] <= max_c
    assert np.allclose(small, 3.25)
    assert r == math.ceil(rows / max_r) and c == math.ceil(cols / max_c)


def test_block_average_averages_blocks():
    m = np.arange(16, dtype=float).reshape(4, 4)
    small, r, c = block_average(m, 2, 2)
    assert (r, c) == (2, 2)
    assert small[0, 0] == (0 + 1 + 4 + 5) / 4
    assert small.mean() == m.mean()


# ---------------------------------------------------------------- the table
def test_table_defaults():
    t = table(64, 10000.0, 100)
    assert t.image.shape == (100, 64, 3) and t.rows_per_pixel == 1 and t.cols_per_pixel == 1
    assert np.array_equal(t.image, diverging_rgb(sinusoidal(np.arange(1, 101), 64, 10000.0)))
    assert t.wavelengths[0] == pytest.approx(2 * np.pi)
    assert np.all(np.diff(t.wavelengths) > 0)
    assert t.wavelengths[-1] < 2 * np.pi * 10000
    assert t.wave_pairs[0] == 0 and t.wave_pairs[-1] == 31


@settings(max_examples=25, deadline=None)
@given(even_d, bases, st.integers(2, 400))
def test_waves_are_the_sine_columns(d, base, length):
    t = table(d, base, length)
    pe = sinusoidal(t.dot_positions, d, base)
    for row, i in enumerate(t.wave_pairs):
        assert np.allclose(t.dots[row], pe[:, 2 * i], atol=1e-12)
    assert t.image.shape[0] <= 300 and t.image.shape[1] <= 256
    assert np.all(t.wavelengths < 2 * np.pi * base + 1e-9)


def test_big_table_is_downsampled():
    t = table(512, 10000.0, 2000)
    assert t.image.shape[0] <= 300 and t.image.shape[1] <= 256
    assert t.rows_per_pixel * t.image.shape[0] >= 2000 and t.cols_per_pixel * t.image.shape[1] >= 512


@pytest.mark.parametrize("args, says", [
    ((63, 10000, 100), "The model width d = 63 is odd"),
    ((64, 1.0, 100), "The base .* must be a number greater than 1"),
    ((64, 10000, 1), f"The number of positions shown must be between 2 and {MAX_LENGTH:,}; got 1"),
    ((64, 10000, MAX_LENGTH + 1), f"The number of positions shown must be between 2 and {MAX_LENGTH:,}"),
    ((64, 10000, 100.0), "The number of positions shown must be a whole number"),
])
def test_table_rejects(args, says):
    with pytest.raises(ValueError, match=says):
        table(*args)


@pytest.mark.parametrize("kwargs, says", [
    ({"k": -1}, "The shift k must be between 0 and"), ({"k": 2.0}, "The shift k must be a whole number"),
    ({"length": 0}, "The number of positions checked must be between 1 and"),
])
def test_shift_rule_rejects(kwargs, says):
    with pytest.raises(ValueError, match=says):
        shift_rule(**{"k": 3, "d": 8, **kwargs})


def test_wave_pairs_small_d():
    assert wave_pairs(2) == (0,)
    assert wave_pairs(4) == (0, 1)


# ---------------------------------------------------------------- any position
def test_position_zero_is_sin0_cos0():
    a = any_position(0, 8)
    assert np.array_equal(a.pe64, [0, 1, 0, 1, 0, 1, 0, 1])
    assert a.max_diff == 0.0


@given(st.integers(0, MAX_POSITION), st.sampled_from([2, 8, 64, 128]))
@settings(max_examples=40, deadline=None)
def test_any_position_float32_is_a_float32_pipeline(p, d):
    a = any_position(p, d)
    assert np.array_equal(a.pe64, sinusoidal([p], d)[0])
    a32 = np.float32(p) * frequencies(d).astype(np.float32)
    assert a32.dtype == np.float32
    assert np.array_equal(a.angles32, a32.astype(np.float64))
    assert np.array_equal(a.pe32[0::2], np.sin(a32).astype(np.float64))
    assert a.max_diff == pytest.approx(np.max(np.abs(a.pe32 - a.pe64)))
    assert np.all(np.abs(a.pe32) <= 1) and np.all(np.abs(a.pe64) <= 1)


def test_float32_breaks_at_five_million_but_not_at_five():
    assert any_position(5, 64).max_diff < 1e-6
    far = any_position(5_000_000, 64)
    # ulp of float32 near 5e6·0.75 is 0.25: the angles are off by a good fraction of a radian
    assert far.max_angle_error > 1e-2 and far.max_diff > 1e-3
    if np.isfinite(far.float64_error):
        assert far.float64_error < 1e-8


@pytest.mark.parametrize("bad, says", [(-1, "between 0 and"), (MAX_POSITION + 1, f"between 0 and {MAX_POSITION:,}"),
                                       (2.5, "a whole number"), (5.0, "a whole number"), (float("nan"), "a whole number"),
                                       (float("inf"), "a whole number"), ("5", "a whole number")])
def test_bad_positions(bad, says):
    with pytest.raises(ValueError, match=f"The position must be {says}"):
        check_position(bad)


def test_a_position_may_be_a_numpy_integer():
    assert check_position(np.int64(7)) == 7 and type(check_position(np.int64(7))) is int


# ---------------------------------------------------------------- the shift rule
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 5000), even_d, bases, st.integers(1, 300))
def test_shift_rule_holds_everywhere(k, d, base, length):
    sh = shift_rule(k, d, base, length)
    tol = angle_tolerance(length + k)
    assert sh.shift_error < tol
    assert sh.dot_spread < tol * d
    assert sh.toeplitz_error < tol * d
    M = shift_matrix(k, d, base)
    assert np.array_equal(sh.M_shown, M[: sh.M_shown.shape[0], : sh.M_shown.shape[1]])
    assert np.allclose(M @ M.T, np.eye(d), atol=1e-12)  # a rotation


def test_dot_closed_form_and_self_similarity():
    sh = shift_rule(3, 64, 10000.0, 100)
    assert 3 in sh.dot_ks
    # k = 0 would give Σ cos 0 = d/2; the diagonal of S is ‖PE(p)‖² = d/2
    assert np.allclose(np.diag(sh.similarity), 32.0)
    w = frequencies(64)
    for kk, c in zip(sh.dot_ks, sh.dot_closed_form):
        assert c == pytest.approx(np.sum(np.cos(w * kk)))
    assert np.allclose(sh.dots, sh.dot_closed_form[:, None], atol=1e-12)


def test_shift_rule_extremes_and_rejects():
    sh = shift_rule(100_000, 512, 10000.0, 2000)
    assert sh.shift_error < angle_tolerance(102_000)
    for bad in [(-1, 64), (100_001, 64), (3, 63)]:
        with pytest.raises(ValueError):
            shift_rule(*bad)


# ---------------------------------------------------------------- the catch
def test_catch_terms_add_up_and_scores_differ():
    c = catch(SENT, 2, 1, 64, 0)
    assert c.pairs == chapter.PAIRS and c.gap == 3
    assert c.terms_error < 1e-12
    assert np.allclose(c.terms[:, 0], c.terms[0, 0])  # the words-only term has no position
    assert c.spread > 1e-3  # same gap, different scores
    assert c.query_word == "chased" and c.key_word == "cat"
    assert np.allclose(c.sweep_scores[[6, 36]], c.scores[:2])  # m = 10 and 40 are on the sweep


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 100), st.integers(0, 100), st.sampled_from([2, 8, 64]), st.integers(0, 50))
def test_additive_scores_by_hand(m, n, d, seed):
    X = embed(SENT, d, seed)
    Wq, Wk, _ = projections(d, seed)
    s = additive_scores(X[2], X[1], Wq, Wk, [m], [n])[0, 0]
    hand = ((X[2] + sinusoidal([m], d)[0]) @ Wq) @ ((X[1] + sinusoidal([n], d)[0]) @ Wk) / np.sqrt(d)
    assert s == pytest.approx(hand, abs=1e-12)


def test_catch_rejects():
    with pytest.raises(ValueError):
        catch(SENT, 2, 1, 63, 0)
    with pytest.raises(ValueError):
        catch(SENT, 5, 1, 64, 0)
    with pytest.raises(ValueError):
        catch(SENT, 2, 1, 64, 0, pairs=((10, 7), (40, 38)))


def test_largest_settings_run():
    """Timing lives in the benchmark (python -m bench); here the largest settings must run and stay exact."""
    t = table(512, 10000.0, 2000)
    assert t.image.dtype == np.uint8 and t.image.shape[0] * t.image.shape[1] <= 300 * 256
    sh = shift_rule(100_000, 512, 10000.0, 2000)
    assert sh.shift_error < angle_tolerance(100_000 + 2000) * 10
    assert sh.toeplitz_error < 1e-9
    any_position(MAX_POSITION, 512)
    catch(tokenize(" ".join(["w"] * 64)), 63, 0, 512, 0)



# ---------------------------------------------------------------- the ladder, one M_k, the layouts
@pytest.mark.parametrize("d, base", [(64, 10000.0), (128, 10000.0), (8, 500.0)])
def test_ladder_ratio_is_base_to_the_two_over_d(d, base):
    from posenc.sinusoid_demo import ladder

    lad = ladder(d, base)
    assert lad.ratio == pytest.approx(base ** (2 / d), rel=1e-12)  # not 2, as bits are
    assert lad.fastest == pytest.approx(2 * math.pi)
    assert lad.slowest == pytest.approx(2 * math.pi * base ** ((d - 2) / d), rel=1e-12)
    assert lad.limit == pytest.approx(2 * math.pi * base)
    assert lad.short_by == pytest.approx(1 - base ** (-2 / d), rel=1e-12)


def test_ladder_at_the_chapters_width_by_hand():
    from posenc.sinusoid_demo import ladder

    lad = ladder(64, 10000.0)
    assert round(lad.ratio, 4) == 1.3335  # 10000^(1/32), by hand: e^(ln 10000 / 32) = e^0.28782
    assert round(lad.short_by, 2) == 0.25  # λ₃₁ is a quarter under 2π·base, not "just under"
    assert math.isnan(ladder(2, 10000.0).ratio)


@pytest.mark.parametrize("k", [0, 3, 1000])
def test_one_shift_matrix_at_the_chapters_starts(k):
    from posenc.sinusoid_demo import shift_at

    assert shift_at(k, [7, 37, 3997], 64) < angle_tolerance(3997 + k)


def test_shift_at_fails_for_a_wrong_matrix():
    """The check can fail: M_3 applied to move 7 by 4 is wrong."""
    from posenc.sinusoid_demo import shift_at

    n = np.array([7.0])
    wrong = np.max(np.abs(sinusoidal(n + 4, 64) - sinusoidal(n, 64) @ shift_matrix(3, 64).T))
    assert wrong > 1e-3 and shift_at(3, [7], 64) < 1e-12


@pytest.mark.parametrize("d", [2, 8, 64])
def test_halves_layout_is_a_column_permutation(d):
    from posenc.sinusoid_demo import layouts, sinusoidal_halves

    lay = layouts(d, 10000.0, 50)
    assert lay.permuted_diff == 0.0
    h = sinusoidal_halves([3.0], d)[0]
    w = frequencies(d)
    assert np.allclose(h[: d // 2], np.sin(3 * w)) and np.allclose(h[d // 2:], np.cos(3 * w))
    if d > 2:
        assert lay.unpermuted_diff > 0.1  # the pictures differ


def test_t2t_frequencies_are_not_a_permutation():
    from posenc.sinusoid_demo import layouts, sinusoidal_halves

    t = sinusoidal_halves([1.0], 8, t2t=True)[0]
    assert t[3] == pytest.approx(math.sin(10000.0 ** (-3 / 3)))  # the last pair's ω = base^(−1): d/2 − 1 = 3
    assert layouts(64, 10000.0, 200).t2t_diff > 0.5


# ---------------------------------------------------------------- the page's charts (one pipeline)
def _page_figs(d: int, base: float, length: int, k: int, p: int) -> dict:
    from posenc.charts import sinusoids as sc

    t, pos, sh = table(d, base, length), any_position(p, d, base), shift_rule(k, d, base, length)
    ca = catch(SENT, 2, 1, 64, 0)
    marks = [(m, float(v)) for (m, _), v in zip(ca.pairs, ca.scores) if m <= ca.sweep_m[-1]]
    return {
        "table": sc.table_heatmap(t.image, length, t.omegas),
        "waves": sc.waves(t.wave_positions, t.waves, t.wave_pairs, t.omegas, t.dot_positions, t.dots),
        "vector": sc.position_vector(pos.pe64, p),
        "precision": sc.precision(pos.pe64, pos.pe32, p),
        "M": sc.shift_heatmap(sh.M_shown, k),
        "dots": sc.dot_lines(sh.dot_positions, sh.dots, sh.dot_ks, k),
        "similarity": sc.similarity(sh.similarity),
        "catch": sc.catch_sweep(ca.sweep_m, ca.sweep_scores, ca.gap, marks),
    }


@pytest.mark.parametrize("d, base, length, k, p", [(64, 10000.0, 100, 3, 5), (2, 2.0, 2, 0, 0),
                                                   (512, 1e6, 2000, 100_000, MAX_POSITION)])
def test_every_chart_is_valid_vega_lite_with_tooltips(d, base, length, k, p):
    import json

    from posenc.charts import spec

    for name, fig in _page_figs(d, base, length, k, p).items():
        full = spec.validate(fig)  # the Vega-Lite schema
        assert '"tooltip"' in json.dumps(full), name
        assert fig.description and fig.reading, name
        assert fig.rows <= spec.MAX_MARKS, name
        assert "width" not in fig.spec, name  # no pixel widths: the chart fills its container
        refs = list(data_refs(fig.spec))
        assert refs and all(set(r) == {"name"} and r["name"] in fig.datasets for r in refs), name  # named data only


def test_chart_data_round_trips_through_arrow():
    from posenc.charts import sinusoids as sc
    from posenc.charts import spec

    sh = shift_rule(3, 64, 10000.0, 100)
    rows = spec.records(sc.dot_lines(sh.dot_positions, sh.dots, sh.dot_ks, 3))["datasets"]["dots"]
    assert [r["PE(p)·PE(p+k)"] for r in rows] == list(np.ravel(sh.dots))
    assert [r["shift"] for r in rows[:: len(sh.dot_positions)]] == ["k = 1", "k = 3 (yours)", "k = 5", "k = 20"]
    t = table(64, 10000.0, 100)
    rows = spec.records(sc.waves(t.wave_positions, t.waves, t.wave_pairs, t.omegas, t.dot_positions,
                                 t.dots))["datasets"]["waves"]
    assert len(rows) == len(t.wave_pairs) * (len(t.wave_positions) + len(t.dot_positions))
    whole = [r for r in rows if r["kind"] == 1]
    assert min(r["position p"] for r in whole) == 1  # dots sit on the words' positions, from 1
    assert min(r["position p"] for r in rows if r["kind"] == 0) == 0  # the curve starts at the formula's 0


def test_similarity_chart_is_one_based_and_holds_the_gaps():
    from posenc.charts import sinusoids as sc
    from posenc.charts import spec

    sh = shift_rule(3, 16, 10000.0, 100, sim_size=10)
    rows = spec.records(sc.similarity(sh.similarity))["datasets"]["S"]
    assert min(r["p"] for r in rows) == 1 and max(r["q"] for r in rows) == 10
    for r in rows:
        assert r["gap q − p"] == r["q"] - r["p"]
        assert r["PE(p)·PE(q)"] == pytest.approx(float(np.sum(np.cos(frequencies(16) * (r["q"] - r["p"])))))


def test_the_catch_charts_reading_says_what_its_scores_do():
    """What a screen reader hears follows the scores it draws: moving, or (if they ever stayed put) flat; the
    chart's name (its description) stays the same, so the browser keeps the chart."""
    from posenc.charts import sinusoids as sc

    ms = np.arange(4, 10)
    moving = sc.catch_sweep(ms, np.linspace(-1.0, 1.0, ms.size), 3, [])
    flat = sc.catch_sweep(ms, np.full(ms.size, 0.25), 3, [])
    assert moving.description == flat.description
    assert "the score moves with m" in moving.reading and "stays put" not in moving.spoken
    assert "stays put" in flat.reading and "moves with m" not in flat.spoken

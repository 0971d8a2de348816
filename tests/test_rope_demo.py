"""Properties of posenc.rope_demo: the half-split convention, the gap-only score, lengths, values, the window."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import marks_of, own_params
from posenc import chapter
from posenc.core import embed, projections, tokenize
from posenc.encodings import MAX_POSITION, frequencies, rope, sinusoidal
from posenc.rope_demo import (
    WINDOW,
    additive_qkv,
    diagonal_spread,
    half_split_permutation,
    length_demo,
    rope_demo,
    rope_half,
    rope_qkv,
    row_spread,
    score_window,
    wrap_angle,
)
from posenc.sinusoid_demo import angle_tolerance

SENT = tokenize("The cat chased the mouse")
even_d = st.integers(min_value=1, max_value=64).map(lambda h: 2 * h)
positions = st.integers(0, 100_000)


def vec(d: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(d)


# ---------------------------------------------------------------- half-split pairs
def test_permutation_small():
    assert half_split_permutation(4).tolist() == [0, 2, 1, 3]
    assert half_split_permutation(2).tolist() == [0, 1]
    with pytest.raises(ValueError):
        half_split_permutation(7)


@settings(max_examples=40, deadline=None)
@given(even_d, positions, st.integers(0, 10**6))
def test_half_split_is_interleaved_permuted(d, p, seed):
    x = vec(d, seed)
    perm = half_split_permutation(d)
    assert sorted(perm.tolist()) == list(range(d))
    assert np.allclose(rope_half(x[perm], [p])[0], rope(x, [p])[0][perm], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(even_d, positions, positions, st.integers(0, 10**6))
def test_half_split_is_a_rotation_group(d, a, b, seed):
    x = vec(d, seed)
    once = rope_half(x, [a + b])[0]
    twice = rope_half(rope_half(x, [a]), [b])[0]
    assert np.allclose(once, twice, atol=angle_tolerance(a + b))
    assert np.linalg.norm(once) == pytest.approx(np.linalg.norm(x))
    assert np.array_equal(rope_half(x, [0])[0], x)


def test_half_split_pairs_by_hand():
    # d = 4: pairs (0, 2) and (1, 3); at p = π/2 pair 0 (θ = 1) turns a quarter: (x0, x2) → (−x2, x0)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    y = rope_half(x, [np.pi / 2])[0]
    assert y[0] == pytest.approx(-3.0) and y[2] == pytest.approx(1.0)


def test_rope_half_rejects():
    with pytest.raises(ValueError):
        rope_half(np.ones(5), [1])
    with pytest.raises(ValueError):
        rope_half(np.ones((2, 4)), [1])


# ---------------------------------------------------------------- helpers
def test_diagonal_spread():
    c = np.arange(-5, 6, dtype=float)
    toeplitz = c[np.subtract.outer(np.arange(6), np.arange(6)) + 5]
    assert diagonal_spread(toeplitz) == 0.0
    assert diagonal_spread(np.diag([1.0, 3.0])) == 2.0


def test_row_spread():
    assert row_spread(np.array([[1.0, 4.0, 2.0], [0.0, 0.5, 0.0]])) == 3.0
    assert row_spread(np.ones((3, 3))) == 0.0


@given(st.floats(-1e6, 1e6))
def test_wrap_angle(a):
    w = float(wrap_angle(np.array([a]))[0])
    assert -np.pi < w <= np.pi + 1e-12
    assert np.cos(w) == pytest.approx(np.cos(a), abs=1e-9)


# ---------------------------------------------------------------- the demo
def test_defaults_reproduce_the_chapter():
    r = rope_demo(SENT, 2, 1, 64, 0, 10, 7)
    assert (r.query_word, r.key_word) == ("chased", "cat")
    X = embed(SENT, 64, 0)
    Wq, Wk, _ = projections(64, 0)
    assert np.allclose(r.q, X[2] @ Wq) and np.allclose(r.k, X[1] @ Wk)
    assert r.pairs == chapter.PAIRS
    assert (r.m, r.n) == chapter.PAIRS[0]  # the defaults are the chapter's first pair
    assert r.pair_spread < angle_tolerance(4000)
    assert r.score == pytest.approx(r.pair_scores[0], abs=1e-12)
    assert r.identity_error < 1e-12


@settings(max_examples=30, deadline=None)
@given(positions, positions, st.integers(0, 10**6), st.sampled_from([2, 8, 64]), st.integers(0, 20))
def test_score_depends_on_the_gap_only(m, n, shift, d, seed):
    a = rope_demo(SENT, 0, 4, d, seed, m, n)
    b = rope_demo(SENT, 0, 4, d, seed, m + shift, n + shift)
    tol = angle_tolerance(max(m, n) + shift) * 10
    assert abs(a.score - b.score) < tol
    assert a.identity_error < tol and b.identity_error < tol
    # each pair's angle from q to k is the same too
    diff = wrap_angle(a.pair_gap_angles - b.pair_gap_angles)
    assert np.all(np.abs(diff) < 1e-6)


@settings(max_examples=20, deadline=None)
@given(positions, positions, st.sampled_from([2, 8, 64]), st.integers(0, 20))
def test_turned_pairs_keep_their_lengths(m, n, d, seed):
    r = rope_demo(SENT, 2, 1, d, seed, m, n)
    assert np.allclose(np.hypot(*r.q_turned.T), np.hypot(*r.q_pairs.T))
    assert np.allclose(r.q_turned.ravel(), rope(r.q, [m])[0])
    assert np.allclose(r.k_turned.ravel(), rope(r.k, [n])[0])


@settings(max_examples=20, deadline=None)
@given(st.integers(0, MAX_POSITION), st.sampled_from([2, 8, 64]), st.integers(0, 20))
def test_lengths_rope_keeps_raw_index_grows(m, d, seed):
    L = length_demo(SENT, 2, d, seed, m)
    X = embed(SENT, d, seed)
    Wq, _, Wv = projections(d, seed)
    q = X[2] @ Wq
    assert L.q_norm == pytest.approx(np.linalg.norm(q))
    assert L.x_norm == pytest.approx(np.linalg.norm(X[2]))
    assert L.norm_error < 1e-12 * max(1.0, L.q_norm)
    assert np.allclose(L.rope_norms, L.q_norm, rtol=0, atol=1e-12 * max(1.0, L.q_norm))
    # the raw index appends the position itself: [x ; m]
    assert L.raw_coordinate == m
    assert L.raw_norm == pytest.approx(np.linalg.norm(np.append(X[2], m)))
    assert np.all(np.diff(L.raw_norms) > 0)  # grows with the position
    # the curves are the same at every m (the lengths chart moves m in the browser): 1 … MAX_POSITION, log-spaced
    assert L.positions[0] == 1 and L.positions[-1] == MAX_POSITION
    assert np.array_equal(L.positions, length_demo(SENT, 2, d, seed, 1).positions)
    # q before turning, pair by pair, and the pairs' θ_i: what the chart turns by m itself
    assert np.array_equal(L.q_pairs.ravel(), q) and np.array_equal(L.thetas, frequencies(d))
    # v = x W_V has no position in it; v = (x + PE) W_V does, unless the two positions coincide
    assert L.v_gap_rope == 0.0
    pe = sinusoidal([1, m], d)
    expect = np.max(np.abs((X[2] + pe[0]) @ Wv - (X[2] + pe[1]) @ Wv))
    assert L.v_gap_additive == pytest.approx(expect, abs=1e-12)
    assert L.x_pe_norm == pytest.approx(np.linalg.norm(X[2] + pe[1]))


def test_lengths_at_the_chapters_raw_position():
    L = length_demo(SENT, 2, 64, 0)
    assert L.m == chapter.RAW_POSITION
    assert L.raw_norm > 10 * L.x_norm  # the index dwarfs the word vector at 500
    assert abs(L.rotated_q_norm - L.q_norm) < 1e-12
    with pytest.raises(ValueError):
        length_demo(SENT, 2, 64, 0, MAX_POSITION + 1)
    with pytest.raises(ValueError):
        length_demo(SENT, 7, 64, 0)


def test_additive_moves_values():
    X = embed(SENT, 64, 0)
    W = projections(64, 0)
    _, _, v = rope_qkv(X, np.arange(1, 6), *W)
    assert np.array_equal(v, X @ W[2])
    q, _, v_add = additive_qkv(X, np.arange(1, 6), *W)
    assert not np.allclose(v_add, X @ W[2])


def test_far_positions_work():
    r = rope_demo(SENT, 2, 1, 64, 0, MAX_POSITION, MAX_POSITION - 3)
    near = rope_demo(SENT, 2, 1, 64, 0, 10, 7)
    assert abs(r.score - near.score) < angle_tolerance(MAX_POSITION)
    for bad in [(MAX_POSITION + 1, 7), (-1, 7), (10, 2.5)]:
        with pytest.raises(ValueError):
            rope_demo(SENT, 2, 1, 64, 0, *bad)
    with pytest.raises(ValueError):
        rope_demo(SENT, 2, 1, 63, 0, 10, 7)
    with pytest.raises(ValueError):
        rope_demo(SENT, 9, 1, 64, 0, 10, 7)


# ---------------------------------------------------------------- the window
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 50_000), st.sampled_from([2, 4, 64]), st.integers(0, 20))
def test_window(start, d, seed):
    w = score_window(SENT, 2, 1, d, seed, start)
    assert w.rope_scores.shape == (WINDOW, WINDOW)
    assert w.positions[0] == start and w.positions[-1] == start + WINDOW - 1
    tol = angle_tolerance(start + WINDOW) * 10
    assert w.rope_diag_spread < tol
    assert w.half_vector_error < tol and w.half_score_error < tol
    assert w.half_unpermuted_diag_spread < tol  # the other pairing is relative too
    assert w.rope_row_spread == pytest.approx(np.ptp(w.rope_scores, axis=1).max())
    assert w.tol == angle_tolerance(start + WINDOW - 1)


def test_window_additive_is_not_relative():
    w = score_window(SENT, 2, 1, 64, 0, 1)
    assert w.additive_diag_spread > 0.1
    assert w.half_unpermuted_gap > 1e-3  # without the permutation the conventions disagree


def test_window_extremes():
    w = score_window(SENT, 2, 1, 64, 0, MAX_POSITION - WINDOW + 1)
    assert w.positions[-1] == MAX_POSITION
    assert w.rope_diag_spread < angle_tolerance(MAX_POSITION)
    with pytest.raises(ValueError):
        score_window(SENT, 2, 1, 64, 0, MAX_POSITION - WINDOW + 2)


def test_largest_settings_stay_exact():
    """Timing lives in the benchmark (python -m bench); here the largest settings must still be exact."""
    long = tokenize(" ".join(f"w{i}" for i in range(64)))
    w = score_window(long, 63, 0, 512, 0, MAX_POSITION - WINDOW + 1)
    assert w.rope_diag_spread < angle_tolerance(MAX_POSITION)
    assert rope_demo(long, 63, 0, 512, 0, MAX_POSITION, 0) is not None


# ---------------------------------------------------------------- the figures
def _figures(d=64, start=1, m=10, n=7, tokens=SENT):
    from posenc.charts import rope as rc

    r = rope_demo(tokens, 2, 1, d, 0, m, n)
    w = score_window(tokens, 2, 1, d, 0, start)
    L = length_demo(tokens, 2, d, 0, m)
    return (rc.score_window(w.positions, w.rope_scores, w.additive_scores),
            rc.pair_circles(r.thetas, r.q_pairs, r.k_pairs, n=min(n, rc.N_MAX), gap=max(min(n - m, 0), rc.GAP_MIN),
                            score=r.score),
            rc.lengths(L.positions, L.rope_norms, L.raw_norms, L.thetas, L.q_pairs, L.x_norm, opening=max(m, 1),
                      turned=L.rotated_q_norm, raw=L.raw_norm))


@pytest.mark.parametrize("d,start,m,n", [(64, 1, 10, 7), (2, 0, 0, MAX_POSITION), (512, MAX_POSITION - WINDOW + 1,
                                                                                    MAX_POSITION, 0)])
def test_figures_are_valid_small_and_fill_their_column(d, start, m, n):
    from posenc.charts import spec

    for fig in _figures(d, start, m, n):
        full = spec.validate(fig)
        assert fig.rows <= spec.MAX_MARKS
        assert "width" not in full and fig.description
        assert full["autosize"]["type"] == "fit-x"  # the height is the plot's: a capped height keeps a plot
        assert spec.FOCUS != "#f58518" and "#f58518" not in str(full)


def test_window_figure_holds_both_schemes_and_a_bound_pick():
    win, circles, lengths = _figures()
    table = win.datasets["main"].to_pydict()
    assert {"RoPE", "adding sinusoids"} <= set(table)  # one row a cell, both schemes' scores on it
    assert len(table["RoPE"]) == WINDOW * WINDOW
    [param] = own_params(win.spec)
    assert param["name"] == "rp_scheme" and param["bind"]["input"] == "radio"
    picks = {p["name"]: p for p in own_params(circles.spec) if "bind" in p}  # its inputs (BOUND has none)
    assert set(picks) == {"rp_n", "rp_gap", "rp_pair"} and picks["rp_pair"]["bind"]["max"] == 1  # a fraction
    # one row per pair is shipped (the browser turns them): d/2 rows, and a unit circle
    assert circles.datasets["pairs"].num_rows == 32
    # every mark is hidden from screen readers: the chart is named by its description
    for fig in (win, circles, lengths):
        assert marks_of(fig.spec) and all(m["aria"] is False for m in marks_of(fig.spec))
    w = score_window(SENT, 2, 1, 64, 0, 1)  # the takeaway's numbers are in the chart's reading, after its name
    assert f"at most {w.rope_diag_spread:.1e} along any diagonal" in win.reading
    assert f"up to {w.rope_row_spread:.2f} along a row" in win.reading
    assert f"up to {w.additive_diag_spread:.2f} along a diagonal" in win.reading
    assert win.spoken == f"{win.description} {win.reading}"
    # the circle chart keeps its aspect: the x domain follows width / height in the browser
    assert "width" in json.dumps(circles.spec["layer"][0]["encoding"]["x"]["scale"]["domain"])
    # lengths: RoPE flat, the raw index growing
    t = lengths.datasets["main"].to_pydict()
    rope_rows = [v for s, v in zip(t["scheme"], t["length"]) if s.startswith("RoPE")]
    raw_rows = [v for s, v in zip(t["scheme"], t["length"]) if s.startswith("raw")]
    assert np.ptp(rope_rows) < 1e-12 and raw_rows[-1] > 1e6


def test_readings_carry_this_settings_numbers_and_descriptions_none():
    """The chart's name (its description) is the same at every setting; the numbers travel in the reading."""
    from posenc.core import signed

    win, circles, lengths = _figures(d=64, start=1, m=10, n=7)
    far = _figures(d=8, start=MAX_POSITION - WINDOW + 1, m=MAX_POSITION, n=0,
                   tokens=tokenize("a dog saw a cat"))
    assert [f.description for f in far] == [f.description for f in (win, circles, lengths)]
    assert f"{WINDOW} query positions" in win.description and "positions 1 to 40" in win.reading
    r = rope_demo(SENT, 2, 1, 64, 0, 10, 7)  # _figures opens the circles at n = 7, gap 7 − 10 = −3
    assert "n = 7" in circles.reading and "m = 10" in circles.reading and "gap −3" in circles.reading
    assert f"pair {int(np.floor(0.5 * 31 + 0.5))}" in circles.reading and f"score is {signed(r.score, '.6f')}" in circles.reading
    L = length_demo(SENT, 2, 64, 0, 10)
    raw = float(np.hypot(L.x_norm, 10))  # ‖[x ; m]‖, from the vector's own length
    assert "opens at m = 10:" in lengths.reading and f"{L.q_norm:.3f} long" in lengths.reading
    assert f"grown to {raw:,.1f}" in lengths.reading
    assert f"1 to {MAX_POSITION:,}" in lengths.description


def test_window_and_lengths_layouts_are_the_same_for_every_position():
    """The window's start is data: the window's title and tick values come from the data (the ticks from the
    scale's domain), so every press reuses the layout. The lengths chart's m moves inside it: its layout and its
    data are the same wherever it opens, only the reading names the opening m."""
    from conftest import layout_of
    from posenc.charts import rope as rc
    from posenc.charts.spec import nice_bound

    def without_bound(fig):  # the colour bound is the scores' nice_bound rung: far windows may sit on another
        out = json.loads(json.dumps(layout_of(fig)))
        low, high = out["encoding"]["color"]["scale"].pop("domain")
        scores = np.abs(np.concatenate([fig.datasets["main"].column(s).to_numpy() for s in rc.SCHEMES]))
        assert low == -high and nice_bound(high) == high and high >= scores.max()
        return out

    starts = (1, 2, MAX_POSITION - WINDOW + 1)
    windows = [_figures(start=s)[0] for s in starts]
    assert all(without_bound(f) == without_bound(windows[0]) for f in windows)
    for s, f in zip(starts, windows):
        assert f"{s:,}" in f.datasets["main"].column("title")[0].as_py()
    marks = (1, 10, 11, rc.LENGTH_MS[1])
    lengths = [_figures(m=m)[2] for m in marks]
    assert all(layout_of(f) == layout_of(lengths[0]) for f in lengths)
    for m, f in zip(marks, lengths):
        assert all(f.datasets[k].equals(lengths[0].datasets[k]) for k in f.datasets) and set(f.datasets) == {
            "main", "pairs"}
        assert f.reading.startswith(f"The chart opens at m = {m:,}:")


@pytest.mark.parametrize("start", [0, 1, 999_990])
def test_window_ticks_are_every_fifth_position_and_the_last(start):
    """The axis' tick values are read from the scale's domain (the window's positions, in order): every 5th from
    the first, and the last."""
    from posenc.charts import rope as rc

    positions = list(score_window(SENT, 2, 1, 8, 0, start).positions)
    for channel in ("x", "y"):
        expr = rc._ticks(len(positions), channel).to_dict()["expr"]
        ticks = eval(expr.replace(f"domain('{channel}')", "positions"), {"positions": positions})
        assert ticks == positions[::5] + ([positions[-1]] if (len(positions) - 1) % 5 else [])

"""Properties of posenc.fixes: the four obvious position codes and how each one breaks."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from conftest import layout_of, spec_layers, vega_eval
from posenc import chapter
from posenc.charts import fixes as C
from posenc.core import embed, projections, softmax
from posenc.fixes import (
    FIXES,
    ONE_HOT_SHOWN,
    SHORT,
    WISHES,
    _ranks,
    encode,
    fixes_inputs,
    index_over_length,
    index_scores,
    multiply_code,
    multiply_demo,
    one_hot,
    one_hot_demo,
    pair_distances,
    position_share,
    rank_correlation,
    ratio_demo,
    raw_index,
    raw_index_demo,
    raw_term,
    summary,
    wish_past,
)
from posenc.sections import fixes as fixes_sections

TOKENS = posenc.tokenize("The cat chased the mouse")


# ---------------------------------------------------------------- the codes
def test_index_over_length_matches_the_chapter_by_hand():
    assert index_over_length([3], 5)[0, 0] == pytest.approx(0.6, abs=1e-15)
    assert index_over_length([3], 100)[0, 0] == pytest.approx(0.03, abs=1e-15)
    five = index_over_length(np.arange(1, 6), 5)[:, 0]
    hundred = index_over_length(np.arange(1, 101), 100)[:, 0]
    assert np.allclose(np.diff(five), 0.2) and np.allclose(np.diff(hundred), 0.01)
    assert five[-1] == 1.0 and hundred[-1] == 1.0


@given(st.integers(1, 5000), st.data())
@settings(deadline=None)
def test_index_over_length_stays_in_unit_interval_and_steps_by_one_over_n(n, data):
    p = data.draw(st.integers(1, n))
    c = index_over_length([p], n)[0, 0]
    assert 0 < c <= 1 and c == pytest.approx(p / n, rel=1e-15)
    if p > 1:
        assert c - index_over_length([p - 1], n)[0, 0] == pytest.approx(1 / n, rel=1e-9)


@pytest.mark.parametrize("bad", [[0], [-3], [2.5], [float("nan")], [6]])
def test_index_over_length_rejects_positions_it_cannot_encode(bad):
    with pytest.raises(ValueError):
        index_over_length(bad, 5)


def test_raw_index_is_the_position_itself():
    p = np.array([1, 2, 500, 1000])
    assert np.array_equal(raw_index(p)[:, 0], p)


@given(st.integers(1, 300), st.integers(0, 50))
@settings(max_examples=40, deadline=None)
def test_multiply_scales_the_length_by_p(p, seed):
    x = np.random.default_rng(seed).standard_normal(16)
    c = multiply_code(x, [1, p])
    assert np.linalg.norm(c[1]) == pytest.approx(p * np.linalg.norm(c[0]), rel=1e-12)
    # the direction does not move
    assert c[1] @ c[0] / (np.linalg.norm(c[1]) * np.linalg.norm(c[0])) == pytest.approx(1.0, abs=1e-12)


@given(st.integers(2, 120))
@settings(max_examples=30, deadline=None)
def test_one_hot_pairs_are_all_sqrt2_apart(n):
    codes = one_hot(np.arange(1, n + 1), n)
    assert codes.shape == (n, n)
    assert np.array_equal(codes, np.eye(n))
    D = pair_distances(codes)
    off = ~np.eye(n, dtype=bool)
    assert np.max(np.abs(D[off] - math.sqrt(2))) < 1e-12
    assert np.all(D[~off] == 0)


def test_one_hot_past_the_last_column_is_a_message_not_a_crash():
    with pytest.raises(ValueError, match="no encoding"):
        one_hot([9], 8)
    assert one_hot([8], 8)[0, 7] == 1.0


def test_one_hot_demo_reports_the_past_position_instead_of_raising():
    oh = one_hot_demo(n=5, width=8, past=9)
    assert oh.past_code is None and "no encoding" in oh.past_error
    assert oh.sentence_codes is not None and oh.sentence_codes.shape == (5, 8)
    assert oh.sqrt2_error < 1e-12 and oh.neighbour == oh.stranger
    inside = one_hot_demo(n=5, width=8, past=7)
    assert inside.past_error is None and int(np.argmax(inside.past_code)) == 6
    short = one_hot_demo(n=12, width=8, past=1)
    assert short.sentence_codes is None and "no encoding" in short.sentence_error


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5, 1000])
def test_one_hot_demo_at_small_and_large_widths(width):
    oh = one_hot_demo(n=5, width=width, past=width + 1)
    assert oh.past_error is not None
    assert oh.distances.shape[0] == min(width, ONE_HOT_SHOWN)
    a, b, far = oh.pair
    assert 1 <= a <= b <= far == width


def test_encode_unknown_fix():
    with pytest.raises(ValueError):
        encode("sinusoid", [1], 5, 5, np.ones(4))


# ---------------------------------------------------------------- ranks and shares
@given(st.lists(st.integers(-10**6, 10**6), min_size=3, max_size=30, unique=True))
@settings(deadline=None)  # a shared 2-core machine: no timing in a test
def test_rank_correlation_is_invariant_to_monotone_maps(row):
    s = np.array(row, dtype=float)
    p = np.arange(1, s.size + 1)
    a = rank_correlation(s[None, :], p)
    b = rank_correlation((s**3 + 2 * s)[None, :], p)  # strictly increasing, keeps distinct values distinct
    assert a == pytest.approx(b, abs=1e-12)
    assert rank_correlation(np.sort(s)[None, :], p) == pytest.approx(1.0)
    assert rank_correlation(np.sort(s)[::-1][None, :], p) == pytest.approx(-1.0)


def test_ranks_share_ties():
    assert np.array_equal(_ranks(np.array([5.0, 1.0, 5.0, 3.0])), [3.5, 1.0, 3.5, 2.0])
    # rows with ties take the tie-aware path and agree with the per-row ranks
    S = np.array([[0.0, 0.0, 1.0, 2.0], [3.0, 1.0, 2.0, 0.0]])
    p = np.arange(1, 5)
    per_row = np.mean([np.corrcoef(_ranks(r), p)[0, 1] for r in S])
    assert rank_correlation(S, p) == pytest.approx(per_row)


@given(st.floats(-100, 100), st.floats(0.1, 100), st.integers(3, 40))
@settings(deadline=None)  # a shared 2-core machine: no timing in a test
def test_position_share_is_one_for_scores_linear_in_position(a, b, n):
    p = np.arange(1, n + 1)
    assert position_share((a + b * p)[None, :], p) == pytest.approx(1.0)


# ---------------------------------------------------------------- 1. the raw index
def _xw(tokens, d=64, seed=0):
    return embed(tokens, d, seed), projections(d, seed)


def test_index_scores_add_p_i_p_j_over_sqrt_d():
    X, W = _xw(TOKENS)
    content = (X @ W[0]) @ (X @ W[1]).T
    p = np.arange(500, 505)
    s = index_scores(content, p, 64)
    assert np.allclose(s - content / 8.0, np.outer(p, p) / 8.0, rtol=0, atol=1e-9)


def test_raw_index_at_500_ranks_by_position_and_the_last_word_wins():
    X, W = _xw(TOKENS)
    r = raw_index_demo(X, W, 500)
    assert list(r.positions) == [500, 501, 502, 503, 504]
    assert r.rho_with == pytest.approx(1.0) and r.share_with > 0.999
    assert r.last_wins == len(TOKENS)
    assert np.all(np.argmax(r.weights_with, axis=1) == len(TOKENS) - 1)
    # the weights without the index do not depend on where the sentence starts
    assert np.array_equal(r.weights_without, raw_index_demo(X, W, 1).weights_without)
    assert np.allclose(r.weights_without, softmax(r.content / 8.0))
    assert 500 in r.sweep_starts and r.sweep_starts.min() == 1 and r.sweep_starts.max() >= 1000


def test_content_scores_spread_about_sqrt_d():
    words = [f"w{i}" for i in range(40)]
    for d in (16, 64, 256):
        X, W = _xw(words, d)
        r = raw_index_demo(X, W, 1)
        assert 0.6 < r.content_spread / math.sqrt(d) < 1.6
        assert 0.8 < r.word_norm / math.sqrt(d) < 1.2


def test_position_term_grows_with_the_start():
    X, W = _xw(TOKENS)
    shares = [raw_index_demo(X, W, s).share_with for s in (1, 10, 100, 1000)]
    assert shares[-1] > 0.999 and shares[-1] >= shares[0]


# ---------------------------------------------------------------- 2. index ÷ length
def test_ratio_demo_previous_word_gap_is_one_over_n():
    r = ratio_demo(5, 100)
    assert r.tracked == 3
    assert r.tracked_sentence == pytest.approx(3 / 5) and r.tracked_long == pytest.approx(3 / 100)
    assert r.step_sentence == pytest.approx(0.2) and r.step_long == pytest.approx(0.01)
    assert np.allclose(r.previous_gap, 1.0 / r.lengths)
    assert {5, 100} <= set(r.lengths.tolist())
    assert np.all(np.diff(r.previous_gap) < 0)  # no fixed form: it shrinks at every length


def test_ratio_demo_with_a_two_word_sentence_follows_word_two():
    r = ratio_demo(2, 10)
    assert r.tracked == 2 and r.tracked_sentence == 1.0 and r.tracked_long == pytest.approx(0.2)


# ---------------------------------------------------------------- 3. multiplying
@pytest.mark.parametrize("m", [1, 2, 50, 1000])
def test_multiply_demo_scores_are_volume_not_meaning(m):
    X, W = _xw(TOKENS)
    r = multiply_demo(X, W, word_index=4, query_index=2, position=m)
    assert r.norm_at_m == pytest.approx(m * r.norm_at_1, rel=1e-12)
    assert np.allclose(r.scores_at_m, m * r.scores_at_1, rtol=1e-12, atol=0)
    assert np.allclose(r.cos_at_m, r.cos_at_1, atol=1e-12)
    # queries at their own positions i + 1: s_i(1) = (i + 1)·q_i·k/√d
    q, k = X @ W[0], X[4] @ W[1]
    assert np.allclose(r.scores_at_1, np.arange(1, 6) * (q @ k) / 8.0)


# ---------------------------------------------------------------- the summary
def test_summary_every_fix_breaks_where_the_chapter_says():
    x = embed(["mouse"], 64, 0)[0]
    verdicts = summary(x, SHORT, 100)
    assert len(verdicts) == len(FIXES) * len(WISHES)
    failed = {(v.fix, v.wish) for v in verdicts if not v.passed}
    assert failed == {
        ("raw index", "bounded"),
        ("index ÷ length", "same meaning at every length"),
        ("multiply by p", "bounded"),
        ("one-hot", "neighbours close"),
        ("one-hot", "defined past the longest sentence"),
    }


@given(st.integers(10, 400))
@settings(max_examples=15, deadline=None)
def test_summary_verdicts_agree_with_their_numbers(L):
    x = embed(["cat"], 8, 1)[0]
    for v in summary(x, SHORT, L):
        if v.wish == "unique":
            assert v.passed == (v.left == v.right == L)
        elif v.wish == "bounded":
            assert v.passed == (v.right <= v.left * (1 + 1e-12))
        elif v.wish == "same meaning at every length":
            assert v.passed == (v.left <= 1e-12)
        elif v.wish == "neighbours close":
            assert v.passed == (v.left < v.right)
        else:
            assert v.left == L + 1
            assert v.passed == (not v.message)
    same = {v.fix: v.left for v in summary(x, SHORT, L) if v.wish == "same meaning at every length"}
    assert same["index ÷ length"] == pytest.approx(abs(3 / SHORT - 3 / L))


def test_past_the_longest_sentence_message_names_the_position():
    v = wish_past("one-hot", 100, np.ones(3))
    assert not v.passed and "101" in v.message


# ---------------------------------------------------------------- the sections' calls
def _demos(tokens, d=16, seed=0, start=500, length=100, position=50, width=8, past=9):
    """Every fix as the page's sections compute it (``posenc.sections.fixes``): the inputs, then one call each."""
    inp = fixes_inputs(tokens, d, seed)
    return (inp, raw_index_demo(inp.X, inp.W, start), ratio_demo(len(tokens), length),
            multiply_demo(inp.X, inp.W, inp.word, inp.query, position), one_hot_demo(len(tokens), width, past),
            summary(inp.X[inp.word], SHORT, length))


def test_sections_defaults_and_bad_input():
    inp, raw, _, m, oh, _ = _demos(TOKENS, 64)
    assert m.word_index == 4 and m.query_index == 2  # mouse, chased
    assert raw.positions[0] == 500
    assert oh.past_error is not None
    with pytest.raises(ValueError, match="at least two words"):
        fixes_inputs(["word"], 64, 0)
    with pytest.raises(ValueError, match="first word's position must be between 1"):
        raw_index_demo(inp.X, inp.W, 0)
    with pytest.raises(ValueError, match="whole number"):
        raw_index_demo(inp.X, inp.W, 500.5)
    with pytest.raises(ValueError, match="short ≤ long"):
        summary(inp.X[inp.word], SHORT, 4)
    with pytest.raises(ValueError, match="sentence length must be a whole number"):
        ratio_demo(5, 100.0)
    with pytest.raises(ValueError, match="one-hot width N must be between 1 and"):
        one_hot_demo(5, 0, 9)


@pytest.mark.parametrize("d", [2, 3, 511, 512])
def test_sections_any_width_and_extremes(d):
    words = [f"w{i % 50}" for i in range(64)]
    _, raw, _, _, oh, _ = _demos(words, d, 3, 2000, 1000, 1000, 1000, 2000)
    assert raw.rho_with == pytest.approx(1.0)
    assert oh.sqrt2_error < 1e-12
    _, _, _, _, oh, _ = _demos(words[:2], d, 3, 1, 10, 1, 1, 1)
    assert oh.sentence_error is not None and oh.past_error is None


# ---------------------------------------------------------------- the chapter's "term of order 500"
def test_raw_term_coordinate_first_then_the_score():
    """The coordinate p sits beside coordinates of size ≈ 1; in a score the content spreads by ≈ √d while the index
    meeting a query coordinate of size ≈ 1 adds ≈ p (the chapter's "term of order 500"), and p·p in both q and k."""
    X, W = _xw(TOKENS)
    t = raw_term(X, W, chapter.RAW_POSITION)
    Q, K = X @ W[0], X @ W[1]
    assert t.position == chapter.RAW_POSITION and t.d == 64 and t.sqrt_d == 8.0
    assert t.content_coordinate == pytest.approx(math.sqrt(np.sum(X ** 2) / X.size))
    assert t.query_coordinate == pytest.approx(math.sqrt(np.sum(Q ** 2) / Q.size))
    assert t.content_score == pytest.approx(np.std(Q @ K.T))
    assert t.one_side == pytest.approx(t.query_coordinate * 500) and t.both_sides == 500 * 500
    # the chapter's orders of magnitude: coordinates ≈ 1, content scores ≈ √64 = 8, the index's term ≈ 500
    assert 0.7 < t.content_coordinate < 1.3 and 0.7 < t.query_coordinate < 1.3
    assert 4 < t.content_score < 16
    assert 350 < t.one_side < 650
    # it agrees with the page's score formula: p_i·p_j is the term both sides carry
    assert raw_index_demo(X, W, 500).position_term[0, 0] == t.both_sides


@given(st.integers(1, 100_000), st.integers(1, 50))
@settings(max_examples=30, deadline=None)
def test_raw_term_grows_linearly_and_quadratically(p, seed):
    X, W = _xw(TOKENS, 16, seed)
    t = raw_term(X, W, p)
    assert t.one_side == pytest.approx(t.query_coordinate * p)
    assert t.both_sides == pytest.approx(float(p) ** 2)


def test_inputs_follow_the_chapter_picks():
    inp = fixes_inputs(TOKENS, 16, 0)
    assert TOKENS[inp.word] == chapter.MULTIPLY_WORD and TOKENS[inp.query] == chapter.QUERY_WORD
    other = ["a", "b", "c"]
    inp = fixes_inputs(other, 16, 0)
    assert inp.word == 2 and inp.query == chapter.query_index(other)


# ---------------------------------------------------------------- the charts
def _all_figures(tokens, d=16, start=500, length=100, position=50, width=8, past=9):
    inp, r, ra, m, o, _ = _demos(tokens, d, 0, start, length, position, width, past)
    t = raw_term(inp.X, inp.W, start)
    figs = [
        C.coordinate_bars(inp.X[0], start, tokens[0]),
        C.score_terms(t.content_score, t.one_side, t.both_sides, start, d),
        C.weights_heatmap(r.content, tokens, d, r.weights_without, r.weights_with, opening=start),
        C.share_sweep(r.sweep_starts, r.sweep_rho, r.sweep_share, start),
        *fixes_sections.ratio(" ".join(tokens), length)[1:],  # as the page draws them: the 1/N curve to 1000
        C.multiply_lines(m.scores_at_1, tokens, m.query_index, opening=m.position),
        fixes_sections.onehot(" ".join(tokens), width, past)[1],  # N and p move inside it: opened at these
    ]
    return figs


@pytest.mark.parametrize("kw", [
    dict(start=500, length=100, position=50, width=8, past=9),
    dict(start=2000, length=1000, position=1000, width=1000, past=2000, d=512),
    dict(start=1, length=10, position=1, width=1, past=1, d=2),
])
def test_every_figure_is_valid_named_and_small(kw):
    from posenc.charts.spec import MAX_MARKS, validate

    tokens = [f"w{i}" for i in range(64)] if kw["length"] == 1000 else TOKENS
    figs = _all_figures(tokens, **kw)
    for fig in figs:
        full = validate(fig)  # the Vega-Lite schema
        assert fig.description and all(t.num_rows <= MAX_MARKS for t in fig.datasets.values())
        assert "width" not in fig.spec  # fills its column
        assert fig.spec["autosize"]["type"] == "fit-x"
        for layer in spec_layers(full):
            data = layer.get("data", full.get("data"))
            assert data is not None and set(data) == {"name"} and data["name"] in fig.datasets  # named, not inline
            mark = layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
            invisible = isinstance(layer["mark"], dict) and layer["mark"].get("opacity") == 0  # an axis' extent
            if mark != "text" and not invisible:
                assert "tooltip" in layer["encoding"], fig.description


def test_a_sliders_value_is_data_not_layout():
    """The start takes two thousand values: every figure's layout stays the same (the positions in labels,
    titles, the label's place and the axes' ends travel as data). The start (in the weights map), the compared
    length N and the key's position m are sliders inside their charts: those figures' data are the same wherever
    they open (the browser computes what the start, N and m change), and only their readings name the opening
    value; the 1/N curve beside the strip does not depend on N at all."""
    a = _all_figures(TOKENS, start=500, length=100, position=50, width=30, past=9)
    b = _all_figures(TOKENS, start=1701, length=937, position=713, width=40, past=9)
    for x, y in zip(a, b):
        assert layout_of(x) == layout_of(y), x.description
        in_chart = any(name in json.dumps(x.spec) for name in (C.START, C.LENGTH, C.POSITION, C.WIDTH, C.PAST))
        same_data = all(x.datasets[k].equals(y.datasets[k]) for k in x.datasets)
        if in_chart:
            assert same_data and x.reading != y.reading, x.description
        elif "1/N, against the sentence length" in x.description:
            assert same_data and x.reading == y.reading, x.description
        else:
            assert not same_data, x.description


@pytest.mark.parametrize("kw", [
    dict(start=500, length=100, position=50, width=8, past=9),
    dict(start=1701, length=937, position=713, width=40, past=9),
    dict(start=1, length=10, position=1, width=1, past=1, d=2),
])
def test_the_numbers_of_a_setting_are_read_out_not_named(kw):
    """A slider's value, and every number that follows it, is in the figure's reading (read out after the
    chart), never in its description (the chart's name, which would rebuild the chart at every press)."""
    from posenc.fixes import DWARFS

    figs = _all_figures(TOKENS, **kw)
    coord, terms, weights, sweep, strip, gap, lines, onehot = figs
    start, length, position, n = kw["start"], kw["length"], kw["position"], len(TOKENS)
    sliders = {start, length, position} - {1, 2}  # 1 and 2 are the chapter's own words: size about 1, √2
    for fig in figs:
        named = {int(v.replace(",", "")) for v in re.findall(r"\d[\d,]*", fig.description)}
        assert not sliders & named, fig.description
    inp, r, _, _, o, _ = _demos(TOKENS, kw.get("d", 16), 0, start, length, position, kw["width"], kw["past"])
    x = inp.X[0]
    rms = math.sqrt(sum(v * v for v in x) / len(x))
    assert coord.reading.startswith(f"The vector of “{TOKENS[0]}” at position {start:,}: its {len(x)} own")
    assert f"typical size {rms:.2f}" in coord.reading
    assert ("hardly show" in coord.reading) == (start >= DWARFS * rms)
    assert terms.reading.startswith(f"At position {start:,}, d = {kw.get('d', 16)}: ")
    wins = sum(int(np.argmax(row)) == n - 1 for row in r.weights_with)  # queries whose top key is the last
    assert f"With the index, {wins} of {n} queries" in weights.reading
    assert sweep.reading.startswith(f"The first word is at {start:,}. From a start of 1 to {max(1000, start):,}, "
                                    f"R² goes from {r.sweep_share[0]:.3f} to {r.sweep_share[-1]:.3f}")
    assert strip.reading == (f"Your sentence has {n} words; the chart opens at N = {length}: word 3 is {3 / n:.3g} "
                             f"in the first and {3 / length:.3g} in the second; the step is {1 / n:.3g} against "
                             f"{1 / length:.3g}.")
    assert gap.reading == f"The step is {1 / n:.3g} in your {n} words and 0.01 in 100."
    assert lines.reading.startswith(f"The chart opens at m = {position:,}: the key word is placed at positions 1 to "
                                    f"{max(position, 2):,}")
    N, p = kw["width"], kw["past"]
    shown = min(N, C.SHOWN)
    assert o.shown == shown
    apart = ("a table one column wide has no two different positions" if shown == 1
             else f"every distance off the diagonal is {math.sqrt(2):.6f}")
    fit = "fit" if n <= N else "do not fit"
    past = f"position {p:,} is past column {N:,}: it has no code" if p > N else f"position {p:,} is a 1 in column {p:,}"
    assert onehot.reading == (f"The chart opens at N = {N:,} and p = {p:,}: positions 1 to {shown} shown, {apart}; "
                              f"your {n} words {fit} in {N:,} column{'' if N == 1 else 's'}; {past}.")


@pytest.mark.parametrize("width,past", [(1, 1), (5, 9), (8, 9), (30, 2), (1000, 2000)])
def test_the_one_hot_chart_is_the_same_at_every_width_and_position(width, past):
    """N and p move inside the chart: its layout and data (a fixed grid of SHOWN × SHOWN positions and your words)
    are the same wherever it opens, only its reading names N and p."""
    base = fixes_sections.onehot(" ".join(TOKENS), 8, 9)[1]
    fig = fixes_sections.onehot(" ".join(TOKENS), width, past)[1]
    assert layout_of(fig) == layout_of(base)
    assert fig.datasets.keys() == base.datasets.keys() and all(t.equals(base.datasets[k]) for k, t in fig.datasets.items())
    assert fig.datasets["grid"].num_rows == C.SHOWN ** 2
    assert (fig.reading == base.reading) == ((width, past) == (8, 9))


def _weights_cells(fig, start: int, scores: str = C.SCORES[1]) -> list[dict]:
    """The weights map's cells as the browser computes them at ``start`` (its transforms through the mirror of
    tests/conftest.py)."""
    from conftest import run_transforms, transforms_over

    params = {C.START: start, C.SCORES_PICK: scores}
    return run_transforms(fig.datasets["weights"].to_pylist(), transforms_over(fig.spec, "weights", "key"), params)


def test_labels_that_carry_the_start_are_ordered_by_their_index():
    X, W = _xw(TOKENS)
    r = raw_index_demo(X, W, 998)
    fig = C.weights_heatmap(r.content, TOKENS, X.shape[1], r.weights_without, r.weights_with, opening=998)
    order = sorted({(row["ki"], row["key"]) for row in _weights_cells(fig, 998)})
    assert [k for _, k in order] == ["998 the", "999 cat", "1000 chased", "1001 the", "1002 mouse"]  # not as text
    [cells] = [layer for layer in fig.spec["layer"] if layer["mark"]["type"] == "rect"]
    assert cells["encoding"]["x"]["sort"] == {"field": "ki", "op": "min"}
    assert cells["encoding"]["y"]["sort"] == {"field": "qi", "op": "min"}


def test_weights_heatmap_sends_the_content_scores_once_and_picks_and_starts_in_the_chart():
    """One row a query-key pair, its content score q·k: the radio picks the words only or with the index, the
    slider the start, and the browser computes both weights (tests/test_client_expressions_fixes.py at every
    start)."""
    X, W = _xw(TOKENS)
    r = raw_index_demo(X, W, 500)
    fig = C.weights_heatmap(r.content, TOKENS, X.shape[1], r.weights_without, r.weights_with, opening=500)
    rows = fig.datasets["weights"].to_pylist()
    assert len(rows) == 25 and {row["d"] for row in rows} == {X.shape[1]}
    assert [row["content"] for row in rows] == list(r.content.ravel())
    assert {row["qw"] for row in rows} == set(TOKENS) and {row["n"] for row in rows} == {5}
    # two copies of "the" stay two labels, 1-based from the start
    got = {(row["query"], row["key"]): row["weight"] for row in _weights_cells(fig, 500)}
    assert {"500 the", "503 the"} <= {k for _, k in got}
    assert got[("500 the", "504 mouse")] == pytest.approx(r.weights_with[0, 4], rel=1e-12)
    alone = {(row["query"], row["key"]): row["weight"] for row in _weights_cells(fig, 500, C.SCORES[0])}
    assert alone[("502 chased", "501 cat")] == pytest.approx(r.weights_without[2, 1], rel=1e-12)
    params = {p["name"]: p for node in [fig.spec, *fig.spec["layer"]] for p in node.get("params", [])}
    assert params[C.SCORES_PICK]["bind"]["input"] == "radio" and params[C.SCORES_PICK]["value"] == "with the index"
    assert params[C.START]["bind"]["input"] == "range" and params[C.START]["value"] == chapter.RAW_POSITION


def test_multiply_lines_highlight_the_chapter_query_and_move_m_inside_the_chart():
    X, W = _xw(TOKENS)
    m = multiply_demo(X, W, 4, 2, 50)
    fig = C.multiply_lines(m.scores_at_1, TOKENS, m.query_index, opening=m.position)
    params = {p["name"]: p for node in [fig.spec, *fig.spec["layer"]] for p in node.get("params", [])}
    assert params["fx_query"]["value"] == "3 chased" and params["fx_query"]["bind"]["input"] == "select"
    assert params[C.POSITION]["value"] == 50 and params[C.POSITION]["bind"]["input"] == "range"
    assert (params[C.POSITION]["bind"]["min"], params[C.POSITION]["bind"]["max"]) == C.POSITIONS
    assert fig.datasets["lines"].column("slope").to_pylist()[::2] == list(m.scores_at_1)  # s(1), the slope


def test_score_terms_put_the_chapters_number_between_the_content_and_p_squared():
    fig = C.score_terms(8.0, 500.0, 250_000.0, 500, 64)
    sizes = [row["size"] for row in fig.datasets["terms"].to_pylist()]
    assert sizes == [8.0, 500.0, 250_000.0]
    assert fig.spec["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"
    low, high = fig.datasets["extent"].column("size").to_pylist()  # the axis' ends, as data: from 1, with room
    assert low == 1.0 and high == 250_000.0 * C.TERMS_AXIS_ROOM  # for the largest size's text


def test_summary_frame_shows_every_verdict():
    x = embed(["mouse"], 64, 0)[0]
    verdicts = summary(x, SHORT, 100)
    df = C.summary_frame(verdicts, SHORT, 100).to_pandas().set_index("wish (the computed test)")
    assert list(df.columns) == list(FIXES) and df.shape == (len(WISHES), len(FIXES))
    cells = df.to_numpy().ravel().tolist()
    assert sum(c.startswith("meets it") for c in cells) == sum(v.passed for v in verdicts)
    assert sum(c.startswith("fails") for c in cells) == sum(not v.passed for v in verdicts)
    assert df.loc[df.index[3], "one-hot"].startswith("fails")  # neighbours close


@pytest.mark.parametrize("present", [False, True])
def test_score_terms_leave_the_bigger_texts_room_while_projecting(present):
    """The axis reaches TERMS_AXIS_ROOM times the largest size, and TERMS_PRESENT_ROOM times further while the
    numbers beside the bars are 18 px (spec.PRESENT_PARAM); the axis' end labels stay inside (the house's
    labelFlush, spec.LABEL_FLUSH)."""
    from posenc.charts import spec as S

    fig = C.score_terms(8.0, 500.0, 250_000.0, 500, 64)
    [far] = [layer for layer in fig.spec["layer"] if layer["encoding"]["x"]["field"] == "far"]
    [calc] = far["transform"]
    end = fig.datasets["extent"].column("size").to_pylist()[-1]
    assert end == 250_000.0 * C.TERMS_AXIS_ROOM
    got = vega_eval(calc["calculate"], datum={"size": end}, params={S.PRESENT_PARAM: "1" if present else ""})
    assert got == end * (C.TERMS_PRESENT_ROOM if present else 1)
    assert "labelFlush" not in fig.spec["layer"][0]["encoding"]["x"].get("axis", {})  # the house's, not true (1 px)
    assert fig.spec["config"]["axisXQuantitative"]["labelFlush"] == S.LABEL_FLUSH

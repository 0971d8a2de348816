"""Math of the learned-table page: lookups, the training simulation, independence of rows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import lights_a_link
from posenc import chapter
from posenc.core import embed, projections
from posenc.learned import (
    DECIDES,
    LENGTH_SIGMA,
    N_MAX_LIMIT,
    downsample_index,
    edge,
    independence,
    init_table,
    log2_bins,
    lookup,
    mean_cosine_by_offset,
    pattern_terms,
    simulate_training,
    two_lookups,
    updates_per_row,
)
from posenc.trained import cosine_by_offset


# ---------------------------------------------------------------- the table and its lookups
def test_table_shape_and_determinism():
    t = init_table(16, 8, seed=3)
    assert t.shape == (16, 8)
    assert np.array_equal(t, init_table(16, 8, seed=3))
    assert not np.array_equal(t, init_table(16, 8, seed=4))


@given(st.integers(1, 64), st.integers(1, 64), st.integers(2, 16))
@settings(max_examples=30, deadline=None)
def test_row_p_does_not_depend_on_table_size(a, b, d):
    small, big = sorted((a, b))
    assert np.array_equal(init_table(small, d, 0), init_table(big, d, 0)[:small])


def test_lookup_is_one_based():
    t = init_table(10, 4, 0)
    assert np.array_equal(lookup(t, [1]), t[:1])
    assert np.array_equal(lookup(t, [10]), t[9:10])
    assert np.array_equal(lookup(t, [3, 1, 3]), t[[2, 0, 2]])
    assert np.array_equal(lookup(t, [2.0]), t[1:2])


@pytest.mark.parametrize("bad", [[11], [0], [-3], [1.5], [1, 1025]])
def test_lookup_past_the_table_or_invalid_is_a_message(bad):
    with pytest.raises(ValueError) as err:
        lookup(init_table(10, 4, 0), bad)
    assert "Traceback" not in str(err.value) and len(str(err.value)) > 10


def test_no_row_after_n_max_names_the_missing_row():
    with pytest.raises(ValueError, match="no row 1025.*1 … 1024"):
        lookup(init_table(1024, 2, 0), [1025])


@pytest.mark.parametrize("n_max", [0, N_MAX_LIMIT + 1, 8.0, True])
def test_bad_table_size(n_max):
    with pytest.raises(ValueError, match="N_max"):
        init_table(n_max, 4, 0)


def test_two_lookups_add_word_and_position_rows():
    tokens = ["the", "cat", "chased", "the", "mouse"]
    res = two_lookups(tokens, 1024, 6, seed=2)
    E, P = embed(tokens, 6, 2), init_table(1024, 6, 2)
    assert res.n_used == 5
    assert np.array_equal(res.inputs, E + P[:5])
    assert res.max_error == 0.0
    # the two copies of "the" share a word row but not a position row
    assert np.array_equal(res.word_rows[0], res.word_rows[3])
    assert not np.array_equal(res.inputs[0], res.inputs[3])


def test_two_lookups_cut_at_n_max():
    res = two_lookups(list("abcdefghij"), 8, 4, 0)
    assert res.n_used == 8 and res.inputs.shape == (8, 4)


# ---------------------------------------------------------------- the training simulation
def test_updates_per_row_by_hand():
    # lengths 1, 3, 3, 5: row 1 is in all 4 sentences, rows 2–3 in 3, rows 4–5 in 1, row 6 in none
    assert updates_per_row(np.array([1, 3, 3, 5]), 6).tolist() == [4, 3, 3, 1, 1, 0]


@given(st.lists(st.integers(1, 40), min_size=1, max_size=200))
@settings(max_examples=50, deadline=None)
def test_updates_are_a_survival_count(lengths):
    L = np.array(lengths)
    u = updates_per_row(L, 40)
    assert u[0] == len(L)  # every sentence has a first word
    assert np.all(np.diff(u) <= 0)  # a row is reached only if every earlier row is
    assert u.sum() == L.sum()  # a sentence of length L sends exactly L updates


def test_training_lengths_are_clipped_and_skewed():
    """The training's sentence lengths (``length_counts``, what the page's histogram draws): log-normal around
    the median, cut to the table."""
    tr = simulate_training(1024, 8, seed=0, n_sentences=200_000, median=32)
    L = np.repeat(np.arange(1, 1025), tr.length_counts)  # every sentence's length, L = 1 … N_max
    assert L.size == 200_000 and L.min() >= 1 and L.max() <= 1024
    assert abs(np.median(L) - 32) <= 1
    assert np.mean(L) > np.median(L)  # a long right tail: the mean sits above the median
    # log-normal: ln L has spread σ (rounding and clipping aside)
    assert abs(np.std(np.log(L[(L > 4) & (L < 1024)])) - LENGTH_SIGMA) < 0.1
    assert tr.length_counts[-1] >= tr.truncated > 0  # the longer ones are cut to N_max, and counted


@pytest.mark.parametrize("kwargs, says", [
    ({"n_sentences": 0}, "number of training sentences"),
    ({"n_sentences": 2.5}, "whole number"),
    ({"median": 0.5}, "median sentence length must be a number of at least 1"),
    ({"median": float("nan")}, "median sentence length"),
    ({"step": 0.0}, "step size must be a number greater than 0"),
])
def test_training_bad_input(kwargs, says):
    with pytest.raises(ValueError, match=says):
        simulate_training(8, 4, **kwargs)


def test_training_counts_and_distances():
    tr = simulate_training(1024, 64, seed=0, n_sentences=100_000, median=32)
    assert tr.updates[0] == 100_000
    assert np.all(np.diff(tr.updates) <= 0)
    assert tr.length_counts.sum() == 100_000
    assert tr.updates[-1] == tr.length_counts[-1]  # only sentences of length N_max reach row N_max
    # a sum of n_r steps N(0, η² I_d): E‖·‖² = n_r η² d
    hit = tr.updates > 0
    ratio = tr.moved[hit] ** 2 / (tr.updates[hit] * tr.step**2 * tr.d)
    assert abs(np.mean(ratio) - 1) < 0.02
    assert np.all(tr.moved[~hit] == 0)
    assert np.mean(tr.relative[:100]) > 10 * np.mean(tr.relative[-100:])  # the last rows barely move


def test_truncation_is_counted():
    tr = simulate_training(8, 4, seed=0, n_sentences=1000, median=512)
    assert tr.truncated > 900  # nearly every sentence is longer than 8 words
    assert tr.length_counts[-1] >= tr.truncated


# ---------------------------------------------------------------- rows are independent
@given(st.integers(2, 70), st.integers(2, 12), st.integers(0, 5))
@settings(max_examples=30, deadline=None)
def test_fft_cosine_by_offset_matches_the_gram_version(n, d, seed):
    t = init_table(n, d, seed)
    assert np.max(np.abs(mean_cosine_by_offset(t) - cosine_by_offset(t, n - 1))) < 1e-12


def test_cosine_by_offset_of_identical_rows_is_one():
    t = np.tile(np.array([[1.0, 2.0, -1.0]]), (6, 1))
    assert np.allclose(mean_cosine_by_offset(t), 1.0)


def test_random_rows_have_no_neighbours():
    ind = independence(1024, 64, seed=0)
    t = init_table(1024, 64, 0)
    cos = lambda u, v: u @ v / np.linalg.norm(u) / np.linalg.norm(v)  # noqa: E731
    assert ind.cos_ab == pytest.approx(cos(t[2], t[3]))
    assert ind.cos_ac == pytest.approx(cos(t[2], t[899]))
    assert (ind.a, ind.b, ind.c) == (3, 4, 900)
    assert ind.by_offset[0] == pytest.approx(1.0)
    # averages over many independent pairs: within 5 standard errors of 0 at every offset with ≥ 100 pairs
    k = np.arange(1, 1024 - 100)
    assert np.all(np.abs(ind.by_offset[k]) < 5 * ind.spread / np.sqrt(1024 - k))


def test_independence_small_table_uses_its_last_row():
    ind = independence(8, 4, 0)
    assert ind.c == 8
    with pytest.raises(ValueError):
        independence(1, 4, 0)


# ---------------------------------------------------------------- helpers
@given(st.integers(1, 5000), st.integers(2, 600))
@settings(max_examples=50, deadline=None)
def test_downsample_keeps_ends_and_bound(n, m):
    idx = downsample_index(n, m)
    assert idx[0] == 0 and idx[-1] == n - 1
    assert len(idx) <= max(m, 1) or n <= m
    assert np.all(np.diff(idx) > 0)


def test_log2_bins():
    labels, starts, sums = log2_bins(np.arange(1, 11))  # counts 1 … 10 for lengths 1 … 10
    assert labels == ["1", "2–3", "4–7", "8–10"]
    assert starts.tolist() == [1, 2, 4, 8]
    assert sums.tolist() == [1, 2 + 3, 4 + 5 + 6 + 7, 8 + 9 + 10]


# ---------------------------------------------------------------- the edge of the table
def test_edge_at_the_chapters_table_finds_row_n_max_and_not_the_next():
    e = edge(chapter.N_MAX, 64, 0, chapter.N_MAX + 1)
    assert e.n_max == chapter.N_MAX and e.last_found and not e.found
    assert e.message == e.after_last and f"no row {chapter.N_MAX + 1}" in e.message
    assert e.rows == list(range(chapter.N_MAX - 4, chapter.N_MAX + 5))
    table = init_table(chapter.N_MAX, 64, 0)
    for i, r in enumerate(e.rows):
        if r <= chapter.N_MAX:
            assert np.array_equal(e.values[i], table[r - 1, :16])  # row r is index r − 1
        else:
            assert np.all(np.isnan(e.values[i]))  # a missing row has no values, never zeros


def test_edge_inside_and_far_past_the_table():
    e = edge(8, 4, 1, 3, k=16)
    assert e.found and e.message is None and e.values.shape == (9, 4) and e.rows[0] == 1
    far = edge(8, 4, 1, 4096)
    assert not far.found and far.rows == [4, 5, 6, 7, 8, 9, 4096] and "no row 4096" in far.message
    with pytest.raises(ValueError, match=r"The position \(the first word is 1\) must be at least 1; got 0"):
        edge(8, 4, 1, 0)
    with pytest.raises(ValueError, match="must be a whole number; got 3.0"):
        edge(8, 4, 1, 3.0)


# ---------------------------------------------------------------- a pattern, not a magnitude
def test_pattern_terms_by_hand():
    """The position part of a score is the score with x = E + P minus the score with E alone; the raw index's
    part is p_i p_j / √d. Recomputed here directly for one start."""
    words = ["the", "cat", "chased", "the", "mouse"]
    pt = pattern_terms(words, 64, 16, 0)
    E, (Wq, Wk, _) = embed(words, 16, 0), projections(16, 0)
    P = init_table(64, 16, 0)
    s = 7
    i = int(np.flatnonzero(pt.starts == s)[0])
    X = E + P[s - 1:s - 1 + 5]
    full = (X @ Wq) @ (X @ Wk).T / 4.0
    content = (E @ Wq) @ (E @ Wk).T / 4.0
    assert pt.content == pytest.approx(np.sqrt(np.mean(content ** 2)))
    assert pt.learned[i] == pytest.approx(np.sqrt(np.mean((full - content) ** 2)))
    p = np.arange(s, s + 5.0)
    assert pt.raw[i] == pytest.approx(np.sqrt(np.mean((np.outer(p, p) / 4.0) ** 2)))
    assert pt.row_norm[i] == pytest.approx(np.linalg.norm(P[s - 1]))
    assert pt.starts.tolist() == list(range(1, 64 - 5 + 2))  # every start, none sampled
    assert pt.raw_ratio_at(s) == pytest.approx(pt.raw_ratio[i])  # exact, not interpolated
    p500 = np.arange(500, 505.0)
    assert pt.raw_ratio_at(500) == pytest.approx(np.sqrt(np.mean((np.outer(p500, p500) / 4.0) ** 2)) / pt.content)


def test_a_table_row_colours_a_score_while_the_raw_index_decides_it():
    pt = pattern_terms(["the", "cat", "chased", "the", "mouse"], chapter.N_MAX, 64, 0)
    assert pt.ratio.max() < DECIDES  # the same order as the content part at every row
    assert pt.ratio.max() / pt.ratio.min() < 5  # and it does not grow along the table
    assert pt.raw_ratio[-1] > 1000 * DECIDES  # the raw index: p² dwarfs it
    with pytest.raises(ValueError):
        pattern_terms(["a"] * 9, 8, 4, 0)


# ---------------------------------------------------------------- the charts
def _learned_figures():
    from posenc.charts import learned as C
    from posenc.charts.spec import word_labels
    from posenc.trained import cosine_matrix, load_minilm_table, row_norms

    words = ["the", "cat", "sat", "the", "mat"]
    lk = two_lookups(words, 1024, 64, 0)
    e = edge(1024, 64, 0, 4096)
    tr = simulate_training(1024, 64, 0, 10_000, 32.0)
    labels, _, sums = log2_bins(tr.length_counts)
    idx = downsample_index(1024, 512)
    top, bottom = C.per_row(idx + 1, tr.updates[idx], tr.relative[idx], 1024)
    ind = independence(1024, 64, 0)
    pt = pattern_terms(words, 1024, 64, 0)
    trained = load_minilm_table()
    grid = np.arange(0, trained.shape[0], 16)
    return [
        C.two_lookups(lk.word_rows, lk.position_rows, word_labels(words), 16),
        C.table_window(e.values, e.rows, 1024, 4096),
        C.pattern_chart(pt.starts, pt.learned, pt.raw, pt.content, 1024),
        C.length_histogram(labels, sums),
        top,
        bottom,
        C.cosine_offsets(idx, {"random": ind.by_offset[idx], "again": ind.by_offset[idx]}, "t"),
        C.row_norms(np.arange(1, trained.shape[0] + 1), row_norms(trained), trained.shape[0]),
        C.cosine_grid(cosine_matrix(trained, grid), (grid + 1).tolist(), "t"),
    ]


def test_every_figure_is_valid_named_small_and_fills_its_column():
    """A chart with fixed step widths would spill out of its column at 1024 px: every figure has no width of
    its own and fits its container's width."""
    from posenc.charts.spec import validate

    for fig in _learned_figures():
        full = validate(fig)
        assert fig.description and fig.rows <= 5000
        assert "width" not in fig.spec and fig.spec["autosize"]["type"] == "fit-x"
        for layer in full.get("layer", [full]):
            data = layer.get("data", full.get("data"))
            assert set(data) == {"name"} and data["name"] in fig.datasets
            mark = layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
            if mark != "text" and not lights_a_link(layer):
                assert "tooltip" in layer["encoding"], fig.description


def test_every_chart_is_named_in_words_and_read_with_its_numbers():
    """A chart's description (its accessible name, part of the spec) is the same at every setting; this
    setting's numbers are its reading, recomputed here."""
    from posenc.charts import learned as C

    inside, past = edge(1024, 16, 0, 100), edge(1024, 16, 0, 4096)
    a = C.table_window(inside.values, inside.rows, 1024, 100)
    b = C.table_window(past.values, past.rows, 1024, 4096)
    assert a.description == b.description and "×" in a.description
    assert "row 100 is outlined (found)." in a.reading and "Every row shown is in the table." in a.reading
    assert "row 4096 is outlined (it does not exist)." in b.reading
    assert f"Rows past 1024 have nothing in them: {sum(r > 1024 for r in past.rows)} of the rows" in b.reading

    idx = downsample_index(1024, 300)
    figs = []
    for n_sentences, median in ((10_000, 32.0), (1_000, 200.0)):
        tr = simulate_training(1024, 16, 0, n_sentences, median)
        top, bottom = C.per_row(idx + 1, tr.updates[idx], tr.relative[idx], 1024)
        assert top.reading == f"The table has 1,024 rows: row 1 got {n_sentences:,} updates and row 1,024 " \
                              f"got {int(tr.updates[-1]):,}."
        assert f"row 1,024 {tr.relative[-1]:.3f} times" in bottom.reading
        labels, _, sums = log2_bins(tr.length_counts)
        hist = C.length_histogram(labels, sums)
        j = int(np.argmax(sums))
        assert f"The fullest bin is {labels[j]} words, with {sums[j]:,} of the {n_sentences:,} sentences" \
            in hist.reading
        figs.append((top, bottom, hist))
    assert [f.description for f in figs[0]] == [f.description for f in figs[1]]

    words = ["the", "cat", "sat", "the", "mat"]
    pt = pattern_terms(words, 1024, 16, 0)
    fig = C.pattern_chart(pt.starts, pt.learned, pt.raw, pt.content, 1024)
    assert f"{pt.learned.min() / pt.content:.2g} to {pt.learned.max() / pt.content:.2g} times" in fig.reading
    assert C.pattern_chart(pt.starts, pt.raw, pt.learned, 1.0, 1024).description == fig.description

    ind = independence(1024, 16, 0)
    sampled = C.cosine_offsets(idx, {"random": ind.by_offset[idx]}, "t")  # the sample skips offset 1
    assert sampled.reading == f"Rows {idx[1]} apart — random: {ind.by_offset[idx[1]]:+.3f}."
    every = C.cosine_offsets(np.arange(10), {"random": ind.by_offset[:10]}, "t")
    assert every.reading == f"Rows 1 apart — random: {ind.by_offset[1]:+.3f}." and every.description == \
        sampled.description

    m = np.array([[1.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 1.0]])
    grid = C.cosine_grid(m, [1, 17, 33], "g")
    assert grid.reading == "3 rows; neighbours in the grid (rows 16 apart) have a mean cosine of +0.400."
    norms = C.row_norms(np.arange(1, 4), np.array([0.5, 2.0, 1.25]), 3)
    assert norms.reading == "The rows' lengths run from 0.50 to 2.00." and "no row 4" in norms.description


def test_table_window_draws_missing_rows_as_crosses_not_zeros():
    from posenc.charts import learned as C

    e = edge(8, 4, 0, 10)
    rows = C.table_window(e.values, e.rows, 8, 10).datasets["window"].to_pylist()
    missing = [r for r in rows if not r["exists"]]
    assert {r["number"] for r in missing} == {9, 10, 11, 12, 13}
    assert all("no row" in r["note"] for r in missing)
    assert [r["asked"] for r in rows if r["number"] == 10] == [True] * 4


@pytest.mark.parametrize("positions", [(100, 101, 102), (1030, 2000, 4096)])  # 9 rows around p; the end, then p
def test_table_window_layout_is_the_same_for_every_position(positions):
    """The slider's p names the rows and the title: both travel in the data (a label column sorted by the row's
    number, the title's text), so every p reuses one layout and the browser swaps the data in."""
    from conftest import layout_of
    from posenc.charts import learned as C

    figs = []
    for p in positions:
        e = edge(1024, 16, 0, p)
        fig = C.table_window(e.values, e.rows, e.n_max, e.position)
        rows = fig.datasets["window"].to_pylist()
        assert str(p) in rows[0]["title"] and {r["title"] for r in rows} == {rows[0]["title"]}
        assert [r["row"] for r in rows[::e.values.shape[1]]] == [f"row {r}" for r in e.rows]
        figs.append(fig)
    assert all(layout_of(f) == layout_of(figs[0]) for f in figs)
    y = figs[0].spec["layer"][0]["encoding"]["y"]
    assert y["sort"] == {"field": "number", "op": "min"}  # the rows in the order of their numbers, from the data
    assert 'data("window")' in figs[0].spec["title"]["text"]["expr"]  # the title's text: the data's first row


def test_two_lookups_chart_holds_the_sum_of_its_first_two_panels():
    from posenc.charts import learned as C
    from posenc.charts.spec import word_labels

    words = ["the", "cat", "the"]
    lk = two_lookups(words, 16, 8, 0)
    rows = C.two_lookups(lk.word_rows, lk.position_rows, word_labels(words), 4).datasets["rows"].to_pylist()
    cell = {(r["panel"], r["word"], r["coordinate"]): r["value"] for r in rows}
    e, p, x = C.LOOKUP_PANELS
    assert len(rows) == 3 * 3 * 4 and {"1 the", "3 the"} <= {r["word"] for r in rows}
    for w in ("1 the", "2 cat", "3 the"):
        for c in range(1, 5):
            assert cell[(x, w, c)] == cell[(e, w, c)] + cell[(p, w, c)]
    assert cell[(p, "3 the", 1)] == init_table(16, 8, 0)[2, 0]  # position 3 reads row 3 (index 2)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_lookups_colour_scale_is_a_symmetric_nice_bound_over_every_value(seed):
    """The colour bound is rounded up to the ladder (a layout argument that takes few values): symmetric about 0,
    never below the largest |value|, so no cell is clipped."""
    from posenc.charts import learned as C
    from posenc.charts.spec import nice_bound, word_labels

    words = ["the", "cat", "chased", "the", "mouse"]
    lk = two_lookups(words, 1024, 64, seed)
    fig = C.two_lookups(lk.word_rows, lk.position_rows, word_labels(words), 6)
    low, high = fig.spec["encoding"]["color"]["scale"]["domain"]
    values = np.abs(fig.datasets["rows"].column("value").to_numpy())
    assert low == -high and nice_bound(high) == high and high >= values.max()

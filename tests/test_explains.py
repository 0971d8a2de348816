"""Tests for posenc.explains: attention told the positions, the two copies and the scramble."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc import chapter
from posenc.core import attention, causal_mask, embed, permutation_matrix, projections, tokenize
from posenc.encodings import rope, sinusoidal
from posenc.explains import (
    SCHEMES,
    attention_with_positions,
    explains_demo,
    learned_table,
    query_copies_gap,
    scramble_order,
    unavailable_note,
)
from posenc.learned import init_table
from posenc.scramble import copies_weight_gap

CHAPTER = tokenize("The cat chased the mouse")
WORDS = st.lists(st.sampled_from(["the", "cat", "sat", "on", "a", "mat", "dog"]), min_size=2, max_size=12)


def setup(tokens, d=16, seed=0):
    return embed(tokens, d, seed), projections(d, seed), np.arange(1, len(tokens) + 1)


# ---------------------------------------------------------------- learned table
def test_learned_table_is_the_learned_pages_table():
    rows = learned_table([1, 7, 3, 7], 12, seed=5)
    table = init_table(chapter.N_MAX, 12, 5)
    assert np.array_equal(rows, table[[0, 6, 2, 6]])


def test_learned_row_depends_on_position_only():
    a = learned_table([1, 2, 3], 8, 1)
    b = learned_table([3, 9, 1], 8, 1)
    assert np.array_equal(a[2], b[0]) and np.array_equal(a[0], b[2])
    assert not np.allclose(learned_table([1], 8, 1), learned_table([1], 8, 2))


@pytest.mark.parametrize("bad", [[0], [-3], [chapter.N_MAX + 1], [1.5], [np.nan]])
def test_learned_table_rejects_positions_without_a_row(bad):
    with pytest.raises(ValueError):
        learned_table(bad, 8, 0)


def test_learned_table_last_row_exists():
    assert learned_table([chapter.N_MAX], 4, 0).shape == (1, 4)


# ---------------------------------------------------------------- attention with positions
def test_none_is_plain_attention():
    X, W, pos = setup(CHAPTER)
    out, w = attention_with_positions(X, W, "none", pos)
    out0, w0 = attention(X, *W)
    assert np.array_equal(out, out0) and np.array_equal(w, w0)


@pytest.mark.parametrize("scheme, E", [("sinusoids", lambda pos, d, s: sinusoidal(pos, d)),
                                       ("learned table", lambda pos, d, s: learned_table(pos, d, s))])
def test_added_schemes_are_attention_of_x_plus_e(scheme, E):
    X, W, pos = setup(CHAPTER, d=16, seed=3)
    out, w = attention_with_positions(X, W, scheme, pos, seed=3)
    out0, w0 = attention(X + E(pos, 16, 3), *W)
    assert np.max(np.abs(out - out0)) < 1e-12 and np.max(np.abs(w - w0)) < 1e-12


def test_rope_rotates_q_and_k_only():
    X, W, pos = setup(CHAPTER)
    out, w = attention_with_positions(X, W, "RoPE", pos)
    Q, K, V = rope(X @ W[0], pos), rope(X @ W[1], pos), X @ W[2]
    s = Q @ K.T / 4.0  # √16
    e = np.exp(s - s.max(axis=1, keepdims=True))
    assert np.max(np.abs(w - e / e.sum(axis=1, keepdims=True))) < 1e-12
    assert np.max(np.abs(out - w @ V)) < 1e-12  # v is not rotated


@settings(max_examples=25, deadline=None)
@given(tokens=WORDS, shift=st.integers(1, 500), seed=st.integers(0, 50))
def test_rope_weights_depend_on_gaps_only(tokens, shift, seed):
    X, W, pos = setup(tokens, seed=seed)
    _, w = attention_with_positions(X, W, "RoPE", pos)
    _, w_shift = attention_with_positions(X, W, "RoPE", pos + shift)
    assert np.max(np.abs(w - w_shift)) < 1e-10


@pytest.mark.parametrize("scheme", SCHEMES)
def test_weights_are_distributions_and_mask_is_respected(scheme):
    X, W, pos = setup(CHAPTER)
    _, w = attention_with_positions(X, W, scheme, pos, mask=causal_mask(5))
    assert np.allclose(w.sum(axis=1), 1.0)
    assert np.all(w[np.triu_indices(5, 1)] == 0)


def test_identical_words_without_positions_share_weight_equally():
    # every key is the same vector: each of the n weights is 1/n (here 1/3)
    X, W, pos = setup(["a", "a", "a"])
    _, w = attention_with_positions(X, W, "none", pos)
    assert np.allclose(w, 1 / 3, atol=1e-15)
    _, w_sin = attention_with_positions(X, W, "sinusoids", pos)
    assert not np.allclose(w_sin, 1 / 3)


@pytest.mark.parametrize("scheme", ["sinusoids", "RoPE"])
def test_odd_d_is_refused_where_pairs_are_needed(scheme):
    X, W, pos = setup(CHAPTER, d=7)
    with pytest.raises(ValueError, match="odd"):
        attention_with_positions(X, W, scheme, pos)


@pytest.mark.parametrize("scheme", ["none", "learned table"])
def test_odd_d_works_without_pairs(scheme):
    X, W, pos = setup(CHAPTER, d=7)
    out, _ = attention_with_positions(X, W, scheme, pos)
    assert out.shape == (5, 7)


def test_bad_scheme_and_position_count():
    X, W, pos = setup(CHAPTER)
    with pytest.raises(ValueError, match="Unknown scheme"):
        attention_with_positions(X, W, "ALiBi", pos)
    with pytest.raises(ValueError, match="positions"):
        attention_with_positions(X, W, "none", pos[:3])


# ---------------------------------------------------------------- scramble order and query
def test_chapter_scramble_swaps_cat_and_mouse():
    order = scramble_order(CHAPTER)
    assert [CHAPTER[i] for i in order] == ["the", "mouse", "chased", "the", "cat"]


def test_scramble_swaps_second_and_last_otherwise():
    assert scramble_order(["a", "b", "c", "d"]) == [0, 3, 2, 1]
    assert scramble_order(["x", "y"]) == [1, 0]


def test_scramble_avoids_swapping_a_word_with_itself():
    order = scramble_order(["b", "a", "c", "a"])  # 2nd and last are both "a"
    toks = ["b", "a", "c", "a"]
    assert [toks[i] for i in order] != toks
    assert scramble_order(["the", "the", "the"]) is None
    assert scramble_order(["one"]) is None


@settings(max_examples=60, deadline=None)
@given(tokens=WORDS)
def test_scramble_is_a_swap_that_changes_the_sentence(tokens):
    order = scramble_order(tokens)
    if len(set(tokens)) == 1:
        assert order is None
        return
    assert sorted(order) == list(range(len(tokens)))
    moved = [i for i, j in enumerate(order) if i != j]
    assert len(moved) == 2
    assert [tokens[i] for i in order] != tokens


@settings(max_examples=60, deadline=None)
@given(tokens=WORDS)
def test_scramble_swaps_the_chapters_pick(tokens):
    order = scramble_order(tokens)
    if order is None:
        return
    i, j = chapter.swap_words(tokens)
    assert order[i] == j and order[j] == i


def test_demo_uses_the_chapters_query_and_copies():
    res = explains_demo(CHAPTER, 8, 0)
    assert res.query == chapter.query_index(CHAPTER) and CHAPTER[res.query] == chapter.QUERY_WORD
    assert res.copies == chapter.copies(CHAPTER) and [CHAPTER[i] for i in res.copies] == [chapter.COPY_WORD] * 2
    other = ["the", "dog", "bit", "the", "man"]
    assert explains_demo(other, 8, 0).query == chapter.query_index(other)


@settings(max_examples=40, deadline=None)
@given(tokens=WORDS, seed=st.integers(0, 10**6))
def test_query_copies_gap_matches_the_scramble_pages_gap(tokens, seed):
    n = len(tokens)
    w = np.random.default_rng(seed).random((n, n))
    groups = {t: [i for i, u in enumerate(tokens) if u == t] for t in set(tokens) if tokens.count(t) > 1}
    assert query_copies_gap(w, groups) == pytest.approx(copies_weight_gap(w, groups, None)[0], abs=0)
    for q in range(n):
        assert query_copies_gap(w, groups, q) <= query_copies_gap(w, groups) + 0.0


# ---------------------------------------------------------------- the whole demo
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 9999), d=st.sampled_from([2, 8, 16, 64]))
def test_chapter_copies_tie_only_without_positions(seed, d):
    res = explains_demo(CHAPTER, d, seed)
    assert res.runs["none"].copies_gap == 0.0
    assert res.runs["none"].copies_gap_all == 0.0
    for s in SCHEMES[1:]:
        assert res.runs[s].copies_gap_all > 1e-9


@settings(max_examples=20, deadline=None)
@given(tokens=WORDS, seed=st.integers(0, 9999))
def test_scramble_is_a_reordering_only_without_positions(tokens, seed):
    res = explains_demo(tokens, 8, seed)
    if res.order is None:
        return
    assert res.runs["none"].scramble_error < 1e-12
    for s in SCHEMES[1:]:
        assert res.runs[s].scramble_error > 1e-9


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 9999), d=st.sampled_from([2, 8, 16, 64]))
def test_copy_weights_are_the_querys_weights_on_the_copies(seed, d):
    res = explains_demo(CHAPTER, d, seed)
    X, W, pos = setup(CHAPTER, d=d, seed=seed)
    for s, r in res.runs.items():
        _, w = attention_with_positions(X, W, s, pos, seed=seed)
        expect = w[res.query, res.copies]
        assert np.array_equal(r.copy_weights, expect)
        assert r.copy_gap == pytest.approx(abs(expect[0] - expect[1]), abs=0)
    assert res.runs["none"].copy_gap == 0.0  # same row in, same key, same weight


def test_demo_pieces_agree():
    res = explains_demo(CHAPTER, 16, 2)
    P = permutation_matrix(res.order)
    assert res.scrambled == ["the", "mouse", "chased", "the", "cat"]
    assert res.tokens[res.query] == res.scrambled[res.query_scrambled]
    X, W, pos = setup(CHAPTER, d=16, seed=2)
    for r in res.runs.values():
        out, w = attention_with_positions(X, W, r.scheme, pos, seed=2)
        assert np.array_equal(r.weights, w)
        assert np.max(np.abs(r.permuted_out - P @ out)) < 1e-12
        _, w_scr = attention_with_positions(P @ X, W, r.scheme, pos, seed=2)
        assert np.array_equal(r.weights_scrambled, w_scr)
        assert r.row_error.max() == r.scramble_error
        assert np.max(np.abs(r.out_scrambled - r.permuted_out)) == r.scramble_error
        assert np.allclose(r.weights.sum(axis=1), 1) and np.allclose(r.weights_scrambled.sum(axis=1), 1)


def test_scrambled_weights_without_positions_are_the_original_reordered():
    res = explains_demo(CHAPTER, 16, 0)
    P = permutation_matrix(res.order)
    r = res.runs["none"]
    assert np.max(np.abs(r.weights_scrambled - P @ r.weights @ P.T)) < 1e-12


def test_no_repeated_word_gives_zero_gaps_but_a_scramble():
    res = explains_demo(tokenize("dogs bark at night"), 16, 0)
    assert res.duplicates == {}
    assert all(r.copies_gap == 0.0 for r in res.runs.values())
    assert res.runs["sinusoids"].scramble_error > 1e-9


def test_same_word_sentence_has_no_scramble():
    res = explains_demo(["la", "la", "la"], 8, 0)
    assert res.order is None and res.scrambled is None
    assert all(r.scramble_error is None for r in res.runs.values())


def test_odd_d_lists_the_paired_schemes_as_unavailable():
    res = explains_demo(CHAPTER, 9, 0)
    assert set(res.runs) == {"none", "learned table"}
    assert set(res.unavailable) == {"sinusoids", "RoPE"}
    note = unavailable_note(9, res.unavailable)
    assert note.count("d = 9 is odd") == 1  # d named once, however many schemes it rules out
    assert note == ("d = 9 is odd: sines and cosines come in (sin, cos) pairs and RoPE turns coordinates in pairs, "
                    "so sinusoids and RoPE need an even d.")
    assert unavailable_note(8, {}) == ""
    assert unavailable_note(9, {"RoPE": "RoPE turns coordinates in pairs"}).endswith("so RoPE needs an even d.")


@pytest.mark.parametrize("q", [-1, 5, 99, 2.0])
def test_query_out_of_range(q):
    with pytest.raises(ValueError, match=r"The query position \(a 0-based index into the 5 words\) must be"):
        explains_demo(CHAPTER, 8, 0, q)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_copy_weights_axis_ends_on_a_nice_bound_above_every_weight(seed):
    from posenc.charts import explains as ec
    from posenc.charts.spec import nice_bound

    res = explains_demo(CHAPTER, 64, seed)
    fig = ec.copy_weights({s: r.weights for s, r in res.runs.items()}, res.tokens, res.copies, res.query)
    low, top = fig.spec["layer"][0]["encoding"]["y"]["scale"]["domain"]
    weights = fig.datasets["main"].column("weight").to_numpy()
    assert low == 0 and nice_bound(top) == top and top >= weights.max()

"""Properties of posenc.core (words, embeddings, projections, attention, permutations), posenc.scramble
and the shared chart builders in posenc.charts.

Every expected value is derived independently (by hand, or from an identity), never copied from output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from posenc.charts import spec
from posenc.core import (
    MAX_TOKENS,
    attention,
    block_average,
    causal_mask,
    duplicate_groups,
    embed,
    equivariance_error,
    listing,
    parse_order,
    permutation_matrix,
    projections,
    shuffle_order,
    signed,
    softmax,
    tokenize,
)
from posenc.explains import scramble_order
from posenc.scramble import copies_weight_gap, scramble

ROOT = Path(__file__).resolve().parent.parent
VOCAB = ["the", "cat", "chased", "mouse", "a", "dog", "bit", "man", "sat", "on", "mat", "it"]

words = st.sampled_from(VOCAB)
sentences = st.lists(words, min_size=1, max_size=16)
dims = st.integers(min_value=2, max_value=128)
seeds = st.integers(min_value=0, max_value=9999)


@st.composite
def sentence_and_order(draw, min_size=1, max_size=16):
    tokens = draw(st.lists(words, min_size=min_size, max_size=max_size))
    order = draw(st.permutations(range(len(tokens))))
    return tokens, list(order)


@st.composite
def sentence_with_a_repeat(draw):
    """A sentence in which one word occurs at least twice, at random places."""
    tokens = draw(st.lists(words, min_size=1, max_size=14))
    word = draw(words)
    i = draw(st.integers(0, len(tokens)))
    tokens = tokens[:i] + [word] + tokens[i:]
    j = draw(st.integers(0, len(tokens)))
    return tokens[:j] + [word] + tokens[j:], word


# ---------------------------------------------------------------- tokenize


def test_tokenize_the_chapter_example():
    assert tokenize("The cat, chased the mouse!") == ["the", "cat", "chased", "the", "mouse"]


@pytest.mark.parametrize(
    "text",
    ["", "   ", "\n\t", None, "🙂🙂🙂", "🐈 🐭", "!!! ... ???", "— , ; : ()", "___"],
    ids=["empty", "spaces", "whitespace", "none", "emoji", "emoji-spaced", "punctuation", "dashes", "underscores"],
)
def test_tokenize_no_words_is_a_clear_error(text):
    with pytest.raises(ValueError) as err:
        tokenize(text)
    message = str(err.value)
    assert len(message) > 20 and message[0].isupper()


def test_tokenize_emoji_mixed_keeps_the_words():
    assert tokenize("🙂 The cat 🐈 sat!") == ["the", "cat", "sat"]


def test_tokenize_word_limit():
    assert MAX_TOKENS == 64
    assert len(tokenize(" ".join(["word"] * 64))) == 64
    with pytest.raises(ValueError, match="65 words"):
        tokenize(" ".join(["word"] * 65))
    with pytest.raises(ValueError, match="at most 3"):
        tokenize("one two three four", max_tokens=3)


@settings(deadline=None)
@given(st.lists(st.text(alphabet="abcXYZ019", min_size=1, max_size=6), min_size=1, max_size=64),
       st.sampled_from([" ", ", ", "! ", " — ", "\n"]))
def test_tokenize_splits_on_any_separator_and_lowercases(parts, sep):
    assert tokenize(sep.join(parts)) == [p.lower() for p in parts]


@pytest.mark.parametrize("text,words", [
    ("बिल्ली ने चूहे का पीछा किया बिल्ली", ["बिल्ली", "ने", "चूहे", "का", "पीछा", "किया", "बिल्ली"]),  # vowel signs, virama
    ("กินข้าว กินข้าว", ["กินข้าว", "กินข้าว"]),  # Thai vowel and tone marks
    ("Cafe\u0301 noir, café!", ["café", "noir", "café"]),  # a combining accent stays, and NFC makes one word
    ("don't stop", ["don't", "stop"]),
    ("می\u200cخواهم بروم", ["می\u200cخواهم", "بروم"]),  # Persian's zero-width non-joiner inside a word
    ("x² + 3½", ["x²", "3½"]),  # numbers as before
    ("\u0301abc", ["abc"]),  # a mark with no letter before it is dropped
    ("a_b", ["a", "b"]),
])
def test_tokenize_a_word_is_letters_with_their_marks(text, words):
    assert tokenize(text) == words


def test_tokenize_every_word_keeps_every_mark():
    """No mark is ever split off its letter: joined back with spaces, the words are the text's letters and marks."""
    import unicodedata

    text = "बिल्ली ने चूहे का पीछा किया बिल्ली กินข้าว café"
    kept = "".join(c for c in unicodedata.normalize("NFC", text) if c.isalnum() or unicodedata.category(c)[0] == "M")
    assert "".join(tokenize(text)) == kept


# ---------------------------------------------------------------- the model width (``validate.width``)


@pytest.mark.parametrize("d, says", [(1, "between 2 and 1,024"), (0, "between"), (-3, "between"),
                                     (1025, "between 2 and 1,024; got 1,025"), (10**9, "between"),
                                     (64.0, "a whole number"), (True, "a whole number")])
def test_embed_and_projections_reject_a_bad_width(d, says):
    with pytest.raises(ValueError, match=f"The model width d must be {says}"):
        embed(["cat"], d)
    with pytest.raises(ValueError, match=f"The model width d must be {says}"):
        projections(d)


def test_embed_takes_an_odd_width():
    assert embed(["cat"], 63).shape == (1, 63)  # only the schemes that work on pairs need an even d


# ---------------------------------------------------------------- embed


@settings(deadline=None)
@given(sentences, sentences, dims, seeds)
def test_same_word_same_row_in_any_sentence(a, b, d, seed):
    Xa, Xb = embed(a, d, seed), embed(b, d, seed)
    assert Xa.shape == (len(a), d)
    for i, w in enumerate(a):
        for j, v in enumerate(b):
            if w == v:
                np.testing.assert_array_equal(Xa[i], Xb[j])


def test_embed_distinct_words_seeds_and_widths_differ():
    X = embed(["the", "cat"], 16, 0)
    assert not np.array_equal(X[0], X[1])
    assert not np.array_equal(embed(["the"], 16, 0), embed(["the"], 16, 1))
    assert embed([], 16).shape == (0, 16)
    with pytest.raises(ValueError):
        embed(["the"], 1)


def test_embed_entries_are_standard_normal():
    X = embed([f"w{i}" for i in range(200)], 256, 0)
    assert abs(X.mean()) < 0.02
    assert abs(X.std() - 1) < 0.02


def test_embed_does_not_depend_on_pythons_salted_hash():
    """The same bytes in fresh processes with different PYTHONHASHSEED values, and here."""
    code = (
        "import json;"
        "from posenc.core import embed, projections, shuffle_order;"
        "print(json.dumps([embed(['the', 'cat', 'the', 'zebra'], 24, 7).tobytes().hex(),"
        " projections(24, 7)[0].tobytes().hex(), shuffle_order(9, 3)]))"
    )
    here = [embed(["the", "cat", "the", "zebra"], 24, 7).tobytes().hex(),
            projections(24, 7)[0].tobytes().hex(), shuffle_order(9, 3)]
    outs = []
    for hash_seed in ("1", "2", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        run = subprocess.run([sys.executable, "-c", code, str(ROOT)], env=env, capture_output=True, text=True,
                             check=True, timeout=60)
        outs.append(json.loads(run.stdout))
    assert outs[0] == outs[1] == outs[2] == here


# ---------------------------------------------------------------- projections


def test_projections_shapes_and_determinism():
    W = projections(10, 3)
    assert [w.shape for w in W] == [(10, 10)] * 3
    for a, b in zip(W, projections(10, 3)):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(W[0], W[1])
    assert not np.array_equal(W[0], projections(10, 4)[0])


@pytest.mark.parametrize("d", [64, 512])
@pytest.mark.parametrize("seed", [0, 1])
def test_scores_stay_order_one(d, seed):
    """q·k/√d of random embeddings has std ≈ 1 at any width (entries of W ~ N(0, 1/d))."""
    X = embed([f"word{i}" for i in range(48)], d, seed)
    W_q, W_k, _ = projections(d, seed)
    S = (X @ W_q) @ (X @ W_k).T / np.sqrt(d)
    assert 0.3 < S.std() < 3
    assert np.abs(S).max() < 20


# ---------------------------------------------------------------- softmax and attention


@settings(deadline=None)
@given(st.lists(st.lists(st.floats(min_value=-1e300, max_value=1e300), min_size=3, max_size=3), min_size=1,
                max_size=5))
def test_softmax_rows_sum_to_one_even_for_huge_scores(rows):
    w = softmax(np.array(rows))
    assert np.all(np.isfinite(w))
    assert np.all(w >= 0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


def test_softmax_huge_scores_by_hand():
    np.testing.assert_array_equal(softmax(np.array([1e300, 0.0, -1e300])), [1.0, 0.0, 0.0])
    np.testing.assert_allclose(softmax(np.array([1e300, 1e300])), [0.5, 0.5])
    np.testing.assert_allclose(softmax(np.array([0.0, np.log(3.0)])), [0.25, 0.75])  # e^0 : e^ln3 = 1 : 3
    np.testing.assert_array_equal(softmax(np.array([-np.inf, -np.inf])), [0.0, 0.0])
    np.testing.assert_array_equal(softmax(np.array([-np.inf, 5.0])), [0.0, 1.0])


@settings(deadline=None)
@given(st.lists(st.floats(min_value=-50, max_value=50), min_size=1, max_size=8), st.floats(-1e6, 1e6))
def test_softmax_ignores_a_constant_shift(row, c):
    s = np.array(row)
    np.testing.assert_allclose(softmax(s + c), softmax(s), atol=1e-9)


@settings(deadline=None)
@given(sentences, dims, seeds)
def test_attention_rows_sum_to_one_and_causal_mask(tokens, d, seed):
    X, W = embed(tokens, d, seed), projections(d, seed)
    n = len(tokens)
    out, w = attention(X, *W)
    assert out.shape == (n, d) and w.shape == (n, n)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-12)
    out_c, w_c = attention(X, *W, mask=causal_mask(n))
    np.testing.assert_allclose(w_c.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(np.triu(w_c, k=1), 0.0)  # j > i gets exactly zero
    assert w_c[0, 0] == 1.0  # the first word can read only itself
    np.testing.assert_allclose(out_c[0], X[0] @ W[2], atol=1e-12)


def test_attention_matches_the_formula_by_hand():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    eye = np.eye(2)
    out, w = attention(X, eye, eye, eye)
    # scores = X Xᵀ / √2 = [[1/√2, 0], [0, 1/√2]]
    a = np.exp(1 / np.sqrt(2))
    np.testing.assert_allclose(w, [[a / (a + 1), 1 / (a + 1)], [1 / (a + 1), a / (a + 1)]])
    np.testing.assert_allclose(out, w @ X)


def test_causal_mask_by_hand():
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


# ---------------------------------------------------------------- permutations and equivariance


@settings(deadline=None)
@given(sentence_and_order(), st.integers(1, 6))
def test_permutation_matrix_reorders_rows(tok_order, cols):
    _, order = tok_order
    n = len(order)
    X = np.random.default_rng(n).standard_normal((n, cols))
    P = permutation_matrix(order)
    np.testing.assert_array_equal(P @ X, X[order])
    np.testing.assert_array_equal(P @ P.T, np.eye(n))


@pytest.mark.parametrize("order", [[0, 0], [1, 2], [0, 2, 2], [-1, 0]])
def test_permutation_matrix_rejects_non_permutations(order):
    with pytest.raises(ValueError, match="exactly once"):
        permutation_matrix(order)


@settings(max_examples=200, deadline=None)
@given(sentence_and_order(), dims, seeds)
def test_attention_is_permutation_equivariant(tok_order, d, seed):
    """Attn(PX) = P·Attn(X) to 1e-12 without a mask, for any sentence, width, seed and permutation."""
    tokens, order = tok_order
    X, W = embed(tokens, d, seed), projections(d, seed)
    P = permutation_matrix(order)
    out, w = attention(X, *W)
    out_p, w_p = attention(P @ X, *W)
    assert np.max(np.abs(out_p - P @ out)) < 1e-12
    assert np.max(np.abs(w_p - P @ w @ P.T)) < 1e-12  # softmax(P S Pᵀ) = P softmax(S) Pᵀ
    assert equivariance_error(X, order, W) < 1e-12


@settings(deadline=None)
@given(sentence_with_a_repeat(), dims, seeds)
def test_copies_of_a_word_are_indistinguishable(tok_word, d, seed):
    """Two copies of a word: identical embedding rows, the same key, equal weight from every query.

    The rows of X are bit-identical; X W_K and the softmax go through BLAS, whose kernels may round the
    rows of one product differently, so keys and weights are compared to rounding (1e-12).
    """
    tokens, word = tok_word
    X, W = embed(tokens, d, seed), projections(d, seed)
    ix = [i for i, w in enumerate(tokens) if w == word]
    assert len(ix) >= 2
    for i in ix:
        np.testing.assert_array_equal(X[i], X[ix[0]])
    K = X @ W[1]
    assert np.max(np.abs(K[ix] - K[ix[0]])) < 1e-12
    _, w = attention(X, *W)
    assert np.max(np.abs(w[:, ix] - w[:, ix[:1]])) < 1e-12


def test_causal_mask_breaks_equivariance_for_the_chapter_example():
    tokens = tokenize("The cat chased the mouse")
    order = scramble_order(tokens)
    X, W = embed(tokens, 64, 0), projections(64, 0)
    assert equivariance_error(X, order, W) < 1e-12
    assert equivariance_error(X, order, W, mask=causal_mask(len(tokens))) > 1e-3


# ---------------------------------------------------------------- orders


@settings(deadline=None)
@given(st.permutations(range(12)).flatmap(lambda p: st.tuples(st.just(p), st.integers(1, 12))),
       st.sampled_from([" ", ", ", ",", " ; ", "  "]))
def test_parse_order_round_trips(perm_n, sep):
    perm, n = perm_n
    order = [p for p in perm if p < n]
    assert parse_order(sep.join(str(i + 1) for i in order), n) == order


def test_parse_order_by_hand():
    assert parse_order("1 5 3 4 2", 5) == [0, 4, 2, 3, 1]
    assert parse_order(" 2,1 ", 2) == [1, 0]


@pytest.mark.parametrize("text,n,match", [
    ("1 1 2", 3, "exactly once"),
    ("a b", 2, "whole numbers"),
    ("1 2", 3, "Give 3 positions"),
    ("", 2, "Give 2 positions"),
    ("0 1", 2, "exactly once"),
    ("1.5 2", 2, "whole numbers"),
    ("1 99999999999999999999999", 2, "exactly once"),
])
def test_parse_order_errors(text, n, match):
    with pytest.raises(ValueError, match=match):
        parse_order(text, n)


@settings(deadline=None)
@given(st.integers(1, 64), seeds)
def test_shuffle_order_is_a_reproducible_permutation(n, seed):
    order = shuffle_order(n, seed)
    assert sorted(order) == list(range(n))
    assert order == shuffle_order(n, seed)


def test_shuffle_order_changes_with_the_seed():
    assert len({tuple(shuffle_order(10, s)) for s in range(20)}) > 15


def test_duplicate_groups():
    assert duplicate_groups(["the", "cat", "chased", "the", "mouse", "the"]) == {"the": [0, 3, 5]}
    assert duplicate_groups(["a", "b"]) == {}


# ---------------------------------------------------------------- posenc.scramble


@settings(max_examples=60, deadline=None)
@given(sentence_and_order(min_size=2), dims, seeds)
def test_scramble_result_is_consistent(tok_order, d, seed):
    tokens, order = tok_order
    res = scramble(tokens, order, d, seed)
    assert res.scrambled == [tokens[i] for i in order]
    assert res.equivariance_error < 1e-12
    X, W = embed(tokens, d, seed), projections(d, seed)
    out, _ = attention(X, *W)
    np.testing.assert_allclose(res.out, out, atol=1e-15)
    np.testing.assert_allclose(res.permuted_out, out[order], atol=1e-15)
    assert res.key_gap < 1e-12 and res.weight_gap < 1e-12
    assert res.queries_checked == len(tokens) * len(res.duplicates)


def test_scramble_causal_default_sentence():
    tokens = tokenize("The cat chased the mouse")
    res = scramble(tokens, scramble_order(tokens), 64, 0, causal=True)
    assert res.equivariance_error > 1e-3
    # copies at positions 1 and 4: only queries 4 and 5 see both, and they weigh them equally
    assert res.duplicates == {"the": [0, 3]}
    assert res.queries_checked == 2
    assert res.weight_gap < 1e-12


def test_copies_weight_gap_by_hand():
    w = np.array([[0.5, 0.2, 0.3], [0.1, 0.6, 0.3], [0.4, 0.2, 0.4]])
    gap, checked = copies_weight_gap(w, {"x": [0, 2]}, None)
    assert gap == pytest.approx(0.2) and checked == 3  # row 1: |0.1 − 0.3|
    gap, checked = copies_weight_gap(w, {"x": [0, 2]}, causal_mask(3))
    assert gap == pytest.approx(0.0) and checked == 1  # only query 3 sees both copies


# ---------------------------------------------------------------- chart labels


def test_word_labels():
    assert spec.word_labels(["the", "cat", "the"]) == ["1 the", "2 cat", "3 the"]
    assert spec.word_labels(["the"], start=0) == ["0 the"]


@pytest.mark.parametrize("shape,limits,expected,blocks", [
    ((100, 300), (10, 30), (10, 30), (10, 10)),
    ((64, 64), (64, 64), (64, 64), (1, 1)),
    ((8, 6), (100, 100), (8, 6), (1, 1)),
    ((64, 512), (16, 64), (16, 64), (4, 8)),
])
def test_block_average_divisible_shapes_keep_the_mean(shape, limits, expected, blocks):
    m = np.random.default_rng(0).standard_normal(shape)
    small, r, c = block_average(m, *limits)
    assert small.shape == expected and (r, c) == blocks
    assert small.mean() == pytest.approx(m.mean(), abs=1e-12)
    # each cell is the mean of its r×c block
    assert small[0, 0] == pytest.approx(m[:r, :c].mean())
    assert small[-1, -1] == pytest.approx(m[-r:, -c:].mean())


@settings(deadline=None)
@given(st.integers(1, 120), st.integers(1, 120), st.integers(1, 40), st.integers(1, 40))
def test_block_average_respects_the_limits(rows, cols, max_rows, max_cols):
    m = np.arange(rows * cols, dtype=float).reshape(rows, cols)
    small, r, c = block_average(m, max_rows, max_cols)
    assert small.shape[0] <= max_rows and small.shape[1] <= max_cols
    assert small.shape == (-(-rows // r), -(-cols // c))
    assert not np.any(np.isnan(small))
    assert small.min() >= m.min() and small.max() <= m.max()
    assume(rows % r == 0 and cols % c == 0)
    assert small.mean() == pytest.approx(m.mean())


def test_signed_numbers_carry_a_true_minus_as_the_charts_write_them():
    assert signed(-3) == "−3" and signed(-1234) == "−1,234" and signed(7) == "7"
    assert signed(-0.25, ".2f") == "−0.25" and "-" not in signed(-1e-9, ".0e")
    assert signed(-1e-7, ".6f") == "0.000000" and signed(-4e-7, ".6f") == "0.000000" != signed(-6e-7, ".6f")


def test_listing_is_the_one_way_prose_lists_things():
    assert [listing(x) for x in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a and b", "a, b and c"]
    assert listing(str(i) for i in range(1, 5)) == "1, 2, 3 and 4"  # any iterable, a generator too

"""posenc.primer (every step of one attention head) and its chart (posenc.charts.primer)."""

from __future__ import annotations

import numpy as np
import pytest

import posenc
from conftest import in_mode, layout_of, walk_dicts
from posenc import chapter
from posenc.charts import spec
from posenc.charts.primer import HOVER, PARAM, WEIGHT_SCHEME, steps
from posenc.core import duplicate_groups, embed, projections, tokenize
from posenc.primer import MAX_SHOWN_WORDS, SHOWN_COORDS, TOL, check_pieces, copy_columns_gap, copy_rows_gap, primer

SENTENCES = [chapter.SENTENCE, "a bird saw a bird", "one", "x y z w v u t s r q p o"]


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("d,seed", [(2, 0), (8, 3), (64, 0), (65, 11)])
def test_the_pieces_are_posenc_attention(sentence, d, seed):
    tokens = tokenize(sentence)
    res = primer(tokens, d, seed)
    X = embed(tokens, d, seed)
    Wq, Wk, Wv = projections(d, seed)
    out, weights = posenc.attention(X, Wq, Wk, Wv)
    n = len(tokens)
    assert res.X.shape == (n, d) and res.S.shape == (n, n)
    np.testing.assert_array_equal(res.X, X)
    np.testing.assert_allclose(res.Q, X @ Wq, atol=1e-14)
    np.testing.assert_allclose(res.K, X @ Wk, atol=1e-14)
    np.testing.assert_allclose(res.V, X @ Wv, atol=1e-14)
    # The steps, recomputed by hand from the formula, give attention's own weights and output.
    S = np.array([[res.Q[i] @ res.K[j] / np.sqrt(d) for j in range(n)] for i in range(n)])
    np.testing.assert_allclose(res.S, S, atol=1e-12)
    e = np.exp(S - S.max(axis=1, keepdims=True))
    np.testing.assert_allclose(e / e.sum(axis=1, keepdims=True), weights, atol=1e-12)
    np.testing.assert_allclose(res.weights, weights, atol=0)
    np.testing.assert_allclose(res.weights @ res.V, out, atol=1e-12)
    assert check_pieces(res) < TOL
    assert res.row_sum_error < TOL
    assert np.all(res.weights > 0)


def test_check_pieces_can_fail():
    res = primer(tokenize(chapter.SENTENCE), 8, 0)
    res.S[0, 0] += 1.0  # a wrong score no longer matches attention's weights
    assert check_pieces(res) > 1e-3


def test_copies_have_equal_score_columns_and_rows():
    tokens = tokenize(chapter.SENTENCE)
    res = primer(tokens, 64, 0)
    copies, gap = copy_columns_gap(res)
    assert copies == duplicate_groups(tokens)[chapter.COPY_WORD]
    assert [tokens[i] for i in copies] == [chapter.COPY_WORD] * 2
    assert gap < TOL
    a, b = copies
    assert np.max(np.abs(res.S[a] - res.S[b])) < TOL  # same query too
    # a word that differs has a different column
    assert np.max(np.abs(res.S[:, 1] - res.S[:, 4])) > 1e-3


def test_no_copies():
    assert copy_columns_gap(primer(tokenize("one two three"), 8, 0)) == ([], 0.0)


# ---------------------------------------------------------------- the chart


def _labels_of(fig: spec.Figure) -> set[str]:
    return {r["row"] for t in fig.datasets.values() for r in t.to_pylist()}


def test_chart_validates_and_highlights_the_chapter_query():
    tokens = tokenize(chapter.SENTENCE)
    res = primer(tokens, 64, 0)
    fig = steps(res, query=chapter.query_index(tokens), shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS)
    full = spec.validate(fig)
    assert len(full["vconcat"]) == 5
    param = next(p for p in full["params"] if p["name"] == PARAM)
    assert param["value"] == f"{tokens.index(chapter.QUERY_WORD) + 1} {chapter.QUERY_WORD}"
    assert param["bind"]["options"] == spec.word_labels(tokens)
    text = str(full["vconcat"])
    assert spec.FOCUS in text and f"datum.row === {PARAM}" in text
    assert fig.description
    # the weights panel holds exactly the softmax weights, the scores panel S
    w = {(r["row"], r["col"]): r["value"] for r in full["datasets"]["weights"]}
    labels = spec.word_labels(tokens)
    for i, qi in enumerate(labels):
        for j, kj in enumerate(labels):
            assert w[(qi, kj)] == res.weights[i, j]
    vec = full["datasets"]["vectors"]
    assert {r["col"] for r in vec if r["panel"] == "X"} == {str(j + 1) for j in range(SHOWN_COORDS)}
    assert len([r for r in vec if r["panel"] == "qkv"]) == len(tokens) * 3 * SHOWN_COORDS


@pytest.mark.parametrize("n,d", [(64, 512), (1, 2), (30, 3)])
def test_chart_stays_small(n, d):
    tokens = [f"w{i}" for i in range(n)]
    res = primer(tokens, d, 0)
    fig = steps(res, query=n + 5, shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS)
    spec.validate(fig)
    assert fig.rows <= spec.MAX_MARKS
    shown = min(n, MAX_SHOWN_WORDS)
    assert _labels_of(fig) == set(spec.word_labels(tokens[:shown]))
    param = next(p for p in fig.spec["params"] if p["name"] == PARAM)
    assert param["value"] == spec.word_labels(tokens)[shown - 1]  # a query past the picture is clamped


def test_the_width_d_is_data_not_layout():
    """d takes hundreds of values and the five panels cost the most Altair of any chart: d is in the page's
    caption, not in the layout, so every d reuses it."""
    tokens = tokenize(chapter.SENTENCE)
    a, b = (steps(primer(tokens, d, 0), query=2, shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS)
            for d in (64, 66))
    assert layout_of(a) == layout_of(b) and not a.datasets["vectors"].equals(b.datasets["vectors"])


def test_copies_have_identical_output_rows():
    tokens = tokenize("a bird saw a bird")
    res = primer(tokens, 16, 4)
    copies, gap = copy_rows_gap(res)
    assert copies == [0, 3] and gap < TOL
    assert np.max(np.abs(res.out[1] - res.out[4])) < TOL  # "bird" too
    assert np.max(np.abs(res.out[0] - res.out[1])) > 1e-3  # different words differ
    assert copy_rows_gap(primer(tokenize("one two three"), 8, 0)) == ([], 0.0)


# Vega's "blues" ramp (vega-scale), to measure the printed numbers' contrast on every weight cell.
BLUES = "cfe1f2bed8eca8cee58fc1de74b2d75ba3cf4592c63181bd206fb2125ca40a4a90"


def _luminance(rgb) -> float:
    def f(v):
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (f(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _blues(t: float):
    stops = [tuple(int(BLUES[i + j:i + j + 2], 16) for j in (0, 2, 4)) for i in range(0, len(BLUES), 6)]
    x = t * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    return tuple(stops[i][k] + (x - i) * (stops[i + 1][k] - stops[i][k]) for k in range(3))


def test_printed_weights_are_at_least_4_5_to_1_on_every_cell():
    lo, hi = WEIGHT_SCHEME["extent"]
    text = _luminance(tuple(int(spec.TEXT[i:i + 2], 16) for i in (1, 3, 5)))
    for w in np.linspace(0, 1, 101):
        cell = _luminance(_blues(lo + w * (hi - lo)))
        assert (max(cell, text) + 0.05) / (min(cell, text) + 0.05) >= 4.5, w
    # and the full ramp would fail: the extent is what keeps the numbers readable
    full = _luminance(_blues(0.68))
    assert (full + 0.05) / (text + 0.05) < 4.5 and 1.05 / (full + 0.05) < 4.5


def test_marks_are_quiet_and_the_reading_carries_the_takeaway():
    tokens = tokenize(chapter.SENTENCE)
    res = primer(tokens, 64, 0)
    copies, gap = copy_rows_gap(res)
    q = chapter.query_index(tokens)
    fig = steps(res, query=q, shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS, copies=copies, gap=gap)
    marks = [n["mark"] for n in walk_dicts(fig.spec["vconcat"]) if "mark" in n]
    assert marks and all(m.get("aria") is False for m in marks)
    top = int(np.argmax(res.weights[q]))
    assert f"gives its largest weight, {res.weights[q, top]:.2f}, to word {top + 1}" in fig.reading
    assert f"Words {copies[0] + 1} and {copies[1] + 1} are the same word" in fig.reading
    assert f"d = {res.d}" in fig.reading and f"{len(tokens)} words" in fig.reading
    # the chart's name says what it shows in words: another sentence, seed or d keeps it
    other = primer(tokenize("a b c d e f"), 16, 3)
    assert steps(other, query=0, shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS).description == \
        fig.description
    hover = next(p for p in fig.spec["params"] if p["name"] == HOVER)
    assert len(hover["views"]) == 5


def test_presentation_mode_scales_the_printed_numbers():
    res = primer(tokenize(chapter.SENTENCE), 8, 0)
    fig = steps(res, query=2, shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS)
    sizes = [n["mark"]["fontSize"] for n in walk_dicts(in_mode(fig.spec, False)) if isinstance(n.get("mark"), dict)
             and n["mark"].get("type") == "text"]
    big = [n["mark"]["fontSize"] for n in walk_dicts(in_mode(fig.to_vega_lite(), True)) if isinstance(n.get("mark"), dict)
           and n["mark"].get("type") == "text"]
    assert sizes and big == [round(x * 18 / 13) for x in sizes]



@pytest.mark.parametrize("n", [5, 7])
def test_side_by_side_for_a_projector(n):
    """Presentation mode: the five panels in one row (lead and chart on one 1280 × 720 screen), the rows labelled
    once, the same linked selection and query menu; numbers printed only while the cells are wide enough."""
    tokens = tokenize(chapter.SENTENCE) + [f"w{i}" for i in range(n - 5)]
    res = primer(tokens, 16, 0)
    fig = steps(res, query=2, shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS, wide=True)
    full = spec.validate(fig)
    assert len(full["hconcat"]) == 5 and "vconcat" not in full
    labelled = [p["layer"][0]["encoding"]["y"]["axis"].get("labels", True) for p in full["hconcat"]]
    assert labelled == [True, False, False, False, False]
    hover = next(p for p in full["params"] if p["name"] == HOVER)
    assert len(hover["views"]) == 5
    assert next(p for p in full["params"] if p["name"] == PARAM)["value"] == "3 chased"
    texts = [node for node in walk_dicts(full["hconcat"]) if isinstance(node.get("mark"), dict)
             and node["mark"].get("type") == "text"]
    assert bool(texts) == (n <= 6)


@pytest.mark.parametrize("sentence", ["hello", "the cat"])
def test_the_reading_counts_the_words_in_good_english(sentence):
    res = primer(tokenize(sentence), 8, 0)
    reading = steps(res, query=0, shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS).reading
    n = len(res.tokens)
    assert reading.startswith("The sentence's one word is" if n == 1 else f"Each of the sentence's {n} words is")

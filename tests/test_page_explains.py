"""AppTest for the page “What this finally explains” (lessons/explains.py): the paradox resolved with live
numbers per scheme, the scramble settled, odd widths, odd sentences, safety."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from conftest import assert_ok, charts_of, open_page, page_text

import posenc
from posenc import chapter
from posenc.core import embed, projections, softmax
from posenc.encodings import rope, sinusoidal
from posenc.explains import SCHEMES, explains_demo, learned_table

PAGE = "lessons/explains.py"
TOKENS = posenc.tokenize(chapter.SENTENCE)
LONG = " ".join(f"w{i % 40}" for i in range(64))


def by_hand(scheme: str, d: int = 64, seed: int = 0) -> np.ndarray:
    """The weights from the chapter's query on the copies, straight from the formulas."""
    X = embed(TOKENS, d, seed)
    Wq, Wk, _ = projections(d, seed)
    pos = np.arange(1, len(TOKENS) + 1)
    if scheme == "learned table":
        X = X + learned_table(pos, d, seed)
    elif scheme == "sinusoids":
        X = X + sinusoidal(pos, d)
    Q, K = X @ Wq, X @ Wk
    if scheme == "RoPE":
        Q, K = rope(Q, pos), rope(K, pos)
    w = softmax(Q @ K.T / np.sqrt(d))
    return w[chapter.query_index(TOKENS), chapter.copies(TOKENS)]


def dataset(chart, name: str) -> dict:
    ds = next(d for d in chart.proto.datasets if d.name == name)
    return pa.ipc.open_stream(ds.data.data).read_all().to_pydict()


def test_the_paradox_numbers_and_live_weights_per_scheme():
    at = assert_ok(open_page(PAGE))
    assert not at.error
    text = page_text(at)
    first, second = chapter.FIGURE_WEIGHTS
    assert f"{first} and {second}" in text  # the chapter's figures, quoted as the chapter's
    assert "trained model" in text and "random" in text
    for s in SCHEMES:
        w = by_hand(s)
        shown = f"{w[0]:.6f} and {w[1]:.6f}" if s == "none" else f"{w[0]:.3f} and {w[1]:.3f}"
        assert shown in text, (s, shown)
    # none: equal; every other scheme: different
    assert by_hand("none")[0] == by_hand("none")[1]
    for s in SCHEMES[1:]:
        assert abs(by_hand(s)[0] - by_hand(s)[1]) > 1e-3
    assert text.count("Holds") >= 4 and "Does not hold" not in text
    links = {p.proto.page for p in at.get("page_link")}
    assert "scramble" in links


def test_copies_chart_sends_every_query_and_picks_in_the_chart():
    at = assert_ok(open_page(PAGE))
    charts = charts_of(at)
    assert len(charts) == 2
    spec = json.loads(charts[0].proto.spec)
    [param] = spec["params"]
    assert param["name"] == "query" and param["bind"]["input"] == "range"
    assert param["value"] == chapter.query_index(TOKENS) + 1
    assert "width" not in spec and spec["autosize"]["type"] == "fit-x"
    data = dataset(charts[0], "main")
    n, c = len(TOKENS), len(chapter.copies(TOKENS))
    assert len(data["weight"]) == len(SCHEMES) * n * c
    q = chapter.query_index(TOKENS) + 1
    for s in SCHEMES:
        got = [w for sc, qq, w in zip(data["scheme"], data["query"], data["weight"]) if sc == s and qq == q]
        assert np.allclose(got, by_hand(s), atol=1e-12)


def test_scramble_chart_and_verdicts():
    at = assert_ok(open_page(PAGE))
    spec = json.loads(charts_of(at)[1].proto.spec)
    [param] = spec["params"]
    assert param["name"] == "scheme" and param["bind"]["options"] == list(SCHEMES)
    res = explains_demo(TOKENS, 64, 0)
    text = page_text(at)
    assert "Attn(PX) = P·Attn(X)" in text
    for s in SCHEMES[1:]:
        assert f"{res.runs[s].scramble_error:.3f}" in text
    assert "X:  the cat chased the mouse" in text and "PX: the mouse chased the cat" in text


def test_predict_explanation_uses_the_chapters_sentence():
    at = assert_ok(open_page(PAGE, sentence="dogs bark at night"))
    at.radio(key="explains_predict_guess").set_value("All three: learned table, sinusoids and RoPE").run()
    assert_ok(at)
    text = page_text(at)
    assert "Right." in text
    w = by_hand("sinusoids")
    assert f"sinusoids: {w[0]:.3f} and {w[1]:.3f}" in text


@pytest.mark.parametrize("d", ["63", "9"])
def test_odd_d_gives_a_message_and_keeps_the_other_schemes(d):
    at = assert_ok(open_page(PAGE, query={"d": d}))
    text = page_text(at)
    assert "needs an even d" in text
    assert len(charts_of(at)) == 2
    data = dataset(charts_of(at)[0], "main")
    assert set(data["scheme"]) == {"none", "learned table"}
    assert "Does not hold" not in text


def test_sentence_without_a_repeated_word():
    at = assert_ok(open_page(PAGE, sentence="Dogs bark at night"))
    assert any("repeats no word" in e.value for e in at.info)
    assert len(charts_of(at)) == 1  # the scramble chart remains
    res = explains_demo(posenc.tokenize("Dogs bark at night"), 64, 0)
    assert f"{res.runs['sinusoids'].scramble_error:.3f}" in page_text(at)


def test_sentence_of_one_repeated_word():
    at = assert_ok(open_page(PAGE, sentence="la la la"))
    assert any("same word" in e.value for e in at.info)
    assert len(charts_of(at)) == 1


@pytest.mark.parametrize("sentence", ["one", "", "!!! ???"])
def test_too_short_or_empty(sentence):
    at = assert_ok(open_page(PAGE, sentence=sentence))
    assert at.error


def test_largest_settings_and_small_charts():
    at = assert_ok(open_page(PAGE, query={"d": "512"}, sentence=LONG))
    charts = charts_of(at)
    assert len(charts) == 2
    sent = sum(len(ds.data.data) for c in charts for ds in c.proto.datasets)
    assert sent < 300_000


def test_many_copies_stay_under_the_mark_limit():
    at = assert_ok(open_page(PAGE, sentence=" ".join(["la"] * 63 + ["end"])))
    data = dataset(charts_of(at)[0], "main")
    assert len(data["weight"]) <= 5000


@pytest.mark.parametrize("d", ["2", "3"])
def test_smallest_d(d):
    assert_ok(open_page(PAGE, query={"d": d}))


def test_student_text_is_never_markdown():
    evil = "the ![x](http://a/b.png) cat $x^2$ the"
    at = assert_ok(open_page(PAGE, sentence=evil))
    for md in at.markdown:
        assert "http://a/b.png" not in md.value and "b.png" not in md.value


def test_rope_formula_uses_row_vectors():
    at = assert_ok(open_page(PAGE))
    latex = " ".join(e.value for e in at.latex)
    assert r"R_m x_m W_Q" not in latex and r"R_m\,x_m W_Q" not in latex
    assert r"q_m R_m^\top" in latex and "R_{n-m}" in latex

"""AppTest for the page “What this finally explains” (lessons/explains.py): the paradox resolved with live
numbers per scheme, the scramble settled, odd widths, odd sentences, safety."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

import posenc
from conftest import (
    assert_ok,
    chart_readings,
    charts_of,
    checks_block,
    main_path,
    open_page,
    own_params,
    page_text,
    predict_radios,
    verdicts,
)
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


def pick(at, key: str, option: str | None = None):
    radio = at.radio(key=f"{key}_guess")
    radio.set_value(option if option is not None else radio.options[0]).run()
    return assert_ok(at)


def test_skeleton_question_first():
    at = assert_ok(open_page(PAGE))
    assert not at.error
    lead = at.markdown[0].value
    first, second = chapter.FIGURE_WEIGHTS
    assert f"{first} and {second}" in lead and lead.endswith("?")  # the chapter's contradiction, as a question
    assert [h.value for h in at.header] == ["The scramble, settled"]  # the lead opens the copies' section
    assert [r.key for r in predict_radios(at)] == ["explains_predict_guess", "ex_predict_scramble_guess"]
    text = page_text(at)
    assert "Right." not in text and "both of the chapter's claims are true" not in text  # no answer before a pick
    assert checks_block(at) is not None and "8 of 8 checks hold" in text
    on_path = [e.value for e in main_path(at) if isinstance(getattr(e, "value", None), str)]
    assert not any(v.startswith(":material/check_circle: **Holds**") for v in on_path)


def test_the_paradox_resolved_with_live_weights_per_scheme():
    at = pick(assert_ok(open_page(PAGE)), "explains_predict", "All three")
    text = page_text(at)
    assert "Right." in text
    first, second = chapter.FIGURE_WEIGHTS
    assert f"{first} and {second} were the chapter's figures" in text
    assert "trained model" in text and "random" in text
    assert f"the copies tie, {by_hand('none')[0]:.6f} and {by_hand('none')[1]:.6f}" in text
    for s in SCHEMES[1:]:
        w = by_hand(s)
        assert f"{w[0]:.3f} and {w[1]:.3f}" in text, s
    assert by_hand("none")[0] == by_hand("none")[1]
    for s in SCHEMES[1:]:
        assert abs(by_hand(s)[0] - by_hand(s)[1]) > 1e-3
    assert len(verdicts(at)) == 8 and all(h for h, _, _ in verdicts(at))
    assert "scramble" in {p.proto.page for p in at.get("page_link")}


def test_copies_chart_sends_every_query_and_picks_in_the_chart():
    at = assert_ok(open_page(PAGE))
    charts = charts_of(at)
    assert len(charts) == 2
    spec = json.loads(charts[0].proto.spec)
    [param] = own_params(spec)
    assert param["name"] == "ex_query" and param["bind"]["input"] == "range"
    q = chapter.query_index(TOKENS) + 1
    assert param["value"] == q  # the chart opens at the query the Predict names
    assert f"query word at position {q} looks at the copies at positions 1 and 4" in at.radio(
        key="explains_predict_guess").label
    assert "width" not in spec and spec["autosize"]["type"] == "fit-x"
    assert all(layer["mark"]["aria"] is False for layer in spec["layer"])
    data = dataset(charts[0], "main")
    n, c = len(TOKENS), len(chapter.copies(TOKENS))
    assert len(data["weight"]) == len(SCHEMES) * n * c
    for s in SCHEMES:
        got = [w for sc, qq, w in zip(data["scheme"], data["query"], data["weight"]) if sc == s and qq == q]
        assert np.allclose(got, by_hand(s), atol=1e-12)
        assert f"{s}: {got[0]:.3f} and {got[1]:.3f}" in chart_readings(at)[0]  # the takeaway's numbers
    assert spec["description"].startswith("Weights on the copies of") and "0." not in spec["description"]


def test_scramble_chart_predict_and_answer():
    at = assert_ok(open_page(PAGE))
    spec = json.loads(charts_of(at)[1].proto.spec)
    [param] = own_params(spec)
    assert param["name"] == "ex_scheme" and param["bind"]["options"] == list(SCHEMES)
    assert param["value"] == "sinusoids" and "with sinusoids" in at.radio(key="ex_predict_scramble_guess").label
    assert spec["mark"]["aria"] is False
    said = chart_readings(at)[1]  # the numbers are read after the chart; its name stays fixed
    assert said.startswith("The largest change of a word's weight after the swap — ")
    assert all(f"{s}: " in said for s in SCHEMES) and "after the swap" not in spec["description"]
    text = page_text(at)
    assert "X:  the cat chased the mouse\nPX: the mouse chased the cat" in text
    at = pick(at, "ex_predict_scramble", "Only with no positions")
    text = page_text(at)
    assert "Right." in text
    res = explains_demo(TOKENS, 64, 0)
    top = max(res.runs[s].scramble_error for s in SCHEMES[1:])
    assert f"With the learned table, sinusoids and RoPE the outputs move by up to {top:.3f}" in text
    for s in SCHEMES[1:]:
        assert f"{res.runs[s].scramble_error:.3f}" in " ".join(ms for _, _, ms in verdicts(at))


def test_a_sentence_without_a_repeat_uses_the_chapters_and_says_so():
    at = assert_ok(open_page(PAGE, sentence="dogs bark at night"))
    assert any("repeats no word" in e.value and "chapter's sentence" in e.value for e in at.info)
    assert len(charts_of(at)) == 2  # the copies on the chapter's sentence, the scramble on the student's
    at = pick(at, "explains_predict", "All three")
    text = page_text(at)
    assert "Right." in text
    w = by_hand("sinusoids")
    assert f"sinusoids {w[0]:.3f} and {w[1]:.3f}" in text
    res = explains_demo(posenc.tokenize("dogs bark at night"), 64, 0)
    assert f"{res.runs['sinusoids'].scramble_error:.3f}" in " ".join(ms for _, _, ms in verdicts(at))


@pytest.mark.parametrize("d", ["63", "9", "3"])
def test_odd_d_names_d_once_and_asks_among_the_schemes_that_run(d):
    at = assert_ok(open_page(PAGE, query={"d": d}))
    text = page_text(at)
    radio = at.radio(key="explains_predict_odd_guess")
    assert radio.label.count(f"d = {d} is odd") == 1 and "need an even d" in radio.label
    assert list(radio.options) == ["Only the learned table", "None: copies always tie"]
    assert text.count(f"d = {d} is odd") == 0  # said once, in the question (the Deeper's table says "needs even d")
    assert len(charts_of(at)) == 2
    assert set(dataset(charts_of(at)[0], "main")["scheme"]) == {"none", "learned table"}
    at = pick(at, "explains_predict_odd", "Only the learned table")
    assert "Right." in page_text(at)
    assert all(h for h, _, _ in verdicts(at))


def test_sentence_of_one_repeated_word():
    at = assert_ok(open_page(PAGE, sentence="la la la"))
    assert any("same word" in e.value for e in at.info)
    assert len(charts_of(at)) == 1
    at = pick(at, "explains_predict", "All three")
    assert "positions 1, 2 and 3" in at.radio(key="explains_predict_guess").label
    assert all(h for h, _, _ in verdicts(at))


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


def test_rope_formula_uses_row_vectors():
    at = assert_ok(open_page(PAGE))
    latex = " ".join(e.value for e in at.latex)
    assert r"R_m x_m W_Q" not in latex and r"R_m\,x_m W_Q" not in latex
    assert r"q_m R_m^\top" in latex and "R_{n-m}" in latex

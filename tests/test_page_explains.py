"""AppTest for the page “What this finally explains” (lessons/explains.py)."""

from __future__ import annotations

import pytest
from conftest import charts_of, open_page, page_text

import posenc
from posenc.explains import SCHEMES, explains_demo

PAGE = "lessons/explains.py"
CHAPTER = "The cat chased the mouse"
LONG = " ".join(f"w{i % 40}" for i in range(64))


def ok(at):
    assert not at.exception, at.exception[0].value if at.exception else ""
    return at


def shown(v: float) -> str:
    return f"{v:.2g}"  # as frame.check prints a number


def test_defaults_reproduce_the_chapter():
    at = ok(open_page(PAGE))
    text = page_text(at)
    assert len(charts_of(at)) == 3
    res = explains_demo(posenc.tokenize(CHAPTER), 64, 0)
    assert res.tokens[res.query] == "chased"
    assert "query: 3 chased" in text
    assert at.radio(key="ex_scheme").value == "sinusoids"
    # the copies: tie with none, differ with sinusoids; the scramble error with sinusoids
    assert "= `0`" in text
    assert shown(res.runs["sinusoids"].copies_gap) in text
    assert shown(res.runs["sinusoids"].scramble_error) in text
    assert text.count("✓") >= 3 and "✗" not in text
    # the summary table: every scheme, the computed numbers
    table = at.dataframe[-1].value
    assert list(table["positions"]) == list(SCHEMES)
    assert list(table["max |Attn(PX) − P·Attn(X)|"]) == [f"{res.runs[s].scramble_error:.3g}" for s in SCHEMES]
    latex = " ".join(e.value for e in at.latex)
    assert r"\operatorname{softmax}" in latex and "R_{n-m}" in latex and "PE(p)" in latex


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_scheme(scheme):
    at = ok(open_page(PAGE, query={"ex_scheme": scheme}))
    assert len(charts_of(at)) == 3
    res = explains_demo(posenc.tokenize(CHAPTER), 64, 0)
    text = page_text(at)
    assert shown(res.runs[scheme].scramble_error) in text
    assert "✗" not in text
    if scheme == "none":
        assert "the same rows reordered" in text


def test_scheme_switch_by_widget():
    at = ok(open_page(PAGE))
    at.radio(key="ex_scheme").set_value("RoPE")
    ok(at.run())
    res = explains_demo(posenc.tokenize(CHAPTER), 64, 0)
    assert shown(res.runs["RoPE"].copies_gap) in page_text(at)


@pytest.mark.parametrize("scheme", ["sinusoids", "RoPE"])
def test_odd_d_gives_a_message(scheme):
    at = ok(open_page(PAGE, query={"d": "63", "ex_scheme": scheme}))
    assert any("odd" in e.value for e in at.error)
    assert charts_of(at) == []
    table = at.dataframe[-1].value
    assert list(table["gap between copies, from the query"])[2:] == ["needs even d", "needs even d"]


def test_odd_d_still_runs_without_pairs():
    at = ok(open_page(PAGE, query={"d": "63", "ex_scheme": "learned table"}))
    assert len(charts_of(at)) == 3
    assert not at.error


def test_sentence_without_a_repeated_word():
    at = ok(open_page(PAGE, sentence="Dogs bark at night"))
    assert any("repeats no word" in e.value for e in at.info)
    assert len(charts_of(at)) == 2  # the scramble charts remain
    res = explains_demo(posenc.tokenize("Dogs bark at night"), 64, 0)
    assert shown(res.runs["sinusoids"].scramble_error) in page_text(at)


def test_sentence_of_one_repeated_word():
    at = ok(open_page(PAGE, sentence="la la la"))
    assert any("same word" in e.value for e in at.info)


@pytest.mark.parametrize("sentence", ["one", "", "!!! ???"])
def test_too_short_or_empty(sentence):
    at = ok(open_page(PAGE, sentence=sentence))
    assert at.error


@pytest.mark.parametrize("q", ["1", "5", "0", "99", "-4", "abc", "2.5"])
def test_query_extremes_and_garbage(q):
    at = ok(open_page(PAGE, query={"ex_query": q}))
    assert len(charts_of(at)) == 3


def test_query_is_clamped_when_the_sentence_gets_shorter():
    at = ok(open_page(PAGE, query={"ex_query": "5"}))
    assert "query: 5 mouse" in page_text(at)
    at.text_input(key="sentence").input("the dog bit the man slowly today")
    ok(at.run())
    at.number_input(key="ex_query").set_value(7)
    ok(at.run())
    at.text_input(key="sentence").input("cats purr")
    ok(at.run())
    assert len(charts_of(at)) == 2


def test_bad_scheme_in_the_link():
    at = ok(open_page(PAGE, query={"ex_scheme": "ALiBi"}))
    assert at.warning
    assert at.radio(key="ex_scheme").value == "sinusoids"


def test_largest_settings_and_small_charts():
    at = ok(open_page(PAGE, query={"d": "512", "ex_scheme": "RoPE"}, sentence=LONG))
    charts = charts_of(at)
    assert len(charts) == 3
    sent = sum(len(ds.data.data) for c in charts for ds in c.proto.datasets)
    assert sent < 300_000


@pytest.mark.parametrize("d", ["2", "3"])
def test_smallest_d(d):
    ok(open_page(PAGE, query={"d": d, "ex_scheme": "RoPE"}))


def test_student_text_is_never_markdown():
    evil = "the ![x](http://a/b.png) cat $x^2$ the"
    at = ok(open_page(PAGE, sentence=evil))
    for md in at.markdown:
        assert "http://a/b.png" not in md.value and "b.png" not in md.value


def test_predict_reveal():
    at = ok(open_page(PAGE))
    at.radio(key="explains_predict_guess").set_value("All three: learned table, sinusoids and RoPE")
    at.toggle(key="explains_predict_reveal").set_value(True)
    ok(at.run())
    assert any(s.value == "Right." for s in at.success)

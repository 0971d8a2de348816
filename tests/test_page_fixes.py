"""AppTest of the page “Obvious fixes that fail” (lessons/fixes.py)."""

from __future__ import annotations

import math

import pytest
from conftest import charts_of, open_page, page_text

import posenc
from posenc.fixes import fixes_demo

PAGE = "lessons/fixes.py"
DEFAULT = "The cat chased the mouse"


def _ok(at) -> str:
    assert not at.exception, at.exception[0].value if at.exception else ""
    return page_text(at)


def _run_default():
    return open_page(PAGE)


@pytest.fixture(scope="module")
def default_page():
    return _run_default()


def test_defaults_show_the_four_fixes_with_computed_numbers(default_page):
    at = default_page
    text = _ok(at)
    assert at.title[0].value == "Obvious fixes that fail"
    assert len(charts_of(at)) >= 8
    res = fixes_demo(posenc.tokenize(DEFAULT), 64, 0, 500, 100, 50, 8, 9)
    raw, ratio, mul, oh = res.raw, res.ratio, res.multiply, res.onehot
    # 1. raw index: the sentence at 500 … 504, the measured spread beside √d, the readout
    assert "500 … 504" in text
    assert f"{raw.content_spread:.3g}" in text and f"{math.sqrt(64):.3g}" in text
    assert "{:,.0f}".format(raw.position_term.max()) in text
    assert f"{raw.share_with:.4f}" in text
    # 2. index ÷ length: 3/5 = 0.6 and 3/100 = 0.03, computed into the LaTeX
    latex = "\n".join(e.value for e in at.latex)
    assert r"\frac{3}{5} = 0.6" in latex and r"\frac{3}{100} = 0.03" in latex
    assert "0.2" in latex and "0.01" in latex
    # 3. multiplying: norms and the ratio
    assert f"{mul.norm_at_m:.4g}" in text and f"{mul.norm_at_m / mul.norm_at_1:.4g}" in text
    # 4. one-hot: the past position gets a message, √2 in the formula
    assert oh.past_error in text
    assert r"\sqrt 2" in latex and "1.414214" in latex
    # the summary table, every cell computed
    table = at.table[0].value
    assert list(table.columns) == ["raw index", "index ÷ length", "multiply by p", "one-hot"]
    cells = table.to_numpy().ravel().tolist()
    assert sum(c.startswith("✗") for c in cells) == sum(not v.passed for v in res.verdicts)
    assert "✗ no column 101" in cells
    # anatomy: formulas, predict, link
    assert len(at.latex) >= 5
    assert "Predict, then reveal" in text


def test_default_weights_with_the_index_sit_on_the_last_word(default_page):
    res = fixes_demo(posenc.tokenize(DEFAULT), 64, 0, 500, 100, 50, 8, 9)
    assert res.raw.last_wins == 5
    assert f"{res.raw.last_wins} of 5 queries" in default_page.dataframe[0].value.to_string()


@pytest.mark.parametrize("query", [
    {"fx_start": "1", "fx_len": "10", "fx_mpos": "1", "fx_width": "1", "fx_past": "1"},
    {"fx_start": "2000", "fx_len": "1000", "fx_mpos": "1000", "fx_width": "1000", "fx_past": "2000"},
    {"fx_width": "2", "fx_past": "2"},
    {"fx_width": "3"},
    {"fx_width": "64", "fx_past": "64"},
])
def test_control_extremes(query):
    at = open_page(PAGE, query=query)
    text = _ok(at)
    assert len(charts_of(at)) >= 6
    width, past = int(query.get("fx_width", 8)), int(query.get("fx_past", 9))
    if past > width:
        assert "has no encoding" in text
    else:
        assert f"Position {past} → a 1 in column {past} of {width}" in text


@pytest.mark.parametrize("query", [
    {"fx_start": "99999"}, {"fx_start": "-4"}, {"fx_len": "3"}, {"fx_len": "abc"}, {"fx_mpos": "1e9"},
    {"fx_width": "0"}, {"fx_past": "nan"}, {"fx_width": "2.5"},
])
def test_bad_url_values_give_a_notice_not_a_traceback(query):
    at = open_page(PAGE, query=query)
    _ok(at)
    notices = [e.value for e in at.warning] + [e.value for e in at.info]
    assert any(next(iter(query)) in n for n in notices)


def test_widgets_moved_to_their_extremes():
    at = open_page(PAGE)
    for key, value in [("fx_start", 2000), ("fx_start", 1), ("fx_len", 1000), ("fx_len", 10),
                       ("fx_mpos", 1000), ("fx_mpos", 1)]:
        at.slider(key=key).set_value(value).run()
        _ok(at)
    for key, value in [("fx_width", 1000), ("fx_width", 1), ("fx_past", 2000), ("fx_past", 1)]:
        at.number_input(key=key).set_value(value).run()
        _ok(at)


@pytest.mark.parametrize("sentence,expect", [
    ("mouse", "at least two words"),
    ("   ", "empty"),
    ("!!! ???", "No words"),
    (" ".join(["word"] * 65), "at most 64"),
])
def test_bad_sentences_give_a_message(sentence, expect):
    at = open_page(PAGE, sentence=sentence)
    text = _ok(at)
    assert expect in text


def test_two_words_odd_d_and_long_sentences():
    at = open_page(PAGE, sentence="Hi there", d=3)
    text = _ok(at)
    assert "three or more words" in text
    words = " ".join(f"w{i}" for i in range(64))
    at = open_page(PAGE, query={"fx_width": "8"}, sentence=words, d=512)
    text = _ok(at)
    assert "does not fit" in text  # 64 words in a width-8 one-hot table


def test_student_text_is_never_markdown():
    evil = "![x](http://a/b.png) $x^2$ the cat chased the mouse"
    at = open_page(PAGE, sentence=evil)
    _ok(at)
    for e in at.markdown:
        assert "![x]" not in e.value and "http://a/b.png" not in e.value
    for e in list(at.caption) + list(at.info) + list(at.warning) + list(at.success):
        assert "http://a/b.png" not in str(e.value)


def test_predict_then_reveal_uses_computed_numbers():
    at = open_page(PAGE)
    at.radio(key="fixes_predict_guess").set_value("The last word of the sentence")
    at.toggle(key="fixes_predict_reveal").set_value(True).run()
    text = _ok(at)
    res = fixes_demo(posenc.tokenize(DEFAULT), 64, 0, 500, 100, 50, 8, 9)
    assert "Right." in text
    assert f"{res.raw.last_wins} of 5 queries put their largest weight" in text
    assert f"{res.raw.last_weight:.4f}" in text

"""AppTest of the sinusoid page: defaults, extremes, bad values, safety."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import charts_of, open_page, page_text

from posenc.core import tokenize
from posenc.sinusoid_demo import any_position, catch, table

PAGE = "lessons/sinusoids.py"


def chart_bytes(at) -> int:
    total = 0
    for c in charts_of(at):
        total += len(c.proto.spec) + sum(len(d.data.data) for d in c.proto.datasets)
    return total


def no_exception(at):
    assert not at.exception, at.exception[0].value if at.exception else ""


def test_defaults():
    at = open_page(PAGE)
    no_exception(at)
    assert len(charts_of(at)) >= 7
    text = page_text(at)
    latex = "\n".join(e.value for e in at.latex)
    assert r"\text{base}^{2i/d}" in latex and "M_k" in latex and r"\cos(\omega_i k)" in latex
    # wavelengths computed by posenc, as the page prints them
    t = table(64, 10000.0, 100)
    assert "{:.4f}".format(t.wavelengths[0]) in text
    assert "{:,.1f}".format(t.wavelengths[-1]).replace(",", "{,}") in text  # KaTeX-friendly thousands
    # the float32 check at the chapter's position 5
    assert "{:.2g}".format(any_position(5, 64).max_diff) in text
    # the catch: the three scores in the table, and their spread
    c = catch(tokenize("The cat chased the mouse"), 2, 1, 64, 0)
    frames = [df.value for df in at.dataframe]
    catch_df = next(f for f in frames if "query at m" in f.columns)
    assert np.allclose(catch_df["score"].to_numpy(), c.scores)
    assert catch_df["query at m"].tolist() == [10, 40, 4000]
    assert "{:.2g}".format(c.spread) in text
    assert not at.error
    assert chart_bytes(at) < 300_000


def test_five_million_and_ten_million():
    at = open_page(PAGE)
    at.button(key="sn_pos_big").click().run()
    no_exception(at)
    assert at.number_input(key="sn_pos").value == 5_000_000
    far = any_position(5_000_000, 64)
    assert "{:.2g}".format(far.max_diff) in page_text(at)
    assert "✗" in "\n".join(m.value for m in at.markdown)  # float32 fails the 1e-6 check there
    at.number_input(key="sn_pos").set_value(10_000_000).run()
    no_exception(at)
    assert "{:.2g}".format(any_position(10_000_000, 64).max_diff) in page_text(at)


@pytest.mark.parametrize("query", [
    {"sn_d": "512", "sn_len": "2000", "sn_k": "100000", "sn_base": "1000000", "sn_pos": "10000000"},
    {"sn_d": "2", "sn_len": "2", "sn_k": "0", "sn_base": "2", "sn_pos": "0"},
])
def test_extremes(query):
    at = open_page(PAGE, query=query)
    no_exception(at)
    assert not at.error
    assert len(charts_of(at)) >= 7
    assert chart_bytes(at) < 600_000


def test_odd_page_d_gets_a_message():
    at = open_page(PAGE, query={"sn_d": "63"})
    no_exception(at)
    assert any("d must be even" in e.value for e in at.error)


def test_odd_sidebar_d_stops_only_the_catch():
    at = open_page(PAGE, d=63)
    no_exception(at)
    assert any("d must be even" in e.value for e in at.error)
    assert len(charts_of(at)) >= 6  # the table, waves, vector, M_k, lines and similarity still show


@pytest.mark.parametrize("query", [{"sn_pos": "abc"}, {"sn_pos": "-4"}, {"sn_pos": "1e12"}, {"sn_k": "2.5"},
                                   {"sn_len": "0"}, {"sn_base": "nan"}, {"sn_qw": "99"}])
def test_bad_url_values(query):
    at = open_page(PAGE, query=query)
    no_exception(at)
    assert at.warning or at.info


def test_word_choice_survives_a_shorter_sentence():
    at = open_page(PAGE)
    at.number_input(key="sn_qw").set_value(5).run()
    no_exception(at)
    at.text_input(key="sentence").input("two words").run()
    no_exception(at)
    assert at.number_input(key="sn_qw").value == 2
    assert "query word: words" in page_text(at)


def test_student_text_never_markdown():
    evil = "![x](http://a/b.png) $x^2$ <b>cat</b> chased"
    at = open_page(PAGE, sentence=evil)
    no_exception(at)
    for m in at.markdown:
        assert "http://a/b.png" not in m.value and "![x]" not in m.value


def test_one_word_and_empty_sentences():
    at = open_page(PAGE, sentence="hello")
    no_exception(at)
    assert "query word: hello" in page_text(at)
    at = open_page(PAGE, sentence="   ")
    no_exception(at)
    assert at.error


def test_specs_are_valid_json_with_tooltips():
    at = open_page(PAGE)
    for c in charts_of(at):
        spec = json.loads(c.proto.spec)
        assert "tooltip" in json.dumps(spec)

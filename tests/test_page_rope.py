"""AppTest of the RoPE page: defaults, presets, extremes, bad values, safety."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import charts_of, open_page, page_text

from posenc.core import tokenize
from posenc.encodings import MAX_POSITION
from posenc.rope_demo import WINDOW, rope_demo, score_window

PAGE = "lessons/rope.py"
SENT = tokenize("The cat chased the mouse")


def no_exception(at):
    assert not at.exception, at.exception[0].value if at.exception else ""


def chart_bytes(at) -> int:
    return sum(len(c.proto.spec) + sum(len(d.data.data) for d in c.proto.datasets) for c in charts_of(at))


def score_table(at):
    return next(df.value for df in at.dataframe if "query at m" in df.value.columns)


def test_defaults():
    at = open_page(PAGE)
    no_exception(at)
    assert not at.error
    assert len(charts_of(at)) >= 3
    r = rope_demo(SENT, 2, 1, 64, 0, 10, 7)
    w = score_window(SENT, 2, 1, 64, 0, 1)
    df = score_table(at)
    assert df["query at m"].tolist() == [10, 40, 4000] and df["key at n"].tolist() == [7, 37, 3997]
    assert np.allclose(df["(R_m q)·(R_n k)/√d"].to_numpy(), r.pair_scores)
    text = page_text(at)
    assert "query word: chased" in text and "key word: cat" in text
    for v in (r.pair_spread, r.identity_error, w.rope_diag_spread, w.half_score_error, r.norm_error):
        assert "{:.2g}".format(v) in text
    assert "{:.2f}".format(w.additive_diag_spread) in text
    assert f"{r.q_norm:.6f}" in text and f"{r.x_pe_norm:.6f}" in text
    latex = "\n".join(e.value for e in at.latex)
    assert "R_{n-m}" in latex and r"\operatorname{RoPE_{half}}" in latex and "W_V" in latex
    assert chart_bytes(at) < 300_000


def test_presets_and_far_positions():
    at = open_page(PAGE)
    at.button(key="rp_preset_4000_3997").click().run()
    no_exception(at)
    assert (at.number_input(key="rp_m").value, at.number_input(key="rp_n").value) == (4000, 3997)
    assert len(score_table(at)) == 3  # the chosen pair is one of the chapter's
    at.number_input(key="rp_m").set_value(MAX_POSITION).run()
    at.number_input(key="rp_n").set_value(MAX_POSITION - 3).run()
    no_exception(at)
    df = score_table(at)
    assert df["query at m"].tolist()[-1] == MAX_POSITION
    scores = df["(R_m q)·(R_n k)/√d"].to_numpy()
    assert np.ptp(scores) < 1e-6  # same gap, same score, ten million positions later
    assert "✗" not in "\n".join(m.value for m in at.markdown if "R_m q" in m.value and "R_n k" in m.value)


def test_additive_toggle():
    at = open_page(PAGE, query={"rp_add": "true"})
    no_exception(at)
    w = score_window(SENT, 2, 1, 64, 0, 1)
    spec = "\n".join(c.proto.spec for c in charts_of(at))
    assert "additive" in spec
    assert "{:.2g}".format(w.additive_diag_spread) in page_text(at)


@pytest.mark.parametrize("query", [
    {"rp_m": str(MAX_POSITION), "rp_n": "0", "rp_start": str(MAX_POSITION - WINDOW + 1), "rp_add": "true"},
    {"rp_m": "0", "rp_n": str(MAX_POSITION), "rp_start": "0"},
])
def test_extremes(query):
    at = open_page(PAGE, query=query)
    no_exception(at)
    assert not at.error
    assert len(charts_of(at)) >= 3


@pytest.mark.parametrize("state", [{"d": 2}, {"d": 512}])
def test_sidebar_widths(state):
    at = open_page(PAGE, **state)
    no_exception(at)
    assert not at.error


def test_odd_d_gets_a_message():
    at = open_page(PAGE, d=63)
    no_exception(at)
    assert any("d must be even" in e.value for e in at.error)
    at = open_page(PAGE, query={"d": "65"})
    no_exception(at)
    assert any("d must be even" in e.value for e in at.error)


@pytest.mark.parametrize("query", [{"rp_m": "x"}, {"rp_n": "-1"}, {"rp_m": "1e9"}, {"rp_start": "99999999"},
                                   {"rp_add": "maybe"}, {"rp_kw": "0"}])
def test_bad_url_values(query):
    at = open_page(PAGE, query=query)
    no_exception(at)
    assert at.warning or at.info


def test_word_choice_survives_a_shorter_sentence():
    at = open_page(PAGE)
    at.number_input(key="rp_kw").set_value(5).run()
    at.text_input(key="sentence").input("just three words").run()
    no_exception(at)
    assert at.number_input(key="rp_kw").value == 3
    assert "key word: words" in page_text(at)


def test_student_text_never_markdown():
    evil = "![x](http://a/b.png) $x^2$ <b>cat</b> chased"
    at = open_page(PAGE, sentence=evil)
    no_exception(at)
    for m in at.markdown:
        assert "http://a/b.png" not in m.value and "![x]" not in m.value


def test_tooltips_everywhere():
    at = open_page(PAGE)
    for c in charts_of(at):
        assert "tooltip" in json.dumps(json.loads(c.proto.spec))

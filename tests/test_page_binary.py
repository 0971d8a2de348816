"""AppTest of the binary-codes page: defaults, n = 1 and the largest n, bad links, in-chart controls, Predict."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from conftest import assert_ok, chart_specs, charts_of, open_page, page_text

from posenc import chapter
from posenc.binary_codes import DEFAULT_BITS, MAX_BITS, binary_demo, hamming
from posenc.core import embed, tokenize

PAGE = "lessons/binary.py"


def test_defaults_show_the_chapters_pairs_with_computed_grammar():
    at = open_page(PAGE)
    text = page_text(assert_ok(at))
    (a, b), (c, e) = chapter.BINARY_NEIGHBOURS, chapter.BINARY_FAR
    codes = {p: format(p, f"0{DEFAULT_BITS}b") for p in (a, b, c, e)}
    ha, hc = bin(a ^ b).count("1"), bin(c ^ e).count("1")  # by hand, not through posenc
    assert ha == DEFAULT_BITS and hc == 1
    assert f"{a} = {codes[a]} and {b} = {codes[b]}: {ha} bits differ" in text
    assert f"{c} = {codes[c]} and {e} = {codes[e]}: 1 bit differs" in text
    assert not re.search(r"\b1 bits\b", text) and not re.search(r"\b1 bit differ\b", text)
    assert "Does not hold" not in text  # every claim holds at the defaults
    assert not at.error and not at.warning and not at.info  # a clean link shows no notice
    flips = ", ".join(str(2 ** (DEFAULT_BITS - k) - 1) for k in range(DEFAULT_BITS))  # 15, 7, 3, 1
    assert f"flip {flips} times" in text
    latex = " ".join(e.value for e in at.latex)
    assert r"\operatorname{popcount}" in latex and r"\mathrm{bit}_b(p)" in latex and r"\frac{2}{\pi}" in latex


def test_sinusoid_ladder_ratio_is_computed_not_two():
    at = open_page(PAGE)
    text = page_text(assert_ok(at))
    assert f"{10000.0 ** (2 / 64):.4f}" in text  # base^(2/d) at the sidebar's d = 64, by hand
    assert "each half the one before" not in text and "keep the ladder and" not in text
    at = open_page(PAGE, d=16)
    assert f"{10000.0 ** (2 / 16):.4f}" in page_text(assert_ok(at))


def test_bits_beside_the_content_live():
    at = open_page(PAGE)
    text = page_text(assert_ok(at))
    toks = tokenize(chapter.SENTENCE)
    biggest = float(np.max(np.abs(embed(toks, 64, 0)[toks.index(chapter.QUERY_WORD)])))
    assert f"the word's coordinates reach ±{biggest:.2f}" in text
    strip = next(s for s in chart_specs(at) if any(p.get("name") == "p" for p in s.get("params", [])))
    p = next(p for p in strip["params"] if p["name"] == "p")
    assert p["bind"]["max"] == 2**MAX_BITS - 1 and p["value"] == chapter.RAW_POSITION
    # a new seed moves the content coordinates: the verdict follows
    at = open_page(PAGE, seed=7)
    biggest = float(np.max(np.abs(embed(toks, 64, 7)[toks.index(chapter.QUERY_WORD)])))
    assert f"±{biggest:.2f}" in page_text(assert_ok(at))


def test_key_heatmaps_fill_their_container():
    at = open_page(PAGE)
    page_text(assert_ok(at))
    specs = chart_specs(at)
    assert len(specs) == 8
    heat = [s for s in specs if s.get("description", "").lower().startswith(("bits that differ", "how far apart"))]
    assert len(heat) == 2
    for s in specs:
        assert "width" not in s or s["width"] == "container"  # no pixel widths: fits 390 px
        assert "hconcat" not in s and "vconcat" not in s
        assert '"tooltip"' in json.dumps(s)


def test_one_bit_works_with_messages():
    at = open_page(PAGE, query={"bn_bits": "1"})
    page_text(assert_ok(at))
    assert any("only two codes" in i.value for i in at.info)
    assert any("words 2 … 5" in w.value and "get no code" in w.value for w in at.warning)


def test_largest_n_limits_the_heatmaps_and_says_so():
    at = open_page(PAGE, query={"bn_bits": str(MAX_BITS)})
    text = page_text(assert_ok(at))
    assert f"Positions 0 … 63 of the {2**MAX_BITS:,} the {MAX_BITS} bits write" in text
    w0, w1 = 2 ** (MAX_BITS - 1) - 1, 2 ** (MAX_BITS - 1)
    assert (f"{w0:,} = {format(w0, f'0{MAX_BITS}b')} and {w1:,} = {format(w1, f'0{MAX_BITS}b')}: "
            f"{MAX_BITS} bits differ") in text
    total = sum(len(ds.data.data) for c in charts_of(at) for ds in c.proto.datasets)
    assert total < 300_000


@pytest.mark.parametrize("value, notice", [("0", "outside its range; using 1"),
                                           ("11", f"outside its range; using {MAX_BITS}"),
                                           ("abc", f"not usable; using {DEFAULT_BITS}"),
                                           ("4.5", f"not usable; using {DEFAULT_BITS}")])
def test_bad_links_are_clamped_with_a_notice(value, notice):
    at = open_page(PAGE, query={"bn_bits": value})
    page_text(assert_ok(at))
    assert any(notice in n.value for n in [*at.warning, *at.info]), [n.value for n in [*at.warning, *at.info]]


def test_slider_extremes_by_hand():
    at = open_page(PAGE)
    for v in (1, MAX_BITS, 2, 3):
        at.slider(key="bn_bits").set_value(v).run()
        text = page_text(assert_ok(at))
        assert f"{2**v:,} positions" in text


def test_student_text_is_never_markdown():
    at = open_page(PAGE, sentence="the ![x](http://a/b.png) cat $x^2$")
    page_text(assert_ok(at))
    assert not any("http://a/b.png" in m.value or "$x^2$" in m.value for m in at.markdown)


def test_predict_right_and_wrong():
    a, b = chapter.BINARY_NEIGHBOURS
    right = str(bin(a ^ b).count("1"))
    at = open_page(PAGE)
    at.radio(key="binary_predict_guess").set_value(right).run()
    text = page_text(assert_ok(at))
    assert "**Right.**" in text
    assert f"{a} is {format(a, f'0{DEFAULT_BITS}b')} and {b} is {format(b, f'0{DEFAULT_BITS}b')}" in text
    at.radio(key="binary_predict_guess").set_value("1").run()
    assert "Not quite" in page_text(assert_ok(at))


@pytest.mark.parametrize("d, says", [(5, "is odd"), (2, "single (sin, cos) pair")])
def test_sidebar_d_without_a_ladder_of_pairs_says_so(d, says):
    at = open_page(PAGE, d=d)
    page_text(assert_ok(at))
    assert any(says in i.value for i in at.info)
    assert not at.error and len(charts_of(at)) == 7  # everything but the ladder chart

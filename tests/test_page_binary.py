"""AppTest of the binary-codes page: defaults, n = 1 and the largest n, bad links, in-chart controls, Predict."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from conftest import (
    assert_ok,
    chart_readings,
    chart_spec,
    chart_specs,
    chart_tables,
    charts_of,
    kind,
    main_path,
    open_page,
    page_text,
    verdict,
)
from posenc import chapter
from posenc.binary_codes import DEFAULT_BITS, MAX_BITS
from posenc.core import embed, tokenize

PAGE = "lessons/binary.py"


def test_defaults_show_the_chapters_pairs_with_computed_grammar():
    at = open_page(PAGE)
    text = page_text(assert_ok(at))
    (a, b), (c, e) = chapter.BINARY_NEIGHBOURS, chapter.BINARY_FAR
    codes = {p: format(p, f"0{DEFAULT_BITS}b") for p in (a, b, c, e)}
    ha, hc = bin(a ^ b).count("1"), bin(c ^ e).count("1")  # by hand, not through posenc
    assert ha == DEFAULT_BITS and hc == 1
    assert verdict(at, "the neighbours")[0] and verdict(at, "every position gets its own code")[0]
    assert f"{a} = {codes[a]} and {b} = {codes[b]}: {ha} bits differ" in text  # in the Checks block
    assert f"{c} = {codes[c]} and {e} = {codes[e]}: 1 bit differs" in text
    assert not re.search(r"\b1 bits\b", text) and not re.search(r"\b1 bit differ\b", text)
    assert "Does not hold" not in text  # every claim holds at the defaults
    assert not at.error and not at.warning and not at.info  # a clean link shows no notice
    flips = ", ".join(str(2 ** (DEFAULT_BITS - k) - 1) for k in range(DEFAULT_BITS))  # 15, 7, 3, 1
    assert f"flip {flips} times" in text
    latex = " ".join(e.value for e in at.latex)
    assert r"\operatorname{popcount}" in latex and r"\frac{2}{\pi}" in latex


def test_the_page_asks_before_it_answers_and_never_prints_the_next_pages_ratio():
    at = open_page(PAGE)
    text = page_text(assert_ok(at))
    order = [e for e in main_path(at)]
    first_chart = next(i for i, e in enumerate(order) if kind(e) == "vega_lite_chart")
    first_radio = next(i for i, e in enumerate(order) if kind(e) == "radio")
    assert first_radio < first_chart
    assert "**Right.**" not in text and "Not quite" not in text
    a, b = chapter.BINARY_NEIGHBOURS  # nothing above the answer says how many bits the neighbours differ in
    assert f"all {bin(a ^ b).count('1')} bits flip" not in text and "carries through every bit" not in text
    for d in (64, 16):  # the sinusoid ladder's factor is the next page's Predict: not in text nor in a chart
        at = open_page(PAGE, d=d)
        ratio = f"{10000.0 ** (2 / d):.4f}"
        assert ratio not in page_text(assert_ok(at))
        assert not any(ratio in json.dumps(chart_spec(c), ensure_ascii=False) or
                       any(ratio in str(t.to_pylist()) for t in chart_tables(c).values()) for c in charts_of(at))
        assert not any(ratio in r or f"{10000.0 ** (2 / d):.3g}" in r for r in chart_readings(at))


def test_bits_beside_the_content_live():
    at = open_page(PAGE)
    text = page_text(assert_ok(at))
    toks = tokenize(chapter.SENTENCE)
    biggest = float(np.max(np.abs(embed(toks, 64, 0)[toks.index(chapter.QUERY_WORD)])))
    assert f"the word's coordinates reach ±{biggest:.2f}" in text
    assert f"The word's 64 coordinates reach ±{biggest:.2f}: every bit stays inside" in "\n".join(chart_readings(at))
    strip = next(s for s in chart_specs(at) if any(p.get("name") == "bn_raw" for p in s.get("params", [])))
    p = next(p for p in strip["params"] if p["name"] == "bn_raw")
    assert p["bind"]["max"] == 2**MAX_BITS - 1 and p["value"] == chapter.RAW_POSITION
    # a new seed moves the content coordinates: the verdict follows
    at = open_page(PAGE, seed=7)
    biggest = float(np.max(np.abs(embed(toks, 64, 7)[toks.index(chapter.QUERY_WORD)])))
    assert f"±{biggest:.2f}" in page_text(assert_ok(at))


@pytest.mark.parametrize("d", (2, 4, 6, 64))
def test_the_size_section_says_what_its_own_check_says(d):
    """At d = 2 and 4 a word's coordinates can stay inside ±1: a bit of 1 then sticks out, and the prose says so
    instead of "never overwhelms" (the heading asks, it does not claim)."""
    for seed in range(4):
        at = open_page(PAGE, d=d, seed=seed, bn_size_predict_shown=True)  # the answer shown
        text = page_text(assert_ok(at))
        toks = tokenize(chapter.SENTENCE)
        biggest = float(np.max(np.abs(embed(toks, d, seed)[toks.index(chapter.QUERY_WORD)])))
        holds, _ = verdict(at, "every bit stays inside the word's own spread")
        assert holds == (biggest >= 1)
        said = "\n".join(m.value for m in at.markdown if "cannot grow with the position" in m.value)
        if holds:
            assert "here every bit stays inside" in said
        else:
            assert f"sticks out by {1 - biggest:.2f}" in said and "stays inside" not in said
        assert "never overwhelms" not in text and "never drowns" not in text


def test_the_counter_opens_on_the_questions_pair_and_plays():
    at = open_page(PAGE)
    assert_ok(at)
    table = next(c for c in charts_of(at) if chart_spec(c)["description"].startswith("The bit table"))
    p = next(x for x in chart_spec(table)["params"] if x["name"] == "bn_p")
    assert p["value"] == chapter.BINARY_NEIGHBOURS[0] and p["bind"]["max"] == 2 ** DEFAULT_BITS - 1
    for c in charts_of(at):
        for layer in chart_spec(c).get("layer", [chart_spec(c)]):
            assert layer["mark"].get("aria") is False  # marks are not read one by one


def test_key_heatmaps_fill_their_container():
    at = open_page(PAGE)
    page_text(assert_ok(at))
    specs = chart_specs(at)
    heat = [s for s in specs if s.get("description", "").lower().startswith(("bits that differ", "how far apart"))]
    assert len(heat) == 2
    for s in specs:
        assert "width" not in s or s["width"] == "container"  # no pixel widths: fits 390 px
        assert "hconcat" not in s and "vconcat" not in s
        assert '"tooltip"' in json.dumps(s)


def test_one_bit_works_with_messages():
    at = open_page(PAGE, query={"bn_bits": "1"}, binary_predict_shown=True)  # the prose is under the answer
    text = page_text(assert_ok(at))
    assert "two codes, 0 and 1" in text
    assert any("words 2 … 5" in w.value and "get no code" in w.value for w in at.warning)
    assert not re.search(r"\b1 bits\b", text)


def test_largest_n_limits_the_heatmaps_and_says_so():
    at = open_page(PAGE, query={"bn_bits": str(MAX_BITS)})
    text = page_text(assert_ok(at))
    assert f"positions 0 … 63 of the {2**MAX_BITS:,} the {MAX_BITS} bits write" in text
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
    at = open_page(PAGE, binary_predict_shown=True)  # the positions count is under the answer
    for v in (1, MAX_BITS, 2, 3):
        at.slider(key="bn_bits").set_value(v).run()
        text = page_text(assert_ok(at))
        assert f"{2**v:,} positions" in text


def test_predict_right_and_wrong():
    a, b = chapter.BINARY_NEIGHBOURS
    right = str(bin(a ^ b).count("1"))
    at = open_page(PAGE)
    at.radio(key="binary_predict_guess").set_value(right).run()
    text = page_text(assert_ok(at))
    assert "**Right.**" in text
    assert f"{a} is {format(a, f'0{DEFAULT_BITS}b')} and {b} is {format(b, f'0{DEFAULT_BITS}b')}" in text
    at.radio(key="bn_smooth_predict_guess").set_value("8").run()
    assert "the bit's own" in page_text(assert_ok(at))
    at.radio(key="binary_predict_guess").set_value("1").run()
    assert "Not quite" in page_text(assert_ok(at))


@pytest.mark.parametrize("d, says", [(5, "is odd"), (2, "single (sin, cos) pair")])
def test_sidebar_d_without_a_ladder_of_pairs_says_so(d, says):
    at = open_page(PAGE, d=d)
    page_text(assert_ok(at))
    assert any(says in i.value for i in at.info)
    assert not at.error and len(charts_of(at)) == 7  # everything but the ladder chart


def test_every_bit_count_is_built_ahead_once_the_page_has_opened():
    """The bits slider's values each need their own chart layout (170 ms of Altair, cold): the page's first run
    starts building every one in the background (frame.warm), so a later press finds it built. In a fresh
    process, where nothing else built them."""
    from conftest import layouts_after_warming

    built = layouts_after_warming(PAGE, "posenc.charts.binary_codes", ["_bit_table_layout"])
    assert {args[0] for args in built["_bit_table_layout"]} == set(range(1, MAX_BITS + 1))

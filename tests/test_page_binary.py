"""AppTest of the binary-codes page: defaults, n = 1 and the largest n, bad links, the in-chart slider."""

from __future__ import annotations

import json

import pytest
from conftest import charts_of, open_page, page_text

from posenc.binary_codes import MAX_BITS, binary_demo, hamming

PAGE = "lessons/binary.py"


def _ok(at) -> str:
    assert not at.exception, [e.value for e in at.exception]
    return page_text(at)


def test_defaults_show_7_and_8():
    at = open_page(PAGE)
    text = _ok(at)
    assert len(charts_of(at)) == 5
    assert "7 (0111) and 8 (1000) = `{} bits differ, |i − j| = 1`".format(hamming(7, 8)) in text
    assert "0 (0000) and 8 (1000) = `{} bit differ, |i − j| = 8`".format(hamming(0, 8)) in text
    assert "4 coordinates cover 16 positions" in text
    assert "positions start at **0**" in text
    res = binary_demo(4)
    assert ", ".join(str(int(f)) for f in res.flips) in text  # 15, 7, 3, 1
    latex = " ".join(e.value for e in at.latex)
    assert r"\operatorname{popcount}" in latex and r"\mathrm{bit}_b(p)" in latex and r"\frac{2}{\pi}" in latex


def test_every_chart_has_tooltips_and_stays_small():
    at = open_page(PAGE)
    _ok(at)
    for c in charts_of(at):
        assert '"tooltip"' in c.proto.spec
        assert sum(len(ds.data.data) for ds in c.proto.datasets) < 150_000


def test_smoothing_slider_lives_inside_the_chart():
    at = open_page(PAGE)
    _ok(at)
    def params(node):
        if isinstance(node, dict):
            yield from node.get("params", [])
            for v in node.values():
                yield from params(v)
        elif isinstance(node, list):
            for v in node:
                yield from params(v)

    found = [p for c in charts_of(at) for p in params(json.loads(c.proto.spec)) if p.get("name") == "smooth"]
    assert found and found[0]["bind"]["input"] == "range"
    assert found[0]["bind"]["max"] == 4  # the bit, three partial sums, the sine


def test_one_bit_works_with_messages():
    at = open_page(PAGE, query={"bn_bits": "1"})
    _ok(at)
    assert any("only two positions" in i.value for i in at.info)
    assert any("words 3 … 5" in w.value for w in at.warning)  # the 5-word sentence does not fit in 2 codes


def test_largest_n_limits_the_heatmaps_and_says_so():
    at = open_page(PAGE, query={"bn_bits": str(MAX_BITS)})
    text = _ok(at)
    assert "Positions 0 … 63 of 0 … 1,023" in text
    assert "The worst neighbours among 0 … 1,023 are 511 and 512: they differ in 10 of 10 bits" in text
    total = sum(len(ds.data.data) for c in charts_of(at) for ds in c.proto.datasets)
    assert total < 300_000


@pytest.mark.parametrize("value", ["0", "11", "abc", "4.5"])
def test_bad_links_are_clamped_with_a_notice(value):
    at = open_page(PAGE, query={"bn_bits": value})
    _ok(at)
    assert at.warning or at.info


def test_slider_extremes_by_hand():
    at = open_page(PAGE)
    for v in (1, MAX_BITS, 2, 3):
        at.slider(key="bn_bits").set_value(v).run()
        _ok(at)


def test_student_text_is_never_markdown():
    at = open_page(PAGE, sentence="the ![x](http://a/b.png) cat")
    _ok(at)
    assert not any("http://a/b.png" in m.value for m in at.markdown)


def test_predict_reveal():
    at = open_page(PAGE)
    at.radio(key="binary_predict_guess").set_value("10").run()
    at.toggle(key="binary_predict_reveal").set_value(True).run()
    _ok(at)
    assert any(s.value == "Right." for s in at.success)

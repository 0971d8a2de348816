"""AppTest of the page "Stretching the context" (lessons/stretch.py): defaults, extremes, bad values."""

from __future__ import annotations

import math

import pytest
from conftest import charts_of, open_page, page_text

from posenc.beyond import alibi_attention, bf16_positions, decay_demo, precision_demo, stretch_demo

PAGE = "lessons/stretch.py"


def _ok(at):
    assert not at.exception, at.exception[0].value if at.exception else ""


def _chart_bytes(at) -> int:
    return sum(len(ds.data.data) for c in charts_of(at) for ds in c.proto.datasets) + \
        sum(len(c.proto.spec) for c in charts_of(at))


@pytest.fixture(scope="module")
def default_page():
    at = open_page(PAGE)
    _ok(at)
    return at


def test_defaults_show_the_chapter_example(default_page):
    at = default_page
    text = page_text(at)
    res = stretch_demo(128, 4096, 16, 8192)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["YaRN low"] == str(res.low)
    assert metrics["YaRN high"] == str(res.high)
    assert metrics["YaRN attention factor"] == f"{res.attention_factor:.4f}"
    assert metrics["logits scaled by"] == f"{res.attention_factor ** 2:.4f}"
    n_slow = int((res.rotations < 1).sum())
    assert f"{n_slow} of {res.pairs} pairs" in text
    assert "{:,}".format(res.L_new) in text
    # every tab is there, with its formulas
    assert [t.label for t in at.tabs] == ["Stretching", "ALiBi", "Long-term decay", "Precision"]
    latex = "\n".join(str(x.value) for x in at.latex)
    for piece in (r"\theta'_i = \theta_i / s", r"s^{\,d/(d-2)}", r"\lfloor c(32)\rfloor", r"0.1\ln s + 1",
                  r"m_h\,(i-j)", r"S_j(\Delta)", r"\mathrm{fl}_{32}", r"\text{drift}(m)"):
        assert piece in latex, piece
    # 4 stretching charts, 2 ALiBi, 2 decay, 3 precision
    assert len(charts_of(at)) == 11
    assert _chart_bytes(at) < 300_000


def test_defaults_alibi_decay_precision_numbers(default_page):
    at = default_page
    text = page_text(at)
    al = alibi_attention("The cat chased the mouse", 64, 0, 8)
    err = float(max(abs(al.copy_log_ratio - al.copy_expected)))
    assert "max over heads |ln(w₂/w₁) − m·(j₂ − j₁)| = `{:.2g}`".format(err) in text
    dec = decay_demo(128, 10000.0, 1.0, 0)
    assert "B(0) = {:g} at d = 128".format(dec.b0) in text
    assert "it goes **up** at {} of the {} steps".format(dec.rises, dec.deltas.size - 1) in text
    pr = precision_demo(128, 10000.0, 0, gap=3)
    assert "{:.3g} rad".format(pr.probe_angle_error) in text
    assert "float32: drift at m = 5,000,000 = `{:.2g}`".format(pr.probe_offset["float32"]) in text
    assert "float64: drift at m = 5,000,000 = `{:.2g}`".format(pr.probe_offset["float64"]) in text
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["257 stored in bf16"] == "256"
    w = bf16_positions(248, 272)
    assert metrics["distinct positions kept, 248 … 272"] == f"{w.distinct} of {w.positions.size}"
    assert metrics["distinct positions kept, 0 … 4,095"] == "{:,} of 4,096".format(bf16_positions(0, 4095).distinct)
    # one predict-then-reveal question for the page
    assert len([r for r in at.radio if r.key == "stretch_predict_guess"]) == 1


def test_predict_reveal(default_page):
    at = default_page
    at.radio(key="stretch_predict_guess").set_value("The fast pairs, which turn many times within L_train")
    at.toggle(key="stretch_predict_reveal").set_value(True)
    at.run()
    _ok(at)
    res = stretch_demo(128, 4096, 16, 8192)
    kept = int((res.ramp == 0).sum())
    assert "Right." in [s.value for s in at.success]
    assert "pairs 0 … {} ({} pairs:".format(kept - 1, kept) in page_text(at)


@pytest.mark.parametrize("query", [
    {"st_s": "1"}, {"st_s": "64"}, {"st_heads": "1"}, {"st_heads": "12"}, {"st_heads": "16"},
    {"st_d": "4"}, {"st_d": "512"}, {"st_L": "16"}, {"st_L": "1000000"}, {"st_base": "10"},
    {"st_base": "10000000"}, {"st_len": "1"}, {"st_len": "100000000"}, {"st_rho": "0.0"},
    {"st_s": "64", "st_L": "1000000", "st_d": "512", "st_len": "100000000", "st_heads": "16"},
    {"st_s": "1", "st_L": "16", "st_d": "4", "st_base": "10", "st_len": "1", "st_heads": "1", "st_rho": "0.0"},
])
def test_extremes(query):
    at = open_page(PAGE, query=query)
    _ok(at)
    assert len(charts_of(at)) == 11
    assert not at.error
    if "st_s" in query:
        s = int(query["st_s"])
        factor = 1.0 if s == 1 else 0.1 * math.log(s) + 1
        assert {m.label: m.value for m in at.metric}["YaRN attention factor"] == f"{factor:.4f}"


def test_heads_twelve_explains_the_split():
    at = open_page(PAGE, query={"st_heads": "12"})
    _ok(at)
    assert "12 is not a power of two: heads 1 … 8 take the 8-head slopes, heads 9 … 12" in page_text(at)


def test_slider_moves():
    at = open_page(PAGE)
    at.slider(key="st_s").set_value(64).run()
    _ok(at)
    at.slider(key="st_heads").set_value(1).run()
    _ok(at)
    at.slider(key="st_rho").set_value(0.0).run()
    _ok(at)
    at.number_input(key="st_d").set_value(6).run()
    _ok(at)


@pytest.mark.parametrize("query", [{"st_d": "7"}, {"st_d": "129"}])
def test_odd_head_dimension_is_a_message(query):
    at = open_page(PAGE, query=query)
    _ok(at)
    assert any("must be even" in e.value for e in at.error)


@pytest.mark.parametrize("query", [{"st_s": "abc"}, {"st_s": "1000"}, {"st_L": "-5"}, {"st_heads": "0"},
                                   {"st_rho": "nan"}, {"st_base": "1e99"}])
def test_bad_url_values_are_clamped_with_a_notice(query):
    at = open_page(PAGE, query=query)
    _ok(at)
    assert at.warning or at.info
    assert len(charts_of(at)) == 11


def test_sidebar_odd_d_and_long_sentence():
    long = " ".join(f"w{i % 40}" for i in range(64))
    at = open_page(PAGE, query={"st_heads": "16"}, sentence=long, d=7)
    _ok(at)
    assert len(charts_of(at)) == 11
    assert _chart_bytes(at) < 600_000
    assert "This sentence is long" in page_text(at)


def test_bad_sentence_keeps_the_other_tabs():
    at = open_page(PAGE, sentence="!!! ???")
    _ok(at)
    assert any("No words found" in e.value for e in at.error)
    assert len(charts_of(at)) == 10  # the ALiBi heatmaps are missing; everything else is there


def test_student_text_never_rendered_as_markdown():
    evil = "the cat ![x](http://a/b.png) $x^2$ the"
    at = open_page(PAGE, sentence=evil)
    _ok(at)
    for md in at.markdown:
        assert "![x]" not in md.value and "http://a/b.png" not in md.value


def test_moving_s_redraws_only_the_charts_that_depend_on_it():
    # The browser redraws a chart whose spec or data changed: after moving s only the wavelength and
    # slow-down charts may change, and only their data (same spec: the browser swaps the data in place).
    def snapshot(at):
        return [(c.proto.spec, [(ds.name, ds.data.data) for ds in c.proto.datasets]) for c in charts_of(at)]

    at = open_page(PAGE)
    _ok(at)
    before = snapshot(at)
    at.slider(key="st_s").set_value(17).run()
    _ok(at)
    after = snapshot(at)
    changed = [i for i, (x, y) in enumerate(zip(before, after)) if x != y]
    assert changed == [1, 2]
    for i in changed:
        assert before[i][0] == after[i][0]  # the spec itself is unchanged
    res = stretch_demo(128, 4096, 17, 8192)
    assert "{:,}".format(res.L_new) in page_text(at)

"""AppTest of the sinusoid page: defaults, the numbers it says (derived by hand here), extremes, bad values,
safety, the asides."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import (assert_ok, chart_bytes, chart_spec, chart_tables, charts_of, layouts,
                      open_page, page_text)

from posenc import chapter
from posenc.charts import spec as house
from posenc.charts.sinusoids import FIRST_GAP
from posenc.core import embed, projections, tokenize
from posenc.encodings import MAX_POSITION
from posenc.sinusoid_demo import COMPARED_SHIFTS

PAGE = "lessons/sinusoids.py"


def pe(p, d, base=10000.0):
    """The paper's formula, written out again for the tests."""
    out = np.empty(d)
    for i in range(d // 2):
        out[2 * i] = math.sin(p / base ** (2 * i / d))
        out[2 * i + 1] = math.cos(p / base ** (2 * i / d))
    return out


def test_defaults():
    at = open_page(PAGE)
    assert_ok(at)
    assert len(charts_of(at)) == 8  # table, waves, vector, float32 (in Deeper), M_k, lines, similarity, catch
    assert not at.error and not at.warning and not at.info  # a clean link shows no notice
    text = page_text(at)
    assert "Does not hold" not in text
    latex = "\n".join(e.value for e in at.latex)
    assert r"\text{base}^{-2i/d}" in latex and "M_k" in latex and r"\cos(\omega_i k)" in latex
    assert chart_bytes(at) < 300_000
    for c in charts_of(at):
        spec = json.loads(c.proto.spec)
        assert "width" not in spec or spec["width"] == "container"  # no pixel widths: nothing spills
        assert "tooltip" in json.dumps(spec)


def test_wavelengths_said_correctly():
    at = open_page(PAGE)
    text = page_text(at)
    d, base = 64, 10000.0
    slowest = 2 * math.pi * base ** ((d - 2) / d)  # λ₃₁ by hand
    limit = 2 * math.pi * base
    assert "{:,.0f}".format(slowest).replace(",", "{,}") in text  # 47{,}117
    assert "{:,.0f}".format(limit).replace(",", "{,}") in text
    assert f"{1 - slowest / limit:.0%} below it" in text  # 25 % under, not "just under"
    assert "just under" not in text
    assert f"{base ** (2 / d):.4f}" in text  # the ratio between neighbouring pairs


def test_indexing_words():
    at = open_page(PAGE)
    text = page_text(at)
    assert "positions 1 … 100" in text  # the table starts at 1
    assert "PE(0) = (0, 1, 0, 1, …)" in text  # the formula's position 0, said once, with no word on it
    assert "Positions 0 … " not in text
    assert "count from 0" in text  # dimensions and pairs are 0-based, and the page says so


def test_predict_explains_at_its_own_settings():
    at = open_page(PAGE)
    right = f"{10000.0 ** (2 / chapter.CONTENT_D):.4f}"
    at.radio(key="sn_predict_guess").set_value(right).run()
    assert_ok(at)
    text = page_text(at)
    assert "**Right.**" in text and f"{10000.0:,.0f}^(2/{chapter.CONTENT_D})" in text
    at = open_page(PAGE, d=16)  # the sidebar's d does not change the question's answer
    at.radio(key="sn_predict_guess").set_value(right).run()
    assert "**Right.**" in page_text(at)


def test_five_million_and_ten_million():
    at = open_page(PAGE)
    at.button(key="sn_pos_big").click().run()
    assert_ok(at)
    assert at.number_input(key="sn_pos").value == chapter.HUGE_POSITION
    p = chapter.HUGE_POSITION
    w32 = (10000.0 ** (-np.arange(0, 64, 2) / 64)).astype(np.float32)
    a32 = np.float32(p) * w32
    diff = max(np.max(np.abs(np.sin(a32).astype(np.float64) - pe(p, 64)[0::2])),
               np.max(np.abs(np.cos(a32).astype(np.float64) - pe(p, 64)[1::2])))
    text = page_text(at).replace("**", "")
    assert diff > 1e-3  # float32 breaks there
    assert f"Does not hold — float32 agrees with float64 at p = {p:,}" in text
    at.number_input(key="sn_pos").set_value(MAX_POSITION).run()
    assert_ok(at)
    assert f"PE({MAX_POSITION:,})" in page_text(at)


def test_the_catch_scores_by_hand():
    at = open_page(PAGE)
    assert_ok(at)
    toks = tokenize(chapter.SENTENCE)
    X = embed(toks, 64, 0)
    Wq, Wk, _ = projections(64, 0)
    qi, ki = toks.index(chapter.QUERY_WORD), toks.index(chapter.KEY_WORD)
    scores = [float(((X[qi] + pe(m, 64)) @ Wq) @ ((X[ki] + pe(n, 64)) @ Wk)) / 8 for m, n in chapter.PAIRS]
    frame_ = next(df.value for df in at.dataframe if "query at m" in df.value.columns)
    assert np.allclose(frame_["score"].to_numpy(), scores, atol=1e-9)
    assert frame_["query at m"].tolist() == [m for m, _ in chapter.PAIRS]
    assert f"{max(scores) - min(scores):.2g}" in page_text(at)


@pytest.mark.parametrize("query, d", [
    ({"sn_len": "2000", "sn_k": "100000", "sn_base": "1000000", "sn_pos": "10000000"}, 512),
    ({"sn_len": "2", "sn_k": "0", "sn_base": "2", "sn_pos": "0"}, 2),
])
def test_extremes(query, d):
    at = open_page(PAGE, query=query, d=d)
    assert_ok(at)
    assert not at.error
    assert len(charts_of(at)) == 8
    assert chart_bytes(at) < 600_000


def test_odd_sidebar_d_gets_a_message():
    at = open_page(PAGE, d=63)
    assert_ok(at)
    assert any("d must be even" in e.value for e in at.error)


@pytest.mark.parametrize("query, notice", [
    ({"sn_pos": "abc"}, f"not usable; using {5}"), ({"sn_pos": "-4"}, "outside its range; using 0"),
    ({"sn_pos": "1e12"}, f"outside its range; using {MAX_POSITION}"), ({"sn_k": "2.5"}, "not usable; using 3"),
    ({"sn_len": "0"}, "outside its range; using 2"), ({"sn_base": "nan"}, "not usable; using 10000"),
    ({"sn_qw": "99"}, "outside its range; using 5"), ({"sn_deep_float32": "maybe"}, "not usable; using False"),
])
def test_bad_url_values(query, notice):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    notices = [n.value for n in [*at.warning, *at.info]]
    assert any(notice in n for n in notices), notices


def test_word_choice_survives_a_shorter_sentence():
    at = open_page(PAGE)
    at.number_input(key="sn_qw").set_value(5).run()
    assert_ok(at)
    at.text_input(key="sentence").input("two words").run()
    assert_ok(at)
    assert at.number_input(key="sn_qw").value == 2
    assert "query word: words" in page_text(at)


def test_student_text_never_markdown():
    evil = "![x](http://a/b.png) $x^2$ <b>cat</b> chased"
    at = open_page(PAGE, sentence=evil)
    assert_ok(at)
    for m in at.markdown:
        assert "http://a/b.png" not in m.value and "![x]" not in m.value


def test_one_word_and_empty_sentences():
    at = open_page(PAGE, sentence="hello")
    assert_ok(at)
    assert "query word: hello" in page_text(at)
    at = open_page(PAGE, sentence="   ")
    assert_ok(at)
    assert at.error


def test_asides_are_in_deeper():
    at = open_page(PAGE)
    assert_ok(at)
    labels = [e.label for e in at.expander]
    assert "Deeper: float32 at huge positions" in labels
    assert "Deeper: interleaved or [sin | cos] halves?" in labels
    text = page_text(at).replace("**", "")
    assert "Holds — the halves layout is the interleaved table with its columns reordered" in text


def test_gap_slider_lives_inside_the_similarity_chart():
    at = open_page(PAGE, query={"sn_k": "5"})
    assert_ok(at)
    specs = [json.loads(c.proto.spec) for c in charts_of(at)]
    sim = next(s for s in specs if s.get("description", "").startswith("Similarity"))
    gap = next(p for p in sim["params"] if p["name"] == "gap")
    assert gap["value"] == FIRST_GAP and gap["bind"]["input"] == "range"  # the chapter's gap, whatever k
    assert "datum['gap q − p'] === gap" in json.dumps(sim, ensure_ascii=False)
    assert f"it starts at the chapter's k = {FIRST_GAP}" in page_text(at)


@pytest.mark.parametrize("control,values", [("sn_k", ("4", "250", "100000")), ("sn_pos", ("6", "123456")),
                                            ("sn_len", ("37", "1000"))])
def test_a_position_shift_or_length_changes_data_not_layouts(control, values):
    """k, p and the positions shown take thousands of values: each is data (titles included), so a press reuses
    every chart's layout and the browser swaps the numbers in."""
    base = layouts(open_page(PAGE))
    for v in values:
        at = open_page(PAGE, query={control: v})
        assert_ok(at)
        assert layouts(at) == base, (control, v)


def test_your_k_is_named_by_the_data_first_in_the_focus_colour():
    at = open_page(PAGE, query={"sn_k": "7"})
    chart = next(c for c in charts_of(at) if chart_spec(c)["description"].startswith("The dot product"))
    rows = chart_tables(chart)["dots"].to_pylist()
    names = {r["slot"]: r["shift"] for r in rows}
    others = [f"k = {k}" for k in COMPARED_SHIFTS]
    assert names == dict(enumerate(["k = 7 (yours)", *others]))  # yours first, then the others in order
    colour = chart_spec(chart)["encoding"]["color"]
    assert colour["scale"]["range"][0] == house.FOCUS and colour["sort"] == {"field": "slot", "op": "min"}
    dash = chart_spec(chart)["encoding"]["strokeDash"]
    assert dash["sort"] == colour["sort"]  # and a dash of its own: never colour alone
    shared = COMPARED_SHIFTS[1]
    at = open_page(PAGE, query={"sn_k": str(shared)})  # a k the chart draws anyway: one line, still yours
    chart = next(c for c in charts_of(at) if chart_spec(c)["description"].startswith("The dot product"))
    names = {r["slot"]: r["shift"] for r in chart_tables(chart)["dots"].to_pylist()}
    assert names == dict(enumerate([f"k = {shared} (yours)", *(x for x in others if x != f"k = {shared}")]))


def test_the_titles_that_name_p_and_k_read_them_from_the_data():
    at = open_page(PAGE, query={"sn_pos": "1234", "sn_k": "42"})
    assert_ok(at)
    for start, dataset, text in [("The vector of position", "vector", "PE(1,234): "),
                                 ("How far a float32", "diff", "at p = 1,234,"),
                                 ("The shift matrix", "M", "M_k for k = 42:")]:
        chart = next(c for c in charts_of(at) if chart_spec(c)["description"].startswith(start))
        title = chart_spec(chart)["title"]["text"]
        assert f'data("{dataset}")' in title["expr"], start
        assert text in chart_tables(chart)[dataset].column("title")[0].as_py(), start

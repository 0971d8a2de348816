"""AppTest of the RoPE page: the skeleton, the in-chart scheme toggle, the numbers on the page, presets,
extremes, bad values, safety."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import assert_ok, chart_bytes, chart_specs, chart_tables, charts_of, open_page, page_text

from posenc import chapter
from posenc.charts.spec import nice_bound
from posenc.core import embed, projections, tokenize
from posenc.encodings import MAX_POSITION, rope
from posenc.rope_demo import WINDOW, length_demo, rope_demo, score_window

PAGE = "lessons/rope.py"
SENT = tokenize(chapter.SENTENCE)
QI, KI = chapter.query_index(SENT), chapter.key_index(SENT)


def score_table(at):
    return next(df.value for df in at.dataframe if "n − m" in df.value.columns)


def test_skeleton_and_defaults():
    at = open_page(PAGE)
    assert_ok(at)
    assert not at.error
    assert at.title[0].value == "RoPE"
    heads = [h.value for h in at.header]
    assert heads[:3] == ["The score depends on the gap alone", "Each pair turns on its own circle",
                         "A rotation keeps every length"]
    assert len(charts_of(at)) == 3
    text = page_text(at)
    assert f"query word: {chapter.QUERY_WORD}" in text and f"key word: {chapter.KEY_WORD}" in text
    assert "Holds" in text and "Does not hold" not in text
    # the chapter's pairs, scored by hand: (q turned by m)·(k turned by n)/√d
    X = embed(SENT, 64, 0)
    Wq, Wk, _ = projections(64, 0)
    q, k = X[QI] @ Wq, X[KI] @ Wk
    by_hand = [float(rope(q, [m])[0] @ rope(k, [n])[0]) / 8.0 for m, n in chapter.PAIRS]
    df = score_table(at)
    assert [tuple(p) for p in zip(df["m"], df["n"])] == list(chapter.PAIRS)
    assert np.allclose(df["score"].to_numpy(), by_hand, atol=1e-12)
    latex = "\n".join(e.value for e in at.latex)
    assert "R_{n-m}" in latex and r"R_m^\top" in latex
    assert chart_bytes(at) < 300_000


def test_key_chart_sends_both_matrices_and_picks_in_the_chart():
    at = open_page(PAGE)
    assert_ok(at)
    chart = charts_of(at)[0]
    spec = json.loads(chart.proto.spec)
    [param] = spec["params"]
    assert param["name"] == "scheme" and param["bind"]["input"] == "radio"
    assert param["bind"]["options"] == ["RoPE", "adding sinusoids"] and param["value"] == "RoPE"
    assert "width" not in spec  # fills its column
    table = chart_tables(chart)["main"].to_pydict()
    assert len(table["score"]) == 2 * WINDOW * WINDOW
    # the RoPE rows are constant along every diagonal; the additive rows are not
    w = score_window(SENT, QI, KI, 64, 0, 1)
    rows = {(s, m, n): v for s, m, n, v in zip(table["scheme"], table["m"], table["n"], table["score"])}
    assert rows[("RoPE", 1, 4)] == pytest.approx(rows[("RoPE", 30, 33)], abs=1e-12)
    assert rows[("adding sinusoids", 5, 9)] == pytest.approx(w.additive_scores[4, 8])
    assert abs(rows[("adding sinusoids", 1, 4)] - rows[("adding sinusoids", 30, 33)]) > 1e-6


def test_predict_explanation_is_computed_at_its_own_settings():
    # the student's sentence is different: the explanation still speaks of the chapter's sentence
    at = open_page(PAGE, sentence="a b c d e f")
    assert_ok(at)
    at.radio(key="rp_predict_guess").set_value("Each diagonal (one gap n − m)").run()
    assert_ok(at)
    text = page_text(at)
    assert "Right." in text
    # row spread of the chapter's 40 × 40 window, by hand
    X = embed(SENT, 64, 0)
    Wq, Wk, _ = projections(64, 0)
    pos = np.arange(1, WINDOW + 1)
    Q = rope(np.tile(X[QI] @ Wq, (WINDOW, 1)), pos)
    K = rope(np.tile(X[KI] @ Wk, (WINDOW, 1)), pos)
    S = Q @ K.T / 8.0
    assert f"up to {np.ptp(S, axis=1).max():.2f}" in text


def test_lengths_section_has_live_numbers_and_links_back():
    at = open_page(PAGE)
    assert_ok(at)
    L = length_demo(SENT, QI, 64, 0, chapter.RAW_POSITION)
    text = page_text(at)
    x_norm = float(np.linalg.norm(embed(SENT, 64, 0)[QI]))
    assert f"{np.hypot(x_norm, chapter.RAW_POSITION):,.2f}" in text  # ‖[x ; 500]‖, by hand
    assert f"{L.q_norm:.6f}" in text
    assert f"coordinate is {chapter.RAW_POSITION:,}" in text
    links = {p.proto.page for p in at.get("page_link")}
    assert "fixes" in links
    at.number_input(key="rp_p").set_value(MAX_POSITION).run()
    assert_ok(at)
    assert f"{np.hypot(x_norm, MAX_POSITION):,.2f}" in page_text(at)
    assert "Does not hold" not in page_text(at)


def test_bridge_does_not_promise_any_length():
    at = open_page(PAGE)
    text = page_text(at)
    assert "relative, for any length" not in text  # the old bridge's promise, which the later pages break
    assert "L_train" in text


def test_presets_and_far_positions():
    at = open_page(PAGE)
    pm, pn = chapter.PAIRS[-1]
    at.button(key=f"rp_preset_{pm}_{pn}").click().run()
    assert_ok(at)
    assert (at.number_input(key="rp_m").value, at.number_input(key="rp_n").value) == (pm, pn)
    assert len(score_table(at)) == len(chapter.PAIRS)  # the chosen pair is one of the chapter's
    at.number_input(key="rp_m").set_value(MAX_POSITION).run()
    at.number_input(key="rp_n").set_value(MAX_POSITION - 3).run()
    assert_ok(at)
    df = score_table(at)
    assert df["m"].tolist()[-1] == MAX_POSITION
    assert np.ptp(df["score"].to_numpy()) < 1e-6  # same gap, same score, ten million positions later
    assert "Does not hold" not in page_text(at)


def test_circle_chart_follows_the_words():
    at = open_page(PAGE)
    at.number_input(key="rp_qw").set_value(5).run()
    assert_ok(at)
    assert "query word: mouse" in page_text(at)
    circle = next(c for c in charts_of(at) if "pair" in {p["name"] for p in json.loads(c.proto.spec).get("params", [])})
    pairs = chart_tables(circle)["pairs"].to_pydict()
    r = rope_demo(SENT, 4, KI, 64, 0)
    qx = [x for v, x in zip(pairs["vector"], pairs["x"]) if v == "q"]
    assert np.allclose(qx, r.q_turned[:, 0])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bounds_are_nice_symmetric_and_hold_every_value(seed):
    """The window's colour bound and the circles' radius are rounded up to the ladder (a new seed mostly reuses the
    layouts): the colours stay symmetric about 0 over every score, and every pair's circle fits inside ±R."""
    at = assert_ok(open_page(PAGE, seed=seed))
    window, circles = charts_of(at)[:2]
    low, high = json.loads(window.proto.spec)["encoding"]["color"]["scale"]["domain"]
    scores = np.abs(chart_tables(window)["main"].column("score").to_numpy())
    assert low == -high and nice_bound(high) == high and high >= scores.max()
    low, R = json.loads(circles.proto.spec)["layer"][0]["encoding"]["y"]["scale"]["domain"]
    radii = chart_tables(circles)["radii"].column("radius").to_numpy()
    assert low == -R and nice_bound(R) == R and R >= radii.max()


@pytest.mark.parametrize("query", [
    {"rp_m": str(MAX_POSITION), "rp_n": "0", "rp_start": str(MAX_POSITION - WINDOW + 1), "rp_p": str(MAX_POSITION)},
    {"rp_m": "0", "rp_n": str(MAX_POSITION), "rp_start": "0", "rp_p": "1"},
])
def test_extremes(query):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert not at.error
    assert len(charts_of(at)) == 3
    assert "Does not hold" not in page_text(at)


@pytest.mark.parametrize("state", [{"d": 2}, {"d": 512}])
def test_sidebar_widths(state):
    at = open_page(PAGE, **state)
    assert_ok(at)
    assert not at.error
    assert len(charts_of(at)) == 3


def test_odd_d_gets_a_message():
    at = open_page(PAGE, d=63)
    assert_ok(at)
    assert any("d must be even" in e.value for e in at.error)
    at = open_page(PAGE, query={"d": "65"})
    assert_ok(at)
    assert any("d must be even" in e.value for e in at.error)


@pytest.mark.parametrize("query", [{"rp_m": "x"}, {"rp_n": "-1"}, {"rp_m": "1e9"}, {"rp_start": "99999999"},
                                   {"rp_p": "0"}, {"rp_kw": "0"}])
def test_bad_url_values(query):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert at.warning or at.info


def test_word_choice_survives_a_shorter_sentence():
    at = open_page(PAGE)
    at.number_input(key="rp_kw").set_value(5).run()
    at.text_input(key="sentence").input("just three words").run()
    assert_ok(at)
    assert at.number_input(key="rp_kw").value == 3
    assert "key word: words" in page_text(at)


def test_student_text_never_markdown():
    evil = "![x](http://a/b.png) $x^2$ <b>cat</b> chased"
    at = open_page(PAGE, sentence=evil)
    assert_ok(at)
    for m in at.markdown:
        assert "http://a/b.png" not in m.value and "![x]" not in m.value


def test_every_chart_has_tooltips_a_description_and_no_pixel_width():
    at = open_page(PAGE)
    for s in chart_specs(at):
        assert "tooltip" in json.dumps(s)
        assert s.get("description")
        assert "width" not in s

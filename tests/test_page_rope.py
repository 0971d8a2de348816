"""AppTest of the RoPE page on the question-first skeleton: the lead asks, the Predicts ask at the state their
charts open in, the answers (after the charts) carry live numbers, every verdict sits in Checks; the word picks
feed every section from page level; the circles turn in the browser; extremes, bad values, safety."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import (
    assert_ok,
    assert_same_wherever_it_opens,
    chart_bytes,
    chart_readings,
    chart_spec,
    chart_specs,
    chart_tables,
    charts_of,
    checks_block,
    main_path,
    marks_of,
    open_page,
    own_params,
    page_text,
    predict_radios,
    verdict,
    verdicts,
)
from posenc import chapter
from posenc.charts import rope as rc
from posenc.charts.spec import nice_bound, walk_dicts
from posenc.core import embed, projections, signed, tokenize
from posenc.encodings import MAX_POSITION, rope
from posenc.rope_demo import WINDOW, length_demo, rope_demo, score_window

PAGE = "lessons/rope.py"
SENT = tokenize(chapter.SENTENCE)
QI, KI = chapter.query_index(SENT), chapter.key_index(SENT)


def circle_chart(at):
    return next(c for c in charts_of(at) if rc.KEY_POSITION in {p["name"] for p in json.loads(c.proto.spec)["params"]})


def test_skeleton_question_first():
    at = assert_ok(open_page(PAGE))
    assert not at.error
    assert at.title[0].value == "RoPE"
    lead = at.markdown[0].value
    assert lead.endswith("?") and "gap alone" not in lead  # the lead asks; the answer comes after the chart
    assert [h.value for h in at.header] == ["Each pair turns on its own circle", "A rotation keeps every length"]
    assert [r.key for r in predict_radios(at)] == ["rp_predict_guess", "rp_predict_play_guess",
                                                   "rp_length_predict_guess"]
    assert len(charts_of(at)) == 3
    text = page_text(at)
    assert f"query word: {chapter.QUERY_WORD}" in text and f"key word: {chapter.KEY_WORD}" in text
    # no answer before the student commits; every verdict in the one Checks block, all holding
    assert "Right." not in text and "depends on the gap n − m alone" not in text
    assert checks_block(at) is not None
    on_path = [e.value for e in main_path(at) if hasattr(e, "value") and isinstance(e.value, str)]
    assert not any(v.startswith(":material/check_circle: **Holds**") for v in on_path)
    assert "7 of 7 checks hold" in text
    assert all(h for h, _, _ in verdicts(at))
    assert chart_bytes(at) < 300_000


def test_key_answer_is_computed_and_shown_after_a_pick():
    at = assert_ok(open_page(PAGE))
    at.radio(key="rp_predict_guess").set_value("Each diagonal (one gap n − m)").run()
    assert_ok(at)
    text = page_text(at)
    assert "Right." in text
    w = score_window(SENT, QI, KI, 64, 0, 1)
    X = embed(SENT, 64, 0)  # the row spread of the 40 × 40 window, by hand
    Wq, Wk, _ = projections(64, 0)
    pos = np.arange(1, WINDOW + 1)
    S = rope(np.tile(X[QI] @ Wq, (WINDOW, 1)), pos) @ rope(np.tile(X[KI] @ Wk, (WINDOW, 1)), pos).T / 8.0
    assert f"along a row it changes by up to {np.ptp(S, axis=1).max():.2f}" in text
    assert f"up to {w.additive_diag_spread:.2f} along a diagonal" in text
    assert "depends on the gap n − m alone" in text
    holds, measured = verdict(at, "the gap n − m alone sets it")
    assert holds and f"{w.rope_diag_spread:.1e}" in measured


def test_key_chart_sends_both_matrices_and_picks_in_the_chart():
    at = assert_ok(open_page(PAGE))
    spec = json.loads(charts_of(at)[0].proto.spec)
    [param] = own_params(spec)
    assert param["name"] == rc.SCHEME and param["bind"]["input"] == "radio" and param["value"] == "RoPE"
    assert "width" not in spec and spec["mark"]["aria"] is False
    table = chart_tables(charts_of(at)[0])["main"].to_pydict()
    assert len(table["m"]) == WINDOW * WINDOW and set(rc.SCHEMES) <= set(table)  # a row a cell, both scores on it
    w = score_window(SENT, QI, KI, 64, 0, 1)
    rows = {(s, m, n): v for s in rc.SCHEMES for m, n, v in zip(table["m"], table["n"], table[s])}
    assert rows[("RoPE", 1, 4)] == pytest.approx(rows[("RoPE", 30, 33)], abs=1e-12)
    assert rows[("adding sinusoids", 5, 9)] == pytest.approx(w.additive_scores[4, 8])


def test_play_answer_quotes_the_chapters_pairs():
    at = assert_ok(open_page(PAGE))
    question = at.radio(key="rp_predict_play_guess")
    (m0, n0) = chapter.PAIRS[0]
    assert f"sweeps from {n0} to {rc.N_MAX:,}" in question.label and f"stays {n0 - m0}" in question.label
    # the chart opens where the question says: n = 7, gap −3
    spec = json.loads(circle_chart(at).proto.spec)
    values = {p["name"]: p["value"] for p in own_params(spec) if "bind" in p}  # where its inputs open
    r = rope_demo(SENT, QI, KI, 64, 0)
    assert values == {rc.KEY_POSITION: n0, rc.GAP: n0 - m0, rc.PAIR: rc.PAIR_OPEN}
    pair = rc.pair_index(rc.PAIR_OPEN, 32)
    opens = f"the chart opens on pair {pair} (θ = {r.thetas[pair]:.2g})"
    assert "the angle between them" not in page_text(at) and opens not in page_text(at)  # waits for the pick
    question.set_value("It stays the same").run()
    text = page_text(assert_ok(at))
    assert opens in text
    r = rope_demo(SENT, QI, KI, 64, 0)
    assert "Right." in text and "the angle between them" in text
    assert all(f"{s:.6f}" in text for s in r.pair_scores)
    assert verdict(at, "get one score")[0]


def test_word_picks_feed_every_section_from_page_level():
    at = assert_ok(open_page(PAGE, rp_length_predict_shown=True))  # the lengths answer shown
    at.number_input(key="rp_qw").set_value(5).run()
    assert_ok(at)
    assert "query word: mouse" in page_text(at)
    r = rope_demo(SENT, 4, KI, 64, 0)
    pairs = chart_tables(circle_chart(at))["pairs"].to_pydict()
    assert np.allclose(pairs["qa"], r.q_pairs[:, 0]) and np.allclose(pairs["kb"], r.k_pairs[:, 1])
    w = score_window(SENT, 4, KI, 64, 0, 1)
    window = chart_tables(charts_of(at)[0])["main"].to_pydict()
    assert window["RoPE"] == pytest.approx(w.rope_scores.ravel().tolist())
    L = length_demo(SENT, 4, 64, 0, chapter.RAW_POSITION)
    assert f"‖q‖ stays {L.q_norm:.3f}" in page_text(at)


def test_shared_control_has_no_session_flag_or_rerun():
    source = (Path(__file__).parent.parent / PAGE).read_text(encoding="utf-8")
    assert "st.rerun" not in source and "session_state" not in source


def test_lengths_section_has_live_numbers_and_links_back():
    at = assert_ok(open_page(PAGE, rp_length_predict_shown=True))  # the answer and its prose shown
    L = length_demo(SENT, QI, 64, 0, chapter.RAW_POSITION)
    x_norm = float(np.linalg.norm(embed(SENT, 64, 0)[QI]))
    text = page_text(at)
    assert f"{chapter.RAW_POSITION / x_norm:,.1f} times" in text and f"‖q‖ stays {L.q_norm:.3f}" in text
    assert "fixes" in {p.proto.page for p in at.get("page_link")}
    top = rc.LENGTH_MS[1]  # m moves in the chart: a link opens it at the slider's end
    at = assert_ok(open_page(PAGE, query={rc.LENGTH_M: str(top)}, rp_length_predict_shown=True))
    assert f"{top / x_norm:,.1f} times" in page_text(at)
    assert all(h for h, _, _ in verdicts(at))


def test_bridge_does_not_promise_any_length():
    text = page_text(open_page(PAGE))
    assert "relative, for any length" not in text and "L_train" in text


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bounds_are_nice_symmetric_and_hold_every_value(seed):
    at = assert_ok(open_page(PAGE, seed=seed))
    window, circles = charts_of(at)[:2]
    low, high = json.loads(window.proto.spec)["encoding"]["color"]["scale"]["domain"]
    table = chart_tables(window)["main"]
    scores = np.abs(np.concatenate([table.column(s).to_numpy() for s in rc.SCHEMES]))
    assert low == -high and nice_bound(high) == high and high >= scores.max()
    low, high = json.loads(circles.proto.spec)["layer"][0]["encoding"]["y"]["scale"]["domain"]
    assert (low, high) == ({"expr": f"-{rc.BOUND}"}, {"expr": rc.BOUND})  # ±R, R the figure's BOUND param
    [R] = [p["value"] for p in walk_dicts(json.loads(circles.proto.spec)) if p.get("name") == rc.BOUND
           and "value" in p]
    t = chart_tables(circles)["pairs"]
    radii = np.concatenate([t.column("qlen").to_numpy(), t.column("klen").to_numpy()])
    assert R == rc.circle_reach(radii.max()) and nice_bound(R) == R and R >= radii.max()  # every pair fits


@pytest.mark.parametrize("query", [{"rp_start": str(MAX_POSITION - WINDOW + 1), rc.LENGTH_M: str(rc.LENGTH_MS[1])},
                                   {"rp_start": "0", rc.LENGTH_M: str(rc.LENGTH_MS[0])}])
def test_extremes(query):
    at = assert_ok(open_page(PAGE, query=query))
    assert not at.error and len(charts_of(at)) == 3
    assert all(h for h, _, _ in verdicts(at))


@pytest.mark.parametrize("state", [{"d": 2}, {"d": 4}, {"d": 512}, {"sentence": "alone"}])
def test_sidebar_extremes_read_true(state):
    at = assert_ok(open_page(PAGE, **state))
    assert not at.error and len(charts_of(at)) == 3
    for key in ("rp_predict", "rp_predict_play"):
        at.radio(key=f"{key}_guess").set_value(at.radio(key=f"{key}_guess").options[0]).run()
    text = page_text(assert_ok(at))
    assert all(h for h, _, _ in verdicts(at))
    if state.get("d") == 2:
        assert "the one pair turns" in text and "pair 0 turns fastest" not in text
        assert "at d = 2 there is one pair" in text
    else:
        assert "pair 0 turns fastest" in text


def test_odd_d_gets_a_message():
    at = assert_ok(open_page(PAGE, d=63))
    assert any("d must be even" in e.value for e in at.error)
    at = assert_ok(open_page(PAGE, query={"d": "65"}))
    assert any("d must be even" in e.value for e in at.error)


@pytest.mark.parametrize("query", [{"rp_start": "99999999"}, {"rp_start": "x"}, {"rp_p": "0"}, {"rp_p": "10001"},
                                   {"rp_p": "abc"}, {"rp_kw": "0"}])
def test_bad_url_values(query):
    at = assert_ok(open_page(PAGE, query=query))
    assert at.warning or at.info


def test_word_choice_survives_a_shorter_sentence():
    at = open_page(PAGE)
    at.number_input(key="rp_kw").set_value(5).run()
    at.text_input(key="sentence").input("just three words").run()
    assert_ok(at)
    assert at.number_input(key="rp_kw").value == 3
    assert "key word: words" in page_text(at)


def test_every_chart_has_tooltips_a_description_and_no_pixel_width():
    for s in chart_specs(open_page(PAGE)):
        assert "tooltip" in json.dumps(s) and s.get("description") and "width" not in s
        assert marks_of(s) and all(m["aria"] is False for m in marks_of(s))


def test_each_chart_is_named_in_words_and_reads_its_numbers_after():
    """A chart's name (its description) holds no number of the data, so a press keeps it (and the browser keeps
    the chart); this setting's numbers come right after it, in the reading, computed here from posenc."""
    at = assert_ok(open_page(PAGE))
    names = [chart_spec(c)["description"] for c in charts_of(at)]
    window, circles, lengths = chart_readings(at)
    w = score_window(SENT, QI, KI, 64, 0, 1)
    assert f"positions 1 to {WINDOW}" in window and f"at most {w.rope_diag_spread:.1e} along any diagonal" in window
    assert f"up to {w.rope_row_spread:.2f} along a row" in window
    (m0, n0) = chapter.PAIRS[0]
    r = rope_demo(SENT, QI, KI, 64, 0, m0, n0)
    assert f"n = {n0:,}" in circles and f"m = {m0:,}" in circles and f"gap {signed(n0 - m0)}" in circles
    assert f"the score is {signed(r.score, '.6f')}" in circles
    L = length_demo(SENT, QI, 64, 0, chapter.RAW_POSITION)
    assert f"m = {chapter.RAW_POSITION:,}" in lengths and f"{L.q_norm:.3f} long" in lengths
    assert f"grown to {L.raw_norm:,.1f}" in lengths
    at = assert_ok(open_page(PAGE, query={rc.LENGTH_M: "9999"}))  # m opens where a link says (in the chart)
    at.number_input(key="rp_start").set_value(1_000_000).run()
    assert_ok(at)
    assert [chart_spec(c)["description"] for c in charts_of(at)] == names
    window, _, lengths = chart_readings(at)
    assert f"positions 1,000,000 to {1_000_000 + WINDOW - 1:,}" in window and "opens at m = 9,999:" in lengths


def test_a_link_opens_the_circles_where_it_says_and_the_page_speaks_of_that_setting():
    """``?rp_n=…&rp_gap=…&rp_pair=…`` opens the circle chart there (frame.chart seeds its sliders); the question,
    the reading and the checks speak of that opening, computed here from posenc."""
    n, gap, fraction = 250, -7, 51 / 255  # on the pair slider's steps (1/255)
    at = assert_ok(open_page(PAGE, query={rc.KEY_POSITION: str(n), rc.GAP: str(gap), rc.PAIR: "0.2"}))
    assert not at.warning
    spec = json.loads(circle_chart(at).proto.spec)
    values = {p["name"]: p["value"] for p in own_params(spec) if "bind" in p}
    assert values[rc.KEY_POSITION] == n and values[rc.GAP] == gap and values[rc.PAIR] == pytest.approx(fraction)
    r = rope_demo(SENT, QI, KI, 64, 0, n - gap, n)
    pair = rc.pair_index(fraction, 32)
    reading = chart_readings(at)[1]
    assert f"opens on pair {pair}," in reading and f"n = {n:,}" in reading and f"m = {n - gap:,}" in reading
    assert f"gap {signed(gap)}" in reading and f"the score is {signed(r.score, '.6f')}" in reading
    question = at.radio(key="rp_predict_play_guess")
    assert f"sweeps from {n} to {rc.N_MAX:,}" in question.label and f"stays {gap}" in question.label
    assert verdict(at, f"at m = {n - gap:,}, n = {n:,} the score equals one turn by the gap")[0]
    question.set_value("It stays the same").run()
    text = page_text(assert_ok(at))
    slow = rc.pair_index(rc.PAIR_OPEN, 32)
    assert pair < slow and f"the chart opens on pair {pair} (θ = {r.thetas[pair]:.2g})" in text
    assert f"pick pair {slow}" in text and "slow enough to follow while playing" not in text


def test_a_link_at_the_sliders_end_plays_from_the_start():
    at = assert_ok(open_page(PAGE, query={rc.KEY_POSITION: str(rc.N_MAX), rc.GAP: str(rc.GAP_MIN), rc.PAIR: "1"}))
    assert f"sweeps from 0 to {rc.N_MAX:,}" in at.radio(key="rp_predict_play_guess").label  # play starts over
    r = rope_demo(SENT, QI, KI, 64, 0, rc.N_MAX - rc.GAP_MIN, rc.N_MAX)
    reading = chart_readings(at)[1]
    assert "opens on pair 31," in reading and f"the score is {signed(r.score, '.6f')}" in reading
    assert all(h for h, _, _ in verdicts(at))


@pytest.mark.parametrize("query", [{rc.KEY_POSITION: "x"}, {rc.GAP: "5"}, {rc.PAIR: "2"},
                                   {rc.KEY_POSITION: str(rc.N_MAX + 1), rc.GAP: "-3.5e9", rc.PAIR: "nan"}])
def test_a_bad_link_value_opens_the_circles_at_the_chapters_setting(query):
    at = assert_ok(open_page(PAGE, query=query))
    assert at.warning  # frame.chart's notice: the link's value was not usable
    (m0, n0) = chapter.PAIRS[0]
    spec = json.loads(circle_chart(at).proto.spec)
    values = {p["name"]: p["value"] for p in own_params(spec) if "bind" in p}
    assert values == {rc.KEY_POSITION: n0, rc.GAP: n0 - m0, rc.PAIR: rc.PAIR_OPEN}
    r = rope_demo(SENT, QI, KI, 64, 0, m0, n0)
    reading = chart_readings(at)[1]
    assert f"opens on pair {rc.pair_index(rc.PAIR_OPEN, 32)}," in reading
    assert f"n = {n0:,}" in reading and f"m = {m0:,}" in reading and f"the score is {signed(r.score, '.6f')}" in reading
    assert f"sweeps from {n0} to" in at.radio(key="rp_predict_play_guess").label


# ---------------------------------------------------------------- lengths: the query word's position m in the chart
def lengths_chart(at):
    return next(c for c in charts_of(at) if rc.LENGTH_M in {p["name"] for p in own_params(chart_spec(c))})


def test_the_lengths_chart_moves_m_inside_it_not_a_streamlit_control():
    """m only evaluates a closed form (q's pairs turned by m·θ_i): a slider inside the chart, opening at the
    chapter's 500, with no Streamlit control (and no rerun) for it; the chart keeps a description."""
    at = assert_ok(open_page(PAGE))
    assert not [w for w in at.number_input if w.key == rc.LENGTH_M]
    assert "Position m of the query word" not in [w.label for w in at.number_input]
    spec = chart_spec(lengths_chart(at))
    [param] = [p for p in own_params(spec) if "bind" in p]
    assert param["name"] == rc.LENGTH_M and param["value"] == chapter.RAW_POSITION
    assert param["bind"]["input"] == "range" and (param["bind"]["min"], param["bind"]["max"]) == rc.LENGTH_MS
    assert param["bind"]["step"] == 1 and param["bind"]["name"].startswith("position m")
    assert rc.LENGTH_MS[0] <= chapter.RAW_POSITION and rc.N_MAX <= rc.LENGTH_MS[1] <= MAX_POSITION
    assert spec["description"] and "slider" in spec["description"]


@pytest.mark.parametrize("m", ["377", "1", "10000"])
def test_a_link_opens_the_lengths_chart_at_its_m_and_the_page_speaks_of_it(m):
    """``?rp_p=N`` opens the chart at N (frame.chart seeds its slider): the answer, the aside, the reading and the
    checks speak of that m, computed here from posenc."""
    at = assert_ok(open_page(PAGE, query={rc.LENGTH_M: m}, rp_length_predict_shown=True,
                             rp_deep_additive_open=True))
    assert not at.warning
    m = int(m)
    [param] = [p for p in own_params(chart_spec(lengths_chart(at))) if "bind" in p]
    assert param["value"] == m
    L = length_demo(SENT, QI, 64, 0, m)
    text = page_text(at)
    assert f"‖q‖ stays {L.q_norm:.3f} at m = {m:,}, where the chart opens" in text
    assert f"at m = {m:,} that coordinate is {m / L.x_norm:,.1f} times the whole length" in text
    assert f"‖x + PE_m‖ = {L.x_pe_norm:.6f} at m = {m:,}, where the chart opens" in text
    assert chart_readings(at)[2] == (f"The chart opens at m = {m:,}: RoPE's q is {L.rotated_q_norm:.3f} long, and "
                                     f"the raw index's vector has grown to {L.raw_norm:,.1f}.")
    holds, measured = verdict(at, f"turning q by m = {m:,} keeps its length")
    assert holds and "(where the chart opened)" in measured
    holds, measured = verdict(at, "v = x W_V carries no position")
    assert holds and f"the same at position 1 and at {m:,}" in measured
    assert ("further along" in measured) == (m == 1)  # at m = 1 there is nothing to compare: it says so
    assert ("differs by up to" in text) == (m > 1) and ("further along to see" in text) == (m == 1)


@pytest.mark.parametrize("bad", ["0", "10001", "abc", "-3"])
def test_a_bad_m_in_a_link_opens_the_lengths_chart_at_500_with_a_notice(bad):
    at = assert_ok(open_page(PAGE, query={rc.LENGTH_M: bad}, rp_length_predict_shown=True))
    assert f"The link's value for “{rc.LENGTH_M}” was not usable; using {chapter.RAW_POSITION}." in [
        w.value for w in at.warning]
    [param] = [p for p in own_params(chart_spec(lengths_chart(at))) if "bind" in p]
    assert param["value"] == chapter.RAW_POSITION
    assert f"at m = {chapter.RAW_POSITION:,}, where the chart opens" in page_text(at)
    assert all(h for h, _, _ in verdicts(at))


def test_the_lengths_charts_data_and_layout_are_the_same_wherever_it_opens():
    """m is not in the data (the browser turns q by it): a link's m changes only the slider's opening value."""
    assert_same_wherever_it_opens(PAGE, rc.LENGTH_M, [str(chapter.RAW_POSITION), "1", "2", "4321", "10000"],
                                  lengths_chart)



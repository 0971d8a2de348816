"""AppTest of the page "Stretching the context" (lessons/stretch.py): question first, the key chart's closed forms
in the chart, the answer and the checks computed from posenc (not copied from the page), extremes, bad values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import (
    assert_ok,
    assert_same_wherever_it_opens,
    chart_readings,
    chart_spec,
    charts_of,
    layouts,
    main_path,
    open_page,
    own_params,
    page_fixture,
    page_text,
    predict_radios,
    verdict,
)
from posenc import beyond
from posenc.beyond import TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN, stretch_demo
from posenc.charts import stretch as cs

PAGE = "lessons/stretch.py"


default_page = page_fixture(PAGE)


def _answer(at, pick: int = 1):
    radio = at.radio(key="st_predict_guess")
    radio.set_value(radio.options[pick]).run()
    assert_ok(at)
    return page_text(at)


def test_question_first_and_one_key_chart(default_page):
    at = default_page
    assert at.title[0].value == "Stretching the context"
    lead = at.markdown[0].value
    assert lead.endswith("?") and "never saw" in lead and "slow pairs" not in lead  # a question, not its answer
    assert [h.value for h in at.header] == []  # the lead names the one idea; the key chart starts higher
    assert len(predict_radios(at)) == 1
    assert "Right." not in page_text(at) and "The slow ones" not in page_text(at)
    assert len(charts_of(at)) == 2  # the key chart, and the methods chart in its Deeper
    params = {p["name"] for p in _params(chart_spec(charts_of(at)[0]))}
    assert {"st_s", "st_base", "st_method"} <= params  # s, base and the method run in the chart


def _params(spec):
    yield from spec.get("params", [])
    for layer in spec.get("layer", []):
        yield from layer.get("params", [])


def test_answer_and_checks_come_from_the_numbers():
    at = open_page(PAGE)
    text = _answer(at)
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    # by hand: pair i never finishes a turn when L_train·θ_i < 2π, θ_i = base^(−2i/d)
    slow = [i for i in range(TYPICAL_D // 2) if TYPICAL_L_TRAIN * 10000.0 ** (-2 * i / TYPICAL_D) < 2 * math.pi]
    assert "Right." in text
    assert f"The slow ones: pairs {slow[0]} to {TYPICAL_D // 2 - 1} ({len(slow)} of {TYPICAL_D // 2})" in text
    assert verdict(at, "unchanged RoPE turns the slow pairs past")[0]
    assert verdict(at, "PI pushes no pair past")[0]
    holds, measured = verdict(at, "YaRN keeps the fast pairs exactly")
    assert holds and f"pairs 0 to {int((res.ramp == 0).sum()) - 1} unchanged" in measured


def test_ntk_sentence_is_computed_not_a_few():
    """Issue 17: NTK's “a few slow pairs … a little past” was false (17 of 18, up to 2.11×)."""
    at = open_page(PAGE)
    assert "slow pairs still go past" not in page_text(at)  # the prose after the chart waits with the answer
    question = at.radio(key="st_predict_guess")
    question.set_value(question.options[0]).run()
    text = page_text(assert_ok(at))
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    past, slow = int(res.unseen["NTK-aware"].sum()), int((res.rotations < 1).sum())
    assert (past, slow) == (17, 18) and round(res.overreach["NTK-aware"], 2) == 2.11
    assert f"{past} of the {slow} slow pairs still go past, by up to {res.overreach['NTK-aware']:.3g}×" in text
    assert "a few slow pairs" not in text and "a little past" not in text


def test_ntk_is_attributed_and_not_to_hugging_face(default_page):
    text = page_text(default_page)
    assert "bloc97" in text and "§3.1 of the YaRN paper" in text and "no static NTK-aware option" in text


@pytest.mark.parametrize("query", [
    {"st_d": "4", "st_L": "16"},  # two pairs: one slow
    {"st_d": "4", "st_L": "1000000"},  # no slow pair at all
    {"st_d": "512", "st_L": "1000000", cs.LEN: str(cs.LOG2_LENS[1])},  # the Deeper chart opens at seq_len 2^26
    {"st_d": "6", "st_L": "100"},
])
def test_extremes_are_worded_from_their_numbers(query):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert not at.error
    text = _answer(at, pick=1)
    d, L = int(query["st_d"]), int(query["st_L"])
    res = stretch_demo(d, L, TYPICAL_S, 2 ** int(query.get(cs.LEN, cs.LEN_OPEN)))
    n_slow = int((res.rotations < 1).sum())
    for bad in ("pairs 0 to 0", "pairs 1 to 1", " 1 pairs", "1 heads", "1 of 1 slow pairs"):
        assert bad not in text, bad
    if n_slow:
        assert "Right." in text
    else:
        assert "Not quite" in text and "Here none" in text and "nothing to bring back" in text
        assert not verdict(at, "unchanged RoPE turns the slow pairs past")[0]
    if d == 4 and L == 16:
        assert "The slow ones: pair 1 (1 of 2)" in text


@pytest.mark.parametrize("query", [{"st_d": "7"}, {"st_d": "129"}])
def test_odd_head_dimension_is_a_message(query):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert any("must be even" in e.value for e in at.error)
    assert not charts_of(at)


@pytest.mark.parametrize("query, says", [({"st_L": "abc"}, "not usable; using 4096"),
                                         ({"st_d": "100000"}, "outside its range; using 512")])
def test_bad_url_values_are_clamped_with_a_notice(query, says):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert says in page_text(at)


def test_the_trained_length_and_d_change_data_not_the_key_layout():
    base = layouts(open_page(PAGE))
    for L in ("4097", "123456"):
        at = open_page(PAGE, query={"st_L": L})
        assert_ok(at)
        assert layouts(at)[0] == base[0], L


def test_no_wide_table_on_the_main_path(default_page):
    """Tables of more than four columns live in a Deeper."""
    for el in main_path(default_page):
        if type(el).__name__ in ("Dataframe", "Table"):
            assert len(el.value.columns) <= 4


def test_typical_constants_are_the_yarn_reference_values():
    # REFERENCES.md: d = 128, L_train = 4096, s = 16 → low = 20, high = 46 (recomputed here from c(r))
    c = [TYPICAL_D * math.log(TYPICAL_L_TRAIN / (2 * math.pi * r)) / (2 * math.log(10000)) for r in (32, 1)]
    res = beyond.stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    assert (res.low, res.high) == (math.floor(c[0]), math.ceil(c[1])) == (20, 46)
    assert np.all(res.ramp[:21] == 0) and np.all(res.ramp[46:] == 1)


@pytest.mark.parametrize("s, base", [(1, 10_000), (4, 500_000), (64, 100)])
def test_predict_and_answer_speak_of_the_state_the_chart_opens_in(s, base):
    """A link's in-chart s and base open the chart there (frame.chart seeds them): the question, the answer and
    the checks are computed at the same s and base."""
    at = open_page(PAGE, query={"st_s": str(s), "st_base": str(base)})
    assert_ok(at)
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, s, TYPICAL_SEQ_LEN, float(base))
    question = str(predict_radios(at)[0].label)
    assert f"base {base:,}" in question and f"s = {s}:" in question
    turns, ratio = chart_readings(at)  # the charts' readings speak of that state too
    assert f"opens at s = {s}, base {base:,}" in turns and f"L_train = {TYPICAL_L_TRAIN:,} tokens" in turns
    assert ratio.startswith(f"At s = {s}:") and f"opens at seq_len = {TYPICAL_SEQ_LEN:,}" in ratio
    past = int(res.unseen["RoPE as trained"].sum())
    text = _answer(at, pick=1 if past else 3)
    assert "Right." in text
    if s == 1:
        assert past == 0 and "None, at s = 1" in text and "change nothing" in text
        assert not verdict(at, "unchanged RoPE turns the slow pairs past")[0]
    elif past:
        assert f"up to {res.overreach['RoPE as trained']:.3g}× further" in text
        assert f"At s = {s}: PI" in text
    else:  # base 100: every pair turns within L_train
        assert "Here none" in text and "nothing to bring back" in text


def test_the_charts_names_hold_no_number_and_their_readings_do():
    """The key chart's name (its description) is fixed by its pairs' count; L_train, s, the base and the counts of
    slow pairs are this setting's numbers, in the reading (computed here from posenc)."""
    at = open_page(PAGE)
    names = [chart_spec(c)["description"] for c in charts_of(at)]
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    slow, past = int((res.rotations < 1).sum()), int(res.unseen["RoPE as trained"].sum())
    turns, ratio = chart_readings(at)
    assert f"{past} of {slow} slow pairs reach up to {res.overreach['RoPE as trained']:.3g}×" in turns
    assert f"keeps pairs 0 to {res.low} as they were and divides pairs from {res.high} on by s" in ratio
    assert f"{TYPICAL_D // 2} pairs" in names[0] and str(TYPICAL_L_TRAIN) not in names[0].replace(",", "")
    at = open_page(PAGE, query={"st_L": "100000", cs.LEN: "16"})  # seq_len = 2^16, in the chart
    assert_ok(at)
    assert [chart_spec(c)["description"] for c in charts_of(at)] == names
    turns, ratio = chart_readings(at)
    assert "L_train = 100,000 tokens" in turns and "opens at seq_len = 65,536, within L_train" in ratio


@pytest.mark.parametrize("method", ["PI", "NTK-aware", "YaRN"])
def test_the_key_charts_reading_speaks_of_the_method_a_link_opens(method):
    """A link's in-chart method opens the chart on it: the reading names it and counts that method's slow pairs
    past training (PI at s = 16 brings every slow pair back within the angles training showed)."""
    at = assert_ok(open_page(PAGE, query={"st_method": method}))
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    turns = chart_readings(at)[0]
    assert f"base {res.base:,.0f} and {method}, with" in turns and "RoPE as trained" not in turns
    past = int(res.unseen[method].sum())
    if past:
        assert f"{past} of " in turns and f"up to {res.overreach[method]:.3g}×" in turns
    else:
        assert "within the angles training showed" in turns
    if method == "PI":
        assert past == 0


# ---------------------------------------------------------------------------------------------- dynamic NTK's seq_len
def _deeper(at):
    return next(c for c in charts_of(at) if cs.LEN in {p["name"] for p in own_params(chart_spec(c))})


def _opened(at) -> int:
    [param] = [p for p in own_params(chart_spec(_deeper(at))) if p["name"] == cs.LEN]
    return param["value"]


def test_dynamic_ntks_length_moves_inside_the_deeper_chart_not_a_streamlit_control():
    """seq_len only evaluates a closed form (dynamic NTK's θ'_i/θ_i): a log₂ slider inside the chart, opening at
    the page's 8,192, with no Streamlit control (and no rerun) for it."""
    at = assert_ok(open_page(PAGE, query={"st_deep_methods": "true"}))
    assert not [w for w in at.number_input if w.key == cs.LEN]
    assert "Dynamic NTK's length (seq_len)" not in [w.label for w in at.number_input]
    [param] = [p for p in own_params(chart_spec(_deeper(at))) if "bind" in p]
    assert param["name"] == cs.LEN and 2 ** param["value"] == TYPICAL_SEQ_LEN
    assert param["bind"]["input"] == "range" and param["bind"]["name"].endswith("seq_len = 2^")
    assert "a slider in the chart" in chart_spec(_deeper(at))["description"]


@pytest.mark.parametrize("log2", ["4", "12", "16", "26"])
def test_a_link_opens_the_deeper_chart_at_its_seq_len_and_the_page_speaks_of_it(log2):
    """``?st_log2len=k`` opens the chart at seq_len = 2^k (frame.chart seeds its slider): the table's dynamic NTK row,
    the text under it and the reading speak of that seq_len, computed here from posenc."""
    at = assert_ok(open_page(PAGE, query={cs.LEN: log2, "st_deep_methods": "true"}))
    assert not at.warning
    assert _opened(at) == int(log2)
    seq = 2 ** int(log2)
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, seq)
    text = page_text(at)
    assert f"Its row is at seq_len = {seq:,}, where the chart opens (scale {res.dynamic_scale:.4g})" in text
    table = next(t.value for t in at.dataframe if "judged at" in t.value.columns)
    row = table[table["method"] == "Dynamic NTK"].iloc[0]
    assert row["judged at"] == seq and row["pairs past"] == int(res.unseen["Dynamic NTK"].sum())
    assert f"base' = {res.dynamic_base:,.0f} (scale {res.dynamic_scale:.4g})" == row["rule"]
    reading = chart_readings(at)[1]
    if seq <= TYPICAL_L_TRAIN:
        assert res.dynamic_scale == 1 and f"opens at seq_len = {seq:,}, within L_train, where it changes nothing" \
            in reading
    else:
        assert f"opens at seq_len = {seq:,}, where it divides the slowest pair by {res.dynamic_scale:.3g}." in reading


@pytest.mark.parametrize("bad", ["0", "3", "27", "8192", "abc"])
def test_a_bad_seq_len_in_a_link_opens_the_deeper_chart_at_8192_with_a_notice(bad):
    """Below 2^4, past 2^26, an old link's length itself (the number input's 8192: the slider holds log₂ seq_len)
    or no number: the chart opens at the page's 8,192 (2^13) and says why."""
    at = assert_ok(open_page(PAGE, query={cs.LEN: bad, "st_deep_methods": "true"}))
    assert f"The link's value for “{cs.LEN}” was not usable; using {cs.LEN_OPEN}." in [w.value for w in at.warning]
    assert _opened(at) == cs.LEN_OPEN
    assert f"Its row is at seq_len = {TYPICAL_SEQ_LEN:,}, where the chart opens" in page_text(at)
    assert f"opens at seq_len = {TYPICAL_SEQ_LEN:,}," in chart_readings(at)[1]


def test_the_deeper_charts_data_and_layout_are_the_same_wherever_it_opens():
    """seq_len is not in the data (the browser computes dynamic NTK's line): a link's st_log2len changes only the
    slider's opening value."""
    assert_same_wherever_it_opens(PAGE, cs.LEN, [str(cs.LEN_OPEN), "4", "12", "20", "26"], _deeper)



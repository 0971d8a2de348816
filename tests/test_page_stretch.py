"""AppTest of the page "Stretching the context" (lessons/stretch.py): question first, the key chart's closed forms
in the chart, the answer and the checks computed from posenc (not copied from the page), extremes, bad values."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from conftest import (
    assert_ok,
    assert_same_wherever_it_opens,
    chart_readings,
    chart_spec,
    charts_of,
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
from posenc.core import times

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
    assert {"st_s", "st_base", "st_method", cs.D, cs.LOG2_L} <= params  # s, base, method, d and L_train in the chart
    assert not at.main.number_input  # no Streamlit control left under the key chart (the sidebar has its own)


def _key(at):
    """The key chart: the one whose params carry d."""
    return next(c for c in charts_of(at) if cs.D in {p["name"] for p in own_params(chart_spec(c))})


def _key_param(at, name: str):
    """The value the key chart's ``name`` opens at (frame.chart seeded it from the link)."""
    [param] = [p for p in own_params(chart_spec(_key(at))) if p["name"] == name]
    return param["value"]


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


def _at(d: int, L: int, **more) -> dict:
    """A link opening the key chart at d and L_train (a power of two: the slider holds log₂ L_train)."""
    return {cs.D: str(d), cs.LOG2_L: str(L.bit_length() - 1), **more}


@pytest.mark.parametrize("query", [
    _at(4, 16),  # two pairs: one slow
    _at(4, 2 ** 20),  # no slow pair at all, and none at any base: the hint says only “lower L_train”
    _at(4, 2 ** 20, st_base="10000000"),  # the largest base: still none
    _at(64, 2 ** 20),  # no slow pair at base 10,000; the largest base makes some: “or raise the base”
    _at(512, 2 ** 20, st_base="10000000"),
    _at(512, 2 ** 20, **{cs.LEN: str(cs.LOG2_LENS[1])}),  # the Deeper chart opens at seq_len 2^26
    _at(6, 128),
    _at(512, 16, st_s="64", st_base="10000000"),  # the fewest turns the chart draws
])
def test_extremes_are_worded_from_their_numbers(query):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert not at.error and not at.warning
    text = _answer(at, pick=1)
    d, L = int(query[cs.D]), 2 ** int(query[cs.LOG2_L])
    s, base = int(query.get("st_s", TYPICAL_S)), float(query.get("st_base", 10_000))
    res = stretch_demo(d, L, s, 2 ** int(query.get(cs.LEN, cs.LEN_OPEN)), base)
    n_slow = int((res.rotations < 1).sum())
    for bad in ("pairs 0 to 0", "pairs 1 to 1", " 1 pairs", "1 heads", "1 of 1 slow pairs"):
        assert bad not in text, bad
    if n_slow:
        assert "Right." in text
        many = "many times" if res.rotations[0] >= 10 else "at least once"
        fast = "Pair 0, the fast one, went" if n_slow == d // 2 - 1 else f"The fast pairs (0 … {d // 2 - n_slow - 1}) went"
        assert f"{fast} round {many} (pair 0: {times(res.rotations[0])} turns)" in text
        assert "e+" not in text  # no number in e-notation
    else:
        assert "Not quite" in text and "Here none" in text and "nothing to bring back" in text
        assert not verdict(at, "unchanged RoPE turns the slow pairs past")[0]
        some_at_largest = (stretch_demo(d, L, 1, TYPICAL_SEQ_LEN, float(max(cs.BASES))).rotations < 1).any()
        hint = "Lower L_train or raise the base in the chart" if some_at_largest else "Lower L_train in the chart"
        assert hint in text
    if d == 4 and L == 16:
        assert "The slow ones: pair 1 (1 of 2)" in text


@pytest.mark.parametrize("raw, opens", [("5", 6), ("129", 130), ("64.5", 64), ("7", 8)])
def test_an_odd_head_dimension_in_a_link_opens_the_chart_at_the_even_d_its_slider_snaps_to(raw, opens):
    """The slider moves d in steps of 2 (RoPE's pairs), so there is no odd d to refuse: a link's odd or fractional
    d opens the chart where the browser's slider would put it (frame.live.parse snaps every range to its step), and
    the question speaks of that d."""
    at = assert_ok(open_page(PAGE, query={cs.D: raw}))
    assert not at.error and not at.warning
    assert _key_param(at, cs.D) == opens
    assert str(predict_radios(at)[0].label).startswith(f"**Predict.** d = {opens}, ")


@pytest.mark.parametrize("query, says", [
    ({cs.LOG2_L: "abc"}, f"“{cs.LOG2_L}” was not usable; using {cs.L_OPEN}"),
    ({cs.LOG2_L: "21"}, f"“{cs.LOG2_L}” was not usable; using {cs.L_OPEN}"),
    ({cs.D: "100000"}, f"“{cs.D}” was not usable; using {TYPICAL_D}"),
    ({cs.D: "2"}, f"“{cs.D}” was not usable; using {TYPICAL_D}"),
    ({cs.D: "abc"}, f"“{cs.D}” was not usable; using {TYPICAL_D}"),
])
def test_bad_url_values_open_the_chart_at_its_defaults_with_a_notice(query, says):
    at = assert_ok(open_page(PAGE, query=query))
    assert says in page_text(at)
    assert (_key_param(at, cs.D), 2 ** _key_param(at, cs.LOG2_L)) == (TYPICAL_D, TYPICAL_L_TRAIN)
    assert str(predict_radios(at)[0].label).startswith(f"**Predict.** d = {TYPICAL_D}, base 10,000, L_train = 4,096, s = 16:")


@pytest.mark.parametrize("raw", ["2048", "abc"])
def test_an_old_links_trained_length_is_a_parameter_the_page_no_longer_uses(raw):
    """Before, L_train was a number input under the key st_L (L_train itself); the slider holds log₂ L_train under a
    key of its own, so an old link's st_L is read as no exponent: it is ignored with the usual notice (as an old
    st_len is) and the chart opens at 4,096."""
    at = assert_ok(open_page(PAGE, query={"st_L": raw}))
    assert "does not use; ignored" in page_text(at)
    assert 2 ** _key_param(at, cs.LOG2_L) == TYPICAL_L_TRAIN


@pytest.mark.parametrize("d, L", [(4, 16), (64, 2048), (512, 2 ** 20), (256, 32768)])
def test_a_link_opens_the_key_chart_at_its_d_and_L_train_and_the_page_speaks_of_it(d, L):
    """``?st_d=d&st_log2L=k`` opens the key chart there (frame.chart seeds its sliders): the question, the answer, the
    checks, the reading, the Deeper table and the text under it are computed at that d and L_train (from posenc)."""
    at = assert_ok(open_page(PAGE, query=_at(d, L, st_deep_methods="true")))
    assert not at.warning
    assert (_key_param(at, cs.D), 2 ** _key_param(at, cs.LOG2_L)) == (d, L)
    res = stretch_demo(d, L, TYPICAL_S, TYPICAL_SEQ_LEN)
    assert str(predict_radios(at)[0].label).startswith(f"**Predict.** d = {d}, base 10,000, L_train = {L:,}, s = 16:")
    turns, ratio = chart_readings(at)
    assert turns.startswith(f"The chart opens at d = {d} ({d // 2} pairs), L_train = {L:,} tokens, s = 16,")
    n_slow, n = int((res.rotations < 1).sum()), d // 2
    past = int(res.unseen["RoPE as trained"].sum())
    text = _answer(at, pick=1 if past else 3)
    assert "Right." in text
    if n_slow:
        first = n - n_slow
        where = f"pair {first}" if n_slow == 1 else f"pairs {first} and {n - 1}" if n_slow == 2 else \
            f"pairs {first} to {n - 1}"
        assert f"The slow ones: {where} ({n_slow} of {n}) have wavelengths longer than {L:,} tokens" in text
    else:
        assert f"Here none: with L_train = {L:,} every pair" in text
    holds, measured = verdict(at, "unchanged RoPE turns the slow pairs past")
    assert holds == (past > 0) and measured.startswith(f"{past} of ")
    assert f"At d = {d}, L_train = {L:,}, s = 16 and base 10,000, where the key chart opens." in text
    table = next(t.value for t in at.dataframe if "judged at" in t.value.columns)
    assert list(table["pairs past"]) == [int(res.unseen[m].sum()) for m in beyond.METHODS]
    assert table[table["method"] == "YaRN"].iloc[0]["rule"] == f"ramp between pairs {res.low} and {res.high}"


def test_the_key_charts_data_and_layout_are_the_same_wherever_d_and_L_train_open_it():
    """d and L_train move in the chart: a link's st_d or st_log2L changes only the chart's seeded slider (and its
    reading), never its data nor the rest of its spec (one layout for every d: nothing to build ahead)."""
    assert_same_wherever_it_opens(PAGE, cs.D, [str(TYPICAL_D), "4", "6", "130", "512"], _key)
    assert_same_wherever_it_opens(PAGE, cs.LOG2_L, [str(cs.L_OPEN), "4", "11", "17", "20"], _key)


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
    assert f"L_train = {TYPICAL_L_TRAIN:,} tokens, s = {s}, base {base:,} and" in turns
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
    """The key chart's name (its description) is fixed; d, L_train, s, the base and the counts of slow pairs are
    this setting's numbers, in the reading (computed here from posenc)."""
    at = open_page(PAGE)
    names = [chart_spec(c)["description"] for c in charts_of(at)]
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    slow, past = int((res.rotations < 1).sum()), int(res.unseen["RoPE as trained"].sum())
    turns, ratio = chart_readings(at)
    assert f"{past} of {slow} slow pairs reach up to {res.overreach['RoPE as trained']:.3g}×" in turns
    assert f"keeps pairs 0 to {res.low} as they were and divides pairs from {res.high} on by s" in ratio
    assert "d/2 pairs" in names[0] and not re.search(r"\d\d", names[0])  # no d, no L_train: one name
    at = open_page(PAGE, query={cs.D: "64", cs.LOG2_L: "17", cs.LEN: "16"})  # seq_len = 2^16, in the chart
    assert_ok(at)
    assert [chart_spec(c)["description"] for c in charts_of(at)] == names
    turns, ratio = chart_readings(at)
    assert "d = 64 (32 pairs), L_train = 131,072 tokens" in turns and "opens at seq_len = 65,536, within L_train" in ratio


@pytest.mark.parametrize("method", ["PI", "NTK-aware", "YaRN"])
def test_the_key_charts_reading_speaks_of_the_method_a_link_opens(method):
    """A link's in-chart method opens the chart on it: the reading names it and counts that method's slow pairs
    past training (PI at s = 16 brings every slow pair back within the angles training showed)."""
    at = assert_ok(open_page(PAGE, query={"st_method": method}))
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    turns = chart_readings(at)[0]
    assert f"base {res.base:,.0f} and {method}:" in turns and "RoPE as trained" not in turns
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
    assert f"Its row is at seq_len = {seq:,}, where the chart opens (scale {times(res.dynamic_scale)})" in text
    table = next(t.value for t in at.dataframe if "judged at" in t.value.columns)
    row = table[table["method"] == "Dynamic NTK"].iloc[0]
    assert row["judged at"] == seq and row["pairs past"] == int(res.unseen["Dynamic NTK"].sum())
    assert f"base' = {res.dynamic_base:,.0f} (scale {times(res.dynamic_scale)})" == row["rule"]
    reading = chart_readings(at)[1]
    if seq <= TYPICAL_L_TRAIN:
        assert res.dynamic_scale == 1 and f"opens at seq_len = {seq:,}, within L_train, where it changes nothing" \
            in reading
    else:
        assert f"opens at seq_len = {seq:,}, where it divides the slowest pair by {times(res.dynamic_scale)}." in reading


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



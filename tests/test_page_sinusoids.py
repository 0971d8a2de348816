"""AppTest of the sinusoid page: defaults, the numbers it says (derived by hand here), extremes, bad values,
safety, the asides."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import (
    assert_ok,
    chart_bytes,
    chart_readings,
    chart_spec,
    chart_tables,
    charts_of,
    kind,
    layouts,
    main_path,
    open_page,
    own_params,
    page_text,
    verdict,
)
from frame.wording import apart
from posenc import chapter
from posenc.charts import sinusoids as sc
from posenc.charts.sinusoids import FIRST_GAP
from posenc.core import embed, projections, tokenize
from posenc.encodings import MAX_POSITION

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
    # dials, shifted dials, the catch; in Deeper: the table, float32, M_k, similarity
    assert len(charts_of(at)) == 7
    assert not at.error and not at.warning and not at.info  # a clean link shows no notice
    text = page_text(at)
    assert "Does not hold" not in text
    latex = "\n".join(e.value for e in at.latex)
    assert r"\mathrm{base}^{-2i/d}" in latex and r"\cos\omega_i k" in latex
    assert chart_bytes(at) < 300_000
    for c in charts_of(at):
        spec = json.loads(c.proto.spec)
        assert "width" not in spec or spec["width"] == "container"  # no pixel widths: nothing spills
        for layer in spec.get("layer", [spec]):
            assert layer["mark"].get("aria") is False  # marks are not read one by one


def test_the_page_asks_first_and_the_key_chart_plays_in_the_browser():
    at = open_page(PAGE)
    order = list(main_path(assert_ok(at)))
    radios = [i for i, e in enumerate(order) if kind(e) == "radio"]
    charts = [i for i, e in enumerate(order) if kind(e) == "vega_lite_chart"]
    assert radios[0] < charts[0] and radios[1] < charts[1] < charts[2]
    first, second = (chart_spec(c) for c in charts_of(at)[:2])
    assert {p["name"] for p in own_params(first)} == {"sn_pos", "sn_logbase"}
    assert {p["name"] for p in own_params(second)} == {"sn_s_pos", "sn_s_k"}
    assert next(p for p in first["params"] if p["name"] == "sn_pos")["value"] == 7
    text = page_text(at)
    assert "**Right.**" not in text and "Not quite" not in text


def test_wavelengths_said_correctly():
    at = open_page(PAGE)
    text = page_text(at)
    d, base = 64, 10000.0
    slowest = 2 * math.pi * base ** ((d - 2) / d)  # λ₃₁ by hand
    limit = 2 * math.pi * base
    assert f"λ_31 = {slowest:,.0f}" in text and f"2π·base = {limit:,.0f}" in text
    assert f"{1 - slowest / limit:.0%} below it" in text  # 25 % under, not "just under"
    assert f"{base ** (2 / d):.4f}" in text  # the ratio between neighbouring pairs


@pytest.mark.parametrize("a, b", [(2 * math.pi * 2 ** (510 / 512), 2 * math.pi * 2), (47117.2, 62831.9),
                                  (1e6, 1e6 + 0.4), (6.2832, 6.2832)])
def test_two_different_numbers_never_print_as_one(a, b):
    fa, fb = apart(a, b)
    assert (fa == fb) == (a == b), (a, b, fa, fb)


def test_d2_says_one_pair_and_keeps_words_out_of_math():
    at = open_page(PAGE, d=2)
    text = page_text(assert_ok(at))
    assert "a single (sin, cos) pair" in text and "the right columns" not in text
    for m in at.markdown:  # no words typeset as math: no \\text{…} inside $…$ on this page
        assert "\\text{" not in m.value and "— (one pair only)" not in m.value
    q = at.radio(key="sn_predict_guess")
    assert f"d = {chapter.CONTENT_D}" in q.label and "single pair" in q.label  # the question says which d it uses


def test_predict_explains_at_its_own_settings():
    at = open_page(PAGE)
    right = f"{10000.0 ** (2 / chapter.CONTENT_D):.4f}"
    at.radio(key="sn_predict_guess").set_value(right).run()
    assert_ok(at)
    text = page_text(at)
    assert "**Right.**" in text and f"{10000.0:,.0f}^(2/{chapter.CONTENT_D})" in text
    at = open_page(PAGE, d=16)  # the question asks at the sidebar's d, where the chart opens
    right = f"{10000.0 ** (2 / 16):.4f}"
    assert "d = 16" in at.radio(key="sn_predict_guess").label
    at.radio(key="sn_predict_guess").set_value(right).run()
    assert "**Right.**" in page_text(at)
    at.radio(key="sn_shift_predict_guess").set_value("It stays the same").run()
    text = page_text(assert_ok(at))
    closed = float(np.sum(np.cos(chapter.SHIFT * 10000.0 ** (-np.arange(0, 16, 2) / 16))))
    assert f"{closed:.4f}" in text


def test_five_million_and_ten_million():
    at = open_page(PAGE)
    assert_ok(at)
    assert at.number_input(key="sn_far").value == chapter.HUGE_POSITION
    p = chapter.HUGE_POSITION
    w32 = (10000.0 ** (-np.arange(0, 64, 2) / 64)).astype(np.float32)
    a32 = np.float32(p) * w32
    diff = max(np.max(np.abs(np.sin(a32).astype(np.float64) - pe(p, 64)[0::2])),
               np.max(np.abs(np.cos(a32).astype(np.float64) - pe(p, 64)[1::2])))
    text = page_text(at).replace("**", "")
    assert diff > 1e-3  # float32 breaks there
    assert f"lands up to {diff:.2g} from float64" in text and "far more than a millionth" in text
    assert verdict(at, f"float64 computes PE({p:,})")[0]
    at.number_input(key="sn_far").set_value(5).run()
    assert "within a millionth here" in page_text(assert_ok(at))
    at.number_input(key="sn_far").set_value(MAX_POSITION).run()
    assert_ok(at)
    assert f"At p = {MAX_POSITION:,} a float32 pipeline" in page_text(at)


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


@pytest.mark.parametrize("d, seed", [(64, 0), (2, 3), (8, 1)])
def test_the_catch_asks_first_and_its_answer_reads_the_swept_score(d, seed):
    """Before the pick nothing says whether the score moves; the answer's option is the one the swept score
    (recomputed here by hand at the page's own m and gap) makes true."""
    hidden = page_text(assert_ok(open_page(PAGE, d=d, seed=seed)))
    assert "the score moves with m" not in hidden and "stay put" not in hidden
    at = open_page(PAGE, d=d, seed=seed, sn_catch_predict_shown=True)
    toks = tokenize(chapter.SENTENCE)
    X, (Wq, Wk, _) = embed(toks, d, seed), projections(d, seed)
    qi, ki = toks.index(chapter.QUERY_WORD), toks.index(chapter.KEY_WORD)
    chart = next(c for c in charts_of(at) if "gap fixed" in json.dumps(chart_spec(c)))
    sweep = chart_tables(chart)["sweep"].to_pydict()
    ms, ns = sweep["query position m"], sweep["key position n"]
    swept = [float(((X[qi] + pe(m, d)) @ Wq) @ ((X[ki] + pe(n, d)) @ Wk)) / math.sqrt(d) for m, n in zip(ms, ns)]
    assert np.allclose(swept, sweep[next(c for c in sweep if c.startswith("score"))], atol=1e-9)
    moves = max(swept) - min(swept) > 1e-9
    text = page_text(assert_ok(at))
    assert f"The answer:** “{'It moves with m' if moves else 'It stays the same'}”" in text
    assert (f"over {max(swept) - min(swept):.2g} along the chart" in text) == moves


@pytest.mark.parametrize("query, d", [
    ({"sn_len": "2000", "sn_k": "100000", "sn_far": "10000000", "sn_pos": "100", "sn_logbase": "6"}, 512),
    ({"sn_len": "2", "sn_k": "0", "sn_far": "0", "sn_pos": "0", "sn_logbase": "0.3"}, 2),
])
def test_extremes(query, d):
    at = open_page(PAGE, query=query, d=d)
    assert_ok(at)
    assert not at.error and not at.warning
    assert len(charts_of(at)) == 7
    assert chart_bytes(at) < 600_000
    dials = chart_spec(charts_of(at)[0])
    values = {p["name"]: p["value"] for p in own_params(dials)}
    assert values == {"sn_pos": int(query["sn_pos"]), "sn_logbase": float(query["sn_logbase"])}  # seeded


def test_odd_sidebar_d_gets_a_message():
    at = open_page(PAGE, d=63)
    assert_ok(at)
    assert any("d must be even" in e.value for e in at.error)


@pytest.mark.parametrize("query, notice", [
    ({"sn_far": "abc"}, f"not usable; using {chapter.HUGE_POSITION}"), ({"sn_far": "-4"}, "outside its range; using 0"),
    ({"sn_far": "1e12"}, f"outside its range; using {MAX_POSITION}"), ({"sn_k": "2.5"}, "not usable; using 3"),
    ({"sn_len": "0"}, "outside its range; using 2"), ({"sn_pos": "abc"}, "“sn_pos” was not usable"),
    ({"sn_logbase": "99"}, "“sn_logbase” was not usable"),
    ({"sn_qw": "99"}, "outside its range; using 5"), ({"sn_deep_table": "maybe"}, "not usable; using False"),
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
    for aside in ("the whole table: its columns, its layouts, float32 at huge positions",
                  "the matrix M_k, and every PE(p)·PE(q)", "the two words, and the four terms of each score"):
        assert f"Deeper: {aside}" in labels
    assert verdict(at, "the halves layout is the interleaved table with its columns reordered")[0]
    table = next(df.value for df in at.dataframe if "wavelength 2π/ω_i" in df.value.columns)  # the raster's numbers
    assert len(table) == 64 and np.allclose(table["ω_i"], 10000.0 ** (-(np.arange(64) // 2) * 2 / 64))


def test_gap_slider_lives_inside_the_similarity_chart():
    at = open_page(PAGE, query={"sn_k": "5"})
    assert_ok(at)
    specs = [json.loads(c.proto.spec) for c in charts_of(at)]
    sim = next(s for s in specs if s.get("description", "").startswith("Similarity"))
    gap = next(p for p in sim["params"] if p["name"] == "sn_gap")
    assert gap["value"] == FIRST_GAP and gap["bind"]["input"] == "range"  # the chapter's gap, whatever k
    assert sc.OUTLINE_KEEP in json.dumps(sim, ensure_ascii=False)  # the outline follows the slider
    assert f"from the chapter's gap {FIRST_GAP}" in page_text(at)


@pytest.mark.parametrize("control,values", [("sn_k", ("4", "250", "100000")), ("sn_far", ("6", "123456")),
                                            ("sn_len", ("37", "1000"))])
def test_a_position_shift_or_length_changes_data_not_layouts(control, values):
    """k, p and the positions shown take thousands of values: each is data (titles included), so a press reuses
    every chart's layout and the browser swaps the numbers in."""
    base = layouts(open_page(PAGE))
    for v in values:
        at = open_page(PAGE, query={control: v})
        assert_ok(at)
        assert layouts(at) == base, (control, v)


def test_the_titles_that_name_p_and_k_read_them_from_the_data():
    at = open_page(PAGE, query={"sn_far": "1234", "sn_k": "42"})
    assert_ok(at)
    for start, dataset, text in [("How far a float32", "diff", "at p = 1,234,"),
                                 ("The shift matrix", "M", "M_k for k = 42:")]:
        chart = next(c for c in charts_of(at) if chart_spec(c)["description"].startswith(start))
        title = chart_spec(chart)["title"]["text"]
        assert f'data("{dataset}")' in title["expr"], start
        assert text in chart_tables(chart)[dataset].column("title")[0].as_py(), start


def test_the_dial_readings_carry_the_numbers():
    at = open_page(PAGE)
    dials, shifted = chart_readings(assert_ok(at))[:2]
    assert "pair 0: 6.283" in dials and "pair 31: 47,117" in dials
    closed = float(np.sum(np.cos(chapter.SHIFT * 10000.0 ** (-np.arange(0, 64, 2) / 64))))
    assert f"PE(p)·PE(p + k) = {closed:.4f} at every p" in shifted
    assert sc.DIAL_SPAN == 100


def test_the_dials_reading_speaks_of_the_setting_a_link_opens():
    """A link's position, base and k open the dials there (frame.chart seeds them): the readings say so."""
    at = assert_ok(open_page(PAGE, query={"sn_pos": "50", "sn_logbase": "2", "sn_s_pos": "20", "sn_s_k": "5"}))
    dials, shifted = chart_readings(at)[:2]
    assert "opens at position 50 and base 100." in dials
    lam = 2 * np.pi * 100.0 ** (2 * np.asarray(sc.dial_pairs(64)) / 64)
    assert all(f"pair {i}: {x:,.4g}" in dials or f"pair {i}: {x:,.0f}" in dials
               for i, x in zip(sc.dial_pairs(64), lam))
    closed = float(np.sum(np.cos(5 * 10000.0 ** (-np.arange(0, 64, 2) / 64))))
    assert "opens at position 20 and base 10,000." in shifted and "k = 5 positions further" in shifted
    assert f"PE(p)·PE(p + k) = {closed:.4f} at every p" in shifted


@pytest.mark.parametrize("d, length, right", [(64, 50, "barely change"), (8, 2000, "still turn visibly")])
def test_the_tables_right_columns_barely_change_only_when_they_do(d, length, right):
    """The slowest pair "barely" moves when it turns under 1/20 of a turn over the positions shown."""
    at = assert_ok(open_page(PAGE, query={"sn_len": str(length), "sn_deep_terms": "true"}, d=d))
    slowest = 2 * np.pi * chapter.BASE ** ((d - 2) / d)
    assert (slowest > 20 * length) == (right == "barely change")
    assert f"so the right columns {right} over {length:,} positions" in page_text(at)

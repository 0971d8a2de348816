"""AppTest of the page "Stretching the context" (lessons/stretch.py): the skeleton, the numbers in its prose and
verdicts (derived from posenc, not copied from the page), extremes, bad values, student text."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import assert_ok, chart_bytes, chart_specs, charts_of, layouts, open_page, page_text

from posenc import beyond, chapter
from posenc.beyond import (
    DECAY_D,
    TYPICAL_D,
    TYPICAL_L_TRAIN,
    TYPICAL_S,
    TYPICAL_SEQ_LEN,
    alibi_attention,
    bf16_positions,
    decay_demo,
    stretch_demo,
)
from posenc.charts import spec as house
from posenc.precision import angle_errors_f32
from posenc.stretch import DECAY_IDENTITY

PAGE = "lessons/stretch.py"
N_CHARTS = 12


@pytest.fixture(scope="module")
def default_page():
    at = open_page(PAGE)
    assert_ok(at)
    return at


def test_skeleton_title_claim_predict_sections(default_page):
    at = default_page
    assert at.title[0].value == "Stretching the context"
    assert [h.value for h in at.header][:4] == [
        "Past the trained length", "ALiBi: a penalty instead of a position vector",
        "RoPE's long-term decay: a bound, not a promise", "Positions far past training: number formats"]
    # the Predict questions come without their answers until picked
    keys = [r.key for r in at.radio]
    assert "stretch_predict_guess" in keys and "stretch_yarn_guess" in keys
    assert "Right." not in page_text(at)
    assert len(charts_of(at)) == N_CHARTS
    assert chart_bytes(at) < 300_000
    # transitional helpers are gone: no old-style checks (`value` in backticks)
    assert "= `" not in page_text(at)


def test_typical_setting_is_named_for_what_it_is(default_page):
    text = page_text(default_page)
    assert "chapter's example" not in text
    assert "YaRN paper's 64k Llama 2 models" in text or "Peng et al. 2023" in text
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    assert f"now reads {res.L_new:,} tokens (s = {TYPICAL_S})" in text


def test_key_chart_verdict_numbers(default_page):
    text = page_text(default_page)
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    slow = np.flatnonzero(res.rotations < 1)
    # by hand: pair i never finishes a turn when L_train·θ_i < 2π, θ_i = base^(−2i/d)
    by_hand = [i for i in range(TYPICAL_D // 2) if TYPICAL_L_TRAIN * 10000.0 ** (-2 * i / TYPICAL_D) < 2 * math.pi]
    assert slow.tolist() == by_hand
    assert (f"Holds** — unchanged RoPE turns the slow pairs past every angle they saw in training: {len(by_hand)} of "
            f"{TYPICAL_D // 2} pairs (pairs {by_hand[0]} to {TYPICAL_D // 2 - 1}) reach up to {TYPICAL_S:.3g}×") in text
    # the three fixes, as verdicts
    assert "Holds** — PI pushes no pair past the angles it saw in training: 0 pairs past" in text
    assert "Holds** — YaRN keeps the fast pairs exactly and pushes no pair past its trained angles: pairs 0 to " \
           f"{res.low} unchanged" in text


def test_own_head_dimension_is_labelled(default_page):
    labels = [n.label for n in default_page.number_input]
    assert any("(this page's own head dimension, separate from the sidebar's d)" in lab for lab in labels)


def test_pair_indices_and_positions_say_how_they_count(default_page):
    specs = json.dumps(chart_specs(default_page), ensure_ascii=False)
    assert "pair i (0-based" in specs
    assert "(word, 1-based)" in specs
    assert "counted from 0" in specs


def test_ntk_aware_is_attributed_and_not_to_hugging_face(default_page):
    text = page_text(default_page)
    assert "bloc97" in text and "§3.1 of the YaRN paper" in text
    assert "no static NTK-aware option" in text


def test_decay_formula_is_the_tested_constant_and_caption_matches_the_plot(default_page):
    at = default_page
    latex = [str(x.value) for x in at.latex]
    for line in DECAY_IDENTITY:  # tests/test_stretch.py checks this constant's meaning numerically
        assert any(x.strip("$\n") == line for x in latex), line
    assert not any(r"q^\top R_\Delta k" in x for x in latex)
    text = page_text(at)
    assert "its mean at Δ = 0 is ρ·d)" not in text
    assert "at Δ = 0 it is about ρ = 1" in text  # the plot is score ÷ d: its mean at Δ = 0 is ρ
    dec = decay_demo(DECAY_D, chapter.BASE, 1.0, 0)
    assert f"mean score ÷ d is {dec.mean[0]:.2f} at Δ = 0" in text
    assert abs(dec.mean[0] - 1.0) < 0.1  # E[q·k]/d = ρ = 1
    assert "Holds** — $(R_m q)" in text


def test_precision_text_names_the_worst_pair_from_the_numbers(default_page):
    text = page_text(default_page)
    e = angle_errors_f32(chapter.HUGE_POSITION, DECAY_D)
    worst = int(np.argmax(e.error))
    assert f"off by **{e.error[worst]:.3g} rad**, and it belongs to **pair {worst}**" in text
    assert e.error[0] == 0 and "pair 0 is exact" in text
    assert "the fastest pair's angle is p itself" not in text
    assert "Holds** — in float64 the same gap still gives the same score" in text
    assert "Holds** — in float32 the same gap no longer gives the same score" in text
    metrics = {m.label: m.value for m in default_page.metric}
    assert metrics["257 stored in bf16"] == "256"
    w = bf16_positions(248, 272)
    assert metrics["distinct positions kept, 248 to 272"] == f"{w.distinct} of {w.positions.size}"


def test_alibi_copies_verdict(default_page):
    text = page_text(default_page)
    al = alibi_attention(chapter.SENTENCE, 64, 0, 8)
    assert al.copies == (0, 3)  # the two "the"s
    assert "Holds** — ALiBi gives the copies at positions 1 and 4 different weights" in text


def test_colours_and_series(default_page):
    allowed = {c.lower() for c in (house.FOCUS, house.REFERENCE, house.TEXT, *house.SERIES, "#ffffff")}
    for s in chart_specs(default_page):
        found = {c.lower() for c in _strings(s) if c.startswith("#")}
        assert found <= allowed, found - allowed
    text = json.dumps(chart_specs(default_page))
    for old in ("#d62728", "#f58518", "#9467bd", "#7f7f7f", "#bbb"):
        assert old not in text


def _strings(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k != "datasets":
                yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)
    elif isinstance(node, str):
        yield node


def test_predict_answers_at_their_own_settings():
    at = open_page(PAGE, query={"st_s": "2", "st_L": "100000", "st_d": "64"})
    assert_ok(at)
    at.radio(key="stretch_predict_guess").set_value(at.radio(key="stretch_predict_guess").options[1]).run()
    assert_ok(at)
    at.radio(key="stretch_yarn_guess").set_value(at.radio(key="stretch_yarn_guess").options[1]).run()
    assert_ok(at)
    text = page_text(at)
    assert text.count("Right.") == 2
    res = stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)  # not the sliders' values
    kept = int((res.ramp == 0).sum())
    assert f"That is pairs 0 to {kept - 1} ({kept} pairs:" in text
    first = int(np.argmax(res.rotations < 1))
    assert f"The slow ones. Pairs {first} to {res.pairs - 1} (0-based;" in text


@pytest.mark.parametrize("query", [
    {"st_s": "1"}, {"st_s": "64", "st_L": "1000000", "st_d": "512", "st_len": "100000000", "st_heads": "16"},
    {"st_s": "1", "st_L": "16", "st_d": "4", "st_base": "10", "st_len": "1", "st_heads": "1", "st_rho": "0.0"},
    {"st_base": "10000000"}, {"st_heads": "12"},
])
def test_extremes(query):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert len(charts_of(at)) == N_CHARTS
    assert not at.error
    text = page_text(at)
    if query.get("st_s") == "1":
        assert "With **s = 1**, PI, NTK-aware and YaRN change nothing" in text
        assert "Does not hold** — unchanged RoPE turns the slow pairs" in text
    if query.get("st_heads") == "12":
        assert "12 is not a power of two: heads 1 to 8 take the 8-head slopes, heads 9 to 12" in text
    if query.get("st_rho") == "0.0":
        assert "Does not hold** — on average, the score falls as the gap grows" in text


def test_moving_s_redraws_only_the_charts_that_depend_on_it():
    def snapshot(at):
        return [(c.proto.spec, [(ds.name, ds.data.data) for ds in c.proto.datasets]) for c in charts_of(at)]

    at = open_page(PAGE)
    assert_ok(at)
    before = snapshot(at)
    at.slider(key="st_s").set_value(17).run()
    assert_ok(at)
    after = snapshot(at)
    changed = [i for i, (x, y) in enumerate(zip(before, after)) if x != y]
    assert changed == [0, 1, 2]  # the turns (its ticks), wavelength and slow-down charts
    assert before[0][0] == after[0][0] and before[1][0] == after[1][0]  # same specs: only their data moved
    assert "{:,}".format(17 * TYPICAL_L_TRAIN) in page_text(at)


@pytest.mark.parametrize("query", [{"st_d": "7"}, {"st_d": "129"}])
def test_odd_head_dimension_is_a_message_and_the_rest_works(query):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert any("must be even" in e.value for e in at.error)
    assert len(charts_of(at)) == N_CHARTS - 4  # the stretching section's four charts wait for an even d


@pytest.mark.parametrize("query, says", [({"st_s": "abc"}, "not usable; using 16"),
                                         ({"st_s": "1000"}, "outside its range; using 64"),
                                         ({"st_rho": "nan"}, "not usable; using 1.0"),
                                         ({"st_prec": "nonsense"}, "not usable; using float32 angles")])
def test_bad_url_values_are_clamped_with_a_notice(query, says):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert says in page_text(at)
    assert len(charts_of(at)) == N_CHARTS


def test_tabs_are_bound_to_the_url():
    at = open_page(PAGE, query={"st_prec": "bfloat16 positions"})
    assert_ok(at)
    assert [t.label for t in at.tabs] == ["float32 angles", "Same gap, same score?", "bfloat16 positions"]
    assert "not usable" not in page_text(at)


def test_sidebar_odd_d_and_long_sentence():
    long = " ".join(f"w{i % 40}" for i in range(64))
    at = open_page(PAGE, query={"st_heads": "16"}, sentence=long, d=7)
    assert_ok(at)
    assert len(charts_of(at)) == N_CHARTS
    assert chart_bytes(at) < 600_000
    assert "The sentence is long" in page_text(at)


def test_bad_sentence_keeps_the_other_sections():
    at = open_page(PAGE, sentence="!!! ???")
    assert_ok(at)
    assert any("No words found" in e.value for e in at.error)
    assert len(charts_of(at)) == N_CHARTS - 1  # only the ALiBi heatmap is missing


def test_student_text_never_rendered_as_markdown():
    evil = "the cat ![x](http://a/b.png) $x^2$ the"
    at = open_page(PAGE, sentence=evil)
    assert_ok(at)
    for md in at.markdown:
        assert "![x]" not in md.value and "http://a/b.png" not in md.value and "x^2" not in md.value


def test_typical_constants_are_the_yarn_reference_values():
    # REFERENCES.md: d = 128, L_train = 4096, s = 16 → low = 20, high = 46 (recomputed here from c(r))
    c = [TYPICAL_D * math.log(TYPICAL_L_TRAIN / (2 * math.pi * r)) / (2 * math.log(10000)) for r in (32, 1)]
    res = beyond.stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN)
    assert (res.low, res.high) == (math.floor(c[0]), math.ceil(c[1]))


def test_the_trained_length_changes_data_not_layouts():
    base = layouts(open_page(PAGE))
    for L in ("4097", "123456"):
        at = open_page(PAGE, query={"st_L": L})
        assert_ok(at)
        assert layouts(at) == base, L

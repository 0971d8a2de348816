"""AppTest of the page "Other ways to say where" (lessons/beyond.py): ALiBi, RoPE's long-term decay and number
formats, question first; the ALiBi head and the decay's ρ run in the chart; the answers and checks computed from
posenc (not copied from the page); extremes, bad input, student text."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import (
    assert_ok,
    chart_readings,
    chart_spec,
    chart_texts,
    charts_of,
    open_page,
    page_fixture,
    page_text,
    predict_radios,
    verdict,
)
from posenc import chapter
from posenc.beyond import DECAY_D, OFFSET_TOL, alibi_attention, first_drift, precision_demo, score_curves
from posenc.core import tokenize
from posenc.stretch import DECAY_IDENTITY

PAGE = "lessons/beyond.py"


default_page = page_fixture(PAGE)


def _pick_all(at, pick=None):
    for radio in predict_radios(at):
        r = at.radio(key=radio.key)
        r.set_value(r.options[0 if pick is None else pick]).run()
        assert_ok(at)
    return page_text(at)


def _params(spec):
    yield from spec.get("params", [])
    for layer in spec.get("layer", []):
        yield from layer.get("params", [])


def test_question_first_three_ideas(default_page):
    at = default_page
    assert at.title[0].value == "Other ways to say where"
    assert at.markdown[0].value.endswith("?")
    assert [h.value for h in at.header] == ["ALiBi: a penalty instead of a position vector",
                                            "RoPE's long-term decay: a bound, not a promise",
                                            "Positions far past training: number formats"]
    assert [r.key for r in predict_radios(at)] == ["by_predict_guess", "by_decay_guess", "by_precision_guess"]
    names = {p["name"] for c in charts_of(at) for p in _params(chart_spec(c))}
    assert {"by_head", "by_rho"} <= names  # the ALiBi head and ρ run in the charts


def test_every_chart_is_read_out_with_its_numbers(default_page):
    """Each chart's description stays put (what it shows); the numbers of this setting follow it as its reading,
    recomputed here from posenc: the ALiBi copies' weights, the drift at the probe."""
    at = default_page
    specs = [chart_spec(c) for c in charts_of(at)]
    readings = chart_readings(at)
    assert len(readings) == len(specs) and all(readings), readings
    alibi = next(i for i, sp in enumerate(specs) if sp["description"].startswith("Attention weights with ALiBi"))
    al = alibi_attention(chapter.SENTENCE, 64, 0, 8)
    j1, j2 = al.copies
    q = al.query
    assert (f"gives the copies at {j1 + 1} and {j2 + 1} weights {al.weights[0, q, j1]:.2f} and "
            f"{al.weights[0, q, j2]:.2f}") in readings[alibi]
    assert chart_texts(at)[alibi] == f"{specs[alibi]['description']} {readings[alibi]}"
    drift = next(i for i, sp in enumerate(specs) if sp["description"].startswith("Score drift"))
    pr = precision_demo(DECAY_D, chapter.BASE, 0)
    assert f"{pr.probe_offset['float32']:.2g} in float32" in readings[drift]
    assert f"{pr.probe_offset['float32']:.2g}" not in specs[drift]["description"]


def test_another_seed_keeps_the_descriptions_and_changes_the_readings():
    at = open_page(PAGE)
    before, read_before = [chart_spec(c)["description"] for c in charts_of(at)], chart_readings(at)
    at.number_input(key="seed").set_value(1).run()
    assert_ok(at)
    assert [chart_spec(c)["description"] for c in charts_of(at)] == before
    after = chart_readings(at)
    pr = precision_demo(DECAY_D, chapter.BASE, 1)
    drift = next(i for i, d in enumerate(before) if d.startswith("Score drift"))
    assert after != read_before and f"{pr.probe_offset['float32']:.2g} in float32" in after[drift]


def test_alibi_answer_and_check():
    at = open_page(PAGE)
    text = _pick_all(at)
    al = alibi_attention(chapter.SENTENCE, 64, 0, 8)
    assert al.copies == (0, 3)  # the two "the"s
    ratio = float(np.exp(al.copy_log_ratio[0]))
    assert "Right." in text and f"{ratio:.3g} times as much, which is e^(m·3)" in text
    assert verdict(at, "ALiBi gives the copies at positions 1 and 4 different weights")[0]


def test_decay_answer_is_computed_and_the_closed_form_agrees():
    at = open_page(PAGE)
    text = _pick_all(at, pick=1)
    sc = score_curves(DECAY_D, chapter.BASE, 0)
    m = sc.mean(1.0)
    rises = int(np.sum(np.diff(m) > 0))
    assert f"the mean goes up again at {rises} of its {m.size - 1} steps" in text
    assert verdict(at, "at ρ = 1, on average the score falls")[0]
    assert verdict(at, "closed-form mean agrees")[0]
    latex = [str(x.value) for x in at.latex]
    for line in DECAY_IDENTITY:  # tests/test_stretch.py checks this constant's meaning numerically
        assert any(x.strip("$\n") == line for x in latex), line


def test_bfloat16_breaks_at_the_first_position_past_zero():
    """Issue 17: “bfloat16 breaks the promise from the first hundreds of positions” was false: it breaks at 1."""
    at = open_page(PAGE)
    text = _pick_all(at)
    assert first_drift("bfloat16", OFFSET_TOL) == 1
    assert "Right." in text.split("bfloat16 first drifts")[0][-400:] or "Right." in text
    assert "bfloat16 first drifts that much at m = 1, the first position past 0" in text
    assert f"float32 first drifts that much at m = {first_drift('float32', OFFSET_TOL):,}" in text
    assert "first hundreds of positions" not in text
    pr = precision_demo(DECAY_D, chapter.BASE, 0)
    assert verdict(at, "in float64 the same gap still gives the same score")[0]
    assert f"drift {pr.probe_offset['float32']:.2g} at m = 5,000,000" in verdict(at, "in float32")[1]


def test_precision_deeper_names_the_worst_pair_from_the_numbers(default_page):
    text = page_text(default_page)
    e = precision_demo(DECAY_D, chapter.BASE, 0).pairs
    worst = int(np.argmax(e.error))
    assert f"off by **{e.error[worst]:.3g} rad**, and it belongs to **pair {worst}**" in text
    assert e.error[0] == 0 and "pair 0 is exact" in text


@pytest.mark.parametrize("heads", ["1", "12", "16"])
def test_head_counts_are_worded_from_their_numbers(heads):
    at = open_page(PAGE, query={"by_heads": heads})
    assert_ok(at)
    text = page_text(at)
    assert "1 heads" not in text
    if heads == "1":
        assert "over 1 head is" in text and "the gentlest" not in text
    if heads == "12":
        assert "12 is not a power of two: heads 1 to 8 take the 8-head slopes, heads 9 to 12" in text


def test_a_sentence_without_repeats_uses_the_chapters_and_says_so():
    at = open_page(PAGE, sentence="one two three")
    assert_ok(at)
    text = page_text(at)
    question = predict_radios(at)[0]
    assert "Your sentence repeats no word, so this uses the chapter's" in str(question.label)
    assert "Type a word twice in the sidebar" not in text  # the explaining prose waits with the answer
    question.set_value(question.options[0]).run()
    assert "Type a word twice in the sidebar" in page_text(assert_ok(at))


def test_sidebar_odd_d_and_long_sentence():
    long = " ".join(f"w{i % 40}" for i in range(64))
    at = open_page(PAGE, query={"by_heads": "16"}, sentence=long, d=7)
    assert_ok(at)
    assert not at.exception


def test_bad_sentence_keeps_the_other_sections():
    at = open_page(PAGE, sentence="!!! ???")
    assert_ok(at)
    assert any("No words found" in e.value for e in at.error)
    assert "RoPE's long-term decay: a bound, not a promise" in [h.value for h in at.header]


def test_bad_url_value_is_clamped_with_a_notice():
    at = open_page(PAGE, query={"by_heads": "1000"})
    assert_ok(at)
    assert "outside its range; using 16" in page_text(at)


def test_every_head_count_of_the_running_example_is_built_ahead_once_the_page_has_opened():
    """The head count changes the ALiBi charts' layouts (one per count: ~55 ms of Altair, cold): the page's first
    run starts building all of them for the running example in the background (frame.warm). In a fresh process,
    where nothing else built them."""
    from conftest import layouts_after_warming

    counts = set(range(1, int(assert_ok(open_page(PAGE)).slider(key="by_heads").max) + 1))  # the slider's counts
    built = layouts_after_warming(PAGE, "posenc.charts.beyond", ["_alibi_layout", "_slopes_layout"])
    words = len(tokenize(chapter.SENTENCE))
    alibi = {args[1] for args in built["_alibi_layout"] if len(args[0]) == words}
    slopes = {args[0] for args in built["_slopes_layout"]}
    assert len(counts) > 1 and alibi == counts and slopes == counts, (sorted(alibi), sorted(slopes))

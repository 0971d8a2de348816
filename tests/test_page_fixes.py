"""AppTest of the page “Obvious fixes that fail” (lessons/fixes.py): the question-first skeleton, numbers from
posenc, the answer and the prose true at every setting, links that open their tab."""

from __future__ import annotations

import pytest

import posenc
from conftest import (
    assert_ok,
    assert_same_wherever_it_opens,
    chart_spec,
    charts_of,
    checks_block,
    kind,
    layouts,
    main_path,
    open_page,
    page_fixture,
    page_text,
    predict_radios,
    spec_params,
    tab_index,
    verdict,
    verdicts,
)
from posenc import chapter
from posenc.charts import fixes as fc
from posenc.fixes import (
    DWARFS,
    LONG,
    SHORT,
    fixes_inputs,
    multiply_demo,
    one_hot_demo,
    ratio_demo,
    raw_index_demo,
    raw_term,
    summary,
)

PAGE = "lessons/fixes.py"
TOKENS = posenc.tokenize(chapter.SENTENCE)
TABS = ["Divide by length", "Multiply", "One-hot", "All four"]
LAST = "The last word"
COMPETE = "Either way the words cannot compete"


def _main_text(at) -> str:
    return "\n".join(str(getattr(e, "value", "")) for e in main_path(at)
                     if kind(e) in ("markdown", "caption", "info", "text", "header", "subheader"))


default_page = page_fixture(PAGE)


def test_defaults_skeleton_and_no_error(default_page):
    at = default_page
    page_text(assert_ok(at))
    assert at.title[0].value == "Obvious fixes that fail"
    assert not at.error
    assert len(charts_of(at)) >= 8  # index ÷ length: one chart, its codes above its step
    assert [h.value for h in at.header][:2] == ["1 · The raw index, appended",
                                              "Three more fixes, and all four"]
    assert [t.label for t in at.tabs] == TABS
    assert tab_index(at) == 0
    # every tab panel opens with its own heading (issue 22)
    assert [h.value for h in at.subheader] == ["2 · Index ÷ length", "3 · Multiplying instead of adding",
                                               "4 · One-hot positions", "All four against the wishes"]
    assert [r.key for r in predict_radios(at)] == ["fixes_predict_guess", "fx_ratio_predict_guess",
                                                   "fx_multiply_predict_guess", "fx_onehot_predict_guess"]
    assert all(h for h, _, _ in verdicts(at)), [c for h, c, _ in verdicts(at) if not h]
    assert checks_block(at) is not None


def test_the_lead_asks_and_the_answer_waits_for_a_pick(default_page):
    at = default_page
    lead = at.markdown[0].value
    assert lead.rstrip().endswith("?") and "drowns" not in lead
    text = page_text(at)
    assert "Right." not in text and [b.label for b in at.button].count("Show me the answer") == 4  # one a fix


def test_raw_index_shows_the_chapters_numbers(default_page):
    """The coordinate (≈ 500 against content coordinates ≈ 1), then the score: content ≈ √d, the index's term
    ≈ 500 (the chapter's "term of order 500") and p·p in both q and k — numbers from posenc."""
    at = default_page
    text = page_text(assert_ok(at))
    inp = fixes_inputs(TOKENS, 64, 0)
    t = raw_term(inp.X, inp.W, chapter.RAW_POSITION)
    holds, measured = verdict(at, "the index coordinate dwarfs")
    assert holds and f"p = {chapter.RAW_POSITION:,} against coordinates of typical size {t.content_coordinate:.2f}" in measured
    holds, measured = verdict(at, "in a score, the index outweighs the words")
    assert holds and f"content scores spread by {t.content_score:.3g} (√d = 8)" in measured
    assert f"adds {t.one_side:,.0f}" in measured and f"p × p = {chapter.RAW_POSITION ** 2:,}" in measured
    assert f"“term of order {chapter.RAW_POSITION}”" not in text  # the why waits with the answer
    at.radio(key="fixes_predict_guess").set_value(LAST).run()
    text = page_text(assert_ok(at))
    assert f"“term of order {chapter.RAW_POSITION}”" in text
    assert f"8 at the chapter's d = {chapter.CONTENT_D}" in text
    assert COMPETE in _main_text(at)


def test_every_tab_states_its_verdict_from_posenc(default_page):
    at = default_page
    inp = fixes_inputs(TOKENS, 64, 0)
    raw = raw_index_demo(inp.X, inp.W, chapter.RAW_POSITION)
    _, measured = verdict(at, "position decides the weights")
    assert f"position explains {raw.share_with:.4f}" in measured and f"{raw.last_wins} of 5 queries" in measured
    r = ratio_demo(5, chapter.LENGTH_EXAMPLE[2])
    _, measured = verdict(at, "code depends on the sentence's length")
    assert f"{r.tracked_sentence:.4g} in 5 words, {r.tracked_long:.4g} in 100" in measured
    m = multiply_demo(inp.X, inp.W, inp.word, inp.query, chapter.MULTIPLY_POSITIONS[1])
    holds, measured = verdict(at, f"is {chapter.MULTIPLY_POSITIONS[1]} times louder")
    assert holds and f"{m.norm_at_m:.4g}" in measured
    oh = one_hot_demo(5, 8, 9)
    _, measured = verdict(at, "has no encoding")
    assert f"asking for position 9 in a table of width 8 gives “{oh.past_error}”" in measured
    # the summary on the main path is two short columns; the full five-column table sits in a Deeper
    short, full = at.table[0].value, at.table[1].value
    assert list(short.columns) == ["wish", "met by", "broken by"]
    assert list(full.columns) == ["wish (the computed test)", "raw index", "index ÷ length", "multiply by p",
                                  "one-hot"]
    assert f"no column {chapter.LENGTH_EXAMPLE[2] + 1}" in " ".join(full.to_numpy().ravel())
    verdict_list = summary(inp.X[inp.word], SHORT, LONG)
    broken = dict(zip(short["wish"], short["broken by"]))
    for w in dict.fromkeys(v.wish for v in verdict_list):
        fails = [v.fix for v in verdict_list if v.wish == w and not v.passed]
        assert broken[w] == (", ".join(fails) if fails else "none")


def test_predict_is_answered_at_the_charts_state_and_at_its_own():
    """With the slider moved to 1,500 the answer speaks of 1,500's numbers (the chart's) and of the question's
    position 500."""
    at = open_page(PAGE, query={"fx_start": "1500"})
    at.radio(key="fixes_predict_guess").set_value(LAST).run()
    text = page_text(assert_ok(at))
    inp = fixes_inputs(TOKENS, 64, 0)
    at500, at1500 = raw_index_demo(inp.X, inp.W, 500), raw_index_demo(inp.X, inp.W, 1500)
    assert "Right." in text
    assert f"{int(at1500.position_term.min()):,} to {int(at1500.position_term.max()):,}" in text
    assert f"At the question's position 500: {at500.last_wins} of 5 (on average {at500.last_weight:.4f})" in text
    assert "p = 1,500 against" in verdict(at, "the index coordinate dwarfs")[1]


def test_a_wrong_guess_names_the_answer():
    at = open_page(PAGE)
    at.radio(key="fixes_predict_guess").set_value("All about equally").run()
    text = page_text(assert_ok(at))
    assert "Not quite" in text and LAST in text


@pytest.mark.parametrize("start", ["1", "2", "5", "40"])
def test_near_the_start_the_prose_does_not_say_the_words_cannot_compete(start):
    """Issue 17: at position 1 both verdicts say “Does not hold”, and the prose must not say the opposite."""
    at = open_page(PAGE, query={"fx_start": start})
    assert_ok(at)
    inp = fixes_inputs(TOKENS, 64, 0)
    t = raw_term(inp.X, inp.W, int(start))
    holds, _ = verdict(at, "in a score, the index outweighs the words")
    assert holds == (t.one_side >= DWARFS * t.content_score)
    raw = raw_index_demo(inp.X, inp.W, int(start))
    at.radio(key="fixes_predict_guess").set_value(LAST).run()
    answer = page_text(assert_ok(at))
    text = _main_text(at)
    assert (COMPETE in text) == holds, (start, holds)
    if not holds:
        assert "the words still have a say" in text or "already" in text
    wins = ("all 5 queries put" if raw.last_wins == 5 else "1 of your 5 queries puts" if raw.last_wins == 1
            else f"{raw.last_wins} of your 5 queries put")
    assert f"Where the chart opens, at position {int(start):,}, {wins}" in answer
    assert ("The key with the largest index wins" in answer) == (raw.last_wins == 5)


@pytest.mark.parametrize("query,tab", [
    ({"fx_mpos": "60"}, 1), ({"fx_len": "300"}, 0), ({"fx_past": "3"}, 2), ({"fx_tab": "One-hot"}, 2),
    ({"fx_tab": "All four"}, 3), ({"fx_mpos": "60", "fx_tab": "Divide by length"}, 0), ({"fx_start": "9"}, 0),
])
def test_a_link_opens_its_tab(query, tab):
    """The tab lives in the URL; a link with one tab's control and no tab opens that tab."""
    at = open_page(PAGE, query=query)
    page_text(assert_ok(at))
    assert tab_index(at) == tab


def test_at_position_1_the_index_does_not_dwarf_the_words():
    """The verdicts are computed, not decorative: at p = 1 the coordinate is the size of the others."""
    at = open_page(PAGE, query={"fx_start": "1"})
    assert_ok(at)
    assert verdict(at, "the index coordinate dwarfs the word's own coordinates")[0] is False


@pytest.mark.parametrize("query", [
    {"fx_start": "1", "fx_len": "10", "fx_mpos": "1", "fx_width": "1", "fx_past": "1"},
    {"fx_start": "2000", "fx_len": "1000", "fx_mpos": "1000", "fx_width": "1000", "fx_past": "2000"},
    {"fx_width": "2", "fx_past": "2"},
    {"fx_width": "64", "fx_past": "64"},
])
def test_control_extremes(query):
    at = open_page(PAGE, query=query, fx_onehot_predict_shown=True)  # the one-hot answer shown
    text = page_text(assert_ok(at))
    assert len(charts_of(at)) >= 7
    width, past = int(query.get("fx_width", 8)), int(query.get("fx_past", 9))  # where the one-hot chart opens
    if past > width:
        assert "has no encoding" in text and f"position {past:,} is past column {width:,}" in text
    else:
        assert f"Where the chart opens, position {past:,} → a 1 in column {past:,} of {width:,}." in text


@pytest.mark.parametrize("query", [
    {"fx_start": "99999"}, {"fx_start": "-4"}, {"fx_len": "3"}, {"fx_len": "abc"}, {"fx_mpos": "1e9"},
    {"fx_width": "0"}, {"fx_past": "nan"}, {"fx_width": "abc"}, {"fx_past": "2001"}, {"fx_tab": "nonsense"},
])
def test_bad_url_values_give_a_notice_not_a_traceback(query):
    at = open_page(PAGE, query=query)
    page_text(assert_ok(at))
    notices = [e.value for e in at.warning] + [e.value for e in at.info]
    assert any(next(iter(query)) in n for n in notices)


def test_widgets_moved_to_their_extremes():
    """The page has no Streamlit slider or number input left: the start, the compared N, m, the one-hot width N
    and the position p all move inside their charts (a link opens them anywhere: tests/test_client_expressions_
    fixes.py)."""
    at = assert_ok(open_page(PAGE))
    assert not [w.key for w in [*at.main.get("slider"), *at.main.get("number_input")]]
    live = {q["name"] for c in charts_of(at) for q in spec_params(chart_spec(c)) if "bind" in q}
    assert {"fx_start", "fx_len", "fx_mpos", fc.WIDTH, fc.PAST} <= live


@pytest.mark.parametrize("sentence,expect", [
    ("mouse", "at least two words"),
    ("   ", "empty"),
    ("!!! ???", "No words"),
    (" ".join(["word"] * 65), "at most 64"),
])
def test_bad_sentences_give_a_message(sentence, expect):
    at = open_page(PAGE, sentence=sentence)
    text = page_text(assert_ok(at))
    assert expect in text


def test_two_words_odd_d_and_long_sentences():
    at = open_page(PAGE, sentence="Hi there", d=3)
    text = page_text(assert_ok(at))
    assert "three or more words" in text
    words = " ".join(f"w{i}" for i in range(64))
    at = open_page(PAGE, query={"fx_width": "8"}, sentence=words, d=512, fx_onehot_predict_shown=True)
    text = page_text(assert_ok(at))
    assert "Your 64-word sentence does not fit in its 8 columns" in text  # where the one-hot chart opens
    assert all(sum(ds.data.data.__len__() for ds in c.proto.datasets) < 400_000 for c in charts_of(at))


def _unseeded(layout: dict) -> dict:
    """A chart's layout without the value its in-chart start opens at (``frame.live`` seeds it from a link)."""
    for p in spec_params(layout):
        if p.get("name") == fc.START:
            p.pop("value")
    return layout


@pytest.mark.parametrize("control,values", [("fx_start", ("501", "1999"))])
def test_a_position_or_length_changes_data_not_layouts(control, values):
    """The start a link opens at takes two thousand values: in the terms and the Deeper's charts each is data
    (labels, titles, the end label, the axes' ends), so every chart's layout is reused and the browser swaps the
    numbers in; the weights map computes it in the browser, its param seeded from the link. (The compared length
    N and the key word's position m move inside their charts: tests/test_client_expressions_fixes.py.)"""
    base = [_unseeded(layout) for layout in layouts(open_page(PAGE))]
    for v in values:
        at = open_page(PAGE, query={control: v})
        assert_ok(at)
        assert [_unseeded(layout) for layout in layouts(at)] == base, (control, v)


def _weights_map(at):
    """The weights map on the page: the chart whose in-chart slider sets the start."""
    [chart] = [c for c in charts_of(at) if any(p["name"] == fc.START for p in spec_params(chart_spec(c)))]
    return chart


@pytest.mark.parametrize("start", ["1", "500", "1500", "2000", "0", "abc", "99999"])
def test_a_link_opens_the_map_at_its_start_and_the_answer_and_checks_speak_of_it(start):
    """?fx_start=N opens the weights map at N (its slider's value): the answer and the checks give N's numbers,
    said to be where the chart opens. A start the slider cannot take opens at the chapter's 500, with a notice."""
    at = assert_ok(open_page(PAGE, query={fc.START: start}, fixes_predict_shown=True))
    text = page_text(at)
    usable = start.isdigit() and fc.STARTS[0] <= int(start) <= fc.STARTS[1]
    p = int(start) if usable else chapter.RAW_POSITION
    inp = fixes_inputs(TOKENS, 64, 0)
    raw = raw_index_demo(inp.X, inp.W, p)
    assert [q["value"] for q in spec_params(chart_spec(_weights_map(at))) if q["name"] == fc.START] == [p]
    assert f"Where the chart opens, at position {p:,}, " in text and f"(on average {raw.last_weight:.4f} of it)" in text
    assert "Drag the first word's position under the map" in text
    assert f"p = {p:,} against" in verdict(at, "the index coordinate dwarfs")[1]
    assert f"{raw.last_wins} of 5 queries give their largest weight to the last word (where the chart opened)" in \
        verdict(at, "position decides the weights")[1]
    warned = [w.value for w in at.warning if fc.START in w.value]
    assert warned == ([] if usable else [f"The link's value for “{fc.START}” was not usable; using "
                                         f"{chapter.RAW_POSITION}."])


def test_the_weights_map_sends_the_same_data_wherever_it_opens():
    """The start moves in the browser: a link's start changes the map's seeded slider and its reading, not its
    data (the content scores, the words, d) nor the rest of its spec."""
    assert_same_wherever_it_opens(PAGE, fc.START, ["500", "1", "2000"], _weights_map)


def _marks(node):
    if isinstance(node, dict):
        if "mark" in node:
            yield node["mark"]
        for k, v in node.items():
            if k != "config":  # config.mark holds defaults, not a mark
                yield from _marks(v)
    elif isinstance(node, list):
        for v in node:
            yield from _marks(v)


def test_every_mark_is_hidden_from_screen_readers_and_every_chart_read_with_numbers(default_page):
    """Issue 22: the chart is named by its description (what it shows, its takeaway), then its reading (the
    numbers of this setting); its marks are not read one by one (aria: false on every mark, point overlays
    included). The sliders' values are read out, never in a chart's name (which would rebuild it at a press)."""
    from conftest import chart_readings, chart_specs, chart_texts
    specs, readings, texts = chart_specs(default_page), chart_readings(default_page), chart_texts(default_page)
    for spec, spoken in zip(specs, texts, strict=True):
        marks = list(_marks(spec))
        assert marks
        for m in marks:
            assert isinstance(m, dict) and m.get("aria") is False, (spec.get("description", "")[:50], m)
        assert spec["description"] and any(ch.isdigit() for ch in spoken), spoken
    for value in (chapter.RAW_POSITION, chapter.LENGTH_EXAMPLE[2], chapter.MULTIPLY_POSITIONS[1]):  # the defaults
        assert not any(str(value) in s["description"] for s in specs), value
        assert any(f"{value:,}" in r for r in readings), value


def test_no_table_wider_than_four_columns_on_the_main_path(default_page):
    wide = [e for e in main_path(default_page) if kind(e) in ("table", "dataframe") and len(e.value.columns) > 4]
    assert not wide


@pytest.mark.parametrize("length", ["10", "12"])
def test_equal_lengths_are_said_as_equal(length):
    """A 10-word sentence against a 10-word one: the two checks fail, and the prose says the codes agree."""
    words = " ".join(f"w{i}" for i in range(10))
    at = open_page(PAGE, query={"fx_len": length, "fx_tab": "Divide by length"}, sentence=words,
                   fx_ratio_predict_shown=True)
    assert_ok(at)
    holds, _ = verdict(at, "the step to the previous word changes with the length")
    assert holds == (length != "10")
    assert ("the two lengths are equal (10 words)" in _main_text(at)) == (length == "10")

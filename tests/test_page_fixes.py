"""AppTest of the page “Obvious fixes that fail” (lessons/fixes.py)."""

from __future__ import annotations

import pytest
from conftest import assert_ok, charts_of, layouts, open_page, page_text

import posenc
from posenc import chapter
from posenc.fixes import fixes_inputs, multiply_demo, one_hot_demo, ratio_demo, raw_index_demo, raw_term

PAGE = "lessons/fixes.py"
TOKENS = posenc.tokenize(chapter.SENTENCE)
TABS = ["Raw index", "Divide by length", "Multiply", "One-hot", "All four"]


def _tab_index(at) -> int:
    return at.get("tab_container")[0].proto.tab_container.default_tab_index


@pytest.fixture(scope="module")
def default_page():
    return open_page(PAGE)


def test_defaults_skeleton_and_no_error(default_page):
    at = default_page
    text = page_text(assert_ok(at))
    assert at.title[0].value == "Obvious fixes that fail"
    assert not at.error
    assert len(charts_of(at)) >= 9
    assert "**Predict.**" in text and "Holds" in text and "Does not hold" not in text
    assert _tab_index(at) == 0
    labels = [t.label for t in at.tabs]
    assert labels == TABS


def test_raw_index_shows_the_coordinate_then_the_score_with_the_chapters_numbers(default_page):
    """Issue #11: the coordinate (≈ 500 against content coordinates ≈ 1), then the score: content ≈ √d, the index's
    term ≈ 500 (the chapter's "term of order 500") and p·p in both q and k — numbers from posenc."""
    text = page_text(assert_ok(default_page))
    inp = fixes_inputs(TOKENS, 64, 0)
    t = raw_term(inp.X, inp.W, chapter.RAW_POSITION)
    assert f"p = {chapter.RAW_POSITION:,} against coordinates of typical size {t.content_coordinate:.2f}" in text
    assert f"content scores spread by {t.content_score:.3g} (√d = 8)" in text
    assert f"adds {t.one_side:,.0f}" in text and f"p × p = {chapter.RAW_POSITION ** 2:,}" in text
    assert f"“term of order {chapter.RAW_POSITION}”" in text
    assert f"8 at the chapter's d = {chapter.CONTENT_D}" in text


def test_every_tab_states_its_verdict_from_posenc(default_page):
    text = page_text(assert_ok(default_page))
    inp = fixes_inputs(TOKENS, 64, 0)
    raw = raw_index_demo(inp.X, inp.W, chapter.RAW_POSITION)
    assert f"position explains {raw.share_with:.4f}" in text and f"{raw.last_wins} of 5 queries" in text
    r = ratio_demo(5, chapter.LENGTH_EXAMPLE[2])
    assert f"{r.tracked_sentence:.4g} in 5 words, {r.tracked_long:.4g} in 100" in text
    m = multiply_demo(inp.X, inp.W, inp.word, inp.query, chapter.MULTIPLY_POSITIONS[1])
    assert f"is {chapter.MULTIPLY_POSITIONS[1]} times louder" in text and f"{m.norm_at_m:.4g}" in text
    oh = one_hot_demo(5, 8, 9)
    assert f"asking for position 9 in a table of width 8 gives “{oh.past_error}”" in text
    table = default_page.table[0].value.set_index("wish (the computed test)")
    assert list(table.columns) == ["raw index", "index ÷ length", "multiply by p", "one-hot"]
    assert f"no column {chapter.LENGTH_EXAMPLE[2] + 1}" in " ".join(table.to_numpy().ravel())


def test_predict_is_answered_at_its_own_settings_whatever_the_slider_says():
    """Issue #9: with the slider moved to 1,500 the answer still speaks of position 500, with 500's numbers."""
    at = open_page(PAGE, query={"fx_start": "1500"})
    at.radio(key="fixes_predict_guess").set_value("The last word of the sentence").run()
    text = page_text(assert_ok(at))
    inp = fixes_inputs(TOKENS, 64, 0)
    at500, at1500 = raw_index_demo(inp.X, inp.W, 500), raw_index_demo(inp.X, inp.W, 1500)
    assert "Right." in text
    assert "{:,} to {:,}".format(int(at500.position_term.min()), int(at500.position_term.max())) in text
    assert "{:,} to {:,}".format(int(at1500.position_term.min()), int(at1500.position_term.max())) not in text
    assert f"{at500.last_weight:.4f}" in text
    assert "p = 1,500 against" in text  # while the section itself follows the slider


def test_a_wrong_guess_names_the_answer():
    at = open_page(PAGE)
    at.radio(key="fixes_predict_guess").set_value("All keys about equally").run()
    text = page_text(assert_ok(at))
    assert "Not quite" in text and "The last word of the sentence" in text


@pytest.mark.parametrize("query,tab", [
    ({"fx_mpos": "60"}, 2), ({"fx_len": "300"}, 1), ({"fx_past": "3"}, 3), ({"fx_tab": "One-hot"}, 3),
    ({"fx_tab": "All four"}, 4), ({"fx_mpos": "60", "fx_tab": "Raw index"}, 0), ({"fx_start": "9"}, 0),
])
def test_a_link_opens_its_tab(query, tab):
    """Issue #9: the tab lives in the URL; a link with one tab's control and no tab opens that tab."""
    at = open_page(PAGE, query=query)
    page_text(assert_ok(at))
    assert _tab_index(at) == tab


def test_at_position_1_the_index_does_not_dwarf_the_words():
    """The verdicts are computed, not decorative: at p = 1 the coordinate is the size of the others."""
    at = open_page(PAGE, query={"fx_start": "1"})
    text = page_text(assert_ok(at))
    assert "Does not hold** — the index coordinate dwarfs the word's own coordinates" in text


@pytest.mark.parametrize("query", [
    {"fx_start": "1", "fx_len": "10", "fx_mpos": "1", "fx_width": "1", "fx_past": "1"},
    {"fx_start": "2000", "fx_len": "1000", "fx_mpos": "1000", "fx_width": "1000", "fx_past": "2000"},
    {"fx_width": "2", "fx_past": "2"},
    {"fx_width": "64", "fx_past": "64"},
])
def test_control_extremes(query):
    at = open_page(PAGE, query=query)
    text = page_text(assert_ok(at))
    assert len(charts_of(at)) >= 8
    width, past = int(query.get("fx_width", 8)), int(query.get("fx_past", 9))
    if past > width:
        assert "has no encoding" in text
    else:
        assert f"Position {past} → a 1 in column {past} of {width}" in text


@pytest.mark.parametrize("query", [
    {"fx_start": "99999"}, {"fx_start": "-4"}, {"fx_len": "3"}, {"fx_len": "abc"}, {"fx_mpos": "1e9"},
    {"fx_width": "0"}, {"fx_past": "nan"}, {"fx_width": "2.5"}, {"fx_tab": "nonsense"},
])
def test_bad_url_values_give_a_notice_not_a_traceback(query):
    at = open_page(PAGE, query=query)
    page_text(assert_ok(at))
    notices = [e.value for e in at.warning] + [e.value for e in at.info]
    assert any(next(iter(query)) in n for n in notices)


def test_widgets_moved_to_their_extremes():
    at = open_page(PAGE)
    for key, value in [("fx_start", 2000), ("fx_start", 1), ("fx_len", 1000), ("fx_len", 10),
                       ("fx_mpos", 1000), ("fx_mpos", 1)]:
        at.slider(key=key).set_value(value).run()
        page_text(assert_ok(at))
    for key, value in [("fx_width", 1000), ("fx_width", 1), ("fx_past", 2000), ("fx_past", 1)]:
        at.number_input(key=key).set_value(value).run()
        page_text(assert_ok(at))


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
    at = open_page(PAGE, query={"fx_width": "8"}, sentence=words, d=512)
    text = page_text(assert_ok(at))
    assert "does not fit" in text  # 64 words in a width-8 one-hot table
    assert all(sum(ds.data.data.__len__() for ds in c.proto.datasets) < 400_000 for c in charts_of(at))


def test_student_text_is_never_markdown():
    evil = "![x](http://a/b.png) $x^2$ the cat chased the mouse"
    at = open_page(PAGE, sentence=evil)
    page_text(assert_ok(at))
    for e in at.markdown:
        assert "![x]" not in e.value and "http://a/b.png" not in e.value
    for e in list(at.caption) + list(at.info) + list(at.warning) + list(at.success):
        assert "http://a/b.png" not in str(e.value)


@pytest.mark.parametrize("control,values", [("fx_start", ("501", "1999")), ("fx_len", ("11", "777")),
                                            ("fx_mpos", ("51", "1000"))])
def test_a_position_or_length_changes_data_not_layouts(control, values):
    """The three sliders take a thousand values or more: each is data (labels, titles, the end label, the
    axes' ends), so a press reuses every chart's layout and the browser swaps the numbers in."""
    base = layouts(open_page(PAGE))
    for v in values:
        at = open_page(PAGE, query={control: v})
        assert_ok(at)
        assert layouts(at) == base, (control, v)

"""AppTest of the home page and page 1, the sentence scramble.

Numbers shown on the page are recomputed here with posenc and looked for in the page's text.
Student text (the sentence, a typed order) must never reach a Markdown-rendered element.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import frame
from conftest import (
    HOLDS,
    assert_ok,
    chart_readings,
    chart_spec,
    chart_tables,
    charts_of,
    check_line,
    deep_link,
    markdown_values,
    open_page,
    page_fixture,
    page_text,
    spec_layers,
    spec_params,
)
from posenc import chapter
from posenc.charts.spec import nice_bound
from posenc.core import embed, parse_order, projections, shuffle_order, tokenize
from posenc.scramble import TOL, rows_changed, scramble

PAGE = "lessons/scramble.py"
DEFAULT = frame.DEFAULT_SENTENCE
EQ = "Attn(PX)"
KEYS = "copies of one word have identical keys"
WEIGHTS = "every query gives the copies equal weights"  # the copies' section: no mask
MASK_WEIGHTS = "with the mask, every query that may read all the copies"  # the scramble's section, mask on
PARADOX = "with no positions"


# ---------------------------------------------------------------- helpers


def swap(tokens: list[str]) -> list[int]:
    """The preset's order, derived here from the chapter's pick."""
    i, j = chapter.swap_words(tokens)
    order = list(range(len(tokens)))
    order[i], order[j] = j, i
    return order


def sentence_rows(at: AppTest) -> tuple[list[str], list[str]] | None:
    """The words of X and of PX (by slot), from the page's two lines of plain text (st.text: student words)."""
    for t in at.text:
        lines = str(t.value).splitlines()
        if len(lines) == 2 and lines[0].startswith("original:") and lines[1].startswith("scrambled:"):
            return lines[0].split()[1:], lines[1].split()[1:]
    return None


def predict_label(at: AppTest, key: str) -> str:
    return at.radio(key=f"{key}_guess").label


# ---------------------------------------------------------------- home


def test_home_links_to_every_existing_page():
    at = open_page()
    assert_ok(at)
    home = frame.page_info("lessons/home.py")
    assert at.title[0].value == home.title  # the skeleton: h1 from the page list
    links = {(p.proto.page, p.proto.label) for p in at.get("page_link")}
    expected = {(p.url_path, p.title) for p in frame.existing_pages() if p.url_path}
    assert expected and expected <= links
    text = page_text(at)
    for info in frame.existing_pages():
        if info.url_path:
            assert info.blurb in text
    # and the navigation knows each existing page
    assert {p.path for p in frame.existing_pages()} >= {"lessons/home.py", PAGE}


def test_home_leads_with_the_chapters_contradiction_as_a_question():
    """The lead (the first paragraph under the title) quotes the chapter's two weights and asks the question;
    it does not answer it."""
    at = open_page()
    assert_ok(at)
    lead = at.markdown[0].value
    a, b = chapter.FIGURE_WEIGHTS
    assert f"**{a}** and **{b}**" in lead and chapter.SENTENCE in lead and f"“{chapter.COPY_WORD}”" in lead
    assert "identical rows must get equal weights" in lead and "**How can both be true?**" in lead
    assert "position" not in lead.lower()  # the answer (positions) is the chapter's, later


def test_home_in_class_notes():
    at = open_page()
    assert_ok(at)
    assert [h.value for h in at.header] == ["The pages", "In class"]
    notes = [m.value for m in at.markdown if "?present=1" in m.value]
    assert len(notes) == 1  # one markdown call: the class-mode helper adds its lines there
    for phrase in ("?present=1", "Presentation mode", "Copy the link to this view", "tabs", "asides",
                   "1-based", "Predict", "show of hands"):
        assert phrase in notes[0], phrase
    q = chapter.query_index(tokenize(chapter.SENTENCE)) + 1
    assert f"“{chapter.QUERY_WORD}” is ({q})" in notes[0]
    nxt = frame.next_page("lessons/home.py")
    assert f"Next: {nxt.title}" in [p.proto.label for p in at.get("page_link")]


# ---------------------------------------------------------------- the scramble page at defaults


default_page = page_fixture(PAGE)


def test_defaults_render_charts_with_tooltips(default_page):
    at = default_page
    assert at.title[0].value == "The sentence scramble"
    shown = charts_of(at)
    assert len(shown) == 3
    for chart in shown:
        assert "tooltip" in chart.proto.spec
    assert len(at.latex) >= 1 and any("softmax" in x.value for x in at.latex)
    # the scrambled heatmap's rows are slots, labelled with the original positions
    spec = json.loads(shown[0].proto.spec)
    tokens = tokenize(DEFAULT)
    order = swap(tokens)
    assert spec_layers(spec)[0]["encoding"]["y"]["sort"] == [f"{i + 1} {tokens[i]}" for i in order]
    for chart in shown:  # marks hidden from screen readers, the chart named by its description
        body = {k: v for k, v in chart_spec(chart).items() if k != "config"}
        marks = re.findall(r'"mark": (\{[^}]*\})', json.dumps(body))
        assert marks and all('"aria": false' in m for m in marks), marks


def test_defaults_show_the_words_and_their_scramble(default_page):
    tokens = tokenize(DEFAULT)
    assert sentence_rows(default_page) == (tokens, [tokens[i] for i in swap(tokens)])


def test_defaults_error_number_is_posencs(default_page):
    tokens = tokenize(DEFAULT)
    res = scramble(tokens, swap(tokens), frame.DEFAULT_D, 0)
    assert res.equivariance_error < TOL
    line = check_line(default_page, EQ)
    assert line.startswith(HOLDS)
    assert f"largest difference {res.equivariance_error:.0e}" in line
    assert f"{len(tokens)} × {frame.DEFAULT_D}" in line
    for said in chart_readings(default_page)[:2]:  # read after each picture: the same number
        assert said == (f"The two pictures are identical (largest difference {res.equivariance_error:.0e}). "
                        f"Each output has d = {frame.DEFAULT_D} coordinates.")


def test_defaults_equal_weight_checks_pass(default_page):
    assert check_line(default_page, KEYS).startswith(HOLDS)
    line = check_line(default_page, WEIGHTS)
    assert line.startswith(HOLDS)
    # one repeated word: every one of the 5 queries sees both copies without the mask
    assert "over 5 query rows" in line
    assert MASK_WEIGHTS not in "\n".join(m.value for m in default_page.markdown)  # the mask is off


def test_the_copies_predict_quotes_the_chapter_and_is_answered_live(default_page):
    """The chapter's figure weights are quoted from posenc.chapter in the question; the live weights from the
    chapter's query on the two copies (recomputed here from the formula) are equal, in the answer and its
    verdict."""
    at = default_page
    a, b = chapter.FIGURE_WEIGHTS
    label = predict_label(at, "sc_copies")
    tokens = tokenize(DEFAULT)
    q, copies = tokens.index(chapter.QUERY_WORD), [i for i, w in enumerate(tokens) if w == chapter.COPY_WORD]
    assert f"{a} and {b}" in label and "on your sentence" in label
    assert f"from the query at position {q + 1} (“{chapter.QUERY_WORD}”)" in label
    X = embed(tokens, frame.DEFAULT_D, 0)
    Wq, Wk, Wv = projections(frame.DEFAULT_D, 0)
    s = (X[q] @ Wq) @ (X @ Wk).T / np.sqrt(frame.DEFAULT_D)
    w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    assert abs(w[copies[0]] - w[copies[1]]) < 1e-12
    line = check_line(at, PARADOX)
    assert line.startswith(HOLDS)
    assert f"the query at position {q + 1} gives copies {copies[0] + 1} and {copies[1] + 1}" in line
    assert f"{w[copies[0]]:.4f}, {w[copies[1]]:.4f}" in line
    at2 = open_page(PAGE)
    radio = at2.radio(key="sc_copies_guess")
    radio.set_value("They get equal weight").run()
    assert_ok(at2)
    assert f"**Right.** Equal: {w[copies[0]]:.4f} and {w[copies[1]]:.4f}" in page_text(at2)
    bars = chart_spec(charts_of(at2)[2])
    param = next(p for p in spec_params(bars) if p["name"] == "sc_q")
    assert param["value"] == f"{q + 1} {chapter.QUERY_WORD}"  # the chart opens at the query the Predict asks about


def test_the_copies_section_uses_the_chapters_sentence_when_yours_repeats_no_word():
    at = assert_ok(open_page(PAGE, sentence="one two three"))
    label = predict_label(at, "sc_copies")
    assert f"on the chapter's sentence “{chapter.SENTENCE}”" in label
    assert "Your sentence repeats no word, so this section uses the chapter's sentence." in page_text(at)
    bars = chart_spec(charts_of(at)[2])
    assert next(p for p in spec_params(bars) if p["name"] == "sc_q")["bind"]["options"] == \
        [f"{i + 1} {w}" for i, w in enumerate(tokenize(chapter.SENTENCE))]


def test_a_sentence_without_spaces_gets_the_split_at_spaces_notice():
    """Japanese is written without spaces: tokenize splits at spaces only, so the page says so instead of
    claiming the sentence repeats no word."""
    at = assert_ok(open_page(PAGE, sentence="猫が ネズミを追いかけた"))
    text = page_text(at)
    assert "Words are split at spaces" in text and "repeats no word" not in text
    one = assert_ok(open_page(PAGE, sentence="猫がネズミを追いかけた"))
    assert one.error and "Words are split at spaces" in one.error[0].value


def test_hindi_and_thai_keep_their_words():
    at = assert_ok(open_page(PAGE, sentence="बिल्ली ने चूहे का पीछा किया बिल्ली"))
    assert len(sentence_rows(at)[0]) == 7
    assert "on your sentence" in predict_label(at, "sc_copies")
    thai = assert_ok(open_page(PAGE, sentence="กินข้าว กินข้าว"))
    assert sentence_rows(thai)[0] == ["กินข้าว", "กินข้าว"]
    assert check_line(thai, KEYS).startswith(HOLDS)


def test_defaults_no_notices(default_page):
    assert not default_page.error and not default_page.warning


# ---------------------------------------------------------------- bad sentences

BAD_SENTENCES = {
    "empty": "",
    "one-word": "zyzzyva",
    "64-words": " ".join(["quokka"] * 64),
    "65-words": " ".join(["quokka"] * 65),
    "10k-chars": "quokka " * 1428 + "quo",
    "10k-one-word": "q" * 10_000,
    "emoji-only": "🙂🐈🐭",
    "emoji-mixed": "🙂 the cat 🐈 chased the mouse 🐭",
    "script": "<script>alert(1)</script>",
    "md-image": "![x](http://example.com/a.png)",
    "md-image-words": "the ![x](http://example.com/a.png) cat chased the mouse",
    "latex": "$x^2$",
    "latex-words": "the $x^2$ cat chased $y$ the mouse",
}
MARKERS = ["example.com", "<script>", "$x^2$", "🙂", "zyzzyva", "quokka quokka"]


def _assert_clear_or_working(at: AppTest, sentence: str) -> None:
    assert_ok(at)
    try:
        tokens = tokenize(sentence[: frame.MAX_CHARS])
    except ValueError:
        tokens = []
    if 2 <= len(tokens):
        assert len(charts_of(at)) >= 3
        assert sentence_rows(at)[0] == tokens
    else:
        assert at.error, "a bad sentence must give a clear st.error"
        assert all(len(e.value) > 20 for e in at.error)
        assert not charts_of(at)
    rendered = "\n".join(markdown_values(at))
    if len(sentence.strip()) >= 5:
        assert sentence.strip()[:200] not in rendered
    for marker in MARKERS:
        if marker in sentence:
            assert marker not in rendered, marker


@pytest.mark.parametrize("sentence", BAD_SENTENCES.values(), ids=BAD_SENTENCES.keys())
def test_bad_sentence_via_session_state(sentence):
    at = open_page(PAGE, sentence=sentence)
    _assert_clear_or_working(at, sentence)


@pytest.mark.parametrize("sentence", BAD_SENTENCES.values(), ids=BAD_SENTENCES.keys())
def test_bad_sentence_via_url(sentence):
    at = open_page(PAGE, query={"sentence": sentence})
    _assert_clear_or_working(at, sentence)


@pytest.mark.parametrize("name", ["10k-chars", "md-image-words", "latex-words", "script"])
def test_bad_sentence_via_deep_link(name):
    """Opened straight at /scramble?sentence=…: the first run of the session is this page."""
    sentence = BAD_SENTENCES[name]
    at = deep_link(PAGE, {"sentence": sentence})
    _assert_clear_or_working(at, sentence)


def test_overlong_link_notice_does_not_echo_the_text_as_markdown():
    """A link whose sentence is cut to MAX_CHARS gives a notice; the notice must not repeat the text."""
    sentence = "![x](http://example.com/a.png) $x^2$ " * 300  # 11,100 characters
    at = deep_link(PAGE, {"sentence": sentence})
    assert_ok(at)
    assert at.info or at.warning  # the cut is announced
    rendered = "\n".join(markdown_values(at))
    assert "example.com" not in rendered
    assert "$x^2$" not in rendered


# ---------------------------------------------------------------- scramble modes and the causal toggle


@pytest.fixture(scope="module")
def modes_page() -> AppTest:
    at = open_page(PAGE)
    assert_ok(at)
    return at


def test_random_shuffle_mode(modes_page):
    at = modes_page
    at.radio(key="scramble").set_value("Random shuffle").run()
    assert_ok(at)
    tokens = tokenize(DEFAULT)
    for number in (0, 9999, 17):
        at.number_input(key="shuffle").set_value(number).run()
        assert_ok(at)
        order = shuffle_order(len(tokens), number)
        assert sentence_rows(at)[1] == [tokens[i] for i in order]
        res = scramble(tokens, order, frame.DEFAULT_D, 0)
        assert f"largest difference {res.equivariance_error:.0e}" in check_line(at, EQ)
        assert check_line(at, EQ).startswith(HOLDS)


@pytest.mark.parametrize("typed", ["1 1 2", "a b", "1 2", "", "0 1 2 3 4", "1 2 3 4 5 6", "1;2;3;4;x",
                                   "99999999999999999999 1 2 3 4", "<script>", "![x](http://example.com/a.png)"])
def test_custom_order_invalid_gives_a_message(modes_page, typed):
    at = modes_page
    at.radio(key="scramble").set_value("Custom order").run()
    at.text_input(key="order").input(typed).run()
    assert_ok(at)
    assert at.error and all(len(e.value) > 20 for e in at.error)
    rendered = "\n".join(markdown_values(at))
    if len(typed) >= 5:
        assert typed not in rendered


@pytest.mark.parametrize("typed", ["5 4 3 2 1", "1,5,3,4,2", " 2 1 3 4 5 ", "1 2 3 4 5"])
def test_custom_order_valid(modes_page, typed):
    at = modes_page
    at.radio(key="scramble").set_value("Custom order").run()
    at.text_input(key="order").input(typed).run()
    assert_ok(at)
    assert not at.error
    tokens = tokenize(DEFAULT)
    order = parse_order(typed, len(tokens))
    assert sentence_rows(at)[1] == [tokens[i] for i in order]
    assert check_line(at, EQ).startswith(HOLDS)


def test_custom_order_default_is_reversed():
    at = open_page(PAGE, query={"scramble": "Custom order"})
    assert_ok(at)
    tokens = tokenize(DEFAULT)
    assert sentence_rows(at)[1] == tokens[::-1]


def test_causal_toggle_breaks_the_equation():
    at = open_page(PAGE)
    names = [chart_spec(c)["description"] for c in charts_of(at)]
    at.toggle(key="causal").set_value(True).run()
    assert_ok(at)
    tokens = tokenize(DEFAULT)
    res = scramble(tokens, swap(tokens), frame.DEFAULT_D, 0, causal=True)
    assert res.equivariance_error > TOL
    line = check_line(at, EQ)
    assert line.startswith(HOLDS) and "differs" in line
    assert f"largest difference {res.equivariance_error:.2g}" in line
    assert f"{len(rows_changed(res))} of {len(tokens)} slots differ" in line
    assert [chart_spec(c)["description"] for c in charts_of(at)] == names  # the charts keep their names …
    for said in chart_readings(at)[:2]:  # … and the reading says what the mask did
        assert said.startswith(f"With the causal mask the two pictures differ (largest difference "
                               f"{res.equivariance_error:.2g}).")
    assert "The causal mask breaks the equation" in page_text(at)
    # queries 4 and 5 see both copies of "the" and still weigh them equally
    assert check_line(at, MASK_WEIGHTS).startswith(HOLDS)
    assert "over 2 query rows" in check_line(at, MASK_WEIGHTS)
    for mode in ("Random shuffle", "Custom order"):
        at.radio(key="scramble").set_value(mode).run()
        assert_ok(at)
    at.toggle(key="causal").set_value(False).run()
    assert_ok(at)


def test_the_scramble_predict_asks_at_the_state_its_chart_opens_in():
    """Mask off (the chart's opening state): the question says nothing of a mask and its answer is “identical”.
    A link with the mask on opens a question that says so, under its own key, answered from the live rows."""
    at = assert_ok(open_page(PAGE))
    label = predict_label(at, "sc_predict")
    assert "mask" not in label and label.startswith("**Predict.** How do the outputs on the scramble (left) compare")
    radio = at.radio(key="sc_predict_guess")
    radio.set_value("Identical, row by row").run()
    assert "**Right.** The two pictures are equal in all" in page_text(at) or "**Right.** The largest" in page_text(at)
    masked = assert_ok(open_page(PAGE, query={"causal": "true"}))
    assert masked.toggle(key="causal").value is True
    assert predict_label(masked, "sc_predict_mask").startswith("**Predict.** With the causal mask on, how do the outputs")
    tokens = tokenize(DEFAULT)
    res = scramble(tokens, swap(tokens), frame.DEFAULT_D, 0, causal=True)
    changed = rows_changed(res)
    expected = "Identical, row by row" if not changed else (
        "Different in every row" if len(changed) == len(tokens) else "Different in some rows")
    masked.radio(key="sc_predict_mask_guess").set_value(expected).run()
    assert_ok(masked)
    assert "**Right.**" in page_text(masked)
    assert changed == [1, 2, 3, 4]  # slot 1 reads only itself, as before; every later slot reads another set
    assert "Slots 2, 3, 4, 5 differ" in page_text(masked)


@pytest.mark.parametrize("typed", ["1 2 3 4 5", "1 2 3 5 4"])
def test_with_the_mask_an_order_that_keeps_every_reading_set_is_identical(typed):
    """The answer is computed: the identity keeps every row; swapping the last two changes only those slots."""
    at = assert_ok(open_page(PAGE, query={"causal": "true", "scramble": "Custom order", "order": typed}))
    tokens = tokenize(DEFAULT)
    res = scramble(tokens, parse_order(typed, len(tokens)), frame.DEFAULT_D, 0, causal=True)
    changed = rows_changed(res)
    radio = at.radio(key="sc_predict_mask_guess")
    radio.set_value(radio.options[0]).run()
    text = page_text(at)
    if not changed:
        assert "**Right.**" in text and "the mask changes nothing" in text
    else:
        assert changed == [3, 4] and "Slots 4, 5 differ" in text and "**Not quite**" in text


@pytest.mark.parametrize("sentence", [DEFAULT, "the dog bit the man", "a b c d a e f a", "x y z", "q w q"])
def test_the_copies_get_equal_weights_from_the_query_the_chart_opens_at(sentence):
    """The copies' chart opens at the query its Predict names; the weights it ships for that query (recomputed
    here from the formula) are equal on every copy; a sentence with no copies is replaced by the chapter's."""
    at = assert_ok(open_page(PAGE, sentence=sentence))
    tokens = tokenize(sentence)
    if not chapter.copies(tokens):
        tokens = tokenize(chapter.SENTENCE)
    copies = chapter.copies(tokens)
    line = check_line(at, PARADOX)
    q = int(re.search(r"the query at position (\d+)", line).group(1)) - 1
    if chapter.QUERY_WORD in tokens:
        assert tokens[q] == chapter.QUERY_WORD
    bars = charts_of(at)[2]
    assert next(p for p in spec_params(chart_spec(bars)) if p["name"] == "sc_q")["value"] == f"{q + 1} {tokens[q]}"
    X = embed(tokens, frame.DEFAULT_D, 0)
    Wq, Wk, _ = projections(frame.DEFAULT_D, 0)
    s = (X[q] @ Wq) @ (X @ Wk).T / np.sqrt(frame.DEFAULT_D)
    w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    rows = chart_tables(bars)["main"].to_pylist()
    shipped = {r["key"]: r["weight"] for r in rows if r["query"] == f"{q + 1} {tokens[q]}"}
    np.testing.assert_allclose([shipped[f"{i + 1} {tokens[i]}"] for i in copies], w[copies], atol=1e-12)
    assert max(w[copies]) - min(w[copies]) < 1e-12
    assert line.startswith(HOLDS)


@pytest.mark.parametrize("seed, causal", [(0, False), (1, False), (2, True)])
def test_the_two_heatmaps_share_one_symmetric_colour_scale_over_every_value(seed, causal):
    """One colour bound for both pictures, rounded up to the ladder (so a new seed mostly reuses the layout):
    symmetric about 0 and never below the largest |value| of either picture, so no cell is clipped."""
    at = assert_ok(open_page(PAGE, seed=seed, causal=causal))
    assert at.toggle(key="causal").value is causal
    heatmaps = charts_of(at)[:2]
    domains = [spec_layers(chart_spec(c))[0]["encoding"]["color"]["scale"]["domain"] for c in heatmaps]
    assert domains[0] == domains[1]
    low, high = domains[0]
    largest = max(np.abs(chart_tables(c)["main"].column("value").to_numpy()).max() for c in heatmaps)
    assert low == -high and nice_bound(high) == high and high >= largest


@pytest.mark.parametrize("d", [2, 3, 63, 512])
def test_extreme_widths(d):
    at = open_page(PAGE, d=d)
    assert_ok(at)
    tokens = tokenize(DEFAULT)
    res = scramble(tokens, swap(tokens), d, 0)
    assert f"largest difference {res.equivariance_error:.0e}" in check_line(at, EQ)
    assert check_line(at, EQ).startswith(HOLDS)


def test_two_word_and_no_cat_sentences():
    at = open_page(PAGE, sentence="hello world")
    assert_ok(at)
    assert sentence_rows(at)[1] == ["world", "hello"]
    at.session_state["sentence"] = "one two three four"
    at.run()
    assert_ok(at)
    assert sentence_rows(at)[1] == ["one", "four", "three", "two"]  # 2nd and last swapped


@pytest.mark.parametrize("sentence", [
    "the cat saw a rat and the rat saw the cat",
    "dog bites man bites dog",
    " ".join(["the", "cat"] * 32),
])
def test_copies_of_a_word_pass_the_page_checks(sentence):
    """Copies of a word have identical keys and equal weights; the page's checks must say ✓.

    Mathematically the gaps are 0; in float64 the BLAS kernels round the rows of X W_K differently
    (~1e-16), so a check that demands exact 0.0 shows ✗ to the student.
    """
    at = open_page(PAGE, sentence=sentence)
    assert_ok(at)
    assert check_line(at, KEYS).startswith(HOLDS), check_line(at, KEYS)
    assert check_line(at, WEIGHTS).startswith(HOLDS), check_line(at, WEIGHTS)
    assert check_line(at, PARADOX).startswith(HOLDS), check_line(at, PARADOX)


def test_share_link_and_bridge(default_page):
    html = [e.proto.body for e in default_page.get("html")]
    assert any("Copy the link to this view" in h for h in html)
    links = [p.proto.label for p in default_page.get("page_link")]
    nxt = frame.next_page(PAGE)
    assert nxt and f"Next: {nxt.title}" in links


def test_a_link_that_sets_the_in_chart_query_is_what_the_copies_predict_asks_about():
    """?sc_q=5 mouse: the chart opens at that query (frame.live seeds it) and the Predict, its answer and its
    verdict speak of that query, with its weights."""
    at = assert_ok(open_page(PAGE, query={"sc_q": "5 mouse"}))
    bars = chart_spec(charts_of(at)[2])
    assert next(p for p in spec_params(bars) if p["name"] == "sc_q")["value"] == "5 mouse"
    assert "from the query at position 5, which copy" in predict_label(at, "sc_copies")
    tokens = tokenize(DEFAULT)
    X = embed(tokens, frame.DEFAULT_D, 0)
    Wq, Wk, _ = projections(frame.DEFAULT_D, 0)
    s = (X[4] @ Wq) @ (X @ Wk).T / np.sqrt(frame.DEFAULT_D)
    w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    line = check_line(at, PARADOX)
    assert "the query at position 5 gives copies 1 and 4" in line and f"{w[0]:.4f}, {w[3]:.4f}" in line
    assert chart_readings(at)[2] == f"From the query 5 mouse, the copies get {w[0]:.4f}, {w[3]:.4f}."
    bad = assert_ok(open_page(PAGE, query={"sc_q": "9 nothing"}))  # not a word of the sentence: the default
    assert "from the query at position 3 (“chased”)" in predict_label(bad, "sc_copies")

"""AppTest of the "Attention in one screen" page: the steps' chart (one spec, linked views, marks hidden from
screen readers), its verdicts in Checks, the Predict asked on the sentence the chart shows when it repeats a word
(else the chapter's) with its answer computed there, the glossary anchors every frame.term() link points to, and
bad sentences."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import frame
from conftest import (
    HOLDS,
    assert_ok,
    chart_readings,
    charts_of,
    elements,
    kind,
    layouts,
    open_page,
    page_fixture,
    page_text,
    spec_params,
    verdict_lines,
    walk_dicts,
)
from posenc import chapter
from posenc.charts.primer import HOVER, PARAM
from posenc.core import embed, projections, tokenize
from posenc.primer import MAX_SHOWN_WORDS

PAGE = "lessons/attention.py"

def chart_spec(at) -> dict:
    shown = charts_of(at)
    assert len(shown) == 1
    return json.loads(shown[0].proto.spec)


default_page = page_fixture(PAGE)


def test_defaults(default_page):
    at = default_page
    assert at.title[0].value == "Attention in one screen"
    assert not at.error and not at.warning
    spec = chart_spec(at)
    assert len(spec["vconcat"]) == 5
    tokens = tokenize(frame.DEFAULT_SENTENCE)
    param = next(p for p in spec["params"] if p["name"] == PARAM)
    assert PARAM.startswith("at_")  # the page's key prefix: frame.live keeps it in the address
    assert param["value"] == f"{chapter.query_index(tokens) + 1} {tokens[chapter.query_index(tokens)]}"
    lines = verdict_lines(at)
    assert len(lines) == 4 and all(line.startswith(HOLDS) for line in lines), lines
    # the copies' verdict names the chapter's copies by position
    pos = ", ".join(str(i + 1) for i in chapter.copies(tokens))
    assert any(f"words {pos} are the same word" in line for line in lines)
    # how many coordinates of how many are shown is said
    assert f"first 6 of d = {frame.DEFAULT_D}" in page_text(at)


def _output_gap(tokens, d, seed, a, b) -> float:
    """max |out_a − out_b|, recomputed from the formula."""
    X = embed(tokens, d, seed)
    Wq, Wk, Wv = projections(d, seed)
    S = (X @ Wq) @ (X @ Wk).T / np.sqrt(d)
    e = np.exp(S - S.max(axis=1, keepdims=True))
    out = (e / e.sum(axis=1, keepdims=True)) @ (X @ Wv)
    return float(np.max(np.abs(out[a] - out[b])))


def predict_label(at) -> str:
    return at.radio(key="at_predict_guess").label


def test_predict_uses_the_chapters_sentence_when_yours_repeats_no_word():
    at = open_page(PAGE, d=16, seed=5, sentence="one two three")  # the sidebar's sentence has no copies
    assert_ok(at)
    radio = at.radio(key="at_predict_guess")
    assert radio.value is None
    tokens = tokenize(chapter.SENTENCE)
    a, b = chapter.copies(tokens)
    assert f"On the chapter's sentence “{chapter.SENTENCE}” (yours repeats no word), words {a + 1} and {b + 1} " \
           f"are both “{chapter.COPY_WORD}”" in predict_label(at)
    radio.set_value(radio.options[0]).run()
    assert_ok(at)
    gap = _output_gap(tokens, 16, 5, a, b)
    text = page_text(at)
    assert "**Right.**" in text
    said = "are equal in every coordinate" if gap == 0 else f"differ by at most {gap:.0e}"
    assert f"On the chapter's sentence at d = 16, rows {a + 1} and {b + 1} of the output {said}" in text


def test_predict_speaks_of_your_sentence_when_it_repeats_a_word():
    sentence = "a bird saw a bird"
    at = open_page(PAGE, d=8, seed=2, sentence=sentence)
    assert_ok(at)
    label = predict_label(at)
    assert label.endswith("Words 1 and 4 are the same word. In step 5, how do their output rows compare?"), label
    assert "bird" not in label  # the student's words never go through Markdown
    assert "chapter" not in label
    radio = at.radio(key="at_predict_guess")
    radio.set_value(radio.options[2]).run()
    assert_ok(at)
    gap = _output_gap(tokenize(sentence), 8, 2, 0, 3)
    text = page_text(at)
    said = "are equal in every coordinate" if gap == 0 else f"differ by at most {gap:.0e}"
    assert "**Not quite**" in text and f"On this sentence at d = 8, seed 2, rows 1 and 4 of the output {said}" in text


def test_predict_comes_first_and_no_verdict_sits_on_the_main_path(default_page):
    """The Predict is the first thing after the lead and its section's heading; every verdict is in Checks."""
    order = [e for e in elements(default_page)]
    kinds = [kind(e) for e in order]
    first_radio = kinds.index("radio")
    assert kinds.index("vega_lite_chart") > first_radio
    checks = next(i for i, e in enumerate(order) if kind(e) == "expander" and "Checks" in str(e.label))
    for i, e in enumerate(order):
        if kind(e) == "markdown" and ("**Holds**" in e.value or "**Does not hold**" in e.value):
            assert i > checks, e.value


def test_the_chart_is_one_spec_with_linked_views_and_quiet_marks(default_page):
    """Hovering (or tapping) a row in any panel lights that word in every panel: one point selection over the
    five cell views. Every mark has aria: false; the chart is named by its description, and its reading (set
    right after it) carries the takeaway's numbers."""
    spec = chart_spec(default_page)
    hover = next(p for p in spec_params(spec) if p["name"] == HOVER)
    assert hover["select"]["type"] == "point" and hover["select"]["fields"] == ["row"]
    assert "pointerover" in hover["select"]["on"]
    names = set(re.findall(r'"name": "(at_cells_\d)"', json.dumps(spec["vconcat"])))
    assert set(hover["views"]) == names and len(names) == 5
    marks = [n["mark"] for n in walk_dicts(spec["vconcat"]) if "mark" in n]
    assert marks and all(isinstance(m, dict) and m.get("aria") is False for m in marks), marks
    tokens = tokenize(frame.DEFAULT_SENTENCE)
    a, b = chapter.copies(tokens)
    assert f"Words {a + 1} and {b + 1} are the same word and get the same row in every step" in \
        chart_readings(default_page)[0]
    assert spec["description"].startswith("Attention in five steps")



def test_glossary_has_an_anchor_for_every_term(default_page):
    """The Glossary section defines every word; the page's term links point at those definitions (no second
    "Words on this page" list)."""
    at = default_page
    headers = {h.value: h.proto.anchor for h in at.header}
    assert headers.get("Glossary") == "glossary"
    drawn = " ".join(str(node.proto) for node in elements(at) if kind(node) == "html")
    assert drawn.count("pe-terms") == 1 and "Words on this page" not in drawn
    for word in frame.GLOSSARY:
        assert f'id=\\"term-{word}\\"' in drawn or f'id="term-{word}"' in drawn, word
    links = re.findall(r"\]\(#term-([a-z]+) ", "\n".join(m.value for m in at.markdown))
    assert {"query", "key", "value", "score", "softmax", "d"} <= set(links) <= set(frame.GLOSSARY)


def test_bridge_leads_to_the_scramble(default_page):
    links = [p.proto.label for p in default_page.get("page_link")]
    assert f"Next: {frame.next_page(PAGE).title}" in links
    assert frame.next_page(PAGE).path == "lessons/scramble.py"


@pytest.mark.parametrize("sentence,words", [
    ("hello", 1),
    (" ".join(f"w{i}" for i in range(64)), 64),
    ("<script>alert(1)</script> ![x](http://example.com/a.png) $x^2$ the the", None),
])
def test_sentences_that_work(sentence, words):
    at = open_page(PAGE, sentence=sentence)
    assert_ok(at)
    assert not at.error
    spec = chart_spec(at)
    tokens = tokenize(sentence)
    options = next(p for p in spec["params"] if p["name"] == PARAM)["bind"]["options"]
    assert len(options) == min(len(tokens), MAX_SHOWN_WORDS)
    if len(tokens) > MAX_SHOWN_WORDS:
        assert f"first {MAX_SHOWN_WORDS} of {len(tokens)} words" in page_text(at)
    rendered = "\n".join(m.value for m in at.markdown)
    for marker in ("example.com", "<script>", "$x^2$"):
        assert marker not in rendered
    assert all(line.startswith(HOLDS) for line in verdict_lines(at))


def test_a_sentence_in_a_script_with_marks_keeps_its_words():
    """Hindi's vowel signs and virama stay on their letters: 7 words, and the two copies of बिल्ली are found."""
    at = open_page(PAGE, sentence="बिल्ली ने चूहे का पीछा किया बिल्ली")
    assert_ok(at)
    options = next(p for p in chart_spec(at)["params"] if p["name"] == PARAM)["bind"]["options"]
    assert len(options) == 7
    assert predict_label(at).endswith("Words 1 and 7 are the same word. In step 5, how do their output rows compare?")


@pytest.mark.parametrize("sentence,message", [("", "The sentence is empty"), ("🙂 🐈", "No words found"),
                                              (" ".join(["w"] * 65), "has 65 words")])
def test_bad_sentences_give_a_message(sentence, message):
    at = open_page(PAGE, sentence=sentence)
    assert_ok(at)
    assert at.error and message in at.error[0].value
    assert not charts_of(at)


@pytest.mark.parametrize("d", [2, 3, 512])
def test_extreme_widths(d):
    at = open_page(PAGE, d=d)
    assert_ok(at)
    assert f"first {min(6, d)} of d = {d}" in page_text(at)
    assert all(line.startswith(HOLDS) for line in verdict_lines(at))


def test_a_glossary_link_opens_its_definition_on_the_same_page_in_the_browser():
    """In real Chromium: a frame.term() link on the scramble page shows the word's definition among that page's
    last lines ("Words on this page", folded to one line and unfolded by the link): same tab, same page, the
    hover text still there."""
    from playwright.sync_api import sync_playwright

    from harness.browser import CHROMIUM, CHROMIUM_ARGS, DONE, streamlit_server

    with streamlit_server() as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ctx = browser.new_context(viewport={"width": 1366, "height": 768})
        page = ctx.new_page()
        page.goto(f"{base}/scramble")
        page.wait_for_selector(DONE, timeout=60000)
        link = page.locator("[data-testid=stMain] a", has_text="softmax").first
        assert link.get_attribute("href") == "#term-softmax"
        assert link.get_attribute("title") == frame.GLOSSARY["softmax"].replace('"', "'")  # the hover text
        folded = page.locator("[data-testid=stMain] details.pe-terms")
        folded.first.wait_for(state="attached", timeout=15000)
        assert folded.count() == 1 and folded.get_attribute("open") is None  # one line until a link points in
        link.scroll_into_view_if_needed()
        link.click()
        page.wait_for_timeout(800)
        assert len(ctx.pages) == 1 and page.url.endswith("/scramble#term-softmax"), page.url
        assert folded.get_attribute("open") is not None, "the definitions did not unfold"
        entry = page.locator("#term-softmax")
        assert entry.inner_text().strip().endswith("softmax")
        assert entry.evaluate("dt => dt.nextElementSibling.textContent") == frame.GLOSSARY["softmax"]
        page.wait_for_function(
            "() => { const r = document.querySelector('#term-softmax').getBoundingClientRect();"
            " return r.top >= 0 && r.bottom <= window.innerHeight; }", timeout=15000)
        browser.close()


def test_the_width_d_changes_data_not_the_layout():
    """The five panels are the costliest layout of the app: d is in the caption, not in the chart."""
    base = layouts(open_page(PAGE))
    for d in (16, 256):
        at = open_page(PAGE, d=d)
        assert_ok(at)
        assert layouts(at) == base, d
        assert f"of d = {d} coordinates" in page_text(at)


def test_a_link_that_sets_the_query_opens_the_chart_there():
    at = assert_ok(open_page(PAGE, query={PARAM: "5 mouse"}))
    spec = chart_spec(at)
    assert next(p for p in spec["params"] if p["name"] == PARAM)["value"] == "5 mouse"
    assert "Word 5, the query outlined" in chart_readings(at)[0]

"""AppTest of the "Attention in one screen" page: the steps' chart, its verdicts, the Predict answer computed at
its own settings, the glossary anchors every frame.term() link points to, and bad sentences."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from conftest import assert_ok, charts_of, layouts, open_page, page_text

import frame
from posenc import chapter
from posenc.core import embed, projections, tokenize
from posenc.primer import MAX_SHOWN_WORDS

PAGE = "lessons/attention.py"
HOLDS = ":material/check_circle: **Holds**"


def verdict_lines(at) -> list[str]:
    return [m.value for m in at.markdown if "**Holds**" in m.value or "**Does not hold**" in m.value]


def chart_spec(at) -> dict:
    shown = charts_of(at)
    assert len(shown) == 1
    return json.loads(shown[0].proto.spec)


@pytest.fixture(scope="module")
def default_page():
    at = open_page(PAGE)
    assert_ok(at)
    return at


def test_defaults(default_page):
    at = default_page
    assert at.title[0].value == "Attention in one screen"
    assert not at.error and not at.warning
    spec = chart_spec(at)
    assert len(spec["vconcat"]) == 5
    tokens = tokenize(frame.DEFAULT_SENTENCE)
    param = next(p for p in spec["params"] if p["name"] == "query")
    assert param["value"] == f"{chapter.query_index(tokens) + 1} {tokens[chapter.query_index(tokens)]}"
    lines = verdict_lines(at)
    assert len(lines) == 3 and all(line.startswith(HOLDS) for line in lines), lines
    # the copies' verdict names the chapter's copies by position
    pos = ", ".join(str(i + 1) for i in chapter.copies(tokens))
    assert any(f"words {pos} are the same word" in line for line in lines)
    # how many coordinates of how many are shown is said
    assert f"first 6 of d = {frame.DEFAULT_D}" in page_text(at)


def test_predict_answer_is_computed_on_the_chapters_sentence():
    at = open_page(PAGE, d=16, seed=5, sentence="one two three")  # the sidebar's sentence differs
    assert_ok(at)
    radio = at.radio(key="at_predict_guess")
    assert radio.value is None
    text = page_text(at)
    tokens = tokenize(chapter.SENTENCE)
    a, b = chapter.copies(tokens)
    assert f"words {a + 1} and {b + 1} are both" in text and "d = 16, seed 5" in text
    radio.set_value(radio.options[0]).run()
    assert_ok(at)
    X = embed(tokens, 16, 5)
    Wq, Wk, _ = projections(16, 5)
    S = (X @ Wq) @ (X @ Wk).T / 4.0
    gap = float(np.max(np.abs(S[:, a] - S[:, b])))
    assert "**Right.**" in page_text(at)
    assert f"the largest difference between columns {a + 1} and {b + 1} is {gap:.1g}" in page_text(at)


def test_glossary_has_an_anchor_for_every_term(default_page):
    at = default_page
    headers = {h.value: h.proto.anchor for h in at.header}
    assert headers.get("Glossary") == "glossary"
    subs = {h.value: h.proto.anchor for h in at.subheader}
    for word in frame.GLOSSARY:
        assert subs.get(word) == f"glossary-{word}"
    # every term link on the page points at one of those anchors
    links = re.findall(r"\]\(attention#(glossary-[a-z]+) ", "\n".join(m.value for m in at.markdown))
    assert {f"glossary-{w}" for w in ("query", "key", "value", "score", "softmax", "d")} <= set(links)
    assert set(links) <= set(subs.values())


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
    options = next(p for p in spec["params"] if p["name"] == "query")["bind"]["options"]
    assert len(options) == min(len(tokens), MAX_SHOWN_WORDS)
    if len(tokens) > MAX_SHOWN_WORDS:
        assert f"first {MAX_SHOWN_WORDS} of {len(tokens)} words" in page_text(at)
    rendered = "\n".join(m.value for m in at.markdown)
    for marker in ("example.com", "<script>", "$x^2$"):
        assert marker not in rendered
    assert all(line.startswith(HOLDS) for line in verdict_lines(at))


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


def test_a_glossary_link_opens_its_anchor_in_the_browser():
    """In real Chromium: a frame.term() link on the scramble page opens the attention page at its glossary entry
    (the heading with that id exists and is scrolled into view)."""
    from browser import CHROMIUM, CHROMIUM_ARGS, DONE, streamlit_server
    from playwright.sync_api import sync_playwright

    with streamlit_server() as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ctx = browser.new_context(viewport={"width": 1366, "height": 768})
        page = ctx.new_page()
        page.goto(f"{base}/scramble")
        page.wait_for_selector(DONE, timeout=60000)
        link = page.locator("[data-testid=stMain] a", has_text="softmax").first
        assert link.get_attribute("href") == "attention#glossary-softmax"
        assert link.get_attribute("title") == frame.GLOSSARY["softmax"].replace('"', "'")  # the hover text
        link.scroll_into_view_if_needed()
        with ctx.expect_page(timeout=15000) as opened:
            link.click()
        glossary = opened.value
        glossary.wait_for_selector(DONE, timeout=60000)
        assert glossary.url.endswith("/attention#glossary-softmax")
        heading = glossary.locator("#glossary-softmax")
        heading.wait_for(timeout=15000)
        assert heading.inner_text().strip() == "softmax"
        glossary.wait_for_function(
            "() => { const r = document.querySelector('#glossary-softmax').getBoundingClientRect();"
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

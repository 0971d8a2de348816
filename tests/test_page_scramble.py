"""AppTest of the home page and page 1, the sentence scramble.

Numbers shown on the page are recomputed here with posenc and looked for in the page's text.
Student text (the sentence, a typed order) must never reach a Markdown-rendered element.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from conftest import APP, charts_of, open_page, page_text
from google.protobuf.message import Message
from streamlit.testing.v1 import AppTest

import frame
from posenc.core import parse_order, shuffle_order, swap_order, tokenize
from posenc.scramble import scramble

PAGE = "lessons/scramble.py"
DEFAULT = frame.DEFAULT_SENTENCE
EQ = "max |Attn(PX) − P·Attn(X)|"
KEYS = "max |k_i − k_j| over copies"
WEIGHTS = "max |w_qi − w_qj| over copies"
# Elements whose text is not Markdown: student text may appear there.
NOT_MARKDOWN = {"Text", "Code", "Dataframe", "UnknownElement", "Json"}
RENDERED_FIELDS = {"body", "label", "help", "placeholder", "caption", "options"}


# ---------------------------------------------------------------- helpers


def deep_link(page: str, query: dict) -> AppTest:
    """A fresh session whose first run is ``page`` with ``query``: a browser opening /scramble?… directly."""
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(page)
    at.run()
    return at


def markdown_values(at: AppTest) -> list[str]:
    """Every string the browser renders as Markdown: bodies of markdown/caption/alerts/titles/LaTeX, widget
    labels and help texts, expander and popover labels (everything except st.text, st.code, dataframes)."""
    found: list[str] = []

    def walk(node) -> None:
        for child in getattr(node, "children", {}).values():
            proto = getattr(child, "proto", None)
            if type(child).__name__ not in NOT_MARKDOWN and proto is not None and hasattr(proto, "ListFields"):
                stack = [proto]
                while stack:
                    msg = stack.pop()
                    for field, value in msg.ListFields():
                        values = value if isinstance(value, Sequence) and not isinstance(value, str) else [value]
                        for v in values:
                            if isinstance(v, Message):
                                stack.append(v)
                            elif isinstance(v, str) and field.name in RENDERED_FIELDS:
                                found.append(v)
            walk(child)

    walk(at._tree)
    return found


def check_line(at: AppTest, label: str) -> str:
    lines = [m.value for m in at.markdown if label in m.value]
    assert len(lines) == 1, (label, [m.value for m in at.markdown])
    return lines[0]


def words_tables(at: AppTest) -> list[list[str]]:
    return [list(map(str, df.value.loc["word"])) for df in at.dataframe if "word" in df.value.index]


def assert_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


# ---------------------------------------------------------------- home


def test_home_links_to_every_existing_page():
    at = open_page()
    assert_ok(at)
    assert "How a transformer learns word order" in page_text(at)
    links = {(p.proto.page, p.proto.label) for p in at.get("page_link")}
    expected = {(p.url_path, p.title) for p in frame.existing_pages() if p.url_path}
    assert expected and expected <= links
    # and the navigation knows each existing page
    assert {p.path for p in frame.existing_pages()} >= {"lessons/home.py", PAGE}


# ---------------------------------------------------------------- the scramble page at defaults


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    at = open_page(PAGE)
    assert_ok(at)
    return at


def test_defaults_render_charts_with_tooltips(default_page):
    at = default_page
    assert at.title[0].value == "The sentence scramble"
    shown = charts_of(at)
    assert len(shown) >= 3
    for chart in shown:
        assert "tooltip" in chart.proto.spec
    assert len(at.latex) >= 1 and any("softmax" in x.value for x in at.latex)


def test_defaults_show_the_words_and_their_scramble(default_page):
    tokens = tokenize(DEFAULT)
    order = swap_order(tokens, "cat", "mouse")
    assert words_tables(default_page)[:2] == [tokens, [tokens[i] for i in order]]


def test_defaults_error_number_is_posencs(default_page):
    tokens = tokenize(DEFAULT)
    res = scramble(tokens, swap_order(tokens, "cat", "mouse"), frame.DEFAULT_D, 0)
    assert res.equivariance_error < 1e-12
    line = check_line(default_page, EQ)
    assert line.startswith(":green[✓]")
    assert f"= `{res.equivariance_error:.2g}`" in line
    assert f"{len(tokens)} × {frame.DEFAULT_D}" in line


def test_defaults_equal_weight_checks_pass(default_page):
    assert check_line(default_page, KEYS).startswith(":green[✓]")
    line = check_line(default_page, WEIGHTS)
    assert line.startswith(":green[✓]")
    assert "from each of 5 query rows" in line  # one repeated word, 5 queries see both copies
    assert "positions 1, 4" in page_text(default_page)


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
        assert words_tables(at)[0] == tokens
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
        assert words_tables(at)[1] == [tokens[i] for i in order]
        res = scramble(tokens, order, frame.DEFAULT_D, 0)
        assert f"= `{res.equivariance_error:.2g}`" in check_line(at, EQ)
        assert check_line(at, EQ).startswith(":green[✓]")


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
    assert words_tables(at)[1] == [tokens[i] for i in order]
    assert check_line(at, EQ).startswith(":green[✓]")


def test_custom_order_default_is_reversed():
    at = open_page(PAGE, query={"scramble": "Custom order"})
    assert_ok(at)
    tokens = tokenize(DEFAULT)
    assert words_tables(at)[1] == tokens[::-1]


def test_causal_toggle_breaks_the_equation():
    at = open_page(PAGE)
    at.toggle(key="causal").set_value(True).run()
    assert_ok(at)
    tokens = tokenize(DEFAULT)
    res = scramble(tokens, swap_order(tokens, "cat", "mouse"), frame.DEFAULT_D, 0, causal=True)
    line = check_line(at, EQ)
    assert line.startswith(":red[✗]")
    assert f"= `{res.equivariance_error:.2g}`" in line
    assert any("equation fails" in w.value for w in at.warning)
    # queries 4 and 5 see both copies of "the" and still weigh them equally
    assert check_line(at, WEIGHTS).startswith(":green[✓]")
    assert "each of 2 query rows" in check_line(at, WEIGHTS)
    for mode in ("Random shuffle", "Custom order"):
        at.radio(key="scramble").set_value(mode).run()
        assert_ok(at)
    at.toggle(key="causal").set_value(False).run()
    assert_ok(at)


@pytest.mark.parametrize("d", [2, 3, 63, 512])
def test_extreme_widths(d):
    at = open_page(PAGE, d=d)
    assert_ok(at)
    tokens = tokenize(DEFAULT)
    res = scramble(tokens, swap_order(tokens, "cat", "mouse"), d, 0)
    assert f"= `{res.equivariance_error:.2g}`" in check_line(at, EQ)
    assert check_line(at, EQ).startswith(":green[✓]")


def test_two_word_and_no_cat_sentences():
    at = open_page(PAGE, sentence="hello world")
    assert_ok(at)
    assert words_tables(at)[1] == ["world", "hello"]
    at.session_state["sentence"] = "one two three four"
    at.run()
    assert_ok(at)
    assert words_tables(at)[1] == ["one", "four", "three", "two"]  # 2nd and last swapped


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
    assert check_line(at, KEYS).startswith(":green[✓]"), check_line(at, KEYS)
    assert check_line(at, WEIGHTS).startswith(":green[✓]"), check_line(at, WEIGHTS)


def test_share_link_and_bridge(default_page):
    codes = [c.value for c in default_page.code if "scramble" in c.value and "def " not in c.value]
    assert codes and codes[0].rstrip("/").endswith("scramble")
    links = [p.proto.label for p in default_page.get("page_link")]
    nxt = frame.next_page(PAGE)
    if nxt:
        assert f"Next: {nxt.title}" in links

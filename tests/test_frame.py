"""The page frame: URL-bound controls (garbage links are clamped with a notice, never a traceback), the
running example shared across pages, the page registry and the share link."""

from __future__ import annotations

from urllib.parse import quote_plus

import pytest
from conftest import APP, open_page, page_text
from streamlit.testing.v1 import AppTest

import frame
from posenc.core import tokenize

PAGE = "lessons/scramble.py"


def deep_link(page: str, query: dict) -> AppTest:
    """A fresh session whose first run is ``page`` with ``query``: a browser opening /scramble?… directly."""
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(page)
    at.run()
    return at


def notices(at: AppTest) -> str:
    return "\n".join([e.value for e in (*at.warning, *at.info)] + [c.value for c in at.caption])


def assert_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


# ---------------------------------------------------------------- the sidebar's d and seed from a link

SIDEBAR_LINKS = [
    # query, key, value the widget must hold, words of the notice
    ({"d": "abc"}, "d", 64, "not usable; using 64"),
    ({"d": "-5"}, "d", 2, "outside its range; using 2"),
    ({"d": "0"}, "d", 2, "outside its range; using 2"),
    ({"d": "100000"}, "d", 512, "outside its range; using 512"),
    ({"d": "1e99"}, "d", 512, "outside its range; using 512"),
    ({"d": "64.5"}, "d", 64, "not usable; using 64"),
    ({"d": "63.5"}, "d", 64, "not usable; using 64"),  # the widget must hold what the notice says
    ({"d": "nan"}, "d", 64, "not usable; using 64"),
    ({"d": ""}, "d", 64, "not usable; using 64"),
    ({"d": "inf"}, "d", 64, "not usable; using 64"),
    ({"d": "-inf"}, "d", 64, "not usable; using 64"),
    ({"d": "1e400"}, "d", 64, "not usable; using 64"),
    ({"d": ["64", "128"]}, "d", 128, "2 times; using the last"),
    ({"seed": "nan"}, "seed", 0, "not usable; using 0"),
    ({"seed": "-1"}, "seed", 0, "outside its range; using 0"),
    ({"seed": "inf"}, "seed", 0, "not usable; using 0"),
    ({"seed": "10000000000000000000000"}, "seed", 9999, "outside its range; using 9999"),
    ({"zz": "1", "utm_source": "x"}, "d", 64, "2 parameter(s) this page does not use; ignored"),
]


@pytest.mark.parametrize("query,key,value,notice", SIDEBAR_LINKS, ids=[str(q) for q, *_ in SIDEBAR_LINKS])
def test_sidebar_link_values_are_clamped_with_a_notice(query, key, value, notice):
    at = deep_link(PAGE, query)
    assert_ok(at)
    assert at.number_input(key=key).value == value
    assert notice in notices(at)
    assert at.title[0].value == "The sentence scramble"
    assert len(at.get("vega_lite_chart")) >= 3  # the page still works


HOME_FIRST = [SIDEBAR_LINKS[i] for i in (0, 1, 3, 4, 9, 12, 15)]


@pytest.mark.parametrize("query,key,value,notice", HOME_FIRST, ids=[str(q) for q, *_ in HOME_FIRST])
def test_sidebar_link_values_via_home_then_page(query, key, value, notice):
    """The same links opened at the home page, then a switch to the scramble page: the value is kept."""
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert at.number_input(key=key).value == value


def test_valid_link_values_are_used_without_a_notice():
    at = deep_link(PAGE, {"d": "63", "seed": "42", "sentence": "the dog bit the man", "causal": "true",
                          "scramble": "Random shuffle", "shuffle": "5"})
    assert_ok(at)
    assert at.number_input(key="d").value == 63
    assert at.number_input(key="seed").value == 42
    assert at.text_input(key="sentence").value == "the dog bit the man"
    assert at.toggle(key="causal").value is True
    assert at.radio(key="scramble").value == "Random shuffle"
    assert at.number_input(key="shuffle").value == 5
    assert "link" not in notices(at).lower()


@pytest.mark.parametrize("query,key,value", [
    ({"causal": "maybe"}, "causal", False),
    ({"scramble": "Nonsense"}, "scramble", "Swap two words (the chapter's example)"),
    ({"scramble": "Random shuffle", "shuffle": "-7"}, "shuffle", 0),
    ({"scramble": "Random shuffle", "shuffle": "inf"}, "shuffle", 1),
], ids=["causal", "scramble", "shuffle-neg", "shuffle-inf"])
def test_page_link_values_are_clamped_with_a_notice(query, key, value):
    at = deep_link(PAGE, query)
    assert_ok(at)
    widget = {"causal": at.toggle, "scramble": at.radio, "shuffle": at.number_input}[key](key=key)
    assert widget.value == value
    assert f"“{key}”" in notices(at)


# ---------------------------------------------------------------- every frame control, on its own

CONTROLS = """
import streamlit as st
import frame

frame.begin_run()
values = {
    "t_i": frame.slider("i", "t_i", 0, 10, 5),
    "t_f": frame.slider("f", "t_f", 0.0, 1.0, 0.5, step=0.1),
    "t_n": frame.number("n", "t_n", 2, 512, 64, step=2),
    "t_x": frame.number("x", "t_x", 0.5, 2.0, 1.0),
    "t_s": frame.select("s", "t_s", ["a", "b", "c"], "b"),
    "t_k": frame.select("k", "t_k", [1, 2, 4], 2, kind="select_slider"),
    "t_b": frame.toggle("b", "t_b", False),
    "t_t": frame.text("t", "t_t", "hello", max_chars=10),
}
st.session_state["values"] = values
frame.unknown_params_notice()
"""

CONTROL_LINKS = [
    ("t_i", "abc", 5, "not usable"), ("t_i", "-3", 0, "outside"), ("t_i", "99", 10, "outside"),
    ("t_i", "inf", 5, "not usable"), ("t_i", "1e99", 10, "outside"), ("t_i", "2.5", 5, "not usable"),
    ("t_i", ["1", "7"], 7, "2 times"),
    ("t_f", "inf", 0.5, "not usable"), ("t_f", "2", 1.0, "outside"), ("t_f", "-1", 0.0, "outside"),
    ("t_f", "nan", 0.5, "not usable"),
    ("t_n", "inf", 64, "not usable"), ("t_n", "-inf", 64, "not usable"), ("t_n", "1e400", 64, "not usable"),
    ("t_n", "7e5", 512, "outside"),
    ("t_x", "inf", 1.0, "not usable"), ("t_x", "1e400", 1.0, "not usable"), ("t_x", "3", 2.0, "outside"),
    ("t_s", "z", "b", "not usable"), ("t_s", "", "b", "not usable"),
    ("t_k", "3", 2, "not usable"), ("t_k", "inf", 2, "not usable"),
    ("t_b", "maybe", False, "not usable"), ("t_b", "", False, "not usable"),
    ("t_t", "x" * 50, "x" * 10, "t_t"),
]


def run_controls(query: dict) -> AppTest:
    at = AppTest.from_string(CONTROLS, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


@pytest.mark.parametrize("key,raw,value,notice", CONTROL_LINKS,
                         ids=[f"{k}={str(r)[:12]}" for k, r, *_ in CONTROL_LINKS])
def test_every_control_survives_a_garbage_link(key, raw, value, notice):
    at = run_controls({key: raw})
    assert_ok(at)
    assert at.session_state["values"][key] == value
    assert notice in notices(at)


@pytest.mark.parametrize("key,raw,value", [
    ("t_i", "3", 3), ("t_f", "0.3", 0.3), ("t_n", "128", 128), ("t_s", "c", "c"), ("t_k", "4", 4),
    ("t_b", "true", True), ("t_b", "1", True), ("t_t", "bye", "bye"),
])
def test_every_control_reads_a_good_link(key, raw, value):
    at = run_controls({key: raw})
    assert_ok(at)
    assert at.session_state["values"][key] == value
    assert not at.warning and not at.info


def test_cut_text_notice_does_not_echo_the_text():
    """The notice for a too-long text is Markdown: it must not repeat what the link held."""
    raw = "![x](http://example.com/a.png)"
    at = run_controls({"t_t": raw})
    assert_ok(at)
    assert at.session_state["values"]["t_t"] == raw[:10]
    assert notices(at)
    assert all("![x]" not in n.value and "example.com" not in n.value for n in (*at.info, *at.warning))


def test_controls_without_a_link_use_defaults_quietly():
    at = run_controls({})
    assert_ok(at)
    assert at.session_state["values"] == {"t_i": 5, "t_f": 0.5, "t_n": 64, "t_x": 1.0, "t_s": "b", "t_k": 2,
                                          "t_b": False, "t_t": "hello"}
    assert not at.warning and not at.info and not at.caption


# ---------------------------------------------------------------- the running example across pages


def test_sidebar_state_survives_a_page_switch():
    at = open_page()
    assert_ok(at)
    at.text_input(key="sentence").input("the dog bit the man").run()
    at.number_input(key="d").set_value(32).run()
    at.number_input(key="seed").set_value(7).run()
    assert_ok(at)
    at.switch_page(PAGE).run()
    assert_ok(at)
    assert at.text_input(key="sentence").value == "the dog bit the man"
    assert at.number_input(key="d").value == 32
    assert at.number_input(key="seed").value == 7
    words = [list(map(str, df.value.loc["word"])) for df in at.dataframe if "word" in df.value.index]
    assert words[0] == tokenize("the dog bit the man")
    assert "32" in page_text(at)  # "over all 5 × 32 entries"
    at.switch_page("lessons/home.py").run()
    assert_ok(at)
    assert at.text_input(key="sentence").value == "the dog bit the man"


def test_page_controls_survive_a_round_trip():
    at = open_page(PAGE)
    at.toggle(key="causal").set_value(True).run()
    at.switch_page("lessons/home.py").run()
    at.switch_page(PAGE).run()
    assert_ok(at)
    assert at.number_input(key="d").value == frame.DEFAULT_D


# ---------------------------------------------------------------- registry and share link


def test_pages_registry():
    pages = frame.existing_pages()
    assert pages[0].path == "lessons/home.py" and pages[0].url_path == ""
    assert PAGE in [p.path for p in pages]
    order = [p.path for p in frame.PAGES]
    assert [p.path for p in pages] == [p for p in order if p in {q.path for q in pages}]
    assert len({p.url_path for p in frame.PAGES}) == len(frame.PAGES)
    assert frame.next_page(pages[-1].path) is None
    assert frame.next_page(pages[0].path) == pages[1]

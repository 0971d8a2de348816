"""frame.shared: a control that feeds several sections, drawn at page level — its value reaches every section in
the same run, it refuses to be drawn inside a section, and it keeps the student's picks wherever it is drawn."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, assert_ok


def run(sentence: str = "The cat chased the mouse", where: str = "None", **state) -> AppTest:
    body = f'''
import streamlit as st
import frame
from frame import shared

tokens = frame.tokens_or_stop({sentence!r})
with frame.page("lessons/rope.py", "A question?"):
    qi, ki = shared.words(tokens, "zz", where={where})

    @frame.section("First")
    def first():
        st.text(f"first: {{qi}} {{ki}}")

    @frame.section("Second")
    def second():
        st.text(f"second: {{qi}} {{ki}}")
'''
    at = AppTest.from_string(body, default_timeout=60)
    for k, v in state.items():
        at.session_state[k] = v
    return assert_ok(at.run())


def texts(at) -> list[str]:
    return [t.value for t in at.text]


def test_every_section_reads_the_pick_of_the_same_run():
    at = run()
    assert "query word: chased" in texts(at) and "key word: cat" in texts(at)
    assert "first: 2 1" in texts(at) and "second: 2 1" in texts(at)
    at.number_input(key="zz_qw").set_value(5).run()
    assert_ok(at)
    assert "query word: mouse" in texts(at)
    assert "first: 4 1" in texts(at) and "second: 4 1" in texts(at)


def test_defaults_on_another_sentence_and_a_clamped_stale_pick():
    at = run("dogs bark", zz_kw=9)
    q, k = at.number_input(key="zz_qw").value, at.number_input(key="zz_kw").value
    assert k == 2 and 1 <= q <= 2
    assert f"first: {q - 1} 1" in texts(at) and f"second: {q - 1} 1" in texts(at)


def test_the_sidebar_keeps_the_picks():
    at = run(where="st.sidebar", zz_qw=5)
    assert [n.key for n in at.sidebar.number_input] == ["zz_qw", "zz_kw"]
    assert "first: 4 1" in texts(at)


def test_inside_a_section_it_refuses():
    body = '''
import streamlit as st
import frame
from frame import shared

with frame.page("lessons/rope.py", "A question?"):
    @frame.section("Inside")
    def inside():
        shared.control(lambda: st.number_input("x", key="zz_x"))
'''
    at = AppTest.from_string(body, default_timeout=60).run()
    assert at.exception and "call it at page level" in at.exception[0].value


def test_no_page_uses_session_flags_or_reruns_to_share_a_pick():
    for page in ("lessons/rope.py",):
        source = (ROOT / page).read_text(encoding="utf-8")
        assert "st.rerun" not in source and "_full_run" not in source


@pytest.mark.parametrize("where", ["None", "st.sidebar"])
def test_the_word_is_text_never_markdown(where):
    at = run("![x](http://a/b.png) chased cat", where=where)
    assert "query word: chased" in texts(at)
    assert all("b.png" not in m.value for m in at.markdown)

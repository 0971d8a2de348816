"""The page frame: URL-bound controls (garbage links are clamped with a notice, never a traceback), the
running example shared across pages, the page registry and the share link."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

import frame
from conftest import (
    HOLDS,
    VERDICT,
    assert_ok,
    chart_readings,
    chart_spec,
    chart_specs,
    chart_texts,
    charts_of,
    deep_link,
    elements,
    in_mode,
    kind,
    notices,
    open_page,
    page_text,
    tab_container,
)
from posenc.core import tokenize

PAGE = "lessons/scramble.py"


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
    ({"scramble": "Nonsense"}, "scramble", "Swap two words"),
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
    assert f"original:  {' '.join(tokenize('the dog bit the man'))}" in page_text(at)
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


# ---------------------------------------------------------------- tabs and asides bound to the URL

LAYOUT = """
import streamlit as st
import frame

frame.begin_run()
tabs = frame.tabs(["One", "Two", "Three"], key="t_tab")
for tab, name in zip(tabs, ["one", "two", "three"]):
    with tab:
        st.text(f"inside {name}")
with frame.deeper("Why", key="t_deep"):
    st.text("the aside")
st.session_state["seen"] = (st.session_state.get("t_tab"), st.session_state.get("t_deep"))
"""


def run_layout(query: dict) -> AppTest:
    at = AppTest.from_string(LAYOUT, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    return assert_ok(at.run())


def _blocks(node):
    for key in sorted(getattr(node, "children", {})):
        child = node.children[key]
        yield child
        yield from _blocks(child)


@pytest.mark.parametrize("label,index", [("One", 0), ("Two", 1), ("Three", 2)])
def test_a_link_opens_its_tab(label, index):
    at = run_layout({"t_tab": label})
    assert at.session_state["seen"][0] == label
    container = tab_container(at)
    assert container.query_param_key == "t_tab"
    assert container.default_tab_index == index
    assert not at.warning and not at.info


def test_tabs_without_a_link_open_the_first_quietly():
    at = run_layout({})
    assert at.session_state["seen"] == ("One", False)
    assert tab_container(at).default_tab_index == 0
    assert not at.warning and not at.info


@pytest.mark.parametrize("raw", ["Nonsense", "", "one", "![x](http://127.0.0.1:9/x.png)"])
def test_a_garbage_tab_label_falls_back_to_the_first_tab_with_a_notice(raw):
    at = run_layout({"t_tab": raw})
    assert at.session_state["seen"][0] == "One"
    assert tab_container(at).default_tab_index == 0
    assert "“t_tab”" in notices(at) and "using One" in notices(at)
    assert all("127.0.0.1" not in n.value for n in (*at.warning, *at.info))  # the link's text is not echoed


@pytest.mark.parametrize("raw,opened,notice", [("true", True, False), ("1", True, False), ("false", False, False),
                                               ("maybe", False, True), ("", False, True)])
def test_a_deeper_aside_follows_its_link(raw, opened, notice):
    at = run_layout({"t_deep": raw})
    (aside,) = at.expander
    assert aside.label == "Deeper: Why"
    assert aside.proto.query_param_key == "t_deep"
    assert aside.proto.expanded is opened
    assert at.session_state["seen"][1] is opened
    assert ("“t_deep”" in notices(at)) is notice


def test_a_deeper_aside_is_closed_without_a_link():
    at = run_layout({})
    (aside,) = at.expander
    assert aside.proto.expanded is False


# ---------------------------------------------------------------- presentation mode


def present_sizes(at: AppTest, present: bool) -> tuple[set, list]:
    """The axis text sizes and the heights of the page's charts as the browser draws them in that mode."""
    specs = [in_mode(chart_spec(c), present) for c in charts_of(at)]
    return {s["config"]["axis"]["labelFontSize"] for s in specs}, [s.get("height") for s in specs]


def page_mode(at: AppTest) -> str:
    """What the page tells the browser (the presentation toggle's mount of frame.live): "1" while projecting."""
    mounts = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "posenc_live"]
    return next(m["present"] for m in mounts if m.get("role") == "present")


def test_presentation_mode_from_the_link():
    """?present=1 turns the sidebar's toggle on and tells the browser so; the charts are the same specs as out of
    it, drawn with 18 px text and at most PRESENT_MAX_HEIGHT high while projecting (13 px otherwise)."""
    page = next(p for p in frame.existing_pages() if p.url_path)
    at = assert_ok(open_page(page.path, query={"present": "1"}))
    assert at.toggle(key="present").value is True and page_mode(at) == "1"
    fonts, heights = present_sizes(at, True)
    assert charts_of(at), page.path
    assert fonts == {18}
    assert all(not isinstance(h, (int, float)) or h <= frame.skeleton.PRESENT_MAX_HEIGHT for h in heights)
    normal = assert_ok(open_page(page.path))
    assert normal.toggle(key="present").value is False and page_mode(normal) == ""
    assert present_sizes(normal, False)[0] == {13}



def test_presentation_toggle_tells_the_browser_and_keeps_the_charts():
    """On a page whose charts have one arrangement (the attention page's five steps go into a row when
    projected: that chart is rebuilt by design), the toggle sends the very same specs: the browser keeps them."""
    at = assert_ok(open_page("lessons/fixes.py"))
    before = chart_specs(at)
    at.toggle(key="present").set_value(True).run()
    assert_ok(at)
    assert page_mode(at) == "1" and chart_specs(at) == before


def test_presenting_caps_a_tall_chart_and_enlarges_its_text():
    script = """
import altair as alt
import streamlit as st
import frame
from posenc.charts import spec

frame.begin_run()
frame.toggle("Presentation mode", "present", False)
tall = spec.layout(lambda: alt.Chart(spec.named("m")).mark_line().encode(x="x:Q", y="y:Q").properties(height=700))
fig = spec.figure(tall(), {"m": spec.columns(x=[1, 2], y=[1, 2])}, description="A tall line: it rises.")
frame.chart(fig)
"""
    at = AppTest.from_string(script, default_timeout=60)
    assert_ok(at.run())
    for present, font, height in ((True, 18, frame.skeleton.PRESENT_MAX_HEIGHT), (False, 13, 700)):
        s = in_mode(chart_spec(charts_of(at)[0]), present)
        assert s["config"]["axis"]["labelFontSize"] == font and s["height"] == height
        assert s["description"] == "A tall line: it rises."


def test_a_chart_s_reading_follows_it_escaped_and_its_description_stays_fixed():
    """The numbers of this setting are read out after the chart (our markup, the text escaped: a reading may
    quote the student's sentence), so the spec, description included, is the same at every setting and the
    browser keeps the chart."""
    script = """
import altair as alt
import streamlit as st
import frame
from posenc.charts import spec

frame.begin_run()
k = st.number_input("k", 1, 9, 2, key="k")
line = spec.layout(lambda: alt.Chart(spec.named("m")).mark_line().encode(x="x:Q", y="y:Q"))
fig = spec.figure(line(), {"m": spec.columns(x=[1, 2], y=[1, k])}, description="A line: it rises.",
                  reading=f"It ends at <b>{k}</b> & up.")
frame.chart(fig)
st.markdown("after")
"""
    at = assert_ok(AppTest.from_string(script, default_timeout=60).run())
    first = chart_spec(charts_of(at)[0])
    assert chart_readings(at) == ["It ends at <b>2</b> & up."]
    assert chart_texts(at) == ["A line: it rises. It ends at <b>2</b> & up."]
    assert "&lt;b&gt;2&lt;/b&gt; &amp; up" in frame.live.reading_html("It ends at <b>2</b> & up.")
    assert_ok(at.number_input(key="k").set_value(5).run())
    assert chart_spec(charts_of(at)[0]) == first and chart_readings(at) == ["It ends at <b>5</b> & up."]


# ---------------------------------------------------------------- verdicts, predictions, glossary words

VERDICTS = """
import frame

frame.verdict("the copies get equal weights", True, "largest gap 0")
frame.verdict("Attn(PX) = P·Attn(X)", False, "largest error 0.38, tolerance 1e-12")
"""


def test_verdicts_say_holds_or_does_not_hold_with_claim_and_measurement():
    at = assert_ok(AppTest.from_string(VERDICTS, default_timeout=60).run())
    lines = [m.value for m in at.markdown]
    assert lines == [":material/check_circle: **Holds** — the copies get equal weights: largest gap 0",
                     ":material/cancel: **Does not hold** — Attn(PX) = P·Attn(X): largest error 0.38, tolerance 1e-12"]
    parsed = [VERDICT.match(line) for line in lines]
    assert [(p["claim"], p["measured"]) for p in parsed] == [
        ("the copies get equal weights", "largest gap 0"),
        ("Attn(PX) = P·Attn(X)", "largest error 0.38, tolerance 1e-12")]


PREDICT = """
import streamlit as st
import frame

with frame.page("lessons/rope.py", "LEAD: where does the score come from?"):
    @frame.section("The key chart")
    def key():
        q = frame.predict("At position 500, which word wins?", ["the first", "the last", "a tie"], 1, key="t_pred")
        st.markdown("CHART")
        q.answer("EXPLAINED: the index term is 500 times larger.", then="WHY: 500 against a spread of 8.")
        frame.verdict("the index term is larger", True, "500 against 8")
"""


def predict_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n" + "\n".join(c.value for c in at.caption)


def test_predict_hides_the_answer_until_a_pick():
    at = assert_ok(AppTest.from_string(PREDICT, default_timeout=60).run())
    text = predict_text(at)
    assert at.radio(key="t_pred_guess").label == "**Predict.** At position 500, which word wins?"
    assert at.radio(key="t_pred_guess").value is None
    assert "EXPLAINED" not in text and "Right" not in text and "Not quite" not in text
    assert "WHY" not in text  # the prose that explains the answer waits with it
    assert [b.label for b in at.button] == ["Show me the answer"]


def test_predict_right_pick_shows_the_answer_after_the_chart():
    at = assert_ok(AppTest.from_string(PREDICT, default_timeout=60).run())
    at.radio(key="t_pred_guess").set_value("the last").run()
    text = predict_text(at)
    assert "**Right.** EXPLAINED: the index term is 500 times larger." in text
    assert text.index("CHART") < text.index("EXPLAINED") < text.index("WHY: 500 against a spread of 8.")
    assert not at.button


def test_predict_wrong_pick_names_the_answer_and_explains():
    at = assert_ok(AppTest.from_string(PREDICT, default_timeout=60).run())
    at.radio(key="t_pred_guess").set_value("a tie").run()
    text = predict_text(at)
    assert "Not quite" in text and "“the last”" in text and "EXPLAINED" in text
    assert "**Right.**" not in text


def test_show_me_reveals_the_answer_without_a_pick():
    at = assert_ok(AppTest.from_string(PREDICT, default_timeout=60).run())
    at.button(key="t_pred_show").click().run()
    text = predict_text(at)
    assert "**The answer:** “the last”. EXPLAINED" in text
    assert at.radio(key="t_pred_guess").value is None


def test_picking_announces_itself_in_a_live_region():
    at = assert_ok(AppTest.from_string(PREDICT, default_timeout=60).run())
    assert not [h for h in at.get("html") if 'role="status"' in h.proto.body]
    at.radio(key="t_pred_guess").set_value("the first").run()
    assert [h for h in at.get("html") if 'role="status"' in h.proto.body and 'aria-live="polite"' in h.proto.body]


def test_verdicts_go_into_the_folded_checks_block_after_the_body():
    at = assert_ok(AppTest.from_string(PREDICT, default_timeout=60).run())
    order = [str(e.value) for e in elements(at) if kind(e) == "markdown"]
    summary = next(i for i, v in enumerate(order) if "checks hold" in v or "check holds" in v)
    line = next(i for i, v in enumerate(order) if v.startswith(HOLDS))
    assert order.index("CHART") < summary < line
    expander = next(e for e in at.expander if e.label == frame.skeleton.CHECKS_LABEL)
    assert [m.value for m in expander.markdown] == [
        ":material/check_circle: **Holds** — the index term is larger: 500 against 8"]


SUMMARY = """
import frame

with frame.page("lessons/rope.py", "LEAD"):
    @frame.section("One")
    def one():
        frame.verdict("a", True, "1")
        frame.verdict("b", False, "2")
    frame.verdict("c", True, "3")
"""


def test_the_summary_counts_every_check_in_words():
    at = assert_ok(AppTest.from_string(SUMMARY, default_timeout=60).run())
    [line] = [m.value for m in at.markdown if m.value.startswith(":material/cancel:") and " of 3 " in m.value]
    assert line.startswith(":material/cancel: **1 of 3 checks does not hold** — the claim it tests is false"), line


TWO_FAIL = SUMMARY.replace('frame.verdict("c", True', 'frame.verdict("c", False')


def test_the_summary_agrees_in_number_with_its_count():
    at = assert_ok(AppTest.from_string(TWO_FAIL, default_timeout=60).run())
    [line] = [m.value for m in at.markdown if m.value.startswith(":material/cancel:") and " of 3 " in m.value]
    assert line.startswith(":material/cancel: **2 of 3 checks do not hold** — the claims they test are false"), line


@pytest.mark.parametrize("word", sorted(frame.GLOSSARY))
def test_term_links_to_its_definition_on_the_same_page(word):
    md = frame.term(word)
    assert md.startswith(f"[{word}](#term-{word} ")
    definition = md[md.index(" ", md.index("(")) + 1:-1]
    assert definition.startswith('"') and definition.endswith('"') and '"' not in definition[1:-1]
    assert frame.term(word, "queries").startswith(f"[queries](#term-{word} ")


def test_term_rejects_a_word_outside_the_glossary():
    with pytest.raises(KeyError):
        frame.term("banana")


TERMS = f"""
import streamlit as st
import frame
with frame.page({frame.PAGES[-1].path!r}, "Which word?"):  # the last page: its bridge has no Next link
    st.markdown(f"the {{frame.term('key')}} and the {{frame.term('query')}} and the {{frame.term('key', 'keys')}}")
    frame.bridge({frame.PAGES[-1].path!r}, "The end.")
"""


def test_the_page_lists_the_words_it_linked_with_their_definitions():
    """Once each, in the order the prose used them, before the bridge; the definition is the glossary's."""
    at = assert_ok(AppTest.from_string(TERMS, default_timeout=60).run())
    html_bodies = [str(e.proto) for e in _blocks(at.main) if type(e).__name__ == "UnknownElement" or
                   "html" in type(e).__name__.lower()]
    body = next(b for b in html_bodies if "pe-terms" in b)
    assert body.count("term-key") == 1 and body.index("term-key") < body.index("term-query")
    assert "Words on this page" in body and "term-value" not in body
    assert frame.GLOSSARY["key"].split(":")[0] in body


# ---------------------------------------------------------------- the one private Streamlit use, guarded

SEED = """
import streamlit as st
from streamlit.runtime.state import get_session_state

with get_session_state().query_params() as qp:
    st.session_state["has_initial"] = hasattr(qp, "_initial_query_params")
    initial = getattr(qp, "_initial_query_params", None)
    st.session_state["initial_is_dict"] = isinstance(initial, dict)
    st.session_state["initial_keys"] = sorted(initial) if isinstance(initial, dict) else None
"""


def test_the_private_attribute_seed_url_relies_on_still_exists():
    """frame.urlstate._seed_url writes Streamlit's private ``_initial_query_params``: an upgrade that removes
    or reshapes it must fail here, not silently in a student's browser."""
    at = AppTest.from_string(SEED, default_timeout=60)
    at.query_params["d"] = "32"
    assert_ok(at.run())
    assert at.session_state["has_initial"] is True
    assert at.session_state["initial_is_dict"] is True
    assert at.session_state["initial_keys"] == ["d"]


@pytest.mark.parametrize("key,raw,shown", [("t_i", "2.5", 5), ("t_n", "inf", 64), ("t_i", "1e99", 10)])
def test_seed_url_makes_the_widget_hold_what_the_notice_says(key, raw, shown):
    """Without _seed_url Streamlit seeds ?t_i=2.5 as 2 on an int slider (while the notice says 5) and lets
    ?t_n=inf raise an OverflowError."""
    at = run_controls({key: raw})
    assert_ok(at)
    widget = at.slider(key=key) if key == "t_i" else at.number_input(key=key)
    assert widget.value == shown
    assert f"using {shown}" in notices(at)


# ---------------------------------------------------------------- the server's sockets (frame/net.py)

def _open_fds() -> int:
    import os
    return len(os.listdir("/proc/self/fd"))


def test_no_delay_turns_nagle_off_on_a_listener_bound_as_streamlit_binds_and_on_what_it_accepts():
    """A listener made with protocol 0 (as Streamlit 1.67 makes it) hands out connections without TCP_NODELAY
    (asyncio skips them); after ``no_delay`` the listener and every connection it accepts have it, and no
    descriptor is left open by the look."""
    import socket

    import frame.net

    listener = socket.socket(socket.AF_INET)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    with listener:
        before = socket.create_connection(listener.getsockname())
        early, _ = listener.accept()
        assert early.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0  # the bug this works around
        fds = _open_fds()
        assert frame.net.no_delay(force=True) >= 3  # the listener and both ends of the early connection
        assert _open_fds() == fds
        assert early.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        with socket.create_connection(listener.getsockname()):
            late, _ = listener.accept()
            with late:
                assert late.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        before.close()
        early.close()
    assert frame.net.no_delay() == 0  # once per process unless forced


def test_streamlit_still_binds_its_listener_without_the_tcp_protocol():
    """frame/net.py exists because Streamlit's server binds with protocol 0 (so asyncio leaves Nagle on). When an
    upgrade binds with IPPROTO_TCP this fails: frame.net.no_delay and its call in app.py can go."""
    import socket

    from streamlit.web.server.starlette import starlette_server

    sock = starlette_server._bind_socket("127.0.0.1", 0, 8)
    with sock:
        assert sock.proto == 0
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0


def test_warm_runs_its_work_once_per_name_in_the_background_and_logs_a_failure(caplog, monkeypatch):
    import uuid

    from frame import parts

    monkeypatch.setattr(parts, "WARM_AFTER_S", 0.0)
    name = f"test: counting {uuid.uuid4()}"  # its own name: a rerun of this test in one process starts afresh
    ran = []
    first = frame.warm(name, [lambda: ran.append(1), lambda: ran.append(2)])
    again = frame.warm(name, [lambda: ran.append(3)])
    assert frame.warmed(5)
    assert again is first and ran == [1, 2]  # the second call finds the first one's thread: nothing runs again

    def broken() -> None:
        raise RuntimeError("no layout")

    with caplog.at_level("ERROR"):
        frame.warm(f"test: broken {uuid.uuid4()}", [broken]).join(5)  # raises nowhere: the page never sees it
    assert "failed" in caplog.text and "no layout" in caplog.text

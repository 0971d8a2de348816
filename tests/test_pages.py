"""What every page must have (the page skeleton, frame/skeleton.py), checked on every page of the page list.

One test per property, parametrised over ``frame.existing_pages()``; each page is opened through app.py
(AppTest), at its defaults unless the property needs otherwise:

- every chart has a non-empty ``description`` (its accessible name), the house config, and ≤ 5,000 data rows;
- every table is an Arrow table built from its columns (frame.table / frame.strip), never a pandas DataFrame;
- student text never goes through Markdown (a hostile sentence appears only in text, code, dataframes, charts);
- the question comes first: a Predict before the chart that answers it, no verdict above it, the answer hidden
  until the student picks (or presses Show me); every verdict folded into the one Checks block, a summary line
  on the main path counting them in words;
- prose never states a claim its own check refutes, at random reachable settings (sidebar and page controls);
- checks are verdicts in plain words (“✔ Holds — claim: measured”), no old ✓/✗ check lines;
- a page script is narrative: at most 250 lines, and every heading that draws a chart asks a Predict first;
- the h1 is the page list's title, headings go h1 → h2 → h3 without skipping;
- every glossary link goes to its word's definition on the same page (readable without hovering, same tab);
- no page opens on an exception or an error box at its defaults;
- every control of the main area reruns only its section (an ``st.fragment``), on a real server.
"""

from __future__ import annotations

import random
import re

import pyarrow as pa
import pyarrow.ipc  # noqa: F401  (pa.ipc)
import pytest
from streamlit.testing.v1 import AppTest

import frame
from conftest import (
    FAILS,
    HOLDS,
    IDS,
    LESSON_IDS,
    LESSONS,
    LINKED,
    OLD_CHECK_MARKS,
    PAGES,
    VERDICT,
    assert_ok,
    chart_rows,
    chart_spec,
    charts_of,
    checks_block,
    elements,
    kind,
    link_groups,
    main_path,
    markdown_values,
    open_page,
    predict_radios,
    verdict_lines,
)
from posenc import chapter
from posenc.charts import spec as chart_style

# A sentence a student could type or a link could carry: a remote image, inline math, raw HTML, bold, and a
# word no page prints by itself. None of it may reach an element the browser renders as Markdown.
HOSTILE_PARTS = ("![x](http://127.0.0.1:9/x.png)", "$x$", "<b>html</b>", "**bold**", "zyzzyva")
HOSTILE = "the cat zyzzyva chased ![x](http://127.0.0.1:9/x.png) $x$ the <b>html</b> **bold** mouse"

_opened: dict[str, AppTest] = {}


def at_defaults(info: frame.PageInfo) -> AppTest:
    """The page at its defaults, opened once per test session (properties only read it)."""
    if info.path not in _opened:
        _opened[info.path] = open_page(info.path)
    return _opened[info.path]


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_opens_without_an_exception_or_an_error_box(info):
    at = at_defaults(info)
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_chart_has_a_description(info):
    at = assert_ok(at_defaults(info))
    for i, chart in enumerate(charts_of(at)):
        description = chart_spec(chart).get("description")
        assert isinstance(description, str) and description.strip(), f"chart {i + 1} has no description"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_chart_has_the_house_style(info):
    """Drawn through posenc.charts.spec.figure + frame.chart: the house text colour, legends below, a layout redone
    at every update."""
    at = assert_ok(at_defaults(info))
    for i, chart in enumerate(charts_of(at)):
        config = chart_spec(chart).get("config", {})
        assert config.get("axis", {}).get("labelColor") == chart_style.TEXT, f"chart {i + 1}: no house config"
        assert config.get("legend", {}).get("orient") == "bottom", f"chart {i + 1}: legend not below"
        # laid out again at every update: presentation mode grows the text in the browser (spec.PRESENT_PARAM),
        # and a layout kept from the small text cut titles and labels off
        assert chart_spec(chart).get("autosize", {}).get("resize") is True, f"chart {i + 1}: no autosize resize"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_link_group_lights_two_charts_or_more_and_is_pointed_at_in_the_browser(info):
    """A group of linked charts (spec.Link) has at least two charts on its page (one alone links nothing), and
    conftest.LINKED names every group a page draws, so tests/test_browser.py points at a mark of each."""
    at = assert_ok(at_defaults(info))
    counts: dict[str, int] = {}
    for chart in charts_of(at):
        for group in link_groups(chart_spec(chart)):
            counts[group] = counts.get(group, 0) + 1
    alone = {g: n for g, n in counts.items() if n < 2}
    assert not alone, f"groups with one chart: {alone}"
    listed = {g for g, (page, _) in LINKED.items() if page == (info.url_path or "home")}
    assert set(counts) == listed, f"drawn {sorted(counts)}, listed in conftest.LINKED {sorted(listed)}"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_chart_ships_at_most_5000_rows(info):
    """The pipeline's cap (spec.MAX_MARKS) is within the guide's limit ("≤ 5,000 data rows per figure"), and what
    a page sends is within the cap."""
    assert chart_style.MAX_MARKS <= 5000
    at = assert_ok(at_defaults(info))
    for i, chart in enumerate(charts_of(at)):
        rows = chart_rows(chart)
        assert rows <= chart_style.MAX_MARKS, f"chart {i + 1} ({chart_spec(chart).get('description', '')[:60]!r}): {rows} rows"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_table_is_sent_as_built_from_its_columns(info):
    """Tables go through frame.table / frame.strip: one Arrow table built from the columns. A pandas DataFrame
    would carry pandas' schema metadata, and Streamlit would convert it column by column on every run."""
    at = assert_ok(at_defaults(info))
    for i, t in enumerate(list(at.dataframe) + list(at.table)):
        schema = pa.ipc.open_stream(getattr(t.proto, "arrow_data", t.proto).data).schema
        assert b"pandas" not in (schema.metadata or {}), f"table {i + 1} ({schema.names[:3]}) came from pandas"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_student_text_never_reaches_markdown(info):
    """The sentence comes in through a link (as a shared link would carry it)."""
    at = open_page(info.path, query={"sentence": HOSTILE})
    assert_ok(at)
    assert at.text_input(key="sentence").value == HOSTILE  # the page really got the hostile sentence
    rendered = markdown_values(at)
    for part in HOSTILE_PARTS:
        leaks = [v for v in rendered if part in v]
        assert not leaks, f"{part!r} reached Markdown: {leaks[:3]}"




@pytest.mark.parametrize("info", LESSONS, ids=LESSON_IDS)
def test_the_question_comes_first(info):
    """Title → lead → Predict → its chart → the answer: the page asks before it answers. No verdict and no
    answer above the first Predict; a chart after every Predict; the answer hidden until the student picks
    (a “Show me the answer” button stands in for it)."""
    at = assert_ok(at_defaults(info))
    order = list(main_path(at))
    asks = [i for i, e in enumerate(order) if kind(e) == "radio" and e in predict_radios(at)]
    assert asks, "the page asks no Predict question"
    before = [e.value for e in order[:asks[0]] if kind(e) == "markdown" and str(e.value).startswith((HOLDS, FAILS))]
    assert not before, f"a verdict above the first Predict: {before[:2]}"
    for i in asks:
        assert any(kind(e) == "vega_lite_chart" for e in order[i + 1:]), f"no chart after {order[i].label[:80]!r}"
    text = "\n".join(str(getattr(e, "value", "")) for e in order)
    assert "**Right.**" not in text and "**Not quite**" not in text, "an answer shows before any pick"
    shows = [b for b in at.button if b.label == "Show me the answer"]
    assert len(shows) == len(asks), f"{len(asks)} Predicts but {len(shows)} hidden answers"


PAGE_LINES = 250  # a page is narrative: machinery that would push it past this lives in frame or posenc


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_page_script_stays_narrative_in_length(info):
    lines = len((frame.ROOT / info.path).read_text().splitlines())
    assert lines <= PAGE_LINES, f"{info.path}: {lines} lines (at most {PAGE_LINES})"


@pytest.mark.parametrize("info", LESSONS, ids=LESSON_IDS)
def test_every_idea_asks_before_its_chart(info):
    """One idea per heading, and each asks first: under every heading (h2 or h3) whose main path draws a chart,
    a Predict question stands above that heading's first chart."""
    at = assert_ok(at_defaults(info))
    radios, heading, asked, missing = predict_radios(at), None, False, []
    for e in main_path(at):
        if kind(e) in ("header", "subheader"):
            heading, asked = e.value, False
        elif kind(e) == "radio" and e in radios:
            asked = True
        elif kind(e) == "vega_lite_chart" and heading is not None and not asked:
            missing.append(heading)
            asked = True  # one report per heading
    assert not missing, f"a chart before any Predict under: {missing}"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_verdict_is_folded_into_the_checks_block(info):
    """Proof goes into the page's one folded Checks block, with a one-line summary on the main path."""
    at = assert_ok(at_defaults(info))
    outside = [str(e.value) for e in main_path(at) if kind(e) == "markdown" and str(e.value).startswith((HOLDS, FAILS))]
    assert not outside, f"verdicts on the main path: {outside[:3]}"
    block = checks_block(at)
    inside = verdict_lines(block) if block else []
    if inside:
        summaries = [str(e.value) for e in main_path(at) if kind(e) == "markdown"
                     and (" checks hold." in str(e.value) or "check holds." in str(e.value)
                          or " not hold**" in str(e.value))]
        assert len(summaries) == 1, summaries
        n = len(inside)
        held = sum(v.startswith(HOLDS) for v in inside)
        assert (f"{n} of {n} checks hold" in summaries[0] if held == n and n > 1
                else "one check holds" in summaries[0] if n == 1 and held == 1
                else f"{n - held} of {n} checks {'does' if n - held == 1 else 'do'} not hold" in summaries[0]), \
            (summaries[0], held, n)


# Settings a student can reach: sentences (with copies, without, short, long, another script), widths and seeds.
SENTENCES = (chapter.SENTENCE, "the cat", "a b c d e f g h i j", "dog bites man and man bites dog",
             "बिल्ली ने चूहे का पीछा किया बिल्ली", " ".join(["word"] * 12 + ["other"] * 12))
WIDTHS = (2, 4, 6, 8, 64, 512)


def reachable_settings(info, at: AppTest, draws: int, rnd: random.Random) -> list[dict[str, str]]:
    """``draws`` random settings of the sidebar and of every number and slider the page shows (their range
    read from the widgets themselves), as a link's query parameters."""
    out = []
    numeric = [w for w in (*at.number_input, *at.slider) if w.key and w.key not in ("d", "seed")
               and isinstance(getattr(w, "min", None), (int, float)) and isinstance(getattr(w, "max", None), (int, float))]
    for _ in range(draws):
        q = {"sentence": rnd.choice(SENTENCES), "d": str(rnd.choice(WIDTHS)), "seed": str(rnd.randrange(0, 50))}
        for w in numeric:
            lo, hi = w.min, w.max
            pick = rnd.choice([lo, hi, lo + (hi - lo) * rnd.random()])
            q[w.key] = str(int(round(pick)) if isinstance(lo, int) and isinstance(hi, int) else round(float(pick), 3))
        out.append(q)
    return out


@pytest.mark.parametrize("info", LESSONS, ids=LESSON_IDS)
def test_prose_never_states_a_claim_its_own_check_refutes(info):
    """At random reachable settings (the sidebar's sentence, d and seed, and every number or slider on the
    page): no exception, and when a check does not hold, its claim is not stated anywhere on the main path.
    The mechanism: a page words each checked claim once, in its verdict, and conditions any prose that repeats
    the claim on the same boolean — so a claim printed on the main path beside a failing check is a sentence that
    is false at that setting."""
    rnd = random.Random(f"prose-{info.url_path}")
    base = at_defaults(info)
    for q in reachable_settings(info, base, 3, rnd):
        at = open_page(info.path, query=q)
        assert not at.exception, (q, [e.value for e in at.exception])
        block = checks_block(at)
        if block is None:
            continue
        failing = [VERDICT.match(m.value)["claim"] for m in block.markdown if m.value.startswith(FAILS)]
        said = "\n".join(str(e.value) for e in main_path(at) if kind(e) in ("markdown", "caption", "header",
                                                                          "subheader", "info", "success"))
        stated = [c for c in failing if len(c) > 12 and c in said]
        assert not stated, f"at {q}: the main path states {stated[:2]} while its check does not hold"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_check_is_a_verdict(info):
    at = assert_ok(at_defaults(info))
    old = [v for v in markdown_values(at) if any(mark in v for mark in OLD_CHECK_MARKS)]
    assert not old, f"old check lines remain: {old[:3]}"
    for m in at.markdown:
        if m.value.startswith((HOLDS, FAILS)):
            parsed = VERDICT.match(m.value)
            assert parsed, f"a verdict without “— claim: measured”: {m.value!r}"
            assert parsed["claim"].strip() and parsed["measured"].strip(), m.value


def heading_levels(at: AppTest) -> list[tuple[int, str]]:
    """(level, text) of every heading in the main area, in document order: st.title 1, st.header 2,
    st.subheader 3, and Markdown "#"-headings at their level."""
    levels = {"title": 1, "header": 2, "subheader": 3}
    out = []
    for e in elements(at):
        k = kind(e)
        if k in levels:
            out.append((levels[k], str(e.value)))
        elif k == "markdown" and str(e.value).lstrip().startswith("#"):
            hashes = len(str(e.value).lstrip()) - len(str(e.value).lstrip().lstrip("#"))
            out.append((hashes, str(e.value)))
    return out


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_title_is_the_page_lists_and_headings_do_not_skip(info):
    at = assert_ok(at_defaults(info))
    levels = heading_levels(at)
    assert levels, "no heading at all"
    assert levels[0] == (1, info.title), f"the first heading is {levels[0]}, not the h1 {info.title!r}"
    assert [t for lvl, t in levels if lvl == 1] == [info.title], "more than one h1"
    for (prev, _), (lvl, text) in zip(levels, levels[1:]):
        assert lvl <= prev + 1, f"h{prev} → h{lvl} skips a level at {text[:60]!r}"



@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_glossary_link_lands_on_its_definition_on_the_page(info):
    """frame.term's links are in-page anchors (#term-<word>: the browser stays in this tab and the address keeps
    every parameter) to a definition the page draws in its last lines, so no definition lives only in a hover
    title."""
    at = at_defaults(info)
    links = [href for md in markdown_values(at) for href in re.findall(r"\]\(([^\s)]+)", md)]
    assert not [h for h in links if "glossary" in h], "a glossary link that leaves the page"
    words = {h.removeprefix("#" + frame.parts.TERM_ANCHOR) for h in links if h.startswith("#" + frame.parts.TERM_ANCHOR)}
    drawn = " ".join(str(node.proto) for node in elements(at) if kind(node) == "html")
    missing = [w for w in sorted(words) if f'id=\\"{frame.parts.TERM_ANCHOR}{w}\\"' not in drawn
               and f'id="{frame.parts.TERM_ANCHOR}{w}"' not in drawn]
    assert not missing, missing


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_control_reruns_cleanly_on_a_real_server(info, server):
    """AppTest does not hold a run to every rule of Streamlit's runtime (a fragment may fill a container made
    outside it only if the page's run wrote there too: a rerun of one section alone raised on three pages while
    every AppTest passed). So, on a real server over the websocket: press every control of the page's main area
    one step, as a student would, then back, while it is still on the page; no run may show an exception
    (``Session.rerun`` raises on one)."""
    import asyncio

    from harness.wsclient import Session

    async def go() -> list[str]:
        s = Session(server, info.url_path, timeout=120)
        pressed = []
        try:
            await s.open()
            for control in s.page_controls():
                for up in (True, False):
                    value = control.moved(up)
                    # a control an earlier press took off the page (the lab's questions name an untrained
                    # setting) cannot be pressed in a browser either: its fragment's run would never finish
                    if value != control.value and control.id in s.order:
                        await s.rerun((control, value))
                        pressed.append(control.label)
            return pressed
        finally:
            await s.close()

    pressed = asyncio.run(go())
    assert pressed or info.url_path in ("", "attention", "teach"), "no control of the main area was pressed"


def _drawn(at: AppTest) -> list[str]:
    """The main area and the sidebar as drawn, less what says which mode it is (the toggle, its mount)."""
    def own(root):
        return [str(n.proto) for n in elements(at, root) if hasattr(n, "proto")
                and kind(n) != "toggle" and getattr(n, "key", None) != frame.live.PRESENT_MOUNT_KEY]
    return own(at.main) + own(at.sidebar)


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_a_page_the_presentation_toggle_leaves_alone_draws_the_same_projected(info):
    """The sidebar's presentation toggle reruns only itself: charts and the page's style follow the mode in the
    browser (frame.live.presentation_toggle). Only a page whose script asked frame.presenting() is run again, so
    every other page must draw the very same elements with ?present=1 as without."""
    normal = assert_ok(open_page(info.path))
    projected = assert_ok(open_page(info.path, query={"present": "1"}))
    state = projected.session_state
    asked = frame.live.PRESENT_READERS in state and info.url_path in state[frame.live.PRESENT_READERS]
    assert asked or _drawn(projected) == _drawn(normal), "drawn differently projected, without asking presenting()"


def test_the_presentation_toggle_reruns_only_itself_unless_the_page_asked(server):
    """On a real server: on the fixes page (charts alone follow the mode) a press of the toggle is a run of its
    fragment, a few KB, on RoPE too (its word pickers sit in the sidebar in both modes) and on the lab (its task
    line moves under the chart projected, both drawn: frame.live.shown_when); on attention, whose
    panels differ projected, it runs the page."""
    import asyncio

    from harness.wsclient import SIDEBAR, Session

    async def press(url_path: str) -> tuple[bool, list[str]]:
        s = Session(server, url_path, timeout=120)
        try:
            await s.open()
            toggle = next(c for c in s.ordered() if c.root == SIDEBAR and c.label == "Presentation mode")
            await s.rerun((toggle, True))
            return s.last.fragment, [c.label for c in s.ordered() if c.root == SIDEBAR]
        finally:
            await s.close()

    for url_path in ("fixes", "rope", "lab"):  # the lab moves a line projected with frame.shown_when
        fragment, sidebar = asyncio.run(press(url_path))
        assert fragment, f"the toggle reran the whole {url_path} page"
        if url_path == "rope":
            assert "Query word (its place)" in sidebar, sidebar  # RoPE's words sit in the sidebar in both modes
    fragment, _ = asyncio.run(press("attention"))
    assert not fragment, "attention draws its panels differently projected: its page must run again"


# Main-area controls that rerun the whole page, and why (the house rule: a page-wide rerun is for the sidebar).
PAGE_WIDE = {"lab": ("Task", "k (copy)", "Layers", "Training length", "Steps", "Heads", "Start token",
                     "MLP block")}  # the lab's experiment: the section under it explains the settings it drew


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_main_area_control_reruns_only_its_section(info, server):
    """Every widget of the main area is drawn inside an ``st.fragment`` (read from the protocol: the fragment id
    the server gives it), so a press reruns its section and not the page; ``PAGE_WIDE`` names the exceptions."""
    import asyncio

    from harness.wsclient import Session

    async def controls() -> list:
        s = Session(server, info.url_path, timeout=120)
        try:
            await s.open()
            return s.page_controls()
        finally:
            await s.close()

    wide = sorted(c.label for c in asyncio.run(controls()) if not c.fragment_id)
    assert wide == sorted(PAGE_WIDE.get(info.url_path, ())), f"main-area controls that rerun the page: {wide}"

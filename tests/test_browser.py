"""Browser tests: Playwright driving Debian's Chromium against a real `streamlit run app.py` (one server per
module). They fail (never skip) when Chromium or axe-core is missing. Screenshots go to artifacts/screenshots/.

- every page at 1366×768, 1024×768 and 390×844, and projected: no exception, no chart leaving its container or
  the window, no chart text cut short;
- at 1366×768 the first chart starts on the first screen;
- a control inside a section reruns only that section (a fragment), moves its chart and the URL, and the
  “Copy the link to this view” link opens the same view in a new browser;
- tabs and “Deeper” expanders live in the URL; presentation mode (?present=1);
- axe-core finds no WCAG 2 A/AA violation in the app's own markup, and every chart has an accessible name;
- a fresh server's first request can be a deep link; navigation keeps the sentence; hostile text stays text.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from playwright.sync_api import expect

from conftest import IDS, LESSON_IDS, LESSONS, LINKED, PAGES, ROOT
from harness.browser import (
    DONE,
    SLOW,
    Frames,
    chart_names,
    chart_overflows,
    chart_pictures,
    first_chart_top,
    full_screenshot,
    grow_to_content,
    open_app,
    run_axe,
    streamlit_server,
    wait_charts,
    wait_done,
)
from posenc.charts.spec import PRESENT_EVENT

SIZES = [(1366, 768), (1024, 768), (390, 844)]
FIRST_SCREEN = 768  # at 1366×768 the key chart starts on the first screen
MAIN_PATH_BUDGET = {(1366, 768): 3000, (390, 844): 4500}  # px, every expander closed (issue: narrative economy)
KEY_CHART_SHOWN = 300  # px of the key chart (or all of it) on the first laptop screen
PROJECTOR = (1280, 720)  # presentation mode on a projector, drawn at 150 % (device scale factor 1.5)
(ROOT / "artifacts").mkdir(exist_ok=True)
expect.set_options(timeout=60_000)  # a loaded shared machine; no test asserts a time


def source(info) -> str:
    return (ROOT / info.path).read_text(encoding="utf-8")


def pages_using(*calls: str) -> list:
    """Pages whose script calls any of ``calls`` (read from the script, at collection)."""
    return [p for p in PAGES if any(c in source(p) for c in calls)]


def params_or_failure(pages: list, what: str) -> list:
    """Parametrise over ``pages``; when none qualifies, one case that fails and says so (never an empty,
    silently skipped parametrisation)."""
    if pages:
        return [pytest.param(p, id=p.url_path or "home") for p in pages]
    return [pytest.param(None, id=f"no-page-{what}")]


def context(browser, width: int, height: int):
    """A fresh browser context (nothing shared) at width × height, with generous default timeouts."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(SLOW)
    return ctx


@contextmanager
def opened(browser, link: str):
    """``link`` opened in a new browser at 1366 × 768 (a fresh context, nothing shared: what a student gets from
    a shared link), checked for exceptions; closed afterwards."""
    fresh = context(browser, 1366, 768)
    try:
        other = fresh.new_page()
        open_app(other, link)
        no_exception(other)
        yield other
    finally:
        fresh.close()


@pytest.fixture
def page(browser):
    ctx = context(browser, 1366, 768)
    pg = ctx.new_page()
    yield pg
    ctx.close()


def no_exception(page) -> None:
    errors = page.locator("[data-testid=stException]")
    assert errors.count() == 0, errors.all_inner_texts()[:2]


def query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


def same_number(a: str, b: str) -> bool:
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


# ---------------------------------------------------------------- layout at three sizes, first screen, axe
# One load per page and size measures everything the tests below assert (CI time): the first chart's top
# (before the viewport grows), axe-core and the charts' accessible names (1366×768 only), then — with the
# viewport grown to the whole main area — charts leaving their container or the window.

_measured: dict[tuple[str, tuple[int, int]], dict] = {}


def measure(server, browser, info, size) -> dict:
    key = (info.path, size)
    if key not in _measured:
        width, height = size
        ctx = context(browser, width, height)
        page = ctx.new_page()
        out: dict = {"script_errors": []}  # what the page's JavaScript threw or Vega logged as an error
        page.on("pageerror", lambda err: out["script_errors"].append(str(err)[:300]))
        page.on("console", lambda msg: out["script_errors"].append(msg.text[:300])
                if msg.type == "error" and msg.text.startswith("ERROR") else None)
        try:
            open_app(page, f"{server}/{info.url_path}")
            errors = page.locator("[data-testid=stException]")
            out["exceptions"] = errors.all_inner_texts()[:2] if errors.count() else []
            out["h1"] = page.locator("h1").first.inner_text().strip() if page.locator("h1").count() else None
            out["katex_errors"] = page.locator(".katex-error").count()
            out["first_chart_top"] = first_chart_top(page)
            out["key_chart"] = page.evaluate(KEY_CHART)
            out["main_height"] = page.evaluate(
                "() => document.querySelector('[data-testid=stMain]')?.scrollHeight || 0")
            if size == SIZES[0]:
                out["axe"] = run_axe(page)
                out["chart_names"] = chart_names(page)
            grow_to_content(page)
            out["overflows"] = chart_overflows(page)
            full_screenshot(page, f"{info.url_path or 'home'}-{width}x{height}")
        except Exception as err:  # every test that reads this load fails with the reason
            out["error"] = err
        finally:
            ctx.close()
        _measured[key] = out
    out = _measured[key]
    if "error" in out:
        raise AssertionError(f"loading /{info.url_path} at {size[0]}×{size[1]} failed: {out['error']}")
    return out


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_page_fits_its_screen(server, browser, info, size):
    """No exception, the page list's title as h1, no KaTeX error, and no chart wider than its container or past
    the window's right edge (measured with the viewport grown to the whole main area)."""
    m = measure(server, browser, info, size)
    assert not m["exceptions"], m["exceptions"]
    assert m["h1"] == info.title, f"h1 is {m['h1']!r}, the page list says {info.title!r}"
    assert m["katex_errors"] == 0
    assert not m["overflows"], m["overflows"]


@pytest.mark.parametrize("info", LESSONS, ids=LESSON_IDS)
def test_first_chart_is_on_the_first_screen(server, browser, info):
    top = measure(server, browser, info, SIZES[0])["first_chart_top"]
    assert top is not None, "no visible chart"
    assert top <= FIRST_SCREEN, f"the first chart starts at {top:.0f} px, below the first screen ({FIRST_SCREEN} px)"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_axe_finds_nothing_in_our_markup_and_every_chart_is_named(server, browser, info):
    """axe-core's WCAG 2 A/AA rules at 1366×768. A violation counts when one of its nodes is the app's own
    markup: anything outside Streamlit's chrome (harness/browser.py STREAMLIT_CHROME lists the chrome: header,
    toolbar, menu, sidebar frame and page navigation, chart toolbar, the document element). Charts are ours:
    axe does not look inside a canvas or an unlabelled svg, so each chart must also carry an accessible name
    (its description)."""
    m = measure(server, browser, info, SIZES[0])
    problems = []
    for v in m["axe"]:
        mine = [n for n in v["nodes"] if n["ours"]]
        if mine:
            problems.append(f"{v['id']} ({v['impact']}): {v['help']} — "
                            + "; ".join(f"{n['target']} {n['html'][:80]}" for n in mine[:3]))
    unnamed = [f"chart {c['chart']} has no accessible name" for c in m["chart_names"] if c["drawn"] and not c["name"]]
    assert not problems + unnamed, problems + unnamed


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_no_chart_throws_in_the_browser(server, browser, info, size):
    """A Vega expression that throws leaves its chart blank with no sign on the page (RoPE's circles read an axis
    end from a dataset the browser had not yet received): every page opens with nothing thrown or logged as an
    error by Vega."""
    m = measure(server, browser, info, size)
    assert not m["script_errors"], m["script_errors"][:3]


@pytest.mark.parametrize("size", list(MAIN_PATH_BUDGET), ids=[f"{w}x{h}" for w, h in MAIN_PATH_BUDGET])
@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_the_main_path_fits_its_height_budget(server, browser, info, size):
    """Narrative economy: with every expander closed (Checks, Deeper, the code), the page is at most 3,000 px
    tall on a laptop and 4,500 px on a phone."""
    m = measure(server, browser, info, size)
    assert m["main_height"] <= MAIN_PATH_BUDGET[size], \
        f"{m['main_height']} px tall at {size[0]}×{size[1]} (budget {MAIN_PATH_BUDGET[size]} px)"


# The key chart: the first chart after the first Predict question (in document order), with how much of it the
# first screen shows, and whether a verdict line stands above that Predict.
KEY_CHART = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  if (main) main.scrollTop = 0;
  const ask = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stRadio]')]
    .find(r => (r.innerText || '').trim().indexOf('Predict.') === 0);
  if (!ask) return null;
  const after = (a, b) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
  const chart = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]')]
    .find(c => after(ask, c) && c.getClientRects().length && !c.closest('details:not([open])'));
  const verdictAbove = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stMarkdown]')]
    .some(m => after(m, ask) && /(^|\\s)(Holds|Does not hold) — /.test(m.innerText || ''));
  const screen = window.innerHeight;
  if (!chart) return {ask: ask.getBoundingClientRect().top, chart: null, verdictAbove};
  const r = chart.getBoundingClientRect();
  const draw = chart.querySelector('svg.marks, canvas.marks');
  const drawn = draw ? draw.getBoundingClientRect().bottom : r.bottom;  // the picture, without the inputs under it
  return {ask: ask.getBoundingClientRect().top, chart: true, top: r.top, bottom: r.bottom, drawn, height: r.height,
          shown: Math.max(0, Math.min(r.bottom, screen) - Math.max(r.top, 0)), verdictAbove};
}"""


@pytest.mark.parametrize("info", LESSONS, ids=LESSON_IDS)
def test_the_predict_stands_above_a_key_chart_on_the_first_screen(server, browser, info):
    """At 1366×768 the page's first Predict sits above its key chart, of which at least 300 px (or all of it)
    is on the first screen, and no verdict stands above the Predict."""
    k = measure(server, browser, info, SIZES[0])["key_chart"]
    assert k and k.get("chart"), f"no Predict followed by a chart: {k}"
    assert not k["verdictAbove"], "a verdict stands above the first Predict"
    assert k["shown"] >= min(KEY_CHART_SHOWN, k["height"] - 1), \
        f"only {k['shown']:.0f} px of the key chart ({k['top']:.0f}–{k['bottom']:.0f} px) is on the first screen"


_projected: dict[str, dict] = {}


def projected(server, browser, info) -> dict:
    """The page in presentation mode on a 1280×720 projector at 150 %: where the header ends, where the title
    and the lead sit, and where the key chart ends."""
    if info.path not in _projected:
        ctx = browser.new_context(viewport={"width": PROJECTOR[0], "height": PROJECTOR[1]}, device_scale_factor=1.5)
        ctx.set_default_timeout(SLOW)
        try:
            page = ctx.new_page()
            open_app(page, f"{server}/{info.url_path}?present=1")
            no_exception(page)
            _projected[info.path] = page.evaluate("""(key) => {
              const box = (sel) => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect() : null; };
              const header = box('[data-testid=stHeader]');
              const h1 = box('[data-testid=stMain] h1');
              return {header: header ? header.bottom : 0, h1: h1 ? h1.top : null, key: (new Function('return ' + key))()()};
            }""", KEY_CHART)
            page.evaluate("""() => document.querySelectorAll('[data-testid=stMain] details:not([open]) > summary')
                .forEach((s) => s.getClientRects().length && s.click())""")  # every aside in view open, projected too
            wait_charts(page)
            _projected[info.path]["overflows"] = chart_overflows(page)
            full_screenshot(page, f"{info.url_path or 'home'}-present-1280x720")
        finally:
            ctx.close()
    return _projected[info.path]


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_presentation_mode_shows_the_title_clear_of_the_header(server, browser, info):
    m = projected(server, browser, info)
    assert m["h1"] is not None and m["h1"] >= m["header"] - 1, f"the title's top {m['h1']} px is under the header ({m['header']} px)"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_presentation_mode_fits_every_chart(server, browser, info):
    """Projected (larger text, a 853 px wide page), every aside open: no chart leaves its container and none has
    text cut short."""
    assert not projected(server, browser, info)["overflows"]


@pytest.mark.parametrize("info", LESSONS, ids=LESSON_IDS)
def test_presentation_mode_puts_the_question_and_its_key_chart_on_one_screen(server, browser, info):
    """Projected, the lead, the first Predict and its key chart's picture (title, plot, legend) share one screen;
    the chart's own inputs may sit just below it."""
    k = projected(server, browser, info)["key"]
    assert k and k.get("chart"), f"no Predict followed by a chart: {k}"
    assert k["drawn"] <= PROJECTOR[1] + 1, f"the key chart's picture ends at {k['drawn']:.0f} px, below the projected screen"


# ---------------------------------------------------------------- a section's control, the URL, the link

SLIDER_PAGES = pages_using("frame.slider(", "frame.urlstate.slider(")
MAIN_SLIDERS = "[data-testid=stMain] [data-testid=stSlider]"  # the widget (its range input is visually hidden)


def slider_value(slider) -> str:
    """What the slider shows: its aria-valuetext (a select_slider's option), else its value."""
    return slider.get_attribute("aria-valuetext") or slider.input_value()


REVEAL_FIRST_SLIDER = """() => {
  const s = document.querySelector('[data-testid=stMain] [data-testid=stSlider] input[type=range]');
  if (!s) return false;
  const panel = s.closest('[role=tabpanel]');
  if (panel && !panel.getClientRects().length) {
    document.querySelector(`[role=tab][aria-controls="${panel.id}"]`)?.click();
  }
  const closed = s.closest('details:not([open])');
  if (closed) closed.querySelector('summary').click();
  return true;
}"""


def first_visible_slider(page):
    """The first slider of the main area; when every slider sits in a closed tab or expander, open the one
    holding the first slider (a student would) and use it."""
    sliders = page.locator(MAIN_SLIDERS)
    if not any(sliders.nth(i).is_visible() for i in range(sliders.count())):
        if page.evaluate(REVEAL_FIRST_SLIDER):
            page.wait_for_timeout(500)
            wait_done(page, timeout=SLOW)
            wait_charts(page)
    for i in range(sliders.count()):
        if sliders.nth(i).is_visible():
            return i, sliders.nth(i).locator("input[type=range]")
    raise AssertionError("no visible slider in the main area")


def press_slider(page, frames: Frames):
    """Press an arrow key on the first visible slider of the main area (left when it sits at its maximum);
    wait for the URL to change and the run to end. Returns (label, value before, value after, URL before,
    pictures before, the frames' mark before the press)."""
    index, slider = first_visible_slider(page)
    label = slider.get_attribute("aria-label") or f"slider {index + 1}"
    before_value, before_url = slider_value(slider), page.url
    before = chart_pictures(page)
    key = "ArrowLeft" if float(slider.input_value()) >= float(slider.get_attribute("max")) else "ArrowRight"
    mark = frames.mark()
    slider.focus()
    page.keyboard.press(key)
    page.wait_for_function("(u) => location.href !== u", arg=before_url, timeout=SLOW)
    wait_done(page, timeout=SLOW)
    wait_charts(page)
    page.wait_for_timeout(300)
    return label, before_value, slider_value(slider), before_url, before, mark


@pytest.mark.parametrize("info", params_or_failure(SLIDER_PAGES, "with-a-slider"))
def test_a_sections_slider_moves_its_chart_and_the_url_and_reruns_only_its_section(server, browser, info):
    """A control inside a section (an st.fragment) reruns only that section. Proved from the
    websocket: the browser asks for a fragment rerun (a fragment id, not the whole page), and every element
    the server sends back belongs to that fragment — nothing outside the section is redrawn."""
    assert info is not None, "no page has a frame.slider"
    ctx = context(browser, 1366, 768)
    page = ctx.new_page()
    frames = Frames(page)
    try:
        open_app(page, f"{server}/{info.url_path}")
        label, before_value, after_value, before_url, before, mark = press_slider(page, frames)
        no_exception(page)
        assert after_value != before_value, f"{label}: the key press did not move the slider"
        changed = {k: v for k, v in query(page.url).items() if query(before_url).get(k) != v}
        assert any(same_number(v[-1], after_value) for v in changed.values()), \
            f"{label}: the URL does not carry the new value {after_value}: {page.url}"
        after = chart_pictures(page)
        assert len(after) == len(before) and any(a != b for a, b in zip(after, before)), \
            f"{label}: no chart changed"
        reruns = frames.reruns_since(mark)
        assert reruns and all(reruns), f"{label}: the press reran the whole page, not only its section ({reruns})"
        # An element drawn outside every fragment carries no fragment id: none may come back.
        outside = [d for d in frames.deltas_since(mark) if not d]
        assert not outside, f"{label}: {len(outside)} element(s) outside the section were redrawn"
    finally:
        ctx.close()


def test_the_link_to_this_view_reopens_it_in_a_new_browser(server, browser):
    """After a section's slider moved, the sidebar's “Copy the link to this view” holds the address
    of this view, and a new browser (nothing shared) opening it shows the same slider value and the same
    charts. On the first page with a slider."""
    assert SLIDER_PAGES, "no page has a frame.slider"
    info = SLIDER_PAGES[0]
    ctx = context(browser, 1366, 768)
    page = ctx.new_page()
    try:
        open_app(page, f"{server}/{info.url_path}")
        label, _, after_value, _, _, _ = press_slider(page, Frames(page))
        page.locator("[data-testid=stSidebar] .pe-share-btn").click()
        box = page.locator("[data-testid=stSidebar] .pe-share-url")
        expect(box).not_to_have_value("")
        link = box.input_value()
        assert query(link) == query(page.url), (link, page.url)
        assert urlsplit(link).path == urlsplit(page.url).path
        with opened(browser, link) as fresh:
            _, fresh_slider = first_visible_slider(fresh)
            assert slider_value(fresh_slider) == after_value, label
            page.mouse.move(0, 0)
            ours, theirs = chart_pictures(page), chart_pictures(fresh)
            # the same pictures, but for a level of rounding (a legend's gradient redrawn in place, on the learned
            # page, differs by 1 of 255 in ~500 pixels from one drawn afresh)
            assert len(ours) == len(theirs) and not any(differ(a, b, levels=2, pixels=0) for a, b in
                                                        zip(ours, theirs)), "the link does not reproduce the charts"
    finally:
        ctx.close()


# ---------------------------------------------------------------- tabs and “Deeper” asides in the URL

TAB_PAGES = pages_using("frame.tabs(", "frame.urlstate.tabs(")
DEEPER_PAGES = pages_using("frame.deeper(", "frame.expander(", "frame.urlstate.expander(")


@pytest.mark.parametrize("info", params_or_failure(TAB_PAGES[:1], "with-frame.tabs"))
def test_a_tab_lives_in_the_url(server, browser, info):
    assert info is not None, "no page uses frame.tabs"
    with opened(browser, f"{server}/{info.url_path}") as page:
        tabs = page.locator("[data-testid=stMain] [role=tab]")
        assert tabs.count() >= 2
        target = tabs.nth(1)
        label = target.inner_text().strip()
        before = page.url
        target.click()
        page.wait_for_function("(u) => location.href !== u", arg=before, timeout=SLOW)
        changed = [v[-1] for k, v in query(page.url).items() if query(before).get(k) != v]
        named = [v for v in changed if v and v in label]  # the tab's text may carry an icon's name too
        assert named, f"the URL does not name the tab {label!r}: {page.url}"
        label = named[0]
        link = page.url
        with opened(browser, link) as other:
            selected = other.locator("[data-testid=stMain] [role=tab][aria-selected=true]").all_inner_texts()
            assert any(label in t for t in selected), \
                f"a new browser opening {link} does not select the tab {label!r} (selected: {selected})"


@pytest.mark.parametrize("info", params_or_failure(DEEPER_PAGES[:1], "with-frame.deeper"))
def test_a_deeper_aside_lives_in_the_url(server, browser, info):
    assert info is not None, "no page uses frame.deeper"
    with opened(browser, f"{server}/{info.url_path}") as page:
        asides = page.locator("[data-testid=stMain] [data-testid=stExpander]").filter(
            has=page.locator("summary", has_text="Deeper"))
        assert asides.count() >= 1, "no “Deeper” expander visible"
        aside = asides.first
        summary = aside.locator("summary").inner_text()
        title = summary[summary.index("Deeper"):].strip()  # the icon's name is text in the DOM too
        before = page.url
        aside.locator("summary").click()
        page.wait_for_function("(u) => location.href !== u", arg=before, timeout=SLOW)
        assert "true" in [v for vs in query(page.url).values() for v in vs], page.url
        with opened(browser, page.url) as other:
            same = other.locator("[data-testid=stMain] [data-testid=stExpander]").filter(
                has=other.locator("summary", has_text=title))
            assert same.count() >= 1
            assert same.first.locator("details").evaluate("d => d.open"), f"{title!r} is closed in a new browser"


# ---------------------------------------------------------------- presentation mode

AXIS_LABEL_SIZES = """() => [...document.querySelectorAll(
    '[data-testid=stMain] [data-testid=stVegaLiteChart] svg.marks .role-axis-label text')]
  .filter(t => t.getClientRects().length).map(t => getComputedStyle(t).fontSize)"""


def test_presentation_mode_folds_the_sidebar_and_enlarges_chart_text(server, browser):
    """?present=1 collapses the sidebar and draws axis labels at 18 px (13 px otherwise). Checked on the
    first page with an SVG chart that has axis labels."""
    ctx = context(browser, 1366, 768)
    try:
        page = ctx.new_page()
        for info in (p for p in PAGES if p.url_path):
            open_app(page, f"{server}/{info.url_path}")
            normal = page.evaluate(AXIS_LABEL_SIZES)
            if normal:
                break
        else:
            raise AssertionError("no page has an SVG chart with axis labels")
        assert page.locator("[data-testid=stSidebar]").get_attribute("data-collapsed") == "false"
        assert set(normal) == {"13px"}, normal
        open_app(page, f"{server}/{info.url_path}?present=1")
        no_exception(page)
        expect(page.locator("[data-testid=stSidebar]")).to_have_attribute("data-collapsed", "true")
        big = page.evaluate(AXIS_LABEL_SIZES)
        assert big and set(big) == {"18px"}, (info.url_path, big)
    finally:
        ctx.close()


BIND_SIZES = """() => [...document.querySelectorAll('[data-testid=stMain] .vega-bind, [data-testid=stMain] .vega-bind *')]
  .filter(e => e.getClientRects().length && e.textContent.trim()).map(e => getComputedStyle(e).fontSize)"""


def test_presentation_mode_draws_in_chart_inputs_at_the_charts_text_size(server, browser):
    """Projected, an in-chart input's name, value and options are 18 px, as the chart's axis labels are (they
    stay at the page's size otherwise). Checked on sinusoids, whose key chart has a slider and a play button."""
    ctx = context(browser, 1280, 720)
    try:
        page = ctx.new_page()
        open_app(page, f"{server}/sinusoids")
        normal = page.evaluate(BIND_SIZES)
        assert normal and "18px" not in normal, normal
        open_app(page, f"{server}/sinusoids?present=1")
        no_exception(page)
        page.wait_for_function(f"() => ({BIND_SIZES})().every(s => s === '18px')", timeout=30_000)
    finally:
        ctx.close()


CHARTS_KEPT = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]')]
  .map(c => c.querySelector('svg, canvas')).filter(s => s).map(s => s.__peMark === 1)"""  # drawn: marked still?
MARK_CHARTS = """() => document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]')
  .forEach(c => { const s = c.querySelector('svg, canvas'); if (s) s.__peMark = 1; })"""


def test_the_presentation_toggle_keeps_every_chart_and_grows_its_text(server, browser):
    """Presentation mode is decided in the browser (every chart's presentation param is bound to the page's hidden
    input): pressing the sidebar's toggle keeps each drawn chart (the same element, marked before the press:
    nothing rebuilt) and its axis labels go from 13 px to 18 px."""
    ctx = context(browser, 1366, 768)
    try:
        page = ctx.new_page()
        open_app(page, f"{server}/fixes")
        page.evaluate(MARK_CHARTS)
        assert set(page.evaluate(AXIS_LABEL_SIZES)) == {"13px"}
        page.get_by_text("Presentation mode", exact=True).first.click()  # (projecting folds the sidebar away)
        page.wait_for_timeout(300)
        wait_done(page)
        page.wait_for_function(f"() => ({AXIS_LABEL_SIZES})().every(s => s === '18px')", timeout=30_000)
        no_exception(page)
        kept = page.evaluate(CHARTS_KEPT)
        assert len(kept) >= 4 and all(kept), kept
    finally:
        ctx.close()


ONE_MODE = """() => Object.fromEntries(['screen', 'projected'].map(m => [m,
  [...document.querySelectorAll(`[data-testid=stMain] [class*="st-key-pe-${m}-only-"]`)]
    .map(e => e.parentElement.getClientRects().length > 0 && e.innerText.trim().length > 0)]))"""  # each: shown?
# (its wrapper, not only the block: a hidden block's empty wrapper still took the column's gap, 17 px)


@pytest.mark.parametrize("info", params_or_failure(pages_using("shown_when("), "shown-when"))
def test_a_line_for_one_mode_shows_in_that_mode_only_and_the_toggle_switches_it(server, browser, info):
    """frame.live.shown_when: both lines are drawn, the page's style shows one. On a screen every screen-only
    container shows and every projected-only one is hidden; a press of the toggle (which reruns no page here:
    the page never asks presenting()) swaps them, with no rerun of the page's elements."""
    ctx = context(browser, 1366, 768)
    try:
        page = ctx.new_page()
        open_app(page, f"{server}/{info.url_path}")
        shown = page.evaluate(ONE_MODE)
        assert shown["screen"] and shown["projected"], shown  # both drawn
        assert all(shown["screen"]) and not any(shown["projected"]), shown
        page.evaluate(MARK_CHARTS)
        page.get_by_text("Presentation mode", exact=True).first.click()
        page.wait_for_function(f"() => (({ONE_MODE})()).projected.every(x => x)", timeout=30_000)
        wait_done(page)
        shown = page.evaluate(ONE_MODE)
        assert not any(shown["screen"]) and all(shown["projected"]), shown
        assert all(page.evaluate(CHARTS_KEPT)), "a chart was drawn again: the toggle reran the page"
        no_exception(page)
    finally:
        ctx.close()


def test_presentation_mode_holds_when_charts_draw_before_the_page_script(server, browser):
    """Streamlit loads each element's code lazily, so a chart may be drawn before the page's other elements and
    before frame/live.js runs (a hidden input the page drew once lost that race in CI: the chart's binding was not
    found and it stayed small). Here the code for HTML elements and components is held back until every chart has
    drawn: nothing is logged as an error, and once released the charts grow to 18 px for ?present=1."""
    ctx = context(browser, 1366, 768)
    held, errors = [], []
    try:
        page = ctx.new_page()
        page.on("console", lambda msg: errors.append(msg.text[:300])
                if msg.type == "error" and msg.text.startswith("ERROR") else None)
        lazy = re.compile(r"/static/js/(Html|BidiComponent)\.[^/]*\.js$")
        page.route(lazy, lambda route: held.append(route))  # answered only once the charts are drawn
        page.goto(f"{server}/fixes?present=1")
        page.wait_for_selector(DONE)  # (Streamlit's placeholders for the held elements stay: no wait_done)
        page.wait_for_function(f"() => ({AXIS_LABEL_SIZES})().length > 0")
        assert held, "the lazily loaded code was not requested: nothing was held back"
        for route in held:
            route.continue_()
        wait_done(page)
        page.wait_for_function(f"() => ({AXIS_LABEL_SIZES})().every(s => s === '18px')", timeout=30_000)
        no_exception(page)
        assert not errors, errors[:3]
    finally:
        ctx.close()


SUBTITLE_LINES = """() => [...document.querySelectorAll(
    '[data-testid=stMain] [data-testid=stVegaLiteChart] svg.marks .role-title-subtitle text')]
  .filter(t => t.querySelector('tspan[dy]'))
  .map(t => [parseFloat(getComputedStyle(t).fontSize), ...[...t.querySelectorAll('tspan[dy]')].map(s => +s.getAttribute('dy'))])"""


def test_a_wrapped_subtitle_spaces_its_lines_for_the_mode(browser, server):
    """Binary's key chart has a subtitle on two lines. When the mode changes its lines are spaced for the
    projector's text (Vega's spacing: size + 2 px), as they are out of it. Vega's SVG renderer alone keeps the
    first spacing unless something else redraws the text, so the lines overlapped (not every time: no guard can
    tell reliably whether an upgrade still needs frame/live.js's forgetLines); this fails if the work-around
    stops working."""
    ctx = context(browser, 1366, 768)
    try:
        page = ctx.new_page()
        open_app(page, f"{server}/binary")
        page.wait_for_function("() => !!window.__peLive")
        before = page.evaluate(SUBTITLE_LINES)
        assert before and all(dy == size + 2 for size, *dys in before for dy in dys), before
        # The mode as the toggle's mount hands it over, without the sidebar folding (a new width redraws all)
        page.evaluate(f"() => window.__peLive.setPresent({{present: '1', present_event: '{PRESENT_EVENT}'}})")
        page.wait_for_function(f"() => ({SUBTITLE_LINES})().every(([size]) => size === 16)", timeout=30_000)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        after = page.evaluate(SUBTITLE_LINES)
        assert after and all(dy == size + 2 for size, *dys in after for dy in dys), after
    finally:
        ctx.close()


# ---------------------------------------------------------------- deep links, navigation, hostile text


# ---------------------------------------------------------------- linked highlighting (posenc.charts.spec.Link)
# pictures of the charts alone: no tooltip, no element toolbar (a hovered chart's overlaps the chart above it)
NO_TOOLTIP = "#vg-tooltip-element, [data-testid=stElementToolbar] { display: none !important; }"
LIT = "() => document.body.value ?? null"  # the lit key, "<group>:<key>" (spec.LINK_HOLDER)


def point_at(page, chart, group: str | None = None, *, tap: bool = False) -> bool:
    """Hover (or tap) a chart's drawing near its middle: at the middle, or, when ``group`` is given, at the first
    of a few points nearby that lights a key of the group (the middle may fall between marks). Lit or not."""
    box = chart.locator("svg.marks, canvas.marks").first.bounding_box()
    for fx, fy in ((0.5, 0.5), (0.5, 0.35), (0.4, 0.45), (0.6, 0.45), (0.5, 0.25)):
        x, y = box["x"] + box["width"] * fx, box["y"] + box["height"] * fy
        if tap:
            page.touchscreen.tap(x, y)
        else:
            page.mouse.move(x, y)
        page.wait_for_timeout(200)
        if group is None or str(page.evaluate(LIT)).startswith(f"{group}:"):
            return True
    return False


def linked_page(browser, server, path: str, **context_args):
    """The page with every aside that holds a linked chart open, laid out whole on one screen (no scrolling:
    Chromium moves a still mouse's hover when the page scrolls under it), tooltips hidden."""
    opens = "&".join(q.lstrip("?") for page, q in LINKED.values() if page == path and q)
    ctx = browser.new_context(**{"viewport": {"width": 1366, "height": 768}, **context_args})
    ctx.set_default_timeout(SLOW)
    page = ctx.new_page()
    frames = Frames(page)
    open_app(page, f"{server}/{path}" + (f"?{opens}" if opens else ""))
    grow_to_content(page)
    page.add_style_tag(content=NO_TOOLTIP)
    return ctx, page, frames


def linked_charts(page, group: str) -> tuple[list, list]:
    """The visible charts of ``group`` (those that light a key of the group when pointed at), and the others."""
    charts = page.locator("[data-testid=stVegaLiteChart]")
    ours, others = [], []
    for i in range(charts.count()):
        chart = charts.nth(i)
        if not chart.is_visible():
            continue
        (ours if point_at(page, chart, group) else others).append(chart)
        page.mouse.move(1, 1)
        page.wait_for_timeout(200)
    return ours, others


def pictures(charts: list) -> list[bytes]:
    return [c.screenshot(animations="disabled") for c in charts]


def differ(a: bytes, b: bytes, levels: int = 85, pixels: int = 20) -> bool:
    """Two pictures of a chart differ: more than ``pixels`` pixels by more than ``levels`` of 255 (the defaults: by
    a third of the range, as an outline or a fade does; a chart drawn again the same way differs by a few levels at
    edges and in a legend's gradient)."""
    import io

    import numpy as np
    from PIL import Image

    x, y = (np.asarray(Image.open(io.BytesIO(p)).convert("RGB"), dtype=int) for p in (a, b))
    return x.shape != y.shape or int((np.abs(x - y).max(axis=2) > levels).sum()) > pixels


@pytest.mark.parametrize("group", sorted(LINKED))
def test_pointing_at_a_mark_lights_it_in_every_chart_of_its_section_and_nowhere_else(server, browser, group):
    """Hovering a mark in one chart of a group lights the same key in the group's other chart, in the page as it
    is (no rerun); every other chart on the page, another group's included, stays as it was; the mouse leaving
    clears it everywhere."""
    ctx, page, frames = linked_page(browser, server, LINKED[group][0])
    try:
        ours, others = linked_charts(page, group)
        assert len(ours) >= 2, f"{group}: {len(ours)} chart(s) light a key of the group"
        pointed, other = ours[:2]
        dark, rest = other.screenshot(animations="disabled"), pictures(others)
        mark = frames.mark()
        assert point_at(page, pointed, group)
        assert differ(other.screenshot(animations="disabled"), dark), "the other chart did not light"
        changed = [i for i, (a, b) in enumerate(zip(rest, pictures(others))) if differ(a, b)]
        assert not changed, f"charts outside {group} changed: {changed} of {len(others)}"
        assert not frames.reruns_since(mark), "pointing at a mark asked the server for a rerun"
        page.mouse.move(1, 1)
        page.wait_for_timeout(300)
        assert page.evaluate(LIT) is None
        assert not differ(other.screenshot(animations="disabled"), dark), "the light stayed after the mouse left"
    finally:
        ctx.close()


def test_a_tap_lights_the_section_on_a_phone_and_stays_until_the_next_tap(server, browser):
    ctx, page, _ = linked_page(browser, server, "scramble", viewport={"width": 390, "height": 844},
                               has_touch=True, is_mobile=True)
    try:
        charts = page.locator("[data-testid=stVegaLiteChart]")
        pointed, other = charts.nth(0), charts.nth(1)
        dark = other.screenshot(animations="disabled")
        assert point_at(page, pointed, "sc_slot", tap=True)
        page.wait_for_timeout(500)  # the tap has ended: its pointerout clears only a mouse's light
        assert str(page.evaluate(LIT)).startswith("sc_slot:")
        assert differ(other.screenshot(animations="disabled"), dark)
    finally:
        ctx.close()


def test_first_request_is_a_deep_link_with_state(browser):
    """After a fresh server start, the very first request opens a deep link: the app's own navigation runs,
    the page is the right one, and the URL's state is applied."""
    link = urlencode({"sentence": "The dog bit the man", "d": "32", "causal": "true"})
    with streamlit_server() as base:
        ctx = context(browser, 1366, 768)
        try:
            pg = ctx.new_page()
            pg.goto(f"{base}/scramble?{link}")
            wait_done(pg)
            no_exception(pg)
            expect(pg.locator("h1").first).to_have_text("The sentence scramble")
            nav = pg.locator("[data-testid=stSidebarNav]")
            expect(nav.get_by_text("Why order is lost", exact=True)).to_be_visible()
            # Legacy multipage mode would list the entry script as a page called "app".
            assert nav.get_by_text("app", exact=True).count() == 0
            expect(pg.get_by_role("spinbutton", name="Model width d")).to_have_value("32")
            expect(pg.get_by_role("textbox", name="Sentence")).to_have_value("The dog bit the man")
            expect(pg.get_by_text("scrambled:", exact=False).first).to_be_visible()
            expect(pg.get_by_label("Causal mask", exact=True)).to_be_checked()  # the link's mask, applied
        finally:
            ctx.close()


def test_navigation_moves_between_pages_and_keeps_the_sentence(server, page):
    page.goto(server)
    wait_done(page)
    box = page.get_by_role("textbox", name="Sentence")
    box.fill("A bird saw a bird")
    box.press("Enter")
    wait_done(page)
    page.locator("[data-testid=stSidebarNav]").get_by_text("The sentence scramble", exact=True).click()
    wait_done(page)
    expect(page.locator("h1").first).to_have_text("The sentence scramble")
    assert "/scramble" in page.url and "sentence=" in page.url
    expect(page.get_by_role("textbox", name="Sentence")).to_have_value("A bird saw a bird")
    no_exception(page)


def test_student_text_is_never_rendered_as_markup(server, page):
    evil = '<img src=x onerror="window.__pwned=1"> ![x](http://127.0.0.1:9/a.png) $x^2$ the cat chased the mouse'
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{server}/scramble?" + urlencode({"sentence": evil}))
    wait_done(page)
    no_exception(page)
    assert page.evaluate("() => window.__pwned === undefined")
    assert not any("127.0.0.1:9" in u for u in requests)
    assert page.locator("[data-testid=stMain] img[src='x']").count() == 0
    # KaTeX keeps its source in an <annotation>: the student's $x^2$ must not have become a formula.
    assert not page.evaluate(
        "() => [...document.querySelectorAll('annotation')].some(a => a.textContent.trim() === 'x^2')")

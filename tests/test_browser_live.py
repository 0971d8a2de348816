"""frame.live in a real browser (Debian's Chromium, its own Streamlit server on a free port, tests/live_app.py):
in-chart controls round-trip through a link, play animates with no script rerun, a drag redraws before release,
touch targets, tap to read, and the keyboard work-arounds of Streamlit's chrome.

The ``test_streamlit_still_*`` tests switch one work-around off (``window.__peLive``'s flags) and check that
Streamlit 1.67 on its own still fails the student: when an upgrade fixes it, that test FAILS — then remove the
work-around from frame/live.js (and this test) rather than carry it.

Behaviour only: no test asserts a time (frame times are measured and reported apart, see frame/live.py).
"""

from __future__ import annotations

import math
import re

import pytest

from harness.browser import open_app, streamlit_server, wait_charts, wait_done

ACTIVE = """() => { const a = document.activeElement;
  return {tag: a.tagName, label: a.getAttribute('aria-label') || a.textContent.trim().slice(0, 40),
          body: a === document.body || a === document.documentElement,
          sidebar: !!a.closest('[data-testid=stSidebar]')}; }"""
LABEL = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart] svg text')]
  .map(t => t.textContent).find(t => t.startsWith('sin(') && t.includes('=')) || null"""
POS = "input[type=range][name=lv_pos]"


@pytest.fixture(scope="module")
def server():
    with streamlit_server("tests/live_app.py") as base:
        yield base


def fresh(browser, server, query: str = "", **context):
    """A page in a new browser context (no cookies, no session: a student opening a link), drawn."""
    ctx = browser.new_context(**{"viewport": {"width": 1366, "height": 768}, **context})
    page = ctx.new_page()
    open_app(page, f"{server}/{query}")
    page.wait_for_function("() => window.__peLive && document.querySelector('button.pe-play')")
    return page


def wait_address(page, pattern: str) -> None:
    page.wait_for_function(f"() => /{pattern}/.test(window.location.search)", timeout=10_000)


# ---------------------------------------------------------------- the address
def test_in_chart_controls_round_trip_through_a_link_into_a_fresh_browser(browser, server):
    page = fresh(browser, server)
    page.focus(POS)
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.check("input[type=radio][name=lv_wave][value=cos]")
    page.check("input[type=checkbox][name=lv_grid]")
    page.select_option("select[name=lv_freq]", "4")
    for want in ("lv_pos=5", "lv_wave=cos", "lv_grid=true", "lv_freq=4"):
        wait_address(page, want)
    assert page.evaluate(LABEL).startswith("sin(5 / 8)")
    assert page.locator("[data-testid=stApp]").get_attribute("data-test-script-state") == "notRunning"
    link = page.url
    page.context.close()

    other = fresh(browser, server, link.split("/", 3)[3])
    assert other.input_value(POS) == "5"
    assert other.evaluate(LABEL).startswith("sin(5 / 8)")
    assert other.is_checked("input[type=radio][name=lv_wave][value=cos]")
    assert other.is_checked("input[type=checkbox][name=lv_grid]")
    assert other.input_value("select[name=lv_freq]") == "4"
    assert other.locator("[data-testid=stAlert]").count() == 0  # no notice: every value was usable
    other.context.close()


def test_a_rerun_keeps_the_in_chart_value_and_the_address_keeps_every_parameter(browser, server):
    page = fresh(browser, server, "?lv_pos=12")
    page.focus(POS)
    page.keyboard.press("ArrowRight")
    wait_address(page, "lv_pos=13")
    page.focus(".st-key-lv_n input[type=range]")  # a Streamlit slider: its fragment reruns, the charts redraw
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(300)
    wait_done(page)
    wait_charts(page)
    wait_address(page, "lv_n=48")
    page.wait_for_timeout(300)
    assert "lv_pos=13" in page.url and "run with n = 48" in page.inner_text("[data-testid=stMain]")
    assert page.input_value(POS) == "13"
    assert page.evaluate(LABEL).startswith("sin(13 / 8)")
    page.context.close()


READING = """() => [...document.querySelectorAll('.pe-reading')].map(p => {
  const box = p.closest('[data-testid=stElementContainer]'), r = box.getBoundingClientRect();
  return {text: p.textContent, position: getComputedStyle(box).position, w: r.width, h: r.height,
          hidden: !!p.closest('[aria-hidden=true]')}; })"""


def test_a_press_that_changes_only_the_data_keeps_the_chart_and_updates_its_reading(browser, server):
    """The second chart's spec (its description included) is the same at every n; only its data and its reading
    change. The browser then keeps the drawn chart (the same element, marked before the press) and swaps the data;
    the reading, read out after the chart, says the new numbers, takes no room and is not hidden from screen
    readers. (With n in the description, Streamlit rebuilds the chart: a new element.)"""
    page = fresh(browser, server)
    page.evaluate("() => { document.querySelectorAll('[data-testid=stVegaLiteChart]')[1]"
                  ".querySelector('svg, canvas').__peMark = 1; }")
    assert page.evaluate(READING) == [{"text": "It runs over positions 0 … 63.", "position": "absolute",
                                       "w": 1, "h": 1, "hidden": False}]
    page.focus(".st-key-lv_n input[type=range]")
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(300)
    wait_done(page)
    wait_charts(page)
    page.wait_for_function("() => document.querySelector('.pe-reading').textContent.includes('47')")
    kept = page.evaluate("() => document.querySelectorAll('[data-testid=stVegaLiteChart]')[1]"
                         ".querySelector('svg, canvas').__peMark === 1")
    assert kept, "the chart was rebuilt by a press that changed only its data"
    assert [r["text"] for r in page.evaluate(READING)] == ["It runs over positions 0 … 47."]
    page.context.close()


def test_a_bad_value_in_the_link_opens_the_default_with_a_notice_and_the_link_is_corrected(browser, server):
    page = fresh(browser, server, "?lv_pos=zz&lv_wave=tan")
    text = page.inner_text("[data-testid=stMain]")
    assert "The link's value for “lv_pos” was not usable; using 0." in text
    assert "The link's value for “lv_wave” was not usable; using sin." in text
    assert page.input_value(POS) == "0"
    wait_address(page, "lv_pos=0")  # the address now says what the page shows
    wait_address(page, "lv_wave=sin")
    assert page.locator("[data-testid=stException]").count() == 0
    page.context.close()


# ---------------------------------------------------------------- play
def test_play_animates_the_chart_with_no_script_rerun(browser, server):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    page = ctx.new_page()
    sent: list[int] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(1)))
    open_app(page, server)
    page.wait_for_selector("button.pe-play")
    page.evaluate("""() => { window.__states = [];
      new MutationObserver(() => window.__states.push(document.querySelector('[data-testid=stApp]')
        .getAttribute('data-test-script-state'))).observe(document.querySelector('[data-testid=stApp]'),
        {attributes: true, attributeFilter: ['data-test-script-state']}); }""")
    before = len(sent)
    button = page.locator("button.pe-play")
    assert button.inner_text() == "Play" and button.get_attribute("aria-pressed") == "false"
    box = button.bounding_box()
    assert box["height"] >= 24 and box["width"] >= 24
    button.focus()
    page.keyboard.press("Enter")  # reachable and pressed from the keyboard
    assert button.inner_text() == "Pause" and button.get_attribute("aria-pressed") == "true"
    seen, labels = [], []
    for _ in range(10):
        page.wait_for_timeout(150)
        seen.append(page.input_value(POS))
        labels.append(page.evaluate(LABEL))
    page.keyboard.press("Enter")
    assert button.inner_text() == "Play" and button.get_attribute("aria-pressed") == "false"
    stopped = page.input_value(POS)
    assert len(set(seen)) >= 4, seen  # the input moves over frames …
    assert len(set(labels)) >= 4, labels  # … and the chart redraws with it
    wait_address(page, f"lv_pos={stopped}")  # written at the pause
    page.wait_for_timeout(500)
    assert page.input_value(POS) == stopped  # paused: it stays
    assert page.evaluate("() => window.__states") == []  # the script never ran
    assert len(sent) == before  # nothing went to the server
    ctx.close()


def test_play_loops_from_the_end_back_to_the_start(browser, server):
    page = fresh(browser, server, "?lv_pos=60")
    page.click("button.pe-play")
    page.wait_for_function(f"() => +document.querySelector('{POS}').value < 20", timeout=10_000)
    page.click("button.pe-play")
    page.context.close()


def test_touching_the_slider_pauses_play(browser, server):
    page = fresh(browser, server)
    page.click("button.pe-play")
    page.wait_for_function(f"() => +document.querySelector('{POS}').value > 3")
    page.focus(POS)
    page.keyboard.press("Home")
    assert page.get_attribute("button.pe-play", "aria-pressed") == "false"
    page.wait_for_timeout(400)
    assert page.input_value(POS) == "0"
    page.context.close()


def test_reduced_motion_jumps_through_a_sweep_in_a_dozen_stops(browser, server):
    """Under prefers-reduced-motion Play never moves continuously: it jumps (one a second, frame.live's
    REDUCED_STEP_SECONDS) from stop to stop, the stops round(i·n/REDUCED_STOPS) of the slider's n steps, so a long
    slider still visibly moves (one step a second did not)."""
    from frame.live import REDUCED_STOPS

    page = fresh(browser, server, reduced_motion="reduce")
    lo, hi = int(page.get_attribute(POS, "min")), int(page.get_attribute(POS, "max"))
    stops = [lo + math.floor(i * (hi - lo) / REDUCED_STOPS + 0.5) for i in range(REDUCED_STOPS + 1)]  # JS's round
    page.click("button.pe-play")
    page.wait_for_function(f"() => +document.querySelector('{POS}').value >= {stops[2]}", timeout=10_000)
    seen = []
    for _ in range(8):
        seen.append(int(page.input_value(POS)))
        page.wait_for_timeout(150)
    page.click("button.pe-play")
    assert all(v in stops for v in seen), (stops, seen)  # only stops, nothing between them
    assert len(set(seen)) <= 3, seen  # a jump at a time, not a sweep (continuous play would pass a dozen values)
    page.context.close()


# ---------------------------------------------------------------- scrubbing and touch
def test_dragging_an_in_chart_slider_redraws_the_chart_before_release(browser, server):
    page = fresh(browser, server)
    page.locator(POS).scroll_into_view_if_needed()
    page.evaluate("""(sel) => { window.__labels = []; const svg = document.querySelector('[data-testid=stVegaLiteChart] svg.marks');
      new MutationObserver(() => { const t = [...svg.querySelectorAll('text')].map(t => t.textContent)
        .find(t => t.startsWith('sin(') && t.includes('=')); if (t && t !== window.__labels.at(-1)) window.__labels.push(t); })
        .observe(svg, {subtree: true, childList: true, characterData: true}); }""", POS)
    box = page.locator(POS).bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 4, y)
    page.mouse.down()
    for i in range(1, 11):
        page.mouse.move(box["x"] + 4 + i * (box["width"] - 8) / 10, y)
        page.wait_for_timeout(40)
    before_release = page.evaluate("() => window.__labels.length")
    page.mouse.up()
    assert before_release >= 2, page.evaluate("() => window.__labels")
    page.context.close()


def test_every_in_chart_input_is_a_24_px_target_on_a_phone(browser, server):
    page = fresh(browser, server, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    sizes = page.evaluate("""() => [...document.querySelectorAll(
        '.vega-bind input[type=range], .vega-bind input[type=radio], .vega-bind input[type=checkbox], .vega-bind select, button.pe-play')]
        .map(e => { const r = e.getBoundingClientRect(); return [e.name || e.textContent, r.width, r.height]; })""")
    assert len(sizes) == 6
    small = [s for s in sizes if s[1] < 24 or s[2] < 24]
    assert not small, small
    page.context.close()


def test_a_tap_on_a_mark_shows_what_a_hover_shows(browser, server):
    page = fresh(browser, server, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    x, y = _mark(page)
    page.touchscreen.tap(x, y)
    page.wait_for_selector("#vg-tooltip-element.visible", timeout=5000)
    assert "position" in page.inner_text("#vg-tooltip-element")
    page.context.close()


def test_streamlit_still_shows_nothing_on_a_tap(browser, server):
    """Guard: without the work-around a tap shows no tooltip (fails when Streamlit's Vega does it itself)."""
    page = fresh(browser, server, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page.evaluate("() => { window.__peLive.tapToRead = false; }")
    x, y = _mark(page)
    page.touchscreen.tap(x, y)
    page.wait_for_timeout(800)
    assert page.locator("#vg-tooltip-element.visible").count() == 0
    page.context.close()


def _mark(page) -> tuple[float, float]:
    page.locator("[data-testid=stVegaLiteChart]").first.scroll_into_view_if_needed()
    return page.evaluate("""() => { const p = document.querySelectorAll('[data-testid=stVegaLiteChart] .mark-symbol path')[10];
      const r = p.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }""")


# ---------------------------------------------------------------- focus, code, icons, the sidebar
def _press(page, selector: str, key: str = "Enter") -> None:
    page.focus(selector)
    page.keyboard.press(key)
    page.wait_for_timeout(300)
    wait_done(page)


def _settle(page, test) -> dict:
    """Where focus is once it has settled (the work-around puts it back within 5 s)."""
    try:
        page.wait_for_function(f"() => ({ACTIVE})().body === {str(not test).lower()}", timeout=6000)
    except Exception:
        pass
    return page.evaluate(ACTIVE)


def test_focus_returns_to_the_toolbar_after_show_data_and_fullscreen(browser, server):
    page = fresh(browser, server)
    chart = "[data-testid=stMain] [data-testid=stElementContainer]:has([data-testid=stVegaLiteChart])"
    _press(page, f"{chart} button[aria-label='Show data'] >> nth=0")
    assert _settle(page, True)["label"] == "Show chart"
    page.keyboard.press("Enter")  # Show chart: back to the chart
    assert _settle(page, True)["label"] == "Show data"
    _press(page, f"{chart} button[aria-label='Fullscreen'] >> nth=0")
    assert _settle(page, True)["label"] == "Close fullscreen"
    page.keyboard.press("Escape")  # leaving fullscreen
    assert _settle(page, True)["label"] == "Fullscreen"
    _press(page, f"{chart} button[aria-label='Fullscreen'] >> nth=0")
    page.keyboard.press("Enter")  # Close fullscreen, by its button
    assert _settle(page, True)["label"] == "Fullscreen"
    page.context.close()


def test_streamlit_still_drops_focus_after_show_data(browser, server):
    """Guard: Streamlit 1.67 alone drops focus to <body> after Show data (fails when an upgrade fixes it)."""
    page = fresh(browser, server)
    page.evaluate("() => { window.__peLive.keepFocus = false; }")
    _press(page, "[data-testid=stMain] button[aria-label='Show data'] >> nth=0")
    assert _settle(page, False)["body"]
    page.context.close()


def test_an_arrow_key_on_url_bound_tabs_keeps_focus_on_the_tab(browser, server):
    """Focus stays on the tab an arrow key chose, and the next arrow works. Streamlit 1.67 alone does not always
    keep it: in about one rerun of five here (and in the CI run of ec96d88) it marks the tabs aria-disabled for a
    few milliseconds near the end of the rerun they caused (no other widget), the focused tab loses its Tab stop
    and focus falls to <body>; the work-around puts it back. That being intermittent, no guard test pins it."""
    page = fresh(browser, server)
    _press(page, ".st-key-lv_tab [data-testid=stTab] >> nth=0", "ArrowRight")
    wait_address(page, "lv_tab=Second")
    assert _settle(page, True)["label"] == "Second"
    page.keyboard.press("ArrowLeft")  # and the next arrow works
    page.wait_for_timeout(300)
    wait_done(page)
    assert _settle(page, True)["label"] == "First"
    page.context.close()


def test_url_bound_tabs_are_not_drawn_anew_by_the_rerun_they_cause(browser, server):
    """The tab block is the same on every run (``frame.urlstate._same_block``): the rerun after an arrow key
    keeps the tab list, its tabs and the first panel's contents as the very same elements (marked before the
    press). While the first run passed ``default=``, the block changed at the first rerun and was drawn anew
    (focus fell every time). Focus itself is the test above's: Streamlit can still drop it without a redraw."""
    page = fresh(browser, server)
    marked = """() => { const b = document.querySelector('.st-key-lv_tab');
      return [b.querySelector('[role=tablist]'), ...b.querySelectorAll('[data-testid=stTab]'),
              b.querySelector('[data-testid=stCode]')]; }"""
    assert page.evaluate(f"() => ({marked})().filter(Boolean).length") == 4
    page.evaluate(f"() => ({marked})().forEach(e => {{ e.__peMark = 1; }})")
    _press(page, ".st-key-lv_tab [data-testid=stTab] >> nth=0", "ArrowRight")
    wait_address(page, "lv_tab=Second")
    page.wait_for_timeout(300)
    wait_done(page)  # the rerun the switch caused has run and been drawn
    assert page.evaluate(f"() => ({marked})().map(e => !!e && e.__peMark === 1)") == [True] * 4
    page.context.close()


def test_code_blocks_scroll_from_the_keyboard_and_icons_are_hidden(browser, server):
    page = fresh(browser, server)
    pre = page.locator("[data-testid=stCode] pre").first
    page.wait_for_function("() => document.querySelector('[data-testid=stCode] pre[data-pe-code]')")
    assert pre.get_attribute("tabindex") == "0" and pre.get_attribute("aria-label")
    assert pre.get_attribute("data-pe-code") == "added"  # guard: Streamlit 1.67 does not make it focusable itself
    assert page.get_attribute("[data-testid=stCode]", "tabindex") == "-1"  # one Tab stop for the block
    pre.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    page.wait_for_timeout(200)
    assert pre.evaluate("p => p.scrollLeft") > 0
    icons = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stIconMaterial], '
        + '[data-testid=stMain] [data-testid=stMarkdownContainer] span[role=img]')]
        .map(i => [i.textContent, i.getAttribute('aria-hidden'), i.hasAttribute('data-pe-icon')])""")
    assert icons and all(hidden == "true" for _, hidden, _ in icons), icons
    # guard: Streamlit 1.67 names a Markdown icon (“check_circle icon”); the work-around hid it
    assert ["check_circle", "true", True] in icons, icons
    page.context.close()


def _tab_stops(page, n: int = 45) -> list[dict]:
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    stops = []
    for _ in range(n):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(ACTIVE))
    return stops


def test_the_collapsed_sidebar_holds_no_tab_stop_at_200_percent_zoom(browser, server):
    page = fresh(browser, server, viewport={"width": 683, "height": 384})
    assert page.get_attribute("[data-testid=stSidebar]", "data-collapsed") == "true"
    stops = _tab_stops(page)
    assert not [s for s in stops if s["sidebar"]], [s for s in stops if s["sidebar"]]
    assert any(s["label"] == "Play" for s in stops)  # the walk went round the page
    page.click("[data-testid=stExpandSidebarButton], button[aria-label='Expand sidebar']")
    page.wait_for_function("() => document.querySelector('[data-testid=stSidebar]').getAttribute('data-collapsed') === 'false'")
    page.wait_for_function("() => !document.querySelector('[data-testid=stSidebar]').hasAttribute('inert')")
    page.focus("[data-testid=stSidebar] input[type=text]")  # open: reachable again
    assert page.evaluate(ACTIVE)["sidebar"]
    page.context.close()


def test_streamlit_still_leaves_the_collapsed_sidebar_in_the_tab_order(browser, server):
    """Guard: Streamlit 1.67's collapsed sidebar keeps its Tab stops off screen (fails when an upgrade fixes it)."""
    page = fresh(browser, server, viewport={"width": 683, "height": 384})
    page.evaluate("() => { window.__peLive.sidebarInert = false; window.__peLive.scan(); }")
    assert any(s["sidebar"] for s in _tab_stops(page, 6))
    page.context.close()


def test_a_page_of_the_app_mounts_the_component(browser):
    """app.py mounts frame.live once per run: a real page has the component, with no error."""
    with streamlit_server("app.py") as base:
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        open_app(page, base)
        page.wait_for_function("() => !!window.__peLive")
        assert page.locator("[data-testid=stException]").count() == 0
        assert re.search(r"st-key-pe_live", page.content())
        page.close()

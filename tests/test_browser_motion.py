"""Motion and touch on the app's own pages, in a real browser (Debian's Chromium, ``streamlit run app.py``):
frame.live's mechanism is proven on a test page (tests/test_browser_live.py); here every page shows it holds
where students meet it.

- every Play button animates its chart in the browser: its slider's value and the chart's picture change over
  frames, and nothing goes to the server (no message on the websocket, the script never runs);
- every in-chart slider on a page's main path redraws its chart more than once while dragged, before release;
- on a 390 × 844 phone every in-chart input and every Play button is at least 24 px tall and wide.

Which pages have which: read from the pages' chart specs (AppTest, ``frame.live.bound_params``), so a page that
gains an in-chart control is tested without a list to update, and a page whose browser shows none of the
controls its specs bind fails rather than passing on nothing. No test asserts a time.
"""

from __future__ import annotations

import pytest

import frame
from conftest import IDS, PAGES, chart_spec, charts_of, open_page
from harness.browser import Frames, open_app, wait_done

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
INPUTS = ("[data-testid=stMain] .vega-bind input[type=range], [data-testid=stMain] .vega-bind input[type=radio], "
          "[data-testid=stMain] .vega-bind input[type=checkbox], [data-testid=stMain] .vega-bind select, "
          "[data-testid=stMain] button.pe-play")
STATES = """() => { window.__states = [];
  new MutationObserver(() => window.__states.push(document.querySelector('[data-testid=stApp]')
    .getAttribute('data-test-script-state'))).observe(document.querySelector('[data-testid=stApp]'),
    {attributes: true, attributeFilter: ['data-test-script-state']}); }"""


def bound(info) -> dict[str, str]:
    """{param name: its input kind} of every bound param in the page's charts at its defaults (AppTest)."""
    out = {}
    for chart in charts_of(open_page(info.path)):
        for p in frame.live.bound_params(chart_spec(chart)):
            out[p["name"]] = p["bind"].get("input", "")
    return out


def ranges_on_main_path(page) -> list[str]:
    """Names of the in-chart sliders a student sees without opening a tab or a Deeper aside."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMain] .vega-bind input[type=range]')]
      .filter(e => e.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true})).map(e => e.name)""")


def opened(browser, server, info, **context):
    ctx = browser.new_context(**{"viewport": {"width": 1366, "height": 768}, **context})
    page = ctx.new_page()
    frames = Frames(page)
    open_app(page, f"{server}/{info.url_path}")
    wait_done(page)
    return page, frames


def chart_of(page, name: str):
    """The chart element that holds the bound input ``name``."""
    return page.locator("[data-testid=stMain] [data-testid=stVegaLiteChart]").filter(
        has=page.locator(f".vega-bind input[name='{name}']")).first


# The chart's picture as drawn now, by the name of its bound slider: an SVG's markup, or a canvas's pixels.
PICTURE = """(name) => {
  const input = [...document.querySelectorAll('[data-testid=stMain] .vega-bind input[type=range]')]
    .find(e => e.name === name);
  const c = input.closest('[data-testid=stVegaLiteChart]');
  const canvas = c.querySelector('canvas.marks');
  return canvas ? canvas.toDataURL() : c.querySelector('svg').innerHTML; }"""


PLAYS = [p for p in PAGES if "play=" in open(p.path, encoding="utf-8").read()]


@pytest.mark.parametrize("info", PLAYS, ids=[p.url_path or "home" for p in PLAYS])
def test_every_play_button_animates_its_chart_with_no_script_rerun(browser, server, info):
    page, frames = opened(browser, server, info)
    names = page.evaluate("() => [...document.querySelectorAll('[data-testid=stMain] button.pe-play')]"
                          ".map(b => b.dataset.param)")
    assert names, f"{info.url_path}: the script passes play= but no Play button was drawn"
    page.evaluate(STATES)
    mark = frames.mark()
    for name in names:
        button = page.locator(f"button.pe-play[data-param='{name}']").first
        button.scroll_into_view_if_needed()
        chart = chart_of(page, name)
        before = chart.screenshot()
        button.focus()
        page.keyboard.press("Enter")  # reachable and pressed from the keyboard
        values, pictures = [], []
        for _ in range(8):
            page.wait_for_timeout(150)
            values.append(page.locator(f"[data-testid=stMain] .vega-bind input[type=range][name='{name}']")
                          .first.input_value())
            pictures.append(chart.screenshot())
        page.keyboard.press("Enter")  # pause
        assert button.get_attribute("aria-pressed") == "false", f"{name}: Enter did not pause it"
        assert len(set(values)) >= 3, f"{name}: the slider did not move over frames: {values}"
        assert len({before, *pictures}) >= 3, f"{name}: the chart did not redraw as it played"
    assert frames.reruns_since(mark) == [] and len(frames.sent) == mark[0], "play asked the server for something"
    assert page.evaluate("() => window.__states") == [], "the script ran while playing"
    page.context.close()


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_in_chart_slider_on_the_main_path_redraws_its_chart_while_dragged(browser, server, info):
    kinds = bound(info)
    page, _ = opened(browser, server, info)
    names = ranges_on_main_path(page)
    assert set(names) <= {n for n, k in kinds.items() if k == "range"}, (names, kinds)
    if not names:
        assert "range" not in kinds.values() or info.url_path in UNSEEN_RANGES, \
            f"{info.url_path}: its charts bind sliders {kinds}, none on the main path"
    for name in names:
        slider = page.locator(f"[data-testid=stMain] .vega-bind input[type=range][name='{name}']").first
        slider.scroll_into_view_if_needed()
        if page.locator(f"button.pe-play[data-param='{name}'][aria-pressed=true]").count():
            page.click(f"button.pe-play[data-param='{name}']")
        box = slider.bounding_box()
        y = box["y"] + box["height"] / 2
        start = float(slider.input_value())
        lo, hi = float(slider.get_attribute("min")), float(slider.get_attribute("max"))
        x0 = box["x"] + 6 + (box["width"] - 12) * (start - lo) / ((hi - lo) or 1)
        direction = -1 if start > (lo + hi) / 2 else 1  # drag towards the far end
        page.mouse.move(x0, y)
        page.mouse.down()
        seen = [page.evaluate(PICTURE, name)]
        for i in range(1, 9):
            page.mouse.move(x0 + direction * i * (box["width"] - 12) / 20, y)
            page.wait_for_timeout(60)
            seen.append(page.evaluate(PICTURE, name))
        page.mouse.up()
        assert len(set(seen)) >= 3, f"{name}: the chart redrew {len(set(seen)) - 1} times while dragged, before release"
    page.context.close()


# Pages whose in-chart sliders all sit in a tab or a Deeper aside, by design (none on the main path).
UNSEEN_RANGES: set[str] = set()


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_in_chart_input_and_play_button_is_a_24_px_target_on_a_phone(browser, server, info):
    kinds = bound(info)
    page, _ = opened(browser, server, info, **PHONE)
    sizes = page.evaluate(f"""() => [...document.querySelectorAll("{INPUTS}")]
      .filter(e => e.offsetParent !== null || e.getClientRects().length)
      .map(e => {{ const r = e.getBoundingClientRect(); return [e.name || e.textContent, r.width, r.height]; }})""")
    small = [s for s in sizes if s[1] < 24 or s[2] < 24]
    assert not small, f"{info.url_path}: targets under 24 px on a phone: {small}"
    if kinds:
        assert sizes, f"{info.url_path}: its charts bind {sorted(kinds)}, but no in-chart input was drawn"
    page.context.close()

"""Browser tests: Playwright driving Debian's Chromium against a real `streamlit run app.py`.

They fail (never skip) when Chromium is missing. Screenshots of every page go to artifacts/screenshots/.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect, sync_playwright

from browser import ARTIFACTS, full_screenshot, launch, streamlit_server, wait_done

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import frame  # noqa: E402

PAGES = frame.existing_pages()
(ROOT / "artifacts").mkdir(exist_ok=True)


@pytest.fixture(scope="module")
def server():
    with streamlit_server() as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = ctx.new_page()
    yield pg
    ctx.close()


def test_first_request_is_a_deep_link_with_state():
    """After a fresh server start, the very first request opens a deep link: the app's own navigation runs,
    the page is the right one, and the URL's state is applied."""
    query = urlencode({"sentence": "The dog bit the man", "d": "32", "causal": "true"})
    with streamlit_server() as base, sync_playwright() as p:
        b = launch(p)
        pg = b.new_page(viewport={"width": 1400, "height": 900})
        pg.goto(f"{base}/scramble?{query}")
        wait_done(pg)
        assert pg.locator("[data-testid=stException]").count() == 0
        expect(pg.locator("h1").first).to_have_text("The sentence scramble")
        nav = pg.locator("[data-testid=stSidebarNav]")
        expect(nav.get_by_text("Why order is lost", exact=True)).to_be_visible()
        # Legacy multipage mode would list the entry script as a page called "app".
        assert nav.get_by_text("app", exact=True).count() == 0
        expect(pg.get_by_role("spinbutton", name="Model width d")).to_have_value("32")
        expect(pg.get_by_role("textbox", name="Sentence")).to_have_value("The dog bit the man")
        assert pg.locator("[data-testid=stDataFrame]").count() >= 1
        expect(pg.get_by_text("With the causal mask the equation fails", exact=False)).to_be_visible()
        b.close()


@pytest.mark.parametrize("info", PAGES, ids=[p.url_path or "home" for p in PAGES])
def test_every_page_loads_and_renders(server, page, info):
    page.goto(f"{server}/{info.url_path}")
    wait_done(page)
    assert page.locator("[data-testid=stException]").count() == 0
    expect(page.locator("h1").first).to_have_text(info.title if info.url_path else
                                                   "How a transformer learns word order")
    if info.url_path:
        charts = page.locator("[data-testid=stVegaLiteChart]")
        expect(charts.first).to_be_visible()
        # Vega draws into an SVG or a canvas once the chart has rendered.
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')]"
            ".some(c => c.querySelector('svg.marks, canvas.marks'))")
        katex = page.locator(".katex")
        expect(katex.first).to_be_attached()
        assert page.locator(".katex-error").count() == 0
    full_screenshot(page, info.url_path or "home")


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
    assert page.locator("[data-testid=stException]").count() == 0


def test_student_text_is_never_rendered_as_markup(server, page):
    evil = '<img src=x onerror="window.__pwned=1"> ![x](http://127.0.0.1:9/a.png) $x^2$ mouse'
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{server}/scramble?" + urlencode({"sentence": evil}))
    wait_done(page)
    assert page.locator("[data-testid=stException]").count() == 0
    assert page.evaluate("() => window.__pwned === undefined")
    assert not any("127.0.0.1:9" in u for u in requests)
    full_screenshot(page, "scramble-hostile-text")


# One Streamlit slider per page that has one: (its label, its URL key).
SLIDERS = {
    "fixes": ("Position of the first word", "fx_start"),
    "learned": ("Look up position p", "lt_pos"),
    "binary": ("Number of bits n", "bn_bits"),
    "sinusoids": ("Positions shown", "sn_len"),
    "stretch": ("Stretch factor s", "st_s"),
}
SLIDER_PAGES = [p for p in PAGES if p.url_path in SLIDERS]


def chart_pictures(page) -> list[bytes]:
    """Pictures of the charts a student can see (charts in hidden tabs are skipped)."""
    charts = page.locator("[data-testid=stVegaLiteChart]")
    return [charts.nth(i).screenshot(animations="disabled") for i in range(charts.count())
            if charts.nth(i).is_visible()]


@pytest.mark.parametrize("info", SLIDER_PAGES, ids=[p.url_path for p in SLIDER_PAGES])
def test_keyboard_slider_updates_chart_and_url(server, page, info):
    label, key = SLIDERS[info.url_path]
    page.goto(f"{server}/{info.url_path}")
    wait_done(page)
    slider = page.locator("[data-testid=stSlider]").filter(has_text=label).locator("input[type=range]")
    before_value = slider.input_value()
    before = chart_pictures(page)
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([k, v]) => new URL(location.href).searchParams.get(k) !== null", arg=[key, before_value], timeout=10_000)
    wait_done(page)
    after_value = slider.input_value()
    assert after_value != before_value
    assert f"{key}={after_value}" in page.url
    assert page.locator("[data-testid=stException]").count() == 0
    after = chart_pictures(page)
    assert len(after) == len(before) and any(a != b for a, b in zip(after, before)), "no chart changed"

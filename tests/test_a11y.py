"""Every student can use it (WCAG 2.1 AA, measured in Chromium): one server for the module, every page.

- axe-core (WCAG 2 A/AA) with every expander and every tab opened: no violation in the app's own markup;
- a keyboard walk: Tab reaches every control of the main area, each focused control shows a focus indicator
  of at least 3:1 against the background, and focus never lands on <body> after an action (a Predict pick);
- picking a Predict answer updates a polite live region;
- charts expose no individual marks to a screen reader (Vega-Lite ``aria: false``), only their name.
"""

from __future__ import annotations

import pytest

import frame
from conftest import IDS, LESSON_IDS, LESSONS, PAGES
from harness.browser import SLOW, open_app, run_axe, wait_charts, wait_done

FOCUS_CONTRAST = 3.0


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    ctx.set_default_timeout(SLOW)
    pg = ctx.new_page()
    yield pg
    ctx.close()


def open_visible_expanders(page) -> None:
    """Open every closed expander a student can see now, one at a time (an expander can hold another, and each
    opening redraws the page around it)."""
    for _ in range(40):
        opened = page.evaluate("""() => {
          const s = [...document.querySelectorAll('[data-testid=stMain] details:not([open]) > summary')]
            .find(e => e.getClientRects().length && e.getBoundingClientRect().width > 0);
          if (!s) return false;
          s.click();
          return true;
        }""")
        if not opened:
            return
        wait_done(page)


def each_view(page):
    """The page with every expander opened, once per tab of every tab list (yields after each)."""
    open_visible_expanders(page)
    wait_charts(page)
    yield
    tabs = page.locator("[data-testid=stMain] [role=tab]")
    for i in range(tabs.count()):
        if tabs.nth(i).get_attribute("aria-selected") == "true" or not tabs.nth(i).is_visible():
            continue
        tabs.nth(i).evaluate("t => t.click()")
        wait_done(page)
        open_visible_expanders(page)
        wait_charts(page)
        yield


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_axe_finds_nothing_in_our_markup_with_everything_open(server, page, info):
    """axe-core (WCAG 2 A/AA) with every expander open, in every tab."""
    open_app(page, f"{server}/{info.url_path}")
    problems = set()
    for _ in each_view(page):
        for v in run_axe(page):
            mine = [n for n in v["nodes"] if n["ours"]]
            if mine:
                problems.add(f"{v['id']} ({v['impact']}): {v['help']} — "
                             + "; ".join(f"{n['target']} {n['html'][:80]}" for n in mine[:3]))
    assert not problems, sorted(problems)


# The focused element, what draws its focus indicator (an outline on it or on an ancestor up to its label or
# widget), and that indicator's contrast against the page's background.
FOCUS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return {body: true};
  const lum = (c) => {
    const m = (c || '').match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const [r, g, b, a] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    if (a === 0) return null;
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (node) => {
    for (let n = node; n; n = n.parentElement) {
      const c = getComputedStyle(n).backgroundColor;
      if (lum(c) !== null && !/rgba\\([^)]*,\\s*0\\)$/.test(c)) return lum(c);
    }
    return 1;
  };
  let best = 0, how = 'none';
  for (let n = el, depth = 0; n && depth < 4; n = n.parentElement, depth++) {
    const s = getComputedStyle(n);
    const candidates = [];
    if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) candidates.push(['outline', s.outlineColor]);
    if (s.boxShadow && s.boxShadow !== 'none') {
      const m = s.boxShadow.match(/rgba?\\([^)]+\\)/g) || [];
      m.forEach(c => candidates.push(['box-shadow', c]));
    }
    for (const [kind, c] of candidates) {
      const l = lum(c);
      if (l === null) continue;
      const b = background(n.parentElement || n);
      const ratio = (Math.max(l, b) + 0.05) / (Math.min(l, b) + 0.05);
      if (ratio > best) { best = ratio; how = kind; }
    }
  }
  const r = el.getBoundingClientRect();
  return {body: false, tag: el.tagName.toLowerCase(), name: el.getAttribute('aria-label') || el.id || (el.innerText || '').slice(0, 40),
          contrast: best, how, inMain: !!el.closest('[data-testid=stMain]'), visible: r.width > 0 && r.height > 0};
}"""

CONTROLS = """() => [...document.querySelectorAll('[data-testid=stMain] input, [data-testid=stMain] button, '
  + '[data-testid=stMain] a[href], [data-testid=stMain] [role=slider], [data-testid=stMain] summary, '
  + '[data-testid=stMain] select, [data-testid=stMain] textarea')]
  .filter(e => e.getClientRects().length && !e.closest('details:not([open]) > :not(summary)')
               && !e.disabled && e.tabIndex >= 0 && getComputedStyle(e).visibility !== 'hidden')
  .filter((e, i, all) => e.type !== 'radio' || all.findIndex(o => o.type === 'radio' && o.name === e.name) === i)
  .map(e => { e.dataset.peControl = e.type === 'radio' ? 'radio:' + e.name : '1'; return e.outerHTML.slice(0, 80); })"""


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_a_keyboard_walk_reaches_every_control_with_a_visible_focus(server, page, info):
    open_app(page, f"{server}/{info.url_path}")
    controls = page.evaluate(CONTROLS)
    page.locator("h1").first.click()  # start the walk from the page's content
    reached, faint = 0, []
    for _ in range(len(controls) * 3 + 60):
        page.keyboard.press("Tab")
        f = page.evaluate(FOCUS)
        if f["body"]:
            continue
        if f["inMain"] and f["visible"]:
            # A radio group is one Tab stop (arrow keys move inside it): reaching any option reaches the group.
            if page.evaluate("""() => {
              const a = document.activeElement;
              const mark = a.type === 'radio'
                ? document.querySelector(`[data-pe-control="radio:${CSS.escape(a.name)}"]`) : (a.dataset.peControl ? a : null);
              if (!mark) return false;
              delete mark.dataset.peControl;
              return true;
            }"""):
                reached += 1
            if f["contrast"] < FOCUS_CONTRAST:
                faint.append(f"{f['tag']} {f['name']!r}: focus {f['how']} {f['contrast']:.2f}:1")
        if reached >= len(controls):
            break
    missed = page.evaluate("() => [...document.querySelectorAll('[data-pe-control]')].map(e => e.outerHTML.slice(0, 100))")
    assert not missed, f"Tab never reached {len(missed)} of {len(controls)} controls: {missed[:4]}"
    assert not faint, f"focus indicators under {FOCUS_CONTRAST}:1: {sorted(set(faint))[:6]}"


@pytest.mark.parametrize("info", LESSONS, ids=LESSON_IDS)
def test_picking_a_predict_answer_by_keyboard_announces_it_and_keeps_focus(server, page, info):
    open_app(page, f"{server}/{info.url_path}")
    ask = page.locator("[data-testid=stMain] [data-testid=stRadio]").filter(has_text="Predict.").first
    assert ask.count(), "no Predict question"
    name = ask.get_by_role("radiogroup").get_attribute("aria-label") or ask.get_by_role("radiogroup").evaluate(
        "g => (document.getElementById(g.getAttribute('aria-labelledby')) || {}).textContent || ''")
    assert "Predict." in (name or ""), f"the radio group is named {name!r}, not by its question"
    assert not page.locator("[data-testid=stMain] [role=status]").filter(has_text="prediction").count()
    ask.get_by_role("radio").first.focus()
    page.keyboard.press("Space")
    wait_done(page)
    page.wait_for_timeout(500)
    live = page.locator("[data-testid=stMain] [role=status][aria-live=polite]")
    assert live.count() and "prediction" in live.first.inner_text().lower()
    assert page.evaluate("() => document.activeElement !== document.body"), "focus fell to <body> after the pick"


@pytest.mark.parametrize("info", LESSONS, ids=LESSON_IDS)
def test_charts_expose_their_name_not_every_mark(server, page, info):
    open_app(page, f"{server}/{info.url_path}")
    labelled = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]')]
      .map(c => [...c.querySelectorAll('svg.marks [aria-label]')]
        .filter(e => !/role-(axis|legend|title)/.test(e.getAttribute('class') || '')).length)""")
    assert not any(labelled), f"data marks exposed one by one (per chart): {labelled}"


def test_a_glossary_link_shows_its_definition_in_this_tab_with_the_state_kept(server, page):
    """A glossary word is a link to its definition on the same page (no hover needed, no new tab): pressing it
    from the keyboard keeps one tab, keeps every parameter in the address, and brings the definition on screen
    with its mark."""
    open_app(page, f"{server}/attention?seed=3")
    link = page.locator("[data-testid=stMain] a[href^='#term-']").first
    assert link.count(), "no glossary link on the attention page"
    assert link.get_attribute("target") in (None, "_self"), "a glossary link opens another tab"
    word = link.get_attribute("href").removeprefix("#term-")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_timeout(800)
    assert len(page.context.pages) == 1, "the glossary opened a new tab"
    assert "seed=3" in page.url and page.url.endswith(f"#term-{word}"), page.url
    shown = page.evaluate("""(id) => { const dt = document.getElementById(id); if (!dt) return null;
      const r = dt.getBoundingClientRect(); const dd = dt.nextElementSibling;
      return {onScreen: r.top >= 0 && r.bottom <= innerHeight, target: dt.matches(':target'),
              definition: dd ? dd.textContent.trim() : ''}; }""", f"term-{word}")
    assert shown and shown["onScreen"] and shown["target"], shown
    assert shown["definition"] == frame.GLOSSARY[word]

"""Every in-chart control of every page round-trips through a link into a fresh browser (Debian's Chromium, a
real ``streamlit run app.py``).

An in-chart control is a Vega-Lite param bound to an HTML input that Vega draws under its chart (``frame.live``):
``frame/live.js`` writes its value into the address (``?<param>=<value>``, no rerun) and ``frame.chart`` seeds the
param from the address on the next load. For each page:

1. a fresh browser (1366 × 768) opens it and reaches every in-chart control the way a student would: it opens
   every expander that may hold one (a click on its summary) and every tab (a click on it; nested tabs first),
   found in the DOM — no list of tabs, expanders or params per page;
2. each control, as soon as it shows, is set to another value (a range: arrow keys; a select or a radio: another
   option; a checkbox: toggled), and the address must carry it — with no script run for it;
3. a new browser (nothing shared) opens that address: the tab and expanders left open come from the link itself
   (bound to the URL) and show their controls at once; every control, reached the same way, shows the value set;
   no exception, no error, no “not usable” notice;
4. the controls round-tripped are exactly the bound params of the page's charts (``frame.live.bound_params`` over
   an AppTest run of the page), and each page known to carry in-chart controls round-trips at least one.

Behaviour only: no test asserts a time.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import IDS, PAGES, assert_ok, chart_specs, open_page
from frame.live import bound_params
from harness.browser import SLOW, open_app, wait_charts, wait_done

# Pages whose charts carry in-chart controls today: each must round-trip at least one (never silently nothing).
KNOWN = {"sinusoids", "rope", "binary", "fixes", "stretch", "beyond", "lab", "explains", "attention", "scramble"}
VIEWPORT = {"width": 1366, "height": 768}
PRESSES = 3  # arrow presses on a range input

# Every in-chart control that shows (not in a closed tab or expander), by its param's name (Vega names the input
# after the param), with its value as the address writes it (frame/live.js valueOf), what it offers, and the keys
# of the expanders around it (the URL key, null for an expander with none).
CONTROLS = """() => {
  const out = {};
  const shows = (el) => el.getClientRects().length && !el.closest('details:not([open])');
  const keyOf = (el) => {
    for (const e of [el, el && el.parentElement]) {
      const k = e && [...e.classList].find((c) => c.startsWith('st-key-'));
      if (k) return k.slice('st-key-'.length);
    }
    return null;
  };
  for (const el of document.querySelectorAll('[data-testid=stVegaLiteChart] .vega-bind [name]')) {
    if (!shows(el) || out[el.name]) continue;
    const bind = el.closest('.vega-bind');
    const kind = el.tagName === 'SELECT' ? 'select' : el.type;
    const radios = [...bind.querySelectorAll('input[type=radio]')];
    let value = el.value;
    if (kind === 'checkbox') value = el.checked ? 'true' : 'false';
    if (kind === 'radio') value = (radios.find((r) => r.checked) || {}).value ?? null;
    const expanders = [];
    for (let e = el.parentElement; e; e = e.parentElement) {
      if (e.dataset.testid === 'stExpander') expanders.push(keyOf(e));
    }
    out[el.name] = {kind, value, min: el.min, max: el.max,
                    options: kind === 'select' ? [...el.options].map((o) => o.value) : radios.map((r) => r.value),
                    expanders};
  }
  return out;
}"""

# The first closed expander of the main area that shows, was not clicked yet and may hold an in-chart control: a
# chart, tabs or another expander in it — or nothing drawn in it yet (a closed expander's content is in the page
# in Streamlit 1.67, but were it drawn only when opened, it is opened). Marked (data-pe-reach) for the click;
# its summary's last line returned (null when none is left).
CLOSED_EXPANDER = """() => {
  const d = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stExpander] details')]
    .find((d) => !d.open && d.getClientRects().length && !d.parentElement.closest('details:not([open])')
               && !d.dataset.peReach
               && (d.querySelector('[data-testid=stVegaLiteChart], [data-testid=stTabs], [data-testid=stExpander]')
                   || !d.querySelector('[data-testid=stElementContainer]')));
  if (!d) return null;
  window.__peReach = (window.__peReach || 0) + 1;
  d.dataset.peReach = String(window.__peReach);
  return {mark: d.dataset.peReach, summary: d.querySelector('summary').innerText.trim().split('\\n').pop()};
}"""

# The tabs of the main area that show, each marked (data-pe-tab) for a click: its group (the tabs' key, else
# their place), its label, and whether it is selected.
TABS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stTabs]')]
  .filter((g) => g.getClientRects().length && !g.closest('details:not([open])'))
  .flatMap((g, i) => {
    const key = [...g.classList].find((c) => c.startsWith('st-key-'));
    const group = key ? key.slice('st-key-'.length) : `tabs ${i}`;
    return [...g.querySelectorAll('[role=tab]')].filter((t) => t.closest('[data-testid=stTabs]') === g)
      .map((t, j) => {
        t.dataset.peTab = `${group}/${j}`;
        return {group, mark: t.dataset.peTab, label: t.innerText.trim(),
                selected: t.getAttribute('aria-selected') === 'true'};
      });
  })"""

# Does the address carry each control's value (a range's as a number: Vega writes 3 or 3.0 alike)?
ADDRESS_HAS = """(want) => {
  const q = new URLSearchParams(window.location.search);
  return Object.entries(want).every(([name, c]) => {
    const got = q.getAll(name).pop();
    if (got === undefined) return false;
    return c.kind === 'range' ? Number(got) === Number(c.value) : got === c.value;
  });
}"""

# From now on, record every change of the script state (a run starting or ending) in window.__peRuns.
WATCH_RUNS = """() => {
  window.__peRuns = [];
  const app = document.querySelector('[data-testid=stApp]');
  if (window.__peRunWatch) window.__peRunWatch.disconnect();
  window.__peRunWatch = new MutationObserver(() => window.__peRuns.push(app.getAttribute('data-test-script-state')));
  window.__peRunWatch.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""


# ---------------------------------------------------------------- shared helpers (could move to conftest.py)
def expected_params(info) -> list[str]:
    """The names of the bound params of every chart on the page at its defaults (an AppTest run)."""
    at = assert_ok(open_page(info.path if info.url_path else None))
    return [p["name"] for spec in chart_specs(at) for p in bound_params(spec)]


def settle(page) -> None:
    """The run is over and every chart that shows is drawn."""
    wait_done(page, timeout=SLOW)
    wait_charts(page)


def reach_every_control(page, visit, done=lambda: False) -> list[str]:
    """Open every expander and every tab of the main area in turn, as a student would (a click each), calling
    ``visit(controls)`` with the in-chart controls that show (``CONTROLS``) at the start and after each click.
    Tabs are visited last in document order first, so that the tabs nested in a tab are visited while it is open.
    Stops early once ``done()``. Returns the clicks, in order (for messages)."""
    clicks: list[str] = []
    visited: set[tuple[str, str]] = set()
    while True:
        visit(page.evaluate(CONTROLS))
        if done():
            return clicks
        closed = page.evaluate(CLOSED_EXPANDER)
        if closed is not None:
            details = page.locator(f"details[data-pe-reach='{closed['mark']}']")
            details.locator("summary").first.click()
            page.wait_for_function("(d) => d.open", arg=details.element_handle())
            settle(page)
            clicks.append(f"expander {closed['summary']!r}")
            continue
        tabs = page.evaluate(TABS)
        visited |= {(t["group"], t["label"]) for t in tabs if t["selected"]}
        todo = [t for t in tabs if (t["group"], t["label"]) not in visited]
        if not todo:
            return clicks
        tab = todo[-1]
        visited.add((tab["group"], tab["label"]))
        page.locator(f"[data-pe-tab='{tab['mark']}']").click()
        page.wait_for_function("(m) => document.querySelector(`[data-pe-tab='${m}']`)?.ariaSelected === 'true'",
                               arg=tab["mark"])
        settle(page)
        clicks.append(f"tab {tab['group']}={tab['label']!r}")


def input_of(page, name: str, kind: str):
    """The in-chart input (for a radio: the group's inputs) named ``name`` that shows."""
    tag = "select" if kind == "select" else f"input[type={kind}]"
    return page.locator(f'[data-testid=stVegaLiteChart] .vega-bind {tag}[name="{name}"]').filter(visible=True)


def change(page, name: str, control: dict) -> None:
    """Set the control to another value than its own, as a student would."""
    kind = control["kind"]
    el = input_of(page, name, kind)
    if kind == "range":
        at_max = float(control["value"]) >= float(control["max"])
        el.first.focus()
        for _ in range(PRESSES):
            page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
    elif kind == "select":
        el.first.select_option(next(o for o in control["options"] if o != control["value"]))
    elif kind == "radio":
        el.nth(next(i for i, o in enumerate(control["options"]) if o != control["value"])).check()
    elif kind == "checkbox":
        el.first.click()
    else:
        raise AssertionError(f"{name}: an in-chart {kind} input is not seeded from the address (frame.live.SEEDED)")


def same(kind: str, a: str | None, b: str | None) -> bool:
    if kind == "range" and a is not None and b is not None:
        return float(a) == float(b)
    return a == b


def address_lacks(page, want: dict, wait: bool = True) -> list[str]:
    """Wait (up to 10 s: frame/live.js writes within 250 ms) until the address carries each control's value;
    what it lacks, said (empty when it carries them all)."""
    try:
        if wait:
            page.wait_for_function(ADDRESS_HAS, arg=want, timeout=10_000)
        if page.evaluate(ADDRESS_HAS, want):
            return []
    except Exception as err:  # playwright's TimeoutError
        if "Timeout" not in type(err).__name__:
            raise
    q = parse_qs(urlsplit(page.url).query)
    return [f"{n}: the address does not carry {c['value']!r} (it has {q.get(n)})"
            for n, c in want.items() if not same(c["kind"], (q.get(n) or [None])[-1], c["value"])]


def no_error(page, where: str) -> None:
    errors = page.locator("[data-testid=stException], [data-testid=stAlertContentError]")
    assert errors.count() == 0, f"{where}: {errors.all_inner_texts()[:2]}"
    text = page.inner_text("[data-testid=stMain]")
    assert "was not usable" not in text, f"{where}: a link's value was not usable: {text[:2000]}"


def fresh(browser):
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.set_default_timeout(90_000)  # a loaded shared machine; open_app waits longer for a cold page
    return ctx


# ---------------------------------------------------------------- the round trip
@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_in_chart_control_round_trips_through_a_link_into_a_fresh_browser(server, browser, info):
    expected = expected_params(info)
    assert len(expected) == len(set(expected)), f"a param name bound twice on the page: {expected}"
    if info.url_path in KNOWN:
        assert expected, f"{info.url_path}: no chart carries an in-chart control any more (update KNOWN)"
    url = f"{server}/{info.url_path}"

    # 1–3. A student sets every control; the address carries each, with no script run.
    set_to: dict[str, dict] = {}
    problems: list[str] = []

    def set_new(page, controls: dict) -> None:
        new = {n: c for n, c in controls.items() if n not in set_to}
        if not new:
            return
        page.evaluate(WATCH_RUNS)
        for name, control in new.items():
            change(page, name, control)
        shown = page.evaluate(CONTROLS)
        for name, control in new.items():
            now = shown.get(name)
            if now is None or same(control["kind"], now["value"], control["value"]):
                problems.append(f"{name}: the {control['kind']} did not move from {control['value']!r} "
                                f"(now {now and now['value']!r})")
                now = now or control
            set_to[name] = now
        problems.extend(address_lacks(page, {n: set_to[n] for n in new}))
        runs = page.evaluate("() => window.__peRuns")
        if runs:
            problems.append(f"{sorted(new)}: setting them ran the script ({runs})")

    ctx = fresh(browser)
    try:
        page = ctx.new_page()
        open_app(page, url)
        no_error(page, url)
        clicks = reach_every_control(page, lambda controls: set_new(page, controls))
        problems.extend(f"after {clicks}: {p}" for p in address_lacks(page, set_to))  # the clicks' runs kept them
        link = page.url
        last = page.evaluate(CONTROLS)  # what shows with the link's own tabs and expanders
        no_error(page, url)
    finally:
        ctx.close()
    assert not problems, f"{info.url_path} (after {clicks}): " + "; ".join(problems)
    q = parse_qs(urlsplit(link).query)

    # 4. A new browser opens the link: every control shows the value set.
    checked: dict[str, str] = {}
    on_load: set[str] = set()
    wrong: list[str] = []

    def check(page, controls: dict) -> None:
        for name, control in controls.items():
            if name in checked or name not in set_to:
                continue
            want = set_to[name]["value"]
            checked[name] = control["value"]
            if not same(control["kind"], control["value"], want):
                wrong.append(f"{name}: shows {control['value']!r}, the link says {want!r}")

    ctx = fresh(browser)
    try:
        other = ctx.new_page()
        open_app(other, link)
        no_error(other, link)
        first = other.evaluate(CONTROLS)
        on_load = set(first)
        # The tab and the expanders open when the link was taken come from the link itself: their controls show
        # at once (an expander with no key is not in the link, and is opened by a click below).
        from_link = {n for n, c in last.items()
                     if all(k is not None and q.get(k, [""])[-1] == "true" for k in c["expanders"])}
        assert from_link <= on_load, (f"{link}: {sorted(from_link - on_load)} showed when the link was taken "
                                      f"but not in a new browser opening it")
        reach_every_control(other, lambda controls: check(other, controls), done=lambda: set(checked) >= set(set_to))
        no_error(other, link)
        wrong.extend(address_lacks(other, set_to, wait=False))  # nothing was corrected: the link was usable
    finally:
        ctx.close()

    assert not wrong, f"{link}: " + "; ".join(wrong)
    assert set(checked) == set(set_to), f"{link}: never reached in the new browser: {sorted(set(set_to) - set(checked))}"
    # Every bound param of the page's charts was round-tripped, and nothing else.
    assert sorted(set_to) == sorted(expected), (f"{info.url_path}: round-tripped {sorted(set_to)}, the charts bind "
                                               f"{sorted(expected)} (clicks: {clicks})")
    print(f"{info.url_path or 'home'}: {len(set_to)} in-chart control(s) round-tripped "
          f"({len(on_load & set(set_to))} showing at once from the link): {sorted(set_to)}")


def test_the_pages_known_to_carry_in_chart_controls_are_still_pages():
    """A renamed page would drop out of KNOWN's guard silently."""
    assert KNOWN <= set(IDS), sorted(KNOWN - set(IDS))

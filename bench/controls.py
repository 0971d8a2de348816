"""Every control of every page: what one press costs, on the server and in the browser.

Controls are discovered at run time, never listed here (the pages change): a Streamlit session over the
websocket (bench/wsclient.py) opens each page and collects every widget it draws (sliders, select sliders,
number inputs, radios, select boxes, toggles, checkboxes, text inputs, pills) with the st.fragment it sits in,
and every in-chart control (a Vega-Lite parameter bound to an input: ``params[].bind.input`` in a chart's spec).

Server (websocket): each widget is changed ``presses`` times, one step on each time (a slider or number one
step up, the next option, the other state of a switch; back down at an end) — mostly values the server has not
computed yet, as a student sliding does — and then put back untimed. Per press: the time from the rerun
request to ``script_finished`` (the server's work, Streamlit's transfer included, no rendering), the bytes
received (with the browser's message cache: unchanged large elements come back as references), and whether the
server ran only a fragment (``FINISHED_FRAGMENT_RUN_SUCCESSFULLY``; the widget's delta carries a fragment id
and the rerun request names it, as the browser does) or the whole page. Kind: **fragment** or **page**; an
in-chart control costs the server nothing (**in-chart**).

Browser (Chromium, bench/probe.js): each visible control of the page (tabs are clicked through, expanders
opened) is pressed as a student does — arrow key on a slider's thumb, ArrowUp in a number input, a click on
the next radio option or on a switch, Enter after typing in a text box, ArrowDown + Enter in an open select box
— and timed in the page from the keydown / pointerdown to the script run finished and the charts redrawn. In-chart
controls: a range input gets an arrow key, a select or radio input a new value (its ``input``/``change``
event), timed from that event to the chart redrawn (no rerun). The hello-world page (bench/hello_app.py) is
measured the same way in the same run: the ×hello ratios divide by it.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.wsclient import MAIN, SIDEBAR, Control, Session, SessionError

# Quick mode presses, in the browser, the first control of each of these kinds (no radios, switches or texts: they
# would need putting back, which doubles the cost).
QUICK_KINDS = {"slider", "number", "vega range", "vega select", "vega radio", "vega checkbox"}
SIDEBAR_POLICIES = ("all", "home", "none")  # measure the sidebar's controls on every page, on home only, never


@dataclass
class ControlRow:
    page: str  # url path ("" = home; "hello" for the hello-world page)
    label: str
    widget: str  # slider, number, radio … or "vega range" / "vega select" …
    where: str  # main, sidebar, chart
    kind: str = "page"  # "page" (the whole script reruns), "fragment", "in-chart" (no rerun), "floor" (not a
    #                     control: the page rerun with nothing changed, _measure_noop_rerun)
    fragment_id: str = ""
    server_ms: list[float] = field(default_factory=list)
    bytes: list[int] = field(default_factory=list)
    fragment_runs: int = 0
    browser_ms: list[float] = field(default_factory=list)
    browser_bytes: list[int] = field(default_factory=list)
    browser_fragment_runs: int = 0
    browser_details: list[dict] = field(default_factory=list)  # per press: the probe's phases (ms)
    notes: list[str] = field(default_factory=list)

    @property
    def server_median(self) -> float:
        return statistics.median(self.server_ms) if self.server_ms else float("nan")

    @property
    def bytes_median(self) -> float:
        return statistics.median(self.bytes) if self.bytes else float("nan")

    @property
    def browser_median(self) -> float:
        return statistics.median(self.browser_ms) if self.browser_ms else float("nan")

    def as_dict(self) -> dict:
        d = asdict(self)
        d.update(server_median=self.server_median, bytes_median=self.bytes_median,
                 browser_median=self.browser_median)
        return d


def _norm(label: str) -> str:
    return " ".join(str(label).replace("$", "").split()).strip().lower()


def chart_controls(specs: list[str], fragments: list[str]) -> list[ControlRow]:
    """The Vega-Lite parameters bound to an input in these chart specs (one row per distinct name)."""
    rows: list[ControlRow] = []
    seen: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for p in x.get("params") or []:
                bind = p.get("bind") if isinstance(p, dict) else None
                if isinstance(bind, dict) and bind.get("input"):
                    name = " ".join(str(bind.get("name") or p.get("name")).split())
                    if name not in seen:
                        seen.add(name)
                        rows.append(ControlRow("", name, f"vega {bind['input']}", "chart", "in-chart"))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for spec in specs:
        try:
            walk(json.loads(spec))
        except ValueError:
            continue
    return rows


# ---------------------------------------------------------------- server: websocket sessions
async def _measure_page_ws(base: str, url_path: str, presses: int, sidebar: bool, timeout: float) -> list[ControlRow]:
    s = Session(base, url_path, timeout)
    rows: list[ControlRow] = []
    try:
        await s.open()
        controls: list[Control] = [c for c in s.ordered() if c.root == MAIN or (sidebar and c.root == SIDEBAR)]
        for c in controls:
            row = ControlRow(url_path, c.label, c.kind, c.where, "fragment" if c.fragment_id else "page",
                             c.fragment_id)
            rows.append(row)
            if s.ws is None:
                await s.open()
            control = s.controls.get(c.id)
            if control is None or c.id not in s.order:
                row.notes.append("not on the page any more after an earlier control moved")
                continue
            start = control.value
            for _ in range(presses):
                try:
                    await s.rerun((control, control.moved(True)))
                except SessionError as err:
                    row.notes.append(str(err)[:160])
                    break
                except Exception as err:  # noqa: BLE001 - a timeout or a dropped connection: note, reconnect
                    row.notes.append(f"{type(err).__name__}: {str(err)[:120]}")
                    await s.close()
                    break
                row.server_ms.append(s.last.ms)
                row.bytes.append(s.last.bytes)
                row.fragment_runs += s.last.fragment
            if row.server_ms:
                if row.fragment_runs == len(row.server_ms):
                    row.kind = "fragment"
                elif row.fragment_runs:
                    row.kind = "fragment"
                    row.notes.append(f"{len(row.server_ms) - row.fragment_runs} of {len(row.server_ms)} presses "
                                     "reran the whole page")
                else:
                    row.kind = "page"
                    if c.fragment_id:
                        row.notes.append("in a fragment, but the server reran the whole page")
            if s.ws is not None and control.value != start:  # put it back (untimed)
                try:
                    await s.rerun((control, start))
                except Exception as err:  # noqa: BLE001
                    row.notes.append(f"putting it back: {type(err).__name__}")
                    await s.close()
        for r in chart_controls(s.charts, s.chart_fragments):
            r.page = url_path
            rows.append(r)
    finally:
        await s.close()
    return rows


def measure_server(base: str, url_paths: list[str], presses: int, sidebar: str = "all",
                   timeout: float = 60.0, log=None) -> dict[str, list[ControlRow]]:
    """{url path: rows} for every page, over the websocket of the running server at ``base``."""
    out: dict[str, list[ControlRow]] = {}
    for i, path in enumerate(url_paths):
        t = time.monotonic()
        with_sidebar = sidebar == "all" or (sidebar == "home" and i == 0)
        try:
            out[path] = asyncio.run(asyncio.wait_for(
                _measure_page_ws(base, path, presses, with_sidebar, timeout), timeout * 20))
        except Exception as err:  # noqa: BLE001 - report it on the page, go on with the others
            out[path] = [ControlRow(path, "—", "error", "main", "page",
                                    notes=[f"{type(err).__name__}: {str(err)[:160]}"])]
        if log:
            log(f"  controls (server): {path or 'home'}: {len(out[path])} controls "
                f"({time.monotonic() - t:.1f} s)")
    return out


# ---------------------------------------------------------------- browser
_FIND = r"""
(args) => {
  const [withSidebar] = args;
  const vis = (e) => !!(e && e.offsetParent !== null && e.getClientRects().length);
  const label = (w) => (w.querySelector('[data-testid=stWidgetLabel]')?.innerText || '').replace(/\s+/g, ' ').trim();
  const out = [];
  const roots = [['main', document.querySelector('[data-testid=stMain]')]];
  if (withSidebar) roots.push(['sidebar', document.querySelector('[data-testid=stSidebar]')]);
  for (const [where, root] of roots) {
    if (!root) continue;
    const kinds = [['stSlider', 'slider'], ['stNumberInput', 'number'], ['stRadio', 'radio'],
                   ['stCheckbox', 'checkbox'], ['stToggle', 'toggle'], ['stTextInput', 'text'],
                   ['stSelectbox', 'selectbox']];
    for (const [tid, kind] of kinds) {
      for (const w of root.querySelectorAll(`[data-testid=${tid}]`)) {
        if (!vis(w)) continue;
        out.push({where, kind, label: label(w), index: [...root.querySelectorAll(`[data-testid=${tid}]`)].indexOf(w),
                  tid});
      }
    }
  }
  const charts = document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]');
  charts.forEach((c, ci) => {
    c.querySelectorAll('.vega-bindings .vega-bind').forEach((b, bi) => {
      const input = b.querySelector('input, select');
      if (!input || !vis(input)) return;
      const name = (b.querySelector('.vega-bind-name')?.innerText || '').replace(/\s+/g, ' ').trim();
      const type = input.tagName === 'SELECT' ? 'select' : (input.type || 'input');
      out.push({where: 'chart', kind: 'vega ' + type, label: name, chart: ci, bind: bi});
    });
  });
  return out;
}
"""

# Change an in-chart control in the page itself, so the action's time is taken right before the event.
_VEGA_ACT = r"""
([ci, bi]) => {
  const c = document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]')[ci];
  const b = c.querySelectorAll('.vega-bindings .vega-bind')[bi];
  const W = window.__bench;
  const select = b.querySelector('select');
  if (select) {
    W.reset(); W.t0 = performance.now();
    select.selectedIndex = (select.selectedIndex + 1) % select.options.length;
    select.dispatchEvent(new Event('input', {bubbles: true}));
    select.dispatchEvent(new Event('change', {bubbles: true}));
    return 'select';
  }
  const radios = [...b.querySelectorAll('input[type=radio]')];
  if (radios.length) {
    const i = radios.findIndex((r) => r.checked);
    const next = radios[(i + 1) % radios.length];
    W.reset(); W.t0 = performance.now();
    next.checked = true;
    next.dispatchEvent(new Event('input', {bubbles: true}));
    next.dispatchEvent(new Event('change', {bubbles: true}));
    return 'radio';
  }
  const box = b.querySelector('input[type=checkbox]');
  if (box) {
    W.reset(); W.t0 = performance.now();
    box.checked = !box.checked;
    box.dispatchEvent(new Event('input', {bubbles: true}));
    box.dispatchEvent(new Event('change', {bubbles: true}));
    return 'checkbox';
  }
  return 'range';
}
"""


def _widget(page: Any, item: dict) -> Any:
    root = "[data-testid=stMain]" if item["where"] == "main" else "[data-testid=stSidebar]"
    return page.locator(f"{root} [data-testid={item['tid']}]").nth(item["index"])


def _sidebar_open(page: Any) -> None:
    """Unfold the sidebar if it is folded (presentation mode folds it), as a student would to reach it."""
    expand = page.locator("[data-testid=stExpandSidebarButton], [data-testid=stSidebarCollapsedControl] button")
    if expand.count() and expand.first.is_visible():
        expand.first.click(timeout=5000)
        expand.first.wait_for(state="hidden", timeout=5000)


def _press_widget(page: Any, item: dict, quiet: int, cap: int, grace: int, back: bool = False) -> dict | None:
    """Do what a student does to the widget; return the probe's timing (None: nothing to do)."""
    if item["where"] == "sidebar":
        _sidebar_open(page)
    w = _widget(page, item)
    kind = item["kind"]
    bench = "window.__bench.reset()"
    if kind == "slider":
        thumb = w.locator("input[type=range], [role=slider]").first
        if thumb.evaluate("e => e.tagName") == "INPUT":
            now, hi = thumb.input_value(), thumb.get_attribute("max")
        else:
            now, hi = thumb.get_attribute("aria-valuenow"), thumb.get_attribute("aria-valuemax")
        at_max = now is not None and hi is not None and now.replace(".", "", 1).lstrip("-").isdigit() \
            and float(now) >= float(hi)
        key = "ArrowLeft" if (at_max != back) else "ArrowRight"
        thumb.focus()
        page.evaluate(bench)
        page.keyboard.press(key)
    elif kind == "number":
        box = w.locator("input").first
        box.focus()
        page.evaluate(bench)
        page.keyboard.press("ArrowDown" if back else "ArrowUp")
    elif kind == "radio":
        options = w.locator("label:has(input[type=radio])")
        n = options.count()
        checked = w.evaluate("w => [...w.querySelectorAll('input[type=radio]')].findIndex(i => i.checked)")
        if n < 2:
            return None
        target = (checked - 1) % n if back else (checked + 1) % n
        page.evaluate(bench)
        options.nth(target).click(timeout=5000)
    elif kind in ("checkbox", "toggle"):
        page.evaluate(bench)
        w.locator("label:has(input)").first.click(timeout=5000)
    elif kind == "text":
        box = w.locator("input").first
        box.focus()
        page.keyboard.press("End")
        if back:
            for _ in range(len(" again")):
                page.keyboard.press("Backspace")
        else:
            page.keyboard.type(" again")
        page.evaluate(bench)
        page.keyboard.press("Enter")
    elif kind == "selectbox":
        w.locator("input, [role=combobox]").first.click(timeout=5000)
        page.wait_for_timeout(150)
        page.evaluate(bench)
        page.keyboard.press("ArrowUp" if back else "ArrowDown")
        page.keyboard.press("Enter")
    else:
        return None
    return page.evaluate("([m, q, c, g]) => window.__bench.waitDone(m, q, c, g)", ["rerun", quiet, cap, grace])


def _press_vega(page: Any, item: dict, quiet: int, cap: int) -> dict:
    how = page.evaluate(_VEGA_ACT, [item["chart"], item["bind"]])
    if how == "range":
        c = page.locator("[data-testid=stMain] [data-testid=stVegaLiteChart]").nth(item["chart"])
        handle = c.locator(".vega-bindings .vega-bind").nth(item["bind"]).locator("input").first
        now, hi = handle.input_value(), handle.get_attribute("max")
        key = "ArrowLeft" if now and hi and float(now) >= float(hi) else "ArrowRight"
        handle.focus()
        page.evaluate("window.__bench.reset()")
        page.keyboard.press(key)
    return page.evaluate("([m, q, c]) => window.__bench.waitDone(m, q, c)", ["client", quiet, cap])


def _tabs(page: Any) -> Any:
    return page.locator("[data-testid=stMain] [data-baseweb=tab], [data-testid=stMain] [role=tab]")


def _open_expanders(page: Any) -> None:
    """Open the visible closed expanders (those in another tab are opened when their tab is shown)."""
    closed = page.locator("[data-testid=stMain] [data-testid=stExpander] details:not([open]) > summary")
    for det in closed.filter(visible=True).all():
        try:
            det.click(timeout=2000)
        except Exception:  # noqa: BLE001
            pass


NOOP_LABEL = "Rerun, nothing changed (R key)"


def _measure_noop_rerun(page: Any, url_path: str, presses: int, quiet: int, cap: int, grace: int) -> ControlRow:
    """The page's floor in the browser: Streamlit's R shortcut reruns the whole script with no widget moved, so
    the same elements come back and nothing needs to change. Its time is what any page-wide press costs on this
    page before a single number differs (kind "floor": reported, never judged)."""
    from bench.client import wait_quiet

    row = ControlRow(url_path, NOOP_LABEL, "key r", "page", "floor")
    for _ in range(presses):
        page.evaluate("document.activeElement && document.activeElement.blur()")  # R in a text box types R
        page.evaluate("window.__bench.reset()")
        page.keyboard.press("r")
        out = page.evaluate("([m, q, c, g]) => window.__bench.waitDone(m, q, c, g)", ["rerun", quiet, cap, grace])
        if not out["ok"] or out["total"] is None or not out["ran"]:
            row.notes.append(f"no rerun seen within {cap / 1000:.0f} s")
            break
        row.browser_ms.append(float(out["total"]))
        row.browser_bytes.append(int(out["bytes"]))
        wait_quiet(page, quiet_ms=quiet)
    return row


def measure_browser_page(ctx: Any, base: str, url_path: str, presses: int, sidebar: bool, quiet: int = 300,
                         cap: int = 10_000, one_per_kind: bool = False) -> list[ControlRow]:
    """Open the page in a new tab of ``ctx`` (a context with the probe) and press every visible control
    (``one_per_kind``: only the first of each kind in each place — quick mode)."""
    from bench.client import wait_quiet, wait_rendered

    page = ctx.new_page()
    rows: list[ControlRow] = []
    done: set[tuple] = set()
    grace = quiet + 300
    try:
        page.goto(f"{base}/{url_path}")
        wait_rendered(page)
        if page.locator("[data-testid=stVegaLiteChart]").count():
            page.wait_for_function(
                "() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')]"
                ".some(c => c.querySelector('svg.marks, canvas.marks'))", timeout=60_000)
        wait_quiet(page, quiet_ms=quiet + 100)
        rows.append(_measure_noop_rerun(page, url_path, presses, quiet, cap, grace))
        n_tabs = _tabs(page).count()
        for tab in range(max(1, n_tabs)):
            if n_tabs:
                try:
                    _tabs(page).nth(tab).click(timeout=5000)
                    wait_quiet(page, quiet_ms=quiet)
                except Exception:  # noqa: BLE001
                    continue
            _open_expanders(page)
            for item in page.evaluate(_FIND, [sidebar]):
                # A widget by its place; an in-chart control by its name (one parameter can be bound in two
                # charts: it is one control).
                key = ((item["where"], item["kind"], item["label"]) if item["where"] == "chart" else
                       (item["where"], item["kind"], item["label"], item["index"]))
                if key in done:
                    continue
                if one_per_kind and ((item["where"], item["kind"]) in done or item["kind"] not in QUICK_KINDS):
                    continue
                done.add(key)
                done.add((item["where"], item["kind"]))
                row = ControlRow(url_path, item["label"], item["kind"], item["where"],
                                 "in-chart" if item["where"] == "chart" else "page")
                rows.append(row)
                for i in range(presses):
                    try:
                        out = (_press_vega(page, item, quiet, cap) if item["where"] == "chart"
                               else _press_widget(page, item, quiet, cap, grace))
                    except Exception as err:  # noqa: BLE001 - note it on the row, go on
                        row.notes.append(f"{type(err).__name__}: {str(err).splitlines()[0][:100]}")
                        break
                    if out is None:
                        row.notes.append("nothing to press")
                        break
                    if page.locator("[data-testid=stException]").count():
                        row.notes.append("exception on the page")
                        break
                    if not out["ok"] or out["total"] is None:
                        row.notes.append(f"no effect seen within {cap / 1000:.0f} s")
                        continue
                    if item["where"] == "chart" and out["ran"]:
                        row.notes.append("unexpected: a script rerun")
                    if item["where"] != "chart" and not out["ran"]:
                        row.notes.append("no script run")
                    row.browser_ms.append(float(out["total"]))
                    row.browser_bytes.append(int(out["bytes"]))
                    row.browser_details.append({k: out.get(k) for k in (
                        "sent", "run_start", "run_end", "finished", "dom_end", "paint_first", "paint_last",
                        "paints", "messages", "bytes", "status")})
                    row.browser_fragment_runs += out.get("status") == 3
                    wait_quiet(page, quiet_ms=quiet)
                if item["where"] != "chart" and row.browser_ms and item["kind"] not in ("slider", "number"):
                    # Put a switch, a choice or a text back (untimed): it may change what the page shows. A
                    # slider or number one step off changes nothing that matters for the next control.
                    try:
                        _press_widget(page, item, quiet, cap, grace, back=True)
                        wait_quiet(page, quiet_ms=quiet)
                    except Exception:  # noqa: BLE001
                        pass
                if row.browser_fragment_runs:
                    row.kind = "fragment"
                row.notes = sorted(set(row.notes))
    finally:
        page.close()
    return rows


def merge(server: list[ControlRow], browser: list[ControlRow]) -> list[ControlRow]:
    """One row per control: the server's rows (discovered over the websocket), with the browser's times of the
    control with the same label and place; browser-only controls appended; the page's floor row first."""
    out = list(server)
    floors = [b for b in browser if b.kind == "floor"]
    for b in browser:
        if b.kind == "floor":
            continue
        match = next((r for r in out if r.where == b.where and _norm(r.label) == _norm(b.label)
                      and not r.browser_ms and (r.where != "chart" or r.widget.split()[-1] in b.widget)), None)
        if match is None:
            match = next((r for r in out if r.where == b.where and _norm(r.label) == _norm(b.label)
                          and not r.browser_ms), None)
        if match is None:
            b.notes.append("seen in the browser only")
            out.append(b)
            continue
        match.browser_ms, match.browser_bytes = b.browser_ms, b.browser_bytes
        match.browser_details = b.browser_details
        match.browser_fragment_runs = b.browser_fragment_runs
        match.notes = sorted(set(match.notes + [f"browser: {n}" for n in b.notes]))
    return floors + out


def not_pressed_in_browser(rows: list[ControlRow], quick: bool = False) -> None:
    why = ("browser: quick mode presses the first slider, number input and in-chart control only" if quick else
           "browser: not reached (hidden, or a kind the browser part does not press)")
    for r in rows:
        if not r.browser_ms and r.widget != "error" and not any(n.startswith("browser") for n in r.notes):
            r.notes.append(why)

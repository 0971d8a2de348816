"""Every control of every page, discovered at run time: what one press costs, on the server and in the browser.

Server (harness/wsclient.py): each widget moved ``presses`` times one step on, then put back untimed; per press the
rerun request → ``script_finished``, the bytes received, and whether only its fragment ran. Browser (Chromium,
harness/probe.js): each visible control pressed as a student does, timed from the keydown/pointerdown to the run
finished and the charts redrawn; in-chart controls per frame; a play button left playing ``PLAY_MS``.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.load import median, pct
from harness.browser import wait_quiet, wait_rendered
from harness.wsclient import MAIN, SIDEBAR, TEXT_SUFFIX, Session, SessionError
from posenc.charts.spec import walk_dicts

# Quick mode presses, in the browser, the first control of each of these kinds only.
QUICK_KINDS = {"slider", "number", "vega range", "vega select", "vega radio", "vega checkbox", "play"}
PLAY_MS = 1500  # how long a play button is left playing
CAP_MS = 10_000  # the browser's wait for one press to end
TIMEOUT_S = 60.0  # the websocket's wait for one run
NOOP_LABEL = "Rerun, nothing changed (R key)"


@dataclass
class ControlRow:
    page: str  # url path ("" = home)
    label: str
    widget: str  # slider, number, radio … or "vega range" / "vega select" … or "play"
    where: str  # main, sidebar, chart
    kind: str = "page"  # page, fragment, in-chart, play, floor (the page rerun with nothing changed)
    param: str = ""  # in-chart and play: the Vega param's name
    server_ms: list[float] = field(default_factory=list)
    bytes: list[int] = field(default_factory=list)
    fragment_runs: int = 0
    browser_ms: list[float] = field(default_factory=list)  # per press, or per frame (in-chart, play)
    browser_fragment_runs: int = 0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {**asdict(self), "server_median": median(self.server_ms), "bytes_median": median(self.bytes),
                "browser_median": median(self.browser_ms), "browser_p95": pct(self.browser_ms, 0.95)}


_LINK = re.compile(r'\[([^\]]*)\]\((?:[^()"]|"[^"]*")*\)')  # a Markdown link [text](url "title"): its text


def _norm(label: str) -> str:
    """A label as both sides can compare it: the websocket sees the Markdown source, the browser the text."""
    return " ".join(_LINK.sub(r"\1", str(label)).replace("$", "").replace("*", "").replace("`", "").split()).lower()


def chart_controls(page: str, specs: list[str]) -> list[ControlRow]:
    """The Vega-Lite params bound to an input in these chart specs of ``page`` (one row per name)."""
    rows: dict[str, ControlRow] = {}
    for d in (d for spec in specs for d in walk_dicts(json.loads(spec))):
        for p in d.get("params") or []:
            bind = p.get("bind") if isinstance(p, dict) else None
            if isinstance(bind, dict) and bind.get("input") and p.get("name") not in rows:
                label = " ".join(str(bind.get("name") or p["name"]).split())
                rows[p["name"]] = ControlRow(page, label, f"vega {bind['input']}", "chart", "in-chart", p["name"])
    return list(rows.values())


# ---------------------------------------------------------------- server: websocket sessions
async def _ws_press(s: Session, row: ControlRow, control: Any, value: Any, what: str = "") -> bool:
    """One rerun with ``control`` set to ``value``; False (and a note on the row) when it failed."""
    try:
        await s.rerun((control, value))
        return True
    except SessionError as err:
        row.notes.append(what + str(err)[:160])
    except Exception as err:  # noqa: BLE001 - a timeout or a dropped connection: note it, reconnect
        row.notes.append(f"{what}{type(err).__name__}: {str(err)[:120]}")
        await s.close()
    return False


async def _measure_page_ws(base: str, url_path: str, presses: int, sidebar: bool) -> list[ControlRow]:
    s = Session(base, url_path, TIMEOUT_S)
    rows: list[ControlRow] = []
    try:
        await s.open()
        for c in [c for c in s.ordered() if c.root == MAIN or (sidebar and c.root == SIDEBAR)]:
            row = ControlRow(url_path, c.label, c.kind, c.where, "fragment" if c.fragment_id else "page")
            rows.append(row)
            if s.ws is None:
                await s.open()
            control = s.controls.get(c.id)
            if control is None or c.id not in s.order:
                row.notes.append("not on the page any more after an earlier control moved")
                continue
            start = control.value
            for _ in range(presses):
                if not await _ws_press(s, row, control, control.moved(True)):
                    break
                row.server_ms.append(s.last.ms)
                row.bytes.append(s.last.bytes)
                row.fragment_runs += s.last.fragment
            if row.server_ms:
                row.kind = "fragment" if row.fragment_runs else "page"
                if 0 < row.fragment_runs < len(row.server_ms):
                    row.notes.append(f"{len(row.server_ms) - row.fragment_runs} of {len(row.server_ms)} presses "
                                     "reran the whole page")
                if c.fragment_id and not row.fragment_runs:
                    row.notes.append("in a fragment, but the server reran the whole page")
            if s.ws is not None and control.value != start:  # put it back (untimed)
                await _ws_press(s, row, control, start, "putting it back: ")
        rows += chart_controls(url_path, s.charts)
    finally:
        await s.close()
    return rows


def with_sidebar(sidebar: str, i: int) -> bool:
    """Whether the ``i``-th page's sidebar controls are pressed: on every page ("all"), the first ("home"), none."""
    return sidebar == "all" or (sidebar == "home" and i == 0)


def measure_server(base: str, url_paths: list[str], presses: int, sidebar: str, log=None) -> dict[str, list[ControlRow]]:
    """{url path: rows} for every page, over the websocket of the running server at ``base``."""
    out: dict[str, list[ControlRow]] = {}
    for i, path in enumerate(url_paths):
        t = time.monotonic()
        try:
            out[path] = asyncio.run(asyncio.wait_for(_measure_page_ws(
                base, path, presses, with_sidebar(sidebar, i)), TIMEOUT_S * 20))
        except Exception as err:  # noqa: BLE001 - report it on the page, go on with the others
            out[path] = [ControlRow(path, "—", "error", "main", notes=[f"{type(err).__name__}: {str(err)[:160]}"])]
        if log:
            log(f"  controls (server): {path or 'home'}: {len(out[path])} controls ({time.monotonic() - t:.1f} s)")
    return out


# ---------------------------------------------------------------- browser (window.__bench: harness/probe.js)
def _press_widget(page: Any, item: dict, quiet: int, back: bool = False) -> dict | None:
    """Do what a student does to the widget (``key r``, the floor: Streamlit's R shortcut, the whole page rerun with
    nothing moved); return the probe's timing (None: nothing to do)."""
    if item["where"] == "sidebar":  # unfold a folded sidebar (presentation mode folds it), as a student would
        expand = page.locator("[data-testid=stExpandSidebarButton], [data-testid=stSidebarCollapsedControl] button")
        if expand.count() and expand.first.is_visible():
            expand.first.click(timeout=5000)
            expand.first.wait_for(state="hidden", timeout=5000)
    kind, keys, click = item["kind"], [], None
    root = "[data-testid=stMain]" if item["where"] == "main" else "[data-testid=stSidebar]"
    w = None if kind == "key r" else page.locator(f"{root} [data-testid={item['tid']}]").nth(item["index"])
    if kind == "key r":
        page.evaluate("document.activeElement && document.activeElement.blur()")
        keys = ["r"]
    elif kind == "slider":
        thumb = w.locator("input[type=range], [role=slider]").first
        if thumb.evaluate("e => e.tagName") == "INPUT":
            now, hi = thumb.input_value(), thumb.get_attribute("max")
        else:
            now, hi = thumb.get_attribute("aria-valuenow"), thumb.get_attribute("aria-valuemax")
        at_max = now is not None and hi is not None and float(now) >= float(hi)
        thumb.focus()
        keys = ["ArrowLeft" if at_max != back else "ArrowRight"]
    elif kind == "number":
        w.locator("input").first.focus()
        keys = ["ArrowDown" if back else "ArrowUp"]
    elif kind == "radio":
        options = w.locator("label:has(input[type=radio])")
        checked = w.evaluate("w => [...w.querySelectorAll('input[type=radio]')].findIndex(i => i.checked)")
        if options.count() < 2:
            return None
        click = options.nth((checked + (-1 if back else 1)) % options.count())
    elif kind in ("checkbox", "toggle"):
        click = w.locator("label:has(input)").first
    elif kind == "text":
        w.locator("input").first.focus()
        page.keyboard.press("End")
        for _ in TEXT_SUFFIX if back else ():
            page.keyboard.press("Backspace")
        page.keyboard.type("" if back else TEXT_SUFFIX)
        keys = ["Enter"]
    elif kind == "selectbox":
        w.locator("input, [role=combobox]").first.click(timeout=5000)
        page.wait_for_timeout(150)
        keys = ["ArrowUp" if back else "ArrowDown", "Enter"]
    else:
        return None
    page.evaluate("window.__bench.reset()")
    if click is not None:
        click.click(timeout=5000)
    for key in keys:
        page.keyboard.press(key)
    return page.evaluate("([q, c, g]) => window.__bench.waitDone(q, c, g)", [quiet, CAP_MS, quiet + 300])


def _press(page: Any, row: ControlRow, item: dict, presses: int, quiet: int) -> None:
    """Press a Streamlit control ``presses`` times, timing each; a switch, choice or text goes forward and back
    in turn (the page stays near its opening: later controls meet the page they were found on), and is put back
    after an odd count."""
    turns = item["kind"] not in ("slider", "number", "key r")
    moved = 0  # a choice's or text's presses forward, net
    for i in range(presses):
        back = turns and i % 2 == 1
        out = _press_widget(page, item, quiet, back=back)
        if out is None:
            row.notes.append("nothing to press")
            return
        if page.locator("[data-testid=stException]").count():
            row.notes.append("exception on the page")
            return
        if not out["ok"] or out["total"] is None or not out["ran"]:
            row.notes.append(f"no run seen within {CAP_MS / 1000:.0f} s")
            continue
        moved += -1 if back else 1
        row.browser_ms.append(float(out["total"]))
        row.browser_fragment_runs += out.get("status") == 3
        wait_quiet(page, quiet_ms=quiet)
    for _ in range(moved if turns else 0):
        with suppress(Exception):  # untimed
            _press_widget(page, item, quiet, back=True)
            wait_quiet(page, quiet_ms=quiet)


def _frames(page: Any, row: ControlRow, item: dict, steps: int) -> None:
    if item["kind"] == "play":
        out = page.evaluate("([n, ms]) => window.__bench.play(n, ms)", [item["param"], PLAY_MS])
        if out["pressed"] != "true":
            row.notes.append("the button did not turn aria-pressed")
        if out["intervals"]:
            row.notes.append(f"{1000 / median(out['intervals']):.0f} animation frames a second")
    else:
        out = page.evaluate("([n, steps]) => window.__bench.frames(n, steps)", [item["param"], steps])
        if out["drawn"] < len(out["times"]):
            row.notes.append(f"{len(out['times']) - out['drawn']} of {len(out['times'])} frames drew nothing")
    row.browser_ms = [float(t) for t in out["times"]]
    if not row.browser_ms:
        row.notes.append("no frame drawn")
    if out["ran"]:
        row.notes.append("unexpected: a script rerun")


def measure_browser_page(ctx: Any, base: str, url_path: str, presses: int, sidebar: bool, quiet: int,
                         one_per_kind: bool = False) -> list[ControlRow]:
    """Open the page in a new tab of ``ctx`` (a context with the probe), take its floor (R), then drag every
    in-chart control and play every play button, then press every visible Streamlit control (``one_per_kind``:
    only the first of each quick kind in each place)."""
    page = ctx.new_page()
    done: set[tuple] = set()
    try:
        page.goto(f"{base}/{url_path}")
        wait_rendered(page)
        if page.locator("[data-testid=stVegaLiteChart]").count():
            page.wait_for_function("() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')]"
                                   ".some(c => c.querySelector('svg.marks, canvas.marks'))", timeout=60_000)
        wait_quiet(page, quiet_ms=quiet + 100)
        floor = ControlRow(url_path, NOOP_LABEL, "key r", "page", "floor")
        _press(page, floor, {"where": "page", "kind": "key r"}, presses, quiet)
        rows = [floor]
        tabs = page.locator("[data-testid=stMain] [data-baseweb=tab], [data-testid=stMain] [role=tab]")
        # in-chart controls and play buttons first, in every tab: they rerun nothing, so the charts they drive are
        # still the ones the page opened with (a Streamlit press can swap a chart, e.g. the lab's task, and its
        # inputs, or take a tab's section away); then the Streamlit controls, tab by tab
        for tab, charts in [(t, c) for c in (True, False) for t in range(max(1, tabs.count()))]:
            if tabs.count():
                try:
                    tabs.nth(tab).click(timeout=5000)
                    wait_quiet(page, quiet_ms=quiet)
                except Exception:  # noqa: BLE001
                    continue
            for det in page.locator("[data-testid=stMain] [data-testid=stExpander] details:not([open]) > summary"
                                    ).filter(visible=True).all():
                with suppress(Exception):
                    det.click(timeout=2000)
            found = page.evaluate("s => window.__bench.find(s)", sidebar)
            for item in [it for it in found if (it["where"] == "chart") == charts]:
                key = (item["where"], item["kind"], item.get("param") or (item["label"], item.get("index")))
                if key in done or (one_per_kind and ((item["where"], item["kind"]) in done
                                                     or item["kind"] not in QUICK_KINDS)):
                    continue
                done |= {key, (item["where"], item["kind"])}
                kind = "play" if item["kind"] == "play" else "in-chart" if item["where"] == "chart" else "page"
                row = ControlRow(url_path, item["label"], item["kind"], item["where"], kind, item.get("param", ""))
                rows.append(row)
                try:
                    if item["where"] == "chart":
                        _frames(page, row, item, steps=max(5, 4 * presses))
                    else:  # found again: an earlier press may have moved it (its index) or taken it away
                        now = next((it for it in page.evaluate("s => window.__bench.find(s)", sidebar)
                                    if (it["where"], it["kind"], it["label"]) == (item["where"], item["kind"],
                                                                                  item["label"])), None)
                        if now is None:
                            row.notes.append("gone from the page after an earlier press")
                        else:
                            _press(page, row, now, presses, quiet)
                except Exception as err:  # noqa: BLE001 - note it on the row, go on
                    row.notes.append(f"{type(err).__name__}: {str(err).splitlines()[0][:100]}")
                if row.browser_fragment_runs:
                    row.kind = "fragment"
                row.notes = sorted(set(row.notes))
    finally:
        page.close()
    return rows


def merge(server: list[ControlRow], browser: list[ControlRow], quick: bool = False) -> list[ControlRow]:
    """One row per control: the server's rows with the browser's times of the same control (in-chart: the same
    param; else the same place and label); play buttons and browser-only controls appended; the floor first."""
    out = list(server)
    for b in browser:
        if b.kind in ("floor", "play"):
            continue
        match = next((r for r in out if r.where == b.where and not r.browser_ms and (
            r.param == b.param if b.param else _norm(r.label) == _norm(b.label))), None)
        if match is None:
            b.notes.append("seen in the browser only")
            out.append(b)
            continue
        match.browser_ms, match.browser_fragment_runs = b.browser_ms, b.browser_fragment_runs
        match.notes = sorted(set(match.notes + [f"browser: {n}" for n in b.notes]))
    why = ("browser: quick mode presses the first control of each kind only" if quick else
           "browser: not reached (hidden, or a kind the browser part does not press)")
    for r in out:
        if not r.browser_ms and r.widget != "error" and not any(n.startswith("browser") for n in r.notes):
            r.notes.append(why)
    return [b for b in browser if b.kind == "floor"] + out + [b for b in browser if b.kind == "play"]

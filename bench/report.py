"""BENCHMARKS.md from a run's JSON (bench/run.py): one table per section, each number beside its budget
(bench/budgets.py) with ✓/✗, and the list of misses. Renders only: measures nothing."""

from __future__ import annotations

import math
from typing import Any

from bench.budgets import BY_KEY, PRESENTATION_LABEL
from frame.skeleton import PREDICT_LABEL

B = BY_KEY
BUDGET_LECTURE_P95_MS = B['lecture_p95'].limit
BUDGET_CONTROL_BROWSER_X = B['control_browser'].limit
OK, MISS = "✓", "✗"


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not (isinstance(x, float) and math.isnan(x))


def ms(x: Any) -> str:
    return f"{x:.0f} ms" if _num(x) else "—"


def kb(x: Any) -> str:
    return f"{x / 1024:.1f} KB" if _num(x) else "—"


def mark(x: Any, budget: float) -> str:
    return "" if not _num(x) else (OK if x <= budget else MISS)


def ratio(x: Any, base: Any) -> str:
    return f"×{x / base:.1f}" if _num(x) and _num(base) and base > 0 else "—"


def page_name(p: dict) -> str:
    return p["url_path"] or "home"


def misses(res: dict) -> list[str]:
    """Every budget miss, one line each, with the numbers."""
    out: list[str] = []
    for p in res["pages"]:
        name = page_name(p)
        d, big = p.get("defaults") or {}, p.get("largest")
        if _num(d.get("warm")) and d["warm"] > B['rerun_default'].limit:
            out.append(f"{name}: warm rerun at defaults {ms(d['warm'])} > {B['rerun_default'].limit:.0f} ms")
        if _num(d.get("cold")) and d["cold"] > B['rerun_default'].limit:
            out.append(f"{name}: cold rerun (caches cleared) at defaults {ms(d['cold'])} > "
                       f"{B['rerun_default'].limit:.0f} ms")
        if _num(d.get("bytes")) and d["bytes"] > B['chart_bytes'].limit:
            out.append(f"{name}: chart data at defaults {kb(d['bytes'])} > {kb(B['chart_bytes'].limit)}")
        if big:
            if _num(big.get("warm")) and big["warm"] > B['rerun_largest'].limit:
                out.append(f"{name}: warm rerun at largest settings {ms(big['warm'])} > "
                           f"{B['rerun_largest'].limit:.0f} ms")
            if _num(big.get("cold")) and big["cold"] > B['rerun_largest'].limit:
                out.append(f"{name}: cold rerun (caches cleared) at largest settings {ms(big['cold'])} > "
                           f"{B['rerun_largest'].limit:.0f} ms")
        for part in ("defaults", "largest"):
            r = p.get(part) or {}
            for err in r.get("errors", []):
                out.append(f"{name}: error at {part}: {err}")
        if big and big.get("not_applied") and not big.get("errors"):
            out.append(f"{name}: sidebar settings the page did not take: {', '.join(big['not_applied'])}")
        for s in sliders(p.get("controls") or []):
            if _num(s.get("median")) and s["median"] > B['slider'].limit:
                out.append(f"{name}: {s['kind']} slider “{s['label']}” → chart {ms(s['median'])} > "
                           f"{B['slider'].limit:.0f} ms")
            if s["kind"] == "error" or any(n.startswith(("exception", "no effect")) for n in s.get("notes", [])):
                out.append(f"{name}: slider measurement: {'; '.join(s.get('notes', [])) or s['kind']}")
    out += control_misses(res)
    cs = res.get("cold_start") or {}
    if _num(cs.get("median")) and cs["median"] > B['cold_start'].limit:
        out.append(f"cold start {cs['median']:.1f} s > {B['cold_start'].limit:.0f} s")
    out += load_misses(res)
    for c in res.get("caches", []):
        if not c["bounded"]:
            out.append(f"{c['file']}:{c['line']} {c['kind']} on {c['function']}() has no max_entries")
    return out


def _predict(r: dict) -> bool:
    return r["label"].replace("*", "").startswith(PREDICT_LABEL)


def _label(r: dict) -> str:
    """A control's label for a table (a Predict radio's question cut short)."""
    text = (r["label"] or "—") + (f" ({r['param']})" if r.get("param") and r["kind"] == "in-chart" else "")
    return (text[:70] + "…" if len(text) > 72 else text).replace("|", "\\|")


def sliders(rows: list[dict]) -> list[dict]:
    """The slider → chart rows, read off the per-control rows: the first Streamlit slider of the main area
    (press → redrawn) and the first in-chart range (per frame)."""
    out = []
    for kind, pick in (("rerun", lambda r: r["where"] == "main" and r["widget"] in ("slider", "select_slider")),
                       ("client-side", lambda r: r["where"] == "chart" and r["widget"] == "vega range")):
        row = next((r for r in rows if pick(r) and r["browser_ms"]), None)
        if row is not None:
            notes = [n.removeprefix("browser: ") for n in row["notes"] if n.startswith("browser: ")]
            if kind == "rerun" and any(not d.get("paints") for d in row["browser_details"]):
                notes.append("the chart did not change: time to the end of the run")
            out.append({"kind": kind, "label": row["label"], "times": row["browser_ms"],
                        "median": row["browser_median"], "notes": sorted(set(notes)),
                        "details": row["browser_details"]})
    return out or [{"kind": "none", "label": "", "times": [], "median": None, "notes": [], "details": []}]


def hello_base(res: dict) -> tuple[Any, Any]:
    """(server median, browser median) of the hello-world page's slider in this run."""
    row = next((r for r in res.get("hello_controls") or [] if r["widget"] == "slider"), None)
    if not row:
        return None, None
    return row.get("server_median"), row.get("browser_median")


def control_verdict(r: dict, hs: Any, hb: Any) -> tuple[bool | None, list[str]]:
    """(within every budget? None when nothing was measured, the misses) for one control row."""
    why: list[str] = []
    measured = False
    if r["kind"] == "floor":  # not a control: the page's rerun with nothing changed, reported beside them
        return None, why
    if r["kind"] in ("in-chart", "play"):
        if _num(r.get("browser_median")):
            measured = True
            if not B['frame'].holds(r["browser_median"]):
                why.append(f"a frame {ms(r['browser_median'])} (p95 {ms(r.get('browser_p95'))}) > "
                           f"{B['frame'].limit:.0f} ms")
    else:
        if _num(r.get("server_median")) and _num(hs) and hs > 0:
            measured = True
            if r["server_median"] > B['control_server'].limit * hs:
                why.append(f"server {ms(r['server_median'])} = ×{r['server_median'] / hs:.1f} hello > "
                           f"×{B['control_server'].limit:g}")
        if _num(r.get("bytes_median")):
            measured = True
            if r["bytes_median"] > B['control_bytes'].limit:
                why.append(f"received {kb(r['bytes_median'])} per press > {kb(B['control_bytes'].limit)}")
        if r["label"] == PRESENTATION_LABEL and _num(r.get("browser_median")):
            measured = True
            if not B['presentation'].holds(r["browser_median"]):
                why.append(f"press → redrawn {ms(r['browser_median'])} > {B['presentation'].limit:.0f} ms")
        elif _num(r.get("browser_median")) and _num(hb) and hb > 0:
            measured = True
            if r["browser_median"] > BUDGET_CONTROL_BROWSER_X * hb:
                why.append(f"press → redrawn {ms(r['browser_median'])} = ×{r['browser_median'] / hb:.1f} hello > "
                           f"×{BUDGET_CONTROL_BROWSER_X:g}")
    return (not why) if measured else None, why


def control_misses(res: dict) -> list[str]:
    hs, hb = hello_base(res)
    out = []
    for p in res.get("pages", []):
        broken: list[str] = []
        for r in p.get("controls") or []:
            ok, why = control_verdict(r, hs, hb)
            if ok is False:
                out.append(f"{page_name(p)}: {r['kind']} control “{_label(r)}” ({r['widget']}): {'; '.join(why)}")
            if r["widget"] == "error":
                broken[:0] = r.get("notes", [])
            elif any("exception" in n for n in r.get("notes", [])):
                broken.append(r["label"])
        if broken:  # one line per page: a page that raises is a miss, not each of its controls
            out.append(f"{page_name(p)}: exception on the page while measuring its controls: "
                       f"{'; '.join(dict.fromkeys(broken))[:400]}")
    return out


def load_misses(res: dict) -> list[str]:
    load = res.get("load") or {}
    out = []
    for run in load.get("runs", []):
        what = f"load {run['scenario']} on {run['target']}"
        if run.get("error"):
            out.append(f"{what}: did not run: {run['error']}")
            continue
        if run.get("errors"):
            out.append(f"{what}: {run['errors']} error(s) (must be 0)")
        if run["scenario"] == "lecture" and run.get("processes") == 1 and not run.get("floor") \
                and _num(run.get("p95")) and run["p95"] > BUDGET_LECTURE_P95_MS:
            out.append(f"{what}: p95 {ms(run['p95'])} > {BUDGET_LECTURE_P95_MS:.0f} ms")
    return out


def controls_section(res: dict) -> list[str]:
    L: list[str] = []
    w = L.append
    hs, hb = hello_base(res)
    hrow = next((r for r in res.get("hello_controls") or [] if r["widget"] == "slider"), {})
    w("## Every control: one press")
    w("")
    w("Every control of every page, discovered at run time (`bench/controls.py`; nothing listed by hand): the "
      "widgets a Streamlit session over the websocket receives (main area, and the sidebar's running example "
      f"— {_sidebar_policy(res)}) and the Vega-Lite parameters bound to an input inside a chart. "
      "**kind**: *in-chart* (the chart redraws in the browser, no script run), *fragment* (the server reran only "
      "the `st.fragment` the control sits in: it said `FINISHED_FRAGMENT_RUN_SUCCESSFULLY`), *page* (the whole "
      "script reran). **server**: from the rerun request (as the browser sends it, with the fragment id for a "
      "control in a fragment) to `script_finished`, over the websocket, median of the presses; each press moves "
      "the control one step on (mostly values not computed yet), then it is put back. **received**: the bytes of "
      "the messages that came back, with the browser's message cache (unchanged elements ≥ 10 KB come back as "
      "references). **browser**: in headless Chromium (`bench/probe.js`), from the keydown/pointerdown to the run "
      "finished and the charts redrawn; *in-chart* and *play* per frame, median / p95 — a drag of input events "
      "one after the other, each from the event to the chart redrawn, and a play button left playing "
      "1.5 s with frame.live's own record of each frame; sliders by arrow "
      "key, number inputs by ArrowUp, radios and switches by a click, text boxes by Enter, select boxes by "
      "ArrowDown + Enter; tabs are clicked through and expanders opened so every control is visible once. "
      "*floor* (first row of each page, not a control): Streamlit's R shortcut, the whole page rerun with nothing "
      "moved — the same elements come back, so its browser time is what any page-wide press costs on that page "
      "before one number differs. "
      f"Presses per control: {res['runs'].get('presses', '?')}.")
    w("")
    w(f"Budgets: page and fragment controls — server ≤ ×{B['control_server'].limit:g} hello, received ≤ "
      f"{B['control_bytes'].limit // 1024} KB, browser ≤ ×{BUDGET_CONTROL_BROWSER_X:g} hello (the presentation toggle: "
      f"≤ "
      f"{B['presentation'].limit:.0f} ms); in-chart controls and play buttons — a frame, median "
      f"browser ≤ {B['frame'].limit:.0f} ms. Hello-world page (`bench/hello_app.py`, its slider, timed the same "
      f"way in this run, before and after the pages): server **{ms(hs)}**, received {kb(hrow.get('bytes_median'))}, "
      f"browser **{ms(hb)}**.")
    w("")
    for p in res.get("pages", []):
        rows = p.get("controls") or []
        w(f"### {page_name(p)}")
        w("")
        if not rows:
            w("No controls found.")
            w("")
            continue
        w("| control | where | kind | server | ×hello | received per press | browser | ×hello | budget | notes |")
        w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in rows:
            ok, why = control_verdict(r, hs, hb)
            verdict = "— (the page's floor)" if r["kind"] == "floor" else ("" if ok is None else (OK if ok else MISS))
            client = r["kind"] in ("in-chart", "play")
            server = "—" if client else ratio(r.get("server_median"), hs)
            browser = "—" if client else ratio(r.get("browser_median"), hb)
            took = (f"{ms(r.get('browser_median'))} / {ms(r.get('browser_p95'))} a frame" if client and
                    _num(r.get("browser_median")) else ms(r.get("browser_median")))
            label = _label(r)
            notes = "; ".join(why + r.get("notes", [])).replace("|", "\\|")
            w(f"| {label} | {r['where']} | {r['kind']} | {'—' if client else ms(r.get('server_median'))} "
              f"| {server} | {'0 (no rerun)' if client else kb(r.get('bytes_median'))} | {took} | {browser} | "
              f"{verdict} | {notes} |")
        w("")
    return L


def _sidebar_policy(res: dict) -> str:
    return {"all": "on every page", "home": "on the home page only", "none": "not measured"}.get(
        res["runs"].get("sidebar", "all"), "")


def render(res: dict) -> str:
    if res["mode"] == "load only":
        return render_load_only(res)
    if res["mode"] == "controls only":
        return render_controls_only(res)
    m = res["meta"]
    L: list[str] = []
    w = L.append
    w("# Benchmarks")
    w("")
    w(f"Generated by `{m['command']}` on {m['date']} ({res['mode']} mode) — regenerate, do not edit by hand.")
    if m.get("rendered_from"):
        w("")
        w(f"(This text was written again from that run's saved results, `python -m bench --render "
          f"{m['rendered_from']}`: the numbers are the run's own.)")
    w("")
    w(f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']}; {m['os']}. Python {m['python']}, "
      f"Streamlit {m['streamlit']}, Altair {m['altair']}, pandas {m['pandas']}, NumPy {m['numpy']}, "
      f"{m.get('chromium', 'Chromium ?')}. Load average at start / end: {m['load_start']} / {m['load_end']} "
      f"(other work on the machine inflates every number; compare pages within one run). "
      f"Whole run: {m['seconds']:.0f} s.")
    w("")
    if m.get("changed_during_run"):
        w(f"**Warning: {len(m['changed_during_run'])} source file(s) changed while this ran** "
          f"({', '.join(m['changed_during_run'][:8])}{' …' if len(m['changed_during_run']) > 8 else ''}): "
          "numbers and errors may mix two versions of a page. Run it again.")
        w("")
    found = misses(res)
    w("## Budget misses")
    w("")
    if found:
        for line in found:
            w(f"- {MISS} {line}")
    else:
        w(f"- {OK} none: every page is within every budget.")
    w("")
    L += floors_section(res)

    hello = res["hello"]
    w("## Server rerun time and chart data (AppTest)")
    w("")
    w("Each page is opened through `app.py` with its URL parameters and run once (that fills its caches); "
      "then **warm** = median of further `at.run()` calls with the same arguments (cache hits: the cost of moving "
      "a control the computation does not depend on) and **cold** = median of runs with `st.cache_data.clear()` "
      "and `st.cache_resource.clear()` before each (everything recomputed: an upper bound for the first rerun "
      "after moving a control). "
      "Hello-world page (`bench/hello_app.py`: a title, a slider and a 4-point Altair chart), measured the same "
      f"way in this run: warm {ms(hello['warm'])}, cold {ms(hello['cold'])}, chart data {kb(hello['bytes'])}; "
      "×hello is each page's time divided by the hello-world's (warm by warm, cold by cold). "
      "Chart data = Vega-Lite spec + Arrow datasets + image bytes of every chart the run draws: what the server "
      "sends whenever the charts change (opening the page, moving a control they depend on). A rerun that "
      "leaves a chart byte-identical sends only a reference to it (Streamlit's message cache, for elements "
      "≥ 10 KB seen in the last two runs); the browser table below shows the bytes a slider press really "
      "received.")
    w("")
    w(f"Runs per median: warm {res['runs']['warm']}, cold {res['runs']['cold']}.")
    w("")
    w("### At defaults")
    w("")
    w(f"| page | warm rerun (≤ {B['rerun_default'].limit:.0f} ms) | ×hello | cold rerun, caches cleared "
      f"(≤ {B['rerun_default'].limit:.0f} ms) | ×hello | charts | chart data per rerun "
      f"(≤ {B['chart_bytes'].limit // 1024} KB) | errors |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in res["pages"]:
        d = p["defaults"]
        w(f"| {page_name(p)} | {ms(d['warm'])} {mark(d['warm'], B['rerun_default'].limit)} | "
          f"{ratio(d['warm'], hello['warm'])} | {ms(d['cold'])} {mark(d['cold'], B['rerun_default'].limit)} | "
          f"{ratio(d['cold'], hello['cold'])} | {_charts(d)} | "
          f"{kb(d['bytes'])} {mark(d['bytes'], B['chart_bytes'].limit)} | {len(d['errors']) or 0} |")
    w("")
    w("### At the largest settings")
    w("")
    w("Every slider, select slider and number input of the page's main area set to its maximum (found on the "
      "page by AppTest, nothing listed by hand; the controls in the table), the sidebar at a 64-word sentence "
      "with repeated words, d = 512, seed 7.")
    w("")
    w(f"| page | warm rerun (≤ {B['rerun_largest'].limit:.0f} ms) | ×hello | cold rerun, caches cleared "
      f"(≤ {B['rerun_largest'].limit:.0f} ms) | ×hello | charts | chart data per rerun | errors | settings |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in res["pages"]:
        big = p.get("largest")
        if not big:
            w(f"| {page_name(p)} | — | — | — | — | — | — | — | not measured |")
            continue
        settings = ", ".join(f"{k}={_short(v)}" for k, v in big.get("settings", {}).items()) or "sidebar only"
        if big.get("not_applied") and not big.get("errors"):
            settings += " — **not applied:** " + ", ".join(big["not_applied"])
        w(f"| {page_name(p)} | {ms(big['warm'])} {mark(big['warm'], B['rerun_largest'].limit)} | "
          f"{ratio(big['warm'], hello['warm'])} | {ms(big['cold'])} {mark(big['cold'], B['rerun_largest'].limit)} | "
          f"{ratio(big['cold'], hello['cold'])} | {_charts(big)} | {kb(big['bytes'])} | "
          f"{len(big['errors']) or 0} | {settings} |")
    w("")
    errs = [(page_name(p), part, e) for p in res["pages"] for part in ("defaults", "largest")
            for e in ((p.get(part) or {}).get("errors") or [])]
    if errs:
        w("Errors seen:")
        w("")
        for name, part, e in errs:
            w(f"- {name} at {part}: `{e}`")
        w("")

    w("## Browser: slider key press → chart updated (Chromium)")
    w("")
    w("The first Streamlit slider of each page's main area and its first in-chart range slider, taken from the "
      "per-control measurement below (each page opened in a new tab — a new Streamlit session — of headless Debian "
      "Chromium, on the server of the last cold start; the slider focused and an arrow key pressed). "
      "Time from the keydown event to the "
      "script run finished **and** the charts redrawn (measured inside the page: the end of the last chart "
      "redraw — SVG mutation or Vega canvas repaint — and the `notRunning` script state, whichever is later). "
      "Sliders inside a chart (Vega-Lite parameter bindings) redraw in the browser with no rerun (client-side). "
      "Each press moves the slider one step right (left at its end), "
      "mostly to a value the server has not seen (a cache miss: the page recomputes what depends on it), as a "
      "student sliding does. Received per press: the Streamlit messages that came back over the websocket "
      f"(uncompressed). Presses per median: {res['runs']['presses']}.")
    w("")
    hs = next((s for s in sliders(res.get("hello_controls") or []) if s["kind"] == "rerun"), None)
    base = hs["median"] if hs else None
    if hs:
        w(f"Hello-world page (`streamlit run bench/hello_app.py`: a title, a slider and a 4-point chart), timed the "
          f"same way in this run: **{ms(base)}** — Streamlit's own floor for a slider rerun in this browser on "
          f"this machine; ×hello divides each time by it.")
        w("")
    w(f"| page | slider | kind | median (≤ {B['slider'].limit:.0f} ms) | ×hello | presses | run ends / last chart "
      f"redraw (median) | received per press | notes |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in res["pages"]:
        for s in sliders(p.get("controls") or []) or [{"kind": "not measured", "label": "", "median": None, "times": [],
                                      "notes": [], "details": []}]:
            if s["kind"] == "none":
                w(f"| {page_name(p)} | — | no slider | — | — | — | — | — | |")
                continue
            times = ratio(s["median"], base) if s["kind"] == "rerun" else "—"
            w(f"| {page_name(p)} | {s['label'] or '—'} | {s['kind']} | {ms(s['median'])} "
              f"{mark(s['median'], B['slider'].limit)} | {times} | {len(s['times'])} | {_phases(s)} | "
              f"{kb(_median_of(s, 'bytes'))} | {'; '.join(s['notes'])} |")
    w("")

    L += controls_section(res)

    cs = res.get("cold_start") or {}
    w("## Cold start")
    w("")
    w("From launching `streamlit run app.py` (a subprocess, fresh port) to the home page rendered in a fresh "
      "Chromium context (its h1 visible and the script `notRunning`); the browser itself was already running. "
      "The server is polled for health every 0.2 s (bench/browser.py, as the tests do).")
    w("")
    w(f"| runs | median (≤ {B['cold_start'].limit:.0f} s) | min | max |")
    w("| --- | --- | --- | --- |")
    runs = cs.get("runs") or []
    if runs:
        w(f"| {len(runs)} | {cs['median']:.2f} s {mark(cs['median'], B['cold_start'].limit)} | {min(runs):.2f} s | "
          f"{max(runs):.2f} s |")
    else:
        w("| 0 | — | — | — |")
    if cs.get("error"):
        w("")
        w(f"Error: `{cs['error']}`")
    w("")

    L += load_section(res)

    w("## Shared caches")
    w("")
    w("Every `st.cache_data` / `st.cache_resource` / `@frame.cached` in app.py, the page frame and lessons/ "
      "(they are shared by all sessions of a server, so each must be bounded with `max_entries`; "
      "`@frame.cached` is `st.cache_data` with `max_entries=32` unless given; a cached function without "
      "arguments holds one entry).")
    w("")
    w("| file | function | kind | max_entries |")
    w("| --- | --- | --- | --- |")
    for c in res.get("caches", []):
        w(f"| {c['file']}:{c['line']} | {c['function']} | {c['kind']} | "
          f"{c['max_entries'] if c['bounded'] else 'none'} {OK if c['bounded'] else MISS} |")
    w("")
    return "\n".join(L)


def _median(xs: list) -> Any:
    xs = sorted(x for x in xs if _num(x))
    return xs[len(xs) // 2] if xs else None


def floors_section(res: dict) -> list[str]:
    """What the misses come down to, from this run's own numbers: the hello-world floor, the browser's chart
    redraw (in-chart controls involve no server), the data a sidebar press must re-send, the lecture hall's
    offered load against what one process served."""
    hs, hb = hello_base(res)
    rows = [c for p in res.get("pages") or [] for c in p.get("controls") or []]
    if not rows or not _num(hs):
        return []
    out = ["## What the misses come down to (floors measured in this run)", ""]
    frag = [c for c in rows if c["kind"] == "fragment"]
    page = [c for c in rows if c["kind"] == "page"]
    chart = [c for c in rows if c["kind"] == "in-chart" and _num(c.get("browser_median"))]
    slow = [c for c in frag + page if not B['control_server'].holds(c.get("server_median"), hs)
            and _num(c.get("server_median"))]
    out.append(f"- **Server, per press.** The hello-world page's press takes {ms(hs)} of server time (request to "
               f"run finished, transfer included). Fragment controls: median "
               f"{ms(_median([c.get('server_median') for c in frag]))}"
               f"; page controls (the sidebar's, rerunning the page): median "
               f"{ms(_median([c.get('server_median') for c in page]))}. {len(slow)} of {len(frag) + len(page)} "
               f"controls are over ×{B['control_server'].limit:g} hello"
               + (": " + "; ".join(f"{c['page']} “{c['label']}” {ms(c['server_median'])}" for c in slow[:6])
                  if slow else "")
               + ".")
    if chart:
        redraw = [c["browser_median"] - c["server_median"] for c in frag + page
                  if _num(c.get("browser_median")) and _num(c.get("server_median"))]
        worst = max(chart, key=lambda c: c["browser_median"])
        out.append(f"- **The browser redraws charts.** An in-chart control involves no server: its time is Chromium "
                   f"redrawing one chart on this machine — median {ms(_median([c['browser_median'] for c in chart]))} "
                   f"over {len(chart)} controls, up to {ms(worst['browser_median'])} ({worst['page']}, "
                   f"“{worst['label']}”). A fragment or page press redraws every chart of its section or page once "
                   f"the run has finished: its browser time minus its server time, median "
                   f"{ms(_median(redraw))}, is that redraw and the page's layout, not the server. The hello-world "
                   f"page (one four-point chart) takes {ms(hb)} in the browser, so ×{BUDGET_CONTROL_BROWSER_X:g} "
                   "hello leaves no room for a section with several charts of hundreds of marks.")
    out += _client_floor(res, hb)
    largest: dict[str, float] = {}
    for c in page:
        if _num(c.get("bytes_median")) and c["bytes_median"] > B['control_bytes'].limit:
            largest[c["page"]] = max(largest.get(c["page"], 0), c["bytes_median"])
    heavy = sorted(largest.items(), key=lambda x: -x[1])
    if heavy:
        out.append("- **Bytes.** The sidebar's sentence, d and seed feed every chart of the page, so a sidebar press "
                   "re-sends the page's charts, up to " + ", ".join(f"{p} {kb(b)}" for p, b in heavy)
                   + f" (over {kb(B['control_bytes'].limit)}). Fragment presses send their own section only.")
    lecture = [r for r in (res.get("load") or {}).get("runs", []) if r.get("scenario") == "lecture"
               and not r.get("error")]
    one = next((r for r in lecture if r.get("processes") == 1 and not r.get("floor")), None)
    two = next((r for r in lecture if (r.get("processes") or 0) > 1), None)
    hello = next((r for r in lecture if r.get("floor")), None)
    if one and _num(one.get("reruns_per_s")):
        rps = one["reruns_per_s"]
        cpu = _cpu_per_run(one)
        text = (f"- **Lecture hall.** 100 sessions each pressing every 1.5–4.5 s offer about "
                f"{100 / 3:.0f} presses a second. One process served {rps:.1f} reruns/s (p95 {ms(one.get('p95'))}). "
                "Streamlit runs every session's script under one interpreter lock, so one process has one core "
                "for all of them: ")
        text += (f"it spent {ms(cpu)} of CPU per run (presses and page openings), "
                 f"{_busy(one):.0%} of one core over the wave." if _num(cpu) else
                 f"that is about {1000 / rps:.0f} ms of server work per press.")
        if hello and _num(_cpu_per_run(hello)):
            text += (f" The floor, the hello-world page under the same load and settings: "
                     f"{ms(_cpu_per_run(hello))} of CPU per run, p95 {ms(hello.get('p95'))}, {hello['errors']} "
                     "errors — what Streamlit itself costs per press on this machine.")
        if two:
            text += (f" With {two['processes']} processes behind HAProxy, the same load: p95 {ms(two.get('p95'))}"
                     f" {mark(two.get('p95'), BUDGET_LECTURE_P95_MS)}.")
        out.append(text)
    out.append("")
    return out


def _cpu_per_run(run: dict) -> Any:
    """Server CPU per script run (ms) over a load run's waves: None where it was not read (a --url target)."""
    waves = [w for w in run.get("waves", []) if _num(w.get("cpu_s"))]
    runs = sum(len(w.get("latencies") or []) + len(w.get("open") or []) for w in waves)
    return sum(w["cpu_s"] for w in waves) * 1000 / runs if waves and runs else None


def _busy(run: dict) -> float:
    """The share of one core the app processes used over the waves."""
    waves = [w for w in run.get("waves", []) if _num(w.get("cpu_s")) and w.get("seconds")]
    return sum(w["cpu_s"] for w in waves) / sum(w["seconds"] for w in waves) if waves else float("nan")


def _client_floor(res: dict, hb: Any) -> list[str]:
    """The browser's floor per page: the page rerun with nothing changed (page controls) and the page's smallest
    fragment, its Predict radio (fragment controls); how many controls are within ×1.5 of their own floor."""
    pages = [p for p in res.get("pages") or [] if p.get("controls")]
    floors, smallest, near, total = [], [], 0, 0
    for p in pages:
        rows = p["controls"]
        noop = next((r.get("browser_median") for r in rows if r["kind"] == "floor"), None)
        predict = _median([r.get("browser_median") for r in rows
                           if r["kind"] == "fragment" and _predict(r)])
        if _num(noop):
            floors.append((page_name(p), noop))
        if _num(predict):
            smallest.append((page_name(p), predict))
        for r in rows:
            own = noop if r["kind"] == "page" else predict if r["kind"] == "fragment" else None
            if _num(own) and _num(r.get("browser_median")) and not _predict(r):
                total += 1
                near += r["browser_median"] <= BUDGET_CONTROL_BROWSER_X * own
    if not floors or not _num(hb):
        return []
    lo, hi = min(floors, key=lambda x: x[1]), max(floors, key=lambda x: x[1])
    text = (f"- **Streamlit's client redraws the page.** Pressing R reruns a page with nothing moved: the same "
            f"elements come back and no number differs. In Chromium that alone takes {ms(lo[1])} ({lo[0]}) to "
            f"{ms(hi[1])} ({hi[0]}), median {ms(_median([f for _, f in floors]))}, against {ms(hb)} for the "
            "hello-world page's slider: the browser re-renders every element the run sent, and our pages have "
            "50–200 of them.")
    if smallest:
        text += (f" The smallest fragment of each page, its Predict radio (a radio and two lines of text), takes "
                 f"median {ms(_median([f for _, f in smallest]))} (from {ms(min(f for _, f in smallest))} to "
                 f"{ms(max(f for _, f in smallest))}).")
    if total:
        text += (f" Measured against their own page's floor (page controls against R, fragment controls against "
                 f"Predict), {near} of {total} controls are within ×{BUDGET_CONTROL_BROWSER_X:g}.")
    return [text]


def load_section(res: dict) -> list[str]:
    L: list[str] = []
    w = L.append
    w("## Load")
    w("")
    load = res.get("load")
    if not load or not load.get("runs"):
        w("Not run in this mode (`python -m bench` runs it; `python -m bench --load [--compare]` runs only it). "
          "It never runs in CI.")
        w("")
        return L
    w("Real Streamlit sessions over the websocket, without a browser (`bench/wsclient.py`: the protocol the "
      "browser speaks — a `rerun_script` request with the moved widget's value, and its fragment id when the "
      "widget sits in an `st.fragment`, then the server's messages up to `script_finished`), spread round robin "
      "over the pages that exist. **Latency**: from sending the rerun request to `script_finished` — the server's "
      "rerun latency under load, the transfer included, no browser rendering. **Errors**: pages that did not open "
      "within 90 s, presses whose run did not finish within 30 s, exceptions on the page, dropped connections. "
      "**Reruns/s**: timed reruns divided by the time from the first press to the last run finished. **Server CPU "
      "per run**: the app processes' CPU time over the wave (/proc, user + system) divided by the script runs "
      "(presses and page openings), and that time as a share of the wave's length. **Memory**: the app processes' "
      "VmRSS, summed; servers started by the benchmark get a disconnected-session TTL of "
      f"{_ttl(load)} s (default 120 s) so closed sessions are gone when it is read after a wave. Targets: *one "
      "process* = `streamlit run app.py` on 127.0.0.1; *N processes behind HAProxy* = `deploy/serve.py` (cookie-"
      "sticky sessions; a session without the cookie, as here, goes round robin), same machine, same load; "
      "*the hello-world page (the floor)* = `streamlit run bench/hello_app.py`, every session on its one page "
      "pressing its slider, the same load and settings: what Streamlit itself costs. "
      "`python -m bench --load --url URL` drives any running deployment on this machine.")
    w("")
    by_scenario: dict[str, list[dict]] = {}
    for run in load["runs"]:
        by_scenario.setdefault(run["scenario"], []).append(run)
    for name, runs in by_scenario.items():
        first = runs[0]
        title = {"lecture": "Lecture hall", "burst": "No pause (worst case)"}.get(name, name)
        w(f"### {title}: {first.get('describe', '')}")
        w("")
        if name == "lecture":
            w(f"Budget (one process): 0 errors, p95 ≤ {BUDGET_LECTURE_P95_MS:.0f} ms. Each press: a control drawn "
              "at random from the page's own widgets (the sidebar's Seed on a page without any), one step up or "
              "down. The budget is on every press; *p95 once every session was open* leaves out the presses sent "
              "while sessions were still opening their pages (each opening is a full page run), to tell the "
              "ramp's queue from the steady state.")
        else:
            w("Each session moves the page's first slider one step up, down, up … (the sidebar's Seed on a page "
              "without a slider), each press as soon as the previous run finished. Budget: 0 errors; memory after "
              "the second wave's sessions closed about the same as after the first's (bounded caches).")
        w("")
        w("| target | wave | sessions | errors (must be 0) | p50 | p95 | max | reruns/s | of them fragment runs | "
          "opening a page p50 / p95 | p95 once every session was open (presses) | server CPU per run (of one core) | "
          "RSS before → after the wave → sessions closed |")
        w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for run in runs:
            if run.get("error"):
                w(f"| {run['target']} | — | — | did not run {MISS} | — | — | — | — | — | — | — | — | "
                  f"`{run['error'][:120]}` |")
                continue
            for i, wv in enumerate(run["waves"], 1):
                rss = "—" if not run.get("rss_before_kb") else (
                    f"{run['rss_before_kb'] / 1024:.0f} → {wv['rss_after_kb'] / 1024:.0f} → "
                    f"{wv['rss_closed_kb'] / 1024:.0f} MB")
                budget = ""
                if name == "lecture" and run.get("processes") == 1 and not run.get("floor") and _num(wv["p95"]):
                    budget = " " + mark(wv["p95"], BUDGET_LECTURE_P95_MS)
                rps = wv.get("reruns_per_s")
                opened = wv.get("open") or []
                w(f"| {run['target']} | {i} | {wv['sessions']} ({wv['completed']} completed, {len(wv['latencies'])} "
                  f"presses) | {len(wv['errors'])} {OK if not wv['errors'] else MISS} | {ms(wv['p50'])} | "
                  f"{ms(wv['p95'])}{budget} | {ms(wv['max'])} | {f'{rps:.1f}' if _num(rps) else '—'} | "
                  f"{wv.get('fragment_runs', '—')} | "
                  f"{ms(_pct(opened, 0.5))} / {ms(_pct(opened, 0.95))} | "
                  f"{ms(wv.get('settled_p95')) if wv.get('settled_p95') is not None else '—'} "
                  f"({wv.get('settled', '—')}) | {_wave_cpu(wv)} | {rss} |")
        w("")
        for run in runs:
            servers = [wv.get("servers") for wv in run.get("waves", []) if wv.get("servers")]
            if servers:
                spread = ", ".join(f"{k}: {v}" for k, v in sorted(servers[0].items()))
                w(f"- {run['target']}: sessions per app process (HAProxy's X-Posenc-Server): {spread}.")
            for note in run.get("notes", []):
                w(f"- {run['target']}: {note}")
            grouped = _group_errors([e for wv in run.get("waves", []) for e in wv["errors"]])
            if grouped:
                w(f"- {run['target']}: errors, grouped by page and message:")
                for text, n in grouped[:12]:
                    w(f"  - {n} × `{text}`")
        w("")
    return L


def _wave_cpu(wv: dict) -> str:
    if not _num(wv.get("cpu_ms_per_run")) or not wv.get("seconds"):
        return "—"
    return f"{ms(wv['cpu_ms_per_run'])} ({wv['cpu_s'] / wv['seconds']:.0%})"


def _ttl(load: dict) -> Any:
    return next((r.get("session_ttl") for r in load.get("runs", []) if r.get("session_ttl")), "?")


def _pct(xs: list, q: float) -> Any:
    xs = sorted(x for x in xs if _num(x))
    if not xs:
        return None
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def _group_errors(errors: list[str]) -> list[tuple[str, int]]:
    """"fixes #2 interaction 3: X" and "fixes #11: opening the page: X" → ("fixes: X", count)."""
    import re
    from collections import Counter

    counts = Counter(re.sub(r" #\d+( interaction \d+)?:( opening the page:)?", ":", e)[:200] for e in errors)
    return counts.most_common()


def _median_of(s: dict, key: str) -> Any:
    xs = sorted(d[key] for d in s.get("details") or [] if _num(d.get(key)))
    return xs[len(xs) // 2] if xs else None


def _phases(s: dict) -> str:
    """Median time to the end of the script run and to the last chart redraw, from the per-press details."""
    run, paint = _median_of(s, "run_end"), _median_of(s, "paint_last")
    return f"{ms(run)} / {ms(paint)}" if _num(run) or _num(paint) else "—"


def _charts(r: dict) -> str:
    s = str(r.get("charts", 0))
    if r.get("images"):
        s += f" + {r['images']} image(s)"
    return s


def _short(v: str) -> str:
    return f"“{v[:24]}…” ({len(v.split())} words)" if len(v) > 30 else v


def summary(res: dict) -> str:
    """A few lines for the terminal: what was measured, and every miss."""
    found = {"load only": load_misses, "controls only": control_misses}.get(res["mode"], misses)(res)
    rows = sum(len(p.get("controls") or []) for p in res.get("pages") or [])
    lines = [f"{res['mode']}: {len(res.get('pages') or [])} pages, {rows} controls, "
             f"{len((res.get('load') or {}).get('runs') or [])} load runs"]
    if res["meta"].get("changed_during_run"):
        lines.append(f"WARNING: {len(res['meta']['changed_during_run'])} source file(s) changed during the run")
    return "\n".join(lines + [f"{len(found)} budget miss(es)" + (":" if found else ".")] + [f"  ✗ {x}" for x in found])


def _head(res: dict, title: str) -> list[str]:
    m = res["meta"]
    head = [f"# {title}", "", f"Generated by `{m['command']}` on {m['date']}. Machine: {m['cpu']}, {m['cores']} "
            f"cores, {m['memory']}; Python {m['python']}, Streamlit {m['streamlit']}. Load average at start / end: "
            f"{m['load_start']} / {m['load_end']} (other work on the machine inflates every number). "
            f"Whole run: {m['seconds']:.0f} s.", ""]
    if m.get("changed_during_run"):
        head += [f"**Warning: source files changed while this ran** ({', '.join(m['changed_during_run'][:8])}).", ""]
    return head


def render_load_only(res: dict) -> str:
    found = load_misses(res)
    misses_ = ["## Budget misses", ""] + ([f"- {MISS} {x}" for x in found] or [f"- {OK} none."]) + [""]
    return "\n".join(_head(res, "Load test") + misses_ + load_section(res)[2:])


def render_controls_only(res: dict) -> str:
    found = control_misses(res)
    misses_ = ["## Budget misses", ""] + ([f"- {MISS} {x}" for x in found] or [f"- {OK} none."]) + [""]
    return "\n".join(_head(res, "Every control") + misses_ + controls_section(res))



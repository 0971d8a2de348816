"""In Debian's Chromium (Playwright, sync API): cold start, and slider key press → chart updated.

Timing is done inside the page (bench/probe.js) on the page's own clock, from the keydown event to the moment
the script run finished and the charts stopped redrawing, so Playwright's round trips do not count.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import HELLO
from browser import DONE, launch, streamlit_server  # tests/browser.py (bench put tests/ on sys.path)

PROBE = (Path(__file__).resolve().parent / "probe.js").read_text()
VIEWPORT = {"width": 1400, "height": 900}
# Streamlit 1.67's slider is react-aria: a visually hidden <input type=range> per thumb (older: role=slider).
STREAMLIT_SLIDER = ("[data-testid=stMain] [data-testid=stSlider] input[type=range], "
                    "[data-testid=stMain] [data-testid=stSlider] [role=slider]")
VEGA_SLIDER = "[data-testid=stMain] .vega-bindings input[type=range]"


def new_context(browser: Any) -> Any:
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.add_init_script(PROBE)
    return ctx


def new_page(browser: Any) -> tuple[Any, Any]:
    ctx = new_context(browser)
    return ctx, ctx.new_page()


def wait_rendered(page: Any, timeout: float = 60_000) -> None:
    """The first script run finished: an h1 is visible, the app is notRunning, and nothing is loading."""
    page.wait_for_selector("h1", state="visible", timeout=timeout)
    page.wait_for_selector(DONE, timeout=timeout)
    page.wait_for_function("() => !document.querySelector('[data-testid=stSkeleton]')", timeout=timeout)


def wait_quiet(page: Any, quiet_ms: int = 500, cap_ms: int = 10_000) -> None:
    """Wait until no chart has redrawn for ``quiet_ms`` (the first render has settled)."""
    page.wait_for_function(
        """([quiet, cap, t]) => { const W = window.__bench; const now = performance.now();
             return now - t > cap || (now - t > quiet && (W.paintLast === null || now - W.paintLast > quiet)); }""",
        arg=[quiet_ms, cap_ms, page.evaluate("performance.now()")], polling=50, timeout=cap_ms + 5_000)


def hello_server(timeout: float = 60.0):
    """`streamlit run bench/hello_app.py` on a free loopback port (tests/browser.streamlit_server)."""
    return streamlit_server(script=str(HELLO), timeout=timeout)


# ---------------------------------------------------------------- cold start
def cold_start_once(browser: Any, keep: Any = None) -> float:
    """Seconds from launching `streamlit run app.py` to the home page rendered in a fresh browser context.

    ``keep(base)``, if given, is called with the still-running server afterwards (to reuse it).
    """
    ctx, page = new_page(browser)
    t0 = time.perf_counter()
    with streamlit_server() as base:
        page.goto(base)
        wait_rendered(page)
        seconds = time.perf_counter() - t0
        ctx.close()
        if keep is not None:
            keep(base)
    return seconds


# ---------------------------------------------------------------- slider → chart
@dataclass
class SliderResult:
    page: str
    kind: str  # "rerun" (Streamlit slider), "client-side" (Vega-Lite binding), "none"
    label: str = ""
    times_ms: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    details: list[dict] = field(default_factory=list)  # per press: run start/end, first/last chart redraw (ms)

    @property
    def median(self) -> float:
        return statistics.median(self.times_ms) if self.times_ms else float("nan")


def _press(page: Any, handle: Any, kind: str, quiet: int, cap: int) -> dict:
    """Focus the control, press an arrow key (left when it sits at its maximum), time the effect."""
    if handle.evaluate("e => e.tagName") == "INPUT":
        now, hi = handle.input_value(), handle.get_attribute("max")
    else:
        now, hi = handle.get_attribute("aria-valuenow"), handle.get_attribute("aria-valuemax")
    key = "ArrowLeft" if now is not None and hi is not None and float(now) >= float(hi) else "ArrowRight"
    handle.focus()
    page.evaluate("window.__bench.reset()")
    page.keyboard.press(key)
    return page.evaluate("([m, q, c]) => window.__bench.waitDone(m, q, c)", [kind, quiet, cap])


def _label(handle: Any, kind: str) -> str:
    """The slider's label as the student reads it."""
    js = ("e => e.closest('[data-testid=stSlider]')?.querySelector('[data-testid=stWidgetLabel]')?.innerText"
          if kind == "rerun" else "e => { const b = e.closest('.vega-bind') || e.parentElement; "
             "return (b?.querySelector('.vega-bind-name') || b)?.innerText; }")
    return " ".join(str(handle.evaluate(js) or "").split())[:60]


def slider_to_chart(ctx: Any, base: str, url_path: str, presses: int, quiet: int = 400,
                    cap: int = 10_000) -> list[SliderResult]:
    """Median time from an arrow key on the page's first Streamlit slider (and first in-chart Vega-Lite slider)
    to the charts redrawn with the new values. ``ctx``: a browser context with the probe (new_context()); the
    page is opened in a new tab (a new Streamlit session) and closed afterwards."""
    page = ctx.new_page()
    results: list[SliderResult] = []
    try:
        page.goto(f"{base}/{url_path}")
        wait_rendered(page)
        if page.locator("[data-testid=stVegaLiteChart], [data-testid=stImage]").count():
            page.wait_for_function(
                "() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')]"
                ".some(c => c.querySelector('svg.marks, canvas.marks')) || "
                "document.querySelector('[data-testid=stImage] img')", timeout=60_000)
        wait_quiet(page, quiet_ms=quiet + 100)
        for kind, selector in (("rerun", STREAMLIT_SLIDER), ("client-side", VEGA_SLIDER)):
            handles = page.locator(selector).filter(visible=True)  # e.g. not in a hidden tab
            if handles.count() == 0:
                continue
            res = SliderResult(url_path, kind, _label(handles.first, kind))
            for _ in range(presses):
                out = _press(page, handles.first, kind, quiet, cap)
                if page.locator("[data-testid=stException]").count():
                    res.notes.append("exception on the page")
                    break
                if not out["ok"] or out["total"] is None:
                    res.notes.append("no effect seen within {:.0f} s".format(cap / 1000))
                    continue
                if kind == "rerun" and not out["paints"]:
                    res.notes.append("the chart did not change: time to the end of the run")
                if kind == "client-side" and out["ran"]:
                    res.notes.append("unexpected: a script rerun")
                res.times_ms.append(float(out["total"]))
                res.details.append({k: out[k] for k in ("sent", "run_start", "run_end", "finished", "dom_end",
                                                        "paint_first", "paint_last", "paints", "messages",
                                                        "bytes")})
                wait_quiet(page, quiet_ms=300)
            res.notes = sorted(set(res.notes))
            results.append(res)
        if not results:
            results.append(SliderResult(url_path, "none"))
    finally:
        page.close()
    return results


def browser_version(browser: Any) -> str:
    return str(browser.version)


__all__ = ["launch", "cold_start_once", "slider_to_chart", "SliderResult", "browser_version", "hello_server",
           "new_context"]

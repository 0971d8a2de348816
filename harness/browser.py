"""Real-browser helpers shared by the tests and the benchmark: a fresh Streamlit server on a free loopback port,
Debian's Chromium via Playwright, waits, screenshots, chart checks, axe-core, the websocket decoded, and the
benchmark's probe (harness/probe.js) with the cold start. Nothing here skips: a missing Chromium fails loudly.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from deploy.serve import _healthy, _stop, free_ports
from harness import ROOT

CHROMIUM = os.environ.get("POSENC_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DONE = "[data-testid=stApp][data-test-script-state=notRunning]"
ARTIFACTS = ROOT / "artifacts" / "screenshots"
SLOW = 240_000  # ms: a generous bound for a run on a loaded shared machine (no test asserts a time)
PROBE = (Path(__file__).resolve().parent / "probe.js").read_text()
VIEWPORT = {"width": 1400, "height": 900}


class Server(str):
    """The server's base URL (a str), with the pid of its process."""

    pid: int


@contextmanager
def streamlit_server(script: str = "app.py", timeout: float = 60.0) -> Iterator[Server]:
    """Start ``streamlit run <script>`` on a free loopback port; yield its base URL (with ``.pid``); stop it after."""
    port = free_ports(1)
    cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none",
           "--browser.gatherUsageStats", "false"]
    log = open(ROOT / "artifacts" / f"server-{port}.log", "w") if (ROOT / "artifacts").is_dir() else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    base = Server(f"http://127.0.0.1:{port}")
    base.pid = proc.pid
    try:
        deadline = time.monotonic() + timeout
        while not _healthy(base):
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {proc.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError("streamlit did not become healthy in time")
            time.sleep(0.2)
        yield base
    finally:
        _stop([proc])


def launch(playwright):
    """Debian's Chromium, headless; fails loudly when it is not installed."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def wait_done(page, timeout: float = 240_000, first: str = "[data-testid=stApp]", settle: int = 300) -> None:
    """Wait until ``first`` shows, the script run has finished and nothing is still loading."""
    page.wait_for_selector(first, timeout=timeout)
    page.wait_for_timeout(settle)
    page.wait_for_selector(DONE, timeout=timeout)
    page.wait_for_function("() => !document.querySelector('[data-testid=stSkeleton]')", timeout=timeout)


def full_screenshot(page, name: str) -> Path:
    """Screenshot the whole page (Streamlit scrolls inside stMain, so grow the viewport first)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size, out = page.viewport_size, ARTIFACTS / f"{name}.png"
    grow_to_content(page, cap=12000, settle=500)
    page.screenshot(path=str(out), full_page=True)
    page.set_viewport_size(size)
    return out


# ---------------------------------------------------------------- charts on screen
def wait_charts(page, timeout: float = 90_000) -> None:
    """Wait until every visible chart has drawn (an svg.marks or canvas.marks in it), then two animation frames.
    A chart that never draws is not an error here (``chart_overflows`` says “not drawn”)."""
    try:
        page.wait_for_function(
            """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')]
                     .filter(c => c.getClientRects().length && c.getBoundingClientRect().width > 0
                                  && !c.closest('details:not([open])'))
                     .every(c => c.querySelector('svg.marks, canvas.marks'))""", timeout=timeout)
    except Exception as err:  # playwright's TimeoutError
        if "Timeout" not in type(err).__name__:
            raise
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def open_app(page, url: str) -> None:
    """Go to ``url`` and wait for the run to finish and every visible chart to draw."""
    page.goto(url, timeout=SLOW)
    wait_done(page, timeout=SLOW)
    wait_charts(page)


def grow_to_content(page, cap: int = 16000, settle: int = 300) -> None:
    """Grow the viewport to stMain's scrollHeight so every element is laid out on one screen (widths stay)."""
    size = page.viewport_size
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]')?.scrollHeight || 0")
    if height > size["height"]:
        page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, cap)})
        page.wait_for_timeout(settle)
        wait_charts(page)


CHART_OVERFLOWS = """() => {
  const W = window.innerWidth;
  const out = [];
  document.querySelectorAll('[data-testid=stVegaLiteChart]').forEach((c, i) => {
    const box = c.getBoundingClientRect();
    if (!c.getClientRects().length || box.width === 0 || c.closest('details:not([open])')) return;  // closed
    const title = (c.querySelector('.role-title-text')?.textContent || '').slice(0, 50);
    const name = `chart ${i + 1}${title ? ' “' + title + '”' : ''}`;
    const draw = c.querySelector('svg.marks, canvas.marks');
    if (!draw) { out.push(`${name}: not drawn`); return; }
    const r = draw.getBoundingClientRect();
    if (r.right > box.right + 1 || r.left < box.left - 1)
      out.push(`${name}: drawing ${Math.round(r.left)}…${Math.round(r.right)} px leaves its container ` +
               `${Math.round(box.left)}…${Math.round(box.right)} px`);
    const right = Math.max(r.right, box.right);
    if (right > W + 1) out.push(`${name}: reaches ${Math.round(right)} px, past the window's right edge (${W} px)`);
    // Vega ends a title, a legend's or an axis' label it cut to its limit with "…" (read in SVG charts; a canvas
    // chart's text is pixels)
    c.querySelectorAll('svg.marks text').forEach((t) => {
      if (t.textContent.endsWith('…')) out.push(`${name}: text cut short “${t.textContent}”`);
    });
  });
  return out;
}"""


def chart_overflows(page) -> list[str]:
    """Charts whose drawing is wider than its container or runs past the window's right edge, or whose text Vega
    cut short to fit."""
    return page.evaluate(CHART_OVERFLOWS)


def first_chart_top(page) -> float | None:
    """Distance in px from the top of the page (main area scrolled to the top) to the first visible chart."""
    return page.evaluate("""() => {
      const main = document.querySelector('[data-testid=stMain]');
      if (main) main.scrollTop = 0;
      const c = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]')]
        .find(c => c.getClientRects().length && c.getBoundingClientRect().width > 0
                   && !c.closest('details:not([open])'));
      return c ? c.getBoundingClientRect().top : null;
    }""")


def chart_pictures(page) -> list[bytes]:
    """Pictures of the charts a student can see (charts in closed tabs and expanders are left out)."""
    charts = page.locator("[data-testid=stVegaLiteChart]")
    return [charts.nth(i).screenshot(animations="disabled") for i in range(charts.count())
            if charts.nth(i).is_visible()]


# A chart's accessible name: aria-label / aria-labelledby / an svg <title> on its drawing or on an element
# between the drawing and its stVegaLiteChart container (inclusive), or on the container's role=img/figure.
CHART_NAMES = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].map((c, i) => {
  const draw = c.querySelector('svg.marks, canvas.marks');
  const names = [];
  for (let el = draw || c; el; el = el.parentElement) {
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) names.push(label.trim());
    const by = el.getAttribute('aria-labelledby');
    if (by) names.push(by.split(/\\s+/).map(id => document.getElementById(id)?.textContent || '').join(' ').trim());
    if (el.tagName.toLowerCase() === 'svg') {
      const t = el.querySelector(':scope > title');
      if (t && t.textContent.trim()) names.push(t.textContent.trim());
    }
    if (el === c) break;
  }
  return {chart: i + 1, drawn: !!draw, name: names.find(n => n) || ''};
})"""


def chart_names(page) -> list[dict]:
    """Every chart's accessible name ('' when it has none)."""
    return page.evaluate(CHART_NAMES)


# ---------------------------------------------------------------- axe-core
AXE = ROOT / "artifacts" / "axe.min.js"

# Streamlit's own chrome: markup the app cannot change (header, toolbar, menu, the sidebar's frame and page
# navigation, the chart toolbar, the status widget, the popover portal, and <html>/<head>/<body>).
STREAMLIT_CHROME = ", ".join(f"[data-testid={t}]" for t in (
    "stHeader", "stToolbar", "stMainMenu", "stDecoration", "stStatusWidget", "stSidebarHeader",
    "stSidebarNav", "stSidebarCollapseButton", "stExpandSidebarButton", "stSidebarCollapsedControl",
    "stSidebarResizeHandle", "stElementToolbar", "stSkipToContent", "stAppIframeResizerAnchor",
)) + ", #portal"

AXE_RUN = """async (chrome) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}});
  const ours = (target) => {
    let el = null;
    try { el = document.querySelector(Array.isArray(target) ? target[target.length - 1] : target); } catch (e) {}
    if (!el) return true;  // cannot place it: count it as ours
    if (el === document.documentElement || el === document.body || el === document.head) return false;
    return !el.closest(chrome);
  };
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target, html: n.html.slice(0, 160), ours: ours(n.target),
                              summary: (n.failureSummary || '').slice(0, 200)})),
  }));
}"""


def run_axe(page) -> list[dict]:
    """axe-core (artifacts/axe.min.js, fetched by scripts/test.sh), WCAG 2 A and AA rules; each violating node
    says whether it is in the app's own markup (``ours``)."""
    if not AXE.exists():
        raise RuntimeError(f"{AXE} is missing: run scripts/test.sh (it fetches axe-core with npm pack)")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN, STREAMLIT_CHROME)


# ---------------------------------------------------------------- what the browser and the server say
class Frames:
    """The websocket traffic of a page, decoded: BackMsgs sent, ForwardMsgs received (Streamlit's protobufs)."""

    def __init__(self, page):
        self.sent: list = []
        self.received: list = []
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        for event, kind, into in (("framesent", BackMsg, self.sent), ("framereceived", ForwardMsg, self.received)):
            ws.on(event, lambda p, kind=kind, into=into: isinstance(p, bytes) and into.append(kind.FromString(p)))

    def mark(self) -> tuple[int, int]:
        return len(self.sent), len(self.received)

    def reruns_since(self, mark: tuple[int, int]) -> list[str]:
        """The fragment id of every rerun the browser asked for since ``mark`` ('' = the whole page)."""
        return [m.rerun_script.fragment_id for m in self.sent[mark[0]:] if m.WhichOneof("type") == "rerun_script"]

    def deltas_since(self, mark: tuple[int, int]) -> list[str]:
        """The fragment id of every element the server sent since ``mark`` ('' = drawn by a full run)."""
        return [m.delta.fragment_id for m in self.received[mark[1]:] if m.WhichOneof("type") == "delta"]


# ---------------------------------------------------------------- the benchmark's probe, cold start
def new_context(browser: Any) -> Any:
    """A browser context whose pages carry harness/probe.js (timings taken in the page, on its own clock)."""
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.add_init_script(PROBE)
    return ctx


def wait_rendered(page: Any) -> None:
    """The first script run finished: an h1 is visible, the app is notRunning, and nothing is loading."""
    wait_done(page, 60_000, first="h1", settle=0)


def wait_quiet(page: Any, quiet_ms: int = 500, cap_ms: int = 10_000) -> None:
    """Wait until no chart has redrawn for ``quiet_ms`` (the probe's record)."""
    page.wait_for_function(
        """([quiet, cap, t]) => { const W = window.__bench; const now = performance.now();
             return now - t > cap || (now - t > quiet && (W.paintLast === null || now - W.paintLast > quiet)); }""",
        arg=[quiet_ms, cap_ms, page.evaluate("performance.now()")], polling=50, timeout=cap_ms + 5_000)


def cold_start_once(browser: Any) -> float:
    """Seconds from launching `streamlit run app.py` to the home page rendered in a fresh browser context."""
    ctx = new_context(browser)
    page = ctx.new_page()
    t0 = time.perf_counter()
    with streamlit_server() as base:
        page.goto(base)
        wait_rendered(page)
        seconds = time.perf_counter() - t0
        ctx.close()
    return seconds

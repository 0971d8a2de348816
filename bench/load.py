"""The bounded load test: concurrent sessions against a fresh server on 127.0.0.1.

Each session opens a page (sessions are spread over the pages that exist, round robin) and makes a fixed number
of interactions: the page's first slider one step up, down, up … or, on a page without a slider, the sidebar's
Seed. Two kinds of session:

- ``websocket`` (default): real Streamlit sessions over the websocket (bench/wsclient.py), the protocol the
  browser speaks, without a browser. Latency = from sending the rerun request to the server's
  ``script_finished``: the server's own rerun latency under load. This is the default because on the
  benchmark machine (2 cores) 30 Chromium pages rendering their charts take the cores from the server they
  are supposed to load: a browser wave could not finish in 5 minutes, and its latencies measured the
  browsers, not the server.
- ``browser``: one headless Chromium, one context per session, driven with Playwright's async API; latency
  measured in the page (bench/probe.js) from the key/pointer event to the end of the script run.

Errors: a page that fails to open, an interaction whose run does not finish within the per-interaction
timeout, an exception on the page, a dropped connection. Everything is bounded: a fixed number of sessions
and interactions, per-step timeouts and a hard deadline per wave.

The server's resident memory (VmRSS from /proc/<pid>/status) is read before the sessions, after they finished
interacting (still connected), and after they closed. A second wave of fresh sessions then shows whether memory
stays flat as sessions come and go (bounded caches). The server is started with a short disconnected-session
TTL (Streamlit's default keeps a closed session's state 120 s) so closed sessions are really gone when
memory is read.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bench  # noqa: F401  (puts tests/ on sys.path)
from browser import CHROMIUM, CHROMIUM_ARGS, streamlit_server  # tests/browser.py

import frame

PROBE = (Path(__file__).resolve().parent / "probe.js").read_text()
SLIDER = ("[data-testid=stMain] [data-testid=stSlider] input[type=range], "
          "[data-testid=stMain] [data-testid=stSlider] [role=slider]")
SESSION_TTL_S = 5
MODES = ("websocket", "browser")


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:140] if text else ''}"


@dataclass
class Wave:
    sessions: int
    interactions: int
    latencies_ms: list[float] = field(default_factory=list)
    open_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    rss_after_kb: int = 0
    rss_closed_kb: int = 0
    completed: int = 0

    def pct(self, q: float) -> float:
        return _pct(self.latencies_ms, q)


@dataclass
class LoadResult:
    mode: str
    sessions: int
    interactions: int
    pages: list[str]
    rss_before_kb: int = 0
    rss_peak_kb: int = 0
    waves: list[Wave] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(len(w.errors) for w in self.waves)

    @property
    def latencies_ms(self) -> list[float]:
        return [x for w in self.waves for x in w.latencies_ms]


def _rss_kb(pid: int, field_: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_ + ":"):
            return int(line.split()[1])
    return 0


# ---------------------------------------------------------------- websocket sessions
async def _ws_session(base: str, info: frame.PageInfo, k: int, wave: Wave, timeout_s: float,
                      closers: list) -> None:
    from bench.wsclient import Session, SessionError

    name = info.url_path or "home"
    s = Session(base, info.url_path, timeout_s)
    closers.append(s.close)
    try:
        wave.open_ms.append(await s.open())
    except SessionError as err:
        wave.errors.append(f"{name} #{k}: opening the page: {err}")
    except Exception as err:  # noqa: BLE001 - every failure is an error to count
        wave.errors.append(f"{name} #{k}: page did not open: {_first_line(err)}")
        return
    control = s.control()
    if control is None:
        wave.errors.append(f"{name} #{k}: no slider and no Seed input to move")
        return
    for i in range(wave.interactions):
        try:
            wave.latencies_ms.append(await s.rerun((control, control.moved(i % 2 == 0))))
        except SessionError as err:
            wave.errors.append(f"{name} #{k} interaction {i + 1}: {err}")
        except Exception as err:  # noqa: BLE001 - a timeout or a dropped connection ends the session
            wave.errors.append(f"{name} #{k} interaction {i + 1}: {_first_line(err)}")
            return
    wave.completed += 1


# ---------------------------------------------------------------- browser sessions
async def _interact(page: Any, i: int, slider: bool, timeout_ms: int) -> float:
    await page.evaluate("window.__bench.reset()")
    if slider:
        handle = page.locator(SLIDER).filter(visible=True).first
        now, hi = await handle.input_value(), await handle.get_attribute("max")
        key = "ArrowLeft" if (i % 2 or (now and hi and float(now) >= float(hi))) else "ArrowRight"
        await handle.focus()
        await page.keyboard.press(key)
    else:
        box = page.locator("[data-testid=stSidebar] [data-testid=stNumberInput]").filter(
            has=page.get_by_text("Seed", exact=True))
        await box.locator("[data-testid=stNumberInputStepUp]" if i % 2 == 0 else
                          "[data-testid=stNumberInputStepDown]").click(timeout=timeout_ms)
    out = await page.evaluate("([m, q, c]) => window.__bench.waitDone(m, q, c)", ["run", 0, timeout_ms])
    if not out["ok"]:
        raise TimeoutError(f"run not finished in {timeout_ms / 1000:.0f} s (rerun sent: {out['sent'] is not None}, "
                           f"run started: {out['ran']}, page state: {out['state']})")
    return float(out["total"])


async def _browser_session(browser: Any, base: str, info: frame.PageInfo, k: int, wave: Wave,
                           timeout_s: float, closers: list) -> None:
    timeout_ms = int(timeout_s * 1000)
    ctx = await browser.new_context(viewport={"width": 1400, "height": 900})
    closers.append(ctx.close)
    await ctx.add_init_script(PROBE)
    page = await ctx.new_page()
    name = info.url_path or "home"
    try:
        t0 = time.perf_counter()
        await page.goto(f"{base}/{info.url_path}", timeout=timeout_ms)
        await page.wait_for_selector("h1", state="visible", timeout=timeout_ms)
        await page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=timeout_ms)
        wave.open_ms.append((time.perf_counter() - t0) * 1000)
    except Exception as err:  # noqa: BLE001 - every failure is an error to count
        wave.errors.append(f"{name} #{k}: page did not load: {_first_line(err)}")
        return
    slider = await page.locator(SLIDER).filter(visible=True).count() > 0
    for i in range(wave.interactions):
        try:
            wave.latencies_ms.append(await _interact(page, i, slider, timeout_ms))
        except Exception as err:  # noqa: BLE001
            wave.errors.append(f"{name} #{k} interaction {i + 1}: {_first_line(err)}")
            continue
        exc = page.locator("[data-testid=stException]")
        if await exc.count():
            text = " ".join((await exc.first.inner_text()).split())[:160]
            wave.errors.append(f"{name} #{k} interaction {i + 1}: exception on the page: {text}")
    wave.completed += 1


# ---------------------------------------------------------------- waves
async def _wave(make_session, pages: list[frame.PageInfo], wave: Wave, deadline: float, pid: int) -> None:
    closers: list = []
    t0 = time.monotonic()
    tasks = [asyncio.create_task(make_session(pages[k % len(pages)], k, wave, closers))
             for k in range(wave.sessions)]
    done, pending = await asyncio.wait(tasks, timeout=max(1.0, deadline - time.monotonic()))
    for t in pending:
        t.cancel()
    if pending:
        wave.errors.append(f"{len(pending)} session(s) cut off by the wave's deadline")
        await asyncio.gather(*pending, return_exceptions=True)
    for t in done:
        if t.exception() is not None:
            wave.errors.append(f"session crashed: {_first_line(t.exception())}")
    wave.seconds = time.monotonic() - t0
    wave.rss_after_kb = _rss_kb(pid)
    for close in closers:
        try:
            await close()
        except Exception:  # noqa: BLE001
            pass
    # Closed websockets: the server drops the sessions after the disconnected-session TTL.
    await asyncio.sleep(SESSION_TTL_S + 5)
    wave.rss_closed_kb = _rss_kb(pid)


async def _run(mode: str, base: str, pid: int, waves: int, deadline_s: float, timeout_s: float,
               res: LoadResult) -> None:
    pages = frame.existing_pages()

    async def run_waves(make_session) -> None:
        for _ in range(waves):
            wave = Wave(res.sessions, res.interactions)
            res.waves.append(wave)
            await _wave(make_session, pages, wave, time.monotonic() + deadline_s, pid)
            res.rss_peak_kb = _rss_kb(pid, "VmHWM")

    if mode == "websocket":
        await run_waves(lambda info, k, wave, closers: _ws_session(base, info, k, wave, timeout_s, closers))
        return
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            await run_waves(lambda info, k, wave, closers: _browser_session(browser, base, info, k, wave,
                                                                            timeout_s, closers))
        finally:
            await browser.close()


def run_load(mode: str = "websocket", sessions: int = 30, interactions: int = 10, waves: int = 2,
             deadline_s: float = 300.0, timeout_s: float = 60.0) -> LoadResult:
    """Start a fresh server, run ``waves`` waves of ``sessions`` concurrent sessions, return the measurements."""
    if mode not in MODES:
        raise ValueError(f"load mode must be one of {MODES}, not {mode!r}")
    pages = frame.existing_pages()
    res = LoadResult(mode, sessions, interactions, [p.url_path or "home" for p in pages])
    # The server inherits these: a short TTL for closed sessions, and full error details (.streamlit/config.toml
    # hides them from students) so an exception in the report says what it was.
    env = {"STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(SESSION_TTL_S),
           "STREAMLIT_CLIENT_SHOW_ERROR_DETAILS": "full"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with streamlit_server() as base:
            pid = base.pid
            time.sleep(1.0)
            res.rss_before_kb = _rss_kb(pid)
            asyncio.run(_run(mode, base, pid, waves, deadline_s, timeout_s, res))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return res

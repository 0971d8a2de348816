"""Load scenarios (``SCENARIOS``, each put in words by ``Scenario.describe``): many Streamlit sessions over the
websocket (harness/wsclient.py) against one process, N processes behind HAProxy (deploy/serve.py), the hello-world
page (the floor) or a running deployment given by URL (loopback only). *lecture* presses random controls of each
session's page at a student's pace; *burst* presses the page's first slider (or the sidebar's Seed) with no pause,
in waves: memory after each wave's sessions closed shows whether the caches are bounded.

Latency: rerun request → ``script_finished``. CPU: the app processes' user + system time over a wave (/proc);
memory: their VmRSS, summed. Errors: a page not open or a press not finished in time (``OPEN_TIMEOUT_S``,
``STEP_TIMEOUT_S``), an exception on the page, a dropped connection.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import random
import socket
import statistics
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from unittest import mock

import frame
from bench import HELLO
from harness.browser import streamlit_server
from harness.wsclient import Session

SESSION_TTL_S = 5  # servers started here drop a closed session after this (Streamlit's default: 120 s)
STEP_TIMEOUT_S = 30.0
OPEN_TIMEOUT_S = 90.0
SERVER_ENV = {"STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(SESSION_TTL_S),
              "STREAMLIT_CLIENT_SHOW_ERROR_DETAILS": "full"}
FLOOR_TARGET = "the hello-world page, one process (the floor)"


@dataclass(frozen=True)
class Scenario:
    name: str
    sessions: int
    waves: int = 1
    interactions: int = 0  # burst: presses per session, no pause
    duration_s: float = 0.0  # paced: how long each session keeps pressing
    pause_s: tuple[float, float] = (0.0, 0.0)
    ramp_s: float = 0.0

    def describe(self) -> str:
        if self.duration_s:
            return (f"{self.sessions} sessions opened over {self.ramp_s:.0f} s, each pressing a random control "
                    f"every {self.pause_s[0]:g}–{self.pause_s[1]:g} s for {self.duration_s:.0f} s")
        return f"{self.waves} wave(s) of {self.sessions} sessions × {self.interactions} presses, no pause"


SCENARIOS = {"lecture": Scenario("lecture", 100, duration_s=60.0, pause_s=(1.5, 4.5), ramp_s=10.0),
             "burst": Scenario("burst", 30, waves=2, interactions=10)}


def scaled(s: Scenario, sessions: int | None = None, duration_s: float | None = None) -> Scenario:
    """The scenario with fewer sessions or a shorter stay (small runs that prove the machinery)."""
    paced = duration_s is not None and s.duration_s
    return replace(s, sessions=sessions or s.sessions, duration_s=duration_s if paced else s.duration_s,
                   ramp_s=min(s.ramp_s, duration_s) if paced else s.ramp_s)


def median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def pct(xs: list[float], q: float) -> float | None:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))] if xs else None


def first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:140] if text else ''}"


def check_loopback(url: str) -> None:
    """Refuse anything but a loopback address: the bench loads only this machine."""
    host = urllib.parse.urlsplit(url).hostname
    if not host:
        raise ValueError(f"not a URL: {url!r}")
    try:
        addrs = {ai[4][0] for ai in socket.getaddrinfo(host, None)}
    except OSError as err:
        raise ValueError(f"cannot resolve {host!r}: {err}") from None
    if not addrs or not all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addrs):
        raise ValueError(f"{url} is not a loopback address ({', '.join(sorted(addrs))}): the benchmark only "
                         "loads this machine; run it on the server itself")


def cpu_seconds(pids: list[int]) -> float | None:
    """The processes' CPU time so far (user + system, /proc/<pid>/stat), summed; None if unreadable."""
    if not pids:
        return None
    try:
        return sum(sum(int(x) for x in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13])
                   for pid in pids) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None


def rss_kb(pids: list[int]) -> int:
    """The processes' resident memory (VmRSS), summed; a process gone counts 0."""
    total = 0
    for pid in pids:
        with suppress(OSError):
            total += sum(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                         if line.startswith("VmRSS:"))
    return total


@contextmanager
def target(processes: int = 1, url: str | None = None, floor: bool = False) -> Iterator[tuple[str, list[int], str]]:
    """(base URL, app pids, description) of a running deployment at ``url`` (nothing started), a fresh
    ``streamlit run app.py`` (or the hello-world page with ``floor``), or ``processes`` behind HAProxy."""
    if url:
        check_loopback(url)
        yield url.rstrip("/"), [], f"the deployment at {url}"
        return
    with mock.patch.dict(os.environ, SERVER_ENV):
        if processes <= 1:
            with streamlit_server(script=str(HELLO) if floor else "app.py") as base:
                time.sleep(1.0)
                yield base, [base.pid], FLOOR_TARGET if floor else "one process"
            return
        from deploy.serve import deployment

        with deployment(workers=processes, env=SERVER_ENV, timeout=120) as d:
            time.sleep(1.0)
            yield d.url, list(d.pids), f"{processes} processes behind HAProxy"


async def _session(base: str, page: str, k: int, sc: Scenario, w: dict, t0: float, closers: list) -> None:
    rng = random.Random(k)
    await asyncio.sleep(max(0.0, t0 + rng.uniform(0, sc.ramp_s) - time.monotonic()))
    s = Session(base, page, STEP_TIMEOUT_S)
    closers.append(s.close)
    name = page or "home"
    try:
        w["open"].append(await s.open(timeout=OPEN_TIMEOUT_S))
        w["all_open"] = max(w["all_open"], time.monotonic())
    except Exception as err:  # noqa: BLE001 - every failure is an error to count
        w["errors"].append(f"{name}: opening the page: {first_line(err)}")
        return
    end = time.monotonic() + sc.duration_s
    for i in range(10 ** 6 if sc.duration_s else sc.interactions):
        if sc.duration_s:
            await asyncio.sleep(rng.uniform(*sc.pause_s))
            if time.monotonic() >= end:
                break
            # the widgets the page shows now (a section's run can add or remove some)
            shown = [c for c in s.page_controls() if c.kind != "text"] or [c for c in (s.seed,) if c]
            control, up = (rng.choice(shown), rng.random() < 0.5) if shown else (None, True)
        else:
            control, up = s.control(), i % 2 == 0
        if control is None:
            w["errors"].append(f"{name}: no control to move")
            return
        sent = time.monotonic()
        try:
            w["latencies"].append(await s.rerun((control, control.moved(up))))
            w["sent_at"].append(sent)
            w["last_done"] = max(w["last_done"], time.monotonic())
            w["first_press"] = min(w["first_press"], sent)
        except Exception as err:  # noqa: BLE001 - a timeout or a dropped connection ends the session
            w["errors"].append(f"{name} press {i + 1}: {first_line(err)}")
            return
    w["completed"] += 1


async def wave(base: str, pids: list[int], pages: list[str], sc: Scenario, deadline_s: float) -> dict:
    """One wave of the scenario's sessions; its measurements as plain data."""
    w = {"sessions": sc.sessions, "latencies": [], "sent_at": [], "open": [], "errors": [],
         "completed": 0, "all_open": 0.0, "first_press": float("inf"), "last_done": 0.0}
    closers: list = []
    t0, cpu0 = time.monotonic(), cpu_seconds(pids)
    tasks = [asyncio.create_task(_session(base, pages[k % len(pages)], k, sc, w, t0, closers))
             for k in range(sc.sessions)]
    _, pending = await asyncio.wait(tasks, timeout=deadline_s)
    for t in pending:
        t.cancel()
    if pending:
        w["errors"].append(f"{len(pending)} session(s) cut off by the wave's deadline")
    w["seconds"] = time.monotonic() - t0
    cpu1 = cpu_seconds(pids)
    w["cpu_s"] = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
    w["rss_after_kb"] = rss_kb(pids)
    for close in closers:
        with suppress(Exception):  # closing is best effort
            await asyncio.wait_for(close(), 10)
    if pids:
        await asyncio.sleep(SESSION_TTL_S + 5)  # the server drops closed sessions after the TTL
    w["rss_closed_kb"] = rss_kb(pids)
    active = w.pop("last_done") - w.pop("first_press")
    runs = len(w["latencies"]) + len(w["open"])
    all_open = w.pop("all_open")
    settled = [ms for ms, t in zip(w["latencies"], w.pop("sent_at")) if t >= all_open]
    w.update(p50=pct(w["latencies"], 0.5), p95=pct(w["latencies"], 0.95),
             settled_p95=pct(settled, 0.95), reruns_per_s=len(w["latencies"]) / active if active > 0 else None,
             cpu_ms_per_run=w["cpu_s"] * 1000 / runs if w["cpu_s"] is not None and runs else None,
             busy=w["cpu_s"] / w["seconds"] if w["cpu_s"] is not None else None)
    return w


async def waves(base: str, pids: list[int], sc: Scenario, deadline_s: float, floor: bool = False) -> list[dict]:
    pages = [""] if floor else [p.url_path for p in frame.existing_pages()]
    return [await wave(base, pids, pages, sc, deadline_s) for _ in range(sc.waves)]


def run_scenario(sc: Scenario, processes: int = 1, url: str | None = None, floor: bool = False) -> dict:
    """Scenario ``sc`` against a target (see target()); every number as plain data."""
    deadline_s = sc.ramp_s + sc.duration_s + 60.0 if sc.duration_s else 300.0
    with target(processes, url, floor) as (base, pids, what):
        before = rss_kb(pids)
        ws = asyncio.run(waves(base, pids, sc, deadline_s, floor))
    lat = [x for w in ws for x in w["latencies"]]
    return {"scenario": sc.name, "describe": sc.describe(), "target": what, "url": base, "floor": floor,
            "processes": 0 if url else max(1, processes), "errors": sum(len(w["errors"]) for w in ws),
            "p50": pct(lat, 0.5), "p95": pct(lat, 0.95), "rss_before_kb": before, "waves": ws}

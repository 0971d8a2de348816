"""The bounded load tests: many Streamlit sessions against one server process, or against any running deployment.

Scenarios (``SCENARIOS``):

- ``lecture`` — a lecture hall: 100 websocket sessions spread over all pages (round robin over
  frame.existing_pages()), opened over a 10 s ramp (students do not all click at the same millisecond); each
  then presses a control once every uniform(1.5, 4.5) s for 60 s. The control is drawn at random, per press,
  from the widgets found on that page at run time (sliders, number inputs, radios, select sliders, toggles …,
  main area), and moved one step up or down; on a page without controls, the sidebar's Seed.
- ``burst`` — 30 sessions, no pause: each makes 10 interactions (the page's first slider one step up, down, up …,
  or the sidebar's Seed), each as soon as the previous run finished; two waves, so memory after the first
  wave's sessions closed can be compared with after the second's (flat = bounded caches). The worst case.

Sessions: real Streamlit sessions over the websocket (bench/wsclient.py), the protocol the browser speaks,
without a browser. Latency = from sending the rerun request to the server's
  ``script_finished``: the server's own rerun latency under load. On the benchmark machine (2 cores) 30 Chromium
  pages rendering their charts take the cores from the server they are supposed to load.

Targets: a fresh ``streamlit run app.py`` on 127.0.0.1 (the default), a fresh deployment of N processes behind
HAProxy (deploy/serve.py; ``--compare`` runs one process, then two behind HAProxy, with the same load), or any
running deployment given by ``--url`` (nothing is started then; memory and CPU are not read). The lecture
also runs against the hello-world page (``bench/hello_app.py``, every session on it, same load and settings):
its floor, what Streamlit itself costs per press here. Only loopback addresses: the bench refuses to load
anything else.

CPU: the app processes' CPU time (user + system, /proc/<pid>/stat) over each wave; divided by the script runs
(presses and page openings) it gives the server's work per run, which with one interpreter lock per process is
what decides how many presses a second one process can serve.

Errors: a page that fails to open, an interaction whose run does not finish within the per-step timeout, an
exception on the page, a dropped connection. Everything is bounded: a fixed number of sessions, per-step
timeouts and a hard deadline per wave.

Memory: the app processes' resident memory (VmRSS from /proc/<pid>/status, summed over processes) before the
sessions, after they finished interacting (still connected) and after they closed. Servers started here get a
short disconnected-session TTL (Streamlit's default keeps a closed session's state 120 s) so closed sessions
are really gone when memory is read.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import random
import socket
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import frame
from bench import HELLO
from bench.browser import streamlit_server

SESSION_TTL_S = 5
MODES = ("websocket",)
STEP_TIMEOUT_S = 30.0  # a press: from the rerun request to script_finished
OPEN_TIMEOUT_S = 90.0  # opening a page: the connection, then its first run


@dataclass(frozen=True)
class Scenario:
    name: str
    sessions: int
    waves: int = 1
    interactions: int = 0  # burst: interactions per session, no pause
    duration_s: float = 0.0  # paced: how long each session keeps pressing
    pause_s: tuple[float, float] = (0.0, 0.0)  # paced: uniform pause between presses
    ramp_s: float = 0.0  # sessions open spread over this many seconds
    any_control: bool = False  # paced: a random control of the page per press (else the first slider / Seed)

    def describe(self) -> str:
        if self.duration_s:
            return (f"{self.sessions} sessions opened over {self.ramp_s:.0f} s, each pressing a random control of "
                    f"its page every uniform({self.pause_s[0]:g}, {self.pause_s[1]:g}) s for "
                    f"{self.duration_s:.0f} s")
        return (f"{self.waves} wave(s) of {self.sessions} sessions × {self.interactions} interactions, "
                "no pause")


SCENARIOS = {
    "lecture": Scenario("lecture", sessions=100, duration_s=60.0, pause_s=(1.5, 4.5), ramp_s=10.0,
                        any_control=True),
    "burst": Scenario("burst", sessions=30, waves=2, interactions=10),
}


def scaled(s: Scenario, sessions: int | None = None, duration_s: float | None = None,
           interactions: int | None = None, waves: int | None = None) -> Scenario:
    """The scenario with some numbers changed (small runs to prove the machinery works)."""
    from dataclasses import replace

    return replace(s, sessions=sessions or s.sessions,
                   duration_s=duration_s if duration_s is not None and s.duration_s else s.duration_s,
                   interactions=interactions or s.interactions, waves=waves or s.waves,
                   ramp_s=min(s.ramp_s, duration_s) if duration_s is not None else s.ramp_s)


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def _first_line(err: BaseException) -> str:
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


@dataclass
class Wave:
    sessions: int
    interactions: int
    latencies_ms: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)  # time.monotonic() each press was sent, as latencies_ms
    open_ms: list[float] = field(default_factory=list)
    all_open: float = 0.0  # time.monotonic() when the last session had opened its page
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    active_s: float = 0.0  # from the first press to the last run finished (reruns/s)
    rss_after_kb: int = 0
    rss_closed_kb: int = 0
    completed: int = 0
    fragment_runs: int = 0
    servers: dict[str, int] = field(default_factory=dict)  # X-Posenc-Server → sessions (through HAProxy)
    cpu_s: float | None = None  # the app processes' CPU time (user + system) over the wave (None: not read)
    first_press: float = float("inf")  # time.monotonic() of the first rerun request
    last_done: float = 0.0  # … and of the last run finished

    def pct(self, q: float) -> float:
        return _pct(self.latencies_ms, q)

    def settled(self) -> list[float]:
        """The presses sent once every session had opened its page (the hall after the ramp)."""
        return [ms for ms, t in zip(self.latencies_ms, self.sent_at) if t >= self.all_open]

    @property
    def reruns_per_s(self) -> float:
        return len(self.latencies_ms) / self.active_s if self.active_s > 0 else float("nan")


@dataclass
class LoadResult:
    mode: str
    sessions: int
    interactions: int
    pages: list[str]
    scenario: str = "burst"
    target: str = "one process"
    processes: int = 1
    url: str = ""
    describe: str = ""
    rss_before_kb: int = 0
    rss_peak_kb: int = 0
    waves: list[Wave] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    floor: bool = False  # the hello-world page under the same load, not the app

    @property
    def errors(self) -> int:
        return sum(len(w.errors) for w in self.waves)

    @property
    def latencies_ms(self) -> list[float]:
        return [x for w in self.waves for x in w.latencies_ms]


def cpu_seconds(pids: list[int]) -> float | None:
    """The app processes' CPU time so far (user + system, from /proc/<pid>/stat), summed; None if unreadable."""
    if not pids:
        return None
    total = 0.0
    try:
        for pid in pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None
    return total


def _rss_kb(pids: list[int] | int | None, field_: str = "VmRSS") -> int:
    if not pids:
        return 0
    total = 0
    for pid in [pids] if isinstance(pids, int) else pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith(field_ + ":"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


# ---------------------------------------------------------------- websocket sessions
async def _ws_session(base: str, info: frame.PageInfo, k: int, wave: Wave, timeout_s: float,
                      closers: list, sc: Scenario, start_at: float) -> None:
    from bench.wsclient import Session, SessionError

    name = info.url_path or "home"
    rng = random.Random(k)
    if sc.ramp_s:
        await asyncio.sleep(max(0.0, start_at + rng.uniform(0, sc.ramp_s) - time.monotonic()))
    s = Session(base, info.url_path, timeout_s)
    closers.append(s.close)
    try:
        try:
            # A whole class opening pages at once queues first runs: opening gets a longer bound than a press.
            wave.open_ms.append(await s.open(timeout=OPEN_TIMEOUT_S))
            wave.all_open = max(wave.all_open, time.monotonic())
        finally:
            if s.server_header:
                wave.servers[s.server_header] = wave.servers.get(s.server_header, 0) + 1
    except SessionError as err:
        wave.errors.append(f"{name} #{k}: opening the page: {err}")
    except Exception as err:  # noqa: BLE001 - every failure is an error to count
        wave.errors.append(f"{name} #{k}: page did not open within {OPEN_TIMEOUT_S:.0f} s: {_first_line(err)}")
        return
    if sc.any_control:
        controls = [c for c in s.page_controls() if c.kind != "text"] or [c for c in (s.seed,) if c]
    else:
        controls = [c for c in (s.control(),) if c]
    if not controls:
        wave.errors.append(f"{name} #{k}: no control to move")
        return

    async def press(i: int) -> bool:
        # the widgets the page shows now: a section's run can add or remove some (the lab's second Predict)
        shown = [c for c in s.page_controls() if c.kind != "text"] if sc.any_control else []
        control = rng.choice(shown or controls) if sc.any_control else controls[0]
        up = rng.random() < 0.5 if sc.any_control else i % 2 == 0
        try:
            sent = time.monotonic()
            wave.first_press = min(wave.first_press, sent)
            wave.latencies_ms.append(await s.rerun((control, control.moved(up))))
            wave.sent_at.append(sent)
            wave.last_done = max(wave.last_done, time.monotonic())
            wave.fragment_runs += s.last.fragment
        except SessionError as err:
            wave.errors.append(f"{name} #{k} interaction {i + 1}: {err}")
        except Exception as err:  # noqa: BLE001 - a timeout or a dropped connection ends the session
            wave.errors.append(f"{name} #{k} interaction {i + 1}: {_first_line(err)}")
            return False
        return True

    if sc.duration_s:
        end = time.monotonic() + sc.duration_s
        i = 0
        while True:
            await asyncio.sleep(rng.uniform(*sc.pause_s))
            if time.monotonic() >= end:
                break
            if not await press(i):
                return
            i += 1
    else:
        for i in range(sc.interactions):
            if not await press(i):
                return
    wave.completed += 1


# ---------------------------------------------------------------- waves
async def _wave(make_session, pages: list[frame.PageInfo], wave: Wave, deadline: float, pids: list[int],
                ttl_wait: float) -> None:
    closers: list = []
    t0 = time.monotonic()
    cpu0 = cpu_seconds(pids)
    tasks = [asyncio.create_task(make_session(pages[k % len(pages)], k, wave, closers, t0))
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
    cpu1 = cpu_seconds(pids)
    wave.cpu_s = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
    wave.rss_after_kb = _rss_kb(pids)
    for close in closers:
        try:
            await asyncio.wait_for(close(), 10)
        except Exception:  # noqa: BLE001
            pass
    if pids:
        # Closed websockets: the server drops the sessions after the disconnected-session TTL.
        await asyncio.sleep(ttl_wait)
        wave.rss_closed_kb = _rss_kb(pids)


async def _run(mode: str, base: str, pids: list[int], sc: Scenario, deadline_s: float, timeout_s: float,
               res: LoadResult, pages: list[frame.PageInfo]) -> None:
    ttl_wait = SESSION_TTL_S + 5

    async def run_waves(make_session) -> None:
        for _ in range(sc.waves):
            wave = Wave(sc.sessions, sc.interactions)
            res.waves.append(wave)
            await _wave(make_session, pages, wave, time.monotonic() + deadline_s, pids, ttl_wait)
            wave.active_s = max(0.0, wave.last_done - wave.first_press) if wave.last_done else wave.seconds
            res.rss_peak_kb = _rss_kb(pids, "VmHWM")

    await run_waves(lambda info, k, wave, closers, t0: _ws_session(base, info, k, wave, timeout_s, closers, sc, t0))


SERVER_ENV = {"STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(SESSION_TTL_S),
              "STREAMLIT_CLIENT_SHOW_ERROR_DETAILS": "full"}


@contextmanager
def _env(env: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


FLOOR_TARGET = "the hello-world page, one process (the floor)"


@contextmanager
def target(processes: int = 1, url: str | None = None, floor: bool = False) -> Iterator[tuple[str, list[int], str]]:
    """(base URL, app pids, description): a running deployment at ``url`` (nothing started, no pids), a fresh
    ``streamlit run app.py`` (processes=1), ``processes`` app processes behind HAProxy (deploy/serve.py), or
    (``floor``) a fresh ``streamlit run bench/hello_app.py``, same settings: Streamlit's own cost of a press.
    Servers started here inherit a short disconnected-session TTL and full error details."""
    if url:
        check_loopback(url)
        yield url.rstrip("/"), [], f"the deployment at {url}"
        return
    with _env(SERVER_ENV):
        if floor:
            with streamlit_server(script=str(HELLO)) as base:
                time.sleep(1.0)
                yield base, [base.pid], FLOOR_TARGET
            return
        if processes <= 1:
            with streamlit_server() as base:
                time.sleep(1.0)
                yield base, [base.pid], "one process"
            return
        from deploy.serve import deployment

        with deployment(workers=processes, env=SERVER_ENV, timeout=120) as d:
            time.sleep(1.0)
            yield d.url, list(d.pids), f"{processes} processes behind HAProxy"


def run_scenario(sc: Scenario, mode: str = "websocket", processes: int = 1, url: str | None = None,
                 deadline_s: float | None = None, timeout_s: float = STEP_TIMEOUT_S,
                 floor: bool = False) -> LoadResult:
    """Run scenario ``sc`` against a target (see target(); ``floor``: the hello-world page, every session on it);
    return the measurements."""
    if mode not in MODES:
        raise ValueError(f"load mode must be one of {MODES}, not {mode!r}")
    pages = [frame.PageInfo("", "bench/hello_app.py", "Hello, world", "", "", "")] if floor else frame.existing_pages()
    res = LoadResult(mode, sc.sessions, sc.interactions, [p.url_path or "home" for p in pages], scenario=sc.name,
                     describe=sc.describe())
    if deadline_s is None:
        deadline_s = (sc.ramp_s + sc.duration_s + 60.0) if sc.duration_s else 300.0
    with target(processes, url, floor) as (base, pids, what):
        res.target, res.processes, res.url = what, (0 if url else max(1, processes)), base
        res.floor = floor
        res.rss_before_kb = _rss_kb(pids)
        asyncio.run(_run(mode, base, pids, sc, deadline_s, timeout_s, res, pages))
    if url:
        res.notes.append("a deployment not started by the benchmark: its memory is not read")
    return res


def _cpu_per_run(w: Wave) -> float | None:
    """Server CPU per script run over the wave (ms): the presses and the page openings, each one run."""
    runs = len(w.latencies_ms) + len(w.open_ms)
    return w.cpu_s * 1000 / runs if w.cpu_s is not None and runs else None


def as_dict(r: LoadResult, deadline: float | None = None) -> dict:
    """A LoadResult as plain data for the report and the JSON."""
    lat = r.latencies_ms
    opened = [x for w in r.waves for x in w.open_ms]
    active = sum(w.active_s for w in r.waves)
    return {
        "scenario": r.scenario, "describe": r.describe, "target": r.target, "processes": r.processes,
        "floor": r.floor,
        "url": r.url, "mode": r.mode, "sessions": r.sessions, "interactions": r.interactions, "pages": r.pages,
        "errors": r.errors, "p50": _pct(lat, 0.5), "p95": _pct(lat, 0.95), "max": max(lat) if lat else None,
        "reruns": len(lat), "reruns_per_s": len(lat) / active if active > 0 else None,
        "fragment_runs": sum(w.fragment_runs for w in r.waves),
        "open_p50": _pct(opened, 0.5), "open_p95": _pct(opened, 0.95),
        "rss_before_kb": r.rss_before_kb, "rss_peak_kb": r.rss_peak_kb, "session_ttl": SESSION_TTL_S,
        "deadline": deadline, "notes": r.notes,
        "waves": [{"sessions": w.sessions, "interactions": w.interactions, "latencies": w.latencies_ms,
                   "open": w.open_ms, "errors": w.errors, "p50": w.pct(0.5), "p95": w.pct(0.95),
                   "settled": len(w.settled()), "settled_p95": _pct(w.settled(), 0.95) if w.sent_at else None,
                   "max": max(w.latencies_ms) if w.latencies_ms else float("nan"), "seconds": w.seconds,
                   "reruns_per_s": w.reruns_per_s, "rss_after_kb": w.rss_after_kb,
                   "rss_closed_kb": w.rss_closed_kb, "completed": w.completed, "servers": w.servers,
                   "fragment_runs": w.fragment_runs, "cpu_s": w.cpu_s,
                   "cpu_ms_per_run": _cpu_per_run(w)}
                  for w in r.waves],
    }

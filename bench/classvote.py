"""The class scenario: a hall votes on one Predict while the teacher watches the counts (`python -m bench --class`).

    python -m bench --class                                  # 300 students, 2 processes behind HAProxy
    python -m bench --class --sessions 60 --stay 20          # a smaller hall (a shared machine)
    python -m bench --class --fault                          # … and kill one app process mid-vote

What it does (bench/wsclient.py's real Streamlit sessions over the websocket, bench/load.py's targets and CPU
reading): a fresh class in a fresh SQLite store shared by ``--processes`` app processes behind HAProxy
(deploy/serve.py); one teacher session on the page with the teacher link, then ``--sessions`` student sessions
opened over ``--ramp`` seconds with the student link. Once every student has the page, each picks an option of
the page's first Predict at a uniform moment within ``--window`` seconds (that run is its vote: latency from the
request to the server's script_finished), then stays ``--stay`` seconds. While they stay, each client does what
the browser does with ``st.fragment(run_every=…)``: it reruns the fragment the server asked to auto-rerun
(ForwardMsg.auto_rerun) at its interval — the students' 5 s status poll while the round is open, the teacher's
1.5 s counts.

Measured: votes acknowledged (the run finished without an exception) against votes in the store; when the
teacher's polled chart first showed every acknowledged vote, after the last one; vote latency p50/p95; the app
processes' CPU over the voting and staying (cores, averaged); poll runs and their p95. Budgets (issue 20): every
vote counted, teacher complete ≤ 2 s after the last vote, vote p95 ≤ 500 ms, CPU ≤ 1 core on average.

``--fault``: when half the students have voted, one app process is killed (SIGKILL). Its students' websockets
drop; each reconnects through HAProxy (a new session: a new anonymous id, as a browser's reconnect is) and votes
again. Checked: every vote acknowledged before the kill is in the store, and every dropped student voted again.
Everything is bounded (per-step timeouts, a deadline); only loopback addresses are loaded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

import bench  # noqa: F401  (sys.path: the repo and tests/)
from bench.load import OPEN_TIMEOUT_S, STEP_TIMEOUT_S, _env, _first_line, _pct, cpu_seconds, target
from bench.wsclient import Session
from posenc import class_store

BUDGET_VOTE_P95_MS = 500.0
BUDGET_TEACHER_S = 2.0
BUDGET_CPU_CORES = 1.0
COUNT = re.compile(r"round 1: (\d+) answered")


class _Tap:
    """The websocket, read through: notes which fragments the server asked to auto-rerun, and the teacher's
    count (from the class chart's description) in every message that goes by."""

    def __init__(self, ws: Any, client: ClassSession) -> None:
        self.ws, self.client = ws, client

    async def send(self, data: bytes) -> None:
        await self.ws.send(data)

    async def close(self) -> None:
        await self.ws.close()

    async def recv(self) -> bytes:
        raw = await self.ws.recv()
        fm = ForwardMsg()
        fm.ParseFromString(raw)
        kind = fm.WhichOneof("type")
        if kind == "auto_rerun":
            self.client.autoruns[fm.auto_rerun.fragment_id] = fm.auto_rerun.interval
        elif kind == "stop_auto_rerun":
            for f in fm.stop_auto_rerun.fragment_ids:
                self.client.autoruns.pop(f, None)
        elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
            el = fm.delta.new_element
            if el.WhichOneof("type") == "vega_lite_chart" and "Class votes" in el.vega_lite_chart.spec:
                m = COUNT.search(el.vega_lite_chart.spec)
                if m:
                    self.client.count = int(m[1])
                    self.client.seen.append((time.monotonic(), int(m[1])))
        return raw


class ClassSession(Session):
    """A wsclient Session that follows the server's auto-reruns (st.fragment(run_every=…)) as a browser does."""

    def __init__(self, *args: Any, query: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.query = query
        self.autoruns: dict[str, float] = {}
        self.count = -1
        self.seen: list[tuple[float, int]] = []  # (when, count) each time the class chart came by

    async def open(self, timeout: float | None = None) -> float:
        import websockets

        timeout = timeout or self.timeout
        kwargs: dict[str, Any] = {"subprotocols": ["streamlit"], "max_size": None, "open_timeout": timeout}
        self.ws = _Tap(await asyncio.wait_for(websockets.connect(self.url, **kwargs), timeout), self)
        step, self.timeout = self.timeout, timeout
        try:
            return await self.rerun()
        finally:
            self.timeout = step

    def predict(self):
        """The page's first Predict radio."""
        return next((c for c in self.page_controls() if c.kind == "radio" and "Predict" in c.label), None)

    async def poll(self, fragment_id: str) -> float:
        """The browser's auto-rerun of one fragment; ms to its end."""
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.page_hash
        cs.fragment_id = fragment_id
        cs.is_auto_rerun = True
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        await asyncio.wait_for(self._until_finished(full=False, fragment=fragment_id), self.timeout)
        return (time.perf_counter() - t0) * 1000


@dataclass
class Result:
    sessions: int
    processes: int
    window_s: float
    stay_s: float
    fault: bool
    target: str = ""
    opened: int = 0
    acked: int = 0
    acked_before_kill: int = 0
    stored: int = 0
    vote_ms: list[float] = field(default_factory=list)
    poll_ms: list[float] = field(default_factory=list)
    teacher_polls: int = 0
    teacher_complete_s: float | None = None  # after the last acknowledged vote
    cpu_cores: float | None = None
    seconds: float = 0.0
    dropped: int = 0  # students whose connection the kill dropped
    revoted: int = 0  # … who reconnected and voted again
    errors: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k not in ("vote_ms", "poll_ms", "errors")}
        d.update(vote_p50_ms=_pct(self.vote_ms, 0.5), vote_p95_ms=_pct(self.vote_ms, 0.95),
                 poll_p95_ms=_pct(self.poll_ms, 0.95), polls=len(self.poll_ms), errors=len(self.errors),
                 first_errors=self.errors[:5])
        d["every_vote_counted"] = self.stored >= self.acked if self.fault else self.stored == self.acked
        d["budgets"] = {
            "every vote counted": d["every_vote_counted"] and (self.fault or self.acked == self.sessions),
            f"teacher complete ≤ {BUDGET_TEACHER_S:g} s": (self.teacher_complete_s is not None
                                                          and self.teacher_complete_s <= BUDGET_TEACHER_S),
            f"vote p95 ≤ {BUDGET_VOTE_P95_MS:g} ms": d["vote_p95_ms"] <= BUDGET_VOTE_P95_MS,
        }
        if not self.fault:  # (a killed process's CPU cannot be read)
            d["budgets"][f"CPU ≤ {BUDGET_CPU_CORES:g} core"] = (self.cpu_cores is not None
                                                                and self.cpu_cores <= BUDGET_CPU_CORES)
        if self.fault:
            d["budgets"]["no acknowledged vote lost"] = self.stored >= self.acked
            d["budgets"]["every dropped student voted again"] = self.revoted == self.dropped
        return d


async def _follow(s: ClassSession, until: float, res: Result, teacher: bool = False) -> None:
    """Stay on the page until ``until``, rerunning each auto-rerun fragment at its interval."""
    due: dict[str, float] = {}
    while True:
        now = time.monotonic()
        if now >= until:
            return
        for f, every in list(s.autoruns.items()):
            due.setdefault(f, now + every)
        for f in [f for f in due if f not in s.autoruns]:
            del due[f]
        nxt = min(due.values(), default=until)
        await asyncio.sleep(max(0.0, min(nxt, until) - time.monotonic()))
        for f in [f for f, t in due.items() if t <= time.monotonic()]:
            ms = await s.poll(f)
            if teacher:
                res.teacher_polls += 1
            else:
                res.poll_ms.append(ms)
            if f in s.autoruns:
                due[f] = time.monotonic() + s.autoruns[f]


async def _student(base: str, page: str, code: str, k: int, res: Result, t_open: float, ramp: float,
                   vote_at: dict, stay_until: list, state: dict) -> None:
    rng = random.Random(k)
    await asyncio.sleep(max(0.0, t_open + rng.uniform(0, ramp) - time.monotonic()))
    s = ClassSession(base, page, STEP_TIMEOUT_S, query=f"class={code}")
    try:
        await s.open(timeout=OPEN_TIMEOUT_S)
        res.opened += 1
    except Exception as err:  # noqa: BLE001
        res.errors.append(f"student {k}: page did not open: {_first_line(err)}")
        return
    state["open"] += 1
    await state["all_open"].wait()
    radio = s.predict()
    if radio is None:
        res.errors.append(f"student {k}: no Predict on /{page}")
        return
    await asyncio.sleep(max(0.0, vote_at["t0"] + rng.uniform(0, vote_at["window"]) - time.monotonic()))
    attempt = 0
    while True:
        try:
            choice = radio.options[rng.randrange(len(radio.options))]
            sent = time.monotonic()
            res.vote_ms.append(await s.rerun((radio, choice)))
            res.acked += 1
            if not state["killed"]:
                res.acked_before_kill += 1
            state["last_vote"] = max(state["last_vote"], time.monotonic())
            state["voted"] += 1
            if attempt:
                res.revoted += 1
            await _follow(s, stay_until[0], res)
            break
        except Exception as err:  # noqa: BLE001 - a dropped connection: reconnect through HAProxy, vote again
            if not state["killed"] or attempt:
                res.errors.append(f"student {k}: {_first_line(err)} (sent {time.monotonic() - sent:.1f} s ago)")
                return
            attempt += 1
            res.dropped += 1
            s = await _reconnect(base, page, code, k, res)
            if s is None:
                return
            radio = s.predict()
            if radio is None:
                res.errors.append(f"student {k}: no Predict after reconnecting")
                return
    await s.close()


async def _reconnect(base: str, page: str, code: str, k: int, res: Result) -> ClassSession | None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        s = ClassSession(base, page, STEP_TIMEOUT_S, query=f"class={code}")
        try:
            await s.open(timeout=OPEN_TIMEOUT_S)
            return s
        except Exception:  # noqa: BLE001 - HAProxy has not yet seen the process die: try again
            await asyncio.sleep(1.0)
    res.errors.append(f"student {k}: could not reconnect within 60 s")
    return None


async def _teacher(box: list[ClassSession], until: float, res: Result, base: str, page: str, code: str,
                   token: str) -> None:
    """The teacher's page, following its 1.5 s counts; if its process dies, it reconnects (as the browser does)."""
    while time.monotonic() < until:
        try:
            await _follow(box[0], until, res, teacher=True)
            return
        except Exception as err:  # noqa: BLE001
            seen = box[0].seen
            if not res.fault:
                res.errors.append(f"teacher: {_first_line(err)}; reconnecting")
            s = await _reconnect(base, page, f"{code}&teach={token}", -1, res)
            if s is None:
                return
            s.seen[:0] = seen
            box[0] = s


async def _run(base: str, pids: list[int], page: str, code: str, token: str, args: argparse.Namespace,
               res: Result) -> None:
    teacher = ClassSession(base, page, STEP_TIMEOUT_S, query=f"class={code}&teach={token}")
    await teacher.open(timeout=OPEN_TIMEOUT_S)
    if teacher.count < 0:
        res.errors.append("the teacher's page shows no class chart (is the teacher link valid?)")
    state = {"open": 0, "all_open": asyncio.Event(), "voted": 0, "killed": False, "last_vote": 0.0}
    vote_at = {"t0": 0.0, "window": args.window}
    stay_until = [float("inf")]
    t_open = time.monotonic()
    tasks = [asyncio.create_task(_student(base, page, code, k, res, t_open, args.ramp, vote_at, stay_until, state))
             for k in range(args.sessions)]
    deadline = t_open + args.ramp + OPEN_TIMEOUT_S
    while state["open"] + len(res.errors) < args.sessions and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    cpu0, t_cpu0 = cpu_seconds(pids), time.monotonic()
    vote_at["t0"] = time.monotonic()
    stay_until[0] = vote_at["t0"] + args.window + args.stay
    state["all_open"].set()
    box = [teacher]
    teacher_task = asyncio.create_task(_teacher(box, stay_until[0], res, base, page, code, token))
    if args.fault:
        while state["voted"] < args.sessions // 2 and time.monotonic() < vote_at["t0"] + args.window + 30:
            await asyncio.sleep(0.05)
        victim = pids[-1]
        os.kill(victim, signal.SIGKILL)
        state["killed"] = True
        print(f"killed app process {victim} after {state['voted']} votes", file=sys.stderr, flush=True)
    hard = stay_until[0] + STEP_TIMEOUT_S + 90
    done, pending = await asyncio.wait(tasks + [teacher_task], timeout=max(1.0, hard - time.monotonic()))
    for t in pending:
        t.cancel()
        res.errors.append("a session did not finish before the deadline")
    live = [p for p in pids if Path(f"/proc/{p}").exists()]
    cpu1 = cpu_seconds(live if args.fault else pids)
    if cpu0 is not None and cpu1 is not None and not args.fault:
        res.cpu_cores = (cpu1 - cpu0) / (time.monotonic() - t_cpu0)
    elif args.fault:
        res.cpu_cores = None  # the killed process's CPU can no longer be read
    teacher = box[0]
    # when did the teacher's chart first show every acknowledged vote, after the last one?
    complete = next((t for t, n in teacher.seen if n >= res.acked and t >= state["last_vote"]), None)
    if complete is None:  # counted before the last acknowledgement arrived (the poll raced the reply)
        complete = next((t for t, n in teacher.seen if n >= res.acked), None)
    if complete is not None and state["last_vote"]:
        res.teacher_complete_s = max(0.0, complete - state["last_vote"])
    await teacher.close()


def run(args: argparse.Namespace) -> Result:
    res = Result(args.sessions, args.processes, args.window, args.stay, args.fault)
    tmp = Path(tempfile.mkdtemp(prefix="posenc-classvote-"))
    db = tmp / "class.sqlite3"
    store = class_store.sqlite_store(db)
    code, token = store.create_class()
    t0 = time.monotonic()
    with _env({class_store.DB_ENV: str(db), class_store.URL_ENV: ""}):
        with target(processes=args.processes) as (base, pids, what):
            res.target = what
            asyncio.run(_run(base, pids, args.page, code, token, args, res))
    res.seconds = time.monotonic() - t0
    res.stored = sum(r["votes"] for r in store.summary(code))
    store.close()
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench --class", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=300, help="student sessions (default 300)")
    ap.add_argument("--processes", type=int, default=2, help="app processes behind HAProxy (default 2)")
    ap.add_argument("--page", default="rope", help="the page whose first Predict the hall votes on (url path)")
    ap.add_argument("--ramp", type=float, default=30.0, help="students open the page over this many seconds")
    ap.add_argument("--window", type=float, default=10.0, help="each votes once within this many seconds")
    ap.add_argument("--stay", type=float, default=60.0, help="then stays on the page this many seconds")
    ap.add_argument("--fault", action="store_true", help="kill one app process when half have voted")
    ap.add_argument("--json", type=Path, help="write the result here as JSON")
    args = ap.parse_args(argv)
    os.environ.setdefault("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS", "full")
    res = run(args)
    out = res.summary()
    text = json.dumps(out, indent=1, ensure_ascii=False, default=str)
    print(text)
    if args.json:
        args.json.write_text(text)
    return 0 if all(out["budgets"].values()) else 1

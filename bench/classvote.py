"""The class scenario: a hall votes on one Predict while the teacher watches the counts.

A fresh class in a fresh SQLite store (posenc/class_store.py) shared by two app processes behind HAProxy
(deploy/serve.py). One teacher session opens the page with the teacher link, then the students
(harness/wsclient.py sessions, the student link) over ``ramp`` s. Once all have the page, each picks an option of
the page's first Predict at a uniform moment within ``window`` s (that run is its vote: request → the server's
``script_finished``), then stays ``stay`` s, rerunning each fragment the server asked to auto-rerun at its
interval, as the browser does (a student's status poll while the round is open, the teacher's counts).

The class runs alone first: its vote p95, the app processes' CPU, the teacher's count and the store are the
class's own. With a lecture hall (bench/load.py), that hall then presses controls alone on the same deployment,
then beside a second class (a new code, the same students' numbers): the hall's p95 with the class against
without it, and the class's vote p95 beside the hall (reported, not the class's budget).

Checked: votes acknowledged against votes in the store (``Store.summary``); when the teacher's chart first
showed every acknowledged vote, after the last one; vote p95; the app processes' CPU (cores, averaged over voting
and staying). ``fault``: when half have voted one app process is killed (SIGKILL); its students reconnect through
HAProxy and vote again; no vote acknowledged before the kill may be missing from the store. Each student carries
its anonymous id in the session cookie a browser keeps (frame.classroom.COOKIE), so a reconnect is the same
student: the store must hold exactly one vote per student, fault or not.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import tempfile
import time
from pathlib import Path
from unittest import mock

from bench import load
from frame.classroom import COOKIE
from harness.wsclient import Session
from posenc import class_store

COUNT = re.compile(r"round 1: (\d+) answered")  # in the vote chart's reading (frame.live.reading_html)


def _predict(s: Session):
    return next((c for c in s.page_controls() if c.kind == "radio" and "Predict" in c.label), None)


async def _open(base: str, page: str, query: str, tries: int = 1, on_element=None, student: str = "") -> Session:
    headers = {"Cookie": f"{COOKIE}={student}"} if student else None
    for i in range(tries):
        s = Session(base, page, load.STEP_TIMEOUT_S, query=query, headers=headers)
        s.on_element = on_element
        try:
            await s.open(timeout=load.OPEN_TIMEOUT_S)
            return s
        except Exception:  # noqa: BLE001 - HAProxy may not yet have seen a killed process die
            await s.close()
            if i == tries - 1:
                raise
            await asyncio.sleep(1.0)
    raise AssertionError("unreachable")


async def _stay(s: Session, until: float, polls: list[float]) -> None:
    """Stay on the page until ``until``, rerunning each auto-rerun fragment at its interval (ms of each: ``polls``)."""
    due: dict[str, float] = {}
    while (now := time.monotonic()) < until:
        due = {f: due.get(f, now + every) for f, every in s.autoruns.items()}
        await asyncio.sleep(max(0.0, min([*due.values(), until]) - now))
        for f in [f for f, t in due.items() if t <= time.monotonic() and time.monotonic() < until]:
            polls.append(await s.rerun(fragment=f, auto=True))
            due.pop(f)


async def _student(k: int, base: str, page: str, code: str, st: dict, r: dict) -> None:
    rng = random.Random(k)
    student = class_store.new_student_id()  # the id the browser's session cookie keeps after its first visit
    await asyncio.sleep(rng.uniform(0, st["ramp"]))
    try:
        s = await _open(base, page, f"class={code}", student=student)
    except Exception as err:  # noqa: BLE001
        r["errors"].append(f"student {k}: page did not open: {load.first_line(err)}")
        return
    st["open"] += 1
    await st["go"].wait()
    await asyncio.sleep(max(0.0, st["t0"] + rng.uniform(0, st["window"]) - time.monotonic()))
    for attempt in (0, 1):
        radio = _predict(s)
        if radio is None:
            r["errors"].append(f"student {k}: no Predict on /{page}")
            break
        try:
            r["vote_ms"].append(await s.rerun((radio, rng.choice(radio.options))))
            r["acked"] += 1
            r["voters"].add(k)
            r["acked_before_kill"] += not st["killed"]
            r["revoted"] += attempt
            st["last_vote"] = max(st["last_vote"], time.monotonic())
            await _stay(s, st["until"], r["poll_ms"])
            break
        except Exception as err:  # noqa: BLE001 - a dropped connection: reconnect through HAProxy, vote again
            if not st["killed"] or attempt:
                r["errors"].append(f"student {k}: {load.first_line(err)}")
                break
            r["dropped"] += 1
            try:
                s = await _open(base, page, f"class={code}", tries=60, student=student)
            except Exception as err2:  # noqa: BLE001
                r["errors"].append(f"student {k}: could not reconnect: {load.first_line(err2)}")
                break
    await s.close()


async def _teacher(base: str, page: str, query: str, st: dict, r: dict) -> None:
    """The teacher's page, following its counts; it reconnects if its process dies (as the browser does)."""
    seen = r["teacher_seen"]

    def count(el) -> None:  # the vote chart's reading (the html element after it) states the counts
        body = el.html.body if el.WhichOneof("type") == "html" else ""
        if "pe-reading" in body and "Votes so far" in body and (m := COUNT.search(body)):
            seen.append((time.monotonic(), int(m[1])))

    while time.monotonic() < st["until"]:
        s = await _open(base, page, query, tries=60, on_element=count)
        if not st["go"].is_set():
            r["teacher_chart"] = bool(seen)
            st["teacher_ready"].set()
            await st["go"].wait()
        try:
            await _stay(s, st["until"], [])
        except Exception:  # noqa: BLE001 - its process was killed: reconnect
            continue
        finally:
            await s.close()


async def _run(base: str, pids: list[int], code: str, token: str, sessions: int, page: str, ramp: float,
               window: float, stay: float, fault: bool, lecture: load.Scenario | None) -> dict:
    r = {"errors": [], "vote_ms": [], "poll_ms": [], "teacher_seen": [], "acked": 0, "voters": set(), "acked_before_kill": 0,
         "dropped": 0, "revoted": 0, "teacher_chart": False, "killed_pid": None}
    st = {"ramp": ramp, "window": window, "open": 0, "go": asyncio.Event(), "teacher_ready": asyncio.Event(),
          "killed": False, "last_vote": 0.0, "t0": 0.0, "until": float("inf")}
    teacher = asyncio.create_task(_teacher(base, page, f"class={code}&teach={token}", st, r))
    await asyncio.wait_for(st["teacher_ready"].wait(), load.OPEN_TIMEOUT_S)
    students = [asyncio.create_task(_student(k, base, page, code, st, r)) for k in range(sessions)]
    deadline = time.monotonic() + ramp + load.OPEN_TIMEOUT_S
    while st["open"] + len(r["errors"]) < sessions and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    st["t0"] = t_cpu = time.monotonic()
    st["until"] = st["t0"] + window + stay
    cpu0 = load.cpu_seconds(pids)
    st["go"].set()
    hall = asyncio.create_task(load.wave(base, pids, [p.url_path for p in load.frame.existing_pages()], lecture,
                                         window + stay + 60)) if lecture else None
    if fault:
        while r["acked"] < sessions // 2 and time.monotonic() < st["t0"] + window + 30:
            await asyncio.sleep(0.05)
        cpu0 = load.cpu_seconds(pids[:-1])  # the processes that live on
        r["killed_pid"] = pids[-1]
        os.kill(pids[-1], signal.SIGKILL)
        st["killed"] = True
    _, pending = await asyncio.wait(students + [teacher], timeout=window + stay + load.STEP_TIMEOUT_S + 120)
    for t in pending:
        t.cancel()
        r["errors"].append("a session did not finish before the deadline")
    cpu1 = load.cpu_seconds(pids[:-1] if fault else pids)
    r["cpu_cores"] = (cpu1 - cpu0) / (time.monotonic() - t_cpu) if cpu1 is not None and cpu0 is not None else None
    r["lecture"] = await hall if hall else None
    # when did the teacher's chart first show every student whose vote was acknowledged, after the last vote? (a
    # student dropped by the fault run votes twice, both acknowledged: the store and the chart hold one vote each)
    voters = len(r.pop("voters"))
    after = [t for t, n in r["teacher_seen"] if n >= voters]
    r["teacher_complete_s"] = max(0.0, min(after) - st["last_vote"]) if after and st["last_vote"] else None
    return r


def _class(base: str, pids: list[int], store: class_store.Store, sessions: int, page: str, ramp: float,
           window: float, stay: float, fault: bool, lecture: load.Scenario | None) -> dict:
    """One class (a fresh code in the store) on the running deployment; its measurements as plain data."""
    code, token = store.create_class()
    r = asyncio.run(_run(base, pids, code, token, sessions, page, ramp, window, stay, fault, lecture))
    r["stored"] = sum(row["votes"] for row in store.summary(code))
    votes, seen = r.pop("vote_ms"), r.pop("teacher_seen")
    r.update(vote_p50_ms=load.pct(votes, 0.5), vote_p95_ms=load.pct(votes, 0.95), votes=len(votes),
             teacher_polls=len(seen), poll_p95_ms=load.pct(r.pop("poll_ms"), 0.95), errors=len(r["errors"]),
             first_errors=r.pop("errors")[:8])
    # Every student's vote is in the store once: a dropped student reconnects with its cookie's id, so its second
    # vote replaces its first (acknowledged before the kill or not).
    r["every_vote_counted"] = r["stored"] == sessions and r["acked"] >= sessions
    return r


def run(sessions: int = 300, processes: int = 2, page: str = "rope", ramp: float = 30.0, window: float = 10.0,
        stay: float = 60.0, fault: bool = False, lecture: load.Scenario | None = None) -> dict:
    """The class scenario on a fresh deployment: the class alone (its votes, teacher, CPU: the top-level keys);
    with ``lecture``, then on the same deployment that hall alone (``lecture_alone``) and a second class beside it
    (``lecture``: the hall's measurements while the class runs; ``beside``: that class's own). ``fault`` kills a
    process in the class alone, so it takes no hall."""
    if fault and lecture:
        raise ValueError("the fault run is the class alone: a killed process leaves no deployment for a hall")
    db = Path(tempfile.mkdtemp(prefix="posenc-classvote-")) / "class.sqlite3"
    store = class_store.sqlite_store(db)
    t0 = time.monotonic()
    alone = beside = None
    with mock.patch.dict(os.environ, {class_store.DB_ENV: str(db), class_store.URL_ENV: ""}), \
            load.target(processes=processes) as (base, pids, what):
        r = _class(base, pids, store, sessions, page, ramp, window, stay, fault, None)
        if lecture:
            alone = asyncio.run(load.waves(base, pids, lecture, lecture.ramp_s + lecture.duration_s + 60))[0]
            beside = _class(base, pids, store, sessions, page, ramp, window, stay, False, lecture)
    store.close()
    r.update(sessions=sessions, processes=processes, target=what, page=page, window_s=window, stay_s=stay,
             fault=fault, seconds=time.monotonic() - t0, lecture_alone=alone,
             lecture=beside.pop("lecture") if beside else None, beside=beside)
    return r

"""The benchmark cannot rot: the budget table, the renderer (from a small saved run), `python -m bench --quick`
end to end on one page, and the load test's machinery against a server given by URL.

No wall-clock time is asserted here (BENCHMARKS.md holds the numbers and their budgets).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from bench.caches import find_caches

ROOT = Path(__file__).resolve().parent.parent


def _numeric(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0


def _row(label, widget, where, kind, server=(), got=(), browser=(), notes=()):
    from bench.controls import ControlRow

    return ControlRow("p", label, widget, where, kind, server_ms=list(server), bytes=list(got),
                      browser_ms=list(browser), notes=list(notes)).as_dict()


def _saved_run() -> dict:
    """A small saved run, as bench/run.py writes it: one page, the hello-world page, a cold start."""
    timing = {"warm": 40.0, "cold": 150.0, "warm_ms": [40.0], "cold_ms": [150.0], "bytes": 2048, "charts": 1,
              "errors": [], "not_applied": [], "settings": {"p_len": "99"}}
    controls = [
        _row("Rerun, nothing changed (R key)", "key r", "page", "floor", browser=[120.0]),
        _row("**Predict.** Which way?", "radio", "main", "fragment", [50.0], [3000], [90.0]),
        _row("Length", "slider", "main", "fragment", [60.0], [9000], [150.0]),  # ×3 hello: a miss
        _row("Presentation mode", "toggle", "sidebar", "page", [50.0], [9000], [250.0]),  # ≤ 300 ms: holds
        {**_row("position", "vega range", "chart", "in-chart", browser=[10.0, 12.0, 50.0, 11.0]), "param": "p_pos"},
        _row("Play p_pos", "play", "chart", "play", browser=[40.0, 41.0, 45.0]),  # 41 ms a frame: a miss
    ]
    hello = [_row("k", "slider", "main", "page", [50.0], [2000], [50.0])]
    meta = {"command": "python -m bench --quick", "date": "2026-12-01 20:00 UTC", "cpu": "CPU", "cores": 2,
            "memory": "1 GB RAM", "os": "Linux", "python": "3.11", "streamlit": "1.67.0", "altair": "6.3.0",
            "load_start": "0.1", "load_end": "0.2", "seconds": 60.0,
            "chromium": "Chromium 1", "changed_during_run": []}
    return {"mode": "quick", "runs": {"warm": 1, "cold": 1, "presses": 1, "cold_start": 1, "sidebar": "home"},
            "meta": meta, "caches": [], "hello": {"warm": 20.0, "cold": 25.0, "bytes": 500},
            "hello_controls": hello, "cold_start": {"runs": [3.0], "median": 3.0, "error": None}, "load": None,
            "pages": [{"path": "lessons/p.py", "url_path": "p", "title": "P", "defaults": timing,
                       "largest": timing, "controls": controls}]}


def test_the_budget_table():
    """Each budget once, in its unit; a ratio is judged against the run's own floor, never without one."""
    from bench.budgets import BUDGETS, BY_KEY

    assert len(BY_KEY) == len(BUDGETS)
    assert BY_KEY["control_browser"].text() == "≤ ×2 hello browser"
    assert BY_KEY["frame"].text() == "≤ 30 ms" and BY_KEY["presentation"].text() == "≤ 300 ms"
    assert BY_KEY["chart_bytes"].text() == "≤ 300 KB"
    ratio = BY_KEY["control_browser"]
    assert ratio.holds(100.0, 50.0) and not ratio.holds(101.0, 50.0) and ratio.holds(100.0) is None
    assert BY_KEY["frame"].holds(30.0) and not BY_KEY["frame"].holds(30.5) and BY_KEY["frame"].holds(None) is None
    counted = BY_KEY["class_counted"]  # a check that must hold: judged as it is, never as a number
    assert counted.holds(True) and counted.holds(False) is False and counted.holds(None) is None
    lecture = BY_KEY["class_lecture"]  # the hall beside the class against the same hall alone, in this run
    assert lecture.holds(1250.0, 1000.0) and not lecture.holds(1300.0, 1000.0) and lecture.holds(900.0) is None


def test_the_report_is_rendered_from_a_saved_run(tmp_path):
    """`--render RUN.json` measures nothing: every part comes from the JSON, each miss beside its budget row, the
    in-chart and play rows per frame with their p95."""
    run = _saved_run()
    run["mode"] = "full"
    run["lab"] = {"training": {"seconds": 24.0, "quoted_s": 20.0, "settings": "task=copy, steps=400", "runs": 25,
                               "candidates": 9, "timed": [{"seconds": 24.0, "quoted_s": 20.0,
                                                           "settings": "task=copy, steps=400"}]}}
    run["class"] = {"normal": _class_run(fault=False), "fault": _class_run(fault=True)}
    run["pages"][0]["largest"] = {**run["pages"][0]["largest"], "errors": ["exception: boom"]}
    raw = tmp_path / "run.json"
    raw.write_text(json.dumps(run))
    out = tmp_path / "B.md"
    proc = subprocess.run([sys.executable, "-m", "bench", "--render", str(raw), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    text = out.read_text()
    assert "Written again from that run's saved results" in text
    for heading in ("## Budgets", "## Misses", "## What the misses come down to", "## Server reruns (AppTest)", "## Every control: one press",
                    "### In-chart controls and play buttons: per frame", "### p", "## Lab", "## Load", "## Class",
                    "## Cold start", "## Shared caches"):
        assert heading in text, heading
    misses = text.split("## Misses")[1].split("\n## ")[0]
    assert "p: cold rerun at defaults: 150 ms (budget ≤ 100 ms)" in misses
    assert "p at largest: exception: boom (budget must hold)" in misses and "p at defaults" not in misses
    assert "p: “Length” (slider) browser: 150 ms (budget ≤ ×2 hello browser)" in misses
    assert "Presentation mode" not in misses  # 250 ms: within its own 300 ms budget, whatever ×hello says
    assert "p: “Play p_pos” (play) a frame: 41 ms (p95 45 ms) (budget ≤ 30 ms)" in misses
    assert "p_pos)”" not in misses  # the in-chart range: median 11.5 ms a frame
    assert "lab: task=copy, steps=400: 24.0 s (budget ≤ 20 s)" in misses
    assert "lab: warm rerun at defaults" not in misses  # the page p is not the lab
    # the fault run is judged by its own budgets (the reconnect's queue included), not by the class's 500 ms
    assert "fault run: vote p95: 12" in misses and "budget ≤ 10 s" in misses
    assert "fault run: teacher complete" not in misses  # 2.5 s: within the fault run's 10 s
    assert "class: vote p95" not in misses and "lecture p95 1200 ms with the class, 1000 ms without" in text
    assert "| p | position (p_pos) | in-chart | 12 ms | 50 ms | 4 | ✓ |" in text
    assert "p_len=99" in text
    budgets = text.split("## Budgets")[1].split("## Misses")[0]
    from bench.budgets import BUDGETS

    assert all(b.what in budgets for b in BUDGETS)  # every budget is a row, measured or not


def test_the_report_reads_each_browser_miss_against_its_pages_floor(tmp_path):
    """“What the misses come down to”: per page, the ×hello browser misses beside the page's own floor (the R
    key), counting those that take no longer than it; the presentation toggle and in-chart rows are judged
    elsewhere and are not counted."""
    from bench.report import floors_section

    run = _saved_run()
    run["pages"][0]["controls"].append(_row("Width", "slider", "main", "fragment", [20.0], [9000], [110.0]))
    text = "\n".join(floors_section(run))
    assert "## What the misses come down to" in text
    assert "1 of 2 misses take no longer than their page's floor" in text  # Width 110 ≤ 120 < Length 150
    assert "| p | 120 ms | 2 | 1 | Length: 150 ms |" in text
    run["pages"][0]["controls"] = [r for r in run["pages"][0]["controls"] if r["label"] not in ("Length", "Width")]
    assert floors_section(run) == []  # no miss, no section


def _class_run(fault: bool) -> dict:
    return {"fault": fault, "target": "2 processes behind HAProxy", "sessions": 20, "page": "rope", "acked": 22 if
            fault else 20, "stored": 20, "acked_before_kill": 10 if fault else 20,
            "every_vote_counted": True, "vote_p50_ms": 100.0, "vote_p95_ms": 12_000.0 if fault else 300.0,
            "teacher_complete_s": 2.5 if fault else 1.0, "cpu_cores": None if fault else 0.5,
            "cpu_cores_total": None if fault else 0.9, "poll_p95_ms": 50.0,
            "dropped": 2 if fault else 0, "revoted": 2 if fault else 0, "first_errors": [],
            "lecture": None if fault else {"p95": 1200.0}, "lecture_alone": None if fault else {"p95": 1000.0}}


def test_quick_benchmark_on_one_page(tmp_path):
    """`python -m bench --quick` end to end on one page: it writes where it is told (never BENCHMARKS.md), saves
    its JSON, and has a number for every part (none is judged here)."""
    out, raw = tmp_path / "BENCHMARKS.md", tmp_path / "bench.json"
    report = ROOT / "BENCHMARKS.md"
    before = report.stat().st_mtime_ns if report.exists() else None
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--pages", "binary", "--out", str(out),
                           "--json", str(raw)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert (report.stat().st_mtime_ns if report.exists() else None) == before, "quick mode wrote BENCHMARKS.md"
    res = json.loads(raw.read_text())
    [p] = res["pages"]
    assert p["url_path"] == "binary" and _numeric(res["hello"]["warm"])
    for part in ("defaults", "largest"):
        r = p[part]
        assert not r["errors"] and not r["not_applied"], (part, r)
        assert all(_numeric(x) for x in (r["warm"], r["cold"], r["bytes"])) and r["charts"] >= 1, (part, r)
    assert p["largest"]["settings"], "no control was set to its maximum"
    kinds = {c["kind"] for c in p["controls"]}
    assert {"floor", "fragment", "in-chart", "play"} <= kinds, kinds
    for c in p["controls"]:
        assert all(_numeric(x) for x in (*c["server_ms"], *c["bytes"], *c["browser_ms"])), c
    [floor] = [c for c in p["controls"] if c["kind"] == "floor"]
    assert floor["browser_ms"] and not floor["notes"], floor
    # In-chart controls and play buttons are timed per frame in the browser, with no script run.
    for kind in ("in-chart", "play"):
        timed = [c for c in p["controls"] if c["kind"] == kind and c["browser_ms"]]
        assert timed and not any("rerun" in n for c in timed for n in c["notes"]), (kind, timed)
    assert any(c["browser_ms"] for c in res["hello_controls"] if c["widget"] == "slider")
    assert res["cold_start"]["runs"] and res["load"] is None
    assert "### binary" in out.read_text()


def test_every_shared_cache_is_bounded():
    """st.cache_data / st.cache_resource are shared by every session: each needs max_entries."""
    found = find_caches()
    assert found, "no caches found: the scan is broken"
    unbounded = [f"{c.file}:{c.line} {c.function}" for c in found if not c.bounded]
    assert not unbounded, f"caches without max_entries: {unbounded}"


def test_the_load_test_refuses_anything_but_loopback():
    """`--url` drives a running deployment, on this machine only."""
    from bench.load import check_loopback

    check_loopback("http://127.0.0.1:8501")
    check_loopback("http://localhost:8501/")
    for url in ("http://10.1.2.3:8501", "http://192.168.0.10"):
        try:
            check_loopback(url)
        except ValueError:
            continue
        raise AssertionError(f"{url} was accepted")
    proc = subprocess.run([sys.executable, "-m", "bench", "--load", "--url", "http://10.1.2.3:8501"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "loopback" in proc.stderr, proc.stderr[-2000:]


def test_load_drives_a_running_server_by_url(tmp_path):
    """`python -m bench --load --url URL` starts nothing and drives the server it is given: a tiny lecture hall
    (3 sessions, a few seconds) reports every number (none is asserted)."""
    from harness.browser import streamlit_server

    raw = tmp_path / "load.json"
    with streamlit_server() as base:
        proc = subprocess.run([sys.executable, "-m", "bench", "--load", "--url", base, "--scenario", "lecture",
                               "--sessions", "3", "--duration", "6", "--out", str(tmp_path / "LOAD.md"),
                               "--json", str(raw)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    res = json.loads(raw.read_text())
    [run] = res["load"]["runs"]
    assert run["scenario"] == "lecture" and run["url"] == base and run["processes"] == 0
    wave = run["waves"][0]
    assert wave["sessions"] == 3 and len(wave["open"]) + len(wave["errors"]) >= 3
    assert all(_numeric(x) for x in wave["latencies"])
    assert "## Load" in (tmp_path / "LOAD.md").read_text()


def test_websocket_session_reruns_the_page():
    """The load test's browserless client still speaks Streamlit's protocol (the load test itself never runs
    in CI): open the home page over the websocket, move the sidebar's Seed, get a finished run back."""
    import asyncio

    from harness.browser import streamlit_server
    from harness.wsclient import Session

    async def go(base: str) -> tuple[float, float]:
        s = Session(base, "", timeout=60)
        try:
            opened = await s.open()
            control = s.control()
            assert control is not None and control.label == "Seed"
            rerun = await s.rerun((control, control.moved(True)))
            assert control.value == 1
            return opened, rerun
        finally:
            await s.close()

    with streamlit_server() as base:
        opened, rerun = asyncio.run(go(base))
    assert _numeric(opened) and _numeric(rerun)


def test_websocket_session_forgets_widgets_a_fragment_run_no_longer_draws():
    """As in the browser: when a section's run stops drawing a widget (the lab's Predict names the training
    length, so a new length draws a new question in place of the old one), the session no longer offers it.
    Pressing it would ask the server to rerun a widget that no longer exists, a run that never finishes."""
    import asyncio

    from harness.browser import streamlit_server
    from harness.wsclient import Session

    def predicts(s: Session) -> list[str]:
        return [c.label for c in s.page_controls() if c.label.startswith("**Predict.**")]

    async def go(base: str) -> list[list[str]]:
        s = Session(base, "lab", timeout=60)
        try:
            await s.open()
            seen = [predicts(s)]
            length = next(c for c in s.page_controls() if c.label == "Training length")
            start = length.value
            for value in (next(o for o in length.options if o != start), start):  # another length, then back
                await s.rerun((length, value))
                seen.append(predicts(s))
            return seen
        finally:
            await s.close()

    with streamlit_server() as base:
        opened, elsewhere, back = asyncio.run(go(base))
    # every lab question names the length: none asked at the first length is still offered at the second
    assert opened and elsewhere and not set(opened) & set(elsewhere), (opened, elsewhere)
    assert back == opened


def test_websocket_session_keeps_the_other_questions_when_a_predict_reruns_alone():
    """A Predict's pick reruns one small fragment that writes its radio into a place kept outside it (in the
    binary page's second section, a section drawn by the page, not a fragment). The session places that fragment
    by its own container, so its run does not claim the page's other questions as its own and forget them."""
    import asyncio

    from harness.browser import streamlit_server
    from harness.wsclient import Session

    def predicts(s: Session) -> list[str]:
        return [c.label for c in s.page_controls() if c.label.startswith("**Predict.**")]

    async def go(base: str) -> tuple[list[str], list[str], bool]:
        s = Session(base, "binary", timeout=60)
        try:
            await s.open()
            before = predicts(s)
            for c in [c for c in s.page_controls() if c.label.startswith("**Predict.**")]:
                await s.rerun((c, c.moved()))
                assert s.last.fragment, c.label
            return before, predicts(s), s.last.fragment
        finally:
            await s.close()

    with streamlit_server() as base:
        before, after, _ = asyncio.run(go(base))
    assert len(before) >= 3 and after == before, (before, after)


def test_the_lecture_floor_is_the_hello_world_page_under_the_same_load():
    """The lecture's floor: the same paced load against bench/hello_app.py, every session on its one page. The
    server's CPU over the wave is read, and the floor never counts against the app's lecture budget."""
    from bench import load, report
    from bench.budgets import BY_KEY

    sc = load.scaled(load.SCENARIOS["lecture"], sessions=3, duration_s=4)
    d = load.run_scenario(sc, floor=True)
    assert d["floor"] and d["target"] == load.FLOOR_TARGET and d["errors"] == 0, d["waves"][0]["errors"]
    [wave] = d["waves"]
    assert wave["latencies"] and wave["cpu_s"] > 0 and wave["cpu_ms_per_run"] > 0
    over = {**d, "p95": 10 * BY_KEY["lecture_p95"].limit}
    app = {**over, "floor": False, "target": "one process", "processes": 1}
    found = [m for m in report.misses({"load": {"runs": [over, app]}}) if m.startswith("lecture")]
    assert found == [f"lecture on one process: {report.ms(over['p95'])} (budget ≤ 1000 ms)"], found


def test_the_lab_trains_live_only_what_its_page_allows():
    """bench/lab.py reads the lab page's own controls and rules: every setting it would time is one the page
    trains live (a live step count, quoted within the page's budget), slowest first, and a setting quoted over
    the budget or precomputed-only is never among them."""
    from bench import lab as bench_lab
    from posenc import lab

    options, rules = bench_lab.page_rules()
    assert {"lab_task", "lab_steps", "lab_heads", "lab_mlp"} <= set(options) and options["lab_mlp"] == [False, True]
    found = bench_lab.live_settings()
    assert found and [q for q, _ in found] == sorted((q for q, _ in found), reverse=True)
    assert all(s.steps in rules["LIVE_STEPS"] and q <= rules["LIVE_BUDGET_S"] for q, s in found)
    heavy = lab.Settings(n_layers=max(options["lab_layers"]), L_train=max(options["lab_L"]), steps=max(
        rules["LIVE_STEPS"]), heads=max(options["lab_heads"]), bos=True, mlp=True)
    assert rules["estimate_s"](heavy) > rules["LIVE_BUDGET_S"] and heavy not in {s for _, s in found}
    assert max(options["lab_steps"]) not in {s.steps for _, s in found}  # 2,000 steps: precomputed only


def test_the_class_scenario_counts_every_vote_and_survives_a_killed_process():
    """A small class (4 students, two app processes behind HAProxy, one SQLite store): every acknowledged vote is
    in the store, the teacher's polled chart reaches the full count; with one process killed mid-vote, its
    students reconnect (their cookie keeps their anonymous id) and vote again: one vote per student in the store,
    none lost and none counted twice."""
    from bench import classvote

    r = classvote.run(4, 2, ramp=2, window=3, stay=4)
    assert r["errors"] == 0, r["first_errors"]
    assert r["acked"] == r["stored"] == 4 and r["every_vote_counted"] and r["teacher_chart"]
    assert r["teacher_complete_s"] is not None and r["teacher_polls"] >= 2
    assert r["cpu_cores"] > 0
    f = classvote.run(4, 2, ramp=2, window=3, stay=4, fault=True)
    assert f["killed_pid"] and f["dropped"] >= 1, f
    assert f["revoted"] == f["dropped"] and 4 <= f["acked"] <= 4 + f["revoted"] and f["stored"] == 4, f


def test_cpu_seconds_reads_the_processes_cpu_time():
    """The load test's CPU reading grows while the process works, and is None for a process that isn't there."""
    import os

    from bench.load import cpu_seconds

    before = cpu_seconds([os.getpid()])
    sum(i * i for i in range(3_000_000))  # some fixed work: a few hundred ms of CPU, well over a clock tick
    assert cpu_seconds([os.getpid()]) > before
    assert cpu_seconds([2 ** 22 + 12345]) is None


@pytest.mark.parametrize("marked, shown", [
    (lambda term: f"**Predict.** Which {term('key')} gets the {term('query')}'s weight (most of it)?",
     "Predict. Which key gets the query's weight (most of it)?"),  # a glossary word: a link with a title
    (lambda term: "**Predict.** What does `rope`'s accuracy past position 16 do?",
     "Predict. What does rope's accuracy past position 16 do?"),  # a code span: the lab's scheme names
], ids=["glossary link", "code span"])
def test_a_control_whose_label_is_marked_up_is_one_row(marked, shown):
    """The websocket reads a label's Markdown source; the browser reads its text. The two are one control: one
    row, with both sides' times — not two half rows."""
    from bench.controls import ControlRow, merge
    from frame.parts import term

    source = marked(term)
    server = ControlRow("p", source, "radio", "main", "fragment", server_ms=[50.0])
    browser = ControlRow("p", shown, "radio", "main", "page", browser_ms=[90.0])
    other = ControlRow("p", "Predict. Which query?", "radio", "main", "page", browser_ms=[80.0])
    rows = merge([server], [browser, other])
    assert [(r.label, r.browser_ms) for r in rows] == [(source, [90.0]), (other.label, [80.0])]
    assert rows[1].notes == ["seen in the browser only"]

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
              "spec_bytes": 1024, "data_bytes": 1024, "images": 0, "image_bytes": 0, "errors": [],
              "not_applied": [], "sliders": 1, "vega_ranges": 1, "settings": {"p_len": "99"}}
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
            "pandas": "3", "numpy": "2", "load_start": "0.1", "load_end": "0.2", "seconds": 60.0,
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


def test_the_report_is_rendered_from_a_saved_run(tmp_path):
    """`--render RUN.json` measures nothing: every section comes from the JSON, each miss beside its budget."""
    raw = tmp_path / "run.json"
    raw.write_text(json.dumps(_saved_run()))
    out = tmp_path / "B.md"
    proc = subprocess.run([sys.executable, "-m", "bench", "--render", str(raw), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    text = out.read_text()
    assert "written again from that run's saved results" in text
    for heading in ("## Budget misses", "### At defaults", "### At the largest settings",
                    "## Browser: slider key press → chart updated", "## Every control: one press", "### p",
                    "## Cold start", "## Load", "## Shared caches", "## What the misses come down to"):
        assert heading in text, heading
    misses = text.split("## Budget misses")[1].split("\n## ")[0]
    assert "cold rerun (caches cleared) at defaults 150 ms > 100 ms" in misses
    assert "“Length” (slider): press → redrawn 150 ms = ×3.0 hello > ×2" in misses
    assert "Presentation mode" not in misses  # 250 ms: within its own 300 ms budget, whatever ×hello says
    assert "“Play p_pos” (play): a frame 41 ms (p95 45 ms) > 30 ms" in misses
    assert "“position (p_pos)”" not in misses  # median 11.5 ms a frame
    assert "| 12 ms / 50 ms a frame |" in text and "p_len=99" in text


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
    from bench.browser import streamlit_server

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
    assert "### Lecture hall" in (tmp_path / "LOAD.md").read_text()


def test_websocket_session_reruns_the_page():
    """The load test's browserless client still speaks Streamlit's protocol (the load test itself never runs
    in CI): open the home page over the websocket, move the sidebar's Seed, get a finished run back."""
    import asyncio

    from bench.browser import streamlit_server
    from bench.wsclient import Session

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

    from bench.browser import streamlit_server
    from bench.wsclient import Session

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
    assert len(opened) == len(elsewhere) == 1 and opened != elsewhere, (opened, elsewhere)
    assert back == opened


def test_the_lecture_floor_is_the_hello_world_page_under_the_same_load():
    """The lecture's floor: the same paced load against bench/hello_app.py, every session on its one page. The
    server's CPU over the wave is read (so CPU per run can be compared), and the floor never counts against the
    app's lecture budget."""
    from bench import load, report

    sc = load.scaled(load.SCENARIOS["lecture"], sessions=3, duration_s=4)
    d = load.as_dict(load.run_scenario(sc, floor=True))
    assert d["floor"] and d["target"] == load.FLOOR_TARGET and d["errors"] == 0, d["waves"][0]["errors"]
    [wave] = d["waves"]
    assert wave["latencies"] and wave["cpu_s"] > 0 and wave["cpu_ms_per_run"] > 0
    # The report: a floor over budget is not a miss; the app's own run over budget is.
    over = {**d, "p95": 10 * report.BUDGET_LECTURE_P95_MS}
    app = {**over, "floor": False, "target": "one process"}
    found = report.load_misses({"load": {"runs": [over, app]}})
    assert [x for x in found if "p95" in x] == [f"load lecture on one process: p95 {report.ms(over['p95'])} > "
                                                f"{report.BUDGET_LECTURE_P95_MS:.0f} ms"]
    table = "\n".join(report.load_section({"load": {"runs": [app, over]}}))
    assert load.FLOOR_TARGET in table and report._wave_cpu(wave) in table


def test_cpu_seconds_reads_the_processes_cpu_time():
    """The load test's CPU reading grows while the process works, and is None for a process that isn't there."""
    import os

    from bench.load import cpu_seconds

    before = cpu_seconds([os.getpid()])
    sum(i * i for i in range(3_000_000))  # some fixed work: a few hundred ms of CPU, well over a clock tick
    assert cpu_seconds([os.getpid()]) > before
    assert cpu_seconds([2 ** 22 + 12345]) is None

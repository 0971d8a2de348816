"""The benchmark cannot rot: `python -m bench --quick` runs every part end to end and reports every page and
every control; the load test's machinery drives a server given by URL.

No wall-clock time is asserted here (BENCHMARKS.md holds the numbers and their budgets); only that the quick
run finishes, writes where it is told (never over BENCHMARKS.md), and has a numeric row for every page.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import frame  # noqa: E402
from bench.caches import find_caches  # noqa: E402


def _numeric(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0


def test_quick_benchmark_reports_every_page(tmp_path):
    out, raw = tmp_path / "BENCHMARKS.md", tmp_path / "bench.json"
    report = ROOT / "BENCHMARKS.md"
    before = report.stat().st_mtime_ns if report.exists() else None
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out), "--json", str(raw)],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert (report.stat().st_mtime_ns if report.exists() else None) == before, "quick mode wrote BENCHMARKS.md"

    res = json.loads(raw.read_text())
    pages = frame.existing_pages()
    assert [p["path"] for p in res["pages"]] == [p.path for p in pages]
    assert _numeric(res["hello"]["warm"]) and _numeric(res["hello"]["cold"]) and res["hello"]["bytes"] > 0
    for p in res["pages"]:
        parts = ["defaults"] + (["largest"] if p["largest_query"] else [])
        for part in parts:
            r = p[part]
            assert r["warm_ms"] and r["cold_ms"], (p["path"], part)
            assert all(_numeric(x) for x in (r["warm"], r["cold"], r["bytes"], *r["warm_ms"], *r["cold_ms"])), \
                (p["path"], part, r)
            assert not r["not_applied"], f"{p['path']}: bench/settings.py keys the page does not read: " \
                                         f"{r['not_applied']}"
        if p["url_path"]:
            assert p["defaults"]["charts"] >= 1, p["path"]
        assert p["slider"], p["path"]
        for s in p["slider"]:
            assert s["kind"] in {"rerun", "client-side", "none"}, (p["path"], s)
            if s["kind"] != "none":
                assert s["times"] and all(_numeric(t) for t in s["times"]), (p["path"], s)
        # Every control, discovered at run time: each row has a kind, and the server measured every page.
        controls = p["controls"]
        assert controls, p["path"]
        for c in controls:
            assert c["kind"] in {"in-chart", "fragment", "page", "floor"}, (p["path"], c)
            assert all(_numeric(x) for x in (*c["server_ms"], *c["bytes"], *c["browser_ms"])), (p["path"], c)
        assert any(c["server_ms"] for c in controls) or any(c["kind"] == "in-chart" for c in controls), \
            (p["path"], controls)
        # … and the page's floor in the browser: one rerun with nothing moved (the R key), timed.
        [floor] = [c for c in controls if c["kind"] == "floor"]
        assert floor["browser_ms"] and not floor["notes"], (p["path"], floor)
    home = next(p for p in res["pages"] if p["url_path"] == "")
    assert {"Seed", "Sentence"} <= {c["label"] for c in home["controls"] if c["where"] == "sidebar"}
    assert any(c["browser_ms"] for p in res["pages"] for c in p["controls"]), "the browser pressed nothing"
    hello = next(c for c in res["hello_controls"] if c["widget"] == "slider")
    assert hello["server_ms"] and hello["browser_ms"] and all(_numeric(x) for x in hello["server_ms"])
    assert res["cold_start"]["runs"] and all(_numeric(t) for t in res["cold_start"]["runs"])
    assert res["load"] is None  # the load test never runs in quick mode

    text = out.read_text()
    for heading in ("## Budget misses", "### At defaults", "### At the largest settings",
                    "## Browser: slider key press → chart updated", "## Every control: one press", "## Cold start",
                    "## Load", "## Shared caches"):
        assert heading in text
    for info in pages:
        rows = [line for line in text.splitlines() if line.startswith(f"| {info.url_path or 'home'} |")]
        assert len(rows) >= 3, (info.path, rows)  # defaults, largest settings, browser
        assert f"### {info.url_path or 'home'}" in text  # its table of controls
    assert "## What the misses come down to" in text and "hello-world page's press takes" in text
    assert "Streamlit's client redraws the page" in text  # the browser floor, read from the floor rows

    # The report can be written again from the saved results, numbers unchanged, without measuring anything.
    again = tmp_path / "again.md"
    proc = subprocess.run([sys.executable, "-m", "bench", "--render", str(raw), "--out", str(again)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    rendered = again.read_text()
    assert "written again from that run's saved results" in rendered
    strip = lambda t: [line for line in t.splitlines() if "written again" not in line and line.strip()]  # noqa: E731
    assert strip(rendered) == strip(text)


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
    from browser import streamlit_server

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

    from bench.wsclient import Session
    from browser import streamlit_server

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
    """As in the browser: when a section's run stops drawing a widget (the lab's second Predict and its layer
    picker are drawn only for a precomputed or trained setting), the session no longer offers it. Pressing it
    would ask the server to rerun a fragment that no longer exists, a run that never finishes."""
    import asyncio

    from bench.wsclient import Session
    from browser import streamlit_server

    def labels(s: Session) -> list[str]:
        return [c.label for c in s.page_controls()]

    async def go(base: str) -> list[list[str]]:
        s = Session(base, "lab", timeout=60)
        try:
            await s.open()
            seen = [labels(s)]
            length = next(c for c in s.page_controls() if c.label == "Training length")
            for value in (length.options[-2], length.options[-1]):  # a length not precomputed, then the default
                await s.rerun((length, value))
                seen.append(labels(s))
            return seen
        finally:
            await s.close()

    with streamlit_server() as base:
        opened, elsewhere, back = asyncio.run(go(base))
    assert opened.count("Your prediction") == 2 and "Attention map of layer" in opened
    assert elsewhere.count("Your prediction") == 1 and "Attention map of layer" not in elsewhere
    assert sorted(back) == sorted(opened)


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

"""The benchmark cannot rot: `python -m bench --quick` runs every part end to end and reports every page.

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
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
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
    assert res["cold_start"]["runs"] and all(_numeric(t) for t in res["cold_start"]["runs"])
    assert res["load"] is None  # the load test never runs in quick mode

    text = out.read_text()
    for heading in ("## Budget misses", "### At defaults", "### At the largest settings",
                    "## Browser: slider key press → chart updated", "## Cold start", "## Load", "## Shared caches"):
        assert heading in text
    for info in pages:
        rows = [line for line in text.splitlines() if line.startswith(f"| {info.url_path or 'home'} |")]
        assert len(rows) >= 3, (info.path, rows)  # defaults, largest settings, browser


def test_every_shared_cache_is_bounded():
    """st.cache_data / st.cache_resource are shared by every session: each needs max_entries."""
    found = find_caches()
    assert found, "no caches found: the scan is broken"
    unbounded = [f"{c.file}:{c.line} {c.function}" for c in found if not c.bounded]
    assert not unbounded, f"caches without max_entries: {unbounded}"


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

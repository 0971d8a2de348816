"""`python -m bench [--quick] [--out PATH] [--json PATH] [--load | --no-load] [--load-mode M] [--pages a,b]`.

Full mode (default, ~5 minutes) writes BENCHMARKS.md at the repository root and includes the load test;
--quick does every part with minimal repetitions (~1 minute), skips the load test and writes to --out
(artifacts/BENCHMARKS-quick.md by default), so it never overwrites BENCHMARKS.md. --load runs only the load
test (artifacts/LOAD.md by default); --load-mode browser drives Chromium pages instead of websocket sessions.
--pages benchmarks some pages only (never written to BENCHMARKS.md by default).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import REPORT, ROOT, caches, report
from bench.settings import LARGEST


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.0f} GB RAM"
    except OSError:
        pass
    return "RAM unknown"


def _loadavg() -> str:
    try:
        return "{:.1f}".format(os.getloadavg()[0])
    except OSError:
        return "?"


def _sources() -> dict[str, int]:
    """Modification times of the app's files, to tell whether they changed while the benchmark ran."""
    files = [ROOT / "app.py", ROOT / "frame.py", *(ROOT / "lessons").glob("*.py"), *(ROOT / "posenc").rglob("*.py")]
    return {str(f.relative_to(ROOT)): f.stat().st_mtime_ns for f in files if f.exists()}


def meta(command: str) -> dict:
    import altair
    import numpy
    import pandas
    import streamlit

    return {
        "command": command, "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": _cpu(), "cores": os.cpu_count(), "memory": _memory(),
        "os": f"{platform.system()} {platform.release()}", "python": platform.python_version(),
        "streamlit": streamlit.__version__, "altair": altair.__version__, "pandas": pandas.__version__,
        "numpy": numpy.__version__, "load_start": _loadavg(), "load_end": "?", "seconds": 0.0,
    }


def _timing_dict(t: Any) -> dict:
    return {"warm": t.warm, "cold": t.cold, "warm_ms": t.warm_ms, "cold_ms": t.cold_ms,
            "bytes": t.bytes.total, "charts": t.bytes.charts, "spec_bytes": t.bytes.spec,
            "data_bytes": t.bytes.data, "images": t.bytes.images, "image_bytes": t.bytes.image_bytes,
            "errors": t.errors, "not_applied": t.not_applied, "sliders": t.sliders, "vega_ranges": t.vega_ranges}


def server_part(pages: list, warm: int, cold: int, log) -> tuple[dict, list[dict]]:
    from streamlit.testing.v1.util import patch_config_options

    # .streamlit/config.toml hides error details from students; the benchmark reports them.
    with patch_config_options({"client.showErrorDetails": "full"}):
        return _server_part(pages, warm, cold, log)


def _server_part(pages: list, warm: int, cold: int, log) -> tuple[dict, list[dict]]:
    from bench import rerun

    rerun.warm_up_imports()
    hello_a = rerun.measure_hello(warm, cold)
    rows = []
    for info in pages:
        t = time.monotonic()
        row = {"path": info.path, "url_path": info.url_path, "title": info.title}
        row["defaults"] = _timing_dict(rerun.measure_page(info.path, {}, warm, cold))
        query = LARGEST.get(info.path)
        row["largest_query"] = query
        row["largest"] = _timing_dict(rerun.measure_page(info.path, query, warm, cold)) if query else None
        rows.append(row)
        log(f"  rerun: {info.url_path or 'home'} ({time.monotonic() - t:.1f} s)")
    hello_b = rerun.measure_hello(warm, cold)
    # The hello-world is measured before and after the pages: both halves count, so a machine that got
    # busier during the run moves the baseline too.
    hello_a.warm_ms += hello_b.warm_ms
    hello_a.cold_ms += hello_b.cold_ms
    return _timing_dict(hello_a), rows


def _slider_rows(found: list) -> list[dict]:
    return [{"kind": s.kind, "label": s.label, "times": s.times_ms, "median": s.median, "notes": s.notes,
             "details": s.details} for s in found]


def browser_part(pages: list, cold_runs: int, presses: int, quick: bool, log,
                 no_slider: set[str] = frozenset()) -> tuple[dict, dict, list]:
    """Cold start; then, on the last cold-started server, slider → chart on every page (pages in ``no_slider``,
    where AppTest found no slider of either kind, are not opened); then the hello-world page's slider on its
    own server. Returns (cold start, {page path: slider rows}, hello-world slider rows)."""
    from playwright.sync_api import sync_playwright

    from bench import client

    cold: dict = {"runs": [], "median": None, "error": None}
    sliders: dict[str, list] = {}
    quiet = 300 if quick else 400

    def measure_sliders(base: str) -> None:
        ctx = client.new_context(browser)
        try:
            for info in pages:
                if info.path in no_slider:
                    sliders[info.path] = _slider_rows([client.SliderResult(info.url_path, "none")])
                    continue
                t = time.monotonic()
                try:
                    found = client.slider_to_chart(ctx, base, info.url_path, presses, quiet=quiet)
                except Exception as err:  # noqa: BLE001 - report it on the page's row and go on
                    found = [client.SliderResult(info.url_path, "error",
                                                 notes=[f"{type(err).__name__}: {err}"[:200]])]
                log(f"  slider: {info.url_path or 'home'} ({time.monotonic() - t:.1f} s)")
                sliders[info.path] = _slider_rows(found)
        finally:
            ctx.close()

    with sync_playwright() as p:
        browser = client.launch(p)
        try:
            cold["chromium"] = f"Chromium {client.browser_version(browser)}"
            for i in range(cold_runs):
                last = i == cold_runs - 1
                log(f"  cold start {i + 1}/{cold_runs}" + (" (then the sliders on that server)" if last else ""))
                try:
                    cold["runs"].append(client.cold_start_once(browser, keep=measure_sliders if last else None))
                except Exception as err:  # noqa: BLE001
                    cold["error"] = f"{type(err).__name__}: {err}"[:300]
                    if last and not sliders:
                        from browser import streamlit_server
                        with streamlit_server() as base:
                            measure_sliders(base)
            log("  slider: hello-world page")
            try:
                with client.hello_server() as base:
                    ctx = client.new_context(browser)
                    try:
                        hello = _slider_rows(client.slider_to_chart(ctx, base, "", presses, quiet=quiet))
                    finally:
                        ctx.close()
            except Exception as err:  # noqa: BLE001
                hello = _slider_rows([client.SliderResult("", "error",
                                                          notes=[f"{type(err).__name__}: {err}"[:200]])])
        finally:
            browser.close()
    if cold["runs"]:
        cold["median"] = statistics.median(cold["runs"])
    return cold, sliders, hello


def load_part(deadline: float, mode: str, log) -> dict:
    from bench import load

    log(f"  load test: 2 waves of 30 sessions × 10 interactions ({mode} sessions)")
    r = load.run_load(mode=mode, sessions=30, interactions=10, waves=2, deadline_s=deadline)
    lat = r.latencies_ms
    opened = [x for w in r.waves for x in w.open_ms]
    return {
        "mode": r.mode, "sessions": r.sessions, "interactions": r.interactions, "pages": r.pages,
        "errors": r.errors, "p50": load._pct(lat, 0.5), "p95": load._pct(lat, 0.95),
        "open_p50": load._pct(opened, 0.5), "open_p95": load._pct(opened, 0.95),
        "rss_before_kb": r.rss_before_kb, "rss_peak_kb": r.rss_peak_kb, "session_ttl": load.SESSION_TTL_S,
        "deadline": deadline, "notes": r.notes,
        "waves": [{"sessions": w.sessions, "interactions": w.interactions, "latencies": w.latencies_ms,
                   "open": w.open_ms, "errors": w.errors, "p50": w.pct(0.5), "p95": w.pct(0.95),
                   "max": max(w.latencies_ms) if w.latencies_ms else float("nan"), "seconds": w.seconds,
                   "rss_after_kb": w.rss_after_kb, "rss_closed_kb": w.rss_closed_kb, "completed": w.completed}
                  for w in r.waves],
    }


def _clean(x: Any) -> Any:
    """NaN → None for JSON."""
    if isinstance(x, float) and x != x:
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="minimal repetitions, no load test (about a minute)")
    ap.add_argument("--out", type=Path, help="where to write the Markdown report")
    ap.add_argument("--json", type=Path, help="also write the raw results as JSON here")
    ap.add_argument("--load", action="store_true", help="run only the load test")
    ap.add_argument("--no-load", action="store_true", help="skip the load test in full mode")
    ap.add_argument("--pages", help="comma-separated url paths to benchmark (home = home); default: all")
    ap.add_argument("--load-mode", choices=("websocket", "browser"), default="websocket",
                    help="load-test sessions: Streamlit websocket sessions (default) or Chromium pages")
    ap.add_argument("--deadline", type=float, default=300.0, help="hard deadline of each load-test wave, seconds")
    args = ap.parse_args(argv)
    for name in ("out", "json"):  # relative to where the command was run, before moving to the repo root
        if getattr(args, name) is not None:
            setattr(args, name, getattr(args, name).resolve())

    os.chdir(ROOT)
    import frame

    t_start = time.monotonic()
    sources = _sources()
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    command = "python -m bench" + ("".join(" " + a for a in (argv if argv is not None else sys.argv[1:])
                                           if not a.endswith((".md", ".json")) and a not in ("--out", "--json")))
    pages = frame.existing_pages()
    if args.pages:
        wanted = {x.strip() for x in args.pages.split(",")}
        pages = [p for p in pages if (p.url_path or "home") in wanted]
    quick = args.quick
    runs = {"warm": 2 if quick else 15, "cold": 1 if quick else 5, "presses": 1 if quick else 5,
            "cold_start": 1 if quick else 3}
    res: dict[str, Any] = {"mode": "quick" if quick else ("load only" if args.load else "full"), "runs": runs,
                           "meta": meta(command), "caches": [], "pages": [], "hello": {},
                           "cold_start": None, "load": None}
    res["caches"] = [dict(asdict(c), bounded=c.bounded) for c in caches.find_caches()]

    if args.load:
        res["load"] = load_part(args.deadline, args.load_mode, log)
        res["hello"] = {"warm": None, "cold": None, "bytes": None}
    else:
        log(f"Server reruns (AppTest): {len(pages)} pages")
        t = time.monotonic()
        res["hello"], res["pages"] = server_part(pages, runs["warm"], runs["cold"], log)
        res["meta"]["seconds_server"] = time.monotonic() - t
        log(f"Browser (Chromium): cold start and sliders (server part took {time.monotonic() - t:.0f} s)")
        t = time.monotonic()
        no_slider = {r["path"] for r in res["pages"] if not r["defaults"]["errors"]
                     and not r["defaults"]["sliders"] and not r["defaults"]["vega_ranges"]}
        cold, sliders, res["hello_slider"] = browser_part(pages, runs["cold_start"], runs["presses"], quick, log,
                                                          no_slider)
        res["meta"]["seconds_browser"] = time.monotonic() - t
        log(f"  browser part took {time.monotonic() - t:.0f} s")
        res["meta"]["chromium"] = cold.pop("chromium", "Chromium ?")
        res["cold_start"] = cold
        for row in res["pages"]:
            row["slider"] = sliders.get(row["path"], [])
        if not quick and not args.no_load:
            res["load"] = load_part(args.deadline, args.load_mode, log)

    res["meta"]["load_end"] = _loadavg()
    after = _sources()
    res["meta"]["changed_during_run"] = sorted(k for k in set(sources) | set(after) if sources.get(k) != after.get(k))
    res["meta"]["seconds"] = time.monotonic() - t_start
    out = args.out or (REPORT if not quick and not args.load and not args.pages else
                       ROOT / "artifacts" / ("LOAD.md" if args.load else "BENCHMARKS-quick.md"))
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.load:
        text = report.render_load_only(res)
    else:
        text = report.render(res)
    out.write_text(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(_clean(res), indent=1, ensure_ascii=False))
    print(report.summary(res) if not args.load else report.load_summary(res))
    print(f"wrote {out}")
    return 0

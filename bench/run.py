"""`python -m bench [--quick] [--out PATH] [--json PATH] [--pages a,b] [--controls] [--load …]`.

Full mode (default; about 20 minutes on a quiet 2-core machine) measures AppTest reruns, cold start, every
control of every page (websocket and Chromium, bench/controls.py) and the load scenarios (the lecture hall and
the no-pause burst, bench/load.py) against one process and against two processes behind
HAProxy (deploy/serve.py) — the same load; it saves what it measured as JSON (--json, by default
artifacts/<report name>.json) and renders BENCHMARKS.md from it (bench/report.py). --quick does the AppTest,
cold-start and per-control parts with minimal repetitions (one press per control, the sidebar's controls on the
home page only), skips the load test and writes to --out (artifacts/BENCHMARKS-quick.md by default), so it
never overwrites BENCHMARKS.md.

    python -m bench --controls --pages fixes,rope          # only the per-control part (artifacts/CONTROLS.md)
    python -m bench --load                                 # only the load scenarios, one process (artifacts/LOAD.md)
    python -m bench --load --compare                       # … one process, then two behind HAProxy
    python -m bench --load --url http://127.0.0.1:8501     # … against a running deployment (loopback only)
    python -m bench --load --scenario lecture --sessions 20 --duration 15    # a small lecture hall

    python -m bench --render RUN.json                      # the report again from a saved run (measures nothing)
    python -m bench --class [--fault]                      # the class scenario (bench/classvote.py)

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
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def _sources() -> dict[str, int]:
    """Modification times of the app's files, to tell whether they changed while the benchmark ran."""
    files = [ROOT / "app.py", *(ROOT / "frame").rglob("*.py"), *(ROOT / "lessons").glob("*.py"),
             *(ROOT / "posenc").rglob("*.py")]
    return {str(f.relative_to(ROOT)): f.stat().st_mtime_ns for f in files if f.exists()}


def meta(command: str) -> dict:
    import altair
    import numpy
    import pandas
    import streamlit

    return {
        "command": command, "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": _cpu(), "cores": os.cpu_count(), "memory": _memory(),
        "os": f"{platform.system()} {platform.release()}", "python": platform.python_version(),
        "streamlit": streamlit.__version__, "altair": altair.__version__, "pandas": pandas.__version__,
        "numpy": numpy.__version__, "load_start": _loadavg(), "load_end": "?", "seconds": 0.0,
    }


def _timing_dict(t: Any) -> dict:
    return {"warm": t.warm, "cold": t.cold, "warm_ms": t.warm_ms, "cold_ms": t.cold_ms,
            "bytes": t.bytes.total, "charts": t.bytes.charts, "spec_bytes": t.bytes.spec,
            "data_bytes": t.bytes.data, "images": t.bytes.images, "image_bytes": t.bytes.image_bytes,
            "errors": t.errors, "not_applied": t.not_applied, "sliders": t.sliders, "vega_ranges": t.vega_ranges,
            "settings": t.settings}


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
        row["defaults"] = _timing_dict(rerun.measure_page(info.path, False, warm, cold))
        row["largest"] = _timing_dict(rerun.measure_page(info.path, True, warm, cold))
        rows.append(row)
        log(f"  rerun: {info.url_path or 'home'} ({time.monotonic() - t:.1f} s)")
    hello_b = rerun.measure_hello(warm, cold)
    # The hello-world is measured before and after the pages: both halves count, so a machine that got
    # busier during the run moves the baseline too.
    hello_a.warm_ms += hello_b.warm_ms
    hello_a.cold_ms += hello_b.cold_ms
    return _timing_dict(hello_a), rows


def controls_part(base: str, hello_base: str, chromium: Any, pages: list, presses: int, sidebar: str,
                  quiet: int, log, one_per_kind: bool = False) -> tuple[dict[str, list[dict]], list[dict]]:
    """Every control of every page, over the websocket (server time, bytes, fragment or page) and in Chromium
    (press → run finished and charts redrawn), and the hello-world page the same way, in this run.
    Returns ({page path: control rows}, hello-world rows)."""
    from concurrent.futures import ThreadPoolExecutor

    from bench import browser, controls

    paths = [p.url_path for p in pages]
    hello_presses = max(3, presses * 2)
    # Websocket sessions run their own event loop: in a thread of their own (Playwright's sync API holds one).
    with ThreadPoolExecutor(1) as ex:
        hello_a = ex.submit(controls.measure_server, hello_base, [""], hello_presses, "none").result()[""]
        server = ex.submit(controls.measure_server, base, paths, presses, sidebar, 60.0, log).result()
        hello_b = ex.submit(controls.measure_server, hello_base, [""], hello_presses, "none").result()[""]
    # The hello-world page is timed before and after the pages: a machine that got busier moves the baseline too.
    for a, b in zip(hello_a, hello_b):
        a.server_ms += b.server_ms
        a.bytes += b.bytes
    out: dict[str, list[dict]] = {}
    ctx = browser.new_context(chromium)
    try:
        log("  controls (browser): hello-world page")
        hb = controls.measure_browser_page(ctx, hello_base, "", hello_presses, False, quiet=quiet)
        for i, info in enumerate(pages):
            t = time.monotonic()
            with_sidebar = sidebar == "all" or (sidebar == "home" and i == 0)
            try:
                rows = controls.measure_browser_page(ctx, base, info.url_path, presses, with_sidebar, quiet=quiet,
                                                     one_per_kind=one_per_kind)
            except Exception as err:  # noqa: BLE001 - note it on the page, go on
                rows = [controls.ControlRow(info.url_path, "—", "error", "main",
                                            notes=[f"browser: {type(err).__name__}: {str(err)[:160]}"])]
            merged = controls.merge(server.get(info.url_path, []), rows, quick=one_per_kind)
            out[info.path] = [r.as_dict() for r in merged]
            log(f"  controls (browser): {info.url_path or 'home'} ({time.monotonic() - t:.1f} s)")
        hb2 = controls.measure_browser_page(ctx, hello_base, "", hello_presses, False, quiet=quiet)
    finally:
        ctx.close()
    for b2 in hb2:
        for b in hb:
            if b.label == b2.label and b.where == b2.where:
                b.browser_ms += b2.browser_ms
                b.browser_details += b2.browser_details
    hello = controls.merge(hello_a, hb)
    return out, [r.as_dict() for r in hello]


def browser_part(pages: list, cold_runs: int, presses: int, quick: bool, log, sidebar: str = "all",
                 cold_start: bool = True) -> tuple[dict, dict, list]:
    """Cold start; then, on the last cold-started server (a fresh one without ``cold_start``) and a hello-world
    server, every control of every page. Returns (cold start, {page path: control rows}, hello-world rows)."""
    from playwright.sync_api import sync_playwright

    from bench import browser

    cold: dict = {"runs": [], "median": None, "error": None}
    found: dict[str, list] = {}
    hello: list = []

    def measure(base: str) -> None:
        nonlocal found, hello
        with browser.hello_server() as hello_base:
            found, hello = controls_part(base, hello_base, chromium, pages, presses, sidebar, 300 if quick else 400,
                                         log, one_per_kind=quick)

    with sync_playwright() as p:
        chromium = browser.launch(p)
        try:
            cold["chromium"] = f"Chromium {chromium.version}"
            for i in range(cold_runs if cold_start else 0):
                last = i == cold_runs - 1
                log(f"  cold start {i + 1}/{cold_runs}" + (" (then every control on that server)" if last else ""))
                try:
                    cold["runs"].append(browser.cold_start_once(chromium, keep=measure if last else None))
                except Exception as err:  # noqa: BLE001
                    cold["error"] = f"{type(err).__name__}: {err}"[:300]
            if not found:
                with browser.streamlit_server() as base:
                    measure(base)
        finally:
            chromium.close()
    if cold["runs"]:
        cold["median"] = statistics.median(cold["runs"])
    return cold, found, hello


def load_part(args: argparse.Namespace, log) -> dict:
    """The load scenarios: each against one process (or --url, or --processes N behind HAProxy), and with
    --compare against two processes behind HAProxy too, the same load."""
    from bench import load

    names = [x.strip() for x in (args.scenario or "lecture,burst").split(",") if x.strip()]
    unknown = [n for n in names if n not in load.SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown scenario(s) {unknown}; known: {', '.join(load.SCENARIOS)}")
    if args.url:
        targets = [(0, args.url)]
    elif args.compare:
        targets = [(1, None), (max(2, args.processes or 2), None)]
    else:
        targets = [(args.processes or 1, None)]
    runs = []
    for name in names:
        sc = load.scaled(load.SCENARIOS[name], sessions=args.sessions, duration_s=args.duration,
                         interactions=args.interactions, waves=args.waves)
        mode = "websocket"
        # The lecture's floor: the hello-world page under the same load, right after one process ran it.
        floor = [(1, None, True)] if name == "lecture" and not args.url and (1, None) in targets else []
        for processes, url, hello in [(n, u, False) for n, u in targets] + floor:
            what = load.FLOOR_TARGET if hello else (
                url or ("one process" if processes == 1 else f"{processes} processes behind HAProxy"))
            log(f"  load: {name} — {sc.describe()} — against {what} ({mode} sessions)")
            t = time.monotonic()
            try:
                r = load.run_scenario(sc, mode=mode, processes=processes, url=url,
                                      deadline_s=args.deadline, floor=hello)
                d = load.as_dict(r, args.deadline or ((sc.ramp_s + sc.duration_s + 60) if sc.duration_s else 300))
            except Exception as err:  # noqa: BLE001 - a deployment that did not start: report it
                d = {"scenario": name, "describe": sc.describe(), "target": what, "error":
                     f"{type(err).__name__}: {str(err)[:300]}", "errors": 1, "waves": [], "notes": []}
            runs.append(d)
            log(f"    {d['errors']} errors, p50 {report.ms(d.get('p50'))}, p95 {report.ms(d.get('p95'))}, "
                f"{d.get('reruns_per_s') or 0:.1f} reruns/s ({time.monotonic() - t:.0f} s)")
    return {"runs": runs, "compare": bool(args.compare), "url": args.url}


def _clean(x: Any) -> Any:
    """NaN → None for JSON."""
    if isinstance(x, float) and x != x:
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def render_saved(path: Path, out: Path | None) -> int:
    """The report of a saved run (``--json``), written again by the current report code."""
    res = json.loads(path.read_text())
    res["meta"]["rendered_from"] = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    full = res.get("mode") == "full" and not res["meta"].get("pages")
    out = out or (REPORT if full else ROOT / "artifacts" / "BENCHMARKS-rendered.md")
    out.write_text(report.render(res))
    print(f"wrote {out} from {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="minimal repetitions, no load test (a few minutes)")
    ap.add_argument("--out", type=Path, help="where to write the Markdown report")
    ap.add_argument("--json", type=Path, help="where to save the results as JSON")
    ap.add_argument("--load", action="store_true", help="run only the load test")
    ap.add_argument("--controls", action="store_true", help="run only the per-control part (server and browser)")
    ap.add_argument("--no-load", action="store_true", help="skip the load test in full mode")
    ap.add_argument("--url", help="with --load: drive this running deployment (a loopback address; nothing is "
                                  "started)")
    ap.add_argument("--scenario", help="load scenarios, comma-separated: lecture, burst (default: both)")
    ap.add_argument("--compare", action="store_true",
                    help="load: one process, then two behind HAProxy (deploy/serve.py), the same load "
                         "(on by default in full mode)")
    ap.add_argument("--no-compare", action="store_true", help="full mode: one process only")
    ap.add_argument("--processes", type=int, help="load: N app processes behind HAProxy (with --compare: the "
                                                  "second run; default 2)")
    ap.add_argument("--sessions", type=int, help="load: sessions per scenario instead of its own number")
    ap.add_argument("--duration", type=float, help="load: seconds of pressing in a paced scenario (lecture: 60)")
    ap.add_argument("--interactions", type=int, help="load: interactions per session in burst (10)")
    ap.add_argument("--waves", type=int, help="load: waves per scenario (burst: 2)")
    ap.add_argument("--presses", type=int, help="per-control presses (full 3, quick 1)")
    ap.add_argument("--sidebar", choices=("all", "home", "none"),
                    help="measure the sidebar's controls on every page (full), on home only (quick), or never")
    ap.add_argument("--pages", help="comma-separated url paths to benchmark (home = home); default: all")
    ap.add_argument("--deadline", type=float, default=None,
                    help="hard deadline of each load-test wave, seconds (default: burst 300, lecture its "
                         "length + 60)")
    ap.add_argument("--render", type=Path, metavar="JSON",
                    help="measure nothing: write the report again from the results a run saved with --json "
                         "(after a change to the report's text; the numbers stay those of that run)")
    args = ap.parse_args(argv)
    if args.render:
        return render_saved(args.render.resolve(), args.out.resolve() if args.out else None)
    for name in ("out", "json"):  # relative to where the command was run, before moving to the repo root
        if getattr(args, name) is not None:
            setattr(args, name, getattr(args, name).resolve())
    if args.url and not args.load:
        ap.error("--url drives a running deployment: use it with --load")
    if args.url:
        from bench.load import check_loopback
        try:
            check_loopback(args.url)
        except ValueError as err:
            ap.error(str(err))

    os.chdir(ROOT)
    # Servers started by the benchmark say what an exception was (.streamlit/config.toml hides it from students).
    os.environ.setdefault("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS", "full")
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
    runs = {"warm": 2 if quick else 15, "cold": 1 if quick else 5,
            "presses": args.presses or (1 if quick else 3), "cold_start": 1 if quick else 3,
            "sidebar": args.sidebar or ("home" if quick else "all")}
    mode = "quick" if quick else ("load only" if args.load else ("controls only" if args.controls else "full"))
    res: dict[str, Any] = {"mode": mode, "runs": runs, "meta": meta(command), "caches": [], "pages": [],
                           "hello": {}, "hello_controls": [], "cold_start": None, "load": None}
    res["caches"] = [dict(asdict(c), bounded=c.bounded) for c in caches.find_caches()]

    if args.load:
        res["load"] = load_part(args, log)
        res["hello"] = {"warm": None, "cold": None, "bytes": None}
    elif args.controls:
        log(f"Every control (websocket and Chromium): {len(pages)} pages")
        _, found, res["hello_controls"] = browser_part(pages, 0, runs["presses"], False, log, runs["sidebar"],
                                                       cold_start=False)
        res["pages"] = [{"path": p.path, "url_path": p.url_path, "title": p.title,
                         "controls": found.get(p.path, [])} for p in pages]
    else:
        log(f"Server reruns (AppTest): {len(pages)} pages")
        t = time.monotonic()
        res["hello"], res["pages"] = server_part(pages, runs["warm"], runs["cold"], log)
        res["meta"]["seconds_server"] = time.monotonic() - t
        log(f"Browser (Chromium): cold start, then every control over the websocket and in the browser "
            f"(server part took {time.monotonic() - t:.0f} s)")
        t = time.monotonic()
        cold, found, res["hello_controls"] = browser_part(pages, runs["cold_start"], runs["presses"], quick, log,
                                                          runs["sidebar"])
        res["meta"]["seconds_browser"] = time.monotonic() - t
        log(f"  browser part took {time.monotonic() - t:.0f} s")
        res["meta"]["chromium"] = cold.pop("chromium", "Chromium ?")
        res["cold_start"] = cold
        for row in res["pages"]:
            row["controls"] = found.get(row["path"], [])
        if not quick and not args.no_load:
            args.compare = args.compare or not args.no_compare
            res["load"] = load_part(args, log)

    res["meta"]["load_end"] = _loadavg()
    after = _sources()
    res["meta"]["changed_during_run"] = sorted(k for k in set(sources) | set(after) if sources.get(k) != after.get(k))
    res["meta"]["seconds"] = time.monotonic() - t_start
    default = {"load only": "LOAD.md", "controls only": "CONTROLS.md"}.get(mode, "BENCHMARKS-quick.md")
    out = args.out or (REPORT if mode == "full" and not args.pages else ROOT / "artifacts" / default)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.render(res))
    raw = args.json or ROOT / "artifacts" / f"{out.stem}.json"
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.write_text(json.dumps(_clean(res), indent=1, ensure_ascii=False))
    print(report.summary(res))
    print(f"wrote {out} and {raw}")
    return 0

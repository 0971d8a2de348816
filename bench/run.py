"""`python -m bench`: measure, save the results as JSON, render the report (bench/report.py).

Full mode (the default; about 35 minutes on a quiet 2-core machine) writes BENCHMARKS.md: AppTest reruns of every
page, cold start, every control of every page (websocket and Chromium), the lab's slowest live training, the load
scenarios on one process and on two behind HAProxy, and the class scenario (with a lecture hall beside it, then
once more with one app process killed mid-vote). Other modes write to artifacts/ and never to BENCHMARKS.md:

    python -m bench --quick                                # minimal repetitions; no lab training, load or class
    python -m bench --controls --pages fixes,rope          # only the per-control part
    python -m bench --load [--compare] [--scenario lecture --sessions 20 --duration 15]
    python -m bench --load --url http://127.0.0.1:8501     # a running deployment (loopback only)
    python -m bench --class [--fault] [--sessions 20 --duration 10]    # the class scenario (duration: the stay)
    python -m bench --lab                                  # only the lab's slowest live training
    python -m bench --render RUN.json                      # the report again from a saved run (measures nothing)
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import HELLO, ROOT, caches, report

REPORT = ROOT / "BENCHMARKS.md"


def _read(path: str, key: str) -> str:
    lines = Path(path).read_text().splitlines() if Path(path).exists() else []
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith(key)), "?")


def _sources() -> dict[str, int]:
    files = [ROOT / "app.py", *(ROOT / "frame").rglob("*.py"), *(ROOT / "lessons").glob("*.py"),
             *(ROOT / "posenc").rglob("*.py")]
    return {str(f.relative_to(ROOT)): f.stat().st_mtime_ns for f in files if f.exists()}


def meta(command: str) -> dict:
    import altair
    import streamlit

    memory = _read("/proc/meminfo", "MemTotal")
    return {"command": command, "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": _read("/proc/cpuinfo", "model name"), "cores": os.cpu_count(),
            "memory": f"{int(memory.split()[0]) / 2 ** 20:.0f} GB RAM" if memory != "?" else "?",
            "os": f"{platform.system()} {platform.release()}", "python": platform.python_version(),
            "streamlit": streamlit.__version__, "altair": altair.__version__,
            "load_start": f"{os.getloadavg()[0]:.1f}", "load_end": "?", "seconds": 0.0}


def server_part(pages: list, warm: int, cold: int, log) -> tuple[dict, list[dict]]:
    """AppTest reruns of every page at defaults and at the largest settings; the hello-world page before and
    after (both halves count, so a machine that got busier moves the floor too)."""
    from streamlit.testing.v1.util import patch_config_options

    from bench.load import median
    from bench.rerun import measure

    with patch_config_options({"client.showErrorDetails": "full"}):
        measure("lessons/home.py", False, 0, 0)  # the imports, paid once (a server has them)
        a, rows = measure(None, False, warm, cold), []
        for info in pages:
            t = time.monotonic()
            rows.append({"path": info.path, "url_path": info.url_path, "title": info.title,
                         "defaults": measure(info.path, False, warm, cold),
                         "largest": measure(info.path, True, warm, cold)})
            log(f"  rerun: {info.url_path or 'home'} ({time.monotonic() - t:.1f} s)")
        b = measure(None, False, warm, cold)
    both = {k: median(a[k + "_ms"] + b[k + "_ms"]) for k in ("warm", "cold")}
    return a | both, rows


def browser_part(pages: list, cold_runs: int, presses: int, sidebar: str, quick: bool, log) -> tuple[dict, dict, list]:
    """Cold starts; then, on fresh servers, every control of every page over the websocket and in Chromium, and the
    hello-world page's the same way before and after (both halves count). Returns (cold start, {page path: control
    rows}, hello-world rows)."""
    from playwright.sync_api import sync_playwright

    from bench import controls
    from bench.load import median
    from harness import browser

    cold: dict = {"runs": [], "median": None, "error": None}
    n_hello, quiet, out = max(3, presses * 2), 300 if quick else 400, {}
    with sync_playwright() as p, browser.launch(p) as chromium:
        cold["chromium"] = f"Chromium {chromium.version}"
        for i in range(cold_runs):
            log(f"  cold start {i + 1}/{cold_runs}")
            try:
                cold["runs"].append(browser.cold_start_once(chromium))
            except Exception as err:  # noqa: BLE001
                cold["error"] = f"{type(err).__name__}: {err}"[:300]
        with browser.streamlit_server() as base, browser.streamlit_server(str(HELLO)) as hello_base, \
                ThreadPoolExecutor(1) as ex, browser.new_context(chromium) as ctx:
            # websocket sessions run their own event loop (Playwright's holds this one)
            server = lambda *a: ex.submit(controls.measure_server, *a).result()
            in_browser = lambda *a, **kw: controls.measure_browser_page(ctx, *a, **kw)
            hello = server(hello_base, [""], n_hello, "none")[""]
            found = server(base, [p.url_path for p in pages], presses, sidebar, log)
            for a, b in zip(hello, server(hello_base, [""], n_hello, "none")[""]):
                a.server_ms, a.bytes = a.server_ms + b.server_ms, a.bytes + b.bytes
            hb = in_browser(hello_base, "", n_hello, False, quiet)
            for i, info in enumerate(pages):
                t = time.monotonic()
                try:
                    rows = in_browser(base, info.url_path, presses, controls.with_sidebar(sidebar, i), quiet,
                                      one_per_kind=quick)
                except Exception as err:  # noqa: BLE001 - note it on the page, go on
                    rows = [controls.ControlRow(info.url_path, "—", "error", "main", notes=[f"browser: {err}"[:200]])]
                out[info.path] = [r.as_dict() for r in controls.merge(found.get(info.url_path, []), rows, quick)]
                log(f"  controls (browser): {info.url_path or 'home'} ({time.monotonic() - t:.1f} s)")
            for a, b in zip(hb, in_browser(hello_base, "", n_hello, False, quiet)):
                a.browser_ms += b.browser_ms
    cold["median"] = median(cold["runs"])
    return cold, out, [r.as_dict() for r in controls.merge(hello, hb)]


def load_part(args: argparse.Namespace, log) -> dict:
    """The load scenarios against one process (or --url), and with --compare against two processes behind HAProxy
    too; the lecture's floor (the hello-world page) after the one-process run."""
    from bench import load

    names = [x.strip() for x in (args.scenario or "lecture,burst").split(",") if x.strip()]
    if unknown := [n for n in names if n not in load.SCENARIOS]:
        raise SystemExit(f"unknown scenario(s) {unknown}; known: {', '.join(load.SCENARIOS)}")
    targets = [(0, args.url)] if args.url else [(1, None), (2, None)] if args.compare else [(1, None)]
    runs = []
    for name in names:
        sc = load.scaled(load.SCENARIOS[name], sessions=args.sessions, duration_s=args.duration)
        floor = [(1, None, True)] if name == "lecture" and (1, None) in targets else []
        for processes, url, hello in [(n, u, False) for n, u in targets] + floor:
            log(f"  load: {name}: {sc.describe()} ({'floor' if hello else url or f'{processes} process(es)'})")
            try:
                d = load.run_scenario(sc, processes, url, floor=hello)
            except Exception as err:  # noqa: BLE001 - a deployment that did not start: report it
                d = {"scenario": name, "describe": sc.describe(), "target": url or f"{processes} process(es)",
                     "error": load.first_line(err), "errors": 1, "waves": []}
            runs.append(d)
            log(f"    {d['errors']} errors, p95 {report.ms(d.get('p95'))}")
    return {"runs": runs}


def class_part(args: argparse.Namespace, log, keys: tuple[str, ...]) -> dict:
    """The class scenario with a lecture hall beside it (and alone first, on the same deployment), then the fault
    run. --sessions and --duration scale it down (students, the stay after voting; the hall is a third)."""
    from bench import classvote, load

    n, stay = args.sessions or 300, args.duration or 60.0
    hall = load.scaled(load.SCENARIOS["lecture"], sessions=max(3, n // 3), duration_s=stay)
    out = {}
    for key in keys:
        log(f"  class: {n} students, stay {stay:.0f} s{', one process killed mid-vote' if key == 'fault' else ''}")
        out[key] = classvote.run(n, 2, ramp=min(30.0, max(5.0, n / 10)), stay=stay, fault=key == "fault",
                                 lecture=None if key == "fault" else hall)
        log(f"    {out[key]['acked']} acknowledged, {out[key]['stored']} stored, {out[key]['errors']} errors")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag, what in (("--quick", "minimal repetitions; no lab training, load or class"),
                       ("--load", "only the load scenarios"), ("--controls", "only the per-control part"),
                       ("--class", "only the class scenario"), ("--lab", "only the lab's slowest live training"),
                       ("--fault", "with --class: the run with one app process killed mid-vote"),
                       ("--compare", "load: one process, then two behind HAProxy (always on in full mode)")):
        ap.add_argument(flag, action="store_true", help=what)
    ap.add_argument("--out", type=Path, help="where to write the Markdown report")
    ap.add_argument("--json", type=Path, help="where to save the results as JSON")
    ap.add_argument("--url", help="with --load: drive this running deployment (loopback only; nothing started)")
    ap.add_argument("--scenario", help="load scenarios, comma-separated: lecture, burst (default both)")
    ap.add_argument("--sessions", type=int, help="load or class: sessions instead of the scenario's own number")
    ap.add_argument("--duration", type=float, help="load: seconds of pressing; class: seconds of staying")
    ap.add_argument("--pages", help="comma-separated url paths (home = home); default all")
    ap.add_argument("--render", type=Path, metavar="JSON", help="measure nothing: the report from a saved run")
    args = ap.parse_args(argv)
    out, raw = (p.resolve() if p else None for p in (args.out, args.json))
    if args.render:
        res = json.loads(args.render.read_text())
        res["meta"]["rendered_from"] = str(args.render)
        out = out or (REPORT if res["mode"] == "full" else ROOT / "artifacts" / "BENCHMARKS-rendered.md")
        out.write_text(report.render(res))
        print(f"wrote {out} from {args.render}")
        return 0
    if args.url:
        from bench.load import check_loopback

        if not args.load:
            ap.error("--url drives a running deployment: use it with --load")
        try:
            check_loopback(args.url)
        except ValueError as err:
            ap.error(str(err))

    os.chdir(ROOT)
    os.environ.setdefault("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS", "full")  # the config hides errors from students
    import frame

    t0, sources = time.monotonic(), _sources()
    log = lambda msg: print(msg, file=sys.stderr, flush=True)
    only = next((m for m in ("load", "controls", "class", "lab") if getattr(args, m)), None)
    quick, full = args.quick, not args.quick and only is None
    mode = "quick" if quick else f"{only} only" if only else "full"
    pages = [p for p in frame.existing_pages() if not args.pages or (p.url_path or "home") in args.pages.split(",")]
    runs = {"warm": 2 if quick else 15, "cold": 1 if quick else 5, "presses": 1 if quick else 3,
            "cold_start": 1 if quick else 3, "sidebar": "home" if quick else "all"}
    command = "python -m bench" + "".join(" " + a for a in (sys.argv[1:] if argv is None else argv))
    res: dict[str, Any] = {"mode": mode, "runs": runs, "meta": meta(command), "pages": [], "hello": {},
                           "hello_controls": [], "cold_start": None, "load": None, "lab": None, "class": None,
                           "caches": [dict(asdict(c), bounded=c.bounded) for c in caches.find_caches()]}
    if only in (None, "controls"):
        if only is None:
            log(f"Server reruns (AppTest): {len(pages)} pages")
            res["hello"], res["pages"] = server_part(pages, runs["warm"], runs["cold"], log)
        log("Browser: cold start, then every control over the websocket and in Chromium")
        cold, found, res["hello_controls"] = browser_part(pages, 0 if only else runs["cold_start"], runs["presses"],
                                                          runs["sidebar"], quick, log)
        res["meta"]["chromium"] = cold.pop("chromium", "Chromium ?")
        res["cold_start"] = None if only else cold
        by_path = {p["path"]: p for p in res["pages"]}
        res["pages"] = [{**by_path.get(p.path, {}), "path": p.path, "url_path": p.url_path, "title": p.title,
                         "controls": found.get(p.path, [])} for p in pages]
    if only == "lab" or full:
        from bench import lab

        log("Lab: the slowest live training")
        res["lab"] = {"training": lab.slowest_training()}
    if only == "load" or full:
        args.compare = args.compare or full
        res["load"] = load_part(args, log)
    if only == "class" or full:
        res["class"] = class_part(args, log, ("normal", "fault") if full else ("fault",) if args.fault else (
            "normal",))
    res["meta"].update(load_end=f"{os.getloadavg()[0]:.1f}", seconds=time.monotonic() - t0, changed_during_run=sorted(
        k for k, v in _sources().items() if sources.get(k) != v))
    out = out or (REPORT if full and not args.pages else ROOT / "artifacts" / (
        f"{only.upper()}.md" if only else f"BENCHMARKS-{mode}.md"))
    raw = raw or ROOT / "artifacts" / f"{out.stem}.json"
    for path in (out, raw):
        path.parent.mkdir(parents=True, exist_ok=True)
    raw.write_text(json.dumps(res, indent=1, ensure_ascii=False, default=str).replace("NaN", "null"))
    out.write_text(report.render(res))
    print(report.summary(res))
    print(f"wrote {out} and {raw}")
    return 1 if only == "class" and report.misses(res) else 0

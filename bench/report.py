"""BENCHMARKS.md from a run's JSON (bench/run.py): every measured number judged against its row of the budget
table (bench/budgets.py), then one table per part. Renders only: measures nothing."""

from __future__ import annotations

from typing import Any

from bench.budgets import BUDGETS, BY_KEY, PRESENTATION_LABEL, number

OK, MISS = "✓", "✗"


def formatter(form: str, scale: float = 1.0):
    """A formatter: the number in ``form`` (after dividing by ``scale``), or "—" when there is none."""
    return lambda x: form.format(x / scale) if number(x) else "—"


ms, kb, sec, cores = (formatter("{:.0f} ms"), formatter("{:.1f} KB", 1024), formatter("{:.1f} s"),
                     formatter("{:.2f}"))


def table(head: list[str], rows: list[list[Any]]) -> list[str]:
    """One Markdown table (every cell text, pipes escaped)."""
    cell = lambda x: str("—" if x is None else x).replace("|", "\\|").replace("\n", " ")
    return ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head),
            *("| " + " | ".join(cell(x) for x in r) + " |" for r in rows), ""]


def name(p: dict) -> str:
    return p["url_path"] or "home"


def label(r: dict) -> str:
    text = (r["label"] or "—") + (f" ({r['param']})" if r.get("param") and r["kind"] == "in-chart" else "")
    return text[:70] + "…" if len(text) > 72 else text


def hello(res: dict) -> tuple[Any, Any]:
    """(server, browser) medians of the hello-world page's slider in this run: the floors of the ×hello budgets."""
    row = next((r for r in res.get("hello_controls") or [] if r["widget"] == "slider"), {})
    return row.get("server_median"), row.get("browser_median")


def against_hello(r: dict) -> bool:
    """A Streamlit control's press, judged against the hello-world page's (not the floor's R key, an in-chart
    control's or play button's frames, or the presentation toggle, which has its own budget)."""
    return r["kind"] not in ("floor", "in-chart", "play") and r["label"] != PRESENTATION_LABEL


def checks(res: dict) -> list[tuple[str, str, Any, Any, str]]:
    """Every judged number: (budget key, what it is, value, floor, value as shown)."""
    out: list[tuple[str, str, Any, Any, str]] = []
    show = {"ms": ms, "×": ms, "KB": kb, "s": sec, "cores": cores}  # a value as shown, by its budget's unit
    add = lambda key, subject, x, floor=None, shown=None: out.append(
        (key, subject, x, floor, shown or show.get(BY_KEY[key].unit, str)(x)))
    hs, hb = hello(res)
    for p in res.get("pages") or []:
        for part, key in (("defaults", "rerun_default"), ("largest", "rerun_largest")):
            t = p.get(part) or {}
            for how in ("warm", "cold"):
                add(key, f"{name(p)}: {how} rerun at {part}", t.get(how))
                if p["path"] == "lessons/lab.py" and part == "defaults":
                    add("lab_page", f"lab: {how} rerun at defaults", t.get(how))
            errors = (t.get("errors") or []) + [f"sidebar setting not taken: {k}" for k in t.get("not_applied") or []]
            add("page_errors", f"{name(p)} at {part}", not errors, shown="; ".join(errors)[:300] or "none")
        if number((p.get("defaults") or {}).get("bytes")):
            add("chart_bytes", f"{name(p)}: chart data at defaults", p["defaults"]["bytes"])
        rows = p.get("controls") or []
        first = next((r for r in rows if r["where"] == "main" and r["widget"] in ("slider", "select_slider")
                      and r["browser_ms"]), None)
        if first:
            add("slider", f"{name(p)}: “{label(first)}”", first["browser_median"])
        for r in rows:
            what = f"{name(p)}: “{label(r)}” ({r['widget']})"
            if r["kind"] in ("in-chart", "play"):
                add("frame", what + " a frame", r.get("browser_median"),
                    shown=f"{ms(r.get('browser_median'))} (p95 {ms(r.get('browser_p95'))})")
            elif r["kind"] != "floor":
                add("control_server", what + " server", r.get("server_median"), hs)
                add("control_bytes", what + " received", r.get("bytes_median"))
                if against_hello(r):
                    add("control_browser", what + " browser", r.get("browser_median"), hb)
                else:
                    add("presentation", what, r.get("browser_median"))
            if r["widget"] == "error" or any("exception" in n for n in r.get("notes", [])):
                add("page_errors", what, False, shown="; ".join(r["notes"])[:300])
    add("cold_start", "cold start", (res.get("cold_start") or {}).get("median"))
    train = (res.get("lab") or {}).get("training") or {}
    add("lab_training", f"lab: {train.get('settings', 'not run')}", train.get("seconds"))
    for run in (res.get("load") or {}).get("runs", []):
        what = f"{run['scenario']} on {run['target']}"
        add("load_errors", what, run.get("errors") == 0 and not run.get("error"),
            shown=run.get("error") or f"{run.get('errors')} errors")
        if run["scenario"] == "lecture" and run.get("processes") == 1 and not run.get("floor"):
            add("lecture_p95", what, run.get("p95"))
    for c in (res.get("class") or {}).values():
        # (a run saved before the class ran alone had the hall beside its one class)
        prefix = "fault run: " if c["fault"] else "class beside the hall: " if c.get("lecture") and not c.get(
            "beside") else "class alone: "
        add("class_counted", f"{prefix}{c['stored']} stored / {c['acked']} acknowledged", c["every_vote_counted"])
        if c["fault"]:  # issue 20 sets the class's p95 and count for a class; the fault run has its own budgets
            add("fault_vote_p95", prefix + "vote p95", None if c.get("vote_p95_ms") is None else c["vote_p95_ms"] / 1000)
            add("fault_teacher", prefix + "teacher complete", c.get("teacher_complete_s"))
        else:
            add("class_teacher", prefix + "teacher complete", c.get("teacher_complete_s"))
            add("class_vote_p95", prefix + "vote p95", c.get("vote_p95_ms"))
        if c["fault"]:
            add("fault_kept", f"{c['stored']} stored for {c['sessions']} students, one each ({c['acked']} acknowledged, "
                f"{c['acked_before_kill']} before the kill)", c["stored"] == c["sessions"])
            add("fault_revote", f"{c['revoted']} of {c['dropped']} dropped voted again", c["revoted"] == c["dropped"])
            continue
        add("class_cpu", prefix + "app processes", c.get("cpu_cores"))
        if b := c.get("beside"):  # the second class, beside the hall: its votes must all count too
            add("class_counted", f"beside the hall: {b['stored']} stored / {b['acked']} acknowledged",
                b["every_vote_counted"])
        alone, during = (c.get("lecture_alone") or {}).get("p95"), (c.get("lecture") or {}).get("p95")
        if during is not None:
            add("class_lecture", f"lecture p95 {ms(during)} with the class, {ms(alone)} without", during, alone)
    for c in res.get("caches") or []:
        add("caches", f"{c['file']}:{c['line']} {c['function']}()", c["bounded"], shown=c["max_entries"] or "none")
    return out


def verdicts(res: dict) -> list[tuple[str, str, Any, Any, str, bool | None]]:
    return [(*c, BY_KEY[c[0]].holds(c[2], c[3])) for c in checks(res)]


def misses(res: dict) -> list[str]:
    return [f"{subject}: {shown} (budget {BY_KEY[key].text()})" for key, subject, _, _, shown, ok
            in verdicts(res) if ok is False]


def budget_section(res: dict) -> list[str]:
    found, rows = verdicts(res), []
    for b in BUDGETS:
        judged = [v for v in found if v[0] == b.key and v[5] is not None]
        worst = max(judged, key=lambda v: (not v[5], v[2] / v[3] if b.unit == "×" else v[2] if number(v[2])
                                          else 0), default=None)
        bad = sum(1 for v in judged if not v[5])
        rows.append([b.what, b.text(), len(judged) or "not measured in this mode", f"{worst[1]}: {worst[4]}"
                     if worst else "—", "" if not judged else f"{MISS} {bad}" if bad else OK])
    return ["## Budgets", "", *table(["measured", "budget", "checked", "worst", "result"], rows),
            "## Misses", "", *([f"- {MISS} {m}" for m in misses(res)] or [f"- {OK} none."]), ""]


def floors_section(res: dict) -> list[str]:
    """What the misses come down to: each page's Streamlit-control presses that miss the ×hello browser budget,
    read against that page's own floor (the R key: the page rerun and redrawn with nothing changed, in the same
    run), so a miss that costs no more than redrawing the page as it stands is told apart from one that does."""
    _, hb = hello(res)
    budget = BY_KEY["control_browser"]
    rows, total, under = [], 0, 0
    for p in res.get("pages") or []:
        controls = p.get("controls") or []
        floor = next((r.get("browser_median") for r in controls if r["kind"] == "floor"), None)
        missed = [r for r in controls if against_hello(r) and budget.holds(r.get("browser_median"), hb) is False]
        if not missed:
            continue
        within = [r for r in missed if number(floor) and r["browser_median"] <= floor]
        worst = max(missed, key=lambda r: r["browser_median"])
        total, under = total + len(missed), under + len(within)
        rows.append([name(p), ms(floor), len(missed), len(within), f"{label(worst)}: {ms(worst['browser_median'])}"])
    if not rows:
        return []
    return ["## What the misses come down to", "", f"Every Streamlit control that misses “{budget.what}” "
            f"({budget.text()}, {ms(budget.limit * hb if number(hb) else None)} in this run), beside its page's floor: the R "
            f"key, the page rerun and redrawn with nothing changed. {under} of {total} misses take no longer than "
            "their page's floor: what they cost is Streamlit redrawing that page as it stands, not the work the "
            "press asked for.", "", *table(["page", "floor (R key)", "misses", "within the floor", "worst"], rows)]


def rerun_section(res: dict) -> list[str]:
    rows = []
    for p in res.get("pages") or []:
        d, big = p.get("defaults") or {}, p.get("largest") or {}
        rows.append([name(p), ms(d.get("warm")), ms(d.get("cold")), ms(big.get("warm")), ms(big.get("cold")),
                     kb(d.get("bytes")), d.get("charts"), ", ".join(f"{k}={v}" for k, v in
                                                                     (big.get("settings") or {}).items())[:200]])
    h = res.get("hello") or {}
    rows.append(["hello-world page", ms(h.get("warm")), ms(h.get("cold")), "", "", kb(h.get("bytes")), 1, ""])
    return ["## Server reruns (AppTest)", "", "Median of the timed `at.run()` calls: *warm* with the caches "
            "filled, *cold* after clearing st.cache_data and st.cache_resource. *Largest*: every main-area slider, "
            "select slider and number input at its maximum (found on the page) and the sidebar's longest example.",
            "", *table(["page", "defaults warm", "defaults cold", "largest warm", "largest cold", "chart data",
                        "charts", "largest settings"], rows)]


def controls_section(res: dict) -> list[str]:
    hs, hb = hello(res)
    out = ["## Every control: one press", "", "Discovered at run time (bench/controls.py). *server*: rerun request "
           "→ script_finished over the websocket; *received*: bytes per press with the browser's message cache; "
           "*browser*: Chromium, keydown/pointerdown → run finished and charts redrawn (harness/probe.js). *kind*: "
           "page, fragment (only its st.fragment reran), in-chart and play (per frame in the browser, no rerun), "
           f"floor (the R key: the page rerun with nothing changed). Hello-world slider in this run: server "
           f"{ms(hs)}, browser {ms(hb)}. Presses per control: {res['runs'].get('presses')}.", ""]
    frames = [[name(p), label(r), r["kind"], ms(r.get("browser_median")), ms(r.get("browser_p95")),
               len(r["browser_ms"]), {True: OK, False: MISS}.get(BY_KEY["frame"].holds(r.get("browser_median")), ""),
               "; ".join(r["notes"])] for p in res.get("pages") or [] for r in p.get("controls") or []
              if r["kind"] in ("in-chart", "play")]
    out += ["### In-chart controls and play buttons: per frame", "",
            *table(["page", "control", "kind", "median", "p95", "frames", BY_KEY["frame"].text(), "notes"], frames)]
    for p in res.get("pages") or []:
        rows = [[label(r), r["where"], r["kind"], ms(r.get("server_median")), kb(r.get("bytes_median")),
                 ms(r.get("browser_median")) if r["kind"] not in ("in-chart", "play") else
                 f"{ms(r.get('browser_median'))} / {ms(r.get('browser_p95'))} a frame", "; ".join(r["notes"])]
                for r in p.get("controls") or []]
        out += [f"### {name(p)}", "", *(table(["control", "where", "kind", "server", "received", "browser",
                                                "notes"], rows) if rows else ["No controls found.", ""])]
    return out


def load_section(res: dict) -> list[str]:
    runs = (res.get("load") or {}).get("runs") or []
    rows = [[r["scenario"], r["target"], i + 1, f"{w['sessions']} ({w['completed']} completed)", len(w["errors"]),
             ms(w["p50"]), ms(w["p95"]), ms(w.get("settled_p95")), f"{w['reruns_per_s']:.1f}" if number(
                 w.get("reruns_per_s")) else "—", ms(w.get("cpu_ms_per_run")) + (f" ({w['busy']:.0%})" if number(
                     w.get("busy")) else ""), f"{r['rss_before_kb'] // 1024} → {w['rss_after_kb'] // 1024} → "
             f"{w['rss_closed_kb'] // 1024} MB" if r.get("rss_before_kb") else "—",
             "; ".join(sorted(set(w["errors"])))[:300]]
            for r in runs for i, w in enumerate(r.get("waves") or [])]
    rows += [[r["scenario"], r["target"], "—", "—", "did not run", "", "", "", "", "", "", r["error"]]
             for r in runs if r.get("error")]
    return ["## Load", "", "Websocket sessions without a browser (bench/load.py): " + "; ".join(
        f"*{r['scenario']}*: {r['describe']}" for r in {r["scenario"]: r for r in runs}.values()) + ". Latency: "
        "rerun request → script_finished. *settled p95*: presses sent once every session had its page. CPU per "
        "run: the app processes' CPU over the wave / (presses + page openings), and its share of one core.", "",
        *(table(["scenario", "target", "wave", "sessions", "errors", "p50", "p95", "settled p95", "reruns/s",
                 "CPU per run", "RSS before → after → closed", "errors seen"], rows) if runs else
          ["Not run in this mode.", ""])]


def class_section(res: dict) -> list[str]:
    rows = []
    for c in (res.get("class") or {}).values():
        hall = [(c.get("lecture_alone") or {}).get("p95"), (c.get("lecture") or {}).get("p95")]
        if c["fault"]:
            runs = [("fault: one process killed", c, [None, None])]
        elif c.get("beside"):
            runs = [("the class alone", c, [None, None]), ("beside the lecture hall", c["beside"], hall)]
        else:  # a run saved before the class ran alone: one class, with the hall beside it if there was one
            runs = [("beside the lecture hall" if c.get("lecture") else "the class alone", c, hall)]
        for what, r, (without, during) in runs:
            rows.append([what, c["target"], f"{c['sessions']} on /{c['page']}", f"{r['acked']} / {r['stored']}",
                         ms(r["vote_p50_ms"]), ms(r["vote_p95_ms"]), sec(r["teacher_complete_s"]),
                         cores(r.get("cpu_cores_total", r.get("cpu_cores"))) + (" (with the hall's)" if during is not None else ""),
                         ms(r.get("poll_p95_ms")), f"{r['dropped']} / {r['revoted']}", ms(without), ms(during),
                         "; ".join(r["first_errors"])[:300]])
    return ["## Class", "", "bench/classvote.py: a class on two app processes behind HAProxy sharing one SQLite "
            "store; each student votes once on the page's first Predict within the window, then stays, polling as "
            "the browser does. The class runs alone first (its vote p95, CPU and teacher are the budgets'); then, "
            "on the same deployment, a lecture hall presses controls alone and beside a second class of the same "
            "size (the hall's p95 without and with the class; that class's vote p95 and the CPU of both, shown, not "
            "judged). CPU: the app processes' over voting and staying.", "",
            *(table(["run", "target", "students", "acknowledged / stored", "vote p50", "vote p95",
                     "teacher complete after the last vote", "CPU (cores)", "poll p95", "dropped / voted again",
                     "lecture p95 without", "lecture p95 with", "errors"], rows) if rows else
              ["Not run in this mode (`python -m bench` and `python -m bench --class [--fault]` run it).", ""])]


def lab_section(res: dict) -> list[str]:
    t = (res.get("lab") or {}).get("training")
    if not t:
        return ["## Lab", "", "The slowest live training: not run in this mode.", ""]
    return ["## Lab", "", f"bench/lab.py reads the lab page's controls and live-training rules; of the "
            f"{t['candidates']} settings it trains live, those quoted slowest are trained as its Train button "
            f"does ({t['runs']} runs: every scheme × the live seeds). Its server time at defaults is the lab row of "
            "the reruns table.", "", *table(["settings", "quoted", "took"], [[x["settings"], sec(x["quoted_s"]),
                                                                              sec(x["seconds"])] for x in t["timed"]])]


def other_section(res: dict) -> list[str]:
    cs = res.get("cold_start") or {}
    return ["## Cold start", "", f"`streamlit run app.py` → the home page rendered in a fresh Chromium context: "
            f"{', '.join(sec(x) for x in cs.get('runs') or []) or 'not run'}" + (f" ({cs['error']})" if
                                                                                 cs.get("error") else "") + ".", "",
            "## Shared caches", "", *table(["file", "function", "kind", "max_entries"], [
                [f"{c['file']}:{c['line']}", c["function"], c["kind"], c["max_entries"]] for c in res.get("caches")
                or []])]


def render(res: dict) -> str:
    m = res["meta"]
    head = ["# Benchmarks", "", f"Generated by `{m['command']}` on {m['date']} ({res['mode']} mode) — regenerate, do "
            "not edit by hand.", ""]
    if m.get("rendered_from"):
        head += [f"(Written again from that run's saved results: `python -m bench --render {m['rendered_from']}`.)",
                 ""]
    head += [f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']}; {m['os']}. Python {m['python']}, Streamlit "
             f"{m['streamlit']}, Altair {m['altair']}, {m.get('chromium', 'Chromium ?')}. Load average at start / "
             f"end: {m['load_start']} / {m['load_end']}. Whole run: {m['seconds']:.0f} s.", ""]
    if m.get("changed_during_run"):
        head += [f"**Warning: source files changed while this ran** ({', '.join(m['changed_during_run'][:8])}): "
                 "run it again.", ""]
    parts = [budget_section, floors_section, rerun_section, controls_section, lab_section, load_section, class_section,
             other_section]
    return "\n".join(head + [line for part in parts for line in part(res)])


def summary(res: dict) -> str:
    found = misses(res)
    return "\n".join([f"{res['mode']}: {len(res.get('pages') or [])} pages, {len(found)} budget miss(es)"]
                     + [f"  ✗ {x}" for x in found])

"""The lab's slowest live training: the heaviest setting the lab page's controls allow, trained as its Train button
trains it (``lab.experiment(s, lab.LIVE_SEEDS, progress=…, losses_out=live)``, a job of frame.jobs' queue).

The page (lessons/lab.py) is a script, so it is read, not imported: its ``frame.select``/``frame.toggle`` calls
give every control's options; ``LIVE_STEPS``, ``LIVE_BUDGET_S`` and ``estimate_s`` (the page's own, else
posenc.lab's) say which settings it trains live (a live step count, quoted within the budget on a fresh server).
"""

from __future__ import annotations

import ast
import itertools
import time

from bench import ROOT
from frame import jobs
from posenc import lab

PAGE = ROOT / "lessons" / "lab.py"
NAMES = ("LIVE_STEPS", "LIVE_BUDGET_S", "SHARED", "per_step_s", "estimate_s")
KEYS = ("lab_task", "lab_k", "lab_layers", "lab_L", "lab_steps", "lab_heads", "lab_bos", "lab_mlp")
FIELDS = ("task", "k", "n_layers", "L_train", "steps", "heads", "bos", "mlp")  # lab.Settings' field of each key


def page_rules() -> tuple[dict[str, list], dict]:
    """({control key: options} of the page's controls, the page's live-training rules by name)."""
    tree = ast.parse(PAGE.read_text())
    rules: dict = {"lab": lab, "DEFAULT": lab.Settings()}
    for node in tree.body:
        names = [getattr(node, "name", None), *(getattr(t, "id", None) for t in getattr(node, "targets", []))]
        if isinstance(node, (ast.Assign, ast.FunctionDef)) and set(names) & set(NAMES):
            exec(compile(ast.Module([node], []), str(PAGE), "exec"), rules)  # noqa: S102 - the page's own code
    rules.update({n: getattr(lab, n) for n in NAMES if n not in rules and hasattr(lab, n)})
    options: dict[str, list] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and getattr(
                node.func.value, "id", None) == "frame" and len(node.args) >= 2 and isinstance(
                node.args[1], ast.Constant) and str(node.args[1].value).startswith("lab_"):
            if node.func.attr == "select":
                expr = ast.Expression(node.args[2])
                options[node.args[1].value] = list(eval(compile(expr, str(PAGE), "eval"), rules))  # noqa: S307
            elif node.func.attr == "toggle":
                options[node.args[1].value] = [False, True]
    return options, rules


def live_settings() -> list[tuple[float, lab.Settings]]:
    """(quoted seconds, settings) of every setting the page trains live, slowest first."""
    options, rules = page_rules()
    found = {}
    for values in itertools.product(*(options[key] for key in KEYS)):
        v = dict(zip(FIELDS, values))
        s = lab.Settings(task=v["task"], k=int(v["k"]) if v["task"] == "copy" else rules["DEFAULT"].k,
                         **{f: type(getattr(rules["DEFAULT"], f))(v[f]) for f in FIELDS[2:]})
        quoted = rules["estimate_s"](s)
        if s.steps in rules["LIVE_STEPS"] and quoted <= rules["LIVE_BUDGET_S"]:
            found[s] = quoted
    return sorted(((q, s) for s, q in found.items()), key=lambda x: -x[0])


def slowest_training(tries: int = 3) -> dict:
    """Time the ``tries`` settings quoted slowest (quotes tie), each exactly as the page trains it; the slowest."""
    found, timed, default = live_settings(), [], lab.Settings()
    for quoted, s in found[:tries]:
        q, live = jobs.Queue(), {}
        t0 = time.perf_counter()
        job = q.submit(("bench", s), lambda report, s=s, live=live: lab.experiment(
            s, lab.LIVE_SEEDS, progress=lambda done, total, _scheme: report(done / total), losses_out=live),
            quoted, live=live)
        job.done_event.wait()
        if job.state != jobs.DONE:
            raise RuntimeError(f"the training of {s} failed: {job.error}")
        timed.append({"seconds": time.perf_counter() - t0, "quoted_s": quoted, "settings": ", ".join(
            f"{f}={getattr(s, f)}" for f in FIELDS if f in ("task", "steps") or getattr(s, f) != getattr(default, f))})
    return {**max(timed, key=lambda t: t["seconds"]), "timed": timed, "candidates": len(found),
            "runs": len(lab.SCHEMES) * len(lab.LIVE_SEEDS)}

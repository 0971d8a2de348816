"""Precompute the lab page's results: every scheme × every task × seeds, at the defaults and one model variant.

    python scripts/precompute_lab.py               # writes data/lab_results.json
    python scripts/precompute_lab.py --out X.json  # somewhere else
    python scripts/precompute_lab.py --mask-leak-only  # (re)compute only each record's mask_leak, in place

The page opens on this file (no training at page load). Each run is the same code the page trains live with
(``posenc.lab.experiment``), so a cell regenerates exactly (``tests/test_lab.py`` checks one).
Set OPENBLAS_NUM_THREADS=1 for a quiet, reproducible run on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

import numpy as np  # noqa: E402

from posenc import lab  # noqa: E402

OUT = ROOT / "data" / "lab_results.json"


def default_settings() -> dict[str, lab.Settings]:
    """The page's default settings, one per task (10 seeds each)."""
    return {task: lab.Settings(task=task) for task in lab.TASKS}


VARIANT = "bos+mlp"  # the model with a start token and an MLP block (Kazemnejad et al.'s NoPE setting, in small)
VARIANT_SEEDS = lab.LIVE_SEEDS  # 5 seeds: this variant is 2× slower per run than the default model
BUDGET_S = 22 * 60  # the whole precompute must fit ~25 minutes of one process on the shared machine


def variant_settings() -> dict[str, lab.Settings]:
    return {task: lab.Settings(task=task, bos=True, mlp=True) for task in lab.TASKS}


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def records(data: dict) -> list[dict]:
    """Every experiment record of a results file: the defaults, then the variant's."""
    return [*data["experiments"].values(), *data.get("variants", {}).get(VARIANT, {}).values()]


def mask_leak_only(path: Path) -> None:
    """Set each record's ``mask_leak`` in the results file at ``path`` (``lab.mask_leak`` of its settings: an
    untrained model, no training, a fraction of a second each) and say so in its provenance; every other byte of
    the file stays as it was. ``lab.experiment`` computes the same value for every record it trains."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for record in records(data):
        record["mask_leak"] = list(lab.mask_leak(lab.settings_from(record)))
    out = path.resolve()
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    data["provenance"]["mask_leak_only"] = {
        "command": f"python scripts/precompute_lab.py --mask-leak-only --out {shown}",
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git_commit": git_commit(),
    }
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote mask_leak of {len(records(data))} records into {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--mask-leak-only", action="store_true",
                        help="only (re)compute each record's mask_leak in the file --out, without training")
    args = parser.parse_args(argv)
    if args.mask_leak_only:
        mask_leak_only(args.out)
        return
    started = time.perf_counter()
    experiments, variants, skipped, timings = {}, {}, [], {}
    for task, settings in default_settings().items():
        t0 = time.perf_counter()
        experiments[task] = lab.experiment(settings, lab.SEEDS)
        timings[task] = round(time.perf_counter() - t0, 1)
        print(f"{task}: {timings[task]} s", flush=True)
    for task, settings in variant_settings().items():
        spent = time.perf_counter() - started
        if spent > BUDGET_S:  # said in the file and on the page, never silently dropped
            skipped.append(task)
            continue
        t0 = time.perf_counter()
        variants[task] = lab.experiment(settings, VARIANT_SEEDS)
        timings[f"{VARIANT}/{task}"] = round(time.perf_counter() - t0, 1)
        print(f"{VARIANT} {task}: {timings[f'{VARIANT}/{task}']} s", flush=True)
    elapsed = time.perf_counter() - started
    out_arg = args.out.resolve()
    shown_out = out_arg.relative_to(ROOT) if out_arg.is_relative_to(ROOT) else out_arg
    record = {
        "provenance": {
            "command": f"python scripts/precompute_lab.py --out {shown_out}",
            "seeds": list(lab.SEEDS),
            "date_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "git_commit": git_commit(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "platform": platform.platform(),
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "unset"),
            "seconds": round(elapsed, 1),
            "seconds_per_experiment": timings,
            "variant_seeds": list(VARIANT_SEEDS),
            "variant_skipped_for_time": skipped,
            "note": "accuracies, losses and the probe rounded to 4 decimals, attention weights to 2 and kept from "
                    f"{lab.MAP_FLOOR} up (posenc.lab.cell, sparse_map)",
        },
        "experiments": experiments,
        "variants": {VARIANT: variants},
    }
    args.out.write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes) in {elapsed:.1f} s")


if __name__ == "__main__":
    main()

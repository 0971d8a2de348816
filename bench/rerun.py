"""Server rerun time and chart bytes per page with Streamlit's AppTest (no browser): after a warm-up run, *warm*
times N further ``at.run()`` calls (st.cache_data hit: a rerun that changes nothing cached), *cold* clears
st.cache_data and st.cache_resource before each of M runs (an upper bound for a first rerun after a change).
"""

from __future__ import annotations

import logging
import re
import statistics
import time
from typing import Any

from bench import APP, HELLO


def _quiet() -> None:
    for name in ("streamlit", "streamlit.runtime", "streamlit.runtime.caching",
                 "streamlit.runtime.scriptrunner_utils.script_run_context",
                 "streamlit.runtime.caching.cache_data_api"):
        logging.getLogger(name).setLevel(logging.ERROR)


def chart_bytes(at: Any) -> dict:
    """Bytes of chart data the last run sent: Vega-Lite specs and Arrow datasets (the app draws no images)."""
    charts = [c.proto for c in at.get("vega_lite_chart")]
    spec = sum(len(c.spec.encode()) for c in charts)
    data = sum(len(ds.data.data) for c in charts for ds in c.datasets) + sum(
        len(c.data.data) for c in charts if c.HasField("data"))
    return {"charts": len(charts), "spec_bytes": spec, "data_bytes": data, "bytes": spec + data}


RANGE = re.compile(r'"input"\s*:\s*"range"')


def controls(at: Any) -> tuple[int, int]:
    """How many sliders the page shows: Streamlit (main area) and Vega-Lite range bindings in its charts."""
    sliders = len(at.main.slider) + len(at.main.select_slider)
    ranges = sum(len(RANGE.findall(chart.proto.spec)) for chart in at.get("vega_lite_chart"))
    return sliders, ranges


def _problems(at: Any) -> list[str]:
    return [f"exception: {str(e.value).splitlines()[0][:160]}" for e in at.exception]


# The sidebar's running example at its largest: 64 words (the most posenc.tokenize accepts) with repeated words.
LONG_SENTENCE = (
    "The cat chased the mouse across the kitchen floor and the mouse ran under the old wooden table "
    "where the dog was sleeping so the cat jumped over the dog and the dog woke up and barked at the "
    "cat while the mouse escaped through a small hole in the wall behind the warm stove and never came "
    "back to the kitchen again today"
)
SIDEBAR_LARGEST = {"sentence": LONG_SENTENCE, "d": "512", "seed": "7"}


def _same(value: Any, raw: str) -> bool:
    """Whether the widget value in session state is what the URL asked for (as the frame parses it)."""
    if isinstance(value, bool):
        return str(value).lower() == raw.strip().lower()
    try:
        return float(value) == float(raw)
    except (TypeError, ValueError):
        return str(value) == raw


def _to_largest(at: Any) -> dict[str, str]:
    """Every main-area slider, select slider and number input with a maximum set to it (found on the page, never
    listed by hand); returns {key: value} of what was set."""
    done: dict[str, str] = {}
    for w in [*at.main.slider, *at.main.select_slider, *at.main.number_input]:
        top = w.options[-1] if getattr(w, "options", None) else getattr(w, "max", None)
        if w.key and top is not None and w.value != top and not isinstance(w.value, (tuple, list)):
            w.set_value(type(w.value)(top) if isinstance(w.value, (int, float)) else top)
            done[w.key] = f"{top:g}" if isinstance(top, float) else str(top)
    return done


def _timed_runs(at: Any, n: int, clear: bool) -> tuple[list[float], list[str]]:
    import streamlit as st

    times, problems = [], []
    for _ in range(n):
        if clear:
            st.cache_data.clear()
            st.cache_resource.clear()
        t0 = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - t0) * 1000)
        problems += _problems(at)
    return times, problems


def _timing(at: Any, warm: int, cold: int, errors: list[str], **extra: Any) -> dict:
    """Time ``warm`` cached and ``cold`` uncached reruns; the medians, the chart bytes and what went wrong."""
    warm_ms, p1 = _timed_runs(at, warm, clear=False)
    b = chart_bytes(at)
    cold_ms, p2 = _timed_runs(at, cold, clear=True)
    med = lambda xs: statistics.median(xs) if xs else None
    return {"warm": med(warm_ms), "cold": med(cold_ms), "warm_ms": warm_ms, "cold_ms": cold_ms, **b,
            "errors": sorted(set(errors + p1 + p2)), **extra}


def measure_page(path: str, largest: bool, warm: int, cold: int) -> dict:
    """Reruns of the page at ``path`` at its defaults or at its largest settings."""
    from streamlit.testing.v1 import AppTest

    _quiet()
    at = AppTest.from_file(str(APP), default_timeout=60)
    query = SIDEBAR_LARGEST if largest else {}
    for k, v in query.items():
        at.query_params[k] = v
    settings: dict[str, str] = {}
    try:
        at.run()
        if path != "lessons/home.py":
            at.switch_page(path).run()
        if largest:
            settings = _to_largest(at)
            at.run()
    except Exception as err:  # a page that cannot even run: report it, keep benchmarking the others
        return {"warm": None, "cold": None, "errors": [f"{type(err).__name__}: {err}"[:200]], "settings": {}}
    not_applied = [k for k, v in query.items() if k not in at.session_state or not _same(at.session_state[k], v)]
    sliders, ranges = controls(at)
    return _timing(at, warm, cold, _problems(at), not_applied=not_applied, sliders=sliders, vega_ranges=ranges,
                   settings=settings)


def measure_hello(warm: int, cold: int) -> dict:
    from streamlit.testing.v1 import AppTest

    _quiet()
    at = AppTest.from_file(str(HELLO), default_timeout=60)
    at.run()
    return _timing(at, warm, cold, _problems(at))


def warm_up_imports() -> None:
    """Run the app once so the first page measured does not pay for imports (a server has them)."""
    from streamlit.testing.v1 import AppTest

    _quiet()
    AppTest.from_file(str(APP), default_timeout=60).run()

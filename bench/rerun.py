"""Server rerun time and chart bytes per page with Streamlit's AppTest (no browser): after a warm-up run, *warm*
times N further ``at.run()`` calls (st.cache_data hit: a rerun that changes nothing cached), *cold* clears
st.cache_data and st.cache_resource before each of M runs (an upper bound for a first rerun after a change).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from bench import HELLO, ROOT
from bench.load import median

# The sidebar's running example at its largest: 64 words (the most posenc.tokenize accepts) with repeated words.
LONG_SENTENCE = (
    "The cat chased the mouse across the kitchen floor and the mouse ran under the old wooden table "
    "where the dog was sleeping so the cat jumped over the dog and the dog woke up and barked at the "
    "cat while the mouse escaped through a small hole in the wall behind the warm stove and never came "
    "back to the kitchen again today"
)
SIDEBAR_LARGEST = {"sentence": LONG_SENTENCE, "d": "512", "seed": "7"}


def chart_bytes(at: Any) -> dict:
    """Bytes of chart data the last run sent: Vega-Lite specs and Arrow datasets (the app draws no images)."""
    charts = [c.proto for c in at.get("vega_lite_chart")]
    return {"charts": len(charts), "bytes": sum(len(c.spec.encode()) + sum(len(ds.data.data) for ds in c.datasets)
                                                + (len(c.data.data) if c.HasField("data") else 0) for c in charts)}


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


def measure(path: str | None, largest: bool, warm: int, cold: int) -> dict:
    """Reruns of the app's page at ``path`` (None: the hello-world page) at its defaults or its largest settings:
    the medians of ``warm`` cached and ``cold`` uncached runs, the chart bytes and what went wrong."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    for name in ("streamlit", "streamlit.runtime", "streamlit.runtime.caching", "streamlit.runtime.caching."
                 "cache_data_api", "streamlit.runtime.scriptrunner_utils.script_run_context"):
        logging.getLogger(name).setLevel(logging.ERROR)
    at = AppTest.from_file(str(HELLO if path is None else ROOT / "app.py"), default_timeout=60)
    query = SIDEBAR_LARGEST if largest else {}
    for k, v in query.items():
        at.query_params[k] = v
    settings: dict[str, str] = {}
    try:
        at.run()
        if path not in (None, "lessons/home.py"):
            at.switch_page(path).run()
        if largest:
            settings = _to_largest(at)
            at.run()
    except Exception as err:  # a page that cannot even run: report it, keep benchmarking the others
        return {"warm": None, "cold": None, "errors": [f"{type(err).__name__}: {err}"[:200]], "settings": {}}
    import frame

    frame.warmed(60)  # a page's build-ahead (frame.warm) runs once per process, after its first run: not timed here
    out: dict[str, Any] = {"settings": settings, "not_applied": [
        k for k, v in query.items() if k not in at.session_state or not _same(at.session_state[k], v)]}
    problems = lambda: {f"exception: {str(e.value).splitlines()[0][:160]}" for e in at.exception}
    errors = problems()
    for how, n in (("warm", warm), ("cold", cold)):
        times = []
        for _ in range(n):
            if how == "cold":
                st.cache_data.clear()
                st.cache_resource.clear()
            t0 = time.perf_counter()
            at.run()
            times.append((time.perf_counter() - t0) * 1000)
            errors |= problems()
        out |= {how: median(times), f"{how}_ms": times}
        out |= chart_bytes(at) if how == "warm" else {}
    return out | {"errors": sorted(errors)}

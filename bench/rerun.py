"""Server-side rerun time and chart bytes per page, measured with Streamlit's AppTest (no browser).

Protocol for one page at one setting: ``AppTest.from_file("app.py")``, set the URL query parameters, run the
entry point, ``switch_page`` to the page and run it (warm-up: fills st.cache_data), then

- **warm**: time N further ``at.run()`` calls — the same arguments hit st.cache_data, so this is the real cost
  of a rerun that changes nothing the cached computation depends on (moving an unrelated control, opening
  an expander, the predict-then-reveal toggle);
- **cold**: ``st.cache_data.clear()`` and ``st.cache_resource.clear()`` before each of M timed runs — the page
  recomputes everything, an upper bound for the first rerun after moving a control that changes the
  computation.

The hello-world page (bench/hello_app.py) is measured the same way, run directly.
"""

from __future__ import annotations

import logging
import os
import re
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any

from bench import APP, HELLO

_MEDIA_SIZES: dict[str, int] = {}
_patched = False


def _patch_media_storage() -> None:
    """Record the size of every media file (st.image, st.pyplot …) AppTest stores, by file id.

    AppTest keeps media in a MemoryMediaFileStorage that is dropped after each run; the element only
    carries a URL ending in ``<file id>.<ext>``.
    """
    global _patched
    if _patched:
        return
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    original = MemoryMediaFileStorage.load_and_get_id

    def load_and_get_id(self, path_or_data, mimetype, kind, filename=None):  # type: ignore[no-untyped-def]
        file_id = original(self, path_or_data, mimetype, kind, filename)
        size = os.path.getsize(path_or_data) if isinstance(path_or_data, str) else len(path_or_data)
        _MEDIA_SIZES[file_id] = size
        return file_id

    MemoryMediaFileStorage.load_and_get_id = load_and_get_id  # type: ignore[method-assign]
    _patched = True


def _quiet() -> None:
    for name in ("streamlit", "streamlit.runtime", "streamlit.runtime.caching",
                 "streamlit.runtime.scriptrunner_utils.script_run_context",
                 "streamlit.runtime.caching.cache_data_api"):
        logging.getLogger(name).setLevel(logging.ERROR)


@dataclass
class ChartBytes:
    charts: int = 0
    spec: int = 0
    data: int = 0
    images: int = 0
    image_bytes: int = 0

    @property
    def total(self) -> int:
        return self.spec + self.data + self.image_bytes


def chart_bytes(at: Any) -> ChartBytes:
    """Bytes of chart data the last run sent: Vega-Lite specs and Arrow datasets, plus images."""
    out = ChartBytes()
    for chart in at.get("vega_lite_chart"):
        proto = chart.proto
        out.charts += 1
        out.spec += len(proto.spec.encode())
        out.data += sum(len(ds.data.data) for ds in proto.datasets)
        if proto.HasField("data"):
            out.data += len(proto.data.data)
    for chart in at.get("plotly_chart"):
        out.charts += 1
        out.spec += len(chart.proto.spec.encode())
    for node in at.get("imgs"):
        for img in node.proto.imgs:
            out.images += 1
            url = img.url
            if url.startswith("data:"):
                out.image_bytes += len(url)
            else:
                file_id = os.path.splitext(url.rsplit("/", 1)[-1])[0]
                out.image_bytes += _MEDIA_SIZES.get(file_id, 0)
    return out


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
    return {"warm": med(warm_ms), "cold": med(cold_ms), "warm_ms": warm_ms, "cold_ms": cold_ms, **asdict(b),
            "bytes": b.total, "errors": sorted(set(errors + p1 + p2)), **extra}


def measure_page(path: str, largest: bool, warm: int, cold: int) -> dict:
    """Reruns of the page at ``path`` at its defaults or at its largest settings."""
    from streamlit.testing.v1 import AppTest

    _quiet()
    _patch_media_storage()
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
    _patch_media_storage()
    at = AppTest.from_file(str(HELLO), default_timeout=60)
    at.run()
    return _timing(at, warm, cold, _problems(at))


def warm_up_imports() -> None:
    """Run the app once so the first page measured does not pay for imports (a server has them)."""
    from streamlit.testing.v1 import AppTest

    _quiet()
    AppTest.from_file(str(APP), default_timeout=60).run()

"""The posenc benchmark: `python -m bench` measures every page and writes BENCHMARKS.md.

Parts (see bench/run.py for the order and bench/report.py for the output):

- server rerun time per page via AppTest, warm (caches filled: the cost of moving an unrelated control) and
  cold (st.cache_data and st.cache_resource cleared before every run), at defaults and at the largest
  settings (bench/settings.py), as a ratio to a hello-world page measured in the same run
  (bench/hello_app.py);
- the bytes of chart data sent per rerun (Vega-Lite specs + Arrow datasets + images);
- in Debian's Chromium: slider key press → chart updated, and cold start from `streamlit run` to the first
  page rendered;
- a bounded load test (2 waves of 30 concurrent Streamlit sessions × 10 interactions over the websocket, or
  Chromium pages with --load-mode browser; full mode or `--load` only, never in CI);
- a static check that every st.cache_data / st.cache_resource in the app is bounded with max_entries.

`python -m bench --quick --out /tmp/b.md` does every part with minimal repetitions and skips the load test.
No number here is asserted by a test: tests/test_bench.py only checks that the quick run produces a
complete report.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
for _p in (str(ROOT), str(TESTS)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

APP = ROOT / "app.py"
HELLO = Path(__file__).resolve().parent / "hello_app.py"
REPORT = ROOT / "BENCHMARKS.md"

# The budgets.
BUDGET_RERUN_DEFAULT_MS = 100.0
BUDGET_RERUN_LARGEST_MS = 300.0
BUDGET_CHART_BYTES_DEFAULT = 300 * 1024
BUDGET_SLIDER_MS = 300.0
BUDGET_COLD_START_S = 5.0

"""The posenc benchmark: `python -m bench` measures every page and writes BENCHMARKS.md.

Parts (see bench/run.py for the order and options, bench/report.py for the output):

- server rerun time per page via AppTest, warm (caches filled: the cost of moving an unrelated control) and
  cold (st.cache_data and st.cache_resource cleared before every run), at defaults and at the largest
  settings (bench/settings.py), as a ratio to a hello-world page measured in the same run
  (bench/hello_app.py);
- the bytes of chart data sent per rerun (Vega-Lite specs + Arrow datasets + images);
- cold start from `streamlit run` to the first page rendered, in Debian's Chromium;
- every control of every page, discovered at run time (bench/controls.py): over the websocket, the server time
  per press, the bytes received and whether a fragment or the whole page reran; in Chromium, key press → run
  finished and charts redrawn (in-chart Vega-Lite controls: input event → chart redrawn); the hello-world page
  measured the same way in the same run;
- the load scenarios (bench/load.py): a lecture hall of 100 paced websocket sessions over all pages, and 30
  sessions with no pause (two waves: memory after sessions close), against one process and against two
  processes behind HAProxy (deploy/serve.py); `--load --url URL` drives any running deployment on this machine;
- a static check that every st.cache_data / st.cache_resource in the app is bounded with max_entries.

`python -m bench --quick --out /tmp/b.md` does the AppTest, cold-start and per-control parts with minimal
repetitions and skips the load test. No number here is asserted by a test: tests/test_bench.py only checks that
the quick run produces a complete report.
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
# Issue #10 ("A press redraws only what it moves"), per control, as ratios to the hello-world page in the same run.
BUDGET_CONTROL_BROWSER_X = 1.5  # key press → run finished and charts redrawn, median, × hello-world
BUDGET_IN_CHART_MS = 30.0  # in-chart control: input event → chart redrawn, median
BUDGET_CONTROL_SERVER_X = 4.0  # rerun request → script_finished, median, × hello-world
BUDGET_CONTROL_BYTES = 50 * 1024  # received per press, median
BUDGET_LECTURE_P95_MS = 1000.0  # the lecture hall on one process: p95, and 0 errors

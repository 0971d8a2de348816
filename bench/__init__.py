"""The posenc benchmark: `python -m bench` measures every page and writes BENCHMARKS.md.

Parts (bench/run.py runs them and saves what it measured as JSON; bench/report.py renders BENCHMARKS.md from
that JSON against the budget table in bench/budgets.py):

- server rerun time per page via AppTest (bench/rerun.py), warm and cold, at defaults and at the largest
  settings (every main-area slider and number input at its maximum, found on the page; the sidebar's example at
  its largest), and the chart bytes per rerun;
- cold start from `streamlit run` to the first page rendered, in Debian's Chromium;
- every control of every page, discovered at run time (bench/controls.py): over the websocket, the server time,
  bytes and fragment-or-page per press; in Chromium, press → redrawn, and in-chart controls and play buttons
  per frame; the hello-world page (bench/hello_app.py) measured the same way in the same run;
- the lab's slowest live training (bench/lab.py);
- the load scenarios (bench/load.py) and the class scenario (bench/classvote.py, `python -m bench --class`);
- a static check that every shared cache is bounded (bench/caches.py).

Browser helpers shared with the tests live in bench/browser.py. No number is asserted by a test.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
HELLO = Path(__file__).resolve().parent / "hello_app.py"
REPORT = ROOT / "BENCHMARKS.md"

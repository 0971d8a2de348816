"""The posenc benchmark: `python -m bench` (bench/run.py) measures every page, saves the results as JSON and
renders BENCHMARKS.md from them (bench/report.py) against the budget table (bench/budgets.py). Each module's
docstring says what its part measures. No number is asserted by a test; harness/ holds the browser
helpers it shares with the tests.
"""

from pathlib import Path

from harness import ROOT

HELLO = Path(__file__).resolve().parent / "hello_app.py"

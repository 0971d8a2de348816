"""The harness the tests and the benchmark share: the browser (Chromium, waits, chart checks, axe-core) and a
websocket session that speaks Streamlit's protocol without a browser."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

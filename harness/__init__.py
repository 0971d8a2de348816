"""The browser harness the tests and the benchmark share."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

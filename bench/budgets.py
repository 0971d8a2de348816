"""Every budget of the benchmark, one row each: what is measured, the limit, and what it is compared with.

A row's ``floor`` names a measurement of the same run that the limit multiplies (the hello-world page, measured
before and after the pages): ``×2 hello`` is judged against that run's own hello-world time, so a busy machine
moves the floor with the numbers. Without a floor the limit is absolute. The renderer (bench/report.py) reads
only this table; no budget is written anywhere else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

UNITS = {"ms": 1.0, "s": 1.0, "KB": 1024.0}


@dataclass(frozen=True)
class Budget:
    key: str
    what: str
    limit: float  # in ``unit`` (bytes for KB), or a multiple of the floor
    unit: str  # "ms", "s", "KB", or "×" (a multiple of ``floor``)
    floor: str | None = None  # "hello server" / "hello browser": the hello-world page's slider in this run

    def text(self) -> str:
        if self.unit == "×":
            return f"≤ ×{self.limit:g} {self.floor}"
        return f"≤ {self.limit / UNITS[self.unit]:g} {self.unit}"

    def holds(self, x: Any, floor: Any = None) -> bool | None:
        """Within the budget? None when there is nothing to judge (no number, or no floor for a ratio)."""
        if not number(x):
            return None
        if self.unit == "×":
            return None if not number(floor) or floor <= 0 else x <= self.limit * floor
        return x <= self.limit


def number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


BUDGETS = [
    Budget("rerun_default", "AppTest rerun at defaults, warm and cold (median)", 100, "ms"),
    Budget("rerun_largest", "AppTest rerun at the largest settings, warm and cold (median)", 300, "ms"),
    Budget("chart_bytes", "chart data per rerun at defaults", 300 * 1024, "KB"),
    Budget("slider", "first Streamlit slider of the main area: key press → charts redrawn (median)", 300, "ms"),
    Budget("cold_start", "`streamlit run` → home page rendered (median)", 5, "s"),
    Budget("control_server", "Streamlit control: rerun request → script_finished (median)", 4, "×",
           "hello server"),
    Budget("control_bytes", "Streamlit control: bytes received per press (median)", 50 * 1024, "KB"),
    Budget("control_browser", "Streamlit control: press → run finished and charts redrawn (median)", 2, "×",
           "hello browser"),
    Budget("presentation", "the presentation toggle: press → redrawn (median)", 300, "ms"),
    Budget("frame", "in-chart control or play button: one frame, input → chart redrawn (median; p95 shown)", 30,
           "ms"),
    Budget("lecture_p95", "lecture hall on one process: press p95 (and 0 errors)", 1000, "ms"),
]
BY_KEY = {b.key: b for b in BUDGETS}
PRESENTATION_LABEL = "Presentation mode"  # the sidebar toggle judged by ``presentation`` instead of ×hello

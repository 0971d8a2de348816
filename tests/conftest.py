"""Shared test fixtures: AppTest opened at the entry point, with full error details."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.util import patch_config_options

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
APP = str(ROOT / "app.py")


@pytest.fixture(autouse=True, scope="session")
def _full_error_details():
    with patch_config_options({"client.showErrorDetails": "full"}):
        yield


def open_page(page: str | None = None, query: dict[str, str] | None = None, **state) -> AppTest:
    """Run app.py (optionally with URL query parameters), then switch to ``page`` (e.g. "lessons/rope.py").

    ``state`` presets st.session_state keys (e.g. sentence=..., d=...) before the first run.
    The returned AppTest has run; callers assert ``not at.exception``.
    """
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    if page:
        at.switch_page(page).run()
    return at


def charts_of(at: AppTest) -> list:
    """The Vega-Lite charts on the page (Altair charts have no typed accessor)."""
    return list(at.get("vega_lite_chart"))


def page_text(at: AppTest) -> str:
    """All text a student reads on the page: markdown, captions, text, alerts, metrics, LaTeX."""
    parts = []
    for kind in ("markdown", "caption", "text", "error", "warning", "info", "success", "latex", "title",
                 "header", "subheader"):
        parts += [str(getattr(e, "value", "")) for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    return "\n".join(parts)

"""Shared test fixtures and helpers: AppTest opened at the entry point (with full error details), and the one
home of every helper the page tests share — open a page, assert it ran, read its text, its Markdown, its
verdicts, its word tables and its charts (spec and Arrow datasets).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.ipc
import pytest
from google.protobuf.message import Message
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.util import patch_config_options

from posenc.charts.spec import walk_dicts  # noqa: F401  (the one spec walker, shared with the page tests)

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


@pytest.fixture(autouse=True, scope="session")
def _full_error_details():
    with patch_config_options({"client.showErrorDetails": "full"}):
        yield


# ---------------------------------------------------------------- opening a page


def open_page(page: str | None = None, query: dict[str, str] | None = None, **state) -> AppTest:
    """Run app.py (optionally with URL query parameters), then switch to ``page`` (e.g. "lessons/rope.py").

    ``state`` presets st.session_state keys (e.g. sentence=..., d=...) before the first run.
    The returned AppTest has run; callers assert ``not at.exception`` (``assert_ok``).
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


def page_fixture(page: str):
    """A module-scoped fixture: ``page`` opened at its defaults, run without an exception. In a test module,
    ``default_page = page_fixture(PAGE)``."""

    @pytest.fixture(scope="module")
    def default_page() -> AppTest:
        return assert_ok(open_page(page))

    return default_page


def deep_link(page: str, query: dict) -> AppTest:
    """A fresh session whose first run is ``page`` with ``query``: a browser opening /scramble?… directly."""
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(page)
    at.run()
    return at


def assert_ok(at: AppTest) -> AppTest:
    """The run raised nothing (the message of every exception on failure); returns ``at`` for chaining."""
    assert not at.exception, [e.value for e in at.exception]
    return at


# ---------------------------------------------------------------- what the page says


def page_text(at: AppTest) -> str:
    """All text a student reads on the page: markdown, captions, text, alerts, metrics, LaTeX."""
    parts = []
    for kind in ("markdown", "caption", "text", "error", "warning", "info", "success", "latex", "title",
                 "header", "subheader"):
        parts += [str(getattr(e, "value", "")) for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    return "\n".join(parts)


def notices(at: AppTest) -> str:
    """The page's notices: warnings, infos and captions (where a bad link is explained)."""
    return "\n".join([e.value for e in (*at.warning, *at.info)] + [c.value for c in at.caption])


# Elements whose text is not Markdown: student text may appear there.
NOT_MARKDOWN = {"Text", "Code", "Dataframe", "UnknownElement", "Json"}
# Proto fields the browser renders as Markdown (bodies, labels, help texts, options).
RENDERED_FIELDS = {"body", "label", "help", "placeholder", "caption", "options"}


def frame_markup(proto) -> bool:
    """The frame's own fixed markup (the share button, the style sheet): no student text can be in it."""
    import frame

    body = getattr(proto, "body", None)
    return isinstance(body, str) and (body.strip() == frame.skeleton._SHARE.strip()
                                      or body.lstrip().startswith("<style>"))


def markdown_values(at: AppTest) -> list[str]:
    """Every string the browser renders as Markdown (or HTML): bodies of markdown/caption/alerts/titles/LaTeX/
    html, widget labels and help texts, expander and popover labels — everything except st.text, st.code,
    dataframes, charts, and the frame's own fixed markup."""
    found: list[str] = []

    def walk(node) -> None:
        for child in getattr(node, "children", {}).values():
            proto = getattr(child, "proto", None)
            if frame_markup(proto):
                continue
            if type(child).__name__ not in NOT_MARKDOWN and proto is not None and hasattr(proto, "ListFields"):
                stack = [proto]
                while stack:
                    msg = stack.pop()
                    for field, value in msg.ListFields():
                        values = value if isinstance(value, Sequence) and not isinstance(value, str) else [value]
                        for v in values:
                            if isinstance(v, Message):
                                stack.append(v)
                            elif isinstance(v, str) and field.name in RENDERED_FIELDS:
                                found.append(v)
            walk(child)

    walk(at._tree)
    return found


def check_line(at: AppTest, label: str) -> str:
    """The one verdict line (“Holds” / “Does not hold”) that contains ``label``; fails when there are 0 or 2+."""
    lines = [line for line in verdict_lines(at) if label in line]
    assert len(lines) == 1, (label, verdict_lines(at))
    return lines[0]


# frame.verdict writes "<icon> **Holds** — <claim>: <measured>" (or **Does not hold**).
HOLDS = ":material/check_circle: **Holds**"
FAILS = ":material/cancel: **Does not hold**"
VERDICT = re.compile(r"^(?P<mark>:material/check_circle: \*\*Holds\*\*|:material/cancel: \*\*Does not hold\*\*)"
                     r" — (?P<claim>.+?): (?P<measured>.+)$", re.S)
OLD_CHECK_MARKS = (":green[✓]", ":red[✗]")


def verdict_lines(at: Any) -> list[str]:
    """The verdicts among the Markdown of ``at`` (an AppTest or a block of it): the paragraphs that start with the
    Holds / Does not hold mark (a section's verdicts are one element, a paragraph each)."""
    return [line for m in at.markdown for line in m.value.split("\n\n") if line.startswith((HOLDS, FAILS))]


def verdicts(at: AppTest) -> list[tuple[bool, str, str]]:
    """Every verdict on the page as (holds, claim, measured); a verdict line that does not parse fails."""
    out = []
    for line in verdict_lines(at):
        m = VERDICT.match(line)
        assert m, f"a verdict without “— claim: measured”: {line!r}"
        out.append((m["mark"] == HOLDS, m["claim"].strip(), m["measured"].strip()))
    return out


def verdict(at: AppTest, claim: str) -> tuple[bool, str]:
    """The one verdict whose claim contains ``claim``: (holds, measured)."""
    found = [(h, ms) for h, c, ms in verdicts(at) if claim in c]
    assert len(found) == 1, (claim, verdict_lines(at))
    return found[0]


def strips(at: AppTest) -> list[dict[str, list[str]]]:
    """The by-position strips on the page (frame.strip: a first column naming each row, then positions 1, 2 …),
    each as {row name: its values in position order}."""
    out = []
    for df in at.dataframe:
        v = df.value
        if len(v.columns) > 1 and [str(c) for c in v.columns[1:]] == [str(i) for i in range(1, len(v.columns))]:
            out.append({str(row.iloc[0]): [str(x) for x in row.iloc[1:] if str(x) != ""] for _, row in v.iterrows()})
    return out


# ---------------------------------------------------------------- the page in document order


def elements(at: AppTest, root=None) -> Iterator:
    """Every node under the main area (or ``root``), in document order (depth first, children in order)."""
    node = at.main if root is None else root
    children = getattr(node, "children", {})
    for key in sorted(children):
        child = children[key]
        yield child
        yield from elements(at, child)


def kind(node) -> str:
    """The element's type name as AppTest knows it ("markdown", "vega_lite_chart", "header", …)."""
    return str(getattr(node, "type", ""))


# ---------------------------------------------------------------- charts


def charts_of(at: AppTest) -> list:
    """The Vega-Lite charts on the page (Altair charts have no typed accessor)."""
    return list(at.get("vega_lite_chart"))


def chart_spec(chart) -> dict:
    """A chart's Vega-Lite spec as sent to the browser (its datasets travel separately, as Arrow)."""
    return json.loads(chart.proto.spec)


def chart_specs(at: AppTest) -> list[dict]:
    return [chart_spec(c) for c in charts_of(at)]


def layout_of(fig_or_spec, *, slider_ranges: bool = True) -> dict:
    """A figure's (or a sent chart's) spec without its description, which ``spec.figure`` attaches per call: what
    the ``@layout`` built. Two presses with equal layouts reuse the layout, and the browser swaps only the data.
    ``slider_ranges=False`` also leaves out the ends of in-chart range sliders (a slider over d/2 pairs is
    structure that follows d)."""
    spec = json.loads(json.dumps(dict(getattr(fig_or_spec, "spec", fig_or_spec))))
    spec.pop("description", None)
    spec.pop("datasets", None)
    if not slider_ranges:
        for node in walk_dicts(spec):
            bind = node.get("bind")
            if isinstance(bind, dict) and bind.get("input") == "range":
                node["bind"] = {k: v for k, v in bind.items() if k not in ("min", "max")}
    return spec


def layouts(at: AppTest, *, slider_ranges: bool = True) -> list[dict]:
    """The layout of every chart on the page, in order (``layout_of``): equal lists = every layout reused."""
    return [layout_of(c, slider_ranges=slider_ranges) for c in chart_specs(at)]


def chart_tables(chart) -> dict[str, pa.Table]:
    """A chart's datasets, decoded from the Arrow IPC streams Streamlit sends."""
    return {ds.name: pa.ipc.open_stream(ds.data.data).read_all() for ds in chart.proto.datasets}


def chart_rows(chart) -> int:
    """Data rows a chart ships: its Arrow datasets plus any inline data (``data.values``, ``datasets``)."""
    spec = chart_spec(chart)
    inline = sum(len(d["data"]["values"]) for d in walk_dicts(spec)
                 if isinstance(d.get("data"), dict) and isinstance(d["data"].get("values"), list))
    inline += sum(len(v) for v in (spec.get("datasets") or {}).values() if isinstance(v, list))
    return sum(t.num_rows for t in chart_tables(chart).values()) + inline


def chart_bytes(at: AppTest) -> int:
    """Bytes every chart on the page sends: its spec and its Arrow datasets."""
    return sum(len(c.proto.spec) + sum(len(d.data.data) for d in c.proto.datasets) for c in charts_of(at))


def spec_params(spec: dict) -> Iterator[dict]:
    """Every Vega-Lite parameter (``params``) anywhere in a spec: top level, layers, concatenations."""
    for d in walk_dicts(spec):
        params = d.get("params")
        if isinstance(params, list):
            yield from (p for p in params if isinstance(p, dict))


def data_refs(node):
    """Every ``data`` reference in a Vega-Lite spec, nested layers included (to check that charts use named data)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "data" and isinstance(value, dict):
                yield value
            else:
                yield from data_refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from data_refs(value)


# ---------------------------------------------------------------- the question-first skeleton


def checks_block(at: AppTest):
    """The page's one folded Checks block (frame.skeleton.CHECKS_LABEL), or None."""
    import frame

    found = [e for e in at.expander if e.label == frame.skeleton.CHECKS_LABEL]
    assert len(found) <= 1, "more than one Checks block"
    return found[0] if found else None


def main_path(at: AppTest) -> Iterator:
    """The elements a student meets with every expander closed (every tab counted):
    everything under the main area outside expanders, in document order."""
    def walk(node):
        for key in sorted(getattr(node, "children", {})):
            child = node.children[key]
            if kind(child) == "expander":
                continue
            yield child
            yield from walk(child)
    yield from walk(at.main)


def predict_radios(at: AppTest) -> list:
    """The Predict questions on the page (their radio is named by the question)."""
    import frame

    return [r for r in at.radio if str(r.label).startswith(f"**{frame.skeleton.PREDICT_LABEL}.**")]


# ---------------------------------------------------------------- a real server and Chromium (browser tests)


@pytest.fixture(scope="module")
def server():
    """``streamlit run app.py`` on a free loopback port, for one test module (a module may override it)."""
    from bench.browser import streamlit_server

    with streamlit_server() as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright, for one test module; fails (never skips) when it is missing."""
    from playwright.sync_api import sync_playwright

    from bench.browser import launch

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()

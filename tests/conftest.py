"""Shared test fixtures and helpers: AppTest opened at the entry point (with full error details), and the one
home of every helper the page tests share — open a page, assert it ran, read its text, its Markdown, its
verdicts, its word tables and its charts (spec and Arrow datasets).
"""

from __future__ import annotations

import ast
import functools
import html
import json
import math
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.ipc
import pytest
from google.protobuf.message import Message
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.util import patch_config_options

import frame
from posenc.charts.spec import walk_dicts  # the one spec walker, shared with the page tests

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")

# The page list the page-wide properties run over, and its lessons: the chapter's pages (home and teach ask nothing).
PAGES = frame.existing_pages()
IDS = [p.url_path or "home" for p in PAGES]
LESSONS = [p for p in PAGES if p.url_path not in ("", "teach")]
LESSON_IDS = [p.url_path for p in LESSONS]


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


READING = re.compile("^{}(.*){}$".format(*map(re.escape, frame.live.reading_html("\0").split("\0"))), re.S)


def frame_markup(proto) -> bool:
    """The frame's own markup (the share button, the style sheet, a chart's reading as escaped text in HTML,
    never Markdown): no student text can act in it."""
    import frame

    body = getattr(proto, "body", None)
    if not isinstance(body, str):
        return False
    reading = READING.match(body)
    if reading:  # escaped through and through: the text shows as it is
        return html.escape(html.unescape(reading.group(1)), quote=False) == reading.group(1)
    return body.strip() == frame.skeleton._SHARE.strip() or body.lstrip().startswith("<style>")


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



def chart_readings(at: AppTest) -> list[str]:
    """Each chart's reading (frame.live.reading_html: the numbers of this setting, set right after the chart),
    in the order of ``charts_of``; "" for a chart without one."""
    out: list[str] = []
    for node in elements(at):
        if kind(node) == "vega_lite_chart":
            out.append("")
        elif kind(node) == "html" and out and not out[-1]:
            m = READING.match(str(node.proto.body))
            if m:
                out[-1] = html.unescape(m.group(1))
    return out


def chart_texts(at: AppTest) -> list[str]:
    """What a screen reader reads for each chart, in order: its description, then its reading."""
    return [f"{chart_spec(c).get('description', '')} {r}".strip() for c, r in zip(charts_of(at), chart_readings(at))]


def layout_of(fig_or_spec, *, slider_ranges: bool = True) -> dict:
    """A figure's (or a sent chart's) spec as the browser keys it: what the ``@layout`` built and the description
    (words fixed by the layout; the numbers travel in the reading). Two presses with equal layouts reuse the
    layout, and the browser keeps the chart and swaps only the data.
    ``slider_ranges=False`` also leaves out the ends of in-chart range sliders (a slider over d/2 pairs is
    structure that follows d)."""
    spec = json.loads(json.dumps(dict(getattr(fig_or_spec, "spec", fig_or_spec))))
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


def own_params(spec: dict) -> list[dict]:
    """A chart's own top-level params: without the presentation-mode param every chart carries
    (``spec.PRESENT_PARAM``), the height that mode caps, and the linked highlight (``spec.LINK_PARAM``)."""
    from posenc.charts import spec as chart_style

    return [p for p in spec.get("params", [])
            if p["name"] not in (chart_style.PRESENT_PARAM, chart_style.LINK_PARAM)
            and not (p["name"] == "height" and "update" in p)]


# Where each group of linked charts (posenc.charts.spec.Link) is drawn: its page and the address that opens the
# asides holding its charts. tests/test_pages.py checks this list against the pages; tests/test_browser.py points
# at a mark of each group in a real browser.
LINKED = {"sc_slot": ("scramble", ""), "bn_pair": ("binary", "?bn_deep_pairs=true"),
          "bn_x": ("binary", "?bn_deep_slope=true"),
          "lt_row": ("learned", "?lt_deep_training=true"), "lt_pair": ("learned", "?lt_deep_minilm=true")}


def lights_a_link(layer: dict) -> bool:
    """A layer that only draws what a linked hover lit (``spec.Link``: filtered by the lit key), not data: it
    carries no tooltip, so Vega leaves it out of pointer events."""
    from posenc.charts import spec as chart_style

    return any(chart_style.LINK_NOW in str(t.get("filter", "")) for t in layer.get("transform", []))


def link_groups(spec: dict) -> set[str]:
    """The link groups a chart belongs to: read from the key it calculates (``spec.Link.calculate``)."""
    from posenc.charts import spec as chart_style

    found = set()
    for node in chart_style.walk_dicts(spec):
        if node.get("as") == chart_style.LINK_FIELD and isinstance(node.get("calculate"), str):
            found.add(json.loads(node["calculate"].split(" + ", 1)[0]).removesuffix(":"))
    return found


def in_mode(spec: dict, present: bool) -> dict:
    """A chart's spec as the browser draws it in or out of presentation mode (``spec.PRESENT_PARAM``): every size
    that follows the mode evaluated (``vega_eval``) to its number, and a height the mode caps set to its value.
    A copy; expressions that read the container (fitted titles) stay."""
    from posenc.charts import spec as chart_style

    mode = {chart_style.PRESENT_PARAM: "1" if present else ""}
    out = json.loads(json.dumps({k: v for k, v in spec.items() if k != "datasets"}))

    def resolve(node):
        if isinstance(node, dict):
            expr = node.get("expr")
            if list(node) == ["expr"] and isinstance(expr, str) and expr.startswith(chart_style.PRESENTING + " ?"):
                return vega_eval(expr, params=mode)
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    out = resolve(out)
    for p in list(out.get("params", [])):
        if p.get("name") == "height" and "update" in p:
            out["height"] = vega_eval(p["update"], params=mode)
            out["params"].remove(p)
    return out


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
    return (d["data"] for d in walk_dicts(node) if isinstance(d.get("data"), dict))


# ---------------------------------------------------------------- the one mirror of Vega's expression language
# The in-chart closed forms are Vega expressions the browser evaluates; the client-expression tests read them from
# the built specs and evaluate them here, over the rows the chart ships, against posenc. JavaScript's meaning is
# kept where Python's differs: ``%`` takes the dividend's sign, ``+`` with a string concatenates (7, not 7.0),
# ``a ? b : c`` is right-associative, ``&&``/``||``/``!``, d3's ``format``. Anything else is refused loudly.


def _js_str(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _d3_format(v: float, spec: str) -> str:
    """d3-format for the specifiers the charts use: ``[,][.precision][~](d|f|g)`` — grouping, ``d`` rounded to a
    whole number, ``f`` fixed, ``g`` significant digits (``~`` trims insignificant zeros) — and d3's minus, −, never
    on a value that rounds to zero (d3-format: "if a negative value rounds to zero during formatting, treat as
    positive")."""
    m = re.fullmatch(r"(,?)(?:\.(\d+))?(~?)([dfg])", spec)
    if m is None:
        raise NotImplementedError(spec)
    group, precision, trim, kind = m.groups()
    if kind == "d":
        text = f"{round(v):{group}d}"
    elif kind == "f":  # z: a negative value that rounds to zero is written as zero, as d3 does
        text = f"{v:z{group}.{int(precision or 6)}f}"
    else:  # JavaScript's toPrecision keeps trailing zeros unless trimmed
        text = f"{v:z{group}.{int(precision or 6)}g}" if trim else f"{v:z{group}#.{int(precision or 6)}g}".rstrip(".")
    return text.replace("-", "−")


VEGA_FUNCTIONS = {"cos": math.cos, "sin": math.sin, "atan2": math.atan2, "sqrt": math.sqrt, "pow": math.pow,
                  "log": math.log, "exp": math.exp, "abs": abs, "floor": math.floor, "ceil": math.ceil,
                  "max": max, "min": min, "clamp": lambda v, lo, hi: max(lo, min(hi, v)), "format": _d3_format,
                  "toString": _js_str, "length": len,
                  "indexof": lambda a, b: a.find(b) if isinstance(a, str) else (a.index(b) if b in a else -1),
                  "sequence": lambda start, stop, step=1: [start + i * step for i in  # d3.range
                                                           range(max(0, math.ceil((stop - start) / step)))]}
VEGA_CONSTANTS = {"PI": math.pi, "E": math.e, "true": True, "false": False}


class _VegaEval(ast.NodeVisitor):
    def __init__(self, names: dict):
        self.names = names

    def visit_Expression(self, node):
        return self.visit(node.body)

    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        for names in (self.names, VEGA_CONSTANTS):
            if node.id in names:
                return names[node.id]
        raise NameError(f"the expression uses {node.id!r}, which the mirror does not know")

    def visit_Attribute(self, node):  # datum.x
        return getattr(self.visit(node.value), node.attr)

    def visit_Subscript(self, node):  # datum['a field'] (a field whose name is not a name), data('x')[0]
        value, key = self.visit(node.value), self.visit(node.slice)
        return value[key] if isinstance(value, list) else getattr(value, key)

    def visit_IfExp(self, node):
        return self.visit(node.body) if self.visit(node.test) else self.visit(node.orelse)

    def visit_BoolOp(self, node):  # && and || return an operand, as in JavaScript
        value = None
        for operand in node.values:
            value = self.visit(operand)
            if bool(value) != isinstance(node.op, ast.And):
                return value
        return value

    def visit_Call(self, node):  # data('name') comes with the params (the figure's datasets), the rest is Math
        call = self.names[node.func.id] if node.func.id == "data" else VEGA_FUNCTIONS[node.func.id]
        return call(*[self.visit(a) for a in node.args])

    def visit_UnaryOp(self, node):
        v = self.visit(node.operand)
        return {ast.USub: lambda: -v, ast.UAdd: lambda: +v, ast.Not: lambda: not v}[type(node.op)]()

    def visit_BinOp(self, node):
        a, b = self.visit(node.left), self.visit(node.right)
        op = node.op
        if isinstance(op, ast.Add):
            return _js_str(a) + _js_str(b) if isinstance(a, str) or isinstance(b, str) else a + b
        if isinstance(op, ast.Mod):
            return math.fmod(a, b)  # JavaScript's %: the sign of the dividend
        return {ast.Sub: lambda: a - b, ast.Mult: lambda: a * b, ast.Div: lambda: a / b}[type(op)]()

    def visit_Compare(self, node):
        if len(node.ops) > 1:  # a < b < c means (a < b) < c in JavaScript: no chart writes it
            raise NotImplementedError("a chained comparison")
        a, b = self.visit(node.left), self.visit(node.comparators[0])
        return {ast.Eq: a == b, ast.NotEq: a != b, ast.Lt: a < b, ast.Gt: a > b, ast.LtE: a <= b,
                ast.GtE: a >= b}[type(node.ops[0])]

    def generic_visit(self, node):
        raise NotImplementedError(f"the mirror does not evaluate {type(node).__name__}")


def _top_level(expr: str) -> Iterator[tuple[int, str]]:
    """Each character of ``expr`` outside quotes and brackets, with its index."""
    depth, quote = 0, None
    for k, c in enumerate(expr):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0:
            yield k, c


def _vega_to_python(expr: str) -> str:
    """Vega's syntax as Python's: ``a ? b : c`` → ``(b if a else c)`` at every depth (right-associative),
    ``===``/``!==``/``&&``/``||``/``!``; quoted text is left as it is."""
    ask, pending = -1, 0
    for k, c in _top_level(expr):
        if c == "?":
            ask, pending = (k, 0) if ask < 0 else (ask, pending + 1)
        elif c == ":" and ask >= 0 and pending:
            pending -= 1  # the ':' of a ternary inside the middle branch
        elif c == ":" and ask >= 0:
            cond, mid, rest = (_vega_to_python(e) for e in (expr[:ask], expr[ask + 1:k], expr[k + 1:]))
            return f"(({mid}) if ({cond}) else ({rest}))"
    if ask >= 0:
        raise ValueError(f"a '?' without its ':' in {expr!r}")
    out, k, quote = [], 0, None
    while k < len(expr):  # outside quotes: brackets translated inside (argument by argument), operators renamed
        c = expr[k]
        if quote or c in "'\"":
            quote = None if c == quote else (quote or c)
            out.append(c)
            k += 1
        elif c in "([":
            close, depth, j = {"(": ")", "[": "]"}[c], 1, k + 1
            while depth:
                depth += (expr[j] == c) - (expr[j] == close)
                j += 1
            inner = expr[k + 1:j - 1]
            cuts = [-1, *(i for i, ch in _top_level(inner) if ch == ","), len(inner)]
            out.append(c + ", ".join(_vega_to_python(inner[a + 1:b]) for a, b in zip(cuts, cuts[1:])) + close)
            k = j
        else:
            for js, py in (("===", "=="), ("!==", "!="), ("&&", " and "), ("||", " or "), ("!=", "!="), ("!", " not ")):
                if expr.startswith(js, k):
                    out.append(py)
                    k += len(js)
                    break
            else:
                out.append(c)
                k += 1
    return "".join(out)


@functools.lru_cache(maxsize=512)
def _vega_parse(expr: str) -> ast.Expression:
    return ast.parse(_vega_to_python(expr).strip(), mode="eval")


def vega_eval(expr: str, datum: dict | None = None, params: dict | None = None):
    """Evaluate one Vega expression over one row (``datum``) at these parameter values, as the browser would."""
    names = dict(params or {})
    names["datum"] = SimpleNamespace(**(datum or {}))
    return _VegaEval(names).visit(_vega_parse(expr))


AGGREGATES = {"max": max, "min": min, "sum": math.fsum, "count": len}  # Vega's ops the charts use


def run_transforms(rows: list[dict], transforms: list[dict], params: dict) -> list[dict]:
    """Vega-Lite's calculate, filter, pivot (one value a cell), joinaggregate and aggregate (max, min, sum, count,
    within their ``groupby``) over ``rows``, in order, as the browser runs them."""
    rows = [dict(r) for r in rows]
    for t in transforms:
        if "calculate" in t:
            for r in rows:
                r[t["as"]] = vega_eval(t["calculate"], r, params)
        elif "filter" in t:
            rows = [r for r in rows if vega_eval(t["filter"], r, params)]
        elif "pivot" in t:  # one row per group (in order of first appearance), one column per pivot value
            groups: dict = {}
            for r in rows:
                key = tuple(r[g] for g in t["groupby"])
                groups.setdefault(key, dict(zip(t["groupby"], key)))[r[t["pivot"]]] = r[t["value"]]
            rows = list(groups.values())
        elif "joinaggregate" in t or "aggregate" in t:  # per group (in order of first appearance)
            by = t.get("groupby", [])
            groups = {}
            for r in rows:
                groups.setdefault(tuple(r[g] for g in by), []).append(r)
            out = []
            for key, members in groups.items():
                done = {a["as"]: AGGREGATES[a["op"]]([m[a["field"]] for m in members] if "field" in a else members)
                        for a in t.get("joinaggregate", t.get("aggregate"))}
                out += [{**m, **done} for m in members] if "joinaggregate" in t else [{**dict(zip(by, key)), **done}]
            rows = out
        else:
            raise NotImplementedError(t)
    return rows


def transforms_over(spec: dict, data: str, last: str) -> list[dict]:
    """What the browser runs to compute ``last`` in the first layer over the dataset ``data``: the spec's own
    transforms (its layers share them), then that layer's."""
    return spec.get("transform", []) + layer_with(spec, data, last).get("transform", [])


def calculated(layer: dict, rows: list[dict], params: dict) -> list[dict]:
    """Every row of a layer after its per-row calculate transforms: its filters not applied, and only those before
    an aggregate (each row, as it goes into a sum)."""
    per_row = []
    for t in layer.get("transform", []):
        if "aggregate" in t or "joinaggregate" in t:
            break
        per_row += [t] if "calculate" in t else []
    return run_transforms(rows, per_row, params)


def spec_layers(spec: dict) -> list[dict]:
    """Every layer of a spec, inside a vconcat too, each with the data it draws (its own, or its parent's)."""
    if "vconcat" in spec:
        return [layer for view in spec["vconcat"] for layer in spec_layers(view)]
    return [{"data": spec["data"], **layer} if "data" in spec and "data" not in layer else layer
            for layer in spec.get("layer", [spec])]


def marks_of(node: dict) -> list[dict]:
    """Every mark of a spec, at any depth of layering."""
    if "layer" in node:
        return [m for layer in node["layer"] for m in marks_of(layer)]
    return [node["mark"]] if "mark" in node else []


def layer_with(spec: dict, data: str, field: str) -> dict:
    """The first layer over the dataset ``data`` that computes ``field``."""
    for layer in spec_layers(spec):
        if layer.get("data", {}).get("name") == data and any(t.get("as") == field for t in layer.get("transform", [])):
            return layer
    raise AssertionError(f"no layer over {data} computes {field}")


def tab_container(at: AppTest):
    """The page's first tab container (its proto: the tabs, which one opens)."""
    return at.get("tab_container")[0].proto.tab_container


def tab_index(at: AppTest) -> int:
    """Which tab of the page's first tab container opens (0-based): the one a link names or its controls set."""
    return tab_container(at).default_tab_index


def rows_of(fig, name: str) -> list[dict]:
    """A figure's dataset ``name`` as rows."""
    return fig.datasets[name].to_pylist()


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
    from harness.browser import streamlit_server

    with streamlit_server() as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright, for one test module; fails (never skips) when it is missing."""
    from playwright.sync_api import sync_playwright

    from harness.browser import launch

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def layouts_after_warming(page: str, module: str, layouts: Sequence[str]) -> dict[str, list]:
    """In a fresh Python process (no layout built by an earlier test): open ``page`` through app.py with AppTest,
    wait for the warm-ups it started (``frame.warmed``), and return each ``module``'s layout's kept keys (their
    positional arguments) by name. What it finds built, the page and its warm-up built."""
    code = f"""
import json, frame, importlib
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=60)
at.run()
at.switch_page({page!r}).run()
assert not at.exception, [e.value for e in at.exception]
assert frame.warmed(120)
m = importlib.import_module({module!r})
print(json.dumps({{name: [list(key[0]) for key in getattr(m, name).kept] for name in {list(layouts)!r}}}))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def assert_same_wherever_it_opens(page: str, param: str, values: Sequence[str], pick) -> None:
    """An in-chart control moves in the browser: a link's value for ``param`` changes only the chart's seeded
    slider (its value in the spec) and its reading, never its data nor the rest of its spec. ``pick`` finds the
    chart in the page opened by AppTest; ``values`` are links' values (the first is the comparison)."""
    def opened(v: str):
        chart = pick(assert_ok(open_page(page, query={param: v})))
        spec = chart_spec(chart)
        seeded = [p for p in own_params(spec) if p["name"] == param]
        assert len(seeded) == 1, f"{param} is not one of the chart's own params"
        seeded[0].pop("value", None)
        return spec, chart_tables(chart)

    (base_spec, base_tables), *others = [opened(v) for v in values]
    for v, (spec, tables) in zip(values[1:], others):
        assert spec == base_spec, f"{param}={v}: the spec changed beyond the slider's value"
        assert tables.keys() == base_tables.keys() and all(tables[k].equals(base_tables[k]) for k in tables), \
            f"{param}={v}: the data changed"

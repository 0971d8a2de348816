"""Chart builders shared by the pages: arrays in, ``alt.Chart`` out (altair + pandas, no streamlit).

Every chart has tooltips. Words are labelled with their 1-based positions ("4 the") so that two copies
of a word stay two marks, in sentence order.
"""

from __future__ import annotations

import hashlib
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import pyarrow as pa
from altair.utils.schemapi import SchemaBase, Undefined
from altair.vegalite.v6.schema.core import TopLevelSpec


MAX_MARKS = 5000
HIGHLIGHT = "#d62728"
BASE = "#4c78a8"


def to_spec(chart: alt.TopLevelMixin) -> dict:
    """The chart's Vega-Lite spec as a plain dict for ``st.vega_lite_chart``, so a page can cache it on its scalar
    settings instead of having Streamlit re-validate the chart on every rerun. Schema validation is skipped here
    (it walks every data row); the tests validate every chart builder. Altair's default 300×300 view is dropped,
    as ``st.altair_chart`` does."""
    spec = chart.to_dict(validate=False)
    view = spec.get("config", {}).get("view", {})
    if view == {"continuousWidth": 300, "continuousHeight": 300}:
        del spec["config"]["view"]
        if not spec["config"]:
            del spec["config"]
    return spec


# ---------------------------------------------------------------- a cheap spec for st.vega_lite_chart
def arrow_bytes(df: pd.DataFrame) -> bytes:
    """The table as Arrow IPC stream bytes, the form Streamlit sends chart data in (the same bytes as
    Streamlit's own conversion: ``pa.Table.from_pandas`` with the default index handling)."""
    table = pa.Table.from_pandas(df)
    sink = pa.BufferOutputStream()
    with pa.RecordBatchStreamWriter(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _shallow(chart):
    """A shallow copy of an Altair object without re-running its constructor (``chart.copy(deep=False)``
    re-runs it, and a layer chart's constructor deep-copies every layer)."""
    c = object.__new__(type(chart))
    object.__setattr__(c, "_args", chart._args)
    object.__setattr__(c, "_kwds", dict(chart._kwds))
    return c


def _named_data(chart, datasets: dict[str, bytes], names: dict[bytes, str]):
    """A shallow copy of ``chart`` (and of its layers / sub-charts) whose DataFrames are replaced by named
    datasets holding their Arrow bytes. Names go by position (data-0, data-1, … in the order met), so the
    spec stays the same when only the numbers change; equal tables share one name."""
    c = _shallow(chart)
    data = getattr(c, "data", Undefined)
    if isinstance(data, pd.DataFrame):
        raw = arrow_bytes(data)
        key = hashlib.md5(raw).digest()
        if key not in names:
            names[key] = f"data-{len(names)}"
            datasets[names[key]] = raw
        c.data = alt.NamedData(name=names[key])
    for attr in ("layer", "hconcat", "vconcat", "concat"):
        subs = getattr(c, attr, Undefined)
        if subs is not Undefined:
            setattr(c, attr, [_named_data(sub, datasets, names) for sub in subs])
    inner = getattr(c, "spec", Undefined)
    if isinstance(inner, alt.TopLevelMixin):
        c.spec = _named_data(inner, datasets, names)
    return c


def vega_spec(chart: alt.TopLevelMixin) -> dict:
    """The chart as a Vega-Lite spec dict for ``st.vega_lite_chart``, with its tables already in Arrow form
    (``datasets``: name → bytes, which Streamlit passes through unconverted). The same spec as
    ``posenc.charts.to_spec`` except the data: Altair's row-by-row data preparation and its copies of the
    chart are skipped, so this costs a fraction of ``to_spec`` and saves Streamlit's conversion on every
    rerun. Not validated: the tests validate each builder with ``chart.to_dict()`` and compare the two.

    Dataset names go by position, not content: when a slider changes only the numbers, the spec is
    unchanged and the browser swaps the data inside the chart it already has, instead of rebuilding the
    chart from scratch. (The builders keep the moving numbers — positions, lengths — in the data, not in
    the spec: sort orders by a data field, scale domains from the data.)"""
    datasets: dict[str, bytes] = {}
    c = _named_data(chart, datasets, {})
    # What chart.to_dict(validate=False) does at the top level, minus its defensive copy of the chart (for a
    # layer chart that copy re-runs the constructor, which deep-copies every layer) and minus the default
    # theme's 300 × 300 view, which to_spec drops too (Streamlit's own Altair path uses no theme).
    context: dict = {"datasets": {}, "top_level": False, "pre_transform": False}
    data = getattr(c, "data", Undefined)
    if data is not Undefined:
        context["data"] = data
    spec = SchemaBase.to_dict(c, validate=False, context=context)
    spec["$schema"] = alt.SCHEMA_URL
    # Drawn on a canvas rather than as SVG nodes: a redraw after a slider move costs the browser less.
    spec["usermeta"] = {"embedOptions": {"renderer": "canvas"}}
    if datasets:
        spec["datasets"] = datasets
    return spec


def layer(*charts, **properties) -> alt.LayerChart:
    """``alt.layer(*charts, **properties)`` without its defensive deep copies of every layer (made to merge
    the layers' parameters, which these charts do not have; each copy costs about a millisecond). Layers
    with parameters or with their own width, height or view go through ``alt.layer``."""
    if any(getattr(c, attr, Undefined) is not Undefined for c in charts
           for attr in ("params", "width", "height", "view")):
        return alt.layer(*charts, **properties)
    chart = object.__new__(alt.LayerChart)
    SchemaBase.__init__(chart, layer=list(charts), **properties)
    return chart


# ---------------------------------------------------------------- specs built as dicts, data as Arrow
def arrow_table(columns: dict[str, Any]) -> pa.Table:
    """Columns (numpy arrays, lists, or ``pa.Array``s such as ``categories(…)``) as an Arrow table, built
    straight from the arrays (no pandas)."""
    return pa.table({name: col if isinstance(col, pa.Array) else pa.array(np.asarray(col))
                     for name, col in columns.items()})


def table_bytes(table: pa.Table) -> bytes:
    """An Arrow table as IPC stream bytes: what Streamlit sends the browser for a chart's dataset."""
    sink = pa.BufferOutputStream()
    with pa.RecordBatchStreamWriter(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def categories(codes: np.ndarray, names: list[str]) -> pa.DictionaryArray:
    """A text column stored once per distinct value: names[codes[r]] in row r (an Arrow dictionary)."""
    index = np.int8 if len(names) <= 127 else np.int16 if len(names) <= 32767 else np.int32
    return pa.DictionaryArray.from_arrays(pa.array(np.asarray(codes, dtype=index)), pa.array(list(names)))


def tip(field: str, kind: str = "quantitative", **extra: Any) -> dict:
    """A Vega-Lite tooltip entry."""
    return {"field": field, "type": kind, **extra}


class Datasets:
    """The named datasets of one Vega-Lite spec, as Arrow bytes (``st.vega_lite_chart`` sends them as they are).

    Names are fixed by the builder, not derived from the data: when a control changes only the data, the spec
    stays byte-identical and Streamlit's frontend swaps the data into the existing view instead of compiling and
    drawing a new chart.
    """

    def __init__(self) -> None:
        self.named: dict[str, bytes] = {}

    def add(self, name: str, columns: dict[str, Any]) -> dict:
        """Store the columns under ``name``; returns the ``data`` reference to put in the spec."""
        self.named[name] = table_bytes(arrow_table(columns))
        return {"name": name}

    def spec(self, spec: dict) -> dict:
        """The finished top-level spec: schema URL, ``FAST`` settings and datasets added."""
        return {"$schema": alt.SCHEMA_URL, **spec, **fast(spec), "datasets": dict(self.named)}


#: Settings that make the browser's work per redraw small: a canvas, not one SVG element per mark; no
#: per-mark ARIA description (Vega-Lite would format one text per data row); no invalid-value filter (the
#: data here never holds NaN, and the filter is one more expression per row, interpreted in Streamlit's browser).
FAST = {"usermeta": {"embedOptions": {"renderer": "canvas"}}, "config": {"mark": {"invalid": None, "aria": False}}}


def fast(spec: dict) -> dict:
    """``FAST`` merged into the spec's own ``usermeta`` and ``config``."""
    config = dict(spec.get("config", {}))
    config["mark"] = {**FAST["config"]["mark"], **config.get("mark", {})}
    return {"usermeta": {**FAST["usermeta"], **spec.get("usermeta", {})}, "config": config}


def records(spec: dict) -> dict:
    """A copy of ``spec`` with every Arrow dataset decoded into JSON records (to validate it, or read its data)."""
    out = dict(spec)
    out["datasets"] = {name: pa.ipc.open_stream(raw).read_all().to_pylist() if isinstance(raw, bytes) else raw
                       for name, raw in spec.get("datasets", {}).items()}
    return out


def validate(spec: dict) -> dict:
    """Check a spec against the Vega-Lite schema (what Altair's ``to_dict()`` does); returns the decoded copy.
    Raises ``jsonschema.ValidationError`` when invalid."""
    full = records(spec)
    TopLevelSpec.validate(full)
    return full


def word_labels(tokens: list[str], start: int = 1) -> list[str]:
    """'1 the', '2 cat', … — position (1-based by default) and word."""
    return [f"{i + start} {w}" for i, w in enumerate(tokens)]


def heatmap(
    matrix: np.ndarray,
    row_labels: list[str] | None = None,
    col_labels: list[str] | None = None,
    *,
    row_title: str = "row",
    col_title: str = "column",
    value_title: str = "value",
    scheme: str = "blueorange",
    domain_mid: float | None = 0.0,
    height: int | None = None,
    width: int | str = "container",
    title: str = "",
) -> alt.Chart:
    """A matrix as coloured cells with a tooltip per cell (at most 5,000 cells: downsample first)."""
    m = np.asarray(matrix, dtype=float)
    if m.size > MAX_MARKS:
        raise ValueError(f"{m.size} cells is too many for one chart; downsample to ≤ {MAX_MARKS}.")
    rows = row_labels or [str(i) for i in range(m.shape[0])]
    cols = col_labels or [str(j) for j in range(m.shape[1])]
    df = pd.DataFrame(
        {
            row_title: np.repeat(rows, m.shape[1]),
            col_title: np.tile(cols, m.shape[0]),
            value_title: m.ravel(),
        }
    )
    scale = alt.Scale(scheme=scheme, domainMid=domain_mid) if domain_mid is not None else alt.Scale(scheme=scheme)
    chart = (
        alt.Chart(df, title=title)
        .mark_rect()
        .encode(
            x=alt.X(field=col_title, type="nominal", sort=list(dict.fromkeys(cols)), title=col_title,
                    axis=alt.Axis(labelAngle=0, labelOverlap=True)),
            y=alt.Y(field=row_title, type="nominal", sort=list(dict.fromkeys(rows)), title=row_title,
                    axis=alt.Axis(labelOverlap=False)),
            color=alt.Color(field=value_title, type="quantitative", scale=scale, title=value_title),
            tooltip=[alt.Tooltip(field=row_title, type="nominal"), alt.Tooltip(field=col_title, type="nominal"),
                     alt.Tooltip(field=value_title, type="quantitative", format=".4g")],
        )
        .properties(width=width)
    )
    return chart.properties(height=height or alt.Step(18))


def query_weights(
    weights: np.ndarray,
    tokens: list[str],
    *,
    default_query: int = 0,
    highlight: list[int] | None = None,
    title: str = "Attention weights of the chosen query word",
) -> alt.Chart:
    """Bars of weights[q, :] for one query q, chosen with a menu inside the chart (no rerun).

    All n×n weights are sent once; the menu re-slices them in the browser. Keys listed in
    ``highlight`` (e.g. the copies of a repeated word) are drawn in red. Masked keys have weight 0.
    """
    w = np.asarray(weights, dtype=float)
    n = len(tokens)
    labels = word_labels(tokens)
    hl = set(highlight or [])
    df = pd.DataFrame(
        {
            "query": np.repeat(labels, n),
            "key": np.tile(labels, n),
            "key word": np.tile(tokens, n),
            "key position": np.tile(np.arange(1, n + 1), n),
            "weight": w.ravel(),
            "repeated": np.tile([j in hl for j in range(n)], n),
        }
    )
    q = alt.param(
        name="query",
        value=labels[min(max(default_query, 0), n - 1)],
        bind=alt.binding_select(options=labels, name="Query word "),
    )
    return (
        alt.Chart(df, title=title)
        .mark_bar()
        .encode(
            x=alt.X("key:N", sort=labels, title="key word (position word)",
                    axis=alt.Axis(labelAngle=-40 if n > 8 else 0)),
            y=alt.Y("weight:Q", title="attention weight", scale=alt.Scale(domain=[0, 1])),
            color=alt.condition(alt.datum.repeated, alt.value(HIGHLIGHT), alt.value(BASE)),
            tooltip=["query:N", "key word:N", "key position:Q", alt.Tooltip("weight:Q", format=".6f")],
        )
        .add_params(q)
        .transform_filter(alt.datum.query == q)
        .properties(width="container", height=340)
    )


def line_chart(
    df: pd.DataFrame,
    x: str,
    y: str,
    color: str | None = None,
    *,
    x_title: str | None = None,
    y_title: str | None = None,
    log_x: bool = False,
    log_y: bool = False,
    title: str = "",
    height: int = 260,
    points: bool = False,
) -> alt.Chart:
    """Lines of y against x (one per value of ``color``), with a tooltip on every point."""
    if len(df) > MAX_MARKS:
        raise ValueError(f"{len(df)} points is too many for one chart; downsample to ≤ {MAX_MARKS}.")
    enc = {
        "x": alt.X(field=x, type="quantitative", title=x_title or x,
                   scale=alt.Scale(type="log") if log_x else alt.Scale()),
        "y": alt.Y(field=y, type="quantitative", title=y_title or y,
                   scale=alt.Scale(type="log") if log_y else alt.Scale(zero=False)),
        "tooltip": [alt.Tooltip(field=c, type="quantitative", format=".6g")
                    if pd.api.types.is_numeric_dtype(df[c]) else alt.Tooltip(field=c, type="nominal")
                    for c in df.columns],
    }
    if color:
        enc["color"] = alt.Color(field=color, type="nominal", title=color, sort=list(dict.fromkeys(df[color])))
    return (
        alt.Chart(df, title=title)
        .mark_line(point=points)
        .encode(**enc)
        .properties(width="container", height=height)
    )

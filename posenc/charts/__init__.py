"""Chart builders shared by the pages: arrays in, ``alt.Chart`` out (altair + pandas, no streamlit).

Every chart has tooltips. Words are labelled with their 1-based positions ("4 the") so that two copies
of a word stay two marks, in sentence order.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ..core import block_average  # noqa: F401  (re-exported for pages)

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

"""Charts for the learned-table page (arrays in, ``alt.Chart`` out; altair + pandas, no streamlit).

Built with the cheap Altair calls (constructor arguments instead of ``.properties``, typed values with a
condition instead of ``alt.condition``/``alt.value``, which validate while the chart is built); the page draws
them through ``posenc.charts.vega_spec`` and the tests validate every builder's full spec.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from . import BASE, HIGHLIGHT, MAX_MARKS
from . import layer

MISSING = "#bdbdbd"
WINDOW_LIMIT = 3.0  # colour scale of the table window: ±3 covers 99.7 % of N(0, 1) entries (beyond: full colour)


def two_lookups(word_rows: np.ndarray, position_rows: np.ndarray, labels: list[str], k: int) -> alt.FacetChart:
    """Three small heatmaps side by side: E[w_p], P[p] and x_p = E[w_p] + P[p] (first k coordinates)."""
    n = len(labels)
    k = min(k, word_rows.shape[1])
    panels = ["E[word]: word lookup", "P[p]: position lookup", "x = E[word] + P[p]"]
    mats = [word_rows[:n, :k], position_rows[:n, :k], (word_rows + position_rows)[:n, :k]]
    if 3 * n * k > MAX_MARKS:
        raise ValueError("Too many cells for one chart; show fewer coordinates.")
    df = pd.DataFrame({
        "panel": np.repeat(panels, n * k),
        "word": np.tile(np.repeat(labels, k), 3),
        "coordinate": np.tile(np.tile(np.arange(k), n), 3),
        "value": np.concatenate([m.ravel() for m in mats]),
    })
    lim = float(np.max(np.abs(df["value"]))) if len(df) else 1.0
    return (
        alt.Chart(df, width=alt.Step(max(15, 130 // max(k, 1))), height=alt.Step(24))
        .mark_rect()
        .encode(
            x=alt.X(field="coordinate", type="ordinal", title="coordinate",
                    axis=alt.Axis(labelAngle=0, values=list(range(0, k, 4)))),
            y=alt.Y(field="word", type="nominal", sort=labels, title=None, axis=alt.Axis(labelOverlap=False)),
            color=alt.Color(field="value", type="quantitative", title="value",
                            scale=alt.Scale(scheme="blueorange", domain=[-lim, lim])),
            tooltip=[alt.Tooltip(field="panel", type="nominal"), alt.Tooltip(field="word", type="nominal"),
                     alt.Tooltip(field="coordinate", type="ordinal"),
                     alt.Tooltip(field="value", type="quantitative", format=".3f")],
        )
        .facet(column=alt.Column(field="panel", type="nominal", sort=panels, title=None,
                                 header=alt.Header(labelFontSize=13, labelFontWeight="bold")))
    )


def table_window(table_rows: np.ndarray, rows: list[int], n_max: int, position: int, k: int) -> alt.LayerChart:
    """Rows ``rows`` (1-based) of the table, first k coordinates; rows past N_max are drawn as grey ‘no row’ cells.

    ``table_rows[i]`` is the row ``rows[i]`` (ignored for rows past the table). The asked-for row is outlined.
    """
    labels = [f"row {r}" for r in rows]
    m = len(rows)
    exists = np.repeat([r <= n_max for r in rows], k)
    vals = np.where(exists, np.asarray(table_rows, dtype=float)[:, :k].ravel(), np.nan)
    notes = [("looked up: " if r == position else "") + ("" if r <= n_max else f"no row {r}: the table ends at {n_max}")
             for r in rows]
    df = pd.DataFrame({
        "row": np.repeat(labels, k), "row number": np.repeat(rows, k), "coordinate": np.tile(np.arange(k), m),
        "order": np.repeat(np.arange(m, dtype=np.int16), k),
        "value": vals, "shade": np.where(exists, vals, 0.0), "exists": exists,
        "asked": np.repeat([r == position for r in rows], k),
        "note": np.repeat(notes, k), "mark": np.where(exists, "", "×"),
    })
    x = alt.X(field="coordinate", type="ordinal", title="coordinate of the row", axis=alt.Axis(labelAngle=0))
    y = alt.Y(field="row", type="nominal", sort=alt.EncodingSortField(field="order", op="min"), title=None,
              axis=alt.Axis(labelOverlap=False))
    tip = [alt.Tooltip(field="row number", type="quantitative"), alt.Tooltip(field="coordinate", type="ordinal"),
           alt.Tooltip(field="value", type="quantitative", format=".3f"), alt.Tooltip(field="note", type="nominal")]
    cells = alt.Chart(mark={"type": "rect", "strokeWidth": 2}).encode(
        x=x, y=y, tooltip=tip,
        color=alt.ColorValue(MISSING, condition={
            "test": "datum.exists", "field": "shade", "type": "quantitative", "title": "value",
            "scale": {"scheme": "blueorange", "domain": [-WINDOW_LIMIT, WINDOW_LIMIT], "clamp": True}}),
        stroke=alt.StrokeValue(None, condition={"test": "datum.asked", "value": HIGHLIGHT}),
    )
    cross = alt.Chart(mark={"type": "text", "color": "#666", "fontSize": 12}).encode(
        x=x, y=y, text=alt.Text(field="mark", type="nominal"), tooltip=tip)
    return layer(cells, cross, data=df, width=alt.Step(22), height=alt.Step(22))


def length_histogram(labels: list[str], sums: np.ndarray) -> alt.Chart:
    """Training sentences per length bin (bins 1, 2–3, 4–7, …)."""
    total = max(int(np.sum(sums)), 1)
    df = pd.DataFrame({"length (words)": labels, "sentences": sums, "share": sums / total})
    return (
        alt.Chart(df, title="Training sentences by length", width="container", height=330,
                  mark={"type": "bar", "color": BASE})
        .encode(
            x=alt.X(field="length (words)", type="ordinal", sort=None,  # the bins in data order
                    axis=alt.Axis(labelAngle=-50, labelOverlap=False)),
            y=alt.Y(field="sentences", type="quantitative"),
            tooltip=[alt.Tooltip(field="length (words)", type="ordinal"),
                     alt.Tooltip(field="sentences", type="quantitative", format=","),
                     alt.Tooltip(field="share", type="quantitative", format=".2%")],
        )
    )


def per_row(rows: np.ndarray, updates: np.ndarray, relative: np.ndarray,
            n_max: int) -> tuple[alt.Chart, alt.Chart]:
    """Two charts over the row axis: updates per row (symlog) and distance moved / starting length.

    ``rows`` (1-based, possibly a subsample) run from 1 to ``n_max``: the x axis spans the data's own extent."""
    if len(rows) and (int(rows[0]) != 1 or int(rows[-1]) != n_max):
        raise ValueError(f"The rows drawn must run from 1 to N_max = {n_max}.")
    df = pd.DataFrame({"row": rows, "updates": updates, "moved": relative})
    x = alt.X(field="row", type="quantitative", title="row p (position)",
              scale=alt.Scale(zero=False, nice=False),  # rows 1 … N_max: the data's own extent
              axis=alt.Axis(tickMinStep=1, format="d"))
    tip = [alt.Tooltip(field="row", type="quantitative"), alt.Tooltip(field="updates", type="quantitative", format=","),
           alt.Tooltip(field="moved", type="quantitative", format=".3f", title="moved (× starting length)")]
    top_n = max(int(np.max(updates)) if len(updates) else 1, 1)
    ticks = [0] + [10**e for e in range(1 if top_n >= 100 else 0, len(str(top_n)))]
    ytop = alt.Y(field="updates", type="quantitative", title="updates",
                 scale=alt.Scale(type="symlog"),
                 axis=alt.Axis(values=ticks, labelExpr="format(datum.value, ',')"))
    ybot = alt.Y(field="moved", type="quantitative", title="moved / start length")
    size = dict(width="container", height=250)
    hidden = {"opacity": 0, "size": 40}
    top = (alt.Chart(df, title="How many updates each row got", **size,
                     mark={"type": "area", "color": BASE, "opacity": 0.8, "interpolate": "step-after",
                           "point": hidden})
           .encode(x=x, y=ytop, tooltip=tip))
    bottom = (alt.Chart(df, title="How far each row moved from its random start", **size,
                        mark={"type": "line", "color": HIGHLIGHT, "strokeWidth": 1, "point": hidden})
              .encode(x=x, y=ybot, tooltip=tip))
    return top, bottom


def cosine_offsets(df: pd.DataFrame, title: str, max_offset: int | None = None) -> alt.LayerChart:
    """Mean cosine between rows k apart, one line per table (columns: offset k, mean cosine, table)."""
    if max_offset is not None:
        df = df[df["offset k"] <= max_offset]
    if len(df) > MAX_MARKS:
        raise ValueError("Too many points; downsample the offsets.")
    tables = list(dict.fromkeys(df["table"]))
    enc = dict(
        x=alt.X(field="offset k", type="quantitative", title="offset k (rows apart)",
                axis=alt.Axis(tickMinStep=1, format="d")),
        y=alt.Y(field="mean cosine", type="quantitative", title="mean cosine", scale=alt.Scale(domain=[-0.3, 1])),
        color=alt.Color(field="table", type="nominal", sort=tables, title=None,
                        scale=alt.Scale(range=[HIGHLIGHT, BASE, "#54a24b"]), legend=alt.Legend(orient="top")),
    )
    tip = [alt.Tooltip(field="table", type="nominal"), alt.Tooltip(field="offset k", type="quantitative"),
           alt.Tooltip(field="mean cosine", type="quantitative", format=".3f")]
    return (alt.Chart(df, title=title, width="container", height=330,
                      mark={"type": "line", "strokeWidth": 1.5, "point": {"opacity": 0, "size": 30}})
            .encode(tooltip=tip, **enc))


def row_norms(rows: np.ndarray, norms: np.ndarray, n_rows: int) -> alt.LayerChart:
    """‖P[p]‖ against the 1-based row p, with the end of the table marked (no row n_rows + 1)."""
    df = pd.DataFrame({"row": rows, "length": norms})
    x = alt.X(field="row", type="quantitative", title="row p",
              scale=alt.Scale(domain=[1, n_rows + 40], nice=False))
    line = alt.Chart(df, mark={"type": "line", "color": BASE, "point": {"size": 8}}).encode(
        x=x,
        y=alt.Y(field="length", type="quantitative", title="‖P[p]‖ (log)",
                scale=alt.Scale(type="log", nice=False,
                                domain=[float(np.min(norms)) * 0.8, float(np.max(norms)) * 1.25])),
        tooltip=[alt.Tooltip(field="row", type="quantitative"),
                 alt.Tooltip(field="length", type="quantitative", format=".3f", title="‖P[p]‖")],
    )
    edge = alt.Chart(pd.DataFrame({"row": [n_rows + 0.5], "end": [f"no row {n_rows + 1}: the table ends"]}),
                     mark={"type": "rule", "color": HIGHLIGHT, "strokeWidth": 3}).encode(
        x=x, tooltip=[alt.Tooltip(field="end", type="nominal")])
    title = f"Length of each trained row (red line: the end, no row {n_rows + 1})"
    return layer(line, edge, title=title, width="container", height=330)


def cosine_grid(matrix: np.ndarray, rows: list[int], title: str) -> alt.Chart:
    """cos(P_a, P_b) between the listed 1-based rows (a small square heatmap, −1 … 1)."""
    n = len(rows)
    if n * n > MAX_MARKS:
        raise ValueError("Too many cells; pick fewer rows.")
    df = pd.DataFrame({"row a": np.repeat(rows, n), "row b": np.tile(rows, n), "cosine": np.asarray(matrix).ravel()})
    return (
        alt.Chart(df, title=title, width="container", height=340)
        .mark_rect()
        .encode(
            x=alt.X(field="row b", type="ordinal", title="row", axis=alt.Axis(labelAngle=-90, values=rows[::4])),
            y=alt.Y(field="row a", type="ordinal", title="row", axis=alt.Axis(values=rows[::4])),
            color=alt.Color(field="cosine", type="quantitative", scale=alt.Scale(scheme="blueorange", domain=[-1, 1])),
            tooltip=[alt.Tooltip(field="row a", type="ordinal"), alt.Tooltip(field="row b", type="ordinal"),
                     alt.Tooltip(field="cosine", type="quantitative", format=".3f")],
        )
    )

"""Charts of the page “A learned table” (arrays in, ``spec.Figure`` out; no streamlit).

Every figure goes through the one pipeline (``spec.figure`` over named datasets) and fills its column: width
follows the container (``autosize`` fit-x), the height given is the plot's own. Rows are numbered 1 … N_max, as
the chapter counts positions; a row past the table is drawn as a crossed-out empty cell, never as a zero.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np

from .spec import (
    DIVERGING,
    FOCUS,
    REFERENCE,
    SERIES,
    Figure,
    Link,
    categories,
    check_marks,
    columns,
    figure,
    layout,
    named,
    nice_bound,
    series,
    text_from,
)

WINDOW_LIMIT = 3.0  # colour scale of the table window: ±3 covers 99.7 % of N(0, 1) entries (beyond: full colour)


# ---------------------------------------------------------------- two lookups
LOOKUP_PANELS = ("E[word]", "P[p]", "x = E[word] + P[p]")


def two_lookups(word_rows: np.ndarray, position_rows: np.ndarray, labels: list[str], k: int) -> Figure:
    """The three lookups side by side in one chart (E[w_p], P[p] and x_p = E[w_p] + P[p], first k coordinates of
    each word's row), one shared signed colour scale (±``nice_bound`` of the largest |value|): each panel is a band
    of the x axis, its coordinates inside it (so the chart fills its column instead of being three fixed-width
    facets)."""
    n = len(labels)
    k = min(k, word_rows.shape[1])
    mats = [np.asarray(m, dtype=float)[:n, :k] for m in (word_rows, position_rows, word_rows + position_rows)]
    check_marks(3 * n * k)
    limit = nice_bound(max(float(np.max(np.abs(m))) for m in mats) if n * k else 0.0)
    data = columns(panel=categories(np.repeat(np.arange(3), n * k), LOOKUP_PANELS),
                   word=categories(np.tile(np.repeat(np.arange(n), k), 3), labels),
                   coordinate=np.tile(np.tile(np.arange(1, k + 1), n), 3),
                   value=np.concatenate([m.ravel() for m in mats]))
    chart = _two_lookups_layout(labels, limit, int(min(420, max(100, 24 * n))))
    return figure(chart, {"rows": data}, description=(
        f"The word's row from E, the position's row from P and their sum x, side by side for each of the {n} words: "
        f"the third panel is the first two added cell by cell."))


@layout
def _two_lookups_layout(labels: Sequence[str], limit: float, height: int) -> alt.Chart:
    """The three panels over these word rows, colour scale ±``limit``."""
    return alt.Chart(named("rows")).mark_rect(aria=False).encode(
        x=alt.X("panel:N", sort=list(LOOKUP_PANELS), title=None, scale=alt.Scale(paddingInner=0.08),
                axis=alt.Axis(orient="top", labelAngle=0, labelFontWeight="bold", labelLimit=400, ticks=False,
                              domain=False)),
        xOffset=alt.XOffset("coordinate:O", title=None),
        y=alt.Y("word:N", sort=list(labels), title=None, axis=alt.Axis(labelLimit=110)),
        color=alt.Color("value:Q", title="value", scale=alt.Scale(scheme=DIVERGING, domain=[-limit, limit]),
                        legend=alt.Legend(gradientLength=140)),
        tooltip=[alt.Tooltip("panel:N"), alt.Tooltip("word:N"), alt.Tooltip("coordinate:O"),
                 alt.Tooltip("value:Q", format=".3f")],
    ).properties(height=height, title="Two lookups and an addition")


# ---------------------------------------------------------------- the edge of the table
def table_window(values: np.ndarray, rows: list[int], n_max: int, position: int) -> Figure:
    """Rows ``rows`` (1-based) of the table, first k coordinates; rows past N_max are empty cells with a ×
    (there is nothing to draw); the asked-for row is outlined in the focus colour. The row labels and the title,
    which name the rows, come with the data: only how many rows are shown is layout, so every p reuses it."""
    v = np.asarray(values, dtype=float)
    m, k = v.shape
    check_marks(m * k)
    labels = [f"row {r}" for r in rows]
    exists = np.repeat([r <= n_max for r in rows], k)
    note = [("looked up; " if r == position else "") + ("in the table" if r <= n_max else
                                                       f"no row {r}: the table ends at {n_max}") for r in rows]
    data = columns(row=categories(np.repeat(np.arange(m), k), labels), number=np.repeat(rows, k),
                   coordinate=np.tile(np.arange(1, k + 1), m), value=np.where(exists, v.ravel(), 0.0),
                   exists=exists, asked=np.repeat([r == position for r in rows], k),
                   note=categories(np.repeat(np.arange(m), k), note),
                   title=categories(np.zeros(m * k, dtype=int),
                                    [f"Rows around row {position}, coordinates 1–{k} (×: no such row)"]))
    past = [r for r in rows if r > n_max]
    return figure(_table_window_layout(m), {"window": data}, description=(
        "Rows of the position table around the row looked up, their first coordinates, the looked-up row "
        "outlined: a row past the end of the table has nothing in it, drawn as ×."), reading=(
        f"Rows {rows[0]} to {rows[-1]} of a table of {n_max} rows; row {position} is outlined"
        + (" (found)." if position <= n_max else " (it does not exist).")
        + (f" Rows past {n_max} have nothing in them: {len(past)} of the rows shown {'is' if len(past) == 1 else 'are'} drawn as ×." if past
           else " Every row shown is in the table.")))


@layout
def _table_window_layout(n_rows: int) -> alt.LayerChart:
    """Cells, × for missing rows and the asked-for row outlined, ``n_rows`` rows in the order of their numbers
    (labels and title from the "window" data)."""
    x = alt.X("coordinate:O", title=None, axis=alt.Axis(labelAngle=0))  # the title names the coordinates
    y = alt.Y("row:N", sort=alt.EncodingSortField("number", op="min"), title=None,
              axis=alt.Axis(labelOverlap=False))
    tip = [alt.Tooltip("number:Q", title="row"), alt.Tooltip("coordinate:O"),
           alt.Tooltip("value:Q", format=".3f"), alt.Tooltip("note:N")]
    cells = alt.Chart(named("window")).transform_filter(alt.datum.exists).mark_rect(aria=False).encode(
        x=x, y=y, tooltip=tip,
        color=alt.Color("value:Q", title="value",
                        scale=alt.Scale(scheme=DIVERGING, domain=[-WINDOW_LIMIT, WINDOW_LIMIT], clamp=True),
                        legend=alt.Legend(orient="right", direction="vertical", gradientLength=100)))
    missing = alt.Chart(named("window")).transform_filter(~alt.datum.exists).mark_text(aria=False,
        text="×", color=REFERENCE, fontSize=14).encode(x=x, y=y, tooltip=tip)
    asked = alt.Chart(named("window")).transform_filter(alt.datum.asked).mark_rect(aria=False,
        filled=False, stroke=FOCUS, strokeWidth=2).encode(x=x, y=y, tooltip=tip)
    return alt.layer(cells, missing, asked).properties(
        height=22 * n_rows, title=alt.TitleParams(text_from("window", "title")))


# ---------------------------------------------------------------- a pattern, not a magnitude
def pattern_chart(starts: np.ndarray, learned: np.ndarray, raw: np.ndarray, content: float,
                  n_max: int) -> Figure:
    """The size of the position part of a score (RMS over the sentence's pairs) wherever the sentence sits: the
    table's rows (flat) against the raw index (growing as p²), with the content part as the reference rule. The x
    axis runs over the table's rows, 1 … ``n_max`` (the last start, n_max − n + 1, would make each sentence length
    a new layout)."""
    s = np.asarray(starts, dtype=float)
    names = ["a row of the learned table", "the raw index p"]
    check_marks(2 * s.size)
    data = columns(start=np.r_[s, s], size=np.r_[np.asarray(learned, float), np.asarray(raw, float)],
                   code=categories(np.repeat([0, 1], s.size), names))
    chart = _pattern_layout(names, n_max)
    return figure(chart, {"parts": data, "content": columns(size=[float(content)], label=["the content part"])},
                  description=(f"The size of the position part of a score wherever the sentence starts in the "
                               f"table (rows 1 to {n_max}), against the content part (dashed): the learned table's part "
                               f"stays level from row to row, while the raw index's part grows with the square of "
                               f"the position."),
                  reading=(f"The learned row's part is {float(np.min(learned)) / content:.2g} to "
                           f"{float(np.max(learned)) / content:.2g} times the content part; the raw index's part "
                           f"grows to {float(np.max(raw)) / content:,.0f} times it."))


@layout
def _pattern_layout(names: Sequence[str], n_max: int) -> alt.LayerChart:
    """Two lines over the sentence's first row (log x over the table's rows, 1 … ``n_max``) and the content part's
    rule."""
    x = alt.X("start:Q", title="row of the sentence's first word (log scale)",
              scale=alt.Scale(type="log", nice=False, domain=[1, n_max]))
    y = alt.Y("size:Q", title="size of the position part of a score (log)", scale=alt.Scale(type="log"))
    lines = alt.Chart(named("parts")).mark_line(aria=False, point=alt.OverlayMarkDef(aria=False, size=30, filled=True)).encode(
        x=x, y=y, **series("code", names, title="position written as"),
        tooltip=[alt.Tooltip("code:N", title="position written as"), alt.Tooltip("start:Q", title="first row"),
                 alt.Tooltip("size:Q", format=",.3g")])
    rule = alt.Chart(named("content")).mark_rule(aria=False, color=REFERENCE, strokeDash=[4, 3]).encode(
        y=y, tooltip=[alt.Tooltip("label:N"), alt.Tooltip("size:Q", format=".3g")])
    text = alt.Chart(named("content")).mark_text(aria=False, align="right", x="width", dx=-4, dy=12, color=REFERENCE).encode(
        y=y, text="label:N")
    return alt.layer(lines, rule, text).properties(
        height=260, title="The position part of a score, row by row").configure_legend(
        direction="vertical")


# ---------------------------------------------------------------- training
def length_histogram(labels: list[str], sums: np.ndarray) -> Figure:
    """Training sentences per length bin (bins 1, 2–3, 4–7, …)."""
    sums = np.asarray(sums)
    total = max(int(np.sum(sums)), 1)
    data = columns(bin=categories(np.arange(len(labels)), labels), sentences=sums, share=sums / total)
    reading = ""
    if len(labels):
        top = int(np.argmax(sums))
        reading = (f"The fullest bin is {labels[top]} {'word' if labels[top] == '1' else 'words'}, with {int(sums[top]):,} of the {int(np.sum(sums)):,} "
                   f"sentences ({sums[top] / total:.0%}); the longest bin, {labels[-1]} words, has "
                   f"{int(sums[-1]):,}.")
    return figure(_lengths_layout(labels), {"lengths": data}, description=(
        "Training sentences by length, in bins that double (1, 2–3, 4–7, …): how many sentences of each length "
        "training sees."), reading=reading)


@layout
def _lengths_layout(labels: Sequence[str]) -> alt.Chart:
    """Bars over the length bins ``labels``, in order."""
    return alt.Chart(named("lengths")).mark_bar(aria=False, color=SERIES[0]).encode(
        x=alt.X("bin:O", sort=list(labels), title="sentence length (words)", axis=alt.Axis(labelAngle=-50)),
        y=alt.Y("sentences:Q", title="sentences"),
        tooltip=[alt.Tooltip("bin:O", title="length"), alt.Tooltip("sentences:Q", format=","),
                 alt.Tooltip("share:Q", format=".2%")],
    ).properties(height=220, title="Training sentences by length")


def per_row(rows: np.ndarray, updates: np.ndarray, relative: np.ndarray, n_max: int) -> tuple[Figure, Figure]:
    """Two charts over the row axis: updates per row (symlog) and distance moved ÷ starting length.

    ``rows`` (1-based, possibly a subsample) run from 1 to ``n_max``."""
    rows = np.asarray(rows)
    if len(rows) and (int(rows[0]) != 1 or int(rows[-1]) != n_max):
        raise ValueError(f"The rows drawn must run from 1 to N_max = {n_max}.")
    check_marks(len(rows))
    data = columns(row=rows, updates=np.asarray(updates), moved=np.asarray(relative, dtype=float))
    top_n = max(int(np.max(updates)) if len(updates) else 1, 1)
    ticks = [0] + [10 ** e for e in range(1 if top_n >= 100 else 0, len(str(top_n)))]
    u, r = np.asarray(updates), np.asarray(relative, dtype=float)
    return (figure(_updates_layout(ticks), {"rows": data}, description=(
                "Updates per row of the position table: every sentence updates row 1, only long ones reach the "
                "last rows."), reading=(
                f"The table has {n_max:,} rows: row 1 got {int(u[0]):,} updates and row {n_max:,} got "
                f"{int(u[-1]):,}.") if len(u) else ""),
            figure(_moved_layout(), {"rows": data}, description=(
                "How far each row of the position table moved from its random start, as a share of its starting "
                "length: rows that are rarely reached barely move."), reading=(
                f"Row 1 moved {r[0]:.3f} times its starting length, row {n_max:,} {r[-1]:.3f} times.")
                if len(r) else ""))


ROWS = Link("lt_row", "datum.row")  # updates and distance moved: the row pointed at lit in both charts


def _row_axis() -> tuple[alt.X, list[alt.Tooltip]]:
    """The row axis and the tooltip the two per-row charts share."""
    x = alt.X("row:Q", title="row p (position)", scale=alt.Scale(zero=False, nice=False),
              axis=alt.Axis(tickMinStep=1, format="d"))
    tip = [alt.Tooltip("row:Q"), alt.Tooltip("updates:Q", format=","),
           alt.Tooltip("moved:Q", format=".3f", title="moved (× starting length)")]
    return x, tip


def _per_row(marks: alt.Chart, y: alt.Y, title: str) -> alt.LayerChart:
    """A per-row chart (``marks`` over the rows, ``y`` its value) that lights the row nearest the pointer
    (``ROWS``) as a dashed rule, here and in the other per-row chart."""
    x, tip = _row_axis()
    return ROWS.crosshair("rows", marks, x, y, tip, title=title, what="row")


@layout
def _updates_layout(ticks: Sequence[int]) -> alt.LayerChart:
    """Updates per row as a step area, symlog y with the tick values ``ticks``."""
    return _per_row(
        alt.Chart(named("rows")).mark_area(aria=False, color=SERIES[0], opacity=0.8, interpolate="step-after"),
        alt.Y("updates:Q", title="updates (symlog)", scale=alt.Scale(type="symlog"),
              axis=alt.Axis(values=list(ticks), labelExpr="format(datum.value, ',')")),
        "How many updates each row got")


@layout
def _moved_layout() -> alt.LayerChart:
    """Distance moved ÷ starting length, per row."""
    return _per_row(alt.Chart(named("rows")).mark_line(aria=False, color=FOCUS, strokeWidth=1.5),
                    alt.Y("moved:Q", title="moved ÷ starting length"), "How far each row moved")


# ---------------------------------------------------------------- independence and the trained table
def cosine_offsets(offsets: np.ndarray, curves: dict[str, np.ndarray], title: str, height: int = 240) -> Figure:
    """Mean cosine between rows k apart, one line per table (``curves``: name → values at ``offsets``)."""
    names = list(curves)
    k = np.asarray(offsets, dtype=float)
    check_marks(k.size * len(names))
    data = columns(offset=np.tile(k, len(names)),
                   cosine=np.concatenate([np.asarray(curves[c], dtype=float) for c in names]),
                   table=categories(np.repeat(np.arange(len(names)), k.size), names))
    # the nearest offset drawn (1 unless the offsets are a sample that skips it), named by its value
    apart = np.flatnonzero(k > 0)
    i = int(apart[np.argmin(k[apart])]) if apart.size else -1
    near = "; ".join(f"{c}: {float(np.asarray(curves[c])[i]):+.3f}" for c in names) if i >= 0 else ""
    return figure(_offsets_layout(names, title, height), {"offsets": data}, description=(
        f"{title}: the mean cosine between rows k apart, for every offset k."),
        reading=f"Rows {k[i]:g} apart — {near}." if near else "")


@layout
def _offsets_layout(names: Sequence[str], title: str, height: int) -> alt.Chart:
    """One line per table ``names`` over the offset k (a legend only when there are two or more)."""
    return alt.Chart(named("offsets")).mark_line(aria=False, strokeWidth=1.8).encode(
        x=alt.X("offset:Q", title="offset k (rows apart)", axis=alt.Axis(tickMinStep=1, format="d")),
        y=alt.Y("cosine:Q", title="mean cosine", scale=alt.Scale(domain=[-0.3, 1])),
        **series("table", names, title=None, legend=len(names) > 1),
        tooltip=[alt.Tooltip("table:N"), alt.Tooltip("offset:Q"), alt.Tooltip("cosine:Q", format=".3f")],
    ).properties(height=height, title=title).configure_legend(direction="vertical")


def row_norms(rows: np.ndarray, norms: np.ndarray, n_rows: int) -> Figure:
    """‖P[p]‖ against the 1-based row p, with the end of the table marked (no row n_rows + 1)."""
    norms = np.asarray(norms, dtype=float)
    check_marks(len(norms))
    chart = _norms_layout(n_rows, float(np.min(norms)) * 0.8, float(np.max(norms)) * 1.25)
    return figure(chart, {"norms": columns(row=np.asarray(rows), length=norms),
                          "end": columns(row=[n_rows + 0.5], label=[f"no row {n_rows + 1}: the table ends"])},
                  description=f"The length of each row of the trained table, rows 1 to {n_rows}; there is no row "
                              f"{n_rows + 1}.",
                  reading=f"The rows' lengths run from {float(np.min(norms)):.2f} to {float(np.max(norms)):.2f}.")


@layout
def _norms_layout(n_rows: int, low: float, high: float) -> alt.LayerChart:
    """‖P[p]‖ on a log y from ``low`` to ``high``, x past the table's end, the end as a rule."""
    x = alt.X("row:Q", title="row p", scale=alt.Scale(domain=[1, n_rows + 40], nice=False))
    line = alt.Chart(named("norms")).mark_line(aria=False, color=SERIES[0]).encode(
        x=x, y=alt.Y("length:Q", title="‖P[p]‖ (log)",
                     scale=alt.Scale(type="log", nice=False, domain=[low, high])),
        tooltip=[alt.Tooltip("row:Q"), alt.Tooltip("length:Q", format=".3f", title="‖P[p]‖")])
    edge = alt.Chart(named("end")).mark_rule(aria=False, color=REFERENCE, strokeWidth=2, strokeDash=[4, 3]).encode(
        x=x, tooltip=[alt.Tooltip("label:N")])
    return alt.layer(line, edge).properties(
        height=240, title="Length of each trained row")


def cosine_grid(matrix: np.ndarray, rows: list[int], title: str) -> Figure:
    """cos(P_a, P_b) between the listed 1-based rows (a small square heatmap, −1 … 1)."""
    n = len(rows)
    check_marks(n * n)
    data = columns(a=np.repeat(rows, n), b=np.tile(rows, n), cosine=np.asarray(matrix, dtype=float).ravel())
    return figure(_grid_layout(list(rows[::4]), title), {"grid": data},
                  description=f"{title}: the cosine between every two of the rows shown.",
                  reading=f"{n} rows; neighbours in the grid (rows {rows[1] - rows[0] if n > 1 else 0} apart) have "
                          f"a mean cosine of "
                          f"{float(np.mean(np.diag(np.asarray(matrix, dtype=float), 1))) if n > 1 else 1.0:+.3f}.")


PAIRS = Link("lt_pair", "datum.a + ',' + datum.b")  # the two cosine grids: the pair pointed at lit in both


@layout
def _grid_layout(ticks: Sequence[int], title: str) -> alt.LayerChart:
    """The square cosine heatmap, axis labels at the rows ``ticks``; the pair pointed at (``PAIRS``, in either
    grid) outlined, the other cells faded."""
    x = alt.X("b:O", title="row", axis=alt.Axis(labelAngle=-90, values=list(ticks)))
    y = alt.Y("a:O", title="row", axis=alt.Axis(values=list(ticks)))
    base = alt.Chart(named("grid")).transform_calculate(**PAIRS.calculate)
    tip = [alt.Tooltip("a:O", title="row a"), alt.Tooltip("b:O", title="row b"),
           alt.Tooltip("cosine:Q", format=".3f")]
    cells = PAIRS.cells(base, x, y, tip, color=alt.Color("cosine:Q", scale=alt.Scale(scheme=DIVERGING, domain=[-1, 1]),
                                                         legend=alt.Legend(gradientLength=140)))
    return alt.layer(*cells).properties(
        height=280, title=alt.TitleParams(title, subtitle=PAIRS.hint("cell", "both grids")))

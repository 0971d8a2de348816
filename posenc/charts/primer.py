"""Charts of the attention primer (``posenc.primer.Primer`` in, ``spec.Figure`` out; no streamlit).

One figure holds every step, one panel per step, so the views are linked inside one spec: the query word picked
in the chart (``at_q``, a Vega-Lite param bound to a menu: no rerun) is outlined in every panel, and hovering
or tapping a row of any panel (``at_hover``, a point selection) lights that word's row in every panel. Words
are labelled "position word", 1-based. Marks are hidden from screen readers (``aria: false``): the chart is
named by its description (the five steps, in words), and its reading states the takeaway with its numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np

from posenc.primer import Primer

from .spec import (
    DIVERGING,
    FOCUS,
    HOVER_CLEAR,
    HOVER_ON,
    TEXT,
    Figure,
    categories,
    columns,
    figure,
    layout,
    named,
    word_labels,
)

PARAM = "at_q"  # the in-chart param: the picked query word's label (frame.live keeps it in the address)
HOVER = "at_hover"  # the point selection: the word under the pointer (or the last tap), lit in every panel
ROW_STEP = 20  # pixels per word row (room for the 18 px labels of presentation mode)
TEXT_MAX_WORDS = 10  # the picked row's numbers are printed in its cells up to this many words
WIDE_TEXT_MAX_WORDS = 6  # … side by side (narrower cells, 17 px numbers), up to this many
TEXT_SIZE = 12  # the printed numbers' size (presentation mode scales it with the axes: spec.Figure)
# The weights' colours stop at the ramp's middle, so the printed numbers (TEXT, #222) stay ≥ 4.6:1 on every
# cell (on Vega's "blues" ramp, dark text falls under 4.5:1 past 0.62 and white reaches it only past 0.73).
WEIGHT_SCHEME = {"name": "blues", "extent": [0, 0.6]}
PANELS = ["X", "qkv", "out"]  # the panels drawn from the "vectors" dataset


def _long(matrix: np.ndarray, rows: list[str], cols: list[str], panel: int) -> dict:
    n, k = matrix.shape
    return {"panel": np.full(n * k, panel), "row": np.repeat(rows, k), "col": np.tile(cols, n),
            "value": matrix.ravel()}


def _panel(view: str, data: str, panel: str | None, title: str, subtitle: str, rows: list[str], cols: list[str],
           value_title: str, scheme, hover, *, angle: int = 0, numbers: bool = False, width: int | str = "container",
           row_labels: bool = True, col_labels: bool = True) -> alt.LayerChart:
    """One step: a heatmap with the picked query's row outlined (FOCUS, thick) and its label in bold FOCUS; the
    hovered (or tapped) word's row stays full strength while the others fade. ``width`` a number and
    ``row_labels=False`` for the panels after the first of a side-by-side row (the same rows, labelled once)."""
    picked = f"datum.row === {PARAM}"
    base = alt.Chart(named(data))
    if panel is not None:
        base = base.transform_filter(alt.datum.panel == panel)
    label_colour = alt.expr(f"datum.value == {PARAM} ? '{FOCUS}' : '{TEXT}'")
    label_weight = alt.expr(f"datum.value == {PARAM} ? 'bold' : 'normal'")
    x = alt.X("col:N", sort=cols, title=None,
              axis=alt.Axis(labelAngle=angle, labelOverlap=True, orient="top") if col_labels else
              alt.Axis(labels=False, ticks=False, domain=False, orient="top"))
    y = alt.Y("row:N", sort=rows, title=None,
              axis=alt.Axis(labelColor=label_colour, labelFontWeight=label_weight, labelOverlap=False,
                            labelFlush=False) if row_labels else alt.Axis(labels=False, ticks=False, domain=False))
    scale = (alt.Scale(scheme=scheme, domainMid=0) if scheme == DIVERGING
             else alt.Scale(scheme=scheme, domain=[0, 1]))
    cells = base.mark_rect(aria=False).encode(
        x=x, y=y,
        color=alt.Color("value:Q", scale=scale, legend=None, title=value_title),
        opacity=alt.condition(hover, alt.value(1.0), alt.value(0.3)),
        tooltip=[alt.Tooltip("row:N", title="row"), alt.Tooltip("col:N", title="column"),
                 alt.Tooltip("value:Q", title=value_title, format=".4f")],
    ).properties(name=view)  # the views the hover selection listens to (named: ``_steps_layout``)
    outline = base.transform_filter(picked).mark_rect(filled=False, stroke=FOCUS, strokeWidth=3,
                                                      aria=False).encode(x=x, y=y)
    layers = [cells, outline]
    if numbers:
        layers.append(base.transform_filter(picked).mark_text(fontSize=TEXT_SIZE, fontWeight="bold", color=TEXT,
                                                              aria=False).encode(
            x=x, y=y, text=alt.Text("value:Q", format=".2f")))
    return alt.layer(*layers).properties(
        # the panels' titles are not read one by one either: the chart's description names the five steps
        title=alt.TitleParams(title, subtitle=subtitle, anchor="start", aria=False) if subtitle else
        alt.TitleParams(title, anchor="start", aria=False),
        height=ROW_STEP * len(rows), width=width,
    )


def steps(res: Primer, *, query: int, shown_words: int, shown_coords: int, copies: Sequence[int] = (),
          gap: float = 0.0, wide: bool = False) -> Figure:
    """The five steps for the first ``shown_words`` words and ``shown_coords`` coordinates; the picked query
    (0-based ``query``, clamped to the words shown) is outlined in every panel. ``copies`` (0-based) and ``gap``
    (the largest difference between their output rows) go into the reading: the takeaway, with its number.
    ``wide``: the five panels side by side, rows labelled once, short titles (a projector: lead and chart on one
    1280 × 720 screen); else one above the other, full width (a laptop or a phone)."""
    n = min(shown_words, len(res.tokens))
    k = min(shown_coords, res.d)
    rows = word_labels(res.tokens[:n])
    coords = [str(j + 1) for j in range(k)]
    qkv_cols = [f"{name}{j + 1}" for name in "qkv" for j in range(k)]
    qkv = np.hstack([res.Q[:n, :k], res.K[:n, :k], res.V[:n, :k]])
    parts = [_long(res.X[:n, :k], rows, coords, 0), _long(qkv, rows, qkv_cols, 1),
             _long(res.out[:n, :k], rows, coords, 2)]
    vectors = columns(panel=categories(np.concatenate([p["panel"] for p in parts]), PANELS),
                      **{key: np.concatenate([p[key] for p in parts]) for key in ("row", "col", "value")})
    pairs = {"row": np.repeat(rows, n), "col": np.tile(rows, n)}
    scores = columns(**pairs, value=res.S[:n, :n].ravel())
    weights = columns(**pairs, value=res.weights[:n, :n].ravel())
    of = f"first {k} of d coordinates"  # d itself is in the page's caption: a new d reuses the layout
    chart = _steps_layout(rows, coords, qkv_cols, of, rows[min(max(query, 0), n - 1)], wide)
    q = min(max(query, 0), n - 1)
    top = int(np.argmax(res.weights[q, :n]))
    takeaway = (f"Words {' and '.join(str(i + 1) for i in copies)} are the same word and get the same row in every "
                f"step (their outputs differ by at most {gap:.0e})." if copies else "No word repeats.")
    return figure(chart, {"vectors": vectors, "scores": scores, "weights": weights},
                  description="Attention in five steps: 1 word vectors, 2 queries, keys and values, 3 scores, "
                              "4 softmax weights, 5 the weighted sum. Every row of weights sums to 1.",
                  reading=(f"Each of the sentence's {len(res.tokens)} words is" if len(res.tokens) > 1
                           else "The sentence's one word is") + f" a vector of d = {res.d} numbers. "
                           + f"{takeaway} Word {q + 1}, the query outlined, gives its largest weight, "
                           f"{res.weights[q, top]:.2f}, to word {top + 1}.")


@layout
def _steps_layout(rows: Sequence[str], coords: Sequence[str], qkv_cols: Sequence[str], of: str,
                  picked: str, wide: bool = False) -> alt.VConcatChart | alt.HConcatChart:
    """The five panels for these word rows and coordinate columns, ``picked`` outlined at first; one above the
    other, or side by side (``wide``)."""
    n = len(rows)
    angle = -40 if wide or n > 5 else 0
    numbers = n <= (WIDE_TEXT_MAX_WORDS if wide else TEXT_MAX_WORDS)
    if wide:
        return _wide(rows, coords, qkv_cols, picked, angle, numbers)
    hover = alt.param(name=HOVER)  # what the panels test; the selection itself is declared below, once
    views = [f"at_cells_{i}" for i in range(5)]
    panels = [
        _panel(views[0], "vectors", "X", "1 · Word vectors X", f"one row per word; {of}", rows, coords,
               "coordinate", DIVERGING, hover),
        _panel(views[1], "vectors", "qkv", "2 · Query, key, value", "q = x W_Q, k = x W_K, v = x W_V, row by row",
               rows, qkv_cols, "coordinate", DIVERGING, hover),
        _panel(views[2], "scores", None, "3 · Scores S = q · k / √d", "row: the query; column: the key it reads",
               rows, rows, "score", DIVERGING, hover, angle=angle),
        _panel(views[3], "weights", None, "4 · Weights = softmax of each row", "positive, and every row sums to 1",
               rows, rows, "weight", WEIGHT_SCHEME, hover, angle=angle, numbers=numbers),
        _panel(views[4], "vectors", "out", "5 · Output = weights · V", f"each row mixes the value rows; {of}",
               rows, coords, "coordinate", DIVERGING, hover),
    ]
    chart = alt.vconcat(
        *panels,
        spacing=26,
    ).properties(
        # spec.figure leaves compositions alone; this simple vconcat of unit/layer panels needs fit-x to stay
        # inside its column (without it the panels spill past a phone's width)
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    return _linked(chart, views, rows, picked)


WIDE_WIDTHS = (130, 220, 150, 250, 130)  # side by side on a 1280 px projector (≈ 1,100 px of page width)


def _wide(rows, coords, qkv_cols, picked, angle, numbers) -> alt.HConcatChart:
    hover = alt.param(name=HOVER)
    views = [f"at_cells_{i}" for i in range(5)]
    w = WIDE_WIDTHS
    panels = [
        _panel(views[0], "vectors", "X", "1 · Words X", "", rows, coords, "coordinate", DIVERGING, hover,
               width=w[0]),
        _panel(views[1], "vectors", "qkv", "2 · q, k, v", "", rows, qkv_cols, "coordinate", DIVERGING, hover,
               width=w[1], row_labels=False),
        _panel(views[2], "scores", None, "3 · Scores", "", rows, rows, "score", DIVERGING, hover, angle=angle,
               width=w[2], row_labels=False, col_labels=False),
        _panel(views[3], "weights", None, "4 · Weights", "", rows, rows, "weight", WEIGHT_SCHEME, hover,
               angle=angle, numbers=numbers, width=w[3], row_labels=False, col_labels=False),
        _panel(views[4], "vectors", "out", "5 · Output", "", rows, coords, "coordinate", DIVERGING, hover,
               width=w[4], row_labels=False),
    ]
    return _linked(alt.hconcat(*panels, spacing=12), views, rows, picked)


def _linked(chart, views: list[str], rows: Sequence[str], picked: str):
    """The query menu (``at_q``) and the hover/tap selection over the five cell views, on the composition.
    (Side by side, the scores' and weights' columns are the words in the rows' order, unlabelled: the caption
    says so.)"""
    chart = chart.add_params(
        alt.param(name=PARAM, value=picked, bind=alt.binding_select(options=list(rows), name="Query word ")),
    ).resolve_scale(color="independent")
    # One point selection over the five cell views: a word hovered (or tapped) in any panel is lit in all of them.
    # Cleared when a mouse leaves (a tap's highlight stays until the next tap).
    chart.params = [alt.TopLevelSelectionParameter(
        name=HOVER, views=views,
        select=alt.PointSelectionConfig(type="point", fields=["row"], on=HOVER_ON, clear=HOVER_CLEAR)),
        *chart.params]
    return chart

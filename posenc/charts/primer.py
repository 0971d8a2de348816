"""Charts of the attention primer (``posenc.primer.Primer`` in, ``spec.Figure`` out; no streamlit).

One figure holds every step, one panel per step, so the query word picked in it (a Vega-Lite param bound to a
menu in the chart: no rerun) is outlined in every panel at once. Words are labelled "position word", 1-based.
"""

from __future__ import annotations

from typing import Sequence

import altair as alt
import numpy as np

from posenc.primer import Primer

from .spec import DIVERGING, FOCUS, SEQUENTIAL, TEXT, Figure, categories, columns, figure, layout, named, word_labels

PARAM = "query"  # the name of the in-chart param: the picked query word's label
ROW_STEP = 22  # pixels per word row (room for the 18 px labels of presentation mode)
TEXT_MAX_WORDS = 10  # the picked row's numbers are printed in its cells up to this many words


PANELS = ["X", "qkv", "out"]  # the panels drawn from the "vectors" dataset


def _long(matrix: np.ndarray, rows: list[str], cols: list[str], panel: int) -> dict:
    n, k = matrix.shape
    return {"panel": np.full(n * k, panel), "row": np.repeat(rows, k), "col": np.tile(cols, n),
            "value": matrix.ravel()}


def _panel(data: str, panel: str | None, title: str, subtitle: str, rows: list[str], cols: list[str],
           value_title: str, scheme: str, *, angle: int = 0, numbers: bool = False) -> alt.LayerChart:
    """One step: a heatmap with the picked query's row outlined (FOCUS, thick) and its label in bold FOCUS."""
    picked = f"datum.row === {PARAM}"
    base = alt.Chart(named(data))
    if panel is not None:
        base = base.transform_filter(alt.datum.panel == panel)
    label_colour = alt.expr(f"datum.value == {PARAM} ? '{FOCUS}' : '{TEXT}'")
    label_weight = alt.expr(f"datum.value == {PARAM} ? 'bold' : 'normal'")
    x = alt.X("col:N", sort=cols, title=None, axis=alt.Axis(labelAngle=angle, labelOverlap=True, orient="top"))
    y = alt.Y("row:N", sort=rows, title=None,
              axis=alt.Axis(labelColor=label_colour, labelFontWeight=label_weight, labelOverlap=False,
                            labelFlush=False))
    scale = alt.Scale(scheme=scheme, domainMid=0) if scheme == DIVERGING else alt.Scale(scheme=scheme, domain=[0, 1])
    cells = base.mark_rect().encode(
        x=x, y=y,
        color=alt.Color("value:Q", scale=scale, legend=None, title=value_title),
        tooltip=[alt.Tooltip("row:N", title="row"), alt.Tooltip("col:N", title="column"),
                 alt.Tooltip("value:Q", title=value_title, format=".4f")],
    )
    outline = base.transform_filter(picked).mark_rect(filled=False, stroke=FOCUS, strokeWidth=3).encode(x=x, y=y)
    layers = [cells, outline]
    if numbers:
        layers.append(base.transform_filter(picked).mark_text(fontSize=11, fontWeight="bold").encode(
            x=x, y=y, text=alt.Text("value:Q", format=".2f"),
            color=alt.condition(alt.datum.value > 0.55, alt.value("#ffffff"), alt.value(TEXT))))
    return alt.layer(*layers).properties(
        title=alt.TitleParams(title, subtitle=subtitle, anchor="start"),
        height=ROW_STEP * len(rows), width="container",
    )


def steps(res: Primer, *, query: int, shown_words: int, shown_coords: int) -> Figure:
    """The five steps for the first ``shown_words`` words and ``shown_coords`` coordinates; the picked query
    (0-based ``query``, clamped to the words shown) is outlined in every panel."""
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
    chart = _steps_layout(rows, coords, qkv_cols, of, rows[min(max(query, 0), n - 1)])
    return figure(chart, {"vectors": vectors, "scores": scores, "weights": weights},
                  description="Attention step by step on the sentence: word vectors, then queries, keys and "
                              "values, then scores, softmax weights and the weighted sum; the picked query word "
                              "is outlined in every step.")


@layout
def _steps_layout(rows: Sequence[str], coords: Sequence[str], qkv_cols: Sequence[str], of: str,
                  picked: str) -> alt.VConcatChart:
    """The five panels for these word rows and coordinate columns, ``picked`` outlined at first."""
    n = len(rows)
    angle = 0 if n <= 5 else -40
    numbers = n <= TEXT_MAX_WORDS
    return alt.vconcat(
        _panel("vectors", "X", "1 · Word vectors X", f"one row per word; {of}", rows, coords,
               "coordinate", DIVERGING),
        _panel("vectors", "qkv", "2 · Query, key, value", "q = x W_Q, k = x W_K, v = x W_V, row by row",
               rows, qkv_cols, "coordinate", DIVERGING),
        _panel("scores", None, "3 · Scores S = q · k / √d", "row: the query; column: the key it reads",
               rows, rows, "score", DIVERGING, angle=angle),
        _panel("weights", None, "4 · Weights = softmax of each row", "positive, and every row sums to 1",
               rows, rows, "weight", SEQUENTIAL, angle=angle, numbers=numbers),
        _panel("vectors", "out", "5 · Output = weights · V", f"each row mixes the value rows; {of}",
               rows, coords, "coordinate", DIVERGING),
        spacing=26,
    ).add_params(
        alt.param(name=PARAM, value=picked, bind=alt.binding_select(options=list(rows), name="Query word ")),
    ).resolve_scale(color="independent").properties(
        # spec.figure leaves compositions alone; this simple vconcat of unit/layer panels needs fit-x to stay
        # inside its column (without it the panels spill past a phone's width)
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))

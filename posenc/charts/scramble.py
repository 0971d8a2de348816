"""Charts of the sentence scramble (numpy in, ``spec.Figure`` out; no streamlit).

Words are labelled "position word" with their ORIGINAL 1-based position, so after a scramble the label of a row
says where its word came from ("5 mouse" in slot 2).
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np

from .primer import TEXT_SIZE
from .spec import DIVERGING, FOCUS, SERIES, TEXT, Figure, Link, columns, figure, layout, named, nice_bound

ROW_STEP = 22  # pixels per row (room for presentation mode's 18 px labels), down to what MAX_PLOT_HEIGHT allows
MAX_PLOT_HEIGHT = 300  # the cells' area; with the title, axes and legend a key chart stays within one screen (~420 px)
VALUE_LABELS_MAX = 12  # bars carry their weight as text up to this many words
SLOTS = Link("sc_slot", "datum.slot")  # the two output pictures: hovering a slot's row lights it in both


def outputs(matrix: np.ndarray, row_labels: list[str], *, title: str, d: int, limit: float,
            description: str, reading: str = "", legend: bool = True) -> Figure:
    """Output vectors as a heatmap: one row per slot of the scrambled sentence (top = slot 1), labelled with
    its word's original position (labels are unique: they carry the position); the first ``matrix.shape[1]`` of
    ``d`` coordinates (d is said in the reading, not the layout or the description, so a new d reuses the chart).
    ``description``: what the picture shows, in words; ``reading``: this setting's numbers. ``limit`` (the
    largest |value| of the pictures compared) fixes the colour range to [−b, b], b its ``nice_bound``, so that two
    pictures side by side share one scale (``legend=False`` for the first of them: one legend serves both)."""
    m = np.asarray(matrix, dtype=float)
    n, k = m.shape
    slots = [f"{s + 1}" for s in range(n)]
    data = columns(slot=np.repeat(slots, k), label=np.repeat(row_labels, k),
                   coordinate=np.tile(np.arange(1, k + 1), n), value=m.ravel())
    return figure(_outputs_layout(list(row_labels), n, k, nice_bound(limit), title, legend), {"main": data},
                  description=f"{description.strip()} The first {k} coordinates of each output are drawn.",
                  reading=f"{reading.strip()} Each output has d = {d} coordinates.")


@layout
def _outputs_layout(row_labels: Sequence[str], n: int, k: int, limit: float, title: str,
                    legend: bool = True) -> alt.LayerChart:
    """The slot × coordinate heatmap, rows labelled ``row_labels``, colours over [−limit, limit]; the slot
    pointed at (``SLOTS``, in either picture) outlined, the others faded."""
    height = min(MAX_PLOT_HEIGHT, ROW_STEP * n)
    x = alt.X("coordinate:O", title=f"coordinate (first {k} of d)", axis=alt.Axis(labelAngle=0, labelOverlap=True))
    y = alt.Y("label:N", sort=list(row_labels), title=None, axis=alt.Axis(labelOverlap=n > 24, labelFlush=False))
    base = alt.Chart(named("main")).transform_calculate(**SLOTS.calculate)
    tip = [alt.Tooltip("slot:O", title="slot"), alt.Tooltip("label:N", title="original position, word"),
           alt.Tooltip("coordinate:O"), alt.Tooltip("value:Q", format=".4f")]
    cells = SLOTS.cells(base, x, y, tip, color=alt.Color(
        "value:Q", scale=alt.Scale(scheme=DIVERGING, domain=[-limit, limit], domainMid=0), title="value",
        legend=alt.Legend() if legend else None))
    return alt.layer(*cells).properties(
        title=alt.TitleParams(title, subtitle="rows: slots 1, 2, …; labels: each word's original place"),
        height=height)  # the cells' own height: spec.figure fits the width only


def _js(text: str) -> str:
    """A JavaScript string literal (for a Vega expression) holding ``text`` exactly."""
    import json

    return json.dumps(text)


PARAM = "sc_q"  # the in-chart query (frame.live keeps it in the address)


def query_weights(weights: np.ndarray, labels: list[str], *, default_query: int, copies: list[int],
                  title: str) -> Figure:
    """Bars of weights[q, :] for one query q, picked in a menu inside the chart (a Vega-Lite param: no rerun).
    The copies of the repeated word are FOCUS bars with a thick dark outline and bold axis labels (a second
    cue besides colour). Masked keys have weight 0."""
    w = np.asarray(weights, dtype=float)
    n = len(labels)
    is_copy = np.array([j in set(copies) for j in range(n)])
    data = columns(query=np.repeat(labels, n), key=np.tile(labels, n), weight=w.ravel(),
                   copy=np.tile(is_copy, n))
    q = min(max(default_query, 0), n - 1)
    picked = labels[q]
    shown = ", ".join(f"{w[q, j]:.4f}" for j in copies)
    return figure(_query_weights_layout(list(labels), picked, list(copies), title), {"main": data},
                  description=f"{title}: bars of the attention weights from the query {picked} to every word. The "
                              f"copies of the repeated word (positions {', '.join(str(j + 1) for j in copies)}) get "
                              f"equal weights from any query that may read them all."
                  if copies else f"{title}: bars of the attention weights from the query {picked} to every word.",
                  reading=f"From the query {picked}, the copies get {shown}." if copies else "")


@layout
def _query_weights_layout(labels: Sequence[str], picked: str, copies: Sequence[int], title: str) -> alt.LayerChart:
    """Bars of the weights from the query picked in the in-chart menu (``picked`` at first); the ``copies``
    (indices into ``labels``) in FOCUS with an outline and bold axis labels."""
    n = len(labels)
    q = alt.param(name=PARAM, value=picked,
                  bind=alt.binding_select(options=labels, name="Query word "))
    copy_labels = "[" + ",".join(_js(labels[j]) for j in copies) + "]"
    x = alt.X("key:N", sort=labels, title="key word (original position, word)",
              axis=alt.Axis(labelAngle=-40 if n > 6 else 0,
                            labelFontWeight=alt.expr(f"indexof({copy_labels}, datum.value) >= 0 ? 'bold' : 'normal'"),
                            labelColor=alt.expr(f"indexof({copy_labels}, datum.value) >= 0 ? '{FOCUS}' : '{TEXT}'")))
    y = alt.Y("weight:Q", title="attention weight", scale=alt.Scale(domain=[0, 1]))
    base = alt.Chart(named("main")).transform_filter(alt.datum.query == q)
    bars = base.mark_bar(aria=False).encode(
        x=x, y=y,
        color=alt.condition(alt.datum.copy, alt.value(FOCUS), alt.value(SERIES[0])),
        stroke=alt.condition(alt.datum.copy, alt.value(TEXT), alt.value(None)),
        strokeWidth=alt.condition(alt.datum.copy, alt.value(2.5), alt.value(0)),
        tooltip=[alt.Tooltip("query:N"), alt.Tooltip("key:N"), alt.Tooltip("weight:Q", format=".6f")],
    )
    layers = [bars]
    if n <= VALUE_LABELS_MAX:
        layers.append(base.mark_text(dy=-7, fontSize=TEXT_SIZE, color=TEXT, aria=False).encode(x=x, y=y, text=alt.Text("weight:Q", format=".3f")))
    return alt.layer(*layers).add_params(q).properties(
        title=alt.TitleParams(title, subtitle="pick the query in the menu above the chart"), height=300)

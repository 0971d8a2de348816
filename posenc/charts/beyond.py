"""Charts for "Stretching the context": arrays in, Vega-Lite specs out (plain dicts; numpy, no streamlit).

Why dicts and not ``alt.Chart``: altair wraps and checks every channel as the chart is built, which costs
10–50 ms per chart even when ``to_dict`` skips validation; this page draws 11 charts, so building them with
altair alone would take the page past its budget every time a control moves. A dict costs well under a
millisecond. Each builder returns a complete Vega-Lite spec for ``st.vega_lite_chart``: the data in top-level
``"datasets"`` (lists of records), the layers read them by name. ``validate(spec)`` checks a spec against the
Vega-Lite schema that altair ships (the tests run it on every builder).

Every chart has tooltips; controls that only re-slice what is already drawn (which method to highlight,
which ALiBi head to show) are Vega-Lite parameters inside the chart, so they need no rerun. Values that change
with the page's controls live in the datasets wherever that is easy, so that moving a control often leaves the
spec itself unchanged and the browser only swaps the data of a chart it already drew.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from . import validate  # noqa: F401  (re-exported: the tests validate every builder with it)

from posenc.charts import BASE, HIGHLIGHT, MAX_MARKS, word_labels

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
# Canvas, not SVG: an SVG chart is redrawn element by element (thousands of DOM changes for a few hundred
# points), a canvas in one repaint. Streamlit reads the renderer from usermeta.embedOptions.
CANVAS = {"embedOptions": {"renderer": "canvas"}}
METHOD_COLORS = {
    "RoPE as trained": "#7f7f7f",
    "PI": "#4c78a8",
    "NTK-aware": "#f58518",
    "Dynamic NTK": "#54a24b",
    "YaRN": "#d62728",
}
DTYPE_COLORS = {"float64": "#4c78a8", "float32": "#d62728", "bfloat16": "#9467bd"}

Spec = dict[str, Any]


def _records(**columns: Any) -> list[dict]:
    """Columns (arrays or lists of one length) → a list of records, with plain Python numbers and strings."""
    keys = list(columns)
    values = [c.tolist() if isinstance(c, np.ndarray) else list(c) for c in columns.values()]
    return [dict(zip(keys, row)) for row in zip(*values)]


def _top(title: str, height: int, datasets: dict, **body: Any) -> Spec:
    return {"$schema": SCHEMA, "usermeta": CANVAS, "title": title, "width": "container", "height": height,
            "datasets": datasets, **body}


def _tip(field: str, title: str, type_: str = "quantitative", fmt: str | None = None) -> dict:
    tip = {"field": field, "type": type_, "title": title}
    if fmt:
        tip["format"] = fmt
    return tip


def _text(s: str) -> str:
    """A Vega expression string literal (JSON strings are valid JavaScript strings)."""
    return json.dumps(s, ensure_ascii=False)


def _pairs_x(n: int, title: str = "pair i (fastest → slowest)") -> dict:
    return {"field": "i", "type": "quantitative", "title": title, "scale": {"domain": [0, n - 1]},
            "axis": {"format": "d", "tickMinStep": 1}}


def _vrule(x: float, label: str, color: str) -> dict:
    """A dashed vertical rule at x with its label to the left of it, as one layer with its own tiny data."""
    return {
        "data": {"values": [{"x": float(x), "label": label}]},
        "layer": [
            {"mark": {"type": "rule", "color": color, "strokeDash": [4, 3]},
             "encoding": {"x": {"field": "x", "type": "quantitative"},
                          "tooltip": [_tip("label", "line", "nominal")]}},
            {"mark": {"type": "text", "align": "right", "baseline": "top", "dx": -4, "color": color, "fontSize": 12},
             "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"value": 4},
                          "text": {"field": "label", "type": "nominal"}}},
        ],
    }


# ---------------------------------------------------------------------------------------------- stretching
def rotations_spec(theta: np.ndarray, rotations: np.ndarray, L_train: int, height: int = 300) -> Spec:
    """Bars: turns r_i = L_train/λ_i each pair makes within L_train (log scale); a rule at one full turn.

    On a log axis a bar cannot start at 0: the bars start at a floor a little below the smallest r_i.
    """
    r = np.asarray(rotations, dtype=float)
    theta = np.asarray(theta, dtype=float)
    n = r.size
    floor = float(min(r.min(), 1.0)) / 2.0
    kinds = ["≥ 1 turn: every angle seen", "< 1 turn: later angles unseen"]
    pairs = _records(i=np.arange(n), theta=theta, wl=2 * np.pi / theta, r=r,
                     kind=np.where(r >= 1, kinds[0], kinds[1]))
    one = [{"i": n - 1, "label": "one full turn (r = 1)"}]
    bars = {
        "data": {"name": "pairs"},
        "mark": {"type": "bar"},
        "encoding": {
            "x": {"field": "i", "type": "ordinal", "title": "pair i (fastest → slowest)",
                  "axis": {"labelAngle": 0, "values": list(range(0, n, max(1, n // 16)))}},
            "y": {"field": "r", "type": "quantitative", "scale": {"type": "log"},
                  "title": f"turns within {L_train:,} tokens"},
            "y2": {"datum": floor},
            "color": {"field": "kind", "type": "nominal", "title": None,
                      "scale": {"domain": kinds, "range": [BASE, HIGHLIGHT]},
                      "legend": {"orient": "top", "labelLimit": 400}},
            "tooltip": [_tip("i", "pair i", "ordinal"), _tip("theta", "θ_i (rad per token)", fmt=".4g"),
                        _tip("wl", "wavelength λ_i (tokens)", fmt=",.1f"),
                        _tip("r", "turns within L_train", fmt=",.3g"), _tip("kind", "in training", "nominal")],
        },
    }
    rule = {"data": {"values": one}, "mark": {"type": "rule", "color": "#222", "strokeDash": [4, 3]},
            "encoding": {"y": {"datum": 1.0}, "tooltip": [_tip("label", "line", "nominal")]}}
    text = {"data": {"values": one}, "mark": {"type": "text", "align": "right", "dy": -8, "fontSize": 12,
                                              "color": "#222"},
            "encoding": {"x": {"field": "i", "type": "ordinal"}, "y": {"datum": 1.0},
                         "text": {"field": "label", "type": "nominal"}}}
    return _top("How many turns each pair makes within the trained context", height, {"pairs": pairs},
                layer=[bars, rule, text])


def _method_records(theta: np.ndarray, frequencies: dict, ramp: np.ndarray) -> list[dict]:
    """One record per (method, pair): m, i, t = θ'_i, wl = 2π/θ'_i, wl0 = 2π/θ_i, ratio = θ'_i/θ_i, g = γ_i,
    dash = 1 for the first method (drawn dashed).

    Everything is computed here rather than in Vega expressions: Streamlit runs Vega's expression
    interpreter (no eval), which is slow per row, and these charts are redrawn whenever s moves.
    """
    theta = np.asarray(theta, dtype=float)
    n = theta.size
    k = len(frequencies)
    t = np.concatenate([np.asarray(f, dtype=float) for f in frequencies.values()])
    t0 = np.tile(theta, k)
    dash = np.repeat(np.arange(k) == 0, n).astype(int)  # 1: the first method (RoPE as trained), drawn dashed
    return _records(m=np.repeat(np.array(list(frequencies)), n), i=np.tile(np.arange(n), k), t=t,
                    wl=2 * np.pi / t, wl0=2 * np.pi / t0, ratio=t / t0, g=np.tile(np.asarray(ramp, dtype=float), k),
                    dash=dash)


def _method_lines(methods: list[str], n: int, y: dict) -> dict:
    """Lines and points of one quantity per method (the first one dashed), a “Highlight” menu that dims the
    other methods (a click on a point does the same).

    The tooltips sit on the points only: Vega evaluates a tooltip for every mark item whenever the data change,
    and the line's vertices would double that work. The dash comes from a 0/1 column through a scale.
    """
    common = {
        "x": _pairs_x(n),
        "y": y,
        "color": {"field": "m", "type": "nominal", "title": None, "sort": methods,
                  "scale": {"domain": methods, "range": [METHOD_COLORS.get(m, BASE) for m in methods]},
                  "legend": {"orient": "top", "title": None}},
        "opacity": {"condition": {"param": "method_pick", "value": 1.0}, "value": 0.12},
    }
    line = {"mark": {"type": "line"},
            "encoding": {**common, "strokeDash": {"field": "dash", "type": "nominal", "legend": None,
                                                  "scale": {"domain": [0, 1], "range": [[1, 0], [5, 4]]}}}}
    points = {
        "params": [{"name": "method_pick", "select": {"type": "point", "fields": ["m"]},
                    "bind": {"input": "select", "options": [None, *methods], "labels": ["all methods", *methods],
                             "name": "Highlight "}}],
        "mark": {"type": "point", "filled": True, "size": 18},
        "encoding": {**common,
                     "tooltip": [_tip("m", "method", "nominal"), _tip("i", "pair i"), _tip("t", "new θ_i", fmt=".4g"),
                                 _tip("wl", "new wavelength (tokens)", fmt=",.1f"),
                                 _tip("wl0", "old wavelength (tokens)", fmt=",.1f"),
                                 _tip("ratio", "new θ ÷ old θ", fmt=".4f"), _tip("g", "YaRN ramp γ_i", fmt=".3f")]},
    }
    return {"data": {"name": "methods"}, "layer": [line, points]}


def wavelength_spec(theta: np.ndarray, frequencies: dict, ramp: np.ndarray, L_train: int, L_new: int,
                    height: int = 320) -> Spec:
    """Per-pair wavelength before and after each method (log scale), with rules at L_train and s·L_train.

    A menu inside the chart highlights one method (no rerun). L_train and s·L_train are data, not spec:
    moving s changes only the chart's datasets.
    """
    methods = list(frequencies)
    n = int(np.asarray(theta).size)
    rules = [{"y": float(L_train), "label": f"L_train = {L_train:,}"},
             {"y": float(L_new), "label": f"s·L_train = {L_new:,}"}]
    lines = _method_lines(methods, n, {"field": "wl", "type": "quantitative", "scale": {"type": "log"},
                                       "title": "wavelength (tokens per turn)"})
    rule = {"data": {"name": "rules"}, "mark": {"type": "rule", "color": "#222", "strokeDash": [2, 3]},
            "encoding": {"y": {"field": "y", "type": "quantitative"}, "tooltip": [_tip("label", "line", "nominal")]}}
    text = {"data": {"name": "rules"}, "mark": {"type": "text", "align": "left", "dx": 4, "dy": -7, "fontSize": 12,
                                                "color": "#222"},
            "encoding": {"y": {"field": "y", "type": "quantitative"}, "x": {"value": 4},
                         "text": {"field": "label", "type": "nominal"}}}
    return _top("Wavelength of every pair, before and after stretching", height,
                {"methods": _method_records(theta, frequencies, ramp), "rules": rules}, layer=[lines, rule, text])


def ratio_spec(theta: np.ndarray, frequencies: dict, ramp: np.ndarray, low: int, high: int, s: int,
               height: int = 300) -> Spec:
    """θ'_i / θ_i per pair and method (log scale: 1 = untouched, 1/s = slowed by s); YaRN's ramp shaded.

    The y axis spans [min(smallest ratio, 1/s)/1.4, 1.4]: two invisible points in the data set it, so that
    moving s changes only the chart's datasets.
    """
    methods = list(frequencies)
    theta = np.asarray(theta, dtype=float)
    n = theta.size
    lo_r = min(float(np.min(np.asarray(f, dtype=float) / theta)) for f in frequencies.values())
    extent = [{"y": min(lo_r, 1.0 / max(s, 1)) / 1.4}, {"y": 1.4}]
    band = [{"from": float(low), "to": float(min(high, n - 1)), "label": f"YaRN ramp: pairs {low} … {high}"}]
    y = {"field": "ratio", "type": "quantitative", "title": "new frequency ÷ old (log)",
         "scale": {"type": "log", "nice": False}}
    shade = {"data": {"name": "band"}, "mark": {"type": "rect", "color": HIGHLIGHT, "opacity": 0.08},
             "encoding": {"x": {"field": "from", "type": "quantitative"}, "x2": {"field": "to"},
                          "tooltip": [_tip("label", "band", "nominal")]}}
    ends = {"data": {"name": "extent"}, "mark": {"type": "point", "opacity": 0},
            "encoding": {"y": {"field": "y", "type": "quantitative"}}}
    return _top("Slow-down per pair (1 = untouched; shaded: YaRN's ramp)", height,
                {"methods": _method_records(theta, frequencies, ramp), "band": band, "extent": extent},
                layer=[shade, ends, _method_lines(methods, n, y)])


def ramp_spec(ramp: np.ndarray, low: int, high: int, height: int = 300) -> Spec:
    """YaRN's ramp γ_i per pair (0 = keep θ_i, 1 = θ_i / s), with rules at low and high."""
    g = np.asarray(ramp, dtype=float)
    n = g.size
    what = np.where(g == 0, "keeps θ_i", np.where(g == 1, "divides θ_i by s", "blends"))
    ends = [{"x": float(x), "label": f"{name} = {x}"} for x, name in ((low, "low"), (high, "high")) if x <= n - 1]
    line = {
        "data": {"name": "ramp"},
        "mark": {"type": "line", "color": HIGHLIGHT, "point": {"size": 22, "color": HIGHLIGHT}},
        "encoding": {
            "x": _pairs_x(n, "pair i"),
            "y": {"field": "g", "type": "quantitative", "title": "ramp γ_i", "scale": {"domain": [0, 1]}},
            "tooltip": [_tip("i", "pair i"), _tip("g", "ramp γ_i", fmt=".3f"),
                        _tip("what", "what YaRN does", "nominal")],
        },
    }
    rule = {"data": {"values": ends}, "mark": {"type": "rule", "color": "#222", "strokeDash": [4, 3]},
            "encoding": {"x": {"field": "x", "type": "quantitative"},
                         "tooltip": [_tip("label", "ramp end", "nominal")]}}
    text = {"data": {"values": ends}, "mark": {"type": "text", "align": "left", "baseline": "top", "dx": 4, "dy": 4,
                                               "fontSize": 12},
            "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"value": 0},
                         "text": {"field": "label", "type": "nominal"}}}
    return _top("YaRN's ramp", height, {"ramp": _records(i=np.arange(n), g=g, what=what)}, layer=[line, rule, text])


# ---------------------------------------------------------------------------------------------- ALiBi
def slopes_spec(slopes: np.ndarray, base_heads: int, height: int = 260) -> Spec:
    """Bars: ALiBi slope m_h of every head (log2 scale), coloured by the series it comes from."""
    m = np.asarray(slopes, dtype=float)
    H = m.size
    series = [f"the {base_heads}-head series" if h < base_heads else
              f"odd terms of the {2 * base_heads}-head series" for h in range(H)]
    rows = _records(h=np.arange(1, H + 1), m=m, l2=np.log2(m), src=series)
    x = {"field": "h", "type": "ordinal", "title": "head h", "axis": {"labelAngle": 0}}
    bars = {
        "mark": {"type": "bar"},
        "encoding": {
            "x": x,
            "y": {"field": "m", "type": "quantitative", "title": "slope m_h (log₂ scale)",
                  "scale": {"type": "log", "base": 2}, "axis": {"format": ".2~g"}},
            "y2": {"datum": float(m.min()) / 2.0},
            "color": {"field": "src", "type": "nominal", "title": None, "sort": list(dict.fromkeys(series)),
                      "scale": {"range": [BASE, "#f58518"]}, "legend": {"orient": "top", "labelLimit": 400}},
            "tooltip": [_tip("h", "head", "ordinal"), _tip("m", "slope m_h", fmt=".6g"),
                        _tip("l2", "m_h = 2^…", fmt=".3g"), _tip("src", "from", "nominal")],
        },
    }
    text = {"mark": {"type": "text", "dy": -7, "fontSize": 11, "color": "#222"},
            "encoding": {"x": x, "y": {"field": "m", "type": "quantitative"},
                         "text": {"field": "m", "type": "quantitative", "format": ".3g"}}}
    return _top(f"ALiBi slopes for {H} heads", height, {"slopes": rows}, data={"name": "slopes"},
                layer=[bars, text])


def alibi_heads_to_show(n_heads: int, n_tokens: int, budget: int = 2000) -> list[int]:
    """Which heads (0-based) fit in the chart: all of them, or evenly spaced ones (first and last kept)."""
    cells = n_tokens * (n_tokens + 1) // 2
    k = max(1, min(n_heads, budget // max(cells, 1)))
    if k >= n_heads:
        return list(range(n_heads))
    return sorted(set(np.round(np.linspace(0, n_heads - 1, k)).astype(int).tolist()))


def alibi_spec(tokens: list[str], slopes: np.ndarray, bias: np.ndarray, weights: np.ndarray,
               plain_weights: np.ndarray, heads: list[int]) -> Spec:
    """Two heatmaps for the head picked in the chart's menu: the bias −m·(i − j) and the attention weights.

    Only j ≤ i is drawn (the causal mask removes the rest). The menu also offers “no ALiBi” (bias 0).
    The cells carry numbers only (option o, i, j, bias, weight); the word labels come from a small table.
    """
    n = len(tokens)
    labels = word_labels(tokens)
    ii, jj = np.tril_indices(n)
    options = [f"head {h + 1} (m = {slopes[h]:.4g})" for h in heads] + ["no ALiBi (bias 0)"]
    c = ii.size
    k = len(options)
    if c * k > 2 * MAX_MARKS:
        raise ValueError(f"{c * k} cells is too many for one chart; show fewer heads.")
    b = [np.asarray(bias[h], dtype=float)[ii, jj] for h in heads] + [np.zeros(c)]
    w = [np.asarray(weights[h], dtype=float)[ii, jj] for h in heads] + [np.asarray(plain_weights, float)[ii, jj]]
    cells = _records(o=np.repeat(np.arange(k), c), i=np.tile(ii, k), j=np.tile(jj, k),
                     b=np.concatenate(b), a=np.concatenate(w))
    words = _records(k=np.arange(n), w=labels)
    step = max(6, min(48, 420 // max(n, 1)))  # each panel ≤ ~420 px wide, side by side
    look = {"data": {"name": "words"}, "key": "k", "fields": ["w"]}
    transform = [
        {"filter": "datum.o == alibi_head"},
        {"lookup": "i", "from": look, "as": ["query"]},
        {"lookup": "j", "from": look, "as": ["key"]},
        {"calculate": f"{json.dumps(options, ensure_ascii=False)}[datum.o]", "as": "head"},  # an array literal
        {"calculate": "datum.i - datum.j", "as": "dist"},
    ]
    enc = {
        "x": {"field": "key", "type": "nominal", "sort": labels, "title": "key j",
              "axis": {"labelAngle": -45 if n > 6 else 0, "labelOverlap": True}},
        "y": {"field": "query", "type": "nominal", "sort": labels, "title": "query i",
              "axis": {"labelOverlap": True}},
        "tooltip": [_tip("head", "head", "nominal"), _tip("query", "query", "nominal"),
                    _tip("key", "key", "nominal"), _tip("dist", "distance i − j"),
                    _tip("b", "bias", fmt=".4g"), _tip("a", "weight", fmt=".4f")],
    }
    lo = float(min(0.0, min(float(x.min()) for x in b)))
    left = {"transform": transform, "mark": {"type": "rect"},
            "encoding": {**enc, "color": {"field": "b", "type": "quantitative", "title": "bias",
                                          "scale": {"scheme": "oranges", "reverse": True, "domain": [lo, 0.0]},
                                          "legend": {"orient": "bottom"}}},
            "width": {"step": step}, "height": {"step": step}, "title": "Bias −m·(i − j) added to the score"}
    right = {"transform": transform, "mark": {"type": "rect"},
             "encoding": {**enc, "color": {"field": "a", "type": "quantitative", "title": "weight",
                                           "scale": {"scheme": "greens", "domain": [0, 1]},
                                           "legend": {"orient": "bottom"}}},
             "width": {"step": step}, "height": {"step": step}, "title": "Attention weights with the bias"}
    return {"$schema": SCHEMA, "usermeta": CANVAS, "datasets": {"cells": cells, "words": words},
            "data": {"name": "cells"},
            "params": [{"name": "alibi_head", "value": 0,
                        "bind": {"input": "select", "options": list(range(k)), "labels": options, "name": "Head "}}],
            "hconcat": [left, right], "resolve": {"scale": {"color": "independent"}}}


# ---------------------------------------------------------------------------------------------- decay
def bound_spec(deltas: np.ndarray, bound: np.ndarray, height: int = 320) -> Spec:
    """RoFormer's relative upper bound B(Δ) against the gap, in its own units (B(0) = (d/2 + 1)/2)."""
    b = np.asarray(bound, dtype=float)
    return _top("RoFormer's bound B(Δ)", height, {"bound": _records(x=np.asarray(deltas, dtype=float), b=b)},
                data={"name": "bound"},
                transform=[{"calculate": f"datum.b / {float(b[0])!r}", "as": "rel"}],
                mark={"type": "line", "color": HIGHLIGHT, "strokeWidth": 1.8},
                encoding={"x": {"field": "x", "type": "quantitative", "title": "gap Δ = m − n (tokens)"},
                          "y": {"field": "b", "type": "quantitative", "title": "B(Δ)", "scale": {"zero": True}},
                          "tooltip": [_tip("x", "gap Δ"), _tip("b", "B(Δ)", fmt=".4f"),
                                      _tip("rel", "B(Δ) / B(0)", fmt=".4f")]})


def score_spec(deltas: np.ndarray, mean: np.ndarray, p05: np.ndarray, p95: np.ndarray, single: np.ndarray,
               n_samples: int, height: int = 320) -> Spec:
    """The actual RoPE score / d against the gap: mean over the samples, 5–95 % band, and one random pair."""
    names = [f"mean over {n_samples} (q, k)", "one random (q, k)"]
    rows = _records(x=np.asarray(deltas, dtype=float), mean=np.asarray(mean, dtype=float),
                    one=np.asarray(single, dtype=float), lo=np.asarray(p05, dtype=float),
                    hi=np.asarray(p95, dtype=float))
    area = {"mark": {"type": "area", "opacity": 0.2, "color": BASE},
            "encoding": {"x": {"field": "x", "type": "quantitative"},
                         "y": {"field": "lo", "type": "quantitative"}, "y2": {"field": "hi"},
                         "tooltip": [_tip("x", "gap Δ"), _tip("lo", "5th percentile", fmt=".3f"),
                                     _tip("hi", "95th percentile", fmt=".3f")]}}
    zero = {"data": {"values": [{}]}, "mark": {"type": "rule", "color": "#222", "strokeWidth": 0.8},
            "encoding": {"y": {"datum": 0.0}}}
    lines = {"transform": [{"fold": ["mean", "one"], "as": ["c", "v"]},
                           {"calculate": f"datum.c === 'mean' ? {_text(names[0])} : {_text(names[1])}",
                            "as": "curve"}],
             "mark": {"type": "line"},
             "encoding": {"x": {"field": "x", "type": "quantitative", "title": "gap Δ = m − n (tokens)"},
                          "y": {"field": "v", "type": "quantitative", "title": "score / d"},
                          "color": {"field": "curve", "type": "nominal", "sort": names, "title": None,
                                    "scale": {"domain": names, "range": [BASE, "#7f7f7f"]},
                                    "legend": {"orient": "top", "labelLimit": 400}},
                          "strokeWidth": {"condition": {"test": f"datum.curve === {_text(names[1])}", "value": 1.0},
                                          "value": 2.2},
                          "tooltip": [_tip("curve", "curve", "nominal"), _tip("x", "gap Δ"),
                                      _tip("v", "score / d", fmt=".4f")]}}
    return _top("The actual score / d (shaded: middle 90 %)", height, {"score": rows}, data={"name": "score"},
                layer=[area, zero, lines])


# ---------------------------------------------------------------------------------------------- precision
def _log_x(field: str, title: str) -> dict:
    return {"field": field, "type": "quantitative", "title": title, "scale": {"type": "log"},
            "axis": {"format": "~s"}}


def angle_error_spec(positions: np.ndarray, error: np.ndarray, probe: int, height: int = 300) -> Spec:
    """Worst float32 angle error (radians) against the position, both on log scales."""
    rows = _records(p=np.asarray(positions, dtype=float), e=np.asarray(error, dtype=float))
    line = {"data": {"name": "angle"},
            "mark": {"type": "line", "color": HIGHLIGHT, "point": {"size": 14, "color": HIGHLIGHT}},
            "encoding": {"x": _log_x("p", "position p"),
                         "y": {"field": "e", "type": "quantitative", "title": "angle error (rad)",
                               "scale": {"type": "log"}, "axis": {"format": "~e"}},
                         "tooltip": [_tip("p", "position p", fmt=","), _tip("e", "angle error (rad)", fmt=".3g")]}}
    return _top("Worst angle error p·θ_i, float32 against float64", height, {"angle": rows},
                layer=[line, _vrule(probe, f"p = {probe:,}", HIGHLIGHT)])


def offset_error_spec(positions: np.ndarray, errors: dict, gap: int, probe: int, floor: float,
                      height: int = 300) -> Spec:
    """|score(m, m+gap) − score(0, gap)| against m, one line per number format, log scales."""
    names = list(errors)
    pos = np.asarray(positions, dtype=float)
    rows = _records(m=np.tile(pos, len(names)), f=np.repeat(np.array(names), pos.size),
                    e=np.concatenate([np.asarray(errors[t], dtype=float) for t in names]))
    lines = {"data": {"name": "drift"},
             "mark": {"type": "line", "point": {"size": 12}},
             "encoding": {"x": _log_x("m", "start position m"),
                          "y": {"field": "e", "type": "quantitative", "title": "|score(m, m+g) − score(0, g)|",
                                "scale": {"type": "log"}, "axis": {"format": "~e"}},
                          "color": {"field": "f", "type": "nominal", "sort": names, "title": None,
                                    "scale": {"domain": names, "range": [DTYPE_COLORS.get(t, BASE) for t in names]},
                                    "legend": {"orient": "top"}},
                          "tooltip": [_tip("f", "format", "nominal"), _tip("m", "start m", fmt=","),
                                      _tip("e", "score drift", fmt=".3g")]}}
    return _top(f"RoPE's offset invariance: the score of a pair {gap} apart, moved to m (floor {floor:g})", height,
                {"drift": rows}, layer=[lines, _vrule(probe, f"m = {probe:,}", HIGHLIGHT)])


def bf16_spec(positions: np.ndarray, stored: np.ndarray, height: int = 280) -> Spec:
    """Each exact position against the value bf16 stores for it; the diagonal is “stored exactly”."""
    p = np.asarray(positions, dtype=float)
    s = np.asarray(stored, dtype=float)
    kinds = ["stored exactly", "collapsed onto a neighbour"]
    rows = _records(p=p, s=s, off=s - p, kept=np.where(s == p, kinds[0], kinds[1]))
    x = {"field": "p", "type": "quantitative", "title": "exact position",
         "scale": {"domain": [float(p.min()) - 0.5, float(p.max()) + 0.5]}, "axis": {"tickMinStep": 1, "format": "d"}}
    ends = [float(p.min()), float(p.max())]
    diag = {"data": {"values": [{"p": v, "s": v} for v in ends]},
            "mark": {"type": "line", "color": "#bbb", "strokeDash": [4, 3]},
            "encoding": {"x": x, "y": {"field": "s", "type": "quantitative"}}}
    pts = {"data": {"name": "bf16"},
           "mark": {"type": "point", "filled": True, "size": 90},
           "encoding": {"x": x,
                        "y": {"field": "s", "type": "quantitative", "title": "stored in bf16",
                              "scale": {"zero": False}, "axis": {"tickMinStep": 1, "format": "d"}},
                        "color": {"field": "kept", "type": "nominal", "title": None,
                                  "scale": {"domain": kinds, "range": [BASE, HIGHLIGHT]},
                                  "legend": {"orient": "top", "labelLimit": 400}},
                        "tooltip": [_tip("p", "exact position", fmt="d"), _tip("s", "stored in bf16", fmt="d"),
                                    _tip("off", "off by", fmt="+d"), _tip("kept", "kept?", "nominal")]}}
    return _top("Positions stored in bfloat16 (dashed: stored exactly)", height, {"bf16": rows}, layer=[diag, pts])

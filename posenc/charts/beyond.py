"""Charts for "Stretching the context": the page's results in, ``spec.Figure`` out (Altair, public API only).

Every builder draws from named datasets (``spec.named``) whose names are fixed here, so a control that only
changes the numbers leaves the spec as it was and the browser swaps the data into the chart it already has.
Controls that only re-slice what a chart already holds (which method to highlight, which ALiBi head to show) are
Vega-Lite parameters bound inside the chart. Colours keep their one app-wide meaning (``spec.FOCUS``,
``spec.SERIES`` via ``spec.series``, ``spec.REFERENCE``); compared lines differ by colour, dash and shape, and are
labelled directly where they separate. Pair indices i are 0-based (as RoPE code counts them); positions in the
precision charts are token indices p as RoPE code counts them (0-based); words in the ALiBi chart are 1-based.
"""

from __future__ import annotations

from typing import Sequence

import altair as alt
import numpy as np

from posenc.beyond import METHODS, AlibiDemo, Bf16Positions, DecayDemo, PrecisionDemo, StretchDemo

from . import spec
from .spec import FOCUS, REFERENCE, SERIES, Figure, layout

PAIR_AXIS = "pair i (0-based: fastest → slowest)"
DTYPES = ("float64", "float32", "bfloat16")
DTYPE_COLOURS = spec.series_colours(DTYPES)
METHOD_COLOURS = spec.series_colours(METHODS)
ALL = "all methods"


def _tip(field: str, title: str, type_: str = "quantitative", fmt: str | None = None) -> alt.Tooltip:
    return alt.Tooltip(field=field, type=type_, title=title, **({"format": fmt} if fmt else {}))


def direct_labels(xs: np.ndarray, values: dict[str, np.ndarray], *, log: bool = True,
                  window: tuple[float, float] = (0.05, 0.95), min_gap: float = 0.07) -> list[tuple[str, float, float]]:
    """Where to write each series' name on its own line: at the x (inside ``window``, as fractions of the x range)
    where the line is farthest from every other line, if that distance is at least ``min_gap`` of the y range.
    Returns (name, x, y) rows; a line that sits on another everywhere gets no label (the legend names it)."""
    names = list(values)
    ys = np.array([np.asarray(values[n], dtype=float) for n in names])
    ok = np.all(np.isfinite(ys), axis=0) & (np.all(ys > 0, axis=0) if log else True)
    t = np.log10(np.where(ys > 0, ys, 1.0)) if log else ys
    span = float(np.ptp(t[:, ok])) if ok.any() else 0.0
    n = ys.shape[1]
    lo, hi = int(window[0] * (n - 1)), int(np.ceil(window[1] * (n - 1)))
    inside = np.zeros(n, dtype=bool)
    inside[lo:hi + 1] = True
    inside &= ok
    rows = []
    if not inside.any() or span == 0.0:
        return rows
    for a, name in enumerate(names):
        others = np.delete(t, a, axis=0)
        sep = np.min(np.abs(others - t[a]), axis=0) if others.size else np.full(n, np.inf)
        sep = np.where(inside, sep, -np.inf)
        j = int(np.argmax(sep))
        if sep[j] >= min_gap * span:
            rows.append((name, float(xs[j]), float(ys[a, j])))
    return rows


def _label_table(rows: list[tuple[str, float, float]], names: Sequence[str], x: str, y: str, field: str,
                 xs: np.ndarray, log_x: bool = False):
    """The direct labels as a table; ``side`` says which way the text runs from its point ("left" of the middle
    of the x range: to the right; otherwise to the left), so no label runs off a narrow chart."""
    names = list(names)
    at = np.array([r[1] for r in rows], dtype=float)
    lo, hi = float(np.min(xs)), float(np.max(xs))
    if log_x:
        at_t, lo, hi = np.log10(np.maximum(at, 1e-300)), np.log10(max(lo, 1e-300)), np.log10(hi)
    else:
        at_t = at
    side = (at_t > (lo + hi) / 2).astype(int)
    return spec.columns(**{field: spec.categories(np.array([names.index(r[0]) for r in rows], dtype=int), names),
                           x: at, y: np.array([r[2] for r in rows], dtype=float),
                           "side": spec.categories(side, ("left", "right"))})


def _label_layers(x: alt.X, y: alt.Y, field: str, names: Sequence[str], colours: Sequence[str], dy: int,
                  dim: str | None = None) -> list:
    """Text layers that write each series' name beside its line, in the series' colour (left or right of the
    point, by the table's ``side``), dimmed like the lines when ``dim`` (a Vega expression) is given."""
    out = []
    for side, align, dx in (("left", "left", 6), ("right", "right", -6)):
        base = alt.Chart(spec.named("labels")).transform_filter(f"datum.side == '{side}'")
        extra = {}
        if dim:
            base = base.transform_calculate(op=dim)
            extra["opacity"] = alt.Opacity(field="op", type="quantitative", scale=None)
        out.append(base.mark_text(align=align, dx=dx, dy=dy, fontSize=12, fontWeight="bold").encode(
            x=x, y=y, text=alt.Text(f"{field}:N"),
            color=alt.Color(f"{field}:N", scale=spec.series_scale(names, colours), legend=None),
            **extra))
    return out


# ---------------------------------------------------------------------------------------------- stretching
ROT_KINDS = ("≥ 1 turn: has seen every angle", "< 1 turn: later angles never seen")


def rotations_figure(res: StretchDemo, height: int = 300) -> Figure:
    """Bars: turns r_i = L_train·θ_i/(2π) each pair makes within L_train (log scale); a rule at one full turn; for
    the pairs that never finish a turn, a tick at the turns they reach at s·L_train (s·r_i): everything between
    the bar's top and the tick is an angle training never showed them."""
    r = np.asarray(res.rotations, dtype=float)
    n = r.size
    slow = r < 1
    floor = float(min(r.min(), 1.0)) / 2.0
    pairs = spec.columns(i=np.arange(n), r=r, floor=np.full(n, floor), theta=res.theta, wl=2 * np.pi / res.theta,
                         kind=spec.categories(slow.astype(int), ROT_KINDS))
    slow_i = np.flatnonzero(slow)
    reach = spec.columns(i=slow_i, reach=r[slow_i] * res.s, r=r[slow_i], Lnew=np.full(slow_i.size, res.L_new),
                         label=["at s·L_train" if k == 0 else "" for k in range(slow_i.size)])
    n_slow = int(slow.sum())
    take = (f"{n_slow} of {n} pairs (pairs {int(np.argmax(slow))} to {n - 1}) never finish one turn, so training "
            "showed them only part of the circle" if n_slow else "every pair finishes at least one turn")
    one = spec.columns(i=[n - 1], y=[1.0], label=["one full turn"],
                       title=[f"Turns each pair makes in training (L_train = {res.L_train:,} tokens)"])
    data = {"pairs": pairs, "one": one, "reach": reach}
    return spec.figure(_rotations_layout(n, height), data,
                       description=f"Turns per pair within {res.L_train:,} tokens: {take}"
                                   + ("; the ticks show how far they turn at s·L_train." if n_slow else "."))


@layout
def _rotations_layout(n: int, height: int) -> alt.LayerChart:
    """Bars for ``n`` pairs; the title, which names L_train, comes with the "one" data."""
    step = max(1, n // 16)
    bars = alt.Chart(spec.named("pairs")).mark_bar().encode(
        x=alt.X("i:O", title=PAIR_AXIS, axis=alt.Axis(labelAngle=0, values=list(range(0, n, step)))),
        y=alt.Y("r:Q", scale=alt.Scale(type="log"), title="turns within L_train"),
        y2=alt.Y2("floor"),
        color=alt.Color("kind:N", title=None, sort=list(ROT_KINDS),
                        scale=alt.Scale(domain=list(ROT_KINDS), range=[SERIES[0], FOCUS]),
                        legend=alt.Legend(labelLimit=400, direction="vertical")),
        tooltip=[_tip("i", "pair i (0-based)"), _tip("theta", "θ_i (rad per token)", fmt=".4g"),
                 _tip("wl", "wavelength λ_i (tokens)", fmt=",.1f"), _tip("r", "turns within L_train", fmt=",.3g"),
                 _tip("kind", "in training", "nominal")],
    )
    one = alt.Chart(spec.named("one")).mark_rule(color=REFERENCE, strokeDash=[5, 3]).encode(
        y=alt.Y("y:Q"), tooltip=[_tip("label", "line", "nominal")])
    text = alt.Chart(spec.named("one")).mark_text(align="right", baseline="top", dy=4, color=REFERENCE,
                                                  fontSize=12).encode(
        y=alt.Y("y:Q"), x=alt.X("i:O"), text=alt.Text("label:N"))  # under the rule, over the last (short) bars
    ticks = alt.Chart(spec.named("reach")).mark_tick(color=FOCUS, thickness=3).encode(
        x=alt.X("i:O"), y=alt.Y("reach:Q"),
        tooltip=[_tip("i", "pair i (0-based)"), _tip("r", "turns within L_train", fmt=",.3g"),
                 _tip("reach", "turns within s·L_train", fmt=",.3g"), _tip("Lnew", "s·L_train (tokens)", fmt=",")])
    tick_text = alt.Chart(spec.named("reach")).mark_text(align="left", dx=-4, dy=-10, color=FOCUS,
                                                         fontSize=12).encode(
        x=alt.X("i:O"), y=alt.Y("reach:Q"), text=alt.Text("label:N"))
    return alt.layer(bars, one, text, ticks, tick_text, title=alt.TitleParams(spec.text_from("one", "title")),
                     height=height)


def _method_table(res: StretchDemo):
    n = res.theta.size
    k = len(METHODS)
    t = np.concatenate([np.asarray(res.frequencies[m], dtype=float) for m in METHODS])
    t0 = np.tile(res.theta, k)
    return spec.columns(m=spec.categories(np.repeat(np.arange(k), n), METHODS), i=np.tile(np.arange(n), k), t=t,
                        wl=2 * np.pi / t, wl0=2 * np.pi / t0, ratio=t / t0, g=np.tile(res.ramp, k))


def _series(field: str, names: Sequence[str], columns: int, **kw) -> dict:
    """``spec.series`` with its one legend in ``columns`` columns (so five names fit a phone's width)."""
    enc = spec.series(field, names, title=None, **kw)
    return {k: v.legend(title=None, columns=columns) for k, v in enc.items()}


def _method_layers(y: alt.Y, field: str, pick: alt.Parameter, label_dy: int) -> list:
    """Lines and points per method (colour + dash + shape), dimmed unless picked in the chart's menu; each
    method's name is written beside its line where it parts from the others (``label_dy`` above or below)."""
    enc = _series("m", METHODS, 2)
    dim = f"{pick.name} == '{ALL}' || datum.m == {pick.name} ? 1 : 0.12"
    faded = alt.Opacity(field="op", type="quantitative", scale=None)
    x = alt.X("i:Q", title=PAIR_AXIS, axis=alt.Axis(format="d", tickMinStep=1))
    base = alt.Chart(spec.named("methods")).transform_calculate(op=dim)
    lines = base.mark_line(strokeWidth=2).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"], opacity=faded)
    points = base.mark_point(filled=True, size=26).encode(
        x=x, y=alt.Y(f"{field}:Q"), color=enc["color"], shape=enc["shape"], opacity=faded,
        tooltip=[_tip("m", "method", "nominal"), _tip("i", "pair i (0-based)"), _tip("t", "new θ_i", fmt=".4g"),
                 _tip("wl", "new wavelength (tokens)", fmt=",.1f"), _tip("wl0", "old wavelength (tokens)", fmt=",.1f"),
                 _tip("ratio", "new θ ÷ old θ", fmt=".4f"), _tip("g", "YaRN ramp γ_i", fmt=".3f")])
    labels = _label_layers(alt.X("i:Q"), alt.Y(f"{field}:Q"), "m", METHODS, list(METHOD_COLOURS.values()), label_dy,
                           dim)
    return [lines.add_params(pick), points, *labels]


def _pick() -> alt.Parameter:
    return alt.param(name="method_pick", value=ALL,
                     bind=alt.binding_select(options=[ALL, *METHODS], name="Highlight "))


def wavelength_figure(res: StretchDemo, height: int = 320) -> Figure:
    """Per-pair wavelength before and after each method (log scale), rules at L_train and s·L_train; a menu in
    the chart highlights one method."""
    wl = {m: 2 * np.pi / np.asarray(res.frequencies[m], dtype=float) for m in METHODS}
    xs = np.arange(res.theta.size, dtype=float)
    labels = _label_table(direct_labels(xs, wl), METHODS, "i", "wl", "m", xs)
    rules = spec.columns(y=[float(res.L_train), float(res.L_new)],
                         label=[f"L_train = {res.L_train:,}", f"s·L_train = {res.L_new:,}"])
    worst = int(res.unseen["RoPE as trained"].sum())
    return spec.figure(_wavelength_layout(height), {"methods": _method_table(res), "labels": labels, "rules": rules},
                       description="Wavelength per pair for RoPE as trained, PI, NTK-aware, dynamic NTK and YaRN: "
                                   f"unchanged RoPE leaves {worst} slow pairs with wavelengths past L_train; the "
                                   "methods stretch the slow pairs' wavelengths.")


@layout
def _wavelength_layout(height: int) -> alt.LayerChart:
    pick = _pick()
    y = alt.Y("wl:Q", scale=alt.Scale(type="log"), title="wavelength (tokens per turn, log)")
    rule = alt.Chart(spec.named("rules")).mark_rule(color=REFERENCE, strokeDash=[2, 3]).encode(
        y=alt.Y("y:Q"), tooltip=[_tip("label", "line", "nominal")])
    rule_text = alt.Chart(spec.named("rules")).mark_text(align="left", dx=4, dy=-7, fontSize=12,
                                                         color=REFERENCE).encode(
        y=alt.Y("y:Q"), x=alt.value(4), text=alt.Text("label:N"))
    return alt.layer(*_method_layers(y, "wl", pick, 14), rule, rule_text,
                     title="Wavelength per pair, before and after", height=height)


def ratio_figure(res: StretchDemo, height: int = 300) -> Figure:
    """θ'_i / θ_i per pair and method (log scale: 1 = untouched, 1/s = slowed by s); YaRN's ramp shaded."""
    n = res.theta.size
    ratio = {m: np.asarray(res.frequencies[m], dtype=float) / res.theta for m in METHODS}
    xs = np.arange(n, dtype=float)
    labels = _label_table(direct_labels(xs, ratio), METHODS, "i", "ratio", "m", xs)
    lo_r = min(float(np.min(v)) for v in ratio.values())
    extent = spec.columns(y=[min(lo_r, 1.0 / max(res.s, 1)) / 1.6, 1.6])  # the y range, as data
    band = spec.columns(start=[float(res.low)], end=[float(min(res.high, n - 1))],
                        label=[f"YaRN's ramp: pairs {res.low} to {res.high}"])
    lowest = min(lo_r, 1.0 / max(res.s, 1)) / 1.6
    depth = int(np.floor(-np.log2(lowest)))  # powers of two down to the lowest ratio, at most 8 ticks
    ticks = [2.0 ** -k for k in range(0, depth + 1, max(1, -(-(depth + 1) // 8)))]
    return spec.figure(_ratio_layout(ticks, height),
                       {"methods": _method_table(res), "labels": labels, "band": band, "extent": extent},
                       description=f"New frequency over old per pair at s = {res.s}: PI divides every pair by s, "
                                   "NTK-aware leaves the fastest pair alone, YaRN keeps the fast pairs and divides "
                                   "the slow ones by s.")


@layout
def _ratio_layout(ticks: Sequence[float], height: int) -> alt.LayerChart:
    """``ticks``: the y axis' tick values (powers of two down to the lowest ratio shown)."""
    pick = _pick()
    y = alt.Y("ratio:Q", scale=alt.Scale(type="log", nice=False), title="new frequency ÷ old (log)",
              axis=alt.Axis(values=list(ticks), format=".3~g"))
    shade = alt.Chart(spec.named("band")).mark_rect(color=REFERENCE, opacity=0.1).encode(
        x=alt.X("start:Q"), x2=alt.X2("end"), tooltip=[_tip("label", "band", "nominal")])
    ends = spec.axis_ends(y=alt.Y("y:Q"))
    return alt.layer(shade, ends, *_method_layers(y, "ratio", pick, -9),
                     title="Slow-down per pair (1 = untouched)", height=height)


RAMP_KINDS = ("keeps θ_i", "blends", "divides θ_i by s")


def ramp_figure(res: StretchDemo, height: int = 300) -> Figure:
    """YaRN's ramp γ_i per pair (0 = keep θ_i, 1 = θ_i / s), rules at low and high."""
    g = np.asarray(res.ramp, dtype=float)
    n = g.size
    what = np.where(g == 0, 0, np.where(g == 1, 2, 1))
    ends = [(x, f"{name} = {x}") for x, name in ((res.low, "low"), (res.high, "high")) if x <= n - 1]
    data = {"ramp": spec.columns(i=np.arange(n), g=g, what=spec.categories(what, RAMP_KINDS)),
            "ends": spec.columns(x=np.array([e[0] for e in ends], dtype=float), label=[e[1] for e in ends])}
    return spec.figure(_ramp_layout(height), data,
                       description=f"YaRN's ramp: pairs up to {res.low} keep their frequency, pairs "
                                   f"from {res.high} on are divided by s, the ones between are blended.")


@layout
def _ramp_layout(height: int) -> alt.LayerChart:
    """γ_i over the pairs 0 … n − 1 (the x axis spans the data's pairs: a new head dimension is new data)."""
    colour = METHOD_COLOURS["YaRN"]
    x = alt.X("i:Q", title=PAIR_AXIS, scale=alt.Scale(nice=False), axis=alt.Axis(format="d", tickMinStep=1))
    line = alt.Chart(spec.named("ramp")).mark_line(color=colour, point=alt.OverlayMarkDef(
        color=colour, size=22, shape=spec.SHAPES[METHODS.index("YaRN")], filled=True)).encode(
        x=x, y=alt.Y("g:Q", title="ramp γ_i", scale=alt.Scale(domain=[0, 1])),
        tooltip=[_tip("i", "pair i (0-based)"), _tip("g", "ramp γ_i", fmt=".3f"),
                 _tip("what", "what YaRN does", "nominal")])
    rule = alt.Chart(spec.named("ends")).mark_rule(color=REFERENCE, strokeDash=[4, 3]).encode(
        x=alt.X("x:Q"), tooltip=[_tip("label", "ramp end", "nominal")])
    text = alt.Chart(spec.named("ends")).mark_text(align="left", baseline="top", dx=4, dy=4, fontSize=12,
                                                   color=REFERENCE).encode(
        x=alt.X("x:Q"), y=alt.value(0), text=alt.Text("label:N"))
    return alt.layer(line, rule, text, title="YaRN's ramp", height=height)


# ---------------------------------------------------------------------------------------------- ALiBi
def _slope_series(base_heads: int) -> tuple[str, str]:
    return (f"the {base_heads}-head series", f"odd terms of the {2 * base_heads}-head series")


def slopes_figure(slopes: np.ndarray, base_heads: int, height: int = 240) -> Figure:
    """Bars: the ALiBi slope m_h of every head (log₂ scale); heads past the largest power of two come from the
    next series (outlined, lighter fill, and named in the legend)."""
    m = np.asarray(slopes, dtype=float)
    H = m.size
    src = (np.arange(H) >= base_heads).astype(int)
    data = {"slopes": spec.columns(h=np.arange(1, H + 1), m=m, l2=np.log2(m), floor=np.full(H, float(m.min()) / 2),
                                   src=spec.categories(src, _slope_series(base_heads)))}
    return spec.figure(_slopes_layout(H, base_heads, height), data,
                       description=f"ALiBi slopes for {H} heads: from {m.max():.3g} down to "
                                   f"{m.min():.3g}, each head halving (or less) the one before.")


@layout
def _slopes_layout(H: int, base_heads: int, height: int) -> alt.LayerChart:
    """``H`` heads, the first ``base_heads`` from the power-of-two series."""
    names = _slope_series(base_heads)
    used = [names[0]] if H == base_heads else list(names)
    colour = alt.Color("src:N", title=None, sort=used, scale=spec.series_scale(used))
    x = alt.X("h:O", title="head h (1-based)", axis=alt.Axis(labelAngle=0))
    bars = alt.Chart(spec.named("slopes")).mark_bar(strokeWidth=1.5).encode(
        x=x, y=alt.Y("m:Q", title="slope m_h (log₂ scale)", scale=alt.Scale(type="log", base=2),
                     axis=alt.Axis(format=".2~g")),
        y2=alt.Y2("floor"), color=colour, stroke=alt.Stroke("src:N", scale=spec.series_scale(used), legend=None),
        fillOpacity=alt.FillOpacity("src:N", scale=alt.Scale(domain=used, range=[0.9, 0.35][: len(used)]),
                                    legend=None),
        tooltip=[_tip("h", "head", "ordinal"), _tip("m", "slope m_h", fmt=".6g"), _tip("l2", "m_h = 2^…", fmt=".3g"),
                 _tip("src", "from", "nominal")])
    text = alt.Chart(spec.named("slopes")).mark_text(dy=-7, fontSize=11).encode(
        x=x, y=alt.Y("m:Q"), text=alt.Text("m:Q", format=".3g"))
    return alt.layer(bars, text, title=f"ALiBi slopes for {H} heads", height=height)


def alibi_heads_to_show(n_heads: int, n_tokens: int, budget: int = spec.MAX_MARKS) -> list[int]:
    """Which heads (0-based) fit in one chart with the “no ALiBi” panel: all of them, or evenly spaced ones
    (first and last kept), so that cells × (heads + 1) ≤ ``budget``."""
    cells = n_tokens * (n_tokens + 1) // 2
    k = max(1, min(n_heads, budget // max(cells, 1) - 1))
    if k >= n_heads:
        return list(range(n_heads))
    return sorted(set(np.round(np.linspace(0, n_heads - 1, k)).astype(int).tolist()))


def alibi_figure(al: AlibiDemo, heads: list[int]) -> Figure:
    """The attention weights (causal, j ≤ i) of the head picked in the chart's menu, or with no bias at all;
    the copies of a repeated word are outlined in the query's row; the tooltip gives the bias −m·(i − j)."""
    n = len(al.tokens)
    labels = spec.word_labels(al.tokens)
    ii, jj = np.tril_indices(n)
    options = [f"head {h + 1} (m = {al.slopes[h]:.4g})" for h in heads] + ["no ALiBi (bias 0)"]
    c = ii.size
    k = len(options)
    if c * k > spec.MAX_MARKS:
        raise ValueError(f"{c * k} cells is too many for one chart; show fewer heads.")
    b = [np.asarray(al.bias[h], dtype=float)[ii, jj] for h in heads] + [np.zeros(c)]
    w = [np.asarray(al.weights[h], dtype=float)[ii, jj] for h in heads] + [np.asarray(al.plain_weights)[ii, jj]]
    cells = spec.columns(o=np.repeat(np.arange(k), c), i=np.tile(ii, k), j=np.tile(jj, k), b=np.concatenate(b),
                         a=np.concatenate(w), head=spec.categories(np.repeat(np.arange(k), c), options))
    words = spec.columns(k=np.arange(n), w=spec.categories(np.arange(n), labels))
    if al.copies is not None and al.query is not None:
        marks = spec.columns(i=np.array([al.query] * 2), j=np.array(al.copies))
    else:
        marks = spec.columns(i=np.array([], dtype=int), j=np.array([], dtype=int))
    return spec.figure(_alibi_layout(labels, options), {"cells": cells, "words": words, "copies": marks},
                       description="Attention weights with ALiBi on the sidebar's sentence: the bias lowers the "
                                   "weight of far keys, so two copies of a word get different weights.")


@layout
def _alibi_layout(labels: Sequence[str], options: Sequence[str]) -> alt.LayerChart:
    """A causal heatmap over the words ``labels``; the menu picks one of ``options`` (the heads shown, then no
    ALiBi) by its index."""
    n = len(labels)
    labels = list(labels)
    k = len(options)
    pick = alt.param(name="alibi_head", value=0,
                     bind=alt.binding_select(options=list(range(k)), labels=list(options), name="Head "))
    look = alt.LookupData(data=spec.named("words"), key="k", fields=["w"])
    x = alt.X("key:N", sort=labels, title="key j (word, 1-based)",
              axis=alt.Axis(labelAngle=-45 if n > 6 else 0, labelOverlap=True))
    y = alt.Y("query:N", sort=labels, title="query i (word, 1-based)", axis=alt.Axis(labelOverlap=True))

    def looked(chart: alt.Chart) -> alt.Chart:
        return chart.transform_lookup(lookup="i", from_=look, as_=["query"]).transform_lookup(
            lookup="j", from_=look, as_=["key"])

    rect = looked(alt.Chart(spec.named("cells")).transform_filter(f"datum.o == {pick.name}")).transform_calculate(
        dist="datum.i - datum.j").mark_rect().encode(
        x=x, y=y, color=alt.Color("a:Q", title="attention weight", scale=alt.Scale(scheme=spec.SEQUENTIAL,
                                                                                    domain=[0, 1])),
        tooltip=[_tip("head", "head", "nominal"), _tip("query", "query", "nominal"), _tip("key", "key", "nominal"),
                 _tip("dist", "distance i − j"), _tip("b", "bias −m·(i − j)", fmt=".4g"),
                 _tip("a", "weight", fmt=".4f")])
    layers = [rect.add_params(pick)]
    if n <= 10:
        layers.append(looked(alt.Chart(spec.named("cells")).transform_filter(f"datum.o == {pick.name}")).mark_text(
            fontSize=11).transform_calculate(tone="datum.a > 0.5 ? 'dark' : 'light'").encode(
            x=x, y=y, text=alt.Text("a:Q", format=".2f"),
            fill=alt.Fill("tone:N", scale=alt.Scale(domain=["dark", "light"], range=["#ffffff", spec.TEXT]),
                          legend=None)))
    layers.append(looked(alt.Chart(spec.named("copies"))).mark_rect(
        fill=None, stroke=FOCUS, strokeWidth=3).encode(x=x, y=y))
    height = int(min(420, max(180, 30 * n)))
    return alt.layer(*layers, title="Attention weights with ALiBi", height=height)


# ---------------------------------------------------------------------------------------------- decay
GAP_AXIS = "gap Δ = m − n (tokens)"


def bound_figure(dec: DecayDemo, height: int = 300) -> Figure:
    """RoFormer's relative upper bound B(Δ) against the gap, in its own units (B(0) = (d/2 + 1)/2)."""
    data = {"bound": spec.columns(x=dec.deltas, b=dec.bound, rel=dec.bound_rel)}
    return spec.figure(_bound_layout(height), data,
                       description=f"RoFormer's bound B(Δ): it falls from {dec.b0:g} at Δ = 0 to "
                                   f"{dec.bound[-1]:.3g} at Δ = {dec.deltas[-1]:g}, rising again at {dec.rises} "
                                   "of the steps.")


@layout
def _bound_layout(height: int) -> alt.Chart:
    line = alt.Chart(spec.named("bound")).mark_line(color=REFERENCE, strokeWidth=1.8).encode(
        x=alt.X("x:Q", title=GAP_AXIS), y=alt.Y("b:Q", title="B(Δ)", scale=alt.Scale(zero=True)),
        tooltip=[_tip("x", "gap Δ"), _tip("b", "B(Δ)", fmt=".4f"), _tip("rel", "B(Δ) / B(0)", fmt=".4f")])
    return line.properties(title="RoFormer's bound B(Δ)", height=height)


def _score_curves(n_samples: int) -> tuple[str, str]:
    return (f"mean over {n_samples} (q, k)", "one random (q, k)")


def score_figure(dec: DecayDemo, height: int = 300) -> Figure:
    """The actual RoPE score ÷ d against the gap: mean over the samples, its middle 90 %, and one random pair."""
    names = _score_curves(dec.n_samples)
    n = dec.deltas.size
    curves = spec.columns(x=np.tile(dec.deltas, 2), v=np.concatenate([dec.mean, dec.single]),
                          curve=spec.categories(np.repeat([0, 1], n), names))
    data = {"band": spec.columns(x=dec.deltas, lo=dec.p05, hi=dec.p95), "curves": curves,
            "zero": spec.columns(y=[0.0])}
    return spec.figure(_score_layout(dec.n_samples, height), data,
                       description=f"The RoPE score divided by d: its mean falls from "
                                   f"{dec.mean[0]:.2f} at Δ = 0 to about {dec.late_mean:.2f} far away, "
                                   "while single pairs scatter widely around it.")


@layout
def _score_layout(n_samples: int, height: int) -> alt.LayerChart:
    names = _score_curves(n_samples)
    band = alt.Chart(spec.named("band")).mark_area(opacity=0.18, color=SERIES[0]).encode(
        x=alt.X("x:Q", title=GAP_AXIS), y=alt.Y("lo:Q", title="score ÷ d"), y2=alt.Y2("hi"),
        tooltip=[_tip("x", "gap Δ"), _tip("lo", "5th percentile", fmt=".3f"), _tip("hi", "95th percentile", fmt=".3f")])
    zero = alt.Chart(spec.named("zero")).mark_rule(color=REFERENCE, strokeWidth=0.8).encode(y=alt.Y("y:Q"))
    enc = spec.series("curve", names, title=None)
    lines = alt.Chart(spec.named("curves")).mark_line().encode(
        x=alt.X("x:Q"), y=alt.Y("v:Q"), color=enc["color"], strokeDash=enc["strokeDash"],
        strokeWidth=alt.StrokeWidth("curve:N", scale=alt.Scale(domain=list(names), range=[2.2, 1.0]), legend=None),
        tooltip=[_tip("curve", "curve", "nominal"), _tip("x", "gap Δ"), _tip("v", "score ÷ d", fmt=".4f")])
    return alt.layer(band, zero, lines, title="The actual score ÷ d", height=height)


# ---------------------------------------------------------------------------------------------- precision
def _log_x(field: str, title: str) -> alt.X:
    return alt.X(f"{field}:Q", title=title, scale=alt.Scale(type="log"), axis=alt.Axis(format="~s"))


def _probe_layers(bottom: int | None = None) -> list:
    """A FOCUS rule at the probed position (dataset "probe", from ``_probe_data``), labelled at the top of the
    plot (or at ``bottom``, the plot height)."""
    rule = alt.Chart(spec.named("probe")).mark_rule(color=FOCUS, strokeDash=[4, 3]).encode(
        x=alt.X("x:Q"), tooltip=[_tip("label", "line", "nominal")])
    text = alt.Chart(spec.named("probe")).mark_text(
        align="right", baseline="top" if bottom is None else "bottom", dx=-4, dy=4 if bottom is None else -4,
        color=FOCUS, fontSize=12).encode(x=alt.X("x:Q"), y=alt.value(0 if bottom is None else bottom),
                                         text=alt.Text("label:N"))
    return [rule, text]


def _probe_data(probe: int, what: str) -> dict:
    return {"probe": spec.columns(x=[float(probe)], label=[f"{what} = {probe:,}"])}


def angle_error_figure(pr: PrecisionDemo, height: int = 300) -> Figure:
    """The worst float32 angle error over the pairs against the position, both on log scales."""
    data = _probe_data(pr.probe, "p")
    data["angle"] = spec.columns(p=pr.positions, e=pr.angle_error)
    return spec.figure(_angle_error_layout(height), data,
                       description=f"float32 angle error against the position: it grows with p and "
                                   f"reaches {pr.probe_angle_error:.3g} rad at p = {pr.probe:,}.")


@layout
def _angle_error_layout(height: int) -> alt.LayerChart:
    colour = DTYPE_COLOURS["float32"]
    line = alt.Chart(spec.named("angle")).mark_line(color=colour, point=alt.OverlayMarkDef(
        size=14, color=colour, shape=spec.SHAPES[1], filled=True)).encode(
        x=_log_x("p", "position p (counted from 0, as RoPE code does)"),
        y=alt.Y("e:Q", title="largest angle error (rad)", scale=alt.Scale(type="log"), axis=alt.Axis(format="~e")),
        tooltip=[_tip("p", "position p", fmt=","), _tip("e", "angle error (rad)", fmt=".3g")])
    return alt.layer(line, *_probe_layers(), title="float32 angle error, worst pair", height=height)


PAIR_KINDS = ("the worst pair", "the other pairs")


def pair_error_figure(pr: PrecisionDemo, height: int = 260) -> Figure:
    """Each pair's float32 angle error at the probe position, with the largest error float32 allows there."""
    e = pr.pairs
    n = e.error.size
    worst = pr.worst_pair
    theta_half_step = np.spacing(np.asarray(e.angle / max(pr.probe, 1), dtype=np.float32)).astype(float) / 2
    allowed = e.spacing / 2 + pr.probe * theta_half_step
    kind = np.where(np.arange(n) == worst, 0, 1)
    data = {"pairs": spec.columns(i=np.arange(n), e=e.error, angle=e.angle, tp=e.theta_part, pp=e.product_part,
                                  sp=e.spacing, cap=allowed, kind=spec.categories(kind, PAIR_KINDS))}
    return spec.figure(_pair_error_layout(n, pr.probe, height), data,
                       description=f"float32 angle error per pair at p = {pr.probe:,}: pair {worst} "
                                   f"is off by {e.error[worst]:.3g} rad, the slow pairs by almost "
                                   "nothing.")


@layout
def _pair_error_layout(n: int, probe: int, height: int) -> alt.LayerChart:
    """``n`` pairs, the errors taken at position ``probe`` (named in the titles)."""
    enc = spec.series("kind", PAIR_KINDS, title=None, colours=(FOCUS, DTYPE_COLOURS["float32"]))
    x = alt.X("i:O", title=PAIR_AXIS, axis=alt.Axis(labelAngle=0, values=list(range(0, n, max(1, n // 16)))))
    bars = alt.Chart(spec.named("pairs")).mark_bar().encode(
        x=x, y=alt.Y("e:Q", title=f"angle error at p = {probe:,} (rad)"), color=enc["color"],
        tooltip=[_tip("i", "pair i (0-based)"), _tip("angle", "p·θ_i (rad)", fmt=",.1f"),
                 _tip("e", "float32 error (rad)", fmt=".3g"), _tip("tp", "from storing θ_i", fmt=".3g"),
                 _tip("pp", "from rounding the product", fmt=".3g"),
                 _tip("sp", "float32 step at p·θ_i", fmt=".3g"), _tip("cap", "largest possible", fmt=".3g")])
    cap = alt.Chart(spec.named("pairs")).mark_tick(color=REFERENCE, thickness=2).encode(
        x=x, y=alt.Y("cap:Q"), tooltip=[_tip("i", "pair i (0-based)"), _tip("cap", "largest possible error", fmt=".3g")])
    return alt.layer(bars, cap, title=f"float32 error per pair at p = {probe:,}", height=height)


def offset_figure(pr: PrecisionDemo, height: int = 300) -> Figure:
    """|score(m, m + g) − score(0, g)| against m, one line per number format (colour, dash and shape), labelled
    directly; log scales."""
    names = [t for t in DTYPES if t in pr.offset_error]
    pos = np.asarray(pr.positions, dtype=float)
    k = len(names)
    drift = spec.columns(m=np.tile(pos, k), e=np.concatenate([pr.offset_error[t] for t in names]),
                         f=spec.categories(np.repeat(np.arange(k), pos.size), names))
    labels = _label_table(direct_labels(pos, {t: pr.offset_error[t] for t in names}, window=(0.4, 0.9)),
                          names, "m", "e", "f", pos, log_x=True)
    data = _probe_data(pr.probe, "m")
    data.update(drift=drift, labels=labels)
    return spec.figure(_offset_layout(names, pr.gap, height), data,
                       description=f"Score drift of a pair {pr.gap} apart moved to position m: float64 "
                                   f"stays near {pr.probe_offset['float64']:.1g}, float32 reaches "
                                   f"{pr.probe_offset['float32']:.2g} and bfloat16 "
                                   f"{pr.probe_offset['bfloat16']:.2g} at m = {pr.probe:,}.")


@layout
def _offset_layout(names: Sequence[str], gap: int, height: int) -> alt.LayerChart:
    """One line per number format in ``names``; ``gap`` is named in the title."""
    names = list(names)
    enc = spec.series("f", names, title=None, colours=[DTYPE_COLOURS[t] for t in names])
    x = _log_x("m", "start position m (counted from 0)")
    y = alt.Y("e:Q", title="|score(m, m+g) − score(0, g)|", scale=alt.Scale(type="log"), axis=alt.Axis(format="~e"))
    lines = alt.Chart(spec.named("drift")).mark_line(point=alt.OverlayMarkDef(size=14, filled=True)).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"], shape=enc["shape"],
        tooltip=[_tip("f", "format", "nominal"), _tip("m", "start m", fmt=","), _tip("e", "score drift", fmt=".3g")])
    text = _label_layers(alt.X("m:Q"), alt.Y("e:Q"), "f", names, [DTYPE_COLOURS[t] for t in names], -10)
    return alt.layer(lines, *text, *_probe_layers(bottom=height),
                     title=f"Same gap g = {gap}, moved to m: score drift", height=height)


BF16_KINDS = ("stored exactly", "collapsed onto a neighbour")


def bf16_figure(win: Bf16Positions, height: int = 280) -> Figure:
    """Each exact position against the value bfloat16 stores for it; the dashed diagonal is “stored exactly”."""
    p = np.asarray(win.positions, dtype=float)
    s = np.asarray(win.stored, dtype=float)
    kept = np.where(s == p, 0, 1)
    ends = [float(p.min()), float(p.max())]
    data = {"bf16": spec.columns(p=p, s=s, off=s - p, kept=spec.categories(kept, BF16_KINDS)),
            "diag": spec.columns(p=ends, s=ends)}
    return spec.figure(_bf16_layout(ends[0], ends[1], height), data,
                       description=f"Positions {int(p.min())} to {int(p.max())} stored in bfloat16: "
                                   f"only {win.distinct} of {p.size} stay distinct.")


@layout
def _bf16_layout(first: float, last: float, height: int) -> alt.LayerChart:
    """Positions ``first`` to ``last`` (the x domain reaches half a position past each)."""
    x = alt.X("p:Q", title="exact position (as stored by code, from 0)",
              scale=alt.Scale(domain=[first - 0.5, last + 0.5]),
              axis=alt.Axis(tickMinStep=1, format="d"))
    diag = alt.Chart(spec.named("diag")).mark_line(color=REFERENCE, strokeDash=[4, 3]).encode(x=x, y=alt.Y("s:Q"))
    enc = spec.series("kept", BF16_KINDS, title=None, colours=(SERIES[0], FOCUS))
    pts = alt.Chart(spec.named("bf16")).mark_point(filled=True, size=90).encode(
        x=x, y=alt.Y("s:Q", title="stored in bfloat16", scale=alt.Scale(zero=False),
                     axis=alt.Axis(tickMinStep=1, format="d")),
        color=enc["color"], shape=enc["shape"],
        tooltip=[_tip("p", "exact position", fmt="d"), _tip("s", "stored in bf16", fmt="d"),
                 _tip("off", "off by", fmt="+d"), _tip("kept", "kept?", "nominal")])
    return alt.layer(diag, pts, title="Positions stored in bfloat16", height=height)

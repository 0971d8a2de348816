"""Charts for "Other ways to say where" (ALiBi, RoPE's long-term decay, number formats): the page's results
in, ``spec.Figure`` out (Altair, public API only).

Every builder draws from named datasets (``spec.named``) whose names are fixed here, so a control that only
changes the numbers leaves the spec as it was and the browser swaps the data into the chart it already has.
The ALiBi head and RoPE's ρ are closed forms computed in the chart (``EXPR_ALIBI``, ``EXPR_DECAY``): dragging
them redraws with no rerun. Colours keep their one app-wide meaning (``spec.FOCUS``,
``spec.SERIES`` via ``spec.series``, ``spec.REFERENCE``); compared lines differ by colour, dash and shape, and are
labelled directly where they separate, on a white halo. Pair indices i are 0-based (as RoPE code counts them); positions in the
precision charts are token indices p as RoPE code counts them (0-based); words in the ALiBi chart are 1-based.
Each description says what its chart shows in words and the layout's own arguments (so it stays put while the
numbers change); the numbers of this setting go in the figure's reading (``spec.figure``).
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np

from posenc.beyond import AlibiDemo, Bf16Positions, DecayDemo, PrecisionDemo
from posenc.core import count, listing

from . import spec
from .spec import FOCUS, REFERENCE, SERIES, Figure, layout

PAIR_AXIS = "pair i (0-based: fastest → slowest)"
DTYPES = ("float64", "float32", "bfloat16")
DTYPE_COLOURS = spec.series_colours(DTYPES)


def _tip(field: str, title: str, type_: str = "Q", fmt: str | None = None) -> alt.Tooltip:
    return alt.Tooltip(f"{field}:{type_}", title=title, **({"format": fmt} if fmt else {}))


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
            extra["opacity"] = alt.Opacity("op:Q", scale=None)
        # above (dy < 0) or below its point, on a white halo: a noisy line never strikes its own name through
        look = dict(aria=False, align=align, dx=dx, dy=dy, baseline="bottom" if dy < 0 else "top", fontWeight="bold")
        out.append(base.mark_text(**look, **spec.HALO).encode(
            x=x, y=y, text=alt.Text(f"{field}:N"), **extra))
        out.append(base.mark_text(**look).encode(
            x=x, y=y, text=alt.Text(f"{field}:N"),
            color=alt.Color(f"{field}:N", scale=spec.series_scale(names, colours), legend=None),
            **extra))
    return out


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
    return spec.figure(_slopes_layout(H, base_heads, height), data, description=_slopes_description(H, base_heads),
                       reading=_slopes_reading(m, base_heads))


def _slopes_description(H: int, c: int) -> str:
    """What the slopes chart shows, from its layout's arguments: ``H`` heads, the first ``c`` from the c-head
    series (m_h = 2^(−8h/c)), the rest every other term of the 2c-head series (the same ratio 2^(−8/c))."""
    if H == 1:
        return "The ALiBi slope of 1 head, as one bar (log₂ scale)."
    head = f"ALiBi slopes for {H} heads, one bar per head (log₂ scale)"
    ratio = f"2^(−8/{c}) = {2 ** (-8 / c):.3g}"
    if H == c:
        return f"{head}: each head's slope is {ratio} times the one before."
    rest = f"head {c + 1} takes" if H == c + 1 else f"heads {c + 1} to {H} take"
    return (f"{head}: heads 1 to {c} take the {c}-head series, each slope {ratio} times the one before; {rest} "
            f"every other slope of the {2 * c}-head series (outlined, lighter fill).")


def _slopes_reading(m: np.ndarray, c: int) -> str:
    if m.size == 1:
        return f"The slope is {m[0]:.3g}."
    first = f"from {m[0]:.3g} for head 1 down to {m[c - 1]:.3g} for head {c}"
    if m.size == c:
        return f"The slopes run {first}."
    if m.size == c + 1:
        return f"The slopes run {first}; head {c + 1}'s is {m[c]:.3g}."
    return f"The slopes run {first}, then from {m[c]:.3g} for head {c + 1} down to {m[-1]:.3g} for head {m.size}."


@layout
def _slopes_layout(H: int, base_heads: int, height: int) -> alt.LayerChart:
    """``H`` heads, the first ``base_heads`` from the power-of-two series."""
    names = _slope_series(base_heads)
    used = [names[0]] if H == base_heads else list(names)
    colour = alt.Color("src:N", title=None, sort=used, scale=spec.series_scale(used))
    x = alt.X("h:O", title="head h (1-based)", axis=alt.Axis(labelAngle=0))
    bars = alt.Chart(spec.named("slopes")).mark_bar(aria=False, strokeWidth=1.5).encode(
        x=x, y=alt.Y("m:Q", title="slope m_h (log₂ scale)", scale=alt.Scale(type="log", base=2),
                     axis=alt.Axis(format=".2~g")),
        y2=alt.Y2("floor"), color=colour, stroke=alt.Stroke("src:N", scale=spec.series_scale(used), legend=None),
        fillOpacity=alt.FillOpacity("src:N", scale=alt.Scale(domain=used, range=[0.9, 0.35][: len(used)]),
                                    legend=None),
        tooltip=[_tip("h", "head", "O"), _tip("m", "slope m_h", fmt=".6g"), _tip("l2", "m_h = 2^…", fmt=".3g"),
                 _tip("src", "from", "N")])
    text = alt.Chart(spec.named("slopes")).mark_text(aria=False, dy=-7).encode(
        x=x, y=alt.Y("m:Q"), text=alt.Text("m:Q", format=".3g"))
    return alt.layer(bars, text, title=f"ALiBi slopes for {count(H, 'head')}", height=height)


# ALiBi in the chart: the raw scores travel as data, the head's slope, the bias and the softmax are closed forms
# of the in-chart head ``by_head`` (0: ALiBi off) (``EXPR_ALIBI``; tests/test_chart_expressions.py).
EXPR_ALIBI: dict[str, str] = {
    "m": ("by_head <= datum.c ? pow(2, -8 * by_head / datum.c) : "
          "pow(2, -8 * (2 * (by_head - datum.c) - 1) / (2 * datum.c))"),     # the slope m_h (alibi_slopes)
    "bias": "by_head > 0 ? -datum.m * (datum.i - datum.j) : 0",               # −m_h·(i − j), j ≤ i; head 0: off
    "z": "datum.sc + datum.bias",
}
EXPR_SOFTMAX: dict[str, str] = {"e": "exp(datum.z - datum.zmax)"}  # then a = e / Σ_j e (row by row)
HEAT_LIGHT, HEAT_DARK = "#f7fbff", "#5a9bcc"  # the weight scale's ends: dark text on either is ≥ 4.5:1


def alibi_figure(al: AlibiDemo) -> Figure:
    """Causal attention weights with ALiBi on the sentence for the head picked in the chart (or ALiBi off); the
    copies of a repeated word outlined in the query's row; numbers written in the cells of short sentences."""
    n = len(al.tokens)
    labels = spec.word_labels(al.tokens)
    ii, jj = np.tril_indices(n)
    H = al.slopes.size
    cells = spec.columns(i=ii, j=jj, sc=np.asarray(al.scores, dtype=float)[ii, jj], c=np.full(ii.size, al.base_heads))
    words = spec.columns(k=np.arange(n), w=spec.categories(np.arange(n), labels))
    if al.copies is not None and al.query is not None:
        marks = spec.columns(i=np.array([al.query] * 2), j=np.array(al.copies))
        j1, j2 = al.copies
        q = al.query
        reading = (f"With head 1 (m = {al.slopes[0]:.3g}) the query at position {q + 1} gives the copies at {j1 + 1} "
                   f"and {j2 + 1} weights {al.weights[0, q, j1]:.2f} and {al.weights[0, q, j2]:.2f}; without ALiBi "
                   f"both get {al.plain_weights[q, j1]:.2f}.")
    else:
        marks = spec.columns(i=np.array([], dtype=int), j=np.array([], dtype=int))
        reading = "No word repeats here, so no cell is outlined."
    info = spec.columns(c=[al.base_heads], H=[H])
    return spec.figure(_alibi_layout(tuple(labels), H), {"cells": cells, "words": words, "copies": marks,
                                                          "info": info},
                       description=f"Attention weights with ALiBi on the sentence's {count(n, 'word')}, for the "
                                   f"head picked under the chart ({count(H, 'head')}; head 0: ALiBi off): each head "
                                   "subtracts its slope times the distance from every score, so of two keys with "
                                   "the same score the farther one weighs less. Outlined: the first two copies of "
                                   "a repeated word, in the row of the query that reads both.",
                       reading=reading)


@layout
def _alibi_layout(labels: Sequence[str], H: int) -> alt.LayerChart:
    """A causal heatmap over the words ``labels``, ``H`` heads to pick from in the chart."""
    n = len(labels)
    labels = list(labels)
    head = alt.param(name="by_head", value=1,
                     bind=alt.binding_range(min=0, max=max(H, 1), step=1, name="head h (0 = ALiBi off) "))
    look = alt.LookupData(data=spec.named("words"), key="k", fields=["w"])
    # the keys along the top, as in an attention matrix: the bottom of the plot is free for the head's readout,
    # which then sits right above the head slider whatever the words' (turned) labels take
    x = alt.X("key:N", sort=labels, title="key j (word, 1-based)",
              axis=alt.Axis(orient="top", labelAngle=-45 if n > 6 else 0, labelOverlap=n > 10))
    y = alt.Y("query:N", sort=labels, title="query i (word, 1-based)", axis=alt.Axis(labelOverlap=n > 10))

    def looked(chart: alt.Chart) -> alt.Chart:
        return chart.transform_lookup(lookup="i", from_=look, as_=["query"]).transform_lookup(
            lookup="j", from_=look, as_=["key"])

    # what no frame changes first (the words looked up, the distance): a frame of the head slider re-runs only
    # the closed forms below them
    src = looked(alt.Chart(spec.named("cells"))).transform_calculate(dist="datum.i - datum.j")
    for name, expr in EXPR_ALIBI.items():
        src = src.transform_calculate(**{name: expr})
    src = src.transform_joinaggregate(zmax="max(z)", groupby=["i"]).transform_calculate(**EXPR_SOFTMAX)
    src = src.transform_joinaggregate(esum="sum(e)", groupby=["i"]).transform_calculate(a="datum.e / datum.esum")
    rect = src.mark_rect(aria=False).encode(
        x=x, y=y, color=alt.Color("a:Q", title="attention weight",
                                  scale=alt.Scale(domain=[0, 1], range=[HEAT_LIGHT, HEAT_DARK], interpolate="rgb"),
                                  legend=None if n <= 10 else alt.Legend()),  # short sentences: numbers in cells
        tooltip=[alt.Tooltip("query:N", title="query"), alt.Tooltip("key:N", title="key"),
                 alt.Tooltip("dist:Q", title="distance i − j"), alt.Tooltip("bias:Q", title="bias −m·(i − j)",
                                                                            format=".4g"),
                 alt.Tooltip("a:Q", title="weight", format=".3f")]).add_params(head)
    layers = [rect]
    if n <= 10:
        layers.append(src.mark_text(aria=False, color=spec.TEXT).encode(x=x, y=y, text=alt.Text("a:Q", format=".2f")))
    layers.append(looked(alt.Chart(spec.named("copies"))).mark_rect(aria=False, fill=None, stroke=FOCUS,
                                                                    strokeWidth=3).encode(x=x, y=y))
    slope = alt.Chart(spec.named("info")).transform_calculate(c="datum.c").transform_calculate(
        m=EXPR_ALIBI["m"]).transform_calculate(text=EXPR_ALIBI_READOUT).transform_calculate(
        shown=readout_lines(ALIBI_READOUT_CHARS))
    layers.append(readout(slope, READOUT_GAP))
    height = int(min(340, max(150, 26 * n)))
    return alt.layer(*layers, title="Attention weights with ALiBi", height=height)


#: the head slider's live readout, written under the heatmap (``readout``)
EXPR_ALIBI_READOUT = ("by_head > 0 ? 'head ' + by_head + ' of ' + datum.H + ': slope m = ' + format(datum.m, '.3g') : "
                      "'ALiBi off (head 0): no bias, the copies weigh the same'")
ALIBI_READOUT_CHARS = 32  # the widest readout, in text sizes (bold): narrower plots split it in two lines


# ---------------------------------------------------------------------------------------------- live readouts
# A chart's live readout (the numbers its in-chart slider changes) is written in the house text size (13 px, 18
# projected: the axes' size), bold in FOCUS, left-aligned under the plot: right above the slider a student drags
# (Vega draws a chart's inputs under it). A plot narrower than the readout's one line gets it on two lines, split
# at its first ': ', so it stays in the chart's frame on a phone.
READOUT_SIZE = 13
READOUT_GAP = 8  # px between the plot's bottom edge and a readout right under it


def _font(normal: int = READOUT_SIZE) -> str:
    """A text size as a Vega expression: ``normal``, grown as the axes' text is while projecting."""
    return f"({spec.PRESENTING} ? {round(normal * spec.PRESENT_TEXT)} : {normal})"


def readout_lines(chars: int) -> str:
    """The calculated ``text`` as shown: one line when the plot holds ``chars`` text sizes, else two lines."""
    return (f"width >= {chars} * {_font()} || indexof(datum.text, ': ') < 0 ? datum.text : "
            "[substring(datum.text, 0, indexof(datum.text, ': ') + 1), "
            "substring(datum.text, indexof(datum.text, ': ') + 2)]")


def readout(chart: alt.Chart, below: int | str) -> alt.Chart:
    """The readout layer of ``chart`` (its field ``shown``), ``below`` px (a number or a Vega expression) under
    the plot's bottom edge, flush with the plot's left edge."""
    return chart.mark_text(aria=False, align="left", baseline="top", fontSize=READOUT_SIZE, fontWeight="bold",
                           color=FOCUS, lineHeight=alt.expr(f"round(1.25 * {_font()})"),
                           dy=alt.expr(str(below))).encode(x=alt.value(0), y=alt.value("height"),
                                                           text=alt.Text("shown:N"))


# ---------------------------------------------------------------------------------------------- decay
GAP_AXIS = "gap Δ = m − n (tokens)"


def bound_figure(dec: DecayDemo, height: int = 300) -> Figure:
    """RoFormer's relative upper bound B(Δ) against the gap, in its own units (B(0) = (d/2 + 1)/2)."""
    data = {"bound": spec.columns(x=dec.deltas, b=dec.bound, rel=dec.bound_rel)}
    last, steps = float(dec.bound[-1]), dec.deltas.size - 1
    change = "falls" if last < dec.b0 else "stays"
    again = f"rising again at {dec.rises} of its {steps} steps" if dec.rises else "never rising on the way"
    return spec.figure(_bound_layout(height), data,
                       description="RoFormer's bound B(Δ) against the gap Δ = m − n, in its own units: it is largest "
                                   "at Δ = 0, where B(0) = (d/2 + 1)/2.",
                       reading=f"It {change} from {dec.b0:g} at Δ = 0 to {last:.3g} at Δ = {dec.deltas[-1]:g}, "
                               f"{again}.")


@layout
def _bound_layout(height: int) -> alt.Chart:
    line = alt.Chart(spec.named("bound")).mark_line(aria=False, color=REFERENCE, strokeWidth=1.8).encode(
        x=alt.X("x:Q", title=GAP_AXIS), y=alt.Y("b:Q", title="B(Δ)", scale=alt.Scale(zero=True)),
        tooltip=[_tip("x", "gap Δ"), _tip("b", "B(Δ)", fmt=".4f"), _tip("rel", "B(Δ) / B(0)", fmt=".4f")])
    return line.properties(title="RoFormer's bound B(Δ)", height=height)


# The decay chart in the chart: the score's closed forms in ρ (``posenc.beyond.ScoreCurves``) over the shipped
# gaps; ``by_rho`` is the in-chart correlation (tests/test_chart_expressions.py). What does not depend on ρ is
# shipped (cm, cq, a, b, 1/d per gap; the summary's sums); per gap and frame only ``EXPR_DECAY`` runs.
EXPR_DECAY: dict[str, str] = {
    "mean": "by_rho * datum.cm",
    "sd": "sqrt(by_rho * by_rho * datum.cq + (1 - by_rho * by_rho) * datum.dinv)",
    "lo": "datum.mean - 1.645 * datum.sd",
    "hi": "datum.mean + 1.645 * datum.sd",
    "one": "by_rho * datum.a + sqrt(max(0, 1 - by_rho * by_rho)) * datum.b",
}
#: the summary line, from the one-row "ends" data: the mean at Δ = 0 is ρ·cm(0), far away ρ·(mean of cm)
EXPR_DECAY_SUMMARY = ("'ρ = ' + format(by_rho, '.2f') + ': mean ' + format(by_rho * datum.cm0, '.2f') + "
                      "' at Δ = 0, ' + format(by_rho * datum.cml, '.2f') + ' far away'")
DECAY_READOUT_CHARS = 26  # the summary's width, in text sizes (bold): narrower plots split it in two lines
DECAY_AXIS_PX = 36  # the x axis' tick, paddings and a gap, in px: its labels and title (2.2 text sizes, measured
# at 13 and 18 px: the title ends 60 and 71 px under the plot) come on top
DRAWN_GAPS = 130  # at most this many gaps drawn: each is re-encoded in three marks on every frame of the ρ slider
# (in the browser's expression interpreter: 130 keep a frame within 30 ms, about 5 px a gap at a laptop's width)
SCORE_NAMES = ("━ mean over all (q, k)", "╍ one random (q, k)", "▒ middle 90 % (mean ± 1.645 sd)")


def drawn_gaps(n: int) -> np.ndarray:
    """The indices of the gaps the decay chart draws out of ``n``: every k-th, so at most ``DRAWN_GAPS``, the
    first and the last kept."""
    stride = max(1, -(-(n - 1) // (DRAWN_GAPS - 1)))
    return np.unique(np.append(np.arange(0, n, stride), n - 1))


RHO_STEP = 0.05  # the in-chart ρ slider's step


def _score_span(sc, drawn: np.ndarray) -> dict:
    """The y axis' ends: the lowest and highest of the band, the one draw and 0 over every ρ the slider reaches,
    so the axis holds still while ρ drags (and the browser never re-lays it out)."""
    rhos = np.linspace(0.0, 1.0, round(1 / RHO_STEP) + 1)
    ys = np.concatenate([np.concatenate([sc.mean(r)[drawn] + k * 1.645 * sc.sd(r)[drawn] for k in (-1, 1)]
                                        + [sc.one(r)[drawn]]) for r in rhos] + [[0.0]])
    return {"ylo": [float(ys.min())], "yhi": [float(ys.max())]}


def score_figure(sc, rho0: float = 1.0, height: int = 170) -> Figure:
    """The RoPE score ÷ d against the gap, in closed form for the in-chart ρ: mean, mean ± 1.645 sd (about the
    middle 90 %), and one random (q, k). ``sc``: ``posenc.beyond.ScoreCurves``; ``rho0``: the ρ of the reading's numbers."""
    n = sc.deltas.size
    tail = max(1, n // 10)
    drawn = drawn_gaps(n)
    data = {"gaps": spec.columns(x=sc.deltas[drawn], cm=sc.cos_mean[drawn], cq=sc.cos_sq[drawn], a=sc.a[drawn],
                                 b=sc.b[drawn], dinv=np.full(drawn.size, 1.0 / sc.d)),
            "ends": spec.columns(cm0=[float(sc.cos_mean[0])], cml=[float(np.mean(sc.cos_mean[-tail:]))],
                                 xmax=[float(sc.deltas[-1])], **_score_span(sc, drawn)),
            "zero": spec.columns(y=[0.0]), "names": spec.columns(k=[0, 1, 2], t=list(SCORE_NAMES))}
    m = sc.mean(rho0)
    first, late = f"{m[0]:.2f}", f"{float(np.mean(m[-tail:])):.2f}"
    far = f"on average for Δ ≥ {sc.deltas[-tail]:g}"
    mean = (f"is {first} at Δ = 0 and {late} {far}" if first == late else
            f"{'falls' if float(late) < float(first) else 'rises'} from {first} at Δ = 0 to {late} {far}")
    return spec.figure(_score_layout(height), data,
                       description="The RoPE score divided by d against the gap Δ, for the ρ picked under the chart "
                                   "(how well q matches k): the mean over all (q, k), the middle 90 % (mean ± 1.645 "
                                   "sd) and one random (q, k). The mean is ρ·(2/d)·Σ cos(Δθ_i): it scales with ρ "
                                   "and is 0 at every gap when ρ = 0.",
                       reading=f"At ρ = {rho0:g} the mean {mean}, while a single (q, k) swings by about "
                               f"±{1.645 * float(np.mean(sc.sd(rho0)[-tail:])):.2f} around it.")


@layout
def _score_layout(height: int) -> alt.LayerChart:
    rho = alt.param(name="by_rho", value=1.0, bind=alt.binding_range(min=0, max=1, step=RHO_STEP,
                                                                     name="how well q matches k, ρ "))
    src = alt.Chart(spec.named("gaps"))
    for name, expr in EXPR_DECAY.items():
        src = src.transform_calculate(**{name: expr})
    # both axes' ends are data no frame changes (the gaps, the band's reach over every ρ): a drag never re-runs a
    # scale, so the axes hold still and nothing that hangs on them is redrawn
    ends = "data('ends')"
    x = alt.X("x:Q", title=GAP_AXIS,
              scale=alt.Scale(domain=alt.expr(f"length({ends}) ? [0, {ends}[0].xmax] : [0, 1]"), nice=False))
    span = alt.Scale(domain=alt.expr(f"length({ends}) ? [{ends}[0].ylo, {ends}[0].yhi] : [-1, 1]"), nice=True)
    band = src.mark_area(aria=False, opacity=0.2, color=SERIES[0]).encode(
        x=x, y=alt.Y("lo:Q", title="score ÷ d", scale=span), y2=alt.Y2("hi:Q"))
    zero = alt.Chart(spec.named("zero")).mark_rule(aria=False, color=REFERENCE, strokeWidth=0.8).encode(y=alt.Y("y:Q"))
    one = src.mark_line(aria=False, color=SERIES[1], strokeWidth=1, strokeDash=[4, 2]).encode(x=x, y=alt.Y("one:Q"))
    mean = src.mark_line(aria=False, color=SERIES[0], strokeWidth=2.4).encode(
        x=x, y=alt.Y("mean:Q"),
        tooltip=[alt.Tooltip("x:Q", title="gap Δ"), alt.Tooltip("mean:Q", title="mean score ÷ d", format=".3f"),
                 alt.Tooltip("lo:Q", title="5 %", format=".3f"), alt.Tooltip("hi:Q", title="95 %", format=".3f"),
                 alt.Tooltip("one:Q", title="one (q, k)", format=".3f")])
    # the series' names in the plot's top-right corner, in the house text size, one line each
    names = [alt.Chart(spec.named("names")).transform_filter(f"datum.k == {k}").mark_text(
        aria=False, align="right", baseline="top", dx=-4, fontSize=READOUT_SIZE, fontWeight="bold",
        color=colour, dy=alt.expr(f"{k} * round(1.3 * {_font()})")).encode(
        x=alt.value("width"), y=alt.value(4), text=alt.Text("t:N"))
        for k, colour in enumerate((SERIES[0], SERIES[1], SERIES[0]))]
    # the readout under the x axis (its labels and title: tick, paddings and two lines of text), above the ρ slider
    summary = readout(alt.Chart(spec.named("ends")).transform_calculate(text=EXPR_DECAY_SUMMARY).transform_calculate(
        shown=readout_lines(DECAY_READOUT_CHARS)), f"{DECAY_AXIS_PX} + round(2.2 * {_font()})")
    return alt.layer(band, zero, one, mean, *names, summary, title="The actual score ÷ d",
                     height=height).add_params(rho)


# ---------------------------------------------------------------------------------------------- precision
def _log_x(field: str, title: str) -> alt.X:
    return alt.X(f"{field}:Q", title=title, scale=alt.Scale(type="log"), axis=alt.Axis(format="~s"))


def _probe_layers(bottom: int | None = None) -> list:
    """A FOCUS rule at the probed position (dataset "probe", from ``_probe_data``), labelled at the top of the
    plot (or at ``bottom``, the plot height)."""
    rule = alt.Chart(spec.named("probe")).mark_rule(aria=False, color=FOCUS, strokeDash=[4, 3]).encode(
        x=alt.X("x:Q"), tooltip=[_tip("label", "line", "N")])
    text = alt.Chart(spec.named("probe")).mark_text(aria=False,
        align="right", baseline="top" if bottom is None else "bottom", dx=-4, dy=4 if bottom is None else -4,
        color=FOCUS).encode(x=alt.X("x:Q"), y=alt.value(0 if bottom is None else bottom),
                                         text=alt.Text("label:N"))
    return [rule, text]


def _probe_data(probe: int, what: str) -> dict:
    return {"probe": spec.columns(x=[float(probe)], label=[f"{what} = {probe:,}"])}


def angle_error_figure(pr: PrecisionDemo, height: int = 300) -> Figure:
    """The worst float32 angle error over the pairs against the position, both on log scales."""
    data = _probe_data(pr.probe, "p")
    data["angle"] = spec.columns(p=pr.positions, e=pr.angle_error)
    near = pr.positions <= SMALL_P
    small = float(np.max(pr.angle_error[near])) if near.any() else 0.0
    grows = "It grows with p: " if pr.probe_angle_error > small else "It is "
    return spec.figure(_angle_error_layout(height), data,
                       description="float32 angle error against the position p, both on log scales: the largest "
                                   "error over the pairs when p·θ_i is computed in float32 instead of float64. The "
                                   "dashed rule marks the probed position.",
                       reading=f"{grows}at most {small:.2g} rad up to p = {SMALL_P:,}, and "
                               f"{pr.probe_angle_error:.3g} rad at p = {pr.probe:,}.")


SMALL_P = 1000  # the angle error's reading: its largest up to this position, then at the probe


@layout
def _angle_error_layout(height: int) -> alt.LayerChart:
    colour = DTYPE_COLOURS["float32"]
    line = alt.Chart(spec.named("angle")).mark_line(aria=False, color=colour, point=alt.OverlayMarkDef(
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
    rest = (f", the slower half of the pairs (from pair {n // 2} on) by at most {float(np.max(e.error[n // 2:])):.2g} "
            "rad" if worst < n // 2 else "")
    return spec.figure(_pair_error_layout(n, pr.probe, height), data,
                       description=f"float32 angle error of each of the {n} pairs at p = {pr.probe:,}, pair i "
                                   "0-based from the fastest; ticks: the largest error float32 rounding allows "
                                   "for each pair.",
                       reading=f"Pair {worst} is off by {e.error[worst]:.3g} rad{rest}." if e.error[worst] > 0 else
                       "No pair is off: every angle is exact here.")


@layout
def _pair_error_layout(n: int, probe: int, height: int) -> alt.LayerChart:
    """``n`` pairs, the errors taken at position ``probe`` (named in the titles)."""
    enc = spec.series("kind", PAIR_KINDS, title=None, colours=(FOCUS, DTYPE_COLOURS["float32"]))
    x = alt.X("i:O", title=PAIR_AXIS, axis=alt.Axis(labelAngle=0, values=list(range(0, n, max(1, n // 16)))))
    bars = alt.Chart(spec.named("pairs")).mark_bar(aria=False).encode(
        x=x, y=alt.Y("e:Q", title=f"angle error at p = {probe:,} (rad)"), color=enc["color"],
        tooltip=[_tip("i", "pair i (0-based)"), _tip("angle", "p·θ_i (rad)", fmt=",.1f"),
                 _tip("e", "float32 error (rad)", fmt=".3g"), _tip("tp", "from storing θ_i", fmt=".3g"),
                 _tip("pp", "from rounding the product", fmt=".3g"),
                 _tip("sp", "float32 step at p·θ_i", fmt=".3g"), _tip("cap", "largest possible", fmt=".3g")])
    cap = alt.Chart(spec.named("pairs")).mark_tick(aria=False, color=REFERENCE, thickness=2).encode(
        x=x, y=alt.Y("cap:Q"), tooltip=[_tip("i", "pair i (0-based)"), _tip("cap", "largest possible error", fmt=".3g")])
    return alt.layer(bars, cap, title=f"float32 error per pair at p = {probe:,}", height=height)


def offset_figure(pr: PrecisionDemo, height: int = 170) -> Figure:
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
    drifts = [f"{pr.probe_offset[t]:{'.1g' if t == 'float64' else '.2g'}} in {t}" for t in names]
    return spec.figure(_offset_layout(names, pr.gap, height), data,
                       description=f"Score drift of a pair {pr.gap} apart moved to start position m, one line per "
                                   "number format, both on log scales: in exact maths the same gap gives the same "
                                   "score, so any drift is rounding. The dashed rule marks the probed position.",
                       reading=f"At m = {pr.probe:,} the drift is {listing(drifts)}.")


@layout
def _offset_layout(names: Sequence[str], gap: int, height: int) -> alt.LayerChart:
    """One line per number format in ``names``; ``gap`` is named in the title."""
    names = list(names)
    enc = spec.series("f", names, legend=False, colours=[DTYPE_COLOURS[t] for t in names])  # named on the lines
    x = _log_x("m", "start position m (counted from 0)")
    y = alt.Y("e:Q", title="|score(m, m+g) − score(0, g)|", scale=alt.Scale(type="log"), axis=alt.Axis(format="~e"))
    lines = alt.Chart(spec.named("drift")).mark_line(aria=False, point=alt.OverlayMarkDef(size=14, filled=True)).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"], shape=enc["shape"],
        tooltip=[_tip("f", "format", "N"), _tip("m", "start m", fmt=","), _tip("e", "score drift", fmt=".3g")])
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
                       description=f"Positions {int(ends[0])} to {int(ends[1])} stored in bfloat16: each exact "
                                   "position against the value stored for it. On the dashed diagonal a position is "
                                   "stored exactly; off it, it has collapsed onto a neighbour.",
                       reading=f"All {p.size} stay distinct." if win.distinct == p.size else
                       f"Only {win.distinct} of {p.size} stay distinct.")


@layout
def _bf16_layout(first: float, last: float, height: int) -> alt.LayerChart:
    """Positions ``first`` to ``last`` (the x domain reaches half a position past each)."""
    x = alt.X("p:Q", title="exact position (as stored by code, from 0)",
              scale=alt.Scale(domain=[first - 0.5, last + 0.5]),
              axis=alt.Axis(tickMinStep=1, format="d"))
    diag = alt.Chart(spec.named("diag")).mark_line(aria=False, color=REFERENCE, strokeDash=[4, 3]).encode(x=x, y=alt.Y("s:Q"))
    enc = spec.series("kept", BF16_KINDS, title=None, colours=(SERIES[0], FOCUS))
    pts = alt.Chart(spec.named("bf16")).mark_point(aria=False, filled=True, size=90).encode(
        x=x, y=alt.Y("s:Q", title="stored in bfloat16", scale=alt.Scale(zero=False),
                     axis=alt.Axis(tickMinStep=1, format="d")),
        color=enc["color"], shape=enc["shape"],
        tooltip=[_tip("p", "exact position", fmt="d"), _tip("s", "stored in bf16", fmt="d"),
                 _tip("off", "off by", fmt="+d"), _tip("kept", "kept?", "N")])
    return alt.layer(diag, pts, title="Positions stored in bfloat16", height=height)

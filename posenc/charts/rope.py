"""Charts for the RoPE page (arrays in, ``spec.Figure`` out): the score window, each pair on its circle, lengths.

Every builder goes through ``spec.figure`` with named datasets; in-chart params re-slice data already sent.
"""

from __future__ import annotations

import altair as alt
import numpy as np

from . import spec

SCHEMES = ("RoPE", "adding sinusoids")  # the window heatmap's two score matrices, picked in the chart
VECTORS = ("q", "k")
WINDOW_HEIGHT = 300  # the plot itself (autosize fit-x: title, axes and legend come on top of it)
CIRCLE_HEIGHT = 320
LENGTH_HEIGHT = 260
LENGTH_SERIES = ["RoPE: ‖q turned by p‖", "raw index: ‖[x ; p]‖"]  # the lengths chart's two curves


def _ticks(count: int, channel: str, every: int = 5) -> alt.ExprRef:
    """The axis' tick values, every ``every``-th of the ``count`` positions on ``channel`` and the last one, read
    from the scale's domain in the browser (``domain('x')[5]``…): the positions themselves are data, so a new
    window start reuses the layout."""
    picks = list(range(0, count, every)) + ([count - 1] if (count - 1) % every else [])
    return alt.expr("[" + ", ".join(f"domain('{channel}')[{i}]" for i in picks) + "]")


def score_window(positions: np.ndarray, rope_scores: np.ndarray, additive_scores: np.ndarray, *,
                 scheme: str = SCHEMES[0], query_word: str = "", key_word: str = "") -> spec.Figure:
    """The score of one query word at m against one key word at n, for every (m, n) of the window: RoPE's and the
    additive scheme's matrices are both sent (2 × 40 × 40 rows); a radio inside the chart picks which is drawn.
    RoPE's colours run along the diagonals (same gap n − m); the additive scheme's change along them."""
    pos = np.asarray(positions, dtype=np.int64)
    w = pos.size
    mm, nn = np.meshgrid(pos, pos, indexing="ij")
    scores = np.concatenate([np.asarray(rope_scores, float).ravel(), np.asarray(additive_scores, float).ravel()])
    codes = np.repeat(np.arange(2), w * w)
    top = spec.nice_bound(float(np.max(np.abs(scores))) if scores.size else 0.0)  # few values: the layout is reused
    chart = _window_layout(w, top, scheme)
    title = f"Score at (m, n), positions {pos[0]:,} … {pos[-1]:,}" if w else "Score at (m, n)"
    data = {"main": spec.columns(m=np.tile(mm.ravel(), 2), n=np.tile(nn.ravel(), 2),
                                 gap=np.tile((nn - mm).ravel(), 2), score=scores,
                                 scheme=spec.categories(codes, SCHEMES),
                                 title=spec.categories(np.zeros(codes.size, dtype=int), [title]))}
    words = f" ({query_word!s} → {key_word!s})" if query_word and key_word else ""
    return spec.figure(chart, data, description=(
        f"Score window{words}, positions {pos[0]:,} to {pos[-1]:,}: with RoPE every diagonal (one gap n − m) has "
        "one colour; adding sinusoids instead, the colour changes along the diagonals."))


@spec.layout
def _window_layout(count: int, top: float, scheme: str) -> alt.Chart:
    """The window's heatmap over ``count`` positions (which ones, and the title naming them, come with the data;
    axis labels at every 5th and the last), colours from −top to top, the scheme picked in the chart (``scheme``
    at first)."""
    pick = alt.param(name="scheme", value=scheme,
                     bind=alt.binding_radio(options=list(SCHEMES), name="Score with: "))
    axis_n = alt.Axis(values=_ticks(count, "x"), labelAngle=0, labelOverlap=True, format=",d")
    axis_m = alt.Axis(values=_ticks(count, "y"), labelOverlap=True, format=",d")
    return (
        alt.Chart(spec.named("main"))
        .mark_rect()
        .encode(
            x=alt.X(field="n", type="ordinal", title="key position n", axis=axis_n),
            y=alt.Y(field="m", type="ordinal", title="query position m", axis=axis_m),
            color=alt.Color(field="score", type="quantitative", title="score",
                            scale=alt.Scale(scheme=spec.DIVERGING, domain=[-top, top]),
                            legend=alt.Legend(gradientLength=220, titleOrient="left")),
            tooltip=[alt.Tooltip(field="scheme", type="nominal"),
                     alt.Tooltip(field="m", type="quantitative", title="query position m", format=",d"),
                     alt.Tooltip(field="n", type="quantitative", title="key position n", format=",d"),
                     alt.Tooltip(field="gap", type="quantitative", title="gap n − m", format=",d"),
                     alt.Tooltip(field="score", type="quantitative", format=".6f")],
        )
        .add_params(pick)
        .transform_filter(alt.datum.scheme == pick)
        .properties(height=WINDOW_HEIGHT, title=alt.TitleParams(
            spec.text_from("main", "title"), subtitle="One colour per diagonal: the gap n − m sets it."))
    )


def pair_circles(thetas: np.ndarray, q_pairs: np.ndarray, k_pairs: np.ndarray, q_turned: np.ndarray,
                 k_turned: np.ndarray, gap_angles: np.ndarray, m: int, n: int, *,
                 default_pair: int = 0) -> spec.Figure:
    """Pair i of q and of k as points (x_{2i}, x_{2i+1}) on their circles: hollow before turning, filled after
    q is turned by m·θ_i and k by n·θ_i. A slider inside the chart picks i (every pair is sent once: d rows).

    The circles are one unit circle per vector, scaled in the browser by the chosen pair's length (a lookup). The
    axes keep one unit = one unit on screen at any container width: the x domain follows the width/height ratio.
    The axes reach ±R, R the ``nice_bound`` of 1.25 × the longest pair (room for the labels), so a new seed or word
    reuses the layout.
    """
    half = len(thetas)
    i = np.arange(half)
    q_len, k_len = np.hypot(*np.asarray(q_pairs).T), np.hypot(*np.asarray(k_pairs).T)
    R = spec.nice_bound(float(max(q_len.max(), k_len.max())) * 1.25)
    codes = np.repeat([0, 1], half)
    before = np.concatenate([q_pairs, k_pairs])
    after = np.concatenate([q_turned, k_turned])
    pos = np.repeat([m, n], half)
    th = np.tile(thetas, 2)
    labels = np.array([f"q at {m:,}", f"k at {n:,}"])
    pairs = spec.columns(
        pair=np.tile(i, 2), vector=spec.categories(codes, VECTORS), position=pos, theta=th,
        length=np.concatenate([q_len, k_len]),
        x0=before[:, 0], y0=before[:, 1], x=after[:, 0], y=after[:, 1],
        turned=np.mod(pos * th, 2 * np.pi), gap_angle=np.tile(gap_angles, 2),
        label=spec.categories(codes, labels), zero=np.zeros(2 * half),
    )
    t = np.linspace(0, 2 * np.pi, 73)
    unit = spec.columns(vector=spec.categories(np.repeat([0, 1], t.size), VECTORS), t=np.tile(t, 2),
                        order=np.tile(np.arange(t.size), 2))
    radii = spec.columns(key=[f"{v}|{j}" for v in VECTORS for j in i],
                         radius=np.concatenate([q_len, k_len]))
    chart = _circles_layout(half, R, int(min(max(default_pair, 0), half - 1)))
    return spec.figure(chart, {"pairs": pairs, "unit": unit, "radii": radii}, description=(
        f"Pair circles, q at {m:,} and k at {n:,}: each pair of q turns by m·θ_i and each pair of k by n·θ_i, so "
        "the angle between them changes by (n − m)·θ_i, the gap alone."))


@spec.layout
def _circles_layout(half: int, R: float, pair: int) -> alt.LayerChart:
    """The circles, spokes and points of one pair of ``half`` (picked in the chart, ``pair`` at first), on axes
    from −R to R (x widened by the width/height ratio)."""
    pick = alt.param(name="pair", value=pair,
                     bind=alt.binding_range(min=0, max=half - 1, step=1, name="pair i (0 = fastest) "))
    aspect = "(width / max(height, 1))"
    xs = alt.Scale(domain=[alt.ExprRef(f"-{R!r} * {aspect}"), alt.ExprRef(f"{R!r} * {aspect}")], nice=False,
                   zero=False)
    ys = alt.Scale(domain=[-R, R], nice=False, zero=False)
    enc = spec.series("vector", VECTORS, title="vector")
    colour, dash, shape = enc["color"], enc["strokeDash"], enc["shape"]
    tips = [alt.Tooltip(field="vector", type="nominal"), alt.Tooltip(field="pair", type="quantitative",
                                                                     title="pair i (0-based)"),
            alt.Tooltip(field="position", type="quantitative", format=",d"),
            alt.Tooltip(field="theta", type="quantitative", title="θ_i", format=".6g"),
            alt.Tooltip(field="length", type="quantitative", title="|pair|", format=".4f"),
            alt.Tooltip(field="turned", type="quantitative", title="turned by p·θ_i mod 2π", format=".4f"),
            alt.Tooltip(field="gap_angle", type="quantitative", title="angle q → k after (rad)", format=".4f")]
    x = alt.X(field="x", type="quantitative", scale=xs, title="first coordinate of the pair (x₂ᵢ)")
    y = alt.Y(field="y", type="quantitative", scale=ys, title="second (x₂ᵢ₊₁)")
    chosen = alt.datum.pair == pick
    circles = (
        alt.Chart(spec.named("unit"))
        .transform_calculate(key=alt.datum.vector + "|" + alt.expr.toString(pick))
        .transform_lookup(lookup="key", from_=alt.LookupData(data=spec.named("radii"), key="key",
                                                             fields=["radius"]))
        .transform_calculate(x=alt.datum.radius * alt.expr.cos(alt.datum.t),
                             y=alt.datum.radius * alt.expr.sin(alt.datum.t))
        .mark_line(strokeWidth=1.5)
        .encode(x=x, y=y, order=alt.Order(field="order", type="quantitative"), color=colour, strokeDash=dash)
        .add_params(pick)
    )
    base = alt.Chart(spec.named("pairs")).transform_filter(chosen)
    spokes = base.mark_rule(strokeWidth=2).encode(
        x=alt.X(field="zero", type="quantitative", scale=xs), y=alt.Y(field="zero", type="quantitative", scale=ys),
        x2=alt.X2(field="x"), y2=alt.Y2(field="y"), color=colour, strokeDash=dash)
    hollow = base.mark_point(size=90, strokeWidth=2, filled=False).encode(
        x=alt.X(field="x0", type="quantitative", scale=xs), y=alt.Y(field="y0", type="quantitative", scale=ys),
        color=colour, shape=shape, tooltip=tips)
    filled = base.mark_point(size=170, filled=True, opacity=1).encode(x=x, y=y, color=colour, shape=shape,
                                                                      tooltip=tips)
    text = base.mark_text(align="left", dx=9, dy=-9, fontSize=14, fontWeight="bold").encode(
        x=x, y=y, text=alt.Text(field="label", type="nominal"), color=alt.Color(
            field="vector", type="nominal", legend=None,
            scale=alt.Scale(domain=list(VECTORS), range=list(spec.SERIES[:2]))))
    return alt.layer(circles, spokes, hollow, filled, text).properties(
        height=CIRCLE_HEIGHT,
        title=alt.TitleParams("Pair i of q and of k, turned",
                              subtitle="Hollow: before. Filled: after (q by m·θᵢ, k by n·θᵢ)."))


def lengths(positions: np.ndarray, rope_norms: np.ndarray, raw_norms: np.ndarray, m: int) -> spec.Figure:
    """Lengths against the position (both axes logarithmic): ‖q R_pᵀ‖, flat at ‖q‖ however far p goes, beside the
    raw index's ‖[x ; p]‖, which grows with p; the position m marked (FOCUS) with both values labelled."""
    names = LENGTH_SERIES
    p = np.asarray(positions, dtype=np.int64)
    vals = np.concatenate([rope_norms, raw_norms])
    main = spec.columns(position=np.tile(p, 2), length=vals,
                        scheme=spec.categories(np.repeat([0, 1], p.size), names))
    at = int(np.searchsorted(p, max(m, 1)))
    marks = spec.columns(position=[max(m, 1)] * 2, length=[float(rope_norms[at]), float(raw_norms[at])],
                         scheme=spec.categories(np.array([0, 1]), names),
                         text=[f"{float(rope_norms[at]):.3f}", f"{float(raw_norms[at]):,.1f}"])
    note = spec.columns(text=[f"Marked: m = {m:,}."])  # the subtitle's text: m is data, not layout
    return spec.figure(_lengths_layout(int(p.max())), {"main": main, "marks": marks, "note": note}, description=(
        f"Lengths against position, marked at {m:,}: RoPE keeps ‖q‖ = {float(rope_norms[at]):.3f} at every "
        f"position, while the raw index's vector grows to {float(raw_norms[at]):,.1f} at {m:,}."))


@spec.layout
def _lengths_layout(last: int) -> alt.LayerChart:
    """Both length curves on log axes over positions 1 … ``last``, the position m marked; the line under the
    title that names m ("Marked: m = …") is a text mark over the "note" data, set where a subtitle goes (a
    title's subtitle cannot come from the data), so every m reuses the layout."""
    names = LENGTH_SERIES
    xs = alt.Scale(type="log", domain=[1, last], nice=False)
    ys = alt.Scale(type="log")
    x = alt.X(field="position", type="quantitative", scale=xs, title="position p (log scale)",
              axis=alt.Axis(format="~s", labelOverlap=True))
    y = alt.Y(field="length", type="quantitative", scale=ys, title="length (log scale)",
              axis=alt.Axis(format="~s", labelOverlap=True, values=[1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8]))
    tips = [alt.Tooltip(field="scheme", type="nominal"),
            alt.Tooltip(field="position", type="quantitative", format=",d"),
            alt.Tooltip(field="length", type="quantitative", format=",.12g")]
    enc = spec.series("scheme", names, title=None)
    lines = alt.Chart(spec.named("main")).mark_line(strokeWidth=2.5).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"], tooltip=tips)
    focus = alt.Chart(spec.named("marks")).mark_rule(color=spec.FOCUS, strokeWidth=1.5).encode(
        x=alt.X(field="position", type="quantitative", scale=xs))
    dots = alt.Chart(spec.named("marks")).mark_point(filled=True, size=90, opacity=1).encode(
        x=x, y=y, color=enc["color"], shape=enc["shape"], tooltip=tips)
    labels = alt.Chart(spec.named("marks")).mark_text(align="left", dx=8, dy=-8, fontWeight="bold",
                                                      color=spec.FOCUS).encode(
        x=x, y=y, text=alt.Text(field="text", type="nominal"))
    subtitle = alt.Chart(spec.named("note")).mark_text(align="left", baseline="bottom", x=0, y=-9).encode(
        text=alt.Text(field="text", type="nominal"))
    return alt.layer(lines, focus, dots, labels, subtitle).properties(
        height=LENGTH_HEIGHT, title=alt.TitleParams(f"Lengths, positions 1 to {last:,}", frame="group", offset=3))

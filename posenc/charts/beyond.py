"""Charts for "Stretching the context": arrays in, ``alt.Chart`` out (altair + pandas, no streamlit).

Every chart has tooltips; controls that only re-slice what is already drawn (which method to highlight,
which ALiBi head to show) are Vega-Lite parameters inside the chart, so they need no rerun.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from posenc.charts import BASE, HIGHLIGHT, MAX_MARKS, word_labels

METHOD_COLORS = {
    "RoPE as trained": "#7f7f7f",
    "PI": "#4c78a8",
    "NTK-aware": "#f58518",
    "Dynamic NTK": "#54a24b",
    "YaRN": "#d62728",
}
DTYPE_COLORS = {"float64": "#4c78a8", "float32": "#d62728", "bfloat16": "#9467bd"}


def _method_scale(methods: list[str]) -> alt.Scale:
    return alt.Scale(domain=methods, range=[METHOD_COLORS.get(m, BASE) for m in methods])


def _vrule(x: float, label: str, color: str = "#444", left: bool = False) -> alt.LayerChart:
    df = pd.DataFrame({"x": [x], "label": [label]})
    rule = alt.Chart(df).mark_rule(color=color, strokeDash=[4, 3]).encode(
        x="x:Q", tooltip=[alt.Tooltip("label:N", title="line")])
    text = alt.Chart(df).mark_text(align="right" if left else "left", dx=-4 if left else 4, baseline="top",
                                   color=color, fontSize=12).encode(x="x:Q", y=alt.value(4), text="label:N")
    return rule + text


# ---------------------------------------------------------------------------------------------- stretching
def rotations_chart(theta: np.ndarray, rotations: np.ndarray, L_train: int, height: int = 300) -> alt.LayerChart:
    """Bars: turns r_i = L_train/λ_i each pair makes within L_train (log scale); a rule at one full turn.

    On a log axis a bar cannot start at 0: the bars start at a floor a little below the smallest r_i.
    """
    r = np.asarray(rotations, dtype=float)
    floor = float(min(r.min(), 1.0)) / 2.0
    kinds = ["≥ 1 turn: every angle seen", "< 1 turn: later angles unseen"]
    df = pd.DataFrame({
        "pair i": np.arange(r.size),
        "θ_i (rad per token)": np.asarray(theta, dtype=float),
        "wavelength λ_i (tokens)": 2 * np.pi / np.asarray(theta, dtype=float),
        "turns within L_train": r,
        "floor": floor,
        "in training": np.where(r >= 1, kinds[0], kinds[1]),
    })
    bars = alt.Chart(df).mark_bar().encode(
        x=alt.X(field="pair i", type="ordinal", title="pair i (fastest → slowest)",
                axis=alt.Axis(labelAngle=0, values=list(range(0, r.size, max(1, r.size // 16))))),
        y=alt.Y(field="turns within L_train", type="quantitative", scale=alt.Scale(type="log"),
                title=f"turns within {L_train:,} tokens"),
        y2=alt.Y2(field="floor"),
        color=alt.Color(field="in training", type="nominal", title=None,
                        scale=alt.Scale(domain=kinds, range=[BASE, HIGHLIGHT]),
                        legend=alt.Legend(orient="top", labelLimit=400)),
        tooltip=[alt.Tooltip(field="pair i", type="ordinal"),
                 alt.Tooltip(field="θ_i (rad per token)", type="quantitative", format=".4g"),
                 alt.Tooltip(field="wavelength λ_i (tokens)", type="quantitative", format=",.1f"),
                 alt.Tooltip(field="turns within L_train", type="quantitative", format=",.3g"),
                 alt.Tooltip(field="in training", type="nominal")],
    )
    one = pd.DataFrame({"y": [1.0], "label": ["one full turn (r = 1)"]})
    rule = alt.Chart(one).mark_rule(color="#222", strokeDash=[4, 3]).encode(
        y="y:Q", tooltip=[alt.Tooltip("label:N", title="line")])
    one_at = one.assign(**{"pair i": r.size - 1})
    text = alt.Chart(one_at).mark_text(align="right", dy=-8, fontSize=12, color="#222").encode(
        y="y:Q", x=alt.X(field="pair i", type="ordinal"), text="label:N")
    return (bars + rule + text).properties(width="container", height=height,
                                           title="How many turns each pair makes within the trained context")


def _method_frame(theta: np.ndarray, frequencies: dict, ramp: np.ndarray) -> pd.DataFrame:
    theta = np.asarray(theta, dtype=float)
    rows = []
    for m, f in frequencies.items():
        f = np.asarray(f, dtype=float)
        rows.append(pd.DataFrame({
            "method": m,
            "pair i": np.arange(theta.size),
            "new θ_i": f,
            "new wavelength (tokens)": 2 * np.pi / f,
            "old wavelength (tokens)": 2 * np.pi / theta,
            "new θ ÷ old θ": f / theta,
            "YaRN ramp γ_i": np.asarray(ramp, dtype=float),
        }))
    return pd.concat(rows, ignore_index=True)


def _method_highlight(methods: list[str]) -> alt.Parameter:
    return alt.selection_point(
        fields=["method"], name="method_pick",
        bind=alt.binding_select(options=[None, *methods], labels=["all methods", *methods], name="Highlight "),
    )


def _method_tooltip() -> list:
    return [alt.Tooltip(field="method", type="nominal"), alt.Tooltip(field="pair i", type="quantitative"),
            alt.Tooltip(field="new θ_i", type="quantitative", format=".4g"),
            alt.Tooltip(field="new wavelength (tokens)", type="quantitative", format=",.1f"),
            alt.Tooltip(field="old wavelength (tokens)", type="quantitative", format=",.1f"),
            alt.Tooltip(field="new θ ÷ old θ", type="quantitative", format=".4f"),
            alt.Tooltip(field="YaRN ramp γ_i", type="quantitative", format=".3f")]


def wavelength_chart(theta: np.ndarray, frequencies: dict, ramp: np.ndarray, L_train: int, L_new: int,
                     height: int = 320) -> alt.LayerChart:
    """Per-pair wavelength before and after each method (log scale), with rules at L_train and s·L_train.

    A menu inside the chart highlights one method (no rerun).
    """
    df = _method_frame(theta, frequencies, ramp)
    methods = list(frequencies)
    pick = _method_highlight(methods)
    lines = alt.Chart(df).mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        x=alt.X(field="pair i", type="quantitative", title="pair i (fastest → slowest)",
                scale=alt.Scale(domain=[0, len(theta) - 1]), axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y(field="new wavelength (tokens)", type="quantitative", scale=alt.Scale(type="log"),
                title="wavelength (tokens per turn)"),
        color=alt.Color(field="method", type="nominal", scale=_method_scale(methods), sort=methods,
                        legend=alt.Legend(orient="top", title=None)),
        strokeDash=alt.condition(alt.datum.method == methods[0], alt.value([5, 4]), alt.value([1, 0])),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.12)),
        tooltip=_method_tooltip(),
    ).add_params(pick)
    rules = pd.DataFrame({"y": [float(L_train), float(L_new)],
                          "label": [f"L_train = {L_train:,}", f"s·L_train = {L_new:,}"]})
    rule = alt.Chart(rules).mark_rule(color="#222", strokeDash=[2, 3]).encode(
        y="y:Q", tooltip=[alt.Tooltip("label:N", title="line")])
    text = alt.Chart(rules).mark_text(align="left", dx=4, dy=-7, fontSize=12, color="#222").encode(
        y="y:Q", x=alt.value(4), text="label:N")
    return (lines + rule + text).properties(width="container", height=height,
                                            title="Wavelength of every pair, before and after stretching")


def ratio_chart(theta: np.ndarray, frequencies: dict, ramp: np.ndarray, low: int, high: int, s: int,
                height: int = 300) -> alt.LayerChart:
    """θ'_i / θ_i per pair and method (log scale: 1 = untouched, 1/s = slowed by s); YaRN's ramp shaded."""
    df = _method_frame(theta, frequencies, ramp)
    methods = list(frequencies)
    pick = _method_highlight(methods)
    n = int(np.asarray(theta).size)
    lo_r = float(df["new θ ÷ old θ"].min())
    domain = [min(lo_r, 1.0 / max(s, 1)) / 1.4, 1.4]
    band = pd.DataFrame({"from": [float(low)], "to": [float(min(high, n - 1))],
                         "label": [f"YaRN ramp: pairs {low} … {high}"]})
    shade = alt.Chart(band).mark_rect(color="#d62728", opacity=0.08).encode(
        x="from:Q", x2="to:Q", tooltip=[alt.Tooltip("label:N", title="band")])
    lines = alt.Chart(df).mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        x=alt.X(field="pair i", type="quantitative", title="pair i (fastest → slowest)",
                scale=alt.Scale(domain=[0, n - 1]), axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y(field="new θ ÷ old θ", type="quantitative", title="new frequency ÷ old (log)",
                scale=alt.Scale(type="log", domain=domain)),
        color=alt.Color(field="method", type="nominal", scale=_method_scale(methods), sort=methods,
                        legend=alt.Legend(orient="top", title=None)),
        strokeDash=alt.condition(alt.datum.method == methods[0], alt.value([5, 4]), alt.value([1, 0])),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.12)),
        tooltip=_method_tooltip(),
    ).add_params(pick)
    return (shade + lines).properties(
        width="container", height=height, title="Slow-down per pair (1 = untouched; shaded: YaRN's ramp)")


def ramp_chart(ramp: np.ndarray, low: int, high: int, height: int = 300) -> alt.LayerChart:
    """YaRN's ramp γ_i per pair (0 = keep θ_i, 1 = θ_i / s), with rules at low and high."""
    g = np.asarray(ramp, dtype=float)
    df = pd.DataFrame({"pair i": np.arange(g.size), "ramp γ_i": g,
                       "what YaRN does": np.where(g == 0, "keeps θ_i", np.where(g == 1, "divides θ_i by s",
                                                                                "blends"))})
    line = alt.Chart(df).mark_line(color=HIGHLIGHT, point=alt.OverlayMarkDef(size=22, color=HIGHLIGHT)).encode(
        x=alt.X(field="pair i", type="quantitative", title="pair i", scale=alt.Scale(domain=[0, g.size - 1]),
                axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y(field="ramp γ_i", type="quantitative", title="ramp γ_i", scale=alt.Scale(domain=[0, 1])),
        tooltip=[alt.Tooltip(field="pair i", type="quantitative"),
                 alt.Tooltip(field="ramp γ_i", type="quantitative", format=".3f"),
                 alt.Tooltip(field="what YaRN does", type="nominal")],
    )
    marks = pd.DataFrame({"x": [float(low), float(high)], "label": [f"low = {low}", f"high = {high}"]})
    marks = marks[marks["x"] <= g.size - 1]
    rule = alt.Chart(marks).mark_rule(color="#222", strokeDash=[4, 3]).encode(
        x="x:Q", tooltip=[alt.Tooltip("label:N", title="ramp end")])
    text = alt.Chart(marks).mark_text(align="left", dx=4, baseline="top", dy=4, fontSize=12).encode(
        x="x:Q", y=alt.value(0), text="label:N")
    return (line + rule + text).properties(width="container", height=height, title="YaRN's ramp")


# ---------------------------------------------------------------------------------------------- ALiBi
def slopes_chart(slopes: np.ndarray, base_heads: int, height: int = 260) -> alt.LayerChart:
    """Bars: ALiBi slope m_h of every head (log2 scale), coloured by the series it comes from."""
    m = np.asarray(slopes, dtype=float)
    H = m.size
    series = [f"the {base_heads}-head series" if h < base_heads else
              f"odd terms of the {2 * base_heads}-head series" for h in range(H)]
    df = pd.DataFrame({"head": np.arange(1, H + 1), "slope m_h": m, "log2 m_h": np.log2(m), "from": series,
                       "floor": float(m.min()) / 2.0})
    bars = alt.Chart(df).mark_bar().encode(
        x=alt.X(field="head", type="ordinal", title="head h", axis=alt.Axis(labelAngle=0)),
        y=alt.Y(field="slope m_h", type="quantitative", title="slope m_h (log₂ scale)",
                scale=alt.Scale(type="log", base=2), axis=alt.Axis(format=".2~g")),
        y2=alt.Y2(field="floor"),
        color=alt.Color(field="from", type="nominal", title=None, sort=list(dict.fromkeys(series)),
                        scale=alt.Scale(range=[BASE, "#f58518"]), legend=alt.Legend(orient="top", labelLimit=400)),
        tooltip=[alt.Tooltip(field="head", type="ordinal"),
                 alt.Tooltip(field="slope m_h", type="quantitative", format=".6g"),
                 alt.Tooltip(field="log2 m_h", type="quantitative", format=".3g", title="m_h = 2^…"),
                 alt.Tooltip(field="from", type="nominal")],
    )
    text = alt.Chart(df).mark_text(dy=-7, fontSize=11, color="#222").encode(
        x=alt.X(field="head", type="ordinal"), y=alt.Y(field="slope m_h", type="quantitative"),
        text=alt.Text(field="slope m_h", type="quantitative", format=".3g"))
    return (bars + text).properties(width="container", height=height, title=f"ALiBi slopes for {H} heads")


def alibi_heads_to_show(n_heads: int, n_tokens: int, budget: int = 2000) -> list[int]:
    """Which heads (0-based) fit in the chart: all of them, or evenly spaced ones (first and last kept)."""
    cells = n_tokens * (n_tokens + 1) // 2
    k = max(1, min(n_heads, budget // max(cells, 1)))
    if k >= n_heads:
        return list(range(n_heads))
    return sorted(set(np.round(np.linspace(0, n_heads - 1, k)).astype(int).tolist()))


def alibi_chart(tokens: list[str], slopes: np.ndarray, bias: np.ndarray, weights: np.ndarray,
                plain_weights: np.ndarray, heads: list[int]) -> alt.HConcatChart:
    """Two heatmaps for the head picked in the chart's menu: the bias −m·(i − j) and the attention weights.

    Only j ≤ i is drawn (the causal mask removes the rest). The menu also offers “no ALiBi” (bias 0).
    """
    n = len(tokens)
    labels = word_labels(tokens)
    ii, jj = np.tril_indices(n)
    frames = []
    options = []
    for h in heads:
        name = f"head {h + 1} (m = {slopes[h]:.4g})"
        options.append(name)
        frames.append(pd.DataFrame({"head": name, "query": [labels[i] for i in ii], "key": [labels[j] for j in jj],
                                    "distance i − j": ii - jj, "bias": bias[h][ii, jj],
                                    "weight": weights[h][ii, jj]}))
    plain = "no ALiBi (bias 0)"
    options.append(plain)
    frames.append(pd.DataFrame({"head": plain, "query": [labels[i] for i in ii], "key": [labels[j] for j in jj],
                                "distance i − j": ii - jj, "bias": 0.0, "weight": plain_weights[ii, jj]}))
    df = pd.concat(frames, ignore_index=True)
    if len(df) > 2 * MAX_MARKS:
        raise ValueError(f"{len(df)} cells is too many for one chart; show fewer heads.")
    pick = alt.param(name="alibi_head", value=options[0],
                     bind=alt.binding_select(options=options, name="Head "))
    step = max(6, min(48, 420 // max(n, 1)))  # each panel ≤ ~420 px wide, side by side
    enc = dict(
        x=alt.X(field="key", type="nominal", sort=labels, title="key j",
                axis=alt.Axis(labelAngle=-45 if n > 6 else 0, labelOverlap=True)),
        y=alt.Y(field="query", type="nominal", sort=labels, title="query i", axis=alt.Axis(labelOverlap=True)),
        tooltip=[alt.Tooltip(field="head", type="nominal"), alt.Tooltip(field="query", type="nominal"),
                 alt.Tooltip(field="key", type="nominal"),
                 alt.Tooltip(field="distance i − j", type="quantitative"),
                 alt.Tooltip(field="bias", type="quantitative", format=".4g"),
                 alt.Tooltip(field="weight", type="quantitative", format=".4f")],
    )
    base = alt.Chart(df).transform_filter(alt.datum.head == pick)
    lo = float(min(0.0, df["bias"].min()))
    left = base.mark_rect().encode(
        color=alt.Color(field="bias", type="quantitative", title="bias",
                        scale=alt.Scale(scheme="oranges", reverse=True, domain=[lo, 0.0]),
                        legend=alt.Legend(orient="bottom")),
        **enc,
    ).properties(width=alt.Step(step), height=alt.Step(step), title="Bias −m·(i − j) added to the score")
    right = base.mark_rect().encode(
        color=alt.Color(field="weight", type="quantitative", title="weight",
                        scale=alt.Scale(scheme="greens", domain=[0, 1]), legend=alt.Legend(orient="bottom")),
        **enc,
    ).properties(width=alt.Step(step), height=alt.Step(step), title="Attention weights with the bias")
    return alt.hconcat(left.add_params(pick), right).resolve_scale(color="independent")


# ---------------------------------------------------------------------------------------------- decay
def bound_chart(deltas: np.ndarray, bound: np.ndarray, height: int = 320) -> alt.LayerChart:
    """RoFormer's relative upper bound B(Δ) against the gap, in its own units (B(0) = (d/2 + 1)/2)."""
    df = pd.DataFrame({"gap Δ": np.asarray(deltas, dtype=float), "B(Δ)": np.asarray(bound, dtype=float)})
    df["B(Δ) / B(0)"] = df["B(Δ)"] / df["B(Δ)"].iloc[0]
    line = alt.Chart(df).mark_line(color=HIGHLIGHT, strokeWidth=1.8).encode(
        x=alt.X(field="gap Δ", type="quantitative", title="gap Δ = m − n (tokens)"),
        y=alt.Y(field="B(Δ)", type="quantitative", title="B(Δ)", scale=alt.Scale(zero=True)),
        tooltip=[alt.Tooltip(field="gap Δ", type="quantitative"),
                 alt.Tooltip(field="B(Δ)", type="quantitative", format=".4f"),
                 alt.Tooltip(field="B(Δ) / B(0)", type="quantitative", format=".4f")],
    )
    return line.properties(width="container", height=height, title="RoFormer's bound B(Δ)")


def score_chart(deltas: np.ndarray, mean: np.ndarray, p05: np.ndarray, p95: np.ndarray, single: np.ndarray,
                n_samples: int, height: int = 320) -> alt.LayerChart:
    """The actual RoPE score / d against the gap: mean over the samples, 5–95 % band, and one random pair."""
    dl = np.asarray(deltas, dtype=float)
    names = [f"mean over {n_samples} (q, k)", "one random (q, k)"]
    long = pd.concat([pd.DataFrame({"gap Δ": dl, "curve": name, "score / d": np.asarray(v, dtype=float)})
                      for name, v in zip(names, [mean, single])], ignore_index=True)
    band = pd.DataFrame({"gap Δ": dl, "5th percentile": np.asarray(p05, dtype=float),
                         "95th percentile": np.asarray(p95, dtype=float)})
    area = alt.Chart(band).mark_area(opacity=0.2, color=BASE).encode(
        x=alt.X(field="gap Δ", type="quantitative"),
        y=alt.Y(field="5th percentile", type="quantitative"),
        y2=alt.Y2(field="95th percentile"),
        tooltip=[alt.Tooltip(field="gap Δ", type="quantitative"),
                 alt.Tooltip(field="5th percentile", type="quantitative", format=".3f"),
                 alt.Tooltip(field="95th percentile", type="quantitative", format=".3f")],
    )
    lines = alt.Chart(long).mark_line().encode(
        x=alt.X(field="gap Δ", type="quantitative", title="gap Δ = m − n (tokens)"),
        y=alt.Y(field="score / d", type="quantitative", title="score / d"),
        color=alt.Color(field="curve", type="nominal", sort=names, title=None,
                        scale=alt.Scale(domain=names, range=[BASE, "#7f7f7f"]),
                        legend=alt.Legend(orient="top", labelLimit=400)),
        strokeWidth=alt.condition(alt.datum.curve == names[1], alt.value(1.0), alt.value(2.2)),
        tooltip=[alt.Tooltip(field="curve", type="nominal"), alt.Tooltip(field="gap Δ", type="quantitative"),
                 alt.Tooltip(field="score / d", type="quantitative", format=".4f")],
    )
    zero = alt.Chart(pd.DataFrame({"y": [0.0]})).mark_rule(color="#222", strokeWidth=0.8).encode(y="y:Q")
    return (area + zero + lines).properties(width="container", height=height,
                                            title="The actual score / d (shaded: middle 90 %)")


# ---------------------------------------------------------------------------------------------- precision
def angle_error_chart(positions: np.ndarray, error: np.ndarray, probe: int, height: int = 300) -> alt.LayerChart:
    """Worst float32 angle error (radians) against the position, both on log scales."""
    df = pd.DataFrame({"position p": np.asarray(positions, dtype=float),
                       "angle error (rad)": np.asarray(error, dtype=float)})
    line = alt.Chart(df).mark_line(color=HIGHLIGHT, point=alt.OverlayMarkDef(size=14, color=HIGHLIGHT)).encode(
        x=alt.X(field="position p", type="quantitative", scale=alt.Scale(type="log"), title="position p",
                axis=alt.Axis(format="~s")),
        y=alt.Y(field="angle error (rad)", type="quantitative", scale=alt.Scale(type="log"),
                title="angle error (rad)", axis=alt.Axis(format="~e")),
        tooltip=[alt.Tooltip(field="position p", type="quantitative", format=","),
                 alt.Tooltip(field="angle error (rad)", type="quantitative", format=".3g")],
    )
    return (line + _vrule(float(probe), f"p = {probe:,}", HIGHLIGHT, left=True)).properties(
        width="container", height=height, title="Worst angle error p·θ_i, float32 against float64")


def offset_error_chart(positions: np.ndarray, errors: dict, gap: int, probe: int, floor: float,
                       height: int = 300) -> alt.LayerChart:
    """|score(m, m+gap) − score(0, gap)| against m, one line per number format, log scales."""
    names = list(errors)
    df = pd.concat([pd.DataFrame({"start m": np.asarray(positions, dtype=float), "format": t,
                                  "score drift": np.asarray(errors[t], dtype=float)}) for t in names],
                   ignore_index=True)
    lines = alt.Chart(df).mark_line(point=alt.OverlayMarkDef(size=12)).encode(
        x=alt.X(field="start m", type="quantitative", scale=alt.Scale(type="log"), title="start position m",
                axis=alt.Axis(format="~s")),
        y=alt.Y(field="score drift", type="quantitative", scale=alt.Scale(type="log"),
                title="|score(m, m+g) − score(0, g)|", axis=alt.Axis(format="~e")),
        color=alt.Color(field="format", type="nominal", sort=names, title=None,
                        scale=alt.Scale(domain=names, range=[DTYPE_COLORS.get(t, BASE) for t in names]),
                        legend=alt.Legend(orient="top")),
        tooltip=[alt.Tooltip(field="format", type="nominal"),
                 alt.Tooltip(field="start m", type="quantitative", format=","),
                 alt.Tooltip(field="score drift", type="quantitative", format=".3g")],
    )
    return (lines + _vrule(float(probe), f"m = {probe:,}", HIGHLIGHT, left=True)).properties(
        width="container", height=height,
        title=f"RoPE's offset invariance: the score of a pair {gap} apart, moved to m (floor {floor:g})")


def bf16_chart(positions: np.ndarray, stored: np.ndarray, height: int = 280) -> alt.LayerChart:
    """Each exact position against the value bf16 stores for it; the diagonal is “stored exactly”."""
    p = np.asarray(positions, dtype=float)
    st_ = np.asarray(stored, dtype=float)
    df = pd.DataFrame({"exact position": p, "stored in bf16": st_, "off by": st_ - p,
                       "kept?": np.where(st_ == p, "stored exactly", "collapsed onto a neighbour")})
    x = alt.X(field="exact position", type="quantitative", scale=alt.Scale(domain=[p.min() - 0.5, p.max() + 0.5]),
              axis=alt.Axis(tickMinStep=1, format="d"))
    diag = alt.Chart(pd.DataFrame({"exact position": [p.min(), p.max()], "stored in bf16": [p.min(), p.max()]})
                     ).mark_line(color="#bbb", strokeDash=[4, 3]).encode(x=x, y=alt.Y(field="stored in bf16",
                                                                                        type="quantitative"))
    pts = alt.Chart(df).mark_point(filled=True, size=90).encode(
        x=x,
        y=alt.Y(field="stored in bf16", type="quantitative", scale=alt.Scale(zero=False),
                axis=alt.Axis(tickMinStep=1, format="d")),
        color=alt.Color(field="kept?", type="nominal", title=None,
                        scale=alt.Scale(domain=["stored exactly", "collapsed onto a neighbour"],
                                        range=[BASE, HIGHLIGHT]), legend=alt.Legend(orient="top", labelLimit=400)),
        tooltip=[alt.Tooltip(field="exact position", type="quantitative", format="d"),
                 alt.Tooltip(field="stored in bf16", type="quantitative", format="d"),
                 alt.Tooltip(field="off by", type="quantitative", format="+d"),
                 alt.Tooltip(field="kept?", type="nominal")],
    )
    return (diag + pts).properties(width="container", height=height,
                                   title="Positions stored in bfloat16 (dashed: stored exactly)")

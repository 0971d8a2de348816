"""Charts for the RoPE page: each pair of q and k on its circle, the score window, the lengths."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from . import BASE, HIGHLIGHT

Q_COLOUR = BASE
K_COLOUR = "#f58518"


def pair_circles(thetas: np.ndarray, q_pairs: np.ndarray, k_pairs: np.ndarray, q_turned: np.ndarray,
                 k_turned: np.ndarray, gap_angles: np.ndarray, m: int, n: int, *, size: int = 360,
                 default_pair: int = 0, title: str = "") -> alt.LayerChart:
    """Pair i of q and of k as points (x_{2i}, x_{2i+1}) on their circles: hollow before turning, filled after
    q is turned by m·θ_i and k by n·θ_i. A slider inside the chart picks i (every pair is sent once, ≤ d rows).

    The circles are a unit circle scaled in the browser by the chosen pair's length (a lookup, no rerun).
    """
    half = len(thetas)
    i = np.arange(half)
    r_all = np.concatenate([np.hypot(*q_pairs.T), np.hypot(*k_pairs.T)])
    R = float(max(r_all.max(), 1e-12)) * 1.18
    rows = []
    for name, before, after, pos, lift in (("q", q_pairs, q_turned, m, 0.07), ("k", k_pairs, k_turned, n, -0.1)):
        rows.append(pd.DataFrame({
            "pair i": i, "vector": name, "position": pos, "θ_i": thetas,
            "|pair|": np.hypot(*before.T),
            "x before": before[:, 0], "y before": before[:, 1],
            "x": after[:, 0], "y": after[:, 1],
            "label x": after[:, 0] + 0.04 * R, "label y": after[:, 1] + lift * R,
            "angle before (rad)": np.arctan2(before[:, 1], before[:, 0]),
            "turned by p·θ_i mod 2π": np.mod(pos * thetas, 2 * np.pi),
            "angle after (rad)": np.arctan2(after[:, 1], after[:, 0]),
            "angle q → k after (rad)": gap_angles,
            "label": f"{name} at {pos:,}",
        }))
    df = pd.concat(rows, ignore_index=True)
    df["vector"] = pd.Categorical(df["vector"], categories=["q", "k"])
    df["label"] = pd.Categorical(df["label"])
    df["zero"] = 0.0
    pick = alt.param(name="pair", value=int(min(max(default_pair, 0), half - 1)),
                     bind=alt.binding_range(min=0, max=half - 1, step=1, name="pair i "))
    scale = alt.Scale(domain=[-R, R], nice=False, zero=False)
    colour = alt.Color(field="vector", type="nominal", scale=alt.Scale(domain=["q", "k"],
                       range=[Q_COLOUR, K_COLOUR]), legend=alt.Legend(orient="right", title=None))
    tips = [alt.Tooltip(field="vector", type="nominal"), alt.Tooltip(field="pair i", type="quantitative"),
            alt.Tooltip(field="position", type="quantitative")] + [
        alt.Tooltip(field=c, type="quantitative", format=".4f")
        for c in ["θ_i", "|pair|", "angle before (rad)", "turned by p·θ_i mod 2π", "angle after (rad)",
                  "angle q → k after (rad)"]]
    x = alt.X(field="x", type="quantitative", scale=scale, title="first coordinate of the pair (x₂ᵢ)")
    y = alt.Y(field="y", type="quantitative", scale=scale, title="second (x₂ᵢ₊₁)")
    # circles: a unit circle per vector, scaled by the chosen pair's length (looked up in the browser)
    t = np.linspace(0, 2 * np.pi, 73)
    unit = pd.DataFrame({"vector": pd.Categorical(np.repeat(["q", "k"], t.size), categories=["q", "k"]),
                         "t": np.tile(t, 2), "order": np.tile(np.arange(t.size), 2)})
    radii = pd.DataFrame({"key": [f"{v}|{j}" for v in ("q", "k") for j in i], "|pair|": r_all})
    circles = (
        alt.Chart(unit)
        .transform_calculate(key=alt.datum.vector + "|" + alt.expr.toString(pick))
        .transform_lookup(lookup="key", from_=alt.LookupData(data=radii, key="key", fields=["|pair|"]))
        .transform_calculate(x=alt.datum["|pair|"] * alt.expr.cos(alt.datum.t),
                             y=alt.datum["|pair|"] * alt.expr.sin(alt.datum.t))
        .mark_line(strokeWidth=1.5, strokeDash=[4, 3])
        .encode(x=x, y=y, order=alt.Order(field="order", type="quantitative"), color=colour)
        .add_params(pick)
    )
    chosen = alt.datum["pair i"] == pick
    spokes = alt.Chart().mark_rule(strokeWidth=2).encode(
        x=alt.X(field="zero", type="quantitative", scale=scale),
        y=alt.Y(field="zero", type="quantitative", scale=scale),
        x2=alt.X2(field="x"), y2=alt.Y2(field="y"), color=colour).transform_filter(chosen)
    before = alt.Chart().mark_point(size=90, strokeWidth=2, opacity=0.6).encode(
        x=alt.X(field="x before", type="quantitative", scale=scale),
        y=alt.Y(field="y before", type="quantitative", scale=scale), color=colour,
        tooltip=tips).transform_filter(chosen)
    after = alt.Chart().mark_point(size=160, filled=True, opacity=1).encode(
        x=x, y=y, color=colour, tooltip=tips).transform_filter(chosen)
    labels = alt.Chart().mark_text(align="left", fontSize=14, fontWeight="bold").encode(
        x=alt.X(field="label x", type="quantitative", scale=scale),
        y=alt.Y(field="label y", type="quantitative", scale=scale),
        text=alt.Text(field="label", type="nominal"), color=colour).transform_filter(chosen)
    return alt.layer(circles, spokes, before, after, labels, data=df, title=title, width=size, height=size)


def length_lines(positions: np.ndarray, rope_norms: np.ndarray, q_norm: float, additive_norms: np.ndarray,
                 x_norm: float, *, title: str = "") -> alt.Chart:
    """Lengths over positions, relative to the unpositioned vector: ‖R_p q‖/‖q‖ (flat at 1) and ‖x + PE_p‖/‖x‖."""
    names = ["RoPE: ‖R_p q‖ / ‖q‖", "additive: ‖x + PE_p‖ / ‖x‖"]
    df = pd.DataFrame({
        "position p": np.tile(positions, 2),
        "length ratio": np.concatenate([rope_norms / q_norm, additive_norms / x_norm]),
        "length": np.concatenate([rope_norms, additive_norms]),
        "scheme": np.repeat(names, len(positions)),
    })
    return alt.Chart(df, title=title).mark_line(strokeWidth=2.5).encode(
        x=alt.X(field="position p", type="quantitative", title="position p", scale=alt.Scale(nice=False)),
        y=alt.Y(field="length ratio", type="quantitative", title="length ratio", scale=alt.Scale(zero=False)),
        color=alt.Color(field="scheme", type="nominal", sort=names, title=None,
                        scale=alt.Scale(domain=names, range=[BASE, HIGHLIGHT]), legend=alt.Legend(orient="right")),
        tooltip=[alt.Tooltip(field="scheme", type="nominal"), alt.Tooltip(field="position p", type="quantitative"),
                 alt.Tooltip(field="length", type="quantitative", format=".12f"),
                 alt.Tooltip(field="length ratio", type="quantitative", format=".12f")],
    ).properties(width="container", height=300)

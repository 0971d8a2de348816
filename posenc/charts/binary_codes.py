"""Charts for the binary-codes page (arrays in, ``alt.Chart`` out; altair + pandas, no streamlit).

Positions here are 0-based, as in a bit table.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from . import BASE, HIGHLIGHT, MAX_MARKS

ONE = "#1f3b73"
ZERO = "#e8eef7"
FAR = "#2ca02c"


def bit_table(bit: np.ndarray, start: np.ndarray, stop: np.ndarray, value: np.ndarray, n_bits: int,
              digits: np.ndarray | None = None) -> alt.LayerChart:
    """The bit table as runs of equal bits: one row per bit (bit 0 on top), positions 0 … 2ⁿ − 1 across.

    Drag to pan, scroll to zoom (x only). ``digits`` (2ⁿ × n), when given, writes each 0/1 in its cell.
    """
    if len(bit) > MAX_MARKS:
        raise ValueError("Too many runs for one chart; use fewer bits.")
    df = pd.DataFrame({
        "bit": bit.astype(np.int8),
        "from": start.astype(np.float32) - 0.5,
        "to": stop.astype(np.float32) - 0.5,
        "first": start.astype(np.int32),
        "last": (stop - 1).astype(np.int32),
        "value": value.astype(np.int8),
    })
    positions = 2**n_bits
    x = alt.X(field="from", type="quantitative", title="position p (starting at 0)",
              scale=alt.Scale(domain=[-0.5, positions - 0.5], nice=False),
              axis=alt.Axis(tickMinStep=1, format="d"))
    # integer field, readable label: "bit 0: flips every step", "bit 3: flips every 8 steps"
    y = alt.Y(field="bit", type="ordinal", title=None, sort="ascending",
              axis=alt.Axis(labelOverlap=False, labelLimit=260,
                            labelExpr="'bit ' + datum.value + (datum.value == 0 ? ': flips every step' : "
                                      "': flips every ' + pow(2, datum.value) + ' steps')"))
    zoom = alt.selection_interval(bind="scales", encodings=["x"])
    runs = (
        alt.Chart(df)
        .mark_rect(stroke="white", strokeWidth=0.5 if positions <= 64 else 0)
        .encode(
            x=x, x2=alt.X2(field="to"), y=y,
            color=alt.Color(field="value", type="nominal", title="bit value",
                            scale=alt.Scale(domain=[0, 1], range=[ZERO, ONE]), legend=alt.Legend(orient="top")),
            tooltip=[alt.Tooltip(field="bit", type="ordinal"), alt.Tooltip(field="value", type="quantitative"),
                     alt.Tooltip(field="first", type="quantitative", title="from position"),
                     alt.Tooltip(field="last", type="quantitative", title="to position")],
        )
        .add_params(zoom)
    )
    layers = [runs]
    if digits is not None:
        d = np.asarray(digits)
        tdf = pd.DataFrame({
            "p": np.repeat(np.arange(d.shape[0]), n_bits).astype(np.int32),
            "bit": np.tile(np.arange(n_bits), d.shape[0]).astype(np.int8),
            "digit": d.ravel().astype(np.int8),
        })
        layers.append(
            alt.Chart(tdf).mark_text(fontSize=12).encode(
                x=alt.X(field="p", type="quantitative"), y=y, text=alt.Text(field="digit", type="quantitative"),
                color=alt.condition(alt.datum.digit == 1, alt.value("white"), alt.value("#555")),
            )
        )
    return alt.layer(*layers).properties(width="container", height=alt.Step(34))


def hamming_vs_distance(H: np.ndarray, D: np.ndarray, codes: list[str], near: tuple[int, int],
                        far: tuple[int, int]) -> alt.HConcatChart:
    """Two heatmaps of the same pairs (i, j): Hamming distance (bits that differ) beside |i − j|.

    The ``near`` pair (and its mirror) is outlined in red, the ``far`` pair in green.
    """
    m = H.shape[0]
    if 2 * m * m > 2 * MAX_MARKS:
        raise ValueError("Too many cells; show fewer positions.")
    i = np.repeat(np.arange(m), m).astype(np.int16)
    j = np.tile(np.arange(m), m).astype(np.int16)
    df = pd.DataFrame({"i": i, "j": j, "bits that differ": H.ravel().astype(np.int8),
                       "|i − j|": D.ravel().astype(np.int16)})
    n_bits = len(codes[0]) if codes else 1
    # the codes are written in the browser from i and j (no extra data): bit n−1 first
    code_expr = {v: " + ".join(f"(floor(datum.{v} / {2**b}) % 2)" for b in range(n_bits - 1, -1, -1))
                 for v in ("i", "j")}
    step = max(5, min(24, 360 // m))
    ticks = list(range(0, m, 8)) if m > 16 else list(range(m))
    x = alt.X(field="j", type="ordinal", title="position j", axis=alt.Axis(values=ticks, labelAngle=0))
    y = alt.Y(field="i", type="ordinal", title="position i", axis=alt.Axis(values=ticks))
    tip = [alt.Tooltip(field="i", type="ordinal"), alt.Tooltip(field="code i", type="nominal"),
           alt.Tooltip(field="j", type="ordinal"), alt.Tooltip(field="code j", type="nominal"),
           alt.Tooltip(field="bits that differ", type="quantitative"),
           alt.Tooltip(field="|i − j|", type="quantitative")]
    pairs = pd.DataFrame({
        "i": [near[0], near[1], far[0], far[1]], "j": [near[1], near[0], far[1], far[0]],
        "pair": [f"{near[0]} and {near[1]}"] * 2 + [f"{far[0]} and {far[1]}"] * 2,
    })
    pair_names = list(dict.fromkeys(pairs["pair"]))
    outline = alt.Chart(pairs).mark_rect(fill=None, strokeWidth=2.5).encode(
        x=alt.X(field="j", type="ordinal"), y=alt.Y(field="i", type="ordinal"),
        stroke=alt.Stroke(field="pair", type="nominal", sort=pair_names, title="highlighted",
                          scale=alt.Scale(domain=pair_names, range=[HIGHLIGHT, FAR][: len(pair_names)]),
                          legend=alt.Legend(orient="bottom")),
    )

    def panel(field: str, title: str, scheme: str) -> alt.LayerChart:
        cells = (
            alt.Chart(df, title=title)
            .transform_calculate(**{"code i": "'' + " + code_expr["i"], "code j": "'' + " + code_expr["j"]})
            .mark_rect()
            .encode(x=x, y=y, tooltip=tip,
                    color=alt.Color(field=field, type="quantitative", scale=alt.Scale(scheme=scheme),
                                    legend=alt.Legend(orient="bottom", title=field, format="d")))
        )
        return alt.layer(cells, outline).properties(width=alt.Step(step), height=alt.Step(step))

    return alt.hconcat(panel("bits that differ", "Hamming distance: bits that differ", "greens"),
                       panel("|i − j|", "Distance |i − j|", "blues")).resolve_scale(color="independent")


def step_and_slope(x: np.ndarray, value: np.ndarray, slope: np.ndarray, b: int) -> tuple[alt.Chart, alt.Chart]:
    """bit_b(x) for real x as a step, and its finite-difference slope (0 but at the jumps)."""
    df = pd.DataFrame({"x": x.astype(np.float32), "bit": value.astype(np.int8), "slope": slope.astype(np.float32)})
    tip = [alt.Tooltip(field="x", type="quantitative", format=".3f"), alt.Tooltip(field="bit", type="quantitative"),
           alt.Tooltip(field="slope", type="quantitative", format=".1f")]
    xe = alt.X(field="x", type="quantitative", title="position x (any real number)", scale=alt.Scale(nice=False))
    size = dict(width="container", height=260)
    hidden = alt.OverlayMarkDef(opacity=0, size=30)
    top = (alt.Chart(df, title=f"bit {b} of a position x: a step")
           .mark_line(color=ONE, interpolate="step-after", point=hidden)
           .encode(x=xe, y=alt.Y(field="bit", type="quantitative", scale=alt.Scale(domain=[-0.1, 1.1]),
                                 title="bit value"), tooltip=tip)
           .properties(**size))
    bottom = (alt.Chart(df, title="its slope: flat, then a spike at each jump")
              .mark_line(color=HIGHLIGHT, point=hidden)
              .encode(x=xe, y=alt.Y(field="slope", type="quantitative", title="slope"), tooltip=tip)
              .properties(**size))
    return top, bottom


def square_to_sine(x: np.ndarray, curves: list[np.ndarray], names: list[str], bit: np.ndarray, sine: np.ndarray,
                   points_x: np.ndarray, points_y: np.ndarray, b: int) -> alt.LayerChart:
    """A bit as a square wave, smoothed into the sine of the same wavelength by a slider inside the chart.

    ``curves[s]`` is the curve at smoothing level s (0 = the bit itself, last = the sine); the slider re-filters
    the data in the browser (no rerun). The bit (grey) and the sine (dashed) stay as references; dots are the
    code's values at whole positions.
    """
    levels = len(curves)
    if levels * len(x) > MAX_MARKS:
        raise ValueError("Too many points; use a coarser grid.")
    df = pd.DataFrame({
        "x": np.tile(x, levels).astype(np.float32),
        "value": np.concatenate(curves).astype(np.float32),
        "level": np.repeat(np.arange(levels), len(x)).astype(np.int8),
    })
    names_df = pd.DataFrame({"level": np.arange(levels, dtype=np.int8), "curve": names})
    ref = pd.DataFrame({
        "x": np.concatenate([x, x]).astype(np.float32),
        "value": np.concatenate([bit, sine]).astype(np.float32),
        "reference": np.repeat(np.array([0, 1], dtype=np.int8), len(x)),
    })
    pts = pd.DataFrame({"position": points_x.astype(np.int32), "bit": points_y.astype(np.int8)})
    smooth = alt.param(name="smooth", value=0,
                       bind=alt.binding_range(min=0, max=levels - 1, step=1, name="Smooth it: 0 = the bit … "
                                              f"{levels - 1} = the sine  "))
    xe = alt.X(field="x", type="quantitative", title="position x", scale=alt.Scale(nice=False))
    ye = alt.Y(field="value", type="quantitative", title="value", scale=alt.Scale(domain=[-0.25, 1.25], nice=False),
               axis=alt.Axis(values=[0, 0.5, 1]))
    ref_names = [f"bit {b} (square wave)", f"sine of wavelength {2 ** (b + 1)}"]
    refs = alt.Chart(ref).transform_calculate(
        curve=f"datum.reference == 0 ? '{ref_names[0]}' : '{ref_names[1]}'"
    ).mark_line(strokeWidth=1.5, opacity=0.45).encode(
        x=xe, y=ye,
        color=alt.Color(field="curve", type="nominal", title=None, sort=ref_names,
                        scale=alt.Scale(domain=ref_names, range=["#888", BASE]), legend=alt.Legend(orient="top")),
        strokeDash=alt.StrokeDash(field="curve", type="nominal", legend=None, sort=ref_names,
                                  scale=alt.Scale(domain=ref_names, range=[[1, 0], [5, 4]])),
    )
    moving = (
        alt.Chart(df)
        .transform_lookup(lookup="level", from_=alt.LookupData(names_df, key="level", fields=["curve"]))
        .mark_line(color=HIGHLIGHT, strokeWidth=3)
        .encode(x=xe, y=ye, tooltip=[alt.Tooltip(field="curve", type="nominal"),
                                     alt.Tooltip(field="x", type="quantitative", format=".2f"),
                                     alt.Tooltip(field="value", type="quantitative", format=".3f")])
        .add_params(smooth)
        .transform_filter(alt.datum.level == smooth)
    )
    label = (
        alt.Chart(names_df)
        .transform_filter(alt.datum.level == smooth)
        .mark_text(align="left", baseline="top", x=8, y=8, fontSize=14, fontWeight="bold", color=HIGHLIGHT)
        .encode(text=alt.Text(field="curve", type="nominal"))
    )
    dots = alt.Chart(pts).mark_point(filled=True, size=50, color=ONE).encode(
        x=alt.X(field="position", type="quantitative"), y=alt.Y(field="bit", type="quantitative", title="value"),
        tooltip=[alt.Tooltip(field="position", type="quantitative"),
                 alt.Tooltip(field="bit", type="quantitative", title="bit at this whole position")],
    )
    return alt.layer(refs, moving, dots, label).properties(width="container", height=340)

"""Charts for the sinusoid page: the raster table, the waves, one position's vector, the shift rule, the catch."""

from __future__ import annotations

import base64
import struct
import zlib

import altair as alt
import numpy as np
import pandas as pd

from posenc.sinusoid_demo import COLOUR_STOPS

from . import BASE, HIGHLIGHT, MAX_MARKS

F32 = "#e45756"


def png_data_url(rgb: np.ndarray) -> str:
    """An RGB uint8 array (h, w, 3) as a ``data:image/png;base64,…`` URL (stdlib zlib, no imaging library)."""
    a = np.ascontiguousarray(rgb, dtype=np.uint8)
    h, w, _ = a.shape
    raw = b"".join(b"\x00" + a[r].tobytes() for r in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def number(x: float) -> str:
    """A readable number: 6.283, 62.83, 4,712 or 47,117 (no exponent below 10^15)."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def position_heatmap(matrix: np.ndarray, row_positions: np.ndarray, col_positions: np.ndarray, *,
                     row_title: str, col_title: str, value_title: str, scheme: str = "viridis",
                     domain_mid: float | None = None, width: int | str = "container", height: int = 360,
                     title: str = "") -> alt.Chart:
    """A matrix indexed by positions (rows × columns), with every ~5th position labelled and a tooltip per cell
    (row, column, their gap column − row, value). At most 5,000 cells."""
    m = np.asarray(matrix, dtype=float)
    if m.size > MAX_MARKS:
        raise ValueError(f"{m.size} cells is too many for one chart; use ≤ {MAX_MARKS}.")
    rows = np.asarray(row_positions).astype(np.int64)
    cols = np.asarray(col_positions).astype(np.int64)
    gap = f"{col_title} − {row_title}"
    df = pd.DataFrame({
        row_title: np.repeat(rows, len(cols)),
        col_title: np.tile(cols, len(rows)),
        value_title: m.ravel(),
    })
    df[gap] = df[col_title] - df[row_title]
    for c in (row_title, col_title, gap):  # small on the wire
        df[c] = df[c].astype(np.int32)

    def every(vals: np.ndarray) -> list[int]:
        step = max(1, -(-len(vals) // 8))
        return [int(v) for v in vals[::step]]

    scale = (alt.Scale(scheme=scheme, domainMid=domain_mid) if domain_mid is not None
             else alt.Scale(scheme=scheme))
    return alt.Chart(df, title=title).mark_rect().encode(
        x=alt.X(field=col_title, type="ordinal", title=col_title, sort="ascending",
                axis=alt.Axis(values=every(cols), labelAngle=0, format=",d")),
        y=alt.Y(field=row_title, type="ordinal", title=row_title, sort="ascending",
                axis=alt.Axis(values=every(rows), format=",d")),
        color=alt.Color(field=value_title, type="quantitative", scale=scale, title=value_title),
        tooltip=[alt.Tooltip(field=row_title, type="quantitative", format=",d"),
                 alt.Tooltip(field=col_title, type="quantitative", format=",d"),
                 alt.Tooltip(field=gap, type="quantitative", format=",d"),
                 alt.Tooltip(field=value_title, type="quantitative", format=".10f")],
    ).properties(width=width, height=height)


def colour_scale() -> alt.Scale:
    """The same diverging map as ``posenc.sinusoid_demo.diverging_rgb``, for legends."""
    return alt.Scale(domain=[s for s, _ in COLOUR_STOPS],
                     range=["#{:02x}{:02x}{:02x}".format(*c) for _, c in COLOUR_STOPS], interpolate="rgb")


def table_heatmap(image: np.ndarray, length: int, omegas: np.ndarray, *, width: int = 520,
                  height: int = 420, title: str = "") -> alt.LayerChart:
    """The table PE(p, j) (rows p = 1 … length, columns j = 0 … d−1) drawn as one raster image with real axes.

    Hovering a column tells which pair it belongs to, its frequency and wavelength (one transparent bar per
    dimension: at most d marks besides the image).
    """
    d = 2 * len(omegas)
    j = np.arange(d)
    i = j // 2
    cols = pd.DataFrame({
        "dimension j": j, "left": j - 0.5, "right": j + 0.5, "top": 0.5, "bottom": length + 0.5, "pair i": i,
        "kind": np.where(j % 2 == 0, "sin(p·ω_i)", "cos(p·ω_i)"),
        "ω_i": omegas[i], "wavelength 2π/ω_i": 2 * np.pi / omegas[i],
    })
    x = alt.X(field="left", type="quantitative", title="dimension j",
              scale=alt.Scale(domain=[-0.5, d - 0.5], nice=False, zero=False), axis=alt.Axis(tickMinStep=1))
    y = alt.Y(field="top", type="quantitative", title="position p",
              scale=alt.Scale(domain=[0.5, length + 0.5], nice=False, zero=False, reverse=True),
              axis=alt.Axis(tickMinStep=1))
    frame = pd.DataFrame({"left": [-0.5], "right": [d - 0.5], "top": [0.5], "bottom": [length + 0.5],
                          "url": [png_data_url(image)]})
    img = alt.Chart(frame).mark_image(aspect=False, smooth=False).encode(
        x=x, x2=alt.X2(field="right"), y=y, y2=alt.Y2(field="bottom"), url=alt.Url(field="url", type="nominal"))
    hover = alt.Chart(cols).mark_rect(opacity=0.001).encode(
        x=x, x2=alt.X2(field="right"), y=y, y2=alt.Y2(field="bottom"),
        tooltip=[alt.Tooltip(field="dimension j", type="quantitative"),
                 alt.Tooltip(field="pair i", type="quantitative"),
                 alt.Tooltip(field="kind", type="nominal"),
                 alt.Tooltip(field="ω_i", type="quantitative", format=".4g"),
                 alt.Tooltip(field="wavelength 2π/ω_i", type="quantitative", format=",.4g")],
    )
    legend = alt.Chart(pd.DataFrame({"PE value": [-1.0, 1.0]})).mark_point(opacity=0).encode(
        color=alt.Color(field="PE value", type="quantitative", scale=colour_scale(), title="PE(p, j)"),
    )
    return alt.layer(img, hover, legend, title=title).properties(width=width, height=height)


def waves(positions: np.ndarray, values: np.ndarray, pairs: tuple[int, ...], omegas: np.ndarray,
          dot_positions: np.ndarray, dots: np.ndarray, *, width: int = 640, title: str = "") -> alt.FacetChart:
    """sin(p·ω_i) over p for a few pairs: one small panel per pair, a line plus dots at whole positions."""
    names = [f"pair {i}: wavelength {number(2 * np.pi / omegas[i])}" for i in pairs]
    curve = pd.DataFrame({
        "position p": np.tile(positions, len(pairs)),
        "sin(p·ω_i)": np.asarray(values).ravel(),
        "pair": np.repeat(names, len(positions)),
        "pair i": np.repeat(pairs, len(positions)),
        "ω_i": np.repeat(omegas[list(pairs)], len(positions)),
        "kind": "curve",
    })
    pts = pd.DataFrame({
        "position p": np.tile(dot_positions, len(pairs)),
        "sin(p·ω_i)": np.asarray(dots).ravel(),
        "pair": np.repeat(names, len(dot_positions)),
        "pair i": np.repeat(pairs, len(dot_positions)),
        "ω_i": np.repeat(omegas[list(pairs)], len(dot_positions)),
        "kind": "whole position",
    })
    df = pd.concat([curve, pts], ignore_index=True)
    # small on the wire: repeated labels as categories (Arrow dictionaries), small integers as int16
    df["pair"] = pd.Categorical(df["pair"], categories=names)
    df["kind"] = pd.Categorical(df["kind"])
    df["pair i"] = df["pair i"].astype(np.int16)
    df["ω_i"] = df["ω_i"].astype(np.float32)
    if len(df) > MAX_MARKS:
        raise ValueError(f"{len(df)} samples is too many for one chart; use ≤ {MAX_MARKS}.")
    x = alt.X(field="position p", type="quantitative", title="position p",
              scale=alt.Scale(domain=[0, float(np.max(positions))], nice=False))
    y = alt.Y(field="sin(p·ω_i)", type="quantitative", title=None, scale=alt.Scale(domain=[-1.1, 1.1]),
              axis=alt.Axis(values=[-1, 0, 1]))
    tips = [alt.Tooltip(field="pair i", type="quantitative"),
            alt.Tooltip(field="ω_i", type="quantitative", format=".4g"),
            alt.Tooltip(field="position p", type="quantitative", format=".4g"),
            alt.Tooltip(field="sin(p·ω_i)", type="quantitative", format=".4f")]
    line = alt.Chart().mark_line(strokeWidth=1.5, color=BASE).encode(x=x, y=y, tooltip=tips).transform_filter(
        alt.datum.kind == "curve")
    dot = alt.Chart().mark_circle(size=18, color=BASE, opacity=1).encode(x=x, y=y, tooltip=tips).transform_filter(
        alt.datum.kind == "whole position")
    return alt.layer(line, dot, data=df).properties(width=width, height=54).facet(
        row=alt.Row(field="pair", type="nominal", sort=names, title=None,
                    header=alt.Header(labelAngle=0, labelAlign="left", labelAnchor="start", labelOrient="top",
                                      labelFontSize=13, labelPadding=2)),
        title=title, spacing=8,
    )


def position_vector(pe64: np.ndarray, pe32: np.ndarray, position: int, *, title: str = "") -> alt.LayerChart:
    """PE(p) coordinate by coordinate: float64 bars, float32 dots (where they part, float32 is wrong)."""
    d = len(pe64)
    j = np.arange(d)
    df = pd.DataFrame({
        "dimension j": j, "pair i": j // 2, "PE float64": pe64, "PE float32": pe32,
        "|float32 − float64|": np.abs(pe32 - pe64),
    })
    tips = [alt.Tooltip(field=c, type="quantitative", format=".7f" if "PE" in c or "|" in c else "d")
            for c in df.columns]
    x = alt.X(field="dimension j", type="quantitative", title="dimension j",
              scale=alt.Scale(domain=[-0.5, d - 0.5], nice=False), axis=alt.Axis(tickMinStep=1, format="d"))
    bars = alt.Chart().mark_bar(color=BASE, opacity=0.75, size=max(1, min(40, 560 // d))).encode(
        x=x, y=alt.Y(field="PE float64", type="quantitative", title=f"PE({position:,}, j)",
                     scale=alt.Scale(domain=[-1.05, 1.05])), tooltip=tips)
    dots = alt.Chart().mark_point(color=F32, shape="diamond", filled=True, size=28).encode(
        x=x, y=alt.Y(field="PE float32", type="quantitative"), tooltip=tips)
    return alt.layer(bars, dots, data=df, title=title).properties(width="container", height=220)


def dot_lines(positions: np.ndarray, dots: np.ndarray, ks: tuple[int, ...], chosen: int, *,
              title: str = "") -> alt.Chart:
    """PE(p)·PE(p + k) over p, one line per k: flat lines mean 'depends on k only'."""
    names = [f"k = {k:,}" + (" (chosen)" if k == chosen else "") for k in ks]
    df = pd.DataFrame({
        "position p": np.tile(positions, len(ks)),
        "PE(p)·PE(p+k)": np.asarray(dots).ravel(),
        "shift": np.repeat(names, len(positions)),
    })
    if len(df) > MAX_MARKS:
        raise ValueError(f"{len(df)} points is too many for one chart.")
    return alt.Chart(df, title=title).mark_line(strokeWidth=2.5).encode(
        x=alt.X(field="position p", type="quantitative", title="position p", scale=alt.Scale(nice=False)),
        y=alt.Y(field="PE(p)·PE(p+k)", type="quantitative", title="PE(p)·PE(p+k)"),
        color=alt.Color(field="shift", type="nominal", sort=names, title=None,
                        legend=alt.Legend(orient="right")),
        tooltip=[alt.Tooltip(field="shift", type="nominal"),
                 alt.Tooltip(field="position p", type="quantitative"),
                 alt.Tooltip(field="PE(p)·PE(p+k)", type="quantitative", format=".12f")],
    ).properties(width="container", height=280)


def catch_sweep(ms: np.ndarray, scores: np.ndarray, gap: int, marks: list[tuple[int, float]], *,
                title: str = "") -> alt.LayerChart:
    """The additive scheme's score(m, m − gap) over m: not flat. ``marks`` (m, score) are ringed in red."""
    col = f"score(m, m − {gap})"
    df = pd.DataFrame({"query position m": ms, "key position n": ms - gap, col: scores})
    enc = dict(x=alt.X(field="query position m", type="quantitative", title="query position m",
                       scale=alt.Scale(nice=False)),
               y=alt.Y(field=col, type="quantitative", title=col))
    tips = [alt.Tooltip(field="query position m", type="quantitative"),
            alt.Tooltip(field="key position n", type="quantitative"),
            alt.Tooltip(field=col, type="quantitative", format=".4f")]
    line = alt.Chart(df).mark_line(color=BASE, point=alt.OverlayMarkDef(size=10, color=BASE)).encode(
        **enc, tooltip=tips)
    ring = pd.DataFrame({"query position m": [m for m, _ in marks], "key position n": [m - gap for m, _ in marks],
                         col: [s for _, s in marks]})
    rings = alt.Chart(ring).mark_point(color=HIGHLIGHT, size=160, strokeWidth=2.5).encode(**enc, tooltip=tips)
    return alt.layer(line, rings, title=title).properties(width="container", height=280)

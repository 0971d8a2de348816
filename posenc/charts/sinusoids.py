"""Charts for the sinusoid page: arrays in, ``posenc.charts.spec.Figure`` out (Altair public API, named data).

Positions on screen are the chapter's, 1-based for words; where a chart includes the formula's p = 0 or indexes
pairs i or dimensions j (0-based), its axis title says so. Every figure fills its container's width; the height a
builder sets is the plot's own (spec.figure fits the width only: axes, title and the legend below come on top).
"""

from __future__ import annotations

import base64
import json
import struct
import zlib

import altair as alt
import numpy as np

from posenc import chapter
from posenc.core import count
from posenc.sinusoid_demo import CATCH_SPREAD, COLOUR_STOPS, COMPARED_SHIFTS

from . import spec
from .spec import MAX_MARKS

ROW_GAP = 3.0  # vertical distance between two waves' centre lines (each spans −1 … 1)
PRECISION_FLOOR = 1e-12  # the precision chart draws a difference of 0 at this floor of its log axis


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


def colour_scale_spec() -> dict:
    """The same diverging map as ``posenc.sinusoid_demo.diverging_rgb``, as a Vega-Lite scale (for legends)."""
    return {"domain": [s for s, _ in COLOUR_STOPS],
            "range": ["#{:02x}{:02x}{:02x}".format(*c) for _, c in COLOUR_STOPS], "interpolate": "rgb"}


def table_heatmap(image: np.ndarray, length: int, omegas: np.ndarray, *, height: int = 320) -> spec.Figure:
    """The table PE(p, j) (rows p = 1 … length, columns j = 0 … d−1) drawn as one raster image with real axes.

    Hovering a column tells which pair it belongs to, its frequency and wavelength (one transparent bar per
    dimension: at most d marks besides the image). The raster's colours are ``COLOUR_STOPS`` (blue −1, white 0,
    orange +1), and so is the legend.
    """
    d = 2 * len(omegas)
    j = np.arange(d)
    i = j // 2
    chart = _table_layout(height)
    data = {
        "image": spec.columns(left=[-0.5], right=[d - 0.5], top=[0.5], bottom=[length + 0.5],
                              url=[png_data_url(image)], title=[f"The table PE(p, j), d = {d}"]),
        "columns": spec.columns(**{"dimension j": j.astype(np.int32), "left": j - 0.5, "right": j + 0.5,
                                   "top": np.full(d, 0.5), "bottom": np.full(d, length + 0.5),
                                   "pair i": i.astype(np.int32),
                                   "kind": spec.categories(j % 2, ["sin(p·ω_i)", "cos(p·ω_i)"]),
                                   "ω_i": omegas[i], "wavelength 2π/ω_i": 2 * np.pi / omegas[i]}),
        "legend": spec.columns(**{"PE value": [-1.0, 1.0]}),
    }
    lam = 2 * np.pi / np.asarray(omegas, dtype=np.float64)
    slow = "barely changes" if barely_moves(lam[-1], length) else "turns visibly"
    if d == 2:
        reading = (f"Positions 1 … {length:,} and d = 2: a single pair, of wavelength {number(lam[0])}, so it "
                   f"{slow} over them.")
    else:
        reading = (f"Positions 1 … {length:,} and d = {d}: wavelengths from {number(lam[0])} (pair 0, on the left) "
                   f"to {number(lam[-1])} (pair {len(lam) - 1}, on the right), so the rightmost pair "
                   f"{'' if slow.startswith('barely') else 'still '}{slow} over these positions.")
    return spec.figure(chart, data, description=(
        "The sinusoid table PE(p, j), positions p down and dimensions j across, coloured from −1 (blue) through "
        "0 (white) to +1 (orange): the left columns change fastest, and each pair to the right turns more "
        "slowly."), reading=reading)


BARELY = 20  # "barely moves": under 1/BARELY of a turn (18°), so its sin and cos change by at most 2·sin(9°) ≈ 0.31


def barely_moves(wavelength: float, positions: float) -> bool:
    """Whether a pair of this wavelength turns less than 1/``BARELY`` of a turn over ``positions`` positions:
    the one threshold behind every "barely moves" the sinusoid page says (the dials' labels too)."""
    return wavelength > BARELY * positions


@spec.layout
def _table_layout(height: int) -> alt.LayerChart:
    """The raster, a transparent hover bar per column, and the colour legend; its d columns and ``length`` rows
    span the image's own edges (data), and the title naming d comes with the "image" data, so neither d nor
    the number of positions shown is layout."""
    x = alt.X("left:Q", title="dimension j (0-based)",
              scale=alt.Scale(nice=False, zero=False), axis=alt.Axis(tickMinStep=1))
    y = alt.Y("top:Q", title="position p",
              scale=alt.Scale(nice=False, zero=False, reverse=True),
              axis=alt.Axis(tickMinStep=1, format=",d"))
    img = alt.Chart(spec.named("image")).mark_image(aspect=False, smooth=False).encode(
        x=x, x2="right:Q", y=y, y2="bottom:Q", url="url:N")
    hover = alt.Chart(spec.named("columns")).mark_rect(opacity=0.001).encode(
        x=x, x2="right:Q", y=y, y2="bottom:Q",
        tooltip=[alt.Tooltip("dimension j:Q", title="dimension j (0-based)"),
                 alt.Tooltip("pair i:Q", title="pair i (0-based)"), alt.Tooltip("kind:N"),
                 alt.Tooltip("ω_i:Q", format=".4g"), alt.Tooltip("wavelength 2π/ω_i:Q", format=",.4g")])
    legend = alt.Chart(spec.named("legend")).mark_point(opacity=0).encode(
        color=alt.Color("PE value:Q", title="PE(p, j)", scale=alt.Scale(**colour_scale_spec())))
    return alt.layer(img, hover, legend).properties(
        title=alt.TitleParams(spec.text_from("image", "title")), height=height)


def waves(positions: np.ndarray, values: np.ndarray, pairs: tuple[int, ...], omegas: np.ndarray,
          dot_positions: np.ndarray, dots: np.ndarray) -> spec.Figure:
    """sin(p·ω_i) over p for a few pairs, fastest on top, each on its own centre line: a curve over the formula's
    real p from 0, and dots at the word positions 1, 2, …"""
    names = [f"pair {i}: wavelength {number(2 * np.pi / omegas[i])}" for i in pairs]
    n, nc, nd = len(pairs), len(positions), len(dot_positions)
    if n * (nc + nd) > MAX_MARKS:
        raise ValueError(f"{n * (nc + nd)} samples is too many for one chart; use ≤ {MAX_MARKS}.")
    row = np.concatenate([np.repeat(np.arange(n), nc), np.repeat(np.arange(n), nd)])
    value = np.concatenate([np.ravel(values), np.ravel(dots)])
    kind = np.repeat([0, 1], [n * nc, n * nd])
    chart = _waves_layout(n)
    centre = -np.arange(n) * ROW_GAP
    data = {
        "waves": spec.columns(**{
            "position p": np.concatenate([np.tile(positions, n), np.tile(dot_positions, n)]).astype(np.float32),
            "sin(p·ω_i)": value, "y": value + centre[row], "pair": spec.categories(row, names),
            "kind": kind.astype(np.int8)}),
        "labels": spec.columns(pair=names, top=centre + 1.15),
    }
    lam = 2 * np.pi / np.asarray(omegas, dtype=np.float64)[list(pairs)]
    span = float(np.max(positions) - np.min(positions)) if nc else 0.0
    slow = "barely moves" if n and barely_moves(lam.max(), span) else "turns visibly"
    lams = ", ".join(f"pair {i}: {number(x)}" for i, x in zip(pairs, lam))
    reading = (f"Wavelengths: {lams}. The fastest repeats every {number(lam.min())} positions; the slowest "
               f"{slow} over the {number(span)} positions drawn." if n > 1 else
               f"Its wavelength is {number(lam[0])}: it {slow} over the {number(span)} positions drawn." if n
               else "")
    return spec.figure(chart, data, description=(
        f"Waves sin(p·ω_i) of {count(n, 'pair')} over the position p, each on its own line, the fastest on "
        "top: each pair below repeats more slowly."), reading=reading)


@spec.layout
def _waves_layout(n: int) -> alt.LayerChart:
    """n waves, each on its own centre line (row r at −r·ROW_GAP), with their labels."""
    x = alt.X("position p:Q", title="position p (from the formula's 0)", scale=alt.Scale(nice=False))
    y = alt.Y("y:Q", axis=None, scale=alt.Scale(domain=[-(n - 1) * ROW_GAP - 1.1, 1.9], nice=False))
    tips = [alt.Tooltip("pair:N"), alt.Tooltip("position p:Q", format=".4g"),
            alt.Tooltip("sin(p·ω_i):Q", format=".4f")]
    line = alt.Chart(spec.named("waves")).transform_filter("datum.kind === 0").mark_line(
        color=spec.SERIES[0], strokeWidth=1.5).encode(x=x, y=y, detail="pair:N", tooltip=tips)
    dot = alt.Chart(spec.named("waves")).transform_filter("datum.kind === 1").mark_circle(
        color=spec.SERIES[0], size=16, opacity=1).encode(x=x, y=y, tooltip=tips)
    labels = alt.Chart(spec.named("labels")).mark_text(align="left", baseline="bottom", x=4, dy=-2, fontSize=12,
                                                       fontWeight="bold", color=spec.TEXT).encode(
        y="top:Q", text="pair:N")
    return alt.layer(line, dot, labels).properties(
        title="sin(p·ω_i), fastest pair on top", height=int(66 * n))


BAR_PX, BARS_PX, PLOT_PX = 24, 480, 800  # a coordinate's bar: at most 24 px, d of them share 480 px of ~800


def _coordinates(d: int) -> dict:
    """Columns of the per-coordinate bar charts: j = 0 … d−1 and its bar's and slot's edges (data, not layout)."""
    j = np.arange(d, dtype=np.int32)
    return {"dimension j": j, "pair i": j // 2,
            **spec.bar_edges(j, bar_px=min(BAR_PX, BARS_PX / d), plot_px=PLOT_PX)}


def _coordinate_layers(data: str, colour: str, y: alt.Y, y2: alt.Y2 | alt.DatumValue,
                       tooltip: list) -> list[alt.Chart]:
    """One bar per coordinate j (its edges from the data) and an invisible full-width slot over each that
    carries the tooltip and holds the axis' ends at −½ and d − ½."""
    x = alt.X("left:Q", title="dimension j (0-based)", scale=alt.Scale(nice=False, zero=False),
              axis=alt.Axis(tickMinStep=1, format="d"))
    bars = alt.Chart(spec.named(data)).mark_rect(color=colour).encode(x=x, x2="right:Q", y=y, y2=y2)
    slots = alt.Chart(spec.named(data)).mark_rect(opacity=0.001).encode(
        x=alt.X("lo:Q"), x2="hi:Q", y=y, y2=y2, tooltip=tooltip)
    return [bars, slots]


def position_vector(pe64: np.ndarray, position: int) -> spec.Figure:
    """PE(p) coordinate by coordinate (float64)."""
    d = len(pe64)
    title = f"PE({position:,}): {d} coordinates, computed from the formula"
    return spec.figure(_vector_layout(),
                       {"vector": spec.columns(**_coordinates(d), PE=np.asarray(pe64, dtype=np.float64),
                                               title=spec.categories(np.zeros(d, dtype=int), [title]))},
                       description="The vector PE(p) of one position, coordinate by coordinate: d numbers "
                                   "between −1 and 1, computed on demand with no table.",
                       reading=f"This is position {position:,}, with d = {d} coordinates.")


@spec.layout
def _vector_layout() -> alt.LayerChart:
    """One bar per coordinate j = 0 … d−1 of PE(p); the title, which names p and d, comes with the data."""
    tooltip = [alt.Tooltip("dimension j:Q", title="dimension j (0-based)"),
               alt.Tooltip("pair i:Q", title="pair i (0-based)"), alt.Tooltip("PE:Q", format=".7f")]
    y = alt.Y("PE:Q", title="PE(p, j)", scale=alt.Scale(domain=[-1.05, 1.05]))
    return alt.layer(*_coordinate_layers("vector", spec.SERIES[0], y, alt.datum(0), tooltip)).properties(
        title=alt.TitleParams(spec.text_from("vector", "title")), height=200)


def precision(pe64: np.ndarray, pe32: np.ndarray, position: int) -> spec.Figure:
    """|PE in float32 − PE in float64| coordinate by coordinate, on a log axis (0 drawn at the floor)."""
    d = len(pe64)
    diff = np.abs(np.asarray(pe32, dtype=np.float64) - np.asarray(pe64, dtype=np.float64))
    title = f"float32 against float64 at p = {position:,}, coordinate by coordinate"
    data = {"diff": spec.columns(**_coordinates(d), **{
        "PE float64": np.asarray(pe64, dtype=np.float64), "PE float32": np.asarray(pe32, dtype=np.float64),
        "difference": diff, "shown": np.clip(diff, PRECISION_FLOOR, None),
        "title": spec.categories(np.zeros(d, dtype=int), [title])})}
    worst = int(np.argmax(diff)) if d else 0
    reading = (f"Here p = {position:,}: " + (
        f"the largest difference is {diff[worst]:.2g}, at dimension j = {worst} (0-based)." if d and diff[worst] > 0
        else "float32 and float64 agree exactly at every coordinate."))
    return spec.figure(_precision_layout(), data, description=(
        "How far a float32 computation of PE(p) lands from float64, per coordinate, on a log axis: the fast "
        "pairs on the left suffer first as p grows."), reading=reading)


@spec.layout
def _precision_layout() -> alt.LayerChart:
    """One bar per coordinate, the difference on a log axis from ``PRECISION_FLOOR``; the title (naming p) comes
    with the data."""
    floor = PRECISION_FLOOR
    tooltip = [alt.Tooltip("dimension j:Q", title="dimension j (0-based)"),
               alt.Tooltip("PE float64:Q", format=".9f"), alt.Tooltip("PE float32:Q", format=".9f"),
               alt.Tooltip("difference:Q", format=".2e")]
    y = alt.Y("shown:Q", title="|float32 − float64| (log)", scale=alt.Scale(type="log", domain=[floor, 2]))
    return alt.layer(*_coordinate_layers("diff", spec.FOCUS, y, alt.datum(floor), tooltip)).properties(
        title=alt.TitleParams(spec.text_from("diff", "title")), height=180)


def shift_heatmap(M: np.ndarray, k: int) -> spec.Figure:
    """The top-left corner of M_k: 2 × 2 rotation blocks on the diagonal, zeros elsewhere."""
    n = M.shape[0]
    r, c = np.divmod(np.arange(n * n), n)
    title = f"M_k for k = {k:,}: the top-left {n} × {n}"
    return spec.figure(_shift_layout(n),
                       {"M": spec.columns(row=r.astype(np.int16), column=c.astype(np.int16),
                                          entry=np.ravel(M).astype(np.float64),
                                          title=spec.categories(np.zeros(n * n, dtype=int), [title]))},
                       description=(f"The shift matrix M_k, its top-left {n} × {n} corner: 2 × 2 rotation blocks on "
                                    "the diagonal, zero elsewhere, and no position anywhere in it." if n > 2 else
                                    "The shift matrix M_k: a single 2 × 2 rotation block, and no position anywhere "
                                    "in it."),
                       reading=f"This is M_k for k = {k:,}.")


@spec.layout
def _shift_layout(n: int) -> alt.Chart:
    """The n × n corner of M_k as a heatmap; the title (naming k) comes with the data."""
    enc = dict(x=alt.X("column:O", title="column (0-based)", axis=alt.Axis(labelAngle=0)),
               y=alt.Y("row:O", title="row (0-based)"))
    heat = alt.Chart(spec.named("M")).mark_rect().encode(
        **enc, color=alt.Color("entry:Q", title="M_k entry", scale=alt.Scale(scheme=spec.DIVERGING, domain=[-1, 1])),
        tooltip=[alt.Tooltip("row:O", title="row (0-based)"), alt.Tooltip("column:O", title="column (0-based)"),
                 alt.Tooltip("entry:Q", format=".6f")])
    return heat.properties(title=alt.TitleParams(spec.text_from("M", "title")), height=260)


DOT_SHIFTS = len(COMPARED_SHIFTS) + 1  # the dot-product chart's lines at most: the compared shifts and yours
DOT_COLOURS = (spec.FOCUS, *spec.SERIES[:DOT_SHIFTS - 1])  # yours in the focus colour, first in the legend


def dot_lines(positions: np.ndarray, dots: np.ndarray, ks: tuple[int, ...], chosen: int) -> spec.Figure:
    """PE(p)·PE(p + k) over p, one line per k: flat lines mean 'depends on k only'. The ``chosen`` k is named
    “(yours)” and drawn first, in the focus colour (and its own dash); the names are data, so a new k reuses
    the layout."""
    names = [f"k = {k:,}" + (" (yours)" if k == chosen else "") for k in ks]
    n = len(positions)
    if len(ks) > DOT_SHIFTS:
        raise ValueError(f"at most {DOT_SHIFTS} shifts on one chart; got {len(ks)}.")
    if n * len(ks) > MAX_MARKS:
        raise ValueError(f"{n * len(ks)} points is too many for one chart.")
    mine = np.array([k == chosen for k in ks])
    slot = np.where(mine, 0, np.cumsum(~mine))  # yours 0, then the others in the order of ks
    line = np.repeat(np.arange(len(ks)), n)
    data = {"dots": spec.columns(**{"position p": np.tile(np.asarray(positions, dtype=np.int32), len(ks)),
                                    "PE(p)·PE(p+k)": np.ravel(dots),
                                    "shift": spec.categories(line, names),
                                    "slot": slot[line].astype(np.int8)})}
    values = np.reshape(np.asarray(dots, dtype=np.float64), (len(ks), n))
    reading = (f"Over positions {int(np.min(positions)):,} … {int(np.max(positions)):,}: "
               + "; ".join(f"{name}: {float(np.mean(v)):.4f}" for name, v in zip(names, values))
               + f". No line moves by more than {float(np.max(np.ptp(values, axis=1))):.1e}.") if n else ""
    return spec.figure(_dots_layout(), data, description=(
        "The dot product of two positions k apart, along the sentence: every line is flat, so it depends on the "
        "offset k alone."), reading=reading)


@spec.layout
def _dots_layout() -> alt.Chart:
    """One line per shift, told apart by colour and dash, named by the data in the order of its ``slot``."""
    return alt.Chart(spec.named("dots")).mark_line(strokeWidth=2.5).encode(
        x=alt.X("position p:Q", title="position p", scale=alt.Scale(nice=False)),
        y=alt.Y("PE(p)·PE(p+k):Q", title="PE(p)·PE(p+k)"),
        **spec.series("shift", DOT_SHIFTS, title=None, colours=DOT_COLOURS, order="slot"),
        tooltip=[alt.Tooltip("shift:N"), alt.Tooltip("position p:Q"),
                 alt.Tooltip("PE(p)·PE(p+k):Q", format=".12f")],
    ).properties(title="PE(p)·PE(p+k): one flat line per k", height=230)


FIRST_GAP = chapter.SHIFT  # the similarity chart's slider starts at the chapter's gap, whatever the section's k
#: the outline's row k (0-based, of n) is a cell of the diagonal q − p = sn_gap when that diagonal has k + 1 cells
OUTLINE_KEEP = "datum.k < datum.n - abs(sn_gap)"
#: that cell's positions (1-based): the diagonal starts at (1, 1 + gap) for a gap ≥ 0, at (1 − gap, 1) below
OUTLINE_CELL = {"p": "datum.k + 1 + max(0, -sn_gap)", "q": "datum.k + 1 + max(0, sn_gap)", "gap q − p": "sn_gap"}
#: the row of "S" (row-major, p then q) that holds the cell's value
OUTLINE_LOOKUP = "(datum.p - 1) * datum.n + datum.q - 1"


def similarity(S: np.ndarray) -> spec.Figure:
    """S[p, q] = PE(p)·PE(q) for p, q = 1 … n: constant along every diagonal. A slider inside the chart picks a
    gap q − p (``FIRST_GAP`` at first) and outlines that diagonal, in the browser (no rerun). The slider does
    not start at the section's k: k takes thousands of values and each would be a new layout, while the
    slider reaches every gap the chart holds. The colour range is data: 0 (or −b, when some values are
    negative) to b = the largest |value|, d/2 on the diagonal."""
    n = S.shape[0]
    p, q = np.divmod(np.arange(n * n), n)
    positive = bool(np.min(S) >= 0)
    bound = float(np.max(np.abs(S)))
    chart = _similarity_layout(n, positive)
    data = {"S": spec.columns(**{"p": (p + 1).astype(np.int16), "q": (q + 1).astype(np.int16),
                                 "gap q − p": (q - p).astype(np.int16), "PE(p)·PE(q)": np.ravel(S),
                                 "cell": np.arange(n * n, dtype=np.int32)}),
            "diagonal": spec.columns(k=np.arange(n, dtype=np.int16), n=np.full(n, n, dtype=np.int16)),
            "range": spec.columns(**{"PE(p)·PE(q)": [0.0 if positive else -bound, bound]})}
    return spec.figure(chart, data, description=(
        f"Similarity between positions 1 … {n}: every diagonal holds one value, so it depends on how far apart "
        "two positions are, not where they are."), reading=(
        f"The values run from {float(np.min(S)):.4g} to {float(np.max(S)):.4g}, the largest on the main diagonal "
        "(q = p)."))


@spec.layout
def _similarity_layout(n: int, positive: bool) -> alt.LayerChart:
    """The n × n heatmap coloured over the "range" data (sequential from 0 when every value is ``positive``,
    else diverging over a range symmetric around 0), the diagonal q − p = ``FIRST_GAP`` outlined at first."""
    ticks = list(range(1, n + 1, max(1, n // 6)))
    # signed values get the diverging scheme around 0; all-positive ones (the usual case) the sequential one
    scale = alt.Scale(scheme=spec.SEQUENTIAL if positive else spec.DIVERGING, nice=False, zero=False)
    colour = alt.Color("PE(p)·PE(q):Q", scale=scale)
    pick = alt.param(name="sn_gap", value=int(np.clip(FIRST_GAP, -(n - 1), n - 1)),
                     bind=alt.binding_range(min=-(n - 1), max=n - 1, step=1, name="outline the gap q − p = "))
    # both axes' positions fixed here: the outline's rows never move a scale (and so never redraw the heat map)
    at = alt.Scale(domain=list(range(1, n + 1)))
    enc = dict(x=alt.X("q:O", title="position q", scale=at, axis=alt.Axis(values=ticks, labelAngle=0)),
               y=alt.Y("p:O", title="position p", scale=at, axis=alt.Axis(values=ticks)),
               tooltip=[alt.Tooltip("p:O", title="position p"), alt.Tooltip("q:O", title="position q"),
                        alt.Tooltip("gap q − p:Q"), alt.Tooltip("PE(p)·PE(q):Q", format=".6f")])
    # the heat map does not depend on the gap (a drag redraws none of its n² cells); the outline is its own
    # layer over the n rows of "diagonal", the k-th cell of the picked diagonal each (a drag moves them: it
    # neither filters the n² cells nor makes and drops the outline's rects), its value looked up by cell
    heat = alt.Chart(spec.named("S")).mark_rect().encode(**enc, color=colour).add_params(pick)
    outline = alt.Chart(spec.named("diagonal")).transform_filter(OUTLINE_KEEP).transform_calculate(
        **OUTLINE_CELL).transform_calculate(cell=OUTLINE_LOOKUP).transform_lookup(
        lookup="cell", from_=alt.LookupData(data=spec.named("S"), key="cell", fields=["PE(p)·PE(q)"])).mark_rect(
        fill=None, stroke=spec.FOCUS, strokeWidth=2).encode(**enc)
    # the colour range, as data: an invisible rect under the heat map (a point would turn the legend into symbols)
    ends = alt.Chart(spec.named("range")).mark_rect(opacity=0).encode(color=colour)
    return alt.layer(ends, heat, outline).properties(title=f"PE(p)·PE(q) for positions 1 … {n}", height=300)


def catch_sweep(ms: np.ndarray, scores: np.ndarray, gap: int, marks: list[tuple[int, float]]) -> spec.Figure:
    """The additive scheme's score(m, m − gap) over m (not flat, in general; its reading says which). ``marks``
    (m, score) are ringed."""
    col = f"score(m, m − {gap})"
    ms = np.asarray(ms)
    data = {
        "sweep": spec.columns(**{"query position m": ms.astype(np.int32), "key position n": (ms - gap).astype(np.int32),
                                 col: np.asarray(scores, dtype=np.float64)}),
        "pairs": spec.columns(**{"query position m": np.array([m for m, _ in marks], dtype=np.int32),
                                 "key position n": np.array([m - gap for m, _ in marks], dtype=np.int32),
                                 col: np.array([v for _, v in marks], dtype=np.float64)}),
    }
    scores = np.asarray(scores, dtype=np.float64)
    over = f"Over m = {int(ms[0]):,} … {int(ms[-1]):,}" if ms.size else "Here"
    reading = (f"{over} the gap is fixed, yet the score moves with m: from {float(np.min(scores)):.4f} to "
               f"{float(np.max(scores)):.4f}." if np.ptp(scores) > CATCH_SPREAD else
               f"{over} the score stays put along m, at {float(np.mean(scores)):.4f}.") if scores.size else ""
    return spec.figure(_catch_layout(gap), data, description=(
        f"The score of the query word at m on the key word at m − {gap} as m moves, the gap fixed, with sinusoids "
        "added before W_Q and W_K: nothing in the model makes it a function of the gap alone."), reading=reading)


@spec.layout
def _catch_layout(gap: int) -> alt.LayerChart:
    """The score line over m at this gap, and the chapter's pairs ringed."""
    col = f"score(m, m − {gap})"
    enc = dict(x=alt.X("query position m:Q", title="query position m", scale=alt.Scale(nice=False)),
               y=alt.Y(f"{col}:Q", title=col),
               tooltip=[alt.Tooltip("query position m:Q"), alt.Tooltip("key position n:Q"),
                        alt.Tooltip(f"{col}:Q", format=".4f")])
    line = alt.Chart(spec.named("sweep")).mark_line(color=spec.SERIES[0], point=alt.OverlayMarkDef(
        size=10, color=spec.SERIES[0])).encode(**enc)
    rings = alt.Chart(spec.named("pairs")).mark_point(color=spec.FOCUS, size=160, strokeWidth=2.5).encode(**enc)
    return alt.layer(line, rings).properties(
        title=f"The score with the gap fixed at {gap}", height=110)


# ---------------------------------------------------------------- the dials: pairs turning as the position moves
# Everything a dial shows is a closed form of the chart's parameters, computed in the browser (Vega expressions
# over the shipped grid), so a drag or a play redraws with no rerun. The expressions are module constants: the
# tests evaluate the very strings the chart ships against ``posenc`` (tests/test_client_expressions_sinusoids.py).
DIAL_SPAN = 100  # the waves run over positions 0 … 100; the position slider (and play) sweeps the same range
EXPR_BARELY = f"datum.lam > {BARELY * DIAL_SPAN}"  # barely_moves(λ, DIAL_SPAN), in the browser
DIAL_ROW = 3.0  # vertical distance between two pairs' rows (each wave spans −1 … 1)
#: a clock hand as a symbol path: a thin bar from the centre (0, 0) to 12 o'clock (0, −1), a dot at its end
HAND_PATH = ("M -0.035 0 L -0.035 -0.86 L 0.035 -0.86 L 0.035 0 Z "
             "M -0.12 -0.88 A 0.12 0.12 0 1 0 0.12 -0.88 A 0.12 0.12 0 1 0 -0.12 -0.88 Z")
HAND_SCALE = 1.25  # a custom symbol scales with √size: at this factor the hand reaches the ring
DIAL_SAMPLES = 2  # wave samples per position (12.6 per fastest wavelength 2π, drawn as a smooth curve;
#                  each sample is re-encoded on every frame of the base slider)
MAX_SHIFT_IN_CHART = 30  # the in-chart shift k: 0 … 30
LOG_BASE_RANGE = (0.3, 6.0)  # the in-chart base runs over 10^0.3 ≈ 2 … 10^6, on a log scale

#: ω_i of the pair in the row, from its exponent e = −2i/d (shipped) and the chart's base (``{base}`` is filled in:
#: ``EXPR_BASE``, the bound base slider, or the paper's base as a number).
EXPR_OMEGA = "pow({base}, datum.e)"
EXPR_BASE = "pow(10, {prefix}_logbase)"  # the in-chart base, from its slider (log10 of the base)
EXPR_THETA = "{pos} * datum.omega"  # the pair's angle p·ω_i (radians)
EXPR_WAVE = "datum.cy + sin(datum.x * {omega})"  # the wave sin(x·ω_i) on its row: one expression a sample
EXPR_TIP = "datum.cy + sin(datum.theta)"  # where the hand's tip sits on the row: sin(p·ω_i), the wave at p
EXPR_LAMBDA = "2 * PI / datum.omega"  # the wavelength
EXPR_GAP_DEG = "(({k} * datum.omega) * 180 / PI) % 360"  # the angle between the hands at p and p + k, degrees
EXPR_DOT = ("sin({pos} * datum.omega) * sin(({pos} + {k}) * datum.omega) "
            "+ cos({pos} * datum.omega) * cos(({pos} + {k}) * datum.omega)")  # pair i's term of PE(p)·PE(p+k)


def dial_pairs(d: int) -> tuple[int, ...]:
    """The pairs the dials show, fast to slow: i = 0, 1, d/8 and the slowest, d/2 − 1 (duplicates dropped)."""
    half = d // 2
    return tuple(sorted({0, min(1, half - 1), half // 4, half - 1}))


def exponent(pairs, d: int) -> np.ndarray:
    """e_i = −2i/d for the pairs i: ω_i = base^e_i (shipped, so the browser computes one power a row)."""
    return -2 * np.asarray(pairs, dtype=np.float64) / d


def dial_rows(d: int, pairs: tuple[int, ...]) -> dict:
    """The dial chart's data for the shown ``pairs`` (i, 0-based) of a d-dimensional table: their rows, the
    wave grid over positions 0 … DIAL_SPAN, and every pair (the dot product sums them all)."""
    n = len(pairs)
    slot = np.arange(n)
    cy = -slot * DIAL_ROW
    x = np.linspace(0.0, float(DIAL_SPAN), DIAL_SAMPLES * DIAL_SPAN + 1)
    return {
        "rows": spec.columns(slot=slot.astype(np.int8), i=np.asarray(pairs, dtype=np.int32),
                             d=np.full(n, d, dtype=np.int32), e=exponent(pairs, d), cy=cy),
        "wave": spec.columns(slot=np.repeat(slot, x.size).astype(np.int8),
                             i=np.repeat(np.asarray(pairs, dtype=np.int32), x.size),
                             e=np.repeat(exponent(pairs, d), x.size), cy=np.repeat(cy, x.size), x=np.tile(x, n)),
        "all": spec.columns(i=np.arange(d // 2, dtype=np.int32), e=exponent(range(d // 2), d)),
    }


def dials(d: int, pairs: tuple[int, ...], *, position: int, base: float | None = None, shift: int | None = None,
          prefix: str = "sn") -> spec.Figure:
    """Each shown pair i as a dial (its hand at the angle p·ω_i) beside its wave sin(x·ω_i) over positions
    0 … DIAL_SPAN, the position p a slider in the chart (``{prefix}_pos``; play sweeps it). ``base`` given: the
    base is a slider too (``{prefix}_logbase``, log10 of the base), starting there; else the paper's base, fixed.
    ``shift`` given: a second hand and wave point at p + k (slider ``{prefix}_k``), the angle between the hands
    and PE(p)·PE(p + k) read out, the same at every p."""
    fixed = base is None
    shifted = shift is not None
    chart = _dials_layout(len(pairs), prefix, fixed, shifted)
    spec_ = chart.spec()
    for p in spec_.get("params", []):  # the starting values are data of a kind: set them on the finished spec
        if p["name"] == f"{prefix}_pos":
            p["value"] = int(np.clip(position, 0, DIAL_SPAN))
        elif p["name"] == f"{prefix}_logbase" and not fixed:
            p["value"] = round(float(np.clip(np.log10(base), *LOG_BASE_RANGE)), 1)
        elif p["name"] == f"{prefix}_k" and shifted:
            p["value"] = int(np.clip(shift, 0, MAX_SHIFT_IN_CHART))
    start = {p["name"]: p["value"] for p in spec_.get("params", []) if "value" in p}
    return spec.figure(spec.Layout(json.dumps(spec_)), dial_rows(d, pairs),
                       description=_dials_description(len(pairs), fixed, shifted),
                       reading=_dials_reading(d, pairs, start[f"{prefix}_pos"],
                                              None if fixed else 10 ** start[f"{prefix}_logbase"],
                                              start[f"{prefix}_k"] if shifted else None))


def _dials_description(n: int, fixed: bool, shifted: bool) -> str:
    """What the dials show, from the layout's own arguments: the number of rows, a fixed base, a second hand."""
    text = ((f"Dials and waves of {n} pairs, one row each: a hand turns at its pair's rate ω_i as the position "
             f"p runs over 0 … {DIAL_SPAN}, beside the wave sin(p·ω_i); pair 0 turns fastest, each later pair more "
             "slowly. ") if n > 1 else
            (f"The dial and wave of one pair: its hand turns at the pair's rate ω_i as the position p runs over "
             f"0 … {DIAL_SPAN}, beside the wave sin(p·ω_i). ")) + (
        f"The base is the paper's, {chapter.BASE:,.0f}." if fixed else "A slider in the chart sets the base.")
    if shifted:
        text += (" A second hand points at p + k, k set by a slider in the chart: the angle between the two hands "
                 "is k·ω_i, the same at every p, and so is PE(p)·PE(p + k), read out at the top right.")
    return text


def _dials_reading(d: int, pairs, position: int, base: float | None, shift: int | None) -> str:
    """The numbers the dials open at: the pairs, the position, the base, each pair's wavelength and, with a
    second hand, its shift k and PE(p)·PE(p + k)."""
    b = chapter.BASE if base is None else float(base)
    w = b ** (-2 * np.asarray(pairs, dtype=float) / d)
    lam = ", ".join(f"pair {i}: {number(2 * np.pi / x)}" for i, x in zip(pairs, w))
    head = (f"{'Pairs' if len(pairs) > 1 else 'Pair'} {', '.join(str(i) for i in pairs)} of d = {d}; the chart "
            f"opens at position {position} and base {number(b)}. "
            f"Wavelengths{'' if base is None else ' at that base'}: {lam}.")
    if shift is None:
        return head
    dot = float(np.sum(np.cos(shift * b ** (-np.arange(0, d, 2) / d))))
    return (f"{head} The second hand is k = {shift} positions further on, and PE(p)·PE(p + k) = {dot:.4f} at "
            "every p.")


@spec.layout
def _dials_layout(n: int, prefix: str, fixed: bool, shifted: bool) -> alt.LayerChart:
    """n rows: a dial (ring, hand, tip) left of its wave; the position (and base, shift) params bound to inputs."""
    pos = alt.param(name=f"{prefix}_pos", value=0,
                    bind=alt.binding_range(min=0, max=DIAL_SPAN, step=1, name="position p "))
    params = [pos]
    if fixed:
        base = f"{chapter.BASE:g}"
    else:
        lb = alt.param(name=f"{prefix}_logbase", value=4,
                       bind=alt.binding_range(min=LOG_BASE_RANGE[0], max=LOG_BASE_RANGE[1], step=0.1,
                                              name="base = 10^"))
        params.append(lb)
        base = EXPR_BASE.format(prefix=prefix)
    k_name = f"{prefix}_k"
    if shifted:
        params.append(alt.param(name=k_name, value=chapter.SHIFT,
                                bind=alt.binding_range(min=0, max=MAX_SHIFT_IN_CHART, step=1, name="shift k ")))
    p = f"{prefix}_pos"
    omega = EXPR_OMEGA.format(base=base)
    span_y = (n - 1) * DIAL_ROW + 3.0
    height = 44 * n + 20
    # the dials sit left of the waves, in a margin as wide as a dial (the x domain's start follows the width)
    x = alt.X("x:Q", title="position p", scale=alt.Scale(nice=False, zero=False, domain=[0, DIAL_SPAN]),
              axis=alt.Axis(values=list(range(0, DIAL_SPAN + 1, 20)), format="d"))
    def yf(field_: str) -> alt.Y:  # every layer's y with the same scale (Vega-Lite draws nothing when they differ)
        return alt.Y(f"{field_}:Q", axis=None, scale=alt.Scale(domain=[-(n - 1) * DIAL_ROW - 1.4, 1.6], nice=False))

    y = yf("y")
    # every field the rows' layers draw, computed once (sibling layers that fork this pipeline with their own
    # calculations trip Vega-Lite's dataflow merging: a blank chart)
    calc = dict(theta=EXPR_THETA.format(pos=p), x=p, x0="0", ty="datum.cy + 1.05")
    text = ("'pair ' + datum.i + ': wavelength ' + (datum.lam >= 1000 ? format(datum.lam, ',.0f') "
            ": format(datum.lam, '.4~g')) + (" + EXPR_BARELY + " ? ' (barely moves)' : '')")
    rows = alt.Chart(spec.named("rows")).transform_calculate(omega=omega).transform_calculate(
        **calc).transform_calculate(lam=EXPR_LAMBDA, tip=EXPR_TIP, y="datum.cy", deg="90 - datum.theta * 180 / PI")
    if shifted:
        rows = rows.transform_calculate(theta2=EXPR_THETA.format(pos=f"({p} + {k_name})"),
                                        x2=f"{p} + {k_name}").transform_calculate(
            tip2="datum.cy + sin(datum.theta2)", gapdeg=EXPR_GAP_DEG.format(k=k_name),
            deg2="90 - datum.theta2 * 180 / PI")
        text += " + '   ·   hands ' + format(datum.gapdeg, '.1f') + '° apart'"
    rows = rows.transform_calculate(text=text)
    # the dials sit left of the plot, in its padding, a dial's width out: a pixel position (no data unit)
    dial_x = alt.XValue(alt.expr(f"-(height / {span_y:g}) - 10"))
    ring = rows.mark_point(shape="circle", filled=False, strokeWidth=1.5, color=spec.REFERENCE, opacity=1,
                           size=alt.expr(f"PI * pow(height / {span_y:g}, 2)")).encode(x=dial_x, y=y)
    # a hand: a symbol from the centre to 12 o'clock with a dot at its end, turned by the angle channel (degrees,
    # clockwise from 12 o'clock), as long as the dial's radius (a symbol's path spans ±1 over √size pixels)
    size = alt.expr(f"pow(2 * height / {span_y:g} * {HAND_SCALE:g}, 2)")

    def hand_of(deg: str, colour: str) -> alt.Chart:
        return rows.mark_point(shape=HAND_PATH, size=size, filled=True, color=colour, opacity=1).encode(
            x=dial_x, y=y, angle=alt.Angle(f"{deg}:Q", scale=None))

    hand = hand_of("deg", spec.SERIES[0])
    wave = alt.Chart(spec.named("wave")).transform_calculate(y=EXPR_WAVE.format(omega=omega)).mark_line(
        color=spec.SERIES[0], strokeWidth=1.5, interpolate="monotone").encode(x=x, y=y, detail="slot:N")
    now = rows.mark_rule(strokeDash=[2, 3], color=spec.REFERENCE).encode(
        x=alt.X("x0:Q"), x2=alt.X2("x:Q"), y=yf("tip"))
    tip = rows.mark_point(filled=True, size=70, color=spec.SERIES[0], opacity=1).encode(x=x, y=yf("tip"))
    cursor = rows.mark_rule(color=spec.SERIES[0], strokeWidth=1).encode(x=x)
    look = dict(align="left", baseline="bottom", dx=2, fontWeight="bold")
    halo = rows.mark_text(**look, **spec.HALO).encode(x=alt.X("x0:Q"), y=yf("ty"), text="text:N")
    label = rows.mark_text(**look, color=spec.TEXT).encode(x=alt.X("x0:Q"), y=yf("ty"), text="text:N")
    head = (f"'p = ' + format({p}, 'd')"
            + ("" if fixed else f" + '   ·   base = ' + format({base}, ',.3~r')")
            + (f" + '   ·   k = ' + format({k_name}, 'd')" if shifted else ""))
    layers = [ring, wave, now, cursor, hand, tip, halo, label]  # the labels over the waves, on their halo
    if shifted:
        hand2 = hand_of("deg2", spec.FOCUS)
        tip2 = rows.mark_point(filled=True, size=80, shape="diamond", color=spec.FOCUS, clip=True).encode(
            x=alt.X("x2:Q"), y=yf("tip2"),
            opacity=alt.condition(f"datum.x2 <= {DIAL_SPAN}", alt.value(1), alt.value(0)))
        dot = alt.Chart(spec.named("all")).transform_calculate(omega=omega).transform_calculate(
            term=EXPR_DOT.format(pos=p, k=k_name), closed=f"cos({k_name} * datum.omega)").transform_aggregate(
            dot="sum(term)", closed="sum(closed)").transform_calculate(
            text="'PE(p)·PE(p + k) = ' + format(datum.dot, '.4f')", x0=f"{DIAL_SPAN}", ty="1.6").mark_text(
            align="right", baseline="bottom", dy=-4, fontSize=14, fontWeight="bold", color=spec.FOCUS).encode(
            x=alt.X("x0:Q"), y=yf("ty"), text="text:N")
        layers = [ring, wave, now, cursor, hand, hand2, tip, tip2, label, dot]
    title = ("The hand at p + k keeps its angle to the hand at p" if shifted
             else "Each pair turns at its own rate")
    # the readout follows the sliders: the subtitle is an expression of the params
    return alt.layer(*layers).add_params(*params).properties(
        title=alt.TitleParams(alt.expr(head), subtitle=title), height=height)



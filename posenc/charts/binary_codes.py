"""Charts for the binary-codes page: arrays in, ``posenc.charts.spec.Figure`` out (Altair public API, named data).

Positions here are the numbers the code writes, 0 … 2ⁿ − 1 (the word at place p of a sentence gets the code of p;
0 has a code and no word). Bit indices b are 0-based (b = 0 the least significant bit); the axis titles say so.
Every chart fills its container's width (nothing spills on a phone).
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np

from ..core import count
from . import spec

ONE = spec.SERIES[0]  # a bit that is 1
ZERO = "#dfe7f3"  # a bit that is 0 (a light fill; its digit or its run's tooltip says 0)


def _every(m: int, labels: int = 8) -> list[int]:
    step = max(1, -(-m // labels))
    return list(range(0, m, step))


#: the in-chart expressions of the counter (the tests evaluate these very strings against ``posenc``):
#: bit b of the position param, and of the position before it
EXPR_BIT = "floor({p} / pow(2, {b})) % 2"
EXPR_FLIPPED = "({p} > 0 && floor({p} / pow(2, {b})) % 2 != floor(({p} - 1) / pow(2, {b})) % 2)"
POSITION = "bn_p"  # the counter's position param (its address key; play sweeps it)
#: the count over the counter's column: how many bits flipped from p − 1 (``flips``: ``flips_expr``), none at 0
#: (``0 +`` makes the count a number: one bit's comparison alone is true or false, and would read "true bit flips")
EXPR_FLIP_COUNT = "{p} > 0 ? (0 + ({flips})) + (({flips}) == 1 ? ' bit flips' : ' bits flip') : ''"
CURSOR_STROKE = 3  # px: the outline of a bit that flipped (a kept bit's is 1 px)
#: two short lines (a phone's chart is ~330 px wide): what the colours mean, and the outline
BIT_TABLE_SUBTITLE = ["Dark = 1, light = 0. Bit b flips every 2ᵇ steps.",
                      "Thick red outline: that bit flipped from p − 1."]


def code_expr(p: str, n_bits: int) -> str:
    """The n-bit code of ``p`` as a Vega string expression, most significant bit first ('0111')."""
    return " + ".join(["''"] + [f"(floor({p} / {2 ** b}) % 2)" for b in reversed(range(n_bits))])


def flips_expr(p: str, n_bits: int) -> str:
    """How many bits flip from p − 1 to p (popcount of p xor (p − 1)), as a Vega number expression (a sum of
    comparisons: true counts 1)."""
    return " + ".join(f"(floor({p} / {2 ** b}) % 2 != floor(({p} - 1) / {2 ** b}) % 2)" for b in range(n_bits))


def title_lines(p: str, n_bits: int) -> tuple[str, str, str]:
    """The counter's title as Vega expressions: the code of p ('p = 9 = 1001'), that of p − 1 ('from 8 = 1000'),
    and whether they go on two lines. Two lines where the longest title of this n would not fit the container on
    one: a number and its code never part, and the title keeps one height all through Play."""
    a = f"'p = ' + {p} + ' = ' + {code_expr(p, n_bits)}"
    b = f"({p} > 0 ? 'from ' + ({p} - 1) + ' = ' + {code_expr(f'({p} - 1)', n_bits)} : 'the first code')"
    top = 2**n_bits - 1
    longest = len(f"p = {top} = {'0' * n_bits}  ·  from {top - 1} = {'0' * n_bits}")
    room = f"max(containerSize()[0] - {spec.TITLE_MARGIN_PX}, 10 * ({spec.TITLE_PX}))"
    return a, b, f"containerSize()[0] > 0 && {longest} * ({spec.TITLE_PX}) > {room}"


def bit_table(bit: np.ndarray, start: np.ndarray, stop: np.ndarray, value: np.ndarray, n_bits: int,
              digits: np.ndarray | None = None, *, position: int = 0) -> spec.Figure:
    """The bit table as runs of equal bits, one row per bit (bit 0 on top), positions 0 … 2ⁿ − 1 across, and a
    counter on it: the position p is a slider in the chart (``bn_p``; a play button counts up), its code drawn
    as a column of cells at p, the bits that flipped from p − 1 outlined and counted over the column, the title
    reading out both codes.

    Drag to pan, scroll to zoom (x only). ``digits`` (2ⁿ × n), when given, writes each 0/1 in its cell.
    """
    if len(bit) > spec.MAX_MARKS:
        raise ValueError("Too many runs for one chart; use fewer bits.")
    positions = 2**n_bits
    d = np.zeros((0, n_bits), dtype=np.int8) if digits is None else np.asarray(digits)
    data = {
        "runs": spec.columns(bit=np.asarray(bit, dtype=np.int8), **{
            "from": np.asarray(start, dtype=np.float32) - 0.5, "to": np.asarray(stop, dtype=np.float32) - 0.5,
            "first": np.asarray(start, dtype=np.int32), "last": np.asarray(stop, dtype=np.int32) - 1,
            "value": np.asarray(value, dtype=np.int8),
            "border": np.full(len(bit), 0.5 if positions <= 64 else 0.0, dtype=np.float32)}),
        "digits": spec.columns(p=np.repeat(np.arange(d.shape[0], dtype=np.int32), n_bits),
                               bit=np.tile(np.arange(n_bits, dtype=np.int8), d.shape[0]),
                               digit=d.ravel().astype(np.int8)),
        "bits": spec.columns(bit=np.arange(n_bits, dtype=np.int8)),
    }
    rates = ["bit 0 flips every step", "bit 1 every two", "bit 2 every four"][:n_bits] + ["and so on"] * (n_bits > 3)
    half = 2 ** (n_bits - 1)
    flip = "its one bit flips" if n_bits == 1 else f"neighbours, all {n_bits} bits flip"
    # the counter's position (``position``) and the codes' digits are the browser's and the data's: the words
    # here follow n alone, the layout's argument
    fig = spec.figure(_bit_table_layout(n_bits), data, description=(
        f"The bit table for {n_bits} {'bit' if n_bits == 1 else 'bits'}, positions 0 … {positions - 1}: "
        f"{', '.join(rates)}; {positions} positions get {positions} different codes. Going from {half - 1} to "
        f"{half}, {flip}."))
    for p in fig.spec.get("params", []):
        if p.get("name") == POSITION:
            p["value"] = int(np.clip(position, 0, positions - 1))
    return fig


@spec.layout
def _bit_table_layout(n_bits: int) -> alt.LayerChart:
    """Runs of equal bits, one row per bit, the digits on top; the counter's column at p; x zooms and pans."""
    positions = 2**n_bits
    y = alt.Y("bit:O", title="bit b (0-based)", sort="ascending",
              axis=alt.Axis(labelExpr="'bit ' + datum.value + ': every ' + pow(2, datum.value)",
                            labelOverlap=False, labelLimit=240))
    zoom = alt.selection_interval(bind="scales", encodings=["x"])
    p = POSITION
    pos = alt.param(name=p, value=0, bind=alt.binding_range(min=0, max=positions - 1, step=1, name="position p "))
    # the x domain is the runs' span, written out: unioned over the layers it would take in the counter's column
    # (x = p), so every frame of the slider would re-run the scale and re-encode every run and axis
    x = alt.X("from:Q", title=f"position p (0 … {positions - 1})",
              scale=alt.Scale(domain=[-0.5, positions - 0.5], nice=False, zero=False),
              axis=alt.Axis(tickMinStep=1, format="d"))
    runs = alt.Chart(spec.named("runs")).mark_rect(stroke="white").encode(
        x=x, x2="to:Q", y=y,
        strokeWidth=alt.StrokeWidth("border:Q", scale=None, legend=None),
        color=alt.Color("value:N", title="bit value", scale=alt.Scale(domain=[0, 1], range=[ZERO, ONE]),
                        legend=None),  # the digits and the tooltips say 0 or 1; the subtitle names the colours
        tooltip=[alt.Tooltip("bit:O", title="bit b"), alt.Tooltip("value:O", title="value"),
                 alt.Tooltip("first:O", title="from position"), alt.Tooltip("last:O", title="to position")],
    ).add_params(zoom)
    text = alt.Chart(spec.named("digits")).mark_text(fontSize=12).encode(
        x="p:Q", y=alt.Y("bit:O", sort="ascending"), text="digit:Q",
        color=alt.condition("datum.digit === 1", alt.value("white"), alt.value(spec.TEXT)),
        tooltip=[alt.Tooltip("p:Q", title="position"), alt.Tooltip("bit:O", title="bit b"),
                 alt.Tooltip("digit:Q", title="value")],
    )
    cells = alt.Chart(spec.named("bits")).transform_calculate(
        now=EXPR_BIT.format(p=p, b="datum.bit"), flipped=EXPR_FLIPPED.format(p=p, b="datum.bit"),
        x=p).transform_calculate(state="datum.flipped ? 'flipped from p − 1' : 'kept'")
    # the column at p: a square that fits one position's cell (a phone's cells are ~15 px wide, a laptop's ~70),
    # measured on the x scale as drawn (zoomed or not), so its outline never covers the neighbours' digits
    cell = "abs(scale('x', 1) - scale('x', 0))"
    cursor = cells.mark_square(size=alt.expr(f"pow(clamp({cell} - {CURSOR_STROKE + 1}, 7, 20), 2)"),
                               opacity=1).encode(
        x=alt.X("x:Q"), y=alt.Y("bit:O", sort="ascending"),
        fill=alt.condition("datum.now === 1", alt.value(ONE), alt.value(ZERO)),
        # flipped: a thick red outline; kept: a thin grey one (the width is the second cue beside the colour)
        stroke=alt.condition("datum.flipped", alt.value(spec.FOCUS), alt.value(spec.REFERENCE)),
        strokeWidth=alt.condition("datum.flipped", alt.value(CURSOR_STROKE), alt.value(1)),
        tooltip=[alt.Tooltip("bit:O", title="bit b"), alt.Tooltip("now:Q", title="value at p"),
                 alt.Tooltip("state:N", title="since p − 1")])
    digit = cells.mark_text(fontSize=13, fontWeight="bold").encode(
        x=alt.X("x:Q"), y=alt.Y("bit:O", sort="ascending"), text=alt.Text("now:Q"),
        color=alt.condition("datum.now === 1", alt.value("white"), alt.value(spec.TEXT)))
    # how many bits flipped, in large type right over the column the eye follows while Play counts (a frame
    # lasts a quarter second: a count reads at a glance where a sentence does not); kept inside the plot's width
    # at either end, and drawn over the plot's top edge (unclipped: the x zoom clips the other layers)
    at = f"scale('x', {p})"
    count_ = cells.transform_filter("datum.bit === 0").transform_calculate(flips=EXPR_FLIP_COUNT.format(
        flips=flips_expr(p, n_bits), p=p)).mark_text(
        fontSize=16, fontWeight="bold", color=spec.FOCUS, baseline="bottom", dy=-4, clip=False,
        align=alt.expr(f"{at} < 60 ? 'left' : {at} > width - 60 ? 'right' : 'center'"),
        opacity=alt.expr(f"{at} < -1 || {at} > width + 1 ? 0 : 1")).encode(  # gone with its column, panned away
        x=alt.X("x:Q"), y=alt.value(0), text=alt.Text("flips:N"))
    a, b, narrow = title_lines(p, n_bits)  # the title's offset leaves room for the count over the column
    head = f"{narrow} ? [{a}, {b}] : {a} + '  ·  ' + {b}"
    return alt.layer(runs, text, cursor, digit, count_).add_params(pos).properties(
        title=alt.TitleParams(alt.expr(head), subtitle=BIT_TABLE_SUBTITLE,
                              subtitleFontSize=spec.by_mode(12, 16), offset=spec.by_mode(22, 30)),
        height=alt.Step(28) if n_bits > 1 else 60)


def hamming_heatmap(H: np.ndarray, D: np.ndarray, codes: list[str], near: tuple[int, int],
                    far: tuple[int, int], *, show: str) -> spec.Figure:
    """One heatmap over the pairs (i, j) of the first positions: ``show="hamming"`` colours each cell by the bits
    that differ, ``show="distance"`` by |i − j|. Both draw the same cells and outline the same two pairs (and
    their mirrors), so the two figures side by side (or stacked on a phone) compare cell for cell.

    Fills its container's width; the codes of i and j are in every cell's tooltip.
    """
    m = H.shape[0]
    if m * m > spec.MAX_MARKS:
        raise ValueError("Too many cells; show fewer positions.")
    title = HEATMAPS[show][1]
    names = list(dict.fromkeys([f"{near[0]} and {near[1]}", f"{far[0]} and {far[1]}"]))
    code = np.array([0, 0, len(names) - 1, len(names) - 1])
    data = {
        "cells": spec.columns(i=np.repeat(np.arange(m, dtype=np.int16), m), j=np.tile(np.arange(m, dtype=np.int16), m),
                              **{"bits that differ": np.asarray(H).ravel().astype(np.int8),
                                 "|i − j|": np.asarray(D).ravel().astype(np.int16)}),
        "codes": spec.columns(position=np.arange(m, dtype=np.int16), code=list(codes[:m])),
        "pairs": spec.columns(i=np.array([near[0], near[1], far[0], far[1]], dtype=np.int16),
                              j=np.array([near[1], near[0], far[1], far[0]], dtype=np.int16),
                              pair=spec.categories(code, names)),
    }
    a, b = near
    c, e = far
    # the description names only the layout's arguments (m, show, and the pairs in ``names``); the bits the pairs
    # differ in are read from H, in the reading
    outlined = f"{a} and {b}, neighbours" + (f", and {c} and {e}, {abs(e - c)} apart" if (c, e) != (a, b) else "")
    if show == "hamming":
        takeaway = ("If the code measured distance, this map would match the map of |i − j|: dark far from the "
                    "diagonal, light next to it.")
        hn, hf = int(H[a, b]), int(H[c, e])
        if np.array_equal(H, D):
            reading = (f"It does here: over positions 0 … {m - 1} the bits that differ are |i − j| itself; "
                       f"{a} and {b} differ in {count(hn, 'bit')}.")
        else:
            yet = " yet" if hn > hf else " and"
            reading = (f"It does not: {a} and {b} are neighbours{yet} differ in {count(hn, 'bit')}"
                       + (f"; {c} and {e} are {abs(e - c)} apart{yet} differ in {count(hf, 'bit')}." if (c, e) != (a, b)
                          else "."))
    else:
        takeaway = "The colour grows steadily away from the diagonal: distance in the sentence."
        reading = ""
    return spec.figure(_heatmap_layout(m, show, names), data,
                       description=f"{title}, positions 0 … {m - 1}; outlined: {outlined}. {takeaway}",
                       reading=reading)


# what each heatmap colours by: show → (field, title, legend title)
HEATMAPS = {
    "hamming": ("bits that differ", "Bits that differ between the codes of i and j", "bits that differ"),
    "distance": ("|i − j|", "How far apart i and j are: |i − j|", "|i − j|"),
}


PAIRS = spec.Link("bn_pair", "datum.i + ',' + datum.j")  # the two maps: the pair pointed at lit in both


@spec.layout
def _heatmap_layout(m: int, show: str, names: Sequence[str]) -> alt.LayerChart:
    """The m × m cells coloured by ``show``, the pairs ``names`` outlined; the pair pointed at (``PAIRS``, in
    either map) outlined in both, the other cells faded."""
    field, title, legend = HEATMAPS[show]
    ticks = _every(m)
    x = alt.X("j:O", title="position j", axis=alt.Axis(values=ticks, labelAngle=0))
    y = alt.Y("i:O", title="position i", axis=alt.Axis(values=ticks))
    lookups = [alt.LookupData(data=spec.named("codes"), key="position", fields=["code"])]
    tip = [alt.Tooltip("i:O", title="position i"), alt.Tooltip("code i:N"), alt.Tooltip("j:O", title="position j"),
           alt.Tooltip("code j:N"), alt.Tooltip("bits that differ:Q"), alt.Tooltip("|i − j|:Q")]
    cells = alt.Chart(spec.named("cells")).transform_calculate(**PAIRS.calculate).transform_lookup(
        lookup="i", from_=lookups[0], as_=["code i"]).transform_lookup(lookup="j", from_=lookups[0], as_=["code j"])
    heat, lit = PAIRS.cells(cells, x, y, tip, color=alt.Color(
        f"{field}:Q", title=legend, scale=alt.Scale(scheme=spec.SEQUENTIAL), legend=alt.Legend(format="d",
                                                                                             gradientLength=130)))
    enc = spec.series("pair", names, title="outlined", colours=(spec.FOCUS, spec.SERIES[2]))
    for channel in enc.values():  # one entry per line: two long labels side by side do not fit a phone
        channel.legend = alt.Legend(title="outlined pairs", direction="vertical")
    outline = alt.Chart(spec.named("pairs")).transform_calculate(**PAIRS.calculate).mark_rect(  # a pair's key too:
        filled=False, strokeWidth=3).encode(                                                    # it lies on top
        x="j:O", y="i:O", **enc,
        tooltip=[alt.Tooltip("pair:N"), alt.Tooltip("i:O", title="position i"),
                 alt.Tooltip("j:O", title="position j")],
    )
    return alt.layer(heat, outline, lit).properties(
        title=alt.TitleParams(title, subtitle=PAIRS.hint("cell", "both maps")), height=300)


#: the raw index's label (``x``: its value, ``edge``: the axis' end): its value on the axis; past the end, its value
#: and how many times the axis' reach it is (to a tenth below 10, whole above; cut, never rounded up)
EXPR_RAW_LABEL = ("{x} > {edge} ? 'p = ' + format({x}, ',d') + '\\n' + ({x} / {edge} < 10 ? "
                  "format(floor({x} / {edge} * 10) / 10, '.1f') : format(floor({x} / {edge}), ',d')) + "
                  "' × the axis’s reach →' : 'p = ' + {x}")
#: beside a bit square: how many of the n bits of p have its value (``datum.bits``, counted in the chart)
EXPR_BIT_COUNT = "datum.bits + (datum.bits === 1 ? ' bit' : ' bits')"


def sizes_strip(content: np.ndarray, n_bits: int, start: int, word_label: str) -> spec.Figure:
    """The coordinates a word brings beside those its position brings, on one axis: the word's d content
    coordinates, the n bits of position p, and the raw index p in one coordinate. A slider inside the chart moves
    p (0 … 2ⁿ − 1): the bits are computed in the browser (⌊p / 2^b⌋ mod 2), no rerun. The axis spans the
    content's spread and one unit more (its edge the ``nice_bound`` of that, so a new seed or d reuses the layout);
    a raw index past its edge is pinned there and labelled with its value and how many times the axis' reach it
    is. Over the bits, p in binary, and beside the squares at 0 and 1 how many bits sit on each."""
    top = 2**n_bits - 1
    edge = spec.nice_bound(float(np.max(np.abs(content))) + 1.0)
    rows = ["content (d coords)", f"{n_bits} bits of p", "raw index p"]
    d = len(content)
    kind = np.concatenate([np.zeros(d), np.ones(n_bits), [2]]).astype(np.int8)
    b = np.concatenate([np.arange(d), np.arange(n_bits), [0]]).astype(np.int16)
    value = np.concatenate([np.asarray(content, dtype=np.float64), np.zeros(n_bits), [0.0]])
    data = {"coords": spec.columns(kind=kind, b=b, value=value, row=spec.categories(kind, rows))}
    spread = float(np.max(np.abs(content)))
    inside = ("every bit stays inside that spread, at every position." if spread >= 1 else
              f"a bit of 1 sticks out of that spread by {1 - spread:.2f}, still nothing like the raw index.")
    return spec.figure(_sizes_layout(n_bits, edge, int(min(start, top)), word_label), data, description=(
        f"The coordinates a word brings and those its position brings: the {count(n_bits, 'bit')} "
        f"{'stays' if n_bits == 1 else 'stay'} 0 or 1 at every "
        f"position; the raw index walks off to {top:,}."),
        reading=f"The word's {d} coordinates reach ±{spread:.2f}: {inside}")


@spec.layout
def _sizes_layout(n_bits: int, edge: float, start: int, word_label: str) -> alt.LayerChart:
    """Three rows of dots on one axis (±``edge``), the slider p starting at ``start``; the raw index labelled (past
    the edge, with how far past); the bits' row with p in binary and how many bits are 0, how many 1."""
    top = 2**n_bits - 1
    rows = ["content (d coords)", f"{n_bits} bits of p", "raw index p"]
    p = alt.param(name="bn_raw", value=start,
                  bind=alt.binding_range(min=0, max=top, step=1, name="position p "))
    base = alt.Chart(spec.named("coords")).transform_calculate(
        x="datum.kind === 0 ? datum.value : datum.kind === 1 ? floor(bn_raw / pow(2, datum.b)) % 2 : bn_raw",
    ).transform_calculate(shown=f"min(datum.x, {edge})")
    xe = alt.X("shown:Q", title="coordinate value", scale=alt.Scale(domain=[-edge, edge + 0.2], nice=False))
    ye = alt.Y("row:N", title=None, sort=rows, axis=alt.Axis(labelLimit=140))
    dots = base.mark_point(filled=True, size=70, opacity=0.85).encode(
        x=xe, y=ye, **spec.series("row", rows, legend=False),
        tooltip=[alt.Tooltip("row:N", title="what"), alt.Tooltip("b:Q", title="coordinate (0-based)"),
                 alt.Tooltip("x:Q", title="value", format=",.3f")],
    )
    # the raw index, named beside its triangle; past the axis' end (pinned there), how many times that end it is
    raw = base.transform_filter("datum.kind === 2").transform_calculate(
        label=EXPR_RAW_LABEL.format(x="datum.x", edge=f"{edge:g}")).mark_text(
        align="right", baseline="middle", dx=-12, fontSize=15, fontWeight="bold", color=spec.FOCUS,
        lineBreak="\n", dy=alt.expr(f"datum.x > {edge:g} ? -9 : 0")).encode(  # two lines centred on the row
        x=xe, y=ye, text=alt.Text("label:N"))
    # the bits of p: p in binary over their squares, and beside each square how many bits are 0, how many 1
    bits = base.transform_filter("datum.kind === 1")
    binary_ = bits.transform_filter("datum.b === 0").transform_calculate(
        shown="0.5", label=f"'p in binary: ' + {code_expr('bn_raw', n_bits)}").mark_text(
        baseline="bottom", dy=-10, fontSize=13, fontWeight="bold").encode(x=xe, y=ye, text=alt.Text("label:N"))
    counts = bits.transform_aggregate(bits="count()", groupby=["x", "row"]).transform_calculate(
        shown="datum.x", label=EXPR_BIT_COUNT).mark_text(
        baseline="middle", fontSize=13, fontWeight="bold",
        align=alt.expr("datum.x === 0 ? 'right' : 'left'"), dx=alt.expr("datum.x === 0 ? -10 : 10")).encode(
        x=xe, y=ye, text=alt.Text("label:N"))
    return alt.layer(dots, raw, binary_, counts).add_params(p).properties(
        title=f"Coordinates of {word_label} beside those of its position", height=150)


def step_and_slope(x: np.ndarray, value: np.ndarray, slope: np.ndarray, b: int) -> tuple[spec.Figure, spec.Figure]:
    """bit_b(x) for real x as a step, and its finite-difference slope (0 but at the jumps)."""
    data = {"steps": spec.columns(x=np.asarray(x, dtype=np.float32), bit=np.asarray(value, dtype=np.int8),
                                  slope=np.asarray(slope, dtype=np.float32))}
    return (spec.figure(_step_layout(b), data,
                        description=f"Bit {b} over real positions: flat, then a jump every {2**b}."),
            spec.figure(_slope_layout(), data,
                        description="The bit's slope: zero everywhere except a spike at each jump, "
                                    "so it says nothing about which way the next position lies."))


STEPS = spec.Link("bn_x", "datum.x")  # the step and its slope: the position pointed at lit in both


def _per_x(marks: alt.Chart, y: alt.Y, title: str) -> alt.LayerChart:
    """A curve over the real position x (``marks``, ``y`` its value) that lights the x nearest the pointer
    (``STEPS``) as a dashed rule, here and in the other chart."""
    xe = alt.X("x:Q", title="position x (any real number)", scale=alt.Scale(nice=False))
    tips = [alt.Tooltip("x:Q", format=".3f"), alt.Tooltip("bit:Q"), alt.Tooltip("slope:Q", format=".1f")]
    return STEPS.crosshair("steps", marks, xe, y, tips, title=title, what="position")


@spec.layout
def _step_layout(b: int) -> alt.LayerChart:
    """bit ``b`` of a real position as a step line."""
    return _per_x(alt.Chart(spec.named("steps")).mark_line(color=spec.SERIES[0], interpolate="step-after"),
                  alt.Y("bit:Q", title="bit value", scale=alt.Scale(domain=[-0.1, 1.1])),
                  f"bit {b} of a position x: a step")


@spec.layout
def _slope_layout() -> alt.LayerChart:
    """The step's finite-difference slope."""
    return _per_x(alt.Chart(spec.named("steps")).mark_line(color=spec.FOCUS), alt.Y("slope:Q", title="slope"),
                  "its slope: 0, then a spike at each jump")


def square_to_sine(x: np.ndarray, curves: list[np.ndarray], names: list[str], points_x: np.ndarray,
                   points_y: np.ndarray, b: int) -> spec.Figure:
    """A bit as a square wave, smoothed into the sine of the same wavelength by a slider inside the chart.

    ``curves[s]`` is the curve at smoothing level s (0 = the bit itself, last = the sine); the slider re-filters
    the data's column (``EXPR_SMOOTH``) in the browser (no rerun). The bit and the sine stay as references; dots are the code's values at
    whole positions.
    """
    levels = len(curves)
    if (levels + 2) * len(x) > spec.MAX_MARKS:
        raise ValueError("Too many points; use a coarser grid.")
    T = 2 ** (b + 1)
    ref_names = [f"bit {b} (square wave)", "the sine left at the end"]
    data = {
        "names": spec.columns(level=np.arange(levels, dtype=np.int8), curve=list(names)),
        "references": spec.columns(x=np.concatenate([x, x]).astype(np.float32),
                                   value=np.concatenate([curves[0], curves[-1]]).astype(np.float32),
                                   curve=spec.categories(np.repeat([0, 1], len(x)), ref_names)),
        # one row per x, one column per level (v0 … v{levels − 1}): the slider picks a column, so a frame moves
        # the one line's points and no row comes or goes
        "curves": spec.columns(x=np.asarray(x, dtype=np.float32),
                               **{f"v{s}": np.asarray(c, dtype=np.float32) for s, c in enumerate(curves)}),
        "whole": spec.columns(position=np.asarray(points_x, dtype=np.int32), bit=np.asarray(points_y, dtype=np.int8)),
    }
    return spec.figure(_square_to_sine_layout(levels, b), data, description=(
        f"Bit {b} as a square wave of wavelength {T}; dropping its sharp harmonics leaves the smooth sine of the "
        "same wavelength, defined and sloped at every x."))


#: the smoothing chart's curve at the slider's level: that level's column of the "curves" data
EXPR_SMOOTH = "datum['v' + bn_smooth]"


@spec.layout
def _square_to_sine_layout(levels: int, b: int) -> alt.LayerChart:
    """The bit and its sine as references, the curve at the slider's level (0 … levels − 1), the whole positions."""
    ref_names = [f"bit {b} (square wave)", "the sine left at the end"]
    smooth = alt.param(name="bn_smooth", value=0, bind=alt.binding_range(
        min=0, max=levels - 1, step=1, name=f"Smooth it: 0 = the bit … {levels - 1} = the sine "))
    # the x domain read once from the references' x (the curves share it): not unioned over the moving layer,
    # whose rows change with every frame of the slider
    xe = alt.X("x:Q", title="position x",
               scale=alt.Scale(domain=alt.expr("extent(pluck(data('references'), 'x'))"), nice=False))
    ye = alt.Y("value:Q", title="value", scale=alt.Scale(domain=[-0.25, 1.25], nice=False),
               axis=alt.Axis(values=[0, 0.5, 1]))
    refs = alt.Chart(spec.named("references")).mark_line(strokeWidth=1.5).encode(
        x=xe, y=ye, **spec.series("curve", ref_names, colours=(spec.REFERENCE, spec.SERIES[0])),
        tooltip=[alt.Tooltip("curve:N"), alt.Tooltip("x:Q", format=".2f"), alt.Tooltip("value:Q", format=".3f")],
    )
    moving = alt.Chart(spec.named("curves")).transform_calculate(
        value=EXPR_SMOOTH, level="bn_smooth").transform_lookup(
        lookup="level", from_=alt.LookupData(data=spec.named("names"), key="level", fields=["curve"])
    ).mark_line(color=spec.FOCUS, strokeWidth=3).encode(
        x=xe, y=ye, tooltip=[alt.Tooltip("curve:N"), alt.Tooltip("x:Q", format=".2f"),
                             alt.Tooltip("value:Q", format=".3f")])
    label = alt.Chart(spec.named("names")).transform_filter("datum.level === bn_smooth").mark_text(
        align="left", baseline="top", x=8, y=8, fontSize=14, fontWeight="bold", color=spec.FOCUS,
    ).encode(text="curve:N")
    dots = alt.Chart(spec.named("whole")).mark_point(filled=True, size=50, color=spec.SERIES[0]).encode(
        x=alt.X("position:Q"), y=alt.Y("bit:Q"),
        tooltip=[alt.Tooltip("position:Q"), alt.Tooltip("bit:Q", title="bit at this whole position")])
    return alt.layer(refs, moving, dots, label).add_params(smooth).properties(
        title=f"Bit {b} as a square wave, smoothed harmonic by harmonic", height=180)


def ladder(bit_wavelengths: np.ndarray, pair_wavelengths: np.ndarray, bit_ratio: float, pair_ratio: float,
           d: int) -> spec.Figure:
    """Wavelength of each rung, on a log axis: bits (×2 per rung) beside sinusoid pairs (×base^(2/d) per rung).
    The two ladders' names carry their ratio, which changes with d: they travel in the data (``series`` named by
    the data, in the order of ``code``), so a new d reuses the layout."""
    names = [f"bits: ×{bit_ratio:g} per rung", "sinusoid pairs: ×base^(2/d) per rung"]
    nb, npairs = len(bit_wavelengths), len(pair_wavelengths)
    code = np.repeat([0, 1], [nb, npairs]).astype(np.int8)
    data = {"rungs": spec.columns(
        rung=np.concatenate([np.arange(nb), np.arange(npairs)]).astype(np.int16),
        wavelength=np.concatenate([bit_wavelengths, pair_wavelengths]).astype(np.float64),
        code=code, ladder=spec.categories(code, names))}
    # the factor itself is the next page's Predict: the reading compares it with the bits', never names it
    if npairs < 2:
        pairs = f"one sinusoid pair, of wavelength {pair_wavelengths[-1]:,.3g}."
    else:
        size = "a smaller" if pair_ratio < bit_ratio else "a larger" if pair_ratio > bit_ratio else "the same"
        more = "more" if npairs > nb else "fewer" if npairs < nb else "as many"
        pairs = (f"a sinusoid pair's grows by {size} factor, over {more} rungs ({npairs}), from 2π to "
                 f"{pair_wavelengths[-1]:,.0f}.")
    return spec.figure(_ladder_layout(), data, description=(
        "Wavelengths rung by rung, on a log axis: a bit's wavelength doubles from one bit to the next, a sinusoid "
        "pair's grows by one fixed factor, base^(2/d), from one pair to the next."),
        reading=f"At d = {d}, a bit's wavelength grows ×{bit_ratio:g} per rung over {count(nb, 'rung')}; {pairs}")


@spec.layout
def _ladder_layout() -> alt.Chart:
    """Wavelength per rung on a log axis, one line per ladder (bits first, then the sinusoid pairs)."""
    return alt.Chart(spec.named("rungs")).mark_line(point=True).encode(
        x=alt.X("rung:Q", title="rung: bit b or pair i (0-based)", scale=alt.Scale(nice=False),
                axis=alt.Axis(tickMinStep=1, format="d")),
        y=alt.Y("wavelength:Q", title="wavelength (positions, log scale)", scale=alt.Scale(type="log")),
        **spec.series("ladder", 2, order="code", title=None),
        tooltip=[alt.Tooltip("ladder:N"), alt.Tooltip("rung:Q", title="rung (0-based)"),
                 alt.Tooltip("wavelength:Q", format=",.4g")],
    ).properties(title="Wavelength per rung: bits double, sinusoid pairs grow by base^(2/d)", height=240)

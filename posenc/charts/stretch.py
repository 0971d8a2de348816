"""Charts for "Stretching the context": the key chart's closed forms run in the browser; the rest are drawn from
``posenc.beyond.stretch_demo``.

The key chart ships one row per pair index (up to the largest d's 256 pairs, the same wherever it opens) and
computes everything else in Vega expressions from five in-chart controls — the stretch factor ``st_s``, the base
``st_base``, the method ``st_method``, the head dimension ``st_d`` and log₂ L_train ``st_log2L`` — so dragging any
of them redraws with no rerun. ``EXPR`` holds those expressions; ``tests/test_chart_expressions.py`` evaluates each one in
Python at several settings and compares it with ``posenc.stretch``. Pair indices i are 0-based (as RoPE code
counts them). The Deeper chart's dynamic NTK line follows its own in-chart control, ``st_log2len`` (log₂ seq_len), the
same way (``EXPR_DYN``, ``EXPR_ENDS``). Colours keep their one app-wide meaning (``spec.FOCUS``, ``spec.SERIES``,
``spec.REFERENCE``).
"""

from __future__ import annotations

import altair as alt
import numpy as np

from posenc import chapter
from posenc.beyond import METHODS, TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN, StretchDemo
from posenc.core import count, times

from . import spec
from .spec import FOCUS, REFERENCE, SERIES, Figure, layout

PAIR_AXIS = "pair i (0-based: fastest → slowest)"
KEY_METHODS = ("RoPE as trained", "PI", "NTK-aware", "YaRN")  # the key chart's method picker
S_MAX = 64
LEGEND_GAP = 72  # px between the legend's two entries
ROPE_BASE = int(chapter.BASE)
BASES = (100, 1_000, ROPE_BASE, 100_000, 500_000, 1_000_000, 10_000_000)  # the base picker (RoPE's; 500,000: Llama 3)

# The key chart's structure is a closed form of d and L_train too: both are sliders in it (no rerun), as s is.
D = "st_d"  # the head dimension d itself (the number input's key before; a link's st_d opens the chart there)
D_RANGE = (4, 512)  # step 2 (RoPE turns the dimensions in pairs): 2 … 256 pairs; NTK's d/(d − 2) needs d ≥ 4
MAX_PAIRS = D_RANGE[1] // 2  # the chart ships one row per pair index up to here and keeps i < d/2 (a filter)
LOG2_L = "st_log2L"  # L_train in the chart as log₂ L_train
# The slider moves log₂ L_train, in whole doublings. Over L_train itself (the number input's 16 … 1,000,000) Vega's
# ~170 px slider would move ~6,000 tokens a pixel: 2,048 and 4,096 (the page's default, Llama 2's) and every
# context up to ~6,000 would share its first pixel. On a log scale each of its 17 stops (~10 px) is a doubling, the
# lengths context windows are quoted in (2,048, 4,096, 8,192, 32,768 …), reachable by drag and by the arrow keys;
# the bars rise by the same step at each one (r_i ∝ L_train), and the pair where they cross one full turn moves
# along. A finer step would only add lengths like 5,793 that no model is trained at. From 2^4 = 16 (the page's
# shortest: every pair but the fastest is slow) to 2^20 = 1,048,576 (the first doubling past a million).
LOG2_L_RANGE = (4, 20)
L_OPEN = TYPICAL_L_TRAIN.bit_length() - 1  # the page's 4,096 = 2^12
assert 2 ** L_OPEN == TYPICAL_L_TRAIN and LOG2_L_RANGE[0] <= L_OPEN <= LOG2_L_RANGE[1]
assert D_RANGE[0] <= TYPICAL_D <= D_RANGE[1] and TYPICAL_D % 2 == 0

# The key chart's closed forms, in the order they run (each may use the ones before it). Params: st_d, st_log2L,
# st_s, st_base, st_method; each row carries only its pair index i (rows with i ≥ d/2 are filtered out first).
EXPR: dict[str, str] = {
    "d": D,                                                                          # the head dimension
    "L": f"pow(2, {LOG2_L})",                                                        # L_train
    "th": "pow(st_base, -2 * datum.i / datum.d)",                                   # θ_i
    "r": "datum.L * datum.th / (2 * PI)",                                            # turns within L_train
    "th_pi": "datum.th / st_s",                                                      # PI
    "th_ntk": "pow(st_base * pow(st_s, datum.d / (datum.d - 2)), -2 * datum.i / datum.d)",  # NTK-aware
    "lo": "max(floor(datum.d * log(datum.L / (32 * 2 * PI)) / (2 * log(st_base))), 0)",     # YaRN's ramp ends
    "hi0": "min(ceil(datum.d * log(datum.L / (1 * 2 * PI)) / (2 * log(st_base))), datum.d - 1)",
    "hi": "datum.hi0 + (datum.hi0 == datum.lo ? 0.001 : 0)",
    "g": "clamp((datum.i - datum.lo) / (datum.hi - datum.lo), 0, 1)",                # YaRN's ramp γ_i
    "th_yarn": "datum.th * (1 - datum.g) + datum.th / st_s * datum.g",
    "th_new": ("st_method == 'PI' ? datum.th_pi : st_method == 'NTK-aware' ? datum.th_ntk : "
               "st_method == 'YaRN' ? datum.th_yarn : datum.th"),
    "reach": "st_s * datum.L * datum.th_new / (2 * PI)",                             # turns within s·L_train
    "slow": "datum.r < 1 ? 1 : 0",
    "past": "datum.r < 1 && datum.reach > datum.r * (1 + 1e-9) ? 1 : 0",             # meets an angle never seen
    "over": "datum.r < 1 ? datum.reach / datum.r : 0",                               # how far past, × its largest
}
PAIRS_KEPT = f"datum.i < {D} / 2"  # the pairs of this d (the data carry MAX_PAIRS)
BAR_HALF = 0.45  # a bar's half width, in pairs (a slot is 1): 10 % of the slot between neighbours
# The y axis (turns, log) is fixed while d, L_train and s move, so the bars rise and fall against it and never seem
# to stand still while the axis moves: from a decade at or under half the fewest turns any d and L_train reach at
# this base (the slowest pair of d = 512 at L_train = 16) up to TURNS_TOP. Only the base, a pick, moves the floor.
_FEWEST = (f"{2 ** LOG2_L_RANGE[0]} * pow(st_base, -{D_RANGE[1] - 2} / {D_RANGE[1]}) / (2 * PI)")
TURNS_FLOOR = f"pow(10, floor(log({_FEWEST} / 2) / log(10)))"
# Over 900 times (nearly three decades) above the highest tick any setting reaches (pair 0 as trained at s = S_MAX
# and the longest L_train: no method turns faster): the live summary's room at the top left.
TURNS_TOP = 1e10
assert S_MAX * 2 ** LOG2_L_RANGE[1] / (2 * np.pi) * 900 <= TURNS_TOP
# The y labels, short (a phone's plot keeps its width): 0.01 … 1,000 as they are, a power of ten further out as
# 1e6 (Vega ticks a log axis of this many decades at powers of ten; any other value is written out)
_DECADE = "floor(log(datum.value) / log(10) + 0.5)"
TURNS_LABEL = (f"(datum.value >= 1e4 || datum.value < 0.01) && abs(pow(10, {_DECADE}) / datum.value - 1) < 1e-9 ? "
               f"'1e' + {_DECADE} : format(datum.value, ',~g')")
ROT_KINDS = ("≥ 1 turn: has seen every angle", "< 1 turn: later angles never seen")
TICK_KINDS = ("past the angles it saw", "within the angles it saw")
SUMMARY = ("[st_method + ', s = ' + st_s + ':', datum.n_slow == 0 ? 'no slow pair' : "
           "datum.n_past + ' of ' + datum.n_slow + ' slow ' + (datum.n_slow == 1 ? 'pair' : 'pairs') + "
           "(datum.n_past == 1 || (datum.n_past == 0 && datum.n_slow == 1) ? ' goes' : ' go') + ' past', "
           "datum.n_past == 0 ? 'what training showed' : 'by up to ' + format(datum.worst, '.3~g') + '×']")
TITLE = f"'Turns per pair in L_train = ' + format(pow(2, {LOG2_L}), ',d') + ' tokens'"


def _calc(chart: alt.Chart) -> alt.Chart:
    chart = chart.transform_filter(PAIRS_KEPT)
    for name, expr in EXPR.items():
        chart = chart.transform_calculate(**{name: expr})
    return chart


def turns_figure(res: StretchDemo, method: str = KEY_METHODS[0]) -> Figure:
    """Bars: turns r_i each pair makes within L_train (log scale); ticks: the turns it reaches at s·L_train under
    the picked method (FOCUS when that is past every angle training showed it); a rule at one full turn; a line
    of text with the live count. d, L_train, s, the base and the method are sliders and picks in the chart: the
    data are one row per pair index up to ``MAX_PAIRS``, the same wherever the chart opens. ``res`` (at the
    chart's opening d, L_train, s and base) and ``method`` (the method it opens on) only word the reading."""
    d, L_train = res.d, res.L_train
    pairs = spec.columns(i=np.arange(MAX_PAIRS))
    one = spec.columns(y=[1.0], label=["one full turn"])
    slow = int((res.rotations < 1).sum())
    past = int(res.unseen[method].sum())
    if not slow:
        take = "every pair finishes at least one turn in training, so no angle is new"
    elif past:
        take = (f"{past} of {count(slow, 'slow pair')} {'reaches' if past == 1 else 'reach'} up to "
                f"{res.overreach[method]:.3g}× the largest angle {'it' if past == 1 else 'they'} saw")
    else:
        take = (f"{'the one slow pair stays' if slow == 1 else f'the {slow} slow pairs stay'} within the angles "
                "training showed")
    return spec.figure(_turns_layout(), {"pairs": pairs, "one": one},
                       description="Turns each of RoPE's d/2 pairs makes within the trained context L_train (bars, "
                                   "log scale) and the turns it reaches at s·L_train under the picked method "
                                   "(ticks), against one full turn: a slow pair, one that never finishes a turn "
                                   "in training, meets angles it never saw once its tick rises past its bar. "
                                   "Controls in the chart set s, the base, the method, the head dimension d and "
                                   "L_train (in doublings); for s above 1, PI, NTK-aware and YaRN pull the slow "
                                   "pairs' ticks back down.",
                       reading=f"The chart opens at d = {d} ({res.pairs} pairs), L_train = {L_train:,} tokens, "
                               f"s = {res.s}, base {res.base:,.0f} and {method}: {take}.")


def turns_spec() -> dict:
    """The key chart's layout as Vega-Lite, for a page to read where the chart opens (``frame.live.opening``):
    its bound params carry s, the base, the method, d and log₂ L_train, the inputs ``frame.chart`` seeds from the
    address."""
    return _turns_layout().spec()


@layout
def _turns_layout(height: int = 280) -> alt.LayerChart:
    s = alt.param(name="st_s", value=TYPICAL_S, bind=alt.binding_range(min=1, max=S_MAX, step=1,
                                                                      name="stretch factor s "))
    base = alt.param(name="st_base", value=ROPE_BASE,
                     bind=alt.binding_select(options=list(BASES), labels=[f"{b:,}" for b in BASES], name="base "))
    method = alt.param(name="st_method", value=KEY_METHODS[0],
                       bind=alt.binding_radio(options=list(KEY_METHODS), name="method "))
    d = alt.param(name=D, value=TYPICAL_D, bind=alt.binding_range(min=D_RANGE[0], max=D_RANGE[1], step=2,
                                                                  name="head dimension d "))
    log2_L = alt.param(name=LOG2_L, value=L_OPEN,
                       bind=alt.binding_range(min=LOG2_L_RANGE[0], max=LOG2_L_RANGE[1], step=1,
                                              name="L_train = 2^"))
    src = _calc(alt.Chart(spec.named("pairs"))).transform_calculate(
        floor=TURNS_FLOOR, x0=f"datum.i - {BAR_HALF}", x1=f"datum.i + {BAR_HALF}",
        kind=f"datum.r >= 1 ? '{ROT_KINDS[0]}' : '{ROT_KINDS[1]}'",
        tk=f"datum.past ? '{TICK_KINDS[0]}' : '{TICK_KINDS[1]}'")
    # the pairs of this d, from half a slot before pair 0 to half a slot after pair d/2 − 1: only d moves it
    x = alt.X("x0:Q", title=PAIR_AXIS,
              scale=alt.Scale(domain=[-0.5, alt.ExprRef(f"{D} / 2 - 0.5")], nice=False, zero=False),
              axis=alt.Axis(labelAngle=0, format="d", tickMinStep=1, grid=False, labelOverlap=True))
    tip = [alt.Tooltip("i:O", title="pair i (0-based)"), alt.Tooltip("th:Q", title="θ_i (rad per token)", format=".4g"),
           alt.Tooltip("r:Q", title="turns within L_train", format=",.3g"),
           alt.Tooltip("th_new:Q", title="θ'_i under the method", format=".4g"),
           alt.Tooltip("reach:Q", title="turns within s·L_train", format=",.3g")]
    y_scale = alt.Scale(type="log", domain=[alt.ExprRef(TURNS_FLOOR), TURNS_TOP], nice=False)
    bars = src.mark_bar(aria=False).encode(
        x=x, x2=alt.X2("x1:Q"),
        y=alt.Y("r:Q", scale=y_scale, title="turns (log)", axis=alt.Axis(grid=False, labelExpr=TURNS_LABEL)),
        y2=alt.Y2("floor:Q"),
        color=alt.Color("kind:N", title=None, sort=list(ROT_KINDS),
                        scale=alt.Scale(domain=list(ROT_KINDS), range=[SERIES[0], SERIES[1]]),
                        # under the chart; projected, Vega lays the entries out at the small text's widths (the
                        # second overlapped the first by ~50 px): the gap leaves room for the large text
                        legend=alt.Legend(columnPadding=LEGEND_GAP)),
        tooltip=tip).add_params(s, base, method, d, log2_L)
    # each tick a short rule across its pair's slot, at the turns it reaches (its width follows d, as the bars')
    ticks = src.mark_rule(aria=False, strokeWidth=3).encode(
        x=x, x2=alt.X2("x1:Q"), y=alt.Y("reach:Q"),
        color=alt.Color("tk:N", scale=alt.Scale(domain=list(TICK_KINDS), range=[FOCUS, REFERENCE]), legend=None),
        tooltip=tip)
    rule = alt.Chart(spec.named("one")).mark_rule(aria=False, color=REFERENCE, strokeDash=[5, 3]).encode(y=alt.Y("y:Q"))
    # its label on a white halo: under the rule at the right stand the slow pairs' bars
    look = {"aria": False, "align": "right", "baseline": "top", "dy": 4, "dx": -2}
    rule_text = [alt.Chart(spec.named("one")).mark_text(**look, **style).encode(
        y=alt.Y("y:Q"), x=alt.value("width"), text=alt.Text("label:N")) for style in (spec.HALO, {"color": REFERENCE})]
    summary = src.transform_aggregate(n_slow="sum(slow)", n_past="sum(past)", worst="max(over)").transform_calculate(
        text=SUMMARY).mark_text(aria=False, align="left", baseline="top", dx=4, dy=4, color=FOCUS,
                                fontWeight="bold").encode(x=alt.value(0), y=alt.value(0), text=alt.Text("text:N"))
    return alt.layer(bars, ticks, rule, *rule_text, summary, title=alt.TitleParams(alt.expr(TITLE)),
                     height=height).resolve_scale(color="independent")


# ---------------------------------------------------------------------------------------------- the Deeper chart
DYNAMIC = "Dynamic NTK"  # the one method whose frequencies follow the text's length: they move in the chart
LEN = "st_log2len"  # dynamic NTK's length, in the chart as log₂ seq_len (frame.live keeps it in the address)
# The slider moves log₂ seq_len, in whole steps. Over seq_len itself (the number input's 1 … 100,000,000) Vega's
# ~170 px slider would move ~600,000 tokens a pixel: L_train (where dynamic NTK starts to act), the page's 8,192
# and s·L_train would all sit in its first pixel. On a log scale each of its 23 stops (~7 px) is a doubling, the
# lengths context windows are quoted in (4,096, 8,192, … 65,536 = s·L_train on the page's opening), reachable by
# drag and by the arrow keys, and the line visibly folds down at each one; a finer step would only add lengths
# like 11,585 that nobody reads in. From 2^4 = 16 (the page's shortest L_train: below it dynamic NTK never acts)
# to 2^26 = 67,108,864 (the last doubling within the page's 100,000,000). A select would offer the same lengths
# without a drag to watch. The chart's note writes the seq_len a stop means.
LOG2_LENS = (4, 26)
LEN_OPEN = TYPICAL_SEQ_LEN.bit_length() - 1  # the page's 8,192 = 2^13
assert 2 ** LEN_OPEN == TYPICAL_SEQ_LEN and LOG2_LENS[0] <= LEN_OPEN <= LOG2_LENS[1]
# Dynamic NTK in the browser, over rows that carry i, d, L (L_train) and s (the key chart's opening s):
# scale = s·max(seq_len, L_train)/L_train − (s − 1) and base' = base·scale^(d/(d−2)), so θ'_i/θ_i =
# scale^(−2i/(d−2)) (the base cancels; pair d/2 − 1: exactly 1/scale). y is every method's θ'_i/θ_i (the others
# shipped, fixed). tests/test_chart_expressions.py runs them against posenc.stretch.dynamic_ntk_frequencies.
EXPR_DYN: dict[str, str] = {
    "seq": f"pow(2, {LEN})",
    "scale": "datum.s * max(datum.seq, datum.L) / datum.L - (datum.s - 1)",
    "k": "pow(datum.scale, -2 * datum.i / (datum.d - 2))",
    "y": f"datum.m === '{DYNAMIC}' ? datum.k : datum.ratio",
}
# The names at the lines' ends, one row per method at the last pair, stacked in the order the lines end (top
# first): the fixed methods' rank r0 among themselves, one lower for each whose line now ends below dynamic NTK's;
# dynamic NTK's, the number of fixed lines ending at or above it (ties: dynamic NTK after). Its row also writes the
# note above the plot, two short lines (a phone's plot keeps its width): the seq_len the slider means, and what
# dynamic NTK does there.
_SCALE_TEXT = "format(datum.scale, datum.scale < 100 ? '.3~g' : ',d')"
EXPR_ENDS: dict[str, str] = {
    "above": f"datum.m !== '{DYNAMIC}' && datum.ratio >= datum.k ? 1 : 0",
    # joinaggregate: n_above = sum(above)
    "rank": f"datum.m === '{DYNAMIC}' ? datum.n_above : datum.r0 + (datum.ratio < datum.k ? 1 : 0)",
    "note": (f"datum.m !== '{DYNAMIC}' ? '' : 'dynamic NTK at seq_len = ' + format(datum.seq, ',d') + ':\\n' + "
             "(datum.seq <= datum.L ? 'within L_train, it changes nothing' : "
             f"'the slowest pair ÷ ' + {_SCALE_TEXT} + (datum.k < datum.lo ? ' (below the chart)' : ''))"),
}
RATIO_TOP = 1.2  # the y axis' top: lines at 1 (untouched) stay whole inside the plot


def _method_table(res: StretchDemo):
    """One row per method and pair. Dynamic NTK's rows carry its frequencies up to L_train (as trained: t = θ_i,
    ratio 1), the same at every seq_len; the browser computes its line from i, d, L and s (``EXPR_DYN``)."""
    n = res.theta.size
    k = len(METHODS)
    f = {m: (res.theta if m == DYNAMIC else np.asarray(res.frequencies[m], dtype=float)) for m in METHODS}
    t = np.concatenate([f[m] for m in METHODS])
    t0 = np.tile(res.theta, k)
    whole = np.full(n * k, 1)
    return spec.columns(m=spec.categories(np.repeat(np.arange(k), n), METHODS), i=np.tile(np.arange(n), k), t=t,
                        wl=2 * np.pi / t, ratio=t / t0, g=np.tile(res.ramp, k), d=whole * res.d,
                        L=whole * res.L_train, s=whole * res.s)


def _line_ends(res: StretchDemo):
    """One row per method at the last pair: its fixed ratio there (dynamic NTK's: 1, as up to L_train), the fixed
    methods' rank r0 among themselves (0 at the top; dynamic NTK's row: 0, unused), and what ``EXPR_DYN`` and
    ``EXPR_ENDS`` need to place dynamic NTK's name among them as seq_len moves. ``lo``: the y axis' floor, a decade
    under PI's 1/s (no fixed line goes lower; dynamic NTK's may leave the chart there, and its note says so)."""
    fixed = [m for m in METHODS if m != DYNAMIC]
    last = {m: (1.0 if m == DYNAMIC else float(res.frequencies[m][-1] / res.theta[-1])) for m in METHODS}
    order = sorted(fixed, key=lambda m: -float(np.log(last[m])))  # stable: ties keep METHODS' order
    k, n = len(METHODS), res.pairs
    whole = np.full(k, 1)
    return spec.columns(m=spec.categories(np.arange(k), METHODS),
                        r0=[order.index(m) if m != DYNAMIC else 0 for m in METHODS],
                        ratio=[last[m] for m in METHODS], i=whole * (n - 1), d=whole * res.d, L=whole * res.L_train,
                        s=whole * res.s, lo=np.full(k, 1 / (10 * res.s)))


def ratio_figure(res: StretchDemo, height: int = 260) -> Figure:
    """θ'_i / θ_i per pair and method (log scale: 1 = untouched, 1/s = slowed by s); names at the lines' ends.
    Dynamic NTK's seq_len is a slider in the chart (``LEN``, log₂ seq_len): its line, its name's place and the note
    above the plot are computed in the browser, so the data are the same at every seq_len; ``res.seq_len`` (the
    page's: where the chart opens) only words the reading."""
    n = res.pairs
    if res.low >= n - 1:
        yarn = "YaRN keeps every pair as it was"
    else:
        kept = "pair 0" if res.low == 0 else f"pairs 0 to {res.low}"
        yarn = (f"YaRN keeps {kept} as {'it was' if res.low == 0 else 'they were'} and "
                + (f"divides pairs from {res.high} on by s" if res.high <= n - 1 else
                   f"blends the rest (its ramp ends at {res.high}, past the last pair, {n - 1}, so no pair is "
                   "divided by the whole of s)"))
    dyn = (f"dynamic NTK opens at seq_len = {res.seq_len:,}, " + (
        "within L_train, where it changes nothing" if res.seq_len <= res.L_train else
        f"where it divides the slowest pair by {times(res.dynamic_scale)}"))
    return spec.figure(_ratio_layout(height), {"methods": _method_table(res), "ends": _line_ends(res)},
                       description="New frequency over old per pair and method, on a log scale (1 = untouched, "
                                   "1/s = slowed by s): PI divides every pair by s, NTK-aware leaves the fastest "
                                   "pair alone and divides the slowest by s, YaRN keeps the fastest pairs and "
                                   "slows the others by up to s, and dynamic NTK follows the text's length, "
                                   "seq_len, a slider in the chart (in doublings): it changes nothing up to "
                                   "L_train and slows the slow pairs more the longer the text.",
                       reading=f"At s = {res.s}: {yarn}; {dyn}.")


def ratio_spec() -> dict:
    """The Deeper chart's layout as Vega-Lite, for a page to read the seq_len it opens at (``frame.live.opening``:
    the address's when a link carries one; log₂ seq_len)."""
    return _ratio_layout(260).spec()


@layout
def _ratio_layout(height: int) -> alt.LayerChart:
    seq = alt.param(name=LEN, value=LEN_OPEN, bind=alt.binding_range(min=LOG2_LENS[0], max=LOG2_LENS[1], step=1,
                                                                     name="dynamic NTK's seq_len = 2^"))
    enc = spec.series("m", METHODS, legend=False)
    x = alt.X("i:Q", title=PAIR_AXIS, axis=alt.Axis(format="d", tickMinStep=1))
    # the axis stays put while seq_len moves (the fixed lines never seem to move with it): from the floor the data
    # carry (a decade under 1/s) to just above 1; dynamic NTK's line may leave it at the bottom (clipped)
    floor = "length(data('ends')) ? data('ends')[0].lo : 0.01"
    y = alt.Y("y:Q", title="new frequency ÷ old (log)", axis=alt.Axis(format=".2~g"),
              scale=alt.Scale(type="log", domain=[alt.ExprRef(floor), RATIO_TOP], nice=False))
    lines = _dyn(alt.Chart(spec.named("methods"))).mark_line(aria=False, strokeWidth=2, clip=True).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"],
        tooltip=[alt.Tooltip("m:N", title="method"), alt.Tooltip("i:Q", title="pair i"),
                 alt.Tooltip("y:Q", title="new θ ÷ old θ", format=".4f"),
                 alt.Tooltip("g:Q", title="YaRN ramp γ_i", format=".3f")])
    # the names, one per row at the right edge, in the order the lines end (top to bottom), each in its colour
    names = alt.Chart().mark_text(aria=False, align="left", baseline="middle", dx=6, fontWeight="bold").encode(
        x=alt.value("width"), y=alt.Y("rank:O", axis=None, scale=alt.Scale(paddingOuter=0.5)),
        text=alt.Text("m:N"), color=alt.Color("m:N", scale=spec.series_scale(METHODS), legend=None))
    # the live note above the plot, where a subtitle goes (dynamic NTK's row writes it; the others write nothing)
    note = alt.Chart().mark_text(aria=False, align="left", baseline="bottom", x=0, y=-11, lineBreak="\n").encode(
        text=alt.Text("note:N"))
    ends = _dyn(alt.layer(names, note, data=spec.named("ends"))).transform_calculate(
        above=EXPR_ENDS["above"]).transform_joinaggregate(n_above="sum(above)").transform_calculate(
        rank=EXPR_ENDS["rank"], note=EXPR_ENDS["note"])  # one pipeline: both marks draw its rows
    return alt.layer(lines, ends, title=alt.TitleParams("Slow-down per pair (1 = untouched)", offset=3),
                     height=height).resolve_scale(y="independent").add_params(seq)


def _dyn(chart):
    for name, expr in EXPR_DYN.items():
        chart = chart.transform_calculate(**{name: expr})
    return chart

"""Charts and tables of the page “Obvious fixes that fail” (arrays in, ``spec.Figure`` / ``pa.Table`` out).

Every figure goes through the one pipeline (``spec.figure`` over named datasets). Controls that only re-slice
data already sent, or evaluate a closed form of it, live inside the chart as Vega-Lite params: which scores the
weights heat map shows (words only, or with the index) and where the sentence starts (its softmax computed in the
browser), the compared length N, the key word's position m and the query the multiply chart highlights, the
one-hot width N and the position asked for (the codes and distances of a fixed grid, kept within N).
Positions are 1-based, as in the chapter.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import altair as alt
import numpy as np
import pyarrow as pa

from .. import chapter
from ..core import count
from ..fixes import DWARFS, ONE_HOT_SHOWN, OneHot, one_hot, pair_distances
from .spec import (
    FOCUS,
    PRESENT_TEXT,
    PRESENTING,
    REFERENCE,
    SEQUENTIAL,
    SERIES,
    TEXT,
    Figure,
    axis_ends,
    bar_edges,
    categories,
    check_marks,
    columns,
    figure,
    layout,
    named,
    series,
    text_from,
    word_labels,
)

TERMS = ["content score q·k (spread)", "index × a query coordinate ≈ 1", "index in q and k: p × p"]
SCORES = ["words only", "with the index"]  # the weights heat map's two score matrices (a radio in the chart)
MEASURES = ["rank correlation ρ", "share of score spread R²"]
BAR_PX, BARS_PX = 14, 400  # a coordinate's bar: at most 14 px, the d + 1 of them share 400 px
TERMS_AXIS_ROOM = 60  # the score-terms axis runs to this many times the largest size: room for its text (log axis)
TERMS_PRESENT_ROOM = 10  # and 10 times further while projecting: its text is 18 px, not 13 (spec.PRESENT_PARAM)
GAP_AXIS_ROOM = 2.5  # the 1/N axis runs to this many times the longest length: room for the marked points' text


def _heat_height(n: int) -> int:
    return int(min(360, max(110, 26 * n)))


# ---------------------------------------------------------------- 1. the raw index: the coordinate, then the score
def coordinate_bars(x: np.ndarray, position: int, word: str) -> Figure:
    """x′ = [x ; p] for one word: its d own coordinates (size ≈ 1) and the index coordinate p, on one scale."""
    x = np.asarray(x, dtype=float).ravel()
    d = x.size
    check_marks(d + 1)
    kind = np.r_[np.zeros(d, dtype=np.int8), 1]
    names = [f"the word's own {d} coordinates", "the index coordinate p"]
    at = np.arange(1, d + 2)
    data = columns(coordinate=at, value=np.r_[x, float(position)], kind=categories(kind, names), k=kind,
                   **bar_edges(at, bar_px=max(2, min(BAR_PX, BARS_PX / (d + 1))), plot_px=BARS_PX))
    label = columns(coordinate=[d + 1], value=[float(position)], text=[f"p = {position:,}"],
                    title=[f"x′ = [x ; p] at position {position:,}"])
    size = float(np.sqrt(np.mean(x * x))) if d else 0.0  # the typical size of a coordinate (root mean square)
    beside = (f"and hardly show beside the index coordinate, {position:,}." if position >= DWARFS * size else
              f"and the index coordinate, {position:,}, is only {position / size:,.3g} times that.")
    return figure(_coordinate_bars_layout(), {"coords": data, "label": label}, description=(
        "A word's vector with the raw index appended, x′ = [x ; p], on one scale: the word's own coordinates, "
        "then the index coordinate p."),
        reading=f"The vector of “{word}” at position {position:,}: its {d} own coordinates are of typical size "
                f"{size:.2f} (root mean square) {beside}")


@layout
def _coordinate_bars_layout() -> alt.LayerChart:
    """Bars of the d word coordinates and the index coordinate (named by the data, in the order of ``k``), the
    index labelled; d, the bars' widths and the title naming the position all come with the data."""
    x_axis = dict(title="coordinate of x′ (1 … d: the word; d + 1: the index)",
                  scale=alt.Scale(nice=False, zero=False), axis=alt.Axis(format="d", tickMinStep=1))
    enc_x = alt.X("coordinate:Q", **x_axis)
    enc_y = alt.Y("value:Q", title="value of the coordinate")
    colour = alt.Color("kind:N", sort=alt.EncodingSortField("k", op="min"), title=None,
                       scale=alt.Scale(range=[SERIES[0], FOCUS]),
                       legend=alt.Legend(direction="vertical"))
    tooltip = [alt.Tooltip("coordinate:Q"), alt.Tooltip("value:Q", format=",.3f"), alt.Tooltip("kind:N", title="what")]
    bars = alt.Chart(named("coords")).mark_rect(aria=False).encode(
        x=alt.X("left:Q", **x_axis), x2="right:Q",
        y=enc_y, y2=alt.datum(0), color=colour, tooltip=tooltip)
    slots = alt.Chart(named("coords")).mark_rect(aria=False, opacity=0.001).encode(  # hover targets; the axis' ends
        x=alt.X("lo:Q"), x2="hi:Q", y=enc_y, y2=alt.datum(0), tooltip=tooltip)
    text = alt.Chart(named("label")).mark_text(aria=False, align="right", dx=-8, dy=10, color=FOCUS, fontSize=13,
                                               fontWeight="bold").encode(x=enc_x, y=enc_y, text="text:N")
    return alt.layer(bars, slots, text).properties(height=190, title=alt.TitleParams(text_from("label", "title")))


def score_terms(content_score: float, one_side: float, both_sides: float, position: int, d: int) -> Figure:
    """The size of each part of a score on one log axis: the content score (spread ≈ √d), the index meeting a
    query coordinate of size ≈ 1 (≈ p, the chapter's number), the index in both q and k (p²)."""
    values = [content_score, one_side, both_sides]
    text = [f"{v:,.3g}" if v < 1000 else f"{v:,.0f}" for v in values]  # as written beside the bars
    data = columns(part=categories(np.arange(3), TERMS), size=values, base=[1.0, 1.0, 1.0], text=text)
    extent = columns(size=[1.0, max(10.0, both_sides) * TERMS_AXIS_ROOM],  # the x range, as data
                     title=categories(np.zeros(2, dtype=int), [f"Then in a score at p = {position:,} (d = {d})"]))
    return figure(_score_terms_layout(), {"terms": data, "extent": extent}, description=(
        "Sizes in a score, on a log axis: the spread of the content scores, the index meeting a query coordinate "
        "of size about 1, and the index passed into both the query and the key (p × p)."),
        reading=f"At position {position:,}, d = {d}: the content score spreads by about {content_score:.3g}; the "
                f"index meeting a query coordinate of size about 1 adds about {text[1]}, and passed into both the "
                f"query and the key it adds {text[2]}.")


@layout
def _score_terms_layout() -> alt.LayerChart:
    """The three parts' bars on a log axis over the "extent" data (1 to past the largest size), each with its
    size written beside it; the title, which names d, comes with the "extent" data."""
    names = TERMS
    y = alt.Y("part:N", sort=names, title=None, axis=alt.Axis(labelLimit=260))
    title = "size in a score (log scale)"
    x = alt.X("size:Q", title=title, axis=alt.Axis(grid=False),
              scale=alt.Scale(type="log", nice=False))
    colour = series("part", names, legend=False)["color"]
    bars = alt.Chart(named("terms")).mark_bar(aria=False, height=20).encode(
        x=x, x2="base:Q", y=y, color=colour, tooltip=[alt.Tooltip("part:N"), alt.Tooltip("size:Q", format=",.4g")])
    text = alt.Chart(named("terms")).mark_text(aria=False, align="left", dx=5, fontSize=13).encode(
        x=x, y=y, text="text:N", color=colour)
    ends = axis_ends(x=x).mark_point(opacity=0, aria=False)  # the invisible layer stays out of the reading order
    projected = alt.Chart(named("extent")).transform_calculate(  # the bigger text's room, while projecting
        far=f"datum.size * ({PRESENTING} ? {TERMS_PRESENT_ROOM} : 1)").mark_point(opacity=0, aria=False).encode(
        x=alt.X("far:Q", title=title))
    return alt.layer(bars, text, ends, projected).properties(
        height=120, title=alt.TitleParams(text_from("extent", "title")))


START = "fx_start"  # the in-chart position of the first word (frame.live keeps it in the address)
STARTS = (1, 2000)  # its slider's ends
SCORES_PICK = "fx_scores"  # the in-chart radio: the words only, or with the index
# The closed forms the browser evaluates as the start moves (tests/test_client_expressions_fixes.py checks them
# against posenc.fixes.raw_index_demo): each word's position, the score with the index ((q·k + pᵢ·pⱼ) / √d) or
# the words only (q·k / √d), and its softmax over the query's row, the row's largest score subtracted first.
EXPR_RAW_PQ = f"{START} + datum.qi"
EXPR_RAW_PK = f"{START} + datum.ki"
EXPR_RAW_SCORE = f"(datum.content + ({SCORES_PICK} === '{SCORES[1]}' ? datum.pq * datum.pk : 0)) / sqrt(datum.d)"
EXPR_RAW_EXP = "exp(datum.score - datum.top)"
EXPR_RAW_WEIGHT = "datum.e / datum.total"
EXPR_RAW_QUERY = "datum.pq + ' ' + datum.qw"  # '500 the', as spec.word_labels writes it
EXPR_RAW_KEY = "datum.pk + ' ' + datum.kw"
# the line above the map: the queries whose largest weight is on the last key, as numpy's argmax counts them (the
# first of equal scores: two copies of a word score alike without the index): each row's first key at its top score
EXPR_RAW_AT_TOP = "datum.score === datum.top"
EXPR_RAW_WIN = "datum.first === datum.n - 1 ? 1 : 0"
EXPR_RAW_NOTE = "'last key on top for ' + datum.wins + ' of ' + datum.queries + ' queries'"


def weights_heatmap(content: np.ndarray, tokens: list[str], d: int, without: np.ndarray, with_index: np.ndarray,
                    *, opening: int) -> Figure:
    """The attention weights without and with the raw index, one heat map, computed in the browser from the
    content scores ``content`` (q_i·k_j, not yet divided by √d): a radio inside the chart picks the scores and a
    slider the position of the first word (``START``, no rerun), and the softmax of each query's row follows.
    Words are labelled with their positions ("500 The"). ``without``/``with_index``: the weights at ``opening``,
    the start the chart opens at, for its reading."""
    c = np.asarray(content, dtype=float)
    n = c.shape[0]
    check_marks(n * n)
    qi, ki = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    words, code = np.unique(np.asarray(list(tokens), dtype=object), return_inverse=True)
    data = columns(qi=qi.astype(np.int16), ki=ki.astype(np.int16), qw=categories(code[qi], list(words)),
                   kw=categories(code[ki], list(words)), content=c.ravel(), d=np.full(n * n, d, dtype=np.int16),
                   n=np.full(n * n, n, dtype=np.int16))
    last_with, last_without = float(np.mean(with_index[:, -1])), float(np.mean(without[:, -1]))
    wins = int(np.sum(np.argmax(with_index, axis=1) == n - 1))
    give = "gives its" if wins == 1 else "give their"
    return figure(_weights_heatmap_layout(n), {"weights": data}, description=(
        "Attention weights of the sentence placed at a starting position, query by key, from the words only or "
        "with the raw index: the scores and the position of the first word are set below the chart."),
        reading=f"The chart opens with the first word at position {opening:,}. With the index, {wins} of {n} "
                f"queries {give} largest weight to the last key (on average {last_with:.3f} of it, against "
                f"{last_without:.3f} from the words only).")


def weights_spec() -> dict:
    """The weights heat map's layout as Vega-Lite, for a page to read the start it opens at
    (``frame.live.opening``: the address's when a link carries one)."""
    return _weights_heatmap_layout(2).spec()


@layout
def _weights_heatmap_layout(n: int) -> alt.LayerChart:
    """The n × n query × key heat map, labels in the order of their index columns (qi, ki): the scores picked by
    the in-chart radio, the positions from the in-chart slider, each row's softmax; above it, how many queries
    weigh the last key most."""
    pick = alt.param(name=SCORES_PICK, value=SCORES[1], bind=alt.binding_radio(options=SCORES, name="scores: "))
    start = alt.param(name=START, value=chapter.RAW_POSITION,
                      bind=alt.binding_range(min=STARTS[0], max=STARTS[1], step=1,
                                             name="first word at "))
    angle = -40 if n > 6 else 0
    cells = alt.Chart().transform_calculate(query=EXPR_RAW_QUERY, key=EXPR_RAW_KEY).mark_rect(aria=False).encode(
        x=alt.X("key:N", sort=alt.EncodingSortField("ki", op="min"), title="key (position and word)",
                axis=alt.Axis(labelAngle=angle, labelOverlap=True, labelLimit=90)),
        y=alt.Y("query:N", sort=alt.EncodingSortField("qi", op="min"), title="query",
                axis=alt.Axis(labelOverlap=True)),
        color=alt.Color("weight:Q", title="weight", scale=alt.Scale(scheme=SEQUENTIAL, domain=[0, 1]),
                        legend=alt.Legend(orient="right", direction="vertical", gradientLength=90)),
        tooltip=[alt.Tooltip("query:N"), alt.Tooltip("key:N"), alt.Tooltip("score:Q", format=",.4g"),
                 alt.Tooltip("weight:Q", format=".4f")],
    ).add_params(start, pick)  # the slider first: it is the section's question
    note = (alt.Chart().transform_filter(EXPR_RAW_AT_TOP).transform_aggregate(first="min(ki)", groupby=["qi", "n"])
            .transform_calculate(win=EXPR_RAW_WIN).transform_aggregate(wins="sum(win)", queries="count()")
            .transform_calculate(note=EXPR_RAW_NOTE)
            .mark_text(aria=False, align="right", baseline="bottom", x="width", y=-6, color=TEXT, fontSize=13)
            .encode(text="note:N"))
    # the scores and each row's softmax once, for both layers (the map's cells, the line above it)
    return (alt.layer(cells, note, data=named("weights"))
            .transform_calculate(pq=EXPR_RAW_PQ, pk=EXPR_RAW_PK).transform_calculate(score=EXPR_RAW_SCORE)
            .transform_joinaggregate(top="max(score)", groupby=["qi"]).transform_calculate(e=EXPR_RAW_EXP)
            .transform_joinaggregate(total="sum(e)", groupby=["qi"]).transform_calculate(weight=EXPR_RAW_WEIGHT)
            .properties(height=_heat_height(n),
                        title=alt.TitleParams("The weights (start and scores below)", offset=6)))


def share_sweep(starts: np.ndarray, rho: np.ndarray, share: np.ndarray, start: int) -> Figure:
    """How much of the ranking position explains (ρ and R²) for every starting position; a rule at ``start``."""
    s = np.asarray(starts, dtype=float)
    check_marks(2 * s.size)
    data = columns(first=np.r_[s, s], value=np.r_[np.asarray(rho, float), np.asarray(share, float)],
                   measure=categories(np.repeat([0, 1], s.size), MEASURES))
    r2 = np.asarray(share, dtype=float)
    trend = ("; the further into the document, the more position decides" if np.all(np.diff(r2) >= 0) and
             r2[-1] > r2[0] else "; position decides more at the last start than at the first" if r2[-1] > r2[0]
             else "")
    return figure(_share_sweep_layout(),
                  {"sweep": data, "now": columns(first=[float(start)], label=[f"first word at {start:,}"])},
                  description=("Rank correlation and R² of the scores with the key positions, against the position "
                               "of the first word, on a log axis, a dashed rule at the sentence's start: how much "
                               "position decides, wherever the sentence starts."),
                  reading=(f"The first word is at {start:,}. From a start of {int(s[0]):,} to {int(s[-1]):,}, R² "
                           f"goes from {float(r2[0]):.3f} to {float(r2[-1]):.3f}{trend}."))


@layout
def _share_sweep_layout() -> alt.LayerChart:
    """ρ and R² against the first position (log axis), a dashed rule at the current start ("now" dataset)."""
    names = MEASURES
    x = alt.X("first:Q", title="position of the first word (log scale)", scale=alt.Scale(type="log"))
    lines = alt.Chart(named("sweep")).mark_line(aria=False, point=True).encode(
        x=x, y=alt.Y("value:Q", title="ρ or R²", scale=alt.Scale(domain=[-1, 1])),
        **series("measure", names),
        tooltip=[alt.Tooltip("first:Q", title="first position"), alt.Tooltip("measure:N"),
                 alt.Tooltip("value:Q", format=".4f")])
    rule = alt.Chart(named("now")).mark_rule(aria=False, color=REFERENCE, strokeDash=[4, 3]).encode(
        x=x, tooltip=[alt.Tooltip("label:N", title="now")])
    return alt.layer(lines, rule).properties(height=260, title="How much position explains, by the start").configure_legend(direction="vertical")


def raw_readout(rho_without: float, rho_with: float, share_without: float, share_with: float,
                last_wins: int, n: int) -> pa.Table:
    """The readout: how much of the ranking position explains, without and with the index."""
    return columns(**{
        "scores": ["words only: q·k/√d", "with the index: (q·k + p·p)/√d"],
        "ρ (rank vs position)": [rho_without, rho_with],
        "R² (position's share)": [share_without, share_with],
        "top key = last word": ["—", f"{last_wins} of {n} queries"],
    })


# ---------------------------------------------------------------- 2. index ÷ length
LENGTH = "fx_len"  # the in-chart length N of the compared sentence (frame.live keeps it in the address)
LENGTHS = (10, 1000)  # its slider's ends
# The closed forms the browser evaluates as N moves (tests/test_client_expressions_fixes.py checks them against
# posenc.fixes): each row's length (your sentence's own, or the slider's), its code p / N, the rows that exist,
# and the step to the previous word written at each row's end.
EXPR_N = f"datum.row === 0 ? datum.n : {LENGTH}"
EXPR_CODE = "datum.p / datum.N"
EXPR_EXISTS = "datum.p <= datum.N"
EXPR_SENTENCE = f"datum.row === 0 ? datum.sentence : 'a ' + {LENGTH} + '-word sentence'"
EXPR_STEP = "'step 1/N = ' + format(1 / datum.N, '.3g')"


def ratio_strip(tokens: list[str], tracked: int, *, opening: int) -> Figure:
    """Every word's code p/N on [0, 1], in your sentence and in one of N words, with a slider inside the chart for
    the compared length N (``LENGTH``: no rerun); word ``tracked`` (1-based) in FOCUS with its code written, and
    each row's step to the previous word, 1/N, at its end. ``opening``: the N the chart opens at, for its
    reading."""
    n, top = len(tokens), LENGTHS[1]
    check_marks(n + top)
    which = np.repeat([0, 1], [n, top])
    pos = np.r_[np.arange(1, n + 1), np.arange(1, top + 1)]
    codes = columns(row=which.astype(np.int8), p=pos, n=np.where(which == 0, n, 0),
                    sentence=[f"your sentence ({n} words)"] * n + [""] * top, word=list(tokens) + [""] * top,
                    tracked=pos == tracked)
    return figure(_ratio_strip_layout(tracked), {"codes": codes}, description=(
        f"The codes p/N of every word, from 0 to 1, in your sentence and in a sentence of N words, set by the "
        f"slider under the chart: word {tracked} marked in both, and each row's step between neighbours, 1/N."),
        reading=(f"Your sentence has {n} words; the chart opens at N = {opening}: word {tracked} is "
                 f"{tracked / n:.3g} in the first and {tracked / opening:.3g} in the second; the step is "
                 f"{1 / n:.3g} against {1 / opening:.3g}."))


def ratio_spec() -> dict:
    """The strip's layout as Vega-Lite, for a page to read the N it opens at (``frame.live.opening``: the
    address's when a link carries one)."""
    return _ratio_strip_layout(chapter.LENGTH_EXAMPLE[0]).spec()


@layout
def _ratio_strip_layout(tracked: int) -> alt.LayerChart:
    """One row of ticks per sentence (named in the data, the compared one by the slider's N), the tracked word's
    tick in FOCUS with its code written, each row's step at its right end."""
    length = alt.param(name=LENGTH, value=chapter.LENGTH_EXAMPLE[2],
                       bind=alt.binding_range(min=LENGTHS[0], max=LENGTHS[1], step=1,
                                              name="length N of the compared sentence "))
    y = alt.Y("label:N", sort=alt.EncodingSortField("row", op="min"), title=None, axis=alt.Axis(labelLimit=200))
    x = alt.X("code:Q", scale=alt.Scale(domain=[0, 1]), title="code c(p) = p / N")
    tip = [alt.Tooltip("label:N", title="sentence"), alt.Tooltip("p:Q", title="position p"), alt.Tooltip("word:N"),
           alt.Tooltip("code:Q", format=".4f", title="p / N")]
    rows = alt.Chart(named("codes")).transform_calculate(N=EXPR_N).transform_filter(EXPR_EXISTS).transform_calculate(
        code=EXPR_CODE, label=EXPR_SENTENCE)
    ticks = rows.mark_tick(aria=False, thickness=2, size=26).encode(
        x=x, y=y, tooltip=tip, color=alt.condition(alt.datum.tracked, alt.value(FOCUS), alt.value(SERIES[0])))
    tracked_rows = rows.transform_filter(alt.datum.tracked)
    code = tracked_rows.mark_text(aria=False, dy=-22, color=FOCUS, fontSize=13, fontWeight="bold").encode(
        x=x, y=y, text=alt.Text("code:Q", format=".3g"), tooltip=tip)
    step = tracked_rows.transform_calculate(step=EXPR_STEP).mark_text(  # under the row's end: clear of the code
        aria=False, align="right", baseline="top", dy=16, color=TEXT, fontSize=13).encode(
        x=alt.datum(1), y=y, text="step:N", tooltip=tip)
    return alt.layer(ticks, code, step).add_params(length).properties(
        height=160, title=f"Word {tracked}'s code p / N at two lengths")


def previous_gap_chart(lengths: np.ndarray, gap: np.ndarray, n: int) -> Figure:
    """The step between neighbouring codes, c(p) − c(p − 1) = 1/N, against the sentence length N (log axis), your
    sentence's length and the chapter's hundred words marked (what the strip's slider moves, the strip writes)."""
    N = np.asarray(lengths, dtype=float)
    g = np.asarray(gap, dtype=float)
    check_marks(N.size)
    hundred = chapter.LENGTH_EXAMPLE[2]
    marks = sorted({n, hundred})
    which = [" & ".join(w for w, v in (("your sentence", n), (f"the chapter's {hundred} words", hundred)) if v == m)
             for m in marks]
    return figure(_previous_gap_layout(),
                  {"gap": columns(N=N, gap=g), "marked": columns(N=[float(m) for m in marks],
                                                                 gap=[1 / m for m in marks], which=which),
                   "extent": columns(N=[float(N.min()), float(N.max()) * GAP_AXIS_ROOM])},  # the x range, as data
                  description=("The step between neighbouring codes, 1/N, against the sentence length N, on a "
                               "log axis: the longer the sentence, the smaller the step; your sentence's length "
                               "and the chapter's hundred words marked."),
                  reading=f"The step is {1 / n:.3g} in your {n} words and {1 / hundred:.3g} in {hundred}.")


@layout
def _previous_gap_layout() -> alt.LayerChart:
    """The 1/N curve on a log axis over the "extent" data (past the longest length, room for the labels), the
    marked lengths as labelled points."""
    x = alt.X("N:Q", scale=alt.Scale(type="log", nice=False), title="sentence length N (words, log scale)")
    y = alt.Y("gap:Q", title="c(p) − c(p−1)")
    tip = [alt.Tooltip("N:Q", title="length N"), alt.Tooltip("gap:Q", format=".4f", title="gap 1/N")]
    line = alt.Chart(named("gap")).mark_line(aria=False, color=SERIES[0]).encode(x=x, y=y, tooltip=tip)
    pts = alt.Chart(named("marked")).mark_point(aria=False, size=110, filled=True, color=FOCUS).encode(
        x=x, y=y, tooltip=tip + [alt.Tooltip("which:N")])
    text = alt.Chart(named("marked")).mark_text(aria=False, align="left", dx=8, dy=-8, color=FOCUS, fontSize=13).encode(
        x=x, y=y, text=alt.Text("gap:Q", format=".3g"))
    ends = axis_ends(x=x).mark_point(opacity=0, aria=False)  # the invisible layer stays out of the reading order
    return alt.layer(line, pts, text, ends).properties(height=220, title="The step to the previous word, 1/N")


# ---------------------------------------------------------------- 3. multiplying
POSITION = "fx_mpos"  # the in-chart position m of the key word (frame.live keeps it in the address)
POSITIONS = (1, 1000)  # its slider's ends
# The closed forms the browser evaluates as m moves (tests/test_client_expressions_fixes.py checks them against
# posenc.fixes.multiply_demo): each line runs from the key at position 1 to the key at m (at least 2, so a line is
# drawn; the rule stands at m itself), and a score is p times the score at position 1.
EXPR_END = f"max({POSITION}, 2)"
EXPR_P = f"datum.end ? {EXPR_END} : 1"
EXPR_SCORE = "datum.slope * datum.p"
EXPR_M_LABEL = f"'m = ' + {POSITION} + ': every score × ' + {POSITION}"


def multiply_lines(scores_at_1: np.ndarray, tokens: list[str], query_index: int, *, opening: int) -> Figure:
    """Score of every query word with the key word placed at position p, from p = 1 to the in-chart m
    (``POSITION``, no rerun): straight lines through 0, s(p) = p · s(1), whose slope is the meaning (q·k) and
    whose height is set by p. ``scores_at_1``: each query's score with the key at position 1. A select box
    inside the chart picks the query drawn in the focus colour (the rest stay thin, in the reference grey).
    ``opening``: the m the chart opens at, for its reading."""
    labels = word_labels(tokens)
    s1 = np.asarray(scores_at_1, dtype=float)
    n = len(labels)
    check_marks(2 * n)
    data = columns(query=categories(np.repeat(np.arange(n), 2), labels), end=np.tile([False, True], n),
                   slope=np.repeat(s1, 2))
    top = max(opening, 2)
    return figure(_multiply_lines_layout(labels, labels[query_index]),
                  {"lines": data, "m": columns(p=[0.0])},
                  description=("Scores of every query with the same key word placed at position p, up to the "
                               "position m set by the slider under the chart: straight lines through zero, so a "
                               "score's size grows with the position, not the meaning; a dashed rule at m, the "
                               "query picked below the chart in colour."),
                  reading=(f"The chart opens at m = {opening:,}: the key word is placed at positions 1 to {top:,}, "
                           f"and at position {top:,} the scores run from {float(s1.min()) * top:.3g} to "
                           f"{float(s1.max()) * top:.3g}."))


def multiply_spec(tokens: list[str], query_index: int) -> dict:
    """The multiply chart's layout as Vega-Lite, for a page to read the m it opens at (``frame.live.opening``)."""
    labels = word_labels(tokens)
    return _multiply_lines_layout(labels, labels[query_index]).spec()


@layout
def _multiply_lines_layout(labels: Sequence[str], picked: str) -> alt.LayerChart:
    """Every query's line in grey from p = 1 to m (a slider in the chart), the one picked in the in-chart menu
    (``picked`` at first) in FOCUS and labelled at its end, a dashed rule at m with what m does written by it."""
    labels = list(labels)
    pick = alt.param(name="fx_query", value=picked,
                     bind=alt.binding_select(options=labels, name="highlighted query: "))
    m = alt.param(name=POSITION, value=chapter.MULTIPLY_POSITIONS[1],
                  bind=alt.binding_range(min=POSITIONS[0], max=POSITIONS[1], step=1,
                                         name="position m of the key word "))
    x = alt.X("p:Q", title="position p of the key word", scale=alt.Scale(zero=True, nice=False))
    y = alt.Y("score:Q", title="score s(p)", scale=alt.Scale(zero=True))
    tip = [alt.Tooltip("query:N"), alt.Tooltip("p:Q", title="key position p"),
           alt.Tooltip("score:Q", format=".4g")]
    base = alt.Chart(named("lines")).transform_calculate(p=EXPR_P).transform_calculate(score=EXPR_SCORE)
    lines = base.mark_line(aria=False, strokeWidth=1.2, color=REFERENCE, opacity=0.6).encode(
        x=x, y=y, detail="query:N", tooltip=tip).add_params(pick, m)
    focus = base.transform_filter(alt.datum.query == pick).mark_line(aria=False, strokeWidth=4, color=FOCUS).encode(
        x=x, y=y, tooltip=tip)
    end = (base.transform_filter(alt.datum.end).transform_filter(alt.datum.query == pick)
           .mark_text(aria=False, align="right", dx=-4, dy=-10, color=FOCUS, fontSize=13, fontWeight="bold")
           .encode(x=x, y=y, text="query:N"))
    at_m = alt.Chart(named("m")).transform_calculate(p=POSITION, label=EXPR_M_LABEL)  # the rule at m itself
    rule = at_m.mark_rule(aria=False, color=REFERENCE, strokeDash=[4, 3]).encode(
        x=x, tooltip=[alt.Tooltip("label:N", title="position")])
    said = at_m.mark_text(aria=False, align="right", dx=-6, y=8, color=TEXT, fontSize=13).encode(
        x=x, text="label:N", tooltip=[alt.Tooltip("label:N", title="position")])
    return alt.layer(lines, rule, said, focus, end).properties(height=300,
                                                              title="Scores with the key word at position p")


def multiply_table(tokens: list[str], scores_1: np.ndarray, scores_m: np.ndarray, cos_1: np.ndarray,
                   cos_m: np.ndarray, position: int) -> pa.Table:
    """Per query: the score with the key word at position 1 and at m, their ratio, and the cosines."""
    ratio = np.divide(scores_m, scores_1, out=np.full(len(scores_1), np.nan), where=scores_1 != 0)
    return columns(**{
        "query (position word)": word_labels(tokens),
        "score, key at p = 1": scores_1,
        f"score, key at p = {position}": scores_m,
        "ratio": ratio,
        "cos(q, k), key at p = 1": cos_1,
        f"cos(q, k), key at p = {position}": cos_m,
    })


# ---------------------------------------------------------------- 4. one-hot
WIDTH = "fx_width"  # the in-chart one-hot width N (frame.live keeps it in the address)
WIDTHS = (1, 1000)  # its slider's ends
PAST = "fx_past"  # the in-chart position p asked for
PASTS = (1, 2000)  # its slider's ends
WIDTH_OPENS = 8  # the chart opens at a table 8 columns wide …
PAST_OPENS = WIDTH_OPENS + 1  # … asked for the first position past it
SHOWN = ONE_HOT_SHOWN  # the grid the chart ships: positions 1 … SHOWN (it draws 1 … min(N, SHOWN))
ONEHOT_PANELS = ("code e_p", "‖e_p − e_q‖")  # the two panels' names (short: a phone shows both)
ONEHOT_KEY = "black: a 1 · blue: √2 apart (light: 0) · outlined: row p"  # the colours, in the subtitle
# What the browser evaluates as N and p move (tests/test_client_expressions_fixes.py checks it against
# posenc.fixes.one_hot / one_hot_demo): the grid's cells that exist in a table N wide, the row asked for, and the
# lines under the map. The cells' codes, distances and row names do not move with N or p: posenc computes them.
EXPR_OH_EXISTS = f"datum.p <= {WIDTH} && datum.q <= {WIDTH}"
EXPR_OH_ASKED = f"datum.p === {PAST}"
EXPR_OH_PAST_NOTE = (f"{PAST} <= {WIDTH} ? 'p = ' + format({PAST}, ',d') + ' → a 1 in column ' + "
                     f"format({PAST}, ',d') + ' of N = ' + format({WIDTH}, ',d') : 'p = ' + format({PAST}, ',d') "
                     f"+ ' is past column N = ' + format({WIDTH}, ',d') + ': no code'")
EXPR_OH_FIT_NOTE = (f"'your ' + datum.n + ' words ' + (datum.n <= {WIDTH} ? 'fit in' : 'do not fit in') + "
                    f"' N = ' + format({WIDTH}, ',d') + ({WIDTH} === 1 ? ' column' : ' columns')")
EXPR_OH_SHOWN_NOTE = f"{WIDTH} > {SHOWN} ? 'positions 1 … {SHOWN} of N = ' + format({WIDTH}, ',d') + ' shown' : ''"
NOTE_LINE = 17  # px between the lines under the map (× PRESENT_TEXT while projecting)


def onehot_figure(tokens: list[str], oh: OneHot) -> Figure:
    """One-hot positions in one chart with two sliders inside it, the width N (``WIDTH``) and a position p
    (``PAST``), no rerun: for positions 1 … min(N, SHOWN), each position's code (a 1 in its own column) beside the
    distances between the codes (√2 off the diagonal), rows named by your words; the row of p outlined; under the
    map, whether p has a code, whether your sentence fits in N columns, how many positions are shown. The data
    are the same at every N and p (a fixed grid); ``oh``: the numbers where the chart opens, for its reading."""
    n, k = len(tokens), SHOWN
    check_marks(k * k + 1)
    p, q = np.repeat(np.arange(1, k + 1, dtype=np.int16), k), np.tile(np.arange(1, k + 1, dtype=np.int16), k)
    codes = one_hot(np.arange(1, k + 1), k)  # e_1 … e_k; the browser keeps the columns within N
    names = word_labels(tokens[:k]) + [str(i) for i in range(n + 1, k + 1)]  # '3 chased'; past your words, '9'
    grid = columns(p=p, q=q, row=categories(p - 1, names), code=codes.ravel(),
                   distance=pair_distances(codes).ravel())
    shown = oh.shown
    off = oh.distances[~np.eye(shown, dtype=bool)]
    apart = ("a table one column wide has no two different positions" if off.size == 0 else
             f"every distance off the diagonal is {off.min():.6f}" if off.min() == off.max() else
             f"the distances off the diagonal run from {off.min():.6f} to {off.max():.6f}")
    fit = "fit" if oh.sentence_error is None else "do not fit"
    past = (f"position {oh.past:,} is past column {oh.width:,}: it has no code" if oh.past_error else
            f"position {oh.past:,} is a 1 in column {oh.past:,}")
    return figure(_onehot_layout(), {"grid": grid, "notes": columns(n=[n])}, description=(
        "One-hot codes for the positions of a table N columns wide, set by the sliders under the chart with the "
        "position p asked for: each position's code is a single 1 in its own column, and every two different "
        "positions' codes are √2 apart, neighbours as far as strangers; a position past N has no code."),
        reading=(f"The chart opens at N = {oh.width:,} and p = {oh.past:,}: positions 1 to {shown} shown, {apart}; "
                 f"your {n} words {fit} in {count(oh.width, 'column')}; {past}."))


def onehot_spec() -> dict:
    """The one-hot chart's layout as Vega-Lite, for a page to read the N and p it opens at
    (``frame.live.opening``: the address's when a link carries them)."""
    return _onehot_layout().spec()


@layout
def _onehot_layout() -> alt.LayerChart:
    """Two panels as bands of the x axis (the codes, the distances), the grid's cells within N, rows the
    positions (named by the data's words); the row of p outlined in FOCUS; three lines under the map."""
    width = alt.param(name=WIDTH, value=WIDTH_OPENS,
                      bind=alt.binding_range(min=WIDTHS[0], max=WIDTHS[1], step=1, name="one-hot width N "))
    past = alt.param(name=PAST, value=PAST_OPENS,
                     bind=alt.binding_range(min=PASTS[0], max=PASTS[1], step=1, name="encode position p "))
    x = alt.X("panel:N", sort=list(ONEHOT_PANELS), title=None, scale=alt.Scale(paddingInner=0.08),
              axis=alt.Axis(orient="top", labelAngle=0, labelFontWeight="bold", labelLimit=400, ticks=False,
                            domain=False))
    x_off = alt.XOffset("q:O", title=None)
    y = alt.Y("row:N", sort=alt.EncodingSortField("p", op="min"), title="position p",
              axis=alt.Axis(labelOverlap=True, labelLimit=90))
    cells = alt.Chart(named("grid")).transform_filter(EXPR_OH_EXISTS)
    codes = cells.transform_calculate(panel=f"'{ONEHOT_PANELS[0]}'").mark_rect(
        aria=False, stroke="white", strokeWidth=0.5).encode(
        x=x, xOffset=x_off, y=y,
        color=alt.condition("datum.code === 1", alt.value(TEXT), alt.value("#eeeeee")),
        tooltip=[alt.Tooltip("row:N", title="position p"), alt.Tooltip("q:O", title="column"),
                 alt.Tooltip("code:Q", format=".0f", title="value")]).add_params(width, past)
    dist = cells.transform_calculate(panel=f"'{ONEHOT_PANELS[1]}'").mark_rect(aria=False).encode(
        x=x, xOffset=x_off, y=y,
        color=alt.Color("distance:Q", scale=alt.Scale(scheme=SEQUENTIAL, domain=[0, math.sqrt(2)]),
                        legend=None),  # the subtitle says what the colours are
        tooltip=[alt.Tooltip("row:N", title="position p"), alt.Tooltip("q:O", title="position q"),
                 alt.Tooltip("distance:Q", format=".6f")])
    asked = [cells.transform_filter(EXPR_OH_ASKED).transform_calculate(panel=f"'{name}'").mark_rect(
        aria=False, filled=False, stroke=stroke, strokeWidth=width_px).encode(
        x=x, xOffset=x_off, y=y, tooltip=[alt.Tooltip("row:N", title="position p (asked)")])
        for name in ONEHOT_PANELS for stroke, width_px in (("white", 5), (FOCUS, 2.5))]  # FOCUS on a white halo:
    # it stands out from the grey codes and the dark distances alike
    notes = alt.Chart(named("notes")).transform_calculate(
        past=EXPR_OH_PAST_NOTE, fit=EXPR_OH_FIT_NOTE, shown=EXPR_OH_SHOWN_NOTE)

    def line(field: str, k: int, **style) -> alt.Chart:
        at = {"expr": f"height + {NOTE_LINE - 3} + {k} * ({PRESENTING} ? {NOTE_LINE * PRESENT_TEXT:.4g} : {NOTE_LINE})"}
        return notes.mark_text(aria=False, align="left", baseline="top", x=0, y=at, fontSize=13, **style).encode(
            text=f"{field}:N")

    return alt.layer(codes, dist, *asked, line("past", 0, color=FOCUS, fontWeight="bold"),
                     line("fit", 1, color=TEXT), line("shown", 2, color=TEXT)).properties(
        height=280, title=alt.TitleParams("One-hot codes, and how far apart they sit", subtitle=ONEHOT_KEY))


# ---------------------------------------------------------------- the summary
def _fmt(v: float) -> str:
    if math.isnan(v):
        return "—"
    if v == int(v) and abs(v) < 1e9:
        return f"{int(v):,}"
    return f"{v:.3g}"


def summary_frame(verdicts: list, short: int, length: int, p: int = 3, far: int = 50) -> pa.Table:
    """The five wishes (rows, each with its computed test) against the four fixes (columns): "meets it" or
    "fails", and the numbers behind each."""
    q = min(p + far, length)
    tests = {
        "unique": f"unique — distinct codes among p = 1 … {length}",
        "bounded": f"bounded — largest ‖c(p)‖ in {short} words → in {length} words",
        "same meaning at every length": f"same meaning at every length — ‖c({p}) in {short} words − c({p}) "
                                        f"in {length} words‖",
        "neighbours close": f"neighbours close — ‖c({p}) − c({p + 1})‖ < ‖c({p}) − c({q})‖",
        "defined past the longest sentence": f"defined past the longest sentence — code of p = {length + 1} "
                                             f"with tables for {length}",
    }
    table: dict[str, dict[str, str]] = {}
    for v in verdicts:
        mark = "meets it:" if v.passed else "fails:"
        if v.wish == "unique":
            cell = f"{mark} {_fmt(v.left)} of {_fmt(v.right)}"
        elif v.wish == "bounded":
            cell = f"{mark} {_fmt(v.left)} → {_fmt(v.right)}"
        elif v.wish == "same meaning at every length":
            cell = f"{mark} {_fmt(v.left)}"
        elif v.wish == "neighbours close":
            cell = f"{mark} {_fmt(v.left)} vs {_fmt(v.right)}"
        else:
            cell = f"{mark} ‖c‖ = {_fmt(v.right)}" if v.passed else f"{mark} no column {_fmt(v.left)}"
        table.setdefault(tests[v.wish], {})[v.fix] = cell
    fixes = list(dict.fromkeys(fix for row in table.values() for fix in row))
    return columns(**{"wish (the computed test)": list(table),
                      **{fix: [row.get(fix, "") for row in table.values()] for fix in fixes}})

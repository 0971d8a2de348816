"""Charts for the RoPE page (arrays in, ``spec.Figure`` out): the score window, each pair on its circle, lengths.

Every builder goes through ``spec.figure`` with named datasets; in-chart params re-slice data already sent.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pyarrow as pa

from .. import chapter
from ..core import count, signed
from ..encodings import MAX_POSITION
from . import spec

SCHEMES = ("RoPE", "adding sinusoids")  # the window heatmap's two score matrices, picked in the chart
SCHEME = "rp_scheme"  # that pick's param (frame.live keeps it in the address)
WINDOW_HEIGHT = 280  # the plot itself (autosize fit-x: title, axes and legend come on top of it)
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
                 scheme: str = SCHEMES[0], spreads: tuple[float, float, float] | None = None) -> spec.Figure:
    """The score of one query word at m against one key word at n, for every (m, n) of the window: one row per
    cell (40 × 40) carries both RoPE's and the additive scheme's score, and the tooltip's texts formatted here; a
    radio inside the chart picks which score is drawn. RoPE's colours run along the diagonals (same gap n − m);
    the additive scheme's change along them."""
    pos = np.asarray(positions, dtype=np.int64)
    w = pos.size
    mm, nn = (a.ravel() for a in np.meshgrid(pos, pos, indexing="ij"))
    by_scheme = dict(zip(SCHEMES, (np.asarray(rope_scores, float).ravel(), np.asarray(additive_scores, float).ravel())))
    every = np.concatenate(list(by_scheme.values()))
    top = spec.nice_bound(float(np.max(np.abs(every))) if every.size else 0.0)  # few values: the layout is reused
    chart = _window_layout(w, top, scheme)
    title = f"Score at (m, n), positions {pos[0]:,} … {pos[-1]:,}" if w else "Score at (m, n)"
    texts = {f"{s} text": [signed(v, ".6f") for v in by_scheme[s]] for s in SCHEMES}  # as d3 writes them
    data = {"main": spec.columns(m=mm, n=nn, **by_scheme, m_text=_texts(mm), n_text=_texts(nn),
                                 gap_text=_texts(nn - mm), **texts,
                                 title=spec.categories(np.zeros(mm.size, dtype=int), [title]))}
    if spreads is None:
        spreads = (_diag(rope_scores), float(np.ptp(rope_scores, axis=1).max()) if w else 0.0,
                   _diag(additive_scores))
    diag, row, add = spreads
    reading = (f"Here positions {pos[0]:,} to {pos[-1]:,}: with RoPE the score changes by at most {diag:.1e} along "
               f"any diagonal and by up to {row:.2f} along a row; adding sinusoids, it changes by up to {add:.2f} "
               "along a diagonal." if w else "The window holds no positions.")
    return spec.figure(chart, data, description=(
        f"Score of the query word at m against the key word at n, for {count(w, 'query position')} and as many key "
        "positions; each diagonal is one gap n − m. With RoPE the score depends on the gap alone, so each diagonal "
        "keeps one colour. A radio in the chart picks the scheme: RoPE or adding sinusoids."),
        reading=reading)


def _texts(values: np.ndarray) -> pa.DictionaryArray:
    """Whole numbers as the chart's d3 ``format(v, ',d')`` writes them, each distinct text stored once."""
    distinct, codes = np.unique(values, return_inverse=True)
    return spec.categories(codes, [signed(int(v), ",d") for v in distinct])


def _diag(S: np.ndarray) -> float:
    """The largest change along a diagonal of S (same n − m)."""
    S = np.asarray(S, float)
    if not S.size:
        return 0.0
    return max(float(np.ptp(np.diagonal(S, offset=o))) for o in range(-(S.shape[0] - 1), S.shape[1]))


def _window_pick(suffix: str = "") -> str:
    """The row's column of the picked scheme (``suffix``: that column's formatted twin, e.g. " text")."""
    a, b = SCHEMES
    return f"{SCHEME} === {a!r} ? datum[{a + suffix!r}] : datum[{b + suffix!r}]"


#: the score the window's pick colours a cell by, from its row (one column per scheme)
WINDOW_PICK = _window_pick()
#: the cell's tooltip, line by line: texts sent formatted, the picked score's among them
WINDOW_TIPS = {"scheme": SCHEME, "query position m": "datum.m_text", "key position n": "datum.n_text",
               "gap n − m": "datum.gap_text", "score": _window_pick(" text")}
#: that tooltip as the one small object a cell builds in the browser a frame
WINDOW_TIP = "{" + ", ".join(f"{k!r}: {v}" for k, v in WINDOW_TIPS.items()) + "}"


@spec.layout
def _window_layout(count: int, top: float, scheme: str) -> alt.Chart:
    """The window's heatmap over ``count`` positions (which ones, and the title naming them, come with the data;
    axis labels at every 5th and the last), colours from −top to top, the scheme picked in the chart (``scheme``
    at first)."""
    pick = alt.param(name=SCHEME, value=scheme,
                     bind=alt.binding_radio(options=list(SCHEMES), name="Score with: "))
    axis_n = alt.Axis(values=_ticks(count, "x"), labelAngle=0, labelOverlap=True, format=",d")
    axis_m = alt.Axis(values=_ticks(count, "y"), labelOverlap=True, format=",d")
    # a pick redraws 1,600 cells: each one's work a frame is one calculate (its colour's score) and one small
    # tooltip object of texts sent formatted; no pivot, filter or format runs in the browser
    return (
        alt.Chart(spec.named("main"))
        .mark_rect(aria=False, tooltip=alt.expr(WINDOW_TIP))
        .encode(
            x=alt.X("n:O", title="key position n", axis=axis_n),
            y=alt.Y("m:O", title="query position m", axis=axis_m),
            color=alt.Color("score:Q", title="score",
                            scale=alt.Scale(scheme=spec.DIVERGING, domain=[-top, top]),
                            legend=alt.Legend(orient="right", direction="vertical",
                                              gradientLength=WINDOW_HEIGHT - 60)),
        )
        .add_params(pick)
        .transform_calculate(score=WINDOW_PICK)
        .properties(height=WINDOW_HEIGHT, title=alt.TitleParams(spec.text_from("main", "title")))
    )


# ---------------------------------------------------------------- the pairs, turning in the browser
# The circle chart's in-chart controls (names carry the page's prefix: frame.live keeps them in the address).
KEY_POSITION, GAP, PAIR = "rp_n", "rp_gap", "rp_pair"
N_MAX = 4000  # the key-position slider's end: the chapter's far pair (4000, 3997) is on it
GAP_MIN = -20  # gap n − m from −20 to 0: the key sits at or before the query, so m = n − gap ≥ n ≥ 0
READOUT_PAIR = "'pair i = ' + datum.pair + ' of 0 … ' + datum.last + ' · θᵢ = ' + format(datum.theta, '.3~g')"
READOUT_ANGLE = f"'gap n − m = ' + format({GAP}, 'd') + ' · angle q → k ' + format(datum.angle, '.3f') + ' rad'"
READOUT_SCORE = "'score (all pairs) ' + format(datum.score, '.6f')"


def turned_expressions() -> dict[str, str]:
    """The closed forms the circle chart evaluates in the browser (Vega expressions over one row per pair:
    ``theta`` θ_i, ``qa``/``qb`` and ``ka``/``kb`` the pair of q and of k before turning, ``root`` √d), with
    m = n − gap: the query position, q turned by m·θ_i, k by n·θ_i, their dot product over √d (summed over the
    pairs it is the score), and the angle from q's pair to k's, wrapped to (−π, π]. tests/
    test_client_expressions_rope.py mirrors each in Python against ``posenc``."""
    m = f"({KEY_POSITION} - {GAP})"
    return {
        "m": m,
        "qx": f"datum.qa * cos({m} * datum.theta) - datum.qb * sin({m} * datum.theta)",
        "qy": f"datum.qa * sin({m} * datum.theta) + datum.qb * cos({m} * datum.theta)",
        "kx": f"datum.ka * cos({KEY_POSITION} * datum.theta) - datum.kb * sin({KEY_POSITION} * datum.theta)",
        "ky": f"datum.ka * sin({KEY_POSITION} * datum.theta) + datum.kb * cos({KEY_POSITION} * datum.theta)",
        "dot": "(datum.qx * datum.kx + datum.qy * datum.ky) / datum.root",
        "angle": "PI - ((((PI - (atan2(datum.ky, datum.kx) - atan2(datum.qy, datum.qx))) % (2 * PI)) + 2 * PI)"
                 " % (2 * PI))",
    }


PAIR_OPEN = 0.5  # where the pair slider opens, from the fastest pair (0) to the slowest (1): see pair_index
PAIR_STEP = 1 / 255  # the widest d (512) has 256 pairs: one step a pair there
PAIR_PICK = f"floor({PAIR} * datum.last + 0.5)"  # the pair index the slider picks (JavaScript's Math.round)


def pair_index(fraction: float, half: int) -> int:
    """The pair the slider's ``fraction`` picks among ``half`` pairs, as the browser rounds it (half up).

    The slider runs over the pairs as a fraction, fastest (0) to slowest (1), so its layout is the same at every
    d. Half way, θ_i = base^(−i·2/d) ≈ base^(−1/2) = 0.01 radians a position at every d: while play sweeps n
    over 0 … N_MAX in a few seconds that pair turns a few degrees a frame, where pair 0 (a radian a position)
    would spin past the eye."""
    return int(np.floor(fraction * (half - 1) + 0.5))


def pair_circles(thetas: np.ndarray, q_pairs: np.ndarray, k_pairs: np.ndarray, *, n: int, gap: int,
                 score: float, pair: float = PAIR_OPEN) -> spec.Figure:
    """Pair i of q and of k on their circles, turned in the browser: three sliders inside the chart pick the
    key position n, the gap n − m and the pair i; the turned points, the angle between them and the score (the
    sum over every pair, ``turned_expressions``) are computed from the shipped pairs as the sliders move, so a
    drag redraws with no rerun and the play button turns q and k together. Hollow points: the pairs before
    turning. One row per pair is sent (d/2 rows) and a 73-point unit circle.

    ``n``, ``gap``, ``pair`` (a fraction, ``pair_index``): where the sliders open; ``score`` the score there
    (from ``posenc``, for the reading). The axes keep one unit = one unit on screen at any width (the x domain
    follows the width/height ratio) and reach ±R, R = ``circle_reach`` of the longest pair (every point the sliders
    reach, with a little room), the value of the unbound param BOUND set in the figure's own copy of the spec, so
    every seed, word and d reuses the one layout."""
    half = len(thetas)
    qp, kp = np.asarray(q_pairs, float), np.asarray(k_pairs, float)
    q_len, k_len = np.hypot(*qp.T), np.hypot(*kp.T)
    R = circle_reach(float(max(q_len.max(), k_len.max())))
    pairs = spec.columns(pair=np.arange(half), theta=np.asarray(thetas, float), qa=qp[:, 0], qb=qp[:, 1],
                         ka=kp[:, 0], kb=kp[:, 1], qlen=q_len, klen=k_len, root=np.full(half, np.sqrt(2 * half)),
                         zero=np.zeros(half), last=np.full(half, half - 1))
    t = np.linspace(0, 2 * np.pi, 73)
    unit = spec.columns(t=t, order=np.arange(t.size), last=np.full(t.size, half - 1))
    pair = float(min(max(pair, 0.0), 1.0))
    chart = _circles_layout()
    fig = spec.figure(chart, {"pairs": pairs, "unit": unit}, description=(
        "Pair i of q and of k on their circles, hollow before turning and filled after: q turns by m·θ_i and k by "
        "n·θ_i, so when both positions move together the angle between them stays the same and so does the score. "
        "Sliders in the chart move the key position n, the gap n − m and the pair."),
        reading=(f"The chart opens on pair {pair_index(pair, half)}, the key at n = {n:,} and the query at "
                 f"m = {n - gap:,} (gap {signed(gap)}), where the score is {signed(score, '.6f')}."))
    return _seed(fig, {KEY_POSITION: int(n), GAP: int(gap), PAIR: pair, BOUND: R})


def circles_spec() -> dict:
    """The circle chart's layout as Vega-Lite, for a page to read where the chart opens: its bound params carry
    each slider's min, max and step, the inputs ``frame.chart`` seeds from the address (``frame.live.parse``)."""
    return _circles_layout().spec()


def _seed(fig: spec.Figure, values: dict) -> spec.Figure:
    """The figure with its bound params opening at ``values`` (the layout is built with their first values;
    the figure's spec is its own copy, so setting them here keeps one layout for every opening state)."""
    for p in fig.spec.get("params", []) + [p for layer in fig.spec.get("layer", []) for p in layer.get("params", [])]:
        if p.get("name") in values:
            p["value"] = values[p["name"]]
    return fig


# The circle chart's axis reach R: a param with no input, its value set per figure. (It was read from a one-row
# dataset, data('bound')[0].R; the browser evaluated the scales before Streamlit inserted the data, threw, and
# left the chart blank — and once guarded, the domain never followed the data in.)
BOUND = "rp_reach"
REACH_ROOM = 1.1  # the axes reach at least this much past the longest pair (every pair the slider picks fits)


def circle_reach(longest: float) -> float:
    """The circle chart's axis reach R for pairs at most ``longest`` long: the ``nice_bound`` rung over REACH_ROOM ×
    ``longest`` (a few rungs over a class, so moving the seed or d keeps few layouts; tests/test_layout_stable.py).
    A typical pair is a third of the longest: 1.25 × put a 2.7 pair's axes at ±4, and its circle was small."""
    return spec.nice_bound(REACH_ROOM * float(longest))


def _font(normal: int) -> str:
    """A text size as a Vega expression: ``normal`` out of presentation mode, grown as the axes' text is in it."""
    return f"({spec.PRESENTING} ? {round(normal * spec.PRESENT_TEXT)} : {normal})"


def _steps(extent: str, per_label: float) -> alt.ExprRef:
    """Tick values for an axis from −``extent`` to ``extent`` (axis units, a Vega expression), a step of 0.5, 1, 2,
    5 or 10 units: the smallest that leaves ``per_label`` × the text size between labels (one unit is
    height / 2R px on both axes). Projected, the wide plot reached ±9 in ones and its end labels touched."""
    unit = f"(height / (2 * {BOUND}))"
    gap = f"({per_label} * {_font(13)})"
    step = " : ".join(f"{unit} * {s} >= {gap} ? {s}" for s in (0.5, 1, 2, 5)) + " : 10"
    return alt.expr(f"sequence(-floor(({extent}) / ({step})) * ({step}), "
                    f"floor(({extent}) / ({step})) * ({step}) + ({step}) / 2, ({step}))")


# The turned points' labels (q's and k's): each sits just above or below its point, never on it. When the two
# points are near in height (less than LABEL_APART px), the upper point's label goes above it and the lower's below
# it, so the two labels and both points stand in separate bands; further apart, each goes outwards (above a point
# in the upper half, below one in the lower). Horizontally each label leans outwards along its own angle.
LABEL_OFF = 11  # px from the point's centre to its label's near edge (a filled point's radius is 6.5 px)
LABEL_APART = f"(2 * {LABEL_OFF} + 2 * {_font(13)} + 16)"


def label_marks(v: str) -> dict[str, str]:
    """The Vega expressions placing the label of the turned point ``v`` ("q" or "k") over one row of the circle
    chart (the turned ``qx``… and the lengths): ``up`` (1 above its point, 0 below), ``align``, ``dx``, ``dy``,
    ``baseline``. tests/test_client_expressions_rope.py evaluates them at every angle."""
    w = "k" if v == "q" else "q"
    upper = f"(datum.{v}y > datum.{w}y || (datum.{v}y == datum.{w}y && {'true' if v == 'q' else 'false'}))"
    apart = f"(abs(datum.qy - datum.ky) * height / (2 * {BOUND}) >= {LABEL_APART})"
    up = f"({apart} ? datum.{v}y >= 0 : {upper})"
    cos = f"(datum.{v}x / max(datum.{v}len, 1e-9))"
    return {"up": up,
            "align": f"{cos} > 0.38 ? 'left' : {cos} < -0.38 ? 'right' : 'center'",
            "dx": f"{cos} > 0.38 ? 2 : {cos} < -0.38 ? -2 : 0",
            "dy": f"{up} ? -{LABEL_OFF} : {LABEL_OFF}",
            "baseline": f"{up} ? 'bottom' : 'top'"}


@spec.layout
def _circles_layout() -> alt.LayerChart:
    """The circles, spokes and points of the pair picked in the chart, on axes from −R to R (R the param BOUND; x
    widened by the width/height ratio), with the readouts (positions, angle, score) in the plot's top-left
    corner."""
    n_in = alt.param(name=KEY_POSITION, value=int(chapter.PAIRS[0][1]),
                     bind=alt.binding_range(min=0, max=N_MAX, step=1, name="key position n "))
    gap_in = alt.param(name=GAP, value=int(chapter.PAIRS[0][1] - chapter.PAIRS[0][0]),
                       bind=alt.binding_range(min=GAP_MIN, max=0, step=1, name="gap n − m "))
    pair_in = alt.param(name=PAIR, value=PAIR_OPEN,
                        bind=alt.binding_range(min=0, max=1, step=PAIR_STEP, name="pair: fastest 0 … 1 slowest "))
    aspect = "(width / max(height, 1))"
    xs = alt.Scale(domain=[alt.ExprRef(f"-{BOUND} * {aspect}"), alt.ExprRef(f"{BOUND} * {aspect}")], nice=False,
                   zero=False)
    ys = alt.Scale(domain=[alt.ExprRef(f"-{BOUND}"), alt.ExprRef(BOUND)], nice=False, zero=False)
    ex = turned_expressions()
    blue, orange = spec.SERIES[0], spec.SERIES[1]

    def X(f: str, title=None) -> alt.X:
        if title is None:
            return alt.X(f"{f}:Q", scale=xs, title=None)
        return alt.X(f"{f}:Q", scale=xs, title=title, axis=alt.Axis(values=_steps(f"{BOUND} * {aspect}", 2.6), format="~g"))

    def Y(f: str, title=None) -> alt.Y:
        if title is None:
            return alt.Y(f"{f}:Q", scale=ys, title=None)
        return alt.Y(f"{f}:Q", scale=ys, title=title, axis=alt.Axis(values=_steps(BOUND, 2), format="~g"))

    unit = (alt.Chart(spec.named("unit"))
            .transform_calculate(pair=PAIR_PICK)
            .transform_lookup(lookup="pair", from_=alt.LookupData(data=spec.named("pairs"), key="pair",
                                                                  fields=["qlen", "klen"])))
    q_circle = unit.transform_calculate(cx="datum.qlen * cos(datum.t)", cy="datum.qlen * sin(datum.t)").mark_line(
        strokeWidth=1.5, color=blue, aria=False).encode(
        x=X("cx", "first coordinate of the pair (x₂ᵢ)"), y=Y("cy", "second (x₂ᵢ₊₁)"),
        order=alt.Order("order:Q"))
    k_circle = unit.transform_calculate(cx="datum.klen * cos(datum.t)", cy="datum.klen * sin(datum.t)").mark_line(
        strokeWidth=1.5, color=orange, strokeDash=list(spec.DASHES[1]), aria=False).encode(
        x=X("cx"), y=Y("cy"), order=alt.Order("order:Q"))
    base = alt.Chart()  # the turned pair's marks share one data flow (the parent layer's, below)
    tips = [alt.Tooltip("pair:Q", title="pair i (0-based)"),
            alt.Tooltip("theta:Q", title="θ_i (rad per position)", format=".6g"),
            alt.Tooltip("angle:Q", title="angle q → k (rad)", format=".4f"),
            alt.Tooltip("score:Q", title="score (all pairs)", format=".6f")]
    spoke_q = base.mark_rule(strokeWidth=2, color=blue, aria=False).encode(
        x=X("zero"), y=Y("zero"), x2=alt.X2("qx"), y2=alt.Y2("qy"))
    spoke_k = base.mark_rule(strokeWidth=2, color=orange, strokeDash=list(spec.DASHES[1]), aria=False).encode(
        x=X("zero"), y=Y("zero"), x2=alt.X2("kx"), y2=alt.Y2("ky"))
    before_q = base.mark_point(size=80, strokeWidth=2, filled=False, color=blue, shape="circle",
                               aria=False).encode(x=X("qa"), y=Y("qb"), tooltip=tips)
    before_k = base.mark_point(size=80, strokeWidth=2, filled=False, color=orange, shape="square",
                               aria=False).encode(x=X("ka"), y=Y("kb"), tooltip=tips)
    after_q = base.mark_point(size=170, filled=True, opacity=1, color=blue, shape="circle",
                              aria=False).encode(x=X("qx"), y=Y("qy"), tooltip=tips)
    after_k = base.mark_point(size=170, filled=True, opacity=1, color=orange, shape="square",
                              aria=False).encode(x=X("kx"), y=Y("ky"), tooltip=tips)
    def label(v: str, text: str, colour: str) -> list[alt.Chart]:
        """The label on its white halo (a text layer under it): a circle or a spoke never strikes it through."""
        at = label_marks(v)
        look = dict(fontWeight="bold", fontSize=13, aria=False, align=alt.expr(at["align"]),
                    baseline=alt.expr(at["baseline"]), dx=alt.expr(at["dx"]), dy=alt.expr(at["dy"]))
        src = base.transform_calculate(text=text)
        enc = dict(x=X(f"{v}x"), y=Y(f"{v}y"), text=alt.Text("text:N"))
        return [src.mark_text(**look, **spec.HALO).encode(**enc),
                src.mark_text(**look, color=colour).encode(**enc)]

    label_q = label("q", "'q at m = ' + format(datum.m, ',d')", blue)
    label_k = label("k", f"'k at n = ' + format({KEY_POSITION}, ',d')", orange)
    readouts = [base.transform_calculate(text=text).mark_text(
        align="left", baseline="top", fontWeight="bold", color=spec.TEXT, aria=False).encode(
        x=alt.value(4), y=alt.value(y), text=alt.Text("text:N"))
        for y, text in ((4, READOUT_PAIR), (24, READOUT_ANGLE), (44, READOUT_SCORE))]
    turned = (alt.layer(spoke_q, spoke_k, before_q, before_k, after_q, after_k, *label_q, *label_k, *readouts,
                        data=spec.named("pairs"))
              .transform_calculate(m=ex["m"], qx=ex["qx"], qy=ex["qy"], kx=ex["kx"], ky=ex["ky"])
              .transform_calculate(dot=ex["dot"])
              .transform_joinaggregate(score="sum(dot)")
              .transform_filter(f"datum.pair == {PAIR_PICK}")
              .transform_calculate(angle=ex["angle"]))  # computed once a frame for all twelve marks
    return alt.layer(q_circle, k_circle, turned).add_params(n_in, gap_in, pair_in, alt.param(
        name=BOUND, value=1.0)).properties(
        height=CIRCLE_HEIGHT,
        title=alt.TitleParams("Pair i of q and of k, turned by their positions",
                              subtitle="Hollow: before turning. Filled: q turned by m·θᵢ, k by n·θᵢ."))


# ---------------------------------------------------------------- lengths: the query word at a position m in the chart
LENGTH_M = "rp_p"  # the in-chart position m of the query word (frame.live keeps it in the address)
# Its slider's ends. Vega draws the slider some 150-180 px wide (a laptop, a phone): over 1 … MAX_POSITION
# (10,000,000) a pixel would be ~60,000 positions, and on the chart's log axis everything below that — two thirds of
# it, the chapter's 500 among it — could not be reached by dragging. Over 1 … 10,000 a pixel is ~60 positions (the
# arrow keys move one): the drag reaches the chapter's 500 and the circles' 4,000, and at 10,000 the raw index's
# coordinate is already over a thousand word lengths. The curves still run to MAX_POSITION (the page's check covers
# every position on them); a link may carry any whole m in range.
LENGTH_MS = (1, 10_000)
LABEL_FLIP = 5  # below this m the raw index's value is written right of its point, from it on left of it


def length_expressions() -> dict[str, str]:
    """The closed forms the lengths chart evaluates in the browser as m moves, over one row per pair (``theta``
    θ_i, ``qa``/``qb`` q's pair before turning, ``xnorm`` ‖x‖): q's pair turned by m·θ_i, its squared length, then
    (after ``total``, the sum over the pairs) the turned q's length and the raw index's ‖[x ; m]‖, and their
    texts. tests/test_client_expressions_rope.py mirrors each in Python against ``posenc``."""
    m = LENGTH_M
    return {
        "qx": f"datum.qa * cos({m} * datum.theta) - datum.qb * sin({m} * datum.theta)",
        "qy": f"datum.qa * sin({m} * datum.theta) + datum.qb * cos({m} * datum.theta)",
        "sq": "datum.qx * datum.qx + datum.qy * datum.qy",
        "position": m,
        "rope": "sqrt(datum.total)",
        "raw": f"sqrt(datum.xnorm * datum.xnorm + {m} * {m})",
        "rope_text": "format(datum.rope, '.3f')",
        "raw_text": "format(datum.raw, ',.1f')",
        "note": f"'Marked: m = ' + format({m}, ',d') + '.'",
    }


def lengths(positions: np.ndarray, rope_norms: np.ndarray, raw_norms: np.ndarray, thetas: np.ndarray,
            q_pairs: np.ndarray, x_norm: float, *, opening: int, turned: float, raw: float) -> spec.Figure:
    """Lengths against the position (both axes logarithmic): ‖q R_pᵀ‖, flat at ‖q‖ however far p goes, beside the
    raw index's ‖[x ; p]‖, which grows with p; the position m, a slider inside the chart (``LENGTH_M``, no rerun),
    marked (FOCUS) with both values labelled, computed in the browser from q's pairs turned by m·θ_i
    (``length_expressions``). The data are the same at every m; ``opening``: the m the chart opens at, for its
    reading, with ``turned`` = ‖q R_mᵀ‖ and ``raw`` = ‖[x ; m]‖ there (``rope_demo.length_demo``'s)."""
    names = LENGTH_SERIES
    p = np.asarray(positions, dtype=np.int64)
    vals = np.concatenate([rope_norms, raw_norms])
    main = spec.columns(position=np.tile(p, 2), length=vals,
                        scheme=spec.categories(np.repeat([0, 1], p.size), names))
    qp, th = np.asarray(q_pairs, float), np.asarray(thetas, float)
    half = th.size
    pairs = spec.columns(pair=np.arange(half), theta=th, qa=qp[:, 0], qb=qp[:, 1], xnorm=np.full(half, float(x_norm)))
    last = int(p.max())
    return spec.figure(_lengths_layout(last), {"main": main, "pairs": pairs}, description=(
        f"Lengths against position p, 1 to {last:,}, both axes logarithmic, the query word's position m (the "
        "slider under the chart) marked: RoPE keeps the length of the turned q at ‖q‖ at every position, while the "
        "raw index's vector [x ; p] grows with p."),
        reading=(f"The chart opens at m = {opening:,}: RoPE's q is {turned:.3f} long, and the raw index's vector "
                 f"has grown to {raw:,.1f}."))


def lengths_spec() -> dict:
    """The lengths chart's layout as Vega-Lite, for a page to read the m it opens at (``frame.live.opening``: the
    address's when a link carries one)."""
    return _lengths_layout(MAX_POSITION).spec()


@spec.layout
def _lengths_layout(last: int) -> alt.LayerChart:
    """Both length curves on log axes over positions 1 … ``last``; the position m (a slider in the chart) marked:
    a rule, a point on each curve with its value (RoPE's under its point, the raw index's over it, so the two never
    meet where the points do), and the line under the title that names m ("Marked: m = …"), a text mark set
    where a subtitle goes. Every mark at m is computed from the "pairs" data as m moves."""
    names = LENGTH_SERIES
    m_in = alt.param(name=LENGTH_M, value=int(chapter.RAW_POSITION),
                     bind=alt.binding_range(min=LENGTH_MS[0], max=LENGTH_MS[1], step=1,
                                            name="position m of the query word "))
    xs = alt.Scale(type="log", domain=[1, last], nice=False)
    ys = alt.Scale(type="log")
    x = alt.X("position:Q", scale=xs, title="position p (log scale)",
              axis=alt.Axis(format="~s", labelOverlap=True))
    y_axis = alt.Axis(format="~s", labelOverlap=True, values=[1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8])
    y = alt.Y("length:Q", scale=ys, title="length (log scale)", axis=y_axis)
    tips = [alt.Tooltip("scheme:N"),
            alt.Tooltip("position:Q", format=",d"),
            alt.Tooltip("length:Q", format=",.12g")]
    enc = spec.series("scheme", names, title=None, legend=False)
    ends = alt.Chart(spec.named("main")).transform_filter(f"datum.position == {last}").mark_text(
        align="right", baseline="bottom", dy=-6, fontWeight="bold", aria=False).encode(
        x=x, y=y, text=alt.Text("scheme:N"), color=alt.Color(
            "scheme:N", legend=None, scale=spec.series_scale(names)))
    lines = alt.Chart(spec.named("main")).mark_line(strokeWidth=2.5, aria=False).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"], tooltip=tips)
    ex = length_expressions()
    at_m = alt.Chart()  # the marks at m share one data flow (the parent layer's, below)
    focus = at_m.mark_rule(color=spec.FOCUS, strokeWidth=1.5, aria=False).encode(x=alt.X("position:Q", scale=xs))
    # RoPE's value under its point, right of it (its line is flat); the raw index's over its point, on the side its
    # rising curve leaves clear: left of it (the curve climbs to the right), but right of it near p = 1, where the
    # curve is still flat and the left is the axis
    near_start = f"{LENGTH_M} < {LABEL_FLIP}"
    label_at = {"rope": {"align": "left", "dx": 8, "dy": 8, "baseline": "top"},
                "raw": {"align": alt.expr(f"{near_start} ? 'left' : 'right'"),
                        "dx": alt.expr(f"{near_start} ? 8 : -8"), "dy": -8, "baseline": "bottom"}}
    marked = []
    for i, field in enumerate(("rope", "raw")):
        yv = alt.Y(f"{field}:Q", scale=ys)
        tip = [alt.Tooltip("position:Q", title="position m", format=",d"),
               alt.Tooltip(f"{field}:Q", title=names[i], format=",.12g")]
        marked += [
            at_m.mark_point(filled=True, size=90, opacity=1, color=spec.SERIES[i], shape=spec.SHAPES[i],
                            aria=False).encode(x=x, y=yv, tooltip=tip),
            at_m.mark_text(fontWeight="bold", color=spec.FOCUS, aria=False, **label_at[field]).encode(
                x=x, y=yv, text=alt.Text(f"{field}_text:N"))]
    subtitle = at_m.mark_text(align="left", baseline="bottom", x=0, y=-9, aria=False).encode(text=alt.Text("note:N"))
    at = (alt.layer(focus, *marked, subtitle, data=spec.named("pairs"))
          .transform_calculate(qx=ex["qx"], qy=ex["qy"])
          .transform_calculate(sq=ex["sq"])
          .transform_joinaggregate(total="sum(sq)")
          .transform_filter("datum.pair === 0")
          .transform_calculate(position=ex["position"], rope=ex["rope"], raw=ex["raw"])
          .transform_calculate(rope_text=ex["rope_text"], raw_text=ex["raw_text"], note=ex["note"]))
    return alt.layer(lines, ends, at).add_params(m_in).properties(
        height=LENGTH_HEIGHT, title=alt.TitleParams(f"Lengths, positions 1 to {last:,}", frame="group", offset=3))

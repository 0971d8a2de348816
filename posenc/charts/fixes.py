"""Charts and tables for page 2, obvious fixes that fail (arrays in, ``alt.Chart``/``pd.DataFrame`` out).

Speed: the builders avoid the Altair calls that validate while the chart is built (``alt.value`` /
``alt.condition`` dicts inside ``encode``, ``.properties``): typed values (``alt.StrokeWidthValue``,
``alt.ColorValue`` with a condition) and constructor arguments cost a fraction of that. The tests still
validate every builder's full spec (``chart.to_dict()``); pages draw ``vega_spec(chart)``.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from . import BASE, HIGHLIGHT, MAX_MARKS, layer, word_labels


RULE = {"type": "rule", "color": HIGHLIGHT, "strokeDash": [4, 3]}


def _check_marks(n: int) -> None:
    if n > MAX_MARKS:
        raise ValueError(f"{n} marks is too many for one chart; downsample to ≤ {MAX_MARKS}.")


# ---------------------------------------------------------------- 1. the raw index
def weights_heatmap(weights: np.ndarray, tokens: list[str], start: int, title: str) -> alt.Chart:
    """Attention weights as cells (rows: queries, columns: keys), words labelled with their positions
    ("500 the"), colour fixed to [0, 1] so two such charts compare directly."""
    w = np.asarray(weights, dtype=float)
    n = len(tokens)
    _check_marks(w.size)
    labels = word_labels(tokens, start=start)
    df = pd.DataFrame({
        "query": np.repeat(labels, n),
        "key": np.tile(labels, n),
        "weight": w.ravel(),
        "qi": np.repeat(np.arange(n, dtype=np.int16), n),  # sentence order, kept in the data (not the spec)
        "ki": np.tile(np.arange(n, dtype=np.int16), n),  # so that moving the sentence only changes the data
    })
    angle = -40 if n > 8 else 0
    return (
        alt.Chart(df, title=title, width="container", height=alt.Step(max(6, min(36, 300 // max(n, 1)))))
        .mark_rect()
        .encode(
            x=alt.X(field="key", type="nominal", sort=alt.EncodingSortField(field="ki", op="min"),
                    title="key (position word)", axis=alt.Axis(labelAngle=angle, labelOverlap=True)),
            y=alt.Y(field="query", type="nominal", sort=alt.EncodingSortField(field="qi", op="min"), title="query",
                    axis=alt.Axis(labelOverlap=True)),
            color=alt.Color(field="weight", type="quantitative", title="weight",
                            scale=alt.Scale(scheme="blues", domain=[0, 1])),
            tooltip=[alt.Tooltip(field="query", type="nominal"), alt.Tooltip(field="key", type="nominal"),
                     alt.Tooltip(field="weight", type="quantitative", format=".4f")],
        )
    )


def share_sweep(starts: np.ndarray, rho: np.ndarray, share: np.ndarray, start: int) -> alt.Chart:
    """How much of the ranking position explains (ρ and R²) for every starting position; a rule at ``start``."""
    s = np.asarray(starts)
    df = pd.DataFrame({
        "first position": np.concatenate([s, s]),
        "value": np.concatenate([rho, share]),
        "measure": ["rank correlation ρ"] * s.size + ["share of score spread R²"] * s.size,
    })
    _check_marks(len(df))
    lines = (
        alt.Chart(df, title="With the index: how much position explains, by where the sentence starts",
                  mark={"type": "line", "point": True})
        .encode(
            x=alt.X(field="first position", type="quantitative", scale=alt.Scale(type="log"),
                    title="position of the first word"),
            y=alt.Y(field="value", type="quantitative", scale=alt.Scale(domain=[-1, 1]), title="ρ or R²"),
            color=alt.Color(field="measure", type="nominal", title=None,
                            legend=alt.Legend(orient="bottom-right", fillColor="white", padding=4)),
            tooltip=[alt.Tooltip(field="first position", type="quantitative"),
                     alt.Tooltip(field="measure", type="nominal"),
                     alt.Tooltip(field="value", type="quantitative", format=".4f")],
        )
    )
    rule = (
        alt.Chart(pd.DataFrame({"first position": [start], "label": [f"now: {start}"]}), mark=RULE)
        .encode(x=alt.X(field="first position", type="quantitative"),
                tooltip=[alt.Tooltip(field="label", type="nominal", title="start")])
    )
    return layer(lines, rule, width="container", height=300)


def raw_readout(rho_without: float, rho_with: float, share_without: float, share_with: float,
                last_wins: int, n: int) -> pd.DataFrame:
    """The readout: how much of the ranking position explains, without and with the index."""
    return pd.DataFrame({
        "scores": ["words only: q·k/√d", "with the index: (q·k + p·p)/√d"],
        "ρ (rank vs position)": [rho_without, rho_with],
        "R² (position's share)": [share_without, share_with],
        "top key = last word": ["—", f"{last_wins} of {n} queries"],
    }).set_index("scores")


# ---------------------------------------------------------------- 2. index ÷ length
def ratio_strip(codes_sentence: np.ndarray, codes_long: np.ndarray, tokens: list[str],
                tracked: int) -> alt.Chart:
    """Every word's code p/N on [0, 1], for the running sentence and for a longer one; word ``tracked``
    (1-based) in red."""
    n, L = len(codes_sentence), len(codes_long)
    rows = [f"your sentence ({n} words)", f"a {L}-word sentence"]
    df = pd.DataFrame({
        "sentence": [rows[0]] * n + [rows[1]] * L,
        "row": np.repeat(np.array([0, 1], dtype=np.int8), [n, L]),  # strip order, in the data (labels hold L)
        "position p": np.concatenate([np.arange(1, n + 1), np.arange(1, L + 1)]),
        "word": list(tokens) + [""] * L,
        "code p/N": np.concatenate([codes_sentence, codes_long]),
        "tracked": np.concatenate([np.arange(1, n + 1) == tracked, np.arange(1, L + 1) == tracked]),
    })
    _check_marks(len(df))
    tip = [alt.Tooltip(field="sentence", type="nominal"), alt.Tooltip(field="position p", type="quantitative"),
           alt.Tooltip(field="word", type="nominal"),
           alt.Tooltip(field="code p/N", type="quantitative", format=".4f")]
    y = alt.Y(field="sentence", type="nominal", sort=alt.EncodingSortField(field="row", op="min"), title=None,
              axis=alt.Axis(labelLimit=220))
    x = alt.X(field="code p/N", type="quantitative", scale=alt.Scale(domain=[0, 1]), title="code c(p) = p / N")
    dots = alt.Chart(mark={"type": "tick", "thickness": 2, "size": 22}).encode(
        x=x, y=y, color=alt.ColorValue(BASE, condition={"test": "datum.tracked", "value": HIGHLIGHT}), tooltip=tip)
    marks = alt.Chart(mark={"type": "point", "shape": "triangle-down", "size": 140, "filled": True,
                            "color": HIGHLIGHT, "yOffset": -20}).transform_filter("datum.tracked").encode(
        x=x, y=y, tooltip=tip)
    return layer(dots, marks, data=df, width="container", height=alt.Step(70),
                     title=f"c(p) = p / N: word {tracked} (red) moves when the sentence grows")


def previous_gap_chart(lengths: np.ndarray, gap: np.ndarray, n: int, length: int) -> alt.Chart:
    """The code of “the previous word”, c(p) − c(p − 1) = 1/N, against the sentence length N (log axis)."""
    df = pd.DataFrame({"sentence length N": np.asarray(lengths), "gap to the previous word 1/N": gap})
    _check_marks(len(df))
    x = alt.X(field="sentence length N", type="quantitative", scale=alt.Scale(type="log"),
              title="sentence length N (words)")
    y = alt.Y(field="gap to the previous word 1/N", type="quantitative", title="c(p) − c(p−1)")
    tip = [alt.Tooltip(field="sentence length N", type="quantitative"),
           alt.Tooltip(field="gap to the previous word 1/N", type="quantitative", format=".4f")]
    line = alt.Chart(df, mark={"type": "line", "color": BASE}).encode(x=x, y=y, tooltip=tip)
    pts = df[df["sentence length N"].isin([n, length])].copy()
    pts["which"] = [("your sentence" if v == n else "") + (" & " if v == n == length else "")
                    + ("compared" if v == length else "") for v in pts["sentence length N"]]
    marks = alt.Chart(pts, mark={"type": "point", "size": 110, "filled": True, "color": HIGHLIGHT}).encode(
        x=x, y=y, tooltip=tip + [alt.Tooltip(field="which", type="nominal")])
    text = alt.Chart(pts, mark={"type": "text", "align": "left", "dx": 8, "dy": -8, "color": HIGHLIGHT}).encode(
        x=x, y=y, text=alt.Text(field="gap to the previous word 1/N", type="quantitative", format=".3g"))
    return layer(line, marks, text, width="container", height=280,
                     title="“The previous word” as a code: a different number at every length")


# ---------------------------------------------------------------- 3. multiplying
def multiply_lines(grid: np.ndarray, grid_scores: np.ndarray, tokens: list[str], query_index: int,
                   position: int) -> alt.Chart:
    """Score of every query word with the key word placed at position p: straight lines through 0 whose
    slope is the meaning (q·k) and whose height is set by p. The highlighted query is drawn thick."""
    labels = word_labels(tokens)
    g = np.asarray(grid)
    s = np.asarray(grid_scores, dtype=float)
    df = pd.DataFrame({
        "query": np.repeat(labels, g.size),
        "key position p": np.tile(g, len(labels)),
        "score": s.ravel(),
        "highlight": np.repeat([i == query_index for i in range(len(labels))], g.size),
    })
    _check_marks(len(df))
    legend = alt.Legend(orient="right") if len(labels) <= 16 else None  # long sentences: tooltips only
    lines = (
        alt.Chart(df)
        .mark_line()
        .encode(
            x=alt.X(field="key position p", type="quantitative", title="position p of the key word"),
            y=alt.Y(field="score", type="quantitative", title="score s(p)"),
            color=alt.Color(field="query", type="nominal", sort=labels, title="query", legend=legend),
            strokeWidth=alt.StrokeWidthValue(1.5, condition={"test": "datum.highlight", "value": 4}),
            tooltip=[alt.Tooltip(field="query", type="nominal"),
                     alt.Tooltip(field="key position p", type="quantitative"),
                     alt.Tooltip(field="score", type="quantitative", format=".4g")],
        )
    )
    rule = (
        alt.Chart(pd.DataFrame({"key position p": [position], "label": [f"m = {position}"]}), mark=RULE)
        .encode(x=alt.X(field="key position p", type="quantitative"),
                tooltip=[alt.Tooltip(field="label", type="nominal", title="position")])
    )
    return layer(lines, rule, width="container", height=320,
                     title="Each query's score with the same key word, moved along the sentence")


def multiply_table(tokens: list[str], scores_1: np.ndarray, scores_m: np.ndarray, cos_1: np.ndarray,
                   cos_m: np.ndarray, position: int) -> pd.DataFrame:
    """Per query: the score with the key word at position 1 and at m, their ratio, and the cosines."""
    ratio = np.divide(scores_m, scores_1, out=np.full(len(scores_1), np.nan), where=scores_1 != 0)
    return pd.DataFrame({
        "query (position word)": word_labels(tokens),
        "score, key at p = 1": scores_1,
        f"score, key at p = {position}": scores_m,
        "ratio": ratio,
        "cos(q, k), key at p = 1": cos_1,
        f"cos(q, k), key at p = {position}": cos_m,
    }).set_index("query (position word)")


# ---------------------------------------------------------------- 4. one-hot
def onehot_columns(n: int, width: int, extra: int = 8) -> int:
    """How many columns the sentence chart shows: the sentence's n, a few empty ones after, at most N."""
    return min(width, n + extra)


def onehot_codes(codes: np.ndarray, tokens: list[str]) -> alt.Chart:
    """The sentence's one-hot rows e_1 … e_n, columns 1 … onehot_columns(n, N) (the rest are zeros)."""
    c = np.asarray(codes, dtype=float)
    c = c[:, :onehot_columns(c.shape[0], c.shape[1])]
    n, k = c.shape
    _check_marks(c.size)
    labels = word_labels(tokens)
    cols = [str(j) for j in range(1, k + 1)]
    df = pd.DataFrame({"word": np.repeat(labels, k), "column": np.tile(cols, n), "value": c.ravel()})
    return (
        alt.Chart(df, title="The sentence in one-hot codes", width="container",
                  height=alt.Step(max(10, min(28, 240 // max(n, 1)))),
                  mark={"type": "rect", "stroke": "white", "strokeWidth": 0.5})
        .encode(
            x=alt.X(field="column", type="nominal", sort=cols, title="column",
                    axis=alt.Axis(labelAngle=0, labelOverlap=True)),
            y=alt.Y(field="word", type="nominal", sort=labels, title=None),
            color=alt.Color(field="value", type="quantitative", scale=alt.Scale(scheme="greys", domain=[0, 1]),
                            legend=None),
            tooltip=[alt.Tooltip(field="word", type="nominal"), alt.Tooltip(field="column", type="nominal"),
                     alt.Tooltip(field="value", type="quantitative", format=".0f")],
        )
    )


def distance_heatmap(distances: np.ndarray) -> alt.Chart:
    """‖e_p − e_q‖ between positions 1 … k: one colour off the diagonal (every pair √2 apart)."""
    D = np.asarray(distances, dtype=float)
    k = D.shape[0]
    _check_marks(D.size)
    pos = [str(j) for j in range(1, k + 1)]
    df = pd.DataFrame({"p": np.repeat(pos, k), "q": np.tile(pos, k), "distance": D.ravel()})
    return (
        alt.Chart(df, title="Distance between the codes of positions p and q", width="container",
                  height=alt.Step(max(6, min(24, 260 // max(k, 1)))))
        .mark_rect()
        .encode(
            x=alt.X(field="q", type="nominal", sort=pos, title="position q",
                    axis=alt.Axis(labelAngle=0, labelOverlap=True)),
            y=alt.Y(field="p", type="nominal", sort=pos, title="position p"),
            color=alt.Color(field="distance", type="quantitative",
                            scale=alt.Scale(scheme="oranges", domain=[0, 1.5]), title="‖e_p − e_q‖"),
            tooltip=[alt.Tooltip(field="p", type="nominal"), alt.Tooltip(field="q", type="nominal"),
                     alt.Tooltip(field="distance", type="quantitative", format=".6f")],
        )
    )


# ---------------------------------------------------------------- the summary
def _fmt(v: float) -> str:
    if math.isnan(v):
        return "—"
    if v == int(v) and abs(v) < 1e9:
        return f"{int(v):,}"
    return f"{v:.3g}"


def summary_frame(verdicts: list, short: int, length: int, p: int = 3, far: int = 50) -> pd.DataFrame:
    """The five wishes (rows, each with its computed test) against the four fixes (columns):
    ✓/✗ and the numbers behind each verdict."""
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
        mark = "✓" if v.passed else "✗"
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
    df = pd.DataFrame.from_dict(table, orient="index")
    df.index.name = "wish (the computed test)"
    return df

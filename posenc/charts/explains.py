"""Charts for page 7, what this finally explains (arrays in, ``alt.Chart`` out)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from . import BASE, HIGHLIGHT, word_labels

GREY = "#9e9e9e"
HEIGHT = 340  # total height: title, legend and axes included, so the plot itself stays tall


def copies_weights(
    series: dict[str, np.ndarray],
    tokens: list[str],
    query: int,
    highlight: list[int] | None = None,
    *,
    title: str = "",
) -> alt.Chart:
    """Grouped bars: the weight from the query word on every key, one bar per scheme in ``series``
    (scheme name → the n weights of the query row). Copies of a repeated word get a red outline."""
    labels = word_labels(tokens)
    names = list(series)
    hl = set(highlight or [])
    n = len(tokens)
    df = pd.DataFrame(
        {
            "key": np.tile(labels, len(names)),
            "scheme": np.repeat(names, n),
            "weight": np.concatenate([np.asarray(series[s], dtype=float) for s in names]),
            "copy of a repeated word": np.tile(["yes" if j in hl else "no" for j in range(n)], len(names)),
            "query": labels[query],
        }
    )
    colors = [GREY, BASE] if len(names) == 2 else [BASE] * len(names)
    return (
        alt.Chart(df, title=title)
        .mark_bar(strokeWidth=3)
        .encode(
            x=alt.X(field="key", type="nominal", sort=labels, title=None,
                    axis=alt.Axis(labelAngle=-40 if n > 8 else 0)),
            xOffset=alt.XOffset(field="scheme", type="nominal", sort=names),
            y=alt.Y(field="weight", type="quantitative", title="attention weight"),
            color=alt.Color(field="scheme", type="nominal", sort=names, title=None,
                            scale=alt.Scale(domain=names, range=colors),
                            legend=alt.Legend(orient="top")),
            stroke=alt.condition(alt.datum["copy of a repeated word"] == "yes", alt.value(HIGHLIGHT),
                                 alt.value(None)),
            tooltip=[alt.Tooltip(field="query", type="nominal"), alt.Tooltip(field="key", type="nominal"),
                     alt.Tooltip(field="scheme", type="nominal", title="positions"),
                     alt.Tooltip(field="weight", type="quantitative", format=".6f"),
                     alt.Tooltip(field="copy of a repeated word", type="nominal")],
        )
        .properties(width="container", height=HEIGHT)
    )


def scramble_weights(
    original: np.ndarray,
    scrambled: np.ndarray,
    tokens: list[str],
    order: list[int],
    *,
    title: str = "",
) -> alt.Chart:
    """For one query word: its weight on every key word in the original sentence and in the scrambled one.

    ``original[j]`` is the weight on word j of X; ``scrambled[i]`` the weight on slot i of PX, which holds
    word ``order[i]``. Bars are grouped by word (labelled by its original position), so equal pairs mean
    “same word, same weight, wherever it sits”.
    """
    n = len(tokens)
    labels = word_labels(tokens)
    slot_of = np.empty(n, dtype=int)
    slot_of[np.asarray(order)] = np.arange(n)
    names = ["original sentence", "scrambled sentence"]
    w_scr = np.asarray(scrambled, dtype=float)[slot_of]
    df = pd.DataFrame(
        {
            "key": np.tile(labels, 2),
            "sentence": np.repeat(names, n),
            "position of the key in this sentence": np.concatenate([np.arange(1, n + 1), slot_of + 1]),
            "weight": np.concatenate([np.asarray(original, dtype=float), w_scr]),
        }
    )
    return (
        alt.Chart(df, title=title)
        .mark_bar()
        .encode(
            x=alt.X(field="key", type="nominal", sort=labels, title=None,
                    axis=alt.Axis(labelAngle=-40 if n > 8 else 0)),
            xOffset=alt.XOffset(field="sentence", type="nominal", sort=names),
            y=alt.Y(field="weight", type="quantitative", title="attention weight"),
            color=alt.Color(field="sentence", type="nominal", sort=names, title=None,
                            scale=alt.Scale(domain=names, range=[BASE, "#f58518"]),
                            legend=alt.Legend(orient="top")),
            tooltip=[alt.Tooltip(field="sentence", type="nominal"), alt.Tooltip(field="key", type="nominal"),
                     alt.Tooltip(field="position of the key in this sentence", type="quantitative"),
                     alt.Tooltip(field="weight", type="quantitative", format=".6f")],
        )
        .properties(width="container", height=HEIGHT)
    )


def row_differences(row_error: np.ndarray, scrambled_tokens: list[str], *, title: str = "") -> alt.Chart:
    """Bars: for each word of the scrambled sentence, max over coordinates of |Attn(PX) − P·Attn(X)|."""
    labels = word_labels(scrambled_tokens)
    err = np.asarray(row_error, dtype=float)
    df = pd.DataFrame({"word in PX": labels, "max |difference|": err})
    # rounding-size values (~1e-16) get exponent labels instead of a long row of zeros
    fmt = ".0e" if err.size and float(np.max(err)) < 1e-6 else "~g"
    return (
        alt.Chart(df, title=title)
        .mark_bar(color="#f58518")
        .encode(
            x=alt.X(field="word in PX", type="nominal", sort=labels, title=None,
                    axis=alt.Axis(labelAngle=-40 if len(labels) > 8 else 0)),
            y=alt.Y(field="max |difference|", type="quantitative", title="max |difference|",
                    axis=alt.Axis(format=fmt)),
            tooltip=[alt.Tooltip(field="word in PX", type="nominal"),
                     alt.Tooltip(field="max |difference|", type="quantitative", format=".3g")],
        )
        .properties(width="container", height=HEIGHT)
    )

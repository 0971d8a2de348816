"""Charts for “What this finally explains” (arrays in, ``spec.Figure`` out): the copies' weights scheme by scheme,
and the scrambled sentence. Every builder goes through ``spec.figure`` with named datasets; the query word and the
scheme are params inside the charts (the data for every choice is sent once)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import altair as alt
import numpy as np

from . import spec

HEIGHT = 236  # the plot itself, below frame.live.PRESENT_MAX_HEIGHT (autosize fit-x: title, axes, legend on top)
QUERY, SCHEME = "ex_query", "ex_scheme"  # the in-chart controls' params (frame.live keeps them in the address)


def copy_weights(weights: Mapping[str, np.ndarray], tokens: Sequence[str], copies: Sequence[int], query: int,
                 *, copy_word: str = "") -> spec.Figure:
    """Per scheme (x), the weight from a query word on each copy of the repeated word (bars side by side, each
    labelled with its copy's position, so copies are told apart by label as well as place). ``weights[scheme]``
    is the (n × n) weight matrix; a slider inside the chart picks the query (every row is sent once; when
    schemes × n × copies would pass ``spec.MAX_MARKS`` only the first copies are sent)."""
    names = list(weights)
    n = len(tokens)
    copies = list(copies)[: max(2, spec.MAX_MARKS // max(1, len(names) * n))]
    c = len(copies)
    labels = spec.word_labels(tokens)
    copy_names = [f"({j + 1})" for j in copies]
    rows = len(names) * n * c
    scheme_codes = np.repeat(np.arange(len(names)), n * c)
    q = np.tile(np.repeat(np.arange(n), c), len(names))
    k = np.tile(np.arange(c), len(names) * n)
    w = np.concatenate([np.asarray(weights[s], float)[:, copies].ravel() for s in names]) if rows else np.zeros(0)
    main = spec.columns(scheme=spec.categories(scheme_codes, names), query=q + 1,
                        copy=spec.categories(k, copy_names), weight=w,
                        label=[f"{copy_names[j]}\n{v:.3f}" for j, v in zip(k, w)])
    queries = spec.columns(query=np.arange(1, n + 1), text=[f"query: {lab}" for lab in labels])
    top = spec.nice_bound(float(w.max()) * 1.3 if rows else 0.0)  # room for the labels; few values over a class
    word = f"“{copy_word}”" if copy_word else "the repeated word"
    chart = _copy_weights_layout(names, n, copy_names, int(query) + 1, top, word)
    at = "; ".join(f"{s_}: {' and '.join(f'{v:.3f}' for v in np.asarray(weights[s_], float)[int(query), copies])}"
                   for s_ in names)
    return spec.figure(chart, {"main": main, "queries": queries}, description=(
        f"Weights on the copies of {word} at positions {', '.join(copy_names)}, from the query word at position "
        f"{int(query) + 1}, scheme by scheme. Equal bars are a tie. A slider in the chart picks the query."),
        reading=f"The weights, scheme by scheme — {at}." if at else "")


@spec.layout
def _copy_weights_layout(names: Sequence[str], n: int, copy_names: Sequence[str], query: int, top: float,
                         word: str) -> alt.LayerChart:
    """Per scheme, the bars of the copies ``copy_names`` for the query (1 … n) picked by the in-chart slider
    (``query`` at first), on a weight axis up to ``top``; the picked query written in the corner."""
    pick = alt.param(name=QUERY, value=query,
                     bind=alt.binding_range(min=1, max=n, step=1, name="query word (its position) "))
    x = alt.X("scheme:N", sort=names, title="positions given to attention",
              axis=alt.Axis(labelAngle=0, labelLimit=160))
    y = alt.Y("weight:Q", title="attention weight", scale=alt.Scale(domain=[0, top]))
    off = alt.XOffset("copy:N", sort=copy_names)
    tips = [alt.Tooltip("scheme:N", title="positions"),
            alt.Tooltip("query:Q", title="query word's position"),
            alt.Tooltip("copy:N", title="copy at position"),
            alt.Tooltip("weight:Q", format=".6f")]
    chosen = alt.datum.query == pick
    bars = (alt.Chart(spec.named("main")).mark_bar(color=spec.FOCUS, aria=False)
            .encode(x=x, xOffset=off, y=y, opacity=alt.Opacity("copy:N", sort=copy_names,
                                                               legend=None,
                                                               scale=alt.Scale(range=[1.0, 0.55])),
                    tooltip=tips)
            .add_params(pick).transform_filter(chosen))
    text = (alt.Chart(spec.named("main"))
            .mark_text(baseline="bottom", dy=-16, lineBreak="\n", aria=False)
            .encode(x=x, xOffset=off, y=y, text=alt.Text("label:N"))
            .transform_filter(chosen))
    who = (alt.Chart(spec.named("queries")).mark_text(align="left", baseline="top", fontWeight="bold",
                                                     color=spec.TEXT, aria=False)
           .encode(x=alt.value(4), y=alt.value(4), text=alt.Text("text:N"))
           .transform_filter(chosen))
    return alt.layer(bars, text, who).properties(height=HEIGHT, title=alt.TitleParams(
        f"Weights on the copies of {word}, by their positions"))


SENTENCES = ("original sentence X", "scrambled sentence PX")


def scramble_weights(original: Mapping[str, np.ndarray], scrambled: Mapping[str, np.ndarray], tokens: Sequence[str],
                     order: Sequence[int], query_label: str, *, scheme: str) -> spec.Figure:
    """For one query word, per key word: its weight in the original sentence and in the scrambled one (bars side by
    side, grouped by word). ``original[s][j]`` is the weight on word j of X; ``scrambled[s][i]`` the weight on slot
    i of PX, which holds word ``order[i]``. A radio inside the chart picks the scheme (all four are sent)."""
    names = list(original)
    n = len(tokens)
    labels = spec.word_labels(tokens)
    slot_of = np.empty(n, dtype=int)
    slot_of[np.asarray(order)] = np.arange(n)
    w = []
    for s in names:
        w += [np.asarray(original[s], float), np.asarray(scrambled[s], float)[slot_of]]
    main = spec.columns(
        scheme=spec.categories(np.repeat(np.arange(len(names)), 2 * n), names),
        sentence=spec.categories(np.tile(np.repeat([0, 1], n), len(names)), SENTENCES),
        key=spec.categories(np.tile(np.arange(n), 2 * len(names)), labels),
        slot=np.tile(np.concatenate([np.arange(1, n + 1), slot_of + 1]), len(names)),
        weight=np.concatenate(w),
    )
    moved = {s_: float(np.max(np.abs(np.asarray(original[s_], float) - np.asarray(scrambled[s_], float)[slot_of])))
             for s_ in names}
    told = "; ".join(f"{s_}: {v:.2g}" for s_, v in moved.items())
    return spec.figure(_scramble_weights_layout(names, labels, query_label, scheme), {"main": main}, description=(
        f"Weights from {query_label} on every word, in the sentence X and in its scramble PX, each word's pair of "
        "bars side by side. A radio in the chart picks the scheme."),
        reading=f"The largest change of a word's weight after the swap — {told}." if told else "")


@spec.layout
def _scramble_weights_layout(names: Sequence[str], labels: Sequence[str], query_label: str,
                             scheme: str) -> alt.Chart:
    """Pairs of bars (X, PX) per key word ``labels``, for the scheme picked by the in-chart radio (``scheme`` at
    first)."""
    n = len(labels)
    pick = alt.param(name=SCHEME, value=scheme, bind=alt.binding_radio(options=names, name="Positions: "))
    enc = spec.series("sentence", SENTENCES, title=None)
    return (
        alt.Chart(spec.named("main")).mark_bar(aria=False)
        .encode(
            x=alt.X("key:N", sort=labels, title="key word (its position in X)",
                    axis=alt.Axis(labelAngle=-40 if n > 8 else 0)),
            xOffset=alt.XOffset("sentence:N", sort=list(SENTENCES)),
            y=alt.Y("weight:Q", title="attention weight"),
            color=enc["color"],
            opacity=alt.Opacity("sentence:N", sort=list(SENTENCES), legend=None,
                                scale=alt.Scale(range=[1.0, 0.8])),
            stroke=alt.Stroke("sentence:N", legend=None,
                              scale=alt.Scale(domain=list(SENTENCES), range=[spec.SERIES[0], spec.TEXT])),
            strokeWidth=alt.StrokeWidth("sentence:N", legend=None,
                                        scale=alt.Scale(domain=list(SENTENCES), range=[0, 1.5])),
            tooltip=[alt.Tooltip("scheme:N", title="positions"),
                     alt.Tooltip("sentence:N"), alt.Tooltip("key:N"),
                     alt.Tooltip("slot:Q", title="its position in this sentence"),
                     alt.Tooltip("weight:Q", format=".6f")],
        )
        .add_params(pick).transform_filter(alt.datum.scheme == pick)
        .properties(height=HEIGHT, title=alt.TitleParams(
            f"Weights from {query_label}, X and PX",
            subtitle="Each pair of bars: one word, in X and in PX."))
    )

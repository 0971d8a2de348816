"""Charts of the lab (``posenc.lab`` experiment records in, ``spec.Figure`` out; no streamlit).

Positions and lengths are shown 1-based, as the chapter counts (``posenc.lab`` works 0-based). Each scheme has
one colour, dash and point shape (``spec.series``) and a direct label; bands run from the lowest to the highest
seed. The learned table's line ends at n_max: past it there is no row, so there is no point — never a zero.
"""

from __future__ import annotations

import math
import warnings
from typing import Sequence

import altair as alt
import numpy as np

from posenc.lab import SCHEMES, settings_from

from .spec import (FOCUS, REFERENCE, SEQUENTIAL, Figure, categories, columns, figure, layout, named, nice_bound,
                   series, series_scale)

# Streamlit fits a chart into its height: title, axes and legend included, so these are total heights.
NAMES = list(SCHEMES)
COLOURS = series_scale(NAMES)  # as spec.series gives them


def _band(values: list[list[float | None]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, lowest and highest over seeds (rows), NaN where a seed has no value (learned past n_max)."""
    a = np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
    if np.all(np.isnan(a)):
        nan = np.full(a.shape[1], np.nan)
        return nan, nan, nan
    with warnings.catch_warnings():  # a column of NaN (learned past n_max) stays NaN, silently
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(a, axis=0), np.nanmin(a, axis=0), np.nanmax(a, axis=0)


def dodge(values: list[float], gap: float) -> list[float]:
    """Label heights near ``values``, pushed apart to at least ``gap`` (so direct labels never overlap)."""
    order = np.argsort(values)
    out = np.array(values, dtype=float)
    for a, b in zip(order[:-1], order[1:]):
        out[b] = max(out[b], out[a] + gap)
    return list(out)


def accuracy_summary(record: dict) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """scheme → (mean, lowest, highest) accuracy per test length over the seeds; NaN past n_max for learned."""
    return {s: _band([run["accuracy"] for run in record["runs"][s]]) for s in NAMES}


def accuracy_figure(record: dict) -> Figure:
    """Accuracy against test length per scheme: mean line, seed band, the training length marked, chance."""
    s = settings_from(record)
    lengths = np.array(record["test_lengths"], dtype=float)
    L, n_max, vocab = s.L_train, s.n_max, s.vocab
    summary = accuracy_summary(record)
    codes, xs, mean, lo, hi = [], [], [], [], []
    for code, scheme in enumerate(NAMES):
        m, a, b = summary[scheme]
        keep = ~np.isnan(m)  # the learned table has no point past n_max: the line ends there
        codes += [code] * int(keep.sum())
        xs += list(lengths[keep])
        mean += list(m[keep])
        lo += list(a[keep])
        hi += list(b[keep])
    points = columns(scheme=categories(np.array(codes), NAMES), length=xs, accuracy=mean, lowest=lo, highest=hi)
    ends = columns(scheme=categories(np.arange(len(NAMES)), NAMES),
                   length=[max(x for x, c in zip(xs, codes) if c == i) for i in range(len(NAMES))],
                   accuracy=dodge([mean[max(j for j, c in enumerate(codes) if c == i)] for i in range(len(NAMES))],
                                  0.045),
                   label=[f"{n} (no row past {n_max})" if n == "learned" else n for n in NAMES])
    marks = columns(length=[L], label=[f"trained at length {L}"])
    data = {"points": points, "ends": ends, "marks": marks,
            "chance": columns(accuracy=[1 / vocab], label=[f"chance: 1 in {vocab}"])}
    return figure(_accuracy_layout([float(v) for v in lengths]), data, description=(
        f"Accuracy against test length for the five schemes, trained at length {L}; the dashed rule marks "
        f"the training length, the dotted one chance. The learned table's line stops at n_max = {n_max}: "
        f"past it there is no row to look up."))


@layout
def _accuracy_layout(lengths: Sequence[float]) -> alt.LayerChart:
    """Mean line, seed band, direct labels, the training-length rule and chance, over the test ``lengths``
    (the x axis's ticks; its domain runs to 1.22 × the longest, room for the labels)."""
    x = alt.X("length:Q", title="test length (tokens)", scale=alt.Scale(domain=[0, max(lengths) * 1.22]),
              axis=alt.Axis(values=list(lengths)))
    y = alt.Y("accuracy:Q", title="accuracy (share of predictions right)", scale=alt.Scale(domain=[0, 1]),
              axis=alt.Axis(format="%"))
    enc = series("scheme", NAMES, title="scheme")
    tips = [alt.Tooltip("scheme:N"), alt.Tooltip("length:Q", title="test length"),
            alt.Tooltip("accuracy:Q", format=".1%", title="mean accuracy"),
            alt.Tooltip("lowest:Q", format=".1%"), alt.Tooltip("highest:Q", format=".1%")]
    band = alt.Chart(named("points")).mark_area(opacity=0.15).encode(
        x=x, y=alt.Y("lowest:Q", scale=alt.Scale(domain=[0, 1])), y2="highest:Q",
        color=alt.Color("scheme:N", scale=COLOURS, legend=None))
    line = alt.Chart(named("points")).mark_line(point=alt.OverlayMarkDef(size=60, filled=True), strokeWidth=2.5).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"], shape=enc["shape"], tooltip=tips)
    label = alt.Chart(named("ends")).mark_text(align="left", dx=8, fontSize=13).encode(
        x=x, y=y, text="label:N", color=alt.Color("scheme:N", scale=COLOURS, legend=None))
    rule = alt.Chart(named("marks")).mark_rule(color=REFERENCE, strokeDash=[4, 3]).encode(x=x)
    rule_text = alt.Chart(named("marks")).mark_text(color=REFERENCE, align="left", dx=4, y="height", dy=-8).encode(
        x=x, text="label:N")
    chance = alt.Chart(named("chance")).mark_rule(color=REFERENCE, strokeDash=[1, 3]).encode(y="accuracy:Q")
    chance_text = alt.Chart(named("chance")).mark_text(color=REFERENCE, align="right", dy=-6, x="width").encode(
        y="accuracy:Q", text="label:N")
    return alt.layer(band, line, label, rule, rule_text, chance, chance_text).properties(
        width="container", height=420, title="Accuracy at each test length (band: lowest to highest of the seeds)")


def loss_figure(record: dict) -> Figure:
    """Training loss against step per scheme: mean over seeds with a lowest–highest band."""
    steps = np.array(record["loss_steps"], dtype=float)
    vocab = record["settings"]["vocab"]
    codes, xs, mean, lo, hi = [], [], [], [], []
    for code, scheme in enumerate(NAMES):
        m, a, b = _band([run["losses"] for run in record["runs"][scheme]])
        codes += [code] * len(steps)
        xs += list(steps)
        mean += list(m)
        lo += list(a)
        hi += list(b)
    finite = np.asarray(hi, float)[np.isfinite(hi)]
    top = nice_bound(float(finite.max()) * 1.05) if finite.size else 1.0  # no finite loss: an empty 0 … 1 axis
    last = len(steps) - 1
    ends = columns(scheme=categories(np.arange(len(NAMES)), NAMES), step=[steps[-1]] * len(NAMES),
                   loss=dodge([mean[i * len(steps) + last] for i in range(len(NAMES))], 0.06 * top), label=NAMES)
    data = {"loss": columns(scheme=categories(np.array(codes), NAMES), step=xs, loss=mean, lowest=lo, highest=hi),
            "ends": ends, "guess": columns(loss=[math.log(vocab)], label=[f"a uniform guess: ln {vocab}"])}
    return figure(_loss_layout(float(top)), data, description=(
        "Training loss against step for the five schemes, the same steps and settings for each; the dotted "
        "rule is the loss of a uniform guess."))


@layout
def _loss_layout(top: float) -> alt.LayerChart:
    """Mean line, seed band, direct labels and the uniform guess; the loss axis runs from 0 to ``top``."""
    x = alt.X("step:Q", title="training step")
    y = alt.Y("loss:Q", title="training loss (cross-entropy)", scale=alt.Scale(domain=[0, top]))
    enc = series("scheme", NAMES, title="scheme")
    band = alt.Chart(named("loss")).mark_area(opacity=0.15).encode(
        x=x, y=alt.Y("lowest:Q", scale=alt.Scale(domain=[0, top])), y2="highest:Q",
        color=alt.Color("scheme:N", scale=COLOURS, legend=None))
    line = alt.Chart(named("loss")).mark_line(strokeWidth=2).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"],
        tooltip=[alt.Tooltip("scheme:N"), alt.Tooltip("step:Q"), alt.Tooltip("loss:Q", format=".3f")])
    label = alt.Chart(named("ends")).mark_text(align="left", dx=6, fontSize=13).encode(
        x=x, y=y, text="label:N", color=alt.Color("scheme:N", scale=COLOURS, legend=None))
    guess = alt.Chart(named("guess")).mark_rule(color=REFERENCE, strokeDash=[1, 3]).encode(y="loss:Q")
    guess_text = alt.Chart(named("guess")).mark_text(color=REFERENCE, align="right", dy=-6, x="width").encode(
        y="loss:Q", text="label:N")
    return alt.layer(band, line, label, guess, guess_text).properties(
        width="container", height=340, title="Training loss (band: lowest to highest of the seeds)")


def target_cells(record: dict) -> list[tuple[int, int]]:
    """(query, key) 0-based cells a perfect model would read: k back for copy, the first token for first."""
    s = record["settings"]
    n = len(record["map"]["tokens"])
    if s["task"] == "copy":
        return [(i, i - s["k"]) for i in range(s["k"], n)]
    return [(i, 0) for i in range(1, n)]


def attention_figure(record: dict, layer: int) -> Figure:
    """The attention weights of one layer on one test sequence (2 × L_train long), one panel per scheme;
    outlined cells: where the task's answer sits."""
    maps = record["map"]["maps"]
    L = record["settings"]["L_train"]
    n = len(record["map"]["tokens"])
    q, k = np.tril_indices(n)  # the causal mask: keys after the query are never read
    codes, qs, ks, ws, kinds = [], [], [], [], []
    targets = target_cells(record)
    for code, scheme in enumerate(NAMES):
        a = np.asarray(maps[scheme][layer])
        codes += [code] * len(q)
        qs += list(q + 1)
        ks += list(k + 1)
        ws += list(a[q, k])
        kinds += [0] * len(q)
        codes += [code] * len(targets)
        qs += [i + 1 for i, _ in targets]
        ks += [j + 1 for _, j in targets]
        ws += [float(a[i, j]) for i, j in targets]
        kinds += [1] * len(targets)
    data = columns(scheme=categories(np.array(codes), NAMES), query=qs, key=ks, weight=ws,
                   cell=categories(np.array(kinds), ["weight", "answer"]))
    return figure(_attention_layout(n, L, layer), {"cells": data}, description=(
        f"Attention weights of layer {layer + 1} for one test sequence of {n} tokens, one scheme at a time (picked under the chart); "
        f"row = query position, column = key position (1-based). Outlined cells hold the answer; queries below "
        f"position {L} are longer than anything seen in training."))


@layout
def _attention_layout(n: int, L: int, layer: int) -> alt.LayerChart:
    """The map of layer ``layer`` (0-based) over ``n`` positions, the scheme picked in the chart, the answer
    cells outlined and a dashed rule above the first query past the training length ``L``."""
    x = alt.X("key:O", title="key position (1-based)", axis=alt.Axis(values=list(range(4, n + 1, 4)), labelAngle=0))
    y = alt.Y("query:O", title="query position", axis=alt.Axis(values=list(range(4, n + 1, 4))))
    tips = [alt.Tooltip("scheme:N"), alt.Tooltip("query:O", title="query position"),
            alt.Tooltip("key:O", title="key position"), alt.Tooltip("weight:Q", format=".2f")]
    # One map at a time, the scheme picked inside the chart (no rerun): it fills its column on a phone too.
    pick = alt.param(name="scheme", value=NAMES[0], bind=alt.binding_radio(options=list(NAMES), name="scheme "))
    heat = alt.Chart().mark_rect().encode(
        x=x, y=y, tooltip=tips,
        color=alt.Color("weight:Q", title="attention weight", scale=alt.Scale(scheme=SEQUENTIAL, domain=[0, 1])),
    ).transform_filter(alt.datum.cell == "weight")
    answer = alt.Chart().mark_rect(filled=False, stroke=FOCUS, strokeWidth=1.5).encode(
        x=x, y=y, tooltip=tips).transform_filter(alt.datum.cell == "answer")
    past = alt.Chart().mark_rule(color=REFERENCE, strokeDash=[4, 3], strokeWidth=1.5).encode(
        y=alt.Y("query:O", bandPosition=0)).transform_filter((alt.datum.cell == "answer") & (alt.datum.query == L + 1))
    return alt.layer(heat, answer, past, data=named("cells")).transform_filter(
        alt.datum.scheme == pick).add_params(pick).properties(
        width="container", height=360,
        title=alt.Title(f"Layer {layer + 1}: where each position looks",
                        subtitle=[f"outlined: the answer; rows below the dashed rule are past the training length {L}",
                                  "pick the scheme under the chart"]))

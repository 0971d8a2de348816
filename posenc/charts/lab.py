"""Charts of the lab (``posenc.lab`` experiment records in, ``spec.Figure`` out; no streamlit).

Positions and lengths are shown 1-based, as the chapter counts (``posenc.lab`` works 0-based). Each scheme has
one colour, dash and point shape (``spec.series``) and a direct label; bands run from the lowest to the highest
seed. The learned table's line ends at n_max: past it there is no row, so there is no point — never a zero.
Controls that only re-slice the data already sent (which seed, which positions count, which map) are Vega-Lite
params bound to inputs, named with the page's prefix ``lab_`` (frame.live keeps them in the address).
Each description says what its chart shows in words and the layout's own arguments; the numbers of the settings
(the training length, n_max, the vocabulary, the losses) go in the figure's reading (``spec.figure``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import altair as alt
import numpy as np

from posenc.core import count, listing
from posenc.encodings import frequencies
from posenc.lab import BASE, MAP_FLOOR, SCHEMES, answer_keys, settings_from

from .spec import (
    FOCUS,
    MAX_MARKS,
    REFERENCE,
    SEQUENTIAL,
    Figure,
    categories,
    columns,
    figure,
    layout,
    named,
    nice_bound,
    series,
    series_scale,
)

NAMES = list(SCHEMES)
COLOURS = series_scale(NAMES)  # as spec.series gives them
MEAN = "mean of all seeds"
MAP_SEEDS_SHOWN = 3  # maps of the first 3 seeds go to the browser (the record keeps 5)
VIEWS = ("all positions", "only positions past the training length")


# Compact columns (the data a chart ships on every rerun): whole numbers as int16, shares and losses as float32
# (7 significant digits; the charts show 3), repeated text once per distinct value (spec.categories).
def _whole(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int16)


def _real(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def _band(values: list[list[float | None]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, lowest and highest over seeds (rows), NaN where a seed has no value (learned past n_max)."""
    a = np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
    if a.size == 0 or np.all(np.isnan(a)):
        nan = np.full(a.shape[1] if a.ndim == 2 else 0, np.nan)
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


def seed_labels(record: dict) -> list[str]:
    return [MEAN] + [f"seed {s}" for s in record["seeds"]]


def _curves(record: dict, xs_all: np.ndarray, field_of, views: Sequence[str]):
    """Rows (scheme, x, view, seed label, value, lowest, highest) for every view and seed (and the mean), and
    the direct labels at each curve's end, dodged per (view, seed). Each (view, scheme)'s seeds are read once."""
    labels = seed_labels(record)
    rows = {k: [] for k in ("scheme", "x", "view", "seed", "value", "lowest", "highest")}
    ends = {k: [] for k in ("scheme", "x", "view", "seed", "value")}
    for v in range(len(views)):
        per = []  # per scheme: its seeds' values (seeds × x, NaN: none) and their mean, lowest, highest
        for scheme in NAMES:
            values = [field_of(run, v) for run in record["runs"][scheme]]
            per.append((np.array([[np.nan if x is None else x for x in row] for row in values], dtype=float),
                        *_band(values)))
        for si in range(len(labels)):
            last_x, last_y = [], []
            for code, (each, m, lo, hi) in enumerate(per):
                if si > 0:
                    m = lo = hi = each[si - 1]
                keep = ~np.isnan(m)
                n = int(keep.sum())
                for name, col in (("scheme", np.full(n, code)), ("x", xs_all[keep]), ("view", np.full(n, v)),
                                  ("seed", np.full(n, si)), ("value", m[keep]), ("lowest", lo[keep]),
                                  ("highest", hi[keep])):
                    rows[name].append(col)
                last_x.append(float(xs_all[keep][-1]) if n else float("nan"))
                last_y.append(float(m[keep][-1]) if n else float("nan"))
            ys = dodge([0.0 if math.isnan(y) else y for y in last_y], 0.055)
            for code in range(len(NAMES)):
                if math.isnan(last_x[code]):
                    continue
                for name, value in (("scheme", code), ("x", last_x[code]), ("view", v), ("seed", si),
                                    ("value", ys[code])):
                    ends[name].append(value)
    rows = {name: np.concatenate(parts) for name, parts in rows.items()}
    points = columns(scheme=categories(rows["scheme"], NAMES), x=_whole(rows["x"]),
                     view=categories(rows["view"], views), seed=categories(rows["seed"], labels),
                     value=_real(rows["value"]), lowest=_real(rows["lowest"]), highest=_real(rows["highest"]))
    end = columns(scheme=categories(ends["scheme"], NAMES), x=_whole(ends["x"]),
                  view=categories(ends["view"], views), seed=categories(ends["seed"], labels),
                  value=_real(ends["value"]), label=categories(ends["scheme"], NAMES))
    return points, end


def accuracy_figure(record: dict) -> Figure:
    """Accuracy against test length per scheme (mean line, seed band), the positions counted and the seed picked
    in the chart; the training length marked, chance dotted."""
    s = settings_from(record)
    lengths = np.array(record["test_lengths"], dtype=float)
    L, n_max, vocab = s.L_train, s.n_max, s.vocab
    points, ends = _curves(record, lengths, lambda run, v: run["accuracy"] if v == 0 else run["past"], VIEWS)
    data = {"points": points, "ends": ends, "marks": columns(x=[L], label=[f"trained at {L}"]),
            "chance": columns(value=[1 / vocab], label=[f"chance 1/{vocab}"])}
    seeds = seed_labels(record)
    return figure(_accuracy_layout([float(v) for v in lengths], seeds), data, description=(
        "Accuracy against test length for the five schemes, each trained at one length from "
        f"{count(len(seeds) - 1, 'seed')}; pick under the chart whether all positions count or only those past the "
        "training length, and one seed or their mean. The dashed rule marks the training length, the dotted one "
        "chance. The learned table's line stops at its last row, n_max: past it there is no row."),
        reading=f"Here the training length is {L}: counting “{VIEWS[1]}” takes positions {L + 1} and on. "
                f"Chance is 1/{vocab}, and n_max = {n_max}.")


def _lines(x: alt.X, y_title: str, seeds: Sequence[str], view_param, seed_param, tips_x: str):
    y = alt.Y("value:Q", title=y_title, scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"))
    enc = series("scheme", NAMES, legend=False)
    keep = alt.datum.seed == seed_param
    if view_param is not None:
        keep = keep & (alt.datum.view == view_param)
    tips = [alt.Tooltip("scheme:N"), alt.Tooltip("x:Q", title=tips_x), alt.Tooltip("value:Q", format=".1%",
                                                                                    title="accuracy"),
            alt.Tooltip("lowest:Q", format=".1%"), alt.Tooltip("highest:Q", format=".1%")]
    band = alt.Chart(named("points")).mark_area(opacity=0.15, aria=False).encode(
        x=x, y=alt.Y("lowest:Q", scale=alt.Scale(domain=[0, 1])), y2="highest:Q",
        color=alt.Color("scheme:N", scale=COLOURS, legend=None)).transform_filter(keep)
    line = alt.Chart(named("points")).mark_line(point=alt.OverlayMarkDef(size=40, filled=True), strokeWidth=2.5,
                                                aria=False).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"], shape=enc["shape"],
        tooltip=tips).transform_filter(keep)
    label = alt.Chart(named("ends")).mark_text(align="left", dx=8, aria=False).encode(
        x=x, y=alt.Y("value:Q"), text="label:N",
        color=alt.Color("scheme:N", scale=COLOURS, legend=None)).transform_filter(keep)
    return band, line, label


@layout
def _accuracy_layout(lengths: Sequence[float], seeds: Sequence[str]) -> alt.LayerChart:
    """Lines, band and labels over the test ``lengths`` (ticks; the domain runs on for the labels), the view and
    the seed picked in the chart."""
    view = alt.param(name="lab_view", value=VIEWS[1], bind=alt.binding_radio(options=list(VIEWS), name="count "))
    seed = alt.param(name="lab_seed", value=MEAN, bind=alt.binding_select(options=list(seeds), name="seed "))
    x = alt.X("x:Q", title="test length (tokens)", scale=alt.Scale(domain=[0, max(lengths) * 1.25]),
              axis=alt.Axis(values=list(lengths)))
    band, line, label = _lines(x, "accuracy", seeds, view, seed, "test length")
    rule = alt.Chart(named("marks")).mark_rule(color=REFERENCE, strokeDash=[4, 3], aria=False).encode(x=x)
    rule_text = alt.Chart(named("marks")).mark_text(color=REFERENCE, align="left", dx=4, y=8, aria=False).encode(
        x=x, text="label:N")
    chance = alt.Chart(named("chance")).mark_rule(color=REFERENCE, strokeDash=[1, 3], aria=False).encode(
        y="value:Q")
    chance_text = alt.Chart(named("chance")).mark_text(color=REFERENCE, align="right", dy=-6, x="width",
                                                       aria=False).encode(y="value:Q", text="label:N")
    return alt.layer(band, line, label, rule, rule_text, chance, chance_text).add_params(view, seed).properties(
        width="container", height=290, title=alt.Title("Accuracy at each test length",
                                                       subtitle="band: lowest to highest seed"))


def position_figure(record: dict) -> Figure:
    """Accuracy at each position of the 4 × L_train test sequences, per scheme, one seed or the mean (picked in
    the chart); the training length and the learned table's last row marked."""
    s = settings_from(record)
    n = 4 * s.L_train
    positions = np.arange(1, n + 1, dtype=float)
    points, ends = _curves(record, positions, lambda run, v: run["by_position"], ("by position",))
    marks = columns(x=[s.L_train + 0.5, s.n_max + 0.5], row=[0.015, 0.09],
                    label=[f"trained up to {s.L_train}", f"learned: no row past {s.n_max}"])
    seeds = seed_labels(record)
    return figure(_position_layout(n, seeds), {"points": points, "ends": ends, "marks": marks}, description=(
        f"Accuracy at each position of test sequences {n} tokens long, per scheme ({count(len(seeds) - 1, 'seed')}; "
        "pick one or their mean under the chart). Positions right of the first dashed rule were never seen in "
        "training; the learned table has no row past the second."),
        reading=f"The first rule stands after position {s.L_train}, the second after {s.n_max}: positions "
                f"{s.L_train + 1}–{n} were never seen in training, and the learned table has no row past {s.n_max}.")


@layout
def _position_layout(n: int, seeds: Sequence[str]) -> alt.LayerChart:
    seed = alt.param(name="lab_pseed", value=MEAN, bind=alt.binding_select(options=list(seeds), name="seed "))
    x = alt.X("x:Q", title="position in the sequence (1-based)", scale=alt.Scale(domain=[0, n * 1.22]),
              axis=alt.Axis(values=list(range(0, n + 1, max(4, n // 8)))))
    band, line, label = _lines(x, "accuracy at that position", seeds, None, seed, "position")
    line = line.mark_line(strokeWidth=2, aria=False)
    rule = alt.Chart(named("marks")).mark_rule(color=REFERENCE, strokeDash=[4, 3], aria=False).encode(x=x)
    text = alt.Chart(named("marks")).mark_text(color=REFERENCE, align="left", dx=4, aria=False).encode(
        x=x, y=alt.Y("row:Q", scale=alt.Scale(domain=[0, 1]), axis=None), text="label:N")
    return alt.layer(band, line, label, rule, text).add_params(seed).properties(
        width="container", height=260, title=alt.Title(f"Accuracy by position, {n} tokens",
                                                       subtitle="band: lowest to highest seed"))


def attention_figure(record: dict) -> Figure:
    """The attention maps at 4 × L_train: scheme, seed and layer picked in the chart; outlined cells: where the
    task's answer sits. Cells under the kept floor are not sent (drawn as blank, i.e. ≈ 0)."""
    s = settings_from(record)
    maps = record["map"]["maps"]
    tokens = record["map"]["tokens"]
    n = len(tokens)
    bos = int(s.bos)
    n_seeds = min(MAP_SEEDS_SHOWN, len(maps[NAMES[0]]))
    seeds = [f"seed {x}" for x in record["seeds"][:n_seeds]]
    ans = answer_keys(np.asarray(tokens), s.task, s.k)
    n_maps = len(NAMES) * n_seeds * s.n_layers
    cap = (MAX_MARKS - len(ans) - 1) // n_maps  # the strongest cells of each map, so the chart stays small
    cols = {k: [] for k in ("scheme", "seed", "layer", "query", "key", "weight")}
    for code, scheme in enumerate(NAMES):
        for si in range(n_seeds):
            for layer, cells in enumerate(maps[scheme][si]):
                qkw = np.array(cells, dtype=float).reshape(-1, 3)
                qkw = qkw[qkw[:, 0] != 0] if bos else qkw  # not the start token's own row
                qkw = qkw[np.argsort(-qkw[:, 2], kind="stable")[:cap]]  # the strongest first (ties: as stored)
                for name, col in (("scheme", np.full(len(qkw), code)), ("seed", np.full(len(qkw), si)),
                                  ("layer", np.full(len(qkw), layer)), ("query", qkw[:, 0] - bos + 1),
                                  ("key", qkw[:, 1] - bos + 1), ("weight", qkw[:, 2])):  # key 0: the start token
                    cols[name].append(col)
    cols = {name: np.concatenate(parts) for name, parts in cols.items()}
    layers = [f"layer {i + 1}" for i in range(s.n_layers)]
    cells = columns(scheme=categories(cols["scheme"], NAMES), seed=categories(cols["seed"], seeds),
                    layer=categories(cols["layer"], layers), query=_whole(cols["query"]), key=_whole(cols["key"]),
                    weight=_real(cols["weight"]))
    answers = columns(query=_whole([i + 1 for i, _ in ans]), key=_whole([j + 1 for _, j in ans]))
    return figure(_attention_layout(n, s.L_train, s.n_max, bool(bos), tuple(seeds), tuple(layers)),
                  {"cells": cells, "answers": answers, "marks": columns(query=[s.L_train + 0.5])}, description=(
        f"Attention weights on one test sequence of {n} tokens (4 × the training length {s.L_train}), one scheme, "
        f"seed and layer at a time (picked under the chart); row = query position, column = key position "
        f"(1-based{', 0 = the start token' if bos else ''}). Outlined: the key that holds the answer. Rows below "
        f"the dashed rule are past the training length; the learned table's map stops at row {s.n_max}."),
        reading=f"Each map sends its {cap} strongest cells of weight ≥ {MAP_FLOOR}; the rest draw blank.")


@layout
def _attention_layout(n: int, L: int, n_max: int, bos: bool, seeds: Sequence[str],
                      layers: Sequence[str]) -> alt.LayerChart:
    pick = alt.param(name="lab_mscheme", value="rope", bind=alt.binding_radio(options=list(NAMES), name="scheme "))
    seed = alt.param(name="lab_mseed", value=seeds[0], bind=alt.binding_select(options=list(seeds), name="seed "))
    layer = alt.param(name="lab_mlayer", value=layers[-1],
                      bind=alt.binding_radio(options=list(layers), name="layer "))
    lo = 0 if bos else 1
    xs = alt.Scale(domain=[lo - 0.5, n + 0.5], nice=False, zero=False)
    ys = alt.Scale(domain=[n + 0.5, 0.5], nice=False, zero=False)
    x_title = "key position" + (" (0: start token)" if bos else "")
    x_axis = alt.Axis(values=list(range(lo, n + 1, 8)))
    y_axis = alt.Axis(values=list(range(8, n + 1, 8)))
    edges = dict(k0="datum.key - 0.5", k1="datum.key + 0.5", q0="datum.query - 0.5", q1="datum.query + 0.5")
    tips = [alt.Tooltip("query:Q", title="query"), alt.Tooltip("key:Q", title="key"),
            alt.Tooltip("weight:Q", format=".2f")]
    heat = alt.Chart(named("cells")).mark_rect(aria=False).encode(
        x=alt.X("k0:Q", scale=xs, axis=x_axis, title=x_title), x2="k1:Q",
        y=alt.Y("q0:Q", scale=ys, axis=y_axis, title="query position"), y2="q1:Q", tooltip=tips,
        color=alt.Color("weight:Q", title="weight", scale=alt.Scale(scheme=SEQUENTIAL, domain=[0, 1]),
                        legend=alt.Legend(orient="right", direction="vertical", gradientLength=120)),
    ).transform_filter((alt.datum.scheme == pick) & (alt.datum.seed == seed) & (alt.datum.layer == layer)
                       ).transform_calculate(**edges)
    answer = alt.Chart(named("answers")).mark_rect(filled=False, stroke=FOCUS, strokeWidth=1.2, aria=False).encode(
        x=alt.X("k0:Q", scale=xs, axis=None), x2="k1:Q", y=alt.Y("q0:Q", scale=ys, axis=None),
        y2="q1:Q").transform_calculate(**edges).transform_filter((pick != "learned") | (alt.datum.query <= n_max))
    past = alt.Chart(named("marks")).mark_rule(color=REFERENCE, strokeDash=[4, 3], strokeWidth=1.5,
                                               aria=False).encode(y=alt.Y("query:Q", scale=ys))
    return alt.layer(heat, answer, past).add_params(pick, seed, layer).properties(
        width="container", height=260, title=alt.Title("Where each position looks, at 4 ×",
                                                       subtitle=["outlined: the answer", f"below the dashed rule: "
                                                                 f"past position {L}"]))


def angles_figure(settings) -> Figure:
    """RoPE, per pair: the share of a full turn its largest angle covered in training (gaps up to L − 1) and at
    4 × L (gaps up to 4L − 1), capped at one turn. A pair that never completed a turn in training meets angles at
    4 × L it has never seen."""
    s = settings
    dh = s.d_model // s.heads
    w = frequencies(dh, BASE)
    trained = (s.L_train - 1) * w
    tested = (4 * s.L_train - 1) * w
    pairs = np.arange(1, len(w) + 1)
    rows = columns(pair=np.repeat(pairs, 2), when=np.tile(np.array(["in training", "at 4 ×"]), len(w)),
                   turn=np.minimum(np.column_stack([trained, tested]).ravel() / (2 * math.pi), 1.0),
                   radians=np.column_stack([trained, tested]).ravel())
    unseen = int(np.sum(trained < 2 * math.pi))
    return figure(_angles_layout(len(w)), {"rows": rows}, description=(
        f"RoPE, for each of its {len(w)} pairs: how much of a full turn the largest angle covered in training and "
        "at 4 × the training length, capped at one turn. A pair that never completed a turn in training meets "
        "angles at 4 × it has never seen."),
        reading=f"Head width {dh}: gaps up to {s.L_train - 1} in training and up to {4 * s.L_train - 1} at 4 ×. "
                f"{unseen} of {len(w)} pairs never completed a turn in training.")


@layout
def _angles_layout(n_pairs: int) -> alt.LayerChart:
    y = alt.Y("pair:O", title="RoPE pair (1 = fastest)")
    bars = alt.Chart(named("rows")).mark_bar(aria=False).encode(
        x=alt.X("turn:Q", title="largest angle, as a share of one full turn", scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%")),
        y=y, yOffset=alt.YOffset("when:N", sort=["in training", "at 4 ×"]),
        color=alt.Color("when:N", sort=["in training", "at 4 ×"], title=None,
                        scale=alt.Scale(range=[REFERENCE, FOCUS]), legend=alt.Legend(orient="top")),
        tooltip=[alt.Tooltip("pair:O"), alt.Tooltip("when:N"), alt.Tooltip("radians:Q", format=".1f")])
    text = alt.Chart(named("rows")).mark_text(align="left", dx=3, aria=False).encode(
        x="turn:Q", y=y, yOffset=alt.YOffset("when:N", sort=["in training", "at 4 ×"]),
        text=alt.Text("radians:Q", format=".1f"))
    return alt.layer(bars, text).properties(width="container", height=max(110, 15 * n_pairs),
                                            title=alt.Title("RoPE: the angles each pair reached",
                                                            subtitle="labels: radians"))


def gaps_figure(record: dict) -> Figure:
    """Accuracy past the training length at 4 × L, with every key readable or only keys fewer than L_train
    places back (the gaps seen in training), toggled in the chart; lines span the seeds."""
    s = settings_from(record)
    codes, restricted, mean, lo, hi = [], [], [], [], []
    i_4L = record["test_lengths"].index(4 * s.L_train)
    for code, scheme in enumerate(NAMES):
        for r, values in ((False, [run["past"][i_4L] for run in record["runs"][scheme]]),
                          (True, [run["seen_gaps"][1] for run in record["runs"][scheme]])):
            if any(v is None for v in values):
                continue
            codes.append(code)
            restricted.append(r)
            mean.append(float(np.mean(values)))
            lo.append(float(np.min(values)))
            hi.append(float(np.max(values)))
    data = columns(scheme=categories(np.array(codes, dtype=int), NAMES), restricted=restricted, value=mean,
                   lowest=lo, highest=hi)
    no_bar = "" if NAMES.index("learned") in codes else " The learned table has no rows there, so it has no bar."
    return figure(_gaps_layout(), {"bars": data}, description=(
        "Accuracy past the training length on test sequences 4 × as long, per scheme (mean, with a line from the "
        "lowest to the highest seed); tick the box under the chart to let each query read only the keys it could "
        "reach in training, fewer places back than the training length."),
        reading=f"Here: positions {s.L_train + 1}–{4 * s.L_train} of {4 * s.L_train}-token sequences; ticked, each "
                f"query reads only keys fewer than {s.L_train} places back.{no_bar}")


@layout
def _gaps_layout() -> alt.LayerChart:
    only = alt.param(name="lab_gaps", value=False, bind=alt.binding_checkbox(name="only gaps seen in training "))
    keep = alt.datum.restricted == only
    y = alt.Y("scheme:N", sort=NAMES, title=None)
    x = alt.X("value:Q", title="accuracy past the training length", scale=alt.Scale(domain=[0, 1]),
              axis=alt.Axis(format="%"))
    bars = alt.Chart(named("bars")).mark_bar(aria=False).encode(
        x=x, y=y, color=alt.Color("scheme:N", scale=COLOURS, legend=None),
        tooltip=[alt.Tooltip("scheme:N"), alt.Tooltip("value:Q", format=".1%", title="mean"),
                 alt.Tooltip("lowest:Q", format=".1%"), alt.Tooltip("highest:Q", format=".1%")]).transform_filter(keep)
    spread = alt.Chart(named("bars")).mark_rule(color="#222222", aria=False).encode(
        x="lowest:Q", x2="highest:Q", y=y).transform_filter(keep)
    text = alt.Chart(named("bars")).mark_text(align="left", dx=4, aria=False).encode(
        x="highest:Q", y=y, text=alt.Text("value:Q", format=".0%")).transform_filter(keep)
    return alt.layer(bars, spread, text).add_params(only).properties(
        width="container", height=150, title="Past the training length, at 4 ×")


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
    last = [f"{scheme} {float(m):.3f}" for scheme, m in zip(NAMES, mean[len(steps) - 1::len(steps)])]
    return _loss(codes, xs, mean, lo, hi, vocab, float(steps[-1]),
                 "Training loss against step for the five schemes (mean over the seeds, band: lowest to "
                 "highest), the same steps and settings for each; the dotted rule is the loss of a uniform guess.",
                 f"At step {int(steps[-1]):,} the mean loss is {listing(last)}.")


def live_loss_figure(losses: dict[str, list[float]], vocab: int, steps: int) -> Figure:
    """The loss of the runs in progress (each scheme's seeds train together: their mean), every step so far
    (thinned to ≤ 200 points a curve)."""
    codes, xs, ys, latest = [], [], [], []
    for code, scheme in enumerate(NAMES):
        ls = list(losses.get(scheme, []))
        every = max(1, len(ls) // 200)
        for i in range(0, len(ls), every):
            codes.append(code)
            xs.append(i + 1)
            ys.append(ls[i])
        if ls:
            latest.append(f"{scheme} {ls[-1]:.3f} at step {len(ls):,}")
    reading = (f"Latest loss, of {steps:,} steps: {listing(latest)}." if latest else "No step has finished yet.")
    return _loss(codes, xs, ys, ys, ys, vocab, float(steps),
                 "Training loss of the runs in progress for each scheme (the mean over its seeds), step by step, while "
                 "it trains; the dotted rule is the loss of a uniform guess.", reading)


def _loss(codes, xs, mean, lo, hi, vocab, last_step, description, reading) -> Figure:
    finite = np.asarray(hi, float)[np.isfinite(hi)] if len(hi) else np.array([])
    top = nice_bound(max(float(finite.max()) * 1.05, math.log(vocab) * 1.05)) if finite.size else \
        nice_bound(math.log(vocab) * 1.05)
    ends_i = [max((j for j, c in enumerate(codes) if c == i), default=None) for i in range(len(NAMES))]
    have = [i for i, j in enumerate(ends_i) if j is not None]
    ends = columns(scheme=categories(np.array(have, dtype=int), NAMES), step=[float(xs[ends_i[i]]) for i in have],
                   loss=dodge([mean[ends_i[i]] for i in have], 0.06 * top), label=[NAMES[i] for i in have])
    data = {"loss": columns(scheme=categories(np.array(codes, dtype=int), NAMES), step=_whole(xs),
                            loss=_real(mean), lowest=_real(lo), highest=_real(hi)),
            "ends": ends, "guess": columns(loss=[math.log(vocab)], label=[f"uniform guess: ln {vocab}"])}
    return figure(_loss_layout(float(top), last_step), data, description=description,
                  reading=f"{reading} A uniform guess scores ln {vocab} = {math.log(vocab):.3f}.")


@layout
def _loss_layout(top: float, last_step: float) -> alt.LayerChart:
    """Mean line, seed band, direct labels and the uniform guess; the loss axis runs from 0 to ``top``."""
    x = alt.X("step:Q", title="training step", scale=alt.Scale(domain=[0, last_step * 1.15]))
    y = alt.Y("loss:Q", title="training loss", scale=alt.Scale(domain=[0, top]))
    enc = series("scheme", NAMES, legend=False)
    band = alt.Chart(named("loss")).mark_area(opacity=0.15, aria=False).encode(
        x=x, y=alt.Y("lowest:Q", scale=alt.Scale(domain=[0, top])), y2="highest:Q",
        color=alt.Color("scheme:N", scale=COLOURS, legend=None))
    line = alt.Chart(named("loss")).mark_line(strokeWidth=2, aria=False).encode(
        x=x, y=y, color=enc["color"], strokeDash=enc["strokeDash"],
        tooltip=[alt.Tooltip("scheme:N"), alt.Tooltip("step:Q"), alt.Tooltip("loss:Q", format=".3f")])
    label = alt.Chart(named("ends")).mark_text(align="left", dx=6, aria=False).encode(
        x=x, y=y, text="label:N", color=alt.Color("scheme:N", scale=COLOURS, legend=None))
    guess = alt.Chart(named("guess")).mark_rule(color=REFERENCE, strokeDash=[1, 3], aria=False).encode(y="loss:Q")
    guess_text = alt.Chart(named("guess")).mark_text(color=REFERENCE, align="right", dy=-6, x="width",
                                                     aria=False).encode(y="loss:Q", text="label:N")
    return alt.layer(band, line, label, guess, guess_text).properties(
        width="container", height=260, title="Training loss")

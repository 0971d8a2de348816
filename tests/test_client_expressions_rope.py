"""The RoPE page's client-side closed forms, checked against posenc: the pair-circle chart turns q and k, sums
the score and measures the angle in Vega expressions (so a drag or the play button redraws with no rerun); the
lengths chart turns q by the in-chart m and measures it, beside the raw index's length at m. This file runs the
charts' own transforms — read from the figure's spec, not retyped — with the tests' one mirror of the Vega
expression language (``conftest.vega_eval``), over the data the figure ships, at several slider values, d and
seeds, and compares every number the chart draws with ``posenc``."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import posenc
from conftest import calculated, own_params, rows_of, run_transforms, vega_eval
from posenc import chapter
from posenc.charts import rope as rc
from posenc.charts.spec import nice_bound, records
from posenc.core import signed
from posenc.encodings import rope, rope_score
from posenc.rope_demo import WINDOW, length_demo, rope_demo, score_window, wrap_angle

TOKENS = posenc.tokenize(chapter.SENTENCE)
QI, KI = chapter.query_index(TOKENS), chapter.key_index(TOKENS)


# ---------------------------------------------------------------- the score window
@pytest.mark.parametrize("d,seed,qi,start", [(64, 0, QI, 1), (8, 3, 4, 1), (128, 1, QI, 4000)])
def test_window_colours_and_tooltips_are_posencs_scores(d, seed, qi, start):
    """Each cell's colour at either pick is posenc's score at (m, n) for that scheme, and its tooltip writes that
    score, m, n and the gap as d3's format would in the browser (the mirror's ``format``)."""
    w = score_window(TOKENS, qi, KI, d, seed, start)
    spec = records(rc.score_window(w.positions, w.rope_scores, w.additive_scores))
    rows = spec["datasets"]["main"]
    assert len(rows) == WINDOW * WINDOW  # one rect a cell, both schemes' scores on it
    assert spec["mark"]["tooltip"] == {"expr": rc.WINDOW_TIP}
    field = spec["encoding"]["color"]["field"]
    for scheme, S in zip(rc.SCHEMES, (w.rope_scores, w.additive_scores)):
        params = {rc.SCHEME: scheme}
        drawn = run_transforms(rows, spec.get("transform", []), params)
        cells = {(r["m"] - start, r["n"] - start): r for r in drawn}
        assert len(cells) == WINDOW * WINDOW
        for (a, b), r in cells.items():
            assert r[field] == S[a, b]
            tip = {k: vega_eval(v, r, params) for k, v in rc.WINDOW_TIPS.items()}
            assert tip == {
                "scheme": scheme,
                "query position m": vega_eval("format(datum.v, ',d')", {"v": start + a}),
                "key position n": vega_eval("format(datum.v, ',d')", {"v": start + b}),
                "gap n − m": vega_eval("format(datum.v, ',d')", {"v": b - a}),
                "score": vega_eval("format(datum.v, '.6f')", {"v": float(S[a, b])}),
            }


# ---------------------------------------------------------------- the pair circles
def circles(d: int, seed: int, tokens=TOKENS, qi=QI, ki=KI):
    r = rope_demo(tokens, qi, ki, d, seed)
    fig = rc.pair_circles(r.thetas, r.q_pairs, r.k_pairs, n=r.n, gap=r.n - r.m, score=r.score)
    return r, records(fig)


def drawn(spec: dict, params: dict) -> dict[str, dict]:
    """The one row each pair-layer draws at these slider values, by the text or field it shows."""
    pairs = spec["datasets"]["pairs"]
    opened = {p["name"]: p["value"] for p in spec.get("params", []) if "value" in p}  # BOUND, and the rest
    params = {**opened, **params, "data": lambda name: [SimpleNamespace(**r) for r in spec["datasets"][name]]}
    [turned] = [layer for layer in spec["layer"] if layer.get("data", {}).get("name") == "pairs"]
    shared = run_transforms(pairs, turned["transform"], params)  # once a frame, for every mark below
    out = {}
    for layer in turned["layer"]:
        [row] = run_transforms(shared, layer.get("transform", []), params)
        out[layer["mark"]["type"] + ":" + str(layer["encoding"].get("x", {}).get("field"))
            + ":" + str(row.get("text", ""))] = row
    return out


@pytest.mark.parametrize("d,seed", [(2, 0), (4, 1), (8, 0), (64, 0), (64, 7), (512, 3)])
@pytest.mark.parametrize("n,gap,fraction", [(7, -3, 0.0), (37, -3, 1 / 255), (3997, -3, 0.5), (0, 0, 1.0),
                                            (4000, -20, 0.3), (123, -11, 0.75)])
def test_turned_pairs_score_and_angle_match_posenc(d, seed, n, gap, fraction):
    r, spec = circles(d, seed)
    half = d // 2
    pair = rc.pair_index(fraction, half)  # the browser's pick: Math.round(fraction · (d/2 − 1))
    assert pair == math.floor(fraction * (half - 1) + 0.5) and 0 <= pair < half
    params = {rc.KEY_POSITION: n, rc.GAP: gap, rc.PAIR: fraction}
    m = n - gap
    rows = drawn(spec, params)
    assert rows, "the pair layers draw one row each"
    q_turned = rope(r.q, [m])[0].reshape(-1, 2)[pair]
    k_turned = rope(r.k, [n])[0].reshape(-1, 2)[pair]
    score = rope_score(r.q, r.k, m, n) / np.sqrt(d)
    angle = float(wrap_angle(np.arctan2(k_turned[1], k_turned[0]) - np.arctan2(q_turned[1], q_turned[0])))
    tol = 1e-12 * max(m, 100)
    for row in rows.values():
        assert row["pair"] == pair and row["m"] == m
        assert row["qx"] == pytest.approx(q_turned[0], abs=tol) and row["qy"] == pytest.approx(q_turned[1], abs=tol)
        assert row["kx"] == pytest.approx(k_turned[0], abs=tol) and row["ky"] == pytest.approx(k_turned[1], abs=tol)
        assert row["score"] == pytest.approx(score, abs=tol * d)
        assert math.remainder(row["angle"] - angle, 2 * math.pi) == pytest.approx(0, abs=tol)
        assert -math.pi < row["angle"] <= math.pi
    # the readouts and labels the chart writes
    texts = {k.split(":", 2)[2] for k in rows}
    assert f"score (all pairs) {score:.6f}".replace("-", "−") in texts
    assert f"q at m = {m:,}" in texts and f"k at n = {n:,}" in texts
    assert any(t.startswith(f"gap n − m = {signed(gap)} · angle q → k ") for t in texts)  # d3's minus, −
    assert f"pair i = {pair} of 0 … {half - 1} · θᵢ = {r.thetas[pair]:.3g}" in texts
    # each label is placed by the chart's own expressions (rc.label_marks), on a white halo drawn under it
    looks = label_looks(spec)
    assert set(looks) == {"q", "k"}
    for v, (halo, label) in looks.items():
        assert halo["stroke"] == "#ffffff" and halo["strokeWidth"] >= 3 and label.get("stroke") is None
        for prop, expr in rc.label_marks(v).items():
            if prop != "up":
                assert halo[prop] == label[prop] == {"expr": expr}, (v, prop)


def label_looks(spec: dict) -> dict[str, tuple[dict, dict]]:
    """The turned pair's two labels, each as (its halo's mark, its own mark), by the point they name."""
    [turned] = [layer for layer in spec["layer"] if layer.get("data", {}).get("name") == "pairs"]
    texts = [layer for layer in turned["layer"] if layer["mark"]["type"] == "text"
             and layer["encoding"]["x"].get("field") in ("qx", "kx")]
    out: dict[str, list] = {}
    for layer in texts:
        out.setdefault(layer["encoding"]["x"]["field"][0], []).append(layer["mark"])
    return {v: tuple(marks) for v, marks in out.items()}


def label_box(row: dict, v: str, params: dict, text: str) -> tuple[float, float, float, float]:
    """The label's box in screen px (x0, y0, x1, y1; y down), the plot's centre at (0, 0): its point placed by the
    scales (height / 2R px a unit on both axes), then Vega's dx, dy, align and baseline, at a bold text's width
    (0.62 text sizes a character, more than Source Sans' widest digits) and the text size's height."""
    at = {k: vega_eval(e, row, params) for k, e in rc.label_marks(v).items()}
    unit = params["height"] / (2 * params[rc.BOUND])
    font = 18 if params["pe_present"] == "1" else 13
    x, y = row[f"{v}x"] * unit + at["dx"], -row[f"{v}y"] * unit + at["dy"]
    w = 0.62 * font * len(text)
    x0 = {"left": x, "right": x - w, "center": x - w / 2}[at["align"]]
    y0 = {"bottom": y - font, "top": y, "middle": y - font / 2}[at["baseline"]]
    return x0, y0, x0 + w, y0 + font


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("present", ["", "1"])
@pytest.mark.parametrize("height", [150, 320])
@pytest.mark.parametrize("q_len,k_len", [(1.3, 0.55), (0.55, 1.3), (1.0, 1.0), (2.9, 0.2), (0.05, 0.05)])
def test_the_labels_never_overlap_each_other_or_the_turned_points(present, height, q_len, k_len):
    """At every pair of angles (every 7.5°), q's label and k's stay clear of each other and of both filled
    points (6.5 px in radius, with a pixel to spare): near in height, the upper point's label goes above it and
    the lower's below; far apart, each goes outwards."""
    R = rc.circle_reach(max(q_len, k_len))
    params = {"height": height, rc.BOUND: R, "pe_present": present}
    unit = height / (2 * R)
    steps = np.radians(np.arange(0, 360, 7.5))
    longest = "q at m = 4,000"
    for aq in steps:
        for ak in steps:
            row = {"qx": q_len * np.cos(aq), "qy": q_len * np.sin(aq), "qlen": q_len,
                   "kx": k_len * np.cos(ak), "ky": k_len * np.sin(ak), "klen": k_len}
            boxes = {v: label_box(row, v, params, longest) for v in "qk"}
            assert not overlaps(boxes["q"], boxes["k"]), (aq, ak, boxes)
            for v in "qk":
                px, py = row[f"{v}x"] * unit, -row[f"{v}y"] * unit
                dot = (px - 7.5, py - 7.5, px + 7.5, py + 7.5)
                for w in "qk":
                    assert not overlaps(boxes[w], dot), (w, "on", v, aq, ak)


def test_the_axes_reach_just_past_the_longest_pair():
    assert rc.circle_reach(2.7) == 3 and rc.circle_reach(2.6) == 3 and rc.circle_reach(1.3) == 1.5
    for longest in np.linspace(0.3, 9, 40):
        R = rc.circle_reach(longest)
        assert nice_bound(R) == R and rc.REACH_ROOM * longest <= R <= 1.34 * rc.REACH_ROOM * longest


@pytest.mark.parametrize("height,present,reach", [(320, "", 3.0), (150, "1", 3.0), (320, "", 0.5), (150, "1", 8.0)])
@pytest.mark.parametrize("aspect", [1.0, 2.3])
def test_the_ticks_are_round_symmetric_and_spaced_for_their_labels(height, present, reach, aspect):
    """Each axis' ticks: symmetric about 0, inside the axis, one step of 0.5, 1, 2, 5 or 10 apart, at least two
    (x) or 1.5 (y) text sizes of screen apart, so the labels never touch (projected, ±9 in ones did)."""
    spec = rc.circles_spec()
    width = aspect * height
    params = {"height": height, "width": width, rc.BOUND: reach, "pe_present": present}
    font = 18 if present == "1" else 13
    unit = height / (2 * reach)
    for channel, extent in (("x", reach * aspect), ("y", reach)):
        values = vega_eval(spec["layer"][0]["encoding"][channel]["axis"]["values"]["expr"], params=params)
        assert values and values == [-v for v in reversed(values)] and max(values) <= extent + 1e-9
        step = values[1] - values[0] if len(values) > 1 else None
        if step is not None:
            assert step in (0.5, 1, 2, 5, 10) and step * unit >= 1.5 * font


@pytest.mark.parametrize("d,seed", [(4, 0), (64, 0), (128, 5)])
def test_play_keeps_the_score_and_the_angle(d, seed):
    """Play sweeps the key position with the gap fixed: the chart's score and angle stay where posenc puts
    them — equal along the sweep, to rounding — and at the chapter's pairs they are the chapter's score."""
    r, spec = circles(d, seed)
    gap = r.n - r.m
    sweep = [drawn(spec, {rc.KEY_POSITION: n, rc.GAP: gap, rc.PAIR: rc.PAIR_OPEN}) for n in (0, 7, 37, 250, 3997, 4000)]
    scores = [next(iter(rows.values()))["score"] for rows in sweep]
    angles = [next(iter(rows.values()))["angle"] for rows in sweep]
    assert np.ptp(scores) < 1e-11 * d and np.ptp(angles) < 1e-11
    at = {n: drawn(spec, {rc.KEY_POSITION: n, rc.GAP: gap, rc.PAIR: rc.PAIR_OPEN}) for _, n in chapter.PAIRS}
    for (_, n), expected in zip(chapter.PAIRS, r.pair_scores):
        assert next(iter(at[n].values()))["score"] == pytest.approx(expected, abs=1e-11 * d)


def test_a_different_gap_changes_the_score():
    r, spec = circles(64, 0)
    a = next(iter(drawn(spec, {rc.KEY_POSITION: 7, rc.GAP: -3, rc.PAIR: 0.0}).values()))["score"]
    b = next(iter(drawn(spec, {rc.KEY_POSITION: 7, rc.GAP: -4, rc.PAIR: 0.0}).values()))["score"]
    assert abs(a - b) > 1e-3
    assert b == pytest.approx(rope_score(r.q, r.k, 11, 7) / 8.0, abs=1e-12)


def test_circles_radius_is_the_picked_pairs_length():
    r, spec = circles(16, 2)
    by_pair = {row["pair"]: row for row in spec["datasets"]["pairs"]}
    layers = [layer for layer in spec["layer"] if layer.get("data", {}).get("name") == "unit"]
    assert len(layers) == 2
    for layer, vectors in zip(layers, (r.q_pairs, r.k_pairs)):
        first, lookup, *rest = layer["transform"]
        assert first == {"calculate": rc.PAIR_PICK, "as": "pair"}
        assert lookup["lookup"] == "pair" and lookup["from"]["data"]["name"] == "pairs"
        for fraction in (0.0, 0.43, 1.0):
            [picked] = {row["pair"] for row in run_transforms(spec["datasets"]["unit"], [first], {rc.PAIR: fraction})}
            pair = rc.pair_index(fraction, 8)
            assert picked == pair
            rows = [dict(u, pair=pair, **{f: by_pair[pair][f] for f in lookup["from"]["fields"]})
                    for u in spec["datasets"]["unit"]]
            out = run_transforms(rows, rest, {rc.PAIR: fraction})
            radius = np.hypot([o["cx"] for o in out], [o["cy"] for o in out])
            assert np.max(np.abs(radius - np.hypot(*vectors[pair]))) < 1e-12


def test_the_sliders_open_at_the_chapters_first_pair_and_are_named_for_the_address():
    r, spec = circles(64, 0)
    params = {p["name"]: p for p in own_params(spec) if "bind" in p}
    assert set(params) == {rc.KEY_POSITION, rc.GAP, rc.PAIR} and all(k.startswith("rp_") for k in params)
    reach = next(p["value"] for p in spec["params"] if p["name"] == rc.BOUND)  # no input: the axes' end, per figure
    assert reach == rc.circle_reach(max(np.hypot(*np.asarray(r.q_pairs).T).max(),
                                        np.hypot(*np.asarray(r.k_pairs).T).max()))
    (m, n) = chapter.PAIRS[0]
    assert params[rc.KEY_POSITION]["value"] == n and params[rc.GAP]["value"] == n - m
    assert params[rc.PAIR]["value"] == rc.PAIR_OPEN and params[rc.PAIR]["bind"]["max"] == 1
    # the opening pair turns about 0.01 radian a position at every d (a few degrees a frame while playing)
    for d in (4, 8, 64, 512):
        th = rope_demo(TOKENS, QI, KI, d, 0).thetas
        assert 0.004 < th[rc.pair_index(rc.PAIR_OPEN, d // 2)] < 0.02
    assert params[rc.KEY_POSITION]["bind"]["max"] >= max(b for _, b in chapter.PAIRS)
    assert params[rc.GAP]["bind"]["min"] <= min(b - a for a, b in chapter.PAIRS) <= params[rc.GAP]["bind"]["max"]
    for layer in spec["layer"][:2] + spec["layer"][2]["layer"]:
        assert layer["mark"]["aria"] is False


# ---------------------------------------------------------------- lengths: the query word at the in-chart m
def lengths_figure(d: int, seed: int, qi: int = QI, tokens=TOKENS):
    """The lengths chart as the page builds it, opening at the chapter's 500."""
    L = length_demo(tokens, qi, d, seed, chapter.RAW_POSITION)
    return L, rc.lengths(L.positions, L.rope_norms, L.raw_norms, L.thetas, L.q_pairs, L.x_norm, opening=L.m,
                         turned=L.rotated_q_norm, raw=L.raw_norm)


def at_m_layer(fig) -> dict:
    """The one layer over the "pairs" data: every mark at m draws its rows."""
    [layer] = [layer for layer in fig.spec["layer"] if layer.get("data", {}).get("name") == "pairs"]
    return layer


@pytest.mark.parametrize("d,seed,qi", [(2, 0, QI), (8, 3, 4), (64, 0, QI), (64, 7, 1), (512, 1, QI)])
@pytest.mark.parametrize("m", [rc.LENGTH_MS[0], 2, 37, chapter.RAW_POSITION, 4321, rc.LENGTH_MS[1]])
def test_the_marks_at_m_are_posencs_lengths_at_m(d, seed, qi, m):
    """Each pair of q turned by m·θ_i in the browser is posenc's RoPE of q at m; summed, the turned q's length is
    posenc's ‖q R_mᵀ‖ (= ‖q‖), the raw index's point is ‖[x ; m]‖, and the texts the chart writes are d3's."""
    L, fig = length_demo(TOKENS, qi, d, seed, m), lengths_figure(d, seed, qi)[1]
    layer, params = at_m_layer(fig), {rc.LENGTH_M: m}
    rows = rows_of(fig, "pairs")
    assert len(rows) == d // 2
    turned = calculated(layer, rows, params)  # each pair, as it goes into the sum
    expected = rope(L.q_pairs.ravel(), [m])[0].reshape(-1, 2)
    tol = 1e-12 * max(m, 100) * max(L.q_norm, 1.0)
    np.testing.assert_allclose([[r["qx"], r["qy"]] for r in turned], expected, rtol=0, atol=tol)
    [row] = run_transforms(rows, layer["transform"], params)  # one row draws every mark at m
    assert row["position"] == m
    assert row["rope"] == pytest.approx(L.rotated_q_norm, rel=1e-12) and row["rope"] == pytest.approx(L.q_norm,
                                                                                                       rel=1e-12)
    assert row["raw"] == pytest.approx(L.raw_norm, rel=1e-14) and row["raw"] == pytest.approx(np.hypot(L.x_norm, m))
    assert row["rope_text"] == vega_eval("format(datum.v, '.3f')", {"v": L.rotated_q_norm}) == f"{L.q_norm:.3f}"
    assert row["raw_text"] == vega_eval("format(datum.v, ',.1f')", {"v": L.raw_norm}) == f"{L.raw_norm:,.1f}"
    assert row["note"] == f"Marked: m = {m:,}."
    # every mark at m reads fields the parent computed (none computes its own)
    for mark in layer["layer"]:
        assert not mark.get("transform")
        fields = {e["field"] for e in mark["encoding"].values() if isinstance(e, dict) and "field" in e}
        assert fields and fields <= set(row), (mark["mark"], fields)


def test_the_lengths_slider_opens_at_500_and_reaches_the_chapters_positions():
    _, fig = lengths_figure(64, 0)
    [param] = [p for p in own_params(fig.spec) if "bind" in p]
    assert param["name"] == rc.LENGTH_M and param["name"].startswith("rp_") and param["value"] == chapter.RAW_POSITION
    assert (param["bind"]["min"], param["bind"]["max"], param["bind"]["step"]) == (*rc.LENGTH_MS, 1)
    assert rc.LENGTH_MS[0] == 1 and max(n for _, n in chapter.PAIRS) <= rc.LENGTH_MS[1]
    # the points at m stay inside the curves' y range at every m the slider reaches: the axes never move
    main = fig.datasets["main"].column("length").to_numpy()
    for m in rc.LENGTH_MS:
        [row] = run_transforms(rows_of(fig, "pairs"), at_m_layer(fig)["transform"], {rc.LENGTH_M: m})
        assert main.min() <= row["rope"] * (1 + 1e-12) and row["raw"] <= main.max()

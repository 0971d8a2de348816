"""Tests for posenc.beyond: the page-level computations of "Stretching the context" (properties, hand values)."""

from __future__ import annotations

import copy
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import layout_of
from posenc.beyond import (
    DECAY_DROP,
    MAX_BF16_SPAN,
    METHODS,
    alibi_attention,
    bf16_bands,
    bf16_context,
    bf16_positions,
    decay_demo,
    precision_demo,
    stretch_demo,
    unseen_angle_pairs,
)
from posenc.core import attention, causal_mask, embed, projections, softmax, tokenize
from posenc.encodings import frequencies as rope_frequencies
from posenc.stretch import alibi_slopes

even_d = st.integers(min_value=2, max_value=128).map(lambda n: 2 * n)  # 4 … 256


# ---------------------------------------------------------------- stretching
def test_typical_setting_matches_the_published_yarn_values():
    # d = 128, L_train = 4096, s = 16: low = 20, high = 46, factor 0.1·ln 16 + 1 (REFERENCES.md / HF)
    res = stretch_demo(128, 4096, 16, 8192)
    assert (res.low, res.high) == (20, 46)
    assert res.attention_factor == pytest.approx(0.1 * math.log(16) + 1)
    assert round(res.attention_factor, 4) == 1.2773


def test_unseen_angle_pairs_by_hand():
    theta = np.array([1.0, 2 * np.pi / 100, 2 * np.pi / 1000])  # wavelengths 2π, 100, 1000
    # L_train = 500: pair 0 and 1 complete turns, pair 2 reaches half a turn
    assert unseen_angle_pairs(theta, theta, 500, 500).tolist() == [False, False, False]
    assert unseen_angle_pairs(theta, theta, 500, 501).tolist() == [False, False, True]
    assert unseen_angle_pairs(theta, theta / 2, 500, 1000).tolist() == [False, False, False]  # PI, exactly
    assert unseen_angle_pairs(theta, theta / 2, 500, 1001).tolist() == [False, False, True]


@settings(max_examples=40, deadline=None)
@given(d=even_d, L_train=st.sampled_from([64, 512, 4096, 32768]), s=st.integers(1, 64),
       base=st.sampled_from([500.0, 10000.0, 500000.0]))
def test_stretch_demo_properties(d, L_train, s, base):
    res = stretch_demo(d, L_train, s, s * L_train, base)
    theta = rope_frequencies(d, base)
    slow = L_train * theta < 2 * np.pi
    f = res.frequencies
    assert list(f) == list(METHODS)
    # PI never overreaches; unchanged RoPE overreaches every slow pair as soon as s > 1, by exactly s
    assert not res.unseen["PI"].any()
    assert res.unseen["RoPE as trained"].tolist() == (slow & (s > 1)).tolist()
    if slow.any():
        assert res.overreach["RoPE as trained"] == pytest.approx(s)
        assert res.overreach["PI"] == pytest.approx(1.0)
    # NTK keeps the fastest pair and divides the slowest by s
    assert f["NTK-aware"][0] == pytest.approx(theta[0])
    assert f["NTK-aware"][-1] == pytest.approx(theta[-1] / s, rel=1e-9)
    # YaRN: ramp 0 keeps θ, ramp 1 divides by s
    assert np.allclose(f["YaRN"][res.ramp == 0], theta[res.ramp == 0])
    assert np.allclose(f["YaRN"][res.ramp == 1], theta[res.ramp == 1] / s)
    # every pair that never turned within L_train sits at or past `high`, so YaRN interpolates it fully
    if res.high <= d // 2 - 1:
        assert not res.unseen["YaRN"].any()
    # every method only slows pairs down, never speeds them up
    for m in METHODS:
        assert np.all(f[m] <= theta * (1 + 1e-12))


@pytest.mark.parametrize("s", [1, 2, 16, 64])
def test_nothing_changes_at_s_1_and_dynamic_ntk_waits_for_L_train(s):
    res = stretch_demo(128, 4096, s, 4096)  # seq_len = L_train: dynamic NTK changes nothing
    theta = rope_frequencies(128)
    assert res.dynamic_scale == pytest.approx(1.0)
    assert np.allclose(res.frequencies["Dynamic NTK"], theta)
    if s == 1:
        for m in METHODS:
            assert np.allclose(res.frequencies[m], theta)
            assert not res.unseen[m].any()
        assert res.attention_factor == 1.0


def test_dynamic_scale_formula():
    res = stretch_demo(64, 1000, 4, 3000)  # s·L/L_train − (s − 1) = 4·3 − 3 = 9
    assert res.dynamic_scale == pytest.approx(9.0)
    assert res.dynamic_base == pytest.approx(10000.0 * 9.0 ** (64 / 62))


@pytest.mark.parametrize("args", [(7, 4096, 16, 8192), (2, 4096, 16, 8192), (128, 4, 16, 8192),
                                  (128, 4096, 0, 8192), (128, 4096, 16, 0), (128.0, 4096, 16, 8192)])
def test_bad_stretch_input_is_a_readable_valueerror(args):
    with pytest.raises(ValueError):
        stretch_demo(*args)


# ---------------------------------------------------------------- ALiBi
@pytest.mark.parametrize("heads", [1, 3, 8, 12, 16])
def test_alibi_attention_rows_and_mask(heads):
    res = alibi_attention("the dog bit the man", 16, 0, heads)
    n = 5
    assert res.weights.shape == (heads, n, n)
    assert np.allclose(res.weights.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(res.weights[:, ~causal_mask(n)] == 0.0)
    assert np.array_equal(res.slopes, alibi_slopes(heads))
    assert res.base_heads == 2 ** int(math.floor(math.log2(heads)))


def test_alibi_copies_differ_by_exactly_the_slope_times_the_distance():
    res = alibi_attention("the dog bit the man", 32, 3, 8)
    assert res.copies == (0, 3)
    # the app's query is "dog" (a word between the copies, posenc.chapter), which cannot see the second copy under
    # the causal mask; so the query is the second copy itself
    assert res.query == 3
    assert np.allclose(res.copy_log_ratio, np.log(res.weights[:, 3, 3]) - np.log(res.weights[:, 3, 0]))
    assert np.allclose(res.copy_expected, res.slopes * 3)
    assert np.max(np.abs(res.copy_log_ratio - res.copy_expected)) < 1e-12
    # the nearer copy (position 4) gets more weight from the last word, in every head with a slope > 0
    assert np.all(res.weights[:, 4, 3] > res.weights[:, 4, 0])
    # without a bias the two copies get exactly equal weight
    assert res.plain_weights[4, 3] == res.plain_weights[4, 0]


def test_alibi_matches_a_direct_computation():
    tokens = tokenize("a cat saw a big dog")
    d, seed = 24, 5
    res = alibi_attention("a cat saw a big dog", d, seed, 4)
    X = embed(tokens, d, seed)
    Wq, Wk, Wv = projections(d, seed)
    n = len(tokens)
    _, plain = attention(X, Wq, Wk, Wv, mask=causal_mask(n))
    assert np.allclose(res.plain_weights, plain, atol=1e-14)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    for h, m in enumerate(res.slopes):
        s = (X @ Wq) @ (X @ Wk).T / math.sqrt(d) - m * (i - j)
        s = np.where(j <= i, s, -np.inf)
        assert np.allclose(res.weights[h], softmax(s), atol=1e-14)


def test_alibi_without_repeats_and_bad_input():
    res = alibi_attention("one two three", 8, 0, 2)
    assert res.copies is None and res.copy_log_ratio is None and res.query is None
    with pytest.raises(ValueError):
        alibi_attention("one two", 8, 0, 0)
    with pytest.raises(ValueError):
        alibi_attention("   ", 8, 0, 2)


# ---------------------------------------------------------------- decay
@pytest.mark.parametrize("d", [4, 64, 128])
def test_decay_demo_bound_and_score(d):
    res = decay_demo(d, 10000.0, 1.0, 0, max_gap=200, step=1)
    assert res.b0 == pytest.approx((d / 2 + 1) / 2, abs=1e-12)
    assert res.bound_rel[0] == 1.0
    assert np.all(res.bound_rel <= 1.0 + 1e-12)  # |S_j(Δ)| ≤ j = |S_j(0)|
    assert res.mean[0] == pytest.approx(1.0, abs=0.05 + 3 * math.sqrt(2 / d) / 16)  # E‖k‖²/d = 1
    assert np.all(res.p05 <= res.mean + 1e-12) and np.all(res.mean <= res.p95 + 1e-12)
    assert 0 <= res.rises < res.deltas.size


def test_decay_demo_identity_and_late_mean():
    res = decay_demo(128, 10000.0, 1.0, 0)
    assert res.identity_error < 1e-9
    # with q = k the expected score / d is (2/d)·Σ_i cos(Δθ_i); the last tenth of the gaps, averaged
    theta = rope_frequencies(128)
    tail = res.deltas[-(res.deltas.size // 10):]
    expected = float(np.mean(2 / 128 * np.cos(np.outer(tail, theta)).sum(axis=1)))
    assert res.late_mean == pytest.approx(expected, abs=0.05)
    assert res.drop == pytest.approx(res.mean[0] - res.late_mean)
    assert res.drop > DECAY_DROP
    flat = decay_demo(128, 10000.0, 0.0, 0)
    assert abs(flat.drop) < DECAY_DROP  # unrelated q and k: nothing to decay from


def test_decay_demo_unrelated_q_and_k_average_to_zero():
    res = decay_demo(128, 10000.0, 0.0, 1, max_gap=100, step=5)
    assert np.max(np.abs(res.mean)) < 0.1  # each sample's score/d has std ≈ 1/√d; 256 samples
    assert np.all(res.p05 < 0) and np.all(res.p95 > 0)


# ---------------------------------------------------------------- precision
def test_bf16_positions_by_hand():
    # 250 … 256 are exact (7 values); above 256 only even numbers exist: 258, 260, …, 270 (7 more)
    info = bf16_positions(250, 270)
    assert info.distinct == 14
    assert info.max_error == 1.0
    assert bf16_positions(257, 257).stored.tolist() == [256.0]
    assert bf16_positions(0, 256).distinct == 257


def test_bf16_inputs_are_checked_before_any_array_is_built():
    with pytest.raises(ValueError, match=f"^At most {MAX_BF16_SPAN:,} positions at a time; got {MAX_BF16_SPAN + 1:,}."):
        bf16_positions(0, MAX_BF16_SPAN)
    with pytest.raises(ValueError, match="The last position must be between 5 and"):
        bf16_positions(5, 4)
    with pytest.raises(ValueError, match=f"The context length must be between 1 and {MAX_BF16_SPAN:,}"):
        bf16_context(MAX_BF16_SPAN + 1)
    with pytest.raises(ValueError, match="The first position must be a whole number; got 1.5"):
        bf16_positions(1.5, 4)


def test_bf16_bands():
    rows = bf16_bands(4096)
    assert rows[0] == (0, 255, 256, 256, 0.0)
    for k, (a, b, count, distinct, err) in zip(range(8, 12), rows[1:]):
        assert (a, b, count) == (2**k, 2 ** (k + 1) - 1, 2**k)
        # 128 multiples of 2^(k−7) inside the band, plus 2^(k+1) that the top positions round up to
        assert distinct == 129
        assert err == 2.0 ** (k - 8)
    assert sum(r[2] for r in rows) == 4096
    assert bf16_bands(100) == [(0, 99, 100, 100, 0.0)]


@pytest.mark.parametrize("L", [1, 100, 256, 257, 300, 4096, 5000, 65_537])
def test_bf16_context_agrees_with_position_by_position(L):
    # one rounding pass for the whole context gives what rounding each band (and the whole range) apart gives
    ctx = bf16_context(L)
    assert ctx.distinct == bf16_positions(0, L - 1).distinct
    for a, b, count, distinct, err in ctx.bands:
        band = bf16_positions(a, b)
        assert (count, distinct, err) == (band.positions.size, band.distinct, band.max_error)
    assert ctx.bands == bf16_bands(L)
    # bands overlap in one stored value at most (the top of a band rounds up to the next band's first value)
    assert ctx.distinct >= sum(r[3] for r in ctx.bands) - (len(ctx.bands) - 1)


def test_precision_demo():
    res = precision_demo(128, 10000.0, 0)
    assert res.probe == 5_000_000 and res.probe in res.positions
    assert res.probe_offset["float64"] < 1e-6  # float64 holds
    assert res.probe_offset["float32"] > 1e3 * res.probe_offset["float64"]  # float32 does not
    assert res.probe_spacing == 0.5  # 2^22 ≤ 5e6 < 2^23: float32 numbers are 2^(22−23) apart
    assert res.pairs.error.max() == res.probe_angle_error  # the per-pair errors and the curve agree
    assert res.worst_pair == int(np.argmax(res.pairs.error)) and res.pairs.error[0] == 0.0
    assert res.probe_angle_error > 0.01
    assert np.all(res.angle_error >= res.floor)
    for t in res.offset_error:
        assert np.all(res.offset_error[t] >= res.floor)
    # the float32 angle error grows with the position (compare decades, not neighbours)
    e = dict(zip(res.positions.tolist(), res.angle_error.tolist()))
    assert e[100.0] < e[100000.0] < e[100000000.0]


# ---------------------------------------------------------------- chart builders (validated against the schema)
def _data_names(node) -> set:
    """Names in every {"data": {"name": …}} and lookup {"from": {"data": {"name": …}}} of a spec."""
    names = set()
    if isinstance(node, dict):
        data = node.get("data")
        if isinstance(data, dict) and "name" in data:
            names.add(data["name"])
        for k, v in node.items():
            if k != "datasets":
                names |= _data_names(v)
    elif isinstance(node, list):
        for v in node:
            names |= _data_names(v)
    return names


def _inline_data(node) -> bool:
    """Whether any "data" in the spec carries its rows inline ({"values": …}) instead of a name."""
    if isinstance(node, dict):
        data = node.get("data")
        if isinstance(data, dict) and "values" in data:
            return True
        return any(_inline_data(v) for k, v in node.items() if k != "datasets")
    if isinstance(node, list):
        return any(_inline_data(v) for v in node)
    return False


def _colours(node) -> set:
    """Every literal colour (#rrggbb) a spec names."""
    if isinstance(node, dict):
        return set().union(*(_colours(v) for k, v in node.items() if k != "datasets")) if node else set()
    if isinstance(node, list):
        return set().union(*(_colours(v) for v in node)) if node else set()
    return {node.lower()} if isinstance(node, str) and re.fullmatch(r"#[0-9a-fA-F]{3,8}", node) else set()


def _all_figures(d, L_train, s, heads, sentence):
    from posenc.beyond import score_curves
    from posenc.charts import beyond as bc
    from posenc.charts import stretch as cs

    res = stretch_demo(d, L_train, s, 2 * L_train)
    al = alibi_attention(sentence, 16, 0, heads)
    dec = decay_demo(d, 10000.0, 0.5, 0)
    pr = precision_demo(d, 10000.0, 0)
    win = bf16_positions(248, 272)
    figs = [cs.turns_figure(res), cs.ratio_figure(res),
            bc.slopes_figure(al.slopes, al.base_heads), bc.alibi_figure(al), bc.bound_figure(dec),
            bc.score_figure(score_curves(d, 10000.0, 0)), bc.angle_error_figure(pr), bc.pair_error_figure(pr),
            bc.offset_figure(pr), bc.bf16_figure(win)]
    return figs


@pytest.mark.parametrize("d, L_train, s, heads, sentence", [
    (128, 4096, 16, 8, "the dog bit the man"),
    (4, 16, 1, 1, "one"),
    (512, 1_000_000, 64, 16, " ".join(f"w{i % 40}" for i in range(64))),
])
def test_chart_builders_validate_and_stay_small(d, L_train, s, heads, sentence):
    from posenc.charts import beyond as bc
    from posenc.charts import spec

    figs = _all_figures(d, L_train, s, heads, sentence)
    # the house palette, and the weight scale's two ends (a sequential scale kept light enough for dark numbers)
    allowed = {c.lower() for c in (spec.FOCUS, spec.REFERENCE, spec.TEXT, *spec.SERIES, "#ffffff", bc.HEAT_LIGHT,
                                   bc.HEAT_DARK)}
    for fig in figs:
        full = spec.validate(fig)  # against the Vega-Lite schema
        assert fig.rows <= spec.MAX_MARKS, fig.rows
        assert "tooltip" in str(fig.spec) or "text" in str(fig.spec)
        assert fig.description
        # every named data source a layer reads is one of the figure's datasets, and there is no inline data
        assert _data_names(full) <= set(fig.datasets), _data_names(full)
        assert not _inline_data(fig.spec)
        assert _colours(fig.spec) <= allowed, _colours(fig.spec) - allowed
        assert all(m.get("aria") is False for m in _marks(fig.spec)), "every mark hidden from screen readers"


def test_beyond_descriptions_stay_put_and_readings_carry_the_numbers():
    """A chart's description (its accessible name) names no number of the data: another seed or d keeps it, and
    the chart with it (Streamlit rebuilds a chart whose description changes); the numbers go in the reading,
    recomputed here from posenc."""
    from posenc.beyond import score_curves
    from posenc.charts import beyond as bc

    sentence = "the dog bit the man"
    for seed_a, seed_b, d in ((0, 1, 64), (2, 3, 128)):
        als = [alibi_attention(sentence, d, seed, 8) for seed in (seed_a, seed_b)]
        prs = [precision_demo(d, 10000.0, seed) for seed in (seed_a, seed_b)]
        scs = [score_curves(d, 10000.0, seed) for seed in (seed_a, seed_b)]
        builders = [(bc.alibi_figure, als), (bc.offset_figure, prs), (bc.angle_error_figure, prs),
                    (bc.pair_error_figure, prs), (bc.score_figure, scs)]
        for build, (x, y) in builders:
            a, b = build(x), build(y)
            assert a.description == b.description and layout_of(a) == layout_of(b)
            assert a.reading and a.spoken == f"{a.description} {a.reading}"
        # the readings, from the numbers
        al, pr, sc = als[0], prs[0], scs[0]
        j1, j2 = al.copies
        q = al.query
        read = bc.alibi_figure(al).reading
        assert (f"the query at position {q + 1} gives the copies at {j1 + 1} and {j2 + 1} weights "
                f"{al.weights[0, q, j1]:.2f} and {al.weights[0, q, j2]:.2f}") in read
        assert f"without ALiBi both get {al.plain_weights[q, j1]:.2f}" in read
        assert f"{al.weights[0, q, j1]:.2f}" not in bc.alibi_figure(al).description
        drift = bc.offset_figure(pr)
        assert f"{pr.probe_offset['float32']:.2g} in float32" in drift.reading
        assert f"{pr.probe_offset['bfloat16']:.2g} in bfloat16" in drift.reading
        assert f"m = {pr.probe:,}" in drift.reading and f"{pr.probe_offset['float32']:.2g}" not in drift.description
        assert f"{pr.probe_angle_error:.3g} rad at p = {pr.probe:,}" in bc.angle_error_figure(pr).reading
        w = int(np.argmax(pr.pairs.error))
        assert f"Pair {w} is off by {pr.pairs.error[w]:.3g} rad" in bc.pair_error_figure(pr).reading
        m = sc.mean(1.0)
        tail = max(1, sc.deltas.size // 10)
        assert f"from {m[0]:.2f} at Δ = 0 to {np.mean(m[-tail:]):.2f}" in bc.score_figure(sc).reading

    dec = decay_demo(64, 10000.0, 1.0, 0)
    bound = bc.bound_figure(dec)
    assert f"rising again at {int(np.sum(np.diff(dec.bound) > 0))} of its {dec.deltas.size - 1} steps" in bound.reading
    assert f"from {(64 / 2 + 1) / 2:g} at Δ = 0" in bound.reading and "B(0) = (d/2 + 1)/2" in bound.description
    win = bf16_positions(248, 272)
    stored = bc.bf16_figure(win)
    assert stored.reading == f"Only {len(set(win.stored))} of 25 stay distinct." and "248 to 272" in stored.description
    assert bc.bf16_figure(bf16_positions(0, 20)).reading == "All 21 stay distinct."  # every integer ≤ 256 is exact


@pytest.mark.parametrize("heads", [1, 3, 8, 12, 16])
def test_slope_chart_words_follow_alibis_two_series(heads):
    """Heads past the largest power of two c take every other slope of the 2c-head series, so the slopes do not
    fall head by head (3 heads: 1/16, 1/256, then 1/4): the description says which series each head takes, and
    the reading names both series' ends, from ``alibi_slopes``."""
    from posenc.charts import beyond as bc

    m = alibi_slopes(heads)
    c = 2 ** int(math.floor(math.log2(heads)))
    fig = bc.slopes_figure(m, c)
    if heads == 1:
        assert fig.reading == f"The slope is {2 ** -8:.3g}." and "1 heads" not in fig.spoken
        return
    assert f"each head's slope is 2^(−8/{c}) = {2 ** (-8 / c):.3g} times the one before" in fig.description \
        or f"each slope 2^(−8/{c}) = {2 ** (-8 / c):.3g} times the one before" in fig.description
    assert f"from {2 ** (-8 / c):.3g} for head 1 down to {2 ** -8:.3g} for head {c}" in fig.reading
    if heads == 3:
        assert "head 3 takes every other slope of the 4-head series" in fig.description
        assert f"head 3's is {2 ** (-8 / 4):.3g}" in fig.reading and m[2] > m[0]
    if heads == 12:
        assert "heads 9 to 12 take every other slope of the 16-head series" in fig.description
        assert f"then from {2 ** (-8 / 16):.3g} for head 9 down to {2 ** (-8 * 7 / 16):.3g} for head 12" in fig.reading


def _marks(node):
    if isinstance(node, dict):
        if isinstance(node.get("mark"), dict):
            yield node["mark"]
        for k, v in node.items():
            if k not in ("datasets", "config"):
                yield from _marks(v)
    elif isinstance(node, list):
        for v in node:
            yield from _marks(v)


def test_lines_are_named_on_the_chart_not_by_legend_blobs():
    figs = _all_figures(128, 4096, 16, 8, "the dog bit the man")
    ratio, offset = figs[1], figs[8]
    assert "legend" not in str(ratio.spec["layer"][0]["encoding"]["color"]) or \
        ratio.spec["layer"][0]["encoding"]["color"]["legend"] is None
    assert set(ratio.datasets["ends"].column("m").to_pylist()) == set(METHODS)
    assert set(offset.datasets["labels"].column("f").to_pylist()) == {"float64", "float32", "bfloat16"}
    # a label sits above (dy < 0, baseline bottom) or below its point, never across its own line
    for layer in offset.spec["layer"]:
        mark = layer.get("mark", {})
        if mark.get("type") == "text" and "dy" in mark and layer.get("encoding", {}).get("text", {}).get("field") == "f":
            assert mark["baseline"] == ("bottom" if mark["dy"] < 0 else "top")


def test_chart_builders_reject_bad_specs():
    from posenc.charts import spec

    figs = _all_figures(8, 64, 2, 2, "a b a")
    bad = spec.Figure(copy.deepcopy(figs[0].spec), figs[0].datasets)
    bad.spec["layer"][0]["mark"]["type"] = "barr"  # a mark Vega-Lite does not know
    with pytest.raises(Exception, match="barr"):
        spec.validate(bad)


def test_method_table_derives_wavelength_and_ratio():
    from posenc.charts import stretch as cs

    r = stretch_demo(16, 64, 4, 64)
    rows = cs.ratio_figure(r).datasets["methods"].to_pylist()
    assert len(rows) == len(METHODS) * 8
    for row in rows:
        assert math.isclose(row["wl"], 2 * math.pi / row["t"])
    pi = [row for row in rows if row["m"] == "PI"]
    assert all(math.isclose(row["ratio"], 1 / 4) for row in pi)  # PI divides every pair by s


def test_direct_labels_sit_on_their_lines_and_skip_coinciding_ones():
    from posenc.charts.beyond import direct_labels

    xs = np.arange(11, dtype=float)
    lines = {"a": np.full(11, 1.0), "b": np.full(11, 100.0), "c": np.full(11, 100.0)}
    rows = direct_labels(xs, lines)
    assert [r[0] for r in rows] == ["a"]  # b and c coincide everywhere: the legend names them
    assert rows[0][2] == 1.0 and 0 <= rows[0][1] <= 10
    assert direct_labels(xs, {"a": np.ones(11), "b": np.ones(11)}) == []


# ---------------------------------------------------------------------------------------------- closed forms in ρ
@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
def test_score_curves_one_draw_is_mean_rope_score_of_one_sample(rho):
    from posenc.beyond import score_curves
    from posenc.stretch import mean_rope_score

    sc = score_curves(64, 10000.0, 5, max_gap=200, step=4)
    one = mean_rope_score(sc.deltas, 64, n_samples=1, seed=5, correlation=rho)
    assert np.allclose(sc.one(rho), one.mean / 64, atol=1e-12)


@pytest.mark.parametrize("rho", [0.0, 0.6, 1.0])
def test_score_curves_mean_and_sd_agree_with_many_samples(rho):
    """E score/d = ρ·(2/d)Σcos Δθ_i and sd/d = √(ρ²·(4/d²)Σcos² + (1 − ρ²)/d): 20,000 draws agree within a few
    standard errors (sd/d ≈ 0.1 here, so its standard error over 20,000 draws is below 0.001)."""
    from posenc.beyond import score_curves
    from posenc.stretch import mean_rope_score

    sc = score_curves(128, 10000.0, 0, max_gap=400, step=8)
    stats = mean_rope_score(sc.deltas, 128, n_samples=20_000, seed=11, correlation=rho)
    assert np.max(np.abs(stats.mean / 128 - sc.mean(rho))) < 0.005
    assert np.max(np.abs(stats.std / 128 - sc.sd(rho))) < 0.005
    assert sc.mean(1.0)[0] == pytest.approx(1.0)  # (2/d)·Σ cos 0 = 1


def test_first_drift_is_the_first_position_that_drifts():
    from posenc.beyond import OFFSET_TOL, first_drift
    from posenc.precision import rope_offset_error

    for dtype in ("float32", "bfloat16"):
        m = first_drift(dtype, OFFSET_TOL)
        assert m is not None
        before = rope_offset_error(np.arange(1, m, dtype=float), 3, 128, dtype)
        assert np.all(before < OFFSET_TOL) and rope_offset_error(np.array([float(m)]), 3, 128, dtype)[0] >= OFFSET_TOL
    assert first_drift("bfloat16", OFFSET_TOL) == 1  # at once: bf16 rounds θ_i itself
    assert first_drift("float64", OFFSET_TOL, upto=10**6) is None

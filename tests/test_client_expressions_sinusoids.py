"""The sinusoid page's in-chart numbers, checked against posenc: the Vega expressions the dial charts ship (read
from the finished spec, not copied) are evaluated in Python over the chart's own data at several values of the
chart's parameters (position, base, shift), and compared with ``posenc.encodings``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import calculated, layer_with, own_params, rows_of, run_transforms, spec_layers, vega_eval
from posenc import chapter
from posenc.charts import sinusoids as sc
from posenc.encodings import frequencies, sinusoidal

POSITIONS = (0, 1, 7, 55, 100)
LOG_BASES = (0.3, 2.0, 4.0, 6.0)


@pytest.mark.parametrize("d", (2, 8, 64, 512))
@pytest.mark.parametrize("lb", LOG_BASES)
def test_the_dials_angles_and_waves_are_the_formulas(d, lb):
    pairs = sc.dial_pairs(d)
    fig = sc.dials(d, pairs, position=7, base=10 ** lb)
    base = 10 ** lb
    w = frequencies(d, base)
    rows_layer = layer_with(fig.spec, "rows", "tip")
    wave_layer = layer_with(fig.spec, "wave", "y")
    for p in POSITIONS:
        params = {"sn_pos": p, "sn_logbase": lb}
        pe = sinusoidal([p], d, base)[0]
        got = calculated(rows_layer, rows_of(fig, "rows"), params)
        assert [r["i"] for r in got] == list(pairs)
        for r in got:
            i = r["i"]
            assert r["omega"] == pytest.approx(w[i], rel=1e-12)
            assert r["tip"] - r["cy"] == pytest.approx(pe[2 * i], abs=1e-9)  # the hand's height = sin(p·ω_i)
            assert r["lam"] == pytest.approx(2 * np.pi / w[i], rel=1e-12)
            deg = (90 - r["deg"]) * math.pi / 180  # the hand's angle, back to radians counter-clockwise
            assert math.cos(deg) == pytest.approx(pe[2 * i + 1], abs=1e-9)
            assert math.sin(deg) == pytest.approx(pe[2 * i], abs=1e-9)
    waves = calculated(wave_layer, rows_of(fig, "wave")[::37], {"sn_logbase": lb})
    for r in waves:
        assert r["y"] - r["cy"] == pytest.approx(sinusoidal([r["x"]], d, base)[0][2 * r["i"]], abs=1e-9)


@pytest.mark.parametrize("d", (2, 16, 64, 512))
@pytest.mark.parametrize("k", (0, 1, 3, 30))
def test_the_shifted_hands_and_the_dot_product_readout(d, k):
    pairs = sc.dial_pairs(d)
    fig = sc.dials(d, pairs, position=0, shift=chapter.SHIFT, prefix="sn_s")
    w = frequencies(d, chapter.BASE)
    rows_layer = layer_with(fig.spec, "rows", "tip2")
    dot_layer = layer_with(fig.spec, "all", "term")
    readings = []
    for p in POSITIONS:
        params = {"sn_s_pos": p, "sn_s_k": k}
        later = sinusoidal([p + k], d, chapter.BASE)[0]
        for r in calculated(rows_layer, rows_of(fig, "rows"), params):
            i = r["i"]
            assert r["tip2"] - r["cy"] == pytest.approx(later[2 * i], abs=1e-9)
            assert r["gapdeg"] == pytest.approx(math.degrees(k * w[i]) % 360, abs=1e-9)  # k·ω_i, no p in it
        terms = calculated(dot_layer, rows_of(fig, "all"), params)
        dot = sum(t["term"] for t in terms)
        closed = sum(t["closed"] for t in terms)
        now = sinusoidal([p], d, chapter.BASE)[0]
        assert dot == pytest.approx(float(now @ later), abs=1e-9)
        assert closed == pytest.approx(float(np.sum(np.cos(k * w))), abs=1e-9)
        readings.append(dot)
    assert max(readings) - min(readings) < 1e-9  # the readout stands still while p plays


def test_a_frame_computes_one_expression_a_wave_sample():
    """Vega interprets every expression (Streamlit ships no compiled ones): what does not change with a frame is
    shipped (e = −2i/d), so a wave sample runs one calculate, and no sample depends on p."""
    fig = sc.dials(64, sc.dial_pairs(64), position=7, base=chapter.BASE)
    wave = layer_with(fig.spec, "wave", "y")
    calcs = [t for t in wave["transform"] if "calculate" in t]
    assert len(calcs) == 1 and sc.EXPR_BASE.format(prefix="sn") in calcs[0]["calculate"]
    assert "sn_pos" not in calcs[0]["calculate"] and "datum.e" in calcs[0]["calculate"]


def test_the_similarity_outline_redraws_only_its_diagonal():
    """The heat map's n² cells do not depend on the picked gap; only the outline layer does, over n rows: at every
    gap its cells are exactly that diagonal's, each with the value the heat map holds there."""
    n = 6
    S = np.arange(n * n, dtype=float).reshape(n, n) / 7  # a distinct value in every cell: a wrong lookup shows
    fig = sc.similarity(S)
    [heat] = [layer for layer in spec_layers(fig.spec) if layer.get("data", {}).get("name") == "S"]
    [outline] = [layer for layer in spec_layers(fig.spec) if layer.get("data", {}).get("name") == "diagonal"]
    assert "sn_gap" not in json.dumps(heat)
    *per_row, lookup = outline["transform"]
    assert lookup["lookup"] == "cell" and lookup["from"]["data"]["name"] == "S" and lookup["from"]["key"] == "cell"
    cells = {r["cell"]: r for r in rows_of(fig, "S")}
    assert len(rows_of(fig, "diagonal")) == n
    for gap in range(-(n - 1), n):
        rows = run_transforms(rows_of(fig, "diagonal"), per_row, {"sn_gap": gap})
        drawn = {(r["p"], r["q"], r["gap q − p"], *(cells[r["cell"]][f] for f in lookup["from"]["fields"]))
                 for r in rows}
        assert drawn == {(p, q, gap, S[p - 1, q - 1]) for p in range(1, n + 1) for q in range(1, n + 1)
                         if q - p == gap}
        assert all((cells[r["cell"]]["p"], cells[r["cell"]]["q"]) == (r["p"], r["q"]) for r in rows)


def test_the_params_are_named_for_the_address_and_start_where_the_page_says():
    fig = sc.dials(64, sc.dial_pairs(64), position=7, base=chapter.BASE)
    params = {p["name"]: p for p in own_params(fig.spec)}
    assert params["sn_pos"]["value"] == 7 and params["sn_pos"]["bind"]["max"] == sc.DIAL_SPAN
    assert params["sn_logbase"]["value"] == 4
    lo, hi = sc.LOG_BASE_RANGE
    assert (params["sn_logbase"]["bind"]["min"], params["sn_logbase"]["bind"]["max"]) == (lo, hi)
    shifted = sc.dials(64, sc.dial_pairs(64), position=0, shift=chapter.SHIFT, prefix="sn_s")
    names = {p["name"] for p in own_params(shifted.spec)}
    assert names == {"sn_s_pos", "sn_s_k"}  # the paper's base, fixed: no base slider in the shift chart


def test_no_mark_is_exposed_one_by_one():
    for fig in (sc.dials(64, sc.dial_pairs(64), position=7, base=chapter.BASE),
                sc.dials(8, sc.dial_pairs(8), position=0, shift=3, prefix="sn_s")):
        marks = [layer["mark"] for layer in spec_layers(fig.spec)]
        assert marks and all(isinstance(m, dict) and m.get("aria") is False for m in marks)


@pytest.mark.parametrize("lam", [6.283, 1999.0, 2000.0, 2000.5, 47_117.0])
def test_the_dials_barely_moves_label_is_posencs_threshold(lam):
    """The dials' label says "(barely moves)" exactly when sc.barely_moves(λ, DIAL_SPAN), under 1/20 turn."""
    assert vega_eval(sc.EXPR_BARELY, datum={"lam": lam}) == sc.barely_moves(lam, sc.DIAL_SPAN)
    assert sc.barely_moves(lam, sc.DIAL_SPAN) == (lam / sc.DIAL_SPAN > 20)

"""The in-chart closed forms (Vega expressions that redraw while a slider drags) against posenc.

Each expression the stretch and beyond charts compute in the browser is evaluated here in Python — with the tests'
one mirror of Vega's expression language, ``conftest.vega_eval`` (its own check is the first test) — over the
rows the chart ships, at several parameter values, and compared with the ``posenc`` function the page
otherwise computes on the server. The expressions are read from the built figures' specs, so a change in the
chart is a change in what is tested.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import layer_with, rows_of, run_transforms, transforms_over, vega_eval, walk_dicts
from posenc import beyond, chapter
from posenc.charts import beyond as bc
from posenc.charts import stretch as cs
from posenc.charts.spec import MAX_MARKS
from posenc.encodings import frequencies
from posenc.stretch import (
    alibi_slopes,
    dynamic_ntk_frequencies,
    ntk_frequencies,
    pi_frequencies,
    rotations_within,
    yarn_frequencies,
)


def calculates(spec: dict) -> dict[str, str]:
    """Every calculate transform of a spec (any layer): {as: expression}, the first of each name."""
    found: dict[str, str] = {}
    for node in walk_dicts(spec):
        if "calculate" in node and "as" in node:
            found.setdefault(node["as"], node["calculate"])
    return found


def test_the_mirror_keeps_javascript_meaning():
    """conftest.vega_eval, the one mirror every client-expression test evaluates the specs with."""
    assert [vega_eval("datum.a > 1 ? 'x' : datum.a > 0 ? 'y' : 'z'", {"a": a}) for a in (5, 0.5, -5)] == ["x", "y", "z"]
    assert vega_eval("a ? b ? 1 : 2 : 3", params={"a": 1, "b": 0}) == 2  # a ternary in the middle branch
    assert vega_eval("datum.x + (datum.x == 1 ? 0.001 : 0)", {"x": 1}) == 1.001  # one inside brackets
    assert vega_eval("clamp((datum.i - 2) / 4, 0, 1)", {"i": 9}) == 1
    assert vega_eval("pow(2, -8 * h / 4)", params={"h": 2}) == 0.0625
    assert vega_eval("-7 % 3") == -1.0  # JavaScript keeps the dividend's sign; Python's -7 % 3 is 2
    assert vega_eval("'n = ' + 7") == "n = 7" and vega_eval("'x' + 2.5") == "x2.5"
    assert vega_eval("'a ? b : c' + 1") == "a ? b : c1"  # quoted text is not syntax
    assert vega_eval("!a && b || 'q'", params={"a": 0, "b": 0}) == "q"  # && and || return an operand
    assert vega_eval("a !== 2 && a === 3", params={"a": 3}) is True
    assert vega_eval("indexof(k + '', 'g1:')", params={"k": "g1:3"}) == 0  # a string's indexOf
    assert vega_eval("indexof(k + '', 'g1:')", params={"k": None}) == -1 and vega_eval("k + ''", params={"k": None}) == "null"
    assert vega_eval("indexof(a, 2)", params={"a": [1, 2]}) == 1 and vega_eval("indexof(a, 5)", params={"a": [1]}) == -1
    assert vega_eval("format(-1234, ',d')") == "−1,234"
    assert vega_eval("length(data('b')) ? data('b')[0].R : 1", params={"data": lambda n: []}) == 1
    assert vega_eval("format(-0.0000001, '.6f')") == "0.000000" and vega_eval("format(-0.0004, '.2~g')") == "−0.0004"
    assert vega_eval("datum['gap q − p'] === g", {"gap q − p": 2}, {"g": 2}) is True
    with pytest.raises(NameError):
        vega_eval("unknown + 1")
    with pytest.raises(ValueError):
        vega_eval("a ? 1")


# ---------------------------------------------------------------------------------------------- stretching
# (d, L_train, s, base): the page's opening, both ends of d and of L_train (2^4, 2^20), s at 1 and at S_MAX, every
# end of the base picker; (512, 16, …, 10,000,000) is the fewest turns any setting draws (the axis' floor), (4, 2^20,
# 1, 10,000,000) a setting with no slow pair
STRETCH_CASES = [(128, 4096, 16, chapter.BASE), (4, 16, 1, 100), (64, 2048, 7, 500_000),
                 (512, 2 ** 20, 64, 10_000_000), (6, 128, 3, 1_000), (512, 16, 64, 10_000_000),
                 (4, 2 ** 20, 1, 10_000_000), (256, 32768, 2, 1_000_000)]


def _key_figure(d=beyond.TYPICAL_D, L=beyond.TYPICAL_L_TRAIN, s=beyond.TYPICAL_S, base=chapter.BASE):
    """The key chart as the page builds it, opening at (d, L, s, base)."""
    return cs.turns_figure(beyond.stretch_demo(d, L, s, 8192, float(base)))


def _params(d, L, s, base, method) -> dict:
    log2 = L.bit_length() - 1
    assert 2 ** log2 == L
    return {cs.D: d, cs.LOG2_L: log2, "st_s": s, "st_base": base, "st_method": method}


def _stretch_rows(d, L, s, base, method, fig=None):
    """The key chart's bars' rows after the browser's transforms at (d, L, s, base, method), over the data the page
    ships wherever the chart opens (built here at the page's opening)."""
    fig = fig or _key_figure()
    exprs = calculates(fig.spec)
    for name, text in cs.EXPR.items():
        assert exprs[name] == text, name  # the chart computes exactly these
    return run_transforms(rows_of(fig, "pairs"), transforms_over(fig.spec, "pairs", "reach"),
                          _params(d, L, s, base, method))


@pytest.mark.parametrize("d, L, s, base", STRETCH_CASES)
def test_stretch_closed_forms_match_posenc(d, L, s, base):
    rows = _stretch_rows(d, L, s, base, "RoPE as trained")
    assert [r["i"] for r in rows] == list(range(d // 2))  # the filter keeps this d's pairs, in order
    col = {k: np.array([r[k] for r in rows], dtype=float) for k in ("th", "r", "th_pi", "th_ntk", "th_yarn", "g")}
    theta = frequencies(d, base)
    assert np.allclose(col["th"], theta, rtol=1e-12)
    assert np.allclose(col["r"], rotations_within(theta, L), rtol=1e-12)
    assert np.allclose(col["th_pi"], pi_frequencies(d, s, base), rtol=1e-12)
    assert np.allclose(col["th_ntk"], ntk_frequencies(d, s, base), rtol=1e-12)
    yarn, ramp = yarn_frequencies(d, s, L, base)
    assert np.allclose(col["th_yarn"], yarn, rtol=1e-12)
    assert np.allclose(col["g"], ramp, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("d, L, s, base", STRETCH_CASES)
@pytest.mark.parametrize("method", cs.KEY_METHODS)
def test_stretch_counts_in_the_chart_match_stretch_demo(d, L, s, base, method):
    """The in-chart count of pairs past their trained angles and the worst overreach are stretch_demo's, and so
    are the counts the summary line writes (its text is an array of lines, which the mirror does not evaluate)."""
    rows = _stretch_rows(d, L, s, base, method)
    res = beyond.stretch_demo(d, L, s, 8192, float(base))
    n_slow, n_past = int((res.rotations < 1).sum()), int(res.unseen[method].sum())
    assert sum(r["slow"] for r in rows) == n_slow
    assert sum(r["past"] for r in rows) == n_past
    assert max(r["over"] for r in rows) == pytest.approx(res.overreach[method], rel=1e-9)
    fig = _key_figure()
    counting = [t for t in transforms_over(fig.spec, "pairs", "text") if t.get("as") != "text"]
    [summary] = run_transforms(rows_of(fig, "pairs"), counting, _params(d, L, s, base, method))
    assert (summary["n_slow"], summary["n_past"]) == (n_slow, n_past)
    assert summary["worst"] == pytest.approx(res.overreach[method], rel=1e-9)


@pytest.mark.parametrize("d, L, s, base", STRETCH_CASES)
def test_the_key_charts_axes_title_and_data_hold_at_every_setting(d, L, s, base):
    """The title writes L_train, the x axis spans this d's pairs, and the y axis — fixed while d, L_train and s move
    (only the base, a pick, sets its floor) — holds every bar and every tick: its floor under the fewest turns any
    d and L_train reach at this base, its top over 900 times the most any setting reaches."""
    fig = _key_figure()
    params = _params(d, L, s, base, "RoPE as trained")
    title = fig.spec["title"]["text"]["expr"]
    assert cs.TITLE in title
    assert vega_eval(cs.TITLE, params=params) == f"Turns per pair in L_train = {L:,} tokens"
    bars = layer_with(fig.spec, "pairs", "reach")
    x_domain = bars["encoding"]["x"]["scale"]["domain"]
    assert x_domain[0] == -0.5 and vega_eval(x_domain[1]["expr"], params=params) == d // 2 - 0.5
    y_domain = bars["encoding"]["y"]["scale"]["domain"]
    floor, top = vega_eval(y_domain[0]["expr"], params=params), y_domain[1]
    assert top == cs.TURNS_TOP
    fewest = 16 * frequencies(512, base)[-1] / (2 * np.pi)  # the slowest pair of d = 512 at L_train = 16
    assert floor <= fewest / 2 < 10 * floor and math.log10(floor) == round(math.log10(floor))  # a decade
    for method in cs.KEY_METHODS:
        rows = _stretch_rows(d, L, s, base, method)
        assert all(r["floor"] == floor < r["r"] for r in rows)
        assert all(floor < r["reach"] <= top / 900 and r["x1"] - r["x0"] == pytest.approx(2 * cs.BAR_HALF) for r in rows)


def test_the_key_charts_data_and_layout_are_the_same_wherever_it_opens():
    """d, L_train, s, the base and the method move in the chart: a figure built at any opening ships the same
    tables (one row per pair index up to the largest d's) and the same spec — one layout; only its reading differs."""
    figs = [_key_figure(*case) for case in STRETCH_CASES]
    for fig in figs[1:]:
        assert fig.spec == figs[0].spec
        assert fig.datasets.keys() == figs[0].datasets.keys()
        assert all(fig.datasets[k].equals(figs[0].datasets[k]) for k in fig.datasets)
    assert rows_of(figs[0], "pairs") == [{"i": i} for i in range(cs.MAX_PAIRS)] and cs.MAX_PAIRS <= MAX_MARKS
    assert len({fig.reading for fig in figs}) == len(figs)


def test_the_key_charts_sliders_reach_their_ranges_and_open_at_the_pages_setting():
    """d moves in steps of 2 (RoPE's pairs: no odd d to refuse) over 4 … 512; L_train in whole doublings over
    2^4 … 2^20; both open at the page's TYPICAL_D and TYPICAL_L_TRAIN, exactly."""
    params = {p["name"]: p for p in walk_dicts(cs.turns_spec()) if "bind" in p and "input" in p["bind"]}
    assert set(params) == {"st_s", "st_base", "st_method", cs.D, cs.LOG2_L}
    d, log2 = params[cs.D], params[cs.LOG2_L]
    assert (d["bind"]["input"], d["bind"]["min"], d["bind"]["max"], d["bind"]["step"]) == ("range", 4, 512, 2)
    assert d["value"] == beyond.TYPICAL_D and (d["value"] - 4) % 2 == 0
    assert (log2["bind"]["input"], log2["bind"]["min"], log2["bind"]["max"], log2["bind"]["step"]) == \
        ("range", 4, 20, 1)
    assert 2 ** log2["value"] == beyond.TYPICAL_L_TRAIN and log2["bind"]["name"].endswith("= 2^")
    assert params["st_s"]["value"] == beyond.TYPICAL_S


def test_the_turns_axis_writes_short_labels_and_never_a_wrong_one():
    """Powers of ten past 0.01 … 1,000 as 1e6 (a phone's plot keeps its width); any other value written out."""
    axis = layer_with(_key_figure().spec, "pairs", "reach")["encoding"]["y"]["axis"]
    assert axis["labelExpr"] == cs.TURNS_LABEL
    said = {v: vega_eval(cs.TURNS_LABEL, {"value": v}) for v in (1e-7, 1e-4, 0.01, 1, 100, 1000, 1e4, 2e4, 1e10)}
    assert said == {1e-7: "1e-7", 1e-4: "1e-4", 0.01: "0.01", 1: "1", 100: "100", 1000: "1,000", 1e4: "1e4",
                    2e4: "20,000", 1e10: "1e10"}


# ---------------------------------------------------------------------------------------------- ALiBi
@pytest.mark.parametrize("heads", [1, 3, 8, 12])
def test_alibi_closed_forms_match_alibi_attention(heads):
    al = beyond.alibi_attention(chapter.SENTENCE, 64, 0, heads)
    fig = bc.alibi_figure(al)
    exprs = calculates(fig.spec)
    for name, text in {**bc.EXPR_ALIBI, **bc.EXPR_SOFTMAX}.items():
        assert exprs[name] == text, name
    cells = fig.datasets["cells"].to_pylist()
    n = len(al.tokens)
    slopes = alibi_slopes(heads)
    for h in range(0, heads + 1):
        a = np.zeros((n, n))
        z = {}
        for row in cells:
            for name, text in bc.EXPR_ALIBI.items():
                row[name] = vega_eval(text, row, {"by_head": h})
            z[(row["i"], row["j"])] = row
        for i in range(n):  # joinaggregate max and sum per query row, as the chart does
            zmax = max(z[(i, j)]["z"] for j in range(i + 1))
            e = [vega_eval(bc.EXPR_SOFTMAX["e"], {**z[(i, j)], "zmax": zmax}, {}) for j in range(i + 1)]
            a[i, :i + 1] = np.array(e) / sum(e)
        if h:
            assert z[(1, 0)]["m"] == pytest.approx(slopes[h - 1], rel=1e-12)
        want = al.weights[h - 1] if h else al.plain_weights
        assert np.allclose(np.tril(a), np.tril(want), atol=1e-12), h


def _luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour[k:k + 2], 16) / 255 for k in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_alibi_cell_numbers_are_readable_on_every_cell():
    """Dark text on the weight scale, interpolated in RGB between its ends: the contrast is lowest at the dark end
    (luminance falls monotonically along the line, every channel of the dark end being below the light end's)."""
    from posenc.charts.spec import TEXT

    light, dark = bc.HEAT_LIGHT, bc.HEAT_DARK
    assert all(int(dark[k:k + 2], 16) <= int(light[k:k + 2], 16) for k in (1, 3, 5))
    worst = (_luminance(dark) + 0.05) / (_luminance(TEXT) + 0.05)
    assert worst >= 4.5, worst


# ---------------------------------------------------------------------------------------------- decay
@pytest.mark.parametrize("rho", [0.0, 0.35, 0.8, 1.0])
def test_decay_closed_forms_match_score_curves(rho):
    sc = beyond.score_curves(beyond.DECAY_D, chapter.BASE, 3)
    fig = bc.score_figure(sc)
    exprs = calculates(fig.spec)
    for name, text in bc.EXPR_DECAY.items():
        assert exprs[name] == text, name
    params = {"by_rho": rho}
    rows = fig.datasets["gaps"].to_pylist()
    drawn = np.searchsorted(sc.deltas, [r["x"] for r in rows])
    assert np.array_equal(sc.deltas[drawn], [r["x"] for r in rows]) and drawn[0] == 0
    assert drawn[-1] == sc.deltas.size - 1 and len(rows) <= bc.DRAWN_GAPS  # the ends kept, the rest thinned
    for row in rows:
        for name, text in bc.EXPR_DECAY.items():
            row[name] = vega_eval(text, row, params)
    assert np.allclose([r["mean"] for r in rows], sc.mean(rho)[drawn], atol=1e-12)
    assert np.allclose([r["sd"] for r in rows], sc.sd(rho)[drawn], atol=1e-12)
    assert np.allclose([r["one"] for r in rows], sc.one(rho)[drawn], atol=1e-12)
    assert np.allclose([r["lo"] for r in rows], sc.mean(rho)[drawn] - 1.645 * sc.sd(rho)[drawn], atol=1e-12)
    (end,) = fig.datasets["ends"].to_pylist()  # the axis holds every value the slider reaches
    assert end["ylo"] <= min(r["lo"] for r in rows) and end["yhi"] >= max(r["hi"] for r in rows)


@pytest.mark.parametrize("rho", [0.0, 0.35, 1.0])
def test_decay_summary_is_the_mean_at_zero_and_far_away(rho):
    """The summary line's two numbers: the mean score ÷ d at Δ = 0 and averaged over the last tenth of the gaps
    (as the description computes them), from the shipped sums."""
    sc = beyond.score_curves(beyond.DECAY_D, chapter.BASE, 3)
    fig = bc.score_figure(sc)
    (end,) = fig.datasets["ends"].to_pylist()
    tail = max(1, sc.deltas.size // 10)
    assert rho * end["cm0"] == pytest.approx(sc.mean(rho)[0], abs=1e-12)
    assert rho * end["cml"] == pytest.approx(float(np.mean(sc.mean(rho)[-tail:])), abs=1e-12)
    text = calculates(fig.spec)["text"]
    assert text == bc.EXPR_DECAY_SUMMARY and "datum.cm0" in text and "datum.cml" in text


# ---------------------------------------------------------------------------------------------- dynamic NTK's seq_len
LOG2_LENS = (4, 12, 13, 16, 20, 26)  # 16 tokens … 67,108,864: below, at and past L_train 4,096, the page's 8,192


def _deeper_rows(fig, log2: int) -> tuple[list[dict], list[dict]]:
    """The Deeper chart's lines and its names' rows after the browser's transforms, at st_log2len = log2."""
    params = {cs.LEN: log2}
    lines = run_transforms(rows_of(fig, "methods"), layer_with(fig.spec, "methods", "y")["transform"], params)
    ends = run_transforms(rows_of(fig, "ends"), layer_with(fig.spec, "ends", "rank")["transform"], params)
    return lines, ends


@pytest.mark.parametrize("d, L, s, base", STRETCH_CASES)
@pytest.mark.parametrize("log2", LOG2_LENS)
def test_dynamic_ntk_in_the_deeper_chart_matches_posenc(d, L, s, base, log2):
    """The chart's data are built at one seq_len; at each st_log2len the browser's lines are stretch_demo's θ'_i/θ_i at
    seq_len = 2^st_log2len (dynamic NTK's computed, the others shipped), the names stack in the order the lines end
    (top first), and the note writes that seq_len and what dynamic NTK does there."""
    fig = cs.ratio_figure(beyond.stretch_demo(d, L, s, 8192, float(base)))
    exprs = calculates(fig.spec)
    for name, text in {**cs.EXPR_DYN, **cs.EXPR_ENDS}.items():
        assert exprs[name] == text, name
    seq = 2 ** log2
    res = beyond.stretch_demo(d, L, s, seq, float(base))
    lines, ends = _deeper_rows(fig, log2)
    assert len(lines) == len(beyond.METHODS) * res.pairs
    for m in beyond.METHODS:
        got = np.array([r["y"] for r in lines if r["m"] == m])
        assert np.allclose(got, res.frequencies[m] / res.theta, rtol=1e-12, atol=0), m
    assert np.allclose([r["y"] for r in lines if r["m"] == "Dynamic NTK"],
                       dynamic_ntk_frequencies(d, s, seq, L, base) / res.theta, rtol=1e-12, atol=0)
    ranks = {r["m"]: r["rank"] for r in ends}
    assert sorted(ranks.values()) == list(range(len(beyond.METHODS)))
    last = {m: float(res.frequencies[m][-1] / res.theta[-1]) for m in beyond.METHODS}
    stack = sorted(beyond.METHODS, key=ranks.get)
    assert all(last[a] >= last[b] * (1 - 1e-12) for a, b in zip(stack, stack[1:])), (stack, last)
    notes = {r["m"]: r["note"] for r in ends}
    scale = res.dynamic_scale
    said = f"{scale:.3g}" if scale < 100 else f"{round(scale):,}"
    below = " (below the chart)" if 1 / scale < 1 / (10 * s) else ""
    assert notes.pop("Dynamic NTK") == f"dynamic NTK at seq_len = {seq:,}:\n" + (
        "within L_train, it changes nothing" if seq <= L else f"the slowest pair ÷ {said}{below}")
    assert set(notes.values()) == {""}  # one note, written by dynamic NTK's row


@pytest.mark.parametrize("d, L, s, base", STRETCH_CASES)
def test_the_deeper_charts_data_are_the_same_at_every_seq_len_and_its_axis_holds_the_fixed_lines(d, L, s, base):
    """seq_len is not in the data (the browser computes dynamic NTK's line), so a figure built at any seq_len ships
    the same tables; the y axis runs from the floor the data carry (a decade under 1/s) to cs.RATIO_TOP, and every
    line but dynamic NTK's (which may leave at the bottom: its note says so) stays inside at every st_log2len."""
    figs = [cs.ratio_figure(beyond.stretch_demo(d, L, s, seq, float(base))) for seq in (1, L, 8192, 2 ** 26)]
    for fig in figs[1:]:
        assert fig.datasets.keys() == figs[0].datasets.keys()
        assert all(fig.datasets[k].equals(figs[0].datasets[k]) for k in fig.datasets)
    fig = figs[0]
    lo = {r["lo"] for r in rows_of(fig, "ends")}
    assert lo == {1 / (10 * s)}
    domain = layer_with(fig.spec, "methods", "y")["encoding"]["y"]["scale"]["domain"]
    assert vega_eval(domain[0]["expr"], params={"data": lambda n: [SimpleNamespace(**r) for r in rows_of(fig, n)]}) == 1 / (10 * s)
    assert domain[1] == cs.RATIO_TOP
    for log2 in (cs.LOG2_LENS[0], cs.LEN_OPEN, cs.LOG2_LENS[1]):
        lines, _ = _deeper_rows(fig, log2)
        fixed = [r["y"] for r in lines if r["m"] != "Dynamic NTK"]
        assert 1 / (10 * s) < min(fixed) and max(r["y"] for r in lines) <= 1 < cs.RATIO_TOP


def test_the_seq_len_slider_moves_in_doublings_and_opens_at_the_pages_length():
    [param] = [p for p in walk_dicts(cs.ratio_spec()) if p.get("name") == cs.LEN and "bind" in p]
    assert 2 ** param["value"] == beyond.TYPICAL_SEQ_LEN
    bind = param["bind"]
    assert (bind["input"], bind["min"], bind["max"], bind["step"]) == ("range", *cs.LOG2_LENS, 1)
    assert 2 ** bind["min"] <= 16 and 2 ** bind["max"] <= beyond.MAX_LENGTH < 2 ** (bind["max"] + 1)

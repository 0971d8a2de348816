"""The binary page's in-chart numbers, checked against posenc: the counter's and the size strip's Vega
expressions (read from the finished specs) evaluated in Python at several positions, against
``posenc.encodings.binary`` and ``posenc.binary_codes``."""

from __future__ import annotations

import re

import pytest

from conftest import calculated, layer_with, rows_of, run_transforms, vega_eval
from posenc.binary_codes import MAX_BITS, bit_runs, bit_table, code_strings, hamming, sizes
from posenc.charts import binary_codes as bc
from posenc.core import tokenize
from posenc.encodings import binary


def counter(n: int, start: int = 0):
    return bc.bit_table(*bit_runs(n), n, bit_table(n) if n <= 5 else None, position=start)


@pytest.mark.parametrize("n", (1, 2, 4, 7, MAX_BITS))
def test_the_counter_column_is_the_code_of_p_and_outlines_the_flipped_bits(n):
    fig = counter(n)
    layer = layer_with(fig.spec, "bits", "flipped")
    top = 2 ** n - 1
    for p in sorted({0, 1, 2, 3, 7, 8, top // 2, top // 2 + 1, top}):
        if p > top:
            continue
        got = calculated(layer, rows_of(fig, "bits"), {bc.POSITION: p})
        assert [int(r["now"]) for r in got] == list(binary([p], n)[0])
        before = binary([max(p - 1, 0)], n)[0]
        assert [bool(r["flipped"]) for r in got] == ([bool(a != b) for a, b in zip(binary([p], n)[0], before)]
                                                     if p > 0 else [False] * n)


@pytest.mark.parametrize("n", (1, 3, 4, MAX_BITS))
def test_the_titles_codes_and_flip_count(n):
    codes = code_strings(bit_table(n))
    for p in range(1, 2 ** n, max(1, 2 ** n // 37)):
        terms = re.findall(r"\(floor\(\w+ / \d+\) % 2\)", bc.code_expr(bc.POSITION, n))
        code = "".join(str(int(vega_eval(t, {}, {bc.POSITION: p}))) for t in terms)
        assert code == codes[p]
        flips = vega_eval(bc.flips_expr(bc.POSITION, n), {}, {bc.POSITION: p})
        assert flips == hamming(p, p - 1)


def test_the_counter_param_is_named_for_the_address_and_opens_where_asked():
    fig = counter(4, start=7)
    p = next(x for x in fig.spec["params"] if x["name"] == bc.POSITION)
    assert p["value"] == 7 and p["bind"]["max"] == 15 and p["bind"]["input"] == "range"
    assert bc.POSITION.startswith("bn_")


def test_the_size_strips_bits_are_the_code_of_p():
    toks = tokenize("the cat chased the mouse")
    sz = sizes(toks, 2, 8, 0, MAX_BITS)
    fig = bc.sizes_strip(sz.content, MAX_BITS, 500, "word")
    shipped = next(t["calculate"] for x in fig.spec["layer"] for t in x.get("transform", []) if t.get("as") == "x")
    bit = re.search(r"floor\(bn_raw / pow\(2, datum\.b\)\) % 2", shipped)  # its branch for the bits' row
    assert bit, shipped
    for p in (0, 1, 500, 2 ** MAX_BITS - 1):
        got = [int(vega_eval(bit.group(0), {"b": b}, {"bn_raw": p})) for b in range(MAX_BITS)]
        assert got == list(binary([p], MAX_BITS)[0])


def test_no_mark_is_exposed_one_by_one():
    for fig in (counter(4), counter(MAX_BITS)):
        marks = [layer["mark"] for layer in fig.spec["layer"]]
        assert all(isinstance(m, dict) and m.get("aria") is False for m in marks)


@pytest.mark.parametrize("b", (0, 2, 4))
def test_the_smoothing_slider_draws_posencs_curve_at_every_level(b):
    """The smoothing chart ships one row per x with a column per level; its calculate (read from the spec) picks
    the slider's column: at every level the line is ``posenc.binary_codes.smoothing``'s curve of that level."""
    import numpy as np

    from posenc.binary_codes import smoothing

    w = smoothing(b)
    fig = bc.square_to_sine(w.x, w.curves, w.names, w.whole, w.whole_bits, w.b)
    [layer] = [lay for lay in fig.spec["layer"] if lay.get("data", {}).get("name") == "curves"]
    [pick] = [t["calculate"] for t in layer["transform"] if t.get("as") == "value"]
    rows = rows_of(fig, "curves")
    assert len(rows) == len(w.x)  # one row per x: a frame moves the line's points, no row comes or goes
    for level, curve in enumerate(w.curves):
        drawn = [vega_eval(pick, row, {"bn_smooth": level}) for row in rows]
        assert np.array_equal(np.array(drawn, dtype=np.float32), np.asarray(curve, dtype=np.float32))


@pytest.mark.parametrize("n", (1, 4, 7, MAX_BITS))
def test_the_count_over_the_counters_column_is_the_bits_that_flipped(n):
    """The large count over the column at p (what a reader catches in a Play frame) is posenc's Hamming distance
    between p − 1 and p, and says nothing at p = 0."""
    fig = counter(n)
    layer = layer_with(fig.spec, "bits", "flips")
    assert any(t.get("filter") == "datum.bit === 0" for t in layer["transform"])  # one count, not one per bit
    for p in sorted({0, 1, 2, 3, 7, 8, 2 ** n // 2, 2 ** n - 1}):
        if p >= 2 ** n:
            continue
        [row] = run_transforms(rows_of(fig, "bits"), layer["transform"], {bc.POSITION: p})
        h = hamming(p, p - 1) if p else 0
        assert row["flips"] == ("" if p == 0 else f"{h} bit flips" if h == 1 else f"{h} bits flip")


@pytest.mark.parametrize("n", (2, 4, MAX_BITS))
def test_the_counters_title_lines_keep_each_number_with_its_code(n):
    """The title's two pieces are 'p = 9 = 1001' and 'from 8 = 1000' (posenc's codes); they go on two lines, never
    inside a piece, where the longest title of this n would not fit the chart (a phone's ~330 px at 10 bits), and on
    one line on a laptop; the shipped title is built from them."""
    codes = code_strings(bit_table(n))
    a, b, narrow = bc.title_lines(bc.POSITION, n)
    for p in sorted({0, 1, 7, 8, 2 ** n - 1}):
        if p >= 2 ** n:
            continue
        assert vega_eval(a, {}, {bc.POSITION: p}) == f"p = {p} = {codes[p]}"
        assert vega_eval(b, {}, {bc.POSITION: p}) == (f"from {p - 1} = {codes[p - 1]}" if p else "the first code")
    at = {"containerSize": None, "pe_present": ""}
    wide, phone = (vega_eval(narrow.replace("containerSize()[0]", str(w)), {}, at) for w in (1300, 330))
    assert not wide and phone == (n == MAX_BITS)
    shipped = counter(n).spec["title"]["text"]["expr"]
    assert f"[{a}, {b}]" in shipped and f"{a} + '  ·  ' + {b}" in shipped


# ---------------------------------------------------------------- the size strip's raw index and bits, in words
def strip(d: int = 64, seed: int = 0):
    toks = tokenize("the cat chased the mouse")
    sz = sizes(toks, 2, d, seed, MAX_BITS)
    return sz, bc.sizes_strip(sz.content, MAX_BITS, 500, "word")


def strip_layer(fig, kept: str) -> dict:
    """The size strip's layer that keeps the rows ``kept`` (its first filter)."""
    return next(layer for layer in fig.spec["layer"]
                if next((t["filter"] for t in layer.get("transform", []) if "filter" in t), None) == kept)


@pytest.mark.parametrize("d, seed", [(64, 0), (8, 3), (2, 0)])
def test_the_raw_index_says_how_many_times_the_axis_reach_it_is(d, seed):
    """On the axis the raw index is named ('p = 3'); past the axis' end (the ``nice_bound`` of the word's spread
    and one more, from posenc's sizes) it says its value and how many times that end it is: to a tenth below 10,
    whole above, always cut (892 on an axis to 3: 297 ×)."""
    import math

    from posenc.charts.spec import nice_bound

    sz, fig = strip(d, seed)
    edge = nice_bound(sz.content_max + 1)
    assert -fig.spec["layer"][0]["encoding"]["x"]["scale"]["domain"][0] == edge
    layer = strip_layer(fig, "datum.kind === 2")
    for p in sorted({0, 1, 3, 4, 6, 9, 10, 31, 500, 892, 2 ** MAX_BITS - 1}):
        [row] = run_transforms(rows_of(fig, "coords"), layer["transform"], {"bn_raw": p})
        times = p / edge
        if p <= edge:
            want = f"p = {p}"
        else:
            how = f"{math.floor(times * 10) / 10:.1f}" if times < 10 else f"{math.floor(times):,}"
            want = f"p = {p:,}\n{how} × the axis’s reach →"
        assert row["label"] == want
        assert row["shown"] == min(p, edge)  # the triangle: on the axis, or pinned at its end
    if edge == 3:
        [row] = run_transforms(rows_of(fig, "coords"), layer["transform"], {"bn_raw": 892})
        assert row["label"] == "p = 892\n297 × the axis’s reach →"


def test_the_bits_row_reads_p_in_binary_and_counts_the_bits_at_0_and_at_1():
    """Over the bits' squares, p in binary (posenc's code of p); beside the square at 0 and the one at 1, how many
    of the n bits sit there (posenc.encodings.binary), so the squares visibly change as p moves."""
    _, fig = strip()
    codes = code_strings(bit_table(MAX_BITS))
    written = strip_layer(fig, "datum.kind === 1")  # both bit layers keep the bits' rows; the first writes p
    counts = next(layer for layer in fig.spec["layer"] if any("aggregate" in t for t in layer.get("transform", [])))
    for p in (0, 1, 3, 500, 892, 2 ** MAX_BITS - 1):
        [row] = run_transforms(rows_of(fig, "coords"), written["transform"], {"bn_raw": p})
        assert row["label"] == f"p in binary: {codes[p]}" and row["shown"] == 0.5
        ones = int(binary([p], MAX_BITS)[0].sum())
        got = {r["x"]: r["label"] for r in run_transforms(rows_of(fig, "coords"), counts["transform"], {"bn_raw": p})}
        want = {v: f"{k} bit" if k == 1 else f"{k} bits" for v, k in ((0, MAX_BITS - ones), (1, ones)) if k}
        assert got == want

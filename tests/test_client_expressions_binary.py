"""The binary page's in-chart numbers, checked against posenc: the counter's and the size strip's Vega
expressions (read from the finished specs) evaluated in Python at several positions, against
``posenc.encodings.binary`` and ``posenc.binary_codes``."""

from __future__ import annotations

import re

import pytest

from conftest import layer_with, rows_of, run_transforms, spec_layers, vega_eval
from posenc import chapter
from posenc.binary_codes import DEFAULT_BITS, MAX_BITS, bit_runs, bit_table, code_strings, hamming, sizes
from posenc.charts import binary_codes as bc
from posenc.core import tokenize
from posenc.encodings import binary

NS = (1, 2, 4, 7, MAX_BITS)


def counter(n: int = DEFAULT_BITS):
    return bc.bit_table(n)


def shipped_param(fig, name: str) -> dict:
    return next(x for x in fig.spec["params"] if x["name"] == name)


def at(fig, n: int, p: int) -> dict:
    """The params the browser has with n bits at position p: the bits slider at n, the position slider at the
    first reading that gives p, and p itself computed by the shipped expression (checked to give p)."""
    along = p * 2 ** (MAX_BITS - n)
    params = {bc.BITS: n, bc.POSITION: along}
    params[bc.P] = vega_eval(shipped_param(fig, bc.P)["expr"], {}, params)
    assert params[bc.P] == p
    return params


def positions(n: int) -> list[int]:
    top = 2 ** n - 1
    return sorted({p for p in (0, 1, 2, 3, 7, 8, top // 2, top // 2 + 1, top - 1, top) if 0 <= p <= top})


@pytest.mark.parametrize("n", NS)
def test_the_position_slider_runs_over_every_position_of_n_bits_in_order(n):
    """A range input's max is fixed, so the position slider runs over 0 … 2^MAX_BITS − 1 and p is its reading
    scaled to n bits (the shipped expression): every reading gives a p in 0 … 2ⁿ − 1, p never goes down as the
    slider (or Play) goes up, and every position gets an equal share of the track."""
    fig = counter()
    expr = shipped_param(fig, bc.P)["expr"]
    along = shipped_param(fig, bc.POSITION)["bind"]
    assert (along["min"], along["max"], along["step"]) == (0, 2 ** MAX_BITS - 1, 1)
    got = [vega_eval(expr, {}, {bc.BITS: n, bc.POSITION: a}) for a in range(2 ** MAX_BITS)]
    assert got == sorted(got) and set(got) == set(range(2 ** n))
    assert {got.count(p) for p in range(2 ** n)} == {2 ** (MAX_BITS - n)}
    bits = shipped_param(fig, bc.BITS)
    assert (bits["bind"]["min"], bits["bind"]["max"], bits["value"]) == (1, MAX_BITS, DEFAULT_BITS)


@pytest.mark.parametrize("n", NS)
def test_it_opens_one_step_before_every_bit_flips(n):
    """At every n the slider's opening reading is p = 2^(n−1) − 1 (7 at the chapter's 4 bits: the question's 7 and
    8), one position before all n bits flip."""
    fig = counter()
    opening = {bc.BITS: n, bc.POSITION: shipped_param(fig, bc.POSITION)["value"]}
    p = vega_eval(shipped_param(fig, bc.P)["expr"], {}, opening)
    assert p == 2 ** (n - 1) - 1 and hamming(p, p + 1) == n
    if n == DEFAULT_BITS:
        assert (p, p + 1) == chapter.BINARY_NEIGHBOURS


@pytest.mark.parametrize("n", NS)
def test_the_runs_and_digits_kept_are_the_n_bit_tables(n):
    """The chart ships the largest table's runs and 32 positions' digit cells; at n the browser keeps exactly
    posenc's runs of the n-bit table (bit_runs(n)) and, for n ≤ 5, writes posenc's bits of every position; the runs'
    white edge shows up to 64 positions."""
    fig = counter()
    layer = next(x for x in spec_layers(fig.spec) if x["data"]["name"] == "runs")
    kept = run_transforms(rows_of(fig, "runs"), layer["transform"], at(fig, n, 0))
    bit, start, stop, value = bit_runs(n)
    assert sorted((r["bit"], r["first"], r["last"] + 1, r["value"]) for r in kept) == sorted(
        zip(bit.tolist(), start.tolist(), stop.tolist(), value.tolist()))
    assert {r["border"] for r in kept} == {0.5 if 2 ** n <= 64 else 0}
    layer = next(x for x in spec_layers(fig.spec) if x["data"]["name"] == "digits")
    written = run_transforms(rows_of(fig, "digits"), layer["transform"], at(fig, n, 0))
    table = bit_table(n)
    want = {(p, b, int(table[p, b])) for p in range(2 ** n) for b in range(n)} if n <= bc.DIGITS_UP_TO else set()
    assert {(r["p"], r["bit"], int(r["digit"])) for r in written} == want
    # the x axis spans the n-bit positions: its domain, read from the runs' layer, ends at 2ⁿ − 0.5
    domain = next(x for x in spec_layers(fig.spec) if x["data"]["name"] == "runs")["encoding"]["x"]["scale"]["domain"]
    lo, hi = domain["expr"][1:-1].split(", ", 1)
    assert (vega_eval(lo, {}, {bc.BITS: n}), vega_eval(hi, {}, {bc.BITS: n})) == (-0.5, 2 ** n - 0.5)


@pytest.mark.parametrize("n", NS)
def test_the_counter_column_is_the_code_of_p_and_outlines_the_flipped_bits(n):
    fig = counter()
    layer = layer_with(fig.spec, "bits", "flipped")
    for p in positions(n):
        got = run_transforms(rows_of(fig, "bits"), layer["transform"], at(fig, n, p))
        assert [r["bit"] for r in got] == list(range(n))  # one cell per bit of n
        assert [int(r["now"]) for r in got] == list(binary([p], n)[0])
        assert all(r["x"] == p for r in got)
        before = binary([max(p - 1, 0)], n)[0]
        assert [bool(r["flipped"]) for r in got] == ([bool(a != b) for a, b in zip(binary([p], n)[0], before)]
                                                     if p > 0 else [False] * n)


@pytest.mark.parametrize("n", NS)
def test_the_titles_codes_and_flip_count(n):
    """The title's two pieces, read from the shipped title, are 'p = 9 = 1001' and 'from 8 = 1000' in n digits
    (posenc's codes), and the count over the column is posenc's Hamming distance of p − 1 and p."""
    fig = counter()
    codes = code_strings(bit_table(n))
    a, b, _ = bc.title_lines()
    shipped = fig.spec["title"]["text"]["expr"]
    assert f"[{a}, {b}]" in shipped and f"{a} + '  ·  ' + {b}" in shipped
    for p in positions(n):
        params = at(fig, n, p)
        assert vega_eval(a, {}, params) == f"p = {p} = {codes[p]}"
        assert vega_eval(b, {}, params) == (f"from {p - 1} = {codes[p - 1]}" if p else "the first code")
        if p:
            assert vega_eval(bc.flips_expr(bc.P), {}, params) == hamming(p, p - 1)


@pytest.mark.parametrize("n", NS)
def test_the_count_over_the_counters_column_is_the_bits_that_flipped(n):
    """The large count over the column at p (what a reader catches in a Play frame) is posenc's Hamming distance
    between p − 1 and p, and says nothing at p = 0."""
    fig = counter()
    layer = layer_with(fig.spec, "bits", "flips")
    assert any(t.get("filter") == "datum.bit === 0" for t in layer["transform"])  # one count, not one per bit
    for p in positions(n):
        [row] = run_transforms(rows_of(fig, "bits"), layer["transform"], at(fig, n, p))
        h = hamming(p, p - 1) if p else 0
        assert row["flips"] == ("" if p == 0 else f"{h} bit flips" if h == 1 else f"{h} bits flip")


@pytest.mark.parametrize("n", range(1, MAX_BITS + 1))
def test_the_title_goes_on_two_lines_where_the_longest_title_of_n_does_not_fit(n):
    """The title goes on two lines, never inside a piece, where the longest title of the chart's n (its last two
    positions', from posenc's codes) would not fit the chart: a phone's ~330 px at 10 bits, never a laptop's."""
    _, _, narrow = bc.title_lines()
    codes = code_strings(bit_table(n))
    top = 2 ** n - 1
    longest = len(f"p = {top} = {codes[top]}  ·  from {top - 1} = {codes[top - 1]}")
    for width in (330, 600, 1300):
        params = {"containerSize": None, "pe_present": "", bc.BITS: n}
        got = vega_eval(narrow.replace("containerSize()[0]", str(width)), {}, params)
        assert got == (longest * 7.5 > max(width - 60, 75)), (n, width)
    assert not vega_eval(narrow.replace("containerSize()[0]", "1300"), {}, {"pe_present": "", bc.BITS: n})
    phone = vega_eval(narrow.replace("containerSize()[0]", "330"), {}, {"pe_present": "", bc.BITS: n})
    assert phone == (n > 6)  # a phone splits it from 7 bits on (the old 10 bits' rule, now per n)


def test_the_counter_param_is_named_for_the_address():
    fig = counter()
    for name in (bc.POSITION, bc.BITS):
        p = shipped_param(fig, name)
        assert p["bind"]["input"] == "range" and name.startswith("bn_")
    assert bc.BITS == "bn_bits"  # old links' key
    assert "bind" not in shipped_param(fig, bc.P)  # p itself is computed, not an input of the address


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

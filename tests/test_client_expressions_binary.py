"""The binary page's in-chart numbers, checked against posenc: the counter's and the size strip's Vega
expressions (read from the finished specs) evaluated in Python at several positions, against
``posenc.encodings.binary`` and ``posenc.binary_codes``."""

from __future__ import annotations

import re

import pytest

from conftest import calculated, layer_with, rows_of, vega_eval
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

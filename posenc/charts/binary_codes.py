"""Charts for the binary-codes page: arrays in, Vega-Lite specs out (altair's schema, pandas-free data).

Positions here are 0-based, as in a bit table. Each builder returns a plain Vega-Lite spec whose data travels as
Arrow bytes in ``spec["datasets"]``, ready for ``st.vega_lite_chart`` and cheap to cache (see
``posenc.charts.sinusoids``: building the same charts through Altair cost more than the page's whole
computation). ``posenc.charts.sinusoids.validate(spec)`` checks a spec against the Vega-Lite schema.
"""

from __future__ import annotations

import numpy as np

from . import BASE, HIGHLIGHT, MAX_MARKS
from . import Datasets, categories, tip

ONE = "#1f3b73"
ZERO = "#e8eef7"
FAR = "#2ca02c"


def bit_table(bit: np.ndarray, start: np.ndarray, stop: np.ndarray, value: np.ndarray, n_bits: int,
              digits: np.ndarray | None = None) -> dict:
    """The bit table as runs of equal bits: one row per bit (bit 0 on top), positions 0 … 2ⁿ − 1 across.

    Drag to pan, scroll to zoom (x only). ``digits`` (2ⁿ × n), when given, writes each 0/1 in its cell.
    The spec is the same for every n (domains, rows and the white run borders come from the data; the digits
    layer is empty without digits): changing n only swaps the data in the browser.
    """
    if len(bit) > MAX_MARKS:
        raise ValueError("Too many runs for one chart; use fewer bits.")
    positions = 2**n_bits
    ds = Datasets()
    x = {"field": "from", "type": "quantitative", "title": "position p (starting at 0)",
         "scale": {"nice": False, "zero": False}, "axis": {"tickMinStep": 1, "format": "d"}}
    # integer field, readable label: "bit 0: flips every step", "bit 3: flips every 8 steps"
    y = {"field": "bit", "type": "ordinal", "title": None, "sort": "ascending",
         "axis": {"labelOverlap": False, "labelLimit": 260,
                  "labelExpr": "'bit ' + datum.value + (datum.value == 0 ? ': flips every step' : "
                               "': flips every ' + pow(2, datum.value) + ' steps')"}}
    runs = {
        "data": ds.add("runs", {"bit": np.asarray(bit, dtype=np.int8),
                                "from": np.asarray(start, dtype=np.float32) - 0.5,
                                "to": np.asarray(stop, dtype=np.float32) - 0.5,
                                "first": np.asarray(start, dtype=np.int32),
                                "last": np.asarray(stop, dtype=np.int32) - 1,
                                "value": np.asarray(value, dtype=np.int8),
                                # white borders between runs while they are wide enough to show them
                                "border": np.full(len(bit), 0.5 if positions <= 64 else 0.0, dtype=np.float32)}),
        "params": [{"name": "zoom", "select": {"type": "interval", "encodings": ["x"]}, "bind": "scales"}],
        "mark": {"type": "rect", "stroke": "white"},
        "encoding": {
            "x": x, "x2": {"field": "to"}, "y": y,
            "strokeWidth": {"field": "border", "type": "quantitative", "scale": None, "legend": None},
            "color": {"field": "value", "type": "nominal", "title": "bit value",
                      "scale": {"domain": [0, 1], "range": [ZERO, ONE]}, "legend": {"orient": "top"}},
            # whole numbers as they are (ordinal: no number formatting per run and redraw)
            "tooltip": [tip("bit", "ordinal"), tip("value", "ordinal"), tip("first", "ordinal", title="from position"),
                        tip("last", "ordinal", title="to position")],
        },
    }
    d = np.zeros((0, n_bits), dtype=np.int8) if digits is None else np.asarray(digits)
    text = {
        "data": ds.add("digits", {"p": np.repeat(np.arange(d.shape[0], dtype=np.int32), n_bits),
                                  "bit": np.tile(np.arange(n_bits, dtype=np.int8), d.shape[0]),
                                  "digit": d.ravel().astype(np.int8)}),
        "mark": {"type": "text", "fontSize": 12},
        "encoding": {"x": {"field": "p", "type": "quantitative"}, "y": y,
                     "text": {"field": "digit", "type": "quantitative"},
                     "color": {"condition": {"test": "datum.digit === 1", "value": "white"}, "value": "#555"}},
    }
    return ds.spec({"width": "container", "height": {"step": 34}, "layer": [runs, text]})


def hamming_vs_distance(H: np.ndarray, D: np.ndarray, codes: list[str], near: tuple[int, int],
                        far: tuple[int, int]) -> dict:
    """Two heatmaps of the same pairs (i, j): Hamming distance (bits that differ) beside |i − j|.

    The ``near`` pair (and its mirror) is outlined in red, the ``far`` pair in green. ``codes[i]`` is position
    i's code, shown in the tooltips. With more than 16 positions the spec is the same for any number of them
    (fixed size, every 8th position labelled), and the cells' data is the same for any n ≥ 6 (the codes are
    looked up from a small table of their own): changing n swaps at most that table in the browser. Each cell's
    tooltip is its data row (no per-cell tooltip text to build: with 8,192 cells that was most of the redraw).
    """
    m = H.shape[0]
    if 2 * m * m > 2 * MAX_MARKS:
        raise ValueError("Too many cells; show fewer positions.")
    ds = Datasets()
    cells = ds.add("cells", {"i": np.repeat(np.arange(m, dtype=np.int16), m),
                             "j": np.tile(np.arange(m, dtype=np.int16), m),
                             "bits that differ": np.asarray(H).ravel().astype(np.int8),
                             "|i − j|": np.asarray(D).ravel().astype(np.int16)})
    code_table = ds.add("codes", {"position": np.arange(m, dtype=np.int16), "code": list(codes[:m])})
    lookups = [{"lookup": v, "from": {"data": code_table, "key": "position", "fields": ["code"]}, "as": [f"code {v}"]}
               for v in ("i", "j")]
    if m <= 16:  # every position labelled, cells of up to 24 px
        side: int | dict = {"step": min(24, 360 // m)}
        axis: dict = {}
    else:  # every 8th position labelled, a fixed size
        side, axis = 352, {"labelExpr": "datum.value % 8 === 0 ? datum.label : ''", "ticks": False}
    x = {"field": "j", "type": "ordinal", "title": "position j", "axis": {"labelAngle": 0, **axis}}
    y = {"field": "i", "type": "ordinal", "title": "position i", "axis": dict(axis)}
    pair_names = list(dict.fromkeys([f"{near[0]} and {near[1]}", f"{far[0]} and {far[1]}"]))
    pairs = ds.add("pairs", {"i": np.array([near[0], near[1], far[0], far[1]], dtype=np.int16),
                    "j": np.array([near[1], near[0], far[1], far[0]], dtype=np.int16),
                    "pair": categories([0, 0, len(pair_names) - 1, len(pair_names) - 1], pair_names)})
    outline = {
        "data": pairs, "mark": {"type": "rect", "fill": None, "strokeWidth": 2.5},
        "encoding": {"x": {"field": "j", "type": "ordinal"}, "y": {"field": "i", "type": "ordinal"},
                     "stroke": {"field": "pair", "type": "nominal", "sort": pair_names, "title": "highlighted",
                                "scale": {"domain": pair_names, "range": [HIGHLIGHT, FAR][: len(pair_names)]},
                                "legend": {"orient": "bottom"}}},
    }

    def panel(field: str, title: str, scheme: str) -> dict:
        heat = {
            "data": cells, "title": title, "transform": lookups,
            "mark": {"type": "rect", "tooltip": {"content": "data"}},  # i, j, both distances, both codes
            "encoding": {"x": x, "y": y,
                         "color": {"field": field, "type": "quantitative", "scale": {"scheme": scheme},
                                   "legend": {"orient": "bottom", "title": field, "format": "d"}}},
        }
        return {"width": side, "height": side, "layer": [heat, outline]}

    return ds.spec({"hconcat": [panel("bits that differ", "Hamming distance: bits that differ", "greens"),
                                panel("|i − j|", "Distance |i − j|", "blues")],
                    "resolve": {"scale": {"color": "independent"}}})


def step_and_slope(x: np.ndarray, value: np.ndarray, slope: np.ndarray, b: int) -> tuple[dict, dict]:
    """bit_b(x) for real x as a step, and its finite-difference slope (0 but at the jumps)."""
    cols = {"x": np.asarray(x, dtype=np.float32), "bit": np.asarray(value, dtype=np.int8),
            "slope": np.asarray(slope, dtype=np.float32)}
    tips = [tip("x", format=".3f"), tip("bit"), tip("slope", format=".1f")]
    xe = {"field": "x", "type": "quantitative", "title": "position x (any real number)", "scale": {"nice": False}}
    hidden = {"opacity": 0, "size": 30}  # invisible points: a tooltip anywhere along the line
    top, bottom = Datasets(), Datasets()
    top_spec = top.spec({
        "title": f"bit {b} of a position x: a step", "width": "container", "height": 260,
        "data": top.add("steps", cols),
        "mark": {"type": "line", "color": ONE, "interpolate": "step-after", "point": hidden},
        "encoding": {"x": xe, "y": {"field": "bit", "type": "quantitative", "title": "bit value",
                                    "scale": {"domain": [-0.1, 1.1]}}, "tooltip": tips},
    })
    bottom_spec = bottom.spec({
        "title": "its slope: flat, then a spike at each jump", "width": "container", "height": 260,
        "data": bottom.add("steps", cols),
        "mark": {"type": "line", "color": HIGHLIGHT, "point": hidden},
        "encoding": {"x": xe, "y": {"field": "slope", "type": "quantitative", "title": "slope"}, "tooltip": tips},
    })
    return top_spec, bottom_spec


def square_to_sine(x: np.ndarray, curves: list[np.ndarray], names: list[str], bit: np.ndarray, sine: np.ndarray,
                   points_x: np.ndarray, points_y: np.ndarray, b: int) -> dict:
    """A bit as a square wave, smoothed into the sine of the same wavelength by a slider inside the chart.

    ``curves[s]`` is the curve at smoothing level s (0 = the bit itself, last = the sine); the slider re-filters
    the data in the browser (no rerun). The bit (grey) and the sine (dashed) stay as references; dots are the
    code's values at whole positions.
    """
    levels = len(curves)
    if levels * len(x) > MAX_MARKS:
        raise ValueError("Too many points; use a coarser grid.")
    ds = Datasets()
    names_ref = ds.add("names", {"level": np.arange(levels, dtype=np.int8), "curve": list(names)})
    ref_names = [f"bit {b} (square wave)", f"sine of wavelength {2 ** (b + 1)}"]
    xe = {"field": "x", "type": "quantitative", "title": "position x", "scale": {"nice": False}}
    ye = {"field": "value", "type": "quantitative", "title": "value",
          "scale": {"domain": [-0.25, 1.25], "nice": False}, "axis": {"values": [0, 0.5, 1]}}
    refs = {
        "data": ds.add("references", {"x": np.concatenate([x, x]).astype(np.float32),
                        "value": np.concatenate([bit, sine]).astype(np.float32),
                        "curve": categories(np.repeat([0, 1], len(x)), ref_names)}),
        "mark": {"type": "line", "strokeWidth": 1.5, "opacity": 0.45},
        "encoding": {
            "x": xe, "y": ye,
            "color": {"field": "curve", "type": "nominal", "title": None, "sort": ref_names,
                      "scale": {"domain": ref_names, "range": ["#888", BASE]}, "legend": {"orient": "top"}},
            "strokeDash": {"field": "curve", "type": "nominal", "legend": None, "sort": ref_names,
                           "scale": {"domain": ref_names, "range": [[1, 0], [5, 4]]}},
        },
    }
    moving = {
        "data": ds.add("curves", {"x": np.tile(x, levels).astype(np.float32),
                        "value": np.concatenate(curves).astype(np.float32),
                        "level": np.repeat(np.arange(levels, dtype=np.int8), len(x))}),
        "transform": [{"filter": "datum.level === smooth"},
                      {"lookup": "level", "from": {"data": names_ref, "key": "level", "fields": ["curve"]}}],
        "mark": {"type": "line", "color": HIGHLIGHT, "strokeWidth": 3},
        "encoding": {"x": xe, "y": ye, "tooltip": [tip("curve", "nominal"), tip("x", format=".2f"),
                                                   tip("value", format=".3f")]},
    }
    label = {
        "data": names_ref, "transform": [{"filter": "datum.level === smooth"}],
        "mark": {"type": "text", "align": "left", "baseline": "top", "x": 8, "y": 8, "fontSize": 14,
                 "fontWeight": "bold", "color": HIGHLIGHT},
        "encoding": {"text": {"field": "curve", "type": "nominal"}},
    }
    dots = {
        "data": ds.add("whole", {"position": np.asarray(points_x, dtype=np.int32),
                                 "bit": np.asarray(points_y, dtype=np.int8)}),
        "mark": {"type": "point", "filled": True, "size": 50, "color": ONE},
        "encoding": {"x": {"field": "position", "type": "quantitative"},
                     "y": {"field": "bit", "type": "quantitative", "title": "value"},
                     "tooltip": [tip("position"), tip("bit", title="bit at this whole position")]},
    }
    smooth = {"name": "smooth", "value": 0,
              "bind": {"input": "range", "min": 0, "max": levels - 1, "step": 1,
                       "name": f"Smooth it: 0 = the bit … {levels - 1} = the sine  "}}
    return ds.spec({"width": "container", "height": 340, "params": [smooth], "layer": [refs, moving, dots, label]})

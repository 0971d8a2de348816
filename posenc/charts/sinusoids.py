"""Charts for the sinusoid page: the raster table, the waves, one position's vector, the shift rule, the catch.

The page's charts are built as Vega-Lite specs (plain dicts, data as Arrow bytes in ``spec["datasets"]``), ready
for ``st.vega_lite_chart``: building and serialising them through Altair cost 5–20 ms per chart, more than the
whole computation, on every setting a student tries. ``validate(spec)`` checks a spec against the Vega-Lite
schema, as Altair's ``to_dict()`` does (the tests call it for every builder). ``position_heatmap`` (shared with
the RoPE page) stays an Altair chart; ``arrow_spec`` turns such a chart into the same kind of spec.
"""

from __future__ import annotations

import base64
import struct
import zlib

import altair as alt
import numpy as np
import pandas as pd
import pyarrow as pa

from posenc.sinusoid_demo import COLOUR_STOPS

from . import BASE, HIGHLIGHT, MAX_MARKS, Datasets, categories, fast, table_bytes, tip

F32 = "#e45756"


# ---------------------------------------------------------------- specs with Arrow data
def arrow_bytes(df: pd.DataFrame) -> bytes:
    """A DataFrame's columns as Arrow IPC stream bytes (categoricals stay dictionaries; the index is dropped)."""
    return table_bytes(pa.table({c: pa.Array.from_pandas(df[c]) for c in df.columns}))


def _name_datasets(obj: object, datasets: dict[str, bytes], seen: dict[int, str]) -> None:
    """Replace every DataFrame in a chart tree (views, layers, concatenations, facets) by a named dataset."""
    if not isinstance(obj, alt.SchemaBase):
        return
    data = obj._get("data")
    if isinstance(data, pd.DataFrame):
        if id(data) not in seen:  # names by order, not by content (see Datasets)
            seen[id(data)] = name = f"data{len(datasets)}"
            datasets[name] = arrow_bytes(data)
        obj.data = alt.NamedData(name=seen[id(data)])
    for attr in ("layer", "hconcat", "vconcat", "concat"):
        subs = obj._get(attr)
        if isinstance(subs, list):
            for sub in subs:
                _name_datasets(sub, datasets, seen)
    _name_datasets(obj._get("spec"), datasets, seen)


def arrow_spec(chart: alt.TopLevelMixin) -> dict:
    """The chart's Vega-Lite spec for ``st.vega_lite_chart``, with its data already as Arrow bytes.

    Like ``posenc.charts.to_spec`` (no schema validation here: the tests validate every chart builder; Altair's
    default 300×300 view dropped), but each DataFrame goes into ``spec["datasets"]`` as Arrow IPC bytes, which
    Streamlit ships as they are: no per-row JSON records to build, hash or convert back on every rerun. The
    chart is modified in place (build it for this call).
    """
    datasets: dict[str, bytes] = {}
    _name_datasets(chart, datasets, {})
    spec = chart.to_dict(validate=False)
    if datasets:
        spec["datasets"] = {**spec.get("datasets", {}), **datasets}
    view = spec.get("config", {}).get("view", {})
    if view == {"continuousWidth": 300, "continuousHeight": 300}:
        del spec["config"]["view"]
    spec.update(fast(spec))
    return spec


def png_data_url(rgb: np.ndarray) -> str:
    """An RGB uint8 array (h, w, 3) as a ``data:image/png;base64,…`` URL (stdlib zlib, no imaging library)."""
    a = np.ascontiguousarray(rgb, dtype=np.uint8)
    h, w, _ = a.shape
    raw = b"".join(b"\x00" + a[r].tobytes() for r in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def number(x: float) -> str:
    """A readable number: 6.283, 62.83, 4,712 or 47,117 (no exponent below 10^15)."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def position_heatmap(matrix: np.ndarray, row_positions: np.ndarray, col_positions: np.ndarray, *,
                     row_title: str, col_title: str, value_title: str, scheme: str = "viridis",
                     domain_mid: float | None = None, width: int | str = "container", height: int = 360,
                     title: str = "") -> alt.Chart:
    """A matrix indexed by positions (rows × columns), with every ~5th position labelled and a tooltip per cell
    (row, column, their gap column − row, value). At most 5,000 cells."""
    m = np.asarray(matrix, dtype=float)
    if m.size > MAX_MARKS:
        raise ValueError(f"{m.size} cells is too many for one chart; use ≤ {MAX_MARKS}.")
    rows = np.asarray(row_positions).astype(np.int64)
    cols = np.asarray(col_positions).astype(np.int64)
    gap = f"{col_title} − {row_title}"
    df = pd.DataFrame({
        row_title: np.repeat(rows, len(cols)),
        col_title: np.tile(cols, len(rows)),
        value_title: m.ravel(),
    })
    df[gap] = df[col_title] - df[row_title]
    for c in (row_title, col_title, gap):  # small on the wire
        df[c] = df[c].astype(np.int32)

    def every(vals: np.ndarray) -> list[int]:
        step = max(1, -(-len(vals) // 8))
        return [int(v) for v in vals[::step]]

    scale = (alt.Scale(scheme=scheme, domainMid=domain_mid) if domain_mid is not None
             else alt.Scale(scheme=scheme))
    return alt.Chart(df, title=title).mark_rect().encode(
        x=alt.X(field=col_title, type="ordinal", title=col_title, sort="ascending",
                axis=alt.Axis(values=every(cols), labelAngle=0, format=",d")),
        y=alt.Y(field=row_title, type="ordinal", title=row_title, sort="ascending",
                axis=alt.Axis(values=every(rows), format=",d")),
        color=alt.Color(field=value_title, type="quantitative", scale=scale, title=value_title),
        tooltip=[alt.Tooltip(field=row_title, type="quantitative", format=",d"),
                 alt.Tooltip(field=col_title, type="quantitative", format=",d"),
                 alt.Tooltip(field=gap, type="quantitative", format=",d"),
                 alt.Tooltip(field=value_title, type="quantitative", format=".10f")],
    ).properties(width=width, height=height)


def colour_scale_spec() -> dict:
    """The same diverging map as ``posenc.sinusoid_demo.diverging_rgb``, as a Vega-Lite scale (for legends)."""
    return {"domain": [s for s, _ in COLOUR_STOPS],
            "range": ["#{:02x}{:02x}{:02x}".format(*c) for _, c in COLOUR_STOPS], "interpolate": "rgb"}


def table_heatmap(image: np.ndarray, length: int, omegas: np.ndarray, *, width: int = 520,
                  height: int = 420, title: str = "") -> dict:
    """The table PE(p, j) (rows p = 1 … length, columns j = 0 … d−1) drawn as one raster image with real axes.

    Hovering a column tells which pair it belongs to, its frequency and wavelength (one transparent bar per
    dimension: at most d marks besides the image).
    """
    d = 2 * len(omegas)
    j = np.arange(d)
    i = j // 2
    ds = Datasets()
    x = {"field": "left", "type": "quantitative", "title": "dimension j",
         "scale": {"domain": [-0.5, d - 0.5], "nice": False, "zero": False}, "axis": {"tickMinStep": 1}}
    # the y domain (0.5 … length + 0.5) comes from the data: the spec is the same for every length
    y = {"field": "top", "type": "quantitative", "title": "position p",
         "scale": {"nice": False, "zero": False, "reverse": True}, "axis": {"tickMinStep": 1}}
    img = {
        "data": ds.add("image", {"left": [-0.5], "right": [d - 0.5], "top": [0.5], "bottom": [length + 0.5],
                                 "url": [png_data_url(image)]}),
        "mark": {"type": "image", "aspect": False, "smooth": False},
        "encoding": {"x": x, "x2": {"field": "right"}, "y": y, "y2": {"field": "bottom"},
                     "url": {"field": "url", "type": "nominal"}},
    }
    hover = {
        "data": ds.add("columns", {"dimension j": j.astype(np.int32), "left": j - 0.5, "right": j + 0.5,
                                   "top": np.full(d, 0.5), "bottom": np.full(d, length + 0.5),
                                   "pair i": i.astype(np.int32), "kind": categories(j % 2, ["sin(p·ω_i)", "cos(p·ω_i)"]),
                                   "ω_i": omegas[i], "wavelength 2π/ω_i": 2 * np.pi / omegas[i]}),
        "mark": {"type": "rect", "opacity": 0.001},
        "encoding": {"x": x, "x2": {"field": "right"}, "y": y, "y2": {"field": "bottom"},
                     "tooltip": [tip("dimension j"), tip("pair i"), tip("kind", "nominal"),
                                 tip("ω_i", format=".4g"), tip("wavelength 2π/ω_i", format=",.4g")]},
    }
    legend = {
        "data": ds.add("legend", {"PE value": [-1.0, 1.0]}),
        "mark": {"type": "point", "opacity": 0},
        "encoding": {"color": {"field": "PE value", "type": "quantitative", "title": "PE(p, j)",
                               "scale": colour_scale_spec()}},
    }
    return ds.spec({"title": title, "width": width, "height": height, "layer": [img, hover, legend]})


def waves(positions: np.ndarray, values: np.ndarray, pairs: tuple[int, ...], omegas: np.ndarray,
          dot_positions: np.ndarray, dots: np.ndarray, *, width: int = 640, title: str = "") -> dict:
    """sin(p·ω_i) over p for a few pairs: one small panel per pair, a line plus dots at whole positions."""
    names = [f"pair {i}: wavelength {number(2 * np.pi / omegas[i])}" for i in pairs]
    n, nc, nd = len(pairs), len(positions), len(dot_positions)
    if n * (nc + nd) > MAX_MARKS:
        raise ValueError(f"{n * (nc + nd)} samples is too many for one chart; use ≤ {MAX_MARKS}.")
    row = np.concatenate([np.repeat(np.arange(n), nc), np.repeat(np.arange(n), nd)])
    ds = Datasets()
    data = ds.add("waves", {
        "position p": np.concatenate([np.tile(positions, n), np.tile(dot_positions, n)]).astype(np.float32),
        "sin(p·ω_i)": np.concatenate([np.ravel(values), np.ravel(dots)]),
        "pair": categories(row, names),
        "pair i": np.asarray(pairs, dtype=np.int16)[row],
        "ω_i": np.asarray(omegas, dtype=np.float32)[np.asarray(pairs)][row],
        "kind": categories(np.repeat([0, 1], [n * nc, n * nd]), ["curve", "whole position"]),
    })
    # the x domain follows the data (0 … the last position drawn): the spec stays the same for any span
    x = {"field": "position p", "type": "quantitative", "title": "position p", "scale": {"nice": False}}
    y = {"field": "sin(p·ω_i)", "type": "quantitative", "title": None, "scale": {"domain": [-1.1, 1.1]},
         "axis": {"values": [-1, 0, 1]}}
    tips = [tip("pair i"), tip("ω_i", format=".4g"), tip("position p", format=".4g"),
            tip("sin(p·ω_i)", format=".4f")]
    line = {"mark": {"type": "line", "color": BASE, "strokeWidth": 1.5},
            "encoding": {"x": x, "y": y, "tooltip": tips}, "transform": [{"filter": "datum.kind === 'curve'"}]}
    dot = {"mark": {"type": "circle", "color": BASE, "size": 18, "opacity": 1},
           "encoding": {"x": x, "y": y, "tooltip": tips},
           "transform": [{"filter": "datum.kind === 'whole position'"}]}
    return ds.spec({
        "title": title, "data": data, "spacing": 8,
        "facet": {"row": {"field": "pair", "type": "nominal", "sort": names, "title": None,
                          "header": {"labelAngle": 0, "labelAlign": "left", "labelAnchor": "start",
                                     "labelOrient": "top", "labelFontSize": 13, "labelPadding": 2}}},
        "spec": {"width": width, "height": 54, "layer": [line, dot]},
    })


def position_vector(pe64: np.ndarray, pe32: np.ndarray, position: int, *, title: str = "") -> dict:
    """PE(p) coordinate by coordinate: float64 bars, float32 dots (where they part, float32 is wrong)."""
    d = len(pe64)
    j = np.arange(d, dtype=np.int32)
    ds = Datasets()
    data = ds.add("vector", {"dimension j": j, "pair i": j // 2, "PE float64": np.asarray(pe64, dtype=np.float64),
                   "PE float32": np.asarray(pe32, dtype=np.float64),
                   "|float32 − float64|": np.abs(np.asarray(pe32) - np.asarray(pe64))})
    tips = [tip("dimension j", format="d"), tip("pair i", format="d"), tip("PE float64", format=".7f"),
            tip("PE float32", format=".7f"), tip("|float32 − float64|", format=".7f")]
    x = {"field": "dimension j", "type": "quantitative", "title": "dimension j",
         "scale": {"domain": [-0.5, d - 0.5], "nice": False}, "axis": {"tickMinStep": 1, "format": "d"}}
    bars = {"mark": {"type": "bar", "color": BASE, "opacity": 0.75, "size": max(1, min(40, 560 // d))},
            "encoding": {"x": x, "y": {"field": "PE float64", "type": "quantitative", "title": f"PE({position:,}, j)",
                                       "scale": {"domain": [-1.05, 1.05]}}, "tooltip": tips}}
    diamonds = {"mark": {"type": "point", "color": F32, "shape": "diamond", "filled": True, "size": 28},
                "encoding": {"x": x, "y": {"field": "PE float32", "type": "quantitative"}, "tooltip": tips}}
    return ds.spec({"title": title, "width": "container", "height": 220, "data": data, "layer": [bars, diamonds]})


def dot_lines(positions: np.ndarray, dots: np.ndarray, ks: tuple[int, ...], chosen: int, *,
              title: str = "") -> dict:
    """PE(p)·PE(p + k) over p, one line per k: flat lines mean 'depends on k only'."""
    names = [f"k = {k:,}" + (" (chosen)" if k == chosen else "") for k in ks]
    n = len(positions)
    if n * len(ks) > MAX_MARKS:
        raise ValueError(f"{n * len(ks)} points is too many for one chart.")
    ds = Datasets()
    data = ds.add("dots", {"position p": np.tile(np.asarray(positions, dtype=np.int32), len(ks)),
                   "PE(p)·PE(p+k)": np.ravel(dots), "shift": categories(np.repeat(np.arange(len(ks)), n), names)})
    return ds.spec({
        "title": title, "width": "container", "height": 280, "data": data,
        "mark": {"type": "line", "strokeWidth": 2.5},
        "encoding": {
            "x": {"field": "position p", "type": "quantitative", "title": "position p", "scale": {"nice": False}},
            "y": {"field": "PE(p)·PE(p+k)", "type": "quantitative", "title": "PE(p)·PE(p+k)"},
            "color": {"field": "shift", "type": "nominal", "sort": names, "title": None,
                      "legend": {"orient": "right"}},
            "tooltip": [tip("shift", "nominal"), tip("position p"), tip("PE(p)·PE(p+k)", format=".12f")],
        },
    })


def catch_sweep(ms: np.ndarray, scores: np.ndarray, gap: int, marks: list[tuple[int, float]], *,
                title: str = "") -> dict:
    """The additive scheme's score(m, m − gap) over m: not flat. ``marks`` (m, score) are ringed in red."""
    col = f"score(m, m − {gap})"
    ms = np.asarray(ms)
    ds = Datasets()
    enc = {"x": {"field": "query position m", "type": "quantitative", "title": "query position m",
                 "scale": {"nice": False}},
           "y": {"field": col, "type": "quantitative", "title": col},
           "tooltip": [tip("query position m"), tip("key position n"), tip(col, format=".4f")]}
    line = {"data": ds.add("sweep", {"query position m": ms.astype(np.int32),
                                     "key position n": (ms - gap).astype(np.int32),
                                     col: np.asarray(scores, dtype=np.float64)}),
            "mark": {"type": "line", "color": BASE, "point": {"size": 10, "color": BASE}}, "encoding": enc}
    rings = {"data": ds.add("pairs", {"query position m": np.array([m for m, _ in marks], dtype=np.int32),
                                      "key position n": np.array([m - gap for m, _ in marks], dtype=np.int32),
                                      col: np.array([v for _, v in marks], dtype=np.float64)}),
             "mark": {"type": "point", "color": HIGHLIGHT, "size": 160, "strokeWidth": 2.5}, "encoding": enc}
    return ds.spec({"title": title, "width": "container", "height": 280, "layer": [line, rings]})

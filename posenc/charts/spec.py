"""The one chart pipeline: a ``@layout`` (the chart's Altair structure over named datasets) plus the data as
Arrow tables → a ``Figure`` the frame draws.

Public APIs only (``alt.NamedData``, ``Chart.to_dict(validate=False)``, ``alt.load_schema``, pyarrow):

    @layout
    def _lines_layout(names: Sequence[str], height: int) -> alt.Chart:   # structure only: labels, sizes, titles
        return alt.Chart(named("main")).mark_line().encode(...)          # the chart refers to its data by name

    def lines(res) -> Figure:
        return figure(
            _lines_layout(res.names, 300),                               # built once per distinct arguments
            {"main": columns(x=res.xs, y=res.ys)},                       # the data, as Arrow tables
            description="What the chart shows and its takeaway.",       # the chart's accessible name: fixed
            reading=f"The numbers at this setting: {res.top:.2f} …",     # read out after it: changes with data
        )

Why this shape (measured on Streamlit 1.67 / Altair 6.3, 2-core machine): building an Altair chart costs 2–60 ms
(its constructors deep-copy the spec at every step), far more than the numbers it shows; ``to_dict`` of a chart
with inline DataFrame data costs ~50 ms more. So the structure is built once per distinct layout arguments and
kept (bounded, per process), and the data travel separately as named Arrow tables, which Streamlit sends as they
are. A press that changes only the data (a seed, a slider) reuses the layout; under a lecture hall's load one
process went from 17.9 to 28.2 reruns a second with it. Dataset names are fixed by the builder, not derived
from the data, so the spec stays byte-identical and the browser swaps the data into the chart it already has.
The description is part of the spec (Streamlit 1.67's frontend rebuilds the Vega view when any of it changes,
the description included: a slider press on the fixes page took 233–241 ms of page work against 153–159 ms with
the description fixed), so it says what the chart shows in words fixed by the layout's arguments, and the numbers
of this setting travel as the ``reading``: a sentence the frame sets right after the chart, for screen readers.
The tests validate every figure against the Vega-Lite schema (``validate``).

Colours carry one meaning each across the app (``FOCUS``: what the page points at; ``SERIES``: things compared;
``REFERENCE``: bounds, marks and baselines), every one ≥ 4.5:1 on white, and a series is never told apart by
colour alone: ``series()`` pairs each colour with a dash pattern and a point shape.
"""

from __future__ import annotations

import functools
import json
import textwrap
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import pyarrow as pa

MAX_MARKS = 5000
# A chart of more rows than this draws on a canvas, through vega-embed's documented ``usermeta.embedOptions``
# (Streamlit 1.67 switches by itself past 2,000): restyling RoPE's 1,600-cell score window took 41 ms a frame in
# SVG and 20 ms on a canvas. The chart keeps its accessible name (vega labels the container).
CANVAS_ROWS = 1000

# ---------------------------------------------------------------- colours, one meaning each (≥ 4.5:1 on white)
FOCUS = "#b3124d"  # what the page points at: the chosen word, the copies, the marked position (6.8:1)
REFERENCE = "#595959"  # bounds, rules, the training length, baselines (7.0:1)
SERIES = ("#1f5fbf", "#a64d00", "#2e7d32", "#6a3d9a", "#00695c", "#595959")  # compared things, in order
DASHES = ((1, 0), (7, 3), (2, 2), (9, 3, 2, 3), (4, 4), (1, 3))  # the second cue, in the same order
SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down")
TEXT = "#222222"  # axis and legend text (15:1)
DIVERGING = "blueorange"  # signed values (scores, coordinates): the scheme's ends are ≥ 4.5:1
SEQUENTIAL = "blues"  # non-negative values (weights, similarities)


# A legend label is never cut short (Vega cuts at 160 px by default: "sinusoid pairs: ×ba…" on a projector): its
# entries stand in one row under a wide chart and one per line under a narrow one (a phone, a half-width column),
# so the whole text fits either way. Read once, when the chart is drawn into its container.
LEGEND_ROW_MIN = 640  # px: a chart narrower than this stacks its legend's entries
LEGEND_FIT = {"labelLimit": 0,
              "columns": {"expr": f"containerSize()[0] > 0 && containerSize()[0] < {LEGEND_ROW_MIN} ? 1 : 0"}}


# An x axis' label whose tick lies this near either end of the axis is aligned flush with that end, not centred
# on its tick: a centred end label (10,000,000 at 18 px) runs past the chart's edge and is cut there.
LABEL_FLUSH = 50  # px (Vega's labelFlush threshold; true means 1 px)


def _config(font: int) -> dict:
    """The house config at axis/legend text size ``font`` (``_finish`` makes its sizes follow presentation mode)."""
    return {
        "axis": {"labelColor": TEXT, "titleColor": TEXT, "labelFontSize": font, "titleFontSize": font,
                 "tickColor": REFERENCE, "domainColor": REFERENCE},
        "axisXQuantitative": {"labelFlush": LABEL_FLUSH},
        "legend": {"labelColor": TEXT, "titleColor": TEXT, "labelFontSize": font, "titleFontSize": font,
                   "orient": "bottom", "direction": "horizontal", **LEGEND_FIT},
        "header": {"labelColor": TEXT, "titleColor": TEXT, "labelFontSize": font, "titleFontSize": font},
        "title": {"color": TEXT, "fontSize": font + 2, "anchor": "start", "subtitleColor": TEXT},
        "text": {"color": TEXT},
        "mark": {"invalid": None, "aria": False},  # no mark read out one by one (see _quiet)
    }


CONFIG = _config(13)
# resize: Vega lays a chart out again at every update, not only at its first draw: presentation mode grows the
# text in the browser (PRESENT_PARAM), and a layout kept from the small text cut titles and axis labels off
FIT_X = {"type": "fit-x", "contains": "padding", "resize": True}
PAD = {"type": "pad", "resize": True}  # for COMPOSED specs
COMPOSED = {"facet", "hconcat", "vconcat", "concat", "repeat"}  # fit-x breaks nested compositions

# Presentation mode (dark 18 px text for the back of the room, a capped height) is decided in the browser, so a
# chart's spec is the same in both modes and the sidebar's toggle keeps every chart (Streamlit rebuilds a chart
# whose spec changes: the toggle took up to 716 ms on the binary page when every spec changed). Every chart has
# the param PRESENT_PARAM; each text size, and a height over the cap, is an expression of it. The param is bound
# (Vega's external binding: it reads the element's ``value`` when the chart is drawn and at each PRESENT_EVENT) to
# the document's root element, which is there before any chart is: frame/live.js keeps "1" there while projecting.
# (A hidden input drawn by the page was not always there: Streamlit loads an element's code lazily, and a chart
# drawn first lost its binding — "Signal bind element not found" — and so presentation mode.)
PRESENT_PARAM = "pe_present"
PRESENT_HOLDER = "html"  # a CSS selector: the document's root element
PRESENT_EVENT = "pe-present"
PRESENT_BIND = {"element": PRESENT_HOLDER, "event": PRESENT_EVENT}
PRESENTING = f"{PRESENT_PARAM} === '1'"
PRESENT_SIZES = {("axis", "labelFontSize"): 18, ("axis", "titleFontSize"): 18,  # config section, key → size
                 ("legend", "labelFontSize"): 18, ("legend", "titleFontSize"): 18,
                 ("header", "labelFontSize"): 18, ("header", "titleFontSize"): 18,
                 ("title", "fontSize"): 20, ("title", "subtitleFontSize"): 16, ("text", "fontSize"): 16}
VEGA_SIZES = {("title", "subtitleFontSize"): 10, ("text", "fontSize"): 11}  # Vega's own, where the house sets none
PRESENT_TEXT = 18 / 13  # presentation mode: a text mark's (or subtitle's) own size grows as the axes' text does


# Linked highlighting: the charts of one section that show the same words, positions or pairs light together.
# Hovering (or tapping) a mark in one lights the marks with the same key in every chart of its group, on the page
# as it is: no script runs, no chart is rebuilt. Each chart carries a point selection the pointer sets, bound like
# the presentation param to an element that is there before any chart (the body); Vega's external binding works
# both ways, so the selection writes the key into the element and dispatches LINK_EVENT. Every linked chart reads
# the element back through a second, plain param (LINK_NOW), and lights its marks only for a key of its own group
# ("<group>:<key>", the calculated field LINK_FIELD): another section's hover, or a key left from an earlier tap,
# never fades or lights it. A mouse clears the key on leaving; a tap's light stays until the next tap
# (HOVER_CLEAR, as in the attention page's panels).
LINK_PARAM = "pe_link"  # the selection the pointer sets (it writes the holder)
LINK_NOW = "pe_link_now"  # the key lit on the page, read from the holder (any group's, or nothing)
LINK_FIELD = "pe_link_key"
LINK_HOLDER = "body"  # a CSS selector (the root holds presentation mode's value: one value per element)
LINK_EVENT = "pe-link"
LINK_BIND = {"element": LINK_HOLDER, "event": LINK_EVENT}
HOVER_ON = "pointerover"
HOVER_CLEAR = "pointerout[event.pointerType === 'mouse']"
LINK_FADE = 0.3  # the unlit marks' opacity while one of their group is lit (a second cue besides the outline)
# a label's white halo (its text in white, outlined in white): drawn first, under the label, it keeps a line or a
# cursor from striking the words through
HALO = {"color": "#ffffff", "stroke": "#ffffff", "strokeWidth": 4, "strokeJoin": "round"}
LINK_STROKE = 2.5  # the lit marks' outline, in TEXT
NEAREST_POINTS = 80  # a crosshair snaps to at most this many points of its line


@dataclass(frozen=True)
class Link:
    """One group of linked charts: ``group`` names it (unique on its page), ``key`` is a Vega expression over a
    datum giving what is the same thing in every chart of the group (a word's slot, a pair of positions). A
    builder calculates ``calculate`` on the data its marks use, then draws them with ``cells`` (a heatmap's
    cells, faded but the lit one, which is outlined) or ``crosshair`` (a line over a continuous axis, the lit
    position a rule); ``hint`` is the subtitle that says so."""

    group: str
    key: str

    @property
    def calculate(self) -> dict[str, str]:
        return {LINK_FIELD: f"{json.dumps(self.group + ':')} + ({self.key})"}

    def params(self, *, nearest: bool = False) -> list[alt.Parameter]:
        """The selection the pointer sets (hovering or tapping a mark), and the param that reads the key back."""
        return [alt.selection_point(name=LINK_PARAM, fields=[LINK_FIELD], on=HOVER_ON, clear=HOVER_CLEAR,
                                    bind=LINK_BIND, **({"nearest": True} if nearest else {})),
                alt.param(name=LINK_NOW, value="", bind=LINK_BIND)]

    @property
    def ours(self) -> str:
        """True while the key lit on the page is one of this group's."""
        return f"indexof({LINK_NOW} + '', {json.dumps(self.group + ':')}) === 0"

    @property
    def lit(self) -> str:
        """True for the marks whose key is lit."""
        return f"{self.ours} && datum.{LINK_FIELD} === {LINK_NOW}"

    def hint(self, what: str, where: str) -> str:
        return f"hover or tap a {what}: it lights in {where}"

    def cells(self, base: alt.Chart, x: Any, y: Any, tooltip: list, **encoding: Any) -> tuple[alt.Chart, alt.Chart]:
        """A heatmap's cells over ``base`` (which calculates the key), faded while another cell of the group is
        lit, and the lit cells outlined in TEXT: two layers, the outline to be drawn over the cells. The lit marks
        (here and in ``crosshair``) carry no tooltip, so Vega leaves them out of pointer events: drawn under a
        still pointer, they would take it from the cell and clear the light they show."""
        cells = base.mark_rect(aria=False).encode(
            x=x, y=y, tooltip=tooltip, opacity=alt.condition(f"!({self.ours}) || {self.lit}", alt.value(1.0),
                                                             alt.value(LINK_FADE)), **encoding,
        ).add_params(*self.params()).properties(name="cells")
        outline = base.transform_filter(self.lit).mark_rect(  # no tooltip: the cell under it keeps the pointer
            filled=False, stroke=TEXT, strokeWidth=LINK_STROKE, aria=False).encode(x=x, y=y)
        return cells, outline

    def crosshair(self, data: str, marks: alt.Chart, x: alt.X, y: alt.Y, tooltip: list, *, title: str,
                  what: str, height: int = 200) -> alt.LayerChart:
        """``marks`` (a line or an area over the dataset ``data``) on a continuous ``x``: the datum nearest the
        pointer is lit as a dashed rule in TEXT, here and in the group's other chart, and its tooltip shows
        wherever the pointer is; ``title`` over the ``hint`` for a ``what`` (a row, a position)."""
        base = alt.Chart(named(data)).transform_calculate(**self.calculate)
        # the points the pointer snaps to: at most NEAREST_POINTS of them, evenly spaced (Vega draws a Voronoi cell
        # for each, again at every layout: 512 cells a chart made binary's presentation toggle 321 → 464 ms)
        near = base.transform_window(pe_i="row_number()").transform_joinaggregate(pe_n="count()").transform_filter(
            f"(datum.pe_i - 1) % ceil(datum.pe_n / {NEAREST_POINTS}) === 0").mark_point(
            opacity=0, aria=False).encode(x=x, y=y, tooltip=tooltip).add_params(
            *self.params(nearest=True)).properties(name="near")
        lit = base.transform_filter(self.lit).mark_rule(
            color=TEXT, strokeWidth=LINK_STROKE, strokeDash=[5, 3], aria=False).encode(x=x)
        return alt.layer(marks.encode(x=x, y=y, tooltip=tooltip), near, lit).properties(
            height=height, title=alt.TitleParams(title, subtitle=self.hint(what, "both charts")))


def by_mode(normal: float, present: float) -> dict:
    """A size that is ``present`` while projecting and ``normal`` otherwise, decided in the browser."""
    return {"expr": f"{PRESENTING} ? {present:g} : {normal:g}"}


@dataclass(frozen=True)
class Figure:
    """A finished chart: the Vega-Lite spec (datasets by name) and its Arrow tables."""

    spec: dict
    datasets: dict[str, pa.Table] = field(default_factory=dict)
    reading: str = ""

    @property
    def description(self) -> str:
        """What the chart shows (its accessible name): fixed by the layout, whatever the data."""
        return str(self.spec.get("description", ""))

    @property
    def spoken(self) -> str:
        """What a screen reader reads: the description, then the reading (this setting's numbers)."""
        return f"{self.description} {self.reading}".strip()

    @property
    def rows(self) -> int:
        """Data rows shipped with the chart (the marks it can draw, at most)."""
        return sum(t.num_rows for t in self.datasets.values())

    def to_vega_lite(self, *, max_height: int | None = None) -> dict:
        """The spec with its datasets, for ``st.vega_lite_chart``: the same in presentation mode and out of it
        (see ``PRESENT_PARAM``); ``max_height`` caps a taller chart's height while projecting."""
        spec = dict(self.spec)
        height = spec.get("height")
        if max_height and isinstance(height, (int, float)) and height > max_height:
            spec["params"] = [*spec.get("params", []),
                              {"name": "height", "update": f"{PRESENTING} ? {max_height:g} : {height:g}"}]
        spec["datasets"] = dict(self.datasets)
        if self.rows > CANVAS_ROWS:
            spec["usermeta"] = _merge(spec.get("usermeta", {}), {"embedOptions": {"renderer": "canvas"}})
        return spec


def check_marks(n: int) -> None:
    """Refuse a figure of more than ``MAX_MARKS`` data rows: the builder must block-average or downsample first."""
    if n > MAX_MARKS:
        raise ValueError(f"{n} marks is too many for one chart; downsample to ≤ {MAX_MARKS}.")


def named(name: str) -> alt.NamedData:
    """The data reference a builder's chart uses: the table itself goes in ``figure(…, {name: table})``."""
    return alt.NamedData(name=name)


def columns(**cols: Any) -> pa.Table:
    """Columns (numpy arrays, lists, or ``pa.Array``s such as ``categories(…)``) as an Arrow table, built
    straight from the arrays."""
    return pa.table({name: col if isinstance(col, pa.Array) else pa.array(np.asarray(col))
                     for name, col in cols.items()})


def categories(codes: np.ndarray, names: Sequence[str]) -> pa.DictionaryArray:
    """A text column stored once per distinct value: names[codes[r]] in row r (an Arrow dictionary)."""
    index = np.int8 if len(names) <= 127 else np.int16 if len(names) <= 32767 else np.int32
    return pa.DictionaryArray.from_arrays(pa.array(np.asarray(codes, dtype=index)), pa.array(list(names)))


def _table(data: Any) -> pa.Table:
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pd.DataFrame):
        return pa.Table.from_pandas(data, preserve_index=False)
    if isinstance(data, Mapping):
        return columns(**data)
    raise TypeError(f"chart data must be a pyarrow Table, a DataFrame or a dict of columns, not {type(data)}")


def _merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


class Layout:
    """A chart's finished spec without its data (what ``@layout`` returns): house style, sizing, params and
    encodings, the datasets referred to by name. Immutable: every figure gets its own copy."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        self._text = text

    def spec(self) -> dict:
        return json.loads(self._text)


LAYOUTS_KEPT = 256  # distinct layouts kept per builder (a few KB each): the memo is bounded


def layout(build: Callable[..., alt.TopLevelMixin]) -> Callable[..., Layout]:
    """Decorate a function that builds a chart's Altair layout from structural arguments only (labels, sizes,
    domains, titles: never the data, which ``figure`` attaches by name). The chart is built and converted once
    per distinct arguments, per process, and kept: Altair's construction costs 10–60 ms a chart, far more than
    the section's numbers, so a press that changes only the data (a seed, a slider's value) reuses the layout.

    Arguments must be hashable scalars, strings or sequences of them (lists are keyed as tuples); an array is
    refused, because data in a layout would make every press a new layout."""
    kept: OrderedDict[tuple, str] = OrderedDict()
    building: dict[tuple, threading.Event] = {}  # keys a thread is building now: another caller waits for it
    lock = threading.Lock()

    @functools.wraps(build)
    def cached(*args: Any, **kwargs: Any) -> Layout:
        key = (_key(args), _key(tuple(sorted(kwargs.items()))))
        while True:
            with lock:
                text = kept.get(key)
                if text is not None:
                    kept.move_to_end(key)
                    return Layout(text)
                underway = building.get(key)
                if underway is None:
                    building[key] = threading.Event()
                    break
            underway.wait()  # built by another thread (a script run, frame.warm): read it, do not build it twice
        try:
            text = json.dumps(_finish(build(*args, **kwargs).to_dict(validate=False)), default=_scalar)
            with lock:
                kept[key] = text
                while len(kept) > LAYOUTS_KEPT:
                    kept.popitem(last=False)
        finally:
            with lock:
                building.pop(key).set()
        return Layout(text)

    cached.kept = kept  # type: ignore[attr-defined]  (the tests read its size)
    return cached


NICE_RUNGS = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)  # × 10^k: each rung at most 4/3 of the one below


def nice_bound(x: float) -> float:
    """The smallest rung of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k that is ≥ ``x``: the bound of a colour
    scale or an axis computed from the data (a largest |value|, a radius), made fit for a layout argument.

    Why: a ``@layout`` is built once per distinct arguments, so a bound taken straight from the numbers makes every
    seed, d or sentence a new layout (10–60 ms of Altair each time, the memo never hits). Rounded up to this
    fixed ladder, the bound takes a handful of values over a whole class and the layout is reused; nothing is
    clipped (the result is never below ``x``), at most a quarter of the range is left empty, and the legend
    and axis end on a round number. A symmetric scale stays symmetric: ``b = nice_bound(max |v|)``, domain
    ``[-b, b]``. An ``x`` ≤ 0 (nothing to show) gets 1."""
    x = float(x)
    if not np.isfinite(x):
        raise ValueError(f"a bound must be a finite number, not {x}")
    if x <= 0:
        return 1.0
    k = int(np.floor(np.log10(x)))
    for e in (k - 1, k, k + 1):  # log10 may be off by one next to a power of ten
        for rung in NICE_RUNGS:
            v = float(f"{rung}e{e}")  # the decimal itself (1.2e-1 is 0.12, not 0.12000000000000001)
            if v >= x:
                return v
    raise AssertionError("unreachable: 10^(k+1) ≥ x")


def _key(x: Any) -> Any:
    if isinstance(x, np.ndarray) or isinstance(x, (pa.Array, pa.Table, pd.DataFrame, pd.Series)):
        raise TypeError("a layout takes structure, not data: pass arrays to figure(…) by name")
    if isinstance(x, (list, tuple)):
        return tuple(_key(v) for v in x)
    if isinstance(x, np.generic):
        return x.item()
    hash(x)  # anything else must be hashable
    return x


def _scalar(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"not JSON: {type(x)}")


def walk_dicts(node: Any):
    """Every dict in a Vega-Lite spec, depth first (the pipeline's and the tests' one walker)."""
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from walk_dicts(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk_dicts(v)


def _quiet(spec: dict) -> None:
    """No mark is exposed one by one to a screen reader (``aria: false`` on every mark): a chart is read by its
    description and its reading (what it shows, then this setting's numbers), and its numbers by Show data or a
    table beside it."""
    for node in walk_dicts(spec):
        mark = node.get("mark")
        if isinstance(mark, str):
            node["mark"] = {"type": mark, "aria": False}
        elif isinstance(mark, dict):
            mark["aria"] = False


# A chart's title never loses its end to Vega's cut at the plot's width ("float32 against float64 at p = 5,000,000,
# c…" on a phone): a title wider than its chart splits into lines at spaces, in the browser, from the chart's
# container width (read once, when the chart is drawn) — one line on a laptop, two or three on a phone; static
# and data-driven titles alike (the expression wraps the title's own text or expression). A subtitle can only
# be text: one longer than SUBTITLE_CHARS is set as lines of at most that many characters, everywhere.
TITLE_CHAR_PX = 7.5  # a title character's width at the house title size (15 px bold): a phone fits ~40
TITLE_MARGIN_PX = 60  # the container's width beyond the plot's (the y axis' labels and title)
TITLE_FITS_PX = 240  # a static title narrower than this fits any chart as it is (a half column on a projector)
SUBTITLE_CHARS = 56  # fits a 390 px phone at the subtitle size (Vega's 10 px; 16 px on a projector's wider chart)
VIEW_KEYS = {"mark", "layer", "hconcat", "vconcat", "concat", "facet", "repeat"}


def fitted_title(text: str, char_px: float | str) -> str:
    """The Vega expression for title text ``text`` (an expression) split into lines that fit the container: as
    few lines as fit, of about equal length (no orphan word on the last line). ``char_px``: a character's width,
    a number or an expression."""
    px = f"{char_px:g}" if isinstance(char_px, (int, float)) else f"({char_px})"
    room = f"max(containerSize()[0] - {TITLE_MARGIN_PX}, 10 * {px})"
    lines = f"ceil(length({text}) * {px} / {room})"
    chars = f"min(floor({room} / {px}), ceil(length({text}) / {lines}) + 8)"
    return (f"containerSize()[0] > 0 && length({text}) * {px} > {room} ? split(trim(replace({text}, "
            f"regexp('(.{{1,' + {chars} + '}})(\\\\s+|$)', 'g'), '$1\\n')), '\\n') : {text}")


def wrapped_subtitle(text: str) -> list[str]:
    """``text`` in as few lines of at most SUBTITLE_CHARS as it needs, of about equal length."""
    lines = -(-len(text) // SUBTITLE_CHARS)
    width = -(-len(text) // lines)
    while len(textwrap.wrap(text, width, break_long_words=False)) > lines and width < SUBTITLE_CHARS:
        width += 1
    return textwrap.wrap(text, width, break_long_words=False)


TITLE_PX = f"{PRESENTING} ? {TITLE_CHAR_PX * PRESENT_TEXT:.6g} : {TITLE_CHAR_PX:g}"  # a title character, by mode


def _fit_titles(spec: dict) -> dict:
    """Every view title of ``spec`` fitted to its chart (see ``fitted_title``), in either mode."""
    for node in walk_dicts(spec):
        title = node.get("title")
        if title is None or not VIEW_KEYS & node.keys() or node is spec.get("config"):
            continue  # an axis', a legend's or a channel's title, or the house config's
        title = node["title"] = dict(title) if isinstance(title, dict) else {"text": title}
        text = title.get("text")
        if isinstance(text, str) and len(text) * TITLE_CHAR_PX * PRESENT_TEXT > TITLE_FITS_PX:
            title["text"] = {"expr": fitted_title(json.dumps(text, ensure_ascii=False), TITLE_PX)}
        elif isinstance(text, dict) and isinstance(text.get("expr"), str):
            title["text"] = {"expr": fitted_title(f"({text['expr']})", TITLE_PX)}
        sub = title.get("subtitle")
        if isinstance(sub, str) and len(sub) > SUBTITLE_CHARS:
            title["subtitle"] = wrapped_subtitle(sub)
        if list(title) == ["text"] and isinstance(title["text"], str):
            node["title"] = title["text"]
    return spec


def _scaled_text(spec: dict, factor: float) -> dict:
    """Text marks and subtitles that set their own size grow by ``factor`` while projecting (the config grows the
    others)."""
    for node in walk_dicts(spec):
        mark = node.get("mark")
        if isinstance(mark, dict) and mark.get("type") == "text" and isinstance(mark.get("fontSize"), (int, float)):
            mark["fontSize"] = by_mode(mark["fontSize"], round(mark["fontSize"] * factor))
        title = node.get("title")
        if isinstance(title, dict) and isinstance(title.get("subtitleFontSize"), (int, float)):
            title["subtitleFontSize"] = by_mode(title["subtitleFontSize"], round(title["subtitleFontSize"] * factor))
    return spec


def _present_sizes(config: dict) -> dict:
    """``config`` with each size of PRESENT_SIZES following presentation mode: its own size out of it (or Vega's),
    the projector's in it (or its own, when larger)."""
    for (section, key), big in PRESENT_SIZES.items():
        part = config.setdefault(section, {})
        normal = part.get(key, VEGA_SIZES.get((section, key)))
        if isinstance(normal, (int, float)):
            part[key] = by_mode(normal, max(normal, big))
    return config


def _vertical_legends(spec: dict) -> None:
    """A legend (or a chart's legend config) that asks for ``direction: vertical`` keeps one entry per line: Vega
    reads a legend's columns before its direction, so the house ``columns`` expression would put it in a row."""
    for node in walk_dicts(spec):
        legend = node.get("legend")
        if (isinstance(legend, dict) and legend.get("direction") == "vertical"
                and legend.get("columns", LEGEND_FIT["columns"]) == LEGEND_FIT["columns"]):
            legend["columns"] = 1


def _finish(spec: dict) -> dict:
    """The house style on a converted chart (done once per layout): config, sizing, titles that fit, text that
    follows presentation mode (``PRESENT_PARAM``), and marks hidden from screen readers (``_quiet``)."""
    _quiet(spec)
    view = spec.get("config", {}).get("view", {})
    if view == {"continuousWidth": 300, "continuousHeight": 300}:  # Altair's default theme; Streamlit drops it
        del spec["config"]["view"]
    spec["config"] = _present_sizes(_merge(CONFIG, spec.get("config", {})))
    _vertical_legends(spec)
    _fit_titles(spec)
    _scaled_text(spec, PRESENT_TEXT)
    spec["params"] = [*spec.get("params", []),
                      {"name": PRESENT_PARAM, "value": "", "bind": PRESENT_BIND}]
    if "autosize" not in spec:
        # The width follows the column and the height is the plot's own. (Streamlit's default for a stretched
        # chart fits title, axes and a legend below inside the height, which squeezes the plot to a sliver.)
        spec["autosize"] = dict(PAD if COMPOSED & spec.keys() else FIT_X)
    else:
        spec["autosize"] = {**spec["autosize"], "resize": True}
    return spec


def figure(chart: Layout, data: Mapping[str, Any], description: str, reading: str = "") -> Figure:
    """The one way a chart is finished: its layout (from a ``@layout`` builder), the description (what it shows
    and its takeaway, Streamlit names the chart with it: words and the layout's own arguments only, so a press
    that changes the data keeps the chart), the reading (the numbers of this setting, read out after the chart;
    see the module's docstring), and the data as Arrow tables, by the names the layout uses."""
    if not description or not description.strip():
        raise ValueError("every chart needs a description (its title and takeaway)")
    if not isinstance(chart, Layout):
        raise TypeError("figure() takes a Layout: build the chart in a function decorated with @layout")
    spec = chart.spec()
    spec["description"] = description.strip()
    tables = {name: _table(t) for name, t in data.items()}
    return Figure(spec=spec, datasets=tables, reading=" ".join(reading.split()))


def series_colours(names: Sequence[str], colours: Sequence[str] = SERIES) -> dict[str, str]:
    """Each compared thing's colour, in order: the colours ``series()`` gives the same names."""
    if len(names) > len(colours):
        raise ValueError(f"at most {len(colours)} series on one chart; got {len(names)}")
    return {name: colours[k] for k, name in enumerate(names)}


def series_scale(names: Sequence[str], colours: Sequence[str] = SERIES) -> alt.Scale:
    """The colour scale of ``series()`` on its own (for a layer that needs only the colour, e.g. direct labels)."""
    return alt.Scale(domain=list(names), range=list(series_colours(names, colours).values()))


def series(field_: str, names: Sequence[str] | int, *, title: str | None = None, legend: bool = True,
           colours: Sequence[str] = SERIES, order: str | None = None) -> dict:
    """Encodings that tell the series ``names`` apart twice: colour and dash (lines), colour and shape
    (points). Spread into ``.encode(**series(...))``; a mark ignores the channels it has no use for.

    When a series' name carries a value (“k = 3 (yours)”), pass instead how many series there can be (an int)
    and ``order``, a numeric field: the names then come from the data, in the order of that field (the row
    with the smallest ``order`` gets the first colour, dash and shape), so a new value is new data, not a new
    layout."""
    if isinstance(names, int):
        if order is None:
            raise ValueError("series named by the data need an order field")
        n, domain, sort = names, alt.Undefined, alt.EncodingSortField(field=order, op="min")
    else:
        names = list(names)
        n, domain, sort = len(names), names, names
    if n > len(colours):
        raise ValueError(f"at most {len(colours)} series on one chart; got {n}")
    leg = alt.Legend(title=title) if legend else None
    return {
        "color": alt.Color(f"{field_}:N", sort=sort, legend=leg,
                           scale=alt.Scale(domain=domain, range=list(colours[:n]))),
        "strokeDash": alt.StrokeDash(f"{field_}:N", sort=sort, legend=leg,
                                     scale=alt.Scale(domain=domain, range=[list(d) for d in DASHES[:n]])),
        "shape": alt.Shape(f"{field_}:N", sort=sort, legend=leg,
                           scale=alt.Scale(domain=domain, range=list(SHAPES[:n]))),
    }


def text_from(dataset: str, field_: str) -> alt.ExprRef:
    """A title's text read from the first row of the named ``dataset`` (its column ``field_``): a value the title
    names (a position, a shift k) travels with the data, so the layout stays the same for every value and the
    browser swaps the new text in with the data. For ``alt.TitleParams(text=…)``; the dataset must be one a mark
    of the chart draws (Vega-Lite compiles only those); its first row's text is the title (one row, or a
    ``categories`` column of one text)."""
    rows = f"data({json.dumps(dataset)})"
    return alt.expr(f"length({rows}) ? {rows}[0][{json.dumps(field_)}] : ''")


def bar_edges(x: np.ndarray, *, bar_px: float, plot_px: float) -> dict[str, np.ndarray]:
    """Bars on whole-number slots ``x`` (one per coordinate, say) whose number is data (d): ``left``/``right``,
    the bar as wide as ``bar_px`` pixels on a plot ``plot_px`` wide (never wider than its slot), and
    ``lo``/``hi``, the whole slot (x ± ½: an invisible hover layer over them keeps the axis' ends, and gives a
    thin bar a target a pointer can hit). A bar width in pixels, or an axis end at d − ½, would make every d
    a new layout; as data they reuse it. Spread into ``columns(…)``; draw with ``x="left", x2="right"``."""
    x = np.asarray(x, dtype=float)
    half = min(0.5, bar_px * max(x.size, 1) / plot_px / 2)
    return {"left": x - half, "right": x + half, "lo": x - 0.5, "hi": x + 0.5}


def axis_ends(**encoding: Any) -> alt.Chart:
    """An invisible layer over the "extent" dataset (a column per axis: its two ends, as data): the axis spans
    them whatever the marks reach, so an axis end computed from the numbers (past the largest size, room for a
    label) changes the data, not the layout. ``axis_ends(x=x)`` with the chart's own x encoding."""
    return alt.Chart(named("extent")).mark_point(opacity=0).encode(**encoding)


def word_labels(tokens: Sequence[str], start: int = 1) -> list[str]:
    """'1 the', '2 cat', … — position (1-based, as in the chapter) and word: two copies stay two marks."""
    return [f"{i + start} {w}" for i, w in enumerate(tokens)]


# ---------------------------------------------------------------- for the tests
def records(fig: Figure) -> dict:
    """The full spec with every dataset decoded into JSON records (to validate it, or to read its data)."""
    spec = dict(fig.spec)
    spec["datasets"] = {name: t.to_pylist() for name, t in fig.datasets.items()}
    return spec


def validate(fig: Figure) -> dict:
    """Check the figure against the Vega-Lite schema Altair ships; returns the decoded spec.
    Raises ``jsonschema.ValidationError`` when invalid."""
    full = records(fig)
    error = next(_validator().iter_errors(_jsonable(full)), None)
    if error is not None:
        raise error
    return full


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema

    schema = alt.load_schema()
    return jsonschema.validators.validator_for(schema)(schema)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x

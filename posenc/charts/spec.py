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
            description="What the chart shows and its takeaway.",       # read out as the chart's accessible name
        )

Why this shape (measured on Streamlit 1.67 / Altair 6.3, 2-core machine): building an Altair chart costs 2–60 ms
(its constructors deep-copy the spec at every step), far more than the numbers it shows; ``to_dict`` of a chart
with inline DataFrame data costs ~50 ms more. So the structure is built once per distinct layout arguments and
kept (bounded, per process), and the data travel separately as named Arrow tables, which Streamlit sends as they
are. A press that changes only the data (a seed, a slider) reuses the layout; under a lecture hall's load one
process went from 17.9 to 28.2 reruns a second with it. Dataset names are fixed by the builder, not derived
from the data, so the spec stays byte-identical and the browser swaps the data into the chart it already has.
The tests validate every figure against the Vega-Lite schema (``validate``).

Colours carry one meaning each across the app (``FOCUS``: what the page points at; ``SERIES``: things compared;
``REFERENCE``: bounds, marks and baselines), every one ≥ 4.5:1 on white, and a series is never told apart by
colour alone: ``series()`` pairs each colour with a dash pattern and a point shape.
"""

from __future__ import annotations

import functools
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import altair as alt
import numpy as np
import pandas as pd
import pyarrow as pa

MAX_MARKS = 5000

# ---------------------------------------------------------------- colours, one meaning each (≥ 4.5:1 on white)
FOCUS = "#b3124d"  # what the page points at: the chosen word, the copies, the marked position (6.8:1)
REFERENCE = "#595959"  # bounds, rules, the training length, baselines (7.0:1)
SERIES = ("#1f5fbf", "#a64d00", "#2e7d32", "#6a3d9a", "#00695c", "#595959")  # compared things, in order
DASHES = ((1, 0), (7, 3), (2, 2), (9, 3, 2, 3), (4, 4), (1, 3))  # the second cue, in the same order
SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down")
TEXT = "#222222"  # axis and legend text (15:1)
DIVERGING = "blueorange"  # signed values (scores, coordinates): the scheme's ends are ≥ 4.5:1
SEQUENTIAL = "blues"  # non-negative values (weights, similarities)


def _config(font: int) -> dict:
    return {
        "axis": {"labelColor": TEXT, "titleColor": TEXT, "labelFontSize": font, "titleFontSize": font,
                 "tickColor": REFERENCE, "domainColor": REFERENCE},
        "legend": {"labelColor": TEXT, "titleColor": TEXT, "labelFontSize": font, "titleFontSize": font,
                   "orient": "bottom", "direction": "horizontal"},
        "header": {"labelColor": TEXT, "titleColor": TEXT, "labelFontSize": font, "titleFontSize": font},
        "title": {"color": TEXT, "fontSize": font + 2, "anchor": "start", "subtitleColor": TEXT},
        "text": {"color": TEXT},
        "mark": {"invalid": None},
    }


CONFIG = _config(13)
FIT_X = {"type": "fit-x", "contains": "padding"}
COMPOSED = {"facet", "hconcat", "vconcat", "concat", "repeat"}  # fit-x breaks nested compositions
PRESENT_CONFIG = _config(18)  # presentation mode: dark 18 px text for the back of the room


@dataclass(frozen=True)
class Figure:
    """A finished chart: the Vega-Lite spec (datasets by name) and its Arrow tables."""

    spec: dict
    datasets: dict[str, pa.Table] = field(default_factory=dict)

    @property
    def description(self) -> str:
        return str(self.spec.get("description", ""))

    @property
    def rows(self) -> int:
        """Data rows shipped with the chart (the marks it can draw, at most)."""
        return sum(t.num_rows for t in self.datasets.values())

    def to_vega_lite(self, *, present: bool = False, max_height: int | None = None) -> dict:
        """The spec with its datasets, for ``st.vega_lite_chart``; ``present`` swaps in the large text and
        ``max_height`` caps the height (presentation mode)."""
        spec = dict(self.spec)
        if present:
            spec["config"] = _merge(spec.get("config", {}), PRESENT_CONFIG)
        if max_height and isinstance(spec.get("height"), (int, float)) and spec["height"] > max_height:
            spec["height"] = max_height
        spec["datasets"] = dict(self.datasets)
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
    lock = threading.Lock()

    @functools.wraps(build)
    def cached(*args: Any, **kwargs: Any) -> Layout:
        key = (_key(args), _key(tuple(sorted(kwargs.items()))))
        with lock:
            text = kept.get(key)
            if text is not None:
                kept.move_to_end(key)
        if text is None:
            text = json.dumps(_finish(build(*args, **kwargs).to_dict(validate=False)), default=_scalar)
            with lock:
                kept[key] = text
                while len(kept) > LAYOUTS_KEPT:
                    kept.popitem(last=False)
        return Layout(text)

    cached.kept = kept  # type: ignore[attr-defined]  (the tests read its size)
    return cached


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


def _finish(spec: dict) -> dict:
    """The house style on a converted chart (done once per layout)."""
    view = spec.get("config", {}).get("view", {})
    if view == {"continuousWidth": 300, "continuousHeight": 300}:  # Altair's default theme; Streamlit drops it
        del spec["config"]["view"]
    spec["config"] = _merge(CONFIG, spec.get("config", {}))
    if "autosize" not in spec and not COMPOSED & spec.keys():
        # The width follows the column and the height is the plot's own. (Streamlit's default for a stretched
        # chart fits title, axes and a legend below inside the height, which squeezes the plot to a sliver.)
        spec["autosize"] = dict(FIT_X)
    return spec


def figure(chart: Layout, data: Mapping[str, Any], description: str) -> Figure:
    """The one way a chart is finished: its layout (from a ``@layout`` builder), the description (its title
    and takeaway: Streamlit names the chart with it), and the data as Arrow tables, by the names the layout
    uses."""
    if not description or not description.strip():
        raise ValueError("every chart needs a description (its title and takeaway)")
    if not isinstance(chart, Layout):
        raise TypeError("figure() takes a Layout: build the chart in a function decorated with @layout")
    spec = chart.spec()
    spec["description"] = description.strip()
    tables = {name: _table(t) for name, t in data.items()}
    return Figure(spec=spec, datasets=tables)


def series_colours(names: Sequence[str], colours: Sequence[str] = SERIES) -> dict[str, str]:
    """Each compared thing's colour, in order: the colours ``series()`` gives the same names."""
    if len(names) > len(colours):
        raise ValueError(f"at most {len(colours)} series on one chart; got {len(names)}")
    return {name: colours[k] for k, name in enumerate(names)}


def series_scale(names: Sequence[str], colours: Sequence[str] = SERIES) -> alt.Scale:
    """The colour scale of ``series()`` on its own (for a layer that needs only the colour, e.g. direct labels)."""
    return alt.Scale(domain=list(names), range=list(series_colours(names, colours).values()))


def series(field_: str, names: Sequence[str], *, title: str | None = None, legend: bool = True,
           colours: Sequence[str] = SERIES) -> dict:
    """Encodings that tell the series ``names`` apart twice: colour and dash (lines), colour and shape
    (points). Spread into ``.encode(**series(...))``; a mark ignores the channels it has no use for."""
    names = list(names)
    if len(names) > len(colours):
        raise ValueError(f"at most {len(colours)} series on one chart; got {len(names)}")
    leg = alt.Legend(title=title) if legend else None
    return {
        "color": alt.Color(field=field_, type="nominal", sort=names, legend=leg,
                           scale=series_scale(names, colours)),
        "strokeDash": alt.StrokeDash(field=field_, type="nominal", sort=names, legend=leg,
                                     scale=alt.Scale(domain=names, range=[list(d) for d in DASHES[: len(names)]])),
        "shape": alt.Shape(field=field_, type="nominal", sort=names, legend=leg,
                           scale=alt.Scale(domain=names, range=list(SHAPES[: len(names)]))),
    }


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

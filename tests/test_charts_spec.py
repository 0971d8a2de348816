"""The one chart pipeline (posenc/charts/spec.py): a figure needs a description, carries the house style, tells
series apart by colour + dash + shape, keeps every colour ≥ 4.5:1 on white (WCAG), validates against the
Vega-Lite schema, and hands Streamlit its spec with datasets (large text and capped height when presenting)."""

from __future__ import annotations

import copy

import altair as alt
import jsonschema
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from conftest import in_mode, vega_eval
from posenc.charts import spec


@spec.layout
def line_layout(**props) -> alt.Chart:
    chart = alt.Chart(spec.named("main")).mark_line().encode(x="x:Q", y="y:Q")
    return chart.properties(**props) if props else chart


@spec.layout
def points_layout(data: str = "a", axis_font: int = 0) -> alt.Chart:
    chart = alt.Chart(spec.named(data)).mark_point().encode(x="x:Q", y="y:Q")
    return chart.configure_axis(labelFontSize=axis_font) if axis_font else chart


@spec.layout
def line_and_rules_layout() -> alt.LayerChart:
    return alt.layer(alt.Chart(spec.named("a")).mark_line().encode(x="x:Q", y="y:Q"),
                     alt.Chart(spec.named("b")).mark_rule().encode(y="y:Q"))


def line_figure(description: str = "Rising line: y grows with x.", **props) -> spec.Figure:
    return spec.figure(line_layout(**props), {"main": spec.columns(x=[1, 2, 3], y=[2.0, 4.0, 8.0])},
                       description=description)


# ---------------------------------------------------------------- WCAG contrast, from the definition
def relative_luminance(hex_colour: str) -> float:
    """WCAG 2.x relative luminance of an sRGB colour "#rrggbb" (or "#rgb")."""
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str = "#ffffff") -> float:
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_contrast_formula_matches_known_values():
    assert contrast("#000000") == pytest.approx(21.0)
    assert contrast("#ffffff") == pytest.approx(1.0)
    assert contrast("#767676") == pytest.approx(4.54, abs=0.01)  # the lightest grey that passes AA on white
    assert contrast("#777777") < 4.5


HOUSE_COLOURS = [*spec.SERIES, spec.FOCUS, spec.REFERENCE, spec.TEXT]


@pytest.mark.parametrize("colour", HOUSE_COLOURS)
def test_every_house_colour_has_contrast_on_white(colour):
    assert contrast(colour) >= 4.5, f"{colour}: {contrast(colour):.2f}:1"


@pytest.mark.parametrize("colour", ["#f58518", "#9e9e9e", "#bbb"])
def test_the_banned_colours_are_really_below_the_line(colour):
    """The guide bans these for low contrast; the formula agrees, and none of them is a house colour."""
    assert contrast(colour) < 4.5
    assert colour not in HOUSE_COLOURS


def test_house_colours_are_distinct():
    assert len({c.lower() for c in spec.SERIES}) == len(spec.SERIES)
    assert spec.FOCUS.lower() not in {c.lower() for c in spec.SERIES}


# ---------------------------------------------------------------- figure
@pytest.mark.parametrize("description", ["", "   ", "\n\t"])
def test_a_figure_needs_a_description(description):
    with pytest.raises(ValueError):
        line_figure(description)


def test_a_figure_carries_its_description_and_the_house_config():
    fig = line_figure("  Rising line: y grows with x.  ")
    assert fig.description == "Rising line: y grows with x."
    assert fig.spec["description"] == "Rising line: y grows with x."
    assert fig.reading == "" and fig.spoken == "Rising line: y grows with x."
    read = spec.figure(line_layout(), {"main": spec.columns(x=[1], y=[2.0])}, description="A line.",
                       reading="  It ends\n at 2.  ")
    assert read.reading == "It ends at 2." and read.spoken == "A line. It ends at 2." and read.description == "A line."
    config = fig.spec["config"]
    assert config["axis"]["labelColor"] == spec.TEXT and config["axis"]["titleColor"] == spec.TEXT
    assert config["legend"]["orient"] == "bottom"
    assert in_mode(fig.spec, False)["config"]["axis"]["labelFontSize"] == 13
    # Altair's default 300×300 view is dropped: charts fill their container.
    assert config.get("view") != {"continuousWidth": 300, "continuousHeight": 300}
    assert "width" not in fig.spec
    # data by name only, never inline
    assert fig.spec["data"] == {"name": "main"}
    assert "values" not in str(fig.spec.get("data"))


def test_a_charts_own_config_wins_over_the_house_config():
    fig = spec.figure(points_layout("main", axis_font=20), {"main": {"x": [1, 2], "y": [3, 4]}},
                      description="Two points.")
    for present in (False, True):  # projected, a size already past the projector's stays
        assert in_mode(fig.spec, present)["config"]["axis"]["labelFontSize"] == 20
    assert fig.spec["config"]["axis"]["labelColor"] == spec.TEXT


def test_figure_data_as_table_dataframe_or_columns():
    df = pd.DataFrame({"x": [1, 2, 3], "y": [1.0, 0.5, 0.25]})
    base = points_layout("a")
    for data in (pa.table({"x": [1, 2, 3], "y": [1.0, 0.5, 0.25]}), df, {"x": np.arange(1, 4), "y": [1.0, 0.5, 0.25]}):
        fig = spec.figure(base, {"a": data}, description="Halving.")
        assert isinstance(fig.datasets["a"], pa.Table)
        assert fig.datasets["a"].column("y").to_pylist() == [1.0, 0.5, 0.25]
        assert fig.rows == 3
    with pytest.raises(TypeError):
        spec.figure(base, {"a": [1, 2, 3]}, description="Not a table.")


def test_a_layout_is_built_once_per_distinct_arguments():
    built = []

    @spec.layout
    def bars(names: tuple, height: int) -> alt.Chart:
        built.append((names, height))
        return alt.Chart(spec.named("bars")).mark_bar().encode(x=alt.X("name:N", sort=list(names)), y="v:Q") \
            .properties(height=height)

    a = spec.figure(bars(["x", "y"], 200), {"bars": {"name": ["x", "y"], "v": [1, 2]}}, description="Two bars.")
    b = spec.figure(bars(("x", "y"), 200), {"bars": {"name": ["x", "y"], "v": [5, 0]}}, description="Two bars.")
    c = spec.figure(bars(["y", "x"], 200), {"bars": {"name": ["y", "x"], "v": [1, 2]}}, description="Two bars.")
    assert len(built) == 2  # a list and a tuple of the same labels are one layout; new labels, a new one
    assert a.spec == b.spec and a.datasets != b.datasets
    assert c.spec["encoding"]["x"]["sort"] == ["y", "x"] and a.spec["encoding"]["x"]["sort"] == ["x", "y"]


def test_every_figure_gets_its_own_copy_of_the_layout():
    first = line_figure()
    first.spec["config"]["axis"]["labelColor"] = "#ff0000"
    first.spec["mark"] = "bar"
    again = line_figure()
    assert again.spec["config"]["axis"]["labelColor"] == spec.TEXT and again.spec["mark"] == {"type": "line", "aria": False}


@pytest.mark.parametrize("data", [np.arange(3), pa.table({"x": [1]}), pd.DataFrame({"x": [1]}), [np.arange(2)]])
def test_a_layout_refuses_data(data):
    with pytest.raises(TypeError, match="structure, not data"):
        points_layout(data)


def test_the_layouts_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(spec, "LAYOUTS_KEPT", 3)

    @spec.layout
    def sized(height: int) -> alt.Chart:
        return alt.Chart(spec.named("a")).mark_point().properties(height=height)

    for h in range(10):
        sized(100 + h)
    assert list(sized.kept) == [((107,), ()), ((108,), ()), ((109,), ())]


# ---------------------------------------------------------------- nice bounds: data bounds fit for a layout
WIDE = np.geomspace(1e-6, 1e6, 4001)  # twelve decades of data bounds


def test_a_nice_bound_is_never_below_the_data_and_is_the_next_rung_up():
    rungs = sorted({float(f"{r}e{k}") for k in range(-7, 8) for r in spec.NICE_RUNGS})
    for x in WIDE:
        b = spec.nice_bound(x)
        assert b >= x, (x, b)  # nothing is clipped
        assert b in rungs, (x, b)  # on the ladder
        assert rungs[rungs.index(b) - 1] < x, (x, b)  # and no rung between the data and the bound


def test_a_nice_bound_grows_with_the_data():
    bounds = [spec.nice_bound(x) for x in WIDE]
    assert all(a <= b for a, b in zip(bounds, bounds[1:]))


def test_a_nice_bound_takes_few_values():
    """Twelve decades give one value per rung per decade, and a data bound wandering over a factor of two (as the
    largest |value| of a random draw does from seed to seed) lands on at most four rungs."""
    assert len({spec.nice_bound(x) for x in WIDE}) <= 12 * len(spec.NICE_RUNGS) + 1
    for low in (0.013, 1.0, 1.7, 4.4, 730.0):
        assert len({spec.nice_bound(x) for x in np.linspace(low, 2 * low, 1001)}) <= 4, low


def test_a_nice_bound_is_a_short_decimal_and_a_rung_is_its_own_bound():
    assert [spec.nice_bound(x) for x in (0.29, 0.3, 1.01, 2.4, 2.6, 7.9, 8.01, 1234.0)] == \
           [0.3, 0.3, 1.2, 2.5, 3.0, 8.0, 10.0, 1500.0]
    for b in {spec.nice_bound(x) for x in WIDE}:
        assert spec.nice_bound(b) == b and float(f"{b:.2g}") == b, b  # 0.12, never 0.12000000000000001


def test_a_symmetric_scale_from_a_nice_bound_keeps_zero_at_its_centre():
    rng = np.random.default_rng(0)
    for scale in (1e-3, 0.7, 1.0, 42.0):
        values = rng.standard_normal(200) * scale + rng.uniform(-1, 1) * scale  # off-centre data, both signs
        b = spec.nice_bound(float(np.max(np.abs(values))))
        assert -b <= values.min() and values.max() <= b  # [-b, b]: nothing clipped on either side
        assert b <= 4 / 3 * float(np.max(np.abs(values))) * (1 + 1e-12)  # one rung up at most: ≤ 4/3 of the data


@pytest.mark.parametrize("x", [0.0, -3.0])
def test_a_nice_bound_of_nothing_is_one(x):
    assert spec.nice_bound(x) == 1.0  # a valid scale when every value is 0


@pytest.mark.parametrize("x", [float("nan"), float("inf")])
def test_a_nice_bound_refuses_a_non_finite_bound(x):
    with pytest.raises(ValueError, match="finite"):
        spec.nice_bound(x)


def test_figure_takes_only_a_layout():
    with pytest.raises(TypeError, match="@layout"):
        spec.figure(alt.Chart(spec.named("a")).mark_point(), {"a": {"x": [1]}}, description="Raw Altair.")


def test_rows_count_every_dataset():
    fig = spec.figure(line_and_rules_layout(), {"a": {"x": range(7), "y": range(7)}, "b": {"y": [1, 2]}}, description="A line, two rules.")
    assert fig.rows == 9


def test_categories_store_each_name_once():
    arr = spec.categories(np.array([2, 0, 2, 1]), ["a", "b", "c"])
    assert arr.to_pylist() == ["c", "a", "c", "b"]
    assert arr.dictionary.to_pylist() == ["a", "b", "c"]


def test_word_labels_are_one_based_and_keep_copies_apart():
    labels = spec.word_labels(["the", "cat", "chased", "the", "mouse"])
    assert labels == ["1 the", "2 cat", "3 chased", "4 the", "5 mouse"]
    assert len(set(labels)) == 5


# ---------------------------------------------------------------- series: colour + dash + shape
def test_series_pairs_each_colour_with_a_dash_and_a_shape():
    names = ["none", "sinusoids", "RoPE"]
    enc = spec.series("scheme", names, title="scheme")
    assert set(enc) == {"color", "strokeDash", "shape"}
    d = {k: v.to_dict() for k, v in enc.items()}
    for channel in d.values():
        assert channel["field"] == "scheme" and channel["scale"]["domain"] == names
    assert d["color"]["scale"]["range"] == list(spec.SERIES[:3])
    assert d["strokeDash"]["scale"]["range"] == [list(x) for x in spec.DASHES[:3]]
    assert d["shape"]["scale"]["range"] == list(spec.SHAPES[:3])
    # every series differs from every other in dash and in shape too, not by colour alone
    assert len({tuple(x) for x in d["strokeDash"]["scale"]["range"]}) == 3
    assert len(set(d["shape"]["scale"]["range"])) == 3


def test_every_series_slot_has_its_own_dash_and_shape():
    n = len(spec.SERIES)
    assert len(spec.DASHES) == n and len(spec.SHAPES) == n
    assert len(set(spec.DASHES)) == n and len(set(spec.SHAPES)) == n


def test_series_refuses_more_names_than_colours():
    with pytest.raises(ValueError):
        spec.series("s", [f"s{i}" for i in range(len(spec.SERIES) + 1)])


def test_series_without_a_legend():
    enc = spec.series("s", ["a", "b"], legend=False)
    assert all(v.to_dict().get("legend", "absent") is None for v in enc.values())


def test_series_named_by_the_data_keep_their_slots_in_the_order_field():
    enc = {k: v.to_dict() for k, v in spec.series("s", 3, order="slot", colours=(spec.FOCUS, *spec.SERIES)).items()}
    for ch in enc.values():
        assert "domain" not in ch["scale"] and ch["sort"] == {"field": "slot", "op": "min"}
    assert enc["color"]["scale"]["range"] == [spec.FOCUS, *spec.SERIES[:2]]
    assert enc["strokeDash"]["scale"]["range"] == [list(d) for d in spec.DASHES[:3]]  # never colour alone
    assert enc["shape"]["scale"]["range"] == list(spec.SHAPES[:3])
    with pytest.raises(ValueError, match="order"):
        spec.series("s", 3)
    with pytest.raises(ValueError, match="at most"):
        spec.series("s", len(spec.SERIES) + 1, order="slot")


@pytest.mark.parametrize("n", [1, 2, 64, 512])
def test_bar_edges_keep_each_bar_inside_its_slot_and_the_slots_tile_the_axis(n):
    x = np.arange(n)
    e = spec.bar_edges(x, bar_px=min(24, 480 / n), plot_px=800)
    assert np.all(e["lo"] <= e["left"]) and np.all(e["left"] < x) and np.all(x < e["right"])
    assert np.all(e["right"] <= e["hi"])
    assert np.allclose(e["hi"][:-1], e["lo"][1:]) and e["lo"][0] == -0.5 and e["hi"][-1] == n - 0.5
    width_px = (e["right"] - e["left"])[0] * 800 / n  # on the plot it was sized for
    assert width_px == pytest.approx(min(24, 480 / n, 800 / n))


def test_a_title_from_the_data_validates_and_reads_the_first_row():
    @spec.layout
    def titled() -> alt.Chart:
        return alt.Chart(spec.named("a")).mark_point().encode(x="x:Q").properties(
            title=alt.TitleParams(spec.text_from("a", "title")))

    fig = spec.figure(titled(), {"a": {"x": [1, 2], "title": ["at p = 7", "at p = 7"]}}, description="Points.")
    spec.validate(fig)
    source = 'length(data("a")) ? data("a")[0]["title"] : \'\''
    assert fig.spec["title"]["text"] == {"expr": spec.fitted_title(f"({source})", spec.TITLE_PX)}


def test_a_series_figure_validates():
    @spec.layout
    def two_series() -> alt.Chart:
        return alt.Chart(spec.named("main")).mark_line(point=True).encode(
            x="x:Q", y="y:Q", **spec.series("s", ["a", "b"]))

    fig = spec.figure(two_series(), {"main": {"x": [1, 2, 1, 2], "y": [1, 2, 2, 1], "s": ["a", "a", "b", "b"]}},
                      description="Two series, crossing.")
    full = spec.validate(fig)
    assert full["datasets"]["main"][0] == {"x": 1, "y": 1, "s": "a"}


# ---------------------------------------------------------------- validate
def test_validate_accepts_a_figure_and_decodes_its_data():
    full = spec.validate(line_figure())
    assert full["datasets"]["main"] == [{"x": 1, "y": 2.0}, {"x": 2, "y": 4.0}, {"x": 3, "y": 8.0}]
    assert full["description"] == "Rising line: y grows with x."


@pytest.mark.parametrize("breakage", [
    {"mark": "blob"},                                    # no such mark
    {"encoding": {"x": {"field": "x", "type": "sideways"}}},  # no such type
    {"height": "tall"},                                  # not a number, "container" or a step
])
def test_validate_rejects_an_invalid_spec(breakage):
    good = line_figure()
    bad = spec.Figure(spec={**copy.deepcopy(good.spec), **breakage}, datasets=good.datasets)
    with pytest.raises(jsonschema.ValidationError):
        spec.validate(bad)


def test_validate_maps_non_finite_numbers_to_null():
    fig = spec.figure(points_layout("main"), {"main": {"x": [1.0, 2.0], "y": [np.inf, np.nan]}}, description="Gaps.")
    spec.validate(fig)  # JSON has no inf/NaN: the validator sees null, which Vega-Lite data allows


# ---------------------------------------------------------------- to_vega_lite
def test_to_vega_lite_adds_the_datasets_and_leaves_the_figure_alone():
    fig = line_figure(height=600)
    before = copy.deepcopy(fig.spec)
    out = fig.to_vega_lite()
    assert set(out["datasets"]) == {"main"} and out["datasets"]["main"].num_rows == 3
    assert out["height"] == 600 and in_mode(out, False)["config"]["axis"]["labelFontSize"] == 13
    assert fig.spec == before and "datasets" not in fig.spec


def test_presentation_mode_is_decided_in_the_browser_and_grows_the_text_to_18px():
    """The spec is the same in both modes (a toggle keeps every chart): its presentation param is bound to the
    document's root element (there before any chart), and each text size evaluates to 18 px projected, 13 px (15 for the title) otherwise."""
    fig = line_figure()
    out = fig.to_vega_lite(max_height=250)
    bound = {"element": "html", "event": spec.PRESENT_EVENT}  # Vega's external binding: no input of its own
    assert {"name": spec.PRESENT_PARAM, "value": "", "bind": bound} in out["params"]
    big, small = in_mode(out, True)["config"], in_mode(out, False)["config"]
    for part in ("axis", "legend", "header"):
        assert big[part]["labelFontSize"] == big[part]["titleFontSize"] == 18
        assert small[part]["labelFontSize"] == small[part]["titleFontSize"] == 13
    assert (big["title"]["fontSize"], small["title"]["fontSize"]) == (20, 15)
    assert (big["text"]["fontSize"], small["text"]["fontSize"]) == (16, 11)  # Vega's own 11 out of it
    assert big["axis"]["labelColor"] == small["axis"]["labelColor"] == spec.TEXT


@pytest.mark.parametrize("height,cap,present,expected",
                         [(600, 420, True, 420), (600, 420, False, 600), (300, 420, True, 300), (600, None, True, 600)])
def test_to_vega_lite_caps_a_numeric_height_while_projecting(height, cap, present, expected):
    assert in_mode(line_figure(height=height).to_vega_lite(max_height=cap), present)["height"] == expected


@pytest.mark.parametrize("rows", [spec.CANVAS_ROWS, spec.CANVAS_ROWS + 1])
def test_a_chart_of_many_rows_draws_on_a_canvas(rows):
    """Past CANVAS_ROWS data rows the spec asks vega-embed for its canvas renderer (usermeta.embedOptions, read by
    vega-embed itself); at or below it the chart stays SVG. The figure itself is left alone either way."""
    xs = np.arange(rows, dtype=float)
    fig = spec.figure(points_layout("main"), {"main": {"x": xs, "y": xs}}, description="Many points.")
    out = fig.to_vega_lite()
    renderer = out.get("usermeta", {}).get("embedOptions", {}).get("renderer")
    assert renderer == ("canvas" if rows > spec.CANVAS_ROWS else None)
    assert "usermeta" not in fig.spec


def test_to_vega_lite_leaves_a_container_height_alone():
    assert line_figure(height="container").to_vega_lite(max_height=420)["height"] == "container"
    assert "height" not in line_figure().to_vega_lite(max_height=420)


def test_every_mark_is_hidden_from_screen_readers_and_projected_text_grows():
    """The pipeline itself sets aria: false on every mark (a chart is read by its description) and, projected,
    grows text marks and subtitles that carry a size of their own by 18/13 — no builder has to remember."""
    @spec.layout
    def _two(label: str) -> alt.LayerChart:
        base = alt.Chart(spec.named("main"))
        return alt.layer(base.mark_line().encode(x="x:Q", y="y:Q"),
                         base.mark_text(fontSize=13).encode(x="x:Q", y="y:Q", text=alt.value(label))).properties(
            title=alt.TitleParams("t", subtitle="s", subtitleFontSize=11))

    fig = spec.figure(_two("a"), {"main": {"x": [0, 1], "y": [1, 2]}}, description="Two marks.")
    marks = [n["mark"] for n in spec.walk_dicts(fig.spec) if "mark" in n]
    assert marks and all(isinstance(m, dict) and m["aria"] is False for m in marks)
    for present, text, subtitle in ((True, 18, 15), (False, 13, 11)):
        shown = in_mode(fig.to_vega_lite(), present)
        sizes = [n["mark"].get("fontSize") for n in spec.walk_dicts(shown) if isinstance(n.get("mark"), dict)
                 and n["mark"].get("type") == "text"]
        assert sizes == [text] and shown["title"]["subtitleFontSize"] == subtitle


# ---------------------------------------------------------------- titles and legends that fit
LONG_TITLE = "float32 against float64 at p = 5,000,000, coordinate by coordinate"
LONG_SUBTITLE = "Dark = 1, light = 0. Bit b flips every 2^b steps; thick red outline: flipped from p − 1"


def test_a_long_title_fits_its_chart_and_a_long_subtitle_is_set_as_lines():
    """Sent to the browser, a title too wide for a phone is an expression that splits it from the container's
    width (a character as wide as the mode's text size makes it; a title from the data alike), a long subtitle is
    lines of at most SUBTITLE_CHARS that read as the original, a short title and axis titles stay as they are,
    and the spec validates."""
    @spec.layout
    def titled(title: str, from_data: bool) -> alt.LayerChart:
        base = alt.Chart(spec.named("main"))
        text = spec.text_from("main", "title") if from_data else title
        return alt.layer(base.mark_line().encode(x=alt.X("x:Q", title=LONG_TITLE), y="y:Q"),
                         base.mark_point().encode(x="x:Q", y="y:Q").properties(title="short")).properties(
            title=alt.TitleParams(text, subtitle=LONG_SUBTITLE))

    data = {"main": spec.columns(x=[1, 2], y=[1.0, 2.0], title=[LONG_TITLE] * 2)}
    for present in (False, True):
        px = vega_eval(spec.TITLE_PX, params={spec.PRESENT_PARAM: "1" if present else ""})
        assert px == pytest.approx(spec.TITLE_CHAR_PX * (spec.PRESENT_TEXT if present else 1), abs=1e-3)
    for from_data, source in ((False, '"' + LONG_TITLE + '"'), (True, f"({spec.text_from('main', 'title').expr})")):
        fig = spec.figure(titled(LONG_TITLE, from_data), data, description="A long title.")
        out = fig.to_vega_lite()
        assert out["title"]["text"] == {"expr": spec.fitted_title(source, spec.TITLE_PX)}
        lines = out["title"]["subtitle"]
        assert len(lines) > 1 and max(map(len, lines)) <= spec.SUBTITLE_CHARS and " ".join(lines) == LONG_SUBTITLE
        assert out["layer"][1]["title"] == "short" and out["layer"][0]["encoding"]["x"]["title"] == LONG_TITLE
        spec.validate(spec.Figure(spec={k: v for k, v in out.items() if k != "datasets"}, datasets=fig.datasets))


def test_a_legend_never_cuts_a_label_stacks_under_a_narrow_chart_and_stays_vertical_when_asked():
    """Vega cuts a legend label at 160 px unless told: the house config lifts the cut (projected too) and stacks
    the entries under a narrow chart; a legend that asks to be vertical — on its channel or in the chart's config —
    keeps one entry per line (Vega reads columns before direction, so the house rule would put it in a row)."""
    for config in (in_mode(line_figure().spec, False)["config"], in_mode(line_figure().spec, True)["config"]):
        assert config["legend"]["labelLimit"] == 0 and "containerSize()" in config["legend"]["columns"]["expr"]

    @spec.layout
    def legends(how: str) -> alt.Chart:
        legend = alt.Legend(direction="vertical") if how == "channel" else alt.Undefined
        chart = alt.Chart(spec.named("main")).mark_point().encode(x="x:Q", y="y:Q", color=alt.Color("s:N", legend=legend))
        return chart.configure_legend(direction="vertical") if how == "config" else chart

    data = {"main": spec.columns(x=[1, 2], y=[1.0, 2.0], s=["a", "b"])}
    for how in ("channel", "config", "house"):
        out = spec.figure(legends(how), data, description="Two points.").to_vega_lite()
        channel = out["encoding"]["color"].get("legend") or {}
        columns = channel.get("columns", out["config"]["legend"]["columns"])
        assert columns == (spec.LEGEND_FIT["columns"] if how == "house" else 1), how


def test_a_link_is_one_point_selection_bound_both_ways_to_the_body_and_keyed_by_its_group():
    """spec.Link: hovering (or tapping) sets a point selection on the calculated key "<group>:<key>", bound to
    the body with LINK_EVENT (Vega writes a selection the pointer sets into the element: tests/test_browser.py);
    a plain param reads the key back, and a chart lights (outline) and fades only for a key of its own group, so
    another group's key, or none, leaves every cell at full strength. A mouse leaving clears it, a tap's stays."""
    link = spec.Link("g1", "datum.i + ',' + datum.j")
    base = alt.Chart(spec.named("cells")).transform_calculate(**link.calculate)

    @spec.layout
    def _linked() -> alt.LayerChart:
        return alt.layer(*link.cells(base, "j:O", "i:O", ["i:O", "j:O"], color="i:Q"))

    fig = spec.figure(_linked(), {"cells": spec.columns(i=[0, 1], j=[1, 0])}, description="Two cells, linked.")
    spec.validate(fig)
    params = {p["name"]: p for p in fig.spec["params"]}
    select, now = params[spec.LINK_PARAM], params[spec.LINK_NOW]
    assert select["bind"] == now["bind"] == {"element": spec.LINK_HOLDER, "event": spec.LINK_EVENT}
    assert select["select"] == {"type": "point", "fields": [spec.LINK_FIELD], "on": "pointerover",
                                "clear": "pointerout[event.pointerType === 'mouse']"}
    assert spec.LINK_HOLDER != spec.PRESENT_HOLDER  # one value per element: presentation mode keeps the root's
    cells, outline = fig.spec["layer"]
    [calc] = [t for t in cells["transform"] if t.get("as") == spec.LINK_FIELD]
    row = {"i": 3, "j": 7, spec.LINK_FIELD: vega_eval(calc["calculate"], {"i": 3, "j": 7})}
    assert row[spec.LINK_FIELD] == "g1:3,7"
    fade = cells["encoding"]["opacity"]
    [lit_filter] = [t["filter"] for t in outline["transform"] if "filter" in t]
    for now_key, full, outlined in [("", True, False), (None, True, False), ("g1:3,7", True, True),
                                    ("g1:0,1", False, False), ("g12:3,7", True, False), ("g2:3,7", True, False)]:
        shown = fade["condition"]["value"] if vega_eval(fade["condition"]["test"], row, {spec.LINK_NOW: now_key}) \
            else fade["value"]
        assert (shown == 1.0) == full, now_key
        assert bool(vega_eval(lit_filter, row, {spec.LINK_NOW: now_key})) == outlined, now_key
    assert outline["mark"]["filled"] is False and outline["mark"]["stroke"] == spec.TEXT
    assert link.params(nearest=True)[0].param.to_dict()["select"]["nearest"] is True


def test_a_layout_under_way_in_one_thread_is_waited_for_not_built_again():
    """frame.warm builds layouts in a background thread while script runs ask for them: a second caller of a key
    being built waits for that build and reads it (Altair's 50–170 ms are spent once)."""
    import json
    import threading
    import time

    calls = []

    @spec.layout
    def slow(n: int) -> alt.Chart:
        calls.append(n)
        time.sleep(0.3)
        return alt.Chart(spec.named("t")).mark_point().properties(title=f"n = {n}")

    got = []
    threads = [threading.Thread(target=lambda: got.append(slow(7))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert calls == [7] and len(got) == 4 and len({json.dumps(g.spec()) for g in got}) == 1

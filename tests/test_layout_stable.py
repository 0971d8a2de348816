"""Moving the sidebar's Seed or Model width d, or pressing a number input or slider of the main area, reuses the
charts' layouts, on every page of the page list.

A chart's layout (its Vega-Lite spec without the data; its description included, which names no number of the data) is built once per distinct arguments
of its ``@layout`` and kept (``posenc.charts.spec``). A value of the data in a layout argument — a colour-scale
bound taken from the numbers, a number in a title — makes every seed or d a new layout, built again for 10–60 ms
(measured under a lecture hall's load: 12 % of the server's time). So, for each chart of the page, the layouts
seen while the sidebar moves over five values must take few distinct values.

Why at most ``MOST_LAYOUTS`` = 3 of 5, not 1: a bound computed from the data legitimately stays in the layout,
rounded up to the fixed ladder of ``spec.nice_bound`` (rungs 1.2–1.33× apart). The largest |value| of a random draw
wanders over about a factor of two from seed to seed, so five seeds may land on two or three rungs; exact equality
would fail whenever a bound crosses a rung. A data value left raw in a layout makes all 5 distinct and fails.

The d test leaves out the range of an in-chart slider (``bind.min`` / ``bind.max``): a slider over the d/2 pairs
of q and k (the RoPE page) is structure that must follow d, as a word list follows the sentence. The layout of
that chart is still rebuilt once per d.

The same holds for every number input and slider in a page's main area (a position, a window's start, a shift k):
a value a title or an axis names travels in the data (``spec.text_from``, a label field, ticks read from the
scale's domain), so a press reuses the layout. Each such control is pressed twice, one step at a time (as a
student presses +), and no chart may change its layout at both presses: a value of the data in a layout changes it
at every press, while a bound on the ``nice_bound`` ladder (another word's vectors, say) crosses a rung now and
then, at one press, not at every one. Controls whose value *is* the chart's structure (a number of bits, a table
size, a count of heads), or that pick one of the sentence's few words, are listed, each with its reason, in
``STRUCTURAL``. Select sliders, radios and toggles take a short list of authored values, so their layouts are few
by construction; they are not pressed here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from conftest import IDS, PAGES, assert_ok, chart_spec, charts_of, layout_of, open_page

SEEDS = (0, 1, 2, 3, 4)
D_VALUES = (32, 64, 128, 256, 512)  # powers of two up to D_MAX: a width the data's size might follow
MOST_LAYOUTS = 3  # of five values; see the module's docstring
MAIN_CONTROLS = ("number_input", "slider")  # the main area's controls over many values
# Controls whose move is a new layout by design, by widget key, each with its reason. Each takes few values over a
# class (like the sidebar's d): its value is the chart's structure, or it picks one of a handful of things.
STRUCTURAL = {
    # the value is the structure
    "bn_bits": "the number of bits n: one row per bit, and the position axis (its title and ticks) runs to 2ⁿ − 1",
    "by_heads": "the count of ALiBi heads: the in-chart head slider runs over them (its max is the count)",
    # one of the sentence's words: its q and k set the nice_bound rung of the chart's colour scale or axes, and
    # neighbouring words can land on different rungs (at most one layout per word of the sentence)
    "rp_qw": "the query word: its q sets the rung of the score window's colour scale",
    "rp_kw": "the key word: its k sets the rung of the pair circles' axes",
}


def _differences(a, b, path: str = "") -> Iterator[str]:
    """Where two specs differ (paths), for the failure message."""
    if type(a) is not type(b):
        yield f"{path}: {json.dumps(a)[:60]} → {json.dumps(b)[:60]}"
    elif isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                yield from _differences(a.get(k), b.get(k), f"{path}.{k}")
    elif isinstance(a, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from _differences(x, y, f"{path}[{i}]")
    elif a != b:
        yield f"{path}: {json.dumps(a)[:60]} → {json.dumps(b)[:60]}"


def layouts_while_moving(at: AppTest, key: str, values, *, slider_ranges: bool = True) -> list[list[dict]]:
    """Set the sidebar's number input ``key`` to each value in turn (one session, as a student would); the
    layouts of the page's charts after each run."""
    seen = []
    for value in values:
        at.number_input(key=key).set_value(value).run()
        assert_ok(at)
        seen.append([layout_of(chart_spec(c), slider_ranges=slider_ranges) for c in charts_of(at)])
    counts = {len(charts) for charts in seen}
    assert len(counts) == 1, f"the number of charts changed while moving {key} over {values}: {counts}"
    return seen


def assert_few_layouts(seen: list[list[dict]], key: str, values) -> None:
    too_many = []
    for i in range(len(seen[0])):
        distinct = {json.dumps(charts[i], sort_keys=True) for charts in seen}
        if len(distinct) > MOST_LAYOUTS:
            where = sorted({p for charts in seen[1:] for p in _differences(seen[0][i], charts[i])})
            too_many.append(f"chart #{i}: {len(distinct)} layouts; {where[:4]}")
    assert not too_many, f"moving {key} over {values} builds a new layout each time: " + "; ".join(too_many)


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_moving_the_seed_reuses_the_layouts(info):
    at = assert_ok(open_page(info.path))
    assert_few_layouts(layouts_while_moving(at, "seed", SEEDS), "the seed", SEEDS)


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_moving_d_reuses_the_layouts(info):
    at = assert_ok(open_page(info.path))
    assert_few_layouts(layouts_while_moving(at, "d", D_VALUES, slider_ranges=False), "d", D_VALUES)


def one_step(value, lo, hi, step, k: int):
    """The value ``k`` steps from ``value``: up when there is room for two steps, else down."""
    sign = 1 if value + 2 * step <= hi else -1
    moved = value + sign * k * step
    return type(value)(round(moved, 10)) if isinstance(value, float) else type(value)(moved)


def main_controls(at: AppTest) -> list[tuple[str, str]]:
    """(kind, key) of every number input and slider in the page's main area (the sidebar's are the tests above)."""
    return [(kind, w.key) for kind in MAIN_CONTROLS for w in at.main.get(kind)
            if w.key and w.key not in STRUCTURAL and not isinstance(w.value, (tuple, list))]


def layouts_while_pressing(info, kind: str, key: str, presses: int = 2) -> list[list[dict]]:
    """A fresh session of the page; the control ``key`` pressed ``presses`` times, one step each; the layouts of
    the page's charts before and after each press."""
    at = assert_ok(open_page(info.path))
    w = at.get(kind)
    widget = next(x for x in w if x.key == key)
    value, lo, hi, step = widget.value, widget.min, widget.max, widget.step or 1
    seen = [[layout_of(chart_spec(c)) for c in charts_of(at)]]
    for k in range(1, presses + 1):
        next(x for x in at.get(kind) if x.key == key).set_value(one_step(value, lo, hi, step, k)).run()
        assert_ok(at)
        seen.append([layout_of(chart_spec(c)) for c in charts_of(at)])
    return seen


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_pressing_a_main_area_control_reuses_the_layouts(info):
    flagged = []
    for kind, key in main_controls(assert_ok(open_page(info.path))):
        seen = layouts_while_pressing(info, kind, key)
        if len({len(charts) for charts in seen}) > 1:
            flagged.append(f"{key}: the number of charts changed ({[len(c) for c in seen]})")
            continue
        for i in range(len(seen[0])):
            if all(a[i] != b[i] for a, b in zip(seen, seen[1:])):  # a new layout at every press
                where = sorted(_differences(seen[0][i], seen[1][i]))
                flagged.append(f"{key}: chart #{i} changes its layout at every press; {where[:3]}")
    assert not flagged, "pressing a control one step builds a new layout (structure? add it to STRUCTURAL " \
                        "with its reason): " + "; ".join(flagged)

"""frame.live on the server side: an in-chart control's value read from the address (seeded into the spec, a bad
value → the default and a notice, never a traceback), its name a known URL parameter, and ``play=``. The page
itself (address writes, play, tap, focus) is checked in a real browser: tests/test_browser_live.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import assert_ok, notices
from frame import live

ROOT = Path(__file__).resolve().parent.parent
LIVE_APP = str(ROOT / "tests" / "live_app.py")
UNUSED = "parameter(s) this page does not use"


def open_live(**query: str) -> AppTest:
    at = AppTest.from_file(LIVE_APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    return assert_ok(at.run())


def values(at: AppTest) -> dict:
    """Each bound param's value, as the specs sent to the browser carry it."""
    out = {}
    for c in at.get("vega_lite_chart"):
        out.update({p["name"]: p.get("value") for p in live.bound_params(json.loads(c.proto.spec))})
    return out


RANGE = {"input": "range", "min": 0, "max": 63, "step": 1}


@pytest.mark.parametrize("raw,value", [("20", 20), ("0", 0), ("63", 63), ("20.4", 20), ("20.6", 21), (" 7 ", 7),
                                       ("2e1", 20)])
def test_a_range_takes_a_number_within_its_ends_snapped_to_its_step(raw, value):
    got = live.parse(RANGE, raw)
    assert got == value and isinstance(got, int)


def test_a_fractional_step_snaps_from_the_minimum_and_stays_below_the_maximum():
    bind = {"input": "range", "min": 0.5, "max": 2, "step": 0.25}
    assert live.parse(bind, "1.3") == 1.25
    assert live.parse(bind, "2") == 2.0
    assert live.parse({"input": "range", "min": 0, "max": 1, "step": 0.3}, "1") == 0.9  # 1.2 is past the end
    assert live.parse({"input": "range", "min": 0, "max": 1}, "0.123") == 0.123  # no step: as written
    # halfway between two steps: the upper one, as Chromium's range input puts it (Python's round() went to the even)
    assert live.parse({"input": "range", "min": 4, "max": 512, "step": 2}, "5") == 6
    assert live.parse({"input": "range", "min": 4, "max": 512, "step": 2}, "129") == 130
    assert live.parse({"input": "range", "min": 0, "max": 1, "step": 0.25}, "0.125") == 0.25


@pytest.mark.parametrize("raw", ["abc", "", "64", "-1", "inf", "nan", "1e400", "0x10"])
def test_a_range_refuses_what_it_cannot_show(raw):
    with pytest.raises(ValueError):
        live.parse(RANGE, raw)


def test_options_match_as_the_browser_writes_them():
    assert live.parse({"input": "select", "options": [1, 2, 4]}, "2") == 2
    assert live.parse({"input": "select", "options": [1.0, 2.5]}, "1") == 1.0  # String(1.0) is "1" in the page
    assert live.parse({"input": "radio", "options": ["sin", "cos"]}, "cos") == "cos"
    assert live.parse({"input": "checkbox"}, "true") is True and live.parse({"input": "checkbox"}, "0") is False
    for bind, raw in [({"input": "radio", "options": ["sin", "cos"]}, "tan"), ({"input": "select", "options": [1, 2]}, "1.5"),
                      ({"input": "checkbox"}, "maybe"), ({"input": "text"}, "x")]:
        with pytest.raises(ValueError):
            live.parse(bind, raw)
    assert [live.js_text(x) for x in (True, 3, 3.0, 2.5, "a b")] == ["true", "3", "3", "2.5", "a b"]


def test_bound_params_are_found_in_layers_and_concats_but_not_selections_or_scale_binds():
    spec = {"params": [{"name": "a", "value": 1, "bind": {"input": "range"}},
                       {"name": "zoom", "select": "interval", "bind": "scales"},
                       {"name": "pick", "select": {"type": "point"}, "bind": {"input": "range"}}],
            "hconcat": [{"layer": [{"params": [{"name": "b", "value": "x", "bind": {"input": "radio", "options": ["x"]}}]}]},
                        {"params": [{"name": "c", "value": 0}]}]}
    assert [p["name"] for p in live.bound_params(spec)] == ["a", "b"]


def test_a_link_seeds_every_kind_of_in_chart_control():
    at = open_live(lv_pos="20", lv_wave="cos", lv_grid="true", lv_freq="4")
    assert values(at) == {"lv_pos": 20, "lv_wave": "cos", "lv_grid": True, "lv_freq": 4}
    assert not at.warning and UNUSED not in notices(at)  # the names are known URL parameters


def test_without_a_link_the_charts_open_on_their_defaults():
    at = open_live()
    assert values(at) == {"lv_pos": 0, "lv_wave": "sin", "lv_grid": False, "lv_freq": 1}
    assert not at.warning


@pytest.mark.parametrize("key,raw,default", [("lv_pos", "abc", "0"), ("lv_pos", "999", "0"), ("lv_pos", "inf", "0"),
                                             ("lv_pos", "", "0"), ("lv_wave", "tan", "sin"),
                                             ("lv_wave", "<b>x</b>", "sin"), ("lv_grid", "maybe", "false"),
                                             ("lv_freq", "3", "1")])
def test_a_bad_link_value_gives_the_default_and_a_notice(key, raw, default):
    at = open_live(**{key: raw})
    assert values(at)[key] == live.parse(_bind(at, key), default)
    text = notices(at)
    assert f"The link's value for “{key}” was not usable; using {default}." in text
    assert all(raw not in w.value for w in at.warning) or raw in default  # the link's text is never echoed


def test_a_repeated_key_uses_the_last_value():
    at = AppTest.from_file(LIVE_APP, default_timeout=60)
    at.query_params["lv_pos"] = ["3", "5"]
    assert values(assert_ok(at.run()))["lv_pos"] == 5


def test_an_unknown_parameter_is_still_reported():
    at = open_live(lv_pos="3", zz_nothing="1")
    assert "The link had 1 parameter(s) this page does not use" in notices(at)


def test_seeding_leaves_the_figure_alone():
    from live_app import sine_figure

    fig = sine_figure()
    before = json.dumps(fig.spec, sort_keys=True)

    def page():
        import streamlit as st
        from live_app import sine_figure as make

        import frame

        st.query_params["lv_pos"] = "9"
        spec = frame.live.seed(make().to_vega_lite())
        st.write(f"seeded {frame.live.bound_params(spec)[0]['value']}")

    at = assert_ok(AppTest.from_function(page, default_timeout=60).run())
    assert "seeded 9" in at.markdown[0].value
    assert json.dumps(fig.spec, sort_keys=True) == before


def test_play_mounts_a_button_for_its_range_and_the_page_part_mounts_once():
    at = open_live()
    keys = [e.key for e in at.get("bidi_component")]
    assert sorted(keys) == ["pe_live", "pe_play_lv_pos"]


@pytest.mark.parametrize("name", ["lv_wave", "nope"])
def test_play_must_name_a_bound_range(name):
    def page(name):
        from live_app import pick_figure

        import frame

        frame.chart(pick_figure(), play=name)

    at = AppTest.from_function(page, args=(name,), default_timeout=60).run()
    assert at.exception and "play=" in at.exception[0].value


@pytest.mark.parametrize("name", ["lv_n", "present"])
def test_an_in_chart_name_that_is_another_controls_address_key_is_refused(name):
    def page(name):
        import altair as alt

        import frame
        from posenc.charts import spec

        frame.slider("points", "lv_n", 16, 64, 64)

        @spec.layout
        def clash(name: str) -> alt.Chart:
            return alt.Chart(spec.named("t")).mark_point().encode(x="x:Q").add_params(
                alt.param(name=name, value=1, bind=alt.binding_range(min=0, max=4, step=1)))

        frame.chart(spec.figure(clash(name), {"t": spec.columns(x=[1, 2])}, description="A clash."))

    at = AppTest.from_function(page, args=(name,), default_timeout=60).run()
    assert at.exception and "has the address key of another control" in at.exception[0].value


def test_the_script_is_a_valid_es_module_with_a_default_export():
    js = (ROOT / "frame" / "live.js").read_text()
    assert "export default function" in js
    node = subprocess.run(["node", "--input-type=module", "--check"], input=js, text=True, capture_output=True)
    assert node.returncode == 0, node.stderr


def _bind(at: AppTest, key: str) -> dict:
    for c in at.get("vega_lite_chart"):
        for p in live.bound_params(json.loads(c.proto.spec)):
            if p["name"] == key:
                return p["bind"]
    raise KeyError(key)

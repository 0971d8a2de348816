"""A test-only Streamlit script for frame.live (tests/test_live.py, tests/test_browser_live.py): two figures
through ``frame.chart``, built with posenc.charts.spec's ``@layout`` / ``figure``, so the tests do not depend on
the lesson pages. Run: streamlit run tests/live_app.py

- a sine over a bound position ``lv_pos`` (range 0 … 63) with a Play button, a dot and its value that follow it;
- a second chart with a radio ``lv_wave`` (sin / cos), a checkbox ``lv_grid`` and a select ``lv_freq``;
- a Streamlit slider bound to the address (``lv_n``), in a fragment with the charts, so a rerun redraws them
  (the second chart's layout and description stay, its data and its reading change: the browser keeps it);
- a sidebar with a text box and a toggle (the collapsed sidebar must hold no Tab stop), a code block, tabs
  bound to the address (Streamlit 1.67 drops focus to <body> when an arrow key switches them).
"""

from __future__ import annotations

import altair as alt  # noqa: E402
import numpy as np  # noqa: E402
import streamlit as st  # noqa: E402

import frame  # noqa: E402
from frame import live  # noqa: E402
from posenc.charts import spec  # noqa: E402

N = 64


@spec.layout
def _sine_layout(n: int) -> alt.LayerChart:
    pos = alt.param(name="lv_pos", value=0, bind=alt.binding_range(min=0, max=n - 1, step=1, name="position "))
    base = alt.Chart(spec.named("wave"))
    line = base.mark_line(aria=False, color=spec.SERIES[0]).encode(
        x=alt.X("p:Q", title="position"), y=alt.Y("y:Q", title="sin(p / 8)", scale=alt.Scale(domain=[-1.2, 1.2])))
    dot = base.transform_filter("datum.p === lv_pos").mark_point(
        aria=False, filled=True, size=120, color=spec.FOCUS).encode(
        x="p:Q", y="y:Q", tooltip=[alt.Tooltip("p:Q", title="position"), alt.Tooltip("y:Q", format=".3f")])
    label = base.transform_filter("datum.p === lv_pos").transform_calculate(
        text="'sin(' + datum.p + ' / 8) = ' + format(sin(datum.p / 8), '.3f')").mark_text(
        aria=False, dy=-16, fontWeight="bold").encode(x="p:Q", y="y:Q", text="text:N")
    marks = base.mark_point(aria=False, size=60, opacity=0.01).encode(
        x="p:Q", y="y:Q", tooltip=[alt.Tooltip("p:Q", title="position"), alt.Tooltip("y:Q", format=".3f")])
    return alt.layer(line, marks, dot, label).add_params(pos).properties(title="sin(p / 8)", height=220)


@spec.layout
def _pick_layout() -> alt.Chart:
    wave = alt.param(name="lv_wave", value="sin", bind=alt.binding_radio(options=["sin", "cos"], name="wave "))
    grid = alt.param(name="lv_grid", value=False, bind=alt.binding_checkbox(name="thick line "))
    freq = alt.param(name="lv_freq", value=1, bind=alt.binding_select(options=[1, 2, 4], name="frequency "))
    return alt.Chart(spec.named("wave")).transform_calculate(
        v="lv_wave === 'sin' ? sin(lv_freq * datum.p / 8) : cos(lv_freq * datum.p / 8)",
    ).mark_line(aria=False, strokeWidth=alt.ExprRef("lv_grid ? 5 : 2")).encode(
        x=alt.X("p:Q", title="position"), y=alt.Y("v:Q", title="value"),
        tooltip=[alt.Tooltip("p:Q"), alt.Tooltip("v:Q", format=".3f")],
    ).add_params(wave, grid, freq).properties(title="A wave picked in the chart", height=160)


def sine_figure(n: int = N) -> spec.Figure:
    p = np.arange(n)
    return spec.figure(_sine_layout(n), {"wave": spec.columns(p=p, y=np.sin(p / 8))},
                       description=f"sin(p / 8) over positions 0 … {n - 1}; a dot marks the chosen position.")


def pick_figure(n: int = N) -> spec.Figure:
    p = np.arange(n)
    return spec.figure(_pick_layout(), {"wave": spec.columns(p=p)},
                       description="A sine or cosine at a chosen frequency, picked inside the chart.",
                       reading=f"It runs over positions 0 … {n - 1}.")


if __name__ == "__main__":
    st.set_page_config(page_title="live test", layout="wide")
    frame.begin_run()
    st.sidebar.text_input("Sentence", "the cat sat", key="lv_sentence")
    st.sidebar.toggle("A toggle", key="lv_toggle")
    live.mount()
    frame.style()
    st.title("frame.live test page")

    @st.fragment
    def charts() -> None:
        n = frame.slider("points", "lv_n", 16, 64, N, step=16)
        st.caption(f"run with n = {n}")
        frame.chart(sine_figure(n), play="lv_pos")
        frame.chart(pick_figure(n))

    charts()
    a, b = frame.tabs(["First", "Second"], key="lv_tab")  # bound to the address, as the pages' tabs are
    with a:
        st.code("print('a line long enough to scroll sideways on a phone: " + "x" * 120 + "')", language="python")
    with b:
        st.write("The second tab.")
    st.markdown(":material/check_circle: **3 of 3 checks hold.** A verdict line, as the pages write it.")
    with st.expander("Checks", icon=":material/fact_check:"):
        st.write("Folded.")
    frame.unknown_params_notice()

"""The hello-world page, Streamlit's own floor on this machine: every page's reruns and presses are compared
with its title, slider and tiny Altair chart, measured the same way in the same run. It runs on the app's transport (``frame.net.no_delay``: Nagle off), so the
comparison is of the pages, not of a socket option the app sets and Streamlit does not."""

import altair as alt
import pandas as pd
import streamlit as st

import frame.net

frame.net.no_delay()

st.title("Hello, world")
k = st.slider("k", 1, 10, 5, key="k")
data = pd.DataFrame({"x": [1, 2, 3, 4], "y": [1, k, 2, 4]})
st.altair_chart(alt.Chart(data).mark_line(point=True).encode(
    x=alt.X(field="x", type="quantitative"), y=alt.Y(field="y", type="quantitative"),
    tooltip=[alt.Tooltip(field="x", type="quantitative"), alt.Tooltip(field="y", type="quantitative")],
), width="stretch")

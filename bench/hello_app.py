"""The hello-world page the benchmark compares every page with: a title, a slider and a tiny Altair chart.

AppTest runs it for the rerun-time baseline; `streamlit run bench/hello_app.py` serves it for the browser's
slider → chart baseline (Streamlit's own floor on the machine).
"""

import altair as alt
import pandas as pd
import streamlit as st

st.title("Hello, world")
k = st.slider("k", 1, 10, 5, key="k")
data = pd.DataFrame({"x": [1, 2, 3, 4], "y": [1, k, 2, 4]})
st.altair_chart(alt.Chart(data).mark_line(point=True).encode(
    x=alt.X(field="x", type="quantitative"), y=alt.Y(field="y", type="quantitative"),
    tooltip=[alt.Tooltip(field="x", type="quantitative"), alt.Tooltip(field="y", type="quantitative")],
), width="stretch")

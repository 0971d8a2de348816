"""posenc — the interactive chapter on positional information. Run: streamlit run app.py"""

import streamlit as st

import frame

st.set_page_config(page_title="posenc — positional encoding, interactively", page_icon=":material/swap_horiz:",
                   layout="wide")

frame.begin_run()
sections: dict[str, list] = {}
for info in frame.existing_pages():
    sections.setdefault(info.section, []).append(
        st.Page(info.path, title=info.title, icon=info.icon, url_path=info.url_path or None,
                default=info.url_path == "")
    )
page = st.navigation(sections)
frame.sidebar_example()
page.run()
frame.unknown_params_notice()

"""posenc — the interactive chapter on positional information. Run: streamlit run app.py"""

import streamlit as st

import frame
import frame.classroom
import frame.live
import frame.net

frame.net.no_delay()  # once per process: Streamlit 1.67 leaves Nagle on (each rerun waited 40 ms; frame/net.py)

present = frame.flag_in_address("present") or st.session_state.get("present")
st.set_page_config(page_title="posenc", page_icon=":material/swap_horiz:", layout="wide",
                   initial_sidebar_state="collapsed" if present else "auto")

frame.begin_run()
sections: dict[str, list] = {}
for info in frame.existing_pages():
    sections.setdefault(info.section, []).append(
        st.Page(info.path, title=info.title, icon=info.icon, url_path=info.url_path or None,
                default=info.url_path == "")
    )
page = st.navigation(sections)
st.set_page_config(page_title=f"{page.title} · posenc")  # every page its own browser title
frame.sidebar_example()
with st.sidebar:
    frame.live.presentation_toggle(page.url_path, "Presentation mode",
                                   help="For a projector: sidebar folded away, large dark chart text, charts fit "
                                        "the screen.")
frame.share_link(st.sidebar)
frame.live.mount()  # the in-page component: in-chart controls ↔ the address, play, tap to read, focus
frame.style()
frame.classroom.current()  # class mode: the code and key kept on every page, a bad link's notice once a run
page.run()
frame.unknown_params_notice()

import streamlit as st

import frame
from posenc import chapter, tokenize

PATH = "lessons/home.py"

_a, _b = chapter.FIGURE_WEIGHTS
_q = chapter.query_index(tokenize(chapter.SENTENCE)) + 1

with frame.page(PATH, f"In “{chapter.SENTENCE}”, the chapter's figures give the two copies of “{chapter.COPY_WORD}” "
                      f"weights **{_a}** and **{_b}** from “{chapter.QUERY_WORD}”. Yet both copies are the same "
                      "word, with identical rows, and identical rows must get equal weights. **How can both be "
                      "true?** The pages below follow the chapter until it can answer."):

    @frame.section("The pages", fragment=False)
    def pages():
        sections: dict[str, list[frame.PageInfo]] = {}
        for info in frame.existing_pages():
            if info.path != PATH:
                sections.setdefault(info.section, []).append(info)
        for number, (section, infos) in enumerate(sections.items(), start=1):
            st.markdown(f"**{number}. {section}**")
            for info in infos:
                st.page_link(info.path, label=info.title, icon=info.icon)
                st.caption(info.blurb)

    @frame.section("In class", fragment=False)
    def in_class():
        st.markdown(
            "- **Project** with `?present=1` on any page's address (or the sidebar's *Presentation mode*): the "
            "sidebar folds away and chart text grows.\n"
            "- **Ask first.** Each page opens on a Predict question above its chart; the answer shows only once a "
            "choice is made or *Show me the answer* is pressed: take a show of hands, then pick.\n"
            "- **Share what you project** with *Copy the link to this view*: the link reopens the page with its "
            "controls, tabs and open asides.\n"
            "- **One running example**: the sidebar's sentence, width *d* and seed are shared by every page. "
            f"Positions are 1-based, as in the chapter: “{chapter.QUERY_WORD}” is ({_q})."
        )

    frame.bridge(PATH, "Start with the machine the chapter is about: one attention head, step by step, on your "
                       "sentence.")

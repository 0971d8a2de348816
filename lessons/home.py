import streamlit as st

import frame
from posenc import chapter, tokenize

PATH = "lessons/home.py"

frame.page(PATH, "How a transformer learns word order: an interactive chapter on positional information, where "
                 "every number is computed live from the sentence in the sidebar.")

st.markdown(
    f"Attention compares every word with every other word, yet nothing in it says where a word sits: "
    f"“{chapter.SENTENCE}” and “{chapter.SCRAMBLED}” give the same vectors in other rows, and the two copies of "
    f"“{chapter.COPY_WORD}” cannot be told apart. The chapter follows the fixes — from the obvious ones that fail "
    "to the rotations modern models use — until both puzzles are resolved."
)


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
        "- **Presentation mode**: add `?present=1` to any page's address, or switch on *Presentation mode* in the "
        "sidebar — the sidebar folds away, chart text grows and charts fit the projector's screen.\n"
        "- **Copy the link to this view** (at the bottom of every page, and in the sidebar): the link reopens the "
        "page with its controls, its tabs and its open asides as you set them — share it so students open exactly "
        "what you project.\n"
        "- **One running example**: the sidebar's sentence, width *d* and seed are shared by every page; change "
        "the sentence once and every demonstration follows it.\n"
        f"- **Positions are 1-based**, as in the chapter: the first word is position 1, so “{chapter.QUERY_WORD}” "
        f"is ({chapter.query_index(tokenize(chapter.SENTENCE)) + 1}). Where a chart counts from 0 (a pair index, "
        "a bit), its axis says so.\n"
        "- **Predict questions** come before the chart that answers them, and the answer appears only once a "
        "choice is made: ask the class first, take a show of hands, then pick."
    )


frame.bridge(PATH, "Start with the machine the chapter is about: one attention head, step by step, on your sentence.")

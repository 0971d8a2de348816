import streamlit as st

import frame

st.title("How a transformer learns word order")
st.markdown(
    "**An interactive chapter on positional information: every number on these pages is computed live, "
    "from the sentence in the sidebar.**"
)
st.markdown(
    "Self-attention compares every word with every other word, but nothing in it says where a word sits: "
    "“The cat chased the mouse” and “The mouse chased the cat” give the same vectors, only in other rows. "
    "This chapter follows the fixes — from the obvious ones that fail to the rotations modern models use."
)

st.subheader("The pages")
for info in frame.existing_pages():
    if info.url_path == "":
        continue
    with st.container(border=True):
        st.page_link(info.path, label=f"{info.title}", icon=info.icon)
        st.caption(f"{info.section} — {info.blurb}")

st.subheader("In class")
st.markdown(
    "- Every control is in the page's address: set up a view, open **Link to this view** at the bottom "
    "of the page, and share it — students open exactly what you project.\n"
    "- The sidebar's sentence, width *d* and seed are shared by all pages: change the sentence once and "
    "every demonstration follows it.\n"
    "- Each page ends with a question to predict before revealing the answer: ask the class first.\n"
    "- Word positions follow the chapter: the first word is position 1."
)

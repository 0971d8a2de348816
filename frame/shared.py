"""A control that feeds several sections: drawn once at page level, above the sections it feeds.

    with frame.page(PATH, lead):
        qi, ki = frame.shared.words(tokens, "rp")            # one row: query word, key word (page-wide)

        @frame.section("…")
        def key_chart():                                     # reads qi, ki
            ...

        @frame.section("…")
        def circles():                                       # reads the same qi, ki
            ...

Why this shape. A section is an ``st.fragment``: a control inside it reruns that section alone, so a value it
sets cannot reach the sections after it until the next full run. Pages used to bridge that gap by hand (a flag in
``st.session_state`` marking a full run, the picks copied into a module-level dict, and ``st.rerun()`` when a
section's pick changed) — three pieces of machinery that each page had to get right. Streamlit already has the
rule we need: a widget drawn *outside* every fragment reruns the whole script. So a control that feeds several
sections is drawn at page level, before them (``control``), and the sections read its value as an ordinary local
variable. There is nothing to synchronise:

- a change of the control reruns the page: every section runs again with the new value, in the same run;
- a section's own control reruns only that section, and the shared value cannot have changed meanwhile (it
  changes only by a full run), so the value its closure holds is the current one;
- the value lives in the widget (bound to the address like every frame control), not in a flag or a global.

``control`` refuses to run inside a section (where its widget would belong to that section's fragment and the
other sections would not see it change). ``words`` is the case the chapter needs: the query and key words,
picked by their place in the sentence, with the words themselves shown as plain text (never Markdown).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from posenc import chapter

from .parts import word_choice

T = TypeVar("T")

HINT = "1 is the first word of the sidebar's sentence."


def control(draw: Callable[[], T], *, where: Any = None) -> T:
    """Draw a page-wide control (``draw`` makes its widgets and returns their value) at page level, in a row
    of its own (or in ``where``, e.g. ``st.sidebar``), and return the value for every section below to read.
    Inside a section it raises: call it before the sections it feeds. A control every section reads belongs in
    the sidebar, as the sentence does (``where=frame.sidebar_slot()``)."""
    from .skeleton import _SLOT  # the section running now, if any (frame's own bookkeeping)

    if _SLOT.get() is not None:
        raise RuntimeError("frame.shared.control feeds several sections: call it at page level, before them, "
                           "not inside a section (its widget would rerun that section alone)")
    with (where or st).container(key="pe_shared"):
        return draw()


def words(tokens: list[str], prefix: str, *, query_help: str = "", key_help: str = "",
          where: Any = None) -> tuple[int, int]:
    """The query and key words (defaults: the chapter's “chased” and “cat”, else words 1 and 2), picked by
    place, each word shown as text beside its control; keys ``{prefix}_qw`` and ``{prefix}_kw``. One row on
    the page, or one row per word in ``where`` (a narrow place such as ``st.sidebar``). Returns the 0-based
    (query, key) indices."""
    def draw() -> tuple[int, int]:
        if where is None:
            cols = st.columns(4, vertical_alignment="bottom")
            places = ((cols[0], cols[1]), (cols[2], cols[3]))
        else:
            places = tuple(tuple(st.columns([3, 2], vertical_alignment="bottom")) for _ in range(2))
        picked = []
        for (c_in, c_word), role, key, default, extra in (
                (places[0], "Query", "qw", chapter.query_index(tokens), query_help),
                (places[1], "Key", "kw", chapter.key_index(tokens), key_help)):
            with c_in:
                i = word_choice(f"{role} word (its place)", f"{prefix}_{key}", tokens, default,
                                f"{HINT} {extra}".strip())
            with c_word:
                st.text(f"{role.lower()} word: {tokens[i]}")
            picked.append(i)
        return picked[0], picked[1]

    return control(draw, where=where)

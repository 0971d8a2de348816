"""Predict: the question before the chart that answers it, and the answer after it.

    q = frame.predict("Which cells share one colour?", options, correct, key="rp_predict")
    frame.chart(fig)                          # the chart opens at the state the question asks about
    q.answer(f"Each diagonal: … {live number} …")

The question and its options are compact (one labelled radio group, named by the question for screen readers);
the answer — which option was right, and the page's claim with its live number — appears under the chart once
the student has picked, or after “Show me the answer”. Call ``predict`` inside a ``frame.section``: picking
reruns that section only (its chart is unchanged, so the browser keeps it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import streamlit as st

PREDICT_LABEL = "Predict"  # the word before every question (screen readers and the bench read it)


@dataclass
class Question:
    """A Predict question drawn on the page; ``answer`` draws its answer after the chart."""

    key: str
    options: list[str]
    correct: int
    room: Any = field(default=None, repr=False, compare=False)  # frame.classroom.Room in class mode

    @property
    def choice(self) -> str | None:
        return st.session_state.get(f"{self.key}_guess")

    def answered(self) -> bool:
        return self.choice is not None or bool(st.session_state.get(f"{self.key}_shown"))

    def answer(self, text: str, then: str | None = None) -> None:
        """The answer (our own Markdown: the claim with its live number), once the student has committed (in
        class mode: once the teacher has revealed it). ``then``: the prose that explains it — what to notice, the
        why — drawn under the answer and hidden with it, so nothing on the page gives the answer away early."""
        if self.room is not None:
            self.room.answer(self.key, lambda: self._draw(text, then))
            return
        if not self.answered():
            st.button("Show me the answer", key=f"{self.key}_show", icon=":material/visibility:",
                      on_click=_show, args=(self.key,), help="Or pick an answer above first.")
            return
        self._draw(text, then)

    def _draw(self, text: str, then: str | None = None) -> None:
        right = self.options[self.correct]
        if self.choice is None:
            head = f"**The answer:** “{right}”."
        elif self.options.index(self.choice) == self.correct:
            head = ":material/check_circle: **Right.**"
        else:
            head = f":material/cancel: **Not quite** — the answer is “{right}”."
        with st.container(border=True, key=f"pe_answer_{self.key}"):
            st.markdown(f"{head} {text}")
        if then:
            st.markdown(then)


def _show(key: str) -> None:
    st.session_state[f"{key}_shown"] = True


def predict(question: str, options: list[str], correct: int, *, key: str) -> Question:
    """Ask ``question`` (our own Markdown) with ``options``; ``correct`` is the right option's index. The question
    is asked at the state its chart opens in, and states any setting it needs; ``answer`` draws the answer after
    the chart.

    In class mode (``?class=<code>``, see ``frame.classroom``) the pick is the student's vote and the answer waits
    for the teacher's Reveal; the teacher's page shows the hall's counts under the question."""
    from . import classroom

    room = classroom.current()
    state = room.before_radio(key, question, list(options)) if room is not None else None
    if state is None:
        room = None  # not a live class (or the question could not be registered): the page works as usual

    def radio(on_change: Any = None, args: tuple | None = None) -> None:
        st.radio(f"**{PREDICT_LABEL}.** {question}", options, index=None, key=f"{key}_guess", horizontal=True,
                 on_change=on_change, args=args)

    q = Question(key, list(options), correct, room)
    if room is not None:
        room.ask(key, list(options), correct, state, radio)
    else:
        radio()
        if q.choice is not None:
            st.html('<p class="pe-feedback" role="status" aria-live="polite">Your prediction is in: the answer is '
                    "under the chart.</p>")
    return q

"""Predict: the question before the chart that answers it, and the answer after it.

    q = frame.predict("Which cells share one colour?", options, correct, key="rp_predict")
    frame.chart(fig)                          # the chart opens at the state the question asks about
    q.answer(f"Each diagonal: … {live number} …")

The question and its options are compact (one labelled radio group, named by the question for screen readers);
the answer — which option was right, and the page's claim with its live number — appears under the chart once
the student has picked, or after “Show me the answer”. Picking, or the button, reruns the question and its answer
only: ``answer`` runs one small ``st.fragment`` that draws the radio back into the place ``predict`` kept for it
(a container written on every run of its section, so Streamlit keeps its slot) and the answer under the chart;
the chart between them is not sent again. A question whose ``answer`` is not reached in a run gets its radio at
the end of its own section (``close_scope``), so it is never lost.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
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
    where: Any = field(default=None, repr=False, compare=False)  # the question's place (solo mode)
    radio: Callable[[], None] | None = field(default=None, repr=False, compare=False)  # draws the question

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
        _forget(self)

        @st.fragment
        def ask() -> None:  # a pick or the button reruns this alone: the question above, the answer here
            self._ask()
            if not self.answered():
                st.button("Show me the answer", key=f"{self.key}_show", icon=":material/visibility:",
                          on_click=_show, args=(self.key,), help="Or pick an answer above first.")
                return
            self._draw(text, then)

        ask()

    def _ask(self) -> None:
        """The radio (and, once picked, the line that says where the answer is) in the question's place."""
        if self.radio is None:
            return
        with self.where:
            self.radio()
            if self.choice is not None:
                st.html('<p class="pe-feedback" role="status" aria-live="polite">Your prediction is in: the answer '
                        "is under the chart.</p>")

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


_PENDING: contextvars.ContextVar[list[Question] | None] = contextvars.ContextVar("frame_predict", default=None)


def _forget(q: Question) -> None:
    pending = _PENDING.get()
    if pending and q in pending:
        pending.remove(q)


def open_scope() -> contextvars.Token:
    """Start a scope (a section, a page): the questions asked in it are its own until ``close_scope``."""
    return _PENDING.set([])


def close_scope(token: contextvars.Token) -> None:
    """Draw the radio of every question asked in this scope whose ``answer`` did not run, then give the outer
    scope back its own (the frame calls this at the end of each section and of the page)."""
    pending = _PENDING.get() or []
    try:
        for q in pending:
            q._ask()
    finally:
        _PENDING.reset(token)


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

    if room is not None:
        q = Question(key, list(options), correct, room)
        room.ask(key, list(options), correct, state, radio)
        return q
    q = Question(key, list(options), correct, where=st.container(), radio=radio)
    _PENDING.set([*(_PENDING.get() or []), q])
    return q

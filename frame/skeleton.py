"""The page skeleton: question first, one idea per screen, the proof folded away.

    with frame.page(PATH, "One line that poses the page's question (never its answer)."):
        ex = frame.example()

        @frame.section("The key chart")         # h2; an st.fragment: its controls rerun it alone
        def key_chart():
            q = frame.predict("Which cells share one colour?", options, correct, key="rp_predict")
            x = frame.slider(...)                # the chart's server-side controls, beside or above it
            res, fig = section_data(...)         # one @frame.cached posenc call (+ its figure)
            frame.chart(fig)
            q.answer(f"Each diagonal: along one the score moves by {res.spread:.0e} …")  # once the student picked
            frame.verdict("the copies get equal weights", res.gap < TOL, f"largest gap {res.gap:.0e}")
            st.markdown(prose)                   # two to four short paragraphs, in one call where possible

        with frame.deeper("Why it works", key="rp_deep_why"):   # asides, bound to the URL
            ...
        frame.show_code(...)
        frame.bridge(PATH, text)

Inside ``with frame.page(...)`` everything the page writes goes into its body; after the body come, in this
order, the one-line summary of the page's checks (“✔ 7 of 7 checks hold”), the folded **Checks** block that
holds every verdict with its measurement and tolerance, then the code and the bridge. ``frame.verdict`` never
draws on the main path: it writes into its section's slot of the Checks block, and a section's rerun (a
fragment) redraws its slot and the summary (Streamlit ≥ 1.59 lets a fragment write into containers made outside
it, clearing what it drew there on each rerun).

Symbols mean one thing across the app: “Holds” = the claim as worded is true of the live numbers; “Does not
hold” = it is not. Pages word each claim so that the chapter's prediction is the claim.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pyarrow as pa
import streamlit as st

from posenc.charts.spec import columns

from .live import PRESENT_MAX_HEIGHT, chart, presenting, shown_when  # noqa: F401  (re-exported)
from .pages import PageInfo, next_page, page_info
from .predict import PREDICT_LABEL, Question, close_scope, open_scope, predict  # noqa: F401  (re-exported: frame.predict)

CHECKS_KEY = "checks"  # the Checks block's URL key (?checks=true opens it)
CHECKS_LABEL = "Checks: every claim on this page, measured"
HOLDS_WORD, FAILS_WORD = "Holds", "Does not hold"


# ---------------------------------------------------------------- the page and its Checks block
class _Slot:
    """Where one section's verdicts go: a container inside the Checks block, and their tally."""

    def __init__(self, page: Page, where: Any, name: str) -> None:
        self.page, self.where, self.name = page, where, name
        self.lines: list[str] = []

    def add(self, line: str, holds: bool) -> None:
        self.lines.append(line)
        self.page.tally[self.name] = self.page.tally.get(self.name, []) + [holds]

    def draw(self) -> None:
        """Draw the slot's verdicts once its section ran, one paragraph each: one element, not one per verdict
        (a rerun of the section alone clears what it drew here before, as Streamlit does for a fragment)."""
        if self.lines:
            self.where.markdown("\n\n".join(self.lines))


class Page:
    """A page in the making: its title and lead are drawn; ``with`` it, the page writes into its body, and its
    checks go into the folded block after the body (see the module's docstring)."""

    def __init__(self, info: PageInfo, lead: str) -> None:
        self.info, self.lead = info, lead
        self.tally: dict[str, list[bool]] = {}
        self.terms: list[str] = []  # glossary words the page's prose linked (frame.term), in order
        self.glossary_drawn = False  # the page drew the whole glossary itself (frame.glossary)
        self._sections = 0
        self._token: contextvars.Token | None = None

    def __enter__(self) -> Page:
        self._body = st.container()
        end = st.container()
        self._tail = st.container()
        with end:
            self._summary = st.empty()
            from .urlstate import expander

            self._checks_holder = st.empty()  # emptied at the end when the page checked nothing (home, teach)
            with self._checks_holder.container():
                self._checks = expander(CHECKS_LABEL, CHECKS_KEY, icon=":material/fact_check:")
        self._page_slot = _Slot(self, self._checks.container(), "_page")
        self._body.__enter__()
        self._token = _PAGE.set(self)
        self._questions = open_scope()
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            close_scope(self._questions)  # a question outside every section still shows its radio
        finally:
            self._body.__exit__(*exc)
            if self._token is not None:
                _PAGE.reset(self._token)
        self._page_slot.draw()
        self.summarise()
        if not any(st.session_state["_frame_checks"][self.info.path].values()):
            self._checks_holder.empty()  # nothing was checked: no empty Checks block
        return None

    def new_slot(self, name: str) -> _Slot:
        self._sections += 1
        return _Slot(self, self._checks.container(), f"{self._sections}:{name}")

    def summarise(self) -> None:
        """The one-line summary on the main path, from every section's latest tally."""
        store = st.session_state.setdefault("_frame_checks", {})
        store[self.info.path] = {**store.get(self.info.path, {}), **self.tally}
        results = [h for name, hs in store[self.info.path].items() for h in hs]
        if not results:
            self._summary.empty()
            return
        held = sum(results)
        n = len(results)
        if held == n:
            line = (f":material/check_circle: **{n} of {n} checks hold.**" if n > 1
                    else ":material/check_circle: **The page's one check holds.**")
        else:
            one = n - held == 1
            line = (f":material/cancel: **{n - held} of {n} checks {'does' if one else 'do'} not hold** — the "
                    f"claim{'' if one else 's'} {'it tests is' if one else 'they test are'} false at these settings, "
                    "as the Checks block says.")
        self._summary.markdown(f"{line} Each claim on this page, measured, is in *Checks* below.")

    @property
    def tail(self) -> Any:
        return self._tail


_PAGE: contextvars.ContextVar[Page | None] = contextvars.ContextVar("frame_page", default=None)
_SLOT: contextvars.ContextVar[_Slot | None] = contextvars.ContextVar("frame_slot", default=None)


def page(path: str, lead: str) -> Page:
    """The page's title (h1, from the page list) and its lead: one line that poses the page's question, never its
    answer. Use as ``with frame.page(PATH, lead):`` so the page's checks gather into its Checks block."""
    info = page_info(path)
    st.title(info.title)
    st.markdown(lead)
    return Page(info, lead)


def section(title: str | None, *, fragment: bool = True, anchor: str | None = None) -> Callable:
    """Run the decorated function now, under an h2 heading, as an ``st.fragment``: a control inside it reruns
    only this section (the rest of the page stays as drawn). Everything the section's controls move — its
    Predict, chart, answer, verdicts, notices — is drawn inside it (its verdicts in its own slot of the Checks
    block). ``fragment=False`` for a section whose only controls must rerun the page."""
    def run(fn: Callable[[], None]) -> Callable[[], None]:
        if title:
            st.header(title, anchor=anchor)
        pg = _PAGE.get()
        slot = pg.new_slot(title or fn.__name__) if pg is not None else None

        def body() -> None:
            if slot is not None:
                slot.lines.clear()
                pg.tally[slot.name] = []
            token, questions = _SLOT.set(slot), open_scope()
            try:
                fn()
            finally:
                try:
                    close_scope(questions)  # a question whose answer this run did not reach still shows its radio
                finally:
                    _SLOT.reset(token)
                if slot is not None:
                    slot.draw()
                    pg.summarise()  # in a page's run too: a fragment may only fill what its page run wrote

        (st.fragment(body) if fragment else body)()
        return fn
    return run


def verdict(claim: str, holds: bool, measured: str) -> None:
    """A check in plain words: “Holds — <claim>: <measured>” or “Does not hold — …”. The word carries the
    meaning. Inside ``with frame.page(...)`` it goes into the page's folded Checks block (never the main path)."""
    mark = f":material/check_circle: **{HOLDS_WORD}**" if holds else f":material/cancel: **{FAILS_WORD}**"
    line = f"{mark} — {claim}: {measured}"
    slot = _SLOT.get()
    pg = _PAGE.get()
    if slot is None and pg is not None:
        slot = pg._page_slot
    if slot is not None:
        slot.add(line, bool(holds))
    else:
        st.markdown(line)


def table(cols: Mapping[str, Any] | pa.Table, *, column_config: dict | None = None, wrap: bool = False) -> None:
    """The one way to show a table (never through Markdown): named columns, full width, no index, sent as an
    Arrow table built straight from them. Streamlit converts a pandas DataFrame column by column on every run
    (a 64-position strip cost ~5 ms a press; 6 % of the server's time under a lecture hall's load).

    ``wrap``: a short table whose every cell must be read whole (a summary of verdicts): drawn static, its text
    wrapped to the page's width, instead of the scrolling grid."""
    data = cols if isinstance(cols, pa.Table) else columns(**cols)
    if wrap and column_config:
        raise ValueError("a wrapped table is static: format its cells before, column_config is for the grid")
    if wrap:
        st.table(data, hide_index=True)
    else:
        st.dataframe(data, hide_index=True, width="stretch", column_config=column_config)


def strip(rows: Mapping[str, Sequence[Any]], corner: str = "position") -> None:
    """Values laid out by position, positions across (1-based, as on screen), one row per series: e.g.
    {"word": tokens} or {"token": …, "answer": …}. The first column names each row; ``corner`` heads it."""
    n = max(len(v) for v in rows.values())
    cols: dict[str, Any] = {corner: list(rows)}
    for i in range(n):
        cols[str(i + 1)] = [str(v[i]) if i < len(v) else "" for v in rows.values()]
    table(cols, column_config={corner: st.column_config.TextColumn(pinned=True)})  # row names stay in view


def deeper(title: str, key: str):
    """A “Deeper” aside: an expander bound to the URL, for what the main line can do without."""
    from .urlstate import expander

    return expander(f"Deeper: {title}", key, icon=":material/school:")


def _tail() -> Any:
    pg = _PAGE.get()
    return pg.tail if pg is not None else st


def show_code(*functions: Callable[..., Any]) -> None:
    """An expander with the source of the ``posenc`` functions that just ran (after the page's Checks)."""
    from .parts import code_block

    with _tail().expander("Show the code", icon=":material/code:"):
        code_block(*functions)


def used_term(word: str) -> None:
    """``frame.term`` linked ``word``: its definition goes into the page's "Words on this page"."""
    pg = _PAGE.get()
    if pg is not None and word not in pg.terms:
        pg.terms.append(word)


def glossary() -> None:
    """Every glossary word with its definition, where a page explains them all (the attention page)."""
    from .parts import GLOSSARY, glossary_html

    st.html(glossary_html(GLOSSARY, None))
    pg = _PAGE.get()
    if pg is not None:
        pg.glossary_drawn = True


def bridge(path: str, text_: str) -> None:
    """The definitions of the glossary words the page linked (readable without hovering, in this tab), the bridge
    to the next page, and the link to this view (the page's last lines)."""
    where = _tail()
    pg = _PAGE.get()
    if pg is not None and pg.terms and not pg.glossary_drawn:
        from .parts import glossary_html

        where.html(glossary_html(pg.terms, "Words on this page"))
    with where.container():
        st.divider()
        st.markdown(text_)
        nxt = next_page(path)
        if nxt:
            st.page_link(nxt.path, label=f"Next: {nxt.title}", icon=":material/arrow_forward:")
        share_link()


_SHARE = """
<div class="pe-share">
  <button type="button" class="pe-share-btn">Copy the link to this view</button>
  <input class="pe-share-url" type="text" readonly aria-label="Link to this view" placeholder="the address bar holds it too">
</div>
<script>
if (!window.__peShare) {
  window.__peShare = true;
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".pe-share-btn");
    if (!button) return;
    const url = window.location.href;
    const box = button.parentElement.querySelector(".pe-share-url");
    box.value = url;
    box.focus();
    box.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(() => { button.textContent = "Copied: the link opens this view"; });
    }
  });
}
</script>
"""


def share_link(where=None) -> None:
    """“Link to this view”: every control writes its value into the address bar as it moves (sections that rerun
    alone and in-chart controls included), so the link is read from the address bar when the button is pressed —
    it cannot go stale."""
    (where or st).html(_SHARE, unsafe_allow_javascript=True)


def style() -> None:
    """The app's CSS (our own markup, never student text): called once per run by app.py."""
    from .theme import css

    st.html(css())

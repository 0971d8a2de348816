"""The page skeleton every page follows, top to bottom:

    info = frame.page(PATH, claim)          # h1 (from the page list), browser title, the claim
    frame.predict(question, options, correct, explanation, key=...)   # before the chart that answers it

    @frame.section("The key chart")         # h2; its controls and everything they move rerun alone
    def key_chart():
        x = frame.slider(...)               # controls right above the chart
        res, figs = section_data(...)       # one @frame.cached posenc call (+ its figures)
        frame.chart(figs.main)              # the one way to draw a chart
        frame.verdict("the copies get equal weights", res.gap < TOL, f"largest gap {res.gap:.0e}")
        st.markdown(prose)

    with frame.deeper("Why it works", key="..."):   # asides, bound to the URL
        ...
    frame.show_code(...)
    frame.bridge(PATH, text)

Symbols mean one thing across the app: ✔ "holds" = the claim as worded on the page is true of the live
numbers; ✘ "does not hold" = it is not. Pages word each claim so that the chapter's prediction is the claim.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import pyarrow as pa
import streamlit as st

from posenc.charts.spec import Figure, columns

from .pages import PageInfo, next_page, page_info

PRESENT_MAX_HEIGHT = 250  # presentation mode: the claim and the key chart share one 1280×720 screen at 150 %


def presenting() -> bool:
    """Presentation mode (?present=1, or the sidebar's toggle)."""
    return bool(st.session_state.get("present", False))


def page(path: str, claim: str) -> PageInfo:
    """The page's title (h1, from the page list) and its one claim, in bold."""
    info = page_info(path)
    st.title(info.title)
    st.markdown(f"**{claim}**")
    return info


def section(title: str | None, *, fragment: bool = True, anchor: str | None = None) -> Callable:
    """Run the decorated function now, under an h2 heading, as an ``st.fragment``: a control inside it reruns
    only this section (the rest of the page stays as drawn). Everything the section's controls move — charts,
    verdicts, notices — must be drawn inside it. ``fragment=False`` for a section with no controls of its own."""
    def run(fn: Callable[[], None]) -> Callable[[], None]:
        if title:
            st.header(title, anchor=anchor)
        (st.fragment(fn) if fragment else fn)()
        return fn
    return run


def chart(fig: Figure) -> None:
    """Draw a finished figure (``posenc.charts.spec.figure``): full width of its column, large text and a
    capped height in presentation mode."""
    present = presenting()
    st.vega_lite_chart(fig.to_vega_lite(present=present, max_height=PRESENT_MAX_HEIGHT if present else None),
                       width="stretch")


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


def verdict(claim: str, holds: bool, measured: str) -> None:
    """A check in plain words: “✔ Holds — <claim>: <measured>” or “✘ Does not hold — …”. The word carries the
    meaning; the icon repeats it."""
    mark = ":material/check_circle: **Holds**" if holds else ":material/cancel: **Does not hold**"
    st.markdown(f"{mark} — {claim}: {measured}")


PREDICT_LABEL = "Your prediction"  # the radio's label (hidden on screen; screen readers and the bench read it)


def predict(question: str, options: list[str], correct: int, explanation: str, key: str) -> None:
    """A Predict question, placed before the chart that answers it: the answer stays hidden until the
    student picks. The question states its own settings and the explanation is computed at them."""
    # Projected, the question is asked aloud: it folds to one line so the claim and the chart share the screen.
    box = st.expander(f"Predict: {question}", icon=":material/quiz:") if presenting() else st.container(border=True)

    def ask() -> None:  # a fragment: picking an answer reveals it without rerunning the page (or its section)
        st.markdown(f"**Predict.** {question}")
        choice = st.radio(PREDICT_LABEL, options, index=None, key=f"{key}_guess",
                          label_visibility="collapsed")
        if choice is None:
            st.caption("Pick one: the answer appears once you have committed to a prediction.")
        else:
            if options.index(choice) == correct:
                st.markdown(":material/check_circle: **Right.**")
            else:
                st.markdown(f":material/cancel: **Not quite** — the answer is “{options[correct]}”.")
            st.markdown(explanation)

    with box:
        st.fragment(ask)()


def deeper(title: str, key: str):
    """A “Deeper” aside: an expander bound to the URL, for what the main line can do without."""
    from .urlstate import expander

    return expander(f"Deeper: {title}", key, icon=":material/school:")


def bridge(path: str, text_: str) -> None:
    """The bridge to the next page, and the link to this view."""
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
    alone included), so the link is read from the address bar when the button is pressed — it cannot go stale."""
    (where or st).html(_SHARE, unsafe_allow_javascript=True)


STYLE = """
<style>
/* Columns stack below ~1,100 px (a projector at 100 %, a tablet), not only on phones. */
@media (max-width: 1100px) {
  [data-testid="stMain"] [data-testid="stHorizontalBlock"] { flex-direction: column; gap: 0.5rem; }
  [data-testid="stMain"] [data-testid="stColumn"] { width: 100% !important; flex: 1 1 100% !important; min-width: 0; }
}
/* Long display formulas wrap at their operators instead of scrolling sideways. */
.katex-display > .katex { white-space: normal; max-width: 100%; }
.katex-display .base { margin: 0.15em 0; }
[data-testid="stMain"] .stVegaLiteChart, [data-testid="stMain"] [data-testid="stVegaLiteChart"] { max-width: 100%; overflow: hidden; }
.pe-share { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.pe-share-btn { font: inherit; padding: 0.35rem 0.8rem; border: 1px solid #1f5fbf; border-radius: 0.5rem;
  background: #ffffff; color: #1f5fbf; cursor: pointer; }
.pe-share-btn:focus-visible { outline: 3px solid #1f5fbf; outline-offset: 2px; }
.pe-share-url { flex: 1 1 14rem; min-width: 0; font: inherit; font-size: 0.85rem; padding: 0.3rem 0.5rem;
  border: 1px solid #595959; border-radius: 0.4rem; color: #222222; }
</style>
"""

PRESENT_STYLE = """
<style>
[data-testid="stMain"] p, [data-testid="stMain"] li { font-size: 1.15rem; }
[data-testid="stMainBlockContainer"] { padding-top: 2.5rem; max-width: 100%; }
[data-testid="stMain"] h1 { font-size: 2rem; padding-top: 0; }
[data-testid="stMain"] h2 { font-size: 1.5rem; padding-top: 0.5rem; }
</style>
"""


def style() -> None:
    """The app's CSS (our own markup, never student text): called once per run by app.py."""
    st.html(STYLE + (PRESENT_STYLE if presenting() else ""))

"""Page parts: the running example (sidebar), word pickers, formulas, show-the-code, the glossary, the caching
idiom. Student text never goes through Markdown: it is shown with ``st.text``/``st.code`` or in dataframes."""

from __future__ import annotations

import functools
import html
import inspect
import logging
import threading
import time
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import streamlit as st

import posenc
from posenc import chapter
from posenc.validate import MAX_D_PAGE

from .urlstate import number, text

DEFAULT_SENTENCE = chapter.SENTENCE
DEFAULT_D = 64
DEFAULT_SEED = 0


def cached(fn: Callable | None = None, *, max_entries: int = 32):
    """The app's one caching idiom: ``@frame.cached`` on a section's posenc call, keyed on small scalar
    arguments (the sentence, d, seed, a slider's value), shared by every session, bounded."""
    deco = st.cache_data(max_entries=max_entries, show_spinner=False)
    return deco(fn) if fn is not None else deco


_WARMED: dict[str, threading.Thread] = {}
_WARM_LOCK = threading.Lock()
WARM_AFTER_S = 2.0  # the page's first run draws first: the warm-up starts after it, …
WARM_PAUSE_S = 0.05  # … and pauses between builds, so a script run waits at most one build for the GIL


def warm(name: str, work: Iterable[Callable[[], Any]]) -> threading.Thread:
    """Run ``work`` (builds, one call each) once per server process, in a background thread: a page calls it to
    build ahead what its controls will ask for next, when that is a chart layout whose structure follows a
    control's value (the bit count, the number of heads). Altair builds a layout once per process
    (``posenc.charts.spec.layout``, which lets a second caller wait for a build under way rather than repeat
    it), in 50–170 ms; built ahead, the first press on each value costs what the later ones do. The thread starts
    ``WARM_AFTER_S`` after the call and pauses ``WARM_PAUSE_S`` between builds: its CPU is taken from the
    process's script runs (measured: no-change reruns 2–3× slower while binary's 2.4 s of builds ran at once).
    Each call must be pure posenc (no Streamlit: it runs outside any script run); an error is logged, never shown.
    Returns the thread (the same one at every later call with this name)."""
    with _WARM_LOCK:
        if name not in _WARMED:
            def run() -> None:
                time.sleep(WARM_AFTER_S)
                try:
                    for one in work:
                        one()
                        time.sleep(WARM_PAUSE_S)
                except Exception:  # noqa: BLE001 - a failed warm-up only leaves the work for the presses
                    logging.getLogger(__name__).exception("warming %s failed", name)

            _WARMED[name] = threading.Thread(target=run, name=f"warm: {name}", daemon=True)
            _WARMED[name].start()
        return _WARMED[name]


def warmed(timeout: float | None = None) -> bool:
    """Wait for every warm-up started so far in this process (the benchmark times reruns after them); True when
    all have finished."""
    with _WARM_LOCK:
        threads = list(_WARMED.values())
    for t in threads:
        t.join(timeout)
    return not any(t.is_alive() for t in threads)


# ---------------------------------------------------------------- the running example
@dataclass(frozen=True)
class Example:
    sentence: str
    d: int
    seed: int


def sidebar_example() -> Example:
    """The running example shared by every page (sidebar, bound to the URL)."""
    sb = st.sidebar
    sb.markdown("**Running example**")
    sentence = text("Sentence", "sentence", DEFAULT_SENTENCE, where=sb,
                    help=f"Any sentence, up to {posenc.core.MAX_TOKENS} words. The first word is position 1.")
    d = number("Model width d", "d", 2, MAX_D_PAGE, DEFAULT_D, step=2, where=sb,
               help="Width of the word vectors and of q, k, v: the one d every page uses.")
    seed = number("Seed", "seed", 0, 9999, DEFAULT_SEED, where=sb,
                  help="Draws the random word vectors and projection matrices.")
    _PAGE_SLOT.set(sb.container())  # a page's own page-wide controls go here, under the running example
    return Example(sentence, int(d), int(seed))


_PAGE_SLOT: ContextVar[Any] = ContextVar("pe_page_slot", default=None)  # set each run by sidebar_example


def sidebar_slot() -> Any:
    """The place in the sidebar, just under the running example, for a control every section of the page reads
    (as they read the sentence); the sidebar's end when the running example was not drawn this run."""
    return _PAGE_SLOT.get() or st.sidebar


def example() -> Example:
    """The running example as the sidebar set it in this run."""
    ss = st.session_state
    return Example(str(ss.get("sentence", DEFAULT_SENTENCE)), int(ss.get("d", DEFAULT_D)),
                   int(ss.get("seed", DEFAULT_SEED)))


def tokens_or_stop(sentence: str) -> list[str]:
    """The sentence's words, or a clear message on the page and a stop."""
    try:
        return posenc.tokenize(sentence)
    except ValueError as err:
        st.error(str(err), icon=":material/edit_note:")
        st.stop()
    raise AssertionError  # unreachable


def require(condition: bool, message: str) -> None:
    """Show ``message`` and stop the page when ``condition`` fails (for values a student can reach)."""
    if not condition:
        st.error(message, icon=":material/error:")
        st.stop()


# ---------------------------------------------------------------- words
def word_choice(label: str, key: str, tokens: list[str], default: int, help: str | None = None) -> int:
    """A word of the sentence picked by its 1-based place (the label holds numbers, never the student's text);
    a stored choice past a shortened sentence is clamped. Returns the 0-based index."""
    n = len(tokens)
    stored = st.session_state.get(key)
    if isinstance(stored, (int, float)) and not 1 <= stored <= n:
        st.session_state[key] = min(max(int(stored), 1), n)
    return int(number(label, key, 1, n, default + 1, help=help)) - 1


def word_pair(tokens: list[str], prefix: str, q_help: str = "", k_help: str = "") -> tuple[int, int, list]:
    """The query and key words, picked by place (defaults: the chapter's "chased" and "cat"), each shown as text
    under its control. Returns (query index, key index, the two columns) so a page can add controls below."""
    q_def, k_def = chapter.query_index(tokens), chapter.key_index(tokens)
    hint = "1 is the first word of the sidebar's sentence."
    cols = st.columns(2)
    picked = []
    for col, role, key, default, extra in ((cols[0], "Query", "qw", q_def, q_help),
                                           (cols[1], "Key", "kw", k_def, k_help)):
        with col:
            i = word_choice(f"{role} word: its place in the sentence", f"{prefix}_{key}", tokens, default,
                            f"{hint} {extra}".strip())
            st.text(f"{role.lower()} word: {tokens[i]}")
        picked.append(i)
    return picked[0], picked[1], cols


# ---------------------------------------------------------------- formulas and code
def formula(*latex: str) -> None:
    """Display formulas, one ``st.latex`` per line: pass a long formula as several lines so it fits a phone."""
    for expr in latex:
        st.latex(expr)


@functools.lru_cache(maxsize=64)
def _sources(functions: tuple[Callable[..., Any], ...]) -> str:
    return "\n\n".join(f"# {fn.__module__}.{fn.__qualname__}\n{inspect.getsource(fn).rstrip()}" for fn in functions)


def code_block(*functions: Callable[..., Any]) -> None:
    """The source of ``posenc`` functions as one block, each under a comment with its dotted name (one element
    on the page, however many functions: every element is a message on every full run)."""
    st.code(_sources(functions), language="python")


# ---------------------------------------------------------------- the glossary
TERM_ANCHOR = "term-"  # the id of a word's definition on the page: term-query, term-key …
GLOSSARY: dict[str, str] = {
    "query": "q = x W_Q: the vector a word asks with. Its dot product with every key says how much it wants "
             "to read each word.",
    "key": "k = x W_K: the vector a word is found by. Two copies of a word have the same key.",
    "value": "v = x W_V: what a word hands over when it is read. The output is a weighted sum of values.",
    "score": "q · k / √d: one number per (query, key) pair, before the softmax. Larger means read more.",
    "softmax": "Turns a row of scores into weights that are positive and sum to 1: exp(score) ÷ the row's sum.",
    "d": "The model width: the number of coordinates of every word vector and of q, k and v "
         "(the sidebar's d).",
}


def term(word: str, shown: str | None = None) -> str:
    """Markdown for a glossary word: a link, in this page and tab, to its definition among the page's last lines
    ("Words on this page", drawn by ``frame.bridge``; on the attention page, its Glossary section). Hovering
    shows the definition too. Use in page prose: ``st.markdown(f"… the {frame.term('query')} …")``."""
    definition = GLOSSARY[word].replace('"', "'")
    from .skeleton import used_term

    used_term(word)
    return f'[{shown or word}](#{TERM_ANCHOR}{word} "{definition}")'


def glossary_html(words: Iterable[str], heading: str | None) -> str:
    """The definitions of ``words`` as one HTML list (our own text, never a student's), each under the anchor
    ``term`` links to. With a ``heading``: folded under it (one line on the page), and the browser unfolds it
    when a link points inside (a fragment inside ``<details>`` opens it)."""
    items = "".join(f'<dt id="{TERM_ANCHOR}{w}">{html.escape(w)}</dt><dd>{html.escape(GLOSSARY[w])}</dd>'
                    for w in words)
    if heading:
        return f'<details class="pe-terms"><summary>{html.escape(heading)}</summary><dl>{items}</dl></details>'
    return f'<section class="pe-terms"><dl>{items}</dl></section>'


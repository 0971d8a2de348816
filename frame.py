"""The page frame: the page list, the running example, URL-bound controls, and the parts every page shares
(title and claim, checks, show-the-code, predict-then-reveal, link to this view, bridge).

Streamlit lives here and in the page scripts; the math lives in ``posenc`` (imports point down only).
Student text never goes through Markdown: it is shown with ``st.text``/``st.code`` or in dataframes.
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence
from urllib.parse import urlencode

import streamlit as st

import posenc

ROOT = Path(__file__).parent
DEFAULT_SENTENCE = "The cat chased the mouse"
DEFAULT_D = 64
D_MAX = 512
MAX_CHARS = 2000
# Query parameters Streamlit itself may put in a URL.
STREAMLIT_PARAMS = {"embed", "embed_options"}


@dataclass(frozen=True)
class PageInfo:
    section: str
    path: str
    title: str
    icon: str
    url_path: str
    blurb: str


PAGES: list[PageInfo] = [
    PageInfo("Home", "lessons/home.py", "Home", ":material/home:", "",
             "What the app is and how to use it in class."),
    PageInfo("Why order is lost", "lessons/scramble.py", "The sentence scramble", ":material/shuffle:",
             "scramble", "Without positions, attention cannot tell “the cat chased the mouse” from its scramble."),
    PageInfo("Fixes that fail", "lessons/fixes.py", "Obvious fixes that fail", ":material/build:",
             "fixes", "The raw index, index ÷ length, multiplying, one-hot — and how each breaks."),
    PageInfo("Vectors per position", "lessons/learned.py", "A learned table", ":material/table_rows:",
             "learned", "One trained vector per position: no row past N_max, rows that don't know their neighbours."),
    PageInfo("Vectors per position", "lessons/binary.py", "Binary codes", ":material/counter_1:",
             "binary", "Bits that flip at rates 1, 2, 4, …: compact, but 7 and 8 are strangers."),
    PageInfo("Rotations", "lessons/sinusoids.py", "Sinusoids", ":material/waves:",
             "sinusoids", "Smooth bits: any position on demand, and a shift is a rotation."),
    PageInfo("Rotations", "lessons/rope.py", "RoPE", ":material/rotate_right:",
             "rope", "Rotate q and k: the score depends on the gap alone."),
    PageInfo("Rotations", "lessons/explains.py", "What this finally explains", ":material/lightbulb:",
             "explains", "The two “the”s and the scrambled sentence, resolved."),
    PageInfo("Beyond", "lessons/stretch.py", "Stretching the context", ":material/open_in_full:",
             "stretch", "PI, NTK, YaRN, ALiBi, long-term decay and precision."),
]


def existing_pages() -> list[PageInfo]:
    """The pages whose scripts exist (the navigation lists only those)."""
    return [p for p in PAGES if (ROOT / p.path).exists()]


def next_page(path: str) -> PageInfo | None:
    pages = existing_pages()
    for i, p in enumerate(pages):
        if p.path == path and i + 1 < len(pages):
            return pages[i + 1]
    return None


# ---------------------------------------------------------------- URL-bound controls
def _registry() -> dict[str, Any]:
    return st.session_state.setdefault("_frame_url_keys", {})


def begin_run() -> None:
    """Called by app.py at the start of every run: forget last run's bound keys and notices."""
    st.session_state["_frame_url_keys"] = {}


def _url_value(key: str, parse: Callable[[str], Any], default: Any, explain: str) -> None:
    """Initialise ``st.session_state[key]`` from the URL, clamped/validated by ``parse``.

    ``parse`` returns the value to use, or raises ValueError. A bad value gives a short notice
    (the raw URL text is never echoed as Markdown).
    """
    _registry()[key] = default
    if key in st.session_state:
        return
    raw = st.query_params.get_all(key)
    if not raw:
        return
    try:
        value = parse(raw[-1])
    except (ValueError, TypeError, OverflowError):
        value = default
        st.warning(f"The link's value for “{key}” was not usable; using {default}. {explain}",
                   icon=":material/link_off:")
    else:
        if len(raw) > 1:
            st.info(f"The link gave “{key}” {len(raw)} times; using the last.", icon=":material/link:")
        if value != _try(parse, raw[-1], strict=True):
            shown = f"its first {len(value)} characters" if isinstance(value, str) else value
            st.info(f"The link's value for “{key}” was outside its range; using {shown}. {explain}",
                    icon=":material/link:")
    st.session_state[key] = value
    _seed_url(key, value)


def _seed_url(key: str, value: Any) -> None:
    """Make Streamlit's own URL seeding of the bound widget agree with the frame's clean value.

    Streamlit seeds a ``bind="query-params"`` widget from the link on the first run and overrides
    ``st.session_state`` when it does (``?i=2.5`` → 2 on an int slider while the notice said 5), and it lets an
    OverflowError escape for ``?d=inf`` on an int number_input. So the frame hands it the value it chose.
    """
    from streamlit.runtime.state import get_session_state

    text = str(value).lower() if isinstance(value, bool) else str(value)
    with get_session_state().query_params() as qp:
        initial = getattr(qp, "_initial_query_params", None)  # private: tests/test_frame.py guards it
        if initial is not None and key in initial:
            initial[key] = [text]


def _try(parse: Callable[[str], Any], raw: str, strict: bool) -> Any:
    try:
        return parse(raw, strict=strict)  # type: ignore[call-arg]
    except TypeError:
        return parse(raw)
    except (ValueError, OverflowError):
        return None


def _int_parser(lo: int, hi: int) -> Callable[..., int]:
    def parse(raw: str, strict: bool = False) -> int:
        x = float(raw)
        if not math.isfinite(x) or x != int(x):
            raise ValueError(raw)
        v = int(x)
        return v if strict else min(max(v, lo), hi)
    return parse


def _float_parser(lo: float, hi: float) -> Callable[..., float]:
    def parse(raw: str, strict: bool = False) -> float:
        x = float(raw)
        if not math.isfinite(x):
            raise ValueError(raw)
        return x if strict else min(max(x, lo), hi)
    return parse


def slider(label: str, key: str, lo: int | float, hi: int | float, default: int | float, *,
           step: int | float | None = None, help: str | None = None, where: Any = None) -> Any:
    """A slider bound to the URL (?key=value); a bad or out-of-range URL value is clamped with a notice."""
    where = where or st
    parse = _int_parser(lo, hi) if isinstance(default, int) else _float_parser(lo, hi)
    with where.container():
        _url_value(key, parse, default, f"Allowed: {lo} to {hi}.")
        kwargs = {} if key in st.session_state else {"value": default}
        return where.slider(label, lo, hi, step=step, key=key, bind="query-params", help=help, **kwargs)


def number(label: str, key: str, lo: int | float, hi: int | float, default: int | float, *,
           step: int | float | None = None, help: str | None = None, where: Any = None) -> Any:
    """A number input bound to the URL; bad or out-of-range URL values are clamped with a notice."""
    where = where or st
    parse = _int_parser(lo, hi) if isinstance(default, int) else _float_parser(lo, hi)
    with where.container():
        _url_value(key, parse, default, f"Allowed: {lo} to {hi}.")
        kwargs = {} if key in st.session_state else {"value": default}
        return where.number_input(label, lo, hi, step=step, key=key, bind="query-params", help=help,
                                  **kwargs)


def select(label: str, key: str, options: Sequence[Any], default: Any, *, help: str | None = None,
           where: Any = None, horizontal: bool = True, kind: str = "radio") -> Any:
    """A radio or select box bound to the URL; an unknown URL value falls back to the default."""
    where = where or st
    by_text = {str(o): o for o in options}

    def parse(raw: str, strict: bool = False) -> Any:
        if raw not in by_text:
            raise ValueError(raw)
        return by_text[raw]

    with where.container():
        _url_value(key, parse, default, "")
        kwargs = {} if key in st.session_state else {"index": list(options).index(default)}
        if kind == "radio":
            return where.radio(label, options, key=key, bind="query-params", help=help,
                               horizontal=horizontal, **kwargs)
        if kind == "select_slider":
            kwargs = {} if key in st.session_state else {"value": default}
            return where.select_slider(label, options, key=key, bind="query-params", help=help, **kwargs)
        return where.selectbox(label, options, key=key, bind="query-params", help=help, **kwargs)


def toggle(label: str, key: str, default: bool = False, *, help: str | None = None,
           where: Any = None) -> bool:
    """A toggle bound to the URL (?key=true/false)."""
    where = where or st

    def parse(raw: str, strict: bool = False) -> bool:
        low = raw.strip().lower()
        if low in {"true", "1", "yes", "on"}:
            return True
        if low in {"false", "0", "no", "off"}:
            return False
        raise ValueError(raw)

    with where.container():
        _url_value(key, parse, default, "Use true or false.")
        kwargs = {} if key in st.session_state else {"value": default}
        return where.toggle(label, key=key, bind="query-params", help=help, **kwargs)


def text(label: str, key: str, default: str, *, max_chars: int = MAX_CHARS, help: str | None = None,
         where: Any = None) -> str:
    """A text box bound to the URL; text longer than ``max_chars`` is cut with a notice."""
    where = where or st

    def parse(raw: str, strict: bool = False) -> str:
        return raw if strict else raw[:max_chars]

    with where.container():
        _url_value(key, parse, default, f"At most {max_chars} characters.")
        kwargs = {} if key in st.session_state else {"value": default}
        value = where.text_input(label, key=key, bind="query-params", max_chars=max_chars, help=help,
                                 **kwargs)
    if value is not None and len(value) > max_chars:
        where.warning(f"Only the first {max_chars} characters are used.")
        value = value[:max_chars]
    return value or ""


def unknown_params_notice() -> None:
    """After the page ran: say (once, in the sidebar) if the URL carried parameters nothing uses."""
    known = set(_registry()) | STREAMLIT_PARAMS
    unknown = [k for k in st.query_params.keys() if k not in known]
    if unknown:
        st.sidebar.caption(f"The link had {len(unknown)} parameter(s) this page does not use; ignored.")


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
                    help="Any sentence, up to 64 words. The first word is position 1.")
    d = number("Model width d", "d", 2, D_MAX, DEFAULT_D, step=2, where=sb,
               help="Width of the word vectors and of q, k, v.")
    seed = number("Seed", "seed", 0, 9999, 0, where=sb,
                  help="Draws the random word vectors and projection matrices.")
    return Example(sentence, int(d), int(seed))


def example() -> Example:
    """The running example as the sidebar set it in this run."""
    ss = st.session_state
    return Example(str(ss.get("sentence", DEFAULT_SENTENCE)), int(ss.get("d", DEFAULT_D)),
                   int(ss.get("seed", 0)))


def tokens_or_stop(sentence: str) -> list[str]:
    """The sentence's words, or a clear message on the page and a stop."""
    try:
        return posenc.tokenize(sentence)
    except ValueError as err:
        st.error(str(err), icon=":material/edit_note:")
        st.stop()
    raise AssertionError  # unreachable


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
    q_def, k_def = posenc.core.chapter_pair(tokens)
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


def require(condition: bool, message: str) -> None:
    """Show ``message`` and stop the page when ``condition`` fails (for values a student can reach)."""
    if not condition:
        st.error(message, icon=":material/error:")
        st.stop()


def show_words(tokens: list[str], title: str = "The sentence, word by word") -> None:
    """The words and their 1-based positions, as a dataframe (never Markdown)."""
    import pandas as pd

    st.dataframe(
        pd.DataFrame({"position": range(1, len(tokens) + 1), "word": tokens}).set_index("position").T,
        width="stretch",
    )


# ---------------------------------------------------------------- page anatomy
def header(title: str, claim: str) -> None:
    """Title and the chapter's claim in one sentence."""
    st.title(title)
    st.markdown(f"**{claim}**")


def check(label: str, value: float | str, ok: bool, detail: str = "") -> None:
    """A check a student can read: “label = value ✓/✗ detail”."""
    shown = value if isinstance(value, str) else f"{value:.2g}"
    mark = ":green[✓]" if ok else ":red[✗]"
    line = "{} {} = `{}` {}".format(mark, label, shown, detail)
    st.markdown(line)


def formula(*latex: str) -> None:
    for expr in latex:
        st.latex(expr)


@functools.lru_cache(maxsize=256)
def _source(fn: Callable[..., Any]) -> str:
    return inspect.getsource(fn)


def show_code(*functions: Callable[..., Any]) -> None:
    """An expander with the source of the ``posenc`` functions that just ran."""
    with st.expander("Show the code", icon=":material/code:"):
        for fn in functions:
            st.caption(f"{fn.__module__}.{fn.__qualname__}")
            st.code(_source(fn), language="python")


def predict(question: str, options: list[str], correct: int, explanation: str, key: str) -> None:
    """One predict-then-reveal question: pick an answer, then reveal it."""
    with st.container(border=True):
        st.markdown(f"**Predict, then reveal.** {question}")
        choice = st.radio("Your prediction", options, index=None, key=f"{key}_guess",
                          label_visibility="collapsed")
        if st.toggle("Reveal the answer", key=f"{key}_reveal"):
            if choice is None:
                st.info("Pick a prediction first: it sticks better.")
            elif options.index(choice) == correct:
                st.success("Right.")
            else:
                st.warning(f"Not quite: the answer is “{options[correct]}”.")
            st.markdown(explanation)


def share_link(path: str) -> None:
    """“Link to this view”: the page's address with every non-default control in the query string."""
    info = next((p for p in PAGES if p.path == path), None)
    params = {}
    for key, default in _registry().items():
        value = st.session_state.get(key, default)
        if value != default:
            params[key] = str(value).lower() if isinstance(value, bool) else str(value)
    base = ""
    url = getattr(st.context, "url", None)
    if url:
        base = url.split("?")[0].rsplit("/", 1)[0] if info and info.url_path else url.split("?")[0].rstrip("/")
    link = f"{base}/{info.url_path if info else ''}"
    if params:
        link += "?" + urlencode(params)
    with st.popover("Link to this view", icon=":material/link:"):
        st.caption("Share this address: it opens the page exactly as it is now.")
        st.code(link, language=None)


def bridge(path: str, text_: str) -> None:
    """The bridge to the next page."""
    st.divider()
    nxt = next_page(path)
    st.markdown(text_)
    if nxt:
        st.page_link(nxt.path, label=f"Next: {nxt.title}", icon=":material/arrow_forward:")

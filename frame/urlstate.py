"""URL-bound controls: every control's value lives in the page's address (``bind="query-params"``), so a
shared link reopens the same view. A value the page cannot use (garbage, out of range, repeated) is clamped or
replaced by the default with a short notice; the raw URL text is never echoed as Markdown.

The one private Streamlit use of the app is quarantined in ``_seed_url`` (tests/test_frame.py fails when an
upgrade removes it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

MAX_CHARS = 2000
# Query parameters Streamlit itself may put in a URL.
STREAMLIT_PARAMS = {"embed", "embed_options"}
TRUE = {"true", "1", "yes", "on"}
FALSE = {"false", "0", "no", "off"}


def _registry() -> dict[str, Any]:
    return st.session_state.setdefault("_frame_url_keys", {})


def begin_run() -> None:
    """Called by app.py at the start of every full run: forget last run's bound keys and notices; count the run
    for the presentation toggle (``frame.live.begin_run``)."""
    from .live import begin_run as count_run

    st.session_state["_frame_url_keys"] = {}
    count_run()


def _url_value(key: str, parse: Callable[[str], Any], default: Any, explain: str, where: Any = st) -> None:
    """Initialise ``st.session_state[key]`` from the URL, clamped/validated by ``parse``.

    ``parse`` returns the value to use, or raises ValueError. A bad value gives a short notice in ``where``, just
    above its control, on the run that opened the link (the raw URL text is never echoed as Markdown). No
    container holds the two: every element is a message on every run, and the notice is drawn once."""
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
        where.warning(f"The link's value for “{key}” was not usable; using {default}. {explain}",
                      icon=":material/link_off:")
    else:
        if len(raw) > 1:
            where.info(f"The link gave “{key}” {len(raw)} times; using the last.", icon=":material/link:")
        if value != _try(parse, raw[-1], strict=True):
            shown = f"its first {len(value)} characters" if isinstance(value, str) else value
            where.info(f"The link's value for “{key}” was outside its range; using {shown}. {explain}",
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
    return _numeric("slider", label, key, lo, hi, default, step, help, where)


def number(label: str, key: str, lo: int | float, hi: int | float, default: int | float, *,
           step: int | float | None = None, help: str | None = None, where: Any = None) -> Any:
    """A number input bound to the URL; bad or out-of-range URL values are clamped with a notice."""
    return _numeric("number_input", label, key, lo, hi, default, step, help, where)


def _numeric(widget: str, label: str, key: str, lo: int | float, hi: int | float, default: int | float,
             step: int | float | None, help: str | None, where: Any) -> Any:
    where = where or st
    parse = _int_parser(lo, hi) if isinstance(default, int) else _float_parser(lo, hi)
    _url_value(key, parse, default, f"Allowed: {lo} to {hi}.", where)
    kwargs = {} if key in st.session_state else {"value": default}
    return getattr(where, widget)(label, lo, hi, step=step, key=key, bind="query-params", help=help, **kwargs)


def select(label: str, key: str, options: Sequence[Any], default: Any, *, help: str | None = None,
           where: Any = None, horizontal: bool = True, kind: str = "radio") -> Any:
    """A radio or select box bound to the URL; an unknown URL value falls back to the default."""
    where = where or st
    by_text = {str(o): o for o in options}

    def parse(raw: str, strict: bool = False) -> Any:
        if raw not in by_text:
            raise ValueError(raw)
        return by_text[raw]

    _url_value(key, parse, default, "", where)
    kwargs = {} if key in st.session_state else {"index": list(options).index(default)}
    if kind == "radio":
        return where.radio(label, options, key=key, bind="query-params", help=help, horizontal=horizontal, **kwargs)
    if kind == "select_slider":
        kwargs = {} if key in st.session_state else {"value": default}
        return where.select_slider(label, options, key=key, bind="query-params", help=help, **kwargs)
    return where.selectbox(label, options, key=key, bind="query-params", help=help, **kwargs)


def toggle(label: str, key: str, default: bool = False, *, help: str | None = None,
           where: Any = None) -> bool:
    """A toggle bound to the URL (?key=true/false)."""
    where = where or st
    _url_value(key, _parse_bool, default, "Use true or false.", where)
    kwargs = {} if key in st.session_state else {"value": default}
    return where.toggle(label, key=key, bind="query-params", help=help, **kwargs)


def text(label: str, key: str, default: str, *, max_chars: int = MAX_CHARS, help: str | None = None,
         where: Any = None) -> str:
    """A text box bound to the URL; text longer than ``max_chars`` is cut with a notice."""
    where = where or st

    def parse(raw: str, strict: bool = False) -> str:
        return raw if strict else raw[:max_chars]

    _url_value(key, parse, default, f"At most {max_chars} characters.", where)
    kwargs = {} if key in st.session_state else {"value": default}
    value = where.text_input(label, key=key, bind="query-params", max_chars=max_chars, help=help, **kwargs)
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


def flag_in_address(key: str) -> bool:
    """Does the address say ``key`` is on (?key=1, true, yes, on)? For what must be known before any control is
    drawn (the page config of presentation mode)."""
    return st.query_params.get(key, "").strip().lower() in TRUE


def _parse_bool(raw: str, strict: bool = False) -> bool:
    low = raw.strip().lower()
    if low in TRUE:
        return True
    if low in FALSE:
        return False
    raise ValueError(raw)


def _same_block(key: str, default: Any) -> None:
    """A block bound to the URL (tabs, an expander) starts from session state, never from a default argument: a
    default given on the first run only changes the block between the first run and the next, and the browser
    then draws everything inside it anew (every chart in a tab was rebuilt at the first rerun of a page)."""
    if key not in st.session_state:
        st.session_state[key] = default


def tabs(labels: Sequence[str], key: str) -> Sequence[Any]:
    """``st.tabs`` bound to the URL (?key=<label>): a shared link reopens the same tab. An unknown label in a
    link falls back to the first tab with a notice."""
    labels = list(labels)

    def parse(raw: str, strict: bool = False) -> str:
        if raw not in labels:
            raise ValueError(raw)
        return raw

    _url_value(key, parse, labels[0], "")
    _same_block(key, labels[0])
    return st.tabs(labels, key=key, bind="query-params")


def expander(label: str, key: str, *, icon: str | None = None):
    """``st.expander`` bound to the URL (?key=true when open): a shared link reopens it."""
    _url_value(key, _parse_bool, False, "Use true or false.")
    _same_block(key, False)
    return st.expander(label, key=key, bind="query-params", icon=icon)

"""Charts in the page: drawing a figure (``chart``), and the one small in-page component (st.components.v2,
JavaScript in the page itself, no iframe: ``frame/live.js``) that keeps in-chart controls in the address, drives
play buttons and shows on a tap what a hover shows.

How a page uses it
------------------
In-chart controls. A control whose chart is a closed form of a few parameters is a Vega-Lite *variable* param
bound to an input, built in the chart's ``@layout``::

    pos = alt.param(name="sn_pos", value=0,
                    bind=alt.binding_range(min=0, max=63, step=1, name="position "))

- The param's NAME is its address key (``?sn_pos=33``): unique on the page and carrying the page's key prefix
  (``sn_pos``, ``rp_m``, ``bn_smooth``). Never a Streamlit control's key, never ``present``/``embed``:
  ``chart`` raises ValueError when a name is already another control's address key in this run.
- Inputs: ``binding_range`` (a number, within min … max, snapped to step), ``binding_radio`` /
  ``binding_select`` (one of the options), ``binding_checkbox`` (true/false). Other inputs are mirrored
  into the address but not seeded from it. A *selection* param bound to an input is not supported (its input
  is named after the param and its field): use a variable param.
- ``frame.chart(fig)`` then (server side) seeds each bound param's ``value`` from the address when the link
  carries a valid value, so a fresh browser draws the linked state on first paint; a bad value gives the
  default and a short notice, never a traceback. Every bound name counts as a known URL parameter.
- In the page, ``live.js`` writes ``?name=value`` into the address (``history.replaceState``: no rerun, every
  other parameter kept) as the student moves the input, and restores the value from the address when a rerun
  redraws the chart.

Play. ``frame.chart(fig, play="sn_pos")`` puts a Play/Pause button (a real ``<button>``, keyboard reachable,
``aria-pressed``) beside the chart's bound range input ``sn_pos``: it sweeps the input from min to max and
loops (one sweep takes ``PLAY_SECONDS``, whatever the number of steps), setting ``input.value`` and
dispatching ``input`` on ``requestAnimationFrame``: the chart redraws in the browser, the script never reruns.
The address is written when the student pauses (not on every frame). Touching the slider pauses. Under
``prefers-reduced-motion: reduce`` it never animates continuously: while pressed it jumps once a second, a sweep in
``REDUCED_STOPS`` jumps (one slider step a second made a 4,000-step sweep last an hour: nothing seemed to move).
``play`` must name a bound range param of ``fig`` (else ``ValueError``: a page's mistake, caught by its tests).
A chart slower than a frame skips values rather than queue redraws (the sweep keeps its pace). Several play
buttons on one page are independent (one per chart).

Tap to read: on a touch screen a tap on a mark shows the tooltip a hover shows (nothing to do in the page:
give the marks a ``tooltip``). In-chart inputs are at least 24 px on a phone (``frame.theme``).

Class mode (``frame.classroom``): in a class link the page part is given the student's anonymous id, which
``live.js`` keeps in a session cookie (``pe_student``: no expiry, so it goes when the browser closes;
``SameSite=Lax``, ``path=/``), so a reload or a reconnect to another app process is the same student; the server
reads it back through ``st.context.cookies`` and uses it only when it has the form of an id it makes.

Besides, the component keeps focus where the student is (after Show data, fullscreen and its
exit focus returns to the control that caused it, never ``<body>``), makes code blocks keyboard-scrollable,
hides decorative icons from screen readers and takes the collapsed sidebar out of the Tab order: the parts of
Streamlit's own chrome that fail WCAG 2.1 AA, worked around here (tests/test_browser_live.py fails when an
upgrade fixes them, so the work-arounds can go).

A chart's reading (``Figure.reading``, this setting's numbers) is set right after it as visually hidden text
(``reading_html``), and ``opening(spec)`` tells a page where a chart's in-chart params open (the address's value
when usable), for prose and checks that speak of that state. Presentation mode is decided in the browser: every
chart's text sizes and height cap follow a param bound to the document's root element (``spec.PRESENT_BIND``),
and the page's presentation style its ``data-pe-present``: ``live.js`` sets both from the toggle's mount
(``presentation_toggle``), so a press rebuilds no chart and reruns only the toggle (or, for a page that draws
something else projected, the page).

``mount()`` is called once per run by app.py (and by tests/live_app.py).
"""

from __future__ import annotations

import copy
import html
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import streamlit as st

from posenc.charts.spec import PRESENT_EVENT, Figure

PRESENT_MAX_HEIGHT = 250  # presentation mode: the lead and the key chart share one 1280×720 screen at 150 %
PLAY_SECONDS = 4.0  # one sweep of a play button, min → max (the issue asks for 3–6 s)
REDUCED_STEP_SECONDS = 1.0  # under prefers-reduced-motion: one jump a second while playing …
REDUCED_STOPS = 12  # … a sweep in 12 jumps (or one slider step a jump, when the slider has fewer steps)
TRUE = {"true", "1", "yes", "on"}
FALSE = {"false", "0", "no", "off"}
SEEDED = ("range", "radio", "select", "checkbox")  # the inputs seeded from the address
RESERVED = {"present", "embed", "embed_options"}  # address keys that are never an in-chart control's

_JS = (Path(__file__).with_name("live.js")).read_text(encoding="utf-8")
_COMPONENT = st.components.v2.component("posenc_live", js=_JS, isolate_styles=False)
MOUNT_KEY = "pe_live"


PRESENT_KEY = "present"  # the sidebar toggle's key, and the address's ?present=1
PRESENT_MOUNT_KEY = "pe_present"  # the component's mount that hands the mode to the browser
_PAGE = "_pe_page"  # the page this run draws (its url path)
PRESENT_READERS = "_pe_present_readers"  # pages whose script asked presenting(): they draw something else projected
_RUNS = "_pe_full_runs"  # full runs of this session (begin_run counts them)
_SEEN = "_pe_present_seen"  # the full run the toggle was last drawn in


def projecting() -> bool:
    """Presentation mode (?present=1, or the sidebar's toggle), for the frame's own use."""
    return bool(st.session_state.get(PRESENT_KEY, False))


def presenting() -> bool:
    """Presentation mode, for a page that draws something else while projecting (a control moved, another
    layout): asking marks the page, so that the toggle runs the whole page again (``presentation_toggle``)."""
    st.session_state.setdefault(PRESENT_READERS, set()).add(st.session_state.get(_PAGE))
    return projecting()


SHOWN_WHEN = {False: "pe-screen-only-", True: "pe-projected-only-"}  # the keys' prefixes frame/theme.py hides by


def shown_when(projected: bool, key: str):
    """A container shown only while projecting (``projected``) or only on a screen. Both are drawn in either
    mode and the page's style hides one (``frame/theme.py``: the root's ``data-pe-present``), so a page that only
    moves a line of text for the projector need not ask ``presenting()``, and its presentation toggle stays a
    fragment. What is hidden is out of the page for a screen reader too (``display: none``)."""
    return st.container(key=SHOWN_WHEN[projected] + key)


def begin_run() -> None:
    """Called at the start of every full run (``frame.begin_run``)."""
    st.session_state[_RUNS] = st.session_state.get(_RUNS, 0) + 1


def presentation_toggle(page: str, label: str, help: str) -> None:
    """The sidebar's presentation toggle, for ``page`` (its url path; call it inside ``st.sidebar``). Charts and
    the page's style follow the mode in the browser (``live.js``: every chart's param, the root's
    ``data-pe-present``), so on most pages the toggle is a fragment: a press reruns only it, which hands the
    mode to the browser and folds the sidebar. A page whose script asked ``presenting()`` draws something else
    projected: there the toggle is a plain widget and a press reruns the page (the first press after the page
    was first drawn finds out, and reruns it)."""
    st.session_state[_PAGE] = page
    if page in st.session_state.get(PRESENT_READERS, ()):
        _toggle(label, help)
    else:
        _toggle_alone(label, help)


def _toggle(label: str, help: str) -> None:
    from .urlstate import toggle

    toggle(label, PRESENT_KEY, False, help=help)
    runs = st.session_state.get(_RUNS, 0)
    if st.session_state.get(_SEEN) == runs:  # a press, and this fragment alone is running
        if st.session_state[_PAGE] in st.session_state.get(PRESENT_READERS, ()):
            st.rerun(scope="app")
        st.set_page_config(initial_sidebar_state="collapsed" if projecting() else "auto")
    st.session_state[_SEEN] = runs
    _COMPONENT(key=PRESENT_MOUNT_KEY, height="content",
               data={"role": "present", "present": "1" if projecting() else "", "present_event": PRESENT_EVENT})


_toggle_alone = st.fragment(_toggle)


def mount() -> None:
    """The page-wide part of the component (address ↔ in-chart inputs, tap to read, focus, sidebar): once per
    run, in the sidebar, where its empty element never moves the page (``frame.theme`` hides it)."""
    from .classroom import COOKIE, cookie_student

    data: dict[str, Any] = {"role": "page", "play_seconds": PLAY_SECONDS,
                            "reduced_step_seconds": REDUCED_STEP_SECONDS, "reduced_stops": REDUCED_STOPS}
    student = cookie_student()
    if student:  # class mode: the browser keeps the anonymous student id for its next session
        data |= {"cookie": COOKIE, "student": student}
    with st.sidebar:
        _COMPONENT(key=MOUNT_KEY, data=data, height="content")


def chart(fig: Figure, *, play: str | None = None) -> None:
    """Draw a finished figure (``posenc.charts.spec.figure``): full width of its column, large text and a
    capped height in presentation mode (decided in the browser: the spec is the same in both); its reading (this setting's numbers) right after it, for screen readers. Bound params are seeded from the address (see the module's docstring);
    ``play`` names a bound range param to get a Play button."""
    spec = seed(fig.to_vega_lite(max_height=PRESENT_MAX_HEIGHT))
    if play is not None:
        param = next((p for p in bound_params(spec) if p["name"] == play), None)
        if param is None or param["bind"].get("input") != "range":
            raise ValueError(f"play={play!r}: the figure has no range input bound to a param of that name")
    st.vega_lite_chart(spec, width="stretch")
    if fig.reading:  # this setting's numbers, for screen readers, right after the chart (see ``reading_html``)
        st.html(reading_html(fig.reading))
    if play is not None:
        _COMPONENT(key=f"pe_play_{play}", data={"role": "play", "play": play}, height="content")


def reading_html(reading: str) -> str:
    """A figure's reading as our markup: escaped text (a reading may quote the student's sentence), never
    Markdown; visually hidden and out of the page's flow (``frame.theme``), read out after the chart's name.
    The description stays fixed while the reading changes, so the browser keeps the chart and swaps its data."""
    return f'<p class="pe-reading">{html.escape(reading, quote=False)}</p>'


# ---------------------------------------------------------------- bound params and the address
def bound_params(spec: dict) -> list[dict]:
    """Every variable param of ``spec`` (at any depth: layers, concats) bound to an input, in spec order."""
    return list(_bound(spec))


def _bound(node: Any) -> Iterator[dict]:
    if isinstance(node, dict):
        for p in node.get("params") or ():
            if (isinstance(p, dict) and p.get("name") and "select" not in p
                    and isinstance(p.get("bind"), dict) and "input" in p["bind"]):
                yield p
        for key, value in node.items():
            if key not in ("params", "datasets", "data"):
                yield from _bound(value)
    elif isinstance(node, list):
        for value in node:
            yield from _bound(value)


def js_text(x: Any) -> str:
    """How the browser writes an option or a number as text (``String(x)`` in JavaScript): 1.0 → "1"."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float) and math.isfinite(x) and x == int(x) and abs(x) < 1e21:
        return str(int(x))
    return str(x)


def parse(bind: dict, raw: str) -> Any:
    """The value an address's text ``raw`` gives a param bound by ``bind``; ValueError when the page cannot use
    it (a range's number outside min … max or not a number, an option not offered, a checkbox not true/false).
    A range's number is snapped to its step as the browser's slider does it (a value halfway between two
    steps goes to the upper one)."""
    kind = bind.get("input")
    raw = raw.strip()
    if kind == "range":
        x = float(raw)
        lo, hi, step = bind.get("min", 0), bind.get("max", 100), bind.get("step")
        if not math.isfinite(x) or x < lo or x > hi:
            raise ValueError(raw)
        if step:
            k = math.floor((x - lo) / step + 0.5)  # a tie goes up, as the browser's range input rounds it
            x = lo + k * step
            if x > hi + 1e-9 * abs(step):
                x -= step
            x = round(x, 12)
        whole = all(float(v) == int(v) for v in (lo, step or 1)) and x == int(x)
        return int(x) if whole else x
    if kind in ("radio", "select"):
        for option in bind.get("options") or ():
            if raw == js_text(option):
                return option
        raise ValueError(raw)
    if kind == "checkbox":
        if raw.lower() in TRUE:
            return True
        if raw.lower() in FALSE:
            return False
        raise ValueError(raw)
    raise ValueError(f"{kind} inputs are not seeded from the address")


_UNLINKED = object()  # the address carries no value for a param (or its input is not seeded from it)


def _linked(p: dict) -> Any:
    """The address's value for the bound param ``p`` (``parse``), ``_UNLINKED`` when it carries none; ValueError
    when it carries one the page cannot use."""
    raw = st.query_params.get_all(p["name"])
    if not raw or p["bind"].get("input") not in SEEDED:
        return _UNLINKED
    try:
        return parse(p["bind"], raw[-1])
    except (TypeError, OverflowError) as err:
        raise ValueError(raw[-1]) from err


def opening(spec: dict) -> dict[str, Any]:
    """The value each bound param of ``spec`` (a figure's or a layout's) opens at, by name: the address's when
    usable, as ``chart`` seeds it, else the spec's own. For a page's prose and checks that speak of the chart's
    opening state (a link may open it elsewhere)."""
    out = {}
    for p in bound_params(spec):
        try:
            value = _linked(p)
        except ValueError:
            value = _UNLINKED
        out[p["name"]] = p.get("value") if value is _UNLINKED else value
    return out


def seed(spec: dict) -> dict:
    """``spec`` with each bound param's value taken from the address when the link carries a usable one (a
    copy; the figure's own spec is left alone). Registers every bound name as a known URL parameter; a value
    the page cannot use gives the default and a short notice."""
    from .urlstate import _registry

    params = bound_params(spec)
    if not params:
        return spec
    registry = _registry()
    ours = st.session_state.setdefault("_frame_live_names", set())
    wanted: dict[str, Any] = {}
    for p in params:
        name = p["name"]
        if name in RESERVED or (name in registry and name not in ours):
            raise ValueError(f"the in-chart control “{name}” has the address key of another control: rename it "
                             "(page prefix + what it sets, e.g. sn_pos)")
        ours.add(name)
        registry[name] = p.get("value")
        try:
            value = _linked(p)
        except ValueError:
            shown = js_text(p.get("value")) if p.get("value") is not None else "the chart's default"
            st.warning(f"The link's value for “{name}” was not usable; using {shown}.", icon=":material/link_off:")
            continue
        if value is not _UNLINKED and value != p.get("value"):
            wanted[name] = value
    if not wanted:
        return spec
    datasets = spec.get("datasets")
    out = copy.deepcopy({k: v for k, v in spec.items() if k != "datasets"})
    if datasets is not None:
        out["datasets"] = datasets
    for p in bound_params(out):
        if p["name"] in wanted:
            p["value"] = wanted[p["name"]]
    return out

"""A real Streamlit session over the websocket, without a browser (the load test, the class scenario and the
per-control benchmark drive it). Like the browser it sends ``BackMsg.rerun_script`` (the changed widget's value, and
its ``fragment_id`` inside an ``st.fragment``) and reads ``ForwardMsg``s up to ``script_finished``; it lists the
cached elements it holds (so the bytes received are a browser's), tracks every widget the page draws and follows
``auto_rerun`` requests (``st.fragment(run_every=…)``).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

FINISHED_EARLY_FOR_RERUN = ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN
FINISHED_WITH_COMPILE_ERROR = ForwardMsg.ScriptFinishedStatus.FINISHED_WITH_COMPILE_ERROR
FINISHED_FRAGMENT = ForwardMsg.ScriptFinishedStatus.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
MAIN, SIDEBAR = 0, 1
SLIDER_TYPE_SELECT = 2
SLIDER_NUMERIC = (0, 1)  # Slider.DataType INT, FLOAT (not dates or times)
CACHE_RUNS = 2  # the browser keeps cached elements seen in its last runs; hashes of this many runs are sent
TEXT_SUFFIX = " again"
# The WidgetState field each kind's value is sent in (an integer number input's: int_value)
STATE_FIELD = {"slider": "double_array_value", "select_slider": "string_array_value", "pills": "string_array_value",
               "number": "double_value", "radio": "string_value", "selectbox": "string_value", "text": "string_value",
               "checkbox": "bool_value", "toggle": "bool_value"}


@dataclass
class Control:
    """A widget the session can change: ``kind`` "slider" (one numeric thumb), "number", "select_slider",
    "radio", "selectbox", "checkbox", "toggle", "text" or "pills"; ``value`` as the protocol carries it."""

    kind: str
    id: str
    label: str
    lo: float = 0.0
    hi: float = 0.0
    step: float = 0.0
    value: Any = None
    options: list[str] = field(default_factory=list)
    root: int = MAIN  # MAIN or SIDEBAR
    fragment_id: str = ""  # the st.fragment the widget is drawn in ("" = the page)
    integer: bool = False
    first_value: Any = None
    forced: bool = False  # the last proto carried a value the server set (set_value)

    @property
    def where(self) -> str:
        return "sidebar" if self.root == SIDEBAR else "main"

    def moved(self, up: bool = True) -> Any:
        """The value one step on (a student's key press or click): ±step, or the next/previous option (the other
        way at an end), the other state of a switch, the text with or without a word added."""
        if self.kind in ("checkbox", "toggle"):
            return not self.value
        if self.kind == "text":
            base = self.first_value or ""
            return base if self.value != base else base + TEXT_SUFFIX
        at = (self.options.index(self.value) if self.value in self.options else 0) if self.options else self.value
        step = self.step if up else -self.step  # options: lo, hi, step are 0, the last index, 1
        nv = min(max(at + step if self.lo <= at + step <= self.hi else at - step, self.lo), self.hi)
        return self.options[int(nv)] if self.options else round(nv) if self.integer else nv

    def state(self, value: Any) -> WidgetState:
        ws = WidgetState(id=self.id)
        name = STATE_FIELD[self.kind]
        if name.endswith("_array_value"):
            getattr(ws, name).data.append(value)
        elif self.kind == "number" and self.integer:
            ws.int_value = int(value)
        else:
            setattr(ws, name, bool(value) if name == "bool_value" else value)
        return ws


WIDGETS = ("slider", "number_input", "radio", "selectbox", "checkbox", "text_input", "button_group")


def control_from(el: Any, root: int, fragment_id: str) -> Control | None:
    """A Control from a ``new_element`` proto, or None when it is not a widget the session can change."""
    et = el.WhichOneof("type")
    w = getattr(el, et) if et in WIDGETS else None
    c = None if w is None or w.disabled else _control(et, w)
    if c is not None:
        c.root, c.fragment_id, c.forced = root, fragment_id, bool(getattr(w, "set_value", False))
    return c


def _control(et: str, w: Any) -> Control | None:
    if et == "slider":
        values = list(w.value) if w.set_value else list(w.default)
        if len(values) != 1:
            return None
        if w.type == SLIDER_TYPE_SELECT and w.options:
            return Control("select_slider", w.id, w.label, 0, len(w.options) - 1, 1, w.options[int(values[0])],
                           list(w.options))
        if w.data_type not in SLIDER_NUMERIC or w.step <= 0:
            return None
        return Control("slider", w.id, w.label, w.min, w.max, w.step, values[0], integer=w.data_type == 0)
    if et == "number_input":
        value, integer = (w.value if w.set_value else w.default), w.data_type == 0
        return Control("number", w.id, w.label, w.min if w.has_min else -1e9, w.max if w.has_max else 1e9,
                       w.step or 1, int(value) if integer else value, integer=integer)
    if et in ("radio", "selectbox"):
        if not w.options:
            return None
        value = w.raw_value if w.set_value and w.HasField("raw_value") else w.options[
            w.default if 0 <= w.default < len(w.options) else 0]
        return Control(et, w.id, w.label, 0, len(w.options) - 1, 1, value, list(w.options))
    if et == "checkbox":
        return Control("toggle" if w.type == 1 else "checkbox", w.id, w.label,
                       value=bool(w.value if w.set_value else w.default))
    if et == "text_input":
        return Control("text", w.id, w.label, value=w.value if w.set_value else w.default)
    options = [o.content for o in w.options]  # button_group: pills or a segmented control, single select only
    if not options or w.click_mode != 0:
        return None
    value = w.raw_values[0] if w.set_value and list(w.raw_values) else options[w.default[0]] if list(w.default) \
        else None
    return None if value is None else Control("pills", w.id, w.label, 0, len(options) - 1, 1, value, options)


@dataclass
class Run:
    """One script run as the client saw it."""

    ms: float = 0.0
    bytes: int = 0
    fragment: bool = False  # the server said: a fragment run (FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


class SessionError(Exception):
    pass


class Session:
    """One Streamlit session showing the page at ``url_path``; ``headers`` go with the websocket upgrade request
    (e.g. HAProxy's sticky-session cookie)."""

    def __init__(self, base: str, url_path: str, timeout: float = 60.0,
                 headers: dict[str, str] | None = None, query: str = "") -> None:
        self.url = base.replace("http://", "ws://", 1).rstrip("/") + "/_stcore/stream"
        self.url_path = url_path
        self.timeout = timeout
        self.headers = headers or {}
        self.ws: Any = None
        self.query = query  # the address's query string (e.g. class=CODE), then the one the server reports
        self.autoruns: dict[str, float] = {}  # fragment id → seconds: st.fragment(run_every=…) the server asked for
        self.on_element: Any = None  # called with every new element received (e.g. to read a chart's text)
        self.page_hash = ""
        self.controls: dict[str, Control] = {}  # every changeable widget seen, by widget id, in page order
        self.order: list[str] = []  # widget ids in the order of the last full run
        self.charts: list[str] = []  # Vega-Lite specs (JSON text) of the last full run, in order
        self.exceptions: list[str] = []
        self.last = Run()
        self.server_header: str | None = None  # X-Posenc-Server of the upgrade response (deploy/haproxy.cfg)
        self._cache: dict[str, tuple[int, Any]] = {}  # hash of a cacheable element → (last run seen in, element)
        self._runs = 0
        self._inside: dict[str, set[str]] = {}  # fragment id → the fragments drawn inside it (seen in its runs)

    async def open(self, timeout: float | None = None) -> float:
        """Connect and run the page once (as a browser opening it does); returns ms to finished. ``timeout``
        (default: the session's) bounds the connection and the first run, each."""
        import websockets

        timeout = timeout or self.timeout
        self.ws = await asyncio.wait_for(websockets.connect(
            self.url, subprotocols=["streamlit"], max_size=None, open_timeout=timeout,
            additional_headers=self.headers), timeout)
        self.server_header = self.ws.response.headers.get("X-Posenc-Server")
        return await self.rerun(timeout=timeout)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    @property
    def seed(self) -> Control | None:
        """The sidebar's Seed."""
        return next((c for c in self.ordered() if c.root == SIDEBAR and c.label == "Seed"), None)

    def control(self) -> Control | None:
        """What a student would move first: the page's first slider, else the sidebar's Seed."""
        return next((c for c in self.page_controls() if c.kind == "slider"), None) or self.seed

    def ordered(self) -> list[Control]:
        """The changeable widgets of the last full run, in page order (main area first, then the sidebar)."""
        seen = [self.controls[i] for i in self.order if i in self.controls]
        return [c for c in seen if c.root == MAIN] + [c for c in seen if c.root != MAIN]

    def page_controls(self) -> list[Control]:
        """The page's own controls (main area)."""
        return [c for c in self.ordered() if c.root == MAIN]

    def _nesting(self, places: dict[str, tuple[int, ...]]) -> None:
        """Which fragments sit inside which, from where a full run drew each fragment's own container (the first
        delta a fragment sends; its other writes may go to a container outside it, e.g. a Predict's radio)."""
        for f, pf in places.items():
            self._inside.setdefault(f, set()).update(
                g for g, pg in places.items() if g != f and len(pg) > len(pf) and pg[:len(pf)] == pf)

    def _redrawn(self, fragment: str, drawn: list[str]) -> None:
        """After a run of ``fragment``: its widgets (and those of fragments drawn inside it) are the ones it drew
        this time. A widget it no longer draws is gone from the page, as in the browser (a run of a fragment the
        page no longer draws never finishes)."""
        inside = self._inside.setdefault(fragment, set())
        inside.update(self.controls[i].fragment_id for i in drawn if i in self.controls)
        region = {fragment} | inside
        kept = [i for i in self.order if i in drawn or self.controls[i].fragment_id not in region]
        self.order = kept + [i for i in drawn if i not in kept]

    async def rerun(self, change: tuple[Control, Any] | None = None, fragment: str = "", auto: bool = False,
                    timeout: float | None = None) -> float:
        """Ask for a script run (with one widget changed: in a fragment, only its fragment runs); return ms from
        the request to its end. ``self.last`` holds the run's bytes and kind."""
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.page_hash
        cs.page_name = "" if self.page_hash else self.url_path
        self._runs += 1
        self._cache = {h: seen for h, seen in self._cache.items() if seen[0] >= self._runs - CACHE_RUNS}
        cs.cached_message_hashes.extend(self._cache)
        if change is not None:
            control, value = change
            cs.widget_states.widgets.append(control.state(value))
            fragment = control.fragment_id
        cs.fragment_id = fragment
        cs.is_auto_rerun = auto
        self.exceptions = []
        self.last = Run()
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        await asyncio.wait_for(self._until_finished(fragment), timeout or self.timeout)
        self.last.ms = ms = (time.perf_counter() - t0) * 1000
        if change is not None:
            change[0].value = change[1]
        if self.exceptions:
            raise SessionError("exception on the page: " + self.exceptions[0])
        return ms

    async def _until_finished(self, fragment: str) -> None:
        order: list[str] = []
        places: dict[str, tuple[int, ...]] = {}  # fragment id → where its own container was drawn
        charts: list[str] = []
        while True:
            raw = await self.ws.recv()
            self.last.bytes += len(raw)
            fm = ForwardMsg()
            fm.ParseFromString(raw)
            kind = fm.WhichOneof("type")
            if fm.metadata.cacheable and fm.hash:
                self._cache[fm.hash] = (self._runs, fm)
            if kind == "ref_hash":
                cached = self._cache.get(fm.ref_hash, (0, None))[1]
                self._cache[fm.ref_hash] = (self._runs, cached)
                if cached is None:
                    continue
                # The element the reference stands for, drawn where the reference says.
                ref = fm
                fm = ForwardMsg()
                fm.CopyFrom(cached)
                fm.metadata.CopyFrom(ref.metadata)
                kind = fm.WhichOneof("type")
            if kind == "new_session":
                order, charts = [], []
            elif kind == "navigation":
                self.page_hash = fm.navigation.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "auto_rerun":
                self.autoruns[fm.auto_rerun.fragment_id] = fm.auto_rerun.interval
            elif kind == "stop_auto_rerun":
                for f in fm.stop_auto_rerun.fragment_ids:
                    self.autoruns.pop(f, None)
            if kind == "delta" and fm.delta.fragment_id:
                places.setdefault(fm.delta.fragment_id, tuple(fm.metadata.delta_path))
            if kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                if self.on_element is not None:
                    self.on_element(el)
                et = el.WhichOneof("type")
                root = fm.metadata.delta_path[0] if fm.metadata.delta_path else MAIN
                if et == "exception":
                    self.exceptions.append(f"{el.exception.type}: {el.exception.message}"[:200])
                elif et == "vega_lite_chart":
                    charts.append(el.vega_lite_chart.spec)
                else:
                    c = control_from(el, root, fm.delta.fragment_id)
                    if c is not None:
                        known = self.controls.get(c.id)
                        if known is None or known.kind != c.kind or known.options != c.options:
                            c.first_value = c.value
                            self.controls[c.id] = c
                        else:  # keep the value the session set; take the server's when it forces one
                            known.fragment_id, known.root, known.label = c.fragment_id, c.root, c.label
                            known.lo, known.hi, known.step = c.lo, c.hi, c.step
                            if c.forced:
                                known.value = c.value
                        order.append(c.id)
            elif kind == "script_finished":
                status = fm.script_finished
                if status == FINISHED_EARLY_FOR_RERUN:
                    continue
                if status == FINISHED_WITH_COMPILE_ERROR:
                    self.exceptions.append("the script did not compile")
                self.last.fragment = status == FINISHED_FRAGMENT
                if not fragment and not self.last.fragment:
                    self.order, self.charts = order, charts
                    self._nesting(places)
                elif fragment:
                    self._redrawn(fragment, order)
                return

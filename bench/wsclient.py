"""A real Streamlit session over the websocket, without a browser: what the load test drives by default.

It speaks Streamlit's own protocol (the protobufs the browser sends and receives on /_stcore/stream): a
``BackMsg.rerun_script`` with the page and the changed widget's value starts a script run; the server streams
``ForwardMsg``s (new_session, deltas, page_info_changed …) and ends the run with ``script_finished``. The
session tracks the page's widgets from the deltas (its first main-area slider and the sidebar's Seed number
input) so it can move them like a student does.

Only what a load test needs: no forward-message cache, no uploads, no fragments. The widget's value is sent
as the browser sends it (``WidgetState``); the query string is left empty, which a browser would fill with
the URL-bound values — the server takes the widget state either way. A slider's starting value is read from
its ``default`` (or ``value`` when the server forces one): frame.slider passes no default once the key is in
session state, so after the first run the proto no longer carries the value and the session tracks it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

FINISHED_EARLY_FOR_RERUN = ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN
FINISHED_WITH_COMPILE_ERROR = ForwardMsg.ScriptFinishedStatus.FINISHED_WITH_COMPILE_ERROR
MAIN, SIDEBAR = 0, 1
SLIDER_TYPE_SLIDER = 1


@dataclass
class Control:
    """A numeric widget the session can move: a plain st.slider (one thumb) or an st.number_input."""

    kind: str  # "slider" | "number"
    id: str
    label: str
    lo: float
    hi: float
    step: float
    value: float

    def moved(self, up: bool) -> float:
        v = self.value + (self.step if up else -self.step)
        if v > self.hi or v < self.lo:  # at an end: go the other way
            v = self.value - (self.step if up else -self.step)
        return min(max(v, self.lo), self.hi)

    def state(self, value: float) -> WidgetState:
        ws = WidgetState(id=self.id)
        if self.kind == "slider":
            ws.double_array_value.data.append(value)
        else:
            ws.double_value = value
        return ws


class SessionError(Exception):
    pass


class Session:
    """One Streamlit session on ``ws://host/_stcore/stream`` showing the page at ``url_path``."""

    def __init__(self, base: str, url_path: str, timeout: float = 60.0) -> None:
        self.url = base.replace("http://", "ws://", 1).rstrip("/") + "/_stcore/stream"
        self.url_path = url_path
        self.timeout = timeout
        self.ws: Any = None
        self.query = ""
        self.page_hash = ""
        self.slider: Control | None = None
        self.seed: Control | None = None
        self.exceptions: list[str] = []
        self.bytes_received = 0

    async def open(self) -> float:
        """Connect and run the page once (what opening the page in a browser does); returns ms to finished."""
        import websockets

        self.ws = await asyncio.wait_for(
            websockets.connect(self.url, subprotocols=["streamlit"], max_size=None, open_timeout=self.timeout),
            self.timeout)
        return await self.rerun()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    async def rerun(self, change: tuple[Control, float] | None = None) -> float:
        """Ask for a script run (with one widget changed); wait for its end; return ms from request to end."""
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.page_hash
        cs.page_name = "" if self.page_hash else self.url_path
        if change is not None:
            control, value = change
            cs.widget_states.widgets.append(control.state(value))
        self.exceptions = []
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        await asyncio.wait_for(self._until_finished(), self.timeout)
        ms = (time.perf_counter() - t0) * 1000
        if change is not None:
            change[0].value = change[1]
        if self.exceptions:
            raise SessionError("exception on the page: " + self.exceptions[0])
        return ms

    async def _until_finished(self) -> None:
        slider_seen = False
        while True:
            raw = await self.ws.recv()
            self.bytes_received += len(raw)
            fm = ForwardMsg()
            fm.ParseFromString(raw)
            kind = fm.WhichOneof("type")
            if kind == "new_session":
                slider_seen = False
            elif kind == "navigation":
                self.page_hash = fm.navigation.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                et = el.WhichOneof("type")
                root = fm.metadata.delta_path[0] if fm.metadata.delta_path else MAIN
                if et == "exception":
                    self.exceptions.append(f"{el.exception.type}: {el.exception.message}"[:200])
                elif et == "slider" and root == MAIN and not slider_seen:
                    s = el.slider
                    values = list(s.value) if s.set_value else list(s.default)
                    if s.type == SLIDER_TYPE_SLIDER and len(values) == 1 and s.step > 0:
                        slider_seen = True
                        if self.slider is None or self.slider.id != s.id:
                            self.slider = Control("slider", s.id, s.label, s.min, s.max, s.step, values[0])
                elif et == "number_input" and root == SIDEBAR and el.number_input.label == "Seed":
                    n = el.number_input
                    if self.seed is None or self.seed.id != n.id:
                        value = n.value if n.set_value else n.default
                        self.seed = Control("number", n.id, n.label, n.min if n.has_min else -1e9,
                                            n.max if n.has_max else 1e9, n.step or 1, value)
            elif kind == "script_finished":
                status = fm.script_finished
                if status == FINISHED_EARLY_FOR_RERUN:
                    continue
                if status == FINISHED_WITH_COMPILE_ERROR:
                    self.exceptions.append("the script did not compile")
                return

    def control(self) -> Control | None:
        """What a student would move: the page's first slider, else the sidebar's Seed."""
        return self.slider or self.seed

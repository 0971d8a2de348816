"""Class mode, the Streamlit side: every Predict becomes a live class vote (peer instruction).

- The join code and the teacher's token ride in the address (``?class=K7Q2XM``, ``?teach=<token>``), are kept in
  the session when a page switch drops them, and are put back into the address (so a reload stays in class).
- A student is a random id per browser session (``posenc.class_store.new_student_id``), kept in a session cookie
  (``COOKIE``, set by ``frame.live``'s component) so a reload or a reconnect to another app process is the same
  student; a cookie that is not such an id is ignored. Nothing else is kept.
- ``frame.predict`` calls ``current()`` and, in a class, ``Room.before_radio`` / ``Room.drawn`` /
  ``Room.answer``: the student's pick is recorded as their vote (validated by the store), their answer stays
  hidden until the teacher reveals it, and their page has one poll (``_poll``: one small read of the page's
  rounds, nothing drawn) every ``STUDENT_POLL`` s only while a round is open; the teacher's page shows the counts per option under each Predict, polled every ``TEACHER_POLL`` s, with
  Reveal / Vote again / Reset. A wrong or missing teacher token never shows teacher controls.

The store is configured by POSENC_CLASS_DB_URL (environment or ``.streamlit/secrets.toml``: PostgreSQL) or
POSENC_CLASS_DB (the SQLite file shared by every process on the host); see ``posenc.class_store``.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from posenc import class_store
from posenc.charts import classroom as class_charts

CLASS_PARAM, TEACH_PARAM = "class", "teach"
TEACHER_POLL = 1.5  # s: the teacher's counts are fresh within 2 s
STUDENT_POLL = 5.0  # s: a student's page asks at most this often, and only while a round is open
_CODE, _TOKEN, _STUDENT = "_pe_class_code", "_pe_class_token", "_pe_class_student"
_NOTICE = "_pe_class_notice_run"
_KEYS = "_pe_class_keys"  # (page path, the page's Predict keys in the order drawn): the first one holds the poll
_LIVE = "_pe_class_live"  # (code, token, until, teacher): a class found live, and whether the token is its key
COOKIE = "pe_student"  # the browser's session cookie that keeps a student's anonymous id over reloads, reconnects


_STORES: dict[tuple, class_store.Store] = {}  # one store (its connection pool) per configured place, per process
_STORES_LOCK = threading.Lock()


def _store(url: str | None, path: str | None) -> class_store.Store:
    # a plain dict, not st.cache_resource: a student's poll asks for the store every time (cache_resource's
    # hashing and bookkeeping were half of the poll's own cost)
    found = _STORES.get((url, path))
    if found is None:
        with _STORES_LOCK:
            found = _STORES.get((url, path)) or _STORES.setdefault((url, path), class_store.open_store(url=url, path=path))
    return found


@functools.cache  # read once a process: st.secrets re-reads its files on every access when there are none
def _secret_url() -> str | None:
    try:
        value = st.secrets.get(class_store.URL_ENV) or st.secrets.get("class_db_url")
    except Exception:  # noqa: BLE001 — no secrets file: the environment decides
        return None
    return str(value) if value else None


def store() -> class_store.Store:
    """The configured class store (one per process)."""
    url = os.environ.get(class_store.URL_ENV) or _secret_url()
    return _store(url, os.environ.get(class_store.DB_ENV) or None)


def _register() -> None:
    """Make ``class`` and ``teach`` known URL parameters for this run (frame.urlstate's registry)."""
    from .urlstate import _registry

    reg = _registry()
    reg.setdefault(CLASS_PARAM, "")
    reg.setdefault(TEACH_PARAM, "")


def _from_address(name: str, session_key: str) -> str | None:
    raw = st.query_params.get_all(name)
    if raw:
        value = raw[-1].strip()[:200]
        st.session_state[session_key] = value
        return value
    value = st.session_state.get(session_key)
    if value:  # a page switch dropped it: put it back, so the address (and a reload) stays in class
        st.query_params[name] = value
    return value


@dataclass
class Room:
    """This browser session in a live class: the code, whether it is the teacher's, the student id."""

    code: str
    teacher: bool
    token: str
    student: str
    qids: dict = field(default_factory=dict, repr=False)
    states: dict = field(default_factory=dict, repr=False)  # key → the QuestionState read for this run

    # ---------------------------------------------------------------- questions
    def qid(self, key: str) -> str:
        """The question's id: the page's script path and the Predict's key. Found once, in the page's run (a
        fragment's rerun, e.g. a poll, has no page script on its call stack)."""
        if key not in self.qids:
            self.qids[key] = f"{_page_path()}#{key}"
        return self.qids[key]

    def before_radio(self, key: str, label: str, options: list[str]) -> class_store.QuestionState | None:
        """Register the question in the class (round 1 opens the first time) and, for a student, forget the
        pick of a round that is over, or (a new session of a student who voted: a reload, a reconnect) put their
        vote back into the radio — before the radio is drawn, so its state may still be set."""
        state = store().ensure_question(self.code, self.qid(key), label, list(options))
        self.states[key] = state
        if state is None or self.teacher:
            return state
        seen = st.session_state.get(f"_pe_seen_{key}")
        if seen is not None and seen[0] != state.round:
            for k in (f"{key}_guess", f"_pe_said_{key}", f"_pe_mine_{key}"):  # a new round: pick again
                st.session_state.pop(k, None)
        elif seen is None:  # this session's first sight of the question: the student may have voted already
            mine = store().my_vote(self.code, self.qid(key), self.student)
            if mine is not None and 0 <= mine < len(options):
                st.session_state[f"_pe_mine_{key}"] = (state.round, mine)
                st.session_state.setdefault(f"{key}_guess", options[mine])
        st.session_state[f"_pe_seen_{key}"] = (state.round, state.revealed)
        page, keys = st.session_state.get(_KEYS, ("", []))
        if page != self.qid(key).split("#", 1)[0]:
            page, keys = self.qid(key).split("#", 1)[0], []
        if key not in keys:
            keys = [*keys, key]
        st.session_state[_KEYS] = (page, keys)
        return state

    def ask(self, key: str, options: list[str], correct: int, state: class_store.QuestionState,
            radio: Callable[..., None]) -> None:
        """The question's radio (``radio(on_change, args)`` draws it) and, under it, the teacher's live counts
        and controls, or the student's ballot: the radio and one line on their vote, in a fragment of their own,
        so a vote reruns that line only (never the section's charts: a hall votes at once)."""
        if self.teacher:
            radio()
            _teacher_panel(self, key, list(options), correct)
        else:
            st.fragment(_ballot)(key, self.code, self.qid(key), list(options), self.student, state, radio)

    def answer(self, key: str, draw: Callable[[], None]) -> None:
        """The answer (``draw``) only once the teacher revealed it. A student's page polls (one poll for all its
        questions) while a round is open."""
        state = self.states.get(key) or store().state(self.code, self.qid(key))
        if state is None:
            return
        if self.teacher:
            if state.revealed:
                draw()
            else:
                st.caption("Class mode: the answer shows here, and on every student's page, once you press Reveal.")
            return
        if state.revealed:
            draw()
        else:
            st.caption(f"Class vote (round {state.round}): the answer shows here when your teacher reveals it.")
        page, keys = st.session_state.get(_KEYS, ("", []))
        if keys and keys[0] == key:  # the page's first question holds the page's one poll
            now = store().phases(self.code, page)
            open_ = any(is_open for _r, is_open, _v in now.values())
            st.fragment(_poll, run_every=STUDENT_POLL if open_ else None)(self.code, page, now)


def _ballot(key: str, code: str, qid: str, options: list[str], student: str, state: class_store.QuestionState,
            radio: Callable[..., None]) -> None:
    """A student's radio and the line under it: their vote in this round, or why it was not recorded."""
    radio(_record, (key, code, qid, options, student))
    round_, open_ = state.round, state.is_open
    said, mine = st.session_state.get(f"_pe_said_{key}"), st.session_state.get(f"_pe_mine_{key}")
    voted = mine is not None and mine[0] == round_
    if said:
        st.caption(said)
    elif voted and open_:
        st.info(f"Your vote in round {round_}: “{options[mine[1]]}” (anonymous; you can change it while the round is "
                "open). The answer shows under the chart when your teacher reveals it.", icon=":material/how_to_vote:")
    elif voted:
        st.caption(f"Your vote in round {round_}: “{options[mine[1]]}”. The round is closed.")
    elif open_:
        st.caption(f"Class vote (round {round_}): pick an answer above. It counts anonymously.")
    else:
        st.caption(f"Class vote (round {round_}): the round is closed.")


def _record(key: str, code: str, qid: str, options: list[str], student: str) -> None:
    """The radio's on_change: send the pick to the store as this student's vote (the store validates it)."""
    choice = st.session_state.get(f"{key}_guess")
    if choice is None or choice not in options:
        return
    res = store().vote(code, qid, student, options.index(choice))
    if res.ok:  # the status under the chart says what counts
        st.session_state.pop(f"_pe_said_{key}", None)
        st.session_state[f"_pe_mine_{key}"] = (res.round, options.index(choice))
    else:
        st.session_state[f"_pe_said_{key}"] = class_store.REASONS.get(res.reason, "Your vote was not recorded.")


def _poll(code: str, page: str, drawn: dict) -> None:
    """A student's page, every STUDENT_POLL s while a round is open: one small read of its questions' rounds;
    nothing is drawn, and the page reruns only when they are no longer what the page shows (a round revealed, a
    new round, a reset)."""
    if _stale(store().phases(code, page), drawn, st.session_state):
        st.rerun()


def _stale(now: dict, drawn: dict, session) -> bool:
    """Does the page show a round that is not the store's ``now`` any more? Each question the poll was ``drawn``
    with, as it was then (or gone from the store: the class swept); a question the store did not have yet then (the
    page's later questions, when this session was the first to draw the page), as the session last drew it
    (``_pe_seen_<key>``, kept by ``before_radio``: its round and whether it was revealed)."""
    for qid, (round_, _open, revealed) in now.items():
        if qid in drawn:
            if drawn[qid] != (round_, _open, revealed):
                return True
        elif (seen := session.get(f"_pe_seen_{qid.split('#', 1)[1]}")) is not None and tuple(seen) != (
                round_, revealed):
            return True
    return any(q not in now for q in drawn)


def _teacher_panel(room: Room, key: str, options: list[str], correct: int) -> None:
    @st.fragment(run_every=TEACHER_POLL)
    def panel() -> None:
        qid = room.qid(key)
        state = store().state(room.code, qid)
        if state is None:
            return
        counts = store().counts(room.code, qid)
        n = sum(counts.get(state.round, []))
        where = "open" if state.is_open else ("revealed" if state.revealed else "closed")
        with st.container(border=True, key=f"pe_class_{key}"):
            st.markdown(f"**Class {room.code}, round {state.round} ({where}):** {n} answered.")
            from .live import chart

            left, right = st.columns([4, 1], vertical_alignment="center")
            with left:
                chart(class_charts.votes(options, counts, correct=correct if state.revealed else None,
                                         question=state.label))
            with right:
                if st.button("Reveal", key=f"pe_reveal_{key}", icon=":material/visibility:", disabled=state.revealed,
                             help="Close the round and show the answer here and on every student's page.",
                             width="stretch"):
                    store().reveal(room.code, qid, room.token)
                    st.rerun()
                if st.button("Vote again", key=f"pe_again_{key}", icon=":material/replay:", width="stretch",
                             help="Close this round and open the next; the rounds are shown side by side."):
                    store().vote_again(room.code, qid, room.token)
                    st.rerun()
                if st.button("Reset", key=f"pe_reset_{key}", icon=":material/restart_alt:", width="stretch",
                             help="Forget this question's votes and rounds."):
                    store().reset(room.code, qid, room.token)
                    st.rerun()

    panel()


def _page_path() -> str:
    """The page's script path (the question id's first half, e.g. "lessons/rope.py"): the page script that is
    running, found on the call stack (every page, whichever skeleton it uses), else the page frame's."""
    import inspect

    from .pages import ROOT

    lessons = ROOT / "lessons"
    frame_ = inspect.currentframe()
    while frame_ is not None:
        f = frame_.f_globals.get("__file__")
        if f:
            try:
                rel = Path(f).resolve().relative_to(ROOT)
            except ValueError:
                rel = None
            if rel is not None and rel.parent == Path("lessons") and (lessons / rel.name).exists():
                return rel.as_posix()
        frame_ = frame_.f_back
    try:
        from .skeleton import _PAGE

        pg = _PAGE.get()
        if pg is not None:
            return pg.info.path
    except ImportError:  # pragma: no cover
        pass
    return "lessons/home.py"


def current() -> Room | None:
    """This session's class, or None (no code, or a code that is not a live class: then a notice once a run,
    and the page works as usual). Also registers ``class`` and ``teach`` as known URL parameters.

    A class found live (and whether the token is its key) is remembered by the session until the class ends, so
    a run asks the store nothing more about it: a code never changes its key, and a class only goes at its end."""
    _register()
    code = (_from_address(CLASS_PARAM, _CODE) or "").upper()
    if not code:
        return None
    token = _from_address(TEACH_PARAM, _TOKEN) or ""
    live = st.session_state.get(_LIVE)
    if not (live and live[:2] == (code, token) and live[2] > time.time()):
        ends = store().expires(code)
        if ends is None or ends <= time.time():
            st.session_state.pop(_LIVE, None)
            _notice_once(code, "unknown" if ends is None else "expired")
            return None
        live = st.session_state[_LIVE] = (code, token, ends, bool(token) and store().is_teacher(code, token))
    teacher = live[3]
    if token and not teacher:
        _notice_once(code, "token")
    return Room(code, teacher, token if teacher else "", student_id())


def student_id() -> str:
    """This browser's anonymous id: the session's; else the one its session cookie (``COOKIE``) brought, when
    it is one this app made (anything else — forged, cut, garbage — is ignored); else a new one. The page's
    component (``frame.live.mount``, through ``cookie_student``) keeps it in the cookie for the next session."""
    student = st.session_state.get(_STUDENT)
    if not student:
        try:
            raw = st.context.cookies.get(COOKIE)
        except Exception:  # noqa: BLE001 — no browser behind this session (a test): a new id
            raw = None
        student = raw if class_store.valid_student(raw) else class_store.new_student_id()
        st.session_state[_STUDENT] = student
    return student


def cookie_student() -> str | None:
    """The id ``frame.live.mount`` hands the browser to keep in its session cookie: only in a class link (the
    address or the session has a class code), so nobody outside class mode gets a cookie."""
    if not (st.query_params.get(CLASS_PARAM) or st.session_state.get(_CODE)):
        return None
    return student_id()


def start_class() -> tuple[str, str]:
    """A new class for this browser session, as its teacher: the code and token go into the address."""
    code, token = store().create_class()
    st.session_state[_CODE], st.session_state[_TOKEN] = code, token
    st.query_params[CLASS_PARAM], st.query_params[TEACH_PARAM] = code, token
    return code, token


QR_MAX_PX = 560  # the QR code's width on the projected page: ~40 % of a 1280 px screen, scannable from far back


def qr_svg(url: str) -> str:
    """``url`` as a QR code (SVG, black on white, error level M, a 4-module quiet zone), scaled by CSS to its
    column, at most QR_MAX_PX wide and 60 % of the window's height (with the join code on one projected screen)."""
    import segno

    uri = segno.make(url, error="m").svg_data_uri(border=4, dark="#000000", light="#ffffff")
    # an <img> of the SVG: st.html's sanitiser drops inline <svg>, and keeps an image's data: address
    return (f'<div class="pe-qr" style="width:min(100%, {QR_MAX_PX}px, 60vh);"><img src="{uri}" '
            'alt="QR code of the student link" style="width:100%;height:auto;image-rendering:pixelated;'
            'display:block"></div>')


def base_url() -> str:
    """The app's address as the browser sees it (scheme, host, port), for the links a teacher hands out."""
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001
        url = ""
    if "://" not in url:
        host = (st.context.headers or {}).get("Host", "localhost:8501")
        return f"http://{host}"
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{rest.split('/', 1)[0].split('?', 1)[0]}"


def _notice_once(code: str, status: str) -> None:
    from .urlstate import _registry

    reg = _registry()
    if reg.get(_NOTICE):
        return
    reg[_NOTICE] = True  # once per run (the registry is reset at each run's start)
    shown = code.upper() if class_store.valid_code(code) else "in the link"
    if status == "token":
        st.warning("This teacher link's key is not valid for the class: you are in it as a student (no teacher "
                   "controls).", icon=":material/key_off:")
    elif status == "expired":
        st.warning(f"Class {shown} has ended (classes last 24 hours): the page works as usual, on your own.",
                   icon=":material/event_busy:")
    else:
        st.warning(f"No live class has the code {shown}: check it with your teacher. The page works as usual, "
                   "on your own.", icon=":material/link_off:")

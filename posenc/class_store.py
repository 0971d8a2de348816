"""The class store: classes, their questions' rounds and the students' anonymous votes (no Streamlit here).

    store = class_store.open_store()             # SQLite (WAL) at POSENC_CLASS_DB, or PostgreSQL at a URL
    code, token = store.create_class()           # a short join code and the teacher's secret (≥ 128 bits)
    store.ensure_question(code, qid, "Which…?", options)    # round 1 opens the first time a question is drawn
    store.vote(code, qid, student, option)       # → Vote(ok, reason): validated here, never by the page
    store.counts(code, qid)                      # {round: [count per option]}
    store.reveal / vote_again / reset(code, qid, token)       # the teacher's controls (token checked here)

One small interface over two backends: SQLite (standard library; WAL, so several app processes on one host share
one file) is the default; PostgreSQL (psycopg 3) serves app processes on several machines. What is stored: the
join code, a hash of the teacher token, each question's id (page path + key), its wording and options (our own
text), each round's state, and per vote a random per-browser-session id and an option index with its time. No
names, no free text. Classes expire after ``TTL`` seconds and are swept when a class is created.

Every vote is validated here: the class exists and has not expired, the question exists in the class, the option
is in range, the round is open, and the student voted at most once in the last ``RATE`` seconds.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import os
import queue
import secrets
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TTL = 24 * 3600.0  # a class lives a day
RATE = 1.0  # at most one vote a second per student
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector and typed on a phone
CODE_LEN = 6  # 31**6 ≈ 8.9e8 codes (≈ 30 bits): a join code only lets one vote anonymously
TOKEN_BYTES = 24  # the teacher token: 192 bits
STUDENT_BYTES = 16  # a student id: 128 bits
MAX_OPTIONS = 12
MAX_QID = 200
DB_ENV = "POSENC_CLASS_DB"  # the SQLite file (shared by every app process on the host)
URL_ENV = "POSENC_CLASS_DB_URL"  # a PostgreSQL URL: postgresql://user@host:port/db
DEFAULT_DB = Path(tempfile.gettempdir()) / "posenc-class.sqlite3"

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS pe_classes (
        code TEXT PRIMARY KEY, teacher_hash TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,
        expires DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS pe_questions (
        code TEXT NOT NULL, qid TEXT NOT NULL, label TEXT NOT NULL, options TEXT NOT NULL,
        n_options INTEGER NOT NULL, round INTEGER NOT NULL, is_open INTEGER NOT NULL, revealed INTEGER NOT NULL,
        first_seen DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, qid))""",
    """CREATE TABLE IF NOT EXISTS pe_votes (
        code TEXT NOT NULL, qid TEXT NOT NULL, round INTEGER NOT NULL, student TEXT NOT NULL,
        choice INTEGER NOT NULL, at DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, qid, round, student))""",
    """CREATE TABLE IF NOT EXISTS pe_students (
        code TEXT NOT NULL, student TEXT NOT NULL, last_vote DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (code, student))""",
]


class StoreError(RuntimeError):
    pass


@dataclass(frozen=True)
class Vote:
    """What became of a vote: ``ok``, else ``reason`` (one of REASONS' keys)."""

    ok: bool
    reason: str = ""
    round: int = 0  # the round it counts in (an accepted vote)


REASONS = {
    "class": "This class does not exist or has ended.",
    "question": "This question is not part of the class.",
    "option": "That option is not one of the question's.",
    "closed": "This round is closed: wait for your teacher to open the next one.",
    "rate": "One vote a second: wait a moment and pick again.",
    "student": "This browser session has no valid student id.",
}


@dataclass(frozen=True)
class QuestionState:
    qid: str
    label: str
    options: list[str]
    round: int
    is_open: bool
    revealed: bool


def new_student_id() -> str:
    return secrets.token_hex(STUDENT_BYTES)


def valid_code(code: Any) -> bool:
    return isinstance(code, str) and len(code) == CODE_LEN and all(c in CODE_ALPHABET for c in code)


def valid_student(student: Any) -> bool:
    """A student id as ``new_student_id`` makes it (what a browser's cookie must hold to be used)."""
    return (isinstance(student, str) and len(student) == 2 * STUDENT_BYTES
            and all(c in "0123456789abcdef" for c in student))


def summary_csv(rows: list[dict]) -> str:
    """``Store.summary``'s rows as CSV (what the Teach page exports): one line per question, round and option."""
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=SUMMARY_FIELDS)
    w.writeheader()
    for r in rows:
        w.writerow({**{k: r[k] for k in SUMMARY_FIELDS}, "share": f"{r['share']:.3f}"})
    return out.getvalue()


SUMMARY_FIELDS = ["question id", "question", "round", "option", "votes", "share", "revealed"]


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class Store:
    """The class store over one DB-API connection factory (``?`` placeholders; PostgreSQL's are translated)."""

    def __init__(self, connect, *, kind: str, where: str) -> None:
        self._connect = connect
        self.kind = kind  # "sqlite" or "postgresql"
        self.where = where  # the file or the URL without its password
        self._pool: queue.LifoQueue = queue.LifoQueue()
        self._schema_lock = threading.Lock()
        self._schema_done = False

    # ------------------------------------------------------------ connections
    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.kind == "postgresql" else sql

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[Any]:
        """A connection from the pool, in one transaction (committed on success, rolled back on error)."""
        try:
            conn = self._pool.get_nowait()
        except queue.Empty:
            conn = self._connect()
        ok = False
        try:
            if not self._schema_done:
                self._create_schema(conn)
            if self.kind == "sqlite" and write:
                conn.execute("BEGIN IMMEDIATE")
            yield _Cursor(self, conn)
            conn.commit()
            ok = True
        finally:
            if not ok:
                try:
                    conn.rollback()
                except Exception:  # noqa: BLE001 — a broken connection is dropped below
                    pass
            if ok and self._pool.qsize() < 16:
                self._pool.put(conn)
            else:
                try:
                    conn.close()
                except Exception:  # noqa: BLE001
                    pass

    def _create_schema(self, conn: Any) -> None:
        with self._schema_lock:
            if self._schema_done:
                return
            if self.kind == "postgresql":
                cur = conn.cursor()
                cur.execute("SELECT pg_advisory_xact_lock(20260420)")  # several processes starting at once
                for stmt in SCHEMA:
                    cur.execute(stmt)
            else:
                for stmt in SCHEMA:
                    conn.execute(stmt)
            conn.commit()
            self._schema_done = True

    def close(self) -> None:
        while True:
            try:
                self._pool.get_nowait().close()
            except queue.Empty:
                return

    # ------------------------------------------------------------ classes
    def create_class(self, now: float | None = None) -> tuple[str, str]:
        """A new class: (join code, teacher token). Expired classes are swept first."""
        now = time.time() if now is None else now
        self.sweep(now)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))
            with self._tx() as c:
                if c.one("SELECT 1 FROM pe_classes WHERE code = ?", code):
                    continue
                c.run("INSERT INTO pe_classes (code, teacher_hash, created, expires) VALUES (?, ?, ?, ?)",
                      code, _hash(token), now, now + TTL)
            return code, token
        raise StoreError("no free join code")  # pragma: no cover — 20 collisions in 8.9e8 codes

    def expires(self, code: Any) -> float | None:
        """When the class ends (seconds since the epoch), None for a code the store does not have."""
        if not valid_code(code):
            return None
        with self._tx(write=False) as c:
            row = c.one("SELECT expires FROM pe_classes WHERE code = ?", code)
        return None if row is None else float(row[0])

    def class_status(self, code: Any, now: float | None = None) -> str:
        """"ok", "unknown" (never existed, or swept) or "expired"."""
        ends = self.expires(code)
        if ends is None:
            return "unknown"
        return "ok" if ends > (time.time() if now is None else now) else "expired"

    def is_teacher(self, code: Any, token: Any, now: float | None = None) -> bool:
        if not valid_code(code) or not isinstance(token, str) or not token or len(token) > 200:
            return False
        now = time.time() if now is None else now
        with self._tx(write=False) as c:
            row = c.one("SELECT teacher_hash, expires FROM pe_classes WHERE code = ?", code)
        return row is not None and row[1] > now and hmac.compare_digest(row[0], _hash(token))

    def sweep(self, now: float | None = None) -> int:
        """Delete expired classes and everything of theirs; the number of classes deleted."""
        now = time.time() if now is None else now
        with self._tx() as c:
            gone = [r[0] for r in c.all("SELECT code FROM pe_classes WHERE expires <= ?", now)]
            for table in ("pe_votes", "pe_students", "pe_questions"):
                c.run(f"DELETE FROM {table} WHERE code IN (SELECT code FROM pe_classes WHERE expires <= ?)", now)
            c.run("DELETE FROM pe_classes WHERE expires <= ?", now)
        return len(gone)

    # ------------------------------------------------------------ questions and rounds
    def ensure_question(self, code: str, qid: str, label: str, options: list[str],
                        now: float | None = None) -> QuestionState | None:
        """The question's state in the class, registering it (round 1, open) the first time it is drawn.
        None when the class is not live."""
        now = time.time() if now is None else now
        if not valid_code(code) or not (0 < len(qid) <= MAX_QID) or not (2 <= len(options) <= MAX_OPTIONS):
            return None
        with self._tx(write=False) as c:  # drawn before (every run but the first): one read, no write lock
            row = c.one("SELECT q.label, q.options, q.round, q.is_open, q.revealed, c.expires FROM pe_questions q "
                        "JOIN pe_classes c ON c.code = q.code WHERE q.code = ? AND q.qid = ?", code, qid)
        if row is not None:
            return _question(qid, row) if row[5] > now else None
        with self._tx() as c:
            if c.one("SELECT 1 FROM pe_classes WHERE code = ? AND expires > ?", code, now) is None:
                return None
            c.run("INSERT INTO pe_questions (code, qid, label, options, n_options, round, is_open, revealed, "
                  "first_seen) VALUES (?, ?, ?, ?, ?, 1, 1, 0, ?) ON CONFLICT (code, qid) DO NOTHING",
                  code, qid, label[:500], json.dumps(list(options)), len(options), now)
        return self.state(code, qid)

    def state(self, code: str, qid: str) -> QuestionState | None:
        with self._tx(write=False) as c:
            row = c.one("SELECT label, options, round, is_open, revealed FROM pe_questions WHERE code = ? AND qid = ?",
                        code, qid)
        return None if row is None else _question(qid, row)

    def phases(self, code: str, page: str) -> dict[str, tuple[int, bool, bool]]:
        """{qid: (round, open, revealed)} of the class's questions on ``page`` (qids "page#key"): what a student's
        page polls, one small query for all its questions."""
        head = page + "#"  # the primary key's (code, qid) index finds the class's rows; the page's are picked in SQL
        with self._tx(write=False) as c:
            rows = c.all("SELECT qid, round, is_open, revealed FROM pe_questions "
                         "WHERE code = ? AND substr(qid, 1, length(?)) = ?", code, head, head)
        return {q: (int(r), bool(o), bool(v)) for q, r, o, v in rows}

    def vote(self, code: Any, qid: Any, student: Any, option: Any, now: float | None = None) -> Vote:
        """Record (or change) ``student``'s vote for ``option`` in the question's open round."""
        now = time.time() if now is None else now
        if not valid_student(student):
            return Vote(False, "student")
        if not valid_code(code):
            return Vote(False, "class")
        if not isinstance(qid, str) or not isinstance(option, int) or isinstance(option, bool):
            return Vote(False, "question" if not isinstance(qid, str) else "option")
        with self._tx() as c:  # the class and its question in one read (the class's row, its question's or NULLs)
            q = c.one("SELECT c.expires, q.n_options, q.round, q.is_open FROM pe_classes c LEFT JOIN pe_questions q "
                      "ON q.code = c.code AND q.qid = ? WHERE c.code = ?", qid, code)
            if q is None or not float(q[0]) > now:
                return Vote(False, "class")
            if q[1] is None:
                return Vote(False, "question")
            n, rnd, is_open = int(q[1]), int(q[2]), bool(q[3])
            if not 0 <= option < n:
                return Vote(False, "option")
            if not is_open:
                return Vote(False, "closed")
            # the rate limit: one conditional upsert (atomic in both backends)
            if c.run("INSERT INTO pe_students (code, student, last_vote) VALUES (?, ?, ?) "
                     "ON CONFLICT (code, student) DO UPDATE SET last_vote = excluded.last_vote "
                     "WHERE pe_students.last_vote <= excluded.last_vote - ?", code, student, now, RATE) == 0:
                return Vote(False, "rate")
            c.run("INSERT INTO pe_votes (code, qid, round, student, choice, at) VALUES (?, ?, ?, ?, ?, ?) "
                  "ON CONFLICT (code, qid, round, student) DO UPDATE SET choice = excluded.choice, at = excluded.at",
                  code, qid, rnd, student, option, now)
        return Vote(True, round=rnd)

    def my_vote(self, code: str, qid: str, student: str) -> int | None:
        """The student's vote in the question's current round (None: none yet)."""
        with self._tx(write=False) as c:
            row = c.one("SELECT v.choice FROM pe_votes v JOIN pe_questions q ON q.code = v.code AND q.qid = v.qid "
                        "AND q.round = v.round WHERE v.code = ? AND v.qid = ? AND v.student = ?", code, qid, student)
        return None if row is None else int(row[0])

    def counts(self, code: str, qid: str) -> dict[int, list[int]]:
        """{round: [votes per option]} for every round so far (the current one included, even if empty)."""
        st = self.state(code, qid)
        if st is None:
            return {}
        out = {r: [0] * len(st.options) for r in range(1, st.round + 1)}
        with self._tx(write=False) as c:
            for rnd, choice, n in c.all("SELECT round, choice, COUNT(*) FROM pe_votes WHERE code = ? AND qid = ? "
                                        "GROUP BY round, choice", code, qid):
                if int(rnd) in out and 0 <= int(choice) < len(st.options):
                    out[int(rnd)][int(choice)] = int(n)
        return out

    def _teacher_update(self, code: str, qid: str, token: str, sql: list[tuple]) -> bool:
        if not self.is_teacher(code, token):
            return False
        with self._tx() as c:
            if c.one("SELECT 1 FROM pe_questions WHERE code = ? AND qid = ?", code, qid) is None:
                return False
            for stmt, *args in sql:
                c.run(stmt, *args)
        return True

    def reveal(self, code: str, qid: str, token: str) -> bool:
        """Close the round and show the answer to every student."""
        return self._teacher_update(code, qid, token, [
            ("UPDATE pe_questions SET is_open = 0, revealed = 1 WHERE code = ? AND qid = ?", code, qid)])

    def vote_again(self, code: str, qid: str, token: str) -> bool:
        """Close this round and open the next (the answer hidden again until Reveal)."""
        return self._teacher_update(code, qid, token, [
            ("UPDATE pe_questions SET round = round + 1, is_open = 1, revealed = 0 WHERE code = ? AND qid = ?",
             code, qid)])

    def reset(self, code: str, qid: str, token: str) -> bool:
        """Forget the question's votes and rounds: round 1, open, hidden."""
        return self._teacher_update(code, qid, token, [
            ("DELETE FROM pe_votes WHERE code = ? AND qid = ?", code, qid),
            ("UPDATE pe_questions SET round = 1, is_open = 1, revealed = 0 WHERE code = ? AND qid = ?", code, qid)])

    def summary(self, code: str) -> list[dict]:
        """Every question of the class that has votes, in the order first drawn: one row per round and option."""
        rows: list[dict] = []
        with self._tx(write=False) as c:
            qs = c.all("SELECT qid, label, options, round, revealed FROM pe_questions WHERE code = ? "
                       "ORDER BY first_seen, qid", code)
        for qid, label, options, _round, revealed in qs:
            counts = self.counts(code, qid)
            if not any(sum(v) for v in counts.values()):
                continue
            opts = json.loads(options)
            for r, per in counts.items():
                total = sum(per)
                for i, n in enumerate(per):
                    rows.append({"question": label, "question id": qid, "round": r, "option": opts[i], "votes": n,
                                 "share": (n / total) if total else 0.0, "revealed": bool(revealed)})
        return rows


def _question(qid: str, row: tuple) -> QuestionState:
    return QuestionState(qid, row[0], json.loads(row[1]), int(row[2]), bool(row[3]), bool(row[4]))


class _Cursor:
    """A thin cursor: ``run`` (returns the row count), ``one`` and ``all``, with ``?`` placeholders."""

    def __init__(self, store: Store, conn: Any) -> None:
        self.store, self.conn = store, conn

    def _exec(self, sql: str, args: tuple) -> Any:
        cur = self.conn.cursor()
        cur.execute(self.store._sql(sql), args)
        return cur

    def run(self, sql: str, *args: Any) -> int:
        return self._exec(sql, args).rowcount

    def one(self, sql: str, *args: Any) -> tuple | None:
        return self._exec(sql, args).fetchone()

    def all(self, sql: str, *args: Any) -> list[tuple]:
        return self._exec(sql, args).fetchall()


def sqlite_store(path: str | Path) -> Store:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(str(path), timeout=10.0, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a commit survives a killed process
        conn.execute("PRAGMA busy_timeout=10000")
        return _SqliteConn(conn)

    return Store(connect, kind="sqlite", where=str(path))


class _SqliteConn:
    """sqlite3 in autocommit mode with explicit BEGIN, so ``commit``/``rollback`` match what ``_tx`` began."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.raw = conn

    def execute(self, sql: str, args: tuple = ()) -> Any:
        return self.raw.execute(sql, args)

    def cursor(self) -> Any:
        return self.raw.cursor()

    def commit(self) -> None:
        if self.raw.in_transaction:
            self.raw.execute("COMMIT")

    def rollback(self) -> None:
        if self.raw.in_transaction:
            self.raw.execute("ROLLBACK")

    def close(self) -> None:
        self.raw.close()


def postgres_store(url: str) -> Store:
    try:
        import psycopg
    except ImportError as err:  # pragma: no cover — the optional requirements file brings it
        raise StoreError("PostgreSQL needs psycopg: pip install -r requirements-class.txt") from err

    def connect() -> Any:
        return psycopg.connect(url, connect_timeout=10)

    shown = url.split("@")[-1] if "@" in url else url
    return Store(connect, kind="postgresql", where=f"postgresql://…@{shown}" if "@" in url else shown)


def open_store(url: str | None = None, path: str | Path | None = None) -> Store:
    """The configured store: PostgreSQL when ``url`` (or POSENC_CLASS_DB_URL) is set, else SQLite at ``path`` (or
    POSENC_CLASS_DB, default a file in the system's temp directory, shared by every process on the host)."""
    url = url or os.environ.get(URL_ENV) or None
    if url:
        return postgres_store(url)
    return sqlite_store(path or os.environ.get(DB_ENV) or DEFAULT_DB)

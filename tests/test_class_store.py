"""The class store on both backends: SQLite (a temp file) and PostgreSQL (the throwaway cluster scripts/test.sh
starts and names in POSENC_TEST_PG_URL; missing → the PostgreSQL cases fail, they never skip)."""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time

import pytest

from posenc import class_store as cs

QID = "lessons/rope.py#rp_predict"
OPTIONS = ["rows", "columns", "diagonals", "none"]


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = cs.sqlite_store(tmp_path / "class.sqlite3")
    else:
        url = os.environ.get("POSENC_TEST_PG_URL")
        if not url:
            pytest.fail("POSENC_TEST_PG_URL is not set: run scripts/test.sh (it starts a throwaway PostgreSQL)")
        s = cs.postgres_store(url)
    yield s
    s.close()


@pytest.fixture
def live(store):
    code, token = store.create_class()
    store.ensure_question(code, QID, "Which cells share one colour?", OPTIONS)
    return store, code, token


def test_codes_and_tokens_are_unguessable(store):
    made = [store.create_class() for _ in range(20)]
    codes = [c for c, _ in made]
    assert all(re.fullmatch(f"[{cs.CODE_ALPHABET}]{{{cs.CODE_LEN}}}", c) for c in codes)
    assert len(set(codes)) == len(codes)
    assert len(cs.CODE_ALPHABET) ** cs.CODE_LEN > 5e8  # ≈ 30 bits for a code typed off a projector
    assert len(set(t for _, t in made)) == len(made)
    assert all(len(t) * 6 >= 128 for _, t in made)  # url-safe base64: 6 bits a character
    ids = {cs.new_student_id() for _ in range(100)}
    assert len(ids) == 100 and all(len(i) * 4 >= 128 for i in ids)


def test_a_student_id_has_one_form_and_anything_else_is_refused():
    """What a browser's cookie must hold to be used as the student's id (docs/HARDENING.md: a forged cookie)."""
    sid = cs.new_student_id()
    assert cs.valid_student(sid)
    for bad in (None, "", 5, sid[:-1], sid + "0", sid.upper(), sid[:-1] + "g", "forged<b>x</b>", " " + sid[1:],
                "a" * 64):
        assert not cs.valid_student(bad), bad


def test_the_summary_exports_as_csv(live):
    import csv
    import io

    store, code, token = live
    t = time.time()
    votes = {1: [0, 2, 2], 2: [2, 2, 2]}  # round → each student's option
    for rnd, picks in votes.items():
        if rnd == 2:
            assert store.vote_again(code, QID, token)
        for k, option in enumerate(picks):
            assert store.vote(code, QID, f"{k:032x}", option, now=t + 2 * rnd).ok
    rows = list(csv.DictReader(io.StringIO(cs.summary_csv(store.summary(code)))))
    assert list(rows[0]) == cs.SUMMARY_FIELDS
    assert len(rows) == len(votes) * len(OPTIONS)
    for r in rows:
        picks = votes[int(r["round"])]
        n = picks.count(OPTIONS.index(r["option"]))
        assert (r["question id"], int(r["votes"]), float(r["share"])) == (QID, n, round(n / len(picks), 3))


def test_the_token_is_not_stored_in_clear(store, tmp_path):
    code, token = store.create_class()
    with store._tx(write=False) as c:
        stored = c.all("SELECT teacher_hash FROM pe_classes WHERE code = ?", code)[0][0]
    assert token not in stored and len(stored) == 64


def test_unknown_and_expired_classes(store):
    assert store.class_status("ZZZZZZ") == "unknown"
    assert store.class_status("not a code") == "unknown"
    assert store.class_status(None) == "unknown"
    now = time.time()
    code, token = store.create_class(now=now - cs.TTL - 10)  # made a day ago
    assert store.class_status(code) == "expired"
    assert not store.is_teacher(code, token)
    assert store.vote(code, QID, cs.new_student_id(), 0) == cs.Vote(False, "class")
    assert store.ensure_question(code, QID, "q", OPTIONS) is None
    assert store.sweep() >= 1
    assert store.class_status(code) == "unknown"


def test_teacher_token(live):
    store, code, token = live
    assert store.is_teacher(code, token)
    for bad in ("", token[:-1], token + "x", token.upper() if token.upper() != token else token.lower(), None, 5):
        assert not store.is_teacher(code, bad)
    other, _ = store.create_class()
    assert not store.is_teacher(other, token)
    for action in (store.reveal, store.vote_again, store.reset):
        assert not action(code, QID, "wrong")
    assert store.state(code, QID).round == 1 and not store.state(code, QID).revealed


def test_votes_are_validated(live):
    store, code, _ = live
    sid, t = cs.new_student_id(), time.time()
    assert store.vote(code, "lessons/rope.py#nope", sid, 0, now=t).reason == "question"
    for bad in (-1, len(OPTIONS), 99, True, "1", 1.0, None):
        assert store.vote(code, QID, sid, bad, now=t).reason == "option", bad
    assert store.vote(code, QID, "student", 0, now=t).reason == "student"
    assert store.vote("NOPE", QID, sid, 0, now=t).reason == "class"
    assert store.vote(code, QID, sid, 2, now=t).ok
    assert store.counts(code, QID) == {1: [0, 0, 1, 0]}


def test_one_vote_a_second_and_a_vote_can_change(live):
    store, code, _ = live
    sid, t = cs.new_student_id(), time.time()
    assert store.vote(code, QID, sid, 0, now=t).ok
    assert store.vote(code, QID, sid, 1, now=t + 0.5) == cs.Vote(False, "rate")
    assert store.my_vote(code, QID, sid) == 0
    assert store.vote(code, QID, sid, 1, now=t + 1.0).ok
    assert store.my_vote(code, QID, sid) == 1
    assert store.counts(code, QID) == {1: [0, 1, 0, 0]}  # changed, not counted twice


def test_rounds_reveal_vote_again_reset(live):
    store, code, token = live
    a, b, t = cs.new_student_id(), cs.new_student_id(), time.time()
    assert store.vote(code, QID, a, 0, now=t).ok and store.vote(code, QID, b, 2, now=t).ok
    assert store.vote_again(code, QID, token)
    st = store.state(code, QID)
    assert (st.round, st.is_open, st.revealed) == (2, True, False)
    assert store.my_vote(code, QID, a) is None
    assert store.vote(code, QID, a, 2, now=t + 2).ok
    assert store.counts(code, QID) == {1: [1, 0, 1, 0], 2: [0, 0, 1, 0]}
    assert store.reveal(code, QID, token)
    st = store.state(code, QID)
    assert (st.is_open, st.revealed) == (False, True)
    assert store.vote(code, QID, b, 1, now=t + 4).reason == "closed"
    rows = store.summary(code)
    assert {(r["round"], r["option"], r["votes"]) for r in rows} >= {(1, "rows", 1), (1, "diagonals", 1),
                                                                     (2, "diagonals", 1)}
    assert store.reset(code, QID, token)
    assert store.counts(code, QID) == {1: [0, 0, 0, 0]}
    assert store.state(code, QID).is_open
    assert store.summary(code) == []


def test_questions_are_per_class(live):
    store, code, _ = live
    other, _ = store.create_class()
    assert store.vote(other, QID, cs.new_student_id(), 0).reason == "question"
    assert store.ensure_question(other, QID, "q", OPTIONS).round == 1
    assert store.ensure_question(code, QID, "q", ["a"]) is None  # a question needs two options


def test_nothing_but_codes_ids_and_indices_is_stored(live):
    store, code, _ = live
    sid = cs.new_student_id()
    assert store.vote(code, QID, sid, 1).ok
    with store._tx(write=False) as c:
        votes = c.all("SELECT * FROM pe_votes")
        students = c.all("SELECT * FROM pe_students")
    assert all(len(v) == 6 for v in votes) and all(len(s) == 3 for s in students)


def test_concurrent_votes_are_all_counted(live):
    """Many threads (as many sessions of several processes) vote at once: every acknowledged vote is counted."""
    store, code, _ = live
    ids = [cs.new_student_id() for _ in range(60)]
    acks: list[bool] = []
    lock = threading.Lock()

    def vote(i: int) -> None:
        ok = store.vote(code, QID, ids[i], i % len(OPTIONS)).ok
        with lock:
            acks.append(ok)

    threads = [threading.Thread(target=vote, args=(i,)) for i in range(len(ids))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert all(acks) and len(acks) == len(ids)
    assert sum(store.counts(code, QID)[1]) == len(ids)


def test_sqlite_is_in_wal_mode_and_shared_by_path(tmp_path):
    path = tmp_path / "shared.sqlite3"
    one, two = cs.sqlite_store(path), cs.sqlite_store(path)
    code, token = one.create_class()
    assert two.is_teacher(code, token)
    one.ensure_question(code, QID, "q", OPTIONS)
    assert two.vote(code, QID, cs.new_student_id(), 3).ok
    assert one.counts(code, QID)[1][3] == 1
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_open_store_reads_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(cs.URL_ENV, raising=False)
    monkeypatch.setenv(cs.DB_ENV, str(tmp_path / "env.sqlite3"))
    s = cs.open_store()
    assert s.kind == "sqlite" and s.where == str(tmp_path / "env.sqlite3")
    monkeypatch.delenv(cs.DB_ENV)
    assert cs.open_store().where == str(cs.DEFAULT_DB)
    assert not str(cs.DEFAULT_DB).startswith(str(cs.Path(__file__).resolve().parent.parent))  # outside the repo
    monkeypatch.setenv(cs.URL_ENV, "postgresql://u:secret@db.example:5432/x")
    pg = cs.open_store()
    assert pg.kind == "postgresql" and "secret" not in pg.where

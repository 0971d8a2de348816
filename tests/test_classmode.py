"""Class mode through AppTest: the Teach page, a student's vote, the teacher's counts and controls, the notices
for a bad code or token (docs/HARDENING.md, "Class mode")."""

from __future__ import annotations

import json
import time

import pytest

from conftest import assert_ok, chart_readings, charts_of, open_page, page_text
from posenc import class_store as cs

PAGE, KEY, KEY2 = "lessons/rope.py", "rp_predict", "rp_predict_play"  # the page's two Predicts
QID = f"{PAGE}#{KEY}"


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.delenv(cs.URL_ENV, raising=False)
    monkeypatch.setenv(cs.DB_ENV, str(tmp_path / "class.sqlite3"))
    return cs.open_store()


def student(code: str):
    at = assert_ok(open_page(PAGE, query={"class": code}))
    return at


def pick(at, i: int):
    r = at.radio(key=f"{KEY}_guess")
    r.set_value(r.options[i]).run()
    return assert_ok(at)


def teacher_buttons(at) -> set[str]:
    return {b.key for b in at.button if b.key and b.key.startswith(("pe_reveal_", "pe_again_", "pe_reset_"))}


def answer_shown(at) -> bool:
    return any("Right." in m.value or "Not quite" in m.value or "The answer:" in m.value for m in at.markdown)


def test_teach_page_starts_a_class_with_code_links_and_qr(store):
    at = assert_ok(open_page("lessons/teach.py"))
    at.button(key="pe_start_class").click().run()
    assert_ok(at)
    code, token = at.query_params["class"], at.query_params["teach"]
    code = code[0] if isinstance(code, list) else code
    token = token[0] if isinstance(token, list) else token
    assert store.class_status(code) == "ok" and store.is_teacher(code, token)
    html = " ".join(h.proto.body for h in at.get("html"))
    assert code in html and 'src="data:image/svg+xml' in html and 'alt="QR code of the student link"' in html
    links = [c.value for c in at.code]
    assert any(link.endswith(f"/teach?class={code}") for link in links)
    assert any(f"class={code}&teach={token}" in link for link in links)


def test_qr_code_is_the_student_link_big_enough_for_a_hall():
    import re

    import segno

    from frame import classroom

    url = "http://192.0.2.1:8501/?class=K7Q2XM"
    html = classroom.qr_svg(url)
    qr = segno.make(url, error="m")
    assert qr.svg_data_uri(border=4, dark="#000000", light="#ffffff") in html
    assert re.search(r'<img src="data:image/svg\+xml[^"]+" alt="QR code of the student link"', html)
    assert classroom.QR_MAX_PX >= 480  # ≈ 40 % of a projected 1280 px screen: ~25 cm modules-wide on a hall's wall
    assert qr.designator.endswith("M")


def test_a_students_pick_is_their_vote_and_the_answer_waits_for_reveal(store):
    code, token = store.create_class()
    s = student(code)
    assert not teacher_buttons(s)
    pick(s, 2)
    assert store.counts(code, QID) == {1: [0, 0, 1, 0]}
    assert "Your vote in round 1" in page_text(s) and not answer_shown(s)
    assert store.reveal(code, QID, token)
    s.run()
    assert_ok(s)
    assert answer_shown(s) and any("Right." in m.value for m in s.markdown)
    said = page_text(s)  # the line under the radio no longer offers a change the store would refuse
    assert "Your vote in round 1" in said and "The round is closed." in said and "you can change it" not in said


def test_the_teacher_sees_the_counts_and_controls(store):
    code, token = store.create_class()
    t = assert_ok(open_page(PAGE, query={"class": code, "teach": token}))
    assert {f"pe_reveal_{KEY}", f"pe_again_{KEY}", f"pe_reset_{KEY}"} <= teacher_buttons(t)  # under every Predict
    assert not answer_shown(t)
    for i in (0, 2, 2):
        assert store.vote(code, QID, cs.new_student_id(), i).ok
    t.run()
    assert "3 answered" in page_text(t)
    votes = [r for c, r in zip(charts_of(t), chart_readings(t)) if "Class votes" in c.proto.spec]
    assert votes and "round 1: 3 answered" in votes[0]  # the counts are the chart's reading, after it
    t.button(key=f"pe_again_{KEY}").click().run()
    assert_ok(t)
    assert store.state(code, QID).round == 2 and "round 2" in page_text(t)
    votes = [r for c, r in zip(charts_of(t), chart_readings(t)) if "Class votes" in c.proto.spec]
    assert "round 1: 3 answered, round 2: 0 answered" in votes[0]  # round 2 beside round 1
    t.button(key=f"pe_reveal_{KEY}").click().run()
    assert_ok(t)
    assert store.state(code, QID).revealed and answer_shown(t)
    t.button(key=f"pe_reset_{KEY}").click().run()
    assert_ok(t)
    assert store.counts(code, QID) == {1: [0, 0, 0, 0]}


def mounted(at) -> dict:
    """The data app.py's page part of the in-page component (frame.live.mount) was given this run."""
    import json

    return json.loads(next(e for e in at.get("bidi_component") if e.key == "pe_live").proto.json)


def test_the_page_hands_the_browser_the_voting_id_only_in_a_class(store):
    """The id the component keeps in the browser's cookie (tests/test_browser_class.py reads it back) is the id
    the student votes with; a page outside class mode sets no cookie."""
    from frame import classroom

    code, _ = store.create_class()
    s = student(code)
    data = mounted(s)
    assert data["cookie"] == classroom.COOKIE and cs.valid_student(data["student"])
    pick(s, 1)
    with store._tx(write=False) as c:
        assert c.all("SELECT student FROM pe_votes WHERE code = ?", code) == [(data["student"],)]
    assert "student" not in mounted(assert_ok(open_page(PAGE))) and "cookie" not in mounted(open_page(PAGE))


def test_vote_again_clears_the_students_pick(store):
    code, token = store.create_class()
    s = student(code)
    pick(s, 0)
    store.vote_again(code, QID, token)
    s.run()
    assert_ok(s)
    assert s.radio(key=f"{KEY}_guess").value is None
    time.sleep(1.05)
    pick(s, 2)
    assert store.counts(code, QID) == {1: [1, 0, 0, 0], 2: [0, 0, 1, 0]}


# ---------------------------------------------------------------- docs/HARDENING.md, "Class mode"
def test_every_case_row_names_tests_that_exist():
    """The "Class mode" rows of docs/HARDENING.md that a link cannot show name their tests: those tests exist."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    doc = (root / "docs" / "HARDENING.md").read_text(encoding="utf-8")
    part = doc.split("## Class mode", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`(tests/\w+\.py)::(\w+)`", part)
    assert len(named) >= 10
    for path, name in named:
        assert re.search(rf"^def {name}\(", (root / path).read_text(encoding="utf-8"), re.M), f"{path}::{name}"


def test_the_teacher_exports_the_summary_and_a_student_cannot(store):
    code, token = store.create_class()
    s = student(code)
    pick(s, 2)
    teach = assert_ok(open_page("lessons/teach.py", query={"class": code, "teach": token}))
    assert "1 question answered so far, 1 round in all." in page_text(teach)
    assert [b for b in teach.get("download_button") if b.proto.label.startswith("Download the summary")]
    mine = assert_ok(open_page("lessons/teach.py", query={"class": code}))
    assert not mine.get("download_button")


def test_unknown_code_gives_a_notice_and_the_page_works(store):
    for code in ("ZZZZZZ", "<b>x</b>", "x" * 300):
        at = student(code)
        assert "No live class has the code" in page_text(at)
        assert "<b>" not in page_text(at)
        assert at.get("vega_lite_chart") and not teacher_buttons(at)
        pick(at, 2)
        assert answer_shown(at)  # on their own: the answer as usual
        assert "does not use" not in " ".join(c.value for c in at.sidebar.caption)  # a known URL parameter


def test_expired_code_gives_a_notice_and_the_page_works(store):
    code, token = store.create_class(now=time.time() - cs.TTL - 1)
    at = assert_ok(open_page(PAGE, query={"class": code, "teach": token}))
    assert f"Class {code} has ended" in page_text(at)
    assert not teacher_buttons(at)
    pick(at, 1)
    assert answer_shown(at)


@pytest.mark.parametrize("token", ["", "wrong", "A" * 32, "x" * 500])
def test_wrong_or_missing_teacher_token_never_shows_controls(store, token):
    code, real = store.create_class()
    query = {"class": code} | ({"teach": token} if token else {})
    at = assert_ok(open_page(PAGE, query=query))
    assert not teacher_buttons(at)
    if token:
        assert "not valid for the class" in page_text(at)
    teach = assert_ok(open_page("lessons/teach.py", query=query))
    assert real not in " ".join(c.value for c in teach.code)
    assert "as a student" in page_text(teach)
    assert not [b for b in teach.button if b.key == "pe_class_csv"]


def test_vote_validation_is_server_side(store):
    """A vote the page did not offer is refused by the store, whatever the client sends."""
    code, token = store.create_class()
    sid = cs.new_student_id()
    assert store.vote(code, "lessons/rope.py#invented", sid, 0).reason == "question"
    student(code)  # the page registers its question
    assert store.vote(code, QID, sid, 4).reason == "option"
    store.reveal(code, QID, token)
    assert store.vote(code, QID, sid, 0).reason == "closed"


def test_one_vote_a_second_per_student(store):
    code, _ = store.create_class()
    s = student(code)
    pick(s, 0)
    pick(s, 1)  # within a second
    assert "One vote a second" in page_text(s)
    assert store.counts(code, QID) == {1: [1, 0, 0, 0]}
    time.sleep(1.05)
    pick(s, 3)
    assert store.counts(code, QID) == {1: [0, 0, 0, 1]}


def test_a_page_switch_keeps_the_class_in_the_address(store):
    code, _ = store.create_class()
    at = assert_ok(open_page(None, query={"class": code}))
    at.switch_page("lessons/scramble.py").run()
    assert_ok(at)
    at.query_params.pop("class", None)  # a page switch may drop it: the session puts it back
    at.switch_page(PAGE).run()
    assert_ok(at)
    got = at.query_params.get("class")
    assert (got[0] if isinstance(got, list) else got) == code


def test_polling_student_every_5_s_only_while_open_teacher_within_2_s(store, monkeypatch):
    """The intervals the pages ask Streamlit to rerun their class fragments at (st.fragment(run_every=…)): a
    student's page has ONE poll (rope has two Predicts), every 5 s while a round is open, none once every round on
    the page is closed; the teacher's counts every ≤ 2 s."""
    import streamlit as st

    from frame import classroom

    asked: list[tuple[str, object]] = []  # (fragment, run_every) for every fragment a run registers
    real = st.fragment

    def spy(func=None, *, run_every=None):
        if func is None:
            return lambda f: spy(f, run_every=run_every)
        asked.append((func.__name__, run_every))
        return real(func, run_every=run_every)

    monkeypatch.setattr(st, "fragment", spy)
    code, token = store.create_class()
    s = student(code)
    polls = [every for name, every in asked if name == "_poll"]
    assert polls == [classroom.STUDENT_POLL] and classroom.STUDENT_POLL >= 5
    store.reveal(code, QID, token)  # one of the page's two rounds closed: the other is still open
    asked.clear()
    s.run()
    assert [every for name, every in asked if name == "_poll"] == [classroom.STUDENT_POLL]
    for qid in store.phases(code, PAGE):  # every round on the page closed
        store.reveal(code, qid, token)
    asked.clear()
    s.run()
    assert [every for name, every in asked if name == "_poll"] == [None]  # every round closed: no more polling
    asked.clear()
    assert_ok(open_page(PAGE, query={"class": code, "teach": token}))
    assert ("panel", classroom.TEACHER_POLL) in asked and classroom.TEACHER_POLL <= 2
    assert not [name for name, _ in asked if name == "_poll"]  # the teacher's page has no student poll


def test_a_students_poll_redraws_the_page_only_when_a_round_changed(store, monkeypatch):
    """The first session to draw a page (before its teacher) draws the poll before the store knows the page's later
    questions: those are no reason to redraw the page at every poll; a round revealed or opened anew is, on any
    question of the page."""
    import streamlit as st

    from frame import classroom

    drawn: list[dict] = []  # the rounds each run's poll was drawn with
    real = st.fragment

    def spy(func=None, *, run_every=None):
        if func is None:
            return lambda f: spy(f, run_every=run_every)
        frag = real(func, run_every=run_every)
        if func.__name__ != "_poll":
            return frag
        return lambda code, page, now: (drawn.append(dict(now)), frag(code, page, now))[1]

    monkeypatch.setattr(st, "fragment", spy)
    code, token = store.create_class()
    s = student(code)  # the first on the page
    [first] = drawn
    now = store.phases(code, PAGE)
    assert set(first) == {QID} and f"{PAGE}#{KEY2}" in now  # the later questions came after the poll
    session = {f"_pe_seen_{q.split('#', 1)[1]}": s.session_state[f"_pe_seen_{q.split('#', 1)[1]}"] for q in now}
    assert not classroom._stale(now, first, session)
    store.reveal(code, f"{PAGE}#{KEY2}", token)  # a later question's round: the page must show its answer
    assert classroom._stale(store.phases(code, PAGE), first, session)
    drawn.clear()
    s.run()
    [second] = drawn  # the next run's poll has every question of the page
    session = {k: s.session_state[k] for k in session}
    assert set(second) == set(now) and not classroom._stale(store.phases(code, PAGE), second, session)
    store.vote_again(code, QID, token)
    assert classroom._stale(store.phases(code, PAGE), second, session)


def test_the_vote_reading_says_a_tie_is_a_tie():
    from posenc.charts.classroom import votes

    options = ["left", "right", "neither"]
    assert "“left” and “right” tie with 2 each" in votes(options, {1: [2, 2, 0]}).reading
    assert "most picked “left” (3)" in votes(options, {1: [3, 2, 0]}).reading
    assert "no votes yet" in votes(options, {1: [0, 0, 0]}).reading


def test_the_vote_chart_keeps_its_layout_as_votes_come_in():
    """A vote changes the data only (the x scale spans the counts and each row's room for its printed count), so
    the projected chart is kept and its bars grow; three-way ties list every option."""
    from posenc.charts.classroom import votes

    options = ["left", "right", "neither"]
    figs = [votes(options, c) for c in ({1: [0, 0, 0]}, {1: [1, 0, 0]}, {1: [12, 30, 7]}, {1: [2, 2, 2]})]
    assert all(f.spec == figs[0].spec for f in figs)
    rows = figs[2].datasets["votes"].to_pylist()
    assert {r["room"] for r in rows} == {int(30 * 1.8) + 1} and all(r["room"] > r["votes"] for r in rows)
    layers = {json.dumps(layer["encoding"]["x"]) for layer in figs[0].spec["layer"]}
    assert any('"room"' in x for x in layers) and not any("domain" in x for x in layers)
    assert "“left”, “right” and “neither” tie with 2 each" in figs[3].reading

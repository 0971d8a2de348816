"""Class mode in real Chromium: a teacher and three students, each in their own browser context (own cookies,
own Streamlit session). The students' votes appear on the teacher's view, Reveal reaches every student, and no
student ever sees a teacher control — on one process, and on two processes behind HAProxy sharing one store
(SQLite on this host, and PostgreSQL: the throwaway cluster scripts/test.sh starts).

No test here skips and none asserts a time: every wait is bounded (the polls are 1.5 s and 5 s; the bounds
are generous for a loaded machine).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import sync_playwright

from deploy import serve
from frame import classroom
from harness.browser import launch, streamlit_server, wait_done
from posenc import class_store as cs

PAGE = "rope"
TEACHER_CONTROLS = ("Reveal", "Vote again", "Reset")
WAIT = 60_000  # ms


def answered(page) -> str:
    return page.locator("[data-testid=stMain]").inner_text()


def teacher_controls(page) -> int:
    return sum(page.get_by_role("button", name=name, exact=True).count() for name in TEACHER_CONTROLS)


def pick(page, i: int) -> None:
    group = page.get_by_role("radiogroup").first
    group.locator("label").nth(i).click()
    page.wait_for_timeout(300)
    wait_done(page)


def run_class(browser, base: str, code: str, token: str, servers: list[str] | None = None) -> None:
    """Three students vote 1st, 3rd, 3rd option; the teacher sees 3 answered; Reveal reaches every student."""
    teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    teacher.goto(f"{base}/{PAGE}?class={code}&teach={token}", timeout=WAIT)
    wait_done(teacher)
    assert teacher_controls(teacher) >= 3  # under every Predict of the page
    students = []
    for i in (0, 2, 2):
        ctx = browser.new_context(viewport={"width": 390, "height": 844})
        page = ctx.new_page()
        if servers is not None:
            page.on("response", lambda r: servers.append(r.headers.get("x-posenc-server", ""))
                    if r.url.split("?")[0].rstrip("/").endswith(PAGE) else None)
        page.goto(f"{base}/{PAGE}?class={code}", timeout=WAIT)
        wait_done(page)
        pick(page, i)
        page.get_by_text("Your vote in round 1").first.wait_for(timeout=WAIT)
        assert teacher_controls(page) == 0
        assert not page.get_by_text("Not quite").count() and not page.get_by_text("Right.").count()
        students.append(page)
    # the teacher's counts poll every 1.5 s: the third vote shows up without touching the page
    teacher.get_by_text("3 answered").first.wait_for(timeout=WAIT)
    chart = teacher.locator("[data-testid=stVegaLiteChart]").first
    assert chart.is_visible()
    teacher.get_by_role("button", name="Reveal", exact=True).first.click()
    teacher.get_by_text("round 1 (revealed)").first.wait_for(timeout=WAIT)
    for page, word in zip(students, ("Not quite", "Right.", "Right.")):
        page.get_by_text(word).first.wait_for(timeout=WAIT)  # their page polls every 5 s while the round is open
        assert teacher_controls(page) == 0
    for page in students + [teacher]:
        assert not page.locator("[data-testid=stException]").count()


@pytest.fixture
def sqlite_env(tmp_path, monkeypatch):
    monkeypatch.delenv(cs.URL_ENV, raising=False)
    monkeypatch.setenv(cs.DB_ENV, str(tmp_path / "class.sqlite3"))
    return {cs.DB_ENV: str(tmp_path / "class.sqlite3")}


@pytest.mark.usefixtures("sqlite_env")
def test_teacher_and_three_students_on_one_process():
    with streamlit_server() as base, sync_playwright() as p:
        browser = launch(p)
        try:
            teach = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
            teach.goto(f"{base}/teach", timeout=WAIT)
            wait_done(teach)
            assert teacher_controls(teach) == 0
            teach.get_by_role("button", name="Start a class").click()
            teach.get_by_text("Join code").first.wait_for(timeout=WAIT)
            wait_done(teach)
            qr = teach.locator('img[alt="QR code of the student link"]')
            qr.first.wait_for(timeout=WAIT)
            assert qr.count() == 1 and qr.first.bounding_box()["width"] >= 300  # big enough to scan from afar
            query = parse_qs(urlparse(teach.url).query)
            code, token = query["class"][0], query["teach"][0]
            assert cs.valid_code(code) and len(token) * 6 >= 128
            # a student on the Teach page: no teacher link, no controls
            other = browser.new_context().new_page()
            other.goto(f"{base}/teach?class={code}", timeout=WAIT)
            wait_done(other)
            assert token not in answered(other) and other.get_by_text("as a student").count()
            run_class(browser, base, code, token)
        finally:
            browser.close()


def student_cookie(ctx) -> dict | None:
    return next((c for c in ctx.cookies() if c["name"] == classroom.COOKIE), None)


def my_vote_says(page, option: str) -> None:
    page.get_by_text(f"Your vote in round 1: “{option}”").first.wait_for(timeout=WAIT)


def test_a_reload_is_the_same_student_and_changes_its_vote(sqlite_env):
    """The anonymous id survives a new Streamlit session (a reload; a reconnect through HAProxy is the same): it is
    kept in a browser session cookie, so a student cannot vote twice in a round by reloading."""
    store = cs.sqlite_store(sqlite_env[cs.DB_ENV])
    code, token = store.create_class()
    qid = "lessons/rope.py#rp_predict"
    with streamlit_server() as base, sync_playwright() as p:
        browser = launch(p)
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 720})
            page = ctx.new_page()
            page.goto(f"{base}/{PAGE}?class={code}", timeout=WAIT)
            wait_done(page)
            options = page.get_by_role("radiogroup").first.locator("label")
            first, third = options.nth(0).inner_text().strip(), options.nth(2).inner_text().strip()
            pick(page, 0)
            my_vote_says(page, first)
            cookie = student_cookie(ctx)
            assert cookie is not None and cs.valid_student(cookie["value"])
            assert cookie["expires"] == -1 and cookie["sameSite"] == "Lax" and cookie["path"] == "/"  # a session cookie
            page.reload(timeout=WAIT)  # a new Streamlit session
            wait_done(page)
            my_vote_says(page, first)  # the store knows this student: the vote is theirs, the radio shows it
            assert page.get_by_role("radio", name=first).is_checked()
            page.wait_for_timeout(1_100)  # past the one-vote-a-second limit
            pick(page, 2)
            my_vote_says(page, third)
            assert student_cookie(ctx)["value"] == cookie["value"]
            assert store.counts(code, qid)[1] == [0, 0, 1, 0]  # one student, their changed vote
            teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
            teacher.goto(f"{base}/{PAGE}?class={code}&teach={token}", timeout=WAIT)
            wait_done(teacher)
            teacher.get_by_text(f"Class {code}, round 1 (open): 1 answered").first.wait_for(timeout=WAIT)
        finally:
            browser.close()


@pytest.mark.parametrize("forged", ["forged<b>x</b>", "0" * 31 + "g", "a" * 64])
def test_a_forged_student_cookie_gets_a_fresh_id(sqlite_env, forged):
    """docs/HARDENING.md: a cookie that is not an id this app made is ignored — a fresh id, never an error."""
    store = cs.sqlite_store(sqlite_env[cs.DB_ENV])
    code, _ = store.create_class()
    with streamlit_server() as base, sync_playwright() as p:
        browser = launch(p)
        try:
            ctx = browser.new_context()
            ctx.add_cookies([{"name": classroom.COOKIE, "value": forged, "url": base}])
            page = ctx.new_page()
            page.goto(f"{base}/{PAGE}?class={code}", timeout=WAIT)
            wait_done(page)
            assert not page.locator("[data-testid=stException]").count()
            pick(page, 1)
            page.get_by_text("Your vote in round 1").first.wait_for(timeout=WAIT)
            fresh = student_cookie(ctx)["value"]
            assert fresh != forged and cs.valid_student(fresh)
            with store._tx(write=False) as c:
                assert c.all("SELECT student FROM pe_votes WHERE code = ?", code) == [(fresh,)]
        finally:
            browser.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_same_through_two_processes_behind_haproxy(backend, tmp_path, monkeypatch):
    assert Path(serve.HAPROXY).exists(), f"{serve.HAPROXY} is missing: install Debian's haproxy (scripts/test.sh)"
    if backend == "sqlite":
        monkeypatch.delenv(cs.URL_ENV, raising=False)
        env = {cs.DB_ENV: str(tmp_path / "class.sqlite3")}
        store = cs.sqlite_store(env[cs.DB_ENV])
    else:
        url = os.environ.get("POSENC_TEST_PG_URL")
        if not url:
            pytest.fail("POSENC_TEST_PG_URL is not set: run scripts/test.sh (it starts a throwaway PostgreSQL)")
        env = {cs.URL_ENV: url}
        store = cs.postgres_store(url)
    code, token = store.create_class()
    servers: list[str] = []
    with serve.deployment(workers=2, env=env, timeout=120) as d, sync_playwright() as p:
        browser = launch(p)
        try:
            run_class(browser, d.url, code, token, servers)
        finally:
            browser.close()
    assert {"app1", "app2"} <= set(servers), servers  # the students were spread over both processes
    assert sum(r["votes"] for r in store.summary(code) if r["round"] == 1) == 3  # one store for both processes

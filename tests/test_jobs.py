"""frame.jobs: one job at a time, first in first out, and a queue that tells each job its own place and wait."""

from __future__ import annotations

import threading
import time

import pytest

from frame import jobs


class Gate:
    """A job's work that runs until the test opens its gate; it records when it ran."""

    def __init__(self, log: list, name: str, result=None, fail: bool = False) -> None:
        self.log, self.name, self.result, self.fail = log, name, result, fail
        self.open = threading.Event()
        self.running = threading.Event()

    def __call__(self, report) -> object:
        self.log.append(("start", self.name))
        self.running.set()
        report(0.5)
        assert self.open.wait(5), "the test never opened the gate"
        self.log.append(("end", self.name))
        if self.fail:
            raise RuntimeError("broken on purpose")
        return self.result


def wait_until(cond, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_one_at_a_time_in_order_and_each_waiting_job_knows_its_place_and_wait():
    clock = FakeClock()
    q = jobs.Queue(clock=clock)
    log: list = []
    gates = [Gate(log, f"j{i}", result=i) for i in range(3)]
    a = q.submit("a", gates[0], estimate=10)
    wait_until(gates[0].running.is_set)
    b = q.submit("b", gates[1], estimate=4)
    c = q.submit("c", gates[2], estimate=6)
    assert (q.place(a), q.place(b), q.place(c)) == (0, 1, 2)
    # a has run 2 s of its 10 s estimate and says it is half done (report(0.5)): 2 s left, by its own pace
    clock.t += 2
    assert q.remaining_s(a) == pytest.approx(2.0)
    assert q.wait_s(b) == pytest.approx(2.0)
    assert q.wait_s(c) == pytest.approx(2.0 + 4.0)  # what is left of a, then b's estimate
    assert "starts next" in jobs.status(q, b) and "2nd in the queue" in jobs.status(q, c)
    assert "starts next" not in jobs.status(q, c)
    gates[0].open.set()
    wait_until(gates[1].running.is_set)
    assert q.place(b) == 0 and q.place(c) == 1 and q.place(a) is None
    gates[1].open.set()
    gates[2].open.set()
    wait_until(lambda: c.state == jobs.DONE)
    assert log == [("start", "j0"), ("end", "j0"), ("start", "j1"), ("end", "j1"), ("start", "j2"), ("end", "j2")]
    assert (a.result, b.result, c.result) == (0, 1, 2)


def test_estimates_are_corrected_by_how_long_finished_jobs_took():
    clock = FakeClock()
    q = jobs.Queue(clock=clock)
    log: list = []
    g = Gate(log, "slow")
    job = q.submit("slow", g, estimate=5)
    wait_until(g.running.is_set)
    clock.t += 15  # three times its estimate
    g.open.set()
    wait_until(lambda: job.state == jobs.DONE)
    assert q.correction() == pytest.approx(3.0)
    h = Gate(log, "next")
    blocker = q.submit("running", h, estimate=2)
    wait_until(h.running.is_set)
    h_fraction_free = jobs.Job("x", lambda r: None, 4)
    queued = q.submit("queued", lambda report: None, estimate=4)
    assert q.expected_s(queued) == pytest.approx(12.0)
    assert h_fraction_free.estimate == 4
    h.open.set()
    wait_until(lambda: queued.state == jobs.DONE)
    assert blocker.state == jobs.DONE


def test_a_quick_last_job_never_lets_a_setting_over_its_estimate_budget_train_live():
    """One correction serves every setting, and the estimates' errors differ by setting (a light training ran at
    0.17 of its estimate, the heaviest at 0.39): after a light one, a heavy setting quoted under the budget would
    run far over it. The settings the estimates allow are the ones the benchmark times; a busy machine refuses more."""
    assert jobs.quote(25.0, 0.2, 18.0) == (25.0, False)  # quick machine: still refused, quoted as estimated
    assert jobs.quote(10.0, 0.2, 18.0) == (pytest.approx(2.0), True)  # allowed: quoted as the queue corrects it
    assert jobs.quote(10.0, 2.5, 18.0) == (pytest.approx(25.0), False)  # busy machine: refused, quoted as it runs
    assert jobs.quote(18.0, 1.0, 18.0) == (18.0, True)


def test_the_same_key_is_the_same_job_and_a_failed_one_can_be_tried_again():
    q = jobs.Queue()
    log: list = []
    g = Gate(log, "bad", fail=True)
    g.open.set()
    job = q.submit("k", g, estimate=1)
    wait_until(lambda: job.state == jobs.FAILED)
    assert "RuntimeError: broken on purpose" in job.error
    assert "failed" in jobs.status(q, job)
    again = q.submit("k", lambda report: 42, estimate=1)
    assert again is not job
    wait_until(lambda: again.state == jobs.DONE)
    assert q.submit("k", lambda report: 0, estimate=1) is again and again.result == 42


def test_a_bad_estimate_is_refused_and_words_read_right():
    with pytest.raises(ValueError):
        jobs.Queue().submit("k", lambda r: None, estimate=0)
    assert [jobs.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]
    assert jobs.seconds(0.2) == "about 1 s" and jobs.seconds(125) == "about 2 min 5 s"


def test_a_job_keeps_the_live_dict_its_work_fills_for_every_page_that_follows_it():
    q = jobs.Queue()
    log: list = []
    g = Gate(log, "live")
    board: dict = {}
    job = q.submit("k", g, estimate=1, live=board)
    wait_until(g.running.is_set)
    board["loss"] = [2.3]  # the work writes as it goes; a second visitor's submit finds the same job and dict
    other = q.submit("k", lambda report: None, estimate=1, live={})
    assert other is job and other.live is board and other.live["loss"] == [2.3]
    g.open.set()
    wait_until(lambda: job.state == jobs.DONE)
    assert q.submit("fresh", lambda report: None, estimate=1).live == {}

"""The server's job queue: one long computation (a training) at a time, the others waiting in line.

    q = frame.jobs.queue()                          # one per server process
    job = q.submit(key, work, estimate=9.0)         # work(report) → result; report(fraction) now and then
    q.place(job)                                    # 0: running, 1: next, 2: one job between …
    q.wait_s(job)                                   # seconds until it starts, from what is ahead of it
    frame.jobs.follow(job, on_tick)                 # in a page: a progress bar that tells the truth
    frame.jobs.offered(key, make_work, estimate, …) # in a page: "Train" on request, within a time budget

The queue tells the truth: a waiting job's place is its place in line (not "next" for everyone), and its
expected wait is computed from what is ahead of it — the running job's remaining time (its estimate scaled by
how fast it has gone so far) plus the estimates of the jobs queued before it. Estimates are corrected by how
long finished jobs took against their own estimates (the median ratio of the last few), so a busy machine
is not quoted a quiet machine's times.

A job with the same key as a running, queued or finished one is that job (the result is kept for everyone);
a failed job can be submitted again. No Streamlit in the queue itself; ``follow`` is the page's view of it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from threadpoolctl import threadpool_limits

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
KEEP_FINISHED = 96  # finished jobs kept (their results serve every later visitor)
RATIO_OF = 5  # the correction uses the last 5 finished jobs


@dataclass
class Job:
    key: Hashable
    work: Callable[[Callable[[float], None]], Any]
    estimate: float  # seconds, as quoted when submitted (before the queue's correction)
    state: str = QUEUED
    fraction: float = 0.0  # share of the work done, as the work reports it
    result: Any = None
    error: str | None = None
    live: dict = field(default_factory=dict)  # what the work shows while it runs (e.g. losses so far)
    started: float | None = None
    finished: float | None = None
    done_event: threading.Event = field(default_factory=threading.Event)

    @property
    def elapsed(self) -> float:
        if self.started is None:
            return 0.0
        return (self.finished or time.monotonic()) - self.started


def one_blas_thread():
    """``with one_blas_thread(): …`` runs numpy's BLAS/LAPACK on one thread (process-wide while it lasts). The
    lab's matrices are small, and OpenBLAS's helper threads only fight the machine's 2 cores for them (measured
    on a busy machine: a training's CPU time down by ~10 %, the lab's least-squares probe 2–10 × faster; the same
    numbers bit for bit)."""
    return threadpool_limits(1, user_api="blas")


class Queue:
    """FIFO, one job at a time, on one worker thread (started with the first job)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()  # every job, in order of submission
        self._line: list[Job] = []  # queued jobs, first in line first
        self._running: Job | None = None
        self._ratios: list[float] = []  # actual / estimated seconds of the last finished jobs
        self._worker: threading.Thread | None = None
        self._clock = clock

    # ------------------------------------------------------------------ submitting and reading
    def submit(self, key: Hashable, work: Callable[[Callable[[float], None]], Any], estimate: float,
               live: dict | None = None) -> Job:
        """The job for ``key``: the running, queued or finished one, or a new one at the end of the line
        (``live``: the dict its work fills as it goes, for the pages that follow it)."""
        if not (estimate > 0):
            raise ValueError(f"an estimate is a positive number of seconds; got {estimate!r}")
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.state != FAILED:
                return job
            job = Job(key, work, float(estimate), live={} if live is None else live)
            self._jobs[key] = job
            self._jobs.move_to_end(key)
            self._line.append(job)
            self._trim()
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._serve, daemon=True, name="frame-jobs")
                self._worker.start()
            self._wake.notify()
            return job

    def get(self, key: Hashable) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def correction(self) -> float:
        """How much longer than estimated the last finished jobs took (the median ratio; 1 before any)."""
        with self._lock:
            return self._correction()

    def _correction(self) -> float:
        if not self._ratios:
            return 1.0
        r = sorted(self._ratios)
        mid = len(r) // 2
        return r[mid] if len(r) % 2 else (r[mid - 1] + r[mid]) / 2

    def expected_s(self, job: Job) -> float:
        """The job's own expected duration, corrected."""
        with self._lock:
            return job.estimate * self._correction()

    def place(self, job: Job) -> int | None:
        """0 while running, 1 when it starts next, n when n − 1 jobs wait before it; None when finished."""
        with self._lock:
            if job.state == RUNNING:
                return 0
            if job.state != QUEUED:
                return None
            return self._line.index(job) + 1

    def remaining_s(self, job: Job) -> float:
        """Seconds left of a running job: its corrected estimate, or — once it has reported progress — the time
        so far scaled by the share still to do (whichever the evidence supports better)."""
        with self._lock:
            return self._remaining(job)

    def _remaining(self, job: Job) -> float:
        expected = job.estimate * self._correction()
        if job.state != RUNNING:
            return 0.0 if job.state in (DONE, FAILED) else expected
        spent = self._clock() - (job.started or self._clock())
        if job.fraction >= 0.05:
            return max(0.0, spent / job.fraction - spent)
        return max(0.0, expected - spent)

    def wait_s(self, job: Job) -> float:
        """Seconds until ``job`` starts: what is left of the running job plus every queued job ahead of it."""
        with self._lock:
            if job.state != QUEUED:
                return 0.0
            ahead = self._line[: self._line.index(job)]
            total = self._remaining(self._running) if self._running is not None else 0.0
            return total + sum(j.estimate for j in ahead) * self._correction()

    # ------------------------------------------------------------------ the worker
    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._line:
                    if not self._wake.wait(timeout=30):
                        self._worker = None  # idle: the next submit starts a fresh worker
                        return
                job = self._line.pop(0)
                job.state, job.started = RUNNING, self._clock()
                self._running = job

            def report(fraction: float, job=job) -> None:
                job.fraction = min(max(float(fraction), 0.0), 1.0)

            try:
                with one_blas_thread():
                    result = job.work(report)
            except Exception as err:  # noqa: BLE001 — carried to the page that asked, never swallowed
                with self._lock:
                    job.error = f"{type(err).__name__}: {err}"
                    job.state, job.finished = FAILED, self._clock()
                    self._running = None
            else:
                with self._lock:
                    job.result, job.fraction = result, 1.0
                    job.state, job.finished = DONE, self._clock()
                    self._running = None
                    self._ratios = (self._ratios + [(job.finished - job.started) / job.estimate])[-RATIO_OF:]
            job.done_event.set()

    def _trim(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.state in (DONE, FAILED)]
        for k in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._jobs[k]


_QUEUE: Queue | None = None
_QUEUE_LOCK = threading.Lock()


def queue() -> Queue:
    """The process's one queue (every session of this server shares it)."""
    global _QUEUE
    with _QUEUE_LOCK:
        if _QUEUE is None:
            _QUEUE = Queue()
        return _QUEUE


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def seconds(s: float) -> str:
    """“about 12 s”, “about 2 min 5 s”."""
    s = max(1, round(s))
    return f"about {s} s" if s < 90 else f"about {s // 60} min {s % 60} s"


def status(q: Queue, job: Job) -> str:
    """One line that says where the job stands, from the queue's numbers."""
    place = q.place(job)
    if place is None:
        return "finished" if job.state == DONE else f"failed: {job.error}"
    own = seconds(q.expected_s(job))
    if place == 0:
        return f"training: {100 * job.fraction:.0f} % done, {seconds(q.remaining_s(job))} left"
    wait = seconds(q.wait_s(job))
    if place == 1:
        return f"waiting: another training runs now; this one starts next, in {wait}, then takes {own}"
    between = place - 1
    return (f"waiting: {ordinal(place)} in the queue ({between} training{'s' if between > 1 else ''} queued before "
            f"it, one running); it starts in {wait}, then takes {own}")


def follow(job: Job, on_tick: Callable[[Job], None] | None = None, *, every: float = 0.25,
           q: Queue | None = None) -> Job:
    """In a page: a progress bar that reads the queue's status until the job is finished; ``on_tick(job)``
    draws anything live (e.g. a loss curve) each time. Returns the job (its result or error is set)."""
    import streamlit as st

    q = q or queue()
    bar = st.progress(0.0, text=status(q, job))
    while not job.done_event.wait(every):
        bar.progress(job.fraction if job.state == RUNNING else 0.0, text=status(q, job))
        if on_tick is not None and job.state == RUNNING:
            on_tick(job)
    bar.empty()
    if on_tick is not None:
        on_tick(job)
    return job


def quote(estimate: float, correction: float, budget_s: float) -> tuple[float, bool]:
    """(seconds to quote, whether it may run live): the estimate corrected by the queue; refused when either the
    estimate or the corrected one is over the budget (and then quoted as the larger)."""
    quoted = estimate * correction
    return (quoted, True) if max(estimate, quoted) <= budget_s else (max(estimate, quoted), False)


def offered(key: Hashable, make_work: Callable[[dict], Callable], estimate: float, *, budget_s: float,
            offer: Callable[[float], str], too_slow: Callable[[float], str], button_key: str,
            live_chart: Callable[[dict], Any] | None = None, q: Queue | None = None) -> Any | None:
    """In a page: a long computation run on request, within a time budget. Returns the result of job ``key``
    once it is done; None before (the page shows what it can without it).

    Not yet asked for (or failed before): when the estimate, or the estimate corrected by the queue, is over
    ``budget_s`` the page says ``too_slow(quoted seconds)`` and offers nothing; otherwise it says
    ``offer(quoted seconds)`` under a button. A busy machine (correction over 1) refuses more; a quick last job
    (correction under 1) never offers more than the estimates allow, the settings the benchmark times (one
    correction for every setting would under-quote a heavier one after a light one). Pressed, ``make_work(live)``
    joins the queue (``live``: a dict the work fills as it goes).
    Queued or running — for whoever asked — the page follows it: place, wait, progress and, when ``live_chart``
    is given, the figure ``live_chart(job.live)`` redrawn as it goes."""
    import streamlit as st

    from .skeleton import chart

    q = q or queue()
    job = q.get(key)
    if job is None or job.state == FAILED:
        quoted, fits = quote(estimate, q.correction(), budget_s)
        if not fits:
            st.info(too_slow(quoted), icon=":material/timer_off:")
            return None
        if job is not None:
            st.error(f"The last training of these settings failed: {job.error}", icon=":material/error:")
        st.info(offer(quoted), icon=":material/model_training:")
        if not st.button("Train", key=button_key, type="primary", icon=":material/play_arrow:"):
            return None
        live: dict = {}
        job = q.submit(key, make_work(live), estimate, live=live)
    spot = st.empty()

    def tick(job: Job) -> None:
        if live_chart is not None and job.live:
            with spot.container():
                chart(live_chart(job.live))

    follow(job, tick, q=q)
    spot.empty()
    if job.state == FAILED:
        st.error(f"The training failed: {job.error}", icon=":material/error:")
        return None
    return job.result

"""N `streamlit run app.py` processes behind HAProxy with sticky sessions: `python deploy/serve.py --workers 2`.

Starts the app processes on consecutive loopback ports (127.0.0.1:<backend-port> …), waits until each answers
/_stcore/health, writes an HAProxy configuration from deploy/haproxy.cfg (one `server` line per process) and
starts Debian's haproxy in the foreground in front of them. Ctrl-C (SIGINT) or SIGTERM stops haproxy first, then
every app process (SIGTERM, then SIGKILL after a grace period), and removes the generated configuration.

    python deploy/serve.py --workers 2 --port 8501              # students open http://<this machine>:8501
    python deploy/serve.py --workers 2 --port 8080 --bind 127.0.0.1 --backend-port 9000

The same thing from Python (tests/test_deploy.py, `python -m bench --compare`):

    with deploy.serve.deployment(workers=2) as d:  # free loopback ports
        d.url, d.backends, d.pids

Every process gets the same `server.cookieSecret` (generated per start unless STREAMLIT_SERVER_COOKIE_SECRET is
set), so a student re-pinned to another process after a failure is not rejected by its XSRF check.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TEMPLATE = HERE / "haproxy.cfg"
COOKIE = "posenc_srv"
HAPROXY = os.environ.get("POSENC_HAPROXY") or shutil.which("haproxy") or "/usr/sbin/haproxy"


class DeployError(RuntimeError):
    pass


def _port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_ports(n: int, host: str = "127.0.0.1", tries: int = 200) -> int:
    """The first of ``n`` consecutive free ports on ``host`` (a kernel-chosen start, checked one by one)."""
    for _ in range(tries):
        with socket.socket() as s:
            s.bind((host, 0))
            start = s.getsockname()[1]
        if start + n < 65535 and all(_port_free(start + i, host) for i in range(n)):
            return start
    raise DeployError(f"no {n} consecutive free ports on {host}")


def render_config(port: int, backends: list[int], bind: str = "127.0.0.1", maxconn: int = 2000,
                  server_maxconn: int = 500, template: Path = TEMPLATE) -> str:
    """deploy/haproxy.cfg with its fields filled in and one `server` line per app process."""
    text = string.Template(template.read_text()).substitute(
        bind=bind, port=port, cookie=COOKIE, maxconn=maxconn, server_maxconn=server_maxconn)
    lines = [f"    server app{i + 1} 127.0.0.1:{p} cookie app{i + 1}" for i, p in enumerate(backends)]
    return text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"


def _healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as r:
            return r.read().strip() == b"ok"
    except OSError:
        return False


def _stop(procs: list[subprocess.Popen], grace: float = 10.0) -> None:
    """SIGTERM every process, wait up to ``grace`` seconds in all, SIGKILL what is left."""
    for p in procs:
        if p.poll() is None:
            with suppress(ProcessLookupError):
                p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        with suppress(subprocess.TimeoutExpired):
            p.wait(max(0.1, deadline - time.monotonic()))
    for p in procs:
        if p.poll() is None:
            with suppress(ProcessLookupError):
                p.kill()
            with suppress(subprocess.TimeoutExpired):
                p.wait(5)


@dataclass
class Deployment:
    url: str  # what students open: http://<bind>:<port>
    port: int
    backends: list[str] = field(default_factory=list)  # each app process's own URL
    pids: list[int] = field(default_factory=list)  # the app processes
    haproxy_pid: int = 0
    config: str = ""  # the generated haproxy.cfg
    logs: Path | None = None
    procs: list = field(default_factory=list, repr=False)  # the app processes' Popen objects

    @property
    def pid(self) -> int:
        """The first app process (for a one-process comparison, its memory)."""
        return self.pids[0]


@contextmanager
def deployment(workers: int = 2, port: int | None = None, backend_port: int | None = None,
               bind: str = "127.0.0.1", app: str = "app.py", extra_args: tuple[str, ...] = (),
               env: dict[str, str] | None = None, timeout: float = 90.0,
               logs: Path | None = None) -> Iterator[Deployment]:
    """Start ``workers`` app processes and HAProxy in front; yield the Deployment; stop everything after.

    Ports default to free loopback ports (the app processes on consecutive ones). ``env`` is added to each app
    process's environment. Everything is bounded by ``timeout`` (start-up) and a grace period (shutdown).
    """
    if workers < 1:
        raise DeployError("at least one app process")
    if not Path(HAPROXY).exists():
        raise DeployError(f"haproxy not found ({HAPROXY}): install Debian's haproxy (apt-get install -y haproxy)")
    backend_port = backend_port or free_ports(workers)
    port = port or free_ports(1, bind if bind != "0.0.0.0" else "127.0.0.1")
    ports = [backend_port + i for i in range(workers)]
    busy = [p for p in ports + [port] if not _port_free(p, "127.0.0.1")]
    if busy:
        raise DeployError(f"port(s) already in use: {busy}")
    own_logs = logs is None
    logs = Path(tempfile.mkdtemp(prefix="posenc-deploy-")) if own_logs else logs
    logs.mkdir(parents=True, exist_ok=True)
    child_env = {**os.environ, **(env or {})}
    child_env.setdefault("STREAMLIT_SERVER_COOKIE_SECRET", secrets.token_hex(32))
    procs: list[subprocess.Popen] = []
    haproxy: subprocess.Popen | None = None
    files: list = []
    dep = Deployment(url=f"http://{'127.0.0.1' if bind == '0.0.0.0' else bind}:{port}", port=port, logs=logs)
    try:
        for p in ports:
            log = open(logs / f"app-{p}.log", "w")
            files.append(log)
            cmd = [sys.executable, "-m", "streamlit", "run", app, "--server.headless", "true",
                   "--server.port", str(p), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none",
                   "--browser.gatherUsageStats", "false", *extra_args]
            procs.append(subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=child_env,
                                          start_new_session=True))
            dep.backends.append(f"http://127.0.0.1:{p}")
            dep.pids.append(procs[-1].pid)
        dep.procs = procs
        deadline = time.monotonic() + timeout
        waiting = set(range(workers))
        while waiting:
            for i in sorted(waiting):
                if procs[i].poll() is not None:
                    raise DeployError(f"app process on port {ports[i]} exited with code {procs[i].returncode} "
                                      f"(log: {logs / f'app-{ports[i]}.log'})")
                if _healthy(dep.backends[i]):
                    waiting.discard(i)
            if waiting and time.monotonic() > deadline:
                raise DeployError(f"app process(es) not healthy within {timeout:.0f} s")
            if waiting:
                time.sleep(0.2)
        dep.config = render_config(port, ports, bind=bind)
        cfg = logs / "haproxy.cfg"
        cfg.write_text(dep.config)
        check = subprocess.run([HAPROXY, "-c", "-f", str(cfg)], capture_output=True, text=True, timeout=30)
        if check.returncode != 0:
            raise DeployError(f"haproxy rejected the configuration: {(check.stdout + check.stderr).strip()[:500]}")
        hlog = open(logs / "haproxy.log", "w")
        files.append(hlog)
        # -db: stay in the foreground (this script supervises it); -W is not needed for one process.
        haproxy = subprocess.Popen([HAPROXY, "-db", "-f", str(cfg)], stdout=hlog, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        dep.haproxy_pid = haproxy.pid
        while not _healthy(dep.url):
            if haproxy.poll() is not None:
                raise DeployError(f"haproxy exited with code {haproxy.returncode}: "
                                  f"{(logs / 'haproxy.log').read_text()[-500:]}")
            if time.monotonic() > deadline:
                raise DeployError(f"haproxy did not answer /_stcore/health within {timeout:.0f} s")
            time.sleep(0.2)
        yield dep
    finally:
        _stop([haproxy] if haproxy else [])
        _stop(procs)
        for f in files:
            f.close()
        if own_logs:
            shutil.rmtree(logs, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python deploy/serve.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", "-n", type=int, default=2, help="app processes (default 2; one per core)")
    ap.add_argument("--port", type=int, default=8501, help="the port students open (default 8501)")
    ap.add_argument("--bind", default="0.0.0.0", help="HAProxy's address (default 0.0.0.0: the whole network)")
    ap.add_argument("--backend-port", type=int, default=None,
                    help="first app process port on 127.0.0.1 (default: port + 1, then consecutive)")
    ap.add_argument("--logs", type=Path, default=ROOT / "artifacts" / "deploy",
                    help="where the app and haproxy logs and the generated haproxy.cfg go")
    args = ap.parse_args(argv)
    stop = {"now": False}

    def on_signal(_signum, _frame) -> None:
        stop["now"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        with deployment(workers=args.workers, port=args.port, bind=args.bind, logs=args.logs,
                        backend_port=args.backend_port or args.port + 1) as d:
            print(f"posenc: {args.workers} app process(es) {', '.join(d.backends)} behind HAProxy at "
                  f"http://{args.bind}:{d.port} (logs and haproxy.cfg in {args.logs}); Ctrl-C stops all.",
                  flush=True)
            while not stop["now"]:
                time.sleep(0.5)
                dead = [i for i, p in enumerate(d.procs) if p.poll() is not None]
                if dead:  # HAProxy routes around it; say so (no automatic restart: a teacher should notice)
                    print(f"posenc: app process(es) stopped: {', '.join(d.backends[i] for i in dead)}",
                          file=sys.stderr, flush=True)
                    for name in ("procs", "pids", "backends"):
                        setattr(d, name, [x for i, x in enumerate(getattr(d, name)) if i not in dead])
                    if not d.procs:
                        return 1
    except DeployError as err:
        print(f"posenc: {err}", file=sys.stderr)
        return 1
    print("posenc: stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

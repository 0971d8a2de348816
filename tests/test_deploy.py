"""The multi-process recipe (deploy/serve.py + deploy/haproxy.cfg) works: two app processes behind Debian's
HAProxy on free loopback ports, healthy through the proxy, a real Streamlit session over the websocket through
the proxy, sticky sessions, and a clean stop.

No test here skips: without /usr/sbin/haproxy it fails (scripts/test.sh installs it). No timing is asserted;
every wait is bounded.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import subprocess
import sys
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from conftest import ROOT
from deploy import serve

HEADER = "X-Posenc-Server"


def _get(url: str, opener: urllib.request.OpenerDirector | None = None) -> tuple[str, str | None]:
    """(body, which app process answered) for a GET through the proxy."""
    with (opener or urllib.request.build_opener()).open(url, timeout=10) as r:
        return r.read().decode(errors="replace"), r.headers.get(HEADER)


@pytest.fixture(scope="module")
def deployment():
    assert Path(serve.HAPROXY).exists(), f"{serve.HAPROXY} is missing: install Debian's haproxy (scripts/test.sh)"
    with serve.deployment(workers=2, timeout=120) as d:
        yield d


def test_config_is_valid_haproxy(tmp_path):
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(serve.render_config(18080, [18081, 18082]))
    out = subprocess.run([serve.HAPROXY, "-c", "-f", str(cfg)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    text = cfg.read_text()
    for needed in ("timeout tunnel", "cookie posenc_srv insert", "http-check send meth GET uri /_stcore/health",
                   "server app1 127.0.0.1:18081 cookie app1", "server app2 127.0.0.1:18082 cookie app2"):
        assert needed in text, needed


def test_health_through_the_proxy(deployment):
    assert deployment.url.startswith("http://127.0.0.1:")
    assert len(deployment.backends) == 2 and len(deployment.pids) == 2
    body, server = _get(f"{deployment.url}/_stcore/health")
    assert body.strip() == "ok"
    assert server in {"app1", "app2"}


def test_without_the_cookie_requests_spread(deployment):
    served = Counter(_get(f"{deployment.url}/_stcore/health")[1] for _ in range(6))
    assert set(served) == {"app1", "app2"}, served


def test_the_cookie_pins_a_browser_to_one_process(deployment):
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    _, first = _get(f"{deployment.url}/", opener)
    assert any(c.name == serve.COOKIE and c.value == first for c in jar), list(jar)
    for path in ("/_stcore/health", "/_stcore/host-config", "/", "/_stcore/health", "/_stcore/health"):
        _, server = _get(f"{deployment.url}{path}", opener)
        assert server == first, (path, server, first)


def test_a_streamlit_session_runs_through_the_proxy_on_the_pinned_process(deployment):
    """A real websocket session (harness/wsclient.py) through HAProxy: the page runs, a control moves, the run
    finishes; the upgrade carried the sticky cookie and reached the process the cookie names."""
    from harness.wsclient import Session

    async def go(cookie: str) -> tuple[str | None, int, float, float]:
        s = Session(deployment.url, "", timeout=60, headers={"Cookie": f"{serve.COOKIE}={cookie}"})
        try:
            opened = await s.open()
            seed = s.seed
            assert seed is not None, [c.label for c in s.ordered()]
            rerun = await s.rerun((seed, seed.moved(True)))
            assert seed.value == 1
            return s.server_header, len(s.ordered()), opened, rerun
        finally:
            await s.close()

    for cookie in ("app2", "app1"):
        server, controls, opened, rerun = asyncio.run(asyncio.wait_for(go(cookie), 120))
        assert server == cookie
        assert controls >= 3  # the sidebar's sentence, d and seed at least
        assert opened > 0 and rerun > 0


def test_serve_py_stops_everything_on_sigint(tmp_path):
    """The command-line recipe: starts, answers through HAProxy, and on Ctrl-C stops haproxy and every app
    process."""
    import signal
    import time

    port = serve.free_ports(3)
    logs = tmp_path / "logs"
    proc = subprocess.Popen([sys.executable, "deploy/serve.py", "--workers", "2", "--port", str(port),
                             "--bind", "127.0.0.1", "--backend-port", str(port + 1), "--logs", str(logs)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()  # printed once everything is healthy (bounded by serve.py's timeout)
        assert "behind HAProxy" in line, line + proc.stdout.read()
        assert _get(f"http://127.0.0.1:{port}/_stcore/health")[0].strip() == "ok"
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        assert len(children) == 3, children  # two app processes and haproxy
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, out
        assert "stopped" in out
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() for pid in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in children if Path(f"/proc/{pid}").exists()], "a process outlived serve.py"
        assert (logs / "haproxy.cfg").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_dockerfile_runs_the_app_headless_with_a_health_check():
    """The image cannot be built here; check what it promises. Headless and no usage statistics come from
    .streamlit/config.toml, which the image copies: the Dockerfile does not say them a second time."""
    import tomllib

    text = (ROOT / "Dockerfile").read_text()
    for needed in ("FROM python:3.11-slim", "requirements.txt", "HEALTHCHECK", "/_stcore/health", "USER ",
                   "EXPOSE 8501", "COPY . ."):
        assert needed in text, needed
    instructions = [line for line in text.splitlines() if line and not line.lstrip().startswith("#")]
    for repeated in ("headless", "gatherUsageStats", "GATHER_USAGE_STATS", "fileWatcherType"):
        assert not any(repeated in line for line in instructions), repeated
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".streamlit" not in ignored and ".streamlit/config.toml" not in ignored
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["headless"] is True and cfg["browser"]["gatherUsageStats"] is False


def test_server_config_keeps_every_rerun_cheap():
    """Streamlit's defaults cost every script run (fragment runs included) a full gc.collect(2), ~120 ms with
    numpy, pandas, pyarrow and altair loaded, and a walk over every loaded module for the file watcher. The
    app's config turns both off; BENCHMARKS.md shows what that buys under a lecture hall's load."""
    import tomllib

    from streamlit import config

    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["runner"]["postScriptGC"] is False
    assert cfg["server"]["fileWatcherType"] == "none"
    for key in ("runner.postScriptGC", "server.fileWatcherType"):  # the options still exist in this Streamlit
        config.get_option(key)

"""Real-browser helpers: a fresh Streamlit server on a free loopback port, and Debian's Chromium via Playwright.

No fixture here skips: if Chromium or Playwright is missing, the browser tests fail (CI installs both).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("POSENC_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DONE = "[data-testid=stApp][data-test-script-state=notRunning]"
ARTIFACTS = ROOT / "artifacts" / "screenshots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server(str):
    """The server's base URL (a str), with the pid of its process."""

    pid: int


@contextmanager
def streamlit_server(script: str = "app.py", extra_args: tuple[str, ...] = (),
                     timeout: float = 60.0) -> Iterator[Server]:
    """Start ``streamlit run <script>`` on a free loopback port; yield its base URL (with ``.pid``); stop it after."""
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none",
           "--browser.gatherUsageStats", "false", *extra_args]
    log = open(ROOT / "artifacts" / f"server-{port}.log", "w") if (ROOT / "artifacts").is_dir() else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    base = Server(f"http://127.0.0.1:{port}")
    base.pid = proc.pid
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {proc.returncode}")
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("streamlit did not become healthy in time")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def launch(playwright):
    """Debian's Chromium, headless; fails loudly when it is not installed."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def wait_done(page, timeout: float = 60_000) -> None:
    """Wait until the script run has finished and nothing is still loading."""
    page.wait_for_selector("[data-testid=stApp]", timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_selector(DONE, timeout=timeout)
    page.wait_for_function("() => !document.querySelector('[data-testid=stSkeleton]')", timeout=timeout)


def full_screenshot(page, name: str) -> Path:
    """Screenshot the whole page (Streamlit scrolls inside stMain, so grow the viewport first)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]')?.scrollHeight || 900")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height) + 40, 12000))})
    page.wait_for_timeout(500)
    out = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(out), full_page=True)
    page.set_viewport_size(size)
    return out

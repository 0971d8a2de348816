"""The server's sockets: Nagle's algorithm off, so a rerun's messages reach the browser as soon as they are sent.

Why. Streamlit 1.67 binds its listening socket with ``socket.socket(family=…)``, protocol 0; the connections it
accepts report protocol 0 too, and asyncio sets ``TCP_NODELAY`` only on a socket that reports ``IPPROTO_TCP``
(uvicorn's Kludex/uvicorn#3149 is the same cause). With Nagle on, the first message of a run (``new_session``)
goes out at once and every later one waits for the browser's delayed ACK: 40 ms on Linux, on every rerun and
every fragment run. On this machine the hello-world page's rerun went from 48 ms to 6 ms over the websocket.

How. Once per process, every TCP socket the process holds (the listener, and the connection whose first run is
doing this) gets ``TCP_NODELAY``; sockets the listener accepts later inherit it (Linux, BSD). Public APIs only:
the process's descriptors (``/proc/self/fd`` or ``/dev/fd``), each looked at through a duplicate. Streamlit's
own fix makes this a no-op; ``tests/test_frame.py`` fails when Streamlit binds with ``IPPROTO_TCP`` (drop this).
"""

from __future__ import annotations

import os
import socket

_done = False


def _descriptors() -> list[int]:
    for where in ("/proc/self/fd", "/dev/fd"):
        try:
            return sorted(int(name) for name in os.listdir(where) if name.isdigit())
        except OSError:
            continue
    return []


def no_delay(force: bool = False) -> int:
    """Turn Nagle's algorithm off on every TCP socket of this process (once; ``force`` does it again). Returns
    how many sockets it set."""
    global _done
    if _done and not force:
        return 0
    _done = True
    count = 0
    for fd in _descriptors():
        try:
            dup = os.dup(fd)
        except OSError:  # closed since it was listed (e.g. listdir's own)
            continue
        try:
            sock = socket.socket(fileno=dup)  # takes over ``dup``: closing it leaves ``fd`` open
        except OSError:  # not a socket
            os.close(dup)
            continue
        with sock:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
                try:
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    count += 1
                except OSError:  # e.g. a socket not connected yet on some systems
                    pass
    return count

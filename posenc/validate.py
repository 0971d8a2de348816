"""Argument checks with messages a student can read: the one validation idiom of ``posenc``.

Every public function that takes a number from a page checks it here, and raises ``ValueError`` with a sentence
the page shows as it is (never a traceback). The width caps live here too, one name each:

- ``MAX_D``: the widest model the maths accepts (the demos' arrays stay small enough to draw);
- ``MAX_D_PAGE``: the widest the sidebar's "Model width d" offers (the charts stay readable);
- ``MAX_D_LAB``: the widest the lab trains (a live run stays within its time budget).
"""

from __future__ import annotations

import math

import numpy as np

MAX_D = 1024
MAX_D_PAGE = 512
MAX_D_LAB = 256


def whole(value, name: str, lo: int, hi: int) -> int:
    """``value`` as an int when it is a whole number in lo … hi; otherwise a ValueError a student can read."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number; got {value!r}.")
    v = int(value)
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be between {lo:,} and {hi:,}; got {v:,}.")
    return v


def real(value, name: str, lo: float, hi: float, *, open_lo: bool = False) -> float:
    """``value`` as a float when it is a finite number in lo … hi (above lo when ``open_lo``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number; got {value!r}.")
    v = float(value)
    if not math.isfinite(v) or v > hi or v < lo or (open_lo and v == lo):
        interval = f"({lo:g}, {hi:g}]" if open_lo else f"[{lo:g}, {hi:g}]"
        raise ValueError(f"{name} must be a number in {interval}; got {value!r}.")
    return v


def width(d, *, name: str = "The model width d", lo: int = 2, hi: int = MAX_D, even: bool = False,
          why: str = "sines and cosines come in (sin, cos) pairs") -> int:
    """A model width: a whole number in lo … hi, and even (saying ``why``) where coordinates work in pairs."""
    v = whole(d, name, lo, hi)
    if even and v % 2:
        raise ValueError(f"{name} = {v} is odd: {why}, so it must be even.")
    return v

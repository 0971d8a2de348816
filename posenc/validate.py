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

# The head dimension of the RoPE-stretching modules, and why it is even: one wording for ``width``'s name and why.
HEAD_D = "d (the head dimension)"
ROPE_PAIRS = "RoPE turns the dimensions in pairs"


def whole(value, name: str, lo: int, hi: float) -> int:
    """``value`` as an int when it is a whole number in lo … hi (``math.inf``: no upper bound); otherwise a
    ValueError a student can read."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number; got {value!r}.")
    v = int(value)
    if not lo <= v <= hi:
        allowed = f"at least {lo:,}" if math.isinf(hi) else f"between {lo:,} and {hi:,}"
        raise ValueError(f"{name} must be {allowed}; got {v:,}.")
    return v


def real(value, name: str, lo: float, hi: float, *, open_lo: bool = False) -> float:
    """``value`` as a float when it is a finite number in lo … hi (above lo when ``open_lo``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number; got {value!r}.")
    v = float(value)
    if not math.isfinite(v) or v > hi or v < lo or (open_lo and v == lo):
        raise ValueError(f"{name} must be {_interval(lo, hi, open_lo)}; got {value!r}.")
    return v


def _interval(lo: float, hi: float, open_lo: bool) -> str:
    """The allowed range in words: "a number in [0, 1]", "a number greater than 1", "a finite number"."""
    if math.isinf(hi) and math.isinf(lo):
        return "a finite number"
    if math.isinf(hi):
        return f"a number greater than {lo:g}" if open_lo else f"a number of at least {lo:g}"
    if math.isinf(lo):
        return f"a number of at most {hi:g}"
    return f"a number in ({lo:g}, {hi:g}]" if open_lo else f"a number in [{lo:g}, {hi:g}]"


def width(d, *, name: str = "The model width d", lo: int = 2, hi: int = MAX_D, even: bool = False,
          why: str = "sines and cosines come in (sin, cos) pairs") -> int:
    """A model width: a whole number in lo … hi, and even (saying ``why``) where coordinates work in pairs."""
    v = whole(d, name, lo, hi)
    if even and v % 2:
        raise ValueError(f"{name} = {v} is odd: {why}, so it must be even.")
    return v

"""Position codes: sinusoids, their shift rule, RoPE, binary.

numpy only; angles are always computed in float64.
"""

from __future__ import annotations

import math

import numpy as np

from .chapter import BASE
from .validate import real, whole, width

MAX_POSITION = 10_000_000
MAX_BITS = 62  # the widest binary code: positions below 2^62 stay well inside int64


def check_base(base: float) -> float:
    """A usable base: a finite number > 1 (the paper's is ``chapter.BASE``)."""
    return real(base, f"The base (the paper uses {BASE:g})", 1.0, math.inf, open_lo=True)


def frequencies(d_model: int, base: float = BASE) -> np.ndarray:
    """ω_i = base^(−2i/d) for the pairs i = 0 … d/2 − 1."""
    d = width(d_model, even=True)
    return np.float64(check_base(base)) ** (-np.arange(0, d, 2, dtype=np.float64) / d)


def _positions(positions) -> np.ndarray:
    p = np.atleast_1d(np.asarray(positions, dtype=np.float64))
    if not np.all(np.isfinite(p)):
        raise ValueError("Positions must be finite numbers.")
    return p


def sinusoidal(positions, d_model: int, base: float = BASE) -> np.ndarray:
    """PE(p, 2i) = sin(p / base^(2i/d)),  PE(p, 2i+1) = cos(p / base^(2i/d)).  Shape (n, d)."""
    p = _positions(positions)
    w = frequencies(d_model, base)
    angles = np.outer(p, w)
    pe = np.empty((p.size, 2 * w.size))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def shift_matrix(k: float, d_model: int, base: float = BASE) -> np.ndarray:
    """M_k = diag of blocks [[cos ω_i k, sin ω_i k], [−sin ω_i k, cos ω_i k]]:  PE(p + k) = M_k PE(p).

    Built from k alone, so ``sinusoidal(p + k) == sinusoidal(p) @ shift_matrix(k).T`` for every p.
    """
    w = frequencies(d_model, base)
    c, s = np.cos(w * float(k)), np.sin(w * float(k))
    d = 2 * w.size
    M = np.zeros((d, d))
    idx = np.arange(0, d, 2)
    M[idx, idx] = c
    M[idx, idx + 1] = s
    M[idx + 1, idx] = -s
    M[idx + 1, idx + 1] = c
    return M


def rope_angles(x: np.ndarray, positions, base: float = BASE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x as float64 of shape (…, n, d), and cos θ, sin θ of the angles θ[p, i] = p·base^(−2i/d) (float64)."""
    x = np.asarray(x, dtype=np.float64)
    p = _positions(positions)
    w = frequencies(x.shape[-1], base)
    if x.ndim == 1:
        x = x[None, :]
    if p.size != x.shape[-2]:
        raise ValueError(f"{p.size} positions for {x.shape[-2]} vectors.")
    angles = np.outer(p, w)
    return x, np.cos(angles), np.sin(angles)


def rope(x: np.ndarray, positions, base: float = BASE) -> np.ndarray:
    """RoPE, interleaved pairs turned counter-clockwise by θ = p·base^(−2i/d):

    y_{2i} = x_{2i} cos θ − x_{2i+1} sin θ,   y_{2i+1} = x_{2i} sin θ + x_{2i+1} cos θ.
    x has shape (…, n, d); angles are computed in float64.
    """
    x, c, s = rope_angles(x, positions, base)
    even, odd = x[..., 0::2], x[..., 1::2]
    y = np.empty_like(x)
    y[..., 0::2] = even * c - odd * s
    y[..., 1::2] = even * s + odd * c
    return y


def rope_score(q: np.ndarray, k: np.ndarray, m: float, n: float, base: float = BASE) -> float:
    """score(m, n) = (R_m q)·(R_n k) for a query at position m and a key at n."""
    return float(rope(q[None, :], [m], base)[0] @ rope(k[None, :], [n], base)[0])


def binary(positions, n_bits: int) -> np.ndarray:
    """bit_b(p) = ⌊p / 2^b⌋ mod 2, column b = 0 the least significant bit.  Shape (n, n_bits)."""
    n_bits = whole(n_bits, "The number of bits", 1, MAX_BITS)
    p = np.atleast_1d(np.asarray(positions))
    if p.size and (not np.issubdtype(p.dtype, np.integer)):
        if not np.all(np.isfinite(p.astype(float))) or not np.all(np.equal(np.mod(p, 1), 0)):
            raise ValueError("Binary codes are for whole-number positions.")
    if np.any(p < 0):
        raise ValueError("Positions must be 0 or more for a binary code.")
    if np.any(p >= 2**n_bits):
        raise ValueError(
            f"{n_bits} bits hold positions 0 … {2**n_bits - 1}; position {int(p.max())} does not fit."
        )
    p = p.astype(np.int64)
    return ((p[:, None].astype(np.int64) >> np.arange(n_bits)) & 1).astype(np.int8)

"""Number formats and RoPE: what float32 and bfloat16 do to angles and positions.

Pure numpy. θ_i = base^(−2i/d), i = 0 … d/2 − 1, as in ``posenc.encodings.frequencies``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from posenc.chapter import BASE
from posenc.encodings import frequencies
from posenc.validate import whole

__all__ = ["angle_error_f32", "PairErrors", "angle_errors_f32", "to_bf16", "rope_offset_error"]


def _check_positions(positions: ArrayLike) -> np.ndarray:
    p = np.asarray(positions, dtype=np.float64)
    if np.any(~np.isfinite(p)):
        raise ValueError("positions must be finite numbers")
    if np.any(p < 0):
        raise ValueError("positions count tokens from 0, so they cannot be negative")
    return p


class PairErrors(NamedTuple):
    """The float32 angle of every pair at one position p, and where its error comes from (each shape (d/2,))."""

    angle: np.ndarray  # p·θ_i, exact (float64)
    error: np.ndarray  # |fl32(fl32(p)·fl32(θ_i)) − p·θ_i|
    theta_part: np.ndarray  # |p·fl32(θ_i) − p·θ_i|: from storing θ_i in float32
    product_part: np.ndarray  # |fl32(p·fl32(θ_i)) − p·fl32(θ_i)|: from rounding the product to float32
    spacing: np.ndarray  # the gap between neighbouring float32 numbers at p·θ_i


def angle_errors_f32(p: float, d: int, base: float = BASE) -> PairErrors:
    """Every pair's float32 angle error at one position p, split into its two sources.

    error_i = |fl32(fl32(p)·fl32(θ_i)) − p·θ_i|;  theta_part_i = p·|fl32(θ_i) − θ_i|;
    product_part_i = |fl32(P_i) − P_i| with P_i = fl32(p)·fl32(θ_i) (exact in float64: 24 + 24 bits < 53),
    at most half of spacing_i, the float32 grid step at p·θ_i.  (For p < 2^24, fl32(p) = p.)
    """
    p64 = _check_positions(np.array([p], dtype=np.float64))
    theta64 = frequencies(d, base)
    p32 = p64.astype(np.float32)
    theta32 = theta64.astype(np.float32)
    exact = p64[0] * theta64
    stored = float(p32[0]) * theta32.astype(np.float64)  # the float32 inputs, multiplied exactly
    rounded = (p32[0] * theta32).astype(np.float64)  # the float32 product
    return PairErrors(angle=exact, error=np.abs(rounded - exact),
                      theta_part=np.abs(float(p32[0]) * theta32.astype(np.float64) - float(p32[0]) * theta64),
                      product_part=np.abs(rounded - stored),
                      spacing=np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64))


def angle_error_f32(positions: ArrayLike, d: int, base: float = BASE) -> np.ndarray:
    """Worst angle error, over the d/2 pairs, when p·θ_i is computed in float32 instead of float64.

    err(p) = max_i |fl32(fl32(p) · fl32(θ_i)) − p·θ_i|  (radians, not wrapped mod 2π); same shape as positions.
    θ is rounded once to float32 (the best a float32 pipeline can hold), so this is a lower bound on a real
    float32 pipeline's error.  It is 0 at p = 0: clip before a log-scale chart.  ``angle_errors_f32`` gives the
    error of every pair at one position.
    """
    p64 = _check_positions(positions)
    theta64 = frequencies(d, base)
    flat = p64.reshape(-1)
    exact = flat[:, None] * theta64[None, :]
    approx = flat.astype(np.float32)[:, None] * theta64.astype(np.float32)[None, :]  # float32 product
    err = np.abs(approx.astype(np.float64) - exact).max(axis=1)
    return err.reshape(p64.shape)


def to_bf16(x: ArrayLike) -> np.ndarray:
    """Round to bfloat16 (round to nearest, ties to even) and return the values as float64.

    bf16(x) = top 16 bits of float32(x) after adding 0x7FFF + (bit 16), i.e. an 8-bit significand:
    257 → 256, 258 → 258, 259 → 260.  Inputs are first rounded to float32 (as a real pipeline would).
    """
    with np.errstate(over="ignore"):  # beyond float32's range is beyond bf16's too: ±inf, as in hardware
        x32 = np.asarray(x, dtype=np.float32)
    bits = x32.view(np.uint32).astype(np.uint64)  # uint64: no wrap-around when adding the rounding bias
    lsb = (bits >> np.uint64(16)) & np.uint64(1)
    rounded = ((bits + np.uint64(0x7FFF) + lsb) & np.uint64(0xFFFF0000)).astype(np.uint32)
    out = rounded.view(np.float32).astype(np.float64)
    return np.where(np.isnan(x32), np.nan, out)  # keep NaN a NaN (the rounding could turn it into inf)


_DTYPE_NAMES = ("float64", "float32", "float16", "bfloat16")


def _angles(positions: np.ndarray, theta: np.ndarray, dtype_name: str) -> np.ndarray:
    """p·θ with positions, θ and the product all held in the chosen format; returned as float64."""
    if dtype_name == "bfloat16":
        p = to_bf16(positions)
        t = to_bf16(theta)
        # bf16 tensors multiply with a float32 result that is then stored as bf16
        prod = p.astype(np.float32)[:, None] * t.astype(np.float32)[None, :]
        return to_bf16(prod)
    dt = np.dtype(dtype_name)
    prod = positions.astype(dt)[:, None] * theta.astype(dt)[None, :]
    return prod.astype(np.float64)


def rope_offset_error(
    m: ArrayLike,
    gap: int,
    d: int = 128,
    dtype: DTypeLike | str = "float32",
    base: float = BASE,
    seed: int = 0,
) -> np.ndarray:
    """How far the RoPE score of the pair (m, m + gap) drifts from that of (0, gap) in a given number format.

    err(m) = |score(m, m+gap) − score(0, gap)|, score(a, b) = ⟨R(α(a)) q, R(α(b)) k⟩ / √d, α_i(p) = p·θ_i in ``dtype``.
    Exact maths gives 0 (RoPE depends only on the gap).  q, k ~ N(0, I_d), fixed by ``seed``: the score is the
    attention logit, typically of size ~1.  Only the angles are computed in ``dtype`` (float64, float32, float16,
    "bfloat16"); cos, sin and the dot product are float64, so the error shown comes from the angles alone.
    Same shape as m.
    """
    if isinstance(dtype, str) and dtype.lower() in ("bfloat16", "bf16"):
        dtype_name = "bfloat16"
    else:
        try:
            dtype_name = np.dtype(dtype).name
        except TypeError as exc:
            raise ValueError(f"dtype must be one of {', '.join(_DTYPE_NAMES)}, got {dtype!r}") from exc
        if dtype_name not in _DTYPE_NAMES:
            raise ValueError(f"dtype must be one of {', '.join(_DTYPE_NAMES)}, got {dtype!r}")
    gap = whole(gap, "The gap (in tokens)", 0, math.inf)
    m_arr = _check_positions(m)
    theta = frequencies(d, base)
    if dtype_name == "float16":
        biggest = float(np.finfo(np.float16).max)
        if m_arr.size and float(m_arr.max()) + gap > biggest:
            raise ValueError(
                f"float16 cannot hold position {float(m_arr.max()) + gap:.0f}: its largest number is {biggest:.0f}"
            )

    rng = np.random.default_rng(seed)
    q = rng.standard_normal(d)
    k = rng.standard_normal(d)
    qc = q[0::2] + 1j * q[1::2]  # interleaved pairs as complex numbers
    kc = k[0::2] + 1j * k[1::2]

    h = qc * np.conj(kc)

    def score(pos_q: np.ndarray, pos_k: np.ndarray) -> np.ndarray:
        # q turned by its angles a, k by its own b (as a model does): Σ Re(q_i e^{ia_i} · conj(k_i e^{ib_i})) =
        # Σ Re(h_i e^{i(a_i − b_i)}), one cosine and one sine per pair instead of two complex exponentials
        phi = _angles(pos_q, theta, dtype_name) - _angles(pos_k, theta, dtype_name)
        # summed row by row the same way whatever the rows (a matrix product may not), so m = 0 drifts by 0
        return np.sum(np.cos(phi) * h.real - np.sin(phi) * h.imag, axis=1) / math.sqrt(d)

    flat = m_arr.reshape(-1)
    moved = score(flat, flat + gap)
    origin = score(np.zeros(1), np.full(1, float(gap)))
    return np.abs(moved - origin).reshape(m_arr.shape)

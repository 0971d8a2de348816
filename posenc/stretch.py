"""Stretching RoPE to longer contexts, ALiBi, and RoPE's long-term decay.

Pure numpy. Notation: d is the (even) head dimension, i = 0 … d/2 − 1 indexes the frequency pairs,
θ_i = base^(−2i/d), s is the stretch factor (new context / trained context), L_train the trained context.
Whose formula each is: Position Interpolation, Chen et al. 2023; "NTK-aware scaled RoPE", proposed by bloc97 on
Reddit (r/LocalLLaMA, June 2023) and written up as Definition 1 in §3.1 of the YaRN paper (Peng et al. 2023) — a
static base change that Hugging Face ``modeling_rope_utils`` does not implement; dynamic NTK and YaRN as in Hugging
Face ``modeling_rope_utils`` (``_compute_dynamic_ntk_parameters``, ``_compute_yarn_parameters``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .chapter import BASE
from .encodings import check_base, frequencies
from .validate import HEAD_D, ROPE_PAIRS, real, whole, width

__all__ = [
    "has_slow_pair",
    "wavelengths",
    "rotations_within",
    "pi_frequencies",
    "ntk_frequencies",
    "dynamic_ntk_frequencies",
    "yarn_correction_range",
    "yarn_frequencies",
    "yarn_attention_factor",
    "alibi_slopes",
    "alibi_bias",
    "decay_bound",
    "DELTA",
    "DECAY_IDENTITY",
    "decay_identity_latex",
    "pair_products",
    "rope_score_sum",
    "abel_bound",
    "RopeScoreStats",
    "mean_rope_score",
]


# ----------------------------------------------------------------------------------------------
# input checks (messages are meant for students): ``posenc.validate``, the one idiom
# ----------------------------------------------------------------------------------------------

MAX_LENGTH = 10**12  # tokens: far past any context a model reads


def _check_s(s: float) -> float:
    return real(s, "The stretch factor s (new context / trained context)", 1.0, math.inf)


# ----------------------------------------------------------------------------------------------
# plain RoPE frequencies: ``posenc.encodings.frequencies`` (θ_i = base^(−2i/d)), the one home
# ----------------------------------------------------------------------------------------------


def wavelengths(theta: ArrayLike) -> np.ndarray:
    """Wavelength (tokens per full turn) of each frequency.

    λ_i = 2π / θ_i.
    """
    theta = np.asarray(theta, dtype=np.float64)
    if np.any(~np.isfinite(theta)) or np.any(theta <= 0):
        raise ValueError("every frequency θ must be a positive number to have a wavelength")
    return 2.0 * np.pi / theta


def rotations_within(theta: ArrayLike, L_train: int) -> np.ndarray:
    """How many full turns each pair makes across the trained context.

    r_i = L_train / λ_i = L_train · θ_i / (2π).
    """
    L_train = whole(L_train, "L_train (the trained context length)", 1, MAX_LENGTH)
    return L_train / wavelengths(theta)


def has_slow_pair(d: int, L_train: int, base: float = BASE) -> bool:
    """Whether some pair of RoPE at head dimension d and this base makes less than one full turn in L_train (a
    slow pair: training never showed it every angle)."""
    return bool(rotations_within(frequencies(d, base), L_train).min() < 1)


# ----------------------------------------------------------------------------------------------
# stretching methods
# ----------------------------------------------------------------------------------------------


def pi_frequencies(d: int, s: float, base: float = BASE) -> np.ndarray:
    """Position Interpolation (Chen et al. 2023): every frequency slowed by s.

    θ'_i = θ_i / s  (same as multiplying positions by L_train / L_new).
    """
    d = width(d, name=HEAD_D, even=True, why=ROPE_PAIRS)
    s = _check_s(s)
    return frequencies(d, base) / s


def ntk_frequencies(d: int, s: float, base: float = BASE) -> np.ndarray:
    """NTK-aware scaled RoPE: a bigger base, so the fastest pair is unchanged and the slowest is divided by s.

    base' = base · s^(d/(d−2)),  θ'_i = base'^(−2i/d)  (bloc97, Reddit 2023; YaRN paper §3.1, Eq. 16).
    """
    d = width(d, name=HEAD_D, lo=4, even=True, why=ROPE_PAIRS)  # d/(d−2) needs d > 2
    s = _check_s(s)
    base = check_base(base)
    new_base = base * s ** (d / (d - 2))
    return frequencies(d, new_base)


def dynamic_ntk_frequencies(
    d: int, s: float, seq_len: int, L_train: int, base: float = BASE
) -> np.ndarray:
    """Dynamic NTK: the base grows with the current sequence length (no change up to L_train), as Hugging Face
    ``_compute_dynamic_ntk_parameters`` does.

    base' = base · (s·L/L_train − (s − 1))^(d/(d−2)),  L = max(seq_len, L_train).
    """
    d = width(d, name=HEAD_D, lo=4, even=True, why=ROPE_PAIRS)
    s = _check_s(s)
    base = check_base(base)
    seq_len = whole(seq_len, "seq_len (the current sequence length)", 1, MAX_LENGTH)
    L_train = whole(L_train, "L_train (the trained context length)", 1, MAX_LENGTH)
    L = max(seq_len, L_train)
    new_base = base * (s * L / L_train - (s - 1.0)) ** (d / (d - 2))
    return frequencies(d, new_base)


def _yarn_correction_dim(num_rotations: float, d: int, L_train: int, base: float) -> float:
    """c(r) = d · ln(L_train / (2π r)) / (2 ln base): the (fractional) pair index making r turns in L_train."""
    return d * math.log(L_train / (num_rotations * 2.0 * math.pi)) / (2.0 * math.log(base))


def _check_betas(beta_fast: float, beta_slow: float) -> tuple[float, float]:
    beta_fast = real(beta_fast, "beta_fast (turns of the pairs left alone)", 0.0, math.inf, open_lo=True)
    beta_slow = real(beta_slow, "beta_slow (turns of the pairs fully interpolated)", 0.0, math.inf, open_lo=True)
    if beta_fast < beta_slow:
        raise ValueError(
            f"beta_fast (turns of the pairs left alone, usually 32) must be at least beta_slow "
            f"(turns of the pairs fully interpolated, usually 1), got {beta_fast} < {beta_slow}"
        )
    return beta_fast, beta_slow


def yarn_correction_range(
    d: int,
    L_train: int,
    base: float = BASE,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> tuple[int, int]:
    """YaRN's ramp ends, as pair indices (as in Hugging Face ``find_correction_range``).

    low = floor(c(β_fast)), high = ceil(c(β_slow)), c(r) = d·ln(L_train/(2πr)) / (2 ln base),
    clamped to [0, d − 1] (note: d − 1, not d/2 − 1, exactly as the HF code does).
    """
    d = width(d, name=HEAD_D, even=True, why=ROPE_PAIRS)
    L_train = whole(L_train, "L_train (the trained context length)", 1, MAX_LENGTH)
    base = check_base(base)
    beta_fast, beta_slow = _check_betas(beta_fast, beta_slow)
    low = math.floor(_yarn_correction_dim(beta_fast, d, L_train, base))
    high = math.ceil(_yarn_correction_dim(beta_slow, d, L_train, base))
    return max(low, 0), min(high, d - 1)


def yarn_frequencies(
    d: int,
    s: float,
    L_train: int,
    base: float = BASE,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """YaRN frequencies and the ramp that blends "keep" (ramp 0) with "interpolate" (ramp 1).

    ramp_i = clip((i − low)/(high − low), 0, 1) for pairs i = 0 … d/2 − 1 (high += 0.001 if low == high);
    θ'_i = θ_i·(1 − ramp_i) + (θ_i/s)·ramp_i.  Returns (theta_new, ramp), both shape (d/2,).
    """
    d = width(d, name=HEAD_D, even=True, why=ROPE_PAIRS)
    s = _check_s(s)
    low, high = yarn_correction_range(d, L_train, base, beta_fast, beta_slow)
    theta = frequencies(d, base)
    lo, hi = float(low), float(high)
    if lo == hi:
        hi += 0.001  # HF: "prevent singularity"
    i = np.arange(d // 2, dtype=np.float64)
    ramp = np.clip((i - lo) / (hi - lo), 0.0, 1.0)
    theta_new = theta * (1.0 - ramp) + (theta / s) * ramp
    return theta_new, ramp


def yarn_attention_factor(s: float) -> float:
    """YaRN's "temperature" factor that multiplies cos and sin (logits scale by its square).

    mscale(s) = 0.1·ln s + 1 for s > 1, and 1.0 for s ≤ 1.
    """
    s = real(s, "The stretch factor s", 0.0, math.inf, open_lo=True)
    if s <= 1.0:
        return 1.0
    return 0.1 * math.log(s) + 1.0


# ----------------------------------------------------------------------------------------------
# ALiBi
# ----------------------------------------------------------------------------------------------


def alibi_slopes(n_heads: int) -> np.ndarray:
    """ALiBi head slopes (Press et al.), as the reference ``get_slopes``.

    n a power of two: m_k = 2^(−8k/n), k = 1 … n.  Otherwise, with c = 2^⌊log2 n⌋: the c-head slopes,
    then the 2c-head slopes for k = 1, 3, 5, … for the remaining n − c heads.
    """
    n = whole(n_heads, "n_heads (the number of heads)", 1, math.inf)

    def power_of_two_slopes(m: int) -> np.ndarray:
        k = np.arange(1, m + 1, dtype=np.float64)
        return 2.0 ** (-8.0 * k / m)

    c = 1 << (n.bit_length() - 1)  # largest power of two <= n
    if c == n:
        return power_of_two_slopes(n)
    extra = power_of_two_slopes(2 * c)[0::2][: n - c]  # k = 1, 3, 5, … of the 2c series
    return np.concatenate([power_of_two_slopes(c), extra])


def alibi_bias(n: int, slope: float) -> np.ndarray:
    """ALiBi bias added to the attention scores of one head, for n tokens.

    bias[i, j] = −slope · |i − j| for ALL i, j (symmetric).  In a causal model the mask removes
    j > i anyway, so below the diagonal this is the usual −slope·(i − j); callers apply the mask.
    """
    n = whole(n, "n (the number of tokens)", 1, MAX_LENGTH)
    slope = real(slope, "An ALiBi slope", 0.0, math.inf)
    idx = np.arange(n, dtype=np.float64)
    return -slope * np.abs(idx[:, None] - idx[None, :])


# ----------------------------------------------------------------------------------------------
# RoPE long-term decay
# ----------------------------------------------------------------------------------------------


def decay_bound(deltas: ArrayLike, d: int, base: float = BASE) -> np.ndarray:
    """RoFormer's relative upper bound on the RoPE score at distance Δ (§3.4.3).

    B(Δ) = (2/d) · Σ_{j=1}^{d/2} |S_j(Δ)|,  S_j = Σ_{k=0}^{j−1} e^{iΔθ_k}.  Same shape as deltas; B(−Δ) = B(Δ).
    """
    theta = frequencies(width(d, name=HEAD_D, even=True, why=ROPE_PAIRS), base)
    deltas_arr = np.asarray(deltas, dtype=np.float64)
    if np.any(~np.isfinite(deltas_arr)):
        raise ValueError("every distance Δ must be a finite number")
    flat = deltas_arr.reshape(-1)
    phases = np.exp(1j * flat[:, None] * theta[None, :])  # (n, d/2)
    partial_sums = np.cumsum(phases, axis=1)  # column j−1 holds S_j
    return np.abs(partial_sums).mean(axis=1).reshape(deltas_arr.shape)


# The identity behind RoFormer's bound, for this app's R (``posenc.encodings.rope``: pairs turned
# counter-clockwise by p·θ_i). ``DELTA`` says which way the gap runs: Δ = DELTA[0] − DELTA[1], the query's
# position m minus the key's position n. The page renders ``DECAY_IDENTITY`` and the tests check its meaning
# numerically against ``posenc.encodings.rope_score``.
DELTA = ("m", "n")
DECAY_IDENTITY = (
    r"(R_m q)\cdot(R_n k) = \operatorname{Re}\sum_{i=0}^{d/2-1} h_i\, e^{\mathrm{i}\Delta\theta_i},\qquad "
    rf"\Delta = {DELTA[0]} - {DELTA[1]}",
    r"h_i = (q_{2i} + \mathrm{i}\,q_{2i+1})\,\overline{(k_{2i} + \mathrm{i}\,k_{2i+1})}",
    r"\sum_{i=0}^{d/2-1} h_i\, e^{\mathrm{i}\Delta\theta_i} = \sum_{j=1}^{d/2} (h_{j-1} - h_j)\, S_j(\Delta),"
    r"\qquad h_{d/2} = 0",
    r"S_j(\Delta) = \sum_{k=0}^{j-1} e^{\mathrm{i}\Delta\theta_k}",
    r"\Big|\sum_{i=0}^{d/2-1} h_i\, e^{\mathrm{i}\Delta\theta_i}\Big| \le "
    r"\Big(\max_{0 \le i < d/2} |h_{i+1}-h_i|\Big) \sum_{j=1}^{d/2} |S_j(\Delta)|",
    r"B(\Delta) = \frac{2}{d}\sum_{j=1}^{d/2} |S_j(\Delta)|,\qquad B(0) = \frac{d/2+1}{2}",
)


def decay_identity_latex() -> tuple[str, ...]:
    """The lines of ``DECAY_IDENTITY`` (the page shows exactly these)."""
    return DECAY_IDENTITY


def pair_products(q: ArrayLike, k: ArrayLike) -> np.ndarray:
    """h_i = (q_{2i} + i·q_{2i+1}) · conj(k_{2i} + i·k_{2i+1}), i = 0 … d/2 − 1 (complex, shape (d/2,))."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    if q.shape != k.shape or q.ndim != 1:
        raise ValueError("q and k must be two vectors of the same length")
    width(q.size, name=HEAD_D, even=True, why=ROPE_PAIRS)
    return (q[0::2] + 1j * q[1::2]) * np.conj(k[0::2] + 1j * k[1::2])


def rope_score_sum(q: ArrayLike, k: ArrayLike, delta: float, base: float = BASE) -> complex:
    """Σ_i h_i e^{iΔθ_i}: its real part is the RoPE score (R_m q)·(R_n k) with Δ = m − n (``DELTA``)."""
    h = pair_products(q, k)
    theta = frequencies(2 * h.size, base)
    return complex(np.sum(h * np.exp(1j * float(delta) * theta)))


def abel_bound(q: ArrayLike, k: ArrayLike, delta: float, base: float = BASE) -> float:
    """RoFormer's bound on |Σ_i h_i e^{iΔθ_i}| by Abel summation, with h_{d/2} = 0:

    max_{0 ≤ i < d/2} |h_{i+1} − h_i| · Σ_{j=1}^{d/2} |S_j(Δ)|,  S_j(Δ) = Σ_{k<j} e^{iΔθ_k}.
    """
    h = np.append(pair_products(q, k), 0.0)  # h_{d/2} = 0
    theta = frequencies(2 * (h.size - 1), base)
    partial = np.cumsum(np.exp(1j * float(delta) * theta))  # S_1 … S_{d/2}
    return float(np.max(np.abs(np.diff(h))) * np.sum(np.abs(partial)))


class RopeScoreStats(NamedTuple):
    """Statistics over random (q, k) of the RoPE score at each distance Δ (each field shape (n_deltas,))."""

    mean: np.ndarray
    std: np.ndarray
    p05: np.ndarray  # 5th percentile
    p95: np.ndarray  # 95th percentile


def mean_rope_score(
    deltas: ArrayLike,
    d: int,
    n_samples: int = 256,
    seed: int = 0,
    base: float = BASE,
    correlation: float = 1.0,
) -> RopeScoreStats:
    """The actual RoPE score over many random (q, k): its mean, std and 5–95 % band at each Δ.

    score(Δ) = ⟨R_m q, R_n k⟩ = Re Σ_i h_i e^{iΔθ_i}, h_i = q_i·conj(k_i) (pairs as complex numbers), Δ = m − n.
    Draws k ~ N(0, I_d) and q = ρ·k + √(1−ρ²)·ε, ε ~ N(0, I_d), ρ = ``correlation``.
    With ρ = 1 (a query looking for this very key) the mean is 2·Σ_i cos(Δθ_i) and the score at Δ = 0
    is ‖k‖² ≈ d; divide by the Δ = 0 mean to compare with ``decay_bound``.  With ρ = 0 the mean is 0:
    RoPE by itself gives no preference; the spread is the honest message — the decay is on average only.
    """
    d = width(d, name=HEAD_D, even=True, why=ROPE_PAIRS)
    theta = frequencies(d, base)
    n_samples = whole(n_samples, "n_samples (the number of random keys)", 1, math.inf)
    rho = real(correlation, "The correlation ρ", -1.0, 1.0)
    deltas_arr = np.asarray(deltas, dtype=np.float64).reshape(-1)
    if np.any(~np.isfinite(deltas_arr)):
        raise ValueError("every distance Δ must be a finite number")

    rng = np.random.default_rng(seed)
    k = rng.standard_normal((n_samples, d))
    noise = rng.standard_normal((n_samples, d))
    q = rho * k + math.sqrt(max(0.0, 1.0 - rho * rho)) * noise
    qc = q[:, 0::2] + 1j * q[:, 1::2]  # interleaved pairs (x_2i, x_2i+1) as complex numbers
    kc = k[:, 0::2] + 1j * k[:, 1::2]
    h = qc * np.conj(kc)  # (n_samples, d/2)
    phases = np.exp(1j * theta[:, None] * deltas_arr[None, :])  # (d/2, n_deltas)
    scores = (h @ phases).real  # (n_samples, n_deltas)
    p05, p95 = np.percentile(scores, [5.0, 95.0], axis=0)
    return RopeScoreStats(scores.mean(axis=0), scores.std(axis=0), p05, p95)

"""Page-level computations for "Stretching the context": one call per tab, small scalar arguments in,
a frozen dataclass of arrays and numbers out.

numpy only. The formulas themselves live in ``posenc.stretch`` and ``posenc.precision`` (and the attention
pieces in ``posenc.core``); this module only puts them together the way the page shows them.
Notation: d is the head dimension (even), i = 0 … d/2 − 1 the frequency pairs, θ_i = base^(−2i/d),
s the stretch factor, L_train the trained context, L_new = s·L_train.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from posenc import chapter
from posenc.core import causal_mask, embed, projections, softmax, tokenize
from posenc.encodings import check_base, frequencies, rope_score
from posenc.precision import PairErrors, angle_error_f32, angle_errors_f32, rope_offset_error, to_bf16
from posenc.stretch import (
    alibi_bias,
    alibi_slopes,
    decay_bound,
    dynamic_ntk_frequencies,
    mean_rope_score,
    ntk_frequencies,
    pi_frequencies,
    rope_score_sum,
    rotations_within,
    yarn_attention_factor,
    yarn_correction_range,
    yarn_frequencies,
)
from posenc.validate import HEAD_D, ROPE_PAIRS, whole, width

__all__ = [
    "METHODS",
    "StretchDemo",
    "stretch_demo",
    "unseen_angle_pairs",
    "AlibiDemo",
    "alibi_attention",
    "DecayDemo",
    "decay_demo",
    "ScoreCurves",
    "score_curves",
    "first_drift",
    "Bf16Positions",
    "bf16_positions",
    "bf16_bands",
    "Bf16Context",
    "bf16_context",
    "PrecisionDemo",
    "precision_demo",
]

METHODS = ("RoPE as trained", "PI", "NTK-aware", "Dynamic NTK", "YaRN")
MAX_LENGTH = 100_000_000  # the page's largest context length
MAX_BF16_SPAN = 10_000_000  # positions rounded to bf16 in one call (an array of 80 MB)

# A typical long-context setting: Llama 2's head dimension and 4,096-token training window, stretched 16× to
# 65,536 tokens — the setting of the YaRN paper's 64k Llama 2 models (Peng et al. 2023, s = 16). The page's
# defaults and its Predict questions use it.
TYPICAL_D = 128
TYPICAL_L_TRAIN = 4096
TYPICAL_S = 16
TYPICAL_SEQ_LEN = 8192  # the dynamic-NTK length the page opens with
TYPICAL_SOURCE = "the setting of the YaRN paper's 64k Llama 2 models"

# The asides are drawn at one fixed setting (they do not follow the stretching section's controls).
DECAY_D = TYPICAL_D  # head dimension of the long-term decay section
PROBE = chapter.HUGE_POSITION  # "the vector for position … 5,000,000 is computed on demand"
OFFSET_GAP = 3  # the gap of the offset-invariance check
BF16_WINDOW = (248, 272)  # positions around 256, where bf16 stops holding every integer
DECAY_DROP = 0.05  # the mean score/d must fall by at least this much for "the average decays" to hold
IDENTITY_TOL = 1e-9  # (R_m q)·(R_n k) against Re Σ h_i e^{iΔθ_i}, on scores of size ~10
ALIBI_TOL = 1e-12  # ln(w₂/w₁) against m·(j₂ − j₁)
B0_TOL = 1e-9  # B(0) against (d/2 + 1)/2
OFFSET_TOL = 1e-6  # a drift below this is "the same score" (scores are of size ~1)
BF16_EXACT_UP_TO = 2 ** 8  # bfloat16 keeps 8 significant bits: every whole number up to 256, then gaps


# ---------------------------------------------------------------------------------------------- stretching
def unseen_angle_pairs(theta: np.ndarray, theta_new: np.ndarray, L_train: int, L_eval: int) -> np.ndarray:
    """Which pairs meet angles at L_eval that training never showed them.

    unseen_i = (L_train·θ_i < 2π)  and  (L_eval·θ'_i > L_train·θ_i):
    a pair that completed a full turn within L_train has seen every angle; one that did not has seen only
    angles up to L_train·θ_i, and the stretched pair must stay below that over the new length.
    (Compared with a relative tolerance of 1e-9, so PI's exact equality is not counted.)
    """
    theta = np.asarray(theta, dtype=np.float64)
    theta_new = np.asarray(theta_new, dtype=np.float64)
    seen = L_train * theta
    reached = L_eval * theta_new
    return (seen < 2.0 * np.pi) & (reached > seen * (1.0 + 1e-9))


@dataclass(frozen=True)
class StretchDemo:
    d: int
    L_train: int
    s: int
    seq_len: int
    base: float
    theta: np.ndarray  # (d/2,) θ_i
    rotations: np.ndarray  # (d/2,) r_i = L_train / λ_i
    frequencies: dict  # method name → θ'_i, (d/2,) each; "RoPE as trained" is θ_i itself
    eval_length: dict  # method name → the length the method is judged at (s·L_train; seq_len for dynamic)
    unseen: dict  # method name → (d/2,) bool: pair meets angles beyond training at eval_length
    overreach: dict  # method name → max over pairs with r_i < 1 of L_eval·θ'_i / (L_train·θ_i) (≤ 1: none)
    ntk_base: float  # base · s^(d/(d−2))
    dynamic_scale: float  # s·L/L_train − (s − 1), L = max(seq_len, L_train)
    dynamic_base: float  # base · dynamic_scale^(d/(d−2))
    low: int  # YaRN ramp ends (pair indices)
    high: int
    ramp: np.ndarray  # (d/2,) YaRN ramp γ_i: 0 = keep, 1 = divide by s
    attention_factor: float  # 0.1·ln s + 1

    @property
    def L_new(self) -> int:
        return self.s * self.L_train

    @property
    def pairs(self) -> int:
        return self.d // 2


def stretch_demo(d: int, L_train: int, s: int, seq_len: int, base: float = chapter.BASE) -> StretchDemo:
    """Every stretching method's per-pair frequencies for one (d, L_train, s, seq_len, base).

    r_i = L_train·θ_i/(2π);  PI: θ'_i = θ_i/s;  NTK: base' = base·s^(d/(d−2));
    dynamic NTK: base' = base·(s·L/L_train − (s−1))^(d/(d−2)), L = max(seq_len, L_train);
    YaRN: θ'_i = θ_i·(1 − γ_i) + (θ_i/s)·γ_i, γ_i = clip((i − low)/(high − low), 0, 1), mscale = 0.1·ln s + 1.
    Each method is judged at L_new = s·L_train, dynamic NTK at its own seq_len (see ``unseen_angle_pairs``);
    overreach = max over the pairs that never turned within L_train of L_eval·θ'_i / (L_train·θ_i):
    how far past its largest trained angle the worst such pair is pushed (≤ 1: not at all; 0 if no such pair).
    """
    d = width(d, name=HEAD_D, lo=4, even=True, why=ROPE_PAIRS)  # NTK's d/(d − 2) needs d ≥ 4
    L_train = whole(L_train, "L_train (the trained context)", 8, MAX_LENGTH)
    s = whole(s, "The stretch factor s", 1, 1024)
    seq_len = whole(seq_len, "seq_len (the current length)", 1, MAX_LENGTH * 1024)
    base = check_base(base)
    theta = frequencies(d, base)
    yarn_theta, ramp = yarn_frequencies(d, float(s), L_train, base)
    freqs = {
        "RoPE as trained": theta,
        "PI": pi_frequencies(d, float(s), base),
        "NTK-aware": ntk_frequencies(d, float(s), base),
        "Dynamic NTK": dynamic_ntk_frequencies(d, float(s), seq_len, L_train, base),
        "YaRN": yarn_theta,
    }
    L_new = s * L_train
    evals = {m: (seq_len if m == "Dynamic NTK" else L_new) for m in METHODS}
    unseen = {m: unseen_angle_pairs(theta, freqs[m], L_train, evals[m]) for m in METHODS}
    slow = L_train * theta < 2.0 * np.pi
    overreach = {m: float(np.max(evals[m] * freqs[m][slow] / (L_train * theta[slow]))) if slow.any() else 0.0
                 for m in METHODS}
    low, high = yarn_correction_range(d, L_train, base)
    dyn_scale = s * max(seq_len, L_train) / L_train - (s - 1.0)
    return StretchDemo(
        d=d, L_train=L_train, s=s, seq_len=seq_len, base=base, theta=theta,
        rotations=rotations_within(theta, L_train), frequencies=freqs, eval_length=evals, unseen=unseen,
        overreach=overreach,
        ntk_base=base * float(s) ** (d / (d - 2)), dynamic_scale=dyn_scale,
        dynamic_base=base * dyn_scale ** (d / (d - 2)), low=low, high=high, ramp=ramp,
        attention_factor=yarn_attention_factor(float(s)),
    )


# ---------------------------------------------------------------------------------------------- ALiBi
@dataclass(frozen=True)
class AlibiDemo:
    tokens: list
    slopes: np.ndarray  # (H,) m_h
    base_heads: int  # c = 2^⌊log2 H⌋: heads 1 … c use the c-head series, the rest the 2c-head series
    scores: np.ndarray  # (n, n) QKᵀ/√d, the same for every head here
    bias: np.ndarray  # (H, n, n) −m_h·|i − j| (unmasked)
    weights: np.ndarray  # (H, n, n) softmax(scores + bias) with the causal mask
    plain_weights: np.ndarray  # (n, n) the same without any bias (no position information at all)
    copies: tuple | None  # (j1, j2) 0-based: the first two copies (``chapter.copies``)
    query: int | None  # 0-based: the query that reads both copies (``chapter.query_seeing``, causal)
    copy_log_ratio: np.ndarray | None  # (H,) ln(w[q, j2] / w[q, j1]) for that query q
    copy_expected: np.ndarray | None  # (H,) m_h·(j2 − j1)


def alibi_attention(sentence: str, d: int, seed: int, n_heads: int) -> AlibiDemo:
    """Causal attention on the sentence with ALiBi instead of any position vector, for H heads.

    A_h = softmax(Q Kᵀ/√d − m_h·|i − j| + M),  Q = X W_Q, K = X W_K, X = word vectors only,
    M_ij = 0 for j ≤ i and −∞ for j > i (the causal mask).  Every head here shares W_Q and W_K, so the
    heads differ only by their slope m_h (``alibi_slopes``).
    For two copies j1 < j2 of one word (same vector, same key, same raw score), any query q ≥ j2 gives
    ln(w_j2 / w_j1) = m_h·(j2 − j1) exactly: ALiBi tells them apart by distance alone. The copies and the query
    are the app's picks (``chapter.copies``, ``chapter.query_seeing``).
    """
    tokens = tokenize(sentence)
    H = whole(n_heads, "The number of heads", 1, 64)
    n = len(tokens)
    X = embed(tokens, d, seed)
    W_q, W_k, _ = projections(d, seed)
    Q, K = X @ W_q, X @ W_k
    scores = Q @ K.T / math.sqrt(K.shape[-1])
    slopes = alibi_slopes(H)
    bias = np.stack([alibi_bias(n, m) for m in slopes])
    mask = causal_mask(n)
    weights = softmax(np.where(mask[None], scores[None] + bias, -np.inf), axis=-1)
    plain = softmax(np.where(mask, scores, -np.inf), axis=-1)

    copies = log_ratio = expected = None
    query = None
    both = chapter.copies(tokens)[:2]
    if len(both) == 2:
        copies = (both[0], both[1])
        query = chapter.query_seeing(tokens, list(copies), causal=True)
        j1, j2 = copies
        log_ratio = np.log(weights[:, query, j2]) - np.log(weights[:, query, j1])
        expected = slopes * (j2 - j1)
    return AlibiDemo(tokens=tokens, slopes=slopes, base_heads=1 << (H.bit_length() - 1), scores=scores,
                     bias=bias, weights=weights, plain_weights=plain, copies=copies, query=query,
                     copy_log_ratio=log_ratio, copy_expected=expected)


# ---------------------------------------------------------------------------------------------- long-term decay
@dataclass(frozen=True)
class DecayDemo:
    deltas: np.ndarray  # (n,) Δ = 0, step, 2·step, …
    bound: np.ndarray  # B(Δ)
    bound_rel: np.ndarray  # B(Δ)/B(0)
    mean: np.ndarray  # mean score / d over the samples
    p05: np.ndarray  # 5th percentile / d
    p95: np.ndarray  # 95th percentile / d
    b0: float  # B(0) = (d/2 + 1)/2
    rises: int  # how many steps Δ → Δ + step where B goes up
    n_samples: int
    late_mean: float  # mean score / d averaged over the last tenth of the gaps shown
    identity_error: float  # max |(R_m q)·(R_n k) − Re Σ h_i e^{iΔθ_i}|, Δ = m − n, over chapter.PAIRS

    @property
    def drop(self) -> float:
        """How far the mean score / d falls from Δ = 0 to the far gaps."""
        return float(self.mean[0]) - self.late_mean


def decay_demo(d: int, base: float, correlation: float, seed: int, max_gap: int = 1000, step: int = 2,
               n_samples: int = 256) -> DecayDemo:
    """RoFormer's bound beside the actual RoPE score over random (q, k), on comparable scales.

    bound_rel(Δ) = B(Δ)/B(0), B(Δ) = mean_j |Σ_{k<j} e^{iΔθ_k}|;  score(Δ)/d with k ~ N(0, I),
    q = ρk + √(1−ρ²)ε (so E score(0) = ρ·d).  Both start at 1 for ρ = 1; they are different quantities:
    B bounds |score| up to the factor max_i|h_{i+1} − h_i|·d/2, it is not the score of any given pair.
    """
    max_gap = whole(max_gap, "The largest gap", 1, 10**6)
    step = whole(step, "The gap step", 1, max_gap)
    deltas = np.arange(0, max_gap + 1, step, dtype=np.float64)
    bound = decay_bound(deltas, d, base)
    stats = mean_rope_score(deltas, d, n_samples=n_samples, seed=seed, base=base, correlation=correlation)
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    identity = max(abs(rope_score(q, k, m, n, base) - rope_score_sum(q, k, m - n, base).real)
                   for m, n in chapter.PAIRS)
    tail = max(1, deltas.size // 10)
    return DecayDemo(deltas=deltas, bound=bound, bound_rel=bound / bound[0], mean=stats.mean / d,
                     p05=stats.p05 / d, p95=stats.p95 / d, b0=float(bound[0]),
                     rises=int(np.sum(np.diff(bound) > 0)), n_samples=n_samples,
                     late_mean=float(np.mean(stats.mean[-tail:])) / d, identity_error=float(identity))


@dataclass(frozen=True)
class ScoreCurves:
    """The RoPE score ÷ d as closed forms in ρ (what the page's decay chart computes in the browser).

    For k ~ N(0, I_d), q = ρk + √(1−ρ²)ε, pairs as complex numbers, φ_i = Δθ_i:
    mean(Δ)/d = ρ·cos_mean(Δ),  cos_mean = (2/d)·Σ_i cos φ_i;
    sd(Δ)/d = √(ρ²·cos_sq(Δ) + (1 − ρ²)/d),  cos_sq = (4/d²)·Σ_i cos² φ_i
    (per pair: Var ρ|k_i|² cos φ_i = 4ρ² cos² φ_i, Var Re(ε_i k̄_i e^{iφ_i}) = 2, uncorrelated);
    one draw: score/d = ρ·a(Δ) + √(1−ρ²)·b(Δ), a = Σ|k_i|² cos φ_i / d, b = Re Σ ε_i k̄_i e^{iφ_i} / d,
    with k and ε drawn exactly as ``mean_rope_score(…, n_samples=1, seed)`` draws them."""

    deltas: np.ndarray
    cos_mean: np.ndarray
    cos_sq: np.ndarray
    a: np.ndarray
    b: np.ndarray
    d: int

    def mean(self, rho: float) -> np.ndarray:
        return rho * self.cos_mean

    def sd(self, rho: float) -> np.ndarray:
        return np.sqrt(rho * rho * self.cos_sq + (1.0 - rho * rho) / self.d)

    def one(self, rho: float) -> np.ndarray:
        return rho * self.a + math.sqrt(max(0.0, 1.0 - rho * rho)) * self.b


def score_curves(d: int, base: float, seed: int, max_gap: int = 1000, step: int = 2) -> ScoreCurves:
    """The closed forms of ``ScoreCurves`` on the gaps Δ = 0, step, …, max_gap (see its docstring)."""
    max_gap = whole(max_gap, "The largest gap", 1, 10**6)
    step = whole(step, "The gap step", 1, max_gap)
    theta = frequencies(d, base)
    deltas = np.arange(0, max_gap + 1, step, dtype=np.float64)
    phi = deltas[:, None] * theta[None, :]
    c = np.cos(phi)
    rng = np.random.default_rng(seed)
    k = rng.standard_normal((1, d))[0]
    eps = rng.standard_normal((1, d))[0]
    kc, ec = k[0::2] + 1j * k[1::2], eps[0::2] + 1j * eps[1::2]
    a = (c * np.abs(kc) ** 2).sum(axis=1) / d
    b = np.real((ec * np.conj(kc))[None, :] * np.exp(1j * phi)).sum(axis=1) / d
    return ScoreCurves(deltas=deltas, cos_mean=2.0 * c.sum(axis=1) / d, cos_sq=4.0 * (c * c).sum(axis=1) / d**2,
                       a=a, b=b, d=int(d))


def first_drift(dtype: str, tol: float, d: int = DECAY_D, base: float = chapter.BASE, seed: int = 0,
                gap: int = OFFSET_GAP, upto: int = 10**6) -> int | None:
    """The first start position m ≥ 1 (0-based, as code counts) at which the score of a pair ``gap`` apart, its
    angles held in ``dtype``, drifts from that at m = 0 by at least ``tol`` (``rope_offset_error``); None if
    none does up to ``upto``. Searched exhaustively up to 4,096, then on a log grid (the first hit found there)."""
    near = np.arange(1, min(upto, 4096) + 1, dtype=np.float64)
    far = np.unique(np.round(np.geomspace(4097, upto, 400))) if upto > 4096 else np.zeros(0)
    # in order, a stretch at a time, so an early hit (bfloat16's, at m = 1) stops the search there
    for grid in (near[:64], near[64:512], near[512:], far):
        if grid.size:
            hit = np.flatnonzero(rope_offset_error(grid, gap, d, dtype, base, seed) >= tol)
            if hit.size:
                return int(grid[hit[0]])
    return None


# ---------------------------------------------------------------------------------------------- precision
@dataclass(frozen=True)
class Bf16Positions:
    positions: np.ndarray  # lo … hi
    stored: np.ndarray  # bf16(p)
    distinct: int  # how many different stored values
    max_error: float  # max |bf16(p) − p|


def bf16_positions(lo: int, hi: int) -> Bf16Positions:
    """Positions lo … hi stored in bfloat16 (8-bit significand): bf16(257) = 256.

    distinct = |{bf16(p) : lo ≤ p ≤ hi}|,  max_error = max_p |bf16(p) − p|.
    """
    lo = whole(lo, "The first position", 0, 2**40)
    hi = whole(hi, "The last position", lo, 2**40)
    if hi - lo >= MAX_BF16_SPAN:
        raise ValueError(f"At most {MAX_BF16_SPAN:,} positions at a time; got {hi - lo + 1:,}.")
    p = np.arange(lo, hi + 1, dtype=np.float64)
    stored = to_bf16(p)
    return Bf16Positions(p, stored, _distinct(stored), float(np.max(np.abs(stored - p))))


def _distinct(stored: np.ndarray) -> int:
    """How many different values a sorted run of stored positions holds (rounding keeps the order)."""
    return 1 + int(np.count_nonzero(np.diff(stored))) if stored.size else 0


@dataclass(frozen=True)
class Bf16Context:
    L: int
    bands: list  # rows (first, last, positions, distinct stored values, largest |bf16(p) − p|), see bf16_bands
    distinct: int  # distinct stored values over the whole context 0 … L − 1


def bf16_context(L: int) -> Bf16Context:
    """Positions 0 … L − 1 stored in bf16: by band (``bf16_bands``) and over the whole context.

    distinct = |{bf16(p) : 0 ≤ p ≤ L − 1}|, the same number ``bf16_positions(0, L − 1).distinct`` gives.
    Every position is rounded once; the bands are slices of that one array.
    """
    L = whole(L, "The context length", 1, MAX_BF16_SPAN)
    p = np.arange(L, dtype=np.float64)
    stored = to_bf16(p)
    bounds = [(0, min(255, L - 1))]
    k = 8
    while 2**k < L:
        bounds.append((2**k, min(2 ** (k + 1) - 1, L - 1)))
        k += 1
    rows = []
    for a, b in bounds:
        band = stored[a:b + 1]
        rows.append((a, b, b - a + 1, _distinct(band), float(np.max(np.abs(band - p[a:b + 1])))))
    return Bf16Context(L=L, bands=rows, distinct=_distinct(stored))


def bf16_bands(L: int) -> list[tuple[int, int, int, int, float]]:
    """Positions 0 … L − 1 stored in bf16, by band: [0, 255], then [2^k, 2^(k+1) − 1] for k = 8, 9, …

    Returns rows (first, last, positions, distinct stored values, largest |bf16(p) − p|).
    Every integer up to 256 survives; from 2^k = 256 on, bf16 holds only multiples of 2^(k−7) in the band
    (128 of them), plus 2^(k+1) itself, which the top positions round up to.
    """
    return bf16_context(L).bands


@dataclass(frozen=True)
class PrecisionDemo:
    positions: np.ndarray  # log-spaced whole positions 1 … 10^8
    angle_error: np.ndarray  # float32 vs float64, clipped below at FLOOR
    offset_error: dict  # dtype name → |score(m, m+gap) − score(0, gap)|, clipped below at FLOOR
    probe: int  # the position the readouts are taken at (5,000,000)
    probe_angle_error: float
    probe_offset: dict  # dtype name → error at ``probe`` (unclipped)
    probe_spacing: float  # gap between neighbouring float32 numbers at ``probe`` itself
    pairs: PairErrors  # every pair's float32 angle error at ``probe``, split into its two sources
    gap: int
    floor: float

    @property
    def worst_pair(self) -> int:
        """The pair (0-based) whose float32 angle is furthest off at ``probe``."""
        return int(np.argmax(self.pairs.error))


FLOOR = 1e-17
DTYPES = ("float64", "float32", "bfloat16")


def precision_demo(d: int, base: float, seed: int, gap: int = OFFSET_GAP, probe: int = PROBE) -> PrecisionDemo:
    """float32/bfloat16 against float64 as the position grows.

    angle_error(p) = max_i |fl32(p·θ_i) − p·θ_i|;  offset_error(m) = |score(m, m+gap) − score(0, gap)|
    with the angles in each format (``rope_offset_error``; exact maths gives 0).  Curves are clipped
    below at FLOOR = 1e-17 so that a log axis can show them; the readouts at ``probe`` are not clipped.
    """
    pos = np.unique(np.round(np.geomspace(1, 1e8, 161)))
    pos = np.unique(np.concatenate([pos, [float(probe)]]))
    angle = np.maximum(angle_error_f32(pos, d, base), FLOOR)
    offset = {t: np.maximum(rope_offset_error(pos, gap, d, t, base, seed), FLOOR) for t in DTYPES}
    probe_offset = {t: float(rope_offset_error(np.array([float(probe)]), gap, d, t, base, seed)[0])
                    for t in DTYPES}
    return PrecisionDemo(positions=pos, angle_error=angle, offset_error=offset, probe=probe,
                         probe_angle_error=float(angle_error_f32(np.array([float(probe)]), d, base)[0]),
                         probe_offset=probe_offset, probe_spacing=float(np.spacing(np.float32(probe))),
                         pairs=angle_errors_f32(float(probe), d, base), gap=gap, floor=FLOOR)

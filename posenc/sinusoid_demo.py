"""Sinusoids: the table, its waves, any position on demand, the shift rule, and the catch.

numpy only. ω_i = base^(−2i/d); PE(p, 2i) = sin(p ω_i), PE(p, 2i+1) = cos(p ω_i) (``posenc.encodings``).
Positions p are the chapter's, 1-based for words (the table holds p = 1 … length); the formula also has p = 0,
PE(0) = (0, 1, 0, 1, …), where no word sits. Pair indices i and dimension indices j are 0-based, as in the formula.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import chapter
from .core import block_average, embed, projections
from .encodings import MAX_POSITION, check_base, frequencies, shift_matrix, sinusoidal
from .validate import whole, width

DEFAULT_LENGTH = 100  # positions 1 … 100 in the table by default
FLOAT32_TOL = 1e-6  # float32 "agrees" with float64 when every coordinate is within this
CATCH_SPREAD = 1e-9  # the catch: scores of one gap "differ" when their spread exceeds this (far above rounding)
TERMS_TOL = 1e-12  # the four terms of an additive score add up to it within float64 rounding
SHOWN_PAIRS = 4  # pairs listed in the float32/float64 table
M_SHOWN = 16  # coordinates of M_k drawn
SIM_SIZE = 60  # positions in the similarity matrix
LAYOUT_LENGTH = 200  # positions compared in the layouts aside
MAX_LENGTH = 2000
MAX_SHIFT = 100_000
WAVE_SPAN = 120  # positions drawn as waves (finer sampling would alias the fast pairs over long spans)

#: Diverging colour map shared by the raster and its legend: value → RGB, linear in RGB between stops.
COLOUR_STOPS: tuple[tuple[float, tuple[int, int, int]], ...] = (
    (-1.0, (33, 102, 172)),
    (-0.5, (146, 197, 222)),
    (0.0, (247, 247, 247)),
    (0.5, (253, 184, 99)),
    (1.0, (179, 88, 6)),
)


# ---------------------------------------------------------------- helpers
def angle_tolerance(largest_position: float) -> float:
    """Allowance for float64 rounding in checks at positions up to P: 1e-13·max(P, 100).

    An angle p·ω near P radians is rounded by up to ~P·1.1e-16, so identities that hold exactly on paper agree
    to about that much times the size of the numbers compared.
    """
    return 1e-13 * max(float(largest_position), 100.0)


def check_position(p: int, name: str = "The position") -> int:
    """A whole-number position 0 … ``MAX_POSITION``."""
    return whole(p, name, 0, MAX_POSITION)


def diverging_rgb(values: np.ndarray, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    """Colour-map values to RGB (uint8, shape (…, 3)): lo → blue, (lo + hi)/2 → white, hi → orange.

    Linear interpolation in RGB between ``COLOUR_STOPS`` after rescaling [lo, hi] to [−1, 1]; values outside are
    clipped, NaN is grey.
    """
    v = np.asarray(values, dtype=np.float64)
    t = np.clip(2 * (v - lo) / (hi - lo) - 1, -1, 1)
    xs = np.array([s for s, _ in COLOUR_STOPS])
    rgb = np.stack([np.interp(t, xs, [c[ch] for _, c in COLOUR_STOPS]) for ch in range(3)], axis=-1)
    rgb[np.isnan(v)] = 128
    return np.rint(rgb).astype(np.uint8)


# ---------------------------------------------------------------- the table and its waves
@dataclass(frozen=True)
class Table:
    d: int
    base: float
    length: int  # positions 1 … length
    image: np.ndarray  # (rows, cols, 3) uint8: PE block-averaged to rows × cols
    rows_per_pixel: int
    cols_per_pixel: int
    omegas: np.ndarray  # ω_i, i = 0 … d/2 − 1
    wavelengths: np.ndarray  # λ_i = 2π / ω_i
    wave_pairs: tuple[int, ...]  # pairs drawn as waves (fast … slow)
    wave_positions: np.ndarray  # fine samples of p in [0, min(length, WAVE_SPAN)]
    waves: np.ndarray  # (len(wave_pairs), samples): sin(p ω_i)
    dot_positions: np.ndarray  # integer positions 1 … min(length, WAVE_SPAN)
    dots: np.ndarray  # (len(wave_pairs), …): PE(p, 2i) at those integers


def wave_pairs(d: int) -> tuple[int, ...]:
    """A few pairs from fast to slow: i = 0, 1, d/8, d/4 and d/2 − 1 (duplicates dropped)."""
    half = width(d, even=True) // 2
    return tuple(sorted({0, min(1, half - 1), half // 4, half // 2, half - 1}))


def table(d: int, base: float = chapter.BASE, length: int = 100, max_rows: int = 300, max_cols: int = 256) -> Table:
    """PE(p) for p = 1 … length as an RGB raster (block-averaged to ≤ max_rows × max_cols), and the waves
    sin(p ω_i) of a few pairs; wavelengths λ_i = 2π/ω_i = 2π·base^(2i/d) run from 2π (i = 0) towards 2π·base."""
    d = width(d, even=True)
    base = check_base(base)
    length = whole(length, "The number of positions shown", 2, MAX_LENGTH)
    pe = sinusoidal(np.arange(1, length + 1), d, base)
    small, r, c = block_average(pe, max_rows, max_cols)
    w = frequencies(d, base)
    pairs = wave_pairs(d)
    span = min(length, WAVE_SPAN)
    fine = np.linspace(0.0, float(span), 4 * span + 1)  # 4 samples per position: ≥ 25 per fastest wavelength
    ints = np.arange(1, span + 1, dtype=np.float64)
    idx = np.array(pairs)
    return Table(
        d=d, base=base, length=length, image=diverging_rgb(small), rows_per_pixel=r, cols_per_pixel=c,
        omegas=w, wavelengths=2 * np.pi / w, wave_pairs=pairs, wave_positions=fine,
        waves=np.sin(np.outer(w[idx], fine)), dot_positions=ints, dots=np.sin(np.outer(w[idx], ints)),
    )


# ---------------------------------------------------------------- any position on demand
@dataclass(frozen=True)
class AnyPosition:
    position: int
    d: int
    base: float
    omegas: np.ndarray  # ω_i in float64
    angles64: np.ndarray  # p·ω_i in float64
    angles32: np.ndarray  # fl32(fl32(p)·fl32(ω_i)), as float64 numbers
    pe64: np.ndarray  # PE(p) in float64, shape (d,)
    pe32: np.ndarray  # PE(p) from float32 angles and float32 sin/cos, as float64 numbers
    max_diff: float  # max_j |pe32_j − pe64_j|
    max_angle_error: float  # max_i |angles32_i − angles64_i| (radians)
    float64_error: float  # max_j |pe64_j − PE in extended precision| (NaN where numpy has no wider float)


def any_position(p: int, d: int, base: float = chapter.BASE) -> AnyPosition:
    """PE(p) for one position p ≤ ``MAX_POSITION``, in float64 (``sinusoidal``) and as a float32 pipeline gets it:

    angle32 = fl32(p) ⊗ fl32(ω_i) (a float32 product), PE32 = sin/cos of angle32 in float32.
    """
    p = check_position(p)
    d = width(d, even=True)
    base = check_base(base)
    w = frequencies(d, base)
    pe64 = sinusoidal([p], d, base)[0]
    a32 = np.float32(p) * w.astype(np.float32)  # float32 × float32 → float32
    pe32 = np.empty(d, dtype=np.float32)
    pe32[0::2] = np.sin(a32)
    pe32[1::2] = np.cos(a32)
    diff = np.abs(pe32.astype(np.float64) - pe64)
    a64 = float(p) * w
    return AnyPosition(
        position=p, d=d, base=base, omegas=w, angles64=a64, angles32=a32.astype(np.float64), pe64=pe64,
        pe32=pe32.astype(np.float64), max_diff=float(diff.max()),
        max_angle_error=float(np.max(np.abs(a32.astype(np.float64) - a64))),
        float64_error=_float64_error(p, d, base, pe64),
    )


def _float64_error(p: int, d: int, base: float, pe64: np.ndarray) -> float:
    """max_j |PE64(p, j) − PE(p, j) computed in numpy's extended precision (long double)|."""
    ld = np.longdouble
    if np.finfo(ld).eps >= np.finfo(np.float64).eps:
        return float("nan")
    w = ld(base) ** (-np.arange(0, d, 2).astype(ld) / ld(d))
    a = ld(p) * w
    ref = np.empty(d, dtype=ld)
    ref[0::2] = np.sin(a)
    ref[1::2] = np.cos(a)
    return float(np.max(np.abs(pe64.astype(ld) - ref)))


# ---------------------------------------------------------------- the shift rule
@dataclass(frozen=True)
class Shift:
    k: int
    d: int
    length: int
    M_shown: np.ndarray  # top-left corner of M_k
    shift_error: float  # max over p = 1 … length, over coordinates, of |PE(p + k) − M_k PE(p)|
    dot_ks: tuple[int, ...]
    dot_positions: np.ndarray  # p = 1 … min(length, 250)
    dots: np.ndarray  # (len(dot_ks), …): PE(p)·PE(p + k)
    dot_closed_form: np.ndarray  # Σ_i cos(ω_i k) for each k in dot_ks
    dot_spread: float  # max over k of |PE(p)·PE(p + k) − Σ_i cos(ω_i k)|, every p = 1 … length
    similarity: np.ndarray  # S[a, b] = PE(a)·PE(b), a, b = 1 … sim_size
    toeplitz_error: float  # max |S[a, b] − Σ_i cos(ω_i (b − a))|


COMPARED_SHIFTS = (1, 5, 20)  # the shifts every dot-product chart shows beside the student's k


def shift_rule(k: int, d: int, base: float = chapter.BASE, length: int = 100, shown: int = 16,
               sim_size: int = 60) -> Shift:
    """PE(p + k) = M_k PE(p) with M_k = blockdiag([[cos ω_i k, sin ω_i k], [−sin ω_i k, cos ω_i k]]), checked for
    p = 1 … length at once; and PE(p)·PE(p + k) = Σ_i cos(ω_i k), the same for every p (S is Toeplitz)."""
    k = whole(k, "The shift k", 0, MAX_SHIFT)
    d = width(d, even=True)
    base = check_base(base)
    length = whole(length, "The number of positions checked", 1, MAX_LENGTH)
    w = frequencies(d, base)
    h = w.size
    ks = tuple(sorted({*COMPARED_SHIFTS, k}))
    small_ks = [kk for kk in ks if kk <= 20]
    p = np.arange(1, length + 1)
    pe_all = sinusoidal(np.arange(1, length + 21), d, base)  # PE(1 … length + 20): serves the small shifts
    pe = pe_all[:length]
    pe_k = pe_all[k: k + length] if k <= 20 else sinusoidal(p + k, d, base)
    M = shift_matrix(k, d, base)
    # M_k PE(p) for every p at once, using M's 2×2 diagonal blocks (and checking that M has nothing else)
    blocks = M.reshape(h, 2, h, 2)[np.arange(h), :, np.arange(h), :]  # (h, 2, 2): block i = M[2i:2i+2, 2i:2i+2]
    off_block = float(np.abs(M).sum() - np.abs(blocks).sum())
    even, odd = pe[:, 0::2], pe[:, 1::2]
    moved = np.empty_like(pe)
    moved[:, 0::2] = even * blocks[:, 0, 0] + odd * blocks[:, 0, 1]
    moved[:, 1::2] = even * blocks[:, 1, 0] + odd * blocks[:, 1, 1]
    shift_error = max(float(np.max(np.abs(pe_k - moved))), off_block)
    closed = np.array([np.sum(np.cos(w * kk)) for kk in ks])
    all_dots = np.stack([np.sum(pe * (pe_all[kk: kk + length] if kk in small_ks else pe_k), axis=1)
                         for kk in ks])
    shown_p = min(length, 250)
    s = min(sim_size, length)
    sim = pe[:s] @ pe[:s].T
    gap_values = np.cos(np.outer(np.arange(-(s - 1), s), w)).sum(axis=1)  # Σ_i cos(ω_i g), g = −(s−1) … s−1
    gaps = np.subtract.outer(np.arange(s), np.arange(s))  # a − b
    toeplitz = gap_values[-gaps + s - 1]  # Σ_i cos(ω_i (b − a))
    return Shift(
        k=k, d=d, length=length, M_shown=M[: min(shown, d), : min(shown, d)], shift_error=shift_error,
        dot_ks=ks, dot_positions=p[:shown_p], dots=all_dots[:, :shown_p], dot_closed_form=closed,
        dot_spread=float(np.max(np.abs(all_dots - closed[:, None]))), similarity=sim,
        toeplitz_error=float(np.max(np.abs(sim - toeplitz))),
    )


# ---------------------------------------------------------------- the catch
def additive_scores(x_q: np.ndarray, x_k: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, ms, ns,
                    base: float = chapter.BASE) -> np.ndarray:
    """S[a, b] = ((x_q + PE(m_a)) W_Q)·((x_k + PE(n_b)) W_K) / √d: the score with sinusoids added to the words."""
    d = x_q.shape[-1]
    Q = (x_q[None, :] + sinusoidal(ms, d, base)) @ W_q
    K = (x_k[None, :] + sinusoidal(ns, d, base)) @ W_k
    return Q @ K.T / np.sqrt(d)


@dataclass(frozen=True)
class Catch:
    query_word: str
    key_word: str
    d: int
    pairs: tuple[tuple[int, int], ...]
    scores: np.ndarray  # score of each (m, n) pair
    terms: np.ndarray  # (len(pairs), 4): word·word, word·PE_n, PE_m·word, PE_m·PE_n (each through A = W_Q W_Kᵀ, /√d)
    terms_error: float  # max |Σ terms − score|
    spread: float  # max − min of the scores
    gap: int  # m − n of the pairs
    sweep_m: np.ndarray  # m = gap + 1 … gap + sweep
    sweep_scores: np.ndarray  # score(m, m − gap)

    @property
    def sweep_spread(self) -> float:
        """max − min of the swept score: how far it moves along m with the gap fixed (what its chart draws)."""
        return float(np.ptp(self.sweep_scores)) if self.sweep_scores.size else 0.0


def catch(tokens: list[str], q_index: int, k_index: int, d: int, seed: int = 0, base: float = chapter.BASE,
          pairs: tuple[tuple[int, int], ...] = chapter.PAIRS, sweep: int = 300) -> Catch:
    """The additive scheme's score for one query word at m and one key word at n, for pairs with the same gap:

    ((x_q + PE_m) W_Q)·((x_k + PE_n) W_K)/√d = [x_q A x_kᵀ + x_q A PE_nᵀ + PE_m A x_kᵀ + PE_m A PE_nᵀ]/√d,
    A = W_Q W_Kᵀ. Only the first term is free of positions; the others need not depend on m − n alone.
    """
    d = width(d, even=True)
    if not (0 <= q_index < len(tokens) and 0 <= k_index < len(tokens)):
        raise ValueError("Pick the query and key words by their positions in the sentence.")
    gaps = {m - n for m, n in pairs}
    if len(gaps) != 1:
        raise ValueError("The pairs must all have the same gap m − n.")
    X = embed(tokens, d, seed)
    W_q, W_k, _ = projections(d, seed)
    x_q, x_k = X[q_index], X[k_index]
    ms = np.array([m for m, _ in pairs], dtype=np.float64)
    ns = np.array([n for _, n in pairs], dtype=np.float64)
    scores = np.diag(additive_scores(x_q, x_k, W_q, W_k, ms, ns, base)).copy()
    A = W_q @ W_k.T
    pm, pn = sinusoidal(ms, d, base), sinusoidal(ns, d, base)
    root = np.sqrt(d)
    terms = np.stack([
        np.full(len(pairs), x_q @ A @ x_k),
        pn @ (x_q @ A),
        pm @ (A @ x_k),
        np.einsum("ij,jk,ik->i", pm, A, pn),
    ], axis=1) / root
    gap = gaps.pop()
    sm = np.arange(max(gap, 0) + 1, max(gap, 0) + sweep + 1, dtype=np.float64)
    Q = (x_q[None, :] + sinusoidal(sm, d, base)) @ W_q
    K = (x_k[None, :] + sinusoidal(sm - gap, d, base)) @ W_k
    return Catch(
        query_word=tokens[q_index], key_word=tokens[k_index], d=d, pairs=tuple(pairs), scores=scores,
        terms=terms, terms_error=float(np.max(np.abs(terms.sum(axis=1) - scores))),
        spread=float(scores.max() - scores.min()), gap=gap, sweep_m=sm,
        sweep_scores=np.sum(Q * K, axis=1) / root,
    )


# ---------------------------------------------------------------- the ladder of rates
@dataclass(frozen=True)
class Ladder:
    d: int
    base: float
    ratio: float  # ω_i / ω_{i+1} = λ_{i+1} / λ_i = base^(2/d), the same for every i (NaN for d = 2)
    fastest: float  # λ_0 = 2π
    slowest: float  # λ_{d/2−1} = 2π·base^((d−2)/d)
    limit: float  # 2π·base: what λ_{d/2} would be, one pair past the last
    short_by: float  # 1 − slowest/limit = 1 − base^(−2/d): how far below 2π·base the slowest pair is


def ladder(d: int, base: float = chapter.BASE) -> Ladder:
    """The wavelengths' ladder, from the computed frequencies: neighbouring pairs differ by base^(2/d) (1.3335 at
    d = 64 and the chapter's base), not by 2 as bits do; the slowest pair is 2π·base / base^(2/d), short of 2π·base."""
    w = frequencies(d, base)
    lam = 2 * np.pi / w
    ratio = float(np.mean(w[:-1] / w[1:])) if w.size > 1 else float("nan")
    limit = 2 * np.pi * float(base)
    return Ladder(int(d), float(base), ratio, float(lam[0]), float(lam[-1]), limit, float(1 - lam[-1] / limit))


# ---------------------------------------------------------------- one M_k at the chapter's starts
def shift_at(k: int, starts, d: int, base: float = chapter.BASE) -> float:
    """max |PE(n + k) − M_k PE(n)| over the given starts n (the chapter's 7, 37 and 3997): one matrix for all."""
    n = np.asarray(list(starts), dtype=np.float64)
    M = shift_matrix(k, d, base)
    return float(np.max(np.abs(sinusoidal(n + k, d, base) - sinusoidal(n, d, base) @ M.T)))


# ---------------------------------------------------------------- layouts in the wild
@dataclass(frozen=True)
class Layouts:
    d: int
    length: int
    permutation: np.ndarray  # column j of the halves table is column perm[j] of the interleaved one
    permuted_diff: float  # max |halves − interleaved[:, perm]|: 0, the same numbers in another order
    unpermuted_diff: float  # max |halves − interleaved|: the pictures differ
    t2t_diff: float  # max |t2t table − halves table|: tensor2tensor/fairseq also change the frequencies


def sinusoidal_halves(positions, d: int, base: float = chapter.BASE, t2t: bool = False) -> np.ndarray:
    """The [sin half | cos half] layout: columns 0 … d/2 − 1 hold sin(p ω_i), columns d/2 … d − 1 cos(p ω_i).
    ``t2t``: tensor2tensor's and fairseq's frequencies ω_i = base^(−i/(d/2 − 1)) instead of the paper's."""
    d = width(d, even=True)
    h = d // 2
    if t2t:
        w = np.float64(check_base(base)) ** (-np.arange(h, dtype=np.float64) / max(h - 1, 1))
    else:
        w = frequencies(d, base)
    a = np.outer(np.asarray(positions, dtype=np.float64), w)
    return np.concatenate([np.sin(a), np.cos(a)], axis=1)


def layouts(d: int, base: float = chapter.BASE, length: int = LAYOUT_LENGTH) -> Layouts:
    """The paper's interleaved table against the [sin | cos] halves layout (a permutation of its columns) and
    against tensor2tensor's halves (other frequencies: not a permutation), for positions 1 … length."""
    d = width(d, even=True)
    length = whole(length, "The number of positions compared", 1, MAX_LENGTH)
    p = np.arange(1, length + 1)
    inter = sinusoidal(p, d, base)
    halves = sinusoidal_halves(p, d, base)
    perm = np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])
    return Layouts(d, length, perm, float(np.max(np.abs(halves - inter[:, perm]))),
                   float(np.max(np.abs(halves - inter))),
                   float(np.max(np.abs(sinusoidal_halves(p, d, base, t2t=True) - halves))))

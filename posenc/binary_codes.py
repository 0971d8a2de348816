"""Binary codes: position p written in n bits, bit b flipping every 2^b steps.

numpy only. Position p gets the code of p: the word at (1-based) place p of a sentence gets the code of p, and
n bits write the numbers 0 … 2ⁿ − 1 (0 is a code the formula has, as in the chapter's "0 (0000)", with no word
on it). Bit b is ``bit_b(p) = ⌊p / 2^b⌋ mod 2`` (b = 0 the least significant bit, 0-based), from
``posenc.encodings.binary``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import chapter
from .core import embed
from .encodings import binary, frequencies
from .validate import real, whole

MAX_BITS = 10  # 1024 positions: every chart stays small
DEFAULT_BITS = 4  # the chapter's codes: 7 = 0111, 8 = 1000
SHOWN_MAX = 64  # the Hamming heatmaps show at most the first 64 positions
STEP_BIT = 2  # the bit drawn as a step and smoothed into a sine (wavelength 8: a few jumps on screen)
HARMONICS = (15, 7, 3, 1)  # Fourier partial sums drawn, sharpest first, down to the sine alone
WAVE_POINTS = 480  # samples of the smoothing chart
SLOPE_H = 1 / 32  # grid step of the finite-difference slope
FLAT_SHARE = 0.95  # "the slope is 0 almost everywhere": at least this share of the grid points


def check_bits(n_bits: int) -> int:
    """1 ≤ n ≤ MAX_BITS (a student-readable ValueError otherwise)."""
    return whole(n_bits, "The number of bits", 1, MAX_BITS)


def bit_table(n_bits: int) -> np.ndarray:
    """B[p, b] = ⌊p / 2^b⌋ mod 2 for p = 0 … 2ⁿ − 1, b = 0 … n − 1.  Shape (2ⁿ, n)."""
    n = check_bits(n_bits)
    return binary(np.arange(2**n), n)


def code_strings(table: np.ndarray) -> list[str]:
    """Each row written as binary, most significant bit first: [1, 1, 1, 0] (b = 0 first) → '0111'."""
    return ["".join(str(int(v)) for v in row[::-1]) for row in np.asarray(table)]


def flips_per_bit(table: np.ndarray) -> np.ndarray:
    """f_b = #{p : bit_b(p) ≠ bit_b(p + 1)}: bit b flips every 2^b steps, so f_b = 2^(n−b) − 1 over 0 … 2ⁿ−1."""
    t = np.asarray(table)
    if t.shape[0] < 2:
        return np.zeros(t.shape[1], dtype=np.int64)
    return np.sum(t[1:] != t[:-1], axis=0).astype(np.int64)


def bit_runs(n_bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bit table as runs: bit b is constant on [k·2^b, (k+1)·2^b), value k mod 2.

    Returns (bit, start, stop, value), stop exclusive; 2^(n+1) − 2 runs in all (2046 at n = 10).
    """
    n = check_bits(n_bits)
    bits, starts, stops, values = [], [], [], []
    for b in range(n):
        w = 2**b
        k = np.arange(2 ** (n - b))
        bits.append(np.full(k.size, b))
        starts.append(k * w)
        stops.append((k + 1) * w)
        values.append(k % 2)
    return (np.concatenate(bits), np.concatenate(starts), np.concatenate(stops), np.concatenate(values))


def hamming_matrix(table: np.ndarray) -> np.ndarray:
    """H[i, j] = Σ_b |bit_b(i) − bit_b(j)| = popcount(i ⊕ j): the number of bits in which i and j differ."""
    t = np.asarray(table, dtype=np.int64)
    return np.sum(t[:, None, :] != t[None, :, :], axis=-1)


def hamming(i: int, j: int) -> int:
    """popcount(i ⊕ j), for whole numbers i, j ≥ 0."""
    return bin(int(i) ^ int(j)).count("1")


def distance_matrix(m: int) -> np.ndarray:
    """D[i, j] = |i − j| for i, j = 0 … m − 1."""
    p = np.arange(m)
    return np.abs(p[:, None] - p[None, :])


def bit_of(x, b: int) -> np.ndarray:
    """bit_b(x) = ⌊x / 2^b⌋ mod 2 for real x ≥ 0: a step function, flat between jumps at multiples of 2^b."""
    return np.mod(np.floor(np.asarray(x, dtype=np.float64) / 2.0**b), 2.0)


@dataclass(frozen=True)
class Slope:
    x: np.ndarray
    value: np.ndarray
    slope: np.ndarray  # (bit(x + h) − bit(x)) / h
    h: float
    flat_share: float  # share of grid points where the slope is exactly 0
    jumps: int  # grid steps that cross a jump
    steepest: float  # max |slope| = 1/h at a jump: grows without bound as h → 0


def step_slope(b: int, x_max: float, h: float) -> Slope:
    """The finite-difference slope of bit_b on a grid of step h: 0 everywhere but at the jumps, where it is ±1/h."""
    h = real(h, "The grid step h", 0.0, math.inf, open_lo=True)
    x_max = real(x_max, "The grid's end x_max (past one step h)", h, math.inf, open_lo=True)
    x = np.arange(0.0, x_max, h)
    v = bit_of(x, b)
    s = (bit_of(x + h, b) - v) / h
    return Slope(x, v, s, h, float(np.mean(s == 0)), int(np.sum(s != 0)), float(np.max(np.abs(s))))


def square_wave_sums(b: int, x: np.ndarray, harmonics: list[int]) -> dict[int, np.ndarray]:
    """Fourier partial sums of bit_b, period T = 2^(b+1):

    bit_b(x) = 1/2 − (2/π) Σ_{k odd} sin(2πkx/T) / k.   Keeping only k = 1 gives the sine of the same wavelength,
    1/2 − (2/π) sin(2πx/T).  Returns {K: sum over odd k ≤ K} for each K in ``harmonics``.
    """
    x = np.asarray(x, dtype=np.float64)
    T = 2.0 ** (b + 1)
    out = {}
    for K in harmonics:
        k = np.arange(1, int(K) + 1, 2, dtype=np.float64)
        out[int(K)] = 0.5 - (2 / np.pi) * np.sum(np.sin(2 * np.pi * np.outer(x, k) / T) / k, axis=1)
    return out


@dataclass(frozen=True)
class BinaryDemo:
    n_bits: int
    positions: int  # 2ⁿ
    table: np.ndarray  # (2ⁿ, n)
    flips: np.ndarray  # f_b
    shown: int  # positions in the Hamming heatmaps: min(2ⁿ, 64)
    hamming: np.ndarray  # (shown, shown)
    distance: np.ndarray  # (shown, shown)
    near_pair: tuple[int, int]  # neighbours (|i − j| = 1) that differ in many bits
    far_pair: tuple[int, int]  # far-apart positions that differ in one bit
    worst_pair: tuple[int, int]  # (2^(n−1) − 1, 2^(n−1)): neighbours differing in all n bits
    corr: float  # correlation of H and |i − j| over the shown pairs i ≠ j (nan for n = 1)


def binary_demo(n_bits: int) -> BinaryDemo:
    """Everything the binary page shows for n bits: the table, flips per bit, Hamming vs |i − j|, and the pairs.

    When the chapter's pairs fit (n ≥ 4) they are used: 7 (0111) and 8 (1000) are neighbours that differ in 4
    bits (``chapter.BINARY_NEIGHBOURS``); 0 and 8 are 8 apart and differ in 1 (``chapter.BINARY_FAR``). With fewer
    bits the same roles go to (h − 1, h) and (0, h), h = 2^(n−1).
    """
    n = check_bits(n_bits)
    table = bit_table(n)
    shown = min(2**n, SHOWN_MAX)
    H = hamming_matrix(table[:shown])
    D = distance_matrix(shown)
    (a, b), (c, e) = chapter.BINARY_NEIGHBOURS, chapter.BINARY_FAR
    fits = max(a, b, c, e) < shown
    h = b if fits else 2 ** (n - 1)
    off = ~np.eye(shown, dtype=bool)
    corr = float(np.corrcoef(H[off], D[off])[0, 1]) if shown > 2 else float("nan")
    half = 2 ** (n - 1)
    near, far = ((a, b), (c, e)) if fits else ((h - 1, h), (0, h))
    return BinaryDemo(n, 2**n, table, flips_per_bit(table), shown, H, D, near, far, (half - 1, half), corr)


# ---------------------------------------------------------------- the step and its smoothing
@dataclass(frozen=True)
class Waves:
    b: int  # the bit (0-based)
    wavelength: int  # T = 2^(b+1)
    x: np.ndarray  # WAVE_POINTS samples of [0, 2T]
    curves: list[np.ndarray]  # the bit itself, then the partial sums of HARMONICS (sharpest first, the sine last)
    names: list[str]  # one per curve
    whole: np.ndarray  # whole positions 0 … 2T
    whole_bits: np.ndarray  # bit_b at those
    slope: Slope  # the finite-difference slope of the bit over [0, 2T]


def smoothing(b: int = STEP_BIT) -> Waves:
    """bit_b as a step (with its slope) and as Fourier partial sums down to the sine of the same wavelength."""
    b = whole(b, "The bit b", 0, MAX_BITS)
    T = 2 ** (b + 1)
    x = np.linspace(0.0, 2.0 * T, WAVE_POINTS)
    sums = square_wave_sums(b, x, list(HARMONICS))
    names = ["the bit itself"] + [
        f"odd k up to {K}" if K > 3 else ("k = 1 and 3" if K == 3 else "the sine alone (k = 1)") for K in HARMONICS
    ]
    ints = np.arange(0, 2 * T + 1)
    return Waves(b, T, x, [bit_of(x, b)] + [sums[K] for K in HARMONICS], names, ints, bit_of(ints, b),
                 step_slope(b, 2.0 * T, SLOPE_H))


# ---------------------------------------------------------------- the ladder of rates: bits vs sinusoids
@dataclass(frozen=True)
class Ladders:
    bit_wavelengths: np.ndarray  # 2^(b+1), b = 0 … n − 1: the square wave of bit b
    bit_ratio: float  # λ_{b+1} / λ_b (2 for every b)
    pair_wavelengths: np.ndarray  # 2π / ω_i = 2π·base^(2i/d), i = 0 … d/2 − 1
    pair_ratio: float  # λ_{i+1} / λ_i = base^(2/d) for every i
    d: int
    base: float


def ladders(n_bits: int, d: int, base: float = chapter.BASE) -> Ladders:
    """Both ladders of rates, computed: bit b repeats every 2^(b+1) positions (ratio 2 between neighbouring bits);
    sinusoid pair i every 2π/ω_i (ratio base^(2/d) between neighbouring pairs, 1.3335 at d = 64 and the chapter's
    base). For d = 2 there is one pair and no ratio (NaN)."""
    n = check_bits(n_bits)
    lam_b = 2.0 ** (np.arange(n) + 1)
    lam_i = 2 * np.pi / frequencies(d, base)
    bit_ratio = float(np.mean(lam_b[1:] / lam_b[:-1])) if n > 1 else 2.0
    pair_ratio = float(np.mean(lam_i[1:] / lam_i[:-1])) if lam_i.size > 1 else float("nan")
    return Ladders(lam_b, bit_ratio, lam_i, pair_ratio, int(d), float(base))


# ---------------------------------------------------------------- bits beside the content
@dataclass(frozen=True)
class Sizes:
    content: np.ndarray  # the word's d content coordinates (N(0, 1) each)
    content_max: float  # max |x_j|
    n_bits: int
    largest_position: int  # 2ⁿ − 1: the raw index can reach this
    bits_max: int  # the largest bit coordinate over every position 0 … 2ⁿ − 1 (1)
    bits_min: int  # the smallest (0)


def sizes(tokens: list[str], index: int, d: int, seed: int, n_bits: int) -> Sizes:
    """The coordinates a word brings (its embedding, ``posenc.embed``) beside the coordinates its position brings:
    n bits, each 0 or 1 at every position, against a raw index that grows to 2ⁿ − 1."""
    n = check_bits(n_bits)
    if not 0 <= index < len(tokens):
        raise ValueError("Pick a word of the sentence.")
    x = embed(tokens, d, seed)[index]
    t = bit_table(n)
    return Sizes(x, float(np.max(np.abs(x))), n, 2**n - 1, int(t.max()), int(t.min()))

"""Page 4, binary codes: position p written in n bits, bit b flipping every 2^b steps.

numpy only. Positions here start at 0, as bit tables do (word 1 of a sentence gets code 0).
Bit b is ``bit_b(p) = ⌊p / 2^b⌋ mod 2`` (b = 0 the least significant bit), from ``posenc.encodings.binary``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .encodings import binary

MAX_BITS = 10  # 1024 positions: every chart stays small
SHOWN_MAX = 64  # the Hamming heatmaps show at most the first 64 positions


def check_bits(n_bits: int) -> int:
    """1 ≤ n ≤ MAX_BITS (a student-readable ValueError otherwise)."""
    if isinstance(n_bits, bool) or not isinstance(n_bits, (int, np.integer)):
        raise ValueError(f"The number of bits must be a whole number; got {n_bits!r}.")
    n = int(n_bits)
    if n < 1 or n > MAX_BITS:
        raise ValueError(f"Use between 1 and {MAX_BITS} bits here (2 to {2**MAX_BITS} positions); got {n}.")
    return n


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
    if not (h > 0 and x_max > h):
        raise ValueError("The grid needs 0 < h < x_max.")
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

    With n ≥ 4 the pairs are the chapter's: 7 (0111) and 8 (1000) are neighbours that differ in 4 bits;
    0 and 8 are 8 apart and differ in 1. With fewer bits the same roles go to (h − 1, h) and (0, h), h = 2^(n−1).
    """
    n = check_bits(n_bits)
    table = bit_table(n)
    shown = min(2**n, SHOWN_MAX)
    H = hamming_matrix(table[:shown])
    D = distance_matrix(shown)
    h = 8 if n >= 4 else 2 ** (n - 1)
    off = ~np.eye(shown, dtype=bool)
    corr = float(np.corrcoef(H[off], D[off])[0, 1]) if shown > 2 else float("nan")
    half = 2 ** (n - 1)
    return BinaryDemo(n, 2**n, table, flips_per_bit(table), shown, H, D, (h - 1, h), (0, h), (half - 1, half), corr)

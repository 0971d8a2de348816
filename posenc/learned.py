"""A learned table: one trainable vector per position, looked up and added to the word vector.

numpy only. Positions on screen are 1-based: row p of the table belongs to the p-th word, p = 1 … N_max,
and is stored at array index p − 1. There is no row N_max + 1.

The training here is a cheap, honest *simulation*, not a model: each training sentence of length L updates
rows 1 … L (the positions it fills) by a small step in a random direction. Lengths are log-normal
(median ``median``, σ = 1 in log space: many short sentences, a long thin tail), clipped to [1, N_max]
(longer texts are cut to the table, as real models truncate). Only the *count* of updates per row and the
resulting random walk are modelled; real gradients also pull neighbouring rows together, which this
simulation does not do (the trained MiniLM table on the page shows that part).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .core import embed, projections
from .trained import cosine_matrix
from .validate import real, whole, width

N_MAX_LIMIT = 4096
LENGTH_SIGMA = 1.0  # spread of ln L
STEP = 0.01  # each update: a random vector with entries ~ N(0, STEP²), 1% of a starting row's size
MAX_SENTENCES = 2_000_000
TRAIN_SENTENCES = 100_000  # the training the page (and its question) starts from
TRAIN_MEDIAN = 32  # median sentence length of that training, in words
DECIDES = 10.0  # one part of a score decides it when it is at least ten times the other
BERT_INIT_STD = 0.02  # a BERT-style position table starts with entries ~ N(0, 0.02²)
BERT_INIT_SEED = 512  # the seed of the random table the trained one is compared with
ALIKE = 0.5  # "training made neighbouring rows alike": mean cosine of rows 1 apart above this …
CHANCE_SIGMAS = 4.0  # a cosine within this many typical spreads of 0 is what chance alone gives
TAIL_SHARE = 0.1  # "the first rows" and "the last rows": this share of the table at each end
UNALIKE = 0.05  # … where the random starting table's is below this in size


def _check_n_max(n_max: int) -> int:
    return whole(n_max, "N_max (the number of rows)", 1, N_MAX_LIMIT)


def init_table(n_max: int, d_model: int, seed: int = 0) -> np.ndarray:
    """P⁽⁰⁾ ∈ ℝ^{N_max × d}, every entry ~ N(0, 1): random at the start, one row per position.

    Rows are drawn in order from one stream seeded by (d, seed), so row p is the same for every N_max ≥ p.
    (Same scale as this app's word vectors; real models use a small scale such as 0.02 for both.)
    """
    n = _check_n_max(n_max)
    d = width(d_model)
    rng = np.random.default_rng([0x7AB1E, d, int(seed)])
    return rng.standard_normal((n, d))


def lookup(table: np.ndarray, positions) -> np.ndarray:
    """P[p] for 1-based positions p = 1 … N_max (row p is array index p − 1).

    A position past the table has no row: ValueError (the model cannot read that word at all).
    """
    p = np.atleast_1d(np.asarray(positions))
    n = table.shape[0]
    if p.size and not np.issubdtype(p.dtype, np.integer):
        if not np.all(np.isfinite(p)) or not np.all(p == np.round(p)):
            raise ValueError("Positions are whole numbers 1, 2, 3, …")
        p = p.astype(np.int64)
    if np.any(p < 1):
        raise ValueError(f"Positions start at 1 (the first word); got {int(p.min())}.")
    if np.any(p > n):
        raise ValueError(
            f"There is no row {int(p.max())}: the table has rows 1 … {n} and nothing after them."
        )
    return table[p - 1]


@dataclass(frozen=True)
class TwoLookups:
    tokens: list[str]
    n_used: int  # words that got a row: min(n, N_max)
    word_rows: np.ndarray  # E[w_p], shape (n_used, d)
    position_rows: np.ndarray  # P[p], p = 1 … n_used
    inputs: np.ndarray  # x_p = E[w_p] + P[p]
    max_error: float  # max |x_p − (E[w_p] + P[p])| recomputed row by row


def two_lookups(tokens: list[str], n_max: int, d_model: int, seed: int = 0) -> TwoLookups:
    """x_p = E[w_p] + P[p]: look the word up in E, the position up in P, add.  p = 1 … min(n, N_max).

    Words past N_max get no row (they are cut, as real models truncate).
    """
    table = init_table(n_max, d_model, seed)
    used = min(len(tokens), table.shape[0])
    words = embed(list(tokens[:used]), d_model, seed)
    pos = lookup(table, np.arange(1, used + 1)) if used else np.zeros((0, table.shape[1]))
    x = words + pos
    err = max((float(np.max(np.abs(x[i] - (words[i] + table[i])))) for i in range(used)), default=0.0)
    return TwoLookups(list(tokens), used, words, pos, x, err)


def _raw_lengths(n_sentences: int, median: float, seed: int) -> np.ndarray:
    """L = round(exp(ln(median) + σ·z)), z ~ N(0, 1), σ = ``LENGTH_SIGMA``: a skewed, log-normal length mix
    (not yet cut to the table)."""
    k = whole(n_sentences, "The number of training sentences", 1, MAX_SENTENCES)
    median = real(median, "The median sentence length", 1.0, math.inf)
    z = np.random.default_rng([0x1E9, k, int(seed)]).standard_normal(k)
    return np.rint(np.exp(np.log(median) + LENGTH_SIGMA * z))


def updates_per_row(lengths: np.ndarray, n_max: int) -> np.ndarray:
    """n_r = #{sentences with L ≥ r}, r = 1 … N_max: a sentence of length L updates rows 1 … L once each."""
    n = _check_n_max(n_max)
    hist = np.bincount(np.asarray(lengths, dtype=np.int64), minlength=n + 1)[: n + 1]
    return np.cumsum(hist[::-1])[::-1][1:]


@dataclass(frozen=True)
class Training:
    n_max: int
    d: int
    n_sentences: int
    median: float
    step: float
    length_counts: np.ndarray  # length_counts[L − 1] = sentences of length L, L = 1 … N_max
    truncated: int  # sentences longer than N_max, cut to N_max
    updates: np.ndarray  # n_r, r = 1 … N_max
    moved: np.ndarray  # ‖P_r − P_r⁽⁰⁾‖
    start_norm: np.ndarray  # ‖P_r⁽⁰⁾‖
    relative: np.ndarray  # moved / start_norm

    @property
    def tail(self) -> int:
        """How many rows count as "the first rows" and as "the last rows" (TAIL_SHARE of the table, at least 1)."""
        return max(1, int(self.n_max * TAIL_SHARE))

    def moved_ends(self) -> tuple[float, float]:
        """Mean ``relative`` over the first ``tail`` rows and over the last ``tail`` rows."""
        return float(np.mean(self.relative[: self.tail])), float(np.mean(self.relative[-self.tail:]))


def simulate_training(n_max: int, d_model: int, seed: int = 0, n_sentences: int = 100_000,
                      median: float = 32.0, step: float = STEP) -> Training:
    """Rows 1 … L move by one random step g ~ N(0, η² I_d) per training sentence of length L.

    After n_r updates, P_r − P_r⁽⁰⁾ is a sum of n_r independent steps, i.e. one draw of N(0, n_r η² I_d),
    so ‖P_r − P_r⁽⁰⁾‖ ≈ η √(n_r d): rows that are rarely reached barely move.
    """
    n = _check_n_max(n_max)
    d = width(d_model)
    step = real(step, "The step size", 0.0, math.inf, open_lo=True)
    k = whole(n_sentences, "The number of training sentences", 1, MAX_SENTENCES)
    raw = _raw_lengths(k, median, seed)
    lengths = np.clip(raw, 1, n).astype(np.int64)
    truncated = int(np.sum(raw > n))
    counts = updates_per_row(lengths, n)
    start = init_table(n, d, seed)
    drift = np.random.default_rng([0xD21F7, n, d, k, int(seed)]).standard_normal((n, d))
    drift *= step * np.sqrt(counts)[:, None]
    moved = np.linalg.norm(drift, axis=1)
    start_norm = np.linalg.norm(start, axis=1)
    return Training(n, d, k, float(median), step, np.bincount(lengths, minlength=n + 1)[1:],
                    truncated, counts, moved, start_norm, moved / start_norm)


@dataclass(frozen=True)
class Independence:
    a: int
    b: int
    c: int  # 1-based rows compared: cos(P_a, P_b) with b = a + 1, cos(P_a, P_c) far away
    cos_ab: float
    cos_ac: float
    by_offset: np.ndarray  # mean cos(P_p, P_{p+k}) over p, k = 0 … N_max − 1
    spread: float  # 1/√d: the typical |cos| between two independent random vectors in ℝ^d

    def mean_spread(self, k: int) -> float:
        """Typical size of c(k) for independent rows: 1/√(d · pairs), pairs = N_max − k."""
        return self.spread / np.sqrt(max(1, self.by_offset.size - int(k)))


def initial_like(table: np.ndarray, seed: int = BERT_INIT_SEED) -> np.ndarray:
    """A random table of the trained table's shape, as training starts one: entries ~ N(0, BERT_INIT_STD²)."""
    return np.random.default_rng(seed).normal(0.0, BERT_INIT_STD, size=np.shape(table))


def mean_cosine_by_offset(table: np.ndarray) -> np.ndarray:
    """c(k) = mean_{p} cos(P_p, P_{p+k}) for every offset k = 0 … N − 1 (the same numbers as
    ``posenc.trained.cosine_by_offset``), computed with FFTs instead of the N × N Gram matrix:

    Σ_p u_p · u_{p+k} = Σ_c R_c(k), with u_p = P_p / ‖P_p‖ and R_c the autocorrelation of column c,
    R_c(k) = Σ_p u_{p,c} u_{p+k,c} = IFFT(|FFT(u_{·,c})|²)(k) (zero-padded to 2N, so nothing wraps around).
    """
    t = np.asarray(table, dtype=np.float64)
    n = t.shape[0]
    norms = np.linalg.norm(t, axis=1)
    if np.any(norms == 0):
        raise ValueError("A row of zeros has no direction, so its cosine is undefined.")
    u = t / norms[:, None]
    size = 1 << int(np.ceil(np.log2(2 * n)))
    f = np.fft.rfft(u, n=size, axis=0)
    auto = np.fft.irfft(np.sum(f * np.conj(f), axis=1), n=size)[:n]
    return auto / (n - np.arange(n))


def independence(n_max: int, d_model: int, seed: int = 0, a: int = 3, far: int = 900) -> Independence:
    """At the start rows are independent draws: cos(P_a, P_{a+1}) and cos(P_a, P_far) are both ~ ±1/√d.

    cos(u, v) = u·v / (‖u‖ ‖v‖); c(k) = mean_p cos(P_p, P_{p+k}).  ``far`` is cut to N_max if the table is shorter.
    """
    table = init_table(n_max, d_model, seed)
    n = table.shape[0]
    if n < 2:
        raise ValueError("A table of one row has no neighbours to compare.")
    a = min(max(1, int(a)), n - 1)
    b = a + 1
    c = min(max(int(far), b), n)
    m = cosine_matrix(table, np.array([a, b, c]) - 1)
    by = mean_cosine_by_offset(table)
    return Independence(a, b, c, float(m[0, 1]), float(m[0, 2]), by, 1.0 / np.sqrt(table.shape[1]))


def downsample_index(n: int, max_points: int = 512) -> np.ndarray:
    """At most ``max_points`` evenly spread indices of 0 … n−1, always keeping the first and the last."""
    if n <= max_points:
        return np.arange(n)
    return np.unique(np.rint(np.linspace(0, n - 1, max_points)).astype(np.int64))


def log2_bins(counts: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Group counts[L − 1] (L = 1 … N) into bins 1, 2–3, 4–7, …: (labels, starts, sums)."""
    n = len(counts)
    labels, starts, sums = [], [], []
    lo = 1
    while lo <= n:
        hi = min(2 * lo - 1, n)
        labels.append(str(lo) if hi == lo else f"{lo}–{hi}")
        starts.append(lo)
        sums.append(int(np.sum(counts[lo - 1:hi])))
        lo *= 2
    return labels, np.array(starts), np.array(sums)


# ---------------------------------------------------------------- the edge of the table
@dataclass(frozen=True)
class Edge:
    n_max: int
    position: int  # the row asked for (1-based)
    rows: list[int]  # the rows drawn: around the position, or the table's last rows, then the position
    values: np.ndarray  # (len(rows), k): the first k coordinates of each row; NaN for rows that do not exist
    found: bool  # the asked-for row exists
    message: str | None  # why it does not (lookup's own message)
    last_found: bool  # lookup(table, [N_max]) returns a row
    after_last: str | None  # lookup(table, [N_max + 1])'s message: the row after the last is missing


def edge(n_max: int, d_model: int, seed: int, position: int, k: int = 16) -> Edge:
    """Look up row ``position`` of a table of ``n_max`` rows, and the rows around it (or, far past the end, the
    table's last rows, the first missing one, then the asked-for one). Rows past N_max have no values (NaN)."""
    table = init_table(n_max, d_model, seed)
    n, k = table.shape[0], min(int(k), table.shape[1])
    pos = whole(position, "The position (the first word is 1)", 1, math.inf)
    if pos > n + 3:
        rows = list(range(max(1, n - 4), n + 2)) + [pos]
    else:
        first = max(1, pos - 5)
        rows = list(range(first, first + 9))
    values = np.full((len(rows), k), np.nan)
    for i, r in enumerate(rows):
        if r <= n:
            values[i] = lookup(table, [r])[0, :k]
    try:
        lookup(table, [pos])
        found, message = True, None
    except ValueError as err:
        found, message = False, str(err)
    try:
        lookup(table, [n + 1])
        after = None
    except ValueError as err:
        after = str(err)
    last = lookup(table, [n]).shape == (1, table.shape[1])
    return Edge(n, pos, rows, values, found, message, last, after)


# ---------------------------------------------------------------- a pattern, not a magnitude
@dataclass(frozen=True)
class Pattern:
    starts: np.ndarray  # the sentence placed at rows s … s + n − 1 of the table: every s = 1 … N_max − n + 1
    content: float  # RMS of the content part of the scores, (E W_Q)(E W_K)ᵀ/√d
    learned: np.ndarray  # RMS of the position part with the table's rows, per start
    raw: np.ndarray  # RMS of the position part with the raw index (p_i p_j / √d), per start
    row_norm: np.ndarray  # ‖P[s]‖ per start: the size of the position vector
    d: int
    n: int = 1  # the sentence's length

    @property
    def ratio(self) -> np.ndarray:
        """Position part ÷ content part, learned table, per start."""
        return self.learned / self.content

    @property
    def raw_ratio(self) -> np.ndarray:
        return self.raw / self.content

    def raw_ratio_at(self, start: int) -> float:
        """The raw index's position part ÷ content part for the sentence starting at ``start``, exactly (at any
        start, inside the table or past it): RMS of p_i p_j/√d over the pairs = mean(p²)/√d."""
        p = np.arange(int(start), int(start) + self.n, dtype=np.float64)
        return float(np.mean(p ** 2) / np.sqrt(self.d) / self.content)


def pattern_terms(tokens: list[str], n_max: int, d_model: int, seed: int = 0) -> Pattern:
    """How large the position part of a score is, wherever the sentence sits in the table: at every start.

    x_p = E[w_p] + P[p], q = x W_Q, k = x W_K, s_ij = q_i·k_j/√d. The content part uses E alone; the position part
    is the rest, s − s_content = (E W_Q)(P W_K)ᵀ + (P W_Q)(E W_K)ᵀ + (P W_Q)(P W_K)ᵀ, all over √d. With the raw index
    instead, the position part is p_i p_j/√d. RMS over the sentence's n × n pairs, for every start
    s = 1 … N_max − n + 1: the three products are formed once against the whole table and sliced per start.
    """
    table = init_table(n_max, d_model, seed)
    n_rows, d = table.shape
    n = len(tokens)
    if n < 1:
        raise ValueError("Type at least one word.")
    if n > n_rows:
        raise ValueError(f"The sentence has {n} words but the table only {n_rows} rows.")
    E = embed(list(tokens), d, seed)
    Wq, Wk, _ = projections(d, seed)
    EQ, EK, PQ, PK = E @ Wq, E @ Wk, table @ Wq, table @ Wk
    content = EQ @ EK.T / np.sqrt(d)
    top = n_rows - n + 1
    starts = np.arange(1, top + 1, dtype=np.int64)
    rows = (starts - 1)[:, None] + np.arange(n)[None, :]  # (starts, n): the table's rows under the sentence
    cross_k = (EQ @ PK.T)  # (n, rows): query word i against key row r
    cross_q = (PQ @ EK.T)  # (rows, n): query row r against key word j
    pp = PQ @ PK.T  # (rows, rows)
    i = np.arange(n)
    part = (cross_k[i[None, :, None], rows[:, None, :]] + cross_q[rows[:, :, None], i[None, None, :]]
            + pp[rows[:, :, None], rows[:, None, :]]) / np.sqrt(d)  # (starts, n, n)
    learned = np.sqrt(np.mean(part ** 2, axis=(1, 2)))
    p = rows.astype(np.float64) + 1.0
    raw = np.mean(p ** 2, axis=1) / np.sqrt(d)  # RMS of p_i p_j/√d over the pairs
    norms = np.linalg.norm(table[starts - 1], axis=1)
    return Pattern(starts, float(np.sqrt(np.mean(content ** 2))), learned, raw, norms, d, n)

"""Obvious fixes that fail: four ways to write a position into the input, and how each breaks.

numpy only. Positions are 1-based: the first word is p = 1.

1. The raw index as one extra coordinate.  x'_p = [x_p ; p], and the index passes straight into the query
   and the key (W'_Q = diag(W_Q, 1), W'_K = diag(W_K, 1)), so q'_i = [q_i ; p_i], k'_j = [k_j ; p_j] and
       s_ij = (q_i·k_j + p_i p_j) / √d.
   The content term q_i·k_j is a sum of d products of unit-size numbers (spread ≈ √d); the position term
   p_i p_j is of order 500² at position 500 — it decides the ranking.
2. Index ÷ length.  c(p) = p / N in a sentence of N words: the third word is 3/5 = 0.6 in five words and
   3/100 = 0.03 in a hundred; the step to the previous word is 1/N.
3. Multiplying instead of adding.  x'_p = p·x_p, so ‖x'_p‖ = p‖x_p‖ and s_ij = p_i p_j (q_i·k_j) / √d:
   the same word at position 50 is fifty times louder than at position 1, its direction unchanged.
4. One-hot positions.  c(p) = e_p ∈ ℝ^N: ‖e_p − e_q‖ = √2 for every p ≠ q, the width is N, and a position
   past N has no column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import chapter
from .core import embed, projections, softmax
from .validate import whole

FIXES = ("raw index", "index ÷ length", "multiply by p", "one-hot")
WISHES = ("unique", "bounded", "same meaning at every length", "neighbours close",
          "defined past the longest sentence")
MAX_POSITION = 1_000_000
MAX_LENGTH = 100_000
MAX_WIDTH = 100_000
DWARFS = 10.0  # one term "decides" another when it is at least ten times larger
DECIDES = 0.99  # R²: position explains at least 99 % of a query's score spread
REL_TOL = 1e-9  # relative tolerance of identities computed in float64 (s(m) = m·s(1))
COS_TOL = 1e-12  # cosines are unchanged by scaling, up to rounding


# ---------------------------------------------------------------- the four codes
def _positions(positions) -> np.ndarray:
    p = np.atleast_1d(np.asarray(positions, dtype=np.float64))
    if p.ndim != 1:
        raise ValueError("Give positions as a list of numbers.")
    if not np.all(np.isfinite(p)) or np.any(p != np.round(p)):
        raise ValueError("Positions are whole numbers: 1, 2, 3, …")
    if np.any(p < 1):
        raise ValueError(f"Positions start at 1 (the first word); got {int(p.min())}.")
    if np.any(p > MAX_POSITION):
        raise ValueError(f"Positions up to {MAX_POSITION:,} only; got {int(p.max()):,}.")
    return p


def _length(length: int, what: str = "The sentence length", top: int = MAX_LENGTH) -> int:
    return whole(length, what, 1, top)


def raw_index(positions) -> np.ndarray:
    """c(p) = p: the index itself as one extra coordinate.  Shape (n, 1)."""
    return _positions(positions)[:, None]


def index_over_length(positions, length: int) -> np.ndarray:
    """c(p) = p / N for the words p = 1 … N of an N-word sentence.  Shape (n, 1).

    The third word: 3/5 = 0.6 in five words, 3/100 = 0.03 in a hundred.
    """
    p = _positions(positions)
    n = _length(length)
    if np.any(p > n):
        raise ValueError(f"Position {int(p.max())} is not in a {n}-word sentence: p / N needs p ≤ N.")
    return (p / n)[:, None]


def multiply_code(word: np.ndarray, positions) -> np.ndarray:
    """x'_p = p·x: the word vector scaled by its position.  Shape (n, d); ‖x'_p‖ = p‖x‖."""
    x = np.asarray(word, dtype=np.float64).ravel()
    return _positions(positions)[:, None] * x[None, :]


def one_hot(positions, width: int) -> np.ndarray:
    """c(p) = e_p ∈ ℝ^N: a 1 in column p, 0 elsewhere (columns 1 … N).  Shape (n, N).

    A position past N has no column: ValueError with a readable message.
    """
    p = _positions(positions)
    n = _length(width, "The one-hot width N", MAX_WIDTH)
    if np.any(p > n):
        raise ValueError(
            f"Position {int(p.max())} has no encoding: a one-hot table of width N = {n} has columns "
            f"for positions 1 … {n} only."
        )
    codes = np.zeros((p.size, n))
    codes[np.arange(p.size), p.astype(np.int64) - 1] = 1.0
    return codes


def encode(fix: str, positions, sentence_len: int, table_len: int, word: np.ndarray) -> np.ndarray:
    """The code of ``positions`` under one of the four fixes, for a sentence of ``sentence_len`` words,
    with tables (the one-hot width) built for the longest sentence, ``table_len`` words.

    raw index: p ·  index ÷ length: p / sentence_len ·  multiply by p: p·x_word ·  one-hot: e_p ∈ ℝ^table_len.
    """
    if fix == "raw index":
        return raw_index(positions)
    if fix == "index ÷ length":
        return index_over_length(positions, sentence_len)
    if fix == "multiply by p":
        return multiply_code(word, positions)
    if fix == "one-hot":
        return one_hot(positions, table_len)
    raise ValueError(f"Unknown fix {fix!r}; choose one of {', '.join(FIXES)}.")


# ---------------------------------------------------------------- helpers
def _ranks(a: np.ndarray) -> np.ndarray:
    """Ranks 1 … n of a 1-D array, ties sharing their average rank."""
    a = np.asarray(a, dtype=np.float64)
    order = np.argsort(a, kind="mergesort")
    ranks = np.empty(a.size)
    ranks[order] = np.arange(1, a.size + 1, dtype=np.float64)
    _, inverse, counts = np.unique(a, return_inverse=True, return_counts=True)
    if np.any(counts > 1):
        sums = np.bincount(inverse, weights=ranks)
        ranks = sums[inverse] / counts[inverse]
    return ranks


def _row_ranks(S: np.ndarray) -> np.ndarray:
    """_ranks applied to every row of S (vectorised; rows with ties are redone one by one)."""
    S = np.atleast_2d(np.asarray(S, dtype=np.float64))
    srt = np.sort(S, axis=1)
    tied = np.flatnonzero(np.any(srt[:, 1:] == srt[:, :-1], axis=1))
    ranks = np.argsort(np.argsort(S, axis=1, kind="mergesort"), axis=1).astype(np.float64) + 1.0
    for i in tied:
        ranks[i] = _ranks(S[i])
    return ranks


def _row_corr(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson correlation of every row of A with b; NaN where a side is constant."""
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    A = A - A.mean(axis=1, keepdims=True)
    b = np.asarray(b, dtype=np.float64) - np.mean(b)
    den = np.sqrt(np.sum(A * A, axis=1) * float(b @ b))
    num = A @ b
    out = np.full(A.shape[0], np.nan)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


def _nanmean(v: np.ndarray) -> float:
    v = v[~np.isnan(v)]
    return float(np.mean(v)) if v.size else float("nan")


def _row_nanmeans(M: np.ndarray) -> np.ndarray:
    """_nanmean of every row of M."""
    return np.array([_nanmean(row) for row in M])


def rank_correlation(scores: np.ndarray, positions) -> float:
    """Spearman ρ between the keys' scores and their positions, averaged over the query rows:

    ρ = mean_i corr(rank(s_i·), rank(p)).  ρ = 1: the keys rank exactly by position.
    Softmax keeps order, so the weights rank the keys as the scores do.
    """
    return _nanmean(_row_corr(_row_ranks(scores), _ranks(np.asarray(positions, dtype=np.float64))))


def position_share(scores: np.ndarray, positions) -> float:
    """R² = mean_i corr(s_i·, p)²: the share of each query's score spread across keys that a straight
    line in the key position explains (1 = position alone sets the scores)."""
    return _nanmean(_row_corr(scores, positions) ** 2)


def index_scores(content: np.ndarray, positions, d_model: int) -> np.ndarray:
    """s_ij = (q_i·k_j + p_i p_j) / √d — the raw index passed straight into q and k."""
    p = _positions(positions)
    return (np.asarray(content, dtype=np.float64) + np.outer(p, p)) / math.sqrt(d_model)


# ---------------------------------------------------------------- 1. the raw index
@dataclass(frozen=True)
class RawTerm:
    """The chapter's item 1 in its own order: the coordinate first, then what it does in a score."""

    position: int  # p: the index written into the extra coordinate (the chapter's 500)
    d: int
    content_coordinate: float  # RMS of the word vectors' own coordinates (≈ 1)
    query_coordinate: float  # RMS of the queries' coordinates, q = x W_Q (≈ 1)
    content_score: float  # spread (std) of the content scores q_i·k_j over the sentence's pairs (≈ √d)
    sqrt_d: float
    one_side: float  # the index in the key meeting a query coordinate of typical size: query_coordinate · p
    both_sides: float  # the index passed into both the query and the key: p · p


def raw_term(X: np.ndarray, W: tuple[np.ndarray, np.ndarray, np.ndarray], position: int) -> RawTerm:
    """x'_p = [x_p ; p]: d coordinates of size ≈ 1 and one of size p.  In a score q·k = Σ_c q_c k_c (d products,
    spread ≈ √d: 8 at d = 64), the index coordinate of the key meets one coordinate of the query, of the same
    typical size as the others (≈ 1), so it adds a term ≈ 1 · p — the chapter's "term of order 500" at p = 500.
    Passed into both q and k (x'_i and x'_j both carry their index), the term is p · p."""
    p = float(_positions([position])[0])
    d = X.shape[1]
    Q, K = X @ W[0], X @ W[1]
    q_rms = float(np.sqrt(np.mean(Q * Q)))
    return RawTerm(
        position=int(p),
        d=d,
        content_coordinate=float(np.sqrt(np.mean(X * X))),
        query_coordinate=q_rms,
        content_score=float(np.std(Q @ K.T)),
        sqrt_d=math.sqrt(d),
        one_side=q_rms * p,
        both_sides=p * p,
    )


@dataclass(frozen=True)
class RawIndex:
    positions: np.ndarray  # p_1 … p_n = start … start + n − 1
    content: np.ndarray  # q_i·k_j (not yet divided by √d)
    position_term: np.ndarray  # p_i p_j
    weights_without: np.ndarray  # softmax(q·k / √d)
    weights_with: np.ndarray  # softmax((q·k + p_i p_j) / √d)
    content_spread: float  # std of q_i·k_j over the n² pairs of the sentence
    word_norm: float  # mean ‖x‖ over the sentence's words (≈ √d)
    rho_without: float
    rho_with: float
    share_without: float
    share_with: float
    last_wins: int  # queries whose largest weight (with the index) is on the last word
    last_weight: float  # mean weight (with the index) on the last word
    sweep_starts: np.ndarray
    sweep_rho: np.ndarray
    sweep_share: np.ndarray


def raw_index_demo(X: np.ndarray, W: tuple[np.ndarray, np.ndarray, np.ndarray], start: int) -> RawIndex:
    """The sentence placed at positions start … start + n − 1, with and without the raw index.

    s_ij = q_i·k_j / √d  (without)  and  s_ij = (q_i·k_j + p_i p_j) / √d  (with x'_p = [x_p ; p]).
    """
    n, d = X.shape
    start = whole(start, "The first word's position", 1, MAX_POSITION)
    positions = _positions(np.arange(start, start + n))
    Q, K = X @ W[0], X @ W[1]
    content = Q @ K.T
    without = content / math.sqrt(d)
    with_index = index_scores(content, positions, d)
    w_with = softmax(with_index)
    top = max(1000, start)
    starts = np.unique(np.concatenate([np.geomspace(1, top, 40).round().astype(int), [start]]))
    rel = np.arange(1, n + 1)
    sweep_rho, sweep_share = _sweep(content, starts, d)
    return RawIndex(
        positions=positions,
        content=content,
        position_term=np.outer(positions, positions),
        weights_without=softmax(without),
        weights_with=w_with,
        content_spread=float(np.std(content)),
        word_norm=float(np.mean(np.linalg.norm(X, axis=1))),
        rho_without=rank_correlation(without, rel),
        rho_with=rank_correlation(with_index, rel),
        share_without=position_share(without, rel),
        share_with=position_share(with_index, rel),
        last_wins=int(np.sum(np.argmax(w_with, axis=1) == n - 1)),
        last_weight=float(np.mean(w_with[:, -1])),
        sweep_starts=starts,
        sweep_rho=sweep_rho,
        sweep_share=sweep_share,
    )


def _sweep(content: np.ndarray, starts: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """rank_correlation and position_share of index_scores(content, start … start + n − 1, d) for every start,
    all starts in one batch: s_ij = (q_i·k_j + p_i p_j) / √d, ρ and R² against the key positions 1 … n."""
    n = content.shape[0]
    P = _positions((np.asarray(starts)[:, None] + np.arange(n)[None, :]).ravel()).reshape(len(starts), n)
    S = ((content[None, :, :] + P[:, :, None] * P[:, None, :]) / math.sqrt(d)).reshape(-1, n)
    rel = np.arange(1, n + 1, dtype=np.float64)
    rho = _row_corr(_row_ranks(S), _ranks(rel)).reshape(len(starts), n)
    share = (_row_corr(S, rel) ** 2).reshape(len(starts), n)
    return _row_nanmeans(rho), _row_nanmeans(share)


# ---------------------------------------------------------------- 2. index ÷ length
@dataclass(frozen=True)
class Ratio:
    n: int  # the running sentence's length
    length: int  # the length to compare
    tracked: int  # the word followed across lengths (the third word, or the last if shorter)
    tracked_sentence: float  # tracked / n
    tracked_long: float  # tracked / L
    step_sentence: float  # 1 / n: the code gap to the previous word
    step_long: float  # 1 / L
    lengths: np.ndarray  # N = 2 … for the "previous word" curve
    previous_gap: np.ndarray  # c(p) − c(p − 1) = 1 / N


def ratio_demo(n: int, length: int, tracked: int = chapter.LENGTH_EXAMPLE[0]) -> Ratio:
    """c(p) = p / N in the running sentence (N = n) and in one of ``length`` words, at the word followed; the gap
    to the previous word, c(p) − c(p − 1) = 1/N, for every N from 2 to max(n, L). (The chart computes every
    word's code in the browser: tests/test_client_expressions_fixes.py checks it against ``index_over_length``.)"""
    n, L = _length(n), _length(length)
    t = min(int(tracked), n, L)
    top = max(n, L, 10)
    lengths = np.unique(np.concatenate([np.geomspace(2, top, 60).round().astype(int), [n, L]]))
    lengths = lengths[lengths >= 2]
    gap = np.array([float(index_over_length([N], N)[0, 0] - index_over_length([N - 1], N)[0, 0])
                    for N in lengths])
    return Ratio(n, L, t, float(index_over_length([t], n)[0, 0]),
                 float(index_over_length([t], L)[0, 0]),
                 1.0 / n, 1.0 / L, lengths, gap)


# ---------------------------------------------------------------- 3. multiplying
@dataclass(frozen=True)
class Multiply:
    word_index: int  # the key word (mouse, or the last word)
    query_index: int  # the query highlighted (chased, or the first word)
    position: int  # m: where the key word is placed
    norm_at_1: float  # ‖1·x‖
    norm_at_m: float  # ‖m·x‖
    scores_at_1: np.ndarray  # s_i = p_i·1·(q_i·k)/√d for every query i (at its own position p_i = i + 1)
    scores_at_m: np.ndarray  # s_i = p_i·m·(q_i·k)/√d
    cos_at_1: np.ndarray  # cos(q'_i, k'(1))
    cos_at_m: np.ndarray  # cos(q'_i, k'(m))
    score_ratio_error: float  # max_i |s_i(m) − m·s_i(1)|
    cos_error: float  # max_i |cos at m − cos at 1|


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a @ b) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b))


def multiply_demo(X: np.ndarray, W: tuple[np.ndarray, np.ndarray, np.ndarray], word_index: int,
                  query_index: int, position: int) -> Multiply:
    """x'_p = p·x_p.  The key word placed at p = 1 and at p = m; every query i at its own position i + 1.

    k'(p) = (p·x) W_K = p·k,  q'_i = (i + 1)·q_i,  s_i(p) = q'_i·k'(p)/√d = (i + 1)·p·(q_i·k)/√d.
    ‖k'(m)‖ / ‖k'(1)‖ = m and s_i(m) / s_i(1) = m, while cos(q'_i, k'(p)) does not change with p.
    """
    n, d = X.shape
    m = int(_positions([position])[0])
    x = X[word_index]
    Q = multiply_code(np.ones(1), np.arange(1, n + 1)) * (X @ W[0])  # q'_i = (i + 1) q_i
    k = x @ W[1]
    k1, km = multiply_code(k, [1])[0], multiply_code(k, [m])[0]
    s1, sm = Q @ k1 / math.sqrt(d), Q @ km / math.sqrt(d)
    c1, cm = _cos(Q, k1), _cos(Q, km)
    return Multiply(
        word_index=int(word_index),
        query_index=int(query_index),
        position=m,
        norm_at_1=float(np.linalg.norm(multiply_code(x, [1])[0])),
        norm_at_m=float(np.linalg.norm(multiply_code(x, [m])[0])),
        scores_at_1=s1,
        scores_at_m=sm,
        cos_at_1=c1,
        cos_at_m=cm,
        score_ratio_error=float(np.max(np.abs(sm - m * s1))),
        cos_error=float(np.max(np.abs(cm - c1))),
    )


# ---------------------------------------------------------------- 4. one-hot
@dataclass(frozen=True)
class OneHot:
    width: int  # N
    shown: int  # positions 1 … shown drawn in the distance chart
    distances: np.ndarray  # ‖e_p − e_q‖ for p, q = 1 … shown
    sqrt2_error: float  # max |‖e_p − e_q‖ − √2| over p ≠ q ≤ N (all pairs up to N = 1000, else a sample)
    neighbour: float  # ‖e_a − e_(a+1)‖, a = 3 (1 when N < 5)
    stranger: float  # ‖e_a − e_N‖
    pair: tuple[int, int, int]  # (p, p + 1, far) used above
    sentence_codes: np.ndarray | None  # e_1 … e_n, or None when the sentence is longer than N
    sentence_error: str | None
    past: int  # the position asked for
    past_code: np.ndarray | None  # e_past, or None
    past_error: str | None  # the message when past > N


def _gram(c: np.ndarray) -> np.ndarray:
    """G = c cᵀ, G_pq = Σ_k c_pk c_qk. Codes that are mostly zeros (one-hot: a single 1 per row) are
    multiplied through their nonzero entries only — the pairs of entries that share a column — which is
    exact and takes time in proportion to those pairs instead of rows² × columns."""
    rows, cols = np.nonzero(c)
    order = np.argsort(cols, kind="stable")
    rows, cols = rows[order], cols[order]
    counts = np.bincount(cols, minlength=c.shape[1])
    k = counts[cols]  # how many entries share each entry's column
    if int(np.sum(k)) > 4 * c.shape[0]:
        return c @ c.T  # dense codes: an ordinary matrix product
    left = np.repeat(np.arange(rows.size), k)
    first = np.repeat((np.cumsum(counts) - counts)[cols], k)  # where each entry's column group starts
    right = first + np.arange(left.size) - np.repeat(np.cumsum(k) - k, k)
    G = np.zeros((c.shape[0], c.shape[0]))
    vals = c[rows, cols]
    np.add.at(G, (rows[left], rows[right]), vals[left] * vals[right])
    return G


def pair_distances(codes: np.ndarray) -> np.ndarray:
    """D_pq = ‖c_p − c_q‖ for every pair of rows (via ‖a‖² + ‖b‖² − 2a·b, clipped at 0)."""
    c = np.asarray(codes, dtype=np.float64)
    sq = np.sum(c * c, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * _gram(c)
    return np.sqrt(np.clip(d2, 0.0, None))


ONE_HOT_SHOWN = 30  # the one-hot chart draws positions 1 … min(N, 30): its grid is the same at every N


def one_hot_demo(n: int, width: int, past: int, shown: int = ONE_HOT_SHOWN) -> OneHot:
    """One-hot codes e_p ∈ ℝ^N: every pair √2 apart; the sentence needs N ≥ n; position ``past`` is
    encoded if it is ≤ N, otherwise the message says why it cannot be."""
    N = _length(width, "The one-hot width N", MAX_WIDTH)
    k = min(N, shown)
    D = pair_distances(one_hot(np.arange(1, k + 1), N))
    # Every pair among all N positions: e_p·e_q = [p = q], so ‖e_p − e_q‖² = 2 for p ≠ q. Checked on the
    # Gram matrix of the whole table when it is small, otherwise on the shown block plus the last column.
    probe = np.unique(np.concatenate([np.arange(1, k + 1), [N]])) if N > 1000 else np.arange(1, N + 1)
    Dp = pair_distances(one_hot(probe, N))
    np.fill_diagonal(Dp, math.sqrt(2))  # p = q is not a pair: leave the diagonal out of the check
    err = float(np.max(np.abs(Dp - math.sqrt(2)))) if probe.size > 1 else 0.0
    a = 3 if N >= 5 else 1
    b, far = min(a + 1, N), N
    e = one_hot([a, b, far], N)
    try:
        sentence_codes, sentence_error = one_hot(np.arange(1, n + 1), N), None
    except ValueError as exc:
        sentence_codes, sentence_error = None, str(exc)
    try:
        past_code, past_error = one_hot([past], N)[0], None
    except ValueError as exc:
        past_code, past_error = None, str(exc)
    return OneHot(N, k, D, err, float(np.linalg.norm(e[0] - e[1])), float(np.linalg.norm(e[0] - e[2])),
                  (a, b, far), sentence_codes, sentence_error, int(past), past_code, past_error)


# ---------------------------------------------------------------- the summary
@dataclass(frozen=True)
class Verdict:
    fix: str
    wish: str
    passed: bool
    left: float  # the measured number(s) behind the verdict; right is NaN when there is only one
    right: float
    message: str = ""  # e.g. why a position could not be encoded


def wish_unique(fix: str, length: int, word: np.ndarray) -> Verdict:
    """Unique: the codes of positions 1 … L in an L-word sentence are all different (count distinct rows)."""
    codes = np.ascontiguousarray(encode(fix, np.arange(1, length + 1), length, length, word) + 0.0)
    distinct = len({row.tobytes() for row in codes})
    return Verdict(fix, "unique", distinct == length, float(distinct), float(length))


def wish_bounded(fix: str, short: int, length: int, word: np.ndarray) -> Verdict:
    """Bounded: the largest ‖c(p)‖ in an L-word sentence is no larger than in a ``short``-word one
    (the code's size does not grow with the sentence)."""
    a = float(np.max(np.linalg.norm(encode(fix, np.arange(1, short + 1), short, length, word), axis=1)))
    b = float(np.max(np.linalg.norm(encode(fix, np.arange(1, length + 1), length, length, word), axis=1)))
    return Verdict(fix, "bounded", b <= a * (1 + 1e-12), a, b)


def wish_same_meaning(fix: str, short: int, length: int, word: np.ndarray, p: int = 3) -> Verdict:
    """Same meaning at every length: ‖c(p) in a ``short``-word sentence − c(p) in an L-word one‖ = 0."""
    a = encode(fix, [p], short, length, word)[0]
    b = encode(fix, [p], length, length, word)[0]
    gap = float(np.linalg.norm(a - b))
    return Verdict(fix, "same meaning at every length", gap <= 1e-12, gap, float("nan"))


def wish_neighbours(fix: str, length: int, word: np.ndarray, p: int = 3, far: int = 50) -> Verdict:
    """Neighbours close: ‖c(p) − c(p + 1)‖ < ‖c(p) − c(p + far)‖ (p + far capped at L)."""
    q = min(p + far, length)
    c = encode(fix, [p, p + 1, q], length, length, word)
    near, distant = float(np.linalg.norm(c[0] - c[1])), float(np.linalg.norm(c[0] - c[2]))
    return Verdict(fix, "neighbours close", near < distant, near, distant)


def wish_past(fix: str, length: int, word: np.ndarray) -> Verdict:
    """Defined past the longest sentence: encode position L + 1 (in an (L + 1)-word sentence) with the
    tables built for L words.  Passes if a code comes out; the message says why not."""
    try:
        c = encode(fix, [length + 1], length + 1, length, word)[0]
    except ValueError as exc:
        return Verdict(fix, "defined past the longest sentence", False, float(length + 1), float("nan"),
                       str(exc))
    return Verdict(fix, "defined past the longest sentence", True, float(length + 1),
                   float(np.linalg.norm(c)))


def summary(word: np.ndarray, short: int, length: int, p: int = 3, far: int = 50) -> list[Verdict]:
    """Every fix against every wish, each verdict the result of a computed test (wish_* above)."""
    short, length = _length(short), _length(length)
    if not p + 1 <= short <= length:
        raise ValueError(f"Compare lengths with {p + 1} ≤ short ≤ long; got {short} and {length}.")
    out = []
    for fix in FIXES:
        out += [wish_unique(fix, length, word), wish_bounded(fix, short, length, word),
                wish_same_meaning(fix, short, length, word, p), wish_neighbours(fix, length, word, p, far),
                wish_past(fix, length, word)]
    return out


# ---------------------------------------------------------------- what every section starts from
SHORT = chapter.LENGTH_EXAMPLE[1]  # the chapter's five-word sentence, for the summary's length comparison
LONG = chapter.LENGTH_EXAMPLE[2]  # the chapter's hundred-word one


@dataclass(frozen=True)
class Inputs:
    tokens: list[str]
    X: np.ndarray  # the word vectors, (n, d)
    W: tuple[np.ndarray, np.ndarray, np.ndarray]  # W_Q, W_K, W_V
    word: int  # the key word followed by the multiply demo and the summary (chapter.multiply_index)
    query: int  # the query highlighted by the multiply demo (chapter.query_index)


def fixes_inputs(tokens: list[str], d_model: int, seed: int) -> Inputs:
    """What every section starts from: x_p = embed(w_p) and the projections W_Q, W_K, W_V of the running
    example, and the key and query words the demos follow. At least two words."""
    if len(tokens) < 2:
        raise ValueError("Type at least two words: attention needs something to compare.")
    X = embed(tokens, d_model, seed)
    return Inputs(list(tokens), X, projections(d_model, seed), chapter.multiply_index(tokens),
                  chapter.query_index(tokens))

"""Attention in one screen: every intermediate step of one attention head on a sentence.

numpy only. The pieces come from ``posenc.core`` (``embed``, ``projections``, ``softmax``, ``attention``): the
output and the weights are ``attention``'s own, and Q, K, V and S are the one-line formulas its docstring states,
so the pictures show exactly what ran (tests/test_primer.py checks softmax(S) and weights·V against it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import chapter
from .core import attention, embed, projections, softmax

SHOWN_COORDS = 6  # the pictures show the first 6 of the d coordinates of every vector
MAX_SHOWN_WORDS = 24  # the pictures show at most the first 24 words (the checks cover all of them)
TOL = 1e-12  # float64 rounding: two quantities that are equal in exact arithmetic differ by less than this


@dataclass(frozen=True)
class Primer:
    tokens: list[str]
    d: int
    seed: int
    X: np.ndarray  # n × d word vectors (no positions)
    Q: np.ndarray  # X W_Q: the queries
    K: np.ndarray  # X W_K: the keys
    V: np.ndarray  # X W_V: the values
    S: np.ndarray  # Q Kᵀ / √d: the scores, one row per query, one column per key
    weights: np.ndarray  # softmax of each row of S (attention's own weights)
    out: np.ndarray  # weights · V (attention's own output)

    @property
    def row_sum_error(self) -> float:
        """max over rows of |Σ_j weights[i, j] − 1|."""
        return float(np.max(np.abs(self.weights.sum(axis=1) - 1.0)))


def primer(tokens: list[str], d_model: int, seed: int = 0) -> Primer:
    """X → Q, K, V → S = QKᵀ/√d → weights = softmax(S) row by row → out = weights·V, for one head, no mask."""
    X = embed(tokens, d_model, seed)  # row t: the vector of word t (the same word gives the same row)
    W_q, W_k, W_v = projections(d_model, seed)
    out, weights = attention(X, W_q, W_k, W_v)  # the one implementation; below, its intermediate steps
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # q = x W_Q, k = x W_K, v = x W_V, row by row
    S = Q @ K.T / np.sqrt(K.shape[-1])  # S[i, j] = q_i · k_j / √d
    return Primer(list(tokens), X.shape[1], int(seed), X, Q, K, V, S, weights, out)


def copy_columns_gap(res: Primer) -> tuple[list[int], float]:
    """The copies the chapter's paradox is about (``chapter.copies``, 0-based) and the largest difference between
    their columns of S (0 in exact arithmetic: copies have the same key). ([], 0.0) when no word repeats."""
    ix = chapter.copies(res.tokens)
    if not ix:
        return [], 0.0
    cols = res.S[:, ix]
    return ix, float(np.max(np.abs(cols - cols[:, :1])))


def copy_rows_gap(res: Primer) -> tuple[list[int], float]:
    """The copies (``chapter.copies``, 0-based) and the largest difference between their rows of the output (0 in
    exact arithmetic: the same vector gives the same query, the same weights and the same weighted sum).
    ([], 0.0) when no word repeats."""
    ix = chapter.copies(res.tokens)
    if not ix:
        return [], 0.0
    rows = res.out[ix]
    return ix, float(np.max(np.abs(rows - rows[:1])))


def check_pieces(res: Primer) -> float:
    """The largest difference between the steps recomputed from the pieces (softmax(S), weights·V) and
    ``attention``'s own weights and output."""
    return float(max(np.max(np.abs(softmax(res.S, axis=-1) - res.weights)),
                     np.max(np.abs(res.weights @ res.V - res.out))))

"""The sentence scramble: attention without positions is permutation equivariant."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from . import chapter
from .core import attention, causal_mask, duplicate_groups, embed, permutation_matrix, projections

# Scripts that write words without spaces between them: ``tokenize`` makes one "word" of a run of them.
UNSPACED_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN", "JAVANESE",
                    "BALINESE", "YI ")
SHOWN_DIMS = 24  # the output pictures show the first 24 coordinates (the checks cover all d)
TOL = 1e-12  # float64 rounding: equal in exact arithmetic means closer than this


def unspaced(tokens: list[str]) -> bool:
    """Whether a word of ``tokens`` is in a script written without spaces between words (Japanese, Chinese,
    Thai …): there ``tokenize``'s words are the runs between spaces, not the words a reader sees."""
    return any(unicodedata.name(c, "").startswith(UNSPACED_SCRIPTS) for w in tokens for c in w)


@dataclass(frozen=True)
class Scramble:
    tokens: list[str]
    order: list[int]
    scrambled: list[str]
    out: np.ndarray  # Attn(X)
    out_of_scrambled: np.ndarray  # Attn(PX)
    permuted_out: np.ndarray  # P·Attn(X)
    weights: np.ndarray  # weights of X
    keys: np.ndarray  # K = X W_K
    equivariance_error: float  # max |Attn(PX) − P·Attn(X)|
    duplicates: dict[str, list[int]]
    key_gap: float  # max |k_i − k_j| over copies of one word
    weight_gap: float  # max |w_qi − w_qj| over copies, over queries that see both
    queries_checked: int


def copies_weight_gap(weights: np.ndarray, groups: dict[str, list[int]], mask: np.ndarray | None) -> tuple[float, int]:
    """max over repeated words, over queries q that may read every copy, of max_{i,j copies} |w_qi − w_qj|.

    Returns (gap, number of queries checked).
    """
    gap, checked = 0.0, 0
    for idx in groups.values():
        for q in range(weights.shape[0]):
            if mask is not None and not all(mask[q, i] for i in idx):
                continue
            w = weights[q, idx]
            gap = max(gap, float(w.max() - w.min()))
            checked += 1
    return gap, checked


def scramble(tokens: list[str], order: list[int], d_model: int, seed: int = 0, causal: bool = False) -> Scramble:
    """Attn(PX) beside P·Attn(X) for the word order ``order`` (P X = X[order]).

    Without a mask, Attn(PX) = P·Attn(X): max |Attn(PX) − P·Attn(X)| ≈ 1e-16.
    With the causal mask M, softmax(P S Pᵀ + M) ≠ P softmax(S + M) Pᵀ in general, so the equation fails.
    """
    X = embed(tokens, d_model, seed)
    W = projections(d_model, seed)
    n = len(tokens)
    mask = causal_mask(n) if causal else None
    P = permutation_matrix(order)
    out, weights = attention(X, *W, mask=mask)
    out_p, _ = attention(P @ X, *W, mask=mask)
    permuted = P @ out
    keys = X @ W[1]
    groups = duplicate_groups(tokens)
    key_gap = max((float(np.max(np.abs(keys[ix] - keys[ix[0]]))) for ix in groups.values()), default=0.0)
    weight_gap, checked = copies_weight_gap(weights, groups, mask)
    return Scramble(
        tokens=list(tokens),
        order=list(order),
        scrambled=[tokens[i] for i in order],
        out=out,
        out_of_scrambled=out_p,
        permuted_out=permuted,
        weights=weights,
        keys=keys,
        equivariance_error=float(np.max(np.abs(out_p - permuted))),
        duplicates=groups,
        key_gap=key_gap,
        weight_gap=weight_gap,
        queries_checked=checked,
    )


def rows_changed(res: Scramble, tol: float = TOL) -> list[int]:
    """The slots (0-based) whose row of Attn(PX) differs from P·Attn(X) by more than ``tol`` in some coordinate:
    none without a mask; with the causal mask, the slots whose word may now read another set of words."""
    diff = np.max(np.abs(res.out_of_scrambled - res.permuted_out), axis=1)
    return [int(s) for s in np.flatnonzero(diff > tol)]


@dataclass(frozen=True)
class CopyWeights:
    """The weights one query gives the copies of a repeated word."""

    query: int  # 0-based; a query that may read every copy (chapter.query_seeing)
    copies: list[int]  # 0-based (chapter.copies)
    weights: np.ndarray  # weights[query, copies]

    @property
    def gap(self) -> float:
        """max − min of the copies' weights (0 in exact arithmetic: the copies have the same key)."""
        return float(self.weights.max() - self.weights.min())


def copy_weights(tokens: list[str], weights: np.ndarray, causal: bool) -> CopyWeights | None:
    """The weights that a query able to read every copy gives the copies the chapter's paradox is about; the
    query is the chapter's ("chased") unless the causal mask hides a copy from it. None when no word repeats."""
    copies = chapter.copies(tokens)
    q = chapter.query_seeing(tokens, copies, causal)
    if q is None:
        return None
    return CopyWeights(q, list(copies), np.asarray(weights)[q, copies])


def paradox(tokens: list[str], d_model: int, seed: int = 0) -> CopyWeights | None:
    """The chapter's opening question asked live: with no positions and no mask, the weights the chapter's query
    gives the copies of "the" (or of the first repeated word). None when no word repeats."""
    X = embed(tokens, d_model, seed)
    _, weights = attention(X, *projections(d_model, seed))
    return copy_weights(tokens, weights, causal=False)

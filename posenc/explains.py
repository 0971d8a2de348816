"""What this finally explains: the two copies of a word and the scrambled sentence, with positions.

Four schemes feed attention the word positions p = 1 … n (1-based, one per slot of the sentence):
"none", "learned table" (a random table as at initialisation), "sinusoids" (added to X) and "RoPE"
(q and k rotated). numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import chapter
from .core import duplicate_groups, embed, permutation_matrix, projections, softmax
from .encodings import rope, sinusoidal
from .learned import init_table, lookup
from .validate import whole, width

SCHEMES: tuple[str, ...] = ("none", "learned table", "sinusoids", "RoPE")
NEEDS_EVEN: tuple[str, ...] = ("sinusoids", "RoPE")
TINY = 1e-12  # "equal weights": floating-point noise only
CLEAR = 1e-9  # "different weights": well above floating-point noise
PAIRS = {"sinusoids": "sines and cosines come in (sin, cos) pairs", "RoPE": "RoPE turns coordinates in pairs"}


def unavailable_note(d: int, unavailable: dict[str, str]) -> str:
    """One sentence for the schemes an odd d rules out, naming d once: “d = 3 is odd: sines and cosines come
    in (sin, cos) pairs and RoPE turns coordinates in pairs, so sinusoids and RoPE need an even d.”"""
    if not unavailable:
        return ""
    names = list(unavailable)
    why = " and ".join(unavailable.values())
    verb = "needs" if len(names) == 1 else "need"
    return f"d = {d} is odd: {why}, so {' and '.join(names)} {verb} an even d."


def learned_table(positions, d_model: int, seed: int = 0, n_max: int = chapter.N_MAX) -> np.ndarray:
    """Rows T[p] of the learned position table T ∈ ℝ^{N_max×d} as at initialisation, before any training:
    every entry ~ N(0, 1) (the same size as the word vectors), row p for the p-th word, p = 1 … N_max.

    The same table as the learned-table page (``posenc.learned.init_table``): row p depends only on
    (p, d, seed), so only rows 1 … max(p) are drawn. Shape (len(positions), d).
    """
    p = np.atleast_1d(np.asarray(positions))
    d = width(d_model)
    if not p.size:
        return np.zeros((0, d))
    if not np.issubdtype(p.dtype, np.integer):
        if not np.all(np.isfinite(p)) or not np.all(p == np.round(p)):
            raise ValueError("A table has one row per whole-number position (1, 2, 3, …).")
        p = p.astype(np.int64)
    if np.any(p > n_max):
        raise ValueError(f"The learned table has rows for positions 1 … {n_max} only; "
                         f"position {int(p.max())} has no row.")
    top = max(int(p.max()), 1)
    return lookup(init_table(top, d, seed), p)


def attention_with_positions(
    X: np.ndarray,
    W: tuple[np.ndarray, np.ndarray, np.ndarray],
    scheme: str,
    positions,
    seed: int = 0,
    mask: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Attention told where each word sits, with S = Q Kᵀ/√d and Attn = softmax(S) V:

    none:          Q, K, V = X W_Q, X W_K, X W_V
    learned table: X' = X + T[p],  then Q, K, V = X' W_Q, X' W_K, X' W_V
    sinusoids:     X' = X + PE(p), then Q, K, V = X' W_Q, X' W_K, X' W_V
    RoPE:          rows, as everywhere: q_m = x_m W_Q turned by its position, (x_m W_Q) R_mᵀ;
                   k_n = (x_n W_K) R_nᵀ;  v_n = x_n W_V (v is not rotated),
                   so S_mn = (x_m W_Q) R_mᵀ R_n (x_n W_K)ᵀ / √d = (x_m W_Q) R_{n−m} (x_n W_K)ᵀ / √d

    ``positions[i]`` is the position of row i (1 … n for a sentence). ``mask[i, j]`` is True where query i
    may read key j. Returns (output, weights).
    """
    if scheme not in SCHEMES:
        raise ValueError(f"Unknown scheme “{scheme}”; use one of: {', '.join(SCHEMES)}.")
    X = np.asarray(X, dtype=float)
    W_q, W_k, W_v = W
    d = X.shape[-1]
    pos = np.atleast_1d(np.asarray(positions))
    if pos.size != X.shape[0]:
        raise ValueError(f"{pos.size} positions for {X.shape[0]} words.")
    if scheme in NEEDS_EVEN:
        width(d, even=True, why=PAIRS[scheme])
    if scheme == "learned table":
        X = X + learned_table(pos, d, seed)
    elif scheme == "sinusoids":
        X = X + sinusoidal(pos, d)
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    if scheme == "RoPE":
        Q, K = rope(Q, pos), rope(K, pos)
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def scramble_order(tokens: list[str]) -> list[int] | None:
    """The chapter's scramble as an order (P X = X[order]): the two words ``chapter.swap_words`` picks ("cat" and
    "mouse" when both are there) trade places. None when no swap changes the sentence (every word the same)."""
    if len(tokens) < 2:
        return None
    i, j = chapter.swap_words(tokens)
    if tokens[i] == tokens[j]:
        return None
    order = list(range(len(tokens)))
    order[i], order[j] = j, i
    return order


def query_copies_gap(weights: np.ndarray, groups: dict[str, list[int]], query: int | None = None) -> float:
    """From the query q (every query if None): max over repeated words of max_{i,j copies} |w_qi − w_qj|.

    0 when nothing repeats. (Without a mask this equals ``posenc.scramble.copies_weight_gap``, vectorised.)
    """
    rows = np.asarray(weights, dtype=float)
    rows = rows if query is None else rows[[query]]
    return max((float(np.ptp(rows[:, ix], axis=1).max()) for ix in groups.values()), default=0.0)


@dataclass(frozen=True)
class SchemeRun:
    scheme: str
    weights: np.ndarray  # softmax weights of the sentence X, positions 1 … n
    copies_gap: float  # from the query: max |w_qi − w_qj| over copies of a repeated word
    copies_gap_all: float  # the same, over every query
    copy_weights: np.ndarray  # weights from the query on the chapter's copies (``Explains.copies``), in order
    copy_gap: float  # max − min of copy_weights: 0 means the copies tie
    weights_scrambled: np.ndarray | None  # weights of the scrambled sentence PX, positions 1 … n
    out_scrambled: np.ndarray | None  # Attn(PX)
    permuted_out: np.ndarray | None  # P·Attn(X)
    row_error: np.ndarray | None  # per slot i of PX: max_j |Attn(PX) − P·Attn(X)|_ij
    scramble_error: float | None  # max |Attn(PX) − P·Attn(X)|


@dataclass(frozen=True)
class Explains:
    tokens: list[str]
    d: int
    seed: int
    query: int  # 0-based
    duplicates: dict[str, list[int]]
    copies: list[int]  # the copies the paradox is about (``chapter.copies``: every "the"), 0-based
    order: list[int] | None  # P X = X[order]; None when no swap changes the sentence
    scrambled: list[str] | None
    query_scrambled: int | None  # 0-based slot of the query word in PX
    runs: dict[str, SchemeRun]  # the schemes that could run, in SCHEMES order
    unavailable: dict[str, str] = field(default_factory=dict)  # scheme → why it cannot run (``unavailable_note``)


def explains_demo(tokens: list[str], d_model: int, seed: int = 0, query: int | None = None) -> Explains:
    """Every scheme at once on the sentence X and on its scramble PX (both at positions 1 … n):

    the copies of a repeated word: gap = max_{i,j copies} |w_qi − w_qj| from the query q
    (0 with no positions: equal words, equal keys, equal weights);
    the scramble: max |Attn(PX) − P·Attn(X)| (≈ 1e-16 with no positions; > 0 with any of them,
    because position p belongs to the slot, not to the word).
    Sinusoids and RoPE need an even d; with an odd d they are listed in ``unavailable``.
    """
    tokens = list(tokens)
    n = len(tokens)
    if n < 1:
        raise ValueError("The sentence is empty: type a few words.")
    d = width(d_model)
    q = chapter.query_index(tokens) if query is None else whole(
        query, f"The query position (a 0-based index into the {n} words)", 0, n - 1)
    X = embed(tokens, d, seed)
    W = projections(d, seed)
    positions = np.arange(1, n + 1)
    groups = duplicate_groups(tokens)
    copies = chapter.copies(tokens)
    order = scramble_order(tokens)
    P = permutation_matrix(order) if order is not None else None
    q_scr = order.index(q) if order is not None else None

    runs: dict[str, SchemeRun] = {}
    unavailable: dict[str, str] = {}
    for scheme in SCHEMES:
        if scheme in NEEDS_EVEN and d % 2:
            unavailable[scheme] = PAIRS[scheme]  # why it cannot run; ``unavailable_note`` words it once
            continue
        out, weights = attention_with_positions(X, W, scheme, positions, seed)
        w_scr = out_scr = permuted = row_err = err = None
        if P is not None:
            out_scr, w_scr = attention_with_positions(P @ X, W, scheme, positions, seed)
            permuted = P @ out
            diff = np.abs(out_scr - permuted)
            row_err = diff.max(axis=1)
            err = float(diff.max())
        runs[scheme] = SchemeRun(
            scheme=scheme,
            weights=weights,
            copies_gap=query_copies_gap(weights, groups, q),
            copies_gap_all=query_copies_gap(weights, groups),
            copy_weights=weights[q, copies],
            copy_gap=float(np.ptp(weights[q, copies])) if copies else 0.0,
            weights_scrambled=w_scr,
            out_scrambled=out_scr,
            permuted_out=permuted,
            row_error=row_err,
            scramble_error=err,
        )
    return Explains(
        tokens=tokens,
        d=d,
        seed=int(seed),
        query=q,
        duplicates=groups,
        copies=copies,
        order=order,
        scrambled=[tokens[i] for i in order] if order is not None else None,
        query_scrambled=q_scr,
        runs=runs,
        unavailable=unavailable,
    )

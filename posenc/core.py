"""Self-attention without positions: words, embeddings, projections, attention.

numpy only. Every function states the formula it implements, as the pages show it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import numpy as np

from .validate import width

_JOINERS = "'’\u200c\u200d"  # inside a word (between its letters) they stay: "don't", Persian's zero-width non-joiner
MAX_TOKENS = 64


def _is_base(c: str) -> bool:
    """A letter (Unicode L*) or a digit/number character: what starts or continues a word."""
    return c.isalnum()


def _is_mark(c: str) -> bool:
    """A combining mark (Unicode M*: a vowel sign, a virama, an accent): part of the letter before it."""
    return unicodedata.category(c)[0] == "M"


def _words(text: str) -> list[str]:
    """Runs of letters and digits with their combining marks; an apostrophe or zero-width (non-)joiner between
    two such characters stays inside the word. Everything else separates words."""
    words: list[str] = []
    current: list[str] = []
    pending = ""  # joiners seen after the current word, kept only if a letter follows
    for c in text:
        if _is_base(c) or (current and _is_mark(c) and not pending):
            current.append(pending + c if pending else c)
            pending = ""
        elif current and c in _JOINERS and not pending:
            pending = c
        else:
            if current:
                words.append("".join(current))
            current, pending = [], ""
    if current:
        words.append("".join(current))
    return words


def tokenize(text: str, max_tokens: int = MAX_TOKENS) -> list[str]:
    """Words of ``text``, lower-cased, punctuation dropped.

    tokens = lower(NFC(text)) split into runs of letters (Unicode L*) and digits, each with its combining marks
    (Unicode M*) — "The cat, chased the mouse!" → the, cat, chased, the, mouse; Hindi "बिल्ली ने" → 2 words,
    Thai "กินข้าว" → 1, "café" keeps its accent however it is typed. Words are split at spaces and punctuation
    only: a script written without spaces (Japanese, Chinese) gives one word per run between spaces
    (``posenc.scramble.unspaced`` tells such a sentence).
    """
    if text is None or not str(text).strip():
        raise ValueError("The sentence is empty: type a few words.")
    tokens = [w.lower() for w in _words(unicodedata.normalize("NFC", str(text)))]
    if not tokens:
        raise ValueError(
            "No words found: the sentence needs letters or digits "
            "(emoji and punctuation are dropped)."
        )
    if len(tokens) > max_tokens:
        raise ValueError(
            f"The sentence has {len(tokens)} words; the demonstrations take at most "
            f"{max_tokens}. Shorten it."
        )
    return tokens


def _rng(*words: str | int) -> np.random.Generator:
    """A generator seeded from a stable digest of ``words`` (never Python's salted ``hash``)."""
    key = "\x1f".join(str(w) for w in words).encode("utf-8")
    digest = hashlib.blake2b(key, digest_size=8).digest()
    return np.random.default_rng(int.from_bytes(digest, "little"))


def embed(tokens: list[str], d_model: int, seed: int = 0) -> np.ndarray:
    """Word embeddings: row t = x_word ~ N(0, I_d), drawn from a digest of (word, d, seed).

    The same word gives the same row in any sentence and in every process.
    """
    d = width(d_model)
    if not tokens:
        return np.zeros((0, d))
    table = {w: _rng("embed", w, d, seed).standard_normal(d) for w in set(tokens)}
    return np.stack([table[w] for w in tokens])


def projections(d_model: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_Q, W_K, W_V ∈ ℝ^{d×d} with entries ~ N(0, 1/d), so q = xW_Q has unit-size entries
    and the scores q·k/√d stay O(1)."""
    d = width(d_model)
    rng = _rng("projections", d, seed)
    w = rng.standard_normal((3, d, d)) / np.sqrt(d)
    return w[0], w[1], w[2]


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """softmax(s)_j = exp(s_j − max s) / Σ_l exp(s_l − max s); a row of −∞ stays all zero."""
    s = np.asarray(scores, dtype=float)
    top = np.max(s, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(s - top)
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def attention(
    X: np.ndarray,
    W_q: np.ndarray,
    W_k: np.ndarray,
    W_v: np.ndarray,
    mask: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Attn(X) = softmax(Q Kᵀ / √d_k) V with Q = X W_Q, K = X W_K, V = X W_V.

    ``mask[i, j]`` is True where query i may read key j; other scores become −∞.
    Returns (output, weights).
    """
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def causal_mask(n: int) -> np.ndarray:
    """mask[i, j] = (j ≤ i): a query reads itself and the words before it."""
    return np.tril(np.ones((n, n), dtype=bool))


def permutation_matrix(order: list[int] | np.ndarray) -> np.ndarray:
    """P[i, order[i]] = 1, so that (P X)[i] = X[order[i]], i.e. P @ X == X[order]."""
    order = np.asarray(order, dtype=int)
    n = order.size
    if sorted(order.tolist()) != list(range(n)):
        raise ValueError("The order must use every position exactly once.")
    P = np.zeros((n, n))
    P[np.arange(n), order] = 1.0
    return P


def parse_order(text: str, n: int) -> list[int]:
    """A custom word order typed as 1-based positions ("1 5 3 4 2") → 0-based indices.

    Accepts spaces or commas; every position 1 … n exactly once.
    """
    parts = [p for p in re.split(r"[\s,;]+", str(text).strip()) if p]
    if len(parts) != n:
        raise ValueError(f"Give {n} positions (one per word), separated by spaces; got {len(parts)}.")
    try:
        order = [int(p) - 1 for p in parts]
    except ValueError:
        raise ValueError("Positions must be whole numbers such as 1 5 3 4 2.") from None
    if sorted(order) != list(range(n)):
        raise ValueError(f"Use every position from 1 to {n} exactly once.")
    return order


def shuffle_order(n: int, seed: int) -> list[int]:
    """A random permutation of 0 … n−1 drawn from ``seed``."""
    return _rng("shuffle", n, seed).permutation(n).tolist()


def equivariance_error(
    X: np.ndarray, order: list[int], W: tuple[np.ndarray, np.ndarray, np.ndarray],
    mask: np.ndarray | None = None,
) -> float:
    """max |Attn(PX) − P·Attn(X)| over every entry."""
    P = permutation_matrix(order)
    out, _ = attention(X, *W, mask=mask)
    out_p, _ = attention(P @ X, *W, mask=mask)
    return float(np.max(np.abs(out_p - P @ out)))


def duplicate_groups(tokens: list[str]) -> dict[str, list[int]]:
    """Words that occur more than once → their 0-based indices."""
    groups: dict[str, list[int]] = {}
    for i, w in enumerate(tokens):
        groups.setdefault(w, []).append(i)
    return {w: ix for w, ix in groups.items() if len(ix) > 1}


def block_average(matrix: np.ndarray, max_rows: int, max_cols: int) -> tuple[np.ndarray, int, int]:
    """Average r×c blocks so that the result has at most max_rows × max_cols cells.

    Returns (smaller matrix, r, c); r = c = 1 means nothing was averaged.
    """
    m = np.asarray(matrix, dtype=float)
    r = max(1, -(-m.shape[0] // max_rows))
    c = max(1, -(-m.shape[1] // max_cols))
    if r == 1 and c == 1:
        return m, 1, 1
    rows, cols = -(-m.shape[0] // r) * r, -(-m.shape[1] // c) * c
    padded = np.full((rows, cols), np.nan)
    padded[: m.shape[0], : m.shape[1]] = m
    blocks = padded.reshape(rows // r, r, cols // c, c)
    return np.nanmean(blocks, axis=(1, 3)), r, c


def rounding_size(x: float) -> str:
    """A rounding-size number for page text: "0" when exact, else one significant digit ("3e-16")."""
    return "0" if x == 0 else f"{x:.0e}"


def signed(x: float, spec: str = ",") -> str:
    """A number for page text with a true minus sign (−3, not -3), as the charts' d3 format writes it: no sign on
    a value that rounds to zero (−0.0000001 at ".6f" is "0.000000")."""
    text = format(x, spec)
    if text.startswith("-") and not any(c in "123456789" for c in text):
        text = text[1:]
    return text.replace("-", "−")


def count(n: int, noun: str) -> str:
    """'1 pair', '17 pairs', '1,024 positions': a count and its noun, singular only for exactly 1."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def times(x: float) -> str:
    """A ratio in words: whole thousands-separated from 100 up (27,459), three significant digits below (0.72);
    never e-notation."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def listing(items) -> str:
    """“a”, “a and b”, “a, b and c”: the one way the prose lists things."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)

"""RoPE: rotate the query and the key by their positions; the score depends on the gap alone.

numpy only. θ_i = base^(−2i/d); ``posenc.encodings.rope`` turns the interleaved pairs (x_{2i}, x_{2i+1}) by p·θ_i.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import chapter
from .core import embed, projections
from .encodings import MAX_POSITION, frequencies, rope, rope_angles, rope_score, sinusoidal
from .sinusoid_demo import additive_scores, angle_tolerance, check_position
from .validate import width

WINDOW = 40  # the score window: query and key positions start … start + WINDOW − 1 (40 × 40 cells per scheme)
NORM_TOL = 1e-12  # "a rotation keeps the length": |‖R_m q‖ − ‖q‖| allowed, relative to ‖q‖
CURVE_POINTS = 121  # positions 1 … MAX_POSITION, evenly spaced on a log scale, for the length curves


def rope_half(x: np.ndarray, positions, base: float = chapter.BASE) -> np.ndarray:
    """RoPE with half-split pairs (x_i, x_{i+d/2}), as in GPT-NeoX and Hugging Face's ``rotate_half``:

    y_i = x_i cos θ − x_{i+d/2} sin θ,   y_{i+d/2} = x_i sin θ + x_{i+d/2} cos θ,   θ = p·base^(−2i/d).
    x has shape (…, n, d) or (d,); angles are computed in float64.
    """
    x, c, s = rope_angles(x, positions, base)
    half = c.shape[-1]
    first, second = x[..., :half], x[..., half:]
    return np.concatenate([first * c - second * s, first * s + second * c], axis=-1)


def half_split_permutation(d: int) -> np.ndarray:
    """perm = [0, 2, 4, …, d−2, 1, 3, …, d−1]: RoPE_half(x[perm]) = RoPE_interleaved(x)[perm]."""
    d = width(d, even=True, why="RoPE turns the coordinates in pairs")
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def diagonal_spread(S: np.ndarray) -> float:
    """max over the diagonals of S (entries with the same n − m) of (max − min) along that diagonal."""
    S = np.asarray(S, dtype=np.float64)
    rows, cols = S.shape
    worst = 0.0
    for off in range(-(rows - 1), cols):
        diag = np.diagonal(S, offset=off)
        if diag.size > 1:
            worst = max(worst, float(diag.max() - diag.min()))
    return worst


def row_spread(S: np.ndarray) -> float:
    """max over the rows of S (one query position m, every key position n) of (max − min) along that row."""
    S = np.asarray(S, dtype=np.float64)
    return float(np.ptp(S, axis=1).max()) if S.size else 0.0


def wrap_angle(a: np.ndarray) -> np.ndarray:
    """Angles wrapped to (−π, π]."""
    return np.pi - np.mod(np.pi - np.asarray(a, dtype=np.float64), 2 * np.pi)


def rope_qkv(X: np.ndarray, positions, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray,
             base: float = chapter.BASE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One RoPE attention layer's inputs: rows R_p (x W_Q), R_p (x W_K), and v = x W_V — v is never rotated."""
    return rope(X @ W_q, positions, base), rope(X @ W_k, positions, base), X @ W_v


def additive_qkv(X: np.ndarray, positions, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray,
                 base: float = chapter.BASE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The additive scheme: h = x + PE(p), then q = h W_Q, k = h W_K, v = h W_V (the position is in v too)."""
    H = X + sinusoidal(positions, X.shape[-1], base)
    return H @ W_q, H @ W_k, H @ W_v


@dataclass(frozen=True)
class RopeDemo:
    query_word: str
    key_word: str
    d: int
    base: float
    m: int
    n: int
    q: np.ndarray  # x_q W_Q (no position)
    k: np.ndarray  # x_k W_K
    score: float  # (q R_mᵀ)·(k R_nᵀ)/√d
    relative: float  # q R_{n−m} kᵀ/√d
    identity_error: float  # |score − relative|
    identity_tol: float  # float64 rounding allowance at positions up to max(m, n)
    pairs: tuple[tuple[int, int], ...]  # the chapter's (m, n) pairs
    pair_scores: np.ndarray  # (q R_mᵀ)·(k R_nᵀ)/√d for each
    pair_spread: float  # max − min over the chapter's pairs
    pair_tol: float  # float64 rounding allowance at the chapter's largest position
    # each pair on its circle
    thetas: np.ndarray  # θ_i
    q_pairs: np.ndarray  # (d/2, 2) (q_{2i}, q_{2i+1})
    k_pairs: np.ndarray
    q_turned: np.ndarray  # pairs of q turned by m·θ_i
    k_turned: np.ndarray  # pairs of k turned by n·θ_i
    pair_gap_angles: np.ndarray  # angle from the turned q pair to the turned k pair, wrapped to (−π, π]


@dataclass(frozen=True)
class Window:
    start: int
    positions: np.ndarray  # start … start + WINDOW − 1 (used for m and for n)
    rope_scores: np.ndarray  # S[a, b] = (q R_{m_a}ᵀ)·(k R_{n_b}ᵀ)/√d
    additive_scores: np.ndarray  # ((x_q + PE_{m_a}) W_Q)·((x_k + PE_{n_b}) W_K)/√d
    rope_diag_spread: float  # max over diagonals (same n − m) of max − min: rounding only
    rope_row_spread: float  # max over rows (same m) of max − min: the score does change with n
    additive_diag_spread: float
    tol: float  # float64 rounding allowance at the window's last position
    # pairing conventions
    half_vector_error: float  # max |RoPE_half(q[perm]) − RoPE(q)[perm]| over the window
    half_score_error: float  # max |S_interleaved − S_half(q[perm], k[perm])| over the window
    half_unpermuted_gap: float  # max |S_interleaved − S_half(q, k)|: without the permutation the scores differ…
    half_unpermuted_diag_spread: float  # …but still depend on the gap alone


@dataclass(frozen=True)
class Lengths:
    """A rotation keeps every length; the raw index grows with the position (the fixes page's first fix)."""
    m: int
    x_norm: float  # ‖x_q‖, the word vector
    q_norm: float  # ‖q‖ = ‖x_q W_Q‖
    rotated_q_norm: float  # ‖q R_mᵀ‖
    norm_error: float  # |‖q R_mᵀ‖ − ‖q‖|
    raw_coordinate: int  # the raw index's extra coordinate at m: m itself
    raw_norm: float  # ‖[x_q ; m]‖ = √(‖x_q‖² + m²)
    positions: np.ndarray  # 1 … MAX_POSITION on a log scale (the curves; the same at every m)
    rope_norms: np.ndarray  # ‖q R_pᵀ‖ for those p
    raw_norms: np.ndarray  # ‖[x_q ; p]‖ for those p
    curve_norm_error: float  # max over the curve of |‖q R_pᵀ‖ − ‖q‖|
    # RoPE beside adding sinusoids (an aside): the word at position 1 and at m
    x_pe_norm: float  # ‖x_q + PE_m‖
    v_gap_rope: float  # max |v(word at 1) − v(word at m)|, v = x W_V (RoPE leaves v alone)
    v_gap_additive: float  # the same with v = (x + PE) W_V
    # q before turning, for a chart that turns it by any m itself (its length at m is a closed form of these)
    thetas: np.ndarray  # θ_i
    q_pairs: np.ndarray  # (d/2, 2) (q_{2i}, q_{2i+1})


def _words(tokens: list[str], q_index: int, k_index: int, d: int, seed: int):
    d = width(d, even=True, why="RoPE turns the coordinates in pairs")
    if not (0 <= q_index < len(tokens) and 0 <= k_index < len(tokens)):
        raise ValueError("Pick the query and key words by their positions in the sentence.")
    X = embed(tokens, d, seed)
    W_q, W_k, W_v = projections(d, seed)
    return d, X[q_index], X[k_index], W_q, W_k, W_v


def rope_demo(tokens: list[str], q_index: int, k_index: int, d: int, seed: int = 0,
              m: int = chapter.PAIRS[0][0], n: int = chapter.PAIRS[0][1], base: float = chapter.BASE,
              pairs: tuple[tuple[int, int], ...] = chapter.PAIRS) -> RopeDemo:
    """The query word at position m, the key word at n (rows, as everywhere: q = x_q W_Q, k = x_k W_K), then

    score(m, n) = (q R_mᵀ)·(k R_nᵀ)/√d = q R_mᵀ R_n kᵀ/√d = q R_{n−m} kᵀ/√d   (R_mᵀ R_n = R_{n−m}),

    where q R_pᵀ turns pair i of q by p·θ_i (``posenc.encodings.rope``).
    """
    d, x_q, x_k, W_q, W_k, _ = _words(tokens, q_index, k_index, d, seed)
    m = check_position(m, "The query position m")
    n = check_position(n, "The key position n")
    root = np.sqrt(d)
    q, k = x_q @ W_q, x_k @ W_k
    Rq, Rk = rope(q, [m], base)[0], rope(k, [n], base)[0]
    score = float(Rq @ Rk) / root
    relative = float(q @ rope(k, [n - m], base)[0]) / root
    pair_scores = np.array([rope_score(q, k, a, b, base) for a, b in pairs]) / root
    qt, kt = Rq.reshape(-1, 2), Rk.reshape(-1, 2)
    return RopeDemo(
        query_word=tokens[q_index], key_word=tokens[k_index], d=d, base=base, m=m, n=n, q=q, k=k,
        score=score, relative=relative, identity_error=abs(score - relative),
        identity_tol=angle_tolerance(max(m, n)), pairs=tuple(pairs),
        pair_scores=pair_scores, pair_spread=float(pair_scores.max() - pair_scores.min()),
        pair_tol=angle_tolerance(max(max(a, b) for a, b in pairs)),
        thetas=frequencies(d, base), q_pairs=q.reshape(-1, 2), k_pairs=k.reshape(-1, 2), q_turned=qt, k_turned=kt,
        pair_gap_angles=wrap_angle(np.arctan2(kt[:, 1], kt[:, 0]) - np.arctan2(qt[:, 1], qt[:, 0])),
    )


def score_window(tokens: list[str], q_index: int, k_index: int, d: int, seed: int = 0, start: int = 1,
                 base: float = chapter.BASE) -> Window:
    """S[a, b] = (q R_{m_a}ᵀ)·(k R_{n_b}ᵀ)/√d for m, n = start … start + WINDOW − 1 (constant along diagonals),
    beside the additive scheme ((x_q + PE_m) W_Q)·((x_k + PE_n) W_K)/√d; and the half-split convention:
    RoPE_half(q[π])·RoPE_half(k[π]) = (q R_mᵀ)·(k R_nᵀ) with π = [0, 2, …, d−2, 1, 3, …, d−1]."""
    d, x_q, x_k, W_q, W_k, _ = _words(tokens, q_index, k_index, d, seed)
    start = check_position(start, "The window start")
    if start + WINDOW - 1 > MAX_POSITION:
        raise ValueError(f"The window must end by position {MAX_POSITION:,}: start at most "
                         f"{MAX_POSITION - WINDOW + 1:,}.")
    root = np.sqrt(d)
    q, k = x_q @ W_q, x_k @ W_k
    pos = np.arange(start, start + WINDOW, dtype=np.float64)
    Q = rope(np.tile(q, (WINDOW, 1)), pos, base)
    K = rope(np.tile(k, (WINDOW, 1)), pos, base)
    S = Q @ K.T / root
    A = additive_scores(x_q, x_k, W_q, W_k, pos, pos, base)
    perm = half_split_permutation(d)
    Qh = rope_half(np.tile(q[perm], (WINDOW, 1)), pos, base)
    Kh = rope_half(np.tile(k[perm], (WINDOW, 1)), pos, base)
    S_unperm = rope_half(np.tile(q, (WINDOW, 1)), pos, base) @ rope_half(np.tile(k, (WINDOW, 1)), pos, base).T / root
    return Window(
        start=start, positions=pos.astype(np.int64), rope_scores=S, additive_scores=A,
        rope_diag_spread=diagonal_spread(S), rope_row_spread=row_spread(S),
        additive_diag_spread=diagonal_spread(A), tol=angle_tolerance(pos[-1]),
        half_vector_error=float(np.max(np.abs(Qh - Q[:, perm]))),
        half_score_error=float(np.max(np.abs(S - Qh @ Kh.T / root))),
        half_unpermuted_gap=float(np.max(np.abs(S - S_unperm))),
        half_unpermuted_diag_spread=diagonal_spread(S_unperm),
    )


def length_demo(tokens: list[str], q_index: int, d: int, seed: int = 0, m: int = chapter.RAW_POSITION,
                base: float = chapter.BASE) -> Lengths:
    """Lengths with the query word at position m: a rotation keeps them, ‖q R_mᵀ‖ = ‖q‖ at every m; the raw index
    (the position as one extra coordinate, [x ; m]) grows with m, ‖[x ; m]‖ = √(‖x‖² + m²).
    Aside: adding sinusoids changes ‖x + PE_m‖ and puts the position into v = (x + PE) W_V; RoPE's v = x W_V."""
    d, x_q, _, W_q, _, W_v = _words(tokens, q_index, q_index, d, seed)
    m = check_position(m, "The position m")
    q = x_q @ W_q
    Rq = rope(q, [m], base)[0]
    q_norm, x_norm = float(np.linalg.norm(q)), float(np.linalg.norm(x_q))
    ps = np.unique(np.geomspace(1, MAX_POSITION, CURVE_POINTS).round())  # m not among them: one curve at every m
    rope_norms = np.linalg.norm(rope(np.tile(q, (ps.size, 1)), ps, base), axis=1)
    two = np.stack([x_q, x_q])  # the query word at positions 1 and m
    _, _, v_rope = rope_qkv(two, [1, m], W_q, W_q, W_v, base)
    _, _, v_add = additive_qkv(two, [1, m], W_q, W_q, W_v, base)
    rotated = float(np.linalg.norm(Rq))
    return Lengths(
        m=m, x_norm=x_norm, q_norm=q_norm, rotated_q_norm=rotated, norm_error=abs(rotated - q_norm),
        raw_coordinate=m, raw_norm=float(np.hypot(x_norm, m)),
        positions=ps.astype(np.int64), rope_norms=rope_norms, raw_norms=np.hypot(x_norm, ps),
        curve_norm_error=float(np.max(np.abs(rope_norms - q_norm))),
        x_pe_norm=float(np.linalg.norm(x_q + sinusoidal([m], d, base)[0])),
        v_gap_rope=float(np.max(np.abs(v_rope[0] - v_rope[1]))),
        v_gap_additive=float(np.max(np.abs(v_add[0] - v_add[1]))),
        thetas=frequencies(d, base), q_pairs=q.reshape(-1, 2),
    )

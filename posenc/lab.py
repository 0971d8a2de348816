"""The lab: train a tiny transformer with each position scheme and test it past its training length.

numpy only, float64, hand-written backprop (no autograd library). Each formula has one home:

    model     h⁰ = E[token] (+ P[position] for ``learned``, + PE(position) for ``sinusoidal``)
              for each layer l:  q = hW_q, k = hW_k, v = hW_v            (H heads of width d/H; H = 1 by default)
                                 q, k ← R_p q, R_p k                      (``rope`` only, per head)
                                 s_ij = q_i·k_j / √(d/H) − m_h|i − j| + mask_ij  (the m term for ``alibi`` only)
                                 a = softmax_j(s),  h ← h + [a v]_heads   (residual; heads concatenated)
                                 h ← h + W_2 relu(W_1 h + b_1) + b_2      (only with ``mlp=True``)
              logits = h W_out + b_out
    options   (keyword arguments; their defaults are the original model exactly)
              start token: ``bos=True`` puts one extra token (its own embedding row) at position 0 of every
              sequence; it is never scored. MLP: ``mlp=True`` adds the block above (hidden width 4d) to each layer.
              Heads: ``heads=H`` splits the width into H heads; ALiBi's head h gets slope 2^−h (h = 1 … H): the
              steepest H slopes of the paper's 8-head geometric set, so H = 1 is the single slope 1/2.
    loss      mean over scored entries (target ≠ −1) of −log softmax(logits)[target]
    optimiser Adam, the same settings and the same step budget for every scheme

Positions are 0-based in this module (the pages show them 1-based).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import chapter
from .core import _rng, causal_mask, softmax
from .encodings import rope, sinusoidal
from .stretch import alibi_bias
from .validate import MAX_D_LAB, real, whole, width

SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi")
TASKS = ("copy", "first", "induction")

BASE = chapter.BASE  # sinusoid and RoPE base, as in Vaswani et al. and Su et al.
# One head gets one ALiBi slope. The paper's rule for a single head gives m = 2^(−8) = 1/256, a bias of at
# most 0.06 across a 16-token sequence: no position signal at all. We use m = 1/2, the steepest slope of the
# paper's default 8-head set (1/2, 1/4, …, 1/256), fixed before any training was run.
ALIBI_SLOPE = 0.5

MAX_VOCAB = 1024
MAX_SEED = 2**63 - 1
MAX_LAYERS = 2
MAX_LENGTH = 1024
MAX_STEPS = 5000
MAX_BATCH = 256
MAX_HEADS = 8
MLP_WIDTH = 4  # the MLP's hidden width, as a multiple of d


KEY_FIELDS = ("task", "k", "n_layers", "L_train", "steps", "heads", "bos", "mlp")  # what the page's controls set


@dataclass(frozen=True)
class Settings:
    """Everything a training run depends on. The defaults are the precomputed ones.

    Nothing here depends on the scheme: every scheme gets the same model size, data, optimiser and steps.
    """

    task: str = "copy"
    k: int = 2  # copy task: the token k places back (1 … 3); ignored by ``first``
    n_layers: int = 2
    L_train: int = 16
    steps: int = 2000
    vocab: int = 10
    d_model: int = 16
    batch: int = 32
    lr: float = 0.01
    n_max_factor: int = 2  # the learned table has n_max = n_max_factor × L_train rows
    n_test: int = 100  # test sequences per test length
    heads: int = 1  # attention heads per layer (the width is split among them)
    bos: bool = False  # a start token at position 0 of every sequence
    mlp: bool = False  # an MLP block after each attention layer

    @property
    def n_max(self) -> int:
        return self.n_max_factor * self.L_train

    @property
    def test_lengths(self) -> tuple[int, ...]:
        """From L_train/2 to 4 × L_train."""
        L = self.L_train
        return tuple(sorted({max(2, L // 2), L, (3 * L) // 2, 2 * L, 3 * L, 4 * L}))

    @property
    def map_length(self) -> int:
        """Length of the sequence whose attention maps are kept: 4 × L_train, the headline's length."""
        return 4 * self.L_train

    @property
    def key(self) -> tuple:
        """The settings a page can change, as a hashable key (``Settings.of_key`` reads it back)."""
        return tuple(getattr(self, f) for f in KEY_FIELDS)

    @classmethod
    def of_key(cls, key: tuple) -> Settings:
        return cls(**dict(zip(KEY_FIELDS, key)))

    @property
    def options(self) -> dict:
        """The model options, as keyword arguments of ``init_params`` / ``loss_and_grads``."""
        return {"heads": self.heads, "bos": self.bos, "mlp": self.mlp}

    def check(self) -> Settings:
        check_task(self.task)
        whole(self.k, "k", 1, 3)
        whole(self.n_layers, "n_layers", 1, MAX_LAYERS)
        whole(self.L_train, "L_train", 8, 64)  # L_train/2 ≥ 4 > k: every test length scores
        whole(self.steps, "steps", 1, MAX_STEPS)
        whole(self.vocab, "vocab", 2, MAX_VOCAB)
        _width(self.d_model, "rope")
        whole(self.batch, "batch", 1, MAX_BATCH)
        whole(self.n_max_factor, "n_max_factor", 1, 4)
        whole(self.n_test, "n_test", 1, 10_000)
        _heads(self.heads, self.d_model, "rope")
        for name in ("bos", "mlp"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False; got {getattr(self, name)!r}.")
        real(self.lr, "lr (the learning rate)", 0, 1, open_lo=True)
        return self


# ----------------------------------------------------------------------------------------------
# argument checks (messages meant for students)
# ----------------------------------------------------------------------------------------------


def _width(d_model, scheme: str) -> int:
    """d_model in 1 … MAX_D_LAB, and even for the schemes that work on (sin, cos) pairs."""
    return width(d_model, name="d_model", lo=1, hi=MAX_D_LAB, even=scheme in ("sinusoidal", "rope"),
                 why=f"{scheme} works on pairs of coordinates")


def _heads(heads, d_model: int, scheme: str) -> int:
    """heads in 1 … MAX_HEADS, dividing d_model, with an even head width for the pair-based schemes."""
    H = whole(heads, "heads", 1, MAX_HEADS)
    if d_model % H:
        raise ValueError(f"heads = {H} does not divide d_model = {d_model}: each head gets d_model / heads coordinates.")
    if (d_model // H) % 2 and scheme in ("sinusoidal", "rope"):
        raise ValueError(f"each head gets {d_model // H} coordinates, an odd number: {scheme} needs pairs.")
    return H


def alibi_head_slopes(heads: int) -> np.ndarray:
    """m_h = 2^−h for h = 1 … heads: the steepest slopes of Press et al.'s geometric 8-head set (1/2 … 1/256);
    one head gets ALIBI_SLOPE = 1/2, as before."""
    return ALIBI_SLOPE ** np.arange(1, whole(heads, "heads", 1, MAX_HEADS) + 1)


def check_scheme(scheme) -> str:
    if scheme not in SCHEMES:
        raise ValueError(f"Unknown scheme {scheme!r}; choose one of {', '.join(SCHEMES)}.")
    return scheme


def check_task(task) -> str:
    if task not in TASKS:
        raise ValueError(f"Unknown task {task!r}; choose one of {', '.join(TASKS)}.")
    return task


def _int_array(a, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a 2-D array (batch, length) with at least one entry; got shape {arr.shape}.")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must hold whole numbers (an int array); got dtype {arr.dtype}.")
    return arr.astype(np.int64, copy=False)


# ----------------------------------------------------------------------------------------------
# parameters
# ----------------------------------------------------------------------------------------------


def n_layers_of(params: dict[str, np.ndarray]) -> int:
    return sum(1 for name in params if name.startswith("W_q."))


def has_mlp(params: dict[str, np.ndarray]) -> bool:
    return "W_1.0" in params


def has_bos(params: dict[str, np.ndarray]) -> bool:
    """A start token: E has one row more than the vocabulary the readout predicts."""
    return params["E"].shape[0] == params["W_out"].shape[1] + 1


def init_params(scheme: str, vocab: int, d_model: int, n_max: int, seed: int, n_layers: int = 1, *,
                heads: int = 1, bos: bool = False, mlp: bool = False) -> dict[str, np.ndarray]:
    """Initial parameters, float64 and C-contiguous. Each array is drawn from a digest of (its name, its shape,
    seed), so the same seed gives the same arrays in every process, and every scheme starts from the same
    token embedding and weights; ``learned`` only adds its table, the options only add their own arrays.

    E, P ~ N(0, 1) (like an embedding layer);  W_q, W_k, W_v, W_out, W_1 ~ N(0, 1/d);  W_2 ~ N(0, 1/(4d));
    biases 0. ``bos``: one more row of E (the start token, index ``vocab``) and of P (its position 0).
    ``heads`` changes no array (the width is split at run time); it is checked against d_model here.
    """
    check_scheme(scheme)
    V = whole(vocab, "vocab", 2, MAX_VOCAB)
    d = _width(d_model, scheme)
    _heads(heads, d, scheme)
    n_max = whole(n_max, "n_max", 1, MAX_LENGTH)
    seed = whole(seed, "seed", 0, MAX_SEED)
    L = whole(n_layers, "n_layers", 1, MAX_LAYERS)

    def draw(name: str, shape: tuple[int, ...], scale: float) -> np.ndarray:
        return np.ascontiguousarray(_rng("lab", name, *shape, seed).standard_normal(shape) * scale)

    params = {"E": draw("E", (V, d), 1.0)}
    if bos:
        params["E"] = np.ascontiguousarray(np.vstack([params["E"], draw("E_bos", (1, d), 1.0)]))
    if scheme == "learned":
        params["P"] = draw("P", (n_max, d), 1.0)
        if bos:
            params["P"] = np.ascontiguousarray(np.vstack([draw("P_bos", (1, d), 1.0), params["P"]]))
    for layer in range(L):
        for w in ("W_q", "W_k", "W_v"):
            params[f"{w}.{layer}"] = draw(f"{w}.{layer}", (d, d), 1 / math.sqrt(d))
        if mlp:
            params[f"W_1.{layer}"] = draw(f"W_1.{layer}", (d, MLP_WIDTH * d), 1 / math.sqrt(d))
            params[f"b_1.{layer}"] = np.zeros(MLP_WIDTH * d)
            params[f"W_2.{layer}"] = draw(f"W_2.{layer}", (MLP_WIDTH * d, d), 1 / math.sqrt(MLP_WIDTH * d))
            params[f"b_2.{layer}"] = np.zeros(d)
    params["W_out"] = draw("W_out", (d, V), 1 / math.sqrt(d))
    params["b_out"] = np.zeros(V)
    return params


def _check_params(params: dict[str, np.ndarray], scheme: str) -> tuple[int, int, int]:
    """(vocab, d, n_layers) of a parameter dict, or a ValueError saying what is missing."""
    if not isinstance(params, dict) or "E" not in params or "W_out" not in params or "b_out" not in params:
        raise ValueError("params must be a dict from init_params (keys E, W_q.0, …, W_out, b_out).")
    d, V = params["W_out"].shape
    if params["E"].shape[0] not in (V, V + 1) or params["E"].shape[1] != d:
        raise ValueError(f"E has shape {params['E'].shape}; the readout W_out {params['W_out'].shape} needs "
                         f"({V}, {d}), or ({V + 1}, {d}) with a start token.")
    L = n_layers_of(params)
    needed = ["E", "W_out", "b_out"] + [f"{w}.{i}" for i in range(L) for w in ("W_q", "W_k", "W_v")]
    if has_mlp(params):
        needed += [f"{w}.{i}" for i in range(L) for w in ("W_1", "b_1", "W_2", "b_2")]
    if scheme == "learned":
        needed.append("P")
    missing = [n for n in needed if n not in params]
    if L < 1 or missing:
        raise ValueError(f"params lack {', '.join(missing) or 'W_q.0'} for scheme {scheme!r}.")
    if scheme != "learned" and "P" in params:
        raise ValueError(f"params hold a learned table P, but the scheme is {scheme!r}.")
    return V, d, L


# ----------------------------------------------------------------------------------------------
# forward and backward
# ----------------------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _score_bias(n: int, scheme: str, causal: bool, heads: int = 1, max_gap: int | None = None,
                keep_first: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """The part of the scores that does not depend on content, shape (heads, n, n):
    −m_h|i − j| for ``alibi`` (else 0), −∞ where j > i when ``causal``, and −∞ where i − j > ``max_gap``
    (a test-time restriction to the gaps seen in training; ``keep_first`` leaves the start token readable);
    and the (n, n) cells it allows (None: all). Computed once per argument set (read-only arrays)."""
    if scheme == "alibi":
        bias = np.stack([alibi_bias(n, m) for m in alibi_head_slopes(heads)])
    else:
        bias = np.zeros((heads, n, n))
    allowed = causal_mask(n) if causal else np.ones((n, n), dtype=bool)
    if max_gap is not None:
        i, j = np.indices((n, n))
        near = (i - j) <= max_gap
        if keep_first:
            near[:, 0] = True
        allowed = allowed & near
    bias = np.where(allowed, bias, -np.inf)
    cells = None if allowed.all() else allowed
    for a in (bias, cells):
        if a is not None:
            a.setflags(write=False)
    return bias, cells


def _attend(s: np.ndarray, allowed: np.ndarray | None) -> np.ndarray:
    """core.softmax over the last axis, exactly (the same numbers, bit for bit), computed in place in ``s``
    and with exp evaluated only on the ``allowed`` cells: the others hold −∞, whose weight is 0 (every row
    allows its diagonal, so no row is empty). exp is most of the lab's time, and a causal mask allows only about
    half of the cells; a fresh array of this size costs as much again in page faults."""
    if allowed is None:
        return softmax(s, axis=-1)
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s, where=allowed)
    np.copyto(s, 0.0, where=~allowed)
    s /= s.sum(axis=-1, keepdims=True)
    return s


def _embed(params, full: np.ndarray, scheme: str) -> np.ndarray:
    """h⁰ = E[token] (+ P[p] or + PE(p)) for stacked params (a leading seed axis S) and ``full`` (S, B, n) tokens
    that already carry the start token when there is one."""
    n = full.shape[-1]
    E = params["E"]
    h = E[np.arange(E.shape[0])[:, None, None], full]
    if scheme == "learned":
        rows = params["P"].shape[1]
        if n > rows:
            bos = int(E.shape[1] == params["W_out"].shape[-1] + 1)
            raise ValueError(
                f"The learned table has n_max = {rows - bos} rows; a sequence of length {n - bos} needs row "
                f"{n - bos} (1-based), and there is no row to look up."
            )
        h = h + params["P"][:, None, :n]
    elif scheme == "sinusoidal":
        h = h + sinusoidal(np.arange(n), h.shape[-1], BASE)
    return h


def _split(x: np.ndarray, heads: int) -> np.ndarray:
    """(…, n, d) → (…, H, n, d/H), C-contiguous (numpy's strided loops over the swapped view are ~4 × slower)."""
    return np.ascontiguousarray(x.reshape(*x.shape[:-1], heads, x.shape[-1] // heads).swapaxes(-2, -3))


def _merge(x: np.ndarray) -> np.ndarray:
    """(…, H, n, d/H) → (…, n, d)."""
    y = x.swapaxes(-2, -3)
    return y.reshape(*y.shape[:-2], y.shape[-2] * y.shape[-1])


def _with_bos(params, tokens: np.ndarray) -> np.ndarray:
    if not has_bos(params):
        return tokens
    start = np.full((tokens.shape[0], 1), params["E"].shape[0] - 1, dtype=tokens.dtype)
    return np.hstack([start, tokens])


def _stack(params: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One run's parameters as a stack of one (a leading seed axis of length 1; views, no copies)."""
    return {name: p[None] for name, p in params.items()}


def _t(w: np.ndarray) -> np.ndarray:
    """Per seed, the matrix transposed: (S, a, b) → (S, b, a)."""
    return w.swapaxes(-1, -2)


def _mul(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """x @ w per seed: x (S, …, a), w (S, a, b) → (S, …, b), as one (rows, a) × (a, b) product a seed instead of
    one per sequence: S calls of BLAS instead of S × B. Used only where OpenBLAS gives the same numbers bit for
    bit as one product per sequence, checked at every length the lab trains or tests (tests/test_lab.py)."""
    return (x.reshape(x.shape[0], -1, x.shape[-1]) @ w).reshape(*x.shape[:-1], w.shape[-1])


def _run(stack, full: np.ndarray, scheme: str, causal: bool, H: int, bos: int, max_gap: int | None = None,
         states: bool = False):
    """The forward pass of S runs at once: ``stack`` holds each parameter with a leading seed axis, ``full`` is
    (S, B, n) (with the start token). Every seed's arithmetic is exactly what it would be alone: the products
    are the same (n, d) × (d, d) blocks, the sums run over the same axes in the same order."""
    n = full.shape[-1]
    dh = stack["W_q.0"].shape[-1] // H
    pos = np.arange(n)
    bias, allowed = _score_bias(n, scheme, bool(causal), H, max_gap, keep_first=bool(bos))
    h = _embed(stack, full, scheme)
    cache, kept = [], []
    for layer in range(n_layers_of(stack)):
        q, k, v = (_split(_mul(h, stack[f"{w}.{layer}"]), H) for w in ("W_q", "W_k", "W_v"))
        qr, kr = (rope(q, pos, BASE), rope(k, pos, BASE)) if scheme == "rope" else (q, k)
        s = qr @ kr.swapaxes(-1, -2)  # s_ij = q_i·k_j/√(d/H) + bias_ij, per head (in place: no temporaries)
        s /= math.sqrt(dh)
        s += bias
        a = _attend(s, allowed)
        h_in = h
        h = h + _merge(a @ v)  # residual: h ← h + Σ_j a_ij v_j, heads side by side
        mlp = None
        if f"W_1.{layer}" in stack:
            u = _mul(h, stack[f"W_1.{layer}"]) + stack[f"b_1.{layer}"][:, None, None]
            z = np.maximum(u, 0.0)
            mlp = (h, u, z)
            h = h + _mul(z, stack[f"W_2.{layer}"]) + stack[f"b_2.{layer}"][:, None, None]
        cache.append((h_in, v, qr, kr, a, mlp))
        if states:
            kept.append(h[:, :, bos:])
    # one product per sequence here: merged, a length with an odd number of content positions (never one the
    # page trains or tests) comes out different in its last bits (OpenBLAS's edge kernels sum in another order)
    logits = h[:, :, bos:] @ stack["W_out"][:, None] + stack["b_out"][:, None, None]
    return logits, (h, cache), kept


def _backward(stack, full: np.ndarray, targets: np.ndarray, scheme: str, causal: bool, H: int,
              bos: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The losses (S,) and gradients (each with the leading seed axis) of S runs at once; see loss_and_grads."""
    S, d, V = stack["W_out"].shape
    dh = d // H
    scored = targets >= 0
    count = scored.reshape(S, -1).sum(axis=1)
    logits, (h_last, cache), _ = _run(stack, full, scheme, causal, H, bos)
    # log p = logits − logsumexp(logits)
    top = logits.max(axis=-1, keepdims=True)
    logp = logits - top - np.log(np.exp(logits - top).sum(axis=-1, keepdims=True))
    safe = np.where(scored, targets, 0)
    at = np.arange(safe.size), safe.ravel()  # each entry's target, in the (entries, V) view of the logits
    picked = logp.reshape(-1, V)[at].reshape(safe.shape)
    losses = np.array([-float(picked[i][scored[i]].sum()) / count[i] for i in range(S)])

    # ∂loss/∂logits = (softmax − onehot(target)) / count on scored entries, 0 elsewhere
    g_logits = np.exp(logp)
    g_logits.reshape(-1, V)[at] -= 1
    g_logits *= scored[..., None] / count[:, None, None, None]

    def outer(x: np.ndarray, g: np.ndarray) -> np.ndarray:  # Σ over batch and positions of xᵀg, per seed
        return x.reshape(S, -1, x.shape[-1]).swapaxes(-1, -2) @ g.reshape(S, -1, g.shape[-1])

    grads: dict[str, np.ndarray] = {}
    grads["W_out"] = outer(h_last[:, :, bos:], g_logits)
    grads["b_out"] = g_logits.sum(axis=(1, 2))
    g = _mul(g_logits, _t(stack["W_out"]))
    if bos:
        g = np.concatenate([np.zeros_like(g[:, :, :1]), g], axis=2)
    pos = np.arange(full.shape[-1])
    for layer in reversed(range(len(cache))):
        h, v, qr, kr, a, mlp = cache[layer]
        if mlp is not None:
            h_mid, u, z = mlp
            grads[f"W_2.{layer}"] = outer(z, g)
            grads[f"b_2.{layer}"] = g.sum(axis=(1, 2))
            g_u = _mul(g, _t(stack[f"W_2.{layer}"])) * (u > 0)
            grads[f"W_1.{layer}"] = outer(h_mid, g_u)
            grads[f"b_1.{layer}"] = g_u.sum(axis=(1, 2))
            g = g + g_u @ _t(stack[f"W_1.{layer}"])[:, None]  # per sequence: merged, its last bits differ
        g_o = _split(g, H)
        g_a = g_o @ v.swapaxes(-1, -2)
        g_v = a.swapaxes(-1, -2) @ g_o
        g_s = g_a  # ∂s = a ⊙ (∂a − Σ_j a ∂a) / √(d/H), in place (the same numbers, no fresh arrays)
        g_s -= (g_a * a).sum(axis=-1, keepdims=True)
        g_s *= a
        g_s /= math.sqrt(dh)
        g_q, g_k = g_s @ kr, g_s.swapaxes(-1, -2) @ qr
        if scheme == "rope":
            g_q, g_k = rope(g_q, -pos, BASE), rope(g_k, -pos, BASE)
        g_q, g_k, g_v = _merge(g_q), _merge(g_k), _merge(g_v)
        for name, gw in (("W_q", g_q), ("W_k", g_k), ("W_v", g_v)):
            grads[f"{name}.{layer}"] = outer(h, gw)
        g = (g + _mul(g_q, _t(stack[f"W_q.{layer}"])) + _mul(g_k, _t(stack[f"W_k.{layer}"]))
             + _mul(g_v, _t(stack[f"W_v.{layer}"])))
    E = stack["E"]
    rows = (full + E.shape[1] * np.arange(S)[:, None, None]).ravel()  # seed i's rows of E sit at i·V' + token
    # Σ of g over the places each row was read, in order (np.add.at's sums, bit for bit, by bincount's faster loop)
    cells = (rows[:, None] * d + np.arange(d)).ravel()
    grads["E"] = np.bincount(cells, weights=g.reshape(-1), minlength=E.size).reshape(E.shape)
    if scheme == "learned":
        grads["P"] = np.zeros_like(stack["P"])
        grads["P"][:, : full.shape[-1]] = g.sum(axis=1)
    return losses, {name: grads[name] for name in stack}


def _checked_tokens(tokens, V: int) -> np.ndarray:
    tokens = _int_array(tokens, "tokens")
    if tokens.min() < 0 or tokens.max() >= V:
        raise ValueError(f"tokens must lie in 0 … {V - 1} (the vocabulary); got {tokens.min()} … {tokens.max()}.")
    return tokens


def forward(params, tokens: np.ndarray, scheme: str, causal: bool = True, *, heads: int = 1,
            max_gap: int | None = None, states: bool = False):
    """logits (B, n, V) and the cache the backward pass needs (per layer: h, v, rotated q, k, weights, mlp; each
    with a leading seed axis of length 1).

    ``max_gap`` (evaluation only): no query reads a key more than ``max_gap`` places back (the start token stays
    readable). ``states``: also return the residual stream after each layer (content positions only, (B, n, d))."""
    check_scheme(scheme)
    V, d, _ = _check_params(params, scheme)
    H = _heads(heads, d, scheme)
    tokens = _checked_tokens(tokens, V)
    logits, cache, kept = _run(_stack(params), _with_bos(params, tokens)[None], scheme, causal, H,
                               int(has_bos(params)), max_gap, states)
    if states:
        return logits[0], cache, [x[0] for x in kept]
    return logits[0], cache


def attention_maps(params, tokens, scheme: str, causal: bool = True, *, heads: int = 1) -> list[np.ndarray]:
    """The attention weights a_ij of every layer for one sequence ``tokens`` (1-D): a list of (H, n, n) arrays
    for several heads, (n, n) for one. With a start token, row and column 0 are the start token's."""
    tokens = _int_array(np.asarray(tokens)[None, :], "tokens")
    _, (_, cache) = forward(params, tokens, check_scheme(scheme), causal, heads=heads)
    return [c[4][0, 0, 0] if heads == 1 else c[4][0, 0] for c in cache]


def loss_and_grads(params, tokens, targets, scheme: str, causal: bool = True, *,
                   heads: int = 1) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy over the entries with target ≠ −1, and its gradient for every parameter.

    Backward, one layer (g = ∂loss/∂h after the layer; ⊙ elementwise):
        MLP:   ∂W_2 = zᵀg, ∂b_2 = Σg, ∂u = (g W_2ᵀ) ⊙ [u > 0], ∂W_1 = hᵀ∂u, ∂b_1 = Σ∂u, g ← g + ∂u W_1ᵀ
        per head: ∂a = g vᵀ,  ∂v = aᵀ g,  ∂s = a ⊙ (∂a − Σ_j a_ij ∂a_ij)   (softmax),
        ∂q = ∂s k / √(d/H),  ∂k = ∂sᵀ q / √(d/H),  then R_pᵀ = R_{−p} for ``rope``,
        ∂W_q = hᵀ ∂q (and so on),  ∂h = g + ∂q W_qᵀ + ∂k W_kᵀ + ∂v W_vᵀ  (the g is the residual).
    The start token (when there is one) is never scored; its embedding gets the gradient that reaches it.
    """
    check_scheme(scheme)
    V, d, _ = _check_params(params, scheme)
    H = _heads(heads, d, scheme)
    tokens = _checked_tokens(tokens, V)
    targets = _int_array(targets, "targets")
    if targets.shape != tokens.shape:
        raise ValueError(f"targets must have the shape of tokens {tokens.shape}; got {targets.shape}.")
    if targets.min() < -1 or targets.max() >= V:
        raise ValueError(f"targets must lie in 0 … {V - 1}, or be −1 for 'no loss here'.")
    if not (targets >= 0).any():
        raise ValueError("Every target is −1: there is nothing to score.")
    losses, grads = _backward(_stack(params), _with_bos(params, tokens)[None], targets[None], scheme, bool(causal),
                              H, int(has_bos(params)))
    return float(losses[0]), {name: g[0] for name, g in grads.items()}


# ----------------------------------------------------------------------------------------------
# tasks
# ----------------------------------------------------------------------------------------------


def targets_for(tokens: np.ndarray, task: str, k: int = 1) -> np.ndarray:
    """The targets of a task, −1 where there is nothing to predict.

    copy:       target_i = token_{i−k} for i ≥ k ("k places back": relative order).
    first:      target_i = token_0 for i ≥ 1. It needs position 1 only — and the causal mask marks position 1
                for every scheme (the only query that reads nothing but itself), so it favours ``none``.
    induction:  target_i = token_{j+1} for the latest j < i with token_j = token_i ("… A B … A → B", the
                associative recall of Olsson et al.'s induction heads); −1 where token_i has not occurred before.
    """
    check_task(task)
    tokens = _int_array(tokens, "tokens")
    targets = np.full_like(tokens, -1)
    if task == "copy":
        k = whole(k, "k", 1, 3)
        targets[:, k:] = tokens[:, :-k]
    elif task == "first":
        targets[:, 1:] = tokens[:, :1]
    else:
        B, n = tokens.shape
        last = np.full((B, int(tokens.max()) + 1), -1)  # last[b, t]: latest position of token t so far
        rows = np.arange(B)
        for i in range(n):
            j = last[rows, tokens[:, i]]
            seen = j >= 0
            targets[seen, i] = tokens[rows[seen], j[seen] + 1]
            last[rows, tokens[:, i]] = i
    return targets


def answer_keys(tokens, task: str, k: int = 1) -> list[tuple[int, int]]:
    """(query, key) 0-based pairs for one sequence: the key that holds each scored query's answer — k back for
    copy, 0 for first, and for induction the token after the latest earlier occurrence (j + 1)."""
    t = _int_array(np.asarray(tokens)[None, :], "tokens")[0]
    check_task(task)
    if task == "copy":
        k = whole(k, "k", 1, 3)
        return [(i, i - k) for i in range(k, len(t))]
    if task == "first":
        return [(i, 0) for i in range(1, len(t))]
    out, last = [], {}
    for i, tok in enumerate(t.tolist()):
        if tok in last:
            out.append((i, last[tok] + 1))
        last[tok] = i
    return out


def sample(rng: np.random.Generator, task: str, k: int, batch: int, length: int, vocab: int) -> tuple[np.ndarray, np.ndarray]:
    """Random token sequences (uniform over the vocabulary) and their targets."""
    batch = whole(batch, "batch", 1, 100_000)
    length = whole(length, "length", 1, 4 * MAX_LENGTH)
    vocab = whole(vocab, "vocab", 2, MAX_VOCAB)
    tokens = _draw(rng, batch, length, vocab)
    return tokens, targets_for(tokens, task, k)


def _draw(rng: np.random.Generator, batch: int, length: int, vocab: int) -> np.ndarray:
    """``sample``'s tokens, unchecked (for the training loop, whose settings are checked once)."""
    return rng.integers(0, vocab, size=(batch, length))


def test_set(settings: Settings, length: int) -> tuple[np.ndarray, np.ndarray]:
    """The fixed test sequences of one length: the same for every scheme and every seed."""
    s = settings
    return sample(_rng("lab-test", s.task, s.k, length, s.vocab), s.task, s.k, s.n_test, length, s.vocab)


def hits(params, tokens: np.ndarray, targets: np.ndarray, scheme: str, *, heads: int = 1,
         max_gap: int | None = None) -> np.ndarray:
    """(B, n): 1.0 where the most likely token is the target, 0.0 where it is not, NaN where nothing is scored."""
    logits, _ = forward(params, tokens, scheme, heads=heads, max_gap=max_gap)
    right = (logits.argmax(axis=-1) == targets).astype(float)
    return np.where(targets >= 0, right, np.nan)


def _share(h: np.ndarray) -> float:
    scored = ~np.isnan(h)
    if not scored.any():
        raise ValueError("Every target is −1: there is nothing to score.")
    return float(np.nanmean(h))


def position_probe(params, settings: Settings, scheme: str, causal: bool = True) -> float:
    """How much of the position a read-out recovers from layer 1's output h: a least-squares fit of log(position)
    on the features (h, h ⊙ h) — linear in h and in its squares, so a vector's length counts — on half of the training-length test sequences, scored as R² on the other half
    (1: the position can be read off exactly; 0: no better than guessing the average). log, because what the
    causal mask leaks is how many tokens a position averages over, and that shrinks like 1/i."""
    s = settings
    tokens, _ = test_set(s, s.L_train)
    _, _, kept = forward(params, tokens, scheme, causal, heads=s.heads, states=True)
    x = kept[0]  # (B, n, d) after layer 1
    B, n, d = x.shape
    X = np.concatenate([x, x * x, np.ones((B, n, 1))], axis=-1)
    y = np.broadcast_to(np.log(np.arange(1, n + 1, dtype=float)), (B, n))
    half = B // 2
    f = X.shape[-1]
    w, *_ = np.linalg.lstsq(X[:half].reshape(-1, f), y[:half].ravel(), rcond=None)
    err = X[half:].reshape(-1, f) @ w - y[half:].ravel()
    return float(1 - (err**2).mean() / y[half:].var())


# ----------------------------------------------------------------------------------------------
# training
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainResult:
    scheme: str
    seed: int
    settings: Settings
    losses: np.ndarray  # training loss at every step (before that step's update)
    test_lengths: tuple[int, ...]
    accuracy: tuple[float | None, ...]  # per test length; None where the model has no row (learned past n_max)
    map_tokens: np.ndarray  # the test sequence whose attention maps are kept (length settings.map_length)
    maps: list[np.ndarray] = field(default_factory=list)  # per layer, (n, n) (or (H, n, n)) weights on map_tokens
    past: tuple[float | None, ...] = ()  # per test length: accuracy on positions past L_train only (None: none)
    by_position: tuple[float | None, ...] = ()  # at 4 × L_train, accuracy at each position (None: nothing scored)
    seen_gaps: tuple[float | None, float | None] = (None, None)  # at 4 × L_train, keys < L_train back only: all, past
    probe: float | None = None  # position_probe on layer 1 (R² of log position)


def adam_step(params, grads, m, v, t: int, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
    """Adam (Kingma & Ba), in place:  m ← β₁m + (1−β₁)g,  v ← β₂v + (1−β₂)g²,
    θ ← θ − lr · m̂ / (√v̂ + ε)  with m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ)."""
    c1, c2 = 1 - beta1**t, 1 - beta2**t
    for name, g in grads.items():
        m[name] *= beta1
        m[name] += (1 - beta1) * g
        v[name] *= beta2
        v[name] += (1 - beta2) * g * g
        params[name] -= lr * (m[name] / c1) / (np.sqrt(v[name] / c2) + eps)


def _mean_or_none(h: np.ndarray) -> float | None:
    return None if np.isnan(h).all() else float(np.nanmean(h))


def train_seeds(scheme: str, settings: Settings = Settings(), seeds=(0,),
                progress: Callable[[int, int], None] | None = None,
                losses_out: list | None = None) -> list[TrainResult]:
    """Train one scheme on ``settings`` from each of ``seeds`` — all seeds in one stacked pass, each seed's
    numbers exactly those of training it alone — and evaluate each at every test length.

    Each step draws, per seed, a fresh batch of random sequences of length L_train (seeded, so a run is
    reproducible). ``progress(done, total)`` is called now and then with the number of steps done;
    ``losses_out`` (a list) receives every step's loss as it comes (the mean over the seeds: a live curve).
    """
    check_scheme(scheme)
    s = settings.check()
    seeds = [whole(x, "seed", 0, MAX_SEED) for x in seeds]
    if not seeds:
        raise ValueError("Give at least one seed.")
    runs = [init_params(scheme, s.vocab, s.d_model, s.n_max, seed, s.n_layers, **s.options) for seed in seeds]
    # every parameter of every seed is a view into one flat array, so Adam updates them all in one pass (each
    # entry's arithmetic is the same, elementwise); the gradients are gathered into one flat array to match
    flat = np.concatenate([np.stack([p[name] for p in runs]).ravel() for name in runs[0]])
    stack, at = {}, 0
    for name, p in runs[0].items():
        stack[name] = flat[at:at + len(seeds) * p.size].reshape(len(seeds), *p.shape)
        at += len(seeds) * p.size
    flat_grad, m, v = np.empty_like(flat), np.zeros_like(flat), np.zeros_like(flat)
    rngs = [_rng("lab-train", s.task, s.k, s.L_train, s.vocab, seed) for seed in seeds]
    bos = int(s.bos)
    start = np.full((len(seeds), s.batch, bos), s.vocab, dtype=np.int64)  # the start token's id is vocab
    losses = np.empty((len(seeds), s.steps))
    every = max(1, s.steps // 50)
    for step in range(s.steps):
        tokens = np.stack([_draw(rng, s.batch, s.L_train, s.vocab) for rng in rngs])  # sample's, every seed
        targets = targets_for(tokens.reshape(-1, s.L_train), s.task, s.k).reshape(tokens.shape)  # row by row
        losses[:, step], grads = _backward(stack, np.concatenate([start, tokens], axis=2) if bos else tokens,
                                           targets, scheme, True, s.heads, bos)
        np.concatenate([grads[name].ravel() for name in stack], out=flat_grad)
        adam_step({"θ": flat}, {"θ": flat_grad}, {"θ": m}, {"θ": v}, step + 1, s.lr)
        if losses_out is not None:
            losses_out.append(float(losses[:, step].mean()))
        if progress is not None and (step + 1) % every == 0:
            progress(step + 1, s.steps)
    return [_evaluate(scheme, s, seed, {name: p[i] for name, p in stack.items()}, losses[i])
            for i, seed in enumerate(seeds)]


def train(scheme: str, settings: Settings = Settings(), seed: int = 0,
          progress: Callable[[int, int], None] | None = None, losses_out: list | None = None) -> TrainResult:
    """Train one scheme on ``settings`` from ``seed`` (``train_seeds`` with one seed)."""
    return train_seeds(scheme, settings, (seed,), progress, losses_out)[0]


def _evaluate(scheme: str, s: Settings, seed: int, params: dict[str, np.ndarray], losses: np.ndarray) -> TrainResult:
    """A trained run, evaluated at every test length (the same fixed test sequences for every run)."""
    acc, past = [], []
    by_position: tuple = ()
    n4 = 4 * s.L_train
    for length in s.test_lengths:
        if scheme == "learned" and length > s.n_max:
            acc.append(None)  # no row to look up: not zero, not drawn
            past.append(None)
            continue
        tokens, targets = test_set(s, length)
        h = hits(params, tokens, targets, scheme, heads=s.heads)
        acc.append(_share(h))
        past.append(_mean_or_none(h[:, s.L_train:]) if length > s.L_train else None)
    if not (scheme == "learned" and n4 > s.n_max):  # h: the hits at n4, the longest test length
        tokens, targets = test_set(s, n4)
        by_position = tuple(None if np.isnan(col).all() else float(np.nanmean(col)) for col in h.T)
        g = hits(params, tokens, targets, scheme, heads=s.heads, max_gap=s.L_train - 1)
        seen = (_share(g), _mean_or_none(g[:, s.L_train:]))
    else:
        h = hits(params, *test_set(s, s.n_max), scheme, heads=s.heads)
        by_position = tuple(None if np.isnan(col).all() else float(np.nanmean(col)) for col in h.T) + \
            (None,) * (n4 - s.n_max)
        seen = (None, None)
    map_tokens = test_set(s, s.map_length)[0][0]
    # learned has no row past n_max: its map covers the sequence's first n_max tokens only
    reach = s.n_max if scheme == "learned" else s.map_length
    maps = attention_maps(params, map_tokens[:reach], scheme, heads=s.heads)
    return TrainResult(scheme=scheme, seed=seed, settings=s, losses=losses, test_lengths=s.test_lengths,
                       accuracy=tuple(acc), map_tokens=map_tokens, maps=maps, past=tuple(past),
                       by_position=by_position, seen_gaps=seen, probe=position_probe(params, s, scheme))


# ----------------------------------------------------------------------------------------------
# experiments: every scheme × seeds on one setting, as small JSON-ready records
# (the precompute script and the page's live training build exactly the same records)
# ----------------------------------------------------------------------------------------------

SEEDS = tuple(range(10))  # the precomputed defaults
LIVE_SEEDS = tuple(range(5))  # a live training
MAP_SEEDS = 5  # attention maps are kept for the first 5 seeds
MAP_FLOOR = 0.05  # map cells below this weight are not kept (the map draws them as 0)
# How the page reads the results:
LEARNS = 0.9  # a scheme "learned the task" when its mean accuracy at L_train is at least this …
FLAT = 0.02  # … and its loss is flat: the mean loss fell by at most this over the last tenth of the steps
STILL_WORKS = 0.9  # a scheme that learned "still works" at 4 × L_train when its mean accuracy on the positions
#                    past L_train alone is at least this (absolute, not a share of its own accuracy)
MOVES = 0.1  # keys limited to the gaps seen in training move a scheme when its mean accuracy past L_train
#             changes by at least this (10 points), up or down
LOSS_EVERY = 5  # keep the loss at step 1 and every 5th step


def loss_steps(steps: int) -> list[int]:
    """The 1-based step numbers whose loss a record keeps."""
    every = max(LOSS_EVERY, steps // 200 // LOSS_EVERY * LOSS_EVERY)  # at most ~200 points per curve
    return sorted({1, *range(every, steps + 1, every), steps})


def _rounded(values, digits: int) -> list:
    return [None if x is None else round(float(x), digits) for x in values]


def sparse_map(a: np.ndarray) -> list[list]:
    """One (n, n) map as [query, key, weight] triples (0-based, 2 decimals) for the cells ≥ MAP_FLOOR."""
    q, k = np.nonzero(a >= MAP_FLOOR)
    return [[int(i), int(j), round(float(a[i, j]), 2)] for i, j in zip(q, k)]


def cell(result: TrainResult) -> dict:
    """One (scheme, seed) run as a record: losses at ``loss_steps`` (4 decimals), accuracy per test length on
    all positions and on those past L_train, accuracy by position at 4 × L_train, with keys limited to the
    gaps seen in training, and the position probe (4 decimals; None: no row / nothing scored)."""
    kept = np.asarray(loss_steps(result.settings.steps)) - 1
    return {"losses": _rounded(result.losses[kept], 4), "accuracy": _rounded(result.accuracy, 4),
            "past": _rounded(result.past, 4), "by_position": _rounded(result.by_position, 4),
            "seen_gaps": _rounded(result.seen_gaps, 4), "probe": round(float(result.probe), 4)}


def experiment(settings: Settings = Settings(), seeds=SEEDS,
               progress: Callable[[int, int, str], None] | None = None, losses_out: dict | None = None) -> dict:
    """Train every scheme from every seed on ``settings``.

    Returns {"settings", "seeds", "test_lengths", "loss_steps", "runs": {scheme: [cell per seed]},
    "map": {"tokens", "targets", "maps": {scheme: [per seed [per layer sparse_map]]}}, "mask_leak"} — maps of the
    first MAP_SEEDS seeds on one sequence of 4 × L_train (with several heads, the mean over the heads), and
    ``mask_leak(settings)`` as [with the mask, without] (it needs no training; kept in the record so a page that
    shows the record computes nothing). Each scheme's
    seeds train together (``train_seeds``). ``progress(done, total, scheme)`` counts training steps over all
    runs; ``losses_out`` (a dict) gets scheme → every step's loss (mean over the seeds) of the scheme in progress.
    """
    s = settings.check()
    seeds = [whole(x, "seed", 0, MAX_SEED) for x in seeds]
    if not seeds:
        raise ValueError("Give at least one seed.")
    total = len(SCHEMES) * len(seeds) * s.steps
    runs: dict[str, list[dict]] = {}
    maps: dict[str, list] = {}
    per_scheme = len(seeds) * s.steps
    for i, scheme in enumerate(SCHEMES):
        def tick(step: int, _total: int, scheme=scheme, base=i * per_scheme) -> None:
            if progress is not None:
                progress(base + step * len(seeds), total, scheme)

        live = None
        if losses_out is not None:
            live = losses_out.setdefault(scheme, [])
            live.clear()
        results = train_seeds(scheme, s, seeds, tick, live)
        runs[scheme] = [cell(r) for r in results]
        maps[scheme] = [[sparse_map(a if a.ndim == 2 else a.mean(axis=0)) for a in r.maps]
                        for r in results[:MAP_SEEDS]]
    map_tokens = results[0].map_tokens
    targets = targets_for(map_tokens[None, :], s.task, s.k)[0]
    return {
        "settings": {name: getattr(s, name) for name in s.__dataclass_fields__},
        "seeds": seeds,
        "test_lengths": list(s.test_lengths),
        "loss_steps": loss_steps(s.steps),
        "runs": runs,
        "map": {"tokens": map_tokens.tolist(), "targets": targets.tolist(), "maps": maps},
        "mask_leak": list(mask_leak(s)),
    }


@lru_cache(maxsize=2)
def precomputed(path) -> dict:
    """The precomputed results file (data/lab_results.json, scripts/precompute_lab.py), parsed once per process:
    it is read-only while the app runs, so every caller shares one copy and none may change it."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def settings_from(record: dict) -> Settings:
    """The Settings an experiment record was trained with."""
    return Settings(**record["settings"])


VARIANT = "bos+mlp"  # the precomputed variant: a start token and an MLP, otherwise the defaults


def stored(data: dict, s: Settings) -> dict | None:
    """The precomputed record of ``s`` in ``data`` (data/lab_results.json), if there is one: the defaults of
    each task, and the variant with a start token and an MLP."""
    if s == Settings(task=s.task):
        return data["experiments"][s.task]
    if s == Settings(task=s.task, bos=True, mlp=True):
        return data.get("variants", {}).get(VARIANT, {}).get(s.task)
    return None


# ----------------------------------------------------------------------------------------------
# live training: what a page may train on request, and how long it is quoted to take
# ----------------------------------------------------------------------------------------------

# A live training (every scheme × LIVE_SEEDS) is offered when it is quoted at most this. The promise is 20 s on
# this machine; quoting up to 18 s leaves room for a busy machine (the slowest allowed setting, quoted 20 s, took
# 20.6 s in the 2026-12-02 01:27 benchmark, before the speed-up of the training; it is refused now).
LIVE_BUDGET_S = 18.0
LIVE_STEPS = (100, 200, 400)  # steps a live training may use; 2,000 are precomputed (defaults and the variant)
SHARED = 2.0  # the machine is shared (2 cores, several jobs): quiet-machine times doubled before any job ran


def per_step_s(s: Settings) -> float:
    """Seconds per training step of one run on a quiet core (measured: 1.5 ms for the default 2 layers at length
    16; 3.1 ms with the MLP and start token; 4.4 ms with 4 heads as well). Measured before the training's
    speed-ups (in-place softmax, one BLAS thread: ~17 % less CPU; one product a seed and one Adam pass: ~11 %
    less again on the slowest live setting, ~29 % on the default), so these are upper bounds until the queue's correction (real over quoted time of the last jobs) takes over."""
    return 0.75e-3 * s.n_layers * (s.L_train / 16) ** 0.7 * (1 + 1.0 * s.mlp + 0.3 * (s.heads - 1) + 0.1 * s.bos)


def estimate_s(s: Settings) -> float:
    """A live training before the queue's correction: every scheme × LIVE_SEEDS, steps plus ~0.1 s of evaluation
    a run, × SHARED. The queue then scales it by how long the last trainings really took."""
    return SHARED * len(SCHEMES) * len(LIVE_SEEDS) * (0.1 + s.steps * per_step_s(s))


# ----------------------------------------------------------------------------------------------
# reading a record honestly: did it learn? only then, does it still work past the training length?
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What a record says about one scheme, over its seeds (mean, lowest, highest)."""

    scheme: str
    at_L: tuple[float, float, float]  # accuracy at L_train
    past_4L: tuple[float, float, float] | None  # accuracy at 4 × L_train on positions past L_train (None: no row)
    drop: float  # mean loss over the second-to-last tenth of the kept steps minus over the last tenth
    learned: bool  # at_L mean ≥ LEARNS and the loss is flat (drop ≤ FLAT)
    converged: bool
    still_works: bool  # learned and past_4L mean ≥ STILL_WORKS
    seen_gaps_past: tuple[float, float, float] | None  # past_4L with keys limited to the gaps seen in training
    probe: tuple[float, float, float]


def _spread(values) -> tuple[float, float, float]:
    a = np.asarray(values, dtype=float)
    return float(a.mean()), float(a.min()), float(a.max())


def read(record: dict, scheme: str) -> Reading:
    """The honest reading of one scheme in an experiment record (see LEARNS, FLAT, STILL_WORKS)."""
    check_scheme(scheme)
    s = settings_from(record)
    runs = record["runs"][scheme]
    lengths = record["test_lengths"]
    i_L, i_4L = lengths.index(s.L_train), lengths.index(4 * s.L_train)
    at_L = _spread([r["accuracy"][i_L] for r in runs])
    past = [r["past"][i_4L] for r in runs]
    past_4L = None if any(p is None for p in past) else _spread(past)
    curve = np.mean([r["losses"] for r in runs], axis=0)
    tenth = max(1, len(curve) // 10)
    drop = float(curve[-2 * tenth:-tenth].mean() - curve[-tenth:].mean()) if len(curve) >= 2 * tenth else float("inf")
    converged = drop <= FLAT
    learned = at_L[0] >= LEARNS and converged
    seen = [r["seen_gaps"][1] for r in runs]
    seen_past = None if any(p is None for p in seen) else _spread(seen)
    return Reading(scheme=scheme, at_L=at_L, past_4L=past_4L, drop=drop,
                   learned=learned, converged=converged,
                   still_works=learned and past_4L is not None and past_4L[0] >= STILL_WORKS,
                   seen_gaps_past=seen_past, probe=_spread([r["probe"] for r in runs]))


def gaps_move(r: Reading) -> int | None:
    """What keys limited to the gaps seen in training do to ``r``'s mean accuracy past L_train at 4 × L_train:
    1 when it rises by at least MOVES, −1 when it falls by at least MOVES, 0 when it moves less (None: no row)."""
    if r.past_4L is None or r.seen_gaps_past is None:
        return None
    change = r.seen_gaps_past[0] - r.past_4L[0]
    return 1 if change >= MOVES else -1 if change <= -MOVES else 0


def mask_leak(settings: Settings, seed: int = 0) -> tuple[float, float]:
    """position_probe of an untrained ``none`` model (no positions anywhere) with the causal mask and without:
    whatever position it reads with the mask, the mask alone put there."""
    s = settings.check()
    params = init_params("none", s.vocab, s.d_model, s.n_max, seed, s.n_layers, **s.options)
    return position_probe(params, s, "none", True), position_probe(params, s, "none", False)


def readings(record: dict) -> dict[str, Reading]:
    return {scheme: read(record, scheme) for scheme in SCHEMES}

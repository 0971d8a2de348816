"""The lab: train a tiny transformer with each position scheme and test it past its training length.

numpy only, float64, hand-written backprop (no autograd library). Each formula has one home:

    model     h⁰ = E[token] (+ P[position] for ``learned``, + PE(position) for ``sinusoidal``)
              for each layer l:  q = hW_q, k = hW_k, v = hW_v            (one head, width d)
                                 q, k ← R_p q, R_p k                      (``rope`` only)
                                 s_ij = q_i·k_j / √d − m|i − j| + mask_ij  (the m term for ``alibi`` only)
                                 a = softmax_j(s),  h ← h + a v           (residual)
              logits = h W_out + b_out
    loss      mean over scored entries (target ≠ −1) of −log softmax(logits)[target]
    optimiser Adam, the same settings and the same step budget for every scheme

Positions are 0-based in this module (the pages show them 1-based).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import chapter
from .core import _rng, causal_mask, softmax
from .core import whole as _whole
from .encodings import rope, sinusoidal
from .stretch import alibi_bias

SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi")
TASKS = ("copy", "first")
TASK_TITLES = {"copy": "copy the token k places back", "first": "repeat the first token"}

BASE = chapter.BASE  # sinusoid and RoPE base, as in Vaswani et al. and Su et al.
# One head gets one ALiBi slope. The paper's rule for a single head gives m = 2^(−8) = 1/256, a bias of at
# most 0.06 across a 16-token sequence: no position signal at all. We use m = 1/2, the steepest slope of the
# paper's default 8-head set (1/2, 1/4, …, 1/256), fixed before any training was run.
ALIBI_SLOPE = 0.5

MAX_VOCAB = 1024
MAX_D = 256
MAX_SEED = 2**63 - 1
MAX_LAYERS = 2
MAX_LENGTH = 1024
MAX_STEPS = 5000
MAX_BATCH = 256


@dataclass(frozen=True)
class Settings:
    """Everything a training run depends on. The defaults are the precomputed ones.

    Nothing here depends on the scheme: every scheme gets the same model size, data, optimiser and steps.
    """

    task: str = "copy"
    k: int = 2  # copy task: the token k places back (1 … 3); ignored by ``first``
    n_layers: int = 2
    L_train: int = 16
    steps: int = 400
    vocab: int = 10
    d_model: int = 16
    batch: int = 32
    lr: float = 0.01
    n_max_factor: int = 2  # the learned table has n_max = n_max_factor × L_train rows
    n_test: int = 100  # test sequences per test length

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
        """Length of the sequence whose attention maps are kept: 2 × L_train (past training, within n_max)."""
        return 2 * self.L_train

    def check(self) -> Settings:
        check_task(self.task)
        _whole(self.k, "k", 1, 3)
        _whole(self.n_layers, "n_layers", 1, MAX_LAYERS)
        _whole(self.L_train, "L_train", 8, 64)  # L_train/2 ≥ 4 > k: every test length scores
        _whole(self.steps, "steps", 1, MAX_STEPS)
        _whole(self.vocab, "vocab", 2, MAX_VOCAB)
        _width(self.d_model, "rope")
        _whole(self.batch, "batch", 1, MAX_BATCH)
        _whole(self.n_max_factor, "n_max_factor", 1, 4)
        _whole(self.n_test, "n_test", 1, 10_000)
        lr = self.lr
        if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr) or not 0 < lr <= 1:
            raise ValueError(f"lr (the learning rate) must be a number in (0, 1]; got {lr!r}.")
        return self


# ----------------------------------------------------------------------------------------------
# argument checks (messages meant for students)
# ----------------------------------------------------------------------------------------------


def _width(d_model, scheme: str) -> int:
    """d_model in 1 … MAX_D, and even for the schemes that work on (sin, cos) pairs."""
    d = _whole(d_model, "d_model", 1, MAX_D)
    if d % 2 and scheme in ("sinusoidal", "rope"):
        raise ValueError(f"d_model = {d} is odd: {scheme} works on pairs of coordinates, so d_model must be even.")
    return d


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


def init_params(scheme: str, vocab: int, d_model: int, n_max: int, seed: int, n_layers: int = 1) -> dict[str, np.ndarray]:
    """Initial parameters, float64 and C-contiguous. Each array is drawn from a digest of (its name, its shape,
    seed), so the same seed gives the same arrays in every process, and every scheme starts from the same
    token embedding and weights; ``learned`` only adds its table.

    E, P ~ N(0, 1) (like an embedding layer);  W_q, W_k, W_v, W_out ~ N(0, 1/d);  b_out = 0.
    """
    check_scheme(scheme)
    V = _whole(vocab, "vocab", 2, MAX_VOCAB)
    d = _width(d_model, scheme)
    n_max = _whole(n_max, "n_max", 1, MAX_LENGTH)
    seed = _whole(seed, "seed", 0, MAX_SEED)
    L = _whole(n_layers, "n_layers", 1, MAX_LAYERS)

    def draw(name: str, shape: tuple[int, ...], scale: float) -> np.ndarray:
        return np.ascontiguousarray(_rng("lab", name, *shape, seed).standard_normal(shape) * scale)

    params = {"E": draw("E", (V, d), 1.0)}
    if scheme == "learned":
        params["P"] = draw("P", (n_max, d), 1.0)
    for layer in range(L):
        for w in ("W_q", "W_k", "W_v"):
            params[f"{w}.{layer}"] = draw(f"{w}.{layer}", (d, d), 1 / math.sqrt(d))
    params["W_out"] = draw("W_out", (d, V), 1 / math.sqrt(d))
    params["b_out"] = np.zeros(V)
    return params


def _check_params(params: dict[str, np.ndarray], scheme: str) -> tuple[int, int, int]:
    """(vocab, d, n_layers) of a parameter dict, or a ValueError saying what is missing."""
    if not isinstance(params, dict) or "E" not in params or "W_out" not in params or "b_out" not in params:
        raise ValueError("params must be a dict from init_params (keys E, W_q.0, …, W_out, b_out).")
    V, d = params["E"].shape
    L = n_layers_of(params)
    needed = ["E", "W_out", "b_out"] + [f"{w}.{i}" for i in range(L) for w in ("W_q", "W_k", "W_v")]
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


def _score_bias(n: int, scheme: str, causal: bool) -> np.ndarray:
    """The part of the scores that does not depend on content, shape (n, n):
    −m|i − j| for ``alibi`` (else 0), and −∞ where j > i when ``causal``."""
    bias = alibi_bias(n, ALIBI_SLOPE) if scheme == "alibi" else np.zeros((n, n))
    if causal:
        bias = np.where(causal_mask(n), bias, -np.inf)
    return bias


def _embed(params, tokens: np.ndarray, scheme: str) -> np.ndarray:
    """h⁰ = E[token] (+ P[p] or + PE(p))."""
    n = tokens.shape[1]
    h = params["E"][tokens]
    if scheme == "learned":
        n_max = params["P"].shape[0]
        if n > n_max:
            raise ValueError(
                f"The learned table has n_max = {n_max} rows; a sequence of length {n} needs row {n} "
                f"(1-based), and there is no row to look up."
            )
        h = h + params["P"][:n]
    elif scheme == "sinusoidal":
        h = h + sinusoidal(np.arange(n), h.shape[-1], BASE)
    return h


def forward(params, tokens: np.ndarray, scheme: str, causal: bool = True):
    """logits (B, n, V) and the cache the backward pass needs (per layer: h, v, rotated q, k, weights)."""
    check_scheme(scheme)
    V, _, _ = _check_params(params, scheme)
    tokens = _int_array(tokens, "tokens")
    if tokens.min() < 0 or tokens.max() >= V:
        raise ValueError(f"tokens must lie in 0 … {V - 1} (the vocabulary); got {tokens.min()} … {tokens.max()}.")
    n = tokens.shape[1]
    d = params["E"].shape[1]
    pos = np.arange(n)
    bias = _score_bias(n, scheme, causal)
    h = _embed(params, tokens, scheme)
    cache = []
    for layer in range(n_layers_of(params)):
        q, k, v = h @ params[f"W_q.{layer}"], h @ params[f"W_k.{layer}"], h @ params[f"W_v.{layer}"]
        qr, kr = (rope(q, pos, BASE), rope(k, pos, BASE)) if scheme == "rope" else (q, k)
        s = qr @ kr.swapaxes(-1, -2) / math.sqrt(d) + bias  # s_ij = q_i·k_j/√d + bias_ij
        a = softmax(s, axis=-1)
        cache.append((h, v, qr, kr, a))
        h = h + a @ v  # residual: h ← h + Σ_j a_ij v_j
    logits = h @ params["W_out"] + params["b_out"]
    return logits, (h, cache)


def attention_maps(params, tokens, scheme: str, causal: bool = True) -> list[np.ndarray]:
    """The attention weights a_ij of every layer for one sequence ``tokens`` (1-D): a list of (n, n)."""
    tokens = _int_array(np.asarray(tokens)[None, :], "tokens")
    _, (_, cache) = forward(params, tokens, check_scheme(scheme), causal)
    return [c[-1][0] for c in cache]


def loss_and_grads(params, tokens, targets, scheme: str, causal: bool = True) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy over the entries with target ≠ −1, and its gradient for every parameter.

    Backward, one layer (g = ∂loss/∂h after the layer; ⊙ elementwise):
        ∂a = g vᵀ,  ∂v = aᵀ g,  ∂s = a ⊙ (∂a − Σ_j a_ij ∂a_ij)   (softmax),
        ∂q = ∂s k / √d,  ∂k = ∂sᵀ q / √d,  then R_pᵀ = R_{−p} for ``rope``,
        ∂W_q = hᵀ ∂q (and so on),  ∂h = g + ∂q W_qᵀ + ∂k W_kᵀ + ∂v W_vᵀ  (the g is the residual).
    """
    check_scheme(scheme)
    V, d, L = _check_params(params, scheme)
    tokens = _int_array(tokens, "tokens")
    targets = _int_array(targets, "targets")
    if targets.shape != tokens.shape:
        raise ValueError(f"targets must have the shape of tokens {tokens.shape}; got {targets.shape}.")
    if tokens.min() < 0 or tokens.max() >= V:
        raise ValueError(f"tokens must lie in 0 … {V - 1} (the vocabulary); got {tokens.min()} … {tokens.max()}.")
    if targets.min() < -1 or targets.max() >= V:
        raise ValueError(f"targets must lie in 0 … {V - 1}, or be −1 for 'no loss here'.")
    scored = targets >= 0
    count = int(scored.sum())
    if count == 0:
        raise ValueError("Every target is −1: there is nothing to score.")

    logits, (h_last, cache) = forward(params, tokens, scheme, bool(causal))
    # log p = logits − logsumexp(logits)
    top = logits.max(axis=-1, keepdims=True)
    logp = logits - top - np.log(np.exp(logits - top).sum(axis=-1, keepdims=True))
    safe = np.where(scored, targets, 0)
    picked = np.take_along_axis(logp, safe[..., None], axis=-1)[..., 0]
    loss = -float(picked[scored].sum()) / count

    # ∂loss/∂logits = (softmax − onehot(target)) / count on scored entries, 0 elsewhere
    g_logits = np.exp(logp)
    np.put_along_axis(g_logits, safe[..., None], np.take_along_axis(g_logits, safe[..., None], axis=-1) - 1, axis=-1)
    g_logits *= scored[..., None] / count

    grads: dict[str, np.ndarray] = {}
    grads["W_out"] = h_last.reshape(-1, d).T @ g_logits.reshape(-1, V)
    grads["b_out"] = g_logits.sum(axis=(0, 1))
    g = g_logits @ params["W_out"].T
    pos = np.arange(tokens.shape[1])
    for layer in reversed(range(L)):
        h, v, qr, kr, a = cache[layer]
        g_a = g @ v.swapaxes(-1, -2)
        g_v = a.swapaxes(-1, -2) @ g
        g_s = a * (g_a - (g_a * a).sum(axis=-1, keepdims=True)) / math.sqrt(d)
        g_q, g_k = g_s @ kr, g_s.swapaxes(-1, -2) @ qr
        if scheme == "rope":
            g_q, g_k = rope(g_q, -pos, BASE), rope(g_k, -pos, BASE)
        flat = h.reshape(-1, d).T
        for name, gw in (("W_q", g_q), ("W_k", g_k), ("W_v", g_v)):
            grads[f"{name}.{layer}"] = flat @ gw.reshape(-1, d)
        g = g + g_q @ params[f"W_q.{layer}"].T + g_k @ params[f"W_k.{layer}"].T + g_v @ params[f"W_v.{layer}"].T
    grads["E"] = np.zeros_like(params["E"])
    np.add.at(grads["E"], tokens.ravel(), g.reshape(-1, d))
    if scheme == "learned":
        grads["P"] = np.zeros_like(params["P"])
        grads["P"][: tokens.shape[1]] = g.sum(axis=0)
    return loss, {name: grads[name] for name in params}


# ----------------------------------------------------------------------------------------------
# tasks
# ----------------------------------------------------------------------------------------------


def targets_for(tokens: np.ndarray, task: str, k: int = 1) -> np.ndarray:
    """The targets of a task, −1 where there is nothing to predict.

    copy:  target_i = token_{i−k} for i ≥ k (needs relative order: "k places back").
    first: target_i = token_0 for i ≥ 1 (needs absolute position: "the first one").
    """
    check_task(task)
    tokens = _int_array(tokens, "tokens")
    targets = np.full_like(tokens, -1)
    if task == "copy":
        k = _whole(k, "k", 1, 3)
        targets[:, k:] = tokens[:, :-k]
    else:
        targets[:, 1:] = tokens[:, :1]
    return targets


def sample(rng: np.random.Generator, task: str, k: int, batch: int, length: int, vocab: int) -> tuple[np.ndarray, np.ndarray]:
    """Random token sequences (uniform over the vocabulary) and their targets."""
    batch = _whole(batch, "batch", 1, 100_000)
    length = _whole(length, "length", 1, 4 * MAX_LENGTH)
    vocab = _whole(vocab, "vocab", 2, MAX_VOCAB)
    tokens = rng.integers(0, vocab, size=(batch, length))
    return tokens, targets_for(tokens, task, k)


def test_set(settings: Settings, length: int) -> tuple[np.ndarray, np.ndarray]:
    """The fixed test sequences of one length: the same for every scheme and every seed."""
    s = settings
    return sample(_rng("lab-test", s.task, s.k, length, s.vocab), s.task, s.k, s.n_test, length, s.vocab)


def accuracy(params, tokens: np.ndarray, targets: np.ndarray, scheme: str) -> float:
    """Fraction of scored entries where the most likely token is the target."""
    logits, _ = forward(params, tokens, scheme)
    scored = targets >= 0
    if not scored.any():
        raise ValueError("Every target is −1: there is nothing to score.")
    return float((logits.argmax(axis=-1) == targets)[scored].mean())


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
    maps: list[np.ndarray] = field(default_factory=list)  # per layer, (n, n) attention weights on map_tokens


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


def train(scheme: str, settings: Settings = Settings(), seed: int = 0,
          progress: Callable[[int, int], None] | None = None) -> TrainResult:
    """Train one scheme on ``settings`` from ``seed``; evaluate at every test length.

    Each step draws a fresh batch of random sequences of length L_train (seeded, so a run is reproducible).
    ``progress(done, total)`` is called now and then with the number of steps done.
    """
    check_scheme(scheme)
    s = settings.check()
    seed = _whole(seed, "seed", 0, MAX_SEED)
    params = init_params(scheme, s.vocab, s.d_model, s.n_max, seed, s.n_layers)
    m = {n: np.zeros_like(p) for n, p in params.items()}
    v = {n: np.zeros_like(p) for n, p in params.items()}
    rng = _rng("lab-train", s.task, s.k, s.L_train, s.vocab, seed)
    losses = np.empty(s.steps)
    every = max(1, s.steps // 50)
    for step in range(s.steps):
        tokens, targets = sample(rng, s.task, s.k, s.batch, s.L_train, s.vocab)
        losses[step], grads = loss_and_grads(params, tokens, targets, scheme)
        adam_step(params, grads, m, v, step + 1, s.lr)
        if progress is not None and (step + 1) % every == 0:
            progress(step + 1, s.steps)
    acc = []
    for length in s.test_lengths:
        if scheme == "learned" and length > s.n_max:
            acc.append(None)  # no row to look up: not zero, not drawn
            continue
        acc.append(accuracy(params, *test_set(s, length), scheme))
    map_tokens = test_set(s, s.map_length)[0][0]
    return TrainResult(scheme=scheme, seed=seed, settings=s, losses=losses, test_lengths=s.test_lengths,
                       accuracy=tuple(acc), map_tokens=map_tokens, maps=attention_maps(params, map_tokens, scheme))


# ----------------------------------------------------------------------------------------------
# experiments: every scheme × seeds on one setting, as small JSON-ready records
# (the precompute script and the page's live training build exactly the same records)
# ----------------------------------------------------------------------------------------------

SEEDS = (0, 1, 2)
# How the page reads the results (thresholds on mean accuracy over the seeds, or on the final training loss):
STILL_WORKS = 0.9  # "still works at 4×": at least this share of the scheme's own accuracy at L_train
LEARNS = 0.9  # a scheme "learns the task" when it gets at least this share right at L_train
FITS = 0.95  # "answers almost every test right" at L_train
LOW_LOSS = 0.05  # a final training loss below this fits the training data almost perfectly
LOSS_EVERY = 5  # keep the loss at step 1 and every 5th step


def loss_steps(steps: int) -> list[int]:
    """The 1-based step numbers whose loss a record keeps."""
    return sorted({1, *range(LOSS_EVERY, steps + 1, LOSS_EVERY), steps})


def _rounded(values, digits: int) -> list:
    return [None if x is None else round(float(x), digits) for x in values]


def cell(result: TrainResult) -> dict:
    """One (scheme, seed) run as a record: losses at ``loss_steps`` (4 decimals), accuracy per test length
    (4 decimals, None past n_max)."""
    kept = np.asarray(loss_steps(result.settings.steps)) - 1
    return {"losses": _rounded(result.losses[kept], 4), "accuracy": _rounded(result.accuracy, 4)}


def experiment(settings: Settings = Settings(), seeds=SEEDS,
               progress: Callable[[int, int, str], None] | None = None) -> dict:
    """Train every scheme from every seed on ``settings``.

    Returns {"settings", "seeds", "test_lengths", "loss_steps", "runs": {scheme: [cell per seed]},
    "map": {"tokens", "targets", "maps": {scheme: [per layer (n, n), 3 decimals]}}} — maps from the first seed.
    ``progress(done, total, scheme)`` counts training steps over all runs.
    """
    s = settings.check()
    seeds = [_whole(x, "seed", 0, MAX_SEED) for x in seeds]
    if not seeds:
        raise ValueError("Give at least one seed.")
    total = len(SCHEMES) * len(seeds) * s.steps
    runs: dict[str, list[dict]] = {}
    maps: dict[str, list] = {}
    map_tokens = None
    done = 0
    for scheme in SCHEMES:
        runs[scheme] = []
        for seed in seeds:
            def tick(step: int, _total: int, scheme=scheme, base=done) -> None:
                if progress is not None:
                    progress(base + step, total, scheme)

            result = train(scheme, s, seed, tick)
            done += s.steps
            runs[scheme].append(cell(result))
            if seed == seeds[0]:
                maps[scheme] = [np.round(a, 3).tolist() for a in result.maps]
                map_tokens = result.map_tokens
    targets = targets_for(map_tokens[None, :], s.task, s.k)[0]
    return {
        "settings": {name: getattr(s, name) for name in s.__dataclass_fields__},
        "seeds": seeds,
        "test_lengths": list(s.test_lengths),
        "loss_steps": loss_steps(s.steps),
        "runs": runs,
        "map": {"tokens": map_tokens.tolist(), "targets": targets.tolist(), "maps": maps},
    }


def settings_from(record: dict) -> Settings:
    """The Settings an experiment record was trained with."""
    return Settings(**record["settings"])

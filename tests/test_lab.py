"""posenc.lab: gradients by finite differences, symmetries, errors, reproducibility, the precomputed file.

Expectations are derived independently (closed forms, finite differences, a second run), never copied
from an output.
"""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc import lab

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "lab_results.json"

SMALL = dict(vocab=5, d_model=4, n_max=6)


def small_batch(seed: int, length: int = 5, task: str = "copy", k: int = 1):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, SMALL["vocab"], size=(2, length))
    return tokens, lab.targets_for(tokens, task, k)


def finite_difference(params, name, idx, tokens, targets, scheme, causal, h=1e-6, heads=1) -> float:
    """(L(θ + h) − L(θ − h)) / 2h for one entry of one array."""
    arr = params[name]
    old = arr[idx]
    arr[idx] = old + h
    up, _ = lab.loss_and_grads(params, tokens, targets, scheme, causal, heads=heads)
    arr[idx] = old - h
    down, _ = lab.loss_and_grads(params, tokens, targets, scheme, causal, heads=heads)
    arr[idx] = old
    return (up - down) / (2 * h)


# ---------------------------------------------------------------- gradients


OPTIONS = {"plain": {}, "mlp": {"mlp": True}, "bos": {"bos": True}, "heads": {"heads": 2},
           "all": {"mlp": True, "bos": True, "heads": 2}}


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("n_layers", [1, 2])
@pytest.mark.parametrize("scheme", lab.SCHEMES)
def test_gradients_match_finite_differences(scheme, n_layers, option):
    opts = OPTIONS[option]
    params = lab.init_params(scheme, seed=7, n_layers=n_layers, **SMALL, **opts)
    heads = opts.get("heads", 1)
    tokens, targets = small_batch(1, task="copy", k=2)  # the first two targets are −1: unscored
    loss, grads = lab.loss_and_grads(params, tokens, targets, scheme, heads=heads)
    assert set(grads) == set(params)
    for name, g in grads.items():
        assert g.shape == params[name].shape
        for idx in np.ndindex(g.shape):
            fd = finite_difference(params, name, idx, tokens, targets, scheme, True, heads=heads)
            assert g[idx] == pytest.approx(fd, abs=1e-7, rel=1e-5), (name, idx)


@pytest.mark.parametrize("scheme", ["none", "rope", "alibi"])
def test_gradients_without_the_mask(scheme):
    params = lab.init_params(scheme, seed=3, n_layers=2, **SMALL)
    tokens, targets = small_batch(2, task="first")
    _, grads = lab.loss_and_grads(params, tokens, targets, scheme, causal=False)
    rng = np.random.default_rng(0)
    for name, g in grads.items():
        for _ in range(4):
            idx = tuple(int(rng.integers(0, n)) for n in g.shape)
            fd = finite_difference(params, name, idx, tokens, targets, scheme, False)
            assert g[idx] == pytest.approx(fd, abs=1e-7, rel=1e-5), (name, idx)


@pytest.mark.parametrize("scheme", ["none", "learned", "alibi"])
def test_an_odd_width_is_fine_where_nothing_works_on_pairs(scheme):
    params = lab.init_params(scheme, vocab=5, d_model=3, n_max=6, seed=2, n_layers=2)
    tokens, targets = small_batch(3)
    _, grads = lab.loss_and_grads(params, tokens, targets, scheme)
    for name in ("E", "W_q.1", "W_k.0"):
        idx = (1, 2)
        fd = finite_difference(params, name, idx, tokens, targets, scheme, True)
        assert grads[name][idx] == pytest.approx(fd, abs=1e-7, rel=1e-5)


def test_learned_rows_past_the_sequence_get_no_gradient():
    params = lab.init_params("learned", seed=0, n_layers=1, **SMALL)
    tokens, targets = small_batch(0, length=4)
    _, grads = lab.loss_and_grads(params, tokens, targets, "learned")
    assert np.all(grads["P"][4:] == 0)
    assert np.any(grads["P"][:4] != 0)


# ---------------------------------------------------------------- the loss, in closed forms


@pytest.mark.parametrize("scheme", lab.SCHEMES)
def test_a_silent_readout_scores_log_vocab(scheme):
    """W_out = 0, b_out = 0: every logit is 0, p = 1/V, so the loss is ln V whatever the model did."""
    params = lab.init_params(scheme, seed=1, **SMALL)
    params["W_out"][:] = 0
    tokens, targets = small_batch(4)
    loss, _ = lab.loss_and_grads(params, tokens, targets, scheme)
    assert loss == pytest.approx(math.log(SMALL["vocab"]), abs=1e-12)


def test_unscored_entries_do_not_count():
    """Changing a target from −1 to −1 elsewhere changes nothing; the mean runs over scored entries only."""
    params = lab.init_params("none", seed=2, **SMALL)
    tokens = np.array([[0, 1, 2, 3]])
    one = np.array([[-1, 2, -1, -1]])
    logits, _ = lab.forward(params, tokens, "none")
    row = logits[0, 1]
    expected = -(row[2] - math.log(np.exp(row).sum()))
    assert lab.loss_and_grads(params, tokens, one, "none")[0] == pytest.approx(expected, abs=1e-12)


def test_attention_with_no_content_scores():
    """W_q = W_k = 0: the scores are the bias alone. With the mask, none/rope/sinusoidal read uniformly,
    a_ij = 1/(i+1) (0-based i); alibi reads a_ij ∝ exp(−m(i − j)) for j ≤ i."""
    n = 6
    tokens = np.arange(n) % SMALL["vocab"]
    for scheme in lab.SCHEMES:
        params = lab.init_params(scheme, seed=0, n_layers=1, vocab=5, d_model=4, n_max=8)
        params["W_q.0"][:] = 0
        params["W_k.0"][:] = 0
        a = lab.attention_maps(params, tokens, scheme)[0]
        for i in range(n):
            if scheme == "alibi":
                w = np.exp(-lab.ALIBI_SLOPE * (i - np.arange(i + 1)))
                expected = w / w.sum()
            else:
                expected = np.full(i + 1, 1 / (i + 1))
            assert np.allclose(a[i, : i + 1], expected, atol=1e-14)
            assert np.all(a[i, i + 1:] == 0)


def reference_loss(params, tokens, targets, scheme) -> float:
    """The original model, written again from its formulas (one head, no MLP, no start token, causal)."""
    from posenc.encodings import rope, sinusoidal
    d = params["E"].shape[1]
    n = tokens.shape[1]
    h = params["E"][tokens]
    if scheme == "learned":
        h = h + params["P"][:n]
    if scheme == "sinusoidal":
        h = h + sinusoidal(np.arange(n), d, lab.BASE)
    i, j = np.indices((n, n))
    for layer in range(lab.n_layers_of(params)):
        q, k, v = (h @ params[f"{w}.{layer}"] for w in ("W_q", "W_k", "W_v"))
        if scheme == "rope":
            q, k = rope(q, np.arange(n), lab.BASE), rope(k, np.arange(n), lab.BASE)
        s = q @ np.swapaxes(k, -1, -2) / math.sqrt(d) - (lab.ALIBI_SLOPE * (i - j) if scheme == "alibi" else 0)
        s = np.where(j <= i, s, -np.inf)
        a = np.exp(s - s.max(axis=-1, keepdims=True))
        h = h + (a / a.sum(axis=-1, keepdims=True)) @ v
    logits = h @ params["W_out"] + params["b_out"]
    logp = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
    scored = targets >= 0
    return -float(np.take_along_axis(logp, np.where(scored, targets, 0)[..., None], -1)[..., 0][scored].mean())


@pytest.mark.parametrize("n_layers", [1, 2])
@pytest.mark.parametrize("scheme", lab.SCHEMES)
def test_the_options_default_to_the_original_model(scheme, n_layers):
    params = lab.init_params(scheme, seed=4, n_layers=n_layers, **SMALL)
    assert all(not name.startswith(("W_1", "W_2", "b_1", "b_2")) for name in params)
    tokens, targets = small_batch(5, task="copy", k=1)
    loss, _ = lab.loss_and_grads(params, tokens, targets, scheme)
    assert loss == pytest.approx(reference_loss(params, tokens, targets, scheme), abs=1e-12)
    explicit, _ = lab.loss_and_grads(params, tokens, targets, scheme, True, heads=1)
    assert explicit == loss
    # the options only add arrays: the shared ones are drawn exactly as without them
    more = lab.init_params(scheme, seed=4, n_layers=n_layers, **SMALL, mlp=True, bos=True, heads=2)
    for name in params:
        if name == "P":
            assert np.array_equal(more["P"][1:], params["P"])
        elif name == "E":
            assert np.array_equal(more["E"][:-1], params["E"])
        else:
            assert np.array_equal(more[name], params[name]), name


def test_alibi_heads_get_the_steepest_geometric_slopes():
    assert lab.alibi_head_slopes(1).tolist() == [lab.ALIBI_SLOPE]
    assert lab.alibi_head_slopes(4).tolist() == [1 / 2, 1 / 4, 1 / 8, 1 / 16]
    bias, _ = lab._score_bias(5, "alibi", True, heads=2)
    assert bias[1, 4, 0] == -4 / 4 and bias[0, 4, 1] == -3 / 2 and bias[0, 0, 1] == -np.inf


def test_the_start_token_is_never_scored_and_can_be_read():
    """With a start token and W_q = W_k = 0 (no content scores) position i reads i + 2 slots uniformly, the
    start token among them; the logits are for the content positions only."""
    params = lab.init_params("none", seed=1, n_layers=1, **SMALL, bos=True)
    params["W_q.0"][:] = 0
    tokens = np.array([[0, 1, 2, 3]])
    logits, _ = lab.forward(params, tokens, "none")
    assert logits.shape == (1, 4, SMALL["vocab"])
    a = lab.attention_maps(params, tokens[0], "none")[0]
    assert a.shape == (5, 5)
    for i in range(5):
        assert np.allclose(a[i, : i + 1], 1 / (i + 1), atol=1e-14)
    with pytest.raises(ValueError, match="vocabulary"):
        lab.forward(params, np.array([[SMALL["vocab"]]]), "none")  # the start token's id is not an input


def test_keys_limited_to_the_gaps_seen_in_training():
    """max_gap = 0: each query reads only itself; a gap as long as the sequence changes nothing."""
    params = lab.init_params("rope", seed=2, n_layers=1, **SMALL)
    tokens, _ = small_batch(3, length=6)
    free, _ = lab.forward(params, tokens, "rope")
    same, _ = lab.forward(params, tokens, "rope", max_gap=6)
    assert np.array_equal(free, same)
    bias = lab._score_bias(4, "rope", True, max_gap=1)[0][0]
    assert np.isfinite(bias).tolist() == [[True, False, False, False], [True, True, False, False],
                                          [False, True, True, False], [False, False, True, True]]


def test_a_wrong_head_count_is_refused():
    with pytest.raises(ValueError, match="divide"):
        lab.init_params("none", vocab=5, d_model=6, n_max=4, seed=0, heads=4)
    with pytest.raises(ValueError, match="pairs"):
        lab.init_params("rope", vocab=5, d_model=6, n_max=4, seed=0, heads=2)  # heads of width 3
    with pytest.raises(ValueError):
        lab.Settings(heads=3).check()


# ---------------------------------------------------------------- symmetries


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.integers(2, 8), n_layers=st.integers(1, 2))
def test_no_encoding_and_no_mask_cannot_see_order(seed, length, n_layers):
    """Shuffle each sequence (tokens and targets together): without positions or a mask the loss is the same."""
    rng = np.random.default_rng(seed)
    params = lab.init_params("none", seed=seed, n_layers=n_layers, **SMALL)
    tokens = rng.integers(0, 5, size=(3, length))
    targets = rng.integers(-1, 5, size=(3, length))
    targets[:, 0] = rng.integers(0, 5, size=3)  # at least one scored entry per row
    order = rng.permutation(length)
    loss, _ = lab.loss_and_grads(params, tokens, targets, "none", causal=False)
    shuffled, _ = lab.loss_and_grads(params, tokens[:, order], targets[:, order], "none", causal=False)
    assert shuffled == pytest.approx(loss, abs=1e-12)


@pytest.mark.parametrize("scheme,causal", [("none", True), ("sinusoidal", False), ("learned", False),
                                           ("rope", False), ("alibi", False)])
def test_with_a_mask_or_positions_the_shuffle_shows(scheme, causal):
    """The control: the same shuffle changes the loss once the mask or a scheme gives position away."""
    params = lab.init_params(scheme, seed=5, n_layers=1, **SMALL)
    tokens = np.array([[0, 1, 2, 3, 4, 0]])
    targets = np.array([[1, 2, 3, 4, 0, 1]])
    order = np.array([5, 3, 1, 0, 2, 4])
    loss, _ = lab.loss_and_grads(params, tokens, targets, scheme, causal=causal)
    shuffled, _ = lab.loss_and_grads(params, tokens[:, order], targets[:, order], scheme, causal=causal)
    assert abs(shuffled - loss) > 1e-6


# ---------------------------------------------------------------- errors


def test_learned_past_n_max_raises():
    params = lab.init_params("learned", seed=0, **SMALL)
    at_limit = np.zeros((1, SMALL["n_max"]), dtype=int)
    lab.loss_and_grads(params, at_limit, at_limit, "learned")  # n_max itself has a row
    past = np.zeros((1, SMALL["n_max"] + 1), dtype=int)
    with pytest.raises(ValueError, match="no row"):
        lab.loss_and_grads(params, past, past, "learned")
    with pytest.raises(ValueError, match="no row"):
        lab.attention_maps(params, past[0], "learned")


def test_the_other_schemes_run_at_any_length():
    for scheme in ("none", "sinusoidal", "rope", "alibi"):
        params = lab.init_params(scheme, seed=0, **SMALL)
        tokens = np.zeros((1, 4 * SMALL["n_max"]), dtype=int)
        loss, _ = lab.loss_and_grads(params, tokens, tokens, scheme)
        assert math.isfinite(loss)


@pytest.mark.parametrize("kwargs", [
    dict(scheme="bogus"), dict(vocab=1), dict(vocab=2.5), dict(scheme="rope", d_model=5), dict(scheme="sinusoidal", d_model=5), dict(d_model=0), dict(n_max=0),
    dict(seed=-1), dict(seed=True), dict(n_layers=3), dict(n_layers=0),
])
def test_init_params_rejects(kwargs):
    args = dict(scheme="none", vocab=5, d_model=4, n_max=6, seed=0, n_layers=1) | kwargs
    with pytest.raises(ValueError):
        lab.init_params(**args)


def test_loss_and_grads_rejects():
    params = lab.init_params("none", seed=0, **SMALL)
    good = np.array([[0, 1, 2]])
    bad_inputs = [
        (good.astype(float), good, "none"),  # not ints
        (good, good[:, :2], "none"),  # shapes differ
        (np.array([[0, 1, 5]]), good, "none"),  # token outside the vocabulary
        (good, np.array([[0, -2, 1]]), "none"),  # target below −1
        (good, np.full((1, 3), -1), "none"),  # nothing scored
        (good[0], good[0], "none"),  # 1-D
        (good, good, "learned"),  # no table P in these params
        (good, good, "sideways"),  # unknown scheme
    ]
    for tokens, targets, scheme in bad_inputs:
        with pytest.raises(ValueError):
            lab.loss_and_grads(params, tokens, targets, scheme)


@pytest.mark.parametrize("field,value", [("task", "reverse"), ("heads", 3), ("heads", 0), ("bos", 1), ("k", 0), ("k", 4), ("n_layers", 3), ("L_train", 4), ("L_train", 65),
                                         ("steps", 0), ("lr", 0.0), ("lr", float("nan")), ("d_model", 7),
                                         ("batch", 0)])
def test_settings_reject(field, value):
    with pytest.raises(ValueError):
        lab.train("none", lab.Settings(**{field: value}), seed=0)


# ---------------------------------------------------------------- tasks


def test_task_targets():
    tokens = np.array([[3, 1, 4, 1, 5]])
    assert lab.targets_for(tokens, "copy", 1).tolist() == [[-1, 3, 1, 4, 1]]
    assert lab.targets_for(tokens, "copy", 2).tolist() == [[-1, -1, 3, 1, 4]]
    assert lab.targets_for(tokens, "copy", 3).tolist() == [[-1, -1, -1, 3, 1]]
    assert lab.targets_for(tokens, "first").tolist() == [[-1, 3, 3, 3, 3]]
    # induction: … A B … A → B. Position 4 (0-based 3) holds 1, seen at 1 and followed by 4 there.
    assert lab.targets_for(tokens, "induction").tolist() == [[-1, -1, -1, 4, -1]]
    twice = np.array([[2, 2, 2, 0, 2]])  # the latest earlier occurrence counts: at index 4 that is index 2 → 0
    assert lab.targets_for(twice, "induction").tolist() == [[-1, 2, 2, -1, 0]]
    assert lab.answer_keys(twice[0], "induction") == [(1, 1), (2, 2), (4, 3)]
    assert lab.answer_keys(tokens[0], "copy", 2) == [(2, 0), (3, 1), (4, 2)]


def test_test_lengths_run_from_half_to_four_times():
    for L in (8, 12, 16, 64):
        lengths = lab.Settings(L_train=L).test_lengths
        assert lengths[0] == L // 2 and lengths[-1] == 4 * L and L in lengths
        assert list(lengths) == sorted(set(lengths))


# ---------------------------------------------------------------- reproducibility


def _digest(params) -> str:
    h = hashlib.sha256()
    for name in sorted(params):
        h.update(name.encode())
        h.update(params[name].tobytes())
    return h.hexdigest()


def test_init_params_are_float64_contiguous_and_the_same_in_another_process():
    params = lab.init_params("learned", vocab=7, d_model=6, n_max=9, seed=11, n_layers=2)
    for arr in params.values():
        assert arr.dtype == np.float64 and arr.flags.c_contiguous
    code = (
        "import hashlib; from posenc import lab\n"
        "p = lab.init_params('learned', vocab=7, d_model=6, n_max=9, seed=11, n_layers=2)\n"
        "h = hashlib.sha256()\n"
        "for n in sorted(p): h.update(n.encode()); h.update(p[n].tobytes())\n"
        "print(h.hexdigest())"
    )
    other = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "123", "PATH": ""})
    assert other.stdout.strip() == _digest(params)
    assert _digest(lab.init_params("learned", vocab=7, d_model=6, n_max=9, seed=12, n_layers=2)) != _digest(params)


def test_every_scheme_starts_from_the_same_weights():
    base = lab.init_params("none", seed=4, **SMALL)
    for scheme in lab.SCHEMES:
        params = lab.init_params(scheme, seed=4, **SMALL)
        assert set(params) - set(base) == ({"P"} if scheme == "learned" else set())
        for name in base:
            assert np.array_equal(params[name], base[name])


def test_the_same_seed_reproduces_a_training_run():
    s = lab.Settings(steps=15, L_train=8, n_layers=2)
    one, two = lab.train("rope", s, seed=3), lab.train("rope", s, seed=3)
    assert np.array_equal(one.losses, two.losses)
    assert one.accuracy == two.accuracy
    assert all(np.array_equal(a, b) for a, b in zip(one.maps, two.maps))
    assert not np.array_equal(lab.train("rope", s, seed=4).losses, one.losses)


@pytest.mark.parametrize("scheme", lab.SCHEMES)
def test_seeds_trained_together_are_each_seed_trained_alone(scheme):
    """train_seeds stacks the seeds into one pass; each seed's numbers are exactly its own run's."""
    s = lab.Settings(task="induction", steps=8, L_train=8, heads=2, bos=True, mlp=True)
    together = lab.train_seeds(scheme, s, (2, 7))
    for run in together:
        alone = lab.train(scheme, s, seed=run.seed)
        assert np.array_equal(alone.losses, run.losses) and lab.cell(alone) == lab.cell(run)
    assert not np.array_equal(together[0].losses, together[1].losses)


@pytest.mark.parametrize("L_train", [8, 12, 16])
def test_one_product_a_seed_is_the_per_sequence_products_bit_for_bit(L_train):
    """Where posenc.lab multiplies a whole batch by a weight matrix in one product a seed (``_mul``), the numbers
    are those of one product per sequence, bit for bit, at every length the page trains (with and without the
    start token) or tests, for each (rows, columns) and orientation it is used with: h·W_q/k/v, the MLP's h·W_1
    and z·W_2, and in the backward pass g·W_q/k/vᵀ, g·W_2ᵀ and g·W_outᵀ."""
    s = lab.Settings(L_train=L_train)
    d, wide, V = s.d_model, lab.MLP_WIDTH * s.d_model, s.vocab
    rng = np.random.default_rng(L_train)
    lengths = sorted({n + bos for n in (L_train, *s.test_lengths) for bos in (0, 1)})
    for n in lengths:
        for batch in (s.batch, s.n_test):
            for a, b, transposed in ((d, d, False), (d, d, True), (d, wide, False), (wide, d, False),
                                     (d, wide, True), (V, d, True)):
                x = rng.standard_normal((3, batch, n, a))
                w = rng.standard_normal((3, b, a)).swapaxes(-1, -2) if transposed else rng.standard_normal((3, a, b))
                assert np.array_equal(lab._mul(x, w), x @ w[:, None]), (n, batch, a, b, transposed)


def test_a_settings_key_reads_back_and_finds_the_precomputed_record():
    data = json.loads(DATA.read_text(encoding="utf-8"))
    for s in (lab.Settings(), lab.Settings(task="first", heads=2, steps=100)):
        assert lab.Settings.of_key(s.key) == s
    assert lab.stored(data, lab.Settings(task="first")) is data["experiments"]["first"]
    assert lab.stored(data, lab.Settings(task="first", steps=100)) is None


# ---------------------------------------------------------------- training


@pytest.mark.parametrize("task,k", [("copy", 1), ("copy", 3), ("first", 1)])
def test_training_lowers_the_loss(task, k):
    """Every scheme ends lower than it starts; a scheme that can see position ends far below ln V, the loss
    of a uniform guess (ln V is the best a model that cannot tell positions apart could do at random tokens
    for the copy task, up to the first few positions)."""
    s = lab.Settings(task=task, k=k, steps=150, L_train=8, n_layers=1)
    for scheme in lab.SCHEMES:
        losses = lab.train(scheme, s, seed=0).losses
        assert losses[-20:].mean() < losses[:20].mean(), scheme
    assert lab.train("learned", s, seed=0).losses[-20:].mean() < 0.5 * math.log(s.vocab)


def test_progress_is_reported_and_reaches_the_end():
    calls = []
    lab.train("none", lab.Settings(steps=10, L_train=8), seed=0, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (10, 10)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)


def test_learned_has_no_accuracy_past_n_max():
    s = lab.Settings(steps=2, L_train=8, n_layers=1)
    result = lab.train("learned", s, seed=0)
    for length, acc in zip(result.test_lengths, result.accuracy):
        assert (acc is None) == (length > s.n_max)
    assert all(a is not None for a in lab.train("alibi", s, seed=0).accuracy)


# ---------------------------------------------------------------- the precomputed file


def test_the_precomputed_file_is_small_and_says_where_it_came_from():
    assert DATA.stat().st_size < 3_000_000
    record = json.loads(DATA.read_text(encoding="utf-8"))
    prov = record["provenance"]
    for key in ("command", "seeds", "date_utc", "python", "numpy", "git_commit", "seconds"):
        assert prov[key]
    assert "scripts/precompute_lab.py" in prov["command"]
    assert prov["seeds"] == list(lab.SEEDS) and len(lab.SEEDS) >= 10
    assert set(record["experiments"]) == set(lab.TASKS)
    variants = record["variants"]["bos+mlp"]
    assert set(variants) | set(prov["variant_skipped_for_time"]) == set(lab.TASKS)
    for task, exp in [*record["experiments"].items(), *variants.items()]:
        s = lab.settings_from(exp)
        assert s in (lab.Settings(task=task), lab.Settings(task=task, bos=True, mlp=True))
        assert set(exp["runs"]) == set(lab.SCHEMES)
        assert exp["test_lengths"] == list(s.test_lengths)
        for scheme, runs in exp["runs"].items():
            assert len(runs) == len(exp["seeds"]) >= len(lab.LIVE_SEEDS)
            for run in runs:
                assert len(run["losses"]) == len(exp["loss_steps"])
                assert len(run["by_position"]) == 4 * s.L_train
                for length, acc in zip(exp["test_lengths"], run["accuracy"]):
                    assert (acc is None) == (scheme == "learned" and length > s.n_max)


def test_every_precomputed_record_carries_its_mask_leak_exactly():
    """The page reads the mask's leak from the record (no least-squares fit on a page run): each stored value is
    recomputed here from the record's settings (an untrained model, no training) and must match to 1e-12. Not bit
    for bit: it is a least-squares fit, and LAPACK's kernels follow the CPU (this machine's last digit differs
    from the one that stored it: 0.5471893851195517 against …515, with one BLAS thread or two)."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    stored = [*data["experiments"].values(), *data["variants"]["bos+mlp"].values()]
    assert len({tuple(r["mask_leak"]) for r in stored}) == len(stored)  # one value per setting, none copied
    for record in stored:
        assert record["mask_leak"] == pytest.approx(list(lab.mask_leak(lab.settings_from(record))), rel=1e-12,
                                                    abs=1e-15)


def test_a_trained_record_carries_the_mask_leak_of_its_own_settings():
    s = lab.Settings(task="first", n_layers=1, L_train=8, steps=lab.LIVE_STEPS[0])
    record = lab.experiment(s, seeds=[0])
    assert record["mask_leak"] == list(lab.mask_leak(s)) != list(lab.mask_leak(lab.Settings()))


def test_the_precomputed_file_regenerates_one_cell_exactly():
    """One run of the defaults (2,000 steps, ~3 s on a quiet core): the stored record is reproduced exactly."""
    record = json.loads(DATA.read_text(encoding="utf-8"))["experiments"]["copy"]
    seed_index = 3
    seed = record["seeds"][seed_index]
    result = lab.train("alibi", lab.settings_from(record), seed)
    assert lab.cell(result) == record["runs"]["alibi"][seed_index]


# ---------------------------------------------------------------- reading a record honestly


def fake_record(at_L: list[float], past_4L: list[float], losses: list[list[float]], L: int = 8) -> dict:
    """A record for one setting in which every scheme has these per-seed numbers."""
    s = lab.Settings(L_train=L, steps=len(losses[0]) * lab.LOSS_EVERY)
    lengths = list(s.test_lengths)
    runs = []
    for a, p, ls in zip(at_L, past_4L, losses):
        acc = [a if n == L else 0.5 for n in lengths]
        past = [p if n == 4 * L else None for n in lengths]
        runs.append({"accuracy": acc, "past": past, "losses": ls, "by_position": [a] * (4 * L),
                     "seen_gaps": [p, p], "probe": 0.0})
    return {"settings": {f: getattr(s, f) for f in s.__dataclass_fields__}, "seeds": list(range(len(runs))),
            "test_lengths": lengths, "runs": {x: runs for x in lab.SCHEMES}}


@settings(max_examples=60, deadline=None)
@given(at_L=st.lists(st.floats(0, 1), min_size=1, max_size=5), past=st.floats(0, 1),
       tail=st.floats(0, 0.5))
def test_a_scheme_below_learns_never_reads_as_still_working(at_L, past, tail):
    losses = [[1.0] * 10 + [0.2 + tail] * 5 + [0.2] * 5 for _ in at_L]
    r = lab.read(fake_record(at_L, [past] * len(at_L), losses), "alibi")
    if r.still_works:
        assert r.learned and np.mean(at_L) >= lab.LEARNS and r.converged and past >= lab.STILL_WORKS
    if np.mean(at_L) < lab.LEARNS:
        assert not r.learned and not r.still_works


def test_the_issues_case_reads_as_not_learned():
    """ALiBi at 86 % at the training length and 87 % at 4 ×, its loss still falling: it did not learn (the old
    page read 'still works'); the same numbers at 99 % / 99 % with a flat loss do still work."""
    falling = [list(np.linspace(1.0, 0.4, 20))]
    r = lab.read(fake_record([0.86], [0.87], falling), "alibi")
    assert not r.learned and not r.still_works and not r.converged
    flat = [[1.0] * 10 + [0.01] * 10]
    assert lab.read(fake_record([0.99], [0.99], flat), "alibi").still_works
    assert not lab.read(fake_record([0.99], [0.5], flat), "alibi").still_works  # learned, fails past L

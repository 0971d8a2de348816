"""Tests for posenc.trained: the shipped all-MiniLM-L6-v2 table and the similarity helpers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.trained import MINILM_TABLE_PATH, cosine_by_offset, cosine_matrix, load_minilm_table, row_norms


@pytest.fixture(scope="module")
def table() -> np.ndarray:
    return load_minilm_table()


def test_table_file_is_small_and_float16():
    assert MINILM_TABLE_PATH.exists()
    assert MINILM_TABLE_PATH.stat().st_size < 500_000
    raw = np.load(MINILM_TABLE_PATH)
    assert raw.dtype == np.float16


def test_table_shape_and_values(table):
    assert table.shape == (512, 384)
    assert table.dtype == np.float64
    assert np.all(np.isfinite(table))
    assert np.all(row_norms(table) > 0)
    # no two positions share a vector
    assert np.unique(table, axis=0).shape[0] == 512


def test_trained_adjacent_rows_are_similar(table):
    c = cosine_by_offset(table, 1)
    assert c[0] == pytest.approx(1.0)
    assert 0.8 <= c[1] <= 0.95


def test_trained_similarity_fades_with_distance(table):
    c = cosine_by_offset(table, 200)
    assert c[1] > c[100] > 0
    assert c[1] > np.mean(c[150:])


def test_random_table_adjacent_cosine_near_zero():
    rng = np.random.default_rng(0)
    c = cosine_by_offset(rng.standard_normal((512, 384)), 3)
    # mean of 511 cosines of independent 384-d gaussians: sd ≈ 1/sqrt(384·511)
    assert np.all(np.abs(c[1:]) < 0.01)


def test_cosine_by_offset_direct_loop():
    rng = np.random.default_rng(1)
    t = rng.standard_normal((20, 5))
    c = cosine_by_offset(t, 4)
    for k in range(5):
        vals = [t[p] @ t[p + k] / (np.linalg.norm(t[p]) * np.linalg.norm(t[p + k])) for p in range(20 - k)]
        assert c[k] == pytest.approx(np.mean(vals))


def test_cosine_by_offset_sinusoid_is_toeplitz():
    # for a sinusoid-like table with equal row norms, cosine depends only on the offset: same as any single pair
    p = np.arange(64)[:, None]
    w = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    t = np.concatenate([np.sin(p * w), np.cos(p * w)], axis=1)
    c = cosine_by_offset(t, 10)
    direct = np.cos(np.arange(11)[:, None] * w).sum(axis=1) / 8
    assert np.allclose(c, direct)


@settings(max_examples=30)
@given(n=st.integers(2, 30), dim=st.integers(1, 12), seed=st.integers(0, 10_000))
def test_cosine_matrix_properties(n, dim, seed):
    t = np.random.default_rng(seed).standard_normal((n, dim)) + 0.1
    m = cosine_matrix(t)
    assert m.shape == (n, n)
    assert np.allclose(np.diag(m), 1.0)
    assert np.allclose(m, m.T)
    assert np.all(np.abs(m) <= 1 + 1e-12)
    # scaling a row does not change its cosines
    t2 = t.copy()
    t2[0] *= 7.5
    assert np.allclose(cosine_matrix(t2), m)


def test_cosine_matrix_rows(table):
    rows = [0, 1, 2, 100, 511]
    m = cosine_matrix(table, rows)
    assert m.shape == (5, 5)
    full = cosine_matrix(table)
    assert np.allclose(m, full[np.ix_(rows, rows)])


def test_row_norms():
    assert np.allclose(row_norms([[3.0, 4.0], [0.0, 1.0]]), [5.0, 1.0])


def test_bad_inputs():
    with pytest.raises(ValueError):
        cosine_by_offset(np.ones((5, 3)), 5)
    with pytest.raises(ValueError):
        cosine_by_offset(np.ones((5, 3)), -1)
    with pytest.raises(ValueError):
        cosine_matrix(np.ones((5, 3)), [0, 5])
    with pytest.raises(ValueError, match="zeros"):
        cosine_matrix(np.zeros((3, 2)))
    with pytest.raises(ValueError):
        row_norms(np.ones(4))
    with pytest.raises(FileNotFoundError):
        load_minilm_table("/nonexistent/table.npy")

"""A real trained position table: all-MiniLM-L6-v2 (Apache-2.0), 512 positions × 384 dimensions.

The table ships as ``data/minilm_position_embeddings.npy`` (float16; see ``data/PROVENANCE.md`` and
``scripts/extract_minilm_table.py``).  Pure numpy helpers to look at any table of shape (positions, dims).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from .validate import whole

__all__ = ["MINILM_TABLE_PATH", "load_minilm_table", "row_norms", "cosine_by_offset", "cosine_matrix"]

MINILM_TABLE_PATH = Path(__file__).resolve().parent.parent / "data" / "minilm_position_embeddings.npy"


def load_minilm_table(path: Path | str | None = None) -> np.ndarray:
    """The trained position-embedding table of all-MiniLM-L6-v2, as float64.

    P[p] = the vector BERT adds to the token at position p, p = 0 … 511.  Shape (512, 384).
    """
    path = Path(path) if path is not None else MINILM_TABLE_PATH
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing; re-create it with `python scripts/extract_minilm_table.py`"
        )
    table = np.load(path, allow_pickle=False)
    return np.asarray(table, dtype=np.float64)


def _check_table(table: ArrayLike) -> np.ndarray:
    t = np.asarray(table, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] < 1 or t.shape[1] < 1:
        raise ValueError(f"a position table must be 2-D (positions × dimensions), got shape {t.shape}")
    if not np.all(np.isfinite(t)):
        raise ValueError("the position table contains NaN or infinite values")
    return t


def _unit_rows(t: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(t, axis=1)
    if np.any(norms == 0):
        bad = int(np.flatnonzero(norms == 0)[0])
        raise ValueError(f"row {bad} is all zeros, so its cosine with other rows is undefined")
    return t / norms[:, None]


def row_norms(table: ArrayLike) -> np.ndarray:
    """Length of each position's vector.

    ‖P[p]‖ = sqrt(Σ_c P[p, c]²).  Shape (positions,).
    """
    return np.linalg.norm(_check_table(table), axis=1)


def cosine_by_offset(table: ArrayLike, max_offset: int) -> np.ndarray:
    """Average cosine similarity between positions k apart, for k = 0 … max_offset.

    c(k) = mean_{p=0}^{n−1−k} cos(P[p], P[p+k]),  cos(a, b) = a·b / (‖a‖ ‖b‖).  c(0) = 1.
    """
    t = _check_table(table)
    n = t.shape[0]
    k_max = whole(max_offset, f"max_offset (the table has {n} rows)", 0, n - 1)
    u = _unit_rows(t)
    gram = u @ u.T
    return np.array([np.diagonal(gram, k).mean() for k in range(k_max + 1)])


def cosine_matrix(table: ArrayLike, rows: ArrayLike | None = None) -> np.ndarray:
    """Cosine similarity between the chosen positions (all positions if rows is None).

    C[a, b] = cos(P[r_a], P[r_b]).  Shape (len(rows), len(rows)).
    """
    t = _check_table(table)
    if rows is None:
        idx = np.arange(t.shape[0])
    else:
        idx = np.asarray(rows)
        if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
            raise ValueError("rows must be a list of whole-number positions")
        if idx.size and (idx.min() < 0 or idx.max() >= t.shape[0]):
            raise ValueError(f"rows must be positions between 0 and {t.shape[0] - 1}")
    u = _unit_rows(t[idx])
    return u @ u.T

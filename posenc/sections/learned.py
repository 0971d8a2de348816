"""The sections of “A learned table” (lessons/learned.py): each one's numbers, claims and figures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import chapter, core
from ..charts import learned as lc
from ..charts.spec import word_labels
from ..learned import (
    CHANCE_SIGMAS,
    Edge,
    Independence,
    Pattern,
    TwoLookups,
    downsample_index,
    edge,
    independence,
    initial_like,
    log2_bins,
    lookup,
    mean_cosine_by_offset,
    pattern_terms,
    simulate_training,
    two_lookups,
    updates_per_row,
)
from ..trained import cosine_matrix, load_minilm_table, row_norms

N_MAX = chapter.N_MAX
SHOWN_DIMS = 16  # coordinates drawn of each row
MAX_POINTS = 300  # points per line chart over the rows

# The posenc functions the page runs, for its “Show the code”.
CODE = (edge, lookup, two_lookups, pattern_terms, simulate_training, updates_per_row, independence,
        mean_cosine_by_offset)


def table_edge(n_max: int, d: int, seed: int, pos: int) -> tuple[Edge, Any]:
    """Section 1: row ``pos`` of an ``n_max``-row table, and the window of rows around it."""
    e = edge(n_max, d, seed, pos, SHOWN_DIMS)
    return e, lc.table_window(e.values, e.rows, e.n_max, e.position)


def lookups(sentence: str, d: int, seed: int) -> tuple[TwoLookups, Any]:
    """The input as two lookups, word row + position row, in the chapter's table."""
    lk = two_lookups(core.tokenize(sentence), N_MAX, d, seed)
    return lk, lc.two_lookups(lk.word_rows, lk.position_rows, word_labels(lk.tokens[: lk.n_used]), SHOWN_DIMS)


def pattern(sentence: str, d: int, seed: int) -> tuple[Pattern, Any]:
    """A row's part of a score against the words' part, at every start of the sentence in the table."""
    pt = pattern_terms(core.tokenize(sentence), N_MAX, d, seed)
    idx = np.unique(np.rint(np.geomspace(1, len(pt.starts), 60)).astype(int)) - 1  # even on the chart's log axis
    return pt, lc.pattern_chart(pt.starts[idx], pt.learned[idx], pt.raw[idx], pt.content, N_MAX)


def training(d: int, seed: int, n_sentences: int, median: int):
    """Section 2: the simulated training, its length histogram, the per-row charts (updates, moved) and how many
    rows they draw."""
    tr = simulate_training(N_MAX, d, seed, n_sentences, float(median))
    labels, _, sums = log2_bins(tr.length_counts)
    idx = downsample_index(N_MAX, MAX_POINTS)
    top, bottom = lc.per_row(idx + 1, tr.updates[idx], tr.relative[idx], N_MAX)
    return tr, lc.length_histogram(labels, sums), top, bottom, len(idx)


@dataclass(frozen=True)
class Neighbours:
    """Section 3: the chapter's table at its random start, rows k apart compared."""

    ind: Independence
    fig: Any  # mean cosine of rows k apart
    far: int  # an offset far apart with many pairs still to average (half the table)

    @property
    def chance(self) -> bool:
        """cos(P_a, P_a+1) and cos(P_a, P_c) both within CHANCE_SIGMAS typical spreads of 0."""
        limit = CHANCE_SIGMAS * self.ind.spread
        return abs(self.ind.cos_ab) < limit and abs(self.ind.cos_ac) < limit

    @property
    def neighbours(self) -> int:
        """Rows 1 apart, on average: +1 more alike than chance allows, −1 less alike, 0 within chance."""
        c, limit = float(self.ind.by_offset[1]), CHANCE_SIGMAS * self.ind.mean_spread(1)
        return 1 if c >= limit else -1 if c <= -limit else 0


def neighbours(d: int, seed: int) -> Neighbours:
    ind = independence(N_MAX, d, seed)
    oi = downsample_index(N_MAX, MAX_POINTS)
    fig = lc.cosine_offsets(oi, {"random table at the start": ind.by_offset[oi]},
                            "Mean cosine of rows k apart (random start)", height=130)
    return Neighbours(ind, fig, N_MAX // 2)


@dataclass(frozen=True)
class Trained:
    """A real learned table (all-MiniLM-L6-v2's) beside a random one of its shape, as training starts it."""

    shape: tuple[int, int]
    cos_trained: np.ndarray  # mean cosine of rows k apart, k = 0 … n − 1
    cos_start: np.ndarray
    grid_rows: list[int]  # the 1-based rows in the cosine grids
    figs: tuple[Any, Any, Any, Any]  # cosine by offset, row norms, grid trained, grid at the start
    missing: str | None  # lookup's message for the row after the last (None: a row was found)


def trained(grid_step: int) -> Trained:
    table = load_minilm_table()
    n, _ = table.shape
    start = initial_like(table)
    rows = np.arange(0, n, grid_step)
    cos_trained, cos_start = mean_cosine_by_offset(table), mean_cosine_by_offset(start)
    offsets = np.arange(n // 2 + 1)
    grid_rows = (rows + 1).tolist()
    figs = (
        lc.cosine_offsets(offsets, {"trained (MiniLM)": cos_trained[offsets],
                                    "random, at initialisation": cos_start[offsets]},
                          "Mean cosine of rows k apart"),
        lc.row_norms(np.arange(1, n + 1), row_norms(table), n),
        lc.cosine_grid(cosine_matrix(table, rows), grid_rows, "cos between rows, trained"),
        lc.cosine_grid(cosine_matrix(start, rows), grid_rows, "cos between rows, at initialisation"),
    )
    try:
        lookup(table, [n + 1])
        missing = None
    except ValueError as err:
        missing = str(err)
    return Trained(table.shape, cos_trained, cos_start, grid_rows, figs, missing)

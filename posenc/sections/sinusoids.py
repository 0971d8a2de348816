"""The sections and asides of “Sinusoids” (lessons/sinusoids.py): each one's numbers, claims and figures."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import chapter, core
from ..charts import sinusoids as sc
from ..encodings import frequencies, shift_matrix, sinusoidal
from ..sinusoid_demo import (
    LAYOUT_LENGTH,
    M_SHOWN,
    MAX_LENGTH,
    SHOWN_PAIRS,
    SIM_SIZE,
    AnyPosition,
    Catch,
    Ladder,
    Layouts,
    Shift,
    Table,
    additive_scores,
    any_position,
    catch,
    ladder,
    layouts,
    shift_at,
    shift_rule,
    sinusoidal_halves,
    table,
)

BASE = chapter.BASE

# The posenc functions the page runs, for its “Show the code”.
CODE = (frequencies, sinusoidal, ladder, table, any_position, shift_matrix, shift_rule, shift_at, additive_scores,
        catch, sinusoidal_halves, layouts)


def wavelengths(d: int) -> np.ndarray:
    """λ_i = 2π/ω_i of every pair at the paper's base."""
    return 2 * np.pi / frequencies(d, BASE)


def one_ratio(d: int) -> bool:
    """Neighbouring pairs' wavelengths differ by the one factor base^(2/d), to 1e-12."""
    lam = wavelengths(d)
    return bool(np.allclose(lam[1:] / lam[:-1], ladder(d, BASE).ratio, rtol=1e-12))


def shift_dot(k: int, d: int) -> float:
    """PE(p)·PE(p + k) = Σ_i cos(k·ω_i), the same at every p."""
    return float(np.sum(np.cos(k * frequencies(d, BASE))))


def catch_view(sentence: str, qi: int, ki: int, d: int, seed: int) -> tuple[Catch, Any]:
    """The catch: the chapter's pairs, one gap apart, scored through W_Q and W_K; the score swept along m."""
    ca = catch(core.tokenize(sentence), qi, ki, d, seed, BASE, chapter.PAIRS)
    marks = [(m, float(v)) for (m, _), v in zip(ca.pairs, ca.scores) if m <= ca.sweep_m[-1]]
    return ca, sc.catch_sweep(ca.sweep_m, ca.sweep_scores, ca.gap, marks)


def catch_terms(ca: Catch) -> dict[str, Any]:
    """The four terms of each of the chapter's scores, one row per pair."""
    return {"query at m": [m for m, _ in ca.pairs], "key at n": [n for _, n in ca.pairs], "score": ca.scores,
            "words only": ca.terms[:, 0], "word_q × PE_n": ca.terms[:, 1], "PE_m × word_k": ca.terms[:, 2],
            "PE_m × PE_n": ca.terms[:, 3]}


def table_view(d: int, length: int) -> tuple[Table, Ladder, Any]:
    """The whole table for positions 1 … length, its ladder, its heatmap."""
    tab = table(d, BASE, length)
    return tab, ladder(d, BASE), sc.table_heatmap(tab.image, length, tab.omegas)


def table_columns(tab: Table, d: int, length: int) -> dict[str, Any]:
    """The table's numbers column by column: each dimension's pair, rate and wavelength, and its values at the
    first and last position drawn."""
    j = np.arange(d)
    i = j // 2
    return {"dimension j": j, "pair i": i, "sin or cos": np.where(j % 2 == 0, "sin", "cos"), "ω_i": tab.omegas[i],
            "wavelength 2π/ω_i": 2 * np.pi / tab.omegas[i], "PE(1, j)": sinusoidal([1], d, BASE)[0],
            f"PE({length:,}, j)": sinusoidal([length], d, BASE)[0]}


def layouts_view(d: int) -> Layouts:
    return layouts(d, BASE, LAYOUT_LENGTH)


def position_view(p: int, d: int) -> tuple[AnyPosition, Any]:
    """PE(p) in float64 and through a float32 pipeline, and the chart comparing them."""
    pos = any_position(p, d, BASE)
    return pos, sc.precision(pos.pe64, pos.pe32, p)


def precision_columns(pos: AnyPosition, d: int) -> dict[str, Any]:
    """The first pairs' angles and values in float64 and in float32."""
    jj = np.arange(min(2 * SHOWN_PAIRS, d))
    return {"dimension j (0-based)": jj, "angle p·ω_i (float64)": pos.angles64[jj // 2],
            "angle in float32": pos.angles32[jj // 2], "PE float64": pos.pe64[jj], "PE float32": pos.pe32[jj]}


def shift_view(k: int, d: int) -> tuple[Shift, float, tuple[Any, Any]]:
    """M_k checked at every position 1 … MAX_LENGTH, at the chapter's starts, and its two charts."""
    sh = shift_rule(k, d, BASE, MAX_LENGTH, shown=M_SHOWN, sim_size=SIM_SIZE)
    starts = [n for _, n in chapter.PAIRS]
    return sh, shift_at(k, starts, d, BASE), (sc.shift_heatmap(sh.M_shown, k), sc.similarity(sh.similarity))

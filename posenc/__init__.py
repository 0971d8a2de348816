"""posenc: the math behind the positional-encoding chapter (numpy only; charts in posenc.charts)."""

from .core import (
    attention,
    causal_mask,
    embed,
    permutation_matrix,
    projections,
    tokenize,
)
from .encodings import binary, rope, shift_matrix, sinusoidal

__all__ = [
    "attention",
    "binary",
    "causal_mask",
    "embed",
    "permutation_matrix",
    "projections",
    "rope",
    "shift_matrix",
    "sinusoidal",
    "tokenize",
]

"""The chapter's running example and constants, in one home.

Widget defaults, page prose and Predict questions read these names; no page retypes a number the chapter
gives. Positions here are the chapter's: 1-based ("chased" is (3)). Functions that return an index into a
token list say so and return it 0-based, as Python does.
"""

from __future__ import annotations

from .core import duplicate_groups

# ---------------------------------------------------------------- the sentence and its scramble
SENTENCE = "The cat chased the mouse"
QUERY_WORD = "chased"  # the query the chapter follows: "(3) chased"
KEY_WORD = "cat"  # the key word the demos pair with it
SWAP = ("cat", "mouse")  # the two words the scramble swaps
COPY_WORD = "the"  # the word fetched twice

# The opening paradox: the earlier chapters' figures (from a model that already had positions) gave the two
# copies of "the" these weights from the query "chased". The app does not reproduce them; it quotes them.
FIGURE_WEIGHTS = (0.04, 0.06)

# ---------------------------------------------------------------- obvious fixes that fail
CONTENT_D = 64  # "a 64-dimensional model has content scores around √64 = 8"
RAW_POSITION = 500  # "a word at position 500 contributes a term of order 500"
LENGTH_EXAMPLE = (3, 5, 100)  # the third word: 3/5 = 0.6 in five words, 3/100 = 0.03 in a hundred
MULTIPLY_POSITIONS = (1, 50)  # "mouse at position 50 fifty times louder than mouse at position 1"
MULTIPLY_WORD = "mouse"  # the word the multiply fix follows

# ---------------------------------------------------------------- a learned table
N_MAX = 1024  # "a model built for 1024 tokens … has nothing to look up" at N_MAX + 1

# ---------------------------------------------------------------- binary codes
BINARY_NEIGHBOURS = (7, 8)  # neighbours that differ in every bit
BINARY_FAR = (0, 8)  # eight steps apart, one bit different

# ---------------------------------------------------------------- sinusoids and RoPE
BASE = 10000.0  # ω_i = BASE^(−2i/d)
SHIFT = 3  # "moving three steps is the same small rotation whether it starts at word 7, 37 or 3997"
PAIRS: tuple[tuple[int, int], ...] = ((10, 7), (40, 37), (4000, 3997))  # (query m, key n): same gap −3
HUGE_POSITION = 5_000_000  # "the vector for position 5, or 5,000,000, is computed on demand"


# ---------------------------------------------------------------- picks on any sentence (0-based indices)
def query_index(tokens: list[str]) -> int:
    """The query word, 0-based: "chased" when the sentence has it; otherwise a word that occurs once,
    preferring one between the first two copies of a repeated word, then the 3rd word, then any; else the
    first word. (On the chapter's sentence: 2, i.e. position (3).)"""
    if QUERY_WORD in tokens:
        return tokens.index(QUERY_WORD)
    n = len(tokens)
    groups = duplicate_groups(tokens)
    repeated = {i for ix in groups.values() for i in ix}
    candidates: list[int] = []
    if groups:
        first = next(iter(groups.values()))
        candidates += range(first[0] + 1, first[1])
    candidates += [min(2, n - 1), *range(n)]
    return next((i for i in candidates if 0 <= i < n and i not in repeated), 0)


def key_index(tokens: list[str]) -> int:
    """The key word, 0-based: "cat" when present, else the first word that is not the query."""
    if KEY_WORD in tokens:
        return tokens.index(KEY_WORD)
    q = query_index(tokens)
    return 0 if q != 0 or len(tokens) < 2 else 1


def copies(tokens: list[str]) -> list[int]:
    """The copies the chapter's paradox is about, 0-based: every "the" when the sentence repeats it, otherwise
    the first repeated word's copies; [] when no word repeats."""
    groups = duplicate_groups(tokens)
    if COPY_WORD in groups:
        return groups[COPY_WORD]
    return next(iter(groups.values()), [])


def query_seeing(tokens: list[str], targets: list[int], causal: bool) -> int | None:
    """A query (0-based) that may read every index in ``targets``: the chapter's query when it can; with the
    causal mask, the first word at or after the last target (a word reads itself and what comes before it).
    None when ``targets`` is empty."""
    if not targets:
        return None
    q = query_index(tokens)
    if not causal or q >= max(targets):
        return q
    return max(targets)


def swap_words(tokens: list[str]) -> tuple[int, int]:
    """The two words the scramble swaps, 0-based: "cat" and "mouse" when both are there; otherwise the 2nd
    and the last word (the first two that differ, for a sentence of one repeated word: (0, 0) if none)."""
    a, b = SWAP
    if a in tokens and b in tokens:
        return tokens.index(a), tokens.index(b)
    n = len(tokens)
    i, j = (1, n - 1) if n > 2 else (0, n - 1)
    if tokens[i] == tokens[j]:
        pair = next(((x, y) for x in range(n) for y in range(x + 1, n) if tokens[x] != tokens[y]), None)
        return pair or (0, 0)
    return i, j


def multiply_index(tokens: list[str]) -> int:
    """The word the multiply fix follows, 0-based: "mouse" when the sentence has it, otherwise the last word."""
    return tokens.index(MULTIPLY_WORD) if MULTIPLY_WORD in tokens else len(tokens) - 1

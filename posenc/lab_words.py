"""The lab page's sentences, each computed from a record's numbers (or conditioned on them); numpy only.

The page (lessons/lab.py) keeps the narrative — question, key chart, answer, a little prose — and takes every
sentence that states a number from here, so each one is true at every setting the page can reach. Positions
are 1-based in these sentences, as the page counts.
"""

from __future__ import annotations

import math

import numpy as np

from .core import listing
from .encodings import frequencies
from .lab import BASE, FLAT, LEARNS, MOVES, SCHEMES, STILL_WORKS, Reading, Settings, gaps_move

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
PAPERS = {
    "press": "[Press et al. 2022](https://arxiv.org/abs/2108.12409)",
    "haviv": "[Haviv et al. 2022](https://arxiv.org/abs/2203.16634)",
    "kazemnejad": "[Kazemnejad et al. 2023](https://arxiv.org/abs/2305.19466)",
    "olsson": "[Olsson et al. 2022](https://arxiv.org/abs/2209.11895)",
}


def pct(x: float | None) -> str:
    return "no row" if x is None else f"{100 * x:.0f} %"


def spread(t: tuple[float, float, float] | None) -> str:
    """“mean (lowest–highest)” in whole percent; the mean alone when the seeds agree to the percent."""
    if t is None:
        return "no row"
    return f"{pct(t[0])} ({pct(t[1])}–{pct(t[2])})" if round(100 * t[1]) != round(100 * t[2]) else pct(t[0])


def r2(x: float) -> str:
    return f"{x:.2f}".replace("-", "−")


def letters(seq) -> list[str]:
    """Tokens as letters, “—” where there is nothing to predict (−1)."""
    return ["—" if t < 0 else LETTERS[t] for t in seq]


def task_line(s: Settings) -> str:
    """The task and the model, in two short sentences."""
    task = {"copy": f"name the token {s.k} place{'s' if s.k > 1 else ''} back (*copy*)",
            "first": "name the sequence's first token (*first*)",
            "induction": "when the current token appeared before, name the one that followed it then "
                         "(*induction*: … A B … A → B)"}[s.task]
    extra = [x for x, on in (("a start token", s.bos), ("an MLP", s.mlp)) if on]
    model = (f"{s.n_layers} layer{'s' if s.n_layers > 1 else ''} of causal attention, "
             f"{'one head' if s.heads == 1 else f'{s.heads} heads'}" + (f", {listing(extra)}" if extra else ", nothing else"))
    note = {"first": " It needs position 1 only — under the causal mask the only query that reads nothing but "
                     "itself, for every scheme — so it favours `none` by construction.",
            "induction": f" It is what {PAPERS['olsson']} call an induction head's job.", "copy": ""}[s.task]
    return (f"**Task:** at each position, {task}; random tokens from {s.vocab}.{note} **Model:** {model}, the same "
            f"for every scheme; trained on {s.L_train} tokens for {s.steps:,} steps, tested up to {4 * s.L_train}.")


def reading_words(r: Reading, s: Settings) -> str:
    """What one scheme did, after its name: “did not learn the task (…)”, “learned it and still works: …”."""
    L = s.L_train
    if not r.learned:
        return (f"did not learn the task ({pct(r.at_L[0])} right at length {L}"
                + ("" if r.converged else ", its loss still falling") + ")")
    if r.still_works:
        return f"learned it and still works: {spread(r.past_4L)} past position {L}"
    if r.past_4L is None:
        return f"learned it ({pct(r.at_L[0])} at {L}) but has no row past position {s.n_max}"
    return f"learned it ({pct(r.at_L[0])} at {L}) but fails past it: {spread(r.past_4L)}"


# What the papers found of each scheme past the training length: the lab's checks put each finding to this small
# model. Press et al. trained language models on short inputs and read them on long ones (ALiBi kept its
# perplexity, sinusoids and rotary did not); Kazemnejad et al. found no encoding generalizing best on small
# algorithmic tasks. A learned table's rows past the training length are never trained (the page's own reason).
PAST_L = {"none": (True, PAPERS["kazemnejad"]), "learned": (False, "its rows there are never trained"),
          "sinusoidal": (False, PAPERS["press"]), "rope": (False, PAPERS["press"]), "alibi": (True, PAPERS["press"])}
LEARNS_FROM = {"none": f"{PAPERS['haviv']}: causal models with no encoding still learn position"}


def claims(rs: dict[str, Reading], s: Settings, n_seeds: int) -> list[tuple[str, bool, str]]:
    """The lab's checks, as (claim, holds, measured): each scheme learns the task (for `none`, Haviv et al.'s
    finding), then, once it has, what the papers found of it past the training length (PAST_L)."""
    L, out = s.L_train, []
    for x in SCHEMES:
        r = rs[x]
        why = f" ({LEARNS_FROM[x]})" if x in LEARNS_FROM else ""
        out.append((f"`{x}` learned the task{why}", r.learned,
                    f"{spread(r.at_L)} right at length {L} over {n_seeds} seeds (needs a mean ≥ {pct(LEARNS)}); the "
                    f"mean loss fell {r.drop:.4f} over the last tenth of the steps (flat: ≤ {FLAT})"))
        if not r.learned:  # a scheme that did not learn is never asked about longer inputs
            continue
        works, source = PAST_L[x]
        claim = (f"`{x}` still works past the training length ({source})" if works else
                 f"`{x}` fails past the training length, below {pct(STILL_WORKS)} ({source})")
        out.append((claim, r.still_works == works,
                    f"{spread(r.past_4L)} right on positions {L + 1}–{4 * L} of {4 * L}-token sequences (works: a "
                    f"mean ≥ {pct(STILL_WORKS)})" if r.past_4L is not None else
                    f"no row past position {s.n_max}: positions {s.n_max + 1}–{4 * L} cannot be read"))
    return out


def best(rs: dict[str, Reading]) -> str:
    """The scheme right most often past L_train at 4 × L_train (of those with a row there)."""
    return max((x for x in SCHEMES if rs[x].past_4L is not None), key=lambda x: rs[x].past_4L[0])


def answer(rs: dict[str, Reading], s: Settings, n_seeds: int) -> str:
    """The Predict's answer: the best scheme, then every scheme read honestly, then what the task adds."""
    L, top = s.L_train, best(rs)
    works = [x for x in SCHEMES if rs[x].still_works]
    not_learned = [x for x in SCHEMES if not rs[x].learned]
    text = (f"**{top}**, with {spread(rs[top].past_4L)} right past position {L} at {4 * L} tokens (mean, lowest–"
            f"highest of {n_seeds} seeds). Read honestly: "
            + "; ".join(f"**{x}** {reading_words(rs[x], s)}" for x in SCHEMES)
            + f". A scheme counts only once it has learned the task — at least {pct(LEARNS)} right at the training "
              f"length, with its loss flat — and then it still works if it gets at least {pct(STILL_WORKS)} of the "
              f"positions past {L} right. "
            + (f"Here {listing(works)} still work{'s' if len(works) == 1 else ''}" if works else
               "Here no scheme still works past the training length")
            + (f"; {listing(not_learned)} did not learn the task in {s.steps:,} steps. " if not_learned else
               "; every scheme learned the task. "))
    if s.task == "first":
        text += f"As the task says, it favours `none`: `none` gets {spread(rs['none'].past_4L)} past position {L}."
    elif s.task == "induction":
        strongest = max(SCHEMES, key=lambda x: rs[x].at_L[0])
        text += (f"{PAPERS['olsson']} traced this recall to an *induction head*: one layer writes each token's "
                 "predecessor into it, the next looks for the earlier token whose predecessor matches. "
                 + ("That needs two attention layers; with one, the best scheme here" if s.n_layers == 1 else
                    "Two layers allow that circuit; the best scheme at the training length")
                 + f", {strongest}, reaches {pct(rs[strongest].at_L[0])}.")
    return text


def papers(rs: dict[str, Reading], s: Settings, variant: tuple[Reading, Settings, int] | None) -> str:
    """What the papers found, beside what this small model did; ``variant``: `none`'s reading with a start token
    and an MLP (precomputed), its settings and its seed count, when there is one."""
    text = (f"{PAPERS['kazemnejad']} found that models with no position encoding generalized to longer inputs "
            "better than explicit encodings on small algorithmic tasks (trained up to 20 tokens, tested up to 40); "
            "their models have MLPs and a start token. ")
    here = reading_words(rs["none"], s)
    if s.bos and s.mlp:
        text += f"With both switched on here, `none` {here}."
    elif variant is not None:
        r, vs, n = variant
        text += f"With both (precomputed, {n} seeds) `none` {reading_words(r, vs)}; without, {here}."
    else:
        text += f"This model has neither: `none` {here}."
    return (text + f" {PAPERS['press']} found ALiBi language models trained on short inputs kept their perplexity "
            f"on much longer ones; here `alibi` {reading_words(rs['alibi'], s)}.")


def why(record: dict, rs: dict[str, Reading], s: Settings, leak: tuple[float, float]) -> tuple[str, str]:
    """Why each one fails: (the learned table's sentence, `none`'s paragraph); RoPE's is the answer of
    ``gaps_question``."""
    L = s.L_train
    by_pos = np.array([[np.nan if v is None else v for v in run["by_position"]]
                       for run in record["runs"]["learned"]], float).mean(axis=0)
    inside, unreached = float(np.nanmean(by_pos[1:L])), float(np.nanmean(by_pos[L:s.n_max]))
    learned = (f"**Learned** positions: training reached rows 1–{L} of the table only; rows {L + 1}–{s.n_max} kept "
               f"their random start ({pct(inside)} right on positions 2–{L}, {pct(unreached)} on {L + 1}–{s.n_max}), "
               f"and past {s.n_max} there is no row at all.")
    with_mask, without = leak
    none = ("**No positions** (`none`) still has the causal mask, and the mask leaks position: query i averages "
            "i tokens, and an average of many random vectors is shorter than one of few. A read-out of layer 1 in "
            f"an *untrained* model recovers log-position with R² = {r2(with_mask)} with the mask, {r2(without)} "
            f"without; trained, R² = {r2(rs['none'].probe[0])}. {PAPERS['haviv']} found the same in causal "
            "language models with no position encoding: they still learn position.")
    return learned, none


def gaps_question(s: Settings) -> tuple[str, list[str]]:
    """The question of “Why each one fails” and its options, in the order of ``gaps_answer``'s index: what keys
    limited to the gaps seen in training do to `rope` past L_train (rises, moves less than MOVES, falls)."""
    L, p = s.L_train, f"{100 * MOVES:.0f}"
    return (f"Keys limited to the gaps seen in training (≤ {L - 1} back): what does `rope`'s accuracy past "
            f"position {L} do at {4 * L} tokens?",
            [f"It rises by {p} points or more", f"It moves by less than {p} points", f"It falls by {p} points or more"])


def gaps_answer(rs: dict[str, Reading], s: Settings, n_seeds: int) -> tuple[int, str, str]:
    """(the right option of ``gaps_question``, the answer with its numbers, the why: RoPE's angles)."""
    L = s.L_train
    rope, sin = rs["rope"], rs["sinusoidal"]
    move = gaps_move(rope)
    w = frequencies(s.d_model // s.heads, BASE)
    seen, at_4 = (L - 1) * w, (4 * L - 1) * w
    short = int(np.sum(seen < 2 * math.pi))
    rescued = rope.seen_gaps_past[0] - rope.past_4L[0] >= 0.2 and gaps_move(sin) != 1  # sinusoids: < MOVES up
    answer = (f"`rope` goes from {spread(rope.past_4L)} to {spread(rope.seen_gaps_past)} right past position {L} "
              f"(mean, lowest–highest of {n_seeds} seeds; the box under the bars), sinusoids from "
              f"{spread(sin.past_4L)} to {spread(sin.seen_gaps_past)}."
              + (" The restriction rescues RoPE and not sinusoids: RoPE fails on gaps it never saw, sinusoids on "
                 "positions they never saw." if rescued else "")
              + (f" Here the answer itself is out of reach: position 1 is more than {L - 1} places back from every "
                 f"query past {L}." if move == -1 and s.task == "first" else ""))
    then = (f"**RoPE** scores depend on the gap alone, but no query in training looked {L} or more back: {short} of "
            f"its {len(seen)} pairs never turned a full circle (see *Deeper: RoPE's angles*; pair 2: {seen[1]:.1f} rad "
            f"in training, {at_4[1]:.1f} at 4 ×).")
    return 1 - move, answer, then


def curves(rs: dict[str, Reading]) -> str:
    """Which training curves are flat over the last tenth of the steps, and which still fall."""
    flat = [x for x in SCHEMES if rs[x].converged]
    moving = [x for x in SCHEMES if not rs[x].converged]
    return (f"Over the last tenth of the steps the mean loss of {listing(flat) if flat else 'no scheme'} fell by at "
            f"most {FLAT} (flat)"
            + (f"; {listing(moving)} still fell by more — more steps could still change "
               f"{'its' if len(moving) == 1 else 'their'} reading." if moving else ".")
            + " A low training loss says nothing yet about longer sequences.")

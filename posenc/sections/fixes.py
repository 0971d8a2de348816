"""The sections of “Obvious fixes that fail” (lessons/fixes.py): each one's numbers, claims and figures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import core
from ..charts import fixes as fc
from ..fixes import (
    COS_TOL,
    DECIDES,
    DWARFS,
    FIXES,
    LONG,
    REL_TOL,
    SHORT,
    Multiply,
    OneHot,
    Ratio,
    RawIndex,
    RawTerm,
    Verdict,
    fixes_inputs,
    index_over_length,
    index_scores,
    multiply_code,
    multiply_demo,
    one_hot,
    one_hot_demo,
    position_share,
    rank_correlation,
    ratio_demo,
    raw_index_demo,
    raw_term,
    summary,
    wish_bounded,
    wish_neighbours,
    wish_past,
    wish_same_meaning,
    wish_unique,
)

# The posenc functions the page runs, for its “Show the code”.
CODE = (raw_term, raw_index_demo, index_scores, rank_correlation, position_share, ratio_demo, index_over_length,
        multiply_demo, multiply_code, one_hot_demo, one_hot, summary, wish_unique, wish_bounded, wish_same_meaning,
        wish_neighbours, wish_past)


@dataclass(frozen=True)
class RawView:
    """Section 1: the raw index appended, at one start."""

    term: RawTerm
    raw: RawIndex
    figs: dict[str, Any]  # "coord", "terms", "weights", "sweep"
    readout: Any  # the ρ / R² table, with and without the index
    n: int  # words in the sentence

    @property
    def coordinate_dwarfs(self) -> bool:
        """The index coordinate is at least DWARFS times the words' own coordinates."""
        return self.term.position >= DWARFS * self.term.content_coordinate

    @property
    def one_dwarfs(self) -> bool:
        """The index meeting one ordinary query coordinate already outweighs the content scores."""
        return self.term.one_side >= DWARFS * self.term.content_score

    @property
    def both_dwarf(self) -> bool:
        """The index passed into both q and k (p·p) outweighs the content scores."""
        return self.term.both_sides >= DWARFS * self.term.content_score

    @property
    def position_decides(self) -> bool:
        return self.raw.share_with > DECIDES

    @property
    def everywhere(self) -> bool:
        """Every query puts its largest weight on the last word."""
        return self.raw.last_wins == self.n

    def words_fare(self) -> str:
        """How the words' own scores fare against the index's terms, in one sentence that follows the numbers."""
        t, start = self.term, self.term.position
        if self.one_dwarfs:
            return ("Either way the words cannot compete: the index's term alone is "
                    f"{t.one_side / t.content_score:,.0f} times their spread.")
        if self.both_dwarf:
            return (f"At position {start:,} the index meeting an ordinary query coordinate is still about the size "
                    f"of the content scores ({t.one_side:,.3g} against {t.content_score:.3g}); passed into both q "
                    f"and k it is already {t.both_sides / t.content_score:,.0f} times their spread.")
        return (f"At position {start:,} the index's terms ({t.one_side:,.3g} and {t.both_sides:,.3g}) are less "
                f"than {DWARFS:g} times the words' spread ({t.content_score:.3g}): here the words still have a say. "
                "Drag the start deeper, under the map, and they lose it.")


def raw_index(sentence: str, d: int, seed: int, start: int) -> RawView:
    inp = fixes_inputs(core.tokenize(sentence), d, seed)
    term, raw = raw_term(inp.X, inp.W, start), raw_index_demo(inp.X, inp.W, start)
    figs = {
        "coord": fc.coordinate_bars(inp.X[0], start, inp.tokens[0]),
        "terms": fc.score_terms(term.content_score, term.one_side, term.both_sides, start, term.d),
        "weights": fc.weights_heatmap(raw.content, inp.tokens, term.d, raw.weights_without, raw.weights_with,
                                      opening=start),  # the start moves in the browser: only the reading names it
        "sweep": fc.share_sweep(raw.sweep_starts, raw.sweep_rho, raw.sweep_share, start),
    }
    readout = fc.raw_readout(raw.rho_without, raw.rho_with, raw.share_without, raw.share_with, raw.last_wins,
                             len(inp.tokens))
    return RawView(term, raw, figs, readout, len(inp.tokens))


def ratio(sentence: str, length: int) -> tuple[Ratio, Any, Any]:
    """Tab 2: index ÷ length in the sentence against one ``length`` words long (the length the strip opens at;
    its slider moves it in the browser): the numbers at that length, the strip and the 1/N curve."""
    words = core.tokenize(sentence)
    r = ratio_demo(len(words), length)
    curve = ratio_demo(len(words), fc.LENGTHS[1])  # the 1/N curve over every length the slider reaches
    return r, fc.ratio_strip(words, r.tracked, opening=length), \
        fc.previous_gap_chart(curve.lengths, curve.previous_gap, r.n)


@dataclass(frozen=True)
class MultiplyView:
    """Tab 3: the key word scaled by its position m."""

    m: Multiply
    lines: Any
    table: Any

    @property
    def louder(self) -> bool:
        """‖m·x‖ = m‖x‖, to float64 rounding."""
        return abs(self.m.norm_at_m / self.m.norm_at_1 - self.m.position) <= REL_TOL * self.m.position

    @property
    def scaled(self) -> bool:
        """Every score with the key word is m times its score at position 1."""
        m = self.m
        return m.score_ratio_error <= REL_TOL * max(1.0, m.position) * float(abs(m.scores_at_1).max())

    @property
    def same_angle(self) -> bool:
        return self.m.cos_error < COS_TOL


def multiply(sentence: str, d: int, seed: int, position: int) -> MultiplyView:
    inp = fixes_inputs(core.tokenize(sentence), d, seed)
    m = multiply_demo(inp.X, inp.W, inp.word, inp.query, position)
    return MultiplyView(m, fc.multiply_lines(m.scores_at_1, inp.tokens, m.query_index, opening=m.position),
                        fc.multiply_table(inp.tokens, m.scores_at_1, m.scores_at_m, m.cos_at_1, m.cos_at_m,
                                          m.position))


def onehot(sentence: str, width: int, past: int) -> tuple[OneHot, Any]:
    """Tab 4: the one-hot table of ``width`` columns, position ``past`` asked for (the N and p the chart opens at;
    its sliders move them in the browser): the numbers there, and the chart."""
    words = core.tokenize(sentence)
    oh = one_hot_demo(len(words), width, past)
    return oh, fc.onehot_figure(words, oh)


def names(items: list[str]) -> str:
    """Fix names in a sentence: “a, b”, or “none”."""
    return ", ".join(items) if items else "none"


@dataclass(frozen=True)
class SummaryView:
    """Tab 5: every fix against every wish, tested on the sentence's key word at the chapter's lengths."""

    verdicts: list[Verdict]
    table: Any  # the full table, one column per fix

    @property
    def wishes(self) -> dict[str, list[str]]:
        """The short table: each wish, the fixes that meet it and those that break it (named, or "none")."""
        wishes = list(dict.fromkeys(v.wish for v in self.verdicts))
        return {"wish": wishes,
                "met by": [names([v.fix for v in self.verdicts if v.wish == w and v.passed]) for w in wishes],
                "broken by": [names([v.fix for v in self.verdicts if v.wish == w and not v.passed]) for w in wishes]}

    @property
    def unbroken(self) -> list[str]:
        """The fixes that meet every wish here."""
        return [f for f in FIXES if all(v.passed for v in self.verdicts if v.fix == f)]


def wishes(sentence: str, d: int, seed: int) -> SummaryView:
    inp = fixes_inputs(core.tokenize(sentence), d, seed)
    verdicts = summary(inp.X[inp.word], SHORT, LONG)
    return SummaryView(verdicts, fc.summary_frame(verdicts, SHORT, LONG))

import streamlit as st

import frame
import posenc
from frame import shared
from posenc import chapter
from posenc.charts import rope as rc
from posenc.core import rounding_size as small
from posenc.core import signed
from posenc.encodings import MAX_POSITION, rope, rope_score
from posenc.rope_demo import (
    NORM_TOL,
    WINDOW,
    diagonal_spread,
    half_split_permutation,
    length_demo,
    rope_demo,
    rope_half,
    row_spread,
    score_window,
)

PATH = "lessons/rope.py"
BASE = f"{chapter.BASE:g}"


@frame.cached
def window_data(sentence: str, qi: int, ki: int, d: int, seed: int, start: int):
    w = score_window(posenc.tokenize(sentence), qi, ki, d, seed, start)
    return w, rc.score_window(w.positions, w.rope_scores, w.additive_scores,
                              spreads=(w.rope_diag_spread, w.rope_row_spread, w.additive_diag_spread))


@frame.cached
def pair_data(sentence: str, qi: int, ki: int, d: int, seed: int, n: int, gap: int, fraction: float):
    """At the circle chart's opening n, gap and pair (the question, the reading and the checks speak of it)."""
    r = rope_demo(posenc.tokenize(sentence), qi, ki, d, seed, n - gap, n)
    pair = rc.pair_index(fraction, len(r.thetas))
    return r, pair, rc.pair_circles(r.thetas, r.q_pairs, r.k_pairs, n=n, gap=gap, score=r.score, pair=fraction)


def opening() -> tuple[int, int, float]:
    """The key position n, the gap n − m and the pair (a fraction) the circle chart opens at (a link may carry
    them; ``frame.live.opening``)."""
    at = frame.live.opening(rc.circles_spec())
    return int(at[rc.KEY_POSITION]), int(at[rc.GAP]), float(at[rc.PAIR])


@frame.cached
def length_data(sentence: str, qi: int, d: int, seed: int, m: int):
    """At the m the lengths chart opens at (a link's): the answer, the checks and the aside speak of it."""
    L = length_demo(posenc.tokenize(sentence), qi, d, seed, m)
    return L, rc.lengths(L.positions, L.rope_norms, L.raw_norms, L.thetas, L.q_pairs, L.x_norm, opening=m,
                         turned=L.rotated_q_norm, raw=L.raw_norm)


with frame.page(PATH, "Turn q and k by their positions just before they meet: what is left of the two "
                      "positions in their score?"):
    ex = frame.example()
    tokens = frame.tokens_or_stop(ex.sentence)
    frame.require(ex.d % 2 == 0, f"The sidebar's d = {ex.d} is odd: RoPE turns the coordinates in pairs, so d "
                                 "must be even. Pick an even d in the sidebar.")
    qi, ki = shared.words(tokens, "rp", query_help="Its q = x W_Q.", key_help="Its k = x W_K.",
                          where=frame.sidebar_slot())  # every section reads them, as it reads the sentence

    @frame.section(None)
    def key_chart():
        q = frame.predict(
            "Each cell is the RoPE score of the query word at position m and the key word at n. Which cells all "
            "share one colour?",
            ["Each row (one m)", "Each column (one n)", "Each diagonal (one gap n − m)", "No two cells"], 2,
            key="rp_predict")
        left, right = st.columns([3, 2])
        with right:
            start = int(frame.number("Window starts at position", "rp_start", 0, MAX_POSITION - WINDOW + 1, 1,
                                     help=f"Query and key positions from here on, {WINDOW} of each. "
                                          "Try 1,000,000."))
        w, fig = window_data(ex.sentence, qi, ki, ex.d, ex.seed, start)
        with left:
            frame.chart(fig)
        holds = w.rope_diag_spread < w.tol
        frame.verdict("RoPE's score is the same all along every diagonal — the gap n − m alone sets it, as the "
                      "chapter predicts", holds,
                      f"largest change along a diagonal {w.rope_diag_spread:.1e} (tolerance {w.tol:.0e}); along "
                      f"a row it changes by up to {w.rope_row_spread:.2f}")
        sinus = (f"Pick “adding sinusoids” in the chart, the previous page's scheme: its score changes by up to "
                 f"{w.additive_diag_spread:.2f} along a diagonal, because it also depends on where the words sit."
                 if w.additive_diag_spread > w.tol else
                 "Pick “adding sinusoids” in the chart: here its diagonals do not change either.")
        with right:
            q.answer((f"Along each diagonal the score changes by at most {small(w.rope_diag_spread)} — rounding — "
                      f"while along a row it changes by up to {w.rope_row_spread:.2f}: the score depends on the "
                      "gap n − m alone. " if holds else
                      f"Here the score changes by up to {w.rope_diag_spread:.1e} along a diagonal: more than "
                      "rounding, see Checks. ") + sinus,
                     then=f"The {frame.term('query')} q and the {frame.term('key')} k come from the words, through "
                          f"$W_Q$ and $W_K$; only then is q turned by $m$ and k by $n$. Their dot product, the "
                          f"{frame.term('score')}, meets the positions only through $R_m^\\top R_n = R_{{n-m}}$: "
                          "two turns undone down to one, by the gap.")
        with frame.deeper("the algebra, and interleaved or half-split pairs", key="rp_deep_pairs"):
            frame.formula(
                r"q R_m^\top:\ \text{pair } i \text{ of } q \text{ turned by } m\theta_i,\quad \theta_i = " + BASE
                + r"^{-2i/d}",
                r"\operatorname{score}(m, n) = \frac{(q R_m^\top)\,(k R_n^\top)^\top}{\sqrt d}"
                r" = \frac{q\, R_m^\top R_n\, k^\top}{\sqrt d} = \frac{q\, R_{n-m}\, k^\top}{\sqrt d}")
            half = ex.d // 2
            shown = min(4, half)
            frame.table({
                "pair i (0-based)": list(range(shown)),
                "interleaved (Su et al., Meta's llama)": [f"({2 * i}, {2 * i + 1})" for i in range(shown)],
                "half-split (GPT-NeoX, Hugging Face rotate_half)": [f"({i}, {i + half})" for i in range(shown)],
            })
            frame.verdict("the half-split convention is the interleaved one with the coordinates permuted",
                          w.half_vector_error < NORM_TOL,
                          f"largest difference {small(w.half_vector_error)} over the {WINDOW} window positions")
            frame.verdict("permuting q and k the same way gives the same scores", w.half_score_error < w.tol,
                          f"largest difference {small(w.half_score_error)} over all {WINDOW} × {WINDOW} window "
                          f"scores (tolerance {w.tol:.0e})")
            same = ("the same pairs: at d = 2 there is one pair, (0, 1), in both conventions" if half == 1 else
                    f"other coordinates, so the scores differ (by up to {w.half_unpermuted_gap:.2f} here) — yet "
                    f"each still depends on the gap alone (largest change along a diagonal "
                    f"{small(w.half_unpermuted_diag_spread)})")
            st.markdown(f"Without the permutation the two conventions pair {same}. A model trained with one "
                        "convention works the same with the other once its weights are permuted.")

    @frame.section("Each pair turns on its own circle")
    def circles():
        n0, gap0, fraction = opening()
        q = frame.predict(
            f"Press Play: the key position n sweeps from {n0 if n0 < rc.N_MAX else 0:,} to {rc.N_MAX:,} while "
            f"the gap n − m stays {gap0}, so the query moves with it. What does the score do?",
            ["It grows", "It shrinks", "It swings up and down", "It stays the same"], 3, key="rp_predict_play")
        r, pair, fig = pair_data(ex.sentence, qi, ki, ex.d, ex.seed, n0, gap0, fraction)
        left, right = st.columns([3, 2])
        with left:
            frame.chart(fig, play=rc.KEY_POSITION)
        gap = r.pairs[0][1] - r.pairs[0][0]
        same = r.pair_spread < r.pair_tol
        frame.verdict(f"the chapter's three pairs, each with gap {signed(gap)}, get one score", same,
                      f"they differ by {small(r.pair_spread)} (tolerance {r.pair_tol:.0e})")
        frame.verdict(f"at m = {r.m:,}, n = {r.n:,} the score equals one turn by the gap n − m = {signed(r.n - r.m)}",
                      r.identity_error < r.identity_tol,
                      f"difference {small(r.identity_error)} (tolerance {r.identity_tol:.0e})")
        pairs = ", ".join(f"({a:,}, {b:,})" for a, b in r.pairs)
        slow = rc.pair_index(rc.PAIR_OPEN, len(r.thetas))  # half way: slow enough to follow (rc.pair_index)
        follow = (", slow enough to follow while playing" if pair >= slow else
                  f"; to follow one while playing, pick pair {slow} (θ = {r.thetas[slow]:.2g}) or a slower one")
        fastest = ("the one pair turns by θ₀ = 1 radian per position" if len(r.thetas) == 1 else
                   f"pair 0 turns fastest (θ₀ = 1 radian per position), pair {len(r.thetas) - 1} slowest "
                   f"(θ = {r.thetas[-1]:.2g}); the chart opens on pair {pair} (θ = {r.thetas[pair]:.2g})" + follow)
        with right:
            q.answer(
                (f"The chapter's pairs {pairs} score {r.pair_scores[0]:.6f}, "
                 f"{r.pair_scores[1]:.6f} and {r.pair_scores[2]:.6f}, differing by {small(r.pair_spread)}. " if same
                 else f"At the chapter's pairs {pairs} the scores differ by {r.pair_spread:.1e}: see Checks. ")
                + "When m and n move together, q's pair and k's pair turn by the same angle, so the angle between "
                "them — the readout in the chart — does not move.",
                then=f"Pair $i$ of q turns by $m\\theta_i$ and pair $i$ of k by $n\\theta_i$; {fastest}. The score "
                     "adds up, over the pairs, |q pair| · |k pair| · cos(angle from q to k), and each angle is its "
                     "starting angle plus $(n-m)\\theta_i$. Drag the gap slider: now the angle, and the score, "
                     "change.")

    @frame.section("A rotation keeps every length")
    def lengths():
        ask = frame.predict("RoPE turns the query word's q by m·θ_i in every pair when the word stands at position "
                            "m (set m under the chart). How long is the turned q?",
                            ["Longer, the larger m is", "Exactly as long as q, at every m",
                             "Shorter, the larger m is"], 1, key="rp_length_predict")
        m = int(frame.live.opening(rc.lengths_spec())[rc.LENGTH_M])  # the m the chart opens at (a link's)
        L, fig = length_data(ex.sentence, qi, ex.d, ex.seed, m)
        left, right = st.columns([3, 2])
        with left:
            frame.chart(fig)
        tol = NORM_TOL * max(L.q_norm, 1.0)
        frame.verdict(f"turning q by m = {m:,} keeps its length, as the chapter says a rotation does",
                      L.norm_error < tol, f"‖q R_mᵀ‖ − ‖q‖ = {small(L.norm_error)} (where the chart opened); over "
                                          f"positions 1 … {MAX_POSITION:,} at most {small(L.curve_norm_error)} "
                                          f"(tolerance {tol:.0e})")
        frame.verdict(f"v = x W_V carries no position: the query word's v is the same at position 1 and at {m:,}"
                      + ("" if m > 1 else " (open the chart further along to compare two positions)"),
                      L.v_gap_rope == 0.0, f"largest difference {small(L.v_gap_rope)} (where the chart opened)")
        ratio = L.raw_coordinate / L.x_norm
        with right:
            ask.answer(
                f"Exactly as long: a rotation keeps every length, so ‖q‖ stays {L.q_norm:.3f} at m = {m:,}, where "
                "the chart opens, and at every position, and so does the largest score q and k can make, "
                "‖q‖·‖k‖/√d. Drag m under the chart: RoPE's point stays on its flat line while the raw index's "
                "point climbs with m.",
                f"The raw index, the first of the obvious fixes, writes m into a coordinate of its own: at m = "
                f"{m:,} that coordinate is {ratio:,.1f} times the whole length of the word vector ({L.x_norm:.2f}). "
                f"In the chapter's {chapter.CONTENT_D}-wide model content scores are around √{chapter.CONTENT_D}, "
                f"and a word at position {chapter.RAW_POSITION} adds a term of order {chapter.RAW_POSITION}: the "
                "position drowns the words. RoPE only turns q and k.")
        with frame.deeper("RoPE beside adding sinusoids", key="rp_deep_additive"):
            st.markdown(
                f"Adding sinusoids (the previous page) changes the vector itself: ‖x‖ = {L.x_norm:.6f} becomes "
                f"‖x + PE_m‖ = {L.x_pe_norm:.6f} at m = {m:,}, where the chart opens. The sinusoids stay bounded "
                "(each pair has length 1), so they cannot drown the word either, but they reach v: with "
                "v = (x + PE) W_V the same word's v " + (
                    f"differs by up to {L.v_gap_additive:.4f} between positions 1 and {m:,}." if m > 1 else
                    "moves with its position (open the chart further along to see by how much).")
                + " RoPE turns only q and k: v stays what the word means.")
            frame.formula(r"\text{RoPE: } \operatorname{Attn} = \operatorname{softmax}\!\Big(\frac{q R_{n-m} "
                          r"k^\top}{\sqrt d}\Big)\, v,\quad v = x\,W_V,\quad \lVert q R_m^\top\rVert = \lVert q\rVert")
            st.page_link("lessons/fixes.py", label="Back to the obvious fixes: the raw index drowning the words",
                         icon=":material/arrow_back:")

    frame.show_code(rope, rope_score, score_window, rope_demo, length_demo, diagonal_spread, row_spread, rope_half,
                    half_split_permutation)
    frame.bridge(PATH, "RoPE makes the score depend on the gap alone — for the gaps a model met in training. It "
                 "does not make a model work at every length: the lab and “Stretching the context” show RoPE "
                 "models failing past the training length L_train, and the repairs people use. First, the two "
                 "puzzles the chapter opened with, resolved.")

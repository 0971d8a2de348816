import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts import rope as rc
from posenc.core import rounding_size as small
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

frame.page(PATH, "Turn q and k by their positions after W_Q and W_K: the score then depends on the gap alone.")

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
frame.require(ex.d % 2 == 0, f"The sidebar's d = {ex.d} is odd: RoPE turns the coordinates in pairs, so d must "
                             "be even. Pick an even d in the sidebar.")
st.session_state["_rp_full_run"] = True  # False again at the end of the page: a later run is a section's own


@frame.cached
def window_data(sentence: str, qi: int, ki: int, d: int, seed: int, start: int):
    toks = posenc.tokenize(sentence)
    w = score_window(toks, qi, ki, d, seed, start)
    return w, rc.score_window(w.positions, w.rope_scores, w.additive_scores, query_word=toks[qi], key_word=toks[ki])


@frame.cached
def pair_data(sentence: str, qi: int, ki: int, d: int, seed: int, m: int, n: int):
    r = rope_demo(posenc.tokenize(sentence), qi, ki, d, seed, m, n)
    return r, rc.pair_circles(r.thetas, r.q_pairs, r.k_pairs, r.q_turned, r.k_turned, r.pair_gap_angles, m, n)


@frame.cached
def length_data(sentence: str, qi: int, d: int, seed: int, m: int):
    L = length_demo(posenc.tokenize(sentence), qi, d, seed, m)
    return L, rc.lengths(L.positions, L.rope_norms, L.raw_norms, m)


# ---------------------------------------------------------------- Predict, at its own settings
chapter_tokens = posenc.tokenize(chapter.SENTENCE)
pq, pk = chapter.query_index(chapter_tokens), chapter.key_index(chapter_tokens)
pw, _ = window_data(chapter.SENTENCE, pq, pk, ex.d, ex.seed, 1)
frame.predict(
    f"On the chapter's sentence (d = {ex.d}, seed {ex.seed}), the chart below colours the RoPE score of "
    f"“{chapter.QUERY_WORD}” at query position m against “{chapter.KEY_WORD}” at key position n, for m and n "
    f"from 1 to {WINDOW}. Which cells all share one colour?",
    ["Each row (one m)", "Each column (one n)", "Each diagonal (one gap n − m)", "No two cells: every one differs"],
    2,
    f"Each diagonal. There the score changes by at most {small(pw.rope_diag_spread)} (rounding), while along a row "
    f"it changes by up to {pw.rope_row_spread:.2f}. The score is $q R_{{n-m}} k^\\top/\\sqrt d$: only the gap "
    "n − m is left in it.",
    key="rp_predict",
)

picked: dict[str, int] = {}


# ---------------------------------------------------------------- the key chart
@frame.section("The score depends on the gap alone")
def key_chart():
    left, right = st.columns([3, 2])
    hint = "1 is the first word of the sidebar's sentence."
    with right:
        qi = frame.word_choice("Query word: its place in the sentence", "rp_qw", tokens,
                               chapter.query_index(tokens), f"{hint} Its q = x W_Q.")
        st.text(f"query word: {tokens[qi]}")
        ki = frame.word_choice("Key word: its place in the sentence", "rp_kw", tokens,
                               chapter.key_index(tokens), f"{hint} Its k = x W_K.")
        st.text(f"key word: {tokens[ki]}")
        start = int(frame.number("Window starts at position", "rp_start", 0, MAX_POSITION - WINDOW + 1, 1,
                                 help=f"Query and key positions from here on, {WINDOW} of each. Try 1,000,000."))
    words = (qi, ki)
    if not st.session_state.get("_rp_full_run") and st.session_state.get("_rp_words") != words:
        st.session_state["_rp_words"] = words
        st.rerun()  # the words feed every section below: redraw the page, not only this section
    st.session_state["_rp_words"] = words
    picked.update(qi=qi, ki=ki)

    w, fig = window_data(ex.sentence, qi, ki, ex.d, ex.seed, start)
    with left:
        frame.chart(fig)
    with right:
        frame.verdict("RoPE's score is the same all along every diagonal — the gap n − m alone sets it, as the "
                      "chapter predicts", w.rope_diag_spread < w.tol,
                      f"largest change along a diagonal {w.rope_diag_spread:.1e} (tolerance {w.tol:.0e}); along "
                      f"a row it changes by up to {w.rope_row_spread:.2f}")
    st.markdown(
        f"Pick “adding sinusoids” under the chart, the previous page's scheme: its score changes by up to "
        f"{w.additive_diag_spread:.2f} along a diagonal, because it also depends on where the two words sit. "
        f"With RoPE, the {frame.term('query')} q and the {frame.term('key')} k come from the words (through "
        f"$W_Q$ and $W_K$) and only then are turned by their positions, so the {frame.term('score')} meets the "
        f"positions only through $R_m^\\top R_n = R_{{n-m}}$."
    )
    frame.formula(
        r"q = x_q W_Q,\quad k = x_k W_K \quad \text{(rows, as everywhere)}",
        r"q R_m^\top:\ \text{pair } i \text{ of } q \text{ turned by } m\theta_i,\quad \theta_i = " + BASE
        + r"^{-2i/d}",
        r"\operatorname{score}(m, n) = \frac{(q R_m^\top)\,(k R_n^\top)^\top}{\sqrt d}"
        r" = \frac{q\, R_m^\top R_n\, k^\top}{\sqrt d}",
        r"= \frac{q\, R_{n-m}\, k^\top}{\sqrt d}\qquad (R_m^\top R_n = R_{n-m})",
    )
    with frame.deeper("interleaved or half-split pairs", key="rp_deep_pairs"):
        half = ex.d // 2
        shown = min(4, half)
        frame.table({
            "pair i (0-based)": list(range(shown)),
            "interleaved (Su et al., Meta's llama)": [f"({2 * i}, {2 * i + 1})" for i in range(shown)],
            "half-split (GPT-NeoX, Hugging Face rotate_half)": [f"({i}, {i + half})" for i in range(shown)],
        })
        frame.formula(r"\pi = [0, 2, 4, \dots, d-2,\ 1, 3, \dots, d-1]",
                      r"\operatorname{RoPE_{half}}(x_\pi) = \operatorname{RoPE}(x)_\pi",
                      r"(q R_m^\top)\cdot(k R_n^\top) = \operatorname{RoPE_{half}}(q_\pi, m)\cdot"
                      r"\operatorname{RoPE_{half}}(k_\pi, n)")
        frame.verdict("the half-split convention is the interleaved one with the coordinates permuted",
                      w.half_vector_error < NORM_TOL,
                      f"largest difference {small(w.half_vector_error)} over the {WINDOW} window positions")
        frame.verdict("permuting q and k the same way gives the same scores", w.half_score_error < w.tol,
                      f"largest difference {small(w.half_score_error)} over all {WINDOW} × {WINDOW} window scores "
                      f"(tolerance {w.tol:.0e})")
        st.markdown(
            f"Without the permutation the two conventions pair other coordinates, so the scores differ (by up to "
            f"{w.half_unpermuted_gap:.2f} here) — yet each still depends on the gap alone (largest change along a "
            f"diagonal {w.half_unpermuted_diag_spread:.0e}). A model trained with one convention works the same "
            "with the other once its weights are permuted."
        )


# ---------------------------------------------------------------- the pairs, on their circles
def set_positions(m: int, n: int) -> None:
    st.session_state["rp_m"] = m
    st.session_state["rp_n"] = n


@frame.section("Each pair turns on its own circle")
def circles():
    c1, c2, c3 = st.columns([1, 1, 2], vertical_alignment="bottom")
    with c1:
        m = int(frame.number("Query position m", "rp_m", 0, MAX_POSITION, chapter.PAIRS[0][0],
                             help=f"Where the query word sits: any whole number up to {MAX_POSITION:,}."))
    with c2:
        n = int(frame.number("Key position n", "rp_n", 0, MAX_POSITION, chapter.PAIRS[0][1],
                             help=f"Where the key word sits: any whole number up to {MAX_POSITION:,}."))
    with c3:
        st.caption("The chapter's pairs (same gap, far apart):")
        for col, (pm, pn) in zip(st.columns(len(chapter.PAIRS)), chapter.PAIRS):
            col.button(f"{pm:,} and {pn:,}", on_click=set_positions, args=(pm, pn), width="stretch",
                       key=f"rp_preset_{pm}_{pn}", help=f"m = {pm:,}, n = {pn:,}")
    r, fig = pair_data(ex.sentence, picked["qi"], picked["ki"], ex.d, ex.seed, m, n)
    left, right = st.columns([3, 2])
    with left:
        frame.chart(fig)
    with right:
        rows = [(a, b, s_) for (a, b), s_ in zip(r.pairs, r.pair_scores)]
        if (m, n) not in r.pairs:
            rows.append((m, n, r.score))
        frame.table({
            "m": [a for a, _, _ in rows],
            "n": [b for _, b, _ in rows],
            "n − m": [b - a for a, b, _ in rows],
            "score": [s_ for _, _, s_ in rows],
            "pair": ["chapter's" if (a, b) in r.pairs else "yours" for a, b, _ in rows],
        }, column_config={"score": st.column_config.NumberColumn(format="%.10f"),
                          "m": st.column_config.NumberColumn(help="query position"),
                          "n": st.column_config.NumberColumn(help="key position")})
        gap = r.pairs[0][1] - r.pairs[0][0]
        frame.verdict(f"the chapter's three pairs, each with gap {gap}, get one score", r.pair_spread < r.pair_tol,
                      f"they differ by {small(r.pair_spread)} (tolerance {r.pair_tol:.0e})")
        frame.verdict(f"at m = {m:,}, n = {n:,} the score equals one turn by the gap n − m = {n - m:,}",
                      r.identity_error < r.identity_tol,
                      f"difference {small(r.identity_error)} (tolerance {r.identity_tol:.0e})")
    st.markdown(
        "Pair $i$ of q turns by $m\\theta_i$ and pair $i$ of k by $n\\theta_i$ (the slider under the chart picks "
        "$i$, fast pairs first). The score adds up, over the pairs, |q pair| · |k pair| · cos(angle between them), "
        "and each angle from q to k is its starting angle plus $(n-m)\\theta_i$ — hover a point to read it — so "
        "it depends on the gap, not on m or n."
    )


# ---------------------------------------------------------------- lengths
@frame.section("A rotation keeps every length")
def lengths():
    c1, _ = st.columns([1, 2])
    with c1:
        m = int(frame.number("Position m of the query word", "rp_p", 1, MAX_POSITION, chapter.RAW_POSITION,
                             help=f"Any whole number up to {MAX_POSITION:,}."))
    L, fig = length_data(ex.sentence, picked["qi"], ex.d, ex.seed, m)
    a, b, c, d_ = st.columns(4)
    a.metric("‖q‖", f"{L.q_norm:.6f}", border=True, help="q = x W_Q, no position in it.")
    b.metric("‖q R_mᵀ‖", f"{L.rotated_q_norm:.6f}", border=True, help=f"q turned by m = {m:,}.")
    c.metric("raw index", f"{L.raw_coordinate:,}", border=True,
             help=f"The raw index's extra coordinate at m = {m:,}: m itself.")
    d_.metric("‖[x ; m]‖", f"{L.raw_norm:,.2f}", border=True,
              help=f"The word vector (‖x‖ = {L.x_norm:.2f}) with the raw index m = {m:,} appended.")
    frame.chart(fig)
    tol = NORM_TOL * max(L.q_norm, 1.0)
    frame.verdict(f"turning q by m = {m:,} keeps its length, as the chapter says a rotation does",
                  L.norm_error < tol, f"‖q R_mᵀ‖ − ‖q‖ = {small(L.norm_error)}; over positions 1 … {MAX_POSITION:,} "
                                      f"at most {small(L.curve_norm_error)} (tolerance {tol:.0e})")
    st.markdown(
        f"The raw index, the first of the obvious fixes, writes the position into a coordinate of its own: at "
        f"m = {m:,} that coordinate is {L.raw_coordinate:,}, {L.raw_coordinate / L.x_norm:,.1f} times the whole "
        f"length of the word vector ({L.x_norm:.2f}). In the chapter's {chapter.CONTENT_D}-wide model the content "
        f"scores are around √{chapter.CONTENT_D}, and a word at position {chapter.RAW_POSITION} adds a term of "
        f"order {chapter.RAW_POSITION}: the position drowns the words. RoPE only turns q and k, so their lengths — "
        f"and the largest score they can make, ‖q‖·‖k‖/√d — are the same at every position: the positional signal "
        "can never grow loud enough to drown the content."
    )
    st.page_link("lessons/fixes.py", label="Back to the obvious fixes: the raw index drowning the words",
                 icon=":material/arrow_back:")
    frame.verdict(f"v = x W_V carries no position: the query word's v is the same at position 1 and at {m:,}",
                  L.v_gap_rope == 0.0, f"largest difference {small(L.v_gap_rope)}")
    with frame.deeper("RoPE beside adding sinusoids", key="rp_deep_additive"):
        st.markdown(
            f"Adding sinusoids (the previous page) changes the vector itself: ‖x‖ = {L.x_norm:.6f} becomes "
            f"‖x + PE_m‖ = {L.x_pe_norm:.6f} at m = {m:,}. The sinusoids stay bounded (each pair has length 1), "
            f"so they cannot drown the word either, but they do reach v: with v = (x + PE) W_V the same word's v "
            f"differs by up to {L.v_gap_additive:.4f} between positions 1 and {m:,}, so the position leaks into "
            "what attention hands over. RoPE rotates only q and k: v stays what the word means."
        )
        frame.formula(r"\text{additive: } ((x_q + PE_m) W_Q)\,((x_k + PE_n) W_K)^\top",
                      r"= x_q A x_k^\top + x_q A\, PE_n^\top + PE_m A\, x_k^\top + PE_m A\, PE_n^\top,"
                      r"\quad A = W_Q W_K^\top",
                      r"\text{RoPE: } \operatorname{Attn} = \operatorname{softmax}\!\Big(\frac{q R_{n-m} k^\top}"
                      r"{\sqrt d}\Big)\, v,\qquad v = x\,W_V",
                      r"\lVert q R_m^\top\rVert = \lVert q\rVert")


st.session_state["_rp_full_run"] = False

frame.show_code(rope, rope_score, score_window, rope_demo, length_demo, diagonal_spread, row_spread, rope_half,
                half_split_permutation)
frame.bridge(PATH, "RoPE makes the score depend on the gap alone — for the gaps a model met in training. It does not "
             "make a model work at every length: the lab and “Stretching the context” show RoPE models failing past "
             "the training length L_train, and the repairs people use. First, the two puzzles the chapter "
             "opened with, resolved.")

import pandas as pd
import streamlit as st

import frame
import posenc
from posenc.charts import rope as rc
from posenc.charts import sinusoids as sc
from posenc.encodings import MAX_POSITION, rope, rope_score
from posenc.rope_demo import (
    WINDOW,
    additive_qkv,
    diagonal_spread,
    half_split_permutation,
    rope_demo,
    rope_half,
    rope_qkv,
    score_window,
)
from posenc.sinusoid_demo import CHAPTER_PAIRS, angle_tolerance

PATH = "lessons/rope.py"


def set_positions(m: int, n: int) -> None:
    st.session_state["rp_m"] = m
    st.session_state["rp_n"] = n


frame.header(
    "RoPE",
    "Rotate the query and the key: turn q by its position m and k by its position n, and the score "
    "(R_m q)·(R_n k) depends on the gap n − m alone, while lengths and values are left untouched.",
)

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
frame.require(ex.d % 2 == 0, f"The sidebar's d = {ex.d} is odd: RoPE turns the coordinates in pairs, so d must "
                             "be even. Pick an even d in the sidebar.")
qi, ki, (c1, c2) = frame.word_pair(tokens, "rp", "Its q = x W_Q.", "Its k = x W_K.")
with c1:
    m = int(frame.number("Query position m", "rp_m", 0, MAX_POSITION, 10,
                         help=f"Where the query word sits: any whole number up to {MAX_POSITION:,}."))
with c2:
    n = int(frame.number("Key position n", "rp_n", 0, MAX_POSITION, 7,
                         help=f"Where the key word sits: any whole number up to {MAX_POSITION:,}."))
st.caption("The chapter's pairs (same gap, far apart):")
preset_cols = st.columns(len(CHAPTER_PAIRS))
for col, (pm, pn) in zip(preset_cols, CHAPTER_PAIRS):
    col.button(f"m = {pm}, n = {pn}", on_click=set_positions, args=(pm, pn), width="stretch",
               key=f"rp_preset_{pm}_{pn}")


@st.cache_data(max_entries=32, show_spinner=False)
def run(sentence: str, qi: int, ki: int, d: int, seed: int, m: int, n: int):
    return rope_demo(posenc.tokenize(sentence), qi, ki, d, seed, m, n)


@st.cache_data(max_entries=32, show_spinner=False)
def run_window(sentence: str, qi: int, ki: int, d: int, seed: int, start: int):
    return score_window(posenc.tokenize(sentence), qi, ki, d, seed, start)


res = run(ex.sentence, qi, ki, ex.d, ex.seed, m, n)

# ---------------------------------------------------------------- the score depends on the gap
st.subheader("The score depends on the gap alone")
frame.formula(
    r"q = x_q W_Q,\quad k = x_k W_K, \qquad R_p = \operatorname{blockdiag}\Big(\begin{pmatrix}\cos p\theta_i & "
    r"-\sin p\theta_i\\ \sin p\theta_i & \cos p\theta_i\end{pmatrix}\Big)_{i=0}^{d/2-1}, \qquad "
    r"\theta_i = 10000^{-2i/d}",
    r"\operatorname{score}(m, n) = \frac{(R_m q)\cdot(R_n k)}{\sqrt d} = \frac{q^\top R_m^\top R_n\, k}{\sqrt d}"
    r" = \frac{q^\top R_{n-m}\, k}{\sqrt d} \qquad (R_m^\top = R_{-m},\ R_{-m}R_n = R_{n-m})",
)
rows = [(a, b, s_) for (a, b), s_ in zip(res.pairs, res.pair_scores)]
if (m, n) not in res.pairs:
    rows.append((m, n, res.score))
st.dataframe(
    pd.DataFrame({
        "query at m": [a for a, _, _ in rows],
        "key at n": [b for _, b, _ in rows],
        "gap n − m": [b - a for a, b, _ in rows],
        "(R_m q)·(R_n k)/√d": [s_ for _, _, s_ in rows],
        "pair": ["the chapter's" if (a, b) in res.pairs else "yours" for a, b, _ in rows],
    }),
    hide_index=True, width="stretch",
    column_config={"(R_m q)·(R_n k)/√d": st.column_config.NumberColumn(format="%.12f")},
)
tol = angle_tolerance(max(a for a, _ in res.pairs))
frame.check("max − min of the score over the chapter's pairs", res.pair_spread, res.pair_spread < tol,
            "(gap {} each time; < {:.0e})".format(res.pairs[0][1] - res.pairs[0][0], tol))
tol_mn = angle_tolerance(max(m, n))
frame.check(f"|(R_m q)·(R_n k) − q·(R_(n−m) k)| / √d at m = {m:,}, n = {n:,}", res.identity_error,
            res.identity_error < tol_mn,
            "(one rotation by the gap n − m = {:,} gives the same score; < {:.0e})".format(n - m, tol_mn))
st.markdown(
    "q and k come from the words (through $W_Q$ and $W_K$); only then is each turned by its own position. "
    "The score meets the two positions only through $R_m^\\top R_n = R_{n-m}$: move both words by the same "
    "amount and nothing changes."
)

# ---------------------------------------------------------------- window
st.subheader("The score over a window of positions")
w1, w2 = st.columns([2, 1], vertical_alignment="bottom")
with w1:
    start = int(frame.number("Window starts at position", "rp_start", 0, MAX_POSITION - WINDOW + 1, 1,
                             help=f"Query positions and key positions from here on, {WINDOW} of each."))
with w2:
    additive = frame.toggle("Additive sinusoids instead", "rp_add", False,
                            help="((x + PE_m) W_Q)·((x + PE_n) W_K)/√d, the previous page's scheme.")
win = run_window(ex.sentence, qi, ki, ex.d, ex.seed, start)
pos = win.positions
if additive:
    S, spread, name = win.additive_scores, win.additive_diag_spread, "additive: ((x_q+PE_m)W_Q)·((x_k+PE_n)W_K)/√d"
else:
    S, spread, name = win.rope_scores, win.rope_diag_spread, "RoPE: (R_m q)·(R_n k)/√d"
st.altair_chart(sc.position_heatmap(S, pos, pos, row_title="query position m", col_title="key position n",
                                    value_title="score", scheme="blueorange", domain_mid=0.0, width=560, height=520,
                                    title=f"{name}, m and n = {pos[0]:,} … {pos[-1]:,}"), width="content")
tol_w = angle_tolerance(pos[-1])
frame.check("max over diagonals (same n − m) of max − min", spread, spread < tol_w,
            "({} scheme; RoPE {:.1e}, additive {:.2f}; < {:.0e} means constant along every diagonal)".format(
                "additive" if additive else "RoPE", win.rope_diag_spread, win.additive_diag_spread, tol_w))
st.caption("Toggle the scheme: RoPE's stripes run exactly parallel to the diagonal; the additive scheme's "
           "pattern changes along every diagonal, because its score also depends on where the words are.")

# ---------------------------------------------------------------- pairs on circles
st.subheader("Each pair turns on its own circle")
p1, p2 = st.columns([3, 2])
with p1:
    st.altair_chart(rc.pair_circles(res.thetas, res.q_pairs, res.k_pairs, res.q_turned, res.k_turned,
                                    res.pair_gap_angles, m, n, size=440,
                                    title="Pair i of q (turned by m·θ_i) and of k (turned by n·θ_i)"),
                    width="content")
with p2:
    st.markdown(
        "Hollow: the pair before turning. Filled: after. Pair $i$ of q turns by $m\\theta_i$, pair $i$ of k by "
        "$n\\theta_i$; the slider under the chart picks $i$ (fast pairs first)."
    )
    st.markdown(
        "The score is a sum over pairs of |q pair|·|k pair|·cos(angle between them). Each pair's angle "
        "from q to k is its original angle plus $(n-m)\\theta_i$ — hover a point to read it — so it depends "
        "on the gap, not on m or n."
    )

# ---------------------------------------------------------------- lengths and values
st.subheader("Lengths are kept; v is never touched")
a, b, c, dcol = st.columns(4)
a.metric("‖q‖", f"{res.q_norm:.6f}", border=True)
b.metric("‖R_m q‖ (RoPE)", f"{res.rotated_q_norm:.6f}", delta=f"{res.rotated_q_norm - res.q_norm:+.1e}",
         delta_description="change from ‖q‖", delta_arrow="off", delta_color="off", border=True)
c.metric("‖x‖ (the query word)", f"{res.x_norm:.6f}", border=True)
dcol.metric("‖x + PE_m‖ (additive)", f"{res.x_pe_norm:.6f}", delta=f"{res.x_pe_norm - res.x_norm:+.4f}",
            delta_description="change from ‖x‖", delta_arrow="off", delta_color="off", border=True)
st.altair_chart(rc.length_lines(res.norm_positions, res.rope_norms, res.q_norm, res.additive_norms, res.x_norm,
                                title=f"Lengths at positions {res.norm_positions[0]} … {res.norm_positions[-1]}"),
                width="stretch")
frame.check("max(|‖R_m q‖ − ‖q‖|, |‖R_n k‖ − ‖k‖|)", res.norm_error, res.norm_error < 1e-12,
            "(a rotation keeps every length)")
frame.check("max |v(key word at m) − v(key word at n)|, RoPE", res.v_gap_rope, res.v_gap_rope == 0.0,
            "(v = x W_V: no position in it)")
frame.check("same with the additive scheme", f"{res.v_gap_additive:.4f}", res.v_gap_additive == 0.0,
            "(v = (x + PE) W_V carries the position into the output)")
frame.formula(r"\operatorname{Attn} = \operatorname{softmax}\!\Big(\frac{(R_m q)\cdot(R_n k)}{\sqrt d}\Big)\, v,"
              r"\qquad v = x\,W_V \ \ \text{(not rotated)}, \qquad \lVert R_m q\rVert = \lVert q\rVert")

# ---------------------------------------------------------------- pairing conventions
st.subheader("Two ways to pair the coordinates")
half = ex.d // 2
shown = min(4, half)
st.dataframe(
    pd.DataFrame({
        "pair i": range(shown),
        "interleaved (Su et al., Meta's llama)": [f"({2 * i}, {2 * i + 1})" for i in range(shown)],
        "half-split (GPT-NeoX, Hugging Face rotate_half)": [f"({i}, {i + half})" for i in range(shown)],
        "θ_i": res.thetas[:shown],
    }),
    hide_index=True, width="stretch",
)
frame.formula(r"\pi = [0, 2, 4, \dots, d-2,\ 1, 3, \dots, d-1]: \qquad "
              r"\operatorname{RoPE_{half}}(x_\pi) = \operatorname{RoPE}(x)_\pi",
              r"(R_m q)\cdot(R_n k) = \operatorname{RoPE_{half}}(q_\pi, m)\cdot\operatorname{RoPE_{half}}(k_\pi, n)")
frame.check("max |RoPE_half(q[π]) − RoPE(q)[π]|", win.half_vector_error, win.half_vector_error < 1e-12,
            f"(over the {WINDOW} window positions)")
frame.check("max |score interleaved − score half-split on permuted q, k|", win.half_score_error,
            win.half_score_error < tol_w, f"(all {WINDOW} × {WINDOW} window scores)")
st.markdown(
    "Without the permutation the two conventions pair other coordinates, so the scores differ "
    "(by up to {:.2f} here) — yet each is still a function of the gap alone (diagonal spread {:.1e}). "
    "A model trained with one convention works the same with the other once its weights are permuted."
    .format(win.half_unpermuted_gap, win.half_unpermuted_diag_spread)
)

frame.show_code(rope, rope_score, rope_half, half_split_permutation, rope_qkv, additive_qkv, diagonal_spread,
                rope_demo)

frame.predict(
    "Put the query word at m = 10 and the key word at n = 7, then move both 1,000,000 positions further "
    "(m = 1,000,010, n = 1,000,007). What happens to the RoPE score?",
    ["It shrinks towards 0: the words are far from the start", "It changes sign",
     "It stays the same, up to rounding", "It grows: the angles are huge"],
    2,
    "It stays the same up to rounding: the score is $q^\\top R_{n-m} k/\\sqrt d$ and the gap is still −3. "
    "Type the two positions above to see it: the table lists your pair beside the chapter's.",
    key="rp_predict",
)

frame.share_link(PATH)
frame.bridge(PATH, "With the position turned into q and k, attention finally knows order the right way: "
             "relative, for any length. The next page goes back to the puzzles from the start.")

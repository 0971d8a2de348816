import numpy as np
import pandas as pd
import streamlit as st

import frame
import posenc
from posenc import charts
from posenc.charts import sinusoids as sc
from posenc.encodings import MAX_POSITION, frequencies, shift_matrix, sinusoidal
from posenc.sinusoid_demo import (
    MAX_LENGTH,
    MAX_SHIFT,
    additive_scores,
    angle_tolerance,
    any_position,
    catch,
    shift_rule,
    table,
)

PATH = "lessons/sinusoids.py"
SHOWN_PAIRS = 4  # pairs listed in the float32/float64 table
M_SHOWN = 16  # coordinates of M_k drawn
SIM_SIZE = 60  # positions in the similarity matrix


def tex_num(x: float, fmt: str) -> str:
    """A number for inside $…$: thousands commas as {,} so KaTeX adds no space after them."""
    return format(x, fmt).replace(",", "{,}")


def set_state(key: str, value: int) -> None:
    st.session_state[key] = value


frame.header(
    "Sinusoids",
    "Give pair i a sine and a cosine that turn at rate ω_i = base^(−2i/d): every position gets a vector, "
    "and moving by k positions is a rotation built from k alone.",
)

c1, c2, c3 = st.columns(3)
with c1:
    d = int(frame.number("Width d of the table", "sn_d", 2, 512, 64, step=2,
                         help="Number of dimensions: d/2 (sin, cos) pairs. This page's table only; the last "
                              "section uses the sidebar's d."))
with c2:
    base = int(frame.number("Base", "sn_base", 2, 1_000_000, 10000, step=1000,
                            help="The paper uses 10000. The slowest pair has wavelength close to 2π·base."))
with c3:
    length = int(frame.slider("Positions shown", "sn_len", 2, MAX_LENGTH, 100,
                              help="Positions 1 … this number in the table, the waves and the shift check."))
frame.require(d % 2 == 0, f"d = {d} is odd: sines and cosines come in (sin, cos) pairs, so d must be even.")


@st.cache_data(max_entries=32, show_spinner=False)
def run_table(d: int, base: int, length: int):
    return table(d, float(base), length)


@st.cache_data(max_entries=32, show_spinner=False)
def run_position(p: int, d: int, base: int):
    return any_position(p, d, float(base))


@st.cache_data(max_entries=32, show_spinner=False)
def run_shift(k: int, d: int, base: int, length: int):
    return shift_rule(k, d, float(base), length, shown=M_SHOWN, sim_size=SIM_SIZE)


@st.cache_data(max_entries=32, show_spinner=False)
def run_catch(sentence: str, qi: int, ki: int, d: int, seed: int):
    return catch(posenc.tokenize(sentence), qi, ki, d, seed)


# Each chart is built once per setting and cached as a Vega-Lite spec (data as Arrow bytes), keyed only on the
# scalars it depends on: moving one control rebuilds only the charts that change, and a chart that does not change
# is sent byte-identical (the browser does not redraw it). ``_res`` arguments (cached results) are not hashed.
@st.cache_data(max_entries=32, show_spinner=False)
def table_spec(d: int, base: int, length: int, _tab) -> dict:
    # the same size and title for every length: moving the slider only swaps the data in the browser
    return sc.table_heatmap(_tab.image, length, _tab.omegas, width=420, height=400,
                            title=f"PE(p, j): one row per position, d = {d} columns")


@st.cache_data(max_entries=32, show_spinner=False)
def waves_spec(d: int, base: int, span: int, _tab) -> dict:
    return sc.waves(_tab.wave_positions, _tab.waves, _tab.wave_pairs, _tab.omegas, _tab.dot_positions, _tab.dots,
                    title="sin(p·ω_i) for a few pairs (dots: whole positions)")


@st.cache_data(max_entries=32, show_spinner=False)
def position_spec(p: int, d: int, base: int, _pos) -> dict:
    return sc.position_vector(_pos.pe64, _pos.pe32, p, title=f"PE({p:,}): float64 bars, float32 diamonds")


@st.cache_data(max_entries=32, show_spinner=False)
def m_spec(k: int, d: int, base: int, _sh) -> dict:
    n_sh = _sh.M_shown.shape[0]
    lab = [str(i) for i in range(n_sh)]
    return sc.arrow_spec(charts.heatmap(_sh.M_shown, lab, lab, row_title="row", col_title="column",
                                        value_title="M_k entry", height=400,
                                        title=f"M_k for k = {k:,}: the top-left {n_sh} × {n_sh}"))


@st.cache_data(max_entries=32, show_spinner=False)
def dots_spec(k: int, d: int, base: int, shown: int, _sh) -> dict:
    return sc.dot_lines(_sh.dot_positions, _sh.dots, _sh.dot_ks, k, title="PE(p)·PE(p+k): one flat line per k")


@st.cache_data(max_entries=32, show_spinner=False)
def similarity_spec(d: int, base: int, size: int, _sh) -> dict:
    sim_pos = np.arange(1, size + 1)
    return sc.arrow_spec(sc.position_heatmap(_sh.similarity, sim_pos, sim_pos, row_title="position p",
                                             col_title="position q", value_title="PE(p)·PE(q)", width=460,
                                             height=440, title=f"Similarity PE(p)·PE(q), p, q = 1 … {size}"))


@st.cache_data(max_entries=32, show_spinner=False)
def catch_spec(sentence: str, qi: int, ki: int, d: int, seed: int, _ca) -> dict:
    marks = [(m, float(v)) for (m, _), v in zip(_ca.pairs, _ca.scores) if m <= _ca.sweep_m[-1]]
    return sc.catch_sweep(_ca.sweep_m, _ca.sweep_scores, _ca.gap, marks,
                          title=f"The additive score with the gap fixed at {_ca.gap}: it wanders with m")


tab = run_table(d, base, length)

# ---------------------------------------------------------------- the table
st.subheader("The table: position × dimension")
frame.formula(
    r"PE(p,\,2i) = \sin\!\left(\frac{p}{\text{base}^{2i/d}}\right), \qquad "
    r"PE(p,\,2i+1) = \cos\!\left(\frac{p}{\text{base}^{2i/d}}\right), \qquad i = 0,\dots,\tfrac{d}{2}-1",
    r"\omega_i = \text{base}^{-2i/d}: \quad PE(p) = \big(\sin p\omega_0,\ \cos p\omega_0,\ \sin p\omega_1,\ "
    r"\cos p\omega_1,\ \dots\big)",
)
left, right = st.columns([3, 2])
with left:
    st.vega_lite_chart(table_spec(d, base, length, tab), width="content")
    if tab.rows_per_pixel > 1 or tab.cols_per_pixel > 1:
        st.caption("{:,} × {} values, drawn as {} × {} pixels: each pixel averages {} position(s) × {} "
                   "dimension(s). The fast columns average out to white when a pixel holds many positions."
                   .format(length, d, tab.image.shape[0], tab.image.shape[1], tab.rows_per_pixel,
                           tab.cols_per_pixel))
    else:
        st.caption("Every value is one pixel: {:,} positions × {} dimensions. Hover a column for its pair, "
                   "frequency and wavelength.".format(length, d))
with right:
    st.markdown(
        r"Read it like a counter. The left columns flip fastest: pair 0 turns $\omega_0 = {:g}$ radian per "
        r"position. Further right, each pair turns slower by the same factor $\text{{base}}^{{2/d}} = {:.4f}$, "
        "so the right columns barely change over {:,} positions — like the high bits of a binary counter, "
        "but smooth.".format(tab.omegas[0], tab.omegas[0] / tab.omegas[1] if d > 2 else base ** (2 / d), length)
    )
    st.markdown(
        "Each row is one position's vector. Nothing here is learned or stored: the formula computes the row "
        "of any position, so the table never runs out."
    )

# ---------------------------------------------------------------- waves
st.subheader("Fast pairs and slow pairs")
st.vega_lite_chart(waves_spec(d, base, len(tab.dot_positions), tab), width="content")
if length > len(tab.dot_positions):
    st.caption("Positions 0 … {} of the table's {:,}: drawn over more positions, the fastest waves would be "
               "too dense to see.".format(len(tab.dot_positions), length))
lam = tab.wavelengths
st.markdown(
    r"Wavelengths $\lambda_i = 2\pi/\omega_i = 2\pi\cdot\text{{base}}^{{2i/d}}$ run from "
    r"$\lambda_0 = {}$ ($= 2\pi = {}$) up to $\lambda_{{{}}} = {}$, just under "
    r"$2\pi\cdot\text{{base}} = {}$. Fast pairs tell neighbours apart; slow pairs tell far-apart positions "
    "apart.".format(tex_num(lam[0], ".4f"), tex_num(2 * np.pi, ".4f"), d // 2 - 1, tex_num(lam[-1], ",.1f"),
                    tex_num(2 * np.pi * base, ",.1f"))
)

# ---------------------------------------------------------------- any position
st.subheader("Any position on demand")
b1, b2, b3 = st.columns([2, 1, 1], vertical_alignment="bottom")
with b1:
    p = int(frame.number("Position p", "sn_pos", 0, MAX_POSITION, 5,
                         help=f"Any whole number up to {MAX_POSITION:,}: the formula needs no table."))
with b2:
    st.button("p = 5", on_click=set_state, args=("sn_pos", 5), width="stretch", key="sn_pos_small")
with b3:
    st.button("p = 5,000,000", on_click=set_state, args=("sn_pos", 5_000_000), width="stretch",
              key="sn_pos_big")
pos = run_position(p, d, base)
st.vega_lite_chart(position_spec(p, d, base, pos), width="stretch")
rows = min(2 * SHOWN_PAIRS, d)
j = np.arange(rows)
st.dataframe(
    pd.DataFrame({
        "dimension j": j,
        "pair i": j // 2,
        "sin / cos": np.where(j % 2 == 0, "sin", "cos"),
        "angle p·ω_i (float64)": pos.angles64[j // 2],
        "angle in float32": pos.angles32[j // 2],
        "PE float64": pos.pe64[:rows],
        "PE float32": pos.pe32[:rows],
        "|difference|": np.abs(pos.pe32[:rows] - pos.pe64[:rows]),
    }),
    hide_index=True, width="stretch",
    column_config={c: st.column_config.NumberColumn(format="%.7f") for c in
                   ["angle p·ω_i (float64)", "angle in float32", "PE float64", "PE float32", "|difference|"]},
)
frame.check("max over j of |PE₃₂(p, j) − PE₆₄(p, j)|", pos.max_diff, pos.max_diff < 1e-6,
            "(all {} coordinates; worst at j = {}; ✓ means float32 agrees to 1e-6)".format(d, pos.worst_coordinate))
st.markdown(
    r"float32 computes the angle as $\mathrm{{fl_{{32}}}}(p)\times\mathrm{{fl_{{32}}}}(\omega_i)$ in float32: "
    "at p = {:,} its angles are off by up to {:.3g} rad. The first {} of {} coordinates are listed; the chart "
    "shows all of them.".format(p, pos.max_angle_error, rows, d)
)
if np.isfinite(pos.float64_error):
    st.caption("float64 (what this app uses) against extended precision at p = {:,}: max difference {:.1e}."
               .format(p, pos.float64_error))

# ---------------------------------------------------------------- the shift rule
st.subheader("A shift by k is a rotation")
k = int(frame.number("Shift k", "sn_k", 0, MAX_SHIFT, 3,
                     help="M_k is built from k alone; the check applies it to every position on screen."))
sh = run_shift(k, d, base, length)
tol = angle_tolerance(length + k)
frame.formula(
    r"\begin{pmatrix}\sin\omega_i(p+k)\\ \cos\omega_i(p+k)\end{pmatrix} = "
    r"\begin{pmatrix}\cos\omega_i k & \sin\omega_i k\\ -\sin\omega_i k & \cos\omega_i k\end{pmatrix}"
    r"\begin{pmatrix}\sin\omega_i p\\ \cos\omega_i p\end{pmatrix}",
    r"PE(p+k) = M_k\,PE(p), \qquad M_k = \operatorname{blockdiag}\Big(\begin{pmatrix}\cos\omega_i k & "
    r"\sin\omega_i k\\ -\sin\omega_i k & \cos\omega_i k\end{pmatrix}\Big)_{i=0}^{d/2-1}",
)
frame.check("max |PE(p+k) − M_k PE(p)|", sh.shift_error, sh.shift_error < tol,
            "(every p = 1 … {:,}, all {} coordinates, one M_k; < {:.0e})".format(length, d, tol))
m1, m2 = st.columns([2, 3])
with m1:
    st.vega_lite_chart(m_spec(k, d, base, sh), width="stretch")
    st.caption("Outside the 2 × 2 blocks every entry is 0. No p anywhere: one matrix serves every position.")
with m2:
    st.vega_lite_chart(dots_spec(k, d, base, len(sh.dot_positions), sh), width="stretch")
    st.caption(f"Positions 1 … {len(sh.dot_positions):,} drawn; the check covers 1 … {length:,}.")
frame.formula(r"PE(p)\cdot PE(p+k) = \sum_i \big(\sin\omega_i p\,\sin\omega_i(p+k) + \cos\omega_i p\,"
              r"\cos\omega_i(p+k)\big) = \sum_i \cos(\omega_i k)")
frame.check("max |PE(p)·PE(p+k) − Σᵢ cos(ωᵢk)|", sh.dot_spread, sh.dot_spread < tol,
            "(k = {}; every p = 1 … {:,})".format(", ".join(f"{x:,}" for x in sh.dot_ks), length))
s_n = sh.similarity.shape[0]
t1, t2 = st.columns([3, 2])
with t1:
    st.vega_lite_chart(similarity_spec(d, base, s_n, sh), width="content")
with t2:
    st.markdown("Every diagonal (same gap q − p) holds one value: the matrix is **Toeplitz**. "
                "Similarity between positions depends on how far apart they are, not where they are.")
    frame.check("max |S[p, q] − Σᵢ cos(ωᵢ(q − p))|", sh.toeplitz_error, sh.toeplitz_error < tol,
                f"(all {s_n} × {s_n} entries)")

# ---------------------------------------------------------------- the catch
st.subheader("The catch: the structure is in the input, not in the score")
ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
frame.require(ex.d % 2 == 0, f"The sidebar's d = {ex.d} is odd: sines and cosines come in (sin, cos) pairs, "
                             "so d must be even. Pick an even d in the sidebar for this section.")
qi, ki, _ = frame.word_pair(tokens, "sn")
ca = run_catch(ex.sentence, qi, ki, ex.d, ex.seed)
st.markdown(
    "Now use the sinusoids as the chapter's models do: add PE to the word vectors, project with $W_Q$ and $W_K$ "
    "(sidebar d = {}, seed {}), and put the query word at m and the key word at n = m − {}.".format(
        ex.d, ex.seed, ca.gap)
)
st.dataframe(
    pd.DataFrame({
        "query at m": [m for m, _ in ca.pairs],
        "key at n": [n for _, n in ca.pairs],
        "m − n": [m - n for m, n in ca.pairs],
        "score": ca.scores,
        "words only": ca.terms[:, 0],
        "word_q × PE_n": ca.terms[:, 1],
        "PE_m × word_k": ca.terms[:, 2],
        "PE_m × PE_n": ca.terms[:, 3],
    }),
    hide_index=True, width="stretch",
    column_config={c: st.column_config.NumberColumn(format="%.4f") for c in
                   ["score", "words only", "word_q × PE_n", "PE_m × word_k", "PE_m × PE_n"]},
)
pairs_txt = ", ".join(f"({m}, {n})" for m, n in ca.pairs)
frame.check("score equal for {}? max − min".format(pairs_txt), ca.spread, ca.spread < 1e-9,
            "(same gap {}, different scores: ✗ = the score is not a function of the gap)".format(ca.gap))
frame.check("max |sum of the four terms − score|", ca.terms_error, ca.terms_error < 1e-12,
            "(the table's columns add up)")
frame.formula(
    r"\big((x_q + PE_m)W_Q\big)\cdot\big((x_k + PE_n)W_K\big)/\sqrt d = "
    r"\big[\,x_q A x_k^\top + x_q A\,PE_n^\top + PE_m A\,x_k^\top + PE_m A\,PE_n^\top\big]/\sqrt d",
    r"A = W_Q W_K^\top \quad\text{(words only} = x_q A x_k^\top/\sqrt d\text{, the one term with no position)}"
)
st.vega_lite_chart(catch_spec(ex.sentence, qi, ki, ex.d, ex.seed, ca), width="stretch")
st.markdown(
    r"$PE(p)\cdot PE(p+k)$ depends on k alone, but the score never computes it: it sees $PE_m\,A\,PE_n^\top$ "
    r"with $A = W_Q W_K^\top$ in between, plus two cross terms with the words. A learned $A$ need not commute "
    r"with the rotations $M_k$, so the gap structure is **in the input, not promised in the score**."
)

frame.show_code(frequencies, sinusoidal, shift_matrix, table, any_position, shift_rule, additive_scores, catch)

frame.predict(
    "PE(p)·PE(p + 3) is the same for every p. With the sinusoids added to the word vectors and projected by "
    "W_Q and W_K, how do the scores of the query at 10 on the key at 7 and at 4000 on 3997 compare?",
    ["Exactly equal: the gap is 3 in both", "Different in general", "Both are zero", "Equal only when d is large"],
    1,
    "Different in general: the projections put A = W_Q W_Kᵀ between the two position vectors and mix them "
    "with the words, so the gap-only structure of PE·PE does not survive — the table above shows the "
    "three scores for the current sentence.",
    key="sn_predict",
)

frame.share_link(PATH)
frame.bridge(PATH, "The gap structure got lost between the input and the score. RoPE puts it where it is "
             "needed: it rotates q and k themselves, after W_Q and W_K, so the score can only see the gap.")

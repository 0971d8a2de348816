import numpy as np
import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts import sinusoids as sc
from posenc.encodings import MAX_POSITION, frequencies, shift_matrix, sinusoidal
from posenc.sinusoid_demo import (
    CATCH_SPREAD,
    DEFAULT_LENGTH,
    DEFAULT_POSITION,
    FLOAT32_TOL,
    LAYOUT_LENGTH,
    M_SHOWN,
    MAX_LENGTH,
    MAX_SHIFT,
    SHOWN_PAIRS,
    SIM_SIZE,
    TERMS_TOL,
    additive_scores,
    angle_tolerance,
    any_position,
    catch,
    ladder,
    layouts,
    shift_at,
    shift_rule,
    sinusoidal_halves,
    table,
)

PATH = "lessons/sinusoids.py"
BASE = chapter.BASE


def tex_num(x: float, fmt: str) -> str:
    """A number for inside $…$: thousands commas as {,} so KaTeX adds no space after them."""
    return format(x, fmt).replace(",", "{,}")


def set_state(key: str, value: int) -> None:
    st.session_state[key] = value


frame.page(PATH, "Give each pair of coordinates a sine and a cosine turning at its own rate: any position gets a "
                 "vector on demand, and moving k steps is a rotation built from k alone.")

ex = frame.example()
frame.require(ex.d % 2 == 0, f"The sidebar's d = {ex.d} is odd: sines and cosines come in (sin, cos) pairs, so "
                             "d must be even. Pick an even d in the sidebar.")
d = ex.d

# ---------------------------------------------------------------- Predict (at d = 64, the paper's base)
q_d = chapter.CONTENT_D
q = ladder(q_d, BASE)
frame.predict(
    f"With d = {q_d} and the paper's base {BASE:,.0f}, each (sin, cos) pair turns more slowly than the pair before "
    "it, by the same factor every time. Bits slow down by 2 from one bit to the next. What is the factor here?",
    ["2, as with bits", f"{q.ratio:.4f}", f"{q_d // 2}", f"{BASE:,.0f}"],
    1,
    f"{q.ratio:.4f} = base^(2/d) = {BASE:,.0f}^(2/{q_d}). The pairs climb a much finer ladder than bits do: "
    f"{q_d // 2} rungs, from the wavelength 2π = {q.fastest:.4f} to {q.slowest:,.0f}. The table below shows it: "
    "from left to right the columns change ever more slowly.",
    key="sn_predict",
)


@frame.cached
def table_view(d: int, base: int, length: int):
    tab = table(d, float(base), length)
    return tab, ladder(d, float(base)), (
        sc.table_heatmap(tab.image, length, tab.omegas),
        sc.waves(tab.wave_positions, tab.waves, tab.wave_pairs, tab.omegas, tab.dot_positions, tab.dots))


# ---------------------------------------------------------------- the key chart: the table
@frame.section("The table: position × dimension")
def the_table():
    c1, c2 = st.columns(2)
    with c1:
        length = int(frame.slider("Positions shown", "sn_len", 2, MAX_LENGTH, DEFAULT_LENGTH,
                                  help="Word positions 1 … this number in the table and the waves."))
    with c2:
        base = int(frame.number("Base (this section's; the rest of the page uses the paper's)", "sn_base", 2,
                                1_000_000, int(BASE), step=1000,
                                help=f"The paper uses {BASE:,.0f}. Pair i turns at ω_i = base^(−2i/d)."))
    tab, lad, (fig_table, fig_waves) = table_view(d, base, length)
    left, right = st.columns([3, 2])
    with left:
        frame.chart(fig_table)
    with right:
        ratio = f"{lad.ratio:.4f}" if d > 2 else "— (one pair only)"
        st.markdown(
            f"Read it like a counter. The left columns change fastest: pair 0 turns "
            f"$\\omega_0 = {tab.omegas[0]:g}$ radian per position. Each pair to the right turns slower by the same "
            f"factor, $\\text{{base}}^{{2/d}} = {ratio}$ (base {base:,}, the sidebar's {frame.term('d')} = {d}), so "
            f"the right columns barely change over {length:,} positions — like the high bits of a binary counter, "
            "but smooth, and on a finer ladder: bits slow down by 2 from one to the next.")
        st.markdown("Each row is one position's vector. Nothing is learned or stored: the formula computes the row "
                    "of any position, so the table never runs out.")
    frame.formula(r"PE(p,\,2i) = \sin\!\left(p\,\omega_i\right)",
                  r"PE(p,\,2i+1) = \cos\!\left(p\,\omega_i\right)",
                  r"\omega_i = \text{base}^{-2i/d}, \quad i = 0,\dots,\tfrac{d}{2}-1")
    if tab.rows_per_pixel > 1 or tab.cols_per_pixel > 1:
        st.caption(f"Positions 1 … {length:,} × {d} dimensions, drawn as {tab.image.shape[0]} × "
                   f"{tab.image.shape[1]} pixels: each pixel averages {tab.rows_per_pixel} position(s) × "
                   f"{tab.cols_per_pixel} dimension(s), so the fast columns average out to white. Dimensions j and "
                   "pairs i count from 0, as in the formula.")
    else:
        st.caption(f"Every value is one pixel: positions 1 … {length:,} × {d} dimensions. Hover a column for its "
                   "pair, frequency and wavelength; dimensions j and pairs i count from 0, as in the formula.")

    frame.chart(fig_waves)
    span = len(tab.dot_positions)
    st.caption(f"The curves start at p = 0: the formula has a position 0 too, PE(0) = (0, 1, 0, 1, …), with no word "
               f"on it. The dots are the words' positions 1 … {span}"
               + (f", the first {span} of the table's 1 … {length:,} (over more positions the fastest wave would be "
                  "too dense to see)." if length > span else "."))
    if d > 2:
        st.markdown(
            f"Wavelengths $\\lambda_i = 2\\pi/\\omega_i = 2\\pi\\cdot\\text{{base}}^{{2i/d}}$ run from "
            f"$\\lambda_0 = 2\\pi = {tex_num(lad.fastest, '.4f')}$ up to "
            f"$\\lambda_{{{d // 2 - 1}}} = {tex_num(lad.slowest, ',.0f')}$. That last one is "
            f"$2\\pi\\cdot\\text{{base}} = {tex_num(lad.limit, ',.0f')}$ divided by one more factor "
            f"${tex_num(lad.ratio, '.4f')}$: {lad.short_by:.0%} below it. The pairs never reach "
            f"$2\\pi\\cdot\\text{{base}}$; it is where a pair number {d // 2} would sit. Fast pairs tell neighbours "
            "apart; slow pairs tell far-apart positions apart.")


# ---------------------------------------------------------------- any position on demand
@frame.cached
def position_view(p: int, d: int):
    pos = any_position(p, d, BASE)
    return pos, sc.position_vector(pos.pe64, p), sc.precision(pos.pe64, pos.pe32, p)


@frame.section("Any position on demand")
def on_demand():
    b1, b2, b3 = st.columns([2, 1, 1], vertical_alignment="bottom")
    with b1:
        p = int(frame.number("Position p", "sn_pos", 0, MAX_POSITION, DEFAULT_POSITION,
                             help=f"Any whole number up to {MAX_POSITION:,}: the formula needs no table. "
                                  "0 is the formula's PE(0), where no word sits."))
    with b2:
        st.button(f"p = {DEFAULT_POSITION}", on_click=set_state, args=("sn_pos", DEFAULT_POSITION), width="stretch",
                  key="sn_pos_small")
    with b3:
        st.button(f"p = {chapter.HUGE_POSITION:,}", on_click=set_state, args=("sn_pos", chapter.HUGE_POSITION),
                  width="stretch", key="sn_pos_big")
    pos, fig_vec, fig_prec = position_view(p, d)
    frame.chart(fig_vec)
    norm = float(np.linalg.norm(pos.pe64))
    frame.verdict(f"PE({p:,}) is computed on demand, every coordinate between −1 and 1",
                  bool(np.all(np.abs(pos.pe64) <= 1.0)),
                  f"{d} coordinates, length √(d/2) = {norm:.4f}, no table consulted")
    st.markdown(f"The chapter: “the vector for position {DEFAULT_POSITION}, or {chapter.HUGE_POSITION:,}, is "
                "computed on demand.” There is no last row: a position past any sentence seen in training still "
                "gets its vector.")
    with frame.deeper("float32 at huge positions", key="sn_deep_float32"):
        rows = min(2 * SHOWN_PAIRS, d)
        j = np.arange(rows)
        frame.chart(fig_prec)
        frame.table({
            "dimension j (0-based)": j, "pair i (0-based)": j // 2,
            "sin / cos": np.where(j % 2 == 0, "sin", "cos"),
            "angle p·ω_i (float64)": pos.angles64[j // 2], "angle in float32": pos.angles32[j // 2],
            "PE float64": pos.pe64[:rows], "PE float32": pos.pe32[:rows],
            "|difference|": np.abs(pos.pe32[:rows] - pos.pe64[:rows]),
        }, column_config={c: st.column_config.NumberColumn(format="%.7f") for c in
                          ["angle p·ω_i (float64)", "angle in float32", "PE float64", "PE float32", "|difference|"]})
        frame.verdict(f"float32 agrees with float64 at p = {p:,} to within {FLOAT32_TOL:g}",
                      pos.max_diff < FLOAT32_TOL,
                      f"largest difference {pos.max_diff:.2g}, at dimension j = {pos.worst_coordinate}")
        st.markdown(
            f"float32 computes the angle as fl₃₂(p) × fl₃₂(ω_i) in float32: at p = {p:,} its angles are off "
            f"by up to {pos.max_angle_error:.3g} rad. float32 holds whole numbers exactly only up to "
            f"2²⁴ = {2 ** 24:,}, and an angle of millions of radians keeps few digits after the point. This app "
            f"computes angles in float64. The first {rows} of {d} coordinates are listed.")
        if np.isfinite(pos.float64_error):
            st.caption(f"float64 against extended precision at p = {p:,}: largest difference "
                       f"{pos.float64_error:.1e}.")


# ---------------------------------------------------------------- the shift rule
@frame.cached
def shift_view(k: int, d: int):
    sh = shift_rule(k, d, BASE, MAX_LENGTH, shown=M_SHOWN, sim_size=SIM_SIZE)
    starts = [n for _, n in chapter.PAIRS]
    return sh, shift_at(k, starts, d, BASE), (sc.shift_heatmap(sh.M_shown, k),
                                              sc.dot_lines(sh.dot_positions, sh.dots, sh.dot_ks, k),
                                              sc.similarity(sh.similarity))


@frame.section("A shift by k is a rotation")
def shift():
    k = int(frame.number("Shift k", "sn_k", 0, MAX_SHIFT, chapter.SHIFT,
                         help="M_k is built from k alone; the checks apply it to every position 1 … "
                              f"{MAX_LENGTH:,}."))
    sh, chapter_err, (fig_m, fig_dots, fig_sim) = shift_view(k, d)
    tol = angle_tolerance(MAX_LENGTH + k)
    frame.formula(
        r"\begin{pmatrix}\sin\omega_i(p+k)\\ \cos\omega_i(p+k)\end{pmatrix} = "
        r"\begin{pmatrix}\cos\omega_i k & \sin\omega_i k\\ -\sin\omega_i k & \cos\omega_i k\end{pmatrix}"
        r"\begin{pmatrix}\sin\omega_i p\\ \cos\omega_i p\end{pmatrix}",
        r"PE(p+k) = M_k\,PE(p)")
    starts = ", ".join(str(n) for _, n in chapter.PAIRS)
    frame.verdict(f"one M_k moves the chapter's starts {starts} by k: the same matrix whatever the start",
                  chapter_err < angle_tolerance(max(n for _, n in chapter.PAIRS) + k),
                  f"largest error {chapter_err:.0e} at k = {k:,}")
    frame.verdict("PE(p + k) = M_k PE(p) at every position", sh.shift_error < tol,
                  f"p = 1 … {MAX_LENGTH:,}, all {d} coordinates: largest error {sh.shift_error:.0e}, "
                  f"tolerance {tol:.0e}")
    m1, m2 = st.columns([2, 3])
    with m1:
        frame.chart(fig_m)
        st.caption("Rows and columns count from 0. Outside the 2 × 2 blocks every entry is 0, and no p appears.")
    with m2:
        frame.chart(fig_dots)
        st.caption(f"Positions 1 … {len(sh.dot_positions):,} drawn; the check covers 1 … {MAX_LENGTH:,}.")
    frame.formula(r"PE(p)\cdot PE(p+k) = \sum_i \cos(\omega_i k)")
    frame.verdict("PE(p)·PE(p + k) depends on k alone", sh.dot_spread < tol,
                  f"k = {', '.join(f'{x:,}' for x in sh.dot_ks)}, every p = 1 … {MAX_LENGTH:,}: largest deviation "
                  f"from Σᵢ cos(ωᵢk) {sh.dot_spread:.0e}")
    s_n = sh.similarity.shape[0]
    t1, t2 = st.columns([3, 2])
    with t1:
        frame.chart(fig_sim)
    with t2:
        st.markdown("Every diagonal (the same gap q − p) holds one value: how alike two positions are depends on "
                    "how far apart they are, not where they are. The slider under the chart outlines one diagonal "
                    f"(it starts at the chapter's k = {sc.FIRST_GAP} and reaches every gap from −{s_n - 1} to "
                    f"{s_n - 1}); hover its cells to read the same number all along it.")
        frame.verdict("the similarity is constant along every diagonal", sh.toeplitz_error < tol,
                      f"all {s_n} × {s_n} entries: largest error {sh.toeplitz_error:.0e}")


# ---------------------------------------------------------------- the catch
@frame.cached
def catch_view(sentence: str, qi: int, ki: int, d: int, seed: int):
    ca = catch(posenc.tokenize(sentence), qi, ki, d, seed, BASE, chapter.PAIRS)
    marks = [(m, float(v)) for (m, _), v in zip(ca.pairs, ca.scores) if m <= ca.sweep_m[-1]]
    return ca, sc.catch_sweep(ca.sweep_m, ca.sweep_scores, ca.gap, marks)


@frame.section("The catch: the structure is in the input, not in the score")
def the_catch():
    tokens = frame.tokens_or_stop(ex.sentence)
    qi, ki, _ = frame.word_pair(tokens, "sn")
    ca, fig = catch_view(ex.sentence, qi, ki, d, ex.seed)
    pairs_txt = ", ".join(f"({m}, {n})" for m, n in ca.pairs)
    st.markdown(
        f"Now use the sinusoids as the chapter's models do: add PE to the word vectors, project with $W_Q$ and "
        f"$W_K$ (the sidebar's d = {d}, seed {ex.seed}), and put the {frame.term('query')} word at m and the "
        f"{frame.term('key')} word at n = m − {ca.gap}: the chapter's pairs {pairs_txt}. Each "
        f"{frame.term('score')} splits into four terms (formula below the chart).")
    frame.table({
        "query at m": [m for m, _ in ca.pairs], "key at n": [n for _, n in ca.pairs],
        "m − n": [m - n for m, n in ca.pairs], "score": ca.scores,
        "words only": ca.terms[:, 0], "word_q × PE_n": ca.terms[:, 1],
        "PE_m × word_k": ca.terms[:, 2], "PE_m × PE_n": ca.terms[:, 3],
    }, column_config={c: st.column_config.NumberColumn(format="%.4f") for c in
                      ["score", "words only", "word_q × PE_n", "PE_m × word_k", "PE_m × PE_n"]})
    frame.verdict(f"the score is not a function of the gap alone, as the chapter warns: the three pairs, all "
                  f"{ca.gap} apart, score differently", ca.spread > CATCH_SPREAD,
                  f"largest − smallest score = {ca.spread:.2g}")
    frame.verdict("the four terms add up to the score", ca.terms_error < TERMS_TOL,
                  f"largest mismatch {ca.terms_error:.0e}, tolerance {TERMS_TOL:.0e}")
    frame.chart(fig)
    frame.formula(
        r"\big((x_q + PE_m)W_Q\big)\cdot\big((x_k + PE_n)W_K\big)/\sqrt d = "
        r"\big[\,x_q A x_k^\top + x_q A\,PE_n^\top + PE_m A\,x_k^\top + PE_m A\,PE_n^\top\big]/\sqrt d,"
        r"\quad A = W_Q W_K^\top")
    st.markdown(
        r"$PE(p)\cdot PE(p+k)$ depends on k alone, but the score never computes it: it sees $PE_m\,A\,PE_n^\top$ "
        r"with $A = W_Q W_K^\top$ in between, plus two cross terms with the words. A learned $A$ need not commute "
        r"with the rotations $M_k$, so the gap structure is **in the input, not promised in the score**.")


# ---------------------------------------------------------------- asides
@frame.cached
def layouts_view(d: int):
    return layouts(d, BASE, LAYOUT_LENGTH)


with frame.deeper("interleaved or [sin | cos] halves?", key="sn_deep_layout"):
    lay = layouts_view(d)
    st.markdown(
        "This page follows the paper: dimensions 2i and 2i + 1 hold the sine and cosine of pair i (interleaved). "
        "Much public code (GPT-NeoX, Hugging Face Marian) puts all the sines first and all the cosines after "
        "([sin | cos] halves). That is the same numbers in another column order: the pictures differ, what a "
        "trained model can do does not.")
    frame.verdict("the halves layout is the interleaved table with its columns reordered",
                  lay.permuted_diff == 0.0,
                  f"positions 1 … {lay.length}, d = {lay.d}: largest difference after reordering "
                  f"{lay.permuted_diff:g} (before: {lay.unpermuted_diff:.3f})")
    st.markdown(
        f"tensor2tensor and fairseq also use halves, but with other frequencies, ω_i = base^(−i/(d/2 − 1)): not a "
        f"reordering. At d = {lay.d} their table differs from the paper's halves by up to "
        f"{lay.t2t_diff:.3f} over positions 1 … {lay.length}.")

frame.show_code(frequencies, sinusoidal, ladder, table, any_position, shift_matrix, shift_rule, shift_at,
                additive_scores, catch, sinusoidal_halves, layouts)
frame.bridge(PATH, "The gap structure got lost between the input and the score. RoPE puts it where it is needed: "
                   "it rotates q and k themselves, after W_Q and W_K, so the score can only see the gap.")

"""Sinusoids: a sine and a cosine per pair of coordinates, each pair at its own rate — a ladder of rates, a shift
that is one rotation, and the catch: does the score see only the gap?"""

import numpy as np
import streamlit as st

import frame
from frame.wording import apart, tex_num
from posenc import chapter
from posenc.charts import sinusoids as sc
from posenc.core import count
from posenc.encodings import MAX_POSITION
from posenc.sections import sinusoids as sections
from posenc.sinusoid_demo import (
    CATCH_SPREAD,
    DEFAULT_LENGTH,
    FLOAT32_TOL,
    MAX_LENGTH,
    MAX_SHIFT,
    TERMS_TOL,
    angle_tolerance,
    any_position,
    ladder,
)

PATH = "lessons/sinusoids.py"
BASE = chapter.BASE
DIAL_START = 7  # the dials open at position 7, the first of the chapter's starts (7, 37, 3997)
FLOAT64_TOL = 1e-9  # float64 against extended precision, at any position up to 10,000,000
catch_view, table_view, layouts_view, position_view, shift_view = map(  # one cached posenc call each
    frame.cached, (sections.catch_view, sections.table_view, sections.layouts_view, sections.position_view,
                   sections.shift_view))


def dials(d: int, shown: tuple[int, ...], *, position: int, prefix: str = "sn", **kw):
    """The dials as they open: a link may carry the position, the base and k (``frame.live.opening``), and the
    chart's reading speaks of that setting, not the page's."""
    fig = sc.dials(d, shown, position=position, prefix=prefix, **kw)
    at = frame.live.opening(fig.spec)
    if at == {p["name"]: p["value"] for p in frame.live.bound_params(fig.spec)}:
        return fig
    linked = {"position": at[f"{prefix}_pos"]}
    if f"{prefix}_logbase" in at:
        linked["base"] = 10 ** at[f"{prefix}_logbase"]
    if f"{prefix}_k" in at:
        linked["shift"] = at[f"{prefix}_k"]
    return sc.dials(d, shown, prefix=prefix, **{**kw, **linked})


with frame.page(PATH, "A sine and a cosine per pair of coordinates, each pair at its own rate: how much slower is "
                      "each pair, and what does a shift by k do?"):
    ex = frame.example()
    frame.require(ex.d % 2 == 0, f"The sidebar's d = {ex.d} is odd: sines and cosines come in (sin, cos) pairs, "
                                 "so d must be even. Pick an even d in the sidebar.")
    d = ex.d
    shown = sc.dial_pairs(d)

    # ------------------------------------------------------------ idea 1: a ladder of rates (the key chart)
    @frame.section("A ladder of rates")
    def rates():
        q_d = d if d > 2 else chapter.CONTENT_D  # one pair has no ladder: the question then uses the chapter's d
        q = ladder(q_d, BASE)
        where = (f"the sidebar's d = {d}" if d > 2
                 else f"d = {q_d} (the sidebar's d = 2 is a single pair, with no next pair)")
        ask = frame.predict(
            f"At {where}, base {BASE:,.0f}: each pair turns slower than the one before by one fixed factor "
            "(bits: 2). What is it?",
            ["2, as with bits", f"{q.ratio ** 0.5:.4f}", f"{q.ratio:.4f}", f"{BASE:,.0f}"], 2, key="sn_predict")
        fig = dials(d, shown, position=DIAL_START, base=BASE)
        frame.chart(fig, play="sn_pos")
        slow_txt = f"{q.slowest:,.0f}" if q.slowest >= 1000 else f"{q.slowest:.4f}"
        ask.answer(
            f"ω_(i+1) = ω_i / base^(2/d), and base^(2/d) = {BASE:,.0f}^(2/{q_d}) = **{q.ratio:.4f}** at "
            f"d = {q_d}. The wavelengths climb {q_d // 2} rungs from 2π = {q.fastest:.4f} (pair 0) to "
            f"{slow_txt} (pair {q_d // 2 - 1}): a much finer ladder than the bits' doubling.")
        if d > 2:
            frame.verdict("neighbouring pairs' wavelengths differ by one factor, base^(2/d)", sections.one_ratio(d),
                          f"d = {d}: every ratio λ_(i+1)/λ_i = {ladder(d, BASE).ratio:.6f}, to 1e-12")
        far = any_position(chapter.HUGE_POSITION, d, BASE)
        frame.verdict(f"PE({chapter.HUGE_POSITION:,}) is computed on demand, every coordinate between −1 and 1",
                      bool(np.all(np.abs(far.pe64) <= 1.0)),
                      f"{d} coordinates, length √(d/2) = {float(np.linalg.norm(far.pe64)):.4f}, no table consulted")
        slow = ("the slowest barely moves" if sc.barely_moves(sections.wavelengths(d)[-1], sc.DIAL_SPAN)
                else "even the slowest turns visibly")
        st.markdown(
            f"Press **Play**: pair 0 turns once every 2π ≈ 6.3 positions, each pair below more slowly; at base "
            f"{BASE:,.0f}, {slow} over {sc.DIAL_SPAN} positions. Fast pairs tell neighbours apart, slow ones "
            "far-apart positions.")
        frame.formula(r"{PE(p,\,2i) = \sin(p\,\omega_i)}, \quad\allowbreak {PE(p,\,2i+1) = \cos(p\,\omega_i)}, "
                      r"\quad\allowbreak {\omega_i = \mathrm{base}^{-2i/d}}")  # a phone breaks between them only

    # ------------------------------------------------------------ idea 2: a shift is a rotation
    @frame.section("Moving k steps is a rotation")
    def shift():
        ask = frame.predict(
            f"Each dial's second hand sits k = {chapter.SHIFT} positions after the first. Press Play: as p grows, "
            "what does the angle between the two hands do?",
            ["It grows with p", "It stays the same", "It shrinks back to 0"], 1, key="sn_shift_predict")
        fig = dials(d, shown, position=0, shift=chapter.SHIFT, prefix="sn_s")
        frame.chart(fig, play="sn_s_pos")
        k = chapter.SHIFT
        closed = sections.shift_dot(k, d)
        ask.answer(
            f"Both hands turn at ω_i, so the angle between them is k·ω_i — k alone, whatever p. Moving k steps is "
            f"one rotation per pair, the matrix M_k built from k alone: the same at word 7, 37 or 3997. So "
            f"PE(p)·PE(p + k) = Σᵢ cos(k·ω_i) = **{closed:.4f}** at k = {k} and d = {d}, at every p: the readout "
            f"at the top right sums {'its one pair' if d == 2 else 'all ' + count(d // 2, 'pair')} and stands still while p plays. M_k is under *Deeper*.")

    # ------------------------------------------------------------ the catch
    @frame.section("The catch: does the score see only the gap?")
    def the_catch():
        tokens = frame.tokens_or_stop(ex.sentence)
        where = st.container()  # chart and prose, drawn once the words are picked (in the Deeper below them)
        terms = frame.deeper("the two words, and the four terms of each score", key="sn_deep_terms")
        with terms:
            qi, ki, _ = frame.word_pair(tokens, "sn")
        ca, fig = catch_view(ex.sentence, qi, ki, d, ex.seed)
        with where:
            varies, swept = ca.spread > CATCH_SPREAD, ca.sweep_spread  # the chapter's pairs; the chart's sweep
            ask = frame.predict(
                f"Slide the query word (at m) and the key word ({ca.gap} places before it) along together: what "
                "does their score do?",
                ["It stays the same", "It moves with m"], int(swept > CATCH_SPREAD), key="sn_catch_predict")
            frame.chart(fig)
            frame.verdict(f"the score is not a function of the gap alone, as the chapter warns: the chapter's pairs, "
                          f"all {abs(ca.gap)} apart, score differently", varies,
                          f"largest − smallest score = {ca.spread:.2g}")
            frame.verdict("the four terms add up to the score", ca.terms_error < TERMS_TOL,
                          f"largest mismatch {ca.terms_error:.0e}, tolerance {TERMS_TOL:.0e}")
            moves = (f"the gap is fixed, yet the score moves with m (over {swept:.2g} along the chart)"
                     if swept > CATCH_SPREAD else "here the score happens to stay put, but nothing promises it")
            ask.answer(
                f"With PE added to the words, then $W_Q$, $W_K$ (d = {d}, seed {ex.seed}; the words are picked "
                f"under *Deeper*): {moves}.",
                "Between $PE_m$ and $PE_n$ sits $A = W_Q W_K^\\top$, which need not commute with the rotation "
                "$M_k$: the gap is **in the input, not promised in the score**.")
        with terms:
            frame.formula(
                r"\big((x_q + PE_m)W_Q\big)\cdot\big((x_k + PE_n)W_K\big)/\sqrt d = ",
                r"\big[\,x_q A x_k^\top + x_q A\,PE_n^\top + PE_m A\,x_k^\top + PE_m A\,PE_n^\top\big]/\sqrt d")
            frame.table(sections.catch_terms(ca),
                        column_config={c: st.column_config.NumberColumn(format="%.4f") for c in
                                       ["score", "words only", "word_q × PE_n", "PE_m × word_k", "PE_m × PE_n"]})

    # ------------------------------------------------------------ asides
    table_deeper = frame.deeper("the whole table: its columns, its layouts, float32 at huge positions",
                                key="sn_deep_table")
    with table_deeper:
        @frame.section(None)  # its slider reruns the table alone, not the page
        def whole_table():
            length = int(frame.slider("Positions shown", "sn_len", 2, MAX_LENGTH, DEFAULT_LENGTH,
                                      help="Word positions 1 … this number, at the paper's base."))
            tab, lad, fig_table = table_view(d, length)
            frame.chart(fig_table)
            if d > 2:
                slowest, limit = apart(lad.slowest, lad.limit)
                right = "barely change" if sc.barely_moves(lad.slowest, length) else "still turn visibly"
                st.markdown(
                    f"Read it like a counter: the left columns (pair 0) change fastest, each pair to the right more "
                    f"slowly by the factor $\\mathrm{{base}}^{{2/d}} = {tex_num(lad.ratio, '.4f')}$, so the right "
                    f"columns {right} over {length:,} positions. Wavelengths run from 2π = {lad.fastest:.4f} "
                    f"up to λ_{d // 2 - 1} = {slowest}: that is 2π·base = {limit} divided by one more factor, "
                    f"{lad.short_by:.0%} below it — where a pair number {d // 2} would sit.")
            else:
                st.markdown(f"With d = 2 the table is a single (sin, cos) pair turning at ω₀ = 1 radian per "
                            f"position (wavelength 2π ≈ {lad.fastest:.4f}): two columns, and no ladder to climb.")
            if tab.rows_per_pixel > 1 or tab.cols_per_pixel > 1:
                st.caption(f"Positions 1 … {length:,} × {d} dimensions, drawn as {tab.image.shape[0]} × "
                           f"{tab.image.shape[1]} pixels: each pixel averages {tab.rows_per_pixel} position(s) × "
                           f"{tab.cols_per_pixel} dimension(s), so the fast columns average out to white.")
            frame.table(sections.table_columns(tab, d, length),
                        column_config={"ω_i": st.column_config.NumberColumn(format="%.6g"),
                                       "wavelength 2π/ω_i": st.column_config.NumberColumn(format="%.4f")})
            st.caption("The table's numbers, column by column (dimensions j and pairs i count from 0, as in the "
                       "formula): each column's rate, and its values at the first and last position drawn.")
        lay = layouts_view(d)
        st.markdown(
            "**Interleaved or [sin | cos] halves?**\n\nThis page follows the paper: dimensions 2i and 2i + 1 hold the sine and cosine of pair i "
            "(interleaved). Much public code (GPT-NeoX, Hugging Face Marian) puts all the sines first and all the "
            "cosines after ([sin | cos] halves): the same numbers in another column order. The pictures differ, "
            "what a trained model can do does not.\n\n"
            f"tensor2tensor and fairseq also use halves, but with other frequencies, ω_i = base^(−i/(d/2 − 1)): "
            f"not a reordering. At d = {lay.d} their table differs from the paper's halves by up to "
            f"{lay.t2t_diff:.3f} over positions 1 … {lay.length}.")
        frame.verdict("the halves layout is the interleaved table with its columns reordered",
                      lay.permuted_diff == 0.0,
                      f"positions 1 … {lay.length}, d = {lay.d}: largest difference after reordering "
                      f"{lay.permuted_diff:g} (before: {lay.unpermuted_diff:.3f})")

    with table_deeper:
        @frame.section(None)  # its number reruns this block alone, not the page
        def huge_positions():
            st.markdown("**float32 at huge positions**")
            p = int(frame.number("Position p", "sn_far", 0, MAX_POSITION, chapter.HUGE_POSITION,
                                 help=f"Any whole number up to {MAX_POSITION:,}: the formula needs no table."))
            pos, fig_prec = position_view(p, d)
            frame.chart(fig_prec)
            frame.table(sections.precision_columns(pos, d),
                        column_config={c: st.column_config.NumberColumn(format="%.7f") for c in
                                       ["angle p·ω_i (float64)", "angle in float32", "PE float64", "PE float32"]})
            agree = pos.max_diff < FLOAT32_TOL
            st.markdown(
                f"At p = {p:,} a float32 pipeline (angle fl₃₂(p) × fl₃₂(ω_i), then sin and cos in float32) lands up "
                f"to {pos.max_diff:.2g} from float64, its angles off by up to {pos.max_angle_error:.3g} rad: "
                + ("within a millionth here." if agree else
                   "far more than a millionth. float32 holds whole numbers exactly only up to 2²⁴ = "
                   f"{2 ** 24:,}, and an angle of many radians keeps few digits after the point.")
                + " This app computes angles in float64.")
            if np.isfinite(pos.float64_error):
                frame.verdict(f"float64 computes PE({p:,}) to within {FLOAT64_TOL:g} of extended precision",
                              pos.float64_error < FLOAT64_TOL, f"largest difference {pos.float64_error:.1e}")

    with frame.deeper("the matrix M_k, and every PE(p)·PE(q)", key="sn_deep_shift"):
        @frame.section(None)  # its number reruns this block alone, not the page
        def shift_matrix():
            k = int(frame.number("Shift k", "sn_k", 0, MAX_SHIFT, chapter.SHIFT,
                                 help=f"M_k is built from k alone; the checks apply it to every position 1 … "
                                      f"{MAX_LENGTH:,}."))
            sh, chapter_err, (fig_m, fig_sim) = shift_view(k, d)
            frame.formula(
                r"\begin{pmatrix}\sin\omega_i(p+k)\\ \cos\omega_i(p+k)\end{pmatrix} = "
                r"\begin{pmatrix}\cos\omega_i k & \sin\omega_i k\\ -\sin\omega_i k & \cos\omega_i k\end{pmatrix}"
                r"\begin{pmatrix}\sin\omega_i p\\ \cos\omega_i p\end{pmatrix}")
            tol = angle_tolerance(MAX_LENGTH + k)
            starts = ", ".join(str(n) for _, n in chapter.PAIRS)
            frame.verdict(f"one M_k moves the chapter's starts {starts} by k: the same matrix whatever the start",
                          chapter_err < angle_tolerance(max(n for _, n in chapter.PAIRS) + k),
                          f"largest error {chapter_err:.0e} at k = {k:,}")
            frame.verdict("PE(p + k) = M_k PE(p) at every position", sh.shift_error < tol,
                          f"p = 1 … {MAX_LENGTH:,}, all {d} coordinates: largest error {sh.shift_error:.0e}, "
                          f"tolerance {tol:.0e}")
            frame.verdict("PE(p)·PE(p + k) depends on k alone", sh.dot_spread < tol,
                          f"k = {', '.join(f'{x:,}' for x in sh.dot_ks)}, every p = 1 … {MAX_LENGTH:,}: largest "
                          f"deviation from Σᵢ cos(ωᵢk) {sh.dot_spread:.0e}")
            frame.verdict("the similarity is constant along every diagonal", sh.toeplitz_error < tol,
                          f"all {sh.similarity.shape[0]} × {sh.similarity.shape[0]} entries: largest error "
                          f"{sh.toeplitz_error:.0e}")
            frame.chart(fig_m)
            st.caption("Rows and columns count from 0. Outside the 2 × 2 blocks every entry is 0, and no p appears."
                       if d > 2 else "One pair: M_k is a single 2 × 2 rotation block, and no p appears in it.")
            frame.chart(fig_sim)
            s_n = sh.similarity.shape[0]
            st.markdown("Every diagonal of this table (one gap q − p) holds one value: how alike two positions are "
                        "depends on how far apart they are, not where they are. The slider under it outlines one "
                        f"diagonal (from the chapter's gap {sc.FIRST_GAP}, any gap from −{s_n - 1} to {s_n - 1}).")

    frame.show_code(*sections.CODE)
    frame.bridge(PATH, "The gap structure got lost between the input and the score. RoPE puts it where it is "
                       "needed: it rotates q and k themselves, after W_Q and W_K, so the score can only see the gap.")

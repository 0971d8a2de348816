import numpy as np
import streamlit as st

import frame
from posenc import beyond, chapter
from posenc import stretch as sx
from posenc.beyond import (
    ALIBI_TOL,
    B0_TOL,
    BF16_EXACT_UP_TO,
    BF16_WINDOW,
    DECAY_D,
    DECAY_DROP,
    IDENTITY_TOL,
    OFFSET_TOL,
    TYPICAL_D,
    TYPICAL_L_TRAIN,
    TYPICAL_S,
    TYPICAL_SEQ_LEN,
    TYPICAL_SOURCE,
)
from posenc.charts import beyond as bc
from posenc.core import count
from posenc.precision import angle_error_f32, angle_errors_f32, rope_offset_error, to_bf16
from posenc.sinusoid_demo import DEFAULT_POSITION

PATH = "lessons/stretch.py"
BASE = int(chapter.BASE)
BF16_FIRST_LOST = BF16_EXACT_UP_TO + 1  # the first whole number bfloat16 cannot hold


def pairs(n: int) -> str:
    """“1 pair”, “17 pairs”."""
    return count(n, "pair")

frame.page(PATH, "On text longer than it was trained on, RoPE turns its slow pairs to angles they never saw; PI, "
                 "NTK-aware and YaRN slow those pairs down.")
ex = frame.example()


# ---------------------------------------------------------------- one cached call per section
@frame.cached
def stretch_data(d: int, L_train: int, s: int, seq_len: int, base: int):
    res = beyond.stretch_demo(d, L_train, s, seq_len, float(base))
    return res, {"turns": bc.rotations_figure(res), "wavelength": bc.wavelength_figure(res),
                 "ratio": bc.ratio_figure(res), "ramp": bc.ramp_figure(res)}


@frame.cached
def alibi_data(sentence: str, d: int, seed: int, heads: int):
    slopes = bc.slopes_figure(sx.alibi_slopes(heads), 1 << (heads.bit_length() - 1))
    try:
        al = beyond.alibi_attention(sentence, d, seed, heads)
    except ValueError as err:
        return None, slopes, None, [], str(err)
    shown = bc.alibi_heads_to_show(heads, len(al.tokens))
    return al, slopes, bc.alibi_figure(al, shown), shown, ""


@frame.cached
def decay_data(rho: float, seed: int):
    dec = beyond.decay_demo(DECAY_D, chapter.BASE, rho, seed)
    return dec, {"bound": bc.bound_figure(dec), "score": bc.score_figure(dec)}


@frame.cached
def precision_data(seed: int):
    pr = beyond.precision_demo(DECAY_D, chapter.BASE, seed)
    window = beyond.bf16_positions(*BF16_WINDOW)
    context = beyond.bf16_context(TYPICAL_L_TRAIN)
    return pr, window, context, {"angle": bc.angle_error_figure(pr), "pairs": bc.pair_error_figure(pr),
                                 "offset": bc.offset_figure(pr), "bf16": bc.bf16_figure(window)}


# ---------------------------------------------------------------- Predict, at its own (typical) setting
typical = beyond.stretch_demo(TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN, chapter.BASE)
t_slow = typical.rotations < 1
t_first = int(np.argmax(t_slow))
frame.predict(
    f"A model with head dimension {TYPICAL_D} (base {BASE:,}) was trained on {TYPICAL_L_TRAIN:,}-token texts and "
    f"now reads {typical.L_new:,} tokens (s = {TYPICAL_S}). Which of its {typical.pairs} frequency pairs meet "
    "rotation angles they never saw in training?",
    ["The fast pairs: they turn the most", f"The slow pairs, which never finish a turn within {TYPICAL_L_TRAIN:,} "
     "tokens", f"Every pair: every angle past token {TYPICAL_L_TRAIN:,} is new", "None: an angle repeats every turn"],
    1,
    f"The slow ones. Pairs {t_first} to {typical.pairs - 1} (0-based; {int(t_slow.sum())} of {typical.pairs}) have "
    f"wavelengths longer than {TYPICAL_L_TRAIN:,} tokens, so training showed each of them only the angles from 0 to "
    f"{TYPICAL_L_TRAIN:,}·θ_i, less than one turn. At {typical.L_new:,} tokens they reach up to "
    f"{typical.overreach['RoPE as trained']:.3g}× further. The fast pairs went round many times (pair 0: "
    f"{typical.rotations[0]:,.0f} turns), and an angle repeats after a full turn, so nothing they meet is new. "
    f"This is {TYPICAL_SOURCE} (Peng et al. 2023), and the page opens on it.",
    key="stretch_predict",
)


# ---------------------------------------------------------------- the key chart and the four fixes
def key_chart(res, figs, s: int, L_train: int) -> None:
    frame.chart(figs["turns"])

    slow = res.rotations < 1
    n_slow = int(slow.sum())
    first = int(np.argmax(slow))
    past = res.overreach["RoPE as trained"]
    if n_slow and s > 1:
        measured = (f"{n_slow} of {pairs(res.pairs)} (pairs {first} to {res.pairs - 1}) reach up to {past:.3g}× the "
                    f"largest angle they saw, at s·L_train = {res.L_new:,} tokens")
    elif n_slow:
        measured = "s = 1: the text is no longer than in training, so no pair goes past its trained angles"
    else:
        measured = f"every pair finishes a turn within {L_train:,} tokens here, so none has an unseen angle"
    frame.verdict("unchanged RoPE turns the slow pairs past every angle they saw in training", n_slow > 0 and s > 1,
                  measured)
    st.markdown(
        f"A learned table has no row at position {L_train + 1:,}. RoPE computes any position — but pair i turns by "
        f"θ_i per token, and a pair whose wavelength 2π/θ_i is longer than L_train = {L_train:,} never finished a "
        f"turn in training: it has only seen angles from 0 to L_train·θ_i. Read a longer text and those pairs turn "
        f"the {frame.term('query')} and {frame.term('key')} to angles the model never learned to read: the ticks "
        f"mark how far each slow pair turns at s·L_train = {res.L_new:,} tokens, and every angle between a bar's top "
        "and its tick is new. Pair indices i count from 0, as RoPE code does."
    )
    frame.formula(r"r_i = \frac{L_\text{train}}{\lambda_i} = \frac{L_\text{train}\,\theta_i}{2\pi}",
                  r"\theta_i = \text{base}^{-2i/d},\quad i = 0,\dots,\tfrac d2 - 1")


def stretch_fixes(res, figs, s: int) -> None:
    """Below the subheader: the wavelength, slow-down and ramp charts, the verdicts, the asides."""
    n_slow = int((res.rotations < 1).sum())
    frame.chart(figs["wavelength"])
    left, right = st.columns([3, 2])
    with left:
        frame.chart(figs["ratio"])
    with right:
        frame.chart(figs["ramp"])
    st.caption("Pick a method in the “Highlight” menu under a chart; hover a point for its numbers. Lines differ by "
               "colour, dash and marker; where they part, each is named on the chart.")

    f, theta = res.frequencies, res.theta
    pi_past = int(res.unseen["PI"].sum())
    frame.verdict("PI pushes no pair past the angles it saw in training", pi_past == 0,
                  f"{pairs(pi_past)} past at {res.L_new:,} tokens; but the fastest pair now turns "
                  f"{f['PI'][0]:.3g} rad per token instead of {theta[0]:.3g}")
    ntk_past = int(res.unseen["NTK-aware"].sum())
    frame.verdict("NTK-aware keeps the fastest pair but still lets some slow pairs past their trained angles",
                  ntk_past > 0 and f["NTK-aware"][0] == theta[0],
                  f"fastest pair {f['NTK-aware'][0]:.3g} rad per token (was {theta[0]:.3g}); {pairs(ntk_past)} past, "
                  f"by up to {res.overreach['NTK-aware']:.3g}×" if ntk_past else
                  f"fastest pair {f['NTK-aware'][0]:.3g} rad per token (was {theta[0]:.3g}); no pair past")
    keep = res.ramp == 0
    yarn_past = int(res.unseen["YaRN"].sum())
    frame.verdict("YaRN keeps the fast pairs exactly and pushes no pair past its trained angles",
                  bool(keep.any()) and bool(np.array_equal(f["YaRN"][keep], theta[keep])) and yarn_past == 0,
                  f"pairs 0 to {int(keep.sum()) - 1} unchanged, {pairs(yarn_past)} past" if keep.any() else
                  f"no pair is kept as it was here (low = {res.low}); {pairs(yarn_past)} past")
    if s > 1:
        st.markdown(
            f"- **PI** (position interpolation) divides every frequency by s = {s}: the slow pairs stay within "
            f"their trained angles, and so does everything else — neighbouring words now differ by only "
            f"{f['PI'][0]:.3g} rad in the fastest pair.\n"
            f"- **NTK-aware** raises the base to {res.ntk_base:,.0f}: the fastest pair is untouched, the slowest is "
            "divided by s, the ones between by less — so a few slow pairs still go a little past.\n"
            f"- **YaRN** keeps pairs 0 to {res.low} as they were, divides the pairs from {res.high} on by s and "
            "blends the ones between.\n"
            f"- **Dynamic NTK** picks its base for the length in front of it: at seq_len = {res.seq_len:,} its "
            f"scale is s·L/L_train − (s − 1) = {res.dynamic_scale:.4g} (1 up to L_train)."
        )
    else:
        st.markdown("With **s = 1**, PI, NTK-aware and YaRN change nothing: every line sits on RoPE as trained.")

    with frame.deeper("every method in numbers, and YaRN's attention factor", key="st_deep_methods"):
        rules = {"RoPE as trained": "θ_i", "PI": "θ_i / s", "NTK-aware": f"base' = {res.ntk_base:,.0f}",
                 "Dynamic NTK": f"base' = {res.dynamic_base:,.0f} (scale {res.dynamic_scale:.4g})",
                 "YaRN": f"ramp between pairs {res.low} and {res.high}"}
        table = {"method": list(beyond.METHODS), "rule": [rules[m] for m in beyond.METHODS],
                 "judged at": [res.eval_length[m] for m in beyond.METHODS],
                 "θ'₀ (rad/token)": [float(f[m][0]) for m in beyond.METHODS],
                 "slowest λ'": [round(float(2 * np.pi / f[m][-1])) for m in beyond.METHODS],
                 "pairs past": [int(res.unseen[m].sum()) for m in beyond.METHODS],
                 "overreach ×": [res.overreach[m] for m in beyond.METHODS]}
        if not n_slow:
            del table["overreach ×"]  # no pair that never turned: nothing can overreach
        frame.table(table, column_config={"θ'₀ (rad/token)": st.column_config.NumberColumn(format="%.4g"),
                                          "slowest λ'": st.column_config.NumberColumn(format="localized"),
                                          "judged at": st.column_config.NumberColumn(format="localized"),
                                          "overreach ×": st.column_config.NumberColumn(format="%.3g")})
        st.caption("θ'₀: the fastest pair's angle between neighbouring words. Slowest λ': the slowest pair's "
                   "wavelength, in tokens. “Pairs past”: pairs that never finished a turn within L_train and whose "
                   "angle at the length judged exceeds the largest they reached in training; “overreach”: the worst "
                   "such ratio (≤ 1 is safe). Dynamic NTK is judged at its own seq_len.")
        m1, m2 = st.columns(2)
        m1.metric("YaRN attention factor (mscale)", f"{res.attention_factor:.4f}",
                  help="0.1·ln s + 1; it multiplies cos and sin.")
        m2.metric("attention logits scaled by", f"{res.attention_factor ** 2:.4f}",
                  help="q and k both carry the factor, so their dot product carries its square.")
        st.markdown("YaRN also multiplies cos and sin by mscale = 0.1·ln s + 1, so every score grows by mscale²: a "
                    f"longer text spreads the {frame.term('softmax')} over more words, and the sharper scores make up "
                    "for it.")
        if res.high > res.pairs - 1:
            st.caption(f"high = {res.high} is past the last pair ({res.pairs - 1}): Hugging Face clamps the ramp "
                       "ends to d − 1, not d/2 − 1, so here no pair is fully interpolated.")

    with frame.deeper("the formulas, and whose they are", key="st_deep_formulas"):
        frame.formula(
            r"\text{PI:}\quad \theta'_i = \theta_i / s",
            r"\text{NTK-aware:}\quad \text{base}' = \text{base}\cdot s^{\,d/(d-2)},\qquad "
            r"\theta'_i = \text{base}'^{\,-2i/d}",
            r"\text{Dynamic NTK:}\quad \text{base}' = \text{base}\cdot\Big(\frac{s\,L}{L_\text{train}} - (s-1)\Big)"
            r"^{d/(d-2)}",
            r"L = \max(\text{seq\_len}, L_\text{train})",
            r"\text{YaRN:}\quad c(r) = \frac{d\,\ln\!\big(L_\text{train}/(2\pi r)\big)}{2\ln \text{base}},\quad "
            r"\text{low} = \lfloor c(32)\rfloor,\ \text{high} = \lceil c(1)\rceil",
            r"\gamma_i = \operatorname{clip}\Big(\frac{i-\text{low}}{\text{high}-\text{low}}, 0, 1\Big),\qquad "
            r"\theta'_i = (1-\gamma_i)\,\theta_i + \gamma_i\,\frac{\theta_i}{s}",
            r"\text{mscale} = 0.1\ln s + 1",
        )
        st.markdown(
            "- **PI**: Chen et al. 2023, *Extending Context Window of Large Language Models via Positional "
            "Interpolation*.\n"
            "- **NTK-aware**: the “NTK-aware scaled RoPE” proposed by bloc97 on Reddit (r/LocalLLaMA) in June 2023, "
            "and written up as Definition 1 in §3.1 of the YaRN paper; Code Llama's larger base is the same idea set "
            "by hand. Hugging Face's `modeling_rope_utils` has no static NTK-aware option — only the dynamic one.\n"
            "- **Dynamic NTK**: as Hugging Face's `_compute_dynamic_ntk_parameters` computes it.\n"
            "- **YaRN**: Peng et al. 2023 (§3.2–3.4), as Hugging Face's `_compute_yarn_parameters` computes it: the "
            "code ramps linearly in the pair index i, the paper linearly in the number of turns."
        )


@frame.section("Past the trained length")
def stretching() -> None:
    c1, c2, c3, c4 = st.columns([1.9, 1, 1, 1], vertical_alignment="bottom")
    with c1:
        d = int(frame.number("Head dimension d (this page's own head dimension, separate from the sidebar's d)",
                             "st_d", 4, 512, TYPICAL_D, step=2,
                             help="Width of one attention head's q and k; RoPE turns them in d/2 pairs."))
    with c2:
        L_train = int(frame.number("Trained context L_train", "st_L", 16, 1_000_000, TYPICAL_L_TRAIN,
                                   help="The longest text the model saw in training, in tokens."))
    with c3:
        s = int(frame.slider("Stretch factor s", "st_s", 1, 64, TYPICAL_S,
                             help="New context ÷ trained context: the model must now read s·L_train tokens."))
    with c4:
        base = int(frame.number("RoPE base", "st_base", 10, 10_000_000, BASE,
                                help=f"θ_i = base^(−2i/d). {BASE:,} in the original RoPE; Llama 3 uses 500,000."))
    if d % 2:
        st.error(f"The head dimension must be even: RoPE turns the dimensions in pairs, and {d} is odd.",
                 icon=":material/error:")
        return
    top = st.container()  # the key chart goes here, drawn once the dynamic-NTK length below is known
    st.subheader("Four ways to slow the pairs down")
    kept = int((typical.ramp == 0).sum())
    frame.predict(
        f"In the same setting (head dimension {TYPICAL_D}, L_train = {TYPICAL_L_TRAIN:,}, s = {TYPICAL_S}), which "
        "pairs does YaRN leave exactly as they were?",
        ["None: YaRN slows every pair by s, like PI", "The fast pairs, which turn many times within L_train",
         "The slow pairs, which never finish a turn", "Only the pairs in the middle"],
        1,
        f"The fast pairs: their ramp γ_i is 0, so θ'_i = θ_i. That is pairs 0 to {kept - 1} ({kept} pairs: pair 0 "
        f"makes {typical.rotations[0]:,.0f} turns within L_train, pair {kept - 1} still "
        f"{typical.rotations[kept - 1]:.3g}). They have seen every angle many times over, so a longer text shows "
        f"them nothing new; slowing them (as PI does) would only blur neighbouring words. The "
        f"{int((typical.ramp == 1).sum())} slowest pairs are divided by s and the ones between are blended: see "
        "the ramp below (at the page's opening values).",
        key="stretch_yarn",
    )
    seq_len = int(frame.number(
        "Current length for dynamic NTK (seq_len)", "st_len", 1, 100_000_000, TYPICAL_SEQ_LEN,
        where=st.columns([1, 2])[0],
        help="Dynamic NTK recomputes its base for the text in front of it; up to L_train it changes nothing. "
             "Only its line moves."))
    res, figs = stretch_data(d, L_train, s, seq_len, base)
    with top:
        key_chart(res, figs, s, L_train)
    stretch_fixes(res, figs, s)


# ---------------------------------------------------------------- ALiBi
@frame.section("ALiBi: a penalty instead of a position vector")
def alibi() -> None:
    heads = int(frame.slider("ALiBi heads", "st_heads", 1, 16, 8,
                             help="Each head gets its own slope; the count need not be a power of two."))
    al, slopes_fig, heat_fig, shown, error = alibi_data(ex.sentence, ex.d, ex.seed, heads)
    st.markdown(f"ALiBi adds no vector and turns nothing: each head subtracts m_h·(i − j) from the "
                f"{frame.term('score')} of query i and key j, so the farther the key, the lower its score. The "
                "penalty depends only on the distance, so nothing changes at length L_train + 1.")
    frame.formula(r"\text{score}_{ij} = \frac{q_i\cdot k_j}{\sqrt d} - m_h\,(i-j)\quad (j \le i)",
                  r"q_i = x_i W_Q,\ k_j = x_j W_K\ \text{(word vectors only)}")
    left, right = st.columns([2, 3])
    with left:
        frame.chart(slopes_fig)
        if heads & (heads - 1):
            c = 1 << (heads.bit_length() - 1)
            st.caption(f"{heads} is not a power of two: heads 1 to {c} take the {c}-head slopes, heads {c + 1} to "
                       f"{heads} take every other slope of the {2 * c}-head series.")
    with right:
        if al is None:
            st.error(error, icon=":material/edit_note:")
            return
        frame.chart(heat_fig)
        note = (f" The sentence is long: the menu offers heads {', '.join(str(h + 1) for h in shown)} of {heads}, "
                "to keep the chart light." if len(shown) < heads else "")
        st.caption(f"The sidebar's sentence (d = {ex.d}, seed = {ex.seed}), causal: blank cells are masked (j > i). "
                   "Pick a head in the menu under the chart. All heads share W_Q and W_K here, so they differ only "
                   "by their slope." + note)
    if al.copies is None:
        st.info("This sentence repeats no word; type one twice in the sidebar to see ALiBi tell the copies apart.",
                icon=":material/info:")
        return
    j1, j2 = al.copies
    q = int(al.query)
    err = float(np.max(np.abs(al.copy_log_ratio - al.copy_expected)))
    frame.verdict(f"ALiBi gives the copies at positions {j1 + 1} and {j2 + 1} different weights, the nearer one "
                  f"ahead by exactly e^(m·{j2 - j1})", err < ALIBI_TOL,
                  f"query at position {q + 1}: largest |ln(w₂/w₁) − m·{j2 - j1}| over {heads} heads is {err:.1e} "
                  f"(tolerance {ALIBI_TOL:g})")
    with frame.deeper("the copies, head by head, and the slopes' rule", key="st_deep_copies"):
        w1, w2 = f"weight on position {j1 + 1}", f"weight on position {j2 + 1}"
        frame.table({"head": np.arange(1, heads + 1), "slope m": al.slopes,
                     w1: al.weights[:, q, j1], w2: al.weights[:, q, j2],
                     "ratio (later ÷ earlier)": np.exp(al.copy_log_ratio),
                     f"e^(m·{j2 - j1})": np.exp(al.copy_expected)},
                    column_config={k: st.column_config.NumberColumn(format="%.4g") for k in (
                        "slope m", w1, w2, "ratio (later ÷ earlier)", f"e^(m·{j2 - j1})")})
        st.caption(f"From the query at position {q + 1}. Without ALiBi the copies have the same key and get the "
                   "same weight.")
        frame.formula(
            r"n \text{ a power of two:}\quad m_h = 2^{-8h/n},\quad h = 1,\dots,n",
            r"\text{otherwise, } c = 2^{\lfloor\log_2 n\rfloor}:\quad \text{the } c\text{-head slopes, then }"
            r"2^{-8h/(2c)} \text{ for } h = 1, 3, 5, \dots \ (n - c \text{ of them})",
        )


# ---------------------------------------------------------------- RoPE's long-term decay
@frame.section("RoPE's long-term decay: a bound, not a promise")
def decay() -> None:
    rho = float(frame.slider("How well q matches k (correlation ρ)", "st_rho", 0.0, 1.0, 1.0, step=0.1,
                             help="q = ρ·k + √(1−ρ²)·noise. ρ = 1: a query looking for this very key; ρ = 0: "
                                  "unrelated q and k."))
    dec, figs = decay_data(rho, ex.seed)
    st.caption(f"This section uses head dimension {DECAY_D} and base {BASE:,}, whatever the first section's "
               "controls say.")
    g1, g2 = st.columns(2)
    with g1:
        frame.chart(figs["bound"])
    with g2:
        frame.chart(figs["score"])
    st.caption(f"“RoFormer's bound B(Δ)” is in its own units (B(0) = (d/2 + 1)/2 = {dec.b0:g}). “The actual score "
               f"÷ d” is the RoPE score divided by d, over {dec.n_samples} random (q, k) drawn with the sidebar's "
               f"seed {ex.seed}: the thick line is their mean (at Δ = 0 it is about ρ = {rho:g}, since the mean of "
               "q·k is ρ·d), the band holds the middle 90 %, the thin dashed line is one pair. Two different "
               "quantities, so two axes: compare their shapes.")
    late = dec.deltas[-max(1, dec.deltas.size // 10)]
    frame.verdict("on average, the score falls as the gap grows", dec.drop >= DECAY_DROP,
                  f"mean score ÷ d is {dec.mean[0]:.2f} at Δ = 0 and {dec.late_mean:.2f} on average for Δ ≥ "
                  f"{late:g} (a fall of at least {DECAY_DROP:g} counts)")
    mid = (dec.deltas.size - 1) // 2
    st.markdown(
        f"- The bound shrinks on the whole, but not steadily: it goes **up** at {dec.rises} of the "
        f"{dec.deltas.size - 1} steps shown.\n"
        f"- At Δ = {dec.deltas[mid]:g}, B has fallen to {dec.bound_rel[mid]:.0%} of B(0); the mean score ÷ d is "
        f"{dec.mean[mid]:.3f}, while the middle 90 % of pairs lie between {dec.p05[mid]:.3f} and "
        f"{dec.p95[mid]:.3f}. The average decays; a single pair need not.\n"
        + (f"- Here ρ = 0 (q unrelated to k): the mean stays near 0 (largest |mean| {dec.largest_mean:.3f}) — RoPE "
           "by itself prefers no distance; the decay needs a query that matches its key." if rho == 0 else
           "- Slide ρ to 0 (q unrelated to k): the mean goes flat near 0 — RoPE by itself prefers no distance.")
    )
    with frame.deeper("RoFormer's bound, step by step", key="st_deep_bound"):
        st.markdown("Write each pair of q and k as a complex number. For this app's rotation (pairs turned "
                    "counter-clockwise by p·θ_i, as on the RoPE page) the score of a query at m and a key at n is:")
        frame.formula(*sx.DECAY_IDENTITY)
        st.markdown(r"Here $\Delta = m - n$, the query's position minus the key's. Summation by parts (Abel) moves "
                    r"the sum onto the partial sums $S_j$; the convention $h_{d/2} = 0$ makes its last term vanish, "
                    r"and the bound follows. The plotted $B(\Delta)$ is the mean of $|S_j(\Delta)|$: it bounds every "
                    r"$(q, k)$ only up to the factor $\max_i |h_{i+1} - h_i| \cdot d/2$, and it is not the score of "
                    "any given pair.")
        frame.verdict(r"$(R_m q)\cdot(R_n k) = \operatorname{Re}\sum_i h_i\, e^{\mathrm{i}\Delta\theta_i}$ with "
                      r"$\Delta = m - n$",
                      dec.identity_error < IDENTITY_TOL,
                      f"largest difference {dec.identity_error:.0e} over (m, n) = "
                      + ", ".join(f"({m}, {n})" for m, n in chapter.PAIRS) + f" (tolerance {IDENTITY_TOL:g})")
        b0 = (DECAY_D / 2 + 1) / 2
        frame.verdict("B(0) = (d/2 + 1)/2", abs(dec.b0 - b0) < B0_TOL,
                      f"B(0) = {dec.b0:g} at d = {DECAY_D}, formula {b0:g}")


# ---------------------------------------------------------------- precision
@frame.section("Positions far past training: number formats", fragment=False)
def precision() -> None:
    pr, window, context, figs = precision_data(ex.seed)
    e = pr.pairs
    w = pr.worst_pair
    st.markdown(f"RoPE computes the angle p·θ_i for any position p — the chapter's “{DEFAULT_POSITION}, or "
                f"{chapter.HUGE_POSITION:,}”. At p = {pr.probe:,} the number format starts to matter (head "
                f"dimension {DECAY_D}, base {BASE:,}; positions p counted from 0, as RoPE code does).")
    t_angle, t_offset, t_bf16 = frame.tabs(["float32 angles", "Same gap, same score?", "bfloat16 positions"],
                                           key="st_prec")
    with t_angle:
        frame.chart(figs["angle"])
        frame.formula(r"\text{err}_i(p) = \big|\,\mathrm{fl}_{32}\big(\mathrm{fl}_{32}(p)\cdot"
                      r"\mathrm{fl}_{32}(\theta_i)\big) - p\,\theta_i\big|",
                      r"\text{err}(p) = \max_i \text{err}_i(p)")
        exact0 = e.error[0] == 0
        st.markdown(
            f"At p = {pr.probe:,} the worst float32 angle is off by **{e.error[w]:.3g} rad**, and it belongs to "
            f"**pair {w}**, not to the fastest pair"
            + (f": pair 0 is exact, because θ₀ = 1 and p = {pr.probe:,} are both float32 numbers, and so is their "
               "product. " if exact0 else ". ")
            + f"Pair {w}'s angle p·θ_{w} = {e.angle[w]:,.1f} rad lies where neighbouring float32 numbers are "
            f"{e.spacing[w]:g} apart, so rounding the product costs up to {e.spacing[w] / 2:g} rad (here "
            f"{e.product_part[w]:.3g}); storing θ_{w} in float32 costs another p·|fl₃₂(θ_{w}) − θ_{w}| = "
            f"{e.theta_part[w]:.3g} rad. Both parts grow with the size of the angle p·θ_i, so the error is largest "
            "among the fast pairs — except where the float32 inputs and product happen to be exact — and shrinks "
            "towards the slow pairs."
        )
        with frame.deeper("every pair's error at this position", key="st_deep_pairs"):
            frame.chart(figs["pairs"])
            top = np.argsort(-e.error)[:4]
            st.caption("Largest errors: " + ", ".join(f"pair {int(i)}: {e.error[i]:.3g} rad" for i in top)
                       + ". Ticks: the most float32 rounding allows for that pair (half a float32 step at p·θ_i, plus "
                       "p times half a step at θ_i).")
    with t_offset:
        frame.chart(figs["offset"])
        frame.formula(r"\text{drift}(m) = \big|\,\langle R_{m}q,\ R_{m+g}k\rangle - \langle R_0 q,\ R_g k\rangle\big|"
                      r"/\sqrt d \;=\; 0 \text{ in exact arithmetic}")
        v64, v32, vb = (pr.probe_offset[t] for t in ("float64", "float32", "bfloat16"))
        frame.verdict("in float64 the same gap still gives the same score", v64 < OFFSET_TOL,
                      f"drift {v64:.1e} at m = {pr.probe:,}, gap {pr.gap} (tolerance {OFFSET_TOL:g})")
        frame.verdict("in float32 the same gap no longer gives the same score", v32 >= OFFSET_TOL,
                      f"drift {v32:.2g} at m = {pr.probe:,} on a score of size ~1 (tolerance {OFFSET_TOL:g})")
        st.markdown(f"Compute p·θ in float64 and cast afterwards. bfloat16 breaks the promise from the first "
                    f"hundreds of positions on (drift {vb:.2g} at {pr.probe:,}): its angles keep 8 bits.")
    with t_bf16:
        b1, b2 = st.columns([3, 2])
        with b1:
            frame.chart(figs["bf16"])
        with b2:
            st.metric(f"{BF16_FIRST_LOST} stored in bf16", f"{float(to_bf16(float(BF16_FIRST_LOST))):g}")
            st.metric(f"distinct positions kept, {BF16_WINDOW[0]} to {BF16_WINDOW[1]}",
                      f"{window.distinct} of {window.positions.size}")
            st.metric(f"distinct positions kept, 0 to {TYPICAL_L_TRAIN - 1:,}",
                      f"{context.distinct:,} of {TYPICAL_L_TRAIN:,}")
        lost_as = float(to_bf16(float(BF16_FIRST_LOST)))
        st.caption(f"bfloat16 keeps 8 significant bits: every integer up to {BF16_EXACT_UP_TO}, then only every "
                   f"2nd, 4th, 8th, … Position {BF16_FIRST_LOST} is stored as {lost_as:g}: two words get the same "
                   "angle, the same rotation, the same everything. Positions here count from 0, as stored by code.")
        with frame.deeper(f"bfloat16 over a {TYPICAL_L_TRAIN:,}-token context, band by band", key="st_deep_bf16"):
            frame.table(dict(zip(["first", "last", "positions", "distinct in bf16", "largest error"],
                                 map(list, zip(*context.bands)))))


frame.show_code(beyond.stretch_demo, sx.pi_frequencies, sx.ntk_frequencies, sx.dynamic_ntk_frequencies,
                sx.yarn_correction_range, sx.yarn_frequencies, sx.yarn_attention_factor, sx.alibi_slopes,
                sx.alibi_bias, beyond.alibi_attention, beyond.decay_demo, sx.decay_bound, sx.rope_score_sum,
                sx.abel_bound, angle_error_f32, angle_errors_f32, to_bf16, rope_offset_error)
frame.bridge(PATH, "That is the end of the chapter: word order enters attention through the vectors (a table, "
                   "sinusoids), the rotation of q and k (RoPE) or the scores themselves (ALiBi) — and every choice "
                   "has a limit you can now see coming.")

import functools

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
    TYPICAL_L_TRAIN,
)
from posenc.charts import beyond as bc
from posenc.core import count, signed, tokenize
from posenc.precision import angle_error_f32, angle_errors_f32, rope_offset_error, to_bf16

PATH = "lessons/beyond.py"
BASE = int(chapter.BASE)
MAX_HEADS, DEFAULT_HEADS = 16, 8
BF16_FIRST_LOST = BF16_EXACT_UP_TO + 1  # the first whole number bfloat16 cannot hold
DRIFT_OPTIONS = ("from m = 1: at once", "from about m = 256", "from about m = 65,536", "not before m = 100,000,000")


def drift_option(first: int | None) -> int:
    """Which of ``DRIFT_OPTIONS`` a first drifting position falls under."""
    if first is None:
        return 3
    return 0 if first <= 16 else 1 if first <= 4096 else 2 if first <= 10**7 else 3


def alibi_figures(sentence: str, d: int, seed: int, heads: int):
    al = beyond.alibi_attention(sentence, d, seed, heads)
    return al, bc.alibi_figure(al), bc.slopes_figure(al.slopes, al.base_heads)


alibi_data = frame.cached(alibi_figures)
# the running example's layouts for every head count, built ahead once per process (a layout follows the count)
frame.warm("beyond: every head count", (functools.partial(alibi_figures, frame.DEFAULT_SENTENCE, frame.DEFAULT_D,
                                                          frame.DEFAULT_SEED, h) for h in range(1, MAX_HEADS + 1)))


@frame.cached
def decay_data(seed: int):
    sc = beyond.score_curves(DECAY_D, chapter.BASE, seed)
    dec = beyond.decay_demo(DECAY_D, chapter.BASE, 1.0, seed)
    return sc, dec, bc.score_figure(sc), bc.bound_figure(dec)


@frame.cached
def precision_data(seed: int):
    pr = beyond.precision_demo(DECAY_D, chapter.BASE, seed)
    first = {t: beyond.first_drift(t, OFFSET_TOL, seed=seed, upto=10**8) for t in ("float32", "bfloat16")}
    window = beyond.bf16_positions(*BF16_WINDOW)
    context = beyond.bf16_context(TYPICAL_L_TRAIN)
    return pr, first, window, context, {"offset": bc.offset_figure(pr), "angle": bc.angle_error_figure(pr),
                                        "pairs": bc.pair_error_figure(pr), "bf16": bc.bf16_figure(window)}


def alibi_rest(q, al, heads: int, own: bool, slopes, deep) -> None:
    """Under the ALiBi chart: its answer, check, prose and Deeper."""
    j1, j2 = al.copies
    qp = int(al.query)
    ratio = float(np.exp(al.copy_log_ratio[0]))
    said = (f"The nearer one. With head 1's slope m = {al.slopes[0]:.3g}, the copy at {j2 + 1} gets "
             f"{al.weights[0, qp, j2]:.3f} and the one at {j1 + 1} gets {al.weights[0, qp, j1]:.3f}: "
             f"{ratio:.3g} times as much, which is e^(m·{j2 - j1}) — the distance alone tells them apart. "
             f"Without ALiBi both get {al.plain_weights[qp, j1]:.3f}.")
    err = float(np.max(np.abs(al.copy_log_ratio - al.copy_expected)))
    frame.verdict(f"ALiBi gives the copies at positions {j1 + 1} and {j2 + 1} different weights, the nearer one "
                  f"ahead by exactly e^(m·{j2 - j1})", err < ALIBI_TOL,
                  f"query at position {qp + 1}: largest |ln(w₂/w₁) − m·{j2 - j1}| over "
                  f"{count(heads, 'head')} is {err:.1e} (tolerance {ALIBI_TOL:g})")
    far = len(al.tokens) - 1
    gentle = (f"; the gentlest (m = {al.slopes[-1]:.3g}) takes at most {al.slopes[-1] * far:.2g} off any score here"
              if heads > 1 else "")
    q.answer(said, then=(
        f"Each head subtracts m_h·(i − j) from the {frame.term('score')} of query i and key j: head 1 "
        f"(m = {al.slopes[0]:.3g}) takes {al.slopes[0] * far:.2g} off a key {count(far, 'word')} back{gentle}. "
        "It depends on the distance alone, so nothing new happens at position L_train + 1."
        + ("" if own else " Type a word twice in the sidebar to use your own sentence.")))
    with deep:
        frame.chart(slopes)
        frame.formula(r"\text{score}_{ij} = \frac{q_i\cdot k_j}{\sqrt d} - m_h\,(i-j)\quad (j \le i)",
                      r"n \text{ a power of two:}\quad m_h = 2^{-8h/n},\quad h = 1,\dots,n",
                      r"\text{otherwise, } c = 2^{\lfloor\log_2 n\rfloor}:\ \text{the } c\text{-head slopes, "
                      r"then } 2^{-8h/(2c)} \text{ for } h = 1, 3, 5, \dots")
        c = al.base_heads
        if heads != c:
            st.markdown(f"{heads} is not a power of two: heads 1 to {c} take the {c}-head slopes, "
                        + (f"head {c + 1} takes" if heads == c + 1 else f"heads {c + 1} to {heads} take")
                        + f" every other slope of the {2 * c}-head series.")
        w1, w2 = f"weight on {j1 + 1}", f"weight on {j2 + 1}"
        frame.table({"head": np.arange(1, heads + 1), "slope m": al.slopes, w1: al.weights[:, qp, j1],
                     w2: al.weights[:, qp, j2], "ratio": np.exp(al.copy_log_ratio)},
                    column_config={k: st.column_config.NumberColumn(format="%.4g")
                                   for k in ("slope m", w1, w2, "ratio")})


with frame.page(PATH, "Could a model say where with no position vector at all — and what happens to RoPE's score "
                      "far away?"):
    ex = frame.example()

    # ------------------------------------------------------------------------------------------ ALiBi
    @frame.section("ALiBi: a penalty instead of a position vector")
    def alibi() -> None:
        top = st.container()  # Predict and chart first; the count of heads (the chart's structure) under it
        rest = st.container()
        deep = frame.deeper("how many heads, and their slopes", key="by_deep_slopes")
        heads = int(frame.slider("How many heads (the chart's head slider runs over them)", "by_heads", 1, MAX_HEADS, DEFAULT_HEADS,
                                 where=deep,
                                 help="Each head gets its own slope; the count need not be a power of two."))
        try:  # a sentence with no words stops this section only: the decay and the formats need none
            tokens = tokenize(ex.sentence)
        except ValueError as err:
            st.error(str(err), icon=":material/edit_note:")
            return
        own = len(chapter.copies(tokens)) >= 2
        sentence = ex.sentence if own else chapter.SENTENCE
        try:
            al, heat, slopes = alibi_data(sentence, ex.d, ex.seed, heads)
        except ValueError as err:
            st.error(str(err), icon=":material/edit_note:")
            return
        j1, j2 = al.copies
        qp = int(al.query)
        where = "" if own else "Your sentence repeats no word, so this uses the chapter's. "
        with top:
            q = frame.predict(
                f"{where}Positions {j1 + 1} and {j2 + 1} hold the same word (same key): reading from {qp + 1}, which "
                "copy does ALiBi's head 1 weigh more?",
                [f"the nearer one (position {j2 + 1})", f"the farther one (position {j1 + 1})",
                 "neither: same key, same weight"], 0, key="by_predict")
            frame.chart(heat, play="by_head")
        with rest:
            alibi_rest(q, al, heads, own, slopes, deep)


    # ------------------------------------------------------------------------------------------ long-term decay
    @frame.section("RoPE's long-term decay: a bound, not a promise")
    def decay() -> None:
        sc, dec, score_fig, bound_fig = decay_data(ex.seed)
        q = frame.predict(
            "q matches k (ρ = 1). As their gap grows from 0 to 1,000 tokens, what does RoPE do to the score?",
            ["nothing", "it falls on average, not steadily", "it falls steadily for every pair"], 1, key="by_decay")
        frame.chart(score_fig, play="by_rho")
        m = sc.mean(1.0)
        tail = max(1, sc.deltas.size // 10)
        late = float(np.mean(m[-tail:]))
        spread = 1.645 * float(np.mean(sc.sd(1.0)[-tail:]))
        falls = m[0] - late >= DECAY_DROP
        rises = int(np.sum(np.diff(m) > 0))
        said = ((f"On average it falls: from {m[0]:.2f} at Δ = 0 to {late:.2f} for Δ ≥ {sc.deltas[-tail]:g}. "
                  if falls else f"On average it barely moves ({m[0]:.2f} to {late:.2f}). ")
                 + f"Not steadily: the mean goes up again at {rises} of its {m.size - 1} steps, and any one (q, k) "
                 f"swings by about ±{spread:.2f} around it far away — the decay is a tendency of the average, "
                "never a promise for a pair.")
        frame.verdict("at ρ = 1, on average the score falls as the gap grows", dec.drop >= DECAY_DROP,
                      f"mean score ÷ d {dec.mean[0]:.2f} at Δ = 0 and {dec.late_mean:.2f} for Δ ≥ "
                      f"{dec.deltas[-tail]:g} over {dec.n_samples} random (q, k) (a fall of at least {DECAY_DROP:g} "
                      "counts)")
        gap = float(np.max(np.abs(dec.mean - m)))  # decay_data's draws (ρ = 1, this seed)
        frame.verdict("the chart's closed-form mean agrees with the mean over random (q, k)", gap < 0.05,
                      f"largest difference {gap:.3f} over {dec.n_samples} draws (tolerance 0.05: sampling noise)")
        q.answer(said, then=(
            "Slide **ρ** towards 0 (q unrelated to k): the mean flattens to 0 — RoPE by itself prefers no distance. "
            f"Head dimension {DECAY_D}, base {BASE:,}; the mean is ρ·(2/d)·Σ cos(Δθ_i), the band mean ± 1.645 "
            "standard deviations (about the middle 90 % of pairs)."))
        with frame.deeper("RoFormer's bound, step by step", key="by_deep_bound"):
            frame.chart(bound_fig)
            st.markdown(f"The bound shrinks on the whole, but not steadily: it goes **up** at {dec.rises} of the "
                        f"{dec.deltas.size - 1} steps shown. Write each pair of q and k as a complex number; for this "
                        "app's rotation (pairs turned counter-clockwise by p·θ_i, as on the RoPE page) the score of "
                        "a query at m and a key at n is:")
            frame.formula(*sx.DECAY_IDENTITY)
            st.markdown(r"Here $\Delta = m - n$. Summation by parts (Abel) moves the sum onto the partial sums "
                        r"$S_j$; $h_{d/2} = 0$ makes its last term vanish. The plotted $B(\Delta)$ bounds every "
                        r"$(q, k)$ only up to the factor $\max_i |h_{i+1} - h_i| \cdot d/2$: it is not the score "
                        "of any given pair.")
            frame.verdict(r"$(R_m q)\cdot(R_n k) = \operatorname{Re}\sum_i h_i\, e^{\mathrm{i}\Delta\theta_i}$ with "
                          r"$\Delta = m - n$", dec.identity_error < IDENTITY_TOL,
                          f"largest difference {dec.identity_error:.0e} over (m, n) = "
                          + ", ".join(f"({a}, {b})" for a, b in chapter.PAIRS) + f" (tolerance {IDENTITY_TOL:g})")
            b0 = (DECAY_D / 2 + 1) / 2
            frame.verdict("B(0) = (d/2 + 1)/2", abs(dec.b0 - b0) < B0_TOL,
                          f"B(0) = {dec.b0:g} at d = {DECAY_D}, formula {b0:g}")

    # ------------------------------------------------------------------------------------------ precision
    @frame.section("Positions far past training: number formats", fragment=False)
    def precision() -> None:
        pr, first, window, context, figs = precision_data(ex.seed)
        q = frame.predict(
            f"Two words {pr.gap} apart move to m (in exact maths, the same score). From which m does bfloat16 "
            f"change it by {OFFSET_TOL:g} or more?",
            list(DRIFT_OPTIONS), drift_option(first["bfloat16"]), key="by_precision")
        frame.chart(figs["offset"])
        v64, v32, vb = (pr.probe_offset[t] for t in ("float64", "float32", "bfloat16"))
        fb = first["bfloat16"]
        said = {t: (f"first drifts that much at m = {first[t]:,}" if first[t] is not None
                    else "never drifts that much up to m = 100,000,000") for t in first}
        text = (f"bfloat16 {said['bfloat16']}" + (", the first position past 0" if fb == 1 else "")
                 + f": it keeps 8 significant bits, so θ_i and p·θ_i are rounded at once. float32 {said['float32']}; "
                 f"at m = {pr.probe:,} its drift is {v32:.2g} on a score of size ~1, bfloat16's {vb:.2g}, float64's "
                 f"{v64:.1e}.")
        frame.verdict("in float64 the same gap still gives the same score", v64 < OFFSET_TOL,
                      f"drift {v64:.1e} at m = {pr.probe:,}, gap {signed(pr.gap)} (tolerance {OFFSET_TOL:g})")
        frame.verdict("in float32 the same gap no longer gives the same score", v32 >= OFFSET_TOL,
                      f"drift {v32:.2g} at m = {pr.probe:,} (tolerance {OFFSET_TOL:g})")
        q.answer(text, then=f"Head dimension {DECAY_D}, base {BASE:,}; positions count from 0, as code stores "
                            "them. The cure: compute p·θ in float64 and cast afterwards.")
        with frame.deeper("float32 angles pair by pair, and bfloat16 positions", key="by_deep_formats"):
            e, w = pr.pairs, pr.worst_pair
            frame.chart(figs["angle"])
            frame.chart(figs["pairs"])
            exact0 = e.error[0] == 0
            st.markdown(
                f"At p = {pr.probe:,} the worst float32 angle is off by **{e.error[w]:.3g} rad**, and it belongs to "
                f"**pair {w}**" + (", not to the fastest pair" if w else "")
                + (f": pair 0 is exact, because θ₀ = 1 and p = {pr.probe:,} are both float32 numbers, and so is "
                   "their product. " if exact0 else ". ")
                + f"Pair {w}'s angle {e.angle[w]:,.1f} rad lies where neighbouring float32 numbers are "
                f"{e.spacing[w]:g} apart, so rounding the product costs up to {e.spacing[w] / 2:g} rad (here "
                f"{e.product_part[w]:.3g}); storing θ_{w} in float32 costs another {e.theta_part[w]:.3g} rad. Ticks: "
                "the most float32 rounding allows for each pair.")
            frame.chart(figs["bf16"])
            lost_as = float(to_bf16(float(BF16_FIRST_LOST)))
            st.markdown(f"bfloat16 keeps 8 significant bits: every integer up to {BF16_EXACT_UP_TO}, then only "
                        f"every 2nd, 4th, 8th, … Position {BF16_FIRST_LOST} is stored as {lost_as:g}: two words get "
                        f"the same angle, the same rotation, the same everything. Of positions {BF16_WINDOW[0]} to "
                        f"{BF16_WINDOW[1]}, {window.distinct} of {window.positions.size} stay distinct; of 0 to "
                        f"{TYPICAL_L_TRAIN - 1:,}, {context.distinct:,} of {TYPICAL_L_TRAIN:,}.")
            frame.table(dict(zip(["first", "last", "positions", "distinct in bf16", "largest error"],
                                 map(list, zip(*context.bands)))))

    frame.show_code(sx.alibi_slopes, sx.alibi_bias, beyond.alibi_attention, beyond.score_curves, beyond.decay_demo,
                    sx.decay_bound, sx.rope_score_sum, sx.abel_bound, beyond.first_drift, rope_offset_error,
                    angle_error_f32, angle_errors_f32, to_bf16)
    frame.bridge(PATH, "That is the end of the chapter: word order enters attention through the vectors (a table, "
                       "sinusoids), the rotation of q and k (RoPE) or the scores themselves (ALiBi) — and every "
                       "choice has a limit you can now see coming.")

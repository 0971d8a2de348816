import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

import frame
from posenc import beyond
from posenc import stretch as sx
from posenc.charts import beyond as bc
from posenc.precision import angle_error_f32, rope_offset_error, to_bf16

PATH = "lessons/stretch.py"
BF16_WINDOW = (248, 272)
OFFSET_GAP = 3

frame.header(
    "Stretching the context",
    "A model meets a text longer than any it was trained on: RoPE's slow pairs see angles they never saw, "
    "and PI, NTK and YaRN fix that by slowing pairs down — ALiBi drops position vectors altogether.",
)

c1, c2, c3, c4 = st.columns(4)
with c1:
    d = frame.number("Head dimension d", "st_d", 4, 512, 128, step=2,
                     help="Width of one attention head's q and k (even: RoPE turns pairs). 128 is the chapter's "
                          "example; this is separate from the sidebar's d.")
with c2:
    L_train = frame.number("Trained context L_train", "st_L", 16, 1_000_000, 4096,
                           help="The longest text the model saw in training, in tokens.")
with c3:
    s = frame.slider("Stretch factor s", "st_s", 1, 64, 16,
                     help="New context ÷ trained context: the model must now read s·L_train tokens.")
with c4:
    base = frame.number("RoPE base", "st_base", 10, 10_000_000, 10000,
                        help="θ_i = base^(−2i/d). 10,000 in the original RoPE; Llama 3 uses 500,000.")
d, L_train, s, base = int(d), int(L_train), int(s), int(base)
frame.require(d % 2 == 0, f"The head dimension must be even: RoPE turns the dimensions in pairs, and {d} is odd.")


@st.cache_data(max_entries=32, show_spinner=False)
def run_stretch(d: int, L_train: int, s: int, seq_len: int, base: int):
    return beyond.stretch_demo(d, L_train, s, seq_len, float(base))


@st.cache_data(max_entries=32, show_spinner=False)
def run_alibi(sentence: str, d: int, seed: int, heads: int):
    return beyond.alibi_attention(sentence, d, seed, heads)


@st.cache_data(max_entries=32, show_spinner=False)
def run_decay(d: int, base: int, rho: float, seed: int):
    return beyond.decay_demo(d, float(base), rho, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def run_precision(d: int, base: int, seed: int):
    return beyond.precision_demo(d, float(base), seed, gap=OFFSET_GAP)


@st.cache_data(max_entries=32, show_spinner=False)
def run_bf16(L_train: int):
    return beyond.bf16_positions(*BF16_WINDOW), beyond.bf16_context(L_train)


# Chart specs are plain Vega-Lite dicts (posenc.charts.beyond), cached per chart on exactly the scalars that
# chart depends on, with their data already in Arrow: moving s rebuilds the two method charts and nothing else,
# and a rerun that changes nothing only reads the caches. Big results go in as `_res` (not hashed) next to the
# scalars that identify them.
def _arrow(records: list[dict]) -> bytes:
    table = pa.Table.from_pylist(records)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _ship(spec: dict) -> dict:
    """The spec with every dataset as Arrow bytes, the form st.vega_lite_chart sends to the browser."""
    return {**spec, "datasets": {name: _arrow(rows) for name, rows in spec["datasets"].items()}}


@st.cache_data(max_entries=32, show_spinner=False)
def spec_pairs(_res, d: int, L_train: int, base: int) -> list[dict]:
    # turns per pair and YaRN's ramp: neither depends on s or seq_len
    return [_ship(bc.rotations_spec(_res.theta, _res.rotations, L_train)),
            _ship(bc.ramp_spec(_res.ramp, _res.low, _res.high))]


@st.cache_data(max_entries=32, show_spinner=False)
def spec_methods(_res, d: int, L_train: int, s: int, seq_len: int, base: int) -> list[dict]:
    return [_ship(bc.wavelength_spec(_res.theta, _res.frequencies, _res.ramp, L_train, _res.L_new)),
            _ship(bc.ratio_spec(_res.theta, _res.frequencies, _res.ramp, _res.low, _res.high, s))]


@st.cache_data(max_entries=32, show_spinner=False)
def spec_slopes(heads: int) -> dict:
    return _ship(bc.slopes_spec(sx.alibi_slopes(heads), 1 << (heads.bit_length() - 1)))


@st.cache_data(max_entries=32, show_spinner=False)
def spec_alibi(_al, sentence: str, d: int, seed: int, heads: int) -> dict:
    shown = bc.alibi_heads_to_show(heads, len(_al.tokens))
    return _ship(bc.alibi_spec(_al.tokens, _al.slopes, _al.bias, _al.weights, _al.plain_weights, shown))


@st.cache_data(max_entries=32, show_spinner=False)
def spec_bound(_dec, d: int, base: int) -> dict:
    # RoFormer's bound depends on neither ρ nor the seed
    return _ship(bc.bound_spec(_dec.deltas, _dec.bound))


@st.cache_data(max_entries=32, show_spinner=False)
def spec_score(_dec, d: int, base: int, rho: float, seed: int) -> dict:
    return _ship(bc.score_spec(_dec.deltas, _dec.mean, _dec.p05, _dec.p95, _dec.single, _dec.n_samples))


@st.cache_data(max_entries=32, show_spinner=False)
def spec_angle(_pr, d: int, base: int) -> dict:
    # the float32 angle error does not depend on the seed
    return _ship(bc.angle_error_spec(_pr.positions, _pr.angle_error, _pr.probe))


@st.cache_data(max_entries=32, show_spinner=False)
def spec_offset(_pr, d: int, base: int, seed: int) -> dict:
    return _ship(bc.offset_error_spec(_pr.positions, _pr.offset_error, _pr.gap, _pr.probe, _pr.floor))


@st.cache_data(max_entries=32, show_spinner=False)
def spec_bf16() -> dict:
    window = beyond.bf16_positions(*BF16_WINDOW)
    return _ship(bc.bf16_spec(window.positions, window.stored))


def draw(spec: dict, width: str = "stretch") -> None:
    st.vega_lite_chart(spec, width=width)


ex = frame.example()
tab_stretch, tab_alibi, tab_decay, tab_prec = st.tabs(["Stretching", "ALiBi", "Long-term decay", "Precision"])

# ------------------------------------------------------------------------------------------------ stretching
with tab_stretch:
    seq_len = frame.number("Current length for dynamic NTK (seq_len)", "st_len", 1, 100_000_000, 8192,
                           help="Dynamic NTK recomputes its base for the text in front of it; up to L_train it "
                                "changes nothing.")
    res = run_stretch(d, L_train, s, int(seq_len), base)
    pairs = res.pairs
    slow = res.rotations < 1
    n_slow = int(slow.sum())

    st.subheader("Past the trained length")
    st.markdown(
        "A learned table simply has no row past L_train = {:,}: position {:,} has no vector at all. Sinusoids "
        "and RoPE go on forever — but a pair whose angle never completed a turn during training has only ever "
        "seen angles up to L_train·θ_i.".format(L_train, L_train + 1)
    )
    pair_specs = spec_pairs(res, d, L_train, base)
    method_specs = spec_methods(res, d, L_train, s, int(seq_len), base)
    draw(pair_specs[0])
    if n_slow:
        first = int(np.argmax(slow))
        st.markdown(
            "**{} of {} pairs** (pairs {} … {}) never complete a turn within {:,} tokens. ".format(
                n_slow, pairs, first, pairs - 1, L_train)
            + ("At s·L_train = {:,} tokens, unchanged RoPE pushes them to angles up to **{:.3g}×** the largest "
               "they were trained on.".format(res.L_new, res.overreach["RoPE as trained"]) if s > 1 else
               "With s = 1 the text is no longer than in training, so they meet nothing new — yet.")
        )
    else:
        st.markdown("Every one of the {} pairs completes at least one turn within {:,} tokens: with this base "
                    "and L_train, no pair meets a new angle.".format(pairs, L_train))
    frame.formula(r"r_i = \frac{L_\text{train}}{\lambda_i} = \frac{L_\text{train}\,\theta_i}{2\pi},"
                  r"\qquad \theta_i = \text{base}^{-2i/d},\quad i = 0,\dots,\tfrac d2 - 1")

    st.subheader("Four ways to slow the pairs down")
    draw(method_specs[0])
    left, right = st.columns([3, 2])
    with left:
        draw(method_specs[1])
    with right:
        draw(pair_specs[1])
    st.caption("Pick a method in the “Highlight” menu under a chart; hover any point for its numbers.")

    m1, m2, m3, m4 = st.columns(4)
    m1.metric("YaRN low", res.low, help="floor(c(32)): pairs up to here turn ≥ 32 times in L_train; kept.")
    m2.metric("YaRN high", res.high, help="ceil(c(1)): pairs from here on turn < 1 time; divided by s.")
    m3.metric("YaRN attention factor", f"{res.attention_factor:.4f}", help="0.1·ln s + 1, multiplies cos and sin.")
    m4.metric("logits scaled by", f"{res.attention_factor ** 2:.4f}", help="q and k both carry the factor.")
    if res.high > pairs - 1:
        st.caption("high = {} is past the last pair ({}): Hugging Face clamps the ramp ends to d − 1, not "
                   "d/2 − 1, so here no pair is fully interpolated.".format(res.high, pairs - 1))

    rows = []
    rules = {"RoPE as trained": "θ_i", "PI": "θ_i / s", "NTK-aware": "base' = {:,.0f}".format(res.ntk_base),
             "Dynamic NTK": "base' = {:,.0f} (scale {:.4g})".format(res.dynamic_base, res.dynamic_scale),
             "YaRN": "ramp between pairs {} and {}".format(res.low, res.high)}
    for m in beyond.METHODS:
        f = res.frequencies[m]
        rows.append({"method": m, "rule": rules[m], "judged at": res.eval_length[m],
                     "θ'₀ (rad/token)": float(f[0]),
                     "slowest λ'": round(float(2 * np.pi / f[-1])),
                     "pairs past": int(res.unseen[m].sum()),
                     "overreach ×": res.overreach[m]})
    table = pd.DataFrame(rows)
    if not n_slow:
        table = table.drop(columns="overreach ×")  # no pair that never turned: nothing can overreach
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={"θ'₀ (rad/token)": st.column_config.NumberColumn(format="%.4g"),
                                "slowest λ'": st.column_config.NumberColumn(format="localized"),
                                "judged at": st.column_config.NumberColumn(format="localized"),
                                "overreach ×": st.column_config.NumberColumn(format="%.3g")})
    st.caption("θ'₀: the fastest pair's angle between neighbouring words. Slowest λ': the slowest pair's "
               "wavelength, in tokens. “Pairs past”: pairs that never completed a turn within L_train and whose "
               "angle at the length judged exceeds the largest they reached in training; “overreach”: the worst "
               "such ratio (≤ 1 is safe).")

    ntk_past = int(res.unseen["NTK-aware"].sum())
    if s > 1:
        st.markdown(
            "- **PI** slows every pair by s: nothing overreaches, but the fastest pair now moves only {:.3g} rad "
            "between neighbouring words instead of {:.3g} — neighbours become harder to tell apart.\n"
            "- **NTK-aware** raises the base: the fastest pair is untouched and the slowest is divided by s; {}.\n"
            .format(float(res.frequencies["PI"][0]), float(res.theta[0]),
                    "{} slower pair(s) still overreach, by up to {:.3g}×".format(ntk_past, res.overreach["NTK-aware"])
                    if ntk_past else "no pair overreaches")
            + "- **YaRN** keeps the {} fastest pair(s) as they were, divides the {} slowest by s and blends the ones "
            "in between; {} pair(s) overreach.\n".format(int((res.ramp == 0).sum()), int((res.ramp == 1).sum()),
                                                          int(res.unseen["YaRN"].sum()))
        )
    else:
        st.markdown("- With **s = 1**, PI, NTK-aware and YaRN change nothing: every line sits on the original.")
    st.markdown(
        "- **Dynamic NTK** rescales for the length in front of it: at seq_len = {:,} its scale is "
        "s·L/L_train − (s − 1) = {:.4g} (Hugging Face's formula; 1 up to L_train).".format(res.seq_len,
                                                                                          res.dynamic_scale)
    )
    frame.formula(
        r"\text{PI:}\quad \theta'_i = \theta_i / s",
        r"\text{NTK-aware:}\quad \text{base}' = \text{base}\cdot s^{\,d/(d-2)},\qquad "
        r"\theta'_i = \text{base}'^{\,-2i/d}",
        r"\text{Dynamic NTK:}\quad \text{base}' = \text{base}\cdot\Big(\frac{s\,L}{L_\text{train}} - (s-1)\Big)"
        r"^{d/(d-2)},\quad L = \max(\text{seq\_len}, L_\text{train})",
        r"\text{YaRN:}\quad c(r) = \frac{d\,\ln\!\big(L_\text{train}/(2\pi r)\big)}{2\ln \text{base}},\quad "
        r"\text{low} = \lfloor c(32)\rfloor,\ \text{high} = \lceil c(1)\rceil",
        r"\gamma_i = \operatorname{clip}\Big(\frac{i-\text{low}}{\text{high}-\text{low}}, 0, 1\Big),\qquad "
        r"\theta'_i = (1-\gamma_i)\,\theta_i + \gamma_i\,\frac{\theta_i}{s},\qquad "
        r"\text{mscale} = 0.1\ln s + 1",
    )
    st.caption("As in Hugging Face transformers' modeling_rope_utils; YaRN's mscale multiplies cos and sin, "
               "so the attention logits grow by its square.")
    frame.show_code(beyond.stretch_demo, sx.pi_frequencies, sx.ntk_frequencies, sx.dynamic_ntk_frequencies,
                    sx.yarn_correction_range, sx.yarn_frequencies, sx.yarn_attention_factor)

# ------------------------------------------------------------------------------------------------ ALiBi
with tab_alibi:
    heads = int(frame.slider("ALiBi heads", "st_heads", 1, 16, 8,
                             help="Each head gets its own slope; the counts need not be powers of two."))
    st.subheader("No position vectors: a penalty that grows with distance")
    frame.formula(
        r"\text{score}_{ij} = \frac{q_i\cdot k_j}{\sqrt d} - m_h\,(i-j)\quad (j \le i),\qquad "
        r"q_i = x_i W_Q,\ k_j = x_j W_K\ \text{(word vectors only)}",
        r"n \text{ a power of two:}\quad m_h = 2^{-8h/n},\quad h = 1,\dots,n",
        r"\text{otherwise, } c = 2^{\lfloor\log_2 n\rfloor}:\quad \text{the } c\text{-head slopes, then }"
        r"2^{-8h/(2c)} \text{ for } h = 1, 3, 5, \dots \ (n - c \text{ of them})",
    )
    try:
        al = run_alibi(ex.sentence, ex.d, ex.seed, heads)
    except ValueError as err:
        st.error(str(err), icon=":material/edit_note:")
        al = None
    draw(spec_slopes(heads))
    if heads & (heads - 1):
        c = 1 << (heads.bit_length() - 1)
        st.caption("{} is not a power of two: heads 1 … {} take the {}-head slopes, heads {} … {} take every "
                   "other slope of the {}-head series.".format(heads, c, c, c + 1, heads, 2 * c))
    if al is not None:
        tokens = al.tokens
        n = len(tokens)
        st.markdown("**Attention on the running sentence** (sidebar: d = {}, seed = {}), with the causal mask."
                    .format(ex.d, ex.seed))
        frame.show_words(tokens)
        shown = bc.alibi_heads_to_show(heads, n)
        draw(spec_alibi(al, ex.sentence, ex.d, ex.seed, heads), width="content")
        if len(shown) < heads:
            st.caption("This sentence is long: the menu offers heads {} of {} to keep the chart light."
                       .format(", ".join(str(h + 1) for h in shown), heads))
        st.caption("Pick a head in the menu under the chart. Blank cells are masked (j > i). All heads share "
                   "W_Q and W_K here, so they differ only by their slope.")
        if al.copies is not None:
            j1, j2 = al.copies
            err = float(np.max(np.abs(al.copy_log_ratio - al.copy_expected)))
            st.markdown(
                "A repeated word: the copies at positions {} and {} have the same vector, so the same key and the "
                "same raw score. Without positions they get equal weight; with ALiBi, from the last word:"
                .format(j1 + 1, j2 + 1))
            q = n - 1
            st.dataframe(pd.DataFrame({
                "head": np.arange(1, heads + 1), "slope m": al.slopes,
                f"weight on position {j1 + 1}": al.weights[:, q, j1],
                f"weight on position {j2 + 1}": al.weights[:, q, j2],
                "ratio (later ÷ earlier)": np.exp(al.copy_log_ratio),
                f"e^(m·{j2 - j1})": np.exp(al.copy_expected),
            }), hide_index=True, width="stretch",
                column_config={k: st.column_config.NumberColumn(format="%.4g") for k in (
                    "slope m", f"weight on position {j1 + 1}", f"weight on position {j2 + 1}",
                    "ratio (later ÷ earlier)", f"e^(m·{j2 - j1})")})
            frame.check("max over heads |ln(w₂/w₁) − m·(j₂ − j₁)|", err, err < 1e-12,
                        "(the nearer copy wins by exactly e^(m·distance))")
        else:
            st.info("This sentence repeats no word; add one twice to see ALiBi tell the copies apart.")
    st.markdown("ALiBi needs no position vector and no rotation: the farther the key, the lower its score. "
                "Because the penalty only depends on i − j, nothing breaks at length L_train + 1.")
    frame.show_code(sx.alibi_slopes, sx.alibi_bias, beyond.alibi_attention)

# ------------------------------------------------------------------------------------------------ decay
with tab_decay:
    rho = float(frame.slider("How well q matches k (correlation ρ)", "st_rho", 0.0, 1.0, 1.0, step=0.1,
                             help="q = ρ·k + √(1−ρ²)·noise. ρ = 1: a query looking for this very key; ρ = 0: "
                                  "unrelated q and k."))
    dec = run_decay(d, base, rho, ex.seed)
    st.subheader("RoPE's long-term decay is a bound, not a promise")
    g1, g2 = st.columns(2)
    with g1:
        draw(spec_bound(dec, d, base))
    with g2:
        draw(spec_score(dec, d, base, rho, ex.seed))
    st.caption("Left: RoFormer's bound, in its own units. Right: the actual RoPE score divided by d (its mean at "
               "Δ = 0 is ρ·d) over {} random (q, k) drawn with the sidebar seed {}; grey: one of them. Two different "
               "quantities, so two axes: compare their shapes.".format(dec.n_samples, ex.seed))
    frame.formula(
        r"q^\top R_\Delta k = \operatorname{Re}\sum_{i=0}^{d/2-1} h_i\, e^{\mathrm{i}\Delta\theta_i},\quad "
        r"h_i = q_{[2i:2i+1]}\,\overline{k_{[2i:2i+1]}}",
        r"\Big|\sum_i h_i e^{\mathrm{i}\Delta\theta_i}\Big| \le \Big(\max_i |h_{i+1}-h_i|\Big)"
        r"\sum_{j=1}^{d/2} |S_j(\Delta)|,\qquad S_j(\Delta) = \sum_{k=0}^{j-1} e^{\mathrm{i}\Delta\theta_k}",
        r"B(\Delta) = \frac{2}{d}\sum_{j=1}^{d/2} |S_j(\Delta)|,\qquad B(0) = \frac{d/2+1}{2}",
    )
    b0_exact = (d / 2 + 1) / 2
    frame.check("B(0) − (d/2 + 1)/2", abs(dec.b0 - b0_exact), abs(dec.b0 - b0_exact) < 1e-9,
                "(B(0) = {:g} at d = {})".format(dec.b0, d))
    steps = dec.deltas.size - 1
    mid = steps // 2
    st.markdown(
        "- The bound shrinks on the whole, but not steadily: it goes **up** at {} of the {} steps shown.\n"
        "- At Δ = {:g}: B has fallen to {:.0%} of B(0); the mean score/d is {:.3f}, while the middle 90 % of "
        "pairs lie between {:.3f} and {:.3f}. The average decays; a single pair need not.\n"
        .format(dec.rises, steps, dec.deltas[mid], dec.bound_rel[mid], dec.mean[mid], dec.p05[mid], dec.p95[mid])
        + ("- Here ρ = 0 (q unrelated to k): the mean is flat near 0 (largest |mean| {:.3f}) — RoPE by itself "
           "prefers no distance; the decay needs a query that matches its key.".format(dec.largest_mean)
           if rho == 0 else
           "- Slide ρ to 0 (q unrelated to k): the mean goes flat near 0 — RoPE by itself prefers no distance.")
    )
    frame.show_code(beyond.decay_demo, sx.decay_bound, sx.mean_rope_score)

# ------------------------------------------------------------------------------------------------ precision
with tab_prec:
    pr = run_precision(d, base, ex.seed)
    window, context = run_bf16(L_train)
    st.subheader("float32 angles drift as the position grows")
    draw(spec_angle(pr, d, base))
    frame.formula(r"\text{err}(p) = \max_i \big|\,\mathrm{fl}_{32}\big(\mathrm{fl}_{32}(p)\cdot"
                  r"\mathrm{fl}_{32}(\theta_i)\big) - p\,\theta_i\big|")
    st.markdown(
        "At position {:,} the float32 angle is off by up to **{:.3g} rad** (d = {}). float32 keeps 24 significant "
        "bits: the fastest pair's angle is p itself (θ₀ = 1), and near {:,} neighbouring float32 numbers are "
        "{:.3g} apart."
        .format(pr.probe, pr.probe_angle_error, d, pr.probe, pr.probe_spacing)
    )

    st.subheader("Positions stored in bfloat16 collapse")
    b1, b2 = st.columns([3, 2])
    with b1:
        draw(spec_bf16())
    with b2:
        st.metric("257 stored in bf16", "{:g}".format(float(to_bf16(257.0))))
        st.metric("distinct positions kept, {} … {}".format(*BF16_WINDOW),
                  "{} of {}".format(window.distinct, window.positions.size))
        st.metric("distinct positions kept, 0 … {:,}".format(L_train - 1),
                  "{:,} of {:,}".format(context.distinct, L_train))
    st.dataframe(pd.DataFrame(context.bands, columns=["first", "last", "positions", "distinct in bf16",
                                              "largest error"]),
                 hide_index=True, width="stretch")
    st.caption("bfloat16 keeps 8 significant bits: every integer up to 256, then only every 2nd, 4th, 8th, … "
               "Position 257 is stored as {:g}: two words get the same angle, the same rotation, the same "
               "everything.".format(float(to_bf16(257.0))))

    st.subheader("RoPE's offset invariance, in finite precision")
    draw(spec_offset(pr, d, base, ex.seed))
    frame.formula(r"\text{drift}(m) = \big|\,\langle R_{m}q,\ R_{m+g}k\rangle - \langle R_0 q,\ R_g k\rangle\big|"
                  r"/\sqrt d \;=\; 0 \text{ in exact arithmetic}")
    for t in ("float64", "float32"):
        v = pr.probe_offset[t]
        frame.check(f"{t}: drift at m = {pr.probe:,}", v, v < 1e-6, "(gap g = {}; the score itself is of size ~1)"
                    .format(pr.gap))
    st.markdown("float64 holds RoPE's promise — same gap, same score — with a drift of {:.2g} at {:,}; float32 "
                "breaks it by {:.2g} on a score of size ~1. Compute p·θ in float64 and cast afterwards."
                .format(pr.probe_offset["float64"], pr.probe, pr.probe_offset["float32"])
                + " bfloat16 (purple) breaks it from the first hundreds of positions on (drift {:.2g} at {:,}): its "
                "angles are rounded to 8 bits.".format(pr.probe_offset["bfloat16"], pr.probe))
    frame.show_code(angle_error_f32, to_bf16, rope_offset_error)

# The question is about the chapter's example, whatever the controls say (so it is asked before playing).
q = run_stretch(128, 4096, 16, 4096, 10000)
kept = int((q.ramp == 0).sum())
frame.predict(
    "In the chapter's example (d = 128, L_train = 4,096, s = 16), which pairs does YaRN leave exactly as they were?",
    ["None: YaRN slows every pair by s, like PI", "The fast pairs, which turn many times within L_train",
     "The slow pairs, which never finish a turn", "Only the pairs in the middle"],
    1,
    "The fast pairs: their ramp γ is 0, so θ'_i = θ_i. That is pairs 0 … {} ({} pairs: pair 0 makes {:,.0f} turns "
    "within L_train, pair {} still {:.3g}). They have seen every angle many times over, so a longer text shows them "
    "nothing new; slowing them (as PI does) would only blur neighbouring words. The {} slowest pairs are divided "
    "by s, and the ones in between are blended. Set the controls to those values and look at the ramp."
    .format(kept - 1, kept, float(q.rotations[0]), kept - 1, float(q.rotations[kept - 1]), int((q.ramp == 1).sum())),
    key="stretch_predict",
)

frame.share_link(PATH)
frame.bridge(PATH, "That is the end of the chapter: word order enters attention through the vectors (a table, "
             "sinusoids), the rotation of q and k (RoPE) or the scores themselves (ALiBi) — and every choice "
             "has a limit you can now see coming.")


import numpy as np
import streamlit as st

import frame
from posenc import beyond, chapter
from posenc import stretch as sx
from posenc.beyond import TYPICAL_D, TYPICAL_L_TRAIN, TYPICAL_S, TYPICAL_SEQ_LEN, TYPICAL_SOURCE
from posenc.charts import stretch as cs
from posenc.core import count, times

PATH = "lessons/stretch.py"
BASE = int(chapter.BASE)
MANY_TURNS = 10  # a fast pair that went round this often has seen its angles “many times”
MOVE = ("Move **s**, the **base**, the head dimension **d** and **L_train** in the chart, and pick a **method**: "
        "the bars and ticks follow.")


@frame.cached
def stretch_data(d: int, L_train: int, s: int, base: int, method: str):
    """At the key chart's opening d, L_train, s, base and method (the question, the answer and the checks speak of
    them; the chart's reading of the method too). The chart's data are the same at every one of them."""
    res = beyond.stretch_demo(d, L_train, s, TYPICAL_SEQ_LEN, float(base))
    return res, cs.turns_figure(res, method)


@frame.cached
def methods_data(d: int, L_train: int, s: int, base: int, seq_len: int):
    """At the seq_len the Deeper chart opens at (a link's): the table and the prose under it speak of it."""
    res = beyond.stretch_demo(d, L_train, s, seq_len, float(base))
    return res, cs.ratio_figure(res)


def opening() -> tuple[int, int, int, int, str]:
    """The d, L_train, s, base and method the key chart opens at (a link may carry them; ``frame.live.opening``)."""
    at = frame.live.opening(cs.turns_spec())
    return (int(at[cs.D]), 2 ** int(at[cs.LOG2_L]), int(at["st_s"]), int(at["st_base"]), str(at["st_method"]))


def go(n: int) -> str:
    return "goes" if n == 1 else "go"


def pair_range(first: int, last: int) -> str:
    """“pair 3”, “pairs 3 and 4”, “pairs 3 to 9”."""
    return (f"pair {first}" if first == last else f"pairs {first} and {last}" if last == first + 1
            else f"pairs {first} to {last}")


def answer(q, res, d: int, L_train: int) -> None:
    """The answer, the checks and the prose of the key chart, at its opening s and base."""
    slow = res.rotations < 1
    n_slow, n = int(slow.sum()), res.pairs
    first = int(np.argmax(slow)) if n_slow else n
    past = {m: int(res.unseen[m].sum()) for m in beyond.METHODS}
    if n_slow and res.s == 1:
        text = (f"None, at s = 1: the text is no longer than in training, so even the {count(n_slow, 'slow pair')} "
                "stay within the angles they saw. Drag s in the chart (with RoPE as trained) and watch their ticks rise "
                "past their bars.")
    elif n_slow:
        text = (f"The slow ones: {pair_range(first, n - 1)} ({n_slow} of {n}) have wavelengths longer than "
                f"{L_train:,} tokens, so training showed each only part of its circle. At {res.L_new:,} tokens "
                f"they turn up to {res.overreach['RoPE as trained']:.3g}× further than they ever did (the "
                f"ticks above their bars). "
                + ("Pair 0, the fast one, went" if first == 1 else f"The fast pairs (0 … {first - 1}) went")
                + " round " + ("many times" if res.rotations[0] >= MANY_TURNS else "at least once")
                + f" (pair 0: {times(res.rotations[0])} turns): an angle repeats every turn, so nothing "
                + ("it meets" if first == 1 else "they meet") + " is new.")
    else:
        text = (f"Here none: with L_train = {L_train:,} every pair, even the slowest "
                f"({times(res.rotations[-1])} turns), finishes a full turn in training, so every angle has been seen. "
                + ("Lower L_train or raise the base" if sx.has_slow_pair(d, L_train, max(cs.BASES)) else "Lower L_train")
                + " in the chart to see slow pairs appear.")
    frame.verdict(f"unchanged RoPE turns the slow pairs past every angle they saw in training (s = {res.s})",
                  past["RoPE as trained"] > 0,
                  f"{past['RoPE as trained']} of {count(n_slow, 'slow pair')} past, up to "
                  f"{res.overreach['RoPE as trained']:.3g}× at {res.L_new:,} tokens")
    pi_ok = past["PI"] == 0
    frame.verdict("PI pushes no pair past the angles it saw in training", pi_ok,
                  f"{count(past['PI'], 'pair')} past; the fastest pair now turns {res.frequencies['PI'][0]:.3g} "
                  f"rad per token instead of {res.theta[0]:.3g}")
    ntk_keeps = bool(res.frequencies["NTK-aware"][0] == res.theta[0])
    frame.verdict("NTK-aware keeps the fastest pair as it was", ntk_keeps,
                  f"θ'₀ = {res.frequencies['NTK-aware'][0]:.4g}, θ₀ = {res.theta[0]:.4g}")
    keep = res.ramp == 0
    yarn_ok = bool(keep.any()) and bool(np.array_equal(res.frequencies["YaRN"][keep], res.theta[keep])) \
        and past["YaRN"] == 0
    kept = int(keep.sum())
    frame.verdict("YaRN keeps the fast pairs exactly and pushes no pair past its trained angles", yarn_ok,
                  (f"{pair_range(0, kept - 1)} unchanged" if kept else "no pair kept as it was")
                  + f", {count(past['YaRN'], 'pair')} past")

    ntk = (f"NTK-aware raises the base to {res.ntk_base:,.0f}: the fastest pair keeps its angle"
           + ("" if ntk_keeps else " (up to rounding)") + ", the slowest is divided by s and those between by "
           "less. " + (f"That is not enough: {past['NTK-aware']} of the {count(n_slow, 'slow pair')} still "
                       + ("goes" if past["NTK-aware"] == 1 else "go")
                       + f" past, by up to {res.overreach['NTK-aware']:.3g}×." if past["NTK-aware"]
                       else "Here that brings every slow pair back within what it saw." if n_slow
                       else "Here no pair is slow, so there is nothing to bring back."))
    yarn = (f"YaRN keeps {pair_range(0, kept - 1)} exactly as they were"
            if kept else "YaRN (here with no pair left exactly as it was)")
    yarn += (f", divides the pairs from {res.high} on by s and blends the ones between"
             if res.high <= n - 1 else ", and blends the rest (its ramp ends past the last pair)")
    yarn += (": " + ("no pair goes past." if past["YaRN"] == 0 else
                     f"{count(past['YaRN'], 'pair')} still {go(past['YaRN'])} past."))
    typical = (res.s, res.base, L_train, d) == (TYPICAL_S, BASE, TYPICAL_L_TRAIN, TYPICAL_D)
    source = (f" This is {TYPICAL_SOURCE} (Peng et al. 2023), and the page opens on it." if typical else "")
    if res.s == 1:
        prose = (f"{MOVE} At s = 1 "
                    "PI, NTK-aware and YaRN change nothing — every tick sits on its bar: raise s to see them work."
                    + source)
    else:
        prose = (
            f"{MOVE}\n\n"
            f"At s = {res.s}: PI (position interpolation) divides every frequency by s, so "
            + ("no pair goes past" if pi_ok else f"{count(past['PI'], 'pair')} still {go(past['PI'])} past")
            + f" — but neighbouring words now differ by only {res.frequencies['PI'][0]:.3g} rad in the fastest "
            f"pair, instead of {res.theta[0]:.3g}. {ntk}\n\n{yarn} The fast pairs have seen every angle "
            + ("many times over" if res.rotations[0] >= MANY_TURNS else "at least once")
            + f", so slowing them (as PI does) only blurs neighbouring words.{source}")
    q.answer(text, then=prose)

    with frame.deeper("every method per pair, in numbers, and YaRN's attention factor", key="st_deep_methods"):
        seq_len = 2 ** int(frame.live.opening(cs.ratio_spec())[cs.LEN])  # where the chart opens (a link's)
        res, ratio = methods_data(d, L_train, res.s, int(res.base), seq_len)
        frame.chart(ratio)
        f = res.frequencies
        rules = {"RoPE as trained": "θ_i", "PI": "θ_i / s", "NTK-aware": f"base' = {res.ntk_base:,.0f}",
                 "Dynamic NTK": f"base' = {res.dynamic_base:,.0f} (scale {times(res.dynamic_scale)})",
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
        high_note = (f" Here high = {res.high} is past the last pair ({n - 1}): Hugging Face clamps the ramp's "
                     "ends to d − 1, not d/2 − 1, so no pair is fully interpolated." if res.high > n - 1 else "")
        st.markdown(
            f"At d = {d}, L_train = {L_train:,}, s = {res.s} and base {res.base:,.0f}, where the key chart opens. θ'₀: the fastest pair's angle between neighbouring "
            "words; slowest λ': the slowest pair's wavelength in tokens; pairs past: slow pairs whose angle at "
            "the length judged exceeds the largest they reached in training; overreach: the worst such ratio "
            "(≤ 1 is safe). "
            "Dynamic NTK recomputes its base for the text in front of it, seq_len: scale s·L/L_train − (s − 1), "
            f"1 up to L_train. Its row is at seq_len = {res.seq_len:,}, where the chart opens (scale "
            f"{times(res.dynamic_scale)}); set seq_len in the chart, in doublings, and its line, the place of its name "
            f"and the note over the plot follow.{high_note}\n\n"
            f"YaRN also multiplies cos and sin by mscale = 0.1·ln s + 1 = {res.attention_factor:.4f}, so every "
            f"score grows by mscale² = {res.attention_factor ** 2:.4f}: a longer text spreads the "
            f"{frame.term('softmax')} over more words, and the sharper scores make up for it.")


with frame.page(PATH, "Trained on short texts, a model now reads longer ones: which of RoPE's pairs meet angles "
                      "they never saw?"):

    @frame.section(None)  # the lead names the idea: the key chart starts higher (one projector screen)
    def stretching() -> None:
        d, L_train, s0, base0, method0 = opening()  # (an odd d in a link snaps to the slider's even step)
        res, turns = stretch_data(d, L_train, s0, base0, method0)
        q = frame.predict(
            f"d = {d}, base {base0:,}, L_train = {L_train:,}, s = {s0}: which pairs does unchanged RoPE turn to "
            "angles they never saw in training?",
            ["the fast pairs", "the slow pairs", "every pair", "none"],
            1 if res.unseen["RoPE as trained"].any() else 3, key="st_predict")
        frame.chart(turns, play="st_s")
        answer(q, res, d, L_train)


    with frame.deeper("the formulas, and whose they are", key="st_deep_formulas"):
        frame.formula(
            r"r_i = \frac{L_\text{train}\,\theta_i}{2\pi},\qquad \theta_i = \text{base}^{-2i/d},\quad "
            r"i = 0,\dots,\tfrac d2 - 1",
            r"\text{PI:}\quad \theta'_i = \theta_i / s",
            r"\text{NTK-aware:}\quad \text{base}' = \text{base}\cdot s^{\,d/(d-2)},\qquad "
            r"\theta'_i = \text{base}'^{\,-2i/d}",
            r"\text{Dynamic NTK:}\quad \text{base}' = \text{base}\cdot\Big(\frac{s\,L}{L_\text{train}} - (s-1)\Big)"
            r"^{d/(d-2)},\quad L = \max(\text{seq\_len}, L_\text{train})",
            r"\text{YaRN:}\quad c(r) = \frac{d\,\ln\!\big(L_\text{train}/(2\pi r)\big)}{2\ln \text{base}},\quad "
            r"\text{low} = \lfloor c(32)\rfloor,\ \text{high} = \lceil c(1)\rceil",
            r"\gamma_i = \operatorname{clip}\Big(\frac{i-\text{low}}{\text{high}-\text{low}}, 0, 1\Big),\qquad "
            r"\theta'_i = (1-\gamma_i)\,\theta_i + \gamma_i\,\frac{\theta_i}{s},\qquad \text{mscale} = 0.1\ln s + 1",
        )
        st.markdown(
            "- **PI**: Chen et al. 2023, *Extending Context Window of Large Language Models via Positional "
            "Interpolation*.\n"
            "- **NTK-aware**: the “NTK-aware scaled RoPE” proposed by bloc97 on Reddit (r/LocalLLaMA) in June 2023, "
            "and written up as Definition 1 in §3.1 of the YaRN paper; Code Llama's larger base is the same idea set "
            "by hand. Hugging Face's `modeling_rope_utils` has no static NTK-aware option — only the dynamic one.\n"
            "- **Dynamic NTK**: as Hugging Face's `_compute_dynamic_ntk_parameters` computes it.\n"
            "- **YaRN**: Peng et al. 2023 (§3.2–3.4), as Hugging Face's `_compute_yarn_parameters` computes it: the "
            "code ramps linearly in the pair index i, the paper linearly in the number of turns.\n\n"
            "Pair indices i count from 0, as RoPE code does."
        )

    frame.show_code(beyond.stretch_demo, sx.pi_frequencies, sx.ntk_frequencies, sx.dynamic_ntk_frequencies,
                    sx.yarn_correction_range, sx.yarn_frequencies, sx.yarn_attention_factor)
    frame.bridge(PATH, "RoPE is one way to say where. Next: ALiBi, which adds no vector at all, RoPE's long-term "
                       "decay, and what number formats do to positions far past training.")

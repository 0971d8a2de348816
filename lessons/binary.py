import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.binary_codes import (
    DEFAULT_BITS,
    FLAT_SHARE,
    HARMONICS,
    MAX_BITS,
    SHOWN_MAX,
    STEP_BIT,
    binary_demo,
    bit_runs,
    bit_table,
    code_strings,
    flips_per_bit,
    hamming,
    hamming_matrix,
    ladders,
    sizes,
    smoothing,
    square_wave_sums,
    step_slope,
)
from posenc.charts import binary_codes as bc
from posenc.core import count

PATH = "lessons/binary.py"
DIGITS_UP_TO = 5  # write the 0/1 digits into the bit table for n ≤ 5 (≤ 32 positions)


def bits_differ(k: int) -> str:
    """'1 bit differs', '4 bits differ' (the count is computed; the grammar follows it)."""
    return f"{k} bit differs" if k == 1 else f"{k} bits differ"


def positions_word(k: int) -> str:
    return count(k, "position")


(na, nb), (fa, fb) = chapter.BINARY_NEIGHBOURS, chapter.BINARY_FAR
q_codes = code_strings(bit_table(DEFAULT_BITS))
frame.page(PATH, "Write the position in binary: n coordinates, each 0 or 1, name 2ⁿ positions — but nearness in "
                 "the code is not nearness in the sentence.")

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)

# ---------------------------------------------------------------- Predict (at the chapter's settings: 4 bits)
h_near, h_far = hamming(na, nb), hamming(fa, fb)
frame.predict(
    f"Write positions in {DEFAULT_BITS} bits. Positions {na} and {nb} are neighbours in the sentence. "
    f"In how many of their {DEFAULT_BITS} bits do their codes differ?",
    [str(k) for k in range(1, DEFAULT_BITS + 1)],
    h_near - 1,
    f"{'All ' if h_near == DEFAULT_BITS else ''}{h_near}: {na} is {q_codes[na]} and {nb} is {q_codes[nb]} — adding 1 "
    f"carries through every bit. Meanwhile {fa} ({q_codes[fa]}) and {fb} ({q_codes[fb]}), {abs(fb - fa)} steps "
    f"apart, differ in {count(h_far, 'bit')}. The heatmaps below show every pair.",
    key="binary_predict",
)


@frame.cached
def bits_view(n: int):
    res = binary_demo(n)
    codes = code_strings(res.table)
    figs = (bc.hamming_heatmap(res.hamming, res.distance, codes, res.near_pair, res.far_pair, show="hamming"),
            bc.hamming_heatmap(res.hamming, res.distance, codes, res.near_pair, res.far_pair, show="distance"),
            bc.bit_table(*bit_runs(n), n, res.table if n <= DIGITS_UP_TO else None))
    return res, codes, figs


# ---------------------------------------------------------------- the key chart
@frame.section("Neighbours can be strangers")
def neighbours():
    n = int(frame.slider("Number of bits n", "bn_bits", 1, MAX_BITS, DEFAULT_BITS,
                         help=f"Each position gets n coordinates, each 0 or 1: positions 0 … 2ⁿ − 1. At most "
                              f"{MAX_BITS} ({2**MAX_BITS:,} positions)."))
    res, codes, (fig_h, fig_d, fig_table) = bits_view(n)
    left, right = st.columns(2)
    with left:
        frame.chart(fig_h)
    with right:
        frame.chart(fig_d)
    if res.shown < res.positions:
        st.caption(f"Positions 0 … {res.shown - 1} of the {res.positions:,} the {n} bits write (the first "
                   f"{SHOWN_MAX} only, so the heatmaps stay small). Hover a cell for both codes.")
    else:
        st.caption(f"All {res.positions} positions the {count(n, 'bit')} write, 0 … "
                   f"{res.positions - 1}. Hover a cell for both codes.")
    near, far = res.near_pair, res.far_pair
    if n == 1:
        st.info("With one bit there are only two codes, 0 and 1: they differ in their one bit and are one step "
                "apart, so nothing goes wrong yet. Add bits to see neighbours become strangers.",
                icon=":material/looks_one:")
    else:
        hn, hf = hamming(*near), hamming(*far)
        frame.verdict(
            f"the neighbours {near[0]} and {near[1]} are further apart in the code than {far[0]} and {far[1]}, "
            f"{abs(far[1] - far[0])} steps apart, as the chapter says",
            hn > hf,
            f"{near[0]} = {codes[near[0]]} and {near[1]} = {codes[near[1]]}: {bits_differ(hn)}; "
            f"{far[0]} = {codes[far[0]]} and {far[1]} = {codes[far[1]]}: {bits_differ(hf)}")
        w0, w1 = res.worst_pair
        hw = hamming(w0, w1)
        frame.verdict(f"some neighbours differ in every one of the {n} bits", hw == n,
                      f"{w0:,} = {codes[w0]} and {w1:,} = {codes[w1]}: {bits_differ(hw)}")
        st.markdown(
            f"The bits map should look like the |i − j| map if the code measured distance: dark far from the "
            f"diagonal, light next to it. It does not. Next to the diagonal (|i − j| = 1) it flickers between 1 "
            f"and {n} bits; far from it there are light cells such as ({far[0]}, {far[1]}). Over the "
            f"{res.shown} × {res.shown} pairs drawn, the correlation between bits that differ and |i − j| is "
            f"r = {res.corr:.2f} (1 would mean the code measures distance).")
    frame.formula(r"H(i, j) = \sum_{b=0}^{n-1} \left|\mathrm{bit}_b(i) - \mathrm{bit}_b(j)\right| "
                  r"= \operatorname{popcount}(i \oplus j)")

    st.subheader("The bit table: bits that flip every step, every two, every four")
    frame.formula(r"\mathrm{bit}_b(p) = \left\lfloor p / 2^{b} \right\rfloor \bmod 2, \qquad b = 0, \dots, n-1")
    frame.chart(fig_table)
    st.caption("Scroll on the chart to zoom, drag to pan, double-click to reset; hover a run for its positions."
               if n > DIGITS_UP_TO else "Every position and every bit; hover a cell for its position.")
    expected = [2 ** (n - b) - 1 for b in range(n)]
    shown = ", ".join(str(int(f)) for f in res.flips[:6]) + (", …" if n > 6 else "")
    frame.verdict(f"bit b flips every 2^b steps, so 2^(n−b) − 1 times over positions 0 … {res.positions - 1:,}",
                  [int(f) for f in res.flips] == expected, f"bits 0, 1, 2, … flip {shown} times")
    distinct = len(set(codes))
    frame.verdict("every position gets its own code", distinct == res.positions,
                  f"{distinct:,} different codes for {res.positions:,} positions")
    st.markdown(
        f"**{count(n, 'coordinate')} name {res.positions:,} positions.** A one-hot code of width {n} "
        f"names only {n}, and a learned table needs a whole row per position. Each extra bit doubles the reach: "
        f"{n + 1} bits would name {2 * res.positions:,}.")

    fits = min(len(tokens), res.positions - 1)
    st.markdown(f"**The sidebar's sentence, coded.** The word at place p gets the code of p; code 0 "
                f"({codes[0]}) is a number the bits write with no word on it.")
    frame.strip({"word": tokens[:fits], "code of p": codes[1:fits + 1]}, corner="position p")
    if fits < len(tokens):
        st.warning(f"{count(n, 'bit')} write only 0 … {res.positions - 1}: words "
                   f"{fits + 1} … {len(tokens)} of the sentence get no code. Add bits.", icon=":material/warning:")


# ---------------------------------------------------------------- bits beside the content
@frame.cached
def sizes_view(sentence: str, d: int, seed: int):
    toks = posenc.tokenize(sentence)
    qi = chapter.query_index(toks)
    sz = sizes(toks, qi, d, seed, MAX_BITS)
    return sz, qi, bc.sizes_strip(sz.content, MAX_BITS, chapter.RAW_POSITION, f"word ({qi + 1}) “{toks[qi]}”")


@frame.section("A bit never drowns the word", fragment=False)
def never_drowns():
    sz, qi, fig = sizes_view(ex.sentence, ex.d, ex.seed)
    st.markdown(
        f"The chapter's reason to like bits: each coordinate is 0 or 1, so it never overwhelms the content. Here "
        f"are the content coordinates of word ({qi + 1}) of the sidebar's sentence (one per dimension, "
        f"{frame.term('d')} = {ex.d}), the {MAX_BITS} bits of a position p, and — the chapter's first failed fix "
        f"— the raw index p in one coordinate. Move p with the slider under the chart.")
    frame.chart(fig)
    frame.verdict(f"every bit stays inside the word's own spread, at every position 0 … {sz.largest_position:,}",
                  sz.bits_min >= -sz.content_max and sz.bits_max <= sz.content_max,
                  f"bits are {sz.bits_min} or {sz.bits_max}; the word's coordinates reach ±{sz.content_max:.2f}")
    raw = chapter.RAW_POSITION
    frame.verdict(f"the raw index does overwhelm it: at position {raw} it dwarfs the word's largest coordinate",
                  raw > sz.content_max, f"{raw} is {raw / sz.content_max:,.0f} times {sz.content_max:.2f}")


# ---------------------------------------------------------------- no gradient, and the way out
@frame.cached
def waves_view(b: int):
    w = smoothing(b)
    top, bottom = bc.step_and_slope(w.slope.x, w.slope.value, w.slope.slope, w.b)
    return w, top, bottom, bc.square_to_sine(w.x, w.curves, w.names, w.whole, w.whole_bits, w.b)


w, step_fig, slope_fig, wave_fig = waves_view(STEP_BIT)
sl = w.slope


@frame.section("No gradient: a bit is a step", fragment=False)
def no_gradient():
    st.markdown(
        f"Extend bit {w.b} to any real position x and it is a staircase: flat, then a jump every "
        f"{positions_word(2 ** w.b)}. Its slope is zero almost everywhere and spikes at each jump, so it never "
        "says which way the next position lies.")
    s1, s2 = st.columns(2)
    with s1:
        frame.chart(step_fig)
    with s2:
        frame.chart(slope_fig)
    frame.verdict("the slope is 0 almost everywhere", sl.flat_share > FLAT_SHARE,
                  f"{sl.flat_share:.1%} of {sl.x.size:,} grid points (step h = 1/{1 / sl.h:g})")
    frame.verdict("at a jump the slope is 1/h, so it grows without limit as h shrinks", sl.steepest == 1 / sl.h,
                  f"steepest {sl.steepest:g} = 1/h; halve h and it doubles")


@frame.section("Smooth the bit and you get a sine", fragment=False)
def smooth():
    st.markdown("Keep only the first harmonic of bit b's square wave (its Fourier series is under *Deeper* below):")
    frame.formula(r"\mathrm{bit}_b(x) \approx \frac12 - \frac{2}{\pi}\sin\!\left(\frac{2\pi x}{T}\right), "
                  r"\qquad T = 2^{b+1}")
    frame.chart(wave_fig)
    st.markdown(
        f"Bit {w.b} is a square wave of wavelength T = {w.wavelength}: 0 for {positions_word(2 ** w.b)}, then 1 "
        f"for {positions_word(2 ** w.b)}. Drag the slider under the chart to drop its sharp harmonics one by one. "
        f"What is left is the **sine of the same wavelength** — smooth, defined at every x, with a slope "
        "everywhere. Every bit b has one, of wavelength 2^(b+1).")
    if ex.d % 2 or ex.d < 4:
        why = "is odd: sinusoids come in (sin, cos) pairs" if ex.d % 2 else "gives a single (sin, cos) pair"
        st.info(f"The sidebar's d = {ex.d} {why}, so there is no ladder of pairs to compare with the bits' "
                "ladder. Pick an even d of 4 or more in the sidebar.", icon=":material/info:")
        return
    lad = ladders(MAX_BITS, ex.d, chapter.BASE)
    frame.chart(bc.ladder(lad.bit_wavelengths, lad.pair_wavelengths, lad.bit_ratio, lad.pair_ratio, lad.d))
    st.markdown(
        f"Sinusoidal encodings keep the **idea** of a ladder of rates, not its spacing. Bit wavelengths double "
        f"from one bit to the next (×{lad.bit_ratio:g}). The sinusoid pairs, with the paper's base "
        f"{chapter.BASE:,.0f} and the sidebar's d = {lad.d}, grow by base^(2/d) = {lad.pair_ratio:.4f} from one "
        f"pair to the next: {lad.d // 2} rungs from {lad.pair_wavelengths[0]:.4f} (2π) to "
        f"{lad.pair_wavelengths[-1]:,.0f}, where {lad.d // 2} bits would climb to "
        f"2^{lad.d // 2} = {2.0 ** (lad.d // 2):,.0f}.")


with frame.deeper("the whole Fourier series of a bit", key="bn_deep_fourier"):
    frame.formula(r"\mathrm{bit}_b(x) = \frac12 - \frac{2}{\pi} \sum_{k = 1, 3, 5, \dots} \frac{1}{k}"
                  r"\sin\!\left(\frac{2\pi k x}{T}\right), \qquad T = 2^{b+1}")
    st.markdown("Each odd harmonic k adds a sine k times as fast and k times as small. The chart's levels keep "
                f"the odd k up to {', '.join(str(k) for k in HARMONICS)}, the last being the sine alone; at every "
                "jump all the partial sums pass through ½.")

frame.show_code(binary_demo, posenc.binary, hamming_matrix, flips_per_bit, sizes, step_slope, square_wave_sums,
                smoothing, ladders)
frame.bridge(PATH, "Binary codes have the right idea — coordinates that change at different rates — and the wrong "
                   "shape. Replace each bit by a smooth sine and a shift becomes a rotation.")

import functools

import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.binary_codes import (
    DEFAULT_BITS,
    FLAT_SHARE,
    HARMONICS,
    MAX_BITS,
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


na, nb = chapter.BINARY_NEIGHBOURS
q_codes = code_strings(bit_table(DEFAULT_BITS))


def bits_figures(n: int, start: int):
    res = binary_demo(n)
    codes = code_strings(res.table)
    figs = (bc.bit_table(*bit_runs(n), n, res.table if n <= DIGITS_UP_TO else None, position=start),
            bc.hamming_heatmap(res.hamming, res.distance, codes, res.near_pair, res.far_pair, show="hamming"),
            bc.hamming_heatmap(res.hamming, res.distance, codes, res.near_pair, res.far_pair, show="distance"))
    return res, codes, figs


bits_view = frame.cached(bits_figures)
# every bit count's layouts, built ahead once per process, nearest the chapter's 4 first (170 ms each, cold)
frame.warm("binary: every bit count", (functools.partial(bits_figures, n, 0) for n in
                                       sorted(range(1, MAX_BITS + 1), key=lambda n: abs(n - DEFAULT_BITS))))


@frame.cached
def sizes_view(sentence: str, d: int, seed: int):
    toks = posenc.tokenize(sentence)
    qi = chapter.query_index(toks)
    sz = sizes(toks, qi, d, seed, MAX_BITS)
    return sz, qi, bc.sizes_strip(sz.content, MAX_BITS, chapter.RAW_POSITION, f"word ({qi + 1}) “{toks[qi]}”")


@frame.cached
def waves_view(b: int):
    w = smoothing(b)
    top, bottom = bc.step_and_slope(w.slope.x, w.slope.value, w.slope.slope, w.b)
    return w, top, bottom, bc.square_to_sine(w.x, w.curves, w.names, w.whole, w.whole_bits, w.b)


with frame.page(PATH, "Write the position in binary: n coordinates, each 0 or 1, name 2ⁿ positions. But are "
                      "neighbours in the sentence neighbours in the code?"):
    ex = frame.example()
    tokens = frame.tokens_or_stop(ex.sentence)

    # ------------------------------------------------------------ idea 1: neighbours can be strangers
    @frame.section("Neighbours in the sentence, neighbours in the code?")
    def neighbours():
        h_near = hamming(na, nb)
        ask = frame.predict(
            f"In the chapter's {DEFAULT_BITS} bits, positions {na} and {nb} are neighbours in the sentence. In how "
            f"many of their {DEFAULT_BITS} bits do their codes differ?",
            [str(k) for k in range(1, DEFAULT_BITS + 1)], h_near - 1, key="binary_predict")
        where = st.container()  # the chart first, its bits slider under it: the key chart on the first screen
        n = int(frame.slider("Number of bits n", "bn_bits", 1, MAX_BITS, DEFAULT_BITS,
                             help=f"Each position gets n coordinates, each 0 or 1: positions 0 … 2ⁿ − 1. At most "
                                  f"{MAX_BITS} ({2**MAX_BITS:,} positions)."))
        half = 2 ** (n - 1)
        start = na if max(na, nb) < 2 ** n else max(half - 1, 0)  # the chart opens on the question's pair
        res, codes, (fig_table, fig_h, fig_d) = bits_view(n, start)
        with where:
            frame.chart(fig_table, play=bc.POSITION)
        near, far = res.near_pair, res.far_pair
        hn, hf = hamming(*near), hamming(*far)
        if n > 1:
            frame.verdict(
                f"the neighbours {near[0]} and {near[1]} are further apart in the code than {far[0]} and "
                f"{far[1]}, {abs(far[1] - far[0])} steps apart, as the chapter says", hn > hf,
                f"{near[0]} = {codes[near[0]]} and {near[1]} = {codes[near[1]]}: {bits_differ(hn)}; "
                f"{far[0]} = {codes[far[0]]} and {far[1]} = {codes[far[1]]}: {bits_differ(hf)}")
            w0, w1 = res.worst_pair
            frame.verdict(f"some neighbours differ in every one of the {n} bits", hamming(w0, w1) == n,
                          f"{w0:,} = {codes[w0]} and {w1:,} = {codes[w1]}: {bits_differ(hamming(w0, w1))}")
        expected = [2 ** (n - b) - 1 for b in range(n)]
        shown = ", ".join(str(int(f)) for f in res.flips[:6]) + (", …" if n > 6 else "")
        frame.verdict(f"bit b flips every 2^b steps, so 2^(n−b) − 1 times over positions 0 … {res.positions - 1:,}",
                      [int(f) for f in res.flips] == expected, f"bits 0, 1, 2, … flip {shown} times")
        distinct = len(set(codes))
        frame.verdict("every position gets its own code", distinct == res.positions,
                      f"{distinct:,} different codes for {res.positions:,} positions")
        if n == 1:
            body = "With one bit there are two codes, 0 and 1, one step apart: nothing goes wrong yet. Add bits."
        else:
            body = (f"Bit b flips every 2^b steps: at n = {n}, from {half - 1:,} to {half:,} all {n} bits flip at "
                    f"once, while {far[0]} and {far[1]}, {abs(far[1] - far[0])} apart, differ in "
                    f"{count(hf, 'bit')}. Bits that differ do not measure distance.")
        ask.answer(
            f"{'All ' if h_near == DEFAULT_BITS else ''}{h_near}: {na} is {q_codes[na]} and {nb} is {q_codes[nb]} "
            f"— adding 1 carries through every bit. Step the chart from {na} to {nb}, or press Play and watch the "
            "outlined cells.",
            f"{body} **{count(n, 'coordinate')} name {res.positions:,} positions**, and each extra bit doubles the "
            f"reach ({n + 1} bits: {2 * res.positions:,}).")
        with frame.deeper("every pair at once, and the sidebar's sentence coded", key="bn_deep_pairs"):
            left, right = st.columns(2)
            with left:
                frame.chart(fig_h)
            with right:
                frame.chart(fig_d)
            drawn = (f"positions 0 … {res.shown - 1} of the {res.positions:,} the {n} bits write" if
                     res.shown < res.positions else f"all {res.positions} positions the {count(n, 'bit')} write")
            corr = (f" Over the {res.shown} × {res.shown} pairs drawn, the correlation between bits that differ and "
                    f"|i − j| is r = {res.corr:.2f} (1 would mean the code measures distance)." if n > 1 else "")
            st.markdown(f"The heatmaps show {drawn}. If the code measured distance, the left map would look "
                        f"like the right one: dark far from the diagonal, light next to it. It does not.{corr}")
            frame.formula(r"H(i, j) = \sum_{b=0}^{n-1} \left|\mathrm{bit}_b(i) - \mathrm{bit}_b(j)\right| "
                          r"= \operatorname{popcount}(i \oplus j)")
            fits = min(len(tokens), res.positions - 1)
            st.markdown(f"The word at place p gets the code of p; code 0 ({codes[0]}) is a number the bits write "
                        "with no word on it.")
            frame.strip({"word": tokens[:fits], "code of p": codes[1:fits + 1]}, corner="position p")
            if fits < len(tokens):
                st.warning(f"{count(n, 'bit')} write only 0 … {res.positions - 1}: words "
                           f"{fits + 1} … {len(tokens)} of the sentence get no code. Add bits.",
                           icon=":material/warning:")

    # ------------------------------------------------------------ how big is a bit beside the word?
    @frame.section("How big is a bit beside the word?", fragment=False)
    def beside():
        sz, qi, fig = sizes_view(ex.sentence, ex.d, ex.seed)
        inside = sz.bits_min >= -sz.content_max and sz.bits_max <= sz.content_max
        ask = frame.predict(
            f"The raw index p reaches {sz.largest_position:,} at the chart's last position; the word's coordinates "
            f"(d = {ex.d}) stay within ±{sz.content_max:.2f}. Beside them, how big does a bit get as p grows?",
            ["It grows with p", "At most 1, whatever p", "It shrinks towards 0"], 1,
            key="bn_size_predict")
        frame.chart(fig, play="bn_raw")
        frame.verdict(f"every bit stays inside the word's own spread, at every position 0 … {sz.largest_position:,}",
                      inside, f"bits are {sz.bits_min} or {sz.bits_max}; the word's coordinates reach "
                              f"±{sz.content_max:.2f}")
        raw = chapter.RAW_POSITION
        frame.verdict(f"the raw index does overwhelm it: at position {raw} it dwarfs the word's largest coordinate",
                      raw > sz.content_max, f"{raw} is {raw / sz.content_max:,.0f} times {sz.content_max:.2f}")
        if inside:
            verdict_ = f"here every bit stays inside the word's spread (±{sz.content_max:.2f})"
        else:
            verdict_ = (f"not quite here: at d = {ex.d} the word's coordinates reach only ±{sz.content_max:.2f}, "
                        f"so a bit of 1 sticks out by {1 - sz.content_max:.2f}, still nothing like the raw index")
        ask.answer(
            f"Each bit is {sz.bits_min} or {sz.bits_max}: it cannot grow with the position as the raw index p does "
            f"(the first failed fix) — and {verdict_}.",
            f"That is why the chapter likes bits. Play p: the raw index walks off to {sz.largest_position:,}.")


    # ------------------------------------------------------------ idea 2: smooth the bit into a sine
    w, step_fig, slope_fig, wave_fig = waves_view(STEP_BIT)
    sl = w.slope

    @frame.section("Smooth the bit and you get a sine")
    def smooth():
        ask = frame.predict(
            f"Bit {w.b} is a square wave: 0 for {positions_word(2 ** w.b)}, then 1 for {2 ** w.b}, over and over. "
            "Drop its sharp harmonics until one smooth sine is left. What is that sine's wavelength?",
            [str(2 ** w.b), str(w.wavelength), str(2 * w.wavelength), "2π ≈ 6.28"], 1, key="bn_smooth_predict")
        frame.chart(wave_fig, play="bn_smooth")
        ask.answer(
            f"{w.wavelength}, the bit's own: keeping only the first harmonic leaves ½ − (2/π)·sin(2πx/{w.wavelength}), "
            f"smooth, defined at every real x, with a slope everywhere. Every bit b has one, of wavelength "
            "2^(b+1): the sinusoidal encoding keeps that ladder of rates and drops the steps.")
        frame.verdict("the slope is 0 almost everywhere", sl.flat_share > FLAT_SHARE,
                      f"{sl.flat_share:.1%} of {sl.x.size:,} grid points (step h = 1/{1 / sl.h:g})")
        frame.verdict("at a jump the slope is 1/h, so it grows without limit as h shrinks", sl.steepest == 1 / sl.h,
                      f"steepest {sl.steepest:g} = 1/h; halve h and it doubles")
        st.markdown(
            f"Why smooth it? A staircase that jumps every {positions_word(2 ** w.b)} has slope 0 on its flats and a "
            "spike at each jump: it never says which way the next position lies.")


    with frame.deeper("a step has no slope, and the whole Fourier series", key="bn_deep_slope"):
        s1, s2 = st.columns(2)
        with s1:
            frame.chart(step_fig)
        with s2:
            frame.chart(slope_fig)
        st.markdown(f"Bit {w.b} extended to every real position x, and its finite-difference slope on a grid of "
                    f"step h = 1/{1 / sl.h:g}: 0 on the flats, 1/h = {sl.steepest:g} at each jump.")
        frame.formula(r"\mathrm{bit}_b(x) \approx \frac12 - \frac{2}{\pi}\sin\!\left(\frac{2\pi x}{T}\right), "
                      r"\qquad T = 2^{b+1}")
        frame.formula(r"\mathrm{bit}_b(x) = \frac12 - \frac{2}{\pi} \sum_{k = 1, 3, 5, \dots} \frac{1}{k}"
                      r"\sin\!\left(\frac{2\pi k x}{T}\right), \qquad T = 2^{b+1}")
        st.markdown("Each odd harmonic k adds a sine k times as fast and k times as small. The chart's levels keep "
                    f"the odd k up to {', '.join(str(k) for k in HARMONICS)}, the last being the sine alone; at "
                    "every jump all the partial sums pass through ½.")

    with frame.deeper("the bits' ladder beside the sinusoids'", key="bn_deep_ladder"):
        if ex.d % 2 or ex.d < 4:
            why = "is odd: sinusoids come in (sin, cos) pairs" if ex.d % 2 else "gives a single (sin, cos) pair"
            st.info(f"The sidebar's d = {ex.d} {why}, so there is no ladder of pairs to compare with the bits' "
                    "ladder. Pick an even d of 4 or more in the sidebar.", icon=":material/info:")
        else:
            lad = ladders(MAX_BITS, ex.d, chapter.BASE)
            fig = bc.ladder(lad.bit_wavelengths, lad.pair_wavelengths, lad.bit_ratio, lad.pair_ratio, lad.d)
            frame.chart(fig)
            finer = lad.pair_ratio < lad.bit_ratio
            st.markdown(
                f"Bit wavelengths double from one bit to the next. The sinusoid pairs, with the paper's base "
                f"{chapter.BASE:,.0f} and the sidebar's d = {lad.d}, grow by one fixed factor base^(2/d) from pair "
                f"to pair, {'smaller' if finer else 'larger'} than 2: {lad.d // 2} rungs from 2π to "
                f"{lad.pair_wavelengths[-1]:,.0f}. How large that factor is, the next page asks.")

    frame.show_code(binary_demo, posenc.binary, hamming_matrix, flips_per_bit, sizes, step_slope, square_wave_sums,
                    smoothing, ladders)
    frame.bridge(PATH, "Binary codes have the right idea — coordinates that change at different rates — and the "
                       "wrong shape. Replace each bit by a smooth sine and a shift becomes a rotation.")

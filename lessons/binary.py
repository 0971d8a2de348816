import numpy as np
import pandas as pd
import streamlit as st

import frame
import posenc
from posenc.binary_codes import (
    MAX_BITS,
    SHOWN_MAX,
    binary_demo,
    bit_of,
    bit_runs,
    code_strings,
    flips_per_bit,
    hamming,
    hamming_matrix,
    square_wave_sums,
    step_slope,
)
from posenc.charts import binary_codes as bc

PATH = "lessons/binary.py"
DIGITS_UP_TO = 5  # write the 0/1 digits into the bit table for n ≤ 5 (≤ 32 positions)
HARMONICS = [15, 7, 3, 1]
WAVE_POINTS = 480

frame.header(
    "Binary codes",
    "Write the position as a binary number: n coordinates name 2ⁿ positions — but neighbours such as 7 and 8 "
    "can differ in every bit, and a bit is a step with no slope to follow.",
)

n = int(frame.slider("Number of bits n", "bn_bits", 1, MAX_BITS, 4,
                     help=f"Each position gets n coordinates, each 0 or 1. At most {MAX_BITS} "
                          f"({2**MAX_BITS} positions) so the charts stay instant."))
st.info("On this page positions start at **0**, as bit tables do: position 0 is {}. The rest of the app "
        "numbers words from 1, so word p gets the code of p − 1.".format("0" * n), icon=":material/looks_one:")


@st.cache_data(max_entries=32, show_spinner=False)
def run_bits(n_bits: int):
    res = binary_demo(n_bits)
    return res, code_strings(res.table), bit_runs(n_bits)


# Charts are built once per setting and cached as Vega-Lite specs (data as Arrow bytes), keyed only on the scalars
# they depend on; a chart that does not change is sent byte-identical (the browser does not redraw it).
# ``_res`` arguments (cached results) are not hashed.
@st.cache_data(max_entries=32, show_spinner=False)
def bits_specs(n_bits: int, _res, _codes, _runs) -> tuple[dict, dict]:
    table_spec = bc.bit_table(*_runs, n_bits, _res.table if n_bits <= DIGITS_UP_TO else None)
    hamming_spec = bc.hamming_vs_distance(_res.hamming, _res.distance, _codes, _res.near_pair, _res.far_pair)
    return table_spec, hamming_spec


@st.cache_data(max_entries=32, show_spinner=False)
def waves_view(b: int):
    T = 2 ** (b + 1)
    x = np.linspace(0.0, 2.0 * T, WAVE_POINTS)
    sums = square_wave_sums(b, x, HARMONICS)
    sl = step_slope(b, 2.0 * T, 1.0 / 32)
    names = ["the bit itself (all harmonics)"] + [
        "harmonics k = 1, 3, …, {}".format(K) if K > 3 else ("k = 1 and 3" if K == 3 else "the sine alone (k = 1)")
        for K in HARMONICS
    ]
    curves = [bit_of(x, b)] + [sums[K] for K in HARMONICS]
    whole = np.arange(0, 2 * T + 1)
    wave_spec = bc.square_to_sine(x, curves, names, curves[0], sums[1], whole, bit_of(whole, b), b)
    return sl, bc.step_and_slope(sl.x, sl.value, sl.slope, b), wave_spec


res, codes, runs = run_bits(n)
n_runs = len(runs[0])
table_spec, hamming_spec = bits_specs(n, res, codes, runs)

# ---------------------------------------------------------------- the bit table
st.subheader("The bit table: bits that flip every step, every two, every four")
frame.formula(r"\mathrm{bit}_b(p) = \left\lfloor p / 2^{b} \right\rfloor \bmod 2, \qquad b = 0, \dots, n-1,"
              r"\qquad p = 0, \dots, 2^{n}-1")
st.vega_lite_chart(table_spec, width="stretch")
if n > DIGITS_UP_TO:
    st.caption("All {:,} positions, drawn as runs of equal bits ({:,} runs). Scroll on the chart to zoom in, "
               "drag to pan, double-click to reset; hover a run for its positions.".format(res.positions, n_runs))
else:
    st.caption("Every position and every bit. Hover a run for its positions; scroll to zoom.")

a, b_ = st.columns([1, 2])
with a:
    shown_codes = min(res.positions, 16)
    st.dataframe(pd.DataFrame({"position p": range(shown_codes), "code (bit n−1 … bit 0)": codes[:shown_codes]}),
                 hide_index=True, height=min(38 + 35 * shown_codes, 400))
    if shown_codes < res.positions:
        st.caption("The first {} of {:,} codes.".format(shown_codes, res.positions))
with b_:
    expected = 2 ** (n - np.arange(n)) - 1
    frame.check("flips of bit b over positions 0 … {}".format(res.positions - 1),
                ", ".join(str(int(f)) for f in res.flips[:6]) + (", …" if n > 6 else ""),
                bool(np.array_equal(res.flips, expected)),
                "(bit 0, 1, 2, …: = 2^(n−b) − 1, since bit b flips every 2^b steps)")
    frame.check("distinct codes", "{:,} of {:,}".format(len(set(codes)), res.positions),
                len(set(codes)) == res.positions, "(every position gets its own code)")
    st.markdown(
        "**{n} coordinates cover {p:,} positions.** A table of width {n} — one slot per position, like one-hot — "
        "holds only {n}; the learned table needs a whole row per position. Each extra bit doubles the reach: "
        "{n1} bits would cover {p1:,}.".format(n=n, p=res.positions, n1=n + 1, p1=2 * res.positions)
    )

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
fits = min(len(tokens), res.positions)
st.markdown("**The running sentence, coded** (word p gets the code of position p − 1):")
st.dataframe(pd.DataFrame({"word position": [str(p) for p in range(1, fits + 1)], "word": tokens[:fits],
                           "code position": [str(p) for p in range(fits)], "code": codes[:fits]})
             .set_index("word position").T, width="stretch")
if fits < len(tokens):
    st.warning("{} bit{} code only {} positions (0 … {}): words {} … {} of the sentence get no code. "
               "Add bits.".format(n, "" if n == 1 else "s", res.positions, res.positions - 1, fits + 1, len(tokens)),
               icon=":material/warning:")

# ---------------------------------------------------------------- Hamming distance
st.subheader("Neighbours can be strangers")
frame.formula(r"H(i, j) = \sum_{b=0}^{n-1} \left|\mathrm{bit}_b(i) - \mathrm{bit}_b(j)\right| "
              r"= \operatorname{popcount}(i \oplus j) \qquad\text{vs}\qquad |i - j|")
near, far = res.near_pair, res.far_pair
st.vega_lite_chart(hamming_spec, width="content")
if res.shown < res.positions:
    st.caption("Positions 0 … {} of 0 … {:,} (the first {} only, so the heatmaps stay small); hover a cell for "
               "both codes.".format(res.shown - 1, res.positions - 1, SHOWN_MAX))
else:
    st.caption("All {} positions; hover a cell for both codes.".format(res.shown))

if n == 1:
    st.info("With one bit there are only two positions, 0 and 1: they differ in their one bit and are one "
            "step apart, so nothing goes wrong yet. Add bits to see neighbours become strangers.")
else:
    for (i, j), role in ((near, "neighbours"), (far, "far apart")):
        hij = hamming(i, j)
        frame.check("{} ({}) and {} ({})".format(i, codes[i], j, codes[j]),
                    "{} bit{} differ, |i − j| = {}".format(hij, "" if hij == 1 else "s", abs(i - j)),
                    int(res.hamming[i, j]) == hij, "— " + role)
    w0, w1 = res.worst_pair
    hw = hamming(w0, w1)
    text_ = ("The code says {a} and {b} are {h1} bit{s1} apart and {c} and {d} only {h2}: the opposite of their "
             "real distances, {r1} and {r2}.".format(a=near[0], b=near[1], h1=hamming(*near),
                                                    s1="" if hamming(*near) == 1 else "s", c=far[0], d=far[1],
                                                    h2=hamming(*far), r1=abs(near[1] - near[0]),
                                                    r2=abs(far[1] - far[0])))
    if (w0, w1) != tuple(near):
        text_ += " The worst neighbours among 0 … {:,} are {:,} and {:,}: they differ in {} of {} bits.".format(
            res.positions - 1, w0, w1, hw, n)
    st.markdown(text_)
    if np.isfinite(res.corr):
        st.caption("Over all {} × {} pairs shown, the correlation between bits that differ and |i − j| is "
                   "r = {:.2f} (1 would mean the code measures distance faithfully).".format(
                       res.shown, res.shown, res.corr))

# ---------------------------------------------------------------- no gradient
bw = min(2, n - 1)
sl, (top, bottom), wave_spec = waves_view(bw)
st.subheader("No gradient: a bit is a step")
frame.formula(r"\frac{d}{dx}\,\mathrm{bit}_b(x) = 0 \quad\text{between jumps}, "
              r"\qquad \text{undefined at } x = k\cdot 2^{b}")
st.markdown(
    "Extend bit {b} to any real position x and it is a staircase: flat, then a jump every {w}. "
    "Its slope says nothing about which way the next position lies — zero almost everywhere, and at a jump "
    "it grows without limit as the step h shrinks.".format(
        b=bw, w="position" if bw == 0 else "{} positions".format(2**bw))
)
s1, s2 = st.columns(2)
with s1:
    st.vega_lite_chart(top, width="stretch")
with s2:
    st.vega_lite_chart(bottom, width="stretch")
frame.check("share of the grid where the slope is exactly 0", "{:.1%}".format(sl.flat_share), sl.flat_share > 0.9,
            "({:,} points, step h = 1/{:g})".format(sl.x.size, 1 / sl.h))
frame.check("steepest slope (at a jump)", "{:g} = 1/h".format(sl.steepest), sl.steepest == 1 / sl.h,
            "(halve h and it doubles: no finite derivative)")

# ---------------------------------------------------------------- bridge to sinusoids
st.subheader("Smooth the bit and you get a sine")
T = 2 ** (bw + 1)
frame.formula(r"\mathrm{bit}_b(x) = \frac12 - \frac{2}{\pi} \sum_{k = 1, 3, 5, \dots} \frac{1}{k}"
              r"\sin\!\left(\frac{2\pi k x}{T}\right), \qquad T = 2^{b+1}",
              r"\text{keep only } k = 1: \quad \frac12 - \frac{2}{\pi}\sin\!\left(\frac{2\pi x}{T}\right)")
st.vega_lite_chart(wave_spec, width="stretch")
st.markdown(
    "Bit {b} is a square wave of wavelength T = {T}: 0 for {w}, then 1 for {w}. Its Fourier series is "
    "a sum of sines; drag the slider under the chart to drop the sharp harmonics one by one. What is left is "
    "the **sine of the same wavelength**, ½ − (2/π)·sin(2πx/{T}) — smooth, defined at every x, with a slope "
    "everywhere. Every bit has one: bit b ↔ a sine of wavelength 2^(b+1), so the bits' rates 1, 2, 4, … become "
    "a ladder of frequencies, each half the one before. Sinusoidal encodings keep the ladder and drop the "
    "corners.".format(b=bw, T=T, w="one position" if bw == 0 else "{} positions".format(2**bw))
)

frame.show_code(binary_demo, posenc.binary, hamming_matrix, flips_per_bit, step_slope, square_wave_sums)

frame.predict(
    "With n = 10 bits, positions 511 and 512 are neighbours. In how many of their 10 bits do they differ?",
    ["1", "2", "9", "10"],
    3,
    "All {h}: 511 is {a} and 512 is {b}. Adding 1 carries through every bit, so the two neighbours have "
    "nothing in common — while 0 and 512, {d:,} positions apart, differ in {h2} bit.".format(
        h=hamming(511, 512), a=format(511, "010b"), b=format(512, "010b"), d=512, h2=hamming(0, 512)),
    key="binary_predict",
)

frame.share_link(PATH)
frame.bridge(PATH, "Binary codes have the right idea — coordinates that change at rates 1, 2, 4, … — and the wrong "
             "shape. Replace each bit by its smooth sine and a shift becomes a rotation.")

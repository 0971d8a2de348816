import math

import streamlit as st

import frame
import posenc
from posenc.charts import fixes as fx_charts
from posenc.charts import vega_spec
from posenc.fixes import (
    SHORT,
    compare_length,
    fixes_inputs,
    index_over_length,
    index_scores,
    multiply_code,
    multiply_demo,
    one_hot,
    one_hot_demo,
    position_share,
    rank_correlation,
    ratio_demo,
    raw_index_demo,
    summary,
    wish_bounded,
    wish_neighbours,
    wish_past,
    wish_same_meaning,
    wish_unique,
)

PATH = "lessons/fixes.py"

frame.header(
    "Obvious fixes that fail",
    "Every obvious way to write a position into the input breaks something: the raw index drowns the words, "
    "index ÷ length changes meaning with the length, multiplying turns position into volume, and one-hot "
    "makes neighbours strangers.",
)

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
n = len(tokens)
frame.require(n >= 2, "Type at least two words: attention needs something to compare.")


# One cached computation per section, keyed only on the scalars that section depends on, so moving one
# tab's control recomputes that tab alone. Each returns its posenc result together with its charts as
# ready Vega-Lite specs (data already in Arrow form: fx_charts.vega_spec), so a rerun neither rebuilds nor
# re-serialises a chart. ``_inp`` (the cached word vectors and projections) is not hashed: the sentence,
# d and seed identify it.
@st.cache_resource(max_entries=32, show_spinner=False)
def inputs(sentence: str, d: int, seed: int):
    return fixes_inputs(posenc.tokenize(sentence), d, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def raw_section(sentence: str, d: int, seed: int, start: int, _inp):
    raw = raw_index_demo(_inp.X, _inp.W, start)
    first, n_words = int(raw.positions[0]), len(_inp.tokens)
    specs = {
        "without": vega_spec(fx_charts.weights_heatmap(
            raw.weights_without, _inp.tokens, first, "Without the index: weights follow the words")),
        "with": vega_spec(fx_charts.weights_heatmap(
            raw.weights_with, _inp.tokens, first, "With the index: weights follow the position")),
        "sweep": vega_spec(fx_charts.share_sweep(raw.sweep_starts, raw.sweep_rho, raw.sweep_share, first)),
    }
    readout = fx_charts.raw_readout(raw.rho_without, raw.rho_with, raw.share_without, raw.share_with,
                                    raw.last_wins, n_words)
    return raw, specs, readout


@st.cache_data(max_entries=32, show_spinner=False)
def ratio_section(sentence: str, length: int):
    words = posenc.tokenize(sentence)
    r = ratio_demo(len(words), length)
    return r, {"strip": vega_spec(fx_charts.ratio_strip(r.codes_sentence, r.codes_long, words, r.tracked)),
               "gap": vega_spec(fx_charts.previous_gap_chart(r.lengths, r.previous_gap, r.n, r.length))}


@st.cache_data(max_entries=32, show_spinner=False)
def multiply_section(sentence: str, d: int, seed: int, position: int, _inp):
    m = multiply_demo(_inp.X, _inp.W, _inp.word, _inp.query, position)
    lines = vega_spec(fx_charts.multiply_lines(m.grid, m.grid_scores, _inp.tokens, m.query_index, m.position))
    table = fx_charts.multiply_table(_inp.tokens, m.scores_at_1, m.scores_at_m, m.cos_at_1, m.cos_at_m,
                                     m.position)
    return m, lines, table


@st.cache_data(max_entries=32, show_spinner=False)
def onehot_section(sentence: str, width: int, past: int):
    words = posenc.tokenize(sentence)
    oh = one_hot_demo(len(words), width, past)
    specs = {"distances": vega_spec(fx_charts.distance_heatmap(oh.distances))}
    if oh.sentence_codes is not None:
        specs["codes"] = vega_spec(fx_charts.onehot_codes(oh.sentence_codes, words))
    return oh, specs


@st.cache_data(max_entries=32, show_spinner=False)
def summary_section(sentence: str, d: int, seed: int, length: int, _inp):
    return fx_charts.summary_frame(summary(_inp.X[_inp.word], SHORT, length), SHORT, length)


def show(spec: dict) -> None:
    st.vega_lite_chart(spec, width="stretch")


tabs = st.tabs(["1 · The raw index", "2 · Index ÷ length", "3 · Multiplying by p", "4 · One-hot",
                "Summary: all four against the wishes"])

# Controls first (they live in their tabs), then the cached sections.
with tabs[0]:
    start = frame.slider("Position of the first word", "fx_start", 1, 2000, 500,
                         help="Place the sentence deep in a document: the chapter's example is position 500.")
with tabs[1]:
    length = frame.slider("Length of the sentence to compare (words)", "fx_len", 10, 1000, 100,
                          help="Index ÷ length in your sentence against a sentence this long.")
with tabs[2]:
    m_pos = frame.slider("Position m of the key word", "fx_mpos", 1, 1000, 50,
                         help="The key word is placed at position 1 and at position m.")
with tabs[3]:
    c1, c2 = st.columns(2)
    with c1:
        width = frame.number("One-hot width N (the longest sentence)", "fx_width", 1, 1000, 8,
                             help="The table has one column per position 1 … N.")
    with c2:
        past = frame.number("Encode position", "fx_past", 1, 2000, 9,
                            help="Try a position past N: it has no column.")

try:
    inp = inputs(ex.sentence, ex.d, ex.seed)
    L = compare_length(int(length))
    raw, specs1, readout = raw_section(ex.sentence, ex.d, ex.seed, int(start), inp)
    ratio, specs2 = ratio_section(ex.sentence, L)
    mul, mul_lines, mul_table = multiply_section(ex.sentence, ex.d, ex.seed, int(m_pos), inp)
    oh, specs4 = onehot_section(ex.sentence, int(width), int(past))
    summary_table = summary_section(ex.sentence, ex.d, ex.seed, L, inp)
except ValueError as err:
    st.error(str(err), icon=":material/error:")
    st.stop()

d = inp.X.shape[1]

# ---------------------------------------------------------------- 1. the raw index
with tabs[0]:
    st.subheader("1 · The raw index as one extra coordinate")
    st.markdown(
        "Append the position to every word vector, x′ = [x ; p], and let it pass straight into the query and "
        "the key. The words sit at positions {} … {}.".format(int(raw.positions[0]), int(raw.positions[-1]))
    )
    frame.formula(
        r"x'_p = \begin{bmatrix} x_p \\ p \end{bmatrix},\quad q'_i = \begin{bmatrix} q_i \\ p_i \end{bmatrix},"
        r"\quad k'_j = \begin{bmatrix} k_j \\ p_j \end{bmatrix}"
        r"\quad\Rightarrow\quad s_{ij} = \frac{q_i\cdot k_j + p_i\,p_j}{\sqrt{d}}",
        r"q_i\cdot k_j = \sum_{c=1}^{d} q_{ic}\,k_{jc}\ \text{ has spread}\ \approx\sqrt{d} = %.3g"
        % math.sqrt(d),
    )
    m1, m2, m3 = st.columns(3)
    m1.metric("Spread of q·k (measured)", f"{raw.content_spread:.3g}",
              help=f"Standard deviation of q_i·k_j over the {n * n} word pairs of the sentence.")
    m2.metric("√d", f"{math.sqrt(d):.3g}", help="The spread a sum of d products of unit-size numbers has.")
    m3.metric("Word length ‖x‖ (mean)", f"{raw.word_norm:.3g}", help="Mean length of the sentence's word vectors.")
    m4, m5, m6 = st.columns(3)
    m4.metric("Index coordinate p", "{:,} … {:,}".format(int(raw.positions[0]), int(raw.positions[-1])),
              help="The extra coordinate appended to each word vector.")
    m5.metric("Position term pᵢ·pⱼ, smallest", "{:,.0f}".format(raw.position_term.min()))
    m6.metric("Position term pᵢ·pⱼ, largest", "{:,.0f}".format(raw.position_term.max()))
    left, right = st.columns(2)
    with left:
        show(specs1["without"])
    with right:
        show(specs1["with"])
    if n < 3:
        st.info("With two words every pair of scores lies on a line, so R² is 1 and ρ is ±1 whatever the words "
                "say. Type three or more words for a readout of how much of the ranking position explains.")
    else:
        st.markdown("**How much of the ranking position explains** (ρ: rank correlation of each query's scores — "
                    "and so its weights — with the key positions; R²: share of the score spread a line in the "
                    "position explains; both averaged over the {} queries):".format(n))
        st.dataframe(readout, width="stretch")
        frame.check("R² with the index", f"{raw.share_with:.4f}", raw.share_with > 0.99,
                    "(✓ when above 0.99: position explains {:.2%} of the score spread; without the index: "
                    "{:.1%})".format(raw.share_with, raw.share_without))
        show(specs1["sweep"])
        st.caption("The same sentence and the same content scores, slid along the document: only the position "
                   "term changes. Hover a point for its value.")
    frame.show_code(raw_index_demo, index_scores, rank_correlation, position_share)

# ---------------------------------------------------------------- 2. index ÷ length
with tabs[1]:
    st.subheader("2 · Index ÷ length")
    t = ratio.tracked
    frame.formula(
        r"c(p) = \frac{p}{N},\qquad c(%d) = \frac{%d}{%d} = %.4g\ \ (%d\text{ words}),\qquad "
        r"c(%d) = \frac{%d}{%d} = %.4g\ \ (%d\text{ words})"
        % (t, t, ratio.n, ratio.tracked_sentence, ratio.n, t, t, ratio.length, ratio.tracked_long, ratio.length),
        r"c(p) - c(p-1) = \frac{1}{N}:\quad %.4g\ \ (N = %d),\qquad %.4g\ \ (N = %d)"
        % (ratio.step_sentence, ratio.n, ratio.step_long, ratio.length),
    )
    if ratio.n < 3:
        st.info("Your sentence has fewer than three words, so word {} is followed instead of the third.".format(t))
    show(specs2["strip"])
    show(specs2["gap"])
    frame.check("c({}) in {} words − c({}) in {} words".format(t, ratio.n, t, ratio.length),
                ratio.tracked_sentence - ratio.tracked_long, ratio.tracked_sentence == ratio.tracked_long,
                "(the same word, a different code: ✗ means the meaning moved)")
    st.markdown(
        "Word {} is {:.4g} in {} words and {:.4g} in {}; the step to the previous word falls from {:.4g} to "
        "{:.4g}. “The previous word” has no fixed numerical form for the model to learn: it is a different "
        "number at every sentence length.".format(t, ratio.tracked_sentence, ratio.n, ratio.tracked_long,
                                                  ratio.length, ratio.step_sentence, ratio.step_long)
    )
    frame.show_code(ratio_demo, index_over_length)

# ---------------------------------------------------------------- 3. multiplying
with tabs[2]:
    st.subheader("3 · Multiplying instead of adding")
    frame.formula(
        r"x'_p = p\,x_p,\qquad \lVert x'_p\rVert = p\,\lVert x_p\rVert,\qquad "
        r"s_{ij} = \frac{(p_i q_i)\cdot(p_j k_j)}{\sqrt d} = p_i\,p_j\,\frac{q_i\cdot k_j}{\sqrt d},\qquad "
        r"\cos(q'_i, k'_j) = \cos(q_i, k_j)",
    )
    st.text("Key word: “{}” (word {} of the sentence), placed at position 1 and at position {}. "
            "Every query word stays at its own position.".format(tokens[mul.word_index], mul.word_index + 1,
                                                                  mul.position))
    a, b, c = st.columns(3)
    a.metric("‖x‖ at position 1", f"{mul.norm_at_1:.4g}")
    b.metric(f"‖x‖ at position {mul.position}", f"{mul.norm_at_m:.4g}")
    c.metric("Ratio", f"{mul.norm_at_m / mul.norm_at_1:.4g}")
    st.dataframe(mul_table, width="stretch")
    frame.check(f"max |s(m) − m·s(1)| over the queries (m = {mul.position})", mul.score_ratio_error,
                mul.score_ratio_error < 1e-9 * max(1.0, mul.position), "(every score × m)")
    frame.check("max |cos at m − cos at 1|", mul.cos_error, mul.cos_error < 1e-12,
                "(the direction — the meaning — is unchanged)")
    show(mul_lines)
    if n > 16:
        st.caption("Hover a line to see its query word (no legend for long sentences).")
    st.markdown(
        "The score measures **volume, not meaning**: the key word at position {} is {:.4g} times louder than at "
        "position 1, and every score with it is {:.4g} times larger, while the angle between query and key — "
        "what the words mean to each other — has not moved. A late word shouts; an early one whispers."
        .format(mul.position, mul.norm_at_m / mul.norm_at_1, mul.position)
    )
    frame.show_code(multiply_demo, multiply_code)

# ---------------------------------------------------------------- 4. one-hot
with tabs[3]:
    st.subheader("4 · One-hot positions")
    frame.formula(
        r"c(p) = e_p \in \mathbb{R}^N,\qquad \lVert e_p - e_q\rVert^2 = 1 + 1 = 2\ \ (p \ne q)"
        r"\quad\Rightarrow\quad \lVert e_p - e_q\rVert = \sqrt 2 \approx %.6f" % math.sqrt(2),
    )
    if oh.past_error:
        st.warning(oh.past_error, icon=":material/block:")
    else:
        st.success("Position {} → a 1 in column {} of {}.".format(oh.past, oh.past, oh.width),
                   icon=":material/check:")
        if oh.width <= 64:
            st.code(" ".join(str(int(v)) for v in oh.past_code), language=None)
    left, right = st.columns(2)
    with left:
        if oh.sentence_codes is not None:
            show(specs4["codes"])
            shown_cols = fx_charts.onehot_columns(n, oh.width)
            if shown_cols < oh.width:
                st.caption(f"Columns 1 … {shown_cols} of {oh.width} shown: the rest are zero for every word here.")
        else:
            st.warning("Your {}-word sentence does not fit: {}".format(n, oh.sentence_error),
                       icon=":material/block:")
    with right:
        show(specs4["distances"])
        if oh.shown < oh.width:
            st.caption(f"Positions 1 … {oh.shown} of {oh.width} shown; the check below covers every pair.")
    if oh.width >= 2:
        frame.check(r"max $|\lVert e_p - e_q\rVert - \sqrt 2|$ over p ≠ q", oh.sqrt2_error, oh.sqrt2_error < 1e-12,
                    f"(all pairs of the {oh.width} positions)" if oh.width <= 1000 else "(sampled pairs)")
    a_, b_, far = oh.pair
    if a_ < b_ < far:
        frame.check(r"$\lVert e_{%d} - e_{%d}\rVert - \lVert e_{%d} - e_{%d}\rVert$" % (a_, b_, a_, far),
                    oh.neighbour - oh.stranger, oh.neighbour < oh.stranger,
                    "(✓ if neighbours were closer than strangers; here they are exactly as far apart)")
    else:
        st.info("With N = {} there are too few positions to compare a neighbour with a stranger: "
                "try N ≥ 3.".format(oh.width))
    st.markdown(
        "The width is the length: a {}-word sentence needs {} columns, a {}-word one needs {} — {:.3g} times the "
        "model width d = {}. A position past the last column has no encoding at all.".format(
            n, n, L, L, L / d, d)
    )
    frame.show_code(one_hot_demo, one_hot)

# ---------------------------------------------------------------- summary
with tabs[4]:
    st.subheader("All four against the wishes")
    st.markdown(
        "Each cell is a test run just now: lengths {} and {} words, the multiply fix on the key word's vector, "
        "one-hot tables built for the longest sentence ({} columns).".format(SHORT, L, L)
    )
    st.table(summary_table)
    st.caption("Change the compare length on tab 2 and the table is recomputed.")
    frame.show_code(summary, wish_unique, wish_bounded, wish_same_meaning, wish_neighbours, wish_past)

st.divider()
frame.predict(
    "The sentence starts at position 500 and the raw index is appended to every word. Which key gets the "
    "most weight from each query?",
    ["The word closest in meaning to the query", "The last word of the sentence", "The query word itself",
     "All keys about equally"],
    1,
    "The last word. The position term $p_i\\,p_j$ grows by $p_i$ (here {:,} to {:,}) with every step of the key, "
    "beside content scores that spread by about $\\sqrt d$ = {:.3g}. On this page, {} of {} queries put their "
    "largest weight on the last word (average weight {:.4f}).".format(
        int(raw.positions[0]), int(raw.positions[-1]), math.sqrt(d), raw.last_wins, n, raw.last_weight),
    key="fixes_predict",
)

frame.share_link(PATH)
frame.bridge(PATH, "None of the four works, but one idea survives: give every position its own vector, "
             "the same at every length. The next page learns such a table — and finds its limits.")

"""Obvious fixes that fail: the raw index, index ÷ length, multiplying, one-hot — and how each breaks."""

import math

import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts import fixes as fc
from posenc.fixes import (
    COS_TOL,
    DECIDES,
    DWARFS,
    LONG,
    REL_TOL,
    SHORT,
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
    raw_term,
    summary,
    wish_bounded,
    wish_neighbours,
    wish_past,
    wish_same_meaning,
    wish_unique,
)

PATH = "lessons/fixes.py"
TABS = ["Raw index", "Divide by length", "Multiply", "One-hot", "All four"]
TAB_OF = {"fx_start": 0, "fx_len": 1, "fx_mpos": 2, "fx_width": 3, "fx_past": 3}  # a control's tab
P_RAW = chapter.RAW_POSITION
T, N_SHORT, N_LONG = chapter.LENGTH_EXAMPLE
M_FROM, M_TO = chapter.MULTIPLY_POSITIONS

frame.page(PATH, "Every obvious way to write a position into the input breaks something: the raw index drowns "
                 "the words, index ÷ length changes meaning with the length, multiplying turns position into "
                 "volume, and one-hot makes neighbours strangers.")

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
n = len(tokens)
frame.require(n >= 2, "Type at least two words: attention needs something to compare.")


# ---------------------------------------------------------------- one cached posenc call per section
@frame.cached
def raw_section(sentence: str, d: int, seed: int, start: int):
    inp = fixes_inputs(posenc.tokenize(sentence), d, seed)
    term, raw = raw_term(inp.X, inp.W, start), raw_index_demo(inp.X, inp.W, start)
    figs = {
        "coord": fc.coordinate_bars(inp.X[0], start, inp.tokens[0]),
        "terms": fc.score_terms(term.content_score, term.one_side, term.both_sides, start, term.d),
        "weights": fc.weights_heatmap(raw.weights_without, raw.weights_with, inp.tokens, start),
        "sweep": fc.share_sweep(raw.sweep_starts, raw.sweep_rho, raw.sweep_share, start),
    }
    readout = fc.raw_readout(raw.rho_without, raw.rho_with, raw.share_without, raw.share_with, raw.last_wins,
                             len(inp.tokens))
    return term, raw, figs, readout


@frame.cached
def ratio_section(sentence: str, length: int):
    words = posenc.tokenize(sentence)
    r = ratio_demo(len(words), length)
    return r, fc.ratio_strip(r.codes_sentence, r.codes_long, words, r.tracked), \
        fc.previous_gap_chart(r.lengths, r.previous_gap, r.n, r.length)


@frame.cached
def multiply_section(sentence: str, d: int, seed: int, position: int):
    inp = fixes_inputs(posenc.tokenize(sentence), d, seed)
    m = multiply_demo(inp.X, inp.W, inp.word, inp.query, position)
    return m, fc.multiply_lines(m.grid, m.grid_scores, inp.tokens, m.query_index, m.position), \
        fc.multiply_table(inp.tokens, m.scores_at_1, m.scores_at_m, m.cos_at_1, m.cos_at_m, m.position)


@frame.cached
def onehot_section(sentence: str, width: int, past: int):
    words = posenc.tokenize(sentence)
    oh = one_hot_demo(len(words), width, past)
    codes = fc.onehot_codes(oh.sentence_codes, words) if oh.sentence_codes is not None else None
    return oh, codes, fc.distance_heatmap(oh.distances)


@frame.cached
def summary_section(sentence: str, d: int, seed: int):
    inp = fixes_inputs(posenc.tokenize(sentence), d, seed)
    return fc.summary_frame(summary(inp.X[inp.word], SHORT, LONG), SHORT, LONG)


# ---------------------------------------------------------------- predict (at the chapter's position 500)
_, at_raw, _, _ = raw_section(ex.sentence, ex.d, ex.seed, P_RAW)
frame.predict(
    f"Your sentence starts at position {P_RAW} (the chapter's example) and every word vector gets its index "
    f"appended, in the {frame.term('query')} and the {frame.term('key')} alike. Which key gets the most weight "
    "from each query?",
    ["The word closest in meaning to the query", "The last word of the sentence", "The query word itself",
     "All keys about equally"],
    1,
    "The last word: it has the largest index. A score gains the term $p_i\\,p_j$ (here {:,} to {:,}), which grows "
    "by $p_i$ with every step of the key, beside content scores that spread by about {:.3g}. At position {}, "
    "{} of your {} queries put their largest weight on the last word (average weight {:.4f}).".format(
        int(at_raw.position_term.min()), int(at_raw.position_term.max()), at_raw.content_spread, P_RAW,
        at_raw.last_wins, n, at_raw.last_weight),
    key="fixes_predict",
)

# A link that sets one tab's control but names no tab opens that tab.
if "fx_tab" not in st.session_state and "fx_tab" not in st.query_params:
    linked = sorted(TAB_OF[k] for k in TAB_OF if k in st.query_params)
    if linked:
        st.session_state["fx_tab"] = TABS[linked[0]]
tabs = frame.tabs(TABS, key="fx_tab")

# ---------------------------------------------------------------- 1. the raw index
with tabs[0]:
    @frame.section(None)
    def raw_index_section():
        lead, control = st.columns([3, 2])
        lead.markdown("**1 · The raw index as one extra coordinate.** Append the position to every word vector, "
                      "x′ = [x ; p]. Look at the coordinate first, then at what it does in a "
                      + frame.term("score") + ".")
        with control:
            start = int(frame.slider("Position of the first word", "fx_start", 1, 2000, P_RAW,
                                     help=f"Place the sentence deep in a document: the chapter's example is "
                                          f"position {P_RAW}."))
        term, raw, figs, readout = raw_section(ex.sentence, ex.d, ex.seed, start)
        left, right = st.columns(2)
        with left:
            frame.chart(figs["coord"])
        with right:
            frame.chart(figs["terms"])
        frame.verdict("the index coordinate dwarfs the word's own coordinates",
                      start >= DWARFS * term.content_coordinate,
                      f"p = {start:,} against coordinates of typical size {term.content_coordinate:.2f} (root mean "
                      f"square), {start / term.content_coordinate:,.0f} times larger")
        frame.verdict("in a score, the index outweighs the words, as the chapter predicts",
                      term.one_side >= DWARFS * term.content_score,
                      f"content scores spread by {term.content_score:.3g} (√d = {term.sqrt_d:.3g}); the index "
                      f"meeting a query coordinate of size {term.query_coordinate:.2f} adds {term.one_side:,.0f}, "
                      f"and passed into both q and k it adds p × p = {term.both_sides:,.0f}")
        st.markdown(
            f"The chapter's numbers, on this page's sentence: a score is a sum of d products, so content scores "
            f"spread by about √d ({math.sqrt(chapter.CONTENT_D):g} at the chapter's d = {chapter.CONTENT_D}; here d = {term.d}, measured "
            f"{term.content_score:.3g}). The index coordinate of a key meets one coordinate of the query, of size "
            f"about 1 like all the others, and adds about 1 × {start:,} — the chapter's “term of order "
            f"{P_RAW}” when p = {P_RAW}. If the query carries its own index too, as below, the term is "
            f"pᵢ·pⱼ, up to {int(raw.position_term.max()):,}. Either way the words cannot compete.")
        frame.formula(r"s_{ij} = \frac{q_i\cdot k_j + p_i\,p_j}{\sqrt{d}}")
        frame.chart(figs["weights"])
        if n < 3:
            st.info("With two words every pair of scores lies on a line, so R² is 1 whatever the words say. Type "
                    "three or more words for a measure of how much of the ranking position explains.")
        else:
            frame.verdict(f"with the index, position decides the weights (R² above {DECIDES})",
                          raw.share_with > DECIDES,
                          f"position explains {raw.share_with:.4f} of each query's score spread (words only: "
                          f"{raw.share_without:.4f}); {raw.last_wins} of {n} queries give their largest weight to "
                          f"the last word")
        with frame.deeper("how much position explains, wherever the sentence starts", key="fx_deep_sweep"):
            st.markdown("ρ: rank correlation of each query's scores — and so its weights — with the key positions; "
                        "R²: the share of the score spread a straight line in the position explains; both "
                        f"averaged over the {n} queries. The content scores stay the same; only the start moves.")
            frame.table(readout)
            frame.chart(figs["sweep"])
        frame.show_code(raw_term, raw_index_demo, index_scores, rank_correlation, position_share)

# ---------------------------------------------------------------- 2. index ÷ length
with tabs[1]:
    @frame.section(None)
    def ratio_tab():
        st.markdown(f"**2 · Index ÷ length.** Divide the index by the sentence's length N: every code lands between "
                    f"0 and 1. The chapter's "
                    f"example: word {T} is {index_over_length([T], N_SHORT)[0, 0]:.3g} in {N_SHORT} words and "
                    f"{index_over_length([T], N_LONG)[0, 0]:.3g} in {N_LONG}.")
        length = int(frame.slider("Length of the sentence to compare (words)", "fx_len", 10, 1000, N_LONG,
                                  help="Index ÷ length in your sentence against a sentence this long."))
        r, strip, gap = ratio_section(ex.sentence, length)
        frame.chart(strip)
        frame.verdict(f"word {r.tracked}'s code depends on the sentence's length, as the chapter predicts",
                      r.tracked_sentence != r.tracked_long,
                      f"{r.tracked_sentence:.4g} in {r.n} words, {r.tracked_long:.4g} in {r.length}")
        frame.chart(gap)
        frame.verdict("the step to the previous word changes with the length",
                      r.step_long != r.step_sentence,
                      f"{r.step_sentence:.4g} in {r.n} words, {r.step_long:.4g} in {r.length}")
        if r.n < T:
            st.info(f"Your sentence has fewer than {T} words, so word {r.tracked} is followed instead.")
        st.markdown("“Look at the previous word” has no fixed numerical form for the model to learn: it is a "
                    "different number at every sentence length.")
        frame.formula(r"c(p) = \frac{p}{N},\qquad c(p) - c(p-1) = \frac{1}{N}")
        frame.show_code(ratio_demo, index_over_length)

# ---------------------------------------------------------------- 3. multiplying
with tabs[2]:
    @frame.section(None)
    def multiply_tab():
        st.markdown(f"**3 · Multiplying instead of adding.** Scale each word vector by its position, x′ = p·x. The chapter's example: “{chapter.MULTIPLY_WORD}” "
                    f"at position {M_TO} against position {M_FROM}.")
        m_pos = int(frame.slider("Position m of the key word", "fx_mpos", 1, 1000, M_TO,
                                 help=f"The key word is placed at position {M_FROM} and at position m."))
        m, lines, table = multiply_section(ex.sentence, ex.d, ex.seed, m_pos)
        st.text(f"Key word: “{tokens[m.word_index]}” (word {m.word_index + 1} of the sentence), at position "
                f"{M_FROM} and at position {m.position}. Every query word stays at its own position.")
        frame.chart(lines)
        frame.verdict(f"the key word at position {m.position} is {m.position} times louder",
                      abs(m.norm_at_m / m.norm_at_1 - m.position) <= REL_TOL * m.position,
                      f"‖x‖ = {m.norm_at_1:.4g} at position {M_FROM}, {m.norm_at_m:.4g} at position {m.position}")
        frame.verdict(f"every score with it is multiplied by {m.position}: volume",
                      m.score_ratio_error <= REL_TOL * max(1.0, m.position) * float(abs(m.scores_at_1).max()),
                      f"largest |s(m) − m·s(1)| over the queries {m.score_ratio_error:.1e}")
        frame.verdict("the angle between query and key — the meaning — does not move", m.cos_error < COS_TOL,
                      f"largest change of cos(q, k) {m.cos_error:.1e}, tolerance {COS_TOL:.0e}")
        st.markdown("The score measures **volume, not meaning**: a late word shouts, an early one whispers, and "
                    "what the words mean to each other has not changed.")
        frame.formula(r"x'_p = p\,x_p", r"s_{ij} = p_i\,p_j\,\frac{q_i\cdot k_j}{\sqrt d}",
                      r"\cos(q'_i, k'_j) = \cos(q_i, k_j)")
        with frame.deeper("every query's score and cosine, at position 1 and at m", key="fx_deep_multiply"):
            frame.table(table)
        frame.show_code(multiply_demo, multiply_code)

# ---------------------------------------------------------------- 4. one-hot
with tabs[3]:
    @frame.section(None)
    def onehot_tab():
        st.markdown("**4 · One-hot positions.** Give position p a column of its own: a vector of N zeros with a single 1 in column p.")
        c1, c2 = st.columns(2)
        with c1:
            width = int(frame.number("One-hot width N (the longest sentence)", "fx_width", 1, 1000, 8,
                                     help="The table has one column per position 1 … N."))
        with c2:
            past = int(frame.number("Encode position", "fx_past", 1, 2000, 9,
                                    help="Try a position past N: it has no column."))
        oh, codes, dist = onehot_section(ex.sentence, width, past)
        if oh.past_error:
            frame.verdict("a position past the table's last column has no encoding, as the chapter predicts", True,
                          f"asking for position {oh.past} in a table of width {oh.width} gives “{oh.past_error}”")
        else:
            st.markdown(f"Position {oh.past} → a 1 in column {oh.past} of {oh.width}. Try a position past "
                        f"{oh.width}.")
        left, right = st.columns(2)
        with left:
            frame.chart(dist)
            if oh.shown < oh.width:
                st.caption(f"Positions 1 … {oh.shown} of {oh.width} shown; the check below covers every pair.")
        with right:
            if codes is not None:
                frame.chart(codes)
                shown_cols = fc.onehot_columns(n, oh.width)
                if shown_cols < oh.width:
                    st.caption(f"Columns 1 … {shown_cols} of {oh.width} shown: the rest are zero for every word.")
            else:
                st.warning(f"Your {n}-word sentence does not fit: {oh.sentence_error}", icon=":material/block:")
        a_, b_, far = oh.pair
        if a_ < b_ < far:
            frame.verdict("neighbours sit as far apart as strangers, as the chapter predicts",
                          abs(oh.neighbour - oh.stranger) < COS_TOL,
                          f"‖e{a_} − e{b_}‖ = {oh.neighbour:.6f}, ‖e{a_} − e{far}‖ = {oh.stranger:.6f}")
        if oh.width >= 2:
            frame.verdict("every two positions are √2 apart", oh.sqrt2_error < COS_TOL,
                          f"largest deviation {oh.sqrt2_error:.0e} over "
                          + (f"all pairs of the {oh.width} positions" if oh.width <= 1000 else "sampled pairs"))
        st.markdown(f"The width is the length: your sentence of {n} words needs {n} columns, a sentence of "
                    f"{oh.width} words needs {oh.width} — {oh.width / ex.d:.3g} times the model width d = {ex.d}.")
        frame.formula(r"c(p) = e_p \in \mathbb{R}^N",
                      r"\lVert e_p - e_q\rVert = \sqrt 2 \approx %.6f\quad (p \ne q)" % math.sqrt(2))
        frame.show_code(one_hot_demo, one_hot)

# ---------------------------------------------------------------- the summary
with tabs[4]:
    @frame.section(None, fragment=False)
    def summary_tab():
        st.markdown(f"**All four against the wishes.** Each cell is a test run just now on your sentence's vectors: the chapter's lengths, "
                    f"{SHORT} and {LONG} words; the multiply fix on the key word's vector; one-hot tables built for "
                    f"the longest sentence ({LONG} columns).")
        frame.table(summary_section(ex.sentence, ex.d, ex.seed), wrap=True)
        frame.show_code(summary, wish_unique, wish_bounded, wish_same_meaning, wish_neighbours, wish_past)

frame.bridge(PATH, "None of the four works, but one idea survives: give every position its own vector, the same "
                   "at every length. The next page learns such a table — and finds its limits.")

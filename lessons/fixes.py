"""Obvious fixes that fail: the raw index, index ÷ length, multiplying, one-hot — and how each breaks."""

import math

import streamlit as st

import frame
from frame import linked_tabs, wording
from posenc import chapter
from posenc.charts import fixes as fc
from posenc.core import count, times
from posenc.fixes import COS_TOL, DECIDES, LONG, SHORT, index_over_length
from posenc.sections import fixes as sections

PATH = "lessons/fixes.py"
TABS = ["Divide by length", "Multiply", "One-hot", "All four"]
TAB_OF = {"fx_len": 0, "fx_mpos": 1, "fx_width": 2, "fx_past": 2}  # a control's tab
P_RAW = chapter.RAW_POSITION
T, N_SHORT, N_LONG = chapter.LENGTH_EXAMPLE
M_FROM, M_TO = chapter.MULTIPLY_POSITIONS
raw_section, ratio_section, multiply_section, onehot_section, summary_section = map(  # one cached call per section
    frame.cached, (sections.raw_index, sections.ratio, sections.multiply, sections.onehot, sections.wishes))

with frame.page(PATH, "Why not simply write each word's position into its vector? Four obvious ways — the raw "
                      "index, index ÷ length, multiplying by the position, a one-hot column: what does each one "
                      "break?"):
    ex = frame.example()
    tokens = frame.tokens_or_stop(ex.sentence)
    n = len(tokens)
    frame.require(n >= 2, "Type at least two words: attention needs something to compare.")

    # ------------------------------------------------------------ 1. the raw index (the key chart)
    @frame.section("1 · The raw index, appended")
    def raw_index_section():
        q = frame.predict(
            f"The sentence starts at position {P_RAW}, its index appended to every vector ({frame.term('query')} "
            f"and {frame.term('key')} alike). Which key gets most of each query's weight?",
            ["The word closest in meaning", "The last word", "The query word itself", "All about equally"],
            1, key="fixes_predict")
        left, right = st.columns([3, 2])
        start = int(frame.live.opening(fc.weights_spec())[fc.START])  # where the chart opens (a link's), 1 … 2000
        view = raw_section(ex.sentence, ex.d, ex.seed, start)
        term, raw, figs = view.term, view.raw, view.figs
        with left:
            frame.chart(figs["weights"])
        with right:
            frame.chart(figs["terms"])
        lo, hi = int(raw.position_term.min()), int(raw.position_term.max())
        wins = f"{wording.share(raw.last_wins, n, 'queries')} {'puts' if raw.last_wins == 1 else 'put'}"
        said = (f"Where the chart opens, at position {start:,}, {wins} their largest weight on the last word (on "
                f"average {raw.last_weight:.4f} of it).")
        if start != P_RAW:
            at_q = raw_section(ex.sentence, ex.d, ex.seed, P_RAW).raw
            said += (f" At the question's position {P_RAW}: {at_q.last_wins} of {n} "
                     f"(on average {at_q.last_weight:.4f}).")
        drag = (" Drag the first word's position under the map: the line above it counts, at every start, the "
                "queries whose largest weight is on the last key.")
        why = (f"a score gains the term $p_i\\,p_j$ (here {lo:,} to {hi:,}), which grows by $p_i$ with every step "
               f"of the key, beside content scores that spread by about {raw.content_spread:.3g}")
        frame.verdict("the index coordinate dwarfs the word's own coordinates", view.coordinate_dwarfs,
                      f"p = {start:,} against coordinates of typical size {term.content_coordinate:.2f} (root mean "
                      f"square): {times(start / term.content_coordinate)} times their size (where the chart "
                      "opened)")
        frame.verdict("in a score, the index outweighs the words, as the chapter predicts", view.one_dwarfs,
                      f"content scores spread by {term.content_score:.3g} (√d = {term.sqrt_d:.3g}); the index "
                      f"meeting a query coordinate of size {term.query_coordinate:.2f} adds {term.one_side:,.0f}, "
                      f"and passed into both q and k it adds p × p = {term.both_sides:,.0f} (where the chart opened)")
        if n >= 3:
            frame.verdict(f"with the index, position decides the weights (R² above {DECIDES})",
                          view.position_decides,
                          f"position explains {raw.share_with:.4f} of each query's score spread (words only: "
                          f"{raw.share_without:.4f}); {raw.last_wins} of {n} queries give their largest weight to "
                          f"the last word (where the chart opened)")
        q.answer(f"{said} The key with the largest index wins because {why}.{drag}" if view.everywhere else
                 f"{said} The index pulls every query toward the key with the largest index — {why} — but this "
                 f"near the start the pull does not yet win everywhere.{drag}", then=(
            f"Why: a score is a sum of d products, so content scores spread by about √d "
            f"({math.sqrt(chapter.CONTENT_D):g} at the chapter's d = {chapter.CONTENT_D}; here d = {term.d}, "
            f"measured {term.content_score:.3g}). The index coordinate of a key meets one coordinate of the query, "
            f"of size about 1, and adds about 1 × {start:,} — the chapter's “term of order {P_RAW}” when "
            f"p = {P_RAW}. With the query carrying its own index too, the term is pᵢ·pⱼ, up to {hi:,}. "
            f"{view.words_fare()}\n\n"
            r"$$s_{ij} = \frac{q_i\cdot k_j + p_i\,p_j}{\sqrt{d}}$$"))  # the formula names the pull: it waits too
        if n < 3:
            st.info("With two words every pair of scores lies on a line, so R² is 1 whatever the words say. Type "
                    "three or more words for a measure of how much of the ranking position explains.")
        with frame.deeper("the coordinate itself, and how much position explains wherever the sentence starts",
                          key="fx_deep_sweep"):
            frame.chart(figs["coord"])
            st.markdown("ρ: rank correlation of each query's scores — and so its weights — with the key positions; "
                        "R²: the share of the score spread a straight line in the position explains; both "
                        f"averaged over the {n} queries. The content scores stay the same; only the start moves.")
            frame.table(view.readout)
            frame.chart(figs["sweep"])

    # ------------------------------------------------------------ three more fixes, one tab each
    st.header("Three more fixes, and all four")
    tabs = linked_tabs.tabs(TABS, "fx_tab", opened_by=TAB_OF)  # ?fx_mpos=60 opens Multiply

    with tabs[0]:
        st.subheader("2 · Index ÷ length")

        @frame.section(None)
        def ratio_tab():
            st.markdown(f"Divide the index by the sentence's length N: every code lands between 0 and 1. The "
                        f"chapter's example: word {T} is {index_over_length([T], N_SHORT)[0, 0]:.3g} in {N_SHORT} "
                        f"words and {index_over_length([T], N_LONG)[0, 0]:.3g} in {N_LONG}.")
            ask = frame.predict("With every code p/N, what is the step from one word's code to the next word's?",
                                ["1, as with the raw index", "1/N: it changes with the sentence's length",
                                 "0: neighbours share one code"], 1, key="fx_ratio_predict")
            r, strip, gap = ratio_section(ex.sentence, int(frame.live.opening(fc.ratio_spec())[fc.LENGTH]))
            for where, fig in zip(st.columns(2), (strip, gap)):
                with where:
                    frame.chart(fig)
            frame.verdict(f"word {r.tracked}'s code depends on the sentence's length, as the chapter predicts",
                          r.tracked_sentence != r.tracked_long,
                          f"{r.tracked_sentence:.4g} in {r.n} words, {r.tracked_long:.4g} in {r.length} (where the chart opened)")
            frame.verdict("the step to the previous word changes with the length", r.step_long != r.step_sentence,
                          f"{r.step_sentence:.4g} in {r.n} words, {r.step_long:.4g} in {r.length} (where the chart opened)")
            followed = f" (your sentence is shorter than {T} words, so word {r.tracked} is followed)" if r.n < T else ""
            if r.n == r.length:
                said = (f"At N = {r.length}, where the chart opens, the two lengths are equal ({r.n} words), so the "
                        f"codes agree{followed}; drag N and they part.")
            else:
                said = (f"Where the chart opens, word {r.tracked} is {r.tracked_sentence:.3g} in your {r.n} words "
                        f"and {r.tracked_long:.3g} in {r.length}{followed}; the step to the previous word is "
                        f"{r.step_sentence:.3g} against {r.step_long:.3g}. Drag N under the chart: the longer the "
                        "sentence, the closer the ticks and the smaller the step.")
            ask.answer(f"1/N, a different number at every sentence length. {said}",
                       "“Look at the previous word” has no fixed numerical form for the model to learn.")
            frame.formula(r"c(p) = \frac{p}{N},\qquad c(p) - c(p-1) = \frac{1}{N}")

    with tabs[1]:
        st.subheader("3 · Multiplying instead of adding")

        @frame.section(None)
        def multiply_tab():
            st.markdown(f"Scale each word vector by its position, x′ = p·x. The chapter's example: "
                        f"“{chapter.MULTIPLY_WORD}” at position {M_TO} against position {M_FROM}.")
            ask = frame.predict(f"Move the key word from position {M_FROM} to position m, scaled by its position. "
                                "What happens to every query's score with it?",
                                ["It is multiplied by m", "It stays the same: the words still mean the same",
                                 "It shrinks as m grows"], 0, key="fx_multiply_predict")
            opens = frame.live.opening(fc.multiply_spec(tokens, chapter.query_index(tokens)))[fc.POSITION]
            mv = multiply_section(ex.sentence, ex.d, ex.seed, int(opens))  # at the m the chart opens at (a link's)
            m = mv.m
            st.text(f"Key word: “{tokens[m.word_index]}” (word {m.word_index + 1} of the sentence), at position "
                    f"{M_FROM} and at position m (the slider under the chart). Every query word stays at its own "
                    "position.")
            frame.chart(mv.lines)
            frame.verdict(f"the key word at position {m.position} is {m.position} times louder", mv.louder,
                          f"‖x‖ = {m.norm_at_1:.4g} at position {M_FROM}, {m.norm_at_m:.4g} at position "
                          f"{m.position} (where the chart opened)")
            frame.verdict(f"every score with it is multiplied by {m.position}: volume", mv.scaled,
                          f"largest |s(m) − m·s(1)| over the queries {m.score_ratio_error:.1e}")
            frame.verdict("the angle between query and key — the meaning — does not move", mv.same_angle,
                          f"largest change of cos(q, k) {m.cos_error:.1e}, tolerance {COS_TOL:.0e}")
            if m.position == M_FROM:
                said = (f"The chart opens at m = {M_FROM}: nothing is scaled yet. Drag m under the chart and watch "
                        "the numbers on the score axis grow with it.")
            else:
                said = (f"Where the chart opens, at m = {m.position:,}, the key word's vector is "
                        f"{m.norm_at_m / m.norm_at_1:,.4g} times as long as at position {M_FROM}"
                        + (f", and every score with it {m.position:,} times as large" if mv.scaled else "")
                        + (", while the angle between query and key — what the words mean to each other — has not "
                           "moved." if mv.same_angle else ".") + " Drag m under the chart: the lines keep their "
                        "shape while the numbers on the score axis grow with m, every score scaled by the same m.")
            ask.answer(f"Multiplied by m: the score measures **volume, not meaning**. {said}",
                       "A late word shouts; an early one whispers.")
            frame.formula(r"{x'_p = p\,x_p},\qquad\allowbreak {s_{ij} = p_i\,p_j\,\frac{q_i\cdot k_j}{\sqrt d}},"
                          r"\qquad\allowbreak {\cos(q'_i, k'_j) = \cos(q_i, k_j)}")  # a phone breaks between them
            with frame.deeper("every query's score and cosine, at position 1 and at m", key="fx_deep_multiply"):
                frame.table(mv.table)
                st.caption(f"At the m the chart opens at, {m.position:,}.")

    with tabs[2]:
        st.subheader("4 · One-hot positions")

        @frame.section(None)
        def onehot_tab():
            st.markdown("Give position p a column of its own: a vector of N zeros with a single 1 in column p.")
            ask = frame.predict("Which codes sit closer together: those of two neighbours (positions 1 and 2), or "
                                "those of two strangers (positions 1 and N)?",
                                ["The neighbours'", "Neither: every two positions are equally far apart",
                                 "The strangers'"], 1, key="fx_onehot_predict")
            opens = frame.live.opening(fc.onehot_spec())  # the N and p the chart opens at (a link's)
            oh, fig = onehot_section(ex.sentence, int(opens[fc.WIDTH]), int(opens[fc.PAST]))
            frame.chart(fig)
            where = f"where the chart opens, N = {oh.width:,}"
            if oh.past_error:
                frame.verdict("a position past the table's last column has no encoding, as the chapter predicts",
                              True, f"asking for position {oh.past:,} in a table of width {oh.width:,} gives "
                                    f"“{oh.past_error}” ({where})")
                asked = f"Where the chart opens, position {oh.past:,} is past column {oh.width:,}: it has no code at all."
            else:
                asked = (f"Where the chart opens, position {oh.past:,} → a 1 in column {oh.past:,} of {oh.width:,}. "
                         f"Drag p past {oh.width:,}: it has no column.")
            fits = (f"Your {n} words fit in its {count(oh.width, 'column')}." if oh.sentence_error is None else
                    f"Your {n}-word sentence does not fit in its {count(oh.width, 'column')}: {oh.sentence_error}")
            a_, b_, far = oh.pair
            if a_ < b_ < far:
                frame.verdict("neighbours sit as far apart as strangers, as the chapter predicts",
                              abs(oh.neighbour - oh.stranger) < COS_TOL,
                              f"‖e{a_} − e{b_}‖ = {oh.neighbour:.6f}, ‖e{a_} − e{far}‖ = {oh.stranger:.6f} "
                              f"({where})")
            if oh.width >= 2:
                frame.verdict("every two positions are √2 apart", oh.sqrt2_error < COS_TOL,
                              f"largest deviation {oh.sqrt2_error:.0e} over all pairs of the {oh.width:,} "
                              f"positions ({where})")
            wide = "word needs 1 column" if oh.width == 1 else f"words needs {oh.width:,} columns"
            here = (f"{where}: {oh.neighbour:.6f} for neighbours and {oh.stranger:.6f} for strangers"
                    if a_ < b_ < far else f"{where}, a table too narrow to hold strangers: drag N wider")
            ask.answer(f"Neither: every two different one-hot codes are √2 ≈ {math.sqrt(2):.6f} apart ({here}), so "
                       "the code says nothing about which positions are near.",
                       f"{asked} {fits} The width is the length: your sentence of {n} words needs {n} columns, a "
                       f"sentence of {oh.width:,} {wide} — {oh.width / ex.d:.3g} times the model width d = {ex.d}. "
                       "Drag N and p under the chart: the lines under the map say, at every value, whether p has a "
                       "code and whether your sentence fits.")
            frame.formula(r"c(p) = e_p \in \mathbb{R}^N",
                          rf"\lVert e_p - e_q\rVert = \sqrt 2 \approx {math.sqrt(2):.6f}\quad (p \ne q)")

    with tabs[3]:
        st.subheader("All four against the wishes")

        @frame.section(None, fragment=False)
        def summary_tab():
            sv = summary_section(ex.sentence, ex.d, ex.seed)
            frame.table(sv.wishes, wrap=True)
            st.markdown(f"Each cell is a test run just now on your sentence's vectors: the chapter's lengths, "
                        f"{SHORT} and {LONG} words; the multiply fix on the key word's vector; one-hot tables built "
                        f"for the longest sentence ({LONG} columns). "
                        + (f"Fixes that meet every wish here: {sections.names(sv.unbroken)}." if sv.unbroken else
                           "No fix meets every wish."))
            with frame.deeper("every test's numbers, fix by fix", key="fx_deep_summary"):
                frame.table(sv.table, wrap=True)

    frame.show_code(*sections.CODE)
    every_fix_fails = not summary_section(ex.sentence, ex.d, ex.seed).unbroken
    frame.bridge(PATH, ("None of the four works" if every_fix_fails else "Not one of the four meets every wish "
                        "everywhere") + ", but one idea survives: give every position its own vector, the same at "
                        "every length. The next page learns such a table — and finds its limits.")

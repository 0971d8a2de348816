"""A learned table: one trainable vector per position — what it gives past its last row, to rows training rarely
reaches, and between neighbours."""

import streamlit as st

import frame
from posenc import chapter
from posenc.core import times
from posenc.learned import (
    ALIKE,
    BERT_INIT_STD,
    CHANCE_SIGMAS,
    DECIDES,
    LENGTH_SIGMA,
    STEP,
    TRAIN_MEDIAN,
    TRAIN_SENTENCES,
    UNALIKE,
)
from posenc.sections import learned as sections

PATH = "lessons/learned.py"
N_MAX = chapter.N_MAX
N_MAX_OPTIONS = [8, 32, 128, 512, 1024, 2048]
POS_MAX = 4096
SENTENCE_OPTIONS = [1_000, 10_000, 100_000, 1_000_000]
GRID_STEP = 16  # every 16th row of the trained table in the cosine grids
edge_section, lookups_section, pattern_section, training_section, neighbours_section = map(  # one cached call each
    frame.cached, (sections.table_edge, sections.lookups, sections.pattern, sections.training, sections.neighbours))
trained_section = frame.cached(sections.trained, max_entries=2)


with frame.page(PATH, "Give every position its own trainable vector: a table of N_max rows, looked up like a word's "
                      "row and added to it. What does it give a token past its last row, what becomes of rows "
                      "training rarely reaches, and does a row know its neighbours?"):
    ex = frame.example()
    tokens = frame.tokens_or_stop(ex.sentence)
    shown = min(sections.SHOWN_DIMS, ex.d)

    # ------------------------------------------------------------ 1. the edge of the table (the key chart)
    @frame.section("One row past the end")
    def edge_view():
        q = frame.predict(
            f"The table has rows 1 … {N_MAX:,}: the model is built for {N_MAX:,} tokens. What does it give token "
            f"{N_MAX + 1:,}?",
            [f"Row {N_MAX:,} again", "A row of zeros", "A slightly worse vector",
             f"Nothing: there is no row {N_MAX + 1:,}"],
            3, key="learned_predict")
        chart_col, c1 = st.columns([3, 1])  # the controls beside the chart: the whole chart on the first screen
        with c1:
            n_max = int(frame.select("Table size N_max (rows)", "lt_nmax", N_MAX_OPTIONS, N_MAX,
                                     kind="select_slider",
                                     help=f"How many positions the table has a row for. {N_MAX} is the chapter's "
                                          f"example and the question's."))
            pos = int(frame.slider("Look up position p", "lt_pos", 1, POS_MAX, N_MAX + 1,
                                   help="Row p belongs to the p-th word. Try one past the end of the table."))
        e, window = edge_section(n_max, ex.d, ex.seed, pos)
        with chart_col:
            frame.chart(window)
        at_q = edge_section(N_MAX, ex.d, ex.seed, N_MAX + 1)[0]
        if e.found:
            now = (f"Row {e.position:,} of this {e.n_max:,}-row table is found (outlined): P[{e.position}], d = {ex.d} "
                   f"trainable numbers" + (f", its first {shown} drawn" if shown < ex.d else "") +
                   f". The last row you can look up is row {e.n_max:,}.")
        else:
            now = (f"Row {e.position:,} of this {e.n_max:,}-row table: nothing to look up, so a word at position "
                   f"{e.position:,} gets no position vector and the model cannot read it.")
        q.answer(f"Asking the chapter's table for row {N_MAX + 1:,} gives: “{at_q.message}” A table has exactly the "
                 f"rows it was built with; the model does not degrade at token {N_MAX + 1:,}, it has nothing to look "
                 f"up. (In PyTorch, `nn.Embedding` raises *IndexError: index out of range in self*.) {now}",
                 then="Real models cut their input to N_max tokens. Outlined: the row looked up (row p of the "
                      "table, stored at index p − 1); ×: a row that does not exist. The input of word p is its "
                      "word's row plus row p: x_p = E[w_p] + P[p].")
        if len(tokens) > e.n_max:
            st.info(f"Your sentence has {len(tokens)} words but this table only {e.n_max} rows: words {e.n_max + 1} … "
                    f"{len(tokens)} get no position row, so a real model cuts them off.", icon=":material/content_cut:")
        frame.verdict(f"a model built for {e.n_max:,} tokens has no row {e.n_max + 1:,}, as the chapter says",
                      e.last_found and e.after_last is not None,
                      f"row {e.n_max:,} is found; asking for row {e.n_max + 1:,} gives “{e.after_last}”")

        with frame.deeper("building the input is two lookups", key="lt_deep_lookups"):
            lk, fig = lookups_section(ex.sentence, ex.d, ex.seed)
            st.markdown(f"The word's vector comes from the word table E, the position's from the position table P "
                        f"(here the chapter's {N_MAX:,} rows); the model adds them. The first {shown} of d = {ex.d} "
                        f"coordinates; both tables start random (entries ~ N(0, 1) here).")
            frame.formula(r"x_p = E[w_p] + P[p]", r"P \in \mathbb{R}^{N_{\max} \times d},\quad p = 1,\dots,N_{\max}")
            frame.chart(fig)
            frame.verdict("the input is the word's row plus the position's row", lk.max_error == 0.0,
                          f"largest |x_p − (E[w_p] + P[p])| = {lk.max_error:.0e} over {lk.n_used} words × {ex.d} "
                          f"coordinates")

        with frame.deeper("a pattern, not a magnitude: a row's part of a score", key="lt_deep_pattern"):
            pt, fig = pattern_section(ex.sentence, ex.d, ex.seed)
            raw_at = pt.raw_ratio_at(chapter.RAW_POSITION)
            lo, hi = float(pt.ratio.min()), float(pt.ratio.max())
            colours = hi < DECIDES
            last = int(pt.starts[-1])
            where = (f"for every start 1 … {last:,} of the sentence in the table" if last > 1 else
                     "with the sentence filling the table")
            st.markdown(f"A row of the table is d = {ex.d} numbers of ordinary size, so nothing makes the vector "
                        f"grow along the sentence. Its part of a {frame.term('score')} is {times(lo)}–{times(hi)} "
                        f"times the words' part {where}; the raw index's part at position {chapter.RAW_POSITION} "
                        f"is {times(raw_at)} times. "
                        + ("It colours the score rather than deciding it." if colours else
                           f"At d = {ex.d} it can reach {DECIDES:g} times the words' part, so here it can decide a "
                           "score too."))
            frame.chart(fig)
            frame.verdict("a position vector colours a score rather than deciding it, as the chapter says", colours,
                          f"its part of a score is {times(lo)}–{times(hi)} times the content part (below "
                          f"{DECIDES:g}), computed at every start 1 … {last:,}; the raw index's part at position "
                          f"{chapter.RAW_POSITION} is {times(raw_at)} times")
            st.caption("Position part of a score: the scores with x = E + P minus the scores with E alone (root mean "
                       "square over the sentence's pairs); the content part: the scores with E alone.")

    # ------------------------------------------------------------ 2. training reaches the first rows most
    @frame.section("Rows training rarely reaches")
    def training_view():
        q = frame.predict(
            f"Training sees {TRAIN_SENTENCES:,} sentences, most of them short (median {TRAIN_MEDIAN} words), on the "
            f"{N_MAX:,}-row table. Which rows end up closest to their random start?",
            ["The first rows", "The rows near the median length", "The last rows", "All about the same"],
            2, key="learned_train_predict")
        t1, t2 = st.columns(2)
        with t1:
            n_sent = int(frame.select("Training sentences", "lt_sent", SENTENCE_OPTIONS, TRAIN_SENTENCES,
                                      kind="select_slider", help="How many sentences the simulated training sees."))
        with t2:
            median = int(frame.slider("Median sentence length (words)", "lt_median", 2, 512, TRAIN_MEDIAN,
                                      help="Lengths are log-normal around this median: many short sentences, a "
                                           "few long ones."))
        tr, hist, top, bottom, n_drawn = training_section(ex.d, ex.seed, n_sent, median)
        frame.chart(bottom)
        tail = tr.tail
        moved_first, moved_last = tr.moved_ends()
        fewer = int(tr.updates[-1]) < int(tr.updates[0])
        closer = moved_last < moved_first
        settings = ("" if (n_sent, median) == (TRAIN_SENTENCES, TRAIN_MEDIAN) else
                    f" (at the question's {TRAIN_SENTENCES:,} sentences and median {TRAIN_MEDIAN}; here "
                    f"{n_sent:,} and {median})")
        if closer:
            said = (f"The last rows{settings}: rows {N_MAX - tail + 1:,} … {N_MAX:,} moved {moved_last:.3f}× their "
                    f"starting length on average, rows 1 … {tail} {moved_first:.3f}×.")
        else:
            said = (f"The question's answer is the last rows; at these settings{settings} rows "
                    f"{N_MAX - tail + 1:,} … {N_MAX:,} moved {moved_last:.3f}× their starting length and rows "
                    f"1 … {tail} {moved_first:.3f}×, so the last rows are not closer here.")
        q.answer(f"{said} Every sentence updates row 1 ({int(tr.updates[0]):,} updates), but only sentences that "
                 f"reach position r update row r: row {N_MAX:,} got {int(tr.updates[-1]):,} "
                 f"({tr.updates[-1] / n_sent:.3%} of the sentences). A row that is rarely reached is rarely trained.")
        frame.verdict("the last rows get little practice, as the chapter says", fewer,
                      f"row 1 gets {int(tr.updates[0]):,} updates (every sentence has a first word), row {N_MAX:,} "
                      f"gets {int(tr.updates[-1]):,} ({tr.updates[-1] / n_sent:.3%} of the sentences)")
        frame.verdict("the last rows stay closer to their random start", closer,
                      f"rows 1 … {tail} moved {moved_first:.3f}× their starting length on average, rows "
                      f"{N_MAX - tail + 1:,} … {N_MAX:,} {moved_last:.3f}×")
        drawn = (f" {n_drawn} of the {N_MAX:,} rows are drawn, evenly spaced, first and last included."
                 if n_drawn < N_MAX else "")
        st.markdown(f"A cheap, honest simulation: sentence lengths are log-normal (median {median} words, "
                    f"σ = {LENGTH_SIGMA:g} in log space, cut at {N_MAX:,}); a sentence of length L sends each of rows "
                    f"1 … L one small random step (η = {STEP:g}). It counts updates; it does not model *what* the "
                    f"gradient says.{drawn}")
        with frame.deeper("updates per row, the length mix and the random-walk formula", key="lt_deep_training"):
            frame.chart(top)
            frame.chart(hist)
            if tr.truncated:
                st.caption(f"{tr.truncated:,} of {n_sent:,} sentences were longer than {N_MAX:,} words and were cut.")
            frame.formula(r"n_r = \#\{\text{sentences with } L \ge r\}",
                          r"P_r - P_r^{(0)} \sim \mathcal{N}(0,\; n_r\,\eta^2 I_d),\qquad "
                          r"\lVert P_r - P_r^{(0)} \rVert \approx \eta\sqrt{n_r\, d}")
            st.markdown("The sum of n random steps is one random vector with n times the variance, so every row's "
                        "whole history is drawn at once.")

    # ------------------------------------------------------------ 3. rows do not know their neighbours
    @frame.section("Does a row know its neighbours?")
    def independence_view():
        nb = neighbours_section(ex.d, ex.seed)
        ind, near, spread = nb.ind, nb.ind.by_offset[1], nb.ind.mean_spread(1)
        ask, see = st.columns([2, 3])  # the question beside its chart, the answer under both
        with ask:
            q = frame.predict(
                f"Before training, each of the {N_MAX:,} rows is d = {ex.d} random numbers. On average, are "
                "neighbouring rows (1 apart) more alike than rows far apart?",
                ["More alike", "About as alike: cosine ≈ 0", "Less alike"],
                {1: 0, 0: 1, -1: 2}[nb.neighbours], key="learned_neighbours_predict")
        with see:
            frame.chart(nb.fig)
        frame.verdict("neighbouring rows start out no more alike than distant ones, as the chapter says", nb.chance,
                      f"cos(P{ind.a}, P{ind.b}) = {ind.cos_ab:+.3f}, cos(P{ind.a}, P{ind.c}) = {ind.cos_ac:+.3f}; "
                      f"chance alone gives about ±1/√d = ±{ind.spread:.3f}")
        frame.verdict("no offset is special on average", nb.neighbours == 0,
                      f"rows 1 apart: mean cosine {near:+.4f} over {N_MAX - 1:,} pairs (chance: about ±{spread:.4f})")
        q.answer(f"Rows 1 apart have mean cosine {near:+.4f} over their {N_MAX - 1:,} pairs, rows {nb.far:,} apart "
                 f"{ind.by_offset[nb.far]:+.4f} over {N_MAX - nb.far:,}. Chance alone spreads the neighbours' mean by "
                 f"about ±{spread:.4f}, and {near:+.4f} is "
                 + (f"within {CHANCE_SIGMAS:g} times that: on average neighbours are no more alike than any two rows."
                    if nb.neighbours == 0 else f"beyond {CHANCE_SIGMAS:g} times that: an unusual draw of this seed, "
                    "since every row is drawn on its own."),
                 then=f"Nothing ties row {ind.a} to row {ind.b}: each row is its own set of d numbers. At the "
                      f"start cos(P{ind.a}, P{ind.b}) = {ind.cos_ab:+.3f} and cos(P{ind.a}, P{ind.c}) = "
                      f"{ind.cos_ac:+.3f}"
                      + (f"; chance alone gives any cosine at d = {ex.d} (typically ±{ind.spread:.3f}), so this "
                         "width says little: widen d." if CHANCE_SIGMAS * ind.spread >= 1 and nb.chance else
                         f", both within {CHANCE_SIGMAS:g} times the ±{ind.spread:.3f} chance alone gives at "
                         f"d = {ex.d}: being neighbours makes two rows no more alike than chance does." if nb.chance
                         else f"; chance gives about ±{ind.spread:.3f} at d = {ex.d}.")
                      + " The model has to learn that they are neighbours, one pair at a time.")
        with frame.deeper("what training actually produced: a real learned table", key="lt_deep_minilm"):
            frame.formula(r"\cos(u, v) = \frac{u \cdot v}{\lVert u\rVert\,\lVert v\rVert}, \qquad "
                          r"c(k) = \operatorname{mean}_p \cos(P_p, P_{p+k})")
            try:
                tt = trained_section(GRID_STEP)
            except (FileNotFoundError, ValueError) as err:
                st.warning(f"The trained table could not be loaded: {err}")
                return
            (n_rows, width), cos_trained, cos_start, grid_rows = tt.shape, tt.cos_trained, tt.cos_start, tt.grid_rows
            st.markdown(f"The position table of the sentence model **all-MiniLM-L6-v2** ({n_rows} rows × {width} "
                        f"numbers), numbered 1 … {n_rows} here (the model's code counts 0 … {n_rows - 1}). Beside it, "
                        f"a random table of the same shape, as training starts it (entries ~ N(0, "
                        f"{BERT_INIT_STD:g}²)).")
            cos_fig, norms_fig, grid_trained, grid_start = tt.figs
            frame.chart(cos_fig)
            far = min(200, n_rows - 1)
            frame.verdict("training made neighbouring rows alike",
                          cos_trained[1] > ALIKE and abs(cos_start[1]) < UNALIKE,
                          f"mean cosine of rows 1 apart: {cos_trained[1]:.3f} trained, {cos_start[1]:+.4f} at "
                          f"initialisation; 10 apart {cos_trained[10]:.2f}, {far} apart {cos_trained[far]:.2f}")
            g1, g2 = st.columns(2)
            with g1:
                frame.chart(grid_trained)
            with g2:
                frame.chart(grid_start)
            st.caption(f"Every {GRID_STEP}th row ({len(grid_rows)} rows: {grid_rows[0]}, {grid_rows[1]}, …, "
                       f"{grid_rows[-1]}): the trained table shows a bright band along the diagonal, the random one "
                       f"only the diagonal itself.")
            frame.chart(norms_fig)
            st.caption(f"Dashed: the end of the table. There is no row {n_rows + 1}.")
            frame.verdict(f"this trained model, built for {n_rows} tokens, has no row {n_rows + 1}",
                          tt.missing is not None, tt.missing or "a row was found")
            st.caption("Data: `sentence-transformers/all-MiniLM-L6-v2` position-embedding table (licence "
                       "Apache-2.0), shipped as `data/minilm_position_embeddings.npy` in float16; provenance and "
                       "checksums in `data/PROVENANCE.md`.")

    frame.show_code(*sections.CODE)
    frame.bridge(PATH, "A table spends d free numbers on every position, stops dead at N_max, and has to learn from "
                       "data that neighbours are neighbours. Could a position be *written* instead of learned — in "
                       "binary, like a counter?")

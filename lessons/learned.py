"""A learned table: one trainable vector per position — no row past N_max, rows that don't know their neighbours."""

import numpy as np
import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts import learned as lc
from posenc.charts.spec import word_labels
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
    downsample_index,
    edge,
    independence,
    init_table,
    initial_like,
    log2_bins,
    lookup,
    mean_cosine_by_offset,
    pattern_terms,
    simulate_training,
    two_lookups,
    updates_per_row,
)
from posenc.trained import cosine_matrix, load_minilm_table, row_norms

PATH = "lessons/learned.py"
N_MAX = chapter.N_MAX
SHOWN_DIMS = 16
N_MAX_OPTIONS = [8, 32, 128, 512, 1024, 2048]
POS_MAX = 4096
SENTENCE_OPTIONS = [1_000, 10_000, 100_000, 1_000_000]
MAX_POINTS = 300  # points per line chart over the rows
GRID_STEP = 16  # every 16th row of the trained table in the cosine grids

frame.page(PATH, f"Give every position its own trainable vector — a table of N_max rows, looked up like a word and "
                 f"added to it. It works, but there is no row past N_max, rarely seen rows barely learn, and no row "
                 f"knows its neighbours.")

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
k = min(SHOWN_DIMS, ex.d)


# ---------------------------------------------------------------- one cached posenc call per section
@frame.cached
def edge_section(n_max: int, d: int, seed: int, pos: int):
    e = edge(n_max, d, seed, pos, SHOWN_DIMS)
    return e, lc.table_window(e.values, e.rows, e.n_max, e.position)


@frame.cached
def lookups_section(sentence: str, d: int, seed: int):
    lk = two_lookups(posenc.tokenize(sentence), N_MAX, d, seed)
    labels = word_labels(lk.tokens[: lk.n_used])
    return lk, lc.two_lookups(lk.word_rows, lk.position_rows, labels, SHOWN_DIMS)


@frame.cached
def pattern_section(sentence: str, d: int, seed: int):
    pt = pattern_terms(posenc.tokenize(sentence), N_MAX, d, seed)
    return pt, lc.pattern_chart(pt.starts, pt.learned, pt.raw, pt.content, N_MAX)


@frame.cached
def training_section(d: int, seed: int, n_sentences: int, median: int):
    tr = simulate_training(N_MAX, d, seed, n_sentences, float(median))
    labels, _, sums = log2_bins(tr.length_counts)
    idx = downsample_index(N_MAX, MAX_POINTS)
    top, bottom = lc.per_row(idx + 1, tr.updates[idx], tr.relative[idx], N_MAX)
    return tr, lc.length_histogram(labels, sums), top, bottom, len(idx)


@frame.cached
def independence_section(d: int, seed: int):
    ind = independence(N_MAX, d, seed)
    oi = downsample_index(N_MAX, MAX_POINTS)
    fig = lc.cosine_offsets(oi, {"random table at the start": ind.by_offset[oi]},
                            "Mean cosine of rows k apart (random start)")
    return ind, fig, len(oi)


@frame.cached(max_entries=2)
def minilm_section(grid_step: int):
    trained = load_minilm_table()
    n, width = trained.shape
    start = initial_like(trained)
    rows = np.arange(0, n, grid_step)
    cos_trained, cos_start = mean_cosine_by_offset(trained), mean_cosine_by_offset(start)
    offsets = np.arange(n // 2 + 1)
    grid_rows = (rows + 1).tolist()
    figs = (
        lc.cosine_offsets(offsets, {"trained (MiniLM)": cos_trained[offsets],
                                    "random, at initialisation": cos_start[offsets]},
                          "Mean cosine of rows k apart"),
        lc.row_norms(np.arange(1, n + 1), row_norms(trained), n),
        lc.cosine_grid(cosine_matrix(trained, rows), grid_rows, "cos between rows, trained"),
        lc.cosine_grid(cosine_matrix(start, rows), grid_rows, "cos between rows, at initialisation"),
    )
    return (n, width), cos_trained, cos_start, grid_rows, int(offsets[-1]), figs


# ---------------------------------------------------------------- predict (at the chapter's table of 1024 rows)
at_chapter, _ = edge_section(N_MAX, ex.d, ex.seed, N_MAX + 1)
frame.predict(
    f"A model is built for {N_MAX:,} tokens: its position table has rows 1 … {N_MAX:,}. Its input reaches token "
    f"{N_MAX + 1:,}. What does the table give that token?",
    [f"Row {N_MAX:,} again: the last row is reused", "A row of zeros",
     "A slightly worse vector: the model degrades gracefully", f"Nothing: there is no row {N_MAX + 1:,} to look up"],
    3,
    f"Nothing. Asking the table for row {N_MAX + 1:,} gives: “{at_chapter.message}” A table has exactly the rows "
    f"it was built with; the model does not degrade at token {N_MAX + 1:,}, it has nothing to look up. (In PyTorch, "
    f"`nn.Embedding` raises *IndexError: index out of range in self*.)",
    key="learned_predict",
)


@frame.section("Look up a row — and one past the end")
def edge_view():
    c1, c2 = st.columns([1, 2])
    with c1:
        n_max = int(frame.select("Table size N_max (rows)", "lt_nmax", N_MAX_OPTIONS, N_MAX, kind="select_slider",
                                 help=f"How many positions the table has a row for. {N_MAX} is the chapter's "
                                      f"example."))
    with c2:
        pos = int(frame.slider("Look up position p", "lt_pos", 1, POS_MAX, N_MAX + 1,
                               help="Row p belongs to the p-th word. Try one past the end of the table."))
    e, window = edge_section(n_max, ex.d, ex.seed, pos)
    frame.chart(window)
    if len(tokens) > e.n_max:
        st.info(f"Your sentence has {len(tokens)} words but this table only {e.n_max} rows: words {e.n_max + 1} … "
                f"{len(tokens)} get no position row, so a real model cuts them off.", icon=":material/content_cut:")
    frame.verdict(f"a model built for {e.n_max:,} tokens has no row {e.n_max + 1:,}, as the chapter says",
                  e.last_found and e.after_last is not None,
                  f"row {e.n_max:,} is found; asking for row {e.n_max + 1:,} gives “{e.after_last}”")
    if e.found:
        st.markdown(f"**Row {e.position:,}: found.** P[{e.position}] is a vector of d = {ex.d} trainable numbers "
                    f"(its first {min(SHOWN_DIMS, ex.d)} are the outlined row). The last row you can look up is "
                    f"row {e.n_max:,}.")
    else:
        said = "" if e.position == e.n_max + 1 else f"{e.message} "
        st.markdown(f"**Row {e.position:,}: nothing to look up.** {said}A word at position {e.position:,} "
                    f"cannot be given any position vector, so the model cannot read it: real models cut their "
                    f"input to {e.n_max:,} tokens.")
    st.caption("Outlined: the row looked up (row p of the table, stored at index p − 1); ×: a row that does not "
               "exist.")


@frame.section("Building the input is two lookups", fragment=False)
def lookups_view():
    lk, fig = lookups_section(ex.sentence, ex.d, ex.seed)
    st.markdown(f"The word's vector comes from the word table E, the position's from the position table P "
                f"(here the chapter's {N_MAX:,} rows); the model adds them. Row p of P belongs to the p-th word.")
    frame.formula(r"x_p = E[w_p] + P[p]", r"P \in \mathbb{R}^{N_{\max} \times d},\quad p = 1,\dots,N_{\max}")
    frame.chart(fig)
    frame.verdict("the input is the word's row plus the position's row", lk.max_error == 0.0,
                  f"largest |x_p − (E[w_p] + P[p])| = {lk.max_error:.0e} over {lk.n_used} words × {ex.d} "
                  f"coordinates")
    st.caption(f"The first {min(SHOWN_DIMS, ex.d)} of d = {ex.d} coordinates. Both tables start random "
               f"(entries ~ N(0, 1) here).")


@frame.section("A pattern, not a magnitude", fragment=False)
def pattern_view():
    pt, fig = pattern_section(ex.sentence, ex.d, ex.seed)
    raw_at = pt.raw_ratio_at(chapter.RAW_POSITION)
    st.markdown(f"A row of the table is spread over d = {ex.d} numbers of ordinary size — its length is about "
                f"√d = {np.sqrt(ex.d):.3g} at row 1 as at row {N_MAX:,} — so two positions can agree in some "
                f"coordinates and differ in others, and nothing makes the vector grow along the sentence. Its part "
                f"of a {frame.term('score')} stays the size of the words' part: it colours the score rather than "
                f"deciding it.")
    frame.chart(fig)
    frame.verdict("a position vector colours a score rather than deciding it, as the chapter says",
                  float(pt.ratio.max()) < DECIDES,
                  f"its part of a score is {pt.ratio.min():.2g}–{pt.ratio.max():.2g} times the content part, wherever "
                  f"the sentence sits in rows 1 … {N_MAX:,}; the raw index's part at position "
                  f"{chapter.RAW_POSITION} is {raw_at:,.0f} times")
    st.caption("Position part of a score: the scores with x = E + P minus the scores with E alone (root mean square "
               "over the sentence's pairs); the content part: the scores with E alone.")


tr0 = training_section(ex.d, ex.seed, TRAIN_SENTENCES, TRAIN_MEDIAN)[0]  # the question's own settings
frame.predict(
    f"Training sees {TRAIN_SENTENCES:,} sentences, most of them short (median {TRAIN_MEDIAN} words), on the "
    f"chapter's table of {N_MAX:,} rows. Which rows end up closest to their random start?",
    ["The first rows", "The rows near the median length", "The last rows", "All rows move about the same"],
    2,
    "The last rows. Every sentence updates row 1, but only sentences that reach position r update row r. "
    "In that training, row {n:,} got {u:,} updates ({s:.3%} of the sentences) and moved {m:.3f}× its starting "
    "length; row 1 got {u1:,} and moved {m1:.3f}×. A row that is rarely reached is rarely trained.".format(
        n=N_MAX, u=int(tr0.updates[-1]), s=tr0.updates[-1] / TRAIN_SENTENCES, m=float(tr0.relative[-1]),
        u1=int(tr0.updates[0]), m1=float(tr0.relative[0])),
    key="learned_train_predict",
)


@frame.section("Training: rows that are rarely reached barely move")
def training_view():
    t1, t2 = st.columns(2)
    with t1:
        n_sent = int(frame.select("Training sentences", "lt_sent", SENTENCE_OPTIONS, TRAIN_SENTENCES,
                                  kind="select_slider", help="How many sentences the simulated training sees."))
    with t2:
        median = int(frame.slider("Median sentence length (words)", "lt_median", 2, 512, TRAIN_MEDIAN,
                                  help="Lengths are log-normal around this median: many short sentences, a few "
                                       "long ones."))
    tr, hist, top, bottom, n_drawn = training_section(ex.d, ex.seed, n_sent, median)
    h1, h2 = st.columns(2)
    with h1:
        frame.chart(top)
    with h2:
        frame.chart(bottom)
    if n_drawn < N_MAX:
        st.caption(f"{n_drawn} of the {N_MAX:,} rows drawn (evenly spaced, first and last included); hover for "
                   f"values.")
    tail = tr.tail
    moved_first, moved_last = tr.moved_ends()
    frame.verdict(f"the last rows get little practice, as the chapter says",
                  int(tr.updates[-1]) < int(tr.updates[0]),
                  f"row 1 gets {int(tr.updates[0]):,} updates (every sentence has a first word), row {N_MAX:,} gets "
                  f"{int(tr.updates[-1]):,} ({tr.updates[-1] / n_sent:.3%} of the sentences)")
    frame.verdict(f"the last rows stay closer to their random start",
                  moved_last < moved_first,
                  f"rows 1 … {tail} moved {moved_first:.3f}× their starting length on average, rows "
                  f"{N_MAX - tail + 1:,} … {N_MAX:,} {moved_last:.3f}×")
    st.markdown(f"A cheap, honest simulation: each training sentence has a length L drawn from a log-normal "
                f"distribution (median {median} words, σ = {LENGTH_SIGMA:g} in log space), cut to at most "
                f"{N_MAX:,}. A sentence of length L sends one update to each of rows 1 … L — here a small step in a "
                f"random direction (entries ~ N(0, η²), η = {STEP:g}). It counts updates; it does not model *what* "
                f"the gradient says.")
    with frame.deeper("the length mix and the random-walk formula", key="lt_deep_training"):
        frame.chart(hist)
        if tr.truncated:
            st.caption(f"{tr.truncated:,} of {n_sent:,} sentences were longer than {N_MAX:,} words and were cut.")
        frame.formula(r"n_r = \#\{\text{sentences with } L \ge r\}",
                      r"P_r - P_r^{(0)} \sim \mathcal{N}(0,\; n_r\,\eta^2 I_d),\qquad "
                      r"\lVert P_r - P_r^{(0)} \rVert \approx \eta\sqrt{n_r\, d}")
        st.markdown("The sum of n random steps is one random vector with n times the variance, so every row's "
                    "whole history is drawn at once.")


@frame.section("Rows are independent parameters", fragment=False)
def independence_view():
    ind, fig, n_offsets = independence_section(ex.d, ex.seed)
    st.markdown(f"Nothing ties row {ind.a} to row {ind.b}: each row is its own set of d numbers. At the start, "
                f"row {ind.a} is no closer to its neighbour, row {ind.b}, than to row {ind.c}; the model has to learn "
                f"that they are neighbours, one pair at a time.")
    frame.chart(fig)
    frame.verdict(f"neighbouring rows start out no more alike than distant ones, as the chapter says",
                  abs(ind.cos_ab) < CHANCE_SIGMAS * ind.spread and abs(ind.cos_ac) < CHANCE_SIGMAS * ind.spread,
                  f"cos(P{ind.a}, P{ind.b}) = {ind.cos_ab:+.3f}, cos(P{ind.a}, P{ind.c}) = {ind.cos_ac:+.3f}; chance "
                  f"alone gives about ±1/√d = ±{ind.spread:.3f}")
    frame.verdict("no offset is special on average",
                  abs(ind.by_offset[1]) < CHANCE_SIGMAS * ind.mean_spread(1),
                  f"rows 1 apart: mean cosine {ind.by_offset[1]:+.4f} over {N_MAX - 1:,} pairs (chance: about "
                  f"±{ind.mean_spread(1):.4f})")
    frame.formula(r"\cos(u, v) = \frac{u \cdot v}{\lVert u\rVert\,\lVert v\rVert}, \qquad "
                  r"c(k) = \operatorname{mean}_p \cos(P_p, P_{p+k})")
    with frame.deeper("what training actually produced: a real learned table", key="lt_deep_minilm"):
        try:
            (n_rows, width), cos_trained, cos_start, grid_rows, max_offset, figs = minilm_section(GRID_STEP)
        except (FileNotFoundError, ValueError) as err:
            st.warning(f"The trained table could not be loaded: {err}")
            return
        st.markdown(f"The position table of the sentence model **all-MiniLM-L6-v2** ({n_rows} rows × {width} "
                    f"numbers), numbered 1 … {n_rows} here (the model's code counts 0 … {n_rows - 1}). Beside it, a "
                    f"random table of the same shape, as training starts it (entries ~ N(0, {BERT_INIT_STD:g}²)).")
        cos_fig, norms_fig, grid_trained, grid_start = figs
        frame.chart(cos_fig)
        far = min(200, n_rows - 1)
        frame.verdict("training made neighbouring rows alike", cos_trained[1] > ALIKE and abs(cos_start[1]) < UNALIKE,
                      f"mean cosine of rows 1 apart: {cos_trained[1]:.3f} trained, {cos_start[1]:+.4f} at "
                      f"initialisation; 10 apart {cos_trained[10]:.2f}, {far} apart {cos_trained[far]:.2f}")
        g1, g2 = st.columns(2)
        with g1:
            frame.chart(grid_trained)
        with g2:
            frame.chart(grid_start)
        st.caption(f"Every {GRID_STEP}th row ({len(grid_rows)} rows: {grid_rows[0]}, {grid_rows[1]}, …, "
                   f"{grid_rows[-1]}): the trained table shows a bright band along the diagonal, the random one only "
                   f"the diagonal itself.")
        frame.chart(norms_fig)
        st.caption(f"Dashed: the end of the table. There is no row {n_rows + 1}.")
        try:
            lookup(load_minilm_table(), [n_rows + 1])
            missing = None
        except ValueError as err:
            missing = str(err)
        frame.verdict(f"this trained model, built for {n_rows} tokens, has no row {n_rows + 1}", missing is not None,
                      missing or "a row was found")
        st.caption("Data: `sentence-transformers/all-MiniLM-L6-v2` position-embedding table (licence Apache-2.0), "
                   "shipped as `data/minilm_position_embeddings.npy` in float16; provenance and checksums in "
                   "`data/PROVENANCE.md`.")


frame.show_code(edge, lookup, two_lookups, pattern_terms, simulate_training, updates_per_row, independence,
                mean_cosine_by_offset)
frame.bridge(PATH, "A table spends d free numbers on every position, stops dead at N_max, and has to learn from "
                   "data that neighbours are neighbours. Could a position be *written* instead of learned — in "
                   "binary, like a counter?")

import numpy as np
import pandas as pd
import streamlit as st

import frame
import posenc
from posenc import charts
from posenc.charts import learned as lc
from posenc.charts import vega_spec
from posenc.learned import (
    LENGTH_SIGMA,
    STEP,
    downsample_index,
    independence,
    init_table,
    log2_bins,
    lookup,
    mean_cosine_by_offset,
    simulate_training,
    two_lookups,
    updates_per_row,
)
from posenc.trained import cosine_matrix, load_minilm_table, row_norms

PATH = "lessons/learned.py"
SHOWN_DIMS = 16
N_MAX_OPTIONS = [8, 32, 128, 512, 1024, 2048]
POS_MAX = 4096
SENTENCE_OPTIONS = [1_000, 10_000, 100_000, 1_000_000]
MAX_POINTS = 300  # points per line chart over the rows: fewer marks for the browser to redraw

frame.header(
    "A learned table",
    "Give every position its own trainable vector: a table of N_max rows, looked up like a word and added "
    "to it. Simple — but there is no row past N_max, rarely seen rows barely learn, and no row knows its neighbours.",
)

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)

c1, c2 = st.columns([1, 2])
with c1:
    n_max = int(frame.select("Table size N_max (rows)", "lt_nmax", N_MAX_OPTIONS, 1024, kind="select_slider",
                             help="How many positions the table has a row for. 1024 is the chapter's example."))
with c2:
    pos = int(frame.slider("Look up position p", "lt_pos", 1, POS_MAX, 1025,
                           help="Row p belongs to the p-th word. Try one past the end of the table."))


# Results and their charts are cached together, per section, on the scalars that section depends on
# (cache_resource: shared, read-only), so a rerun that only moves the position slider rebuilds nothing but
# the small window chart. Charts are cached as ready Vega-Lite specs with their data already in Arrow form
# (vega_spec): a rerun neither validates nor re-serialises them.
@st.cache_resource(max_entries=32, show_spinner=False)
def lookups_view(sentence: str, n_max: int, d: int, seed: int, k: int):
    lk = two_lookups(posenc.tokenize(sentence), n_max, d, seed)
    return lk, vega_spec(lc.two_lookups(lk.word_rows, lk.position_rows, charts.word_labels(lk.tokens[: lk.n_used]),
                                        k))


@st.cache_resource(max_entries=32, show_spinner=False)
def window_view(n_max: int, d: int, seed: int, rows: tuple[int, ...], pos: int, k: int):
    """The first k coordinates of the listed 1-based rows; rows past the table are drawn as missing."""
    table = init_table(n_max, d, seed)
    present = [r for r in rows if r <= n_max]
    out = np.zeros((len(rows), k))
    if present:
        out[: len(present)] = lookup(table, present)[:, :k]
    return vega_spec(lc.table_window(out, list(rows), n_max, pos, k))


@st.cache_resource(max_entries=32, show_spinner=False)
def training_view(n_max: int, d: int, seed: int, n_sentences: int, median: int):
    tr = simulate_training(n_max, d, seed, n_sentences, float(median))
    labels, _, sums = log2_bins(tr.length_counts)
    idx = downsample_index(n_max, MAX_POINTS)
    top, bottom = lc.per_row(idx + 1, tr.updates[idx], tr.relative[idx], n_max)
    return tr, vega_spec(lc.length_histogram(labels, sums)), vega_spec(top), vega_spec(bottom), len(idx)


@st.cache_resource(max_entries=32, show_spinner=False)
def independence_view(n_max: int, d: int, seed: int):
    ind = independence(n_max, d, seed)
    oi = downsample_index(n_max, MAX_POINTS)
    df = pd.DataFrame({"offset k": oi, "mean cosine": ind.by_offset[oi], "table": "random table at the start"})
    return ind, vega_spec(lc.cosine_offsets(df, "Cosine of rows k apart, averaged over all pairs (random start)")), \
        len(oi)


@st.cache_resource(max_entries=2, show_spinner=False)
def minilm_view(grid_step: int):
    trained = load_minilm_table()
    n, width = trained.shape
    # BERT-style initialisation of a table of the same shape: entries ~ N(0, 0.02²)
    start = np.random.default_rng(512).normal(0.0, 0.02, size=(n, width))
    rows = np.arange(0, n, grid_step)
    mm = {
        "shape": (n, width),
        "cos_trained": mean_cosine_by_offset(trained),
        "cos_start": mean_cosine_by_offset(start),
        "grid_rows": (rows + 1).tolist(),
        "last_row_ok": lookup(trained, [n]).shape == (1, width),
    }
    offsets = np.arange(n // 2 + 1)
    df_cos = pd.concat([
        pd.DataFrame({"offset k": offsets, "mean cosine": mm["cos_trained"][offsets], "table": "trained (MiniLM)"}),
        pd.DataFrame({"offset k": offsets, "mean cosine": mm["cos_start"][offsets],
                      "table": "random, at initialisation"}),
    ])
    mm["max_offset"] = int(offsets[-1])
    mm["charts"] = tuple(vega_spec(chart) for chart in (
        lc.cosine_offsets(df_cos, "Cosine of rows k apart: trained vs random"),
        lc.row_norms(np.arange(1, n + 1), row_norms(trained), n),
        lc.cosine_grid(cosine_matrix(trained, rows), mm["grid_rows"], "cos between rows, trained"),
        lc.cosine_grid(cosine_matrix(start, rows), mm["grid_rows"], "cos between rows, at initialisation"),
    ))
    return mm


# ---------------------------------------------------------------- two lookups
st.subheader("Building the input is two lookups")
st.markdown(
    "Row **p** of the table belongs to the **p-th word**: positions run 1 … N_max on screen (the code stores "
    "row p at index p − 1). The word's vector comes from the word table E, the position's from the position "
    "table P; the model adds them."
)
frame.formula(r"x_p = E[w_p] + P[p], \qquad P \in \mathbb{R}^{N_{\max} \times d},\quad p = 1,\dots,N_{\max}")
k = min(SHOWN_DIMS, ex.d)
lk, lookups_chart = lookups_view(ex.sentence, n_max, ex.d, ex.seed, k)
frame.show_words(tokens)
if lk.n_used < len(tokens):
    st.warning("The sentence has {} words but the table only {} rows: words {} … {} have no position row, so "
               "they are cut off, as a real model truncates its input.".format(len(tokens), n_max, n_max + 1,
                                                                                 len(tokens)),
               icon=":material/content_cut:")
st.vega_lite_chart(lookups_chart, width="content")
st.caption("The first {} of d = {} coordinates. Both tables start random (entries ~ N(0, 1) here).".format(k, ex.d))
frame.check("max |x_p − (E[w_p] + P[p])|", lk.max_error, lk.max_error == 0.0,
            "(over {} words × {} coordinates: two lookups and one addition)".format(lk.n_used, ex.d))

# ---------------------------------------------------------------- the edge of the table
st.subheader("Look up row p — and one past the end")
if pos > n_max + 3:
    # far past the end: the table's last rows, the first missing row, then the asked-for one
    rows = list(range(max(1, n_max - 4), n_max + 2)) + [pos]
else:
    rows = list(range(max(1, pos - 5), max(1, pos - 5) + 9))
left, right = st.columns([3, 2])
with left:
    st.vega_lite_chart(window_view(n_max, ex.d, ex.seed, tuple(rows), pos, k), width="content")
with right:
    try:
        lookup(np.empty((n_max, 0)), [pos])
    except ValueError as err:
        st.error("**Position {} — nothing to look up.** {} A word at position {} cannot be given any position "
                 "vector: the model never sees it. (In PyTorch, `nn.Embedding` raises "
                 "*IndexError: index out of range in self*.) Real models cut the input to {} tokens."
                 .format(pos, err, pos, n_max), icon=":material/block:")
    else:
        st.success("Row {} exists: P[{}] is a vector of d = {} trainable numbers (its first {} are the outlined "
                   "row in the chart). The table has {} rows; the last one you can look up is row {}."
                   .format(pos, pos, ex.d, k, n_max, n_max), icon=":material/check:")
    st.caption("Grey × cells: rows that do not exist. Move the slider past {} to fall off the table.".format(n_max)
               + (" The chart shows the table's last rows, then row {}.".format(pos) if pos > n_max + 3 else ""))

# ---------------------------------------------------------------- training
st.subheader("Training: rows that are rarely reached barely move")
t1, t2 = st.columns(2)
with t1:
    n_sent = int(frame.select("Training sentences", "lt_sent", SENTENCE_OPTIONS, 100_000, kind="select_slider",
                              help="How many sentences the simulated training sees."))
with t2:
    median = int(frame.slider("Median sentence length (words)", "lt_median", 2, 512, 32,
                              help="Lengths are log-normal around this median: many short sentences, a few long ones."))
tr, hist_chart, top, bottom, n_drawn = training_view(n_max, ex.d, ex.seed, n_sent, median)
st.markdown(
    "A cheap, honest simulation: each training sentence has a length L drawn from a log-normal distribution "
    "(median {} words, σ = {:g} in log space), cut to at most N_max = {}. A sentence of length L fills "
    "positions 1 … L, so it sends one update to each of rows 1 … L — here a small step in a random direction "
    "(entries ~ N(0, η²), η = {:g}). The sum of n random steps is one random vector with n times the variance, "
    "so every row's whole history is drawn at once.".format(median, LENGTH_SIGMA, n_max, STEP)
)
frame.formula(
    r"n_r = \#\{\text{sentences with } L \ge r\}, \qquad "
    r"P_r - P_r^{(0)} \sim \mathcal{N}(0,\; n_r\,\eta^2 I_d), \qquad "
    r"\lVert P_r - P_r^{(0)} \rVert \approx \eta\sqrt{n_r\, d}"
)
h1, h2 = st.columns([2, 3])
with h1:
    st.vega_lite_chart(hist_chart, width="stretch")
    if tr.truncated:
        st.caption("{:,} of {:,} sentences were longer than {} words and were cut to {}.".format(
            tr.truncated, n_sent, n_max, n_max))
with h2:
    st.vega_lite_chart(top, width="stretch")
    st.vega_lite_chart(bottom, width="stretch")
    if n_drawn < n_max:
        st.caption("{} of the {} rows drawn (evenly spaced, first and last included); hover for values."
                   .format(n_drawn, n_max))
tail = max(1, n_max // 10)
frame.check("updates of row 1", "{:,}".format(int(tr.updates[0])), int(tr.updates[0]) == n_sent,
            "(every sentence has a first word)")
frame.check("updates of row {}".format(n_max), "{:,}".format(int(tr.updates[-1])),
            int(tr.updates[-1]) <= int(tr.updates[0]),
            "(only sentences at least {} words long reach it: {:.3%})".format(n_max, tr.updates[-1] / n_sent))
moved_first, moved_last = float(np.mean(tr.relative[:tail])), float(np.mean(tr.relative[-tail:]))
skewed = tr.updates[-1] < 0.1 * tr.updates[0]
frame.check("moved, rows 1 … {} vs rows {} … {} (mean × starting length)".format(tail, n_max - tail + 1, n_max),
            "{:.3f} vs {:.3f}".format(moved_first, moved_last), moved_first >= moved_last or not skewed,
            "(the last rows stay close to their random start)" if skewed else
            "(here most sentences reach row {}, so every row moves about as much: shrink the median or grow "
            "N_max to see the skew)".format(n_max))
st.markdown(
    "A row that is never reached stays exactly as random as it started: whatever the model learned, "
    "it did not learn it there. This simulation only counts updates; it does not model *what* the gradient "
    "says — real training also pulls neighbouring rows together, as the trained table below shows."
)

# ---------------------------------------------------------------- independence
st.subheader("Rows are independent parameters")
ind, ind_chart, n_offsets = independence_view(n_max, ex.d, ex.seed)
st.markdown(
    "Nothing ties row {} to row {}: each row is its own set of d numbers, drawn at random. At the start, "
    "row {} is no closer to row {} than to row {}.".format(ind.a, ind.b, ind.a, ind.b, ind.c)
)
frame.formula(r"\cos(u, v) = \frac{u \cdot v}{\lVert u\rVert\,\lVert v\rVert}, \qquad "
              r"c(k) = \operatorname{mean}_p \cos(P_p, P_{p+k})")
i1, i2 = st.columns([3, 2])
with i1:
    st.vega_lite_chart(ind_chart, width="stretch")
    if n_offsets < n_max:
        st.caption("{} of the {} offsets drawn (evenly spaced, 0 and {} included); hover for values."
                   .format(n_offsets, n_max, n_max - 1))
with i2:
    frame.check("cos(P{}, P{})".format(ind.a, ind.b), "{:+.3f}".format(ind.cos_ab),
                abs(ind.cos_ab) < 4 * ind.spread, "(neighbours)")
    frame.check("cos(P{}, P{})".format(ind.a, ind.c), "{:+.3f}".format(ind.cos_ac),
                abs(ind.cos_ac) < 4 * ind.spread, "(far apart)")
    st.markdown("Both are the size of chance: two random vectors in d = {} dimensions have a cosine of about "
                "±1/√d = ±{:.3f}.".format(ex.d, ind.spread))
    kf = ind.c - ind.a
    for kk in sorted({1, kf}):
        frame.check("c({}), mean over all {} pairs {} apart".format(kk, n_max - kk, kk),
                    "{:+.4f}".format(ind.by_offset[kk]), abs(ind.by_offset[kk]) < 4 * ind.mean_spread(kk),
                    "(chance alone gives about ±{:.4f})".format(ind.mean_spread(kk)))
    st.caption("Averaged over many pairs, every offset gives a cosine near zero, within what chance allows: "
               "no offset is special.")

# ---------------------------------------------------------------- MiniLM
st.subheader("What training actually produced")
GRID_STEP = 16
try:
    mm = minilm_view(GRID_STEP)
except (FileNotFoundError, ValueError) as err:
    st.warning("The trained table could not be loaded: {}".format(err))
else:
    n_rows, width = mm["shape"]
    st.markdown(
        "A real learned table: the position embeddings of the sentence model **all-MiniLM-L6-v2** "
        "({} rows × {} numbers). Rows are numbered 1 … {} here (the model's code counts 0 … {}; its first row "
        "is the slot of the [CLS] marker). Beside it, a random table of the same shape, as training starts it "
        "(entries ~ N(0, 0.02²), BERT's initialisation).".format(n_rows, width, n_rows, n_rows - 1)
    )
    cos_chart, norms_chart, grid_trained, grid_start = mm["charts"]
    m1, m2 = st.columns(2)
    with m1:
        st.vega_lite_chart(cos_chart, width="stretch")
        st.caption("Offsets 0 … {}: each point averages at least {} pairs of rows.".format(
            mm["max_offset"], n_rows - mm["max_offset"]))
    with m2:
        st.vega_lite_chart(norms_chart, width="stretch")
    frame.check("mean cos of neighbouring rows (k = 1), trained", "{:.3f}".format(mm["cos_trained"][1]),
                mm["cos_trained"][1] > 0.5, "(training made neighbours similar)")
    frame.check("the same at initialisation", "{:+.4f}".format(mm["cos_start"][1]),
                abs(mm["cos_start"][1]) < 0.05, "(random rows: nothing in common)")
    far = min(200, n_rows - 1)
    st.markdown(
        "Training discovered that neighbouring positions should look alike — nobody told it. Rows k = 1 apart "
        "have a mean cosine of {:.2f}; k = 10 apart {:.2f}; k = {} apart {:.2f}. The random table knows none "
        "of this: every offset sits at {:+.3f} or so.".format(mm["cos_trained"][1], mm["cos_trained"][10], far,
                                                              mm["cos_trained"][far], mm["cos_start"][1])
    )
    g1, g2 = st.columns(2)
    rows_g = mm["grid_rows"]
    with g1:
        st.vega_lite_chart(grid_trained, width="stretch")
    with g2:
        st.vega_lite_chart(grid_start, width="stretch")
    st.caption("Every {}th row ({} rows: {}, {}, …, {}) so the grid stays small; the trained table shows a "
               "bright band along the diagonal, the random one only the diagonal itself."
               .format(GRID_STEP, len(rows_g), rows_g[0], rows_g[1], rows_g[-1]))
    try:
        lookup(np.empty((n_rows, 0)), [n_rows + 1])
        edge_msg = ""
    except ValueError as err:
        edge_msg = str(err)
    frame.check("row {} exists".format(n_rows), "yes" if mm["last_row_ok"] else "no", bool(mm["last_row_ok"]))
    frame.check("row {}".format(n_rows + 1), "missing", bool(edge_msg), "— " + edge_msg)
    st.markdown("The hard edge is real: this model can read {} tokens and not one more. Its row {} exists, "
                "row {} does not — no amount of training creates it.".format(n_rows, n_rows, n_rows + 1))
    st.caption("Data: `sentence-transformers/all-MiniLM-L6-v2` position-embedding table (licence Apache-2.0), "
               "shipped as `data/minilm_position_embeddings.npy` in float16; provenance and checksums in "
               "`data/PROVENANCE.md`.")

frame.show_code(two_lookups, lookup, simulate_training, updates_per_row, independence, mean_cosine_by_offset)

tail_share = tr.updates[-1] / n_sent
frame.predict(
    "Training sees {:,} sentences, most of them short (median {} words), on a table of {} rows. "
    "Which rows end up closest to their random start?".format(n_sent, median, n_max),
    ["The first rows", "The rows near the median length", "The last rows", "All rows move about the same"],
    2,
    "The last rows. Every sentence updates row 1, but only sentences that reach position r update row r. "
    "At the current settings row {} got {:,} updates ({:.3%} of the sentences) and moved {:.3f}× its starting "
    "length; row 1 got {:,} and moved {:.3f}×. A row that is rarely reached is rarely trained."
    .format(n_max, int(tr.updates[-1]), tail_share, float(tr.relative[-1]), int(tr.updates[0]),
            float(tr.relative[0])),
    key="learned_predict",
)

frame.share_link(PATH)
frame.bridge(PATH, "A table spends d free numbers on every position, stops dead at N_max, and has to learn from "
             "data that neighbours are neighbours. Could a position be *written* instead of learned — in binary, "
             "like a counter?")

import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts.primer import steps
from posenc.core import softmax, tokenize
from posenc.primer import MAX_SHOWN_WORDS, SHOWN_COORDS, TOL, check_pieces, copy_columns_gap, primer

PATH = "lessons/attention.py"

frame.page(PATH, "One attention head in five steps: each word asks with a query, is found by its key, and "
                 "hands over its value, in proportion to softmax-ed scores.")

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
n = len(tokens)


@frame.cached
def run(sentence: str, d: int, seed: int):
    res = primer(tokenize(sentence), d, seed)
    fig = steps(res, query=chapter.query_index(res.tokens), shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS)
    return res, fig


res, fig = run(ex.sentence, ex.d, ex.seed)

# The Predict question is asked on the chapter's sentence at the sidebar's d and seed, and answered there.
ch_res, _ = run(chapter.SENTENCE, ex.d, ex.seed)
ch_copies, ch_gap = copy_columns_gap(ch_res)
a, b = (i + 1 for i in ch_copies[:2])
frame.predict(
    f"On the chapter's sentence “{chapter.SENTENCE}”, words {a} and {b} are both “{chapter.COPY_WORD}”. "
    f"In the score matrix S (one row per query, one column per key), how do columns {a} and {b} compare "
    f"(at the sidebar's d = {ex.d}, seed {ex.seed})?",
    ["They are equal, entry by entry", f"Column {b} is larger: that copy sits nearer the middle",
     "They differ by an amount that depends on the seed", f"They agree only in rows {a} and {b}"],
    0,
    f"Equal. Both copies are the same word, so the same vector x, the same key k = x W_K, and any query's dot "
    f"product with the two keys is the same number. On the chapter's sentence at d = {ex.d}, seed {ex.seed}, the "
    f"largest difference between columns {a} and {b} is {ch_gap:.1g}. Nothing in S says which copy came first.",
    key="at_predict",
)


@frame.section("From words to weights", fragment=False)
def pipeline():
    k = min(SHOWN_COORDS, ex.d)
    shown = min(n, MAX_SHOWN_WORDS)
    left, right = st.columns([2, 3], gap="medium")
    with left:
        st.markdown(
            f"1. **Word vectors.** Each word is looked up as a row of *d* = {ex.d} numbers — the sidebar's "
            f"{frame.term('d')}; the same word always gives the same row.\n"
            f"2. **Query, key, value.** Each row is multiplied by three matrices: its {frame.term('query')} asks, "
            f"its {frame.term('key')} is what the others' queries match, its {frame.term('value')} is what it "
            "hands over.\n"
            f"3. **Scores.** Every query meets every key: the {frame.term('score')} q · k / √d says how well they "
            "match (row = the query, column = the key).\n"
            f"4. **Softmax.** Each row of scores goes through the {frame.term('softmax')}: positive weights that "
            "sum to 1.\n"
            "5. **Weighted sum.** The word's output is its row of weights times the value rows: it reads each "
            "word in proportion to its weight."
        )
        st.caption(f"Pick the query word in the menu above the picture: it is outlined (and its label in bold) in "
                   f"every step, with no rerun. Vectors show their first {k} of d = {ex.d} coordinates"
                   + (f"; the picture shows the first {shown} of {n} words." if shown < n else ".")
                   + " Orange is positive, blue negative; hover a cell for its value.")
    with right:
        with st.container(key="pe-primer"):
            frame.chart(fig)
    frame.verdict("every row of weights sums to 1, as the softmax promises", res.row_sum_error < TOL,
                  f"largest |row sum − 1| {res.row_sum_error:.0e} over {n} rows, tolerance {TOL:.0e}")
    copies, gap = copy_columns_gap(res)
    if copies:
        shown_pos = ", ".join(str(i + 1) for i in copies)
        frame.verdict("copies of one word get equal columns of S: no query can tell them apart", gap < TOL,
                      f"words {shown_pos} are the same word; their columns differ by at most {gap:.0e}")
    else:
        st.caption("This sentence repeats no word, so there are no copies to compare; the chapter's sentence "
                   "has two.")
    err = check_pieces(res)
    frame.verdict("the five steps are exactly what posenc.attention computes", err < TOL,
                  f"softmax(S) and weights · V match its weights and output to {err:.0e}")


# A page-wide style for this picture only: the query menu of the figure sits above it, next to the caption.
st.html("<style>.st-key-pe-primer .vega-embed { display: flex; flex-direction: column-reverse; } "
        ".st-key-pe-primer .vega-bindings { margin-bottom: 0.5rem; }</style>")

with frame.deeper("the same steps as matrices", key="at_deep_matrices"):
    st.markdown("With one row per word, the five steps are five lines of linear algebra "
                "(n words, width d):")
    frame.formula(
        r"X \in \mathbb{R}^{n\times d},\quad Q = XW_Q,\; K = XW_K,\; V = XW_V",
        r"S = QK^\top/\sqrt{d},\qquad A = \operatorname{softmax}_{\text{row}}(S),\qquad \operatorname{Attn}(X) = AV",
    )
    st.markdown(
        "Dividing by √d keeps the scores about 1 in size whatever the width: a dot product of d unit-size "
        "numbers has spread about √d, and a softmax fed large scores puts almost all the weight on one word. "
        "Nothing in these lines looks at where a word sits — the next page shows what that costs."
    )


@frame.section("Glossary", fragment=False, anchor="glossary")
def glossary():
    st.markdown("The later pages link their words here; hover a link to read the definition without leaving "
                "the page.")
    for word, definition in frame.GLOSSARY.items():
        st.subheader(word, anchor=f"glossary-{word}")
        st.markdown(definition.replace("_", r"\_"))


frame.show_code(primer, posenc.attention, softmax)
frame.bridge(PATH, "Nothing in these five steps knows where a word sits. The next page scrambles the "
                   "sentence and watches every word come back with the same vector, in another row — and asks "
                   "how the chapter's figures could give the two copies of “the” different weights.")

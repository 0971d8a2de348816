import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts.primer import PARAM, steps
from posenc.charts.spec import word_labels
from posenc.core import softmax, tokenize
from posenc.primer import MAX_SHOWN_WORDS, SHOWN_COORDS, TOL, check_pieces, copy_columns_gap, copy_rows_gap, primer
from posenc.scramble import unspaced

PATH = "lessons/attention.py"


@frame.cached
def run(sentence: str, d: int, seed: int, query: str | None = None, wide: bool = False):
    """The five steps, the chart opening at ``query`` (a label "3 chased" from the address, when a link set the
    in-chart menu) or at the chapter's query."""
    res = primer(tokenize(sentence), d, seed)
    copies, gap = copy_rows_gap(res)
    labels = word_labels(res.tokens[:MAX_SHOWN_WORDS])
    q = labels.index(query) if query in labels else chapter.query_index(res.tokens)
    fig = steps(res, query=q, shown_words=MAX_SHOWN_WORDS, shown_coords=SHOWN_COORDS, copies=copies, gap=gap,
                wide=wide)
    return res, fig


with frame.page(PATH, "One attention head turns each word into a weighted mix of all the words. Where in its "
                      "five steps could it notice **where** a word sits?"):
    ex = frame.example()
    tokens = frame.tokens_or_stop(ex.sentence)
    n = len(tokens)

    @frame.section("From words to weights", fragment=False)
    def pipeline():
        # On a projector the five steps stand side by side, so the lead and the whole chart share one screen.
        res, fig = run(ex.sentence, ex.d, ex.seed, st.query_params.get(PARAM), frame.presenting())
        copies, gap = copy_rows_gap(res)
        # The question is asked on the sentence the chart shows when it repeats a word; else on the chapter's.
        own = bool(copies)
        ask = res if own else run(chapter.SENTENCE, ex.d, ex.seed)[0]
        ask_copies, ask_gap = copy_rows_gap(ask)
        a, b = (i + 1 for i in ask_copies[:2])
        where = "" if own else f"On the chapter's sentence “{chapter.SENTENCE}” (yours repeats no word), w"
        same = f"both “{chapter.COPY_WORD}”" if ask.tokens[ask_copies[0]] == chapter.COPY_WORD else "the same word"
        q = frame.predict(
            f"{where or 'W'}ords {a} and {b} are {same}. In step 5, how do their output "
            "rows compare?",
            ["Identical", "Close, not identical", f"Different: word {b} comes later", "It depends on the seed"],
            0, key="at_predict")
        k = min(SHOWN_COORDS, ex.d)
        shown = min(n, MAX_SHOWN_WORDS)
        with st.container(key="pe-primer"):
            frame.chart(fig)
        st.caption(f"Pick the query word in the menu above the picture: it is outlined in every step. Hover or tap a "
                   f"row to light that word in every step. Vectors show their first {k} of d = {ex.d} "
                   "coordinates" + (f"; the picture shows the first {shown} of {n} words." if shown < n else ".")
                   + " Orange is positive, blue negative."
                   + (" In steps 3 and 4 the columns are the words in the rows' order." if frame.presenting() else ""))
        identical = ask_gap < TOL
        on = f"on this sentence at d = {ex.d}, seed {ex.seed}" if own else f"on the chapter's sentence at d = {ex.d}"
        q.answer(
            (f"{on[0].upper()}{on[1:]}, rows {a} and {b} of the output "
             + ("are equal in every coordinate. " if ask_gap == 0 else f"differ by at most {ask_gap:.0e}. "
                if identical else f"differ by {ask_gap:.1g}. "))
            + ("The same word is the same vector x, so it has the same query, the same key, the same row of scores "
               "and weights, and the same weighted sum. Nothing in the five steps says which copy came first."
               if identical else ""))
        frame.verdict("every row of weights sums to 1, as the softmax promises", res.row_sum_error < TOL,
                      f"largest |row sum − 1| {res.row_sum_error:.0e} over {n} rows, tolerance {TOL:.0e}")
        col_copies, col_gap = copy_columns_gap(res)
        if col_copies:
            shown_pos = ", ".join(str(i + 1) for i in col_copies)
            frame.verdict("copies of one word get equal columns of S, so no query can tell them apart", col_gap < TOL,
                          f"words {shown_pos} are the same word; their columns differ by at most {col_gap:.0e}")
        frame.verdict(f"copies of one word get identical output rows ({'this' if own else 'the chapter’s'} sentence)",
                      identical, f"words {a} and {b}: largest difference {ask_gap:.0e}, tolerance {TOL:.0e}")
        err = check_pieces(res)
        frame.verdict("the five steps are exactly what posenc.attention computes", err < TOL,
                      f"softmax(S) and weights · V match its weights and output to {err:.0e}")
        if not own and unspaced(tokens):
            st.caption("Words are split at spaces: a sentence in a script written without spaces counts each run "
                       "between spaces as one word.")
        st.markdown(
            f"**1 · Word vectors.** Each word is looked up as a row of *d* = {ex.d} numbers (the sidebar's "
            f"{frame.term('d')}); the same word always gives the same row. "
            f"**2 · Query, key, value.** Three matrices turn the row into its {frame.term('query')} (what it asks), "
            f"its {frame.term('key')} (what others' queries match) and its {frame.term('value')} (what it hands "
            "over).\n\n"
            f"**3 · Scores.** Every query meets every key: the {frame.term('score')} q · k / √d (row = the query, "
            f"column = the key). **4 · Softmax.** Each row of scores goes through the {frame.term('softmax')}: "
            "positive weights that sum to 1. **5 · Weighted sum.** The output is the row of weights times the value "
            "rows.\n\n"
            "No step looks at a word's position: each uses only the word's own vector.")

    # The query menu of the figure sits above it, next to the caption.
    st.html("<style>.st-key-pe-primer .vega-embed { display: flex; flex-direction: column-reverse; } "
            ".st-key-pe-primer .vega-bindings { margin-bottom: 0.5rem; }</style>")

    with frame.deeper("the same steps as matrices", key="at_deep_matrices"):
        frame.formula(
            r"X \in \mathbb{R}^{n\times d},\quad Q = XW_Q,\; K = XW_K,\; V = XW_V",
            r"S = QK^\top/\sqrt{d},\qquad A = \operatorname{softmax}_{\text{row}}(S),\qquad "
            r"\operatorname{Attn}(X) = AV",
        )
        st.markdown(
            "With one row per word (n words, width d), the five steps are these lines of linear algebra. Dividing "
            "by √d keeps the scores about 1 in size whatever the width: a dot product of d unit-size numbers has "
            "spread about √d, and a softmax fed large scores puts almost all the weight on one word.")

    @frame.section("Glossary", fragment=False, anchor="glossary")
    def glossary():
        frame.glossary()

    frame.show_code(primer, posenc.attention, softmax)
    frame.bridge(PATH, "Nothing in these five steps knows where a word sits. The next page scrambles the "
                       "sentence and watches every word come back with the same vector, in another row.")

import numpy as np
import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts import scramble as charts
from posenc.charts.spec import word_labels
from posenc.core import parse_order, shuffle_order, tokenize
from posenc.scramble import (
    SHOWN_DIMS,
    TOL,
    CopyWeights,
    copies_weight_gap,
    copy_weights,
    paradox,
    rows_changed,
    scramble,
    unspaced,
)

PATH = "lessons/scramble.py"
PRESET = "Swap two words"
MODES = [PRESET, "Random shuffle", "Custom order"]
ANSWERS = ["Identical, row by row", "Different in some rows", "Different in every row"]


@frame.cached
def run(sentence: str, order: tuple[int, ...], d: int, seed: int, causal: bool):
    res = scramble(tokenize(sentence), list(order), d, seed, causal)
    labels = word_labels(res.tokens)
    moved = [labels[i] for i in res.order]
    k = min(SHOWN_DIMS, d)
    limit = float(max(np.max(np.abs(res.out_of_scrambled[:, :k])), np.max(np.abs(res.permuted_out[:, :k]))))
    err = res.equivariance_error
    same = (f"The two pictures are identical (largest difference {err:.0e})." if err < TOL else
            f"With the causal mask the two pictures differ (largest difference {err:.2g}).")
    figs = (
        charts.outputs(res.out_of_scrambled[:, :k], moved, title="Attn(PX): attention on the scramble",
                       d=d, limit=limit, legend=False,
                       description="Attn(PX): the outputs of attention run on the scrambled sentence, one row per "
                                   "slot, labelled with each word's original position, to compare with P·Attn(X).",
                       reading=same),
        charts.outputs(res.permuted_out[:, :k], moved, title="P·Attn(X): the original, reordered",
                       d=d, limit=limit,
                       description="P·Attn(X): the outputs of the original sentence moved to the same slots, to "
                                   "compare with Attn(PX).", reading=same),
    )
    return res, figs


@frame.cached
def run_copies(sentence: str, d: int, seed: int, query: str | None):
    """The copies' weights from the query the chart opens at: ``query`` (a label "3 chased" from the address,
    when a link set the in-chart picker) or the chapter's query."""
    tokens = tokenize(sentence)
    labels = word_labels(tokens)
    cw = paradox(tokens, d, seed)
    res = scramble(tokens, list(range(len(tokens))), d, seed, False)
    if query in labels:
        q = labels.index(query)
        cw = CopyWeights(q, cw.copies, res.weights[q, cw.copies])
    bars = charts.query_weights(res.weights, labels, default_query=cw.query, copies=cw.copies,
                                title="Weights from one query")
    return cw, res, bars


with frame.page(PATH, "Swap two words of a sentence and run attention again. Does anything in its output "
                      "notice that the order changed?"):
    ex = frame.example()
    tokens = frame.tokens_or_stop(ex.sentence)
    n = len(tokens)
    frame.require(n >= 2, "Type at least two words: one word has nothing to be scrambled with."
                  + (" Words are split at spaces, and this sentence is in a script written without them: put "
                     "spaces between its words." if unspaced(tokens) else ""))

    def pick_order(mode: str) -> list[int] | None:
        """The order (0-based, P X = X[order]) the scramble controls ask for, or None after a message."""
        if mode == "Random shuffle":
            shuffle = frame.number("Shuffle number", "shuffle", 0, 9999, 1, help="Each number is another shuffle.")
            return shuffle_order(n, int(shuffle))
        if mode == "Custom order":
            typed = frame.text("New order (old positions, 1-based)", "order", " ".join(map(str, range(n, 0, -1))),
                               max_chars=400, help="E.g. 1 5 3 4 2 puts word 5 second and word 2 last.")
            try:
                return parse_order(typed, n)
            except ValueError as err:
                st.error(str(err), icon=":material/edit_note:")
                return None
        i, j = chapter.swap_words(tokens)
        order = list(range(n))
        order[i], order[j] = j, i
        st.caption(f"Swaps positions {i + 1} and {j + 1}.",
                   help=f"“{chapter.SWAP[0]}” and “{chapter.SWAP[1]}” when the sentence has both (the chapter's "
                        "example); otherwise the 2nd and the last word.")
        return order

    @frame.section("Scramble the sentence")
    def scramble_section():
        ask = st.container()  # the Predict, asked at the state the controls below hold
        c1, c2, c3 = st.columns([3, 2, 1], vertical_alignment="center")
        with c3:
            causal = frame.toggle("Causal mask", "causal", False,
                                  help="Each word may read only itself and the words before its slot.")
        with c1:
            mode = frame.select("Scramble", "scramble", MODES, PRESET, horizontal=True)
        with c2:
            order = pick_order(mode)
        if order is None:
            return
        res, figs = run(ex.sentence, tuple(order), ex.d, ex.seed, causal)
        changed = rows_changed(res)
        correct = 0 if not changed else 2 if len(changed) == n else 1
        with ask:
            q = frame.predict(
                ("With the causal mask on, how" if causal else "How") + " do the outputs on the scramble (left) "
                "compare with the original outputs, reordered (right)?", ANSWERS, correct, key="sc_predict_mask" if causal else "sc_predict")
        with c2:
            st.text(f"original:  {' '.join(tokens)}\nscrambled: {' '.join(res.scrambled)}")
        left, right = st.columns(2)
        for where, fig in zip((left, right), figs):
            with where:
                frame.chart(fig)
        k = min(SHOWN_DIMS, ex.d)
        st.caption("Rows are the slots of the scrambled sentence, labelled with each word's original position; "
                   f"the first {k} of d = {ex.d} coordinates (the check covers all of them). "
                   f"{charts.SLOTS.hint('row', 'both pictures').capitalize()}.")
        err = res.equivariance_error
        if not changed:
            q.answer(("The two pictures are equal in all " if err == 0 else
                      f"The largest difference is {err:.0e}, over all ") + f"{n} × {ex.d} entries. "
                     + ("Scrambling the input only reorders the output: every word comes back with the same "
                        "vector, in its new slot." if not causal else
                        "This order leaves every word with the same words to read, so the mask changes nothing."))
        else:
            rows = ", ".join(str(s + 1) for s in changed)
            q.answer(f"{'Every slot' if len(changed) == n else 'Slot ' + rows if len(changed) == 1 else 'Slots ' + rows} "
                     f"{'differs' if len(changed) == 1 else 'differ'} (largest difference {err:.2g}). The mask is "
                     "fixed to the slots 1 … n, not to the words: after the scramble a word may read another set "
                     "of words.")
        if not causal:
            frame.verdict("Attn(PX) = P·Attn(X), so scrambling the input only reorders the output", err < TOL,
                          f"largest difference {err:.0e} over all {n} × {ex.d} entries, tolerance {TOL:.0e}")
        else:
            frame.verdict("with the causal mask, Attn(PX) differs from P·Attn(X) in the slots whose readable words "
                          "changed", err >= TOL or not changed,
                          f"{len(changed)} of {n} slots differ; largest difference {err:.2g}")
            if res.duplicates:
                frame.verdict("with the mask, every query that may read all the copies gives them equal weights",
                              res.weight_gap < TOL,
                              f"largest difference {res.weight_gap:.0e} over {res.queries_checked} query rows")
        last_copy = max(chapter.copies(tokens), default=0)
        st.markdown(
            f"Without a mask, attention sees a bag of words: each {frame.term('query')} meets the same "
            f"{frame.term('key', 'keys')} whatever order they come in, and the {frame.term('softmax')} of a row does "
            "not care where its scores sit."
            + (" So each word walks away with the same weighted sum of the same values." if not causal and err < TOL
               else "")
            + ("\n\nThe causal mask breaks the equation, but not because it knows where a word sits: it decides "
               f"**which** words a slot may read. In the original sentence the query at position {last_copy + 1}, "
               "the first that may read every copy of the repeated word, still weighs them equally, as does every "
               "query after it." if causal and res.duplicates and res.weight_gap < TOL else
               "\n\nThe causal mask breaks the equation, but not because it knows where a word sits: it decides "
               "**which** words a slot may read." if causal else ""))

    @frame.section("Two copies of one word")
    def copies_section():
        own = bool(chapter.copies(tokens))
        sentence = ex.sentence if own else chapter.SENTENCE
        cw, res, bars = run_copies(sentence, ex.d, ex.seed, st.query_params.get(charts.PARAM))
        words = tokenize(sentence)
        first, last = cw.copies[0] + 1, cw.copies[-1] + 1
        fa, fb = chapter.FIGURE_WEIGHTS
        qword = f" (“{chapter.QUERY_WORD}”)" if words[cw.query] == chapter.QUERY_WORD else ""
        copy = f"“{chapter.COPY_WORD}”" if words[cw.copies[0]] == chapter.COPY_WORD else "the repeated word"
        where = "your sentence" if own else f"the chapter's sentence “{chapter.SENTENCE}”"
        q = frame.predict(
            f"The chapter's figures, from a model that had positions, gave the two copies of “{chapter.COPY_WORD}” "
            f"{fa} and {fb}. Here words carry no position: on {where}, from the query at position {cw.query + 1}"
            f"{qword}, which copy of {copy} gets more weight?",
            [f"Position {first}: the first copy", f"Position {last}: the last copy", "They get equal weight",
             "It depends on the seed"], 2, key="sc_copies")
        if not own:
            st.caption("Words are split at spaces: your sentence is in a script written without them, so it has "
                       "no repeated word here; this section uses the chapter's sentence." if unspaced(tokens) else
                       "Your sentence repeats no word, so this section uses the chapter's sentence.")
        with st.container(key="pe-sc-bars"):
            frame.chart(bars)
        equal = cw.gap < TOL
        shown = " and ".join(f"{w:.4f}" for w in cw.weights)
        q.answer((f"Equal: {shown} (at d = {ex.d}, seed {ex.seed}). " if equal else f"Not equal: {shown}. ")
                 + ("The copies are the same word, so they hand over the same key and get the same score from any "
                    f"query. The chapter's {fa} and {fb} cannot come from vectors like these."
                    if equal and res.key_gap < TOL else ""))
        frame.verdict(f"with no positions, the query at position {cw.query + 1} gives copies "
                      f"{' and '.join(str(i + 1) for i in cw.copies)} equal weights ({where.split(' “')[0]})",
                      equal, f"{', '.join(f'{x:.4f}' for x in cw.weights)} (difference {cw.gap:.0e})")
        frame.verdict("copies of one word have identical keys", res.key_gap < TOL,
                      f"largest difference {res.key_gap:.0e}")
        frame.verdict("every query gives the copies equal weights", res.weight_gap < TOL,
                      f"largest difference {res.weight_gap:.0e} over {res.queries_checked} query rows")
        st.markdown(("Pick another query in the chart: every query gives the copies equal weights. "
                     if res.weight_gap < TOL else "")
                    + "Something in the chapter's model told the copies apart, and these vectors lack it: the "
                      "position. The rest of the app looks for the way to write it in.")

    st.html("<style>.st-key-pe-sc-bars .vega-embed { display: flex; flex-direction: column-reverse; } "
            ".st-key-pe-sc-bars .vega-bindings { margin-bottom: 0.5rem; }</style>")

    with frame.deeper("why the scramble only reorders: permutation equivariance", key="sc_deep_why"):
        frame.formula(
            r"(PX)W = P(XW)",
            r"S' = (PXW_Q)(PXW_K)^\top/\sqrt{d}",
            r"= P\,S\,P^\top",
            r"\operatorname{softmax}(P S P^\top)",
            r"= P\,\operatorname{softmax}(S)\,P^\top",
            r"\operatorname{Attn}(PX)",
            r"= P\,\operatorname{softmax}(S)\,P^\top P\, X W_V",
            r"= P\,\operatorname{Attn}(X)",
        )
        st.markdown(
            "The projections act row by row, so they move with the rows; a row-wise softmax only reorders what it "
            "is given; and PᵀP = I: attention is **permutation equivariant**.")

    frame.show_code(scramble, copy_weights, posenc.attention, posenc.permutation_matrix, copies_weight_gap)
    frame.bridge(PATH, "Attention needs to be told where each word sits. The next page tries the obvious ways to "
                       "write a position into the input — and shows how each one breaks.")

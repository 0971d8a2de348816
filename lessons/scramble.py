import numpy as np
import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts import scramble as charts
from posenc.charts.spec import word_labels
from posenc.core import parse_order, shuffle_order, tokenize
from posenc.scramble import SHOWN_DIMS, TOL, copies_weight_gap, copy_weights, paradox, scramble

PATH = "lessons/scramble.py"

frame.page(PATH, "Without positions, attention cannot tell a sentence from its scramble: the same vectors come "
                 "back in other rows.")

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
n = len(tokens)
frame.require(n >= 2, "Type at least two words: one word has nothing to be scrambled with.")


def word_or_place(i: int, word: str) -> str:
    """Markdown naming word i: the chapter's own word when it is that word (our text), else only its place
    (the student's words never go through Markdown)."""
    return f"“{word}” ({i + 1})" if tokens[i] == word else f"the word at position {i + 1}"


@frame.cached
def run_paradox(sentence: str, d: int, seed: int):
    return paradox(tokenize(sentence), d, seed)


@frame.section("The paradox", fragment=False)
def the_paradox():
    a, b = chapter.FIGURE_WEIGHTS
    st.markdown(
        f"The chapter's figures gave the two copies of “{chapter.COPY_WORD}” **{a}** and **{b}** from the query "
        f"“{chapter.QUERY_WORD}”: figures from a model that already had positions (this app does not reproduce "
        "them). Here the words have **no positions**:"
    )
    live = run_paradox(ex.sentence, ex.d, ex.seed)
    if live is None:
        st.info("This sentence repeats no word, so there are no copies to weigh. The chapter's sentence has "
                f"“{chapter.COPY_WORD}” twice: put a word in twice to see the paradox.", icon=":material/info:")
        return
    frame.verdict(
        f"with no positions, {word_or_place(live.query, chapter.QUERY_WORD)} gives copies "
        f"{' and '.join(str(i + 1) for i in live.copies)} equal weights",
        live.gap < TOL,
        ", ".join(f"{x:.4f}" for x in live.weights) + f" (difference {live.gap:.0e})",
    )


PRESET = "Swap two words (the chapter's example)"
MODES = [PRESET, "Random shuffle", "Custom order"]


@frame.cached
def run(sentence: str, order: tuple[int, ...], d: int, seed: int, causal: bool):
    res = scramble(tokenize(sentence), list(order), d, seed, causal)
    labels = word_labels(res.tokens)
    moved = [labels[i] for i in res.order]
    k = min(SHOWN_DIMS, d)
    limit = float(max(np.max(np.abs(res.out_of_scrambled[:, :k])), np.max(np.abs(res.permuted_out[:, :k]))))
    figs = (
        charts.outputs(res.out_of_scrambled[:, :k], moved, title="Attn(PX): attention on the scrambled sentence",
                       d=d, limit=limit,
                       description="Attn(PX): the outputs of attention run on the scrambled sentence, one row per "
                                   "slot, labelled with each word's original position."),
        charts.outputs(res.permuted_out[:, :k], moved, title="P·Attn(X): the original outputs, rows reordered",
                       d=d, limit=limit,
                       description="P·Attn(X): the outputs of the original sentence moved to the same slots; "
                                   "without a mask the two pictures are identical."),
    )
    cw = copy_weights(res.tokens, res.weights, causal)
    bars = charts.query_weights(res.weights, labels, default_query=cw.query if cw else chapter.query_index(res.tokens),
                                copies=cw.copies if cw else [],
                                title="Weights from one query")
    return res, figs, cw, bars


def pick_order() -> list[int] | None:
    """The scramble controls; the order (0-based, P X = X[order]), or None after a message."""
    mode = frame.select("Scramble", "scramble", MODES, PRESET, horizontal=False)
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


def ask_about_copies():
    """Predict, asked at its own settings: the chapter's sentence, the causal mask on, the sidebar's d and seed."""
    ch = tokenize(chapter.SENTENCE)
    ch_res = run(chapter.SENTENCE, tuple(range(len(ch))), ex.d, ex.seed, True)[0]
    cw = copy_weights(ch, ch_res.weights, causal=True)
    a, b = (i + 1 for i in cw.copies)
    q = cw.query + 1
    itself = " — itself one of the copies —" if cw.query in cw.copies else ""
    frame.predict(
        f"On the chapter's sentence with the causal mask on, the query at position {q}{itself} may read both "
        f"copies of “{chapter.COPY_WORD}” (positions {a} and {b}). Which copy gets more weight "
        f"(at the sidebar's d = {ex.d}, seed {ex.seed})?",
        [f"Position {a}: the other copy", f"Position {b}: a word reads itself most", "Equal weight",
         "It depends on the seed"],
        2,
        f"Equal: {cw.weights[0]:.4f} and {cw.weights[1]:.4f} at d = {ex.d}, seed {ex.seed}. The mask decides "
        f"which words the query may read — here both copies — and the two copies hand over the same key, so the "
        "same score and the same weight, for every seed. The mask never tells a query where a word sits.",
        key="scramble_predict",
    )


@frame.section("Scramble the sentence")
def scramble_section():
    c1, c2, c3 = st.columns([2, 3, 1])
    with c3:
        causal = frame.toggle("Causal mask", "causal", False,
                              help="Each word may read only itself and the words before its slot.")
    with c1:
        order = pick_order()
    if order is None:
        return
    res, figs, cw, bars = run(ex.sentence, tuple(order), ex.d, ex.seed, causal)
    with c2:
        frame.strip({"word": tokens, "scrambled": res.scrambled}, corner="slot")

    left, right = st.columns(2)
    with left:
        frame.chart(figs[0])
    with right:
        frame.chart(figs[1])
    moved = next((s for s in range(n) if order[s] != s), None)
    k = min(SHOWN_DIMS, ex.d)
    st.caption(
        "Each row is a slot of the scrambled sentence, labelled with its word's original position"
        + (f": slot {moved + 1} holds the word from position {order[moved] + 1}" if moved is not None else "")
        + f". The first {k} of d = {ex.d} coordinates of every output vector; the check covers all of them."
    )
    err = res.equivariance_error
    if not causal:
        frame.verdict("Attn(PX) = P·Attn(X): scrambling the input only reorders the output", err < TOL,
                      f"largest difference {err:.0e} over all {n} × {ex.d} entries, tolerance {TOL:.0e}")
    else:
        frame.verdict("with the causal mask, Attn(PX) differs from P·Attn(X)", err >= TOL,
                      f"largest difference {err:.2g} over all {n} × {ex.d} entries")
        st.warning(
            "With the causal mask the equation fails. The mask is fixed to the slots 1 … n, not to the words: "
            "after the scramble a word sits in another slot and may read another set of words, so its output "
            "changes. The mask decides **which** words may be read — never **where** they sit."
        )

    st.subheader("Two copies of a word are indistinguishable")
    ask_about_copies()
    if cw is None:
        st.info("This sentence repeats no word, so there are no copies to compare. Try one with a word twice.",
                icon=":material/info:")
        frame.chart(bars)
        return
    frame.chart(bars)
    q = cw.query
    shown = ", ".join(str(i + 1) for i in cw.copies)
    st.caption(f"The copies, and the weights the query at position {q + 1} gives them:")
    frame.table({"position": [i + 1 for i in cw.copies], "word": [tokens[i] for i in cw.copies],
                 "weight": cw.weights})
    if causal and q != chapter.query_index(tokens):
        st.caption(f"With the causal mask the chapter's query (position {chapter.query_index(tokens) + 1}) "
                   f"cannot read the copy at position {max(cw.copies) + 1}, which comes after it, so the table "
                   f"asks the query at position {q + 1}: the first that may read every copy.")
    frame.verdict(f"the query at position {q + 1}, which may read every copy, gives the copies at positions "
                  f"{shown} equal weights", cw.gap < TOL,
                  f"difference {cw.gap:.0e}, tolerance {TOL:.0e}")
    frame.verdict("copies of one word have identical keys", res.key_gap < TOL,
                  f"largest difference {res.key_gap:.0e}")
    frame.verdict("every query that may read all the copies gives them equal weights", res.weight_gap < TOL,
                  f"largest difference {res.weight_gap:.0e} over {res.queries_checked} query rows")
    if causal:
        st.markdown("With the mask on, a query sees every copy only from the last copy on; every such query still "
                    "gives them exactly equal weights. The mask changed which words are read, not where they are.")
    a, b = chapter.FIGURE_WEIGHTS
    st.markdown(f"So the chapter's {a} and {b} cannot come from vectors like these: the copies hand over the same "
                "key, and no query can score them apart. The rest of the app finds what the chapter's model had "
                "and this one lacks — positions.")


@frame.section("Why: permutation equivariance", fragment=False)
def why():
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
    st.markdown("The projections act row by row, so they move with the rows; a row-wise softmax only reorders "
                "what it is given; and PᵀP = I.")
    st.markdown(
        f"Scrambling the input scrambles the output the same way and changes nothing else: attention is "
        f"**permutation equivariant**. Each {frame.term('query')} meets the same {frame.term('key', 'keys')}, "
        f"the {frame.term('softmax')} of a row does not care in which order its scores come, and every word "
        "walks away with the same weighted sum of the same values. It sees a bag of words."
    )


frame.show_code(scramble, copy_weights, posenc.attention, posenc.permutation_matrix, copies_weight_gap)
frame.bridge(PATH, "Attention needs to be told where each word sits. The next page tries the obvious ways to "
                   "write a position into the input — and shows how each one breaks.")

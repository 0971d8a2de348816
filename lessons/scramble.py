import streamlit as st

import frame
import posenc
from posenc import charts
from posenc.core import parse_order, shuffle_order, swap_order
from posenc.scramble import copies_weight_gap, scramble

PATH = "lessons/scramble.py"
SHOWN_DIMS = 24

frame.header(
    "The sentence scramble",
    "Without positions, self-attention is permutation equivariant: scramble the words and you get "
    "the same output vectors, only in other rows.",
)

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
n = len(tokens)
frame.require(n >= 2, "Type at least two words: one word has nothing to be scrambled with.")

PRESET = "Swap two words (the chapter's example)"
MODES = [PRESET, "Random shuffle", "Custom order"]
c1, c2, c3 = st.columns([2, 2, 1])
with c1:
    mode = frame.select("Scramble", "scramble", MODES, PRESET, horizontal=False)
with c2:
    if mode == "Random shuffle":
        shuffle = frame.number("Shuffle number", "shuffle", 0, 9999, 1, help="Each number is another shuffle.")
        order = shuffle_order(n, int(shuffle))
    elif mode == "Custom order":
        typed = frame.text("New order (old positions, 1-based)", "order", " ".join(map(str, range(n, 0, -1))),
                           max_chars=400, help="E.g. 1 5 3 4 2 puts word 5 second and word 2 last.")
        try:
            order = parse_order(typed, n)
        except ValueError as err:
            st.error(str(err), icon=":material/edit_note:")
            st.stop()
    else:
        order = swap_order(tokens, "cat", "mouse") or [0, n - 1, *range(2, n - 1), 1] if n > 2 else [1, 0]
        st.caption("Swaps “cat” and “mouse” when the sentence has both, otherwise the 2nd and the last word.")
with c3:
    causal = frame.toggle("Causal mask", "causal", False, help="Each word may read only itself and earlier words.")


@st.cache_data(max_entries=64, show_spinner=False)
def run(sentence: str, order: tuple[int, ...], d: int, seed: int, causal: bool):
    return scramble(posenc.tokenize(sentence), list(order), d, seed, causal)


res = run(ex.sentence, tuple(order), ex.d, ex.seed, causal)
labels = charts.word_labels(tokens)
scrambled_labels = [labels[i] for i in order]

left, right = st.columns(2)
with left:
    st.markdown("**Original sentence X**")
    frame.show_words(tokens)
with right:
    st.markdown("**Scrambled sentence PX** (P X = X[order])")
    frame.show_words(res.scrambled)

st.subheader("Same vectors, other rows")
k = min(SHOWN_DIMS, ex.d)
a, b = st.columns(2)
common = dict(row_title="word", col_title="coordinate", value_title="value", height=max(230, 22 * n + 110))
with a:
    st.altair_chart(charts.heatmap(res.out_of_scrambled[:, :k], scrambled_labels, [str(j) for j in range(k)],
                                   title="Attn(PX): attention run on the scrambled sentence", **common),
                    width="stretch")
with b:
    st.altair_chart(charts.heatmap(res.permuted_out[:, :k], scrambled_labels, [str(j) for j in range(k)],
                                   title="P·Attn(X): the original outputs, rows reordered", **common),
                    width="stretch")
st.caption(f"The first {k} of d = {ex.d} coordinates of every output vector; the check below covers all of them.")

frame.check("max |Attn(PX) − P·Attn(X)|", res.equivariance_error, res.equivariance_error < 1e-12,
            "(over all {} × {} entries; < 1e-12)".format(n, ex.d))
if causal:
    st.warning(
        "With the causal mask the equation fails. The mask is fixed to the slots 1 … n, not to the words: "
        "after the scramble a word sits in another slot and may read another set of words, so its output changes. "
        "The mask decides **which** words may be read — never **where** they sit."
    )

st.subheader("Why: permutation equivariance")
frame.formula(
    r"(PX)W = P(XW) \quad\text{(projections act row by row)}",
    r"S' = (PXW_Q)(PXW_K)^\top/\sqrt{d} = P\,S\,P^\top",
    r"\operatorname{softmax}(P S P^\top) = P\,\operatorname{softmax}(S)\,P^\top \quad\text{(row-wise softmax only reorders)}",
    r"\operatorname{Attn}(PX) = P\,\operatorname{softmax}(S)\,P^\top P\, X W_V = P\,\operatorname{Attn}(X)",
)
st.markdown(
    "Scrambling the input scrambles the output the same way and changes nothing else: attention is "
    "**permutation equivariant**. It sees a bag of words."
)

st.subheader("Two copies of a word are indistinguishable")
dups = res.duplicates
q_default = tokens.index("chased") if "chased" in tokens else min(2, n - 1)
highlight = sorted(i for ix in dups.values() for i in ix)
st.altair_chart(charts.query_weights(res.weights, tokens, default_query=q_default, highlight=highlight,
                                     title="Attention weights of one query (pick it in the menu under the chart)"),
                width="stretch")
if dups:
    word, ix = next(iter(dups.items()))
    w_q = res.weights[q_default, ix]
    st.markdown("Copies of a repeated word (red bars): positions {}.".format(", ".join(str(i + 1) for i in ix)))
    st.dataframe(
        {"key position": [i + 1 for i in ix], f"weight from query at position {q_default + 1}": w_q},
        hide_index=True,
    )
    frame.check("max |k_i − k_j| over copies of a repeated word", res.key_gap, res.key_gap < 1e-12,
                "(identical keys, to rounding)")
    frame.check("max |w_qi − w_qj| over copies", res.weight_gap, res.weight_gap < 1e-12,
                "(equal to rounding, < 1e-12, from each of {} query rows that can see every copy)".format(res.queries_checked))
else:
    st.info("This sentence repeats no word, so there are no copies to compare. Try one with a word twice.")

if causal:
    st.markdown(
        "With the mask on, a query sees both copies only if it comes after the last one; every such query "
        "still gives them exactly equal weight. The mask changed which words are read, not where they are."
    )

frame.show_code(scramble, posenc.attention, posenc.permutation_matrix, copies_weight_gap)

frame.predict(
    "In “the dog bit the man”, query “bit” looks at the two copies of “the” (positions 1 and 4). "
    "Which gets more weight?",
    ["Position 1: it is closer to the start", "Position 4: it is closer to “bit”", "Equal weight",
     "It depends on the random seed"],
    2,
    "Equal: both copies have the same word vector, so the same key; their scores from any query are "
    "identical, and so are their weights (to the last bits of floating point) — for every seed, as the check "
    "above shows for the current sentence.",
    key="scramble_predict",
)

frame.share_link(PATH)
frame.bridge(PATH, "Attention needs to be told where each word sits. The next page tries the obvious ways "
             "to write a position into the input — and shows how each one breaks.")

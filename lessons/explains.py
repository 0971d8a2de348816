import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts import explains as ec
from posenc.charts import spec
from posenc.core import rounding_size as small
from posenc.explains import (
    CLEAR,
    SCHEMES,
    TINY,
    attention_with_positions,
    explains_demo,
    learned_table,
    query_copies_gap,
    scramble_order,
)

PATH = "lessons/explains.py"
FIRST, SECOND = chapter.FIGURE_WEIGHTS
WORD = chapter.COPY_WORD

frame.page(PATH, f"The two copies of “{WORD}” leave the embedding table identical and stop being identical once "
                 f"position is folded in: that is how the chapter's weights {FIRST} and {SECOND} can be true.")

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
n = len(tokens)
frame.require(n >= 2, "Type at least two words: one word has no copy to compare and nothing to swap with.")
labels = spec.word_labels(tokens)


@frame.cached
def run(sentence: str, d: int, seed: int):
    res = explains_demo(posenc.tokenize(sentence), d, seed)
    toks = res.tokens
    figs = {}
    if res.copies:
        figs["copies"] = ec.copy_weights({s: r.weights for s, r in res.runs.items()}, toks, res.copies, res.query,
                                         copy_word=toks[res.copies[0]])
    if res.order is not None:
        figs["scramble"] = ec.scramble_weights(
            {s: r.weights[res.query] for s, r in res.runs.items()},
            {s: r.weights_scrambled[res.query_scrambled] for s, r in res.runs.items()},
            toks, res.order, spec.word_labels(toks)[res.query],
            scheme="sinusoids" if "sinusoids" in res.runs else "learned table")
    return res, figs


# ---------------------------------------------------------------- Predict, on the chapter's own sentence
chap, _ = run(chapter.SENTENCE, ex.d, ex.seed)
chap_copies = ", ".join(f"({i + 1})" for i in chap.copies)
per_scheme = "; ".join(
    f"{s}: {' and '.join(f'{w:.3f}' for w in r.copy_weights)}" for s, r in chap.runs.items())
frame.predict(
    f"On the chapter's sentence (d = {ex.d}, seed {ex.seed}), “{chapter.QUERY_WORD}” looks at the two copies of "
    f"“{WORD}”. With which position schemes do the two copies get different weights?",
    ["Only the learned table: it has a row per position", "Only sinusoids and RoPE: they encode distance",
     "All three: learned table, sinusoids and RoPE", "None: copies of a word always tie"],
    2,
    f"All three. Each gives positions {chap_copies} something different — an added row, an added sin/cos vector, "
    f"or a turn by another angle — so the copies get different keys and different weights. The weights on the "
    f"copies here: {per_scheme}." + ("" if len(chap.runs) == len(SCHEMES) else
                                     " (Sinusoids and RoPE need an even d.)"),
    key="explains_predict",
)

res, figs = run(ex.sentence, ex.d, ex.seed)
q = res.query


# ---------------------------------------------------------------- the paradox, resolved
@frame.section(f"The two copies of “{WORD}”" if res.copies and tokens[res.copies[0]] == WORD
               else "The copies of a repeated word", fragment=False)
def paradox():
    if res.unavailable:
        st.info(" ".join(res.unavailable.values()) + " Pick an even d in the sidebar to see them; the other "
                "schemes are shown.", icon=":material/info:")
    if not res.copies:
        st.info("This sentence repeats no word, so there are no copies to compare: the scramble below still shows "
                "what positions change. Try a sentence with a word twice.", icon=":material/info:")
        return
    frame.chart(figs["copies"])
    st.text(f"The checks below are for the query word {labels[q]} and the copies "
            f"{', '.join(labels[i] for i in res.copies)}.")
    none = res.runs["none"]
    frame.verdict("with no positions the copies get equal weights — same row in, same key, as the chapter's "
                  "argument demands", none.copy_gap < TINY,
                  f"{' and '.join(f'{w:.6f}' for w in none.copy_weights)}, differing by {small(none.copy_gap)}")
    for s, r in res.runs.items():
        if s == "none":
            continue
        frame.verdict(f"with {s} the copies get different weights, as the chapter's figures show",
                      r.copy_gap > CLEAR, f"{' and '.join(f'{w:.3f}' for w in r.copy_weights)}, differing by "
                                          f"{r.copy_gap:.3f}")
    st.markdown(
        f"The chapter opened with two claims that could not both hold: the two copies of “{WORD}” come back from "
        f"the embedding table identical, and every figure gave them the weights {FIRST} and {SECOND}. Both are "
        f"true. The rows leave the table identical — the “none” bars tie, to the last digit: same row in, same "
        f"{frame.term('key')}, same {frame.term('softmax')} weight — and do not stay that way: a learned row, a "
        "sinusoid or a rotation that depends on where each copy sits is folded in before attention sees them. "
        f"{FIRST} and {SECOND} were the chapter's figures, from a trained model; the numbers here differ because "
        "the app's vectors are random. What matters is equal against unequal."
    )
    st.page_link("lessons/scramble.py", label="Back to the scramble, where the paradox began",
                 icon=":material/arrow_back:")


# ---------------------------------------------------------------- the scramble, settled
@frame.section("The scramble is settled too", fragment=False)
def scramble():
    if res.order is None:
        st.info("Every word of this sentence is the same word: no scramble changes it. Try another sentence.",
                icon=":material/info:")
        return
    i, j = [a for a, b in enumerate(res.order) if a != b]
    st.markdown(f"Positions {i + 1} and {j + 1} trade their words; the positions stay with the slots:")
    left, right = st.columns(2)
    with left:
        st.text("X:  " + " ".join(res.tokens))
    with right:
        st.text("PX: " + " ".join(res.scrambled))
    frame.chart(figs["scramble"])
    for s, r in res.runs.items():
        if s == "none":
            frame.verdict("with no positions, Attn(PX) = P·Attn(X): the same rows, reordered",
                          r.scramble_error < TINY, f"largest difference {small(r.scramble_error)} over all "
                                                   f"{n} × {res.d} entries")
        else:
            frame.verdict(f"with {s}, Attn(PX) ≠ P·Attn(X): order now changes the outputs",
                          r.scramble_error > CLEAR, f"largest difference {r.scramble_error:.3f}")
    st.markdown(
        f"A position belongs to the slot, not to the word: in PX the word at position {i + 1} is the one that sat "
        f"at {j + 1} in X, so it meets another position vector (or another rotation) and comes out as a different "
        "row. The mechanism never changed; it stopped being handed a bag of words."
    )
    with frame.deeper("why positions break the tie", key="ex_deep_why"):
        frame.formula(
            r"\text{none:}\quad \operatorname{Attn}(X) = \operatorname{softmax}\!\big(XW_Q (XW_K)^\top/\sqrt{d}"
            r"\big)\,XW_V",
            r"\text{learned table, sinusoids:}\quad X' = X + E,\quad \operatorname{Attn}(X')",
            r"E_p = T[p] \ \text{or}\ E_p = PE(p)",
            r"\text{RoPE (rows):}\quad q_m = x_m W_Q,\quad k_n = x_n W_K,\quad v_n = x_n W_V",
            r"S_{mn} = \frac{(q_m R_m^\top)(k_n R_n^\top)^\top}{\sqrt{d}} = \frac{q_m\, R_{n-m}\, k_n^\top}{\sqrt{d}}",
            r"x_i = x_j \;\Rightarrow\; x_i + E_i \ne x_j + E_j \ \text{ when } i \ne j",
            r"P(X + E) = PX + PE \ne PX + E",
            r"\Rightarrow\; \operatorname{Attn}(PX + E) \ne P\,\operatorname{Attn}(X + E)",
        )
        st.markdown(
            f"The learned table here is random, as at initialisation (rows ~ N(0, I), N_max = {chapter.N_MAX}); "
            "training shapes its rows, but any distinct rows already break both ties. Every scheme at once, "
            "over every query word:"
        )
        rows = {"positions": [], "largest gap between copies, any query": [], "max |Attn(PX) − P·Attn(X)|": []}
        for s in SCHEMES:
            r = res.runs.get(s)
            rows["positions"].append(s)
            rows["largest gap between copies, any query"].append(
                "needs even d" if r is None else f"{r.copies_gap_all:.3g}" if res.duplicates else "no repeated word")
            rows["max |Attn(PX) − P·Attn(X)|"].append(
                "needs even d" if r is None else f"{r.scramble_error:.3g}" if r.scramble_error is not None else "—")
        frame.table(rows)


frame.show_code(explains_demo, attention_with_positions, learned_table, scramble_order, query_copies_gap)
frame.bridge(PATH, "Positions make order visible. But a model is trained on sentences up to some length: the next "
             "page asks what happens to each scheme when the text grows past it.")

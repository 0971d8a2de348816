import streamlit as st

import frame
import posenc
from posenc import charts
from posenc.charts.explains import copies_weights, row_differences, scramble_weights
from posenc.explains import (
    N_MAX,
    SCHEMES,
    attention_with_positions,
    default_query,
    explains_demo,
    learned_table,
    query_copies_gap,
    scramble_order,
)

PATH = "lessons/explains.py"
TINY = 1e-12  # "equal": floating-point noise only
CLEAR = 1e-9  # "different": well above floating-point noise

frame.header(
    "What this finally explains",
    "Give attention the positions and the two puzzles go away: the two copies of a word get different "
    "weights, and a scrambled sentence is no longer the same rows reordered.",
)

ex = frame.example()
tokens = frame.tokens_or_stop(ex.sentence)
n = len(tokens)
frame.require(n >= 2, "Type at least two words: one word has no copy to compare and nothing to swap with.")
labels = charts.word_labels(tokens)

frame.show_words(tokens)
c1, c2 = st.columns([3, 2])
with c1:
    scheme = frame.select("Positions", "ex_scheme", list(SCHEMES), "sinusoids",
                          help="none: words only · learned table: a random trained-style row added per "
                               "position · sinusoids: sin/cos added to each word · RoPE: q and k rotated.")
with c2:
    if int(st.session_state.get("ex_query", 1)) > n:  # the sentence got shorter than the stored query
        del st.session_state["ex_query"]
    q_pos = frame.number("Query word (its position)", "ex_query", 1, n, default_query(tokens) + 1, step=1,
                         help="The word whose attention weights are shown. Position 1 is the first word.")
    st.text("query: " + labels[int(q_pos) - 1])
query = int(q_pos) - 1


@st.cache_data(max_entries=32, show_spinner=False)
def run(sentence: str, d: int, seed: int, query: int):
    return explains_demo(posenc.tokenize(sentence), d, seed, query)


res = run(ex.sentence, ex.d, ex.seed, query)
chosen = res.runs.get(scheme)
if chosen is None:
    st.error(res.unavailable[scheme] + " Pick “none” or “learned table”, or an even d in the sidebar. "
             "The table below still compares the schemes that can run.", icon=":material/error:")

# ---------------------------------------------------------------- the two copies
dups = res.duplicates
highlight = sorted(i for ix in dups.values() for i in ix)
if chosen is not None:
    st.subheader("The two copies of a word")
    if not dups:
        st.info("This sentence repeats no word, so there are no copies to compare: the scrambled sentence below "
                "still shows the difference positions make. Try a sentence with a word twice.")
    else:
        series = {"none": res.runs["none"].weights[query]}
        if scheme != "none":
            series[scheme] = chosen.weights[query]
        st.altair_chart(copies_weights(series, tokens, query, highlight,
                                       title="Weights from the query on every word (red outline: copies)"),
                        width="stretch")
        table = {"key": [labels[i] for i in highlight],
                 "weight, no positions": [float(res.runs["none"].weights[query, i]) for i in highlight]}
        if scheme != "none":
            table[f"weight, {scheme}"] = [float(chosen.weights[query, i]) for i in highlight]
        st.dataframe(table, hide_index=True, height=min(36 * (len(highlight) + 1) + 4, 300))
        gap0 = res.runs["none"].copies_gap
        frame.check("no positions: max |w(query → copy i) − w(query → copy j)|", gap0, gap0 < TINY,
                    "(the copies tie: same word, same key)")
        if scheme != "none":
            frame.check(f"{scheme}: max |w(query → copy i) − w(query → copy j)|", chosen.copies_gap,
                        chosen.copies_gap > CLEAR, "(the copies now differ)")
            st.caption("Over every query word, the largest gap between copies is {:.3g} with {}, {:.2g} with none."
                       .format(chosen.copies_gap_all, scheme, res.runs["none"].copies_gap_all))

# ---------------------------------------------------------------- the scramble
if chosen is not None:
    st.subheader("The scrambled sentence")
    if res.order is None:
        st.info("Every word of this sentence is the same word: no scramble changes it. Try another sentence.")
    else:
        left, right = st.columns(2)
        with left:
            st.markdown("**Original sentence X** (positions 1 … {})".format(n))
            frame.show_words(tokens)
        with right:
            st.markdown("**Scrambled sentence PX**, also at positions 1 … {}".format(n))
            frame.show_words(res.scrambled)
        swapped = [i + 1 for i, j in enumerate(res.order) if i != j]
        st.caption("Swaps “cat” and “mouse” when the sentence has both, otherwise the 2nd and the last word (the "
                   "first two different words if those are equal): here positions {} and {}. A position belongs "
                   "to the slot, not to the word: the two swapped words get each other's positions."
                   .format(*swapped))
        a, b = st.columns(2)
        with a:
            st.altair_chart(scramble_weights(chosen.weights[query], chosen.weights_scrambled[res.query_scrambled],
                                             tokens, res.order,
                                             title="Weights from the query, X vs PX ({})".format(scheme)),
                            width="stretch")
            st.caption("Each pair of bars is one key word: its weight from the query word in X and in PX "
                       "(hover for its position in each). Equal pairs mean “same word, same weight, wherever "
                       "it sits”.")
        with b:
            st.altair_chart(row_differences(chosen.row_error, res.scrambled,
                                            title="|Attn(PX) − P·Attn(X)|, largest per word ({})".format(scheme)),
                            width="stretch")
            st.caption("For each output row of PX: the largest of its {} coordinates' differences from the "
                       "reordered original outputs.".format(ex.d))
        err = chosen.scramble_error
        if scheme == "none":
            frame.check("none: max |Attn(PX) − P·Attn(X)|", err, err < TINY,
                        "(the same rows reordered, over all {} × {} entries)".format(n, ex.d))
        else:
            frame.check(f"{scheme}: max |Attn(PX) − P·Attn(X)|", err, err > CLEAR,
                        "(not the same rows reordered: order now changes the outputs)")

# ---------------------------------------------------------------- all schemes at once
st.subheader("Every scheme at once")
rows = {"positions": [], "gap between copies, from the query": [], "gap between copies, any query": [],
        "max |Attn(PX) − P·Attn(X)|": []}
for s in SCHEMES:
    r = res.runs.get(s)
    rows["positions"].append(s)
    if r is None:
        rows["gap between copies, from the query"].append("needs even d")
        rows["gap between copies, any query"].append("needs even d")
        rows["max |Attn(PX) − P·Attn(X)|"].append("needs even d")
        continue
    rows["gap between copies, from the query"].append(f"{r.copies_gap:.3g}" if dups else "no repeated word")
    rows["gap between copies, any query"].append(f"{r.copies_gap_all:.3g}" if dups else "no repeated word")
    rows["max |Attn(PX) − P·Attn(X)|"].append(f"{r.scramble_error:.3g}" if res.order is not None else "—")
st.dataframe(rows, hide_index=True)
with_positions = [s for s in SCHEMES[1:] if s in res.runs]
breaks = [s for s in with_positions
          if (not dups or res.runs[s].copies_gap_all > CLEAR)
          and (res.order is None or res.runs[s].scramble_error > CLEAR)]
none_run = res.runs["none"]
st.caption("Same words, same seed: only the positions change. With none, the largest gap between copies is "
           "{:.2g} and the scramble error {} (rounding). With positions, {} of {} schemes that ran ({}) "
           "separate what “none” cannot.".format(
               none_run.copies_gap_all,
               "{:.2g}".format(none_run.scramble_error) if res.order is not None else "—",
               len(breaks), len(with_positions), ", ".join(breaks) or "none"))

st.subheader("Why positions break the tie")
frame.formula(
    r"\text{none:}\quad \operatorname{Attn}(X) = \operatorname{softmax}\!\big(XW_Q (XW_K)^\top/\sqrt{d}\big)\,XW_V",
    r"\text{learned table, sinusoids:}\quad X' = X + E, \qquad E_p = T[p] \ \text{or}\ E_p = PE(p), \qquad"
    r" \operatorname{Attn}(X')",
    r"\text{RoPE:}\quad q_m = R_m\,x_m W_Q,\quad k_n = R_n\,x_n W_K,\quad"
    r" S_{mn} = \frac{(x_m W_Q)^\top R_{n-m}\,(x_n W_K)}{\sqrt{d}},\quad v_n = x_n W_V",
    r"x_i = x_j \;\Rightarrow\; x_i + E_i \ne x_j + E_j \ \text{ when } i \ne j"
    r" \qquad\text{(copies get different keys)}",
    r"P(X + E) = PX + PE \ne PX + E \;\Rightarrow\; \operatorname{Attn}(PX + E) \ne P\,\operatorname{Attn}(X + E)",
)
st.markdown(
    "The positions are attached to the **slots** 1 … {n}, not to the words. Scrambling moves the words but "
    "not the slots, so a moved word meets a new position vector (or a new rotation): its key, and every "
    "weight it gets, change. The learned table here is random, as at initialisation (rows ~ N(0, I), "
    "N_max = {nmax}); training shapes its rows, but any distinct rows already break both puzzles."
    .format(n=n, nmax=N_MAX)
)

frame.show_code(explains_demo, attention_with_positions, learned_table, scramble_order, query_copies_gap)

frame.predict(
    "Query “chased” looks at the two copies of “the” in “the cat chased the mouse”. With which position "
    "schemes do the copies get different weights?",
    ["Only the learned table: it has a row per position", "Only sinusoids and RoPE: they encode distance",
     "All three: learned table, sinusoids and RoPE", "None: copies of a word always tie"],
    2,
    "All three. Each gives position 1 and position 4 something different — an added row, an added sin/cos "
    "vector, or a rotation by another angle — so the two copies get different keys and different weights. "
    "The table “Every scheme at once” shows the gaps for the current sentence.",
    key="explains_predict",
)

frame.share_link(PATH)
frame.bridge(PATH, "Positions make order visible. But a model is trained on sentences up to some length: the next "
             "page asks what happens to each scheme when the context grows past it.")

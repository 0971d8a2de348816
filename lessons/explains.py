import streamlit as st

import frame
import posenc
from posenc import chapter
from posenc.charts import explains as ec
from posenc.charts import spec
from posenc.core import listing
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
    unavailable_note,
)

PATH = "lessons/explains.py"
FIRST, SECOND = chapter.FIGURE_WEIGHTS
WORD = chapter.COPY_WORD
POSITIONAL = [s for s in SCHEMES if s != "none"]
# The Predict's options, each the set of schemes under which the copies' weights differ.
OPTIONS = {"Only the learned table": {"learned table"},
           "Only sinusoids and RoPE": {"sinusoids", "RoPE"},
           "All three": {"learned table", "sinusoids", "RoPE"},
           "None: copies always tie": set()}


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
            toks, res.order, spec.word_labels(toks)[res.query], scheme=opening_scheme(res))
    return res, figs


def opening_scheme(res) -> str:
    """The scheme the scramble chart opens at (and its Predict asks about): sinusoids, else the learned table."""
    return "sinusoids" if "sinusoids" in res.runs else "learned table"


def the(scheme: str) -> str:
    return f"the {scheme}" if scheme == "learned table" else scheme


def pairs_text(weights, digits: int) -> str:
    return " and ".join(f"{w:.{digits}f}" for w in weights)


with frame.page(PATH, f"The table hands both copies of “{WORD}” one row, yet the chapter's figures gave them "
                      f"the weights {FIRST} and {SECOND}. Which is it, and what settles the scramble?"):
    ex = frame.example()
    tokens = frame.tokens_or_stop(ex.sentence)
    frame.require(len(tokens) >= 2, "Type at least two words: one word has no copy to compare and nothing to swap "
                                    "with.")
    mine, _ = run(ex.sentence, ex.d, ex.seed)
    # The copies need a repeated word: the student's sentence when it has one, else the chapter's.
    res, figs = run(ex.sentence if mine.copies else chapter.SENTENCE, ex.d, ex.seed)
    note = unavailable_note(res.d, res.unavailable)

    @frame.section(None)  # the lead introduces it: the key chart comes up to the first screen
    def paradox():
        if not mine.copies:
            st.info("Your sentence repeats no word, so this section uses the chapter's sentence:",
                    icon=":material/info:")
            st.text(chapter.SENTENCE)
        differ = {s for s, r in res.runs.items() if s != "none" and r.copy_gap > CLEAR}
        ran = [s for s in POSITIONAL if s in res.runs]
        options = [o for o, schemes in OPTIONS.items() if schemes <= set(ran)]
        correct = next((k for k, o in enumerate(options) if OPTIONS[o] == differ), len(options) - 1)
        copies = listing(str(i + 1) for i in res.copies)
        q = frame.predict(
            f"The query word at position {res.query + 1} looks at the copies at positions {copies}. With which "
            "schemes do the copies get different weights?" + (f" ({note})" if note else ""),
            options, correct, key="explains_predict" if len(ran) == len(POSITIONAL) else "explains_predict_odd")
        left, right = st.columns([3, 2])
        with left:
            frame.chart(figs["copies"])
        none = res.runs["none"]
        tie = none.copy_gap < TINY
        frame.verdict("with no positions the copies get equal weights — same row in, same key, as the chapter's "
                      "argument demands", tie,
                      f"{pairs_text(none.copy_weights, 6)}, differing by {small(none.copy_gap)}")
        for s in ran:
            r = res.runs[s]
            frame.verdict(f"with {the(s)} the copies get different weights, as the chapter's figures show",
                          r.copy_gap > CLEAR, f"{pairs_text(r.copy_weights, 3)}, differing by {r.copy_gap:.3f}")
        split = "; ".join(f"{the(s)} {pairs_text(res.runs[s].copy_weights, 3)}" for s in ran if s in differ)
        both = tie and differ == set(ran)
        with right:
            q.answer(
                (f"With no positions the copies tie, {pairs_text(none.copy_weights, 6)}: same row in, same "
                 f"{frame.term('key')}, same {frame.term('softmax')} weight. " if tie else
                 f"With no positions the copies differ by {small(none.copy_gap)} here: see Checks. ")
                + (f"Given positions they split — {split} — because each copy sits somewhere else and gets another "
                   "row, another sin/cos vector or another turn before attention sees it. " if split else "")
                + ("So both of the chapter's claims are true: the copies leave the table identical, and stop being "
                   f"identical once position is folded in. {FIRST} and {SECOND} were the chapter's figures, from a "
                   "trained model; the numbers here differ because the app's vectors are random — what matters is "
                   "equal against unequal." if both else ""))
        st.page_link("lessons/scramble.py", label="Back to the scramble, where the paradox began",
                     icon=":material/arrow_back:")

    @frame.section("The scramble, settled")
    def scramble():
        if mine.order is None:
            st.info("Every word of this sentence is the same word: no scramble changes it. Try another sentence.",
                    icon=":material/info:")
            return
        sres, sfigs = run(ex.sentence, ex.d, ex.seed)
        i, j = [a for a, b in enumerate(sres.order) if a != b]
        scheme = opening_scheme(sres)
        none = sres.runs["none"]
        keeps = none.scramble_error < TINY
        moved = {s: r.scramble_error for s, r in sres.runs.items() if s != "none"}
        changed = [s for s, err in moved.items() if err > CLEAR]
        all_moved = len(changed) == len(moved)
        q = frame.predict(
            f"Positions {i + 1} and {j + 1} trade their words; the chart shows the weights from the query word at "
            f"position {sres.query + 1}, with {the(scheme)}. Does each word keep its weight after the swap?",
            ["Yes, with every scheme", "Only with no positions", "Only with positions", "Never"],
            [[2, 3], [0, 1]][keeps][all_moved], key="ex_predict_scramble")
        st.text("X:  " + " ".join(sres.tokens) + "\nPX: " + " ".join(sres.scrambled))
        left, right = st.columns([3, 2])
        with left:
            frame.chart(sfigs["scramble"])
        frame.verdict("with no positions, Attn(PX) = P·Attn(X): the same rows, reordered", keeps,
                      f"largest difference {small(none.scramble_error)} over all {len(sres.tokens)} × {sres.d} "
                      "entries")
        for s, err in moved.items():
            frame.verdict(f"with {the(s)}, Attn(PX) ≠ P·Attn(X): order now changes the outputs", err > CLEAR,
                          f"largest difference {err:.3f}")
        with right:
            q.answer(
                (f"With no positions every word keeps its weight (Attn(PX) and P·Attn(X) differ by "
                 f"{small(none.scramble_error)}): attention saw a bag of words. " if keeps else
                 f"With no positions the outputs differ by {small(none.scramble_error)}: see Checks. ")
                + (f"With {listing(the(s) for s in changed)} the outputs move by up to "
                   f"{max(moved[s] for s in changed):.3f}: a "
                   f"position belongs to the slot, not to the word, so the word now at position {i + 1} meets another "
                   + ("position vector or another turn" if "RoPE" in changed and len(changed) > 1 else
                      "turn" if changed == ["RoPE"] else "position vector")
                   + " and comes out as a different row. The mechanism never changed; it stopped being handed a bag "
                   "of words." if changed else ""))
        with frame.deeper("why positions break the tie", key="ex_deep_why"):
            frame.formula(
                r"\text{learned table, sinusoids:}\quad X' = X + E,\quad E_p = T[p] \ \text{or}\ PE(p)",
                r"\text{RoPE:}\quad S_{mn} = \frac{(q_m R_m^\top)(k_n R_n^\top)^\top}{\sqrt{d}}"
                r" = \frac{q_m\, R_{n-m}\, k_n^\top}{\sqrt{d}}",
                r"x_i = x_j \;\Rightarrow\; x_i + E_i \ne x_j + E_j \ \text{ when } i \ne j",
                r"P(X + E) = PX + PE \ne PX + E \;\Rightarrow\; \operatorname{Attn}(PX + E) \ne "
                r"P\,\operatorname{Attn}(X + E)",
            )
            st.markdown(
                f"The learned table here is random, as at initialisation (rows ~ N(0, I), N_max = "
                f"{chapter.N_MAX}); training shapes its rows, but any distinct rows already break both ties. "
                "Every scheme at once, over every query word of your sentence:")
            rows = {"positions": [], "largest gap between copies, any query": [], "max |Attn(PX) − P·Attn(X)|": []}
            for s in SCHEMES:
                r = sres.runs.get(s)
                rows["positions"].append(s)
                rows["largest gap between copies, any query"].append(
                    "needs even d" if r is None else f"{r.copies_gap_all:.3g}" if sres.duplicates
                    else "no repeated word")
                rows["max |Attn(PX) − P·Attn(X)|"].append("needs even d" if r is None else f"{r.scramble_error:.3g}")
            frame.table(rows)

    frame.show_code(explains_demo, attention_with_positions, learned_table, scramble_order, query_copies_gap)
    frame.bridge(PATH, "Both puzzles the chapter opened with are settled: positions make order visible. But a model "
                 "is trained on sentences up to some length: the next page asks what happens to each scheme when "
                 "the text grows past it.")

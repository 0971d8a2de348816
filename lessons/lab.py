import numpy as np
import streamlit as st

import frame
from frame import jobs
from frame.pages import ROOT
from posenc import lab
from posenc import lab_words as words
from posenc.charts import lab as lab_charts
from posenc.core import listing

PATH = "lessons/lab.py"
DATA = ROOT / "data" / "lab_results.json"
DEFAULT = lab.Settings()


# ---------------------------------------------------------------- the data: precomputed, or trained live
def precomputed() -> dict:
    """The precomputed results (scripts/precompute_lab.py), parsed once per server process (posenc.lab)."""
    return lab.precomputed(DATA)


def record_for(key: tuple) -> dict | None:
    """The record of these settings: precomputed, or trained live in this server's queue (None: not yet)."""
    rec = lab.stored(precomputed(), lab.Settings.of_key(key))
    if rec is not None:
        return rec
    job = jobs.queue().get(key)
    return job.result if job is not None and job.state == jobs.DONE else None


@frame.cached(max_entries=48)
def figures(key: tuple) -> dict:
    record = record_for(key)
    return {"accuracy": lab_charts.accuracy_figure(record), "position": lab_charts.position_figure(record),
            "maps": lab_charts.attention_figure(record), "gaps": lab_charts.gaps_figure(record),
            "loss": lab_charts.loss_figure(record), "angles": lab_charts.angles_figure(lab.settings_from(record))}


@frame.cached(max_entries=48)
def readings(key: tuple) -> dict:
    return lab.readings(record_for(key))


def show_sample(s: lab.Settings) -> None:
    tokens, targets = lab.sample(np.random.default_rng(7), s.task, s.k, 1, s.L_train, s.vocab)
    st.markdown("**The task on one random sequence** (tokens as letters; “—”: nothing to predict there):")
    frame.strip({"token": words.letters(tokens[0]), "answer": words.letters(targets[0])})


def train_live(s: lab.Settings) -> dict | None:
    """Settings that are not precomputed: offered to train (within the live budget), trained in the server's
    queue with a live loss curve; the record once done (None while not trained)."""
    runs = f"{len(lab.SCHEMES)} schemes × {len(lab.LIVE_SEEDS)} seeds"
    if s.steps not in lab.LIVE_STEPS:  # never offered live, so never in the queue
        with_variant = sorted(precomputed().get("variants", {}).get(lab.VARIANT, {}))
        st.info(f"{s.steps:,} steps are precomputed only for the default model"
                + (f" (and, for {listing(with_variant)}, with the start token and MLP together)" if with_variant
                   else "") + f". A live training uses at most {lab.LIVE_STEPS[-1]} steps: pick "
                f"{listing([str(x) for x in lab.LIVE_STEPS])}.", icon=":material/info:")
        return None
    return jobs.offered(
        s.key, lambda live: lambda report: lab.experiment(
            s, lab.LIVE_SEEDS, progress=lambda done, total, _scheme: report(done / total), losses_out=live),
        lab.estimate_s(s), budget_s=lab.LIVE_BUDGET_S, button_key="lab_train",
        offer=lambda quoted: f"Not precomputed. Training takes {jobs.seconds(quoted)} ({runs}), one training at "
                             "a time on this server; the result is kept for everyone.",
        too_slow=lambda quoted: f"Too slow to train live on this server: about {quoted:.0f} s for {runs} (the page "
                                f"allows {lab.LIVE_BUDGET_S:.0f} s). Fewer steps, a shorter training length, one "
                                "layer or no MLP trains faster.",
        live_chart=lambda live: lab_charts.live_loss_figure(live, s.vocab, s.steps))


def show_reading(q, record: dict, key: tuple) -> None:
    """The answer (honest readings), the verdicts (into Checks), and the papers beside this small model."""
    s, rs = lab.settings_from(record), readings(key)
    for claim, holds, measured in words.claims(rs, s, len(record["seeds"])):
        frame.verdict(claim, holds, measured)
    i_past = [i for i, n in enumerate(record["test_lengths"]) if n > s.n_max]
    frame.verdict(f"The learned table has nothing past n_max = {s.n_max}",
                  all(run["accuracy"][i] is None for run in record["runs"]["learned"] for i in i_past),
                  f"no accuracy at lengths {listing([str(record['test_lengths'][i]) for i in i_past])}: no row "
                  "to look up (the line ends; it is not a zero)")
    q.answer(words.answer(rs, s, len(record["seeds"])))
    variant = lab.stored(precomputed(), lab.Settings(task=s.task, bos=True, mlp=True))
    with frame.deeper("what the papers found, and this small model", key="lab_deep_papers"):
        st.markdown(words.papers(rs, s, None if variant is None else (
            lab.read(variant, "none"), lab.settings_from(variant), len(variant["seeds"]))))


def why_section(key: tuple, figs: dict) -> None:
    """The section that explains the settings the first section drew (``figs``: their ``figures``)."""
    # not a fragment: it vanishes with the record it reads (an untrained setting), which only the page's run
    # decides (its Predict still reruns alone: frame.predict)
    @frame.section("Why each one fails", fragment=False)
    def why():
        record = record_for(key)
        s, rs = lab.settings_from(record), readings(key)
        correct, answer, then = words.gaps_answer(rs, s, len(record["seeds"]))
        q = frame.predict(*words.gaps_question(s), correct, key=f"lab_why_predict_{s.task}")
        by_position, maps = frame.tabs(["Accuracy by position", "Attention maps at 4 ×"], "lab_why")
        with by_position:
            frame.chart(figs["position"])
        with maps:
            frame.chart(figs["maps"])
        with_mask, without = record["mask_leak"]  # lab.mask_leak, computed with the record (lab.experiment)
        learned_words, none_words = words.why(record, rs, s, (with_mask, without))
        st.markdown(learned_words)
        a, b = st.columns([2, 3], gap="medium")
        with a:
            frame.chart(figs["gaps"])
        with b:
            q.answer(answer, then=then)
            st.markdown(none_words)
        frame.verdict("Without the mask, an untrained model's layer 1 holds no position (R² below 0.1)",
                      without < 0.1, f"R² = {without:.3f} without the mask, {with_mask:.3f} with it")

    with frame.deeper("RoPE's angles, pair by pair", key="lab_deep_angles"):
        frame.chart(figs["angles"])

    with frame.deeper("training curves", key="lab_deep_loss"):
        frame.chart(figs["loss"])
        st.markdown(words.curves(readings(key)))


# ---------------------------------------------------------------- the page
with frame.page(PATH, "Trained on short sequences, tested on four times longer ones: which scheme still answers "
                      "right?"):

    chosen: list[tuple] = []  # (settings key, figures) the first section drew, for the section that explains them

    @frame.section(None, fragment=False)
    def experiment_section():
        right, left = st.columns([3, 1], gap="medium")  # question and chart first: on a phone the settings follow
        with left:
            task = frame.select("Task", "lab_task", list(lab.TASKS), DEFAULT.task, kind="selectbox",
                                help="copy: the token k places back. first: the first token. induction: the token "
                                     "that followed the current token's last earlier appearance.")
            k = frame.select("k (copy)", "lab_k", [1, 2, 3], DEFAULT.k, help="Only the copy task uses k.")
            n_layers = frame.select("Layers", "lab_layers", [1, 2], DEFAULT.n_layers)
            L_train = frame.select("Training length", "lab_L", [8, 12, 16], DEFAULT.L_train)
            steps = frame.select("Steps", "lab_steps", [*lab.LIVE_STEPS, DEFAULT.steps], DEFAULT.steps,
                                 kind="selectbox", help="The same number of Adam steps for every scheme. "
                                                        "2,000 are precomputed for the default model.")
            with st.expander("Model options", icon=":material/tune:"):
                heads = frame.select("Heads", "lab_heads", [1, 2, 4], DEFAULT.heads,
                                     help="ALiBi's heads get slopes 1/2, 1/4, 1/8, 1/16: the steepest of "
                                          "Press et al.'s geometric set.")
                bos = frame.toggle("Start token", "lab_bos", DEFAULT.bos)
                mlp = frame.toggle("MLP block", "lab_mlp", DEFAULT.mlp)
        s = lab.Settings(task=task, k=int(k) if task == "copy" else DEFAULT.k, n_layers=int(n_layers),
                         L_train=int(L_train), steps=int(steps), heads=int(heads), bos=bool(bos), mlp=bool(mlp))
        with right:
            with frame.shown_when(False, "lab_task_above"):  # projected, the task is said aloud: its line
                st.markdown(words.task_line(s))                  # goes under the chart
            record = record_for(s.key)
            best = None if record is None else words.best(readings(s.key))
            q = frame.predict(
                f"Tested at {4 * s.L_train} tokens, which scheme is right most often past position {s.L_train}?",
                list(lab.SCHEMES), list(lab.SCHEMES).index(best) if best else 0, key=f"lab_predict_{s.task}")
            if record is None:
                if train_live(s) is not None:
                    st.rerun()  # trained just now: draw the page again from the kept result (and its Predict)
                show_sample(s)
                return
            figs = figures(s.key)  # once a run: each call of a cached function unpickles its copy
            frame.chart(figs["accuracy"])
            with frame.shown_when(True, "lab_task_under"):
                st.markdown(words.task_line(s))
        show_reading(q, record, s.key)
        chosen.append((s.key, figs))

    if chosen:
        why_section(*chosen[0])

    with frame.deeper("the model, formula by formula", key="lab_deep_model"):
        frame.formula(
            r"h^{0}_i = E[t_i] \;(+\,P[i] \text{ learned},\; +\,\mathrm{PE}(i) \text{ sinusoidal})",
            r"q = hW_Q,\; k = hW_K,\; v = hW_V \quad(q, k \leftarrow R_i q, R_j k \text{ for RoPE}; H \text{ heads of } d/H)",
            r"s_{ij} = q_i\cdot k_j/\sqrt{d/H} \;-\; m_h\,(i-j)\ [\text{ALiBi}] \;-\; \infty\ [j > i]",
            r"h \leftarrow h + \operatorname{softmax}_j(s)\, v \quad [+\; W_2\,\mathrm{relu}(W_1 h + b_1) + b_2 \text{ with the MLP}]",
            r"\text{loss} = -\tfrac{1}{N}\textstyle\sum_{\text{scored}} \log \operatorname{softmax}(h W_{\text{out}} + b)_{\text{target}}",
        )
        frame.table({"setting": ["vocabulary", "width d", "batch", "learning rate (Adam)", "learned table rows",
                                 "test sequences per length", "seeds (precomputed / live)", "MLP hidden width"],
                     "value": [str(DEFAULT.vocab), str(DEFAULT.d_model), str(DEFAULT.batch), str(DEFAULT.lr),
                               f"{DEFAULT.n_max_factor} × training length", str(DEFAULT.n_test),
                               f"{len(lab.SEEDS)} / {len(lab.LIVE_SEEDS)}", f"{lab.MLP_WIDTH} × d"]})
        st.markdown(
            "The gradients are written by hand (no autograd library) and checked against finite differences "
            "for every scheme, layer count and option in the app's tests; with the options off the model is "
            "exactly the one this page used before they existed. The start token is one extra token at position "
            "0 with its own embedding, never scored. Positions count from 0 in the code and from 1 on the page.")

    with frame.deeper("the data behind the precomputed views", key="lab_deep_data"):
        data = precomputed()
        n_variant = {len(v["seeds"]) for v in data.get("variants", {}).get(lab.VARIANT, {}).values()}
        st.markdown(f"The defaults ({len(data['provenance']['seeds'])} seeds)"
                    + (f" and the start-token-and-MLP variant ({listing(sorted(map(str, n_variant)))} seeds)"
                       if n_variant else "")
                    + " are precomputed by the same code the Train button runs, so the page opens without "
                      "training. Other settings train live, one training at a time on the server, and are kept "
                      "for every visitor.")
        frame.table({"what": list(data["provenance"]), "value": [str(v) for v in data["provenance"].values()]})

    frame.show_code(lab.forward, lab.loss_and_grads, lab.read, lab.train)
    frame.bridge(PATH, "Training short and testing long is exactly the problem large models face. The next page "
                 "looks at how RoPE models are stretched to longer contexts after training.")

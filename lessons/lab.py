import json
import math

import numpy as np
import streamlit as st

import frame
from frame import jobs
from frame.pages import ROOT
from posenc import lab
from posenc.charts import lab as lab_charts
from posenc.encodings import frequencies

PATH = "lessons/lab.py"
DATA = ROOT / "data" / "lab_results.json"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DEFAULT = lab.Settings()
VARIANT = "bos+mlp"
LIVE_BUDGET_S = 20.0  # a live training the page allows must take at most this on this machine
LIVE_STEPS = (100, 200, 400)  # steps a live training may use; 2,000 are precomputed (defaults and the variant)
PAPERS = {
    "press": "[Press et al. 2022](https://arxiv.org/abs/2108.12409)",
    "haviv": "[Haviv et al. 2022](https://arxiv.org/abs/2203.16634)",
    "kazemnejad": "[Kazemnejad et al. 2023](https://arxiv.org/abs/2305.19466)",
    "olsson": "[Olsson et al. 2022](https://arxiv.org/abs/2209.11895)",
}


# ---------------------------------------------------------------- the data: precomputed, or trained live
@st.cache_resource
def precomputed() -> dict:
    """The precomputed results (scripts/precompute_lab.py), read once per server."""
    return json.loads(DATA.read_text(encoding="utf-8"))


def key_of(s: lab.Settings) -> tuple:
    return tuple(getattr(s, f) for f in ("task", "k", "n_layers", "L_train", "steps", "heads", "bos", "mlp"))


def settings_of(key: tuple) -> lab.Settings:
    names = ("task", "k", "n_layers", "L_train", "steps", "heads", "bos", "mlp")
    return lab.Settings(**dict(zip(names, key)))


def stored(s: lab.Settings) -> dict | None:
    """The precomputed record of these settings, if there is one."""
    data = precomputed()
    if s == lab.Settings(task=s.task):
        return data["experiments"][s.task]
    if s == lab.Settings(task=s.task, bos=True, mlp=True):
        return data.get("variants", {}).get(VARIANT, {}).get(s.task)
    return None


SHARED = 2.0  # the machine is shared (2 cores, up to 8 jobs): quiet-machine times doubled before any job ran


def per_step_s(s: lab.Settings) -> float:
    """Seconds per training step of one run on a quiet core (measured: 1.5 ms for the default 2 layers at length
    16; 3.1 ms with the MLP and start token; 4.4 ms with 4 heads as well)."""
    return 0.75e-3 * s.n_layers * (s.L_train / 16) ** 0.7 * (1 + 1.0 * s.mlp + 0.3 * (s.heads - 1) + 0.1 * s.bos)


def estimate_s(s: lab.Settings) -> float:
    """A live training before the queue's correction: every scheme × LIVE_SEEDS, steps plus ~0.1 s of evaluation
    a run, × SHARED. The queue then scales it by how long the last trainings really took."""
    return SHARED * len(lab.SCHEMES) * len(lab.LIVE_SEEDS) * (0.1 + s.steps * per_step_s(s))


def work_for(s: lab.Settings, live: dict):
    def work(report):
        return lab.experiment(s, lab.LIVE_SEEDS, progress=lambda done, total, scheme: report(done / total),
                              losses_out=live)
    return work


_LIVE: dict = {}  # key → scheme → the losses of the run in progress (read by the page while it trains)


def record_for(key: tuple) -> dict | None:
    s = settings_of(key)
    rec = stored(s)
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


@frame.cached(max_entries=16)
def leak(key: tuple) -> tuple[float, float]:
    return lab.mask_leak(settings_of(key))


# ---------------------------------------------------------------- words from numbers
def pct(x: float | None) -> str:
    return "no row" if x is None else f"{100 * x:.0f} %"


def spread(t: tuple[float, float, float] | None) -> str:
    if t is None:
        return "no row"
    return f"{pct(t[0])} ({pct(t[1])}–{pct(t[2])})" if round(100 * t[1]) != round(100 * t[2]) else pct(t[0])


def r2(x: float) -> str:
    return f"{x:.2f}".replace("-", "−")


def join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def letters(seq) -> list[str]:
    return ["—" if t < 0 else LETTERS[t] for t in seq]


def task_line(s: lab.Settings) -> str:
    """The task and the model, in two short sentences (our own words and numbers)."""
    task = {"copy": f"name the token {s.k} place{'s' if s.k > 1 else ''} back (*copy*)",
            "first": "name the sequence's first token (*first*)",
            "induction": "when the current token appeared before, name the one that followed it then "
                         "(*induction*: … A B … A → B)"}[s.task]
    extra = [x for x, on in (("a start token", s.bos), ("an MLP", s.mlp)) if on]
    model = (f"{s.n_layers} layer{'s' if s.n_layers > 1 else ''} of causal attention, "
             f"{'one head' if s.heads == 1 else f'{s.heads} heads'}"
             + (f", {join(extra)}" if extra else ", nothing else"))
    note = {"first": " It needs position 1 only — under the causal mask the only query that reads nothing but "
                     "itself, for every scheme — so it favours `none` by construction.",
            "induction": f" It is what {PAPERS['olsson']} call an induction head's job.", "copy": ""}[s.task]
    return (f"**Task:** at each position, {task}; random tokens from {s.vocab}.{note} **Model:** {model}, the same "
            f"for every scheme; trained on {s.L_train} tokens for {s.steps:,} steps, tested up to {4 * s.L_train}.")


def reading_line(r: lab.Reading, L: int) -> str:
    if not r.learned:
        why = (f"{pct(r.at_L[0])} right at length {L}" + ("" if r.converged else ", its loss still falling"))
        return f"**{r.scheme}** did not learn the task ({why})"
    if r.still_works:
        return f"**{r.scheme}** learned it and still works: {spread(r.past_4L)} past position {L}"
    if r.past_4L is None:
        return f"**{r.scheme}** learned it ({pct(r.at_L[0])} at {L}) but has no row past position {DEFAULT.n_max_factor * L}"
    return f"**{r.scheme}** learned it ({pct(r.at_L[0])} at {L}) but fails past it: {spread(r.past_4L)}"


@st.cache_resource
def live_losses() -> dict:
    """Process-wide: settings key → scheme → every loss so far of the run in progress (the live curve)."""
    return {}


def show_sample(s: lab.Settings) -> None:
    tokens, targets = lab.sample(np.random.default_rng(7), s.task, s.k, 1, s.L_train, s.vocab)
    st.markdown("**The task on one random sequence** (tokens as letters; “—”: nothing to predict there):")
    frame.strip({"token": letters(tokens[0]), "answer": letters(targets[0])})


def offer_or_train(s: lab.Settings, key: tuple) -> dict | None:
    """Offer to train settings that are not precomputed, train them in the server's queue, show the queue and a
    live loss curve while waiting; the record once done (None while not trained)."""
    q = jobs.queue()
    job = q.get(key)
    if job is None or job.state == jobs.FAILED:
        if s.steps not in LIVE_STEPS:
            with_variant = sorted(precomputed().get("variants", {}).get(VARIANT, {}))
            st.info(f"{s.steps:,} steps are precomputed only for the default model"
                    + (f" (and, for {join(with_variant)}, with the start token and MLP together)" if with_variant
                       else "") + ". A live training uses at most "
                    f"{LIVE_STEPS[-1]} steps: pick {join([str(x) for x in LIVE_STEPS])}.", icon=":material/info:")
            show_sample(s)
            return None
        quoted = estimate_s(s) * q.correction()
        if quoted > LIVE_BUDGET_S:
            st.info(f"Too slow to train live on this server: about {quoted:.0f} s for {len(lab.SCHEMES)} schemes × "
                    f"{len(lab.LIVE_SEEDS)} seeds (the page allows {LIVE_BUDGET_S:.0f} s). Fewer steps, a shorter "
                    "training length, one layer or no MLP trains faster.", icon=":material/timer_off:")
            show_sample(s)
            return None
        if job is not None:
            st.error(f"The last training of these settings failed: {job.error}", icon=":material/error:")
        st.info(f"Not precomputed. Training takes {jobs.seconds(quoted)} ({len(lab.SCHEMES)} schemes × "
                f"{len(lab.LIVE_SEEDS)} seeds), one training at a time on this server; the result is kept for "
                "everyone.", icon=":material/model_training:")
        if not st.button("Train", key="lab_train", type="primary", icon=":material/play_arrow:"):
            show_sample(s)
            return None
        live = live_losses().setdefault(key, {})
        job = q.submit(key, work_for(s, live), estimate_s(s))
    live = live_losses().get(key, {})
    spot = st.empty()

    def tick(_job) -> None:
        if live:
            with spot.container():
                frame.chart(lab_charts.live_loss_figure(live, s.vocab, s.steps))

    jobs.follow(job, tick, q=q)
    spot.empty()
    if job.state == jobs.FAILED:
        st.error(f"The training failed: {job.error}", icon=":material/error:")
        return None
    return job.result


def show_reading(q, record: dict, key: tuple, best: str | None) -> None:
    """The answer (honest readings), the verdicts (into Checks) and two or three short paragraphs."""
    s = lab.settings_from(record)
    L = s.L_train
    rs = readings(key)
    n_seeds = len(record["seeds"])
    learned = [x for x in lab.SCHEMES if rs[x].learned]
    works = [x for x in lab.SCHEMES if rs[x].still_works]

    for x in lab.SCHEMES:
        r = rs[x]
        frame.verdict(f"`{x}` learned the task", r.learned,
                      f"{spread(r.at_L)} right at length {L} over {n_seeds} seeds (needs a mean ≥ {pct(lab.LEARNS)}); "
                      f"the mean loss fell {r.drop:.4f} over the last tenth of the steps (flat: ≤ {lab.FLAT})")
        if r.learned:
            frame.verdict(f"`{x}` still works past the training length", r.still_works,
                          f"{spread(r.past_4L)} right on positions {L + 1}–{4 * L} of {4 * L}-token sequences "
                          f"(needs a mean ≥ {pct(lab.STILL_WORKS)})" if r.past_4L is not None else
                          f"no row past position {s.n_max}: positions {s.n_max + 1}–{4 * L} cannot be read")
    i_past = [i for i, n in enumerate(record["test_lengths"]) if n > s.n_max]
    frame.verdict(f"The learned table has nothing past n_max = {s.n_max}",
                  all(run["accuracy"][i] is None for run in record["runs"]["learned"] for i in i_past),
                  f"no accuracy at lengths {join([str(record['test_lengths'][i]) for i in i_past])}: no row "
                  "to look up (the line ends; it is not a zero)")
    not_learned = [x for x in lab.SCHEMES if x not in learned]
    first = (
        f"A scheme counts only once it has learned the task — at least {pct(lab.LEARNS)} right at the training "
        f"length, with its loss flat — and then it still works if it gets at least {pct(lab.STILL_WORKS)} of the "
        f"positions past {L} right. "
        + (f"Here {join(works)} still work{'s' if len(works) == 1 else ''}" if works else
           "Here no scheme still works past the training length")
        + (f"; {join(not_learned)} did not learn the task in {s.steps:,} steps. " if not_learned else
           "; every scheme learned the task. "))
    none = rs["none"]
    if s.task == "first":
        first += (f"As the task says, it favours `none`: `none` gets {spread(none.past_4L)} past position {L}.")
    elif s.task == "induction":
        top = max(lab.SCHEMES, key=lambda x: rs[x].at_L[0])
        first += (f"{PAPERS['olsson']} traced this recall to an *induction head*: one layer writes each token's "
                  "predecessor into it, the next looks for the earlier token whose predecessor matches. "
                  + ("That needs two attention layers; with one, the best scheme here" if s.n_layers == 1 else
                     "Two layers allow that circuit; the best scheme at the training length")
                  + f", {top}, reaches {pct(rs[top].at_L[0])}.")
    q.answer(f"**{best}**, with {spread(rs[best].past_4L)} right past position {L} at {4 * L} tokens (mean, lowest–"
             f"highest of {n_seeds} seeds). Read honestly: " + "; ".join(reading_line(rs[x], L) for x in lab.SCHEMES)
             + ". " + first)
    variant = stored(lab.Settings(task=s.task, bos=True, mlp=True))
    v_none = lab.read(variant, "none") if variant is not None else None
    nope = (f"{PAPERS['kazemnejad']} found that models with no position encoding generalized to longer inputs "
            "better than explicit encodings on small algorithmic tasks (trained up to 20 tokens, tested up to 40); "
            "their models have MLPs and a start token. ")
    if s.bos and s.mlp:
        nope += f"With both switched on here, `none` {reading_line(none, L).split('** ', 1)[1]}."
    elif v_none is not None:
        nope += (f"With both (precomputed, {len(variant['seeds'])} seeds) `none` "
                 f"{reading_line(v_none, L).split('** ', 1)[1]}; without, {reading_line(none, L).split('** ', 1)[1]}.")
    else:
        nope += f"This model has neither: `none` {reading_line(none, L).split('** ', 1)[1]}."
    alibi = rs["alibi"]
    nope += (f" {PAPERS['press']} found ALiBi language models trained on short inputs kept their perplexity on "
             f"much longer ones; here `alibi` {reading_line(alibi, L).split('** ', 1)[1]}.")
    with frame.deeper("what the papers found, and this small model", key="lab_deep_papers"):
        st.markdown(nope)


def why_section(key: tuple) -> None:
    @frame.section("Why each one fails")
    def why():
        record = record_for(key)
        s = lab.settings_from(record)
        L = s.L_train
        rs = readings(key)
        figs = figures(key)
        by_position, maps = frame.tabs(["Accuracy by position", "Attention maps at 4 ×"], "lab_why")
        with by_position:
            frame.chart(figs["position"])
        with maps:
            frame.chart(figs["maps"])
        by_pos = np.array([[np.nan if v is None else v for v in run["by_position"]]
                           for run in record["runs"]["learned"]], float).mean(axis=0)
        inside, unreached = float(np.nanmean(by_pos[1:L])), float(np.nanmean(by_pos[L:s.n_max]))
        learned_words = (
            f"**Learned** positions: training reached rows 1–{L} of the table only; rows {L + 1}–{s.n_max} kept "
            f"their random start ({pct(inside)} right on positions 2–{L}, {pct(unreached)} on {L + 1}–{s.n_max}), "
            f"and past {s.n_max} there is no row at all.")
        rope, sin = rs["rope"], rs["sinusoidal"]
        w = (4 * L - 1) * frequencies(s.d_model // s.heads, lab.BASE)
        seen = (L - 1) * frequencies(s.d_model // s.heads, lab.BASE)
        short = int(np.sum(seen < 2 * math.pi))
        rescued = rope.seen_gaps_past[0] - rope.past_4L[0] >= 0.2 and sin.seen_gaps_past[0] - sin.past_4L[0] < 0.1
        rope_words = (
            f"**RoPE** scores depend on the gap alone, but no query in training looked {L} or more back: "
            f"{short} of its {len(seen)} pairs never turned a full circle (see *Deeper: RoPE's angles*; pair 2: {seen[1]:.1f} rad in training, "
            f"{w[1]:.1f} at 4 ×). Let queries read only the gaps seen in training (the box under the bars): `rope` goes from {spread(rope.past_4L)} to "
            f"{spread(rope.seen_gaps_past)} past position {L}, sinusoids from {spread(sin.past_4L)} to "
            f"{spread(sin.seen_gaps_past)}."
            + (" The restriction rescues RoPE and not sinusoids: RoPE fails on gaps it never saw, sinusoids on "
               "positions they never saw." if rescued else ""))
        with_mask, without = leak(key)
        none = rs["none"]
        none_words = (
            f"**No positions** (`none`) still has the causal mask, and the mask leaks position: query i averages "
            "i tokens, and an average of many random vectors is shorter than one of few. A read-out of layer 1 in "
            f"an *untrained* model recovers log-position with R² = {r2(with_mask)} with the mask, {r2(without)} "
            f"without; trained, R² = {r2(none.probe[0])}. {PAPERS['haviv']} found causal language models with no "
            "position encoding still learn position, and point to the mask, which lets a token count what it "
            "reads.")
        st.markdown(learned_words)
        a, b = st.columns([2, 3], gap="medium")
        with a:
            frame.chart(figs["gaps"])
        with b:
            st.markdown(f"{rope_words}\n\n{none_words}")
        frame.verdict("Without the mask, an untrained model's layer 1 holds no position (R² below 0.1)",
                      without < 0.1, f"R² = {without:.3f} without the mask, {with_mask:.3f} with it")

    with frame.deeper("RoPE's angles, pair by pair", key="lab_deep_angles"):
        frame.chart(figures(key)["angles"])

    with frame.deeper("training curves", key="lab_deep_loss"):
        frame.chart(figures(key)["loss"])
        rs = readings(key)
        flat = [x for x in lab.SCHEMES if rs[x].converged]
        moving = [x for x in lab.SCHEMES if not rs[x].converged]
        st.markdown(
            f"Over the last tenth of the steps the mean loss of {join(flat) if flat else 'no scheme'} fell by at "
            f"most {lab.FLAT} (flat)"
            + (f"; {join(moving)} still fell by more — more steps could still change {'its' if len(moving) == 1 else 'their'} reading."
               if moving else ".")
            + " A low training loss says nothing yet about longer sequences.")


# ---------------------------------------------------------------- the page
with frame.page(PATH, "Trained on short sequences, tested on four times longer ones: which scheme still answers "
                      "right?"):

    chosen: list[tuple] = []  # the settings the first section drew, for the section that explains them

    @frame.section(None, fragment=False)
    def experiment_section():
        left, right = st.columns([1, 3], gap="medium")
        with left:
            task = frame.select("Task", "lab_task", list(lab.TASKS), DEFAULT.task, kind="selectbox",
                                help="copy: the token k places back. first: the first token. induction: the token "
                                     "that followed the current token's last earlier appearance.")
            k = frame.select("k (copy)", "lab_k", [1, 2, 3], DEFAULT.k, help="Only the copy task uses k.")
            n_layers = frame.select("Layers", "lab_layers", [1, 2], DEFAULT.n_layers)
            L_train = frame.select("Training length", "lab_L", [8, 12, 16], DEFAULT.L_train)
            steps = frame.select("Steps", "lab_steps", [*LIVE_STEPS, DEFAULT.steps], DEFAULT.steps,
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
        key = key_of(s)
        with right:
            if not frame.presenting():  # projected, the task is said aloud and its line goes under the chart
                st.markdown(task_line(s))
            record = record_for(key)
            best = None
            if record is not None:
                rs = readings(key)
                with_past = [x for x in lab.SCHEMES if rs[x].past_4L is not None]
                best = max(with_past, key=lambda x: rs[x].past_4L[0])
            q = frame.predict(
                f"Tested at {4 * s.L_train} tokens, which scheme is right most often past position {s.L_train}?",
                list(lab.SCHEMES),
                list(lab.SCHEMES).index(best) if best else 0, key=f"lab_predict_{s.task}")
            if record is None:
                if offer_or_train(s, key) is not None:
                    st.rerun()  # trained just now: draw the page again from the kept result (and its Predict)
                return
            figs = figures(key)
            frame.chart(figs["accuracy"])
            if frame.presenting():
                st.markdown(task_line(s))
        show_reading(q, record, key, best)
        chosen.append(key)

    if chosen and record_for(chosen[0]) is not None:
        why_section(chosen[0])

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
        prov = precomputed()["provenance"]
        st.markdown("The defaults (10 seeds) and the start-token-and-MLP variant (5 seeds) are precomputed by the "
                    "same code the Train button runs, so the page opens without training. Other settings train "
                    "live, one training at a time on the server, and are kept for every visitor.")
        frame.table({"what": list(prov), "value": [str(v) for v in prov.values()]})

    frame.show_code(lab.forward, lab.loss_and_grads, lab.read, lab.train)
    frame.bridge(PATH, "Training short and testing long is exactly the problem large models face. The next page "
                 "looks at how RoPE models are stretched to longer contexts after training.")

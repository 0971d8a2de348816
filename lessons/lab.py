import json
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

import frame
from frame.pages import ROOT
from posenc import lab
from posenc.charts import lab as lab_charts
from posenc.stretch import alibi_slopes

PATH = "lessons/lab.py"
DATA = ROOT / "data" / "lab_results.json"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DEFAULT = lab.Settings()
WORKS = lab.STILL_WORKS  # "still works at 4×": a share of the scheme's own accuracy at the training length
PAPERS = {
    "press": "[Press et al. 2022](https://arxiv.org/abs/2108.12409)",
    "haviv": "[Haviv et al. 2022](https://arxiv.org/abs/2203.16634)",
    "kazemnejad": "[Kazemnejad et al. 2023](https://arxiv.org/abs/2305.19466)",
}


# ---------------------------------------------------------------- the data: precomputed, or trained live
@st.cache_resource
def precomputed() -> dict:
    """The default settings' results (scripts/precompute_lab.py), read once per server."""
    return json.loads(DATA.read_text(encoding="utf-8"))


@dataclass
class Job:
    thread: threading.Thread | None = None
    result: dict | None = None
    error: str | None = None


@dataclass
class Trainer:
    """Process-wide: one lock so that one training runs at a time, and the jobs started so far."""

    lock: threading.Lock = field(default_factory=threading.Lock)  # held while a training runs
    guard: threading.Lock = field(default_factory=threading.Lock)  # held while the job table changes
    jobs: dict = field(default_factory=dict)  # settings key → Job
    progress: dict = field(default_factory=dict)  # settings key → (steps done, steps in all, scheme)
    running: tuple | None = None


@st.cache_resource
def trainer() -> Trainer:
    return Trainer()


@st.cache_data(max_entries=80, show_spinner=False)  # ≥ the 70 settings the page offers beyond the defaults
def trained(task: str, k: int, n_layers: int, L_train: int, steps: int) -> dict:
    """Train every scheme from every seed on one setting — one training at a time on the whole server."""
    srv = trainer()
    key = (task, k, n_layers, L_train, steps)
    with srv.lock:
        srv.running = key
        try:
            return lab.experiment(
                lab.Settings(task=task, k=k, n_layers=n_layers, L_train=L_train, steps=steps), lab.SEEDS,
                progress=lambda done, total, scheme: srv.progress.__setitem__(key, (done, total, scheme)),
            )
        finally:
            srv.running = None


def _run(job: Job, key: tuple) -> None:
    """The worker thread: the training happens here, so every session's page stays free to draw."""
    try:
        job.result = trained(*key)
    except Exception as err:  # noqa: BLE001 — shown to the student, never swallowed
        job.error = f"{type(err).__name__}: {err}"


def start(key: tuple) -> Job:
    """The job for ``key``: the running or finished one if a session started it, else a new one."""
    srv = trainer()
    with srv.guard:
        job = srv.jobs.get(key)
        if job is None or job.error:
            job = Job()
            job.thread = threading.Thread(target=_run, args=(job, key), daemon=True, name=f"lab-train-{key}")
            srv.jobs[key] = job
            job.thread.start()
        return job


def wait(job: Job, key: tuple) -> dict | None:
    """Show the queue or the progress until the job is done; its result (or None after an error)."""
    srv = trainer()
    bar = st.progress(0.0, text="starting …")
    while job.thread.is_alive():
        if srv.running not in (None, key):
            bar.progress(0.0, text="queued: another training is running on the server; this one starts next")
        elif key not in srv.progress:
            bar.progress(0.0, text="starting …")
        else:
            done, total, scheme = srv.progress.get(key, (0, 1, ""))
            bar.progress(min(done / total, 1.0), text=f"training {scheme} … step {done:,} of {total:,} "
                                                       f"(5 schemes × {len(lab.SEEDS)} seeds)")
        time.sleep(0.2)
    bar.empty()
    if job.error:
        st.error(f"The training failed: {job.error}", icon=":material/error:")
        return None
    return job.result


def key_of(s: lab.Settings) -> tuple:
    return (s.task, s.k, s.n_layers, s.L_train, s.steps)


def is_default(s: lab.Settings) -> bool:
    return s == lab.Settings(task=s.task)


def finished(key: tuple) -> bool:
    job = trainer().jobs.get(key)
    return job is not None and not job.thread.is_alive() and job.result is not None


def record_for(key: tuple) -> dict:
    """The experiment record of a setting that is precomputed or already trained."""
    s = lab.Settings(task=key[0], k=key[1], n_layers=key[2], L_train=key[3], steps=key[4])
    return precomputed()["experiments"][s.task] if is_default(s) else trained(*key)


@frame.cached(max_entries=48)
def figures(key: tuple, layer: int):
    record = record_for(key)
    return (lab_charts.accuracy_figure(record), lab_charts.loss_figure(record),
            lab_charts.attention_figure(record, layer))


# ---------------------------------------------------------------- reading the results
def at_length(record: dict, length: int) -> dict[str, float | None]:
    """scheme → mean accuracy over the seeds at one test length (None: the learned table has no row)."""
    i = record["test_lengths"].index(length)
    out = {}
    for scheme, runs in record["runs"].items():
        values = [run["accuracy"][i] for run in runs]
        out[scheme] = None if any(v is None for v in values) else float(np.mean(values))
    return out


def join(names: list[str]) -> str:
    """a, b and c"""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def pct(x: float | None) -> str:
    return "no row" if x is None else f"{100 * x:.0f} %"


def still_works(record: dict) -> dict[str, bool]:
    L = record["settings"]["L_train"]
    at_L, at_4L = at_length(record, L), at_length(record, 4 * L)
    chance = 1 / record["settings"]["vocab"]
    return {s: at_4L[s] is not None and at_L[s] > 2 * chance and at_4L[s] >= WORKS * at_L[s] for s in lab.SCHEMES}


def letters(seq) -> list[str]:
    return ["—" if t < 0 else LETTERS[t] for t in seq]


# ---------------------------------------------------------------- the page
frame.page(
    PATH,
    "Train the same tiny attention model with each position scheme, then test it on sequences up to four "
    "times longer than any it saw. The measurements, not the chapter, decide which scheme works.",
)

DEF = {t: precomputed()["experiments"][t] for t in lab.TASKS}
copy_4L = at_length(DEF["copy"], 4 * DEFAULT.L_train)
best = max((s for s in lab.SCHEMES if copy_4L[s] is not None), key=lambda s: copy_4L[s])
frame.predict(
    f"At the page's default settings a model is trained to copy the token {DEFAULT.k} places back in sequences "
    f"of {DEFAULT.L_train} tokens, then tested on sequences of {4 * DEFAULT.L_train} (4 × the training length). "
    "Which scheme still works there best?",
    list(lab.SCHEMES), list(lab.SCHEMES).index(best),
    f"**{best}**. Mean accuracy at length {4 * DEFAULT.L_train} over {len(DEF['copy']['seeds'])} seeds: "
    + ", ".join(f"{s} {pct(copy_4L[s])}" for s in lab.SCHEMES)
    + f" (the learned table has {DEFAULT.n_max} rows, so nothing past position {DEFAULT.n_max} can be looked up). "
      "The chart below shows every length.",
    key="lab_predict_4x",
)
first_L = at_length(DEF["first"], DEFAULT.L_train)["none"]
first_4L = at_length(DEF["first"], 4 * DEFAULT.L_train)["none"]
none_options = ["No: without positions attention sees a bag of words",
                "Yes, but only up to the training length", f"Yes, even at {4 * DEFAULT.L_train} tokens"]
none_answer = 0 if first_L < lab.LEARNS else (2 if first_4L >= WORKS * first_L else 1)


def predict_none() -> None:
    """The second question, asked just before the attention maps that show how a model without positions copes."""
    frame.predict(
        "Now the task *repeat the first token*, with **no position encoding at all** (scheme `none`), causal "
        "attention as in a GPT-style model. Can it learn the task?",
        none_options, none_answer,
        f"Measured at the defaults ({DEFAULT.n_layers} layers): {pct(first_L)} right at the training length and "
        f"{pct(first_4L)} at {4 * DEFAULT.L_train} tokens (chance: {pct(1 / DEFAULT.vocab)}). The chapter says the mask "
        "“says which words may be read, never where they sit”. That is true of one word; but the first token is "
        "the only one that reads nothing but itself, and a model can learn to use that. See “why the causal mask "
        "leaks position” below.",
        key="lab_predict_none",
    )



def estimate(s: lab.Settings) -> float:
    """A rough, slightly generous wall time on this server: 15 runs of ~0.25 s evaluation plus ~1 ms per
    layer × step at length 16 (measured with a few other jobs running)."""
    return 15 * (0.25 + s.steps * s.n_layers * 0.95e-3 * (s.L_train / 16) ** 0.5)


def show_results(record: dict, key: tuple) -> None:
    s = lab.settings_from(record)
    L, n_max = s.L_train, s.n_max
    acc_fig, loss_fig, _ = figures(key, s.n_layers - 1)
    frame.chart(acc_fig)

    at_L, at_4L = at_length(record, L), at_length(record, 4 * L)
    works = still_works(record)
    chance = 1 / s.vocab
    frame.verdict(
        "With no position encoding the model cannot learn the task (the chapter: attention sees a bag of words)",
        at_L["none"] < lab.LEARNS,
        f"`none` gets {pct(at_L['none'])} right at the training length {L} (chance: {pct(chance)}; learning the "
        f"task means at least {pct(lab.LEARNS)})",
    )
    frame.verdict(
        f"The learned table has nothing past n_max = {n_max}",
        all(v is None for v, length in zip(at_length_all(record, "learned"), record["test_lengths"]) if length > n_max),
        f"no accuracy at lengths {', '.join(str(x) for x in record['test_lengths'] if x > n_max)}: no row to look up "
        "(the line ends; it is not a zero)",
    )
    for scheme, claim in (("sinusoidal", "Sinusoids, computed for any position, still work at 4 × the training length"),
                          ("rope", "RoPE, whose scores depend only on the gap, still works at 4 × the training length"),
                          ("alibi", "ALiBi still works at 4 × the training length")):
        frame.verdict(claim, works[scheme],
                      f"{pct(at_4L[scheme])} at length {4 * L} against {pct(at_L[scheme])} at length {L}")
    st.caption(f"“Still works” here means: at length {4 * L} at least {WORKS:.0%} of the scheme's own accuracy "
               f"at length {L}. Accuracies are means over {len(record['seeds'])} seeds.")
    st.markdown(explanation(record))

    st.subheader("Training curves")
    frame.chart(loss_fig)
    final = {sch: float(np.mean([run["losses"][-1] for run in record["runs"][sch]])) for sch in lab.SCHEMES}
    learned_well = [sch for sch in lab.SCHEMES if final[sch] < lab.LOW_LOSS]
    st.markdown(
        f"After {s.steps} steps the mean final loss is "
        + ", ".join(f"{sch} {final[sch]:.3f}" for sch in lab.SCHEMES)
        + f" (a uniform guess scores ln {s.vocab} = {np.log(s.vocab):.2f}). "
        + (f"{join(learned_well)} fit{'s' if len(learned_well) == 1 else ''} the training data almost perfectly; "
           if learned_well else "")
        + "a low training loss says nothing yet about longer sequences — that is what the chart above is for."
    )

    predict_none()
    st.subheader("Where each position looks")
    if s.n_layers == 2:
        layer = frame.select("Attention map of layer", "lab_map", [1, 2], 2) - 1
    else:
        layer = 0
    _, _, map_fig = figures(key, layer)
    frame.chart(map_fig)
    tokens = record["map"]["tokens"]
    st.caption(
        f"One test sequence of {len(tokens)} tokens ({len(tokens) / L:g} × the training length), trained from seed "
        f"{record['seeds'][0]}. Outlined: where the answer sits "
        + (f"({s.k} back)." if s.task == "copy" else "(position 1).")
        + (" With two layers the answer can also travel in two hops — layer 1 copies it into a later position, "
           "layer 2 reads that one — so a bright stripe beside the outline can be a correct solution too."
           if s.n_layers == 2 else "")
    )


def at_length_all(record: dict, scheme: str) -> list[float | None]:
    return [at_length(record, length)[scheme] for length in record["test_lengths"]]


def explanation(record: dict) -> str:
    """What the numbers say, in words, from the record."""
    s = lab.settings_from(record)
    L = s.L_train
    at_L, at_2L, at_4L = at_length(record, L), at_length(record, 2 * L), at_length(record, 4 * L)
    works = still_works(record)
    fit = [sch for sch in lab.SCHEMES if at_L[sch] >= lab.FITS]
    kept = [sch for sch in lab.SCHEMES if works[sch]]
    lost = [sch for sch in fit if not works[sch] and sch != "learned"]
    parts = [f"At the training length, {join(fit)} answer{'s' if len(fit) == 1 else ''} at least {pct(lab.FITS)} "
             "right. " if fit else f"No scheme reaches {pct(lab.FITS)} even at the training length with these settings. "]
    if kept:
        others = [sch for sch in lab.SCHEMES if sch not in kept]
        parts.append(f"At {4 * L} tokens, {join(kept)} still reach{'es' if len(kept) == 1 else ''} at least "
                     f"{WORKS:.0%} of {'its' if len(kept) == 1 else 'their'} own accuracy at length {L}"
                     + (f"; {join(others)} do{'es' if len(others) == 1 else ''} not" if others else "") + ". ")
        for sch in (x for x in kept if x not in fit):
            parts.append(f"But {sch} reached only {100 * at_L[sch]:.1f} % at the training length: it keeps what "
                         "it learned, and it learned less. ")
        if "none" in kept:
            parts.append("And `none` — no position encoding at all — is among them: the causal mask alone told it "
                         "enough about position (see “why the causal mask leaks position” below). ")
    else:
        parts.append(f"At {4 * L} tokens no scheme keeps {WORKS:.0%} of its accuracy at length {L}. ")
    if lost:
        parts.append("Falling off past the training length: " + ", ".join(
            f"{sch} ({pct(at_L[sch])} → {pct(at_2L[sch])} at {2 * L} → {pct(at_4L[sch])} at {4 * L})" for sch in lost)
            + ". ")
    parts.append(f"The learned table reaches {pct(at_2L['learned'])} at {2 * L} tokens — rows {L + 1} to "
                 f"{s.n_max} exist but were never trained — and has no row at all past {s.n_max}.")
    return "".join(parts)


def show_sample(settings: lab.Settings) -> None:
    # A sample sequence and its answers, so the task is plain.
    tokens, targets = lab.sample(np.random.default_rng(7), settings.task, settings.k, 1, settings.L_train,
                                 settings.vocab)
    st.markdown(
        f"**The task, on one random sequence** ({settings.vocab} possible tokens, shown as letters; "
        f"position 1 is the first token, “—” means nothing to predict there):"
    )
    frame.strip({"token": letters(tokens[0]), "answer": letters(targets[0])})


@frame.section("The experiment")
def experiment_section():
    c1, c2, c3, c4, c5 = st.columns([1.3, 1, 1, 1, 1])
    with c1:
        task = frame.select("Task", "lab_task", list(lab.TASKS), DEFAULT.task,
                            help="copy: the answer at each position is the token k places back. "
                                 "first: the answer at each position is the sequence's first token.")
    with c2:
        k = frame.select("k (copy: how far back)", "lab_k", [1, 2, 3], DEFAULT.k,
                         help="Only the copy task uses k.")
    with c3:
        n_layers = frame.select("Layers", "lab_layers", [1, 2], DEFAULT.n_layers)
    with c4:
        L_train = frame.select("Training length", "lab_L", [8, 12, 16], DEFAULT.L_train, kind="select_slider")
    with c5:
        steps = frame.select("Steps", "lab_steps", [100, 200, 400], DEFAULT.steps, kind="select_slider",
                             help="The same number of Adam steps for every scheme.")
    settings = lab.Settings(task=task, k=int(k) if task == "copy" else DEFAULT.k, n_layers=int(n_layers),
                            L_train=int(L_train), steps=int(steps))
    key = key_of(settings)

    if is_default(settings) or finished(key):
        record = record_for(key)
    else:
        job = trainer().jobs.get(key)
        if job is None or job.error:
            offer = st.empty()  # the offer to train, cleared once the training starts
            with offer.container():
                if job is not None:
                    st.error(f"The last training of these settings failed: {job.error}", icon=":material/error:")
                st.info(f"These settings are not precomputed. Training them takes about {estimate(settings):.0f} s "
                        f"on a quiet server (five schemes × {len(lab.SEEDS)} seeds), one training at a time; the "
                        "result is kept for everyone.", icon=":material/model_training:")
                pressed = st.button("Train", key="lab_train", type="primary", icon=":material/play_arrow:")
            if not pressed:
                show_sample(settings)
                return
            offer.empty()
            job = start(key)
        record = wait(job, key)
        if record is None:
            return
    show_results(record, key)
    show_sample(settings)

st.markdown(
    "The chapter argued for each scheme on paper. Here each one gets a fair trial: the same model (a token "
    f"embedding, the scheme, {DEFAULT.n_layers} layer{'s' if DEFAULT.n_layers > 1 else ''} of single-head causal "
    "attention with residual connections, a linear readout), the same random data, the same optimiser (Adam) and the same number of steps — nothing tuned "
    "per scheme. Every training sequence is "
    f"{DEFAULT.L_train} tokens long; the tests run from {min(DEFAULT.test_lengths)} to {max(DEFAULT.test_lengths)} "
    "tokens. "
    "Two tasks: one that needs *relative* order (copy the token k places back) and one that needs *absolute* "
    "position (repeat the first token of the sequence)."
)

with frame.deeper("why the causal mask leaks position", key="lab_deep_mask"):
    st.markdown(
        "The chapter's scramble argument is exact for attention **without** a mask: shuffle the tokens and "
        "the targets together and the loss does not move (this app's tests check it to 1e-12). A GPT-style "
        "model reads with the causal mask, and the mask is tied to the slots, not the words: position 1 reads "
        "only itself, position 2 reads two tokens, position i reads i. A layer that spreads its weight evenly "
        "hands position i an average of i value vectors, and an average of many random vectors is shorter "
        "than an average of few — so the size of that average tells the next layer roughly where it is. "
        "And the first token is special for free: it is the only one whose first-layer output is its own "
        "value, undiluted, which a second layer can look for. "
        f"{PAPERS['haviv']} found the same at scale: causal language models trained with no position encoding "
        "at all still learn position and reach a perplexity close to models with one."
    )
    copy_none = at_length(DEF["copy"], DEFAULT.L_train)["none"]
    st.markdown(
        f"In the default results `none` gets {pct(first_L)} of *repeat the first token* right at the training "
        f"length and {pct(copy_none)} of *copy {DEFAULT.k} back*"
        + (": knowing roughly where you are is not the same as knowing which token sits exactly k slots earlier."
           if first_L >= lab.LEARNS > copy_none else ".")
    )

with frame.deeper("why relative schemes can still fail on longer inputs", key="lab_deep_long"):
    st.markdown(
        "RoPE makes every score depend on the gap between query and key only, so the score the model learned "
        "for “2 back” is the same at position 10 and at position 60. What it never saw are the gaps themselves: "
        f"trained at length {DEFAULT.L_train}, no query ever looked {DEFAULT.L_train} or more tokens back. On a "
        "longer sequence those keys arrive with rotation angles the model was never trained on; some score "
        "high by accident and take weight away from the right one. Relative is not the same as length-proof."
    )
    st.markdown(
        "ALiBi adds −m·(gap) to every score, so a key far back is pushed down whatever the model learned — "
        "unseen gaps are handled by the same rule that handled seen ones. "
        f"{PAPERS['press']} (“train short, test long”) trained language models on short inputs and found ALiBi "
        "kept its perplexity on much longer ones where sinusoids and RoPE degraded. "
        f"One choice of ours to know about: a single head gets one slope, and we use m = {lab.ALIBI_SLOPE} "
        f"(the steepest of the paper's 8-head set, fixed before any run) — the paper's formula for one head gives "
        f"m = 1/{1 / alibi_slopes(1)[0]:.0f}, which over {DEFAULT.L_train} tokens would shift a score by at most "
        f"{alibi_slopes(1)[0] * (DEFAULT.L_train - 1):.2f}: no position signal at all."
    )

first_4x = at_length(DEF["first"], 4 * DEFAULT.L_train)
top_first = max(v for v in first_4x.values() if v is not None)
nope_here = (f"here too: on *repeat the first token* at {4 * DEFAULT.L_train} tokens `none` gets {pct(first_4x['none'])}, "
             "as good as any scheme" if first_4x["none"] >= top_first - 0.01 else
             f"not here: on *repeat the first token* at {4 * DEFAULT.L_train} tokens `none` gets "
             f"{pct(first_4x['none'])} against the best {pct(top_first)}")

with frame.deeper("what is known at scale, and what this toy is not", key="lab_deep_papers"):
    st.markdown(
        f"- {PAPERS['press']}: ALiBi extrapolates; sinusoidal and rotary encodings lose quality soon after the "
        "training length.\n"
        f"- {PAPERS['haviv']}: causal transformers with no position encoding (NoPE) still learn position.\n"
        f"- {PAPERS['kazemnejad']}: on small algorithmic tasks like these, NoPE sometimes generalizes to longer "
        f"inputs better than every explicit encoding — {nope_here}.\n\n"
        f"This page trains a {DEFAULT.n_layers}-layer, single-head model of width {DEFAULT.d_model} on random "
        f"tokens for {DEFAULT.steps} steps. "
        "That is enough to see the mechanisms, not to rank the schemes for a language model: large models add "
        "many heads, many layers, real text, and tricks such as the context-stretching on the next page."
    )

with frame.deeper("the model, formula by formula", key="lab_deep_model"):
    frame.formula(
        r"h^{0}_i = E[t_i] \;(+\,P[i] \text{ learned},\; +\,\mathrm{PE}(i) \text{ sinusoidal})",
        r"q = hW_Q,\; k = hW_K,\; v = hW_V \quad(q, k \leftarrow R_i q, R_j k \text{ for RoPE})",
        r"s_{ij} = q_i\cdot k_j/\sqrt{d} \;-\; m\,(i-j)\ [\text{ALiBi}] \;-\; \infty\ [j > i]",
        r"h \leftarrow h + \operatorname{softmax}_j(s)\, v \qquad \text{logits} = h W_{\text{out}} + b",
        r"\text{loss} = -\tfrac{1}{N}\textstyle\sum_{\text{scored}} \log \operatorname{softmax}(\text{logits})_{\text{target}}",
    )
    frame.table({"setting": ["vocabulary", "width d", "batch", "learning rate (Adam)", "learned table rows n_max",
                             "test sequences per length", "seeds"],
                 "value": [str(DEFAULT.vocab), str(DEFAULT.d_model), str(DEFAULT.batch), str(DEFAULT.lr),
                           f"{DEFAULT.n_max_factor} × training length", str(DEFAULT.n_test),
                           ", ".join(map(str, lab.SEEDS))]})
    st.markdown("The gradients are written by hand (no autograd library) and checked against finite "
                "differences for every scheme and layer count in the app's tests. The code counts positions "
                "from 0; the charts count from 1.")

with frame.deeper("the data behind the default view", key="lab_deep_data"):
    prov = precomputed()["provenance"]
    st.markdown(
        "The defaults' results are precomputed by the same code the Train button runs, so the page opens "
        "without training. Other settings are trained live and then kept for every visitor."
    )
    frame.table({"what": list(prov), "value": [str(v) for v in prov.values()]})

st.caption("In the code below positions count from 0 (position 1 on the page is index 0).")
frame.show_code(lab.forward, lab.loss_and_grads, lab.adam_step, lab.train)
frame.bridge(PATH, "Training short and testing long is exactly the problem large models face. The next page "
             "looks at how RoPE models are stretched to longer contexts after training, and at ALiBi again.")

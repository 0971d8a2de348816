"""The lab page: AppTest of every task at the defaults (read from data/lab_results.json) and at the extremes
(trained live, or refused with a note), and a real browser that trains a setting and sees the charts change.

Expected numbers are recomputed here from the data file or from posenc.lab, never copied from the page.
"""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from conftest import (
    assert_ok,
    chart_readings,
    chart_specs,
    chart_texts,
    charts_of,
    kind,
    layout_of,
    main_path,
    open_page,
    page_text,
    verdicts,
)
from posenc import lab

PAGE = "lessons/lab.py"
ROOT = Path(__file__).resolve().parent.parent
DATA = json.loads((ROOT / "data" / "lab_results.json").read_text(encoding="utf-8"))
RECORD = DATA["experiments"]


def chart_data(chart, name: str) -> list[dict]:
    """A chart's dataset ``name`` as records (Streamlit ships each one as Arrow IPC)."""
    for ds in chart.proto.datasets:
        if ds.name == name:
            return pa.ipc.open_stream(io.BytesIO(ds.data.data)).read_all().to_pylist()
    raise KeyError(name)


def page_for(task: str, **query) -> AppTest:
    at = open_page(PAGE, query={"lab_task": task, **query})
    assert_ok(at)
    return at


@pytest.fixture(scope="module", params=lab.TASKS)
def task_page(request) -> tuple[str, AppTest]:
    return request.param, page_for(request.param)


def test_every_task_opens_on_the_precomputed_results(task_page):
    task, at = task_page
    assert at.title[0].value == "Put it to the test"
    assert not [b for b in at.button if b.key == "lab_train"], "the defaults need no training"
    specs = chart_specs(at)
    assert len(specs) == 6  # accuracy, by position, maps, RoPE angles, gaps; training curves in a Deeper
    assert all(spec.get("description") for spec in specs)
    # the key chart carries the file's numbers: ALiBi's mean past L_train at 4 × L_train, all seeds
    record = RECORD[task]
    L = record["settings"]["L_train"]
    i = record["test_lengths"].index(4 * L)
    rows = [r for r in chart_data(charts_of(at)[0], "points") if r["scheme"] == "alibi" and r["x"] == 4 * L
            and r["seed"] == "mean of all seeds" and r["view"].startswith("only")]
    expected = sum(run["past"][i] for run in record["runs"]["alibi"]) / len(record["seeds"])
    # the charts ship float32 (7 significant digits; they show 3)
    assert len(rows) == 1 and rows[0]["value"] == pytest.approx(expected, rel=1e-6)


def test_every_chart_is_read_out_with_the_settings_numbers(task_page):
    """The descriptions say what each chart shows; the numbers of the record follow as each chart's reading,
    recomputed here from the data file."""
    task, at = task_page
    record = RECORD[task]
    s = lab.settings_from(record)
    specs, readings = chart_specs(at), chart_readings(at)
    assert len(readings) == len(specs) == 6 and all(readings), readings
    assert chart_texts(at)[0] == f"{specs[0]['description']} {readings[0]}"
    assert f"the training length is {s.L_train}" in readings[0] and f"positions {s.L_train + 1} and on" in readings[0]
    assert f"Chance is 1/{s.vocab}, and n_max = {s.n_max}." in readings[0]
    assert f"n_max = {s.n_max}" not in specs[0]["description"]
    loss = next(i for i, sp in enumerate(specs) if sp["description"].startswith("Training loss against step"))
    for scheme in lab.SCHEMES:
        last = sum(run["losses"][-1] for run in record["runs"][scheme]) / len(record["seeds"])
        assert f"{scheme} {last:.3f}" in readings[loss]
    assert f"At step {record['loss_steps'][-1]:,} the mean loss is" in readings[loss]
    assert f"ln {s.vocab} = {math.log(s.vocab):.3f}" in readings[loss]


# What the papers found past the training length, restated here from them (not read from posenc): Press et al.
# 2022 (ALiBi keeps working, sinusoids and rotary do not), Kazemnejad et al. 2023 (no encoding generalizes best);
# a learned table's rows past the training length are never trained.
FOUND_PAST_L = {"none": True, "learned": False, "sinusoidal": False, "rope": False, "alibi": True}


def test_verdicts_put_the_papers_findings_to_the_honest_readings(task_page):
    """Each scheme learns the task; once it has, what the papers found of it past the training length is the
    claim: it holds exactly when the reading agrees (a sinusoid that fails past L is a check that holds)."""
    task, at = task_page
    readings = lab.readings(RECORD[task])
    found = {re.sub(r" \(.*\)$", "", claim): holds for holds, claim, _ in verdicts(at)}
    for scheme, r in readings.items():
        assert found[f"`{scheme}` learned the task"] == r.learned
        works = FOUND_PAST_L[scheme]
        claim = (f"`{scheme}` still works past the training length" if works else
                 f"`{scheme}` fails past the training length, below {round(100 * lab.STILL_WORKS)} %")
        if r.learned:
            assert found[claim] == (r.still_works == works), (claim, r)
        else:  # a scheme that did not learn is never asked about longer inputs
            assert claim not in found
    at.button(key=f"lab_predict_{task}_show").click().run()  # the answer spells out each reading
    text = page_text(at)
    for scheme, r in readings.items():
        if not r.learned:
            assert f"**{scheme}** did not learn the task" in text
            assert f"**{scheme}** learned it and still works" not in text


def test_the_predict_answer_names_the_best_scheme_past_the_training_length():
    at = page_for("copy")
    readings = lab.readings(RECORD["copy"])
    best = max((s for s in lab.SCHEMES if readings[s].past_4L), key=lambda s: readings[s].past_4L[0])
    radio = [r for r in at.radio if r.key == "lab_predict_copy_guess"][0]
    radio.set_value(lab.SCHEMES[0]).run()
    assert_ok(at)
    assert f"**{best}**, with {lab_page_spread(readings[best].past_4L)} right past position" in page_text(at)


def rope_under_the_gaps(reading: lab.Reading) -> str:
    """What keys limited to the gaps seen in training do to RoPE past L_train, recomputed from the reading: the
    start of the option the page must mark right."""
    change = reading.seen_gaps_past[0] - reading.past_4L[0]
    return "It rises" if change >= lab.MOVES else "It falls" if change <= -lab.MOVES else "It moves by less"


def test_why_asks_before_its_first_chart_and_hides_the_answer():
    at = page_for("copy")
    order = list(main_path(at))
    ask = [i for i, e in enumerate(order) if getattr(e, "key", None) == "lab_why_predict_copy_guess"]
    charts = [i for i, e in enumerate(order) if kind(e) == "vega_lite_chart"]
    assert len(ask) == 1 and len(charts) >= 2
    assert charts[0] < ask[0] < charts[1], "the section's Predict must come after the key chart above it and " \
                                           "before the section's first chart"
    assert [b for b in at.button if b.key == "lab_why_predict_copy_show"], "no “Show me the answer”"
    assert "`rope` goes from" not in page_text(at), "the answer shows before the student picks"


@pytest.mark.parametrize("task,query", [(task, {}) for task in lab.TASKS] + [("copy", {"lab_bos": "true",
                                                                                        "lab_mlp": "true"})])
def test_why_marks_right_what_the_readings_say(task, query):
    record = lab.stored(DATA, lab.Settings(task=task, bos="lab_bos" in query, mlp="lab_mlp" in query))
    rope = lab.readings(record)["rope"]
    at = assert_ok(open_page(PAGE, query={"lab_task": task, **query}, **{f"lab_why_predict_{task}_shown": True}))
    options = [r for r in at.radio if r.key == f"lab_why_predict_{task}_guess"][0].options
    right = [o for o in options if o.startswith(rope_under_the_gaps(rope))]
    assert len(right) == 1
    text = page_text(at)
    assert f"**The answer:** “{right[0]}”." in text
    assert (f"`rope` goes from {lab_page_spread(rope.past_4L)} to {lab_page_spread(rope.seen_gaps_past)} right past "
            f"position {record['settings']['L_train']}") in text


def test_the_first_token_task_says_what_it_needs():
    at = page_for("first")
    assert "the only query that reads nothing but itself" in page_text(at)


def lab_page_spread(t) -> str:
    """The page's “mean (lowest–highest)” in whole percent, written again here."""
    lo, hi = round(100 * t[1]), round(100 * t[2])
    return f"{100 * t[0]:.0f} %" + ("" if lo == hi else f" ({100 * t[1]:.0f} %–{100 * t[2]:.0f} %)")


def test_induction_with_two_layers_names_its_circuit():
    at = page_for("induction")
    at.button(key="lab_predict_induction_show").click().run()
    assert "Two layers allow that circuit" in page_text(at)


def test_the_variant_with_a_start_token_and_an_mlp_is_precomputed():
    for task in DATA["variants"]["bos+mlp"]:
        at = page_for(task, lab_bos="true", lab_mlp="true")
        assert not [b for b in at.button if b.key == "lab_train"]
        assert len(charts_of(at)) == 6


def test_the_smallest_setting_trains_live_and_is_kept():
    query = {"lab_layers": "1", "lab_L": "8", "lab_steps": "100"}
    at = page_for("induction", **query)
    assert not charts_of(at)
    assert any("Not precomputed" in i.value for i in at.info)
    at.button(key="lab_train").click()
    at.run(timeout=240)
    assert_ok(at)
    shown = charts_of(at)
    assert len(shown) == 6
    lengths = sorted({p["x"] for p in chart_data(shown[0], "points")})
    assert lengths == [float(x) for x in lab.Settings(L_train=8).test_lengths]
    seeds = {p["seed"] for p in chart_data(shown[0], "points")}
    assert len(seeds) == len(lab.LIVE_SEEDS) + 1 >= 6  # ≥ 5 seeds and their mean
    at.button(key="lab_predict_induction_show").click().run()
    assert "That needs two attention layers" in page_text(at)  # one layer cannot build an induction head
    again = page_for("induction", **query)
    assert len(charts_of(again)) == 6 and not [b for b in again.button if b.key == "lab_train"]


@pytest.mark.parametrize("task", lab.TASKS)
def test_the_extremes_train_or_say_why_not(task):
    """The heaviest setting: 2 layers, 4 heads, start token, MLP, 400 steps at length 16 is over the live budget
    and is refused with a note; 2,000 steps away from the precomputed settings too."""
    heavy = page_for(task, lab_layers="2", lab_L="16", lab_steps="400", lab_heads="4", lab_bos="true",
                     lab_mlp="true")
    assert "Too slow to train live" in page_text(heavy) and not charts_of(heavy)
    far = page_for(task, lab_L="8")
    assert "precomputed only for the default model" in page_text(far)


@pytest.mark.parametrize("query,says", [
    ({"lab_k": "99"}, "not usable; using 2"),
    ({"lab_L": "9"}, "not usable; using 16"),
    ({"lab_task": "reverse"}, "not usable; using copy"),
    ({"lab_steps": "1e9"}, "not usable; using 2000"),
    ({"lab_heads": "3"}, "not usable; using 1"),
    ({"lab_bos": "maybe"}, "Use true or false"),
])
def test_bad_links_fall_back_with_a_notice(query, says):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert says in page_text(at)


def test_every_lab_figure_is_valid_vega_lite_and_small():
    from posenc.charts import lab as charts
    from posenc.charts.spec import MAX_MARKS, validate

    for record in [*RECORD.values(), *DATA["variants"]["bos+mlp"].values()]:
        for fig in (charts.accuracy_figure(record), charts.position_figure(record), charts.attention_figure(record),
                    charts.gaps_figure(record), charts.loss_figure(record),
                    charts.angles_figure(lab.settings_from(record))):
            validate(fig)
            assert fig.description and all(t.num_rows <= MAX_MARKS for t in fig.datasets.values())


def test_the_live_loss_chart_keeps_its_description_and_layout_while_it_trains():
    """Redrawn at every tick of a live training: only the data and the reading (the latest losses) change."""
    from posenc.charts import lab as charts

    early = charts.live_loss_figure({"none": [2.5, 2.4]}, 16, 100)
    later = charts.live_loss_figure({"none": [2.5, 2.4, 2.2], "learned": [2.6]}, 16, 100)
    assert early.description == later.description and layout_of(early) == layout_of(later)
    assert later.reading == (f"Latest loss, of 100 steps: none {2.2:.3f} at step 3 and learned {2.6:.3f} at step 1. "
                             f"A uniform guess scores ln 16 = {math.log(16):.3f}.")
    assert charts.live_loss_figure({"none": []}, 16, 100).reading.startswith("No step has finished yet.")


# ---------------------------------------------------------------- a real browser


def test_browser_trains_a_setting_and_the_charts_change():
    from playwright.sync_api import sync_playwright

    from harness.browser import launch, streamlit_server, wait_done

    LONG = 300_000  # ms: generous, for a shared machine under load (no timing is asserted)

    with streamlit_server(timeout=LONG / 1000) as base, sync_playwright() as p:
        browser = launch(p)
        try:
            ctx = browser.new_context(viewport={"width": 1366, "height": 768})
            ctx.set_default_timeout(LONG)
            page = ctx.new_page()
            page.goto(f"{base}/lab")
            wait_done(page, timeout=LONG)
            charts = page.locator("[data-testid=stVegaLiteChart]")
            charts.first.wait_for()
            before = charts.first.screenshot(animations="disabled")
            page.goto(f"{base}/lab?lab_layers=1&lab_L=8&lab_steps=100")
            wait_done(page, timeout=LONG)
            page.get_by_role("button", name="Train").click()
            page.locator("[data-testid=stProgress]").wait_for(timeout=LONG)
            page.locator("[data-testid=stVegaLiteChart]").nth(1).wait_for(timeout=LONG)  # the second tab-visible chart
            wait_done(page, timeout=LONG)
            assert page.locator("[data-testid=stException]").count() == 0
            after = page.locator("[data-testid=stVegaLiteChart]").first.screenshot(animations="disabled")
            assert after != before, "the accuracy chart did not change"
        finally:
            browser.close()

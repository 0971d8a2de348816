"""The lab page: AppTest at the defaults (read from data/lab_results.json) and at the extremes (trained live),
and a real browser that trains a setting, sees the charts change, and sees a second training queued.

Expected numbers are recomputed here from the data file or from posenc.lab, never copied from the page.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from conftest import assert_ok, chart_specs, charts_of, open_page, page_text
from streamlit.testing.v1 import AppTest

from posenc import lab

PAGE = "lessons/lab.py"
ROOT = Path(__file__).resolve().parent.parent
RECORD = json.loads((ROOT / "data" / "lab_results.json").read_text(encoding="utf-8"))["experiments"]
DEFAULT = lab.Settings()


def chart_data(chart, name: str) -> list[dict]:
    """A chart's dataset ``name`` as records (Streamlit ships each one as Arrow IPC)."""
    for ds in chart.proto.datasets:
        if ds.name == name:
            return pa.ipc.open_stream(io.BytesIO(ds.data.data)).read_all().to_pylist()
    raise KeyError(name)


def mean_at(record: dict, scheme: str, length: int) -> float | None:
    i = record["test_lengths"].index(length)
    values = [run["accuracy"][i] for run in record["runs"][scheme]]
    return None if None in values else sum(values) / len(values)


@pytest.fixture(scope="module")
def default_page() -> AppTest:
    at = open_page(PAGE)
    assert_ok(at)
    return at


# ---------------------------------------------------------------- defaults: the precomputed file


def test_defaults_open_on_the_precomputed_results(default_page):
    at = default_page
    assert at.title[0].value == "Put it to the test"
    assert not [b for b in at.button if b.key == "lab_train"], "the defaults need no training"
    shown = chart_specs(at)
    assert len(shown) == 3
    for spec in shown:
        assert spec.get("description"), "every chart says what it shows"


def test_the_accuracy_chart_holds_the_files_numbers_and_learned_ends_at_n_max(default_page):
    record = RECORD["copy"]
    acc = charts_of(default_page)[0]
    points = chart_data(acc, "points")
    by = {(p["scheme"], p["length"]): p for p in points}
    for scheme in lab.SCHEMES:
        for length in record["test_lengths"]:
            expected = mean_at(record, scheme, length)
            if expected is None:
                assert (scheme, length) not in by  # no point, not a zero
            else:
                assert by[(scheme, length)]["accuracy"] == pytest.approx(expected, abs=1e-12)
    learned = [p["length"] for p in points if p["scheme"] == "learned"]
    assert max(learned) == DEFAULT.n_max == 2 * DEFAULT.L_train
    assert all(0 <= p["lowest"] <= p["accuracy"] <= p["highest"] <= 1 for p in points)


def test_verdicts_and_prose_follow_the_data(default_page):
    text = page_text(default_page)
    record = RECORD["copy"]
    L = DEFAULT.L_train
    for scheme in ("sinusoidal", "rope", "alibi"):
        a, b = mean_at(record, scheme, 4 * L), mean_at(record, scheme, L)
        works = b > 2 / DEFAULT.vocab and a >= 0.9 * b
        word = "Holds" if works else "Does not hold"
        lines = [m.value for m in default_page.markdown if f"at length {4 * L} against" in m.value
                 and ({"sinusoidal": "Sinusoids", "rope": "RoPE", "alibi": "ALiBi"}[scheme]) in m.value]
        assert len(lines) == 1 and f"**{word}**" in lines[0], lines
        assert f"{100 * a:.0f} % at length {4 * L}" in lines[0]
    assert f"nothing past n_max = {DEFAULT.n_max}" in text
    assert "Predict." in text


def test_the_predict_question_reveals_the_best_scheme_at_4x(default_page):
    record = RECORD["copy"]
    at4 = {s: mean_at(record, s, 4 * DEFAULT.L_train) for s in lab.SCHEMES}
    best = max((s for s in at4 if at4[s] is not None), key=at4.get)
    at = default_page
    wrong = next(s for s in lab.SCHEMES if s != best)
    at.radio(key="lab_predict_4x_guess").set_value(wrong).run()
    assert_ok(at)
    text = page_text(at)
    assert "Not quite" in text and f"**{best}**" in text


def test_the_first_token_task_is_precomputed_too():
    at = open_page(PAGE, query={"lab_task": "first"})
    assert_ok(at)
    assert len(charts_of(at)) == 3
    record = RECORD["first"]
    none_L = mean_at(record, "none", DEFAULT.L_train)
    word = "Does not hold" if none_L >= 0.9 else "Holds"
    line = next(m.value for m in at.markdown if "With no position encoding the model cannot learn" in m.value)
    assert f"**{word}**" in line


def test_the_attention_maps_outline_the_answer_cells(default_page):
    maps = charts_of(default_page)[2]
    cells = chart_data(maps, "cells")
    n = 2 * DEFAULT.L_train
    answers = {(c["query"], c["key"]) for c in cells if c["cell"] == "answer" and c["scheme"] == "rope"}
    assert answers == {(i, i - DEFAULT.k) for i in range(DEFAULT.k + 1, n + 1)}  # 1-based, k back
    weights = [c for c in cells if c["cell"] == "weight" and c["scheme"] == "none"]
    assert len(weights) == n * (n + 1) // 2  # the causal triangle only
    rows = {}
    for c in weights:
        rows[c["query"]] = rows.get(c["query"], 0) + c["weight"]
    # each row of weights sums to 1, up to the rounding to 3 decimals of each of its entries
    assert all(abs(total - 1) <= 0.0005 * q + 1e-9 for q, total in rows.items())


@pytest.mark.parametrize("task", lab.TASKS)
def test_every_lab_figure_is_valid_vega_lite_and_small(task):
    from posenc.charts import lab as lab_charts
    from posenc.charts.spec import MAX_MARKS, validate

    record = RECORD[task]
    figures = [lab_charts.accuracy_figure(record), lab_charts.loss_figure(record)]
    figures += [lab_charts.attention_figure(record, layer) for layer in range(record["settings"]["n_layers"])]
    for fig in figures:
        validate(fig)
        assert fig.description and fig.rows < MAX_MARKS


def test_direct_labels_are_pushed_apart():
    from posenc.charts.lab import dodge

    out = dodge([0.5, 0.0, 0.01, 0.0], 0.1)
    assert out[0] == 0.5  # far from the others: untouched
    assert sorted(out) == pytest.approx([0.0, 0.1, 0.2, 0.5])


# ---------------------------------------------------------------- extremes: trained live


SMALLEST = {"lab_task": "copy", "lab_k": "3", "lab_layers": "1", "lab_L": "8", "lab_steps": "100"}


def test_smallest_setting_trains_live_when_asked():
    at = open_page(PAGE, query=SMALLEST)
    assert_ok(at)
    assert not charts_of(at)
    assert any("not precomputed" in i.value for i in at.info)
    at.button(key="lab_train").click().run()
    assert_ok(at)
    shown = charts_of(at)
    assert len(shown) == 3
    lengths = sorted({p["length"] for p in chart_data(shown[0], "points")})
    assert lengths == [float(x) for x in lab.Settings(L_train=8).test_lengths]
    assert lengths[0] == 4 and lengths[-1] == 32
    # A second session with the same link finds the result kept: no button, charts at once.
    again = open_page(PAGE, query=SMALLEST)
    assert_ok(again)
    assert len(charts_of(again)) == 3 and not [b for b in again.button if b.key == "lab_train"]


def test_largest_setting_trains_live():
    """The slowest setting the page allows: two layers, the longest training length, the most steps, k = 1."""
    at = open_page(PAGE, query={"lab_task": "copy", "lab_k": "1", "lab_layers": "2", "lab_L": "16",
                                "lab_steps": "400"})
    assert_ok(at)
    at.button(key="lab_train").click()
    at.run(timeout=180)
    assert_ok(at)
    assert len(charts_of(at)) == 3
    text = page_text(at)
    assert "1 back" in text


@pytest.mark.parametrize("query,says", [
    ({"lab_k": "99"}, "not usable; using 2"),
    ({"lab_L": "9"}, "not usable; using 16"),
    ({"lab_task": "reverse"}, "not usable; using copy"),
    ({"lab_steps": "1e9"}, "not usable; using 400"),
])
def test_bad_links_fall_back_with_a_notice(query, says):
    at = open_page(PAGE, query=query)
    assert_ok(at)
    assert says in page_text(at)


# ---------------------------------------------------------------- a real browser


def test_browser_trains_a_setting_and_the_charts_change_and_a_second_training_queues():
    from playwright.sync_api import sync_playwright

    from browser import launch, streamlit_server, wait_done

    LONG = 300_000  # ms: generous, for a shared machine under load (no timing is asserted)

    def new_page():
        ctx = browser.new_context(viewport={"width": 1400, "height": 900})
        ctx.set_default_timeout(LONG)
        ctx.set_default_navigation_timeout(LONG)
        return ctx.new_page()

    with streamlit_server(timeout=LONG / 1000) as base, sync_playwright() as p:
        browser = launch(p)
        try:
            one = new_page()
            one.goto(f"{base}/lab")
            wait_done(one, timeout=LONG)
            charts = one.locator("[data-testid=stVegaLiteChart]")
            assert charts.count() == 3
            before = charts.first.screenshot(animations="disabled")

            # Switch to one layer: not precomputed, so the charts give way to a Train button.
            one.locator("[data-testid=stRadio]").filter(has_text="Layers").get_by_text("1", exact=True).click()
            one.wait_for_function("() => new URL(location.href).searchParams.get('lab_layers') === '1'",
                                  timeout=LONG)
            wait_done(one, timeout=LONG)
            train = one.get_by_role("button", name="Train")
            train.wait_for(timeout=LONG)
            assert one.locator("[data-testid=stVegaLiteChart]").count() == 0

            # A second student asks for another setting at the same moment: it has to wait its turn.
            two = new_page()
            two.goto(f"{base}/lab?lab_layers=1&lab_steps=200")
            wait_done(two, timeout=LONG)
            train.click()
            one.locator("[data-testid=stProgress]").wait_for(timeout=LONG)
            two.get_by_role("button", name="Train").click()
            two.get_by_text("queued: another training is running", exact=False).wait_for(timeout=LONG)

            one.locator("[data-testid=stVegaLiteChart]").nth(2).wait_for(timeout=LONG)
            wait_done(one, timeout=LONG)
            assert one.locator("[data-testid=stException]").count() == 0
            after = one.locator("[data-testid=stVegaLiteChart]").first.screenshot(animations="disabled")
            assert after != before, "the accuracy chart did not change"

            two.locator("[data-testid=stVegaLiteChart]").nth(2).wait_for(timeout=LONG)
            wait_done(two, timeout=LONG)
            assert two.locator("[data-testid=stException]").count() == 0
        finally:
            browser.close()

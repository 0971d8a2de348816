"""The fixes page's in-chart closed forms against posenc: the raw index (the first word's position is a slider inside
the weights map, ``posenc.charts.fixes.START``), index ÷ length (the compared length N, a slider inside the strip,
``LENGTH``) and multiplying (the key's position m, ``POSITION``). The Vega transforms, read from the built figures,
are run in Python (``conftest.run_transforms``, the map's grouped joinaggregates and aggregate included)
over the rows the chart ships, at several values, and compared with ``posenc.fixes`` (``raw_index_demo``,
``index_over_length``, ``ratio_demo``, ``multiply_demo``); a link's value opens the chart there and the page's
answer and checks speak of it (the start's: tests/test_page_fixes.py)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import (
    assert_ok,
    assert_same_wherever_it_opens,
    chart_spec,
    charts_of,
    layout_of,
    open_page,
    page_text,
    rows_of,
    run_transforms,
    spec_layers,
    spec_params,
    tab_index,
    transforms_over,
    vega_eval,
    verdict,
    verdicts,
)
from posenc import chapter
from posenc.charts import fixes as fc
from posenc.charts.spec import word_labels
from posenc.core import tokenize
from posenc.fixes import index_over_length, one_hot_demo, ratio_demo
from posenc.sections import fixes as fixes_sections

PAGE = "lessons/fixes.py"


SENTENCES = ["the cat chased the mouse", "hi there", " ".join(f"w{i}" for i in range(64))]


def figure(sentence: str):
    """The index ÷ length strip as the page builds it, opening at the chapter's hundred words."""
    r, strip, _ = fixes_sections.ratio(sentence, chapter.LENGTH_EXAMPLE[2])
    return tokenize(sentence), r, strip


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("N", [fc.LENGTHS[0], 11, 100, 377, fc.LENGTHS[1]])
def test_the_strip_draws_every_code_p_over_n_of_both_sentences(sentence, N):
    words, r, fig = figure(sentence)
    n = len(words)
    rows = run_transforms(rows_of(fig, "codes"), transforms_over(fig.spec, "codes", "label"), {fc.LENGTH: N})
    mine = [x for x in rows if x["row"] == 0]
    theirs = [x for x in rows if x["row"] == 1]
    assert [x["p"] for x in mine] == list(range(1, n + 1)) and [x["p"] for x in theirs] == list(range(1, N + 1))
    np.testing.assert_allclose([x["code"] for x in mine], index_over_length(np.arange(1, n + 1), n)[:, 0])
    np.testing.assert_allclose([x["code"] for x in theirs], index_over_length(np.arange(1, N + 1), N)[:, 0])
    assert {x["label"] for x in mine} == {f"your sentence ({n} words)"}
    assert {x["label"] for x in theirs} == {f"a {N}-word sentence"}
    tracked = [x for x in rows if x["tracked"]]
    at = ratio_demo(n, N)
    assert [x["code"] for x in tracked] == pytest.approx([at.tracked_sentence, at.tracked_long])
    steps = run_transforms(rows_of(fig, "codes"), transforms_over(fig.spec, "codes", "step"), {fc.LENGTH: N})
    three = lambda v: vega_eval("format(v, '.3g')", params={"v": v})  # d3's .3g keeps its zeros: 0.500
    assert [x["step"] for x in steps if x["tracked"]] == [f"step 1/N = {three(at.step_sentence)}",
                                                          f"step 1/N = {three(at.step_long)}"]
    assert three(0.5) == "0.500" and three(1 / 377) == "0.00265"


def test_the_one_over_n_curve_spans_every_length_the_slider_reaches_and_marks_yours_and_the_chapters():
    r, _, curve = fixes_sections.ratio(SENTENCES[0], 377)
    rows = rows_of(curve, "gap")
    assert all(x["gap"] == pytest.approx(1 / x["N"]) for x in rows)
    assert rows[0]["N"] == 2 and rows[-1]["N"] >= fc.LENGTHS[1]
    assert {x["N"]: x["gap"] for x in rows_of(curve, "marked")} == {5: pytest.approx(r.step_sentence),
                                                                      100: pytest.approx(1 / 100)}
    assert layout_of(curve) == layout_of(fixes_sections.ratio(SENTENCES[0], 12)[2])  # N is not its business
    assert all(t.equals(fixes_sections.ratio(SENTENCES[0], 12)[2].datasets[k]) for k, t in curve.datasets.items())


def test_the_length_is_a_range_slider_in_the_strip_that_opens_at_the_chapters_hundred():
    _, _, fig = figure(SENTENCES[0])
    [param] = [p for node in [fig.spec, *fig.spec["layer"]] for p in node.get("params", []) if p["name"] == fc.LENGTH]
    assert param["value"] == chapter.LENGTH_EXAMPLE[2]
    assert param["bind"]["input"] == "range" and (param["bind"]["min"], param["bind"]["max"]) == fc.LENGTHS


@pytest.mark.parametrize("N", ["10", "5", "377"])
def test_a_link_opens_the_chart_at_its_length_and_the_answer_speaks_of_it(N):
    at = assert_ok(open_page(PAGE, query={fc.LENGTH: N, "fx_tab": "Divide by length"}, sentence="the cat chased "
                             "the mouse", fx_ratio_predict_shown=True))
    text = page_text(at)
    length = 100 if N == "5" else int(N)  # 5 is below the slider's end: the default, with a notice
    assert f"Where the chart opens, word 3 is 0.6 in your 5 words and {3 / length:.3g} in {length}" in text
    assert verdict(at, "the step to the previous word changes with the length")[0]
    if N == "5":
        assert any(fc.LENGTH in w.value for w in [*at.warning, *at.info])


# ---------------------------------------------------------------- multiplying: the key word's position m in the chart
def multiply_figure(sentence: str, d: int = 16, seed: int = 0):
    from posenc.fixes import fixes_inputs, multiply_demo

    inp = fixes_inputs(tokenize(sentence), d, seed)
    at_1 = multiply_demo(inp.X, inp.W, inp.word, inp.query, 1)
    return inp, fc.multiply_lines(at_1.scores_at_1, inp.tokens, inp.query, opening=1)


@pytest.mark.parametrize("sentence", SENTENCES[:2])
@pytest.mark.parametrize("m", [fc.POSITIONS[0], 2, 50, 613, fc.POSITIONS[1]])
def test_every_line_runs_from_position_1_to_m_and_ends_at_the_score_with_the_key_at_m(sentence, m):
    from posenc.fixes import multiply_demo

    inp, fig = multiply_figure(sentence)
    rows = run_transforms(rows_of(fig, "lines"), transforms_over(fig.spec, "lines", "score"), {fc.POSITION: m})
    at_m = multiply_demo(inp.X, inp.W, inp.word, inp.query, max(m, 2))  # a line needs two ends: m = 1 draws 1 … 2
    at_1 = multiply_demo(inp.X, inp.W, inp.word, inp.query, 1)
    ends = [r for r in rows if r["end"]]
    starts = [r for r in rows if not r["end"]]
    assert {r["p"] for r in ends} == {max(m, 2)} and {r["p"] for r in starts} == {1}
    np.testing.assert_allclose([r["score"] for r in ends], at_m.scores_at_m, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose([r["score"] for r in starts], at_1.scores_at_1, rtol=1e-9, atol=1e-12)
    [rule] = run_transforms(rows_of(fig, "m"), transforms_over(fig.spec, "m", "label"), {fc.POSITION: m})
    assert rule["p"] == m and rule["label"] == f"m = {m}: every score × {m}"


@pytest.mark.parametrize("m", ["60", "1", "1000"])
def test_a_link_opens_the_multiply_chart_at_its_m_and_the_answer_speaks_of_it(m):
    at = assert_ok(open_page(PAGE, query={fc.POSITION: m}, fx_multiply_predict_shown=True))
    text = page_text(at)
    if m == "1":
        assert "The chart opens at m = 1: nothing is scaled yet" in text
    else:
        assert f"Where the chart opens, at m = {int(m):,}," in text and f"{int(m):,} times as large" in text
    assert verdict(at, f"every score with it is multiplied by {m}")[0]


# ---------------------------------------------------------------- the raw index: the first word's position in the chart
RAW_SENTENCES = [chapter.SENTENCE, "hi there", "the cat saw the", " ".join(f"w{i}" for i in range(64))]
RAW_STARTS = [fc.STARTS[0], 2, 40, chapter.RAW_POSITION, 1234, fc.STARTS[1]]


def raw_figure(sentence: str, d: int, seed: int, opening: int = chapter.RAW_POSITION):
    """The weights map as the page builds it (the section's own call), opening at ``opening``."""
    from posenc.fixes import fixes_inputs

    return fixes_inputs(tokenize(sentence), d, seed), fixes_sections.raw_index(sentence, d, seed, opening).figs["weights"]


@pytest.mark.parametrize("sentence,d,seed", [(RAW_SENTENCES[0], 64, 0), (RAW_SENTENCES[1], 3, 1),
                                             (RAW_SENTENCES[2], 16, 2), (RAW_SENTENCES[3], 512, 0)])
@pytest.mark.parametrize("start", RAW_STARTS)
def test_the_weights_map_is_the_softmax_of_each_querys_scores_at_every_start(sentence, d, seed, start):
    """Both scores, at every start: each cell's weight is posenc's (softmax of (q·k + pᵢ·pⱼ)/√d, or of q·k/√d),
    each label the position and the word, and the line above the map counts the queries whose largest weight is
    on the last key as numpy's argmax does (the first of equal scores: two copies of a word tie without the
    index)."""
    from posenc.fixes import raw_index_demo

    inp, fig = raw_figure(sentence, d, seed)
    raw = raw_index_demo(inp.X, inp.W, start)
    n = len(inp.tokens)
    for scores, expected in zip(fc.SCORES, (raw.weights_without, raw.weights_with)):
        params = {fc.START: start, fc.SCORES_PICK: scores}
        cells = run_transforms(rows_of(fig, "weights"), transforms_over(fig.spec, "weights", "key"), params)
        got = np.zeros((n, n))
        for c in cells:
            got[c["qi"], c["ki"]] = c["weight"]
        assert np.all(np.isfinite(got))
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-15)
        assert [c["key"] for c in cells[:n]] == word_labels(inp.tokens, start=start)
        assert [c["query"] for c in cells[::n]] == word_labels(inp.tokens, start=start)
        [note] = run_transforms(rows_of(fig, "weights"), transforms_over(fig.spec, "weights", "note"), params)
        wins = int(np.sum(np.argmax(expected, axis=1) == n - 1))
        assert note["note"] == f"last key on top for {wins} of {n} queries"
        if scores == fc.SCORES[1]:
            assert wins == raw.last_wins


def test_two_copies_of_the_last_word_tie_without_the_index_and_the_first_copy_counts():
    """“the cat saw the”: without the index both “the” keys score alike for every query, so no query's largest
    weight is the last key's alone (numpy's argmax, the page's count, takes the first) — the line says 0."""
    inp, fig = raw_figure(RAW_SENTENCES[2], 16, 2)
    params = {fc.START: 1, fc.SCORES_PICK: fc.SCORES[0]}
    [note] = run_transforms(rows_of(fig, "weights"), transforms_over(fig.spec, "weights", "note"), params)
    assert note["wins"] == 0 and note["note"] == "last key on top for 0 of 4 queries"


def test_the_start_is_a_range_slider_in_the_map_that_opens_at_the_chapters_500_and_the_data_do_not_move():
    _, fig = raw_figure(chapter.SENTENCE, 64, 0)
    params = {p["name"]: p for node in [fig.spec, *fig.spec["layer"]] for p in node.get("params", [])}
    opens = {p["name"]: p.get("value") for p in spec_params(fc.weights_spec())}  # what the page reads
    assert params[fc.START]["value"] == chapter.RAW_POSITION == opens[fc.START]
    assert params[fc.START]["bind"]["input"] == "range"
    assert (params[fc.START]["bind"]["min"], params[fc.START]["bind"]["max"]) == fc.STARTS
    assert params[fc.SCORES_PICK]["bind"]["input"] == "radio" and params[fc.SCORES_PICK]["value"] == fc.SCORES[1]
    for elsewhere in (1, 1234, fc.STARTS[1]):  # the same map wherever it opens: only its reading names the start
        _, other = raw_figure(chapter.SENTENCE, 64, 0, elsewhere)
        assert layout_of(other) == layout_of(fig)
        assert all(t.equals(other.datasets[k]) for k, t in fig.datasets.items())
        assert other.reading.startswith(f"The chart opens with the first word at position {elsewhere:,}.")


# ---------------------------------------------------------------- one-hot: the width N and the position p in the chart
WIDTHS = [fc.WIDTHS[0], 2, 5, fc.WIDTH_OPENS, 12, fc.SHOWN, fc.SHOWN + 1, 777, fc.WIDTHS[1]]
PASTS = [fc.PASTS[0], 3, fc.PAST_OPENS, fc.SHOWN, 1200, fc.PASTS[1]]


def onehot_figure(sentence: str, width: int = fc.WIDTH_OPENS, past: int = fc.PAST_OPENS):
    """The one-hot chart as the page builds it (the section's own call), opening at N = ``width``, p = ``past``."""
    return tokenize(sentence), fixes_sections.onehot(sentence, width, past)[1]


def _asked_layer(spec: dict) -> dict:
    [first, *_] = [layer for layer in spec_layers(spec) if {"filter": fc.EXPR_OH_ASKED} in layer.get("transform", [])]
    return first


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("N", WIDTHS)
@pytest.mark.parametrize("p", [fc.PASTS[0], fc.PAST_OPENS, 1200])
def test_the_one_hot_cells_are_posencs_codes_and_distances_at_every_width(sentence, N, p):
    """The browser keeps the grid's cells within N (positions 1 … min(N, SHOWN)): each row's code is posenc's
    one-hot row (a 1 in its own column), each distance is posenc's ‖e_p − e_q‖, each row is named by the position
    and your word there; the row outlined is p's, when p is drawn."""
    from posenc.fixes import one_hot

    words, fig = onehot_figure(sentence)
    oh = one_hot_demo(len(words), N, p)
    k = min(N, fc.SHOWN)
    cells = run_transforms(rows_of(fig, "grid"), transforms_over(fig.spec, "grid", "panel"),
                           {fc.WIDTH: N, fc.PAST: p})
    assert len(cells) == k * k == oh.shown ** 2
    code, dist = np.full((k, k), np.nan), np.full((k, k), np.nan)
    for c in cells:
        code[c["p"] - 1, c["q"] - 1], dist[c["p"] - 1, c["q"] - 1] = c["code"], c["distance"]
    np.testing.assert_array_equal(code, one_hot(np.arange(1, k + 1), N)[:, :k])
    np.testing.assert_allclose(dist, oh.distances, rtol=0, atol=1e-12)
    labels = word_labels(words)
    assert [c["row"] for c in cells[::k]] == [labels[i] if i < len(words) else str(i + 1) for i in range(k)]
    asked = run_transforms(rows_of(fig, "grid"), _asked_layer(fig.spec)["transform"], {fc.WIDTH: N, fc.PAST: p})
    assert [(c["p"], c["q"]) for c in asked] == ([(p, q) for q in range(1, k + 1)] if p <= k else [])
    assert (oh.past_error is None) == (p <= N)


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("N", WIDTHS)
@pytest.mark.parametrize("p", PASTS)
def test_the_lines_under_the_map_say_whether_p_has_a_code_and_the_sentence_fits(sentence, N, p):
    """The three lines under the map, live: p's code or that it is past N (as posenc's one_hot_demo finds), whether
    your words fit in N columns, how many of the N positions are drawn."""
    words, fig = onehot_figure(sentence)
    oh = one_hot_demo(len(words), N, p)
    [note] = run_transforms(rows_of(fig, "notes"), transforms_over(fig.spec, "notes", "shown"),
                            {fc.WIDTH: N, fc.PAST: p})
    assert note["past"] == (f"p = {p:,} is past column N = {N:,}: no code" if oh.past_error else
                            f"p = {p:,} → a 1 in column {p:,} of N = {N:,}")
    if oh.past_error is None:
        assert oh.past_code[p - 1] == 1 and oh.past_code.sum() == 1
    fits = "fit in" if oh.sentence_error is None else "do not fit in"
    assert note["fit"] == f"your {len(words)} words {fits} N = {N:,} column{'s' if N > 1 else ''}"
    assert note["shown"] == (f"positions 1 … {fc.SHOWN} of N = {N:,} shown" if oh.shown < N else "")


def test_width_and_position_are_range_sliders_in_the_chart_that_open_at_8_and_9():
    _, fig = onehot_figure(SENTENCES[0])
    params = {p["name"]: p for p in spec_params(fig.spec)}
    opens = {p["name"]: p.get("value") for p in spec_params(fc.onehot_spec())}  # what the page reads
    for name, ends, value in ((fc.WIDTH, fc.WIDTHS, 8), (fc.PAST, fc.PASTS, 9)):
        assert params[name]["value"] == value == opens[name]
        assert params[name]["bind"]["input"] == "range" and params[name]["bind"]["step"] == 1
        assert (params[name]["bind"]["min"], params[name]["bind"]["max"]) == ends
    assert fig.rows <= 1000  # drawn as SVG (spec.CANVAS_ROWS), far under spec.MAX_MARKS


@pytest.mark.parametrize("query,N,p,unusable", [
    ({"fx_width": "1000", "fx_past": "1200"}, 1000, 1200, ()), ({"fx_width": "3"}, 3, 9, ()),
    ({"fx_past": "4"}, 8, 4, ()), ({"fx_width": "0", "fx_past": "2001"}, 8, 9, ("fx_width", "fx_past")),
    ({"fx_width": "2.5", "fx_past": "nan"}, 3, 9, ("fx_past",)),  # 2.5 snaps to the slider's step, as it would
    ({"fx_width": "64", "fx_past": "64"}, 64, 64, ()), ({"fx_width": "abc"}, 8, 9, ("fx_width",)),
])
def test_a_link_opens_the_one_hot_chart_at_its_n_and_p_and_the_answer_speaks_of_it(query, N, p, unusable):
    """?fx_width=…&fx_past=… (an old link's keys too) open the chart there: its sliders' values, the answer and the
    checks give those numbers, said to be where the chart opens; a value the slider cannot take opens at the
    default with a notice."""
    at = assert_ok(open_page(PAGE, query=query, fx_onehot_predict_shown=True))
    text = page_text(at)
    [chart] = [c for c in charts_of(at) if any(q["name"] == fc.WIDTH for q in spec_params(chart_spec(c)))]
    seeded = {q["name"]: q["value"] for q in spec_params(chart_spec(chart)) if q["name"] in (fc.WIDTH, fc.PAST)}
    assert seeded == {fc.WIDTH: N, fc.PAST: p}
    assert tab_index(at) == 2
    if p > N:
        assert f"Where the chart opens, position {p:,} is past column {N:,}: it has no code at all." in text
        assert f"asking for position {p:,} in a table of width {N:,}" in verdict(at, "has no encoding")[1]
    else:
        assert f"Where the chart opens, position {p:,} → a 1 in column {p:,} of {N:,}." in text
        assert not [v for v in verdicts(at) if "has no encoding" in v[1]]
    assert ("Your 5 words fit in its" in text) == (N >= 5)
    assert ("Your 5-word sentence does not fit" in text) == (N < 5)
    if N >= 5:
        assert verdict(at, "neighbours sit as far apart as strangers")[1].endswith(f"(where the chart opens, N = {N:,})")
    warned = [w.value for w in at.warning if "was not usable" in w.value]
    assert warned == [f"The link's value for “{name}” was not usable; using {8 if name == fc.WIDTH else 9}."
                      for name in unusable]


def test_the_one_hot_chart_sends_the_same_data_wherever_it_opens():
    def pick(at):
        [chart] = [c for c in charts_of(at) if any(q["name"] == fc.WIDTH for q in spec_params(chart_spec(c)))]
        return chart

    assert_same_wherever_it_opens(PAGE, fc.WIDTH, ["8", "1", "31", "1000"], pick)
    assert_same_wherever_it_opens(PAGE, fc.PAST, ["9", "1", "2000"], pick)

"""The in-chart picks of “What this finally explains” and of RoPE's score window, checked against posenc: each
chart's own filters (read from its spec) run by the Python mirror of Vega's expressions over the data it ships,
at every value its input offers, give exactly the weights or scores ``posenc`` computes for that choice."""

from __future__ import annotations

import numpy as np
import pytest

import posenc
from conftest import own_params, run_transforms
from posenc import chapter
from posenc.charts import explains as ec
from posenc.charts import rope as rc
from posenc.charts.spec import records, word_labels
from posenc.explains import explains_demo
from posenc.rope_demo import score_window


def copies_figure(tokens, d, seed):
    res = explains_demo(tokens, d, seed)
    return res, records(ec.copy_weights({s: r.weights for s, r in res.runs.items()}, tokens, res.copies, res.query))


@pytest.mark.parametrize("sentence,d,seed", [(chapter.SENTENCE, 64, 0), (chapter.SENTENCE, 3, 1),
                                             ("a b a c b a", 8, 2), ("la la", 2, 0)])
def test_copy_bars_at_every_query_are_posencs_weights(sentence, d, seed):
    tokens = posenc.tokenize(sentence)
    res, spec = copies_figure(tokens, d, seed)
    bars = spec["layer"][0]
    [param] = own_params(spec)
    assert param["name"] == ec.QUERY and param["value"] == res.query + 1
    for query in range(1, len(tokens) + 1):
        rows = run_transforms(spec["datasets"]["main"], bars["transform"], {ec.QUERY: query})
        for s, r in res.runs.items():
            drawn = [row["weight"] for row in rows if row["scheme"] == s]
            assert drawn == pytest.approx(r.weights[query - 1, res.copies].tolist(), abs=0)
        # the labels layer shows the same bars: each copy's position and its weight, to three places
        labels = run_transforms(spec["datasets"]["main"], spec["layer"][1]["transform"], {ec.QUERY: query})
        assert [row["label"] for row in labels] == [f"{row['copy']}\n{row['weight']:.3f}" for row in rows]


@pytest.mark.parametrize("d", [64, 3])
def test_scramble_bars_for_every_scheme_are_posencs_weights(d):
    tokens = posenc.tokenize(chapter.SENTENCE)
    res = explains_demo(tokens, d, 0)
    fig = ec.scramble_weights({s: r.weights[res.query] for s, r in res.runs.items()},
                              {s: r.weights_scrambled[res.query_scrambled] for s, r in res.runs.items()},
                              tokens, res.order, word_labels(tokens)[res.query], scheme="learned table")
    spec = records(fig)
    [param] = own_params(spec)
    assert param["name"] == ec.SCHEME and param["bind"]["options"] == list(res.runs)
    slot_of = np.argsort(res.order)
    for s, r in res.runs.items():
        rows = run_transforms(spec["datasets"]["main"], spec["transform"], {ec.SCHEME: s})
        original = [row["weight"] for row in rows if row["sentence"] == ec.SENTENCES[0]]
        scrambled = [row["weight"] for row in rows if row["sentence"] == ec.SENTENCES[1]]
        assert original == r.weights[res.query].tolist()
        assert scrambled == r.weights_scrambled[res.query_scrambled][slot_of].tolist()


@pytest.mark.parametrize("start,d", [(1, 64), (999_000, 8), (0, 2)])
def test_score_window_for_each_scheme_is_posencs_matrix(start, d):
    tokens = posenc.tokenize(chapter.SENTENCE)
    w = score_window(tokens, 2, 1, d, 0, start)
    spec = records(rc.score_window(w.positions, w.rope_scores, w.additive_scores))
    [param] = own_params(spec)
    assert param["name"] == rc.SCHEME
    for scheme, matrix in zip(rc.SCHEMES, (w.rope_scores, w.additive_scores)):
        rows = run_transforms(spec["datasets"]["main"], spec["transform"], {rc.SCHEME: scheme})
        got = np.array([row["score"] for row in rows]).reshape(matrix.shape)
        assert np.array_equal(got, matrix)
        assert [row["m"] for row in rows[:: len(w.positions)]] == w.positions.tolist()

"""AppTest of the learned-table page: defaults, every control's extremes, bad values a student can reach."""

from __future__ import annotations

import pytest
from conftest import charts_of, open_page, page_text

from posenc.learned import independence, simulate_training
from posenc.trained import cosine_by_offset, load_minilm_table

PAGE = "lessons/learned.py"


def _ok(at) -> str:
    assert not at.exception, [e.value for e in at.exception]
    return page_text(at)


def test_defaults_show_the_chapter_example():
    at = open_page(PAGE)
    text = _ok(at)
    assert len(charts_of(at)) >= 9
    # the chapter's "token 1025": nothing to look up, said plainly
    assert any("no row 1025" in e.value and "1 … 1024" in e.value for e in at.error)
    # numbers computed by posenc, not typed
    tr = simulate_training(1024, 64, 0, 100_000, 32.0)
    assert "{:,}".format(int(tr.updates[0])) in text
    assert "updates of row 1024 = `{:,}`".format(int(tr.updates[-1])) in text
    ind = independence(1024, 64, 0)
    assert "cos(P3, P4) = `{:+.3f}`".format(ind.cos_ab) in text
    assert "cos(P3, P900) = `{:+.3f}`".format(ind.cos_ac) in text
    c1 = cosine_by_offset(load_minilm_table(), 1)[1]
    assert "{:.3f}".format(c1) in text
    assert "no row 513" in text and "Apache-2.0" in text and "PROVENANCE.md" in text
    latex = " ".join(e.value for e in at.latex)
    assert r"x_p = E[w_p] + P[p]" in latex and r"n_r" in latex and r"\cos(u, v)" in latex


def test_every_chart_has_tooltips_and_stays_small():
    at = open_page(PAGE)
    _ok(at)
    for c in charts_of(at):
        assert '"tooltip"' in c.proto.spec
        assert sum(len(ds.data.data) for ds in c.proto.datasets) < 150_000


def test_position_inside_the_table_is_found():
    at = open_page(PAGE)
    at.slider(key="lt_pos").set_value(1024).run()
    _ok(at)
    assert not at.error
    assert any("Row 1024 exists" in s.value for s in at.success)


@pytest.mark.parametrize("query", [
    {"lt_nmax": "8", "lt_pos": "4096"},
    {"lt_nmax": "2048", "lt_pos": "1"},
    {"lt_sent": "1000", "lt_median": "2"},
    {"lt_sent": "1000000", "lt_median": "512", "lt_nmax": "2048", "d": "512"},
    {"d": "2", "lt_nmax": "8", "lt_pos": "9"},
    {"d": "3"},  # odd widths are fine here: no pairs needed
])
def test_extremes_give_no_traceback(query):
    at = open_page(PAGE, query=query)
    _ok(at)
    assert charts_of(at)


def test_sentence_longer_than_the_table_is_cut_with_a_message():
    at = open_page(PAGE, query={"lt_nmax": "8"}, sentence="one two three four five six seven eight nine ten")
    _ok(at)
    assert any("words 9 … 10 have no position row" in w.value for w in at.warning)


@pytest.mark.parametrize("query", [{"lt_pos": "abc"}, {"lt_pos": "99999"}, {"lt_nmax": "7"},
                                   {"lt_sent": "-5"}, {"lt_median": "1e309"}])
def test_garbage_links_are_clamped_with_a_notice(query):
    at = open_page(PAGE, query=query)
    _ok(at)
    assert at.warning or at.info


def test_student_text_is_never_markdown():
    at = open_page(PAGE, sentence="the ![x](http://a/b.png) cat $x$")
    _ok(at)
    assert not any("http://a/b.png" in m.value for m in at.markdown)


def test_predict_reveal():
    at = open_page(PAGE)
    at.radio(key="learned_predict_guess").set_value("The last rows").run()
    at.toggle(key="learned_predict_reveal").set_value(True).run()
    _ok(at)
    assert any(s.value == "Right." for s in at.success)

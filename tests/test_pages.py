"""What every page must have (the page skeleton, frame/skeleton.py), checked on every page of the page list.

One test per property, parametrised over ``frame.existing_pages()``; each page is opened through app.py
(AppTest), at its defaults unless the property needs otherwise:

- every chart has a non-empty ``description`` (its accessible name), the house config, and ≤ 5,000 data rows;
- every table is an Arrow table built from its columns (frame.table / frame.strip), never a pandas DataFrame;
- student text never goes through Markdown (a hostile sentence appears only in text, code, dataframes, charts);
- a Predict question comes before the chart that answers it (at least one chart after it, in document order),
  and the answer is not behind a reveal toggle;
- checks are verdicts in plain words (“✔ Holds — claim: measured”), no old ✓/✗ check lines;
- the h1 is the page list's title, headings go h1 → h2 → h3 without skipping;
- no page opens on an exception or an error box at its defaults.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.ipc  # noqa: F401  (pa.ipc)
import pytest
from conftest import (
    FAILS,
    HOLDS,
    OLD_CHECK_MARKS,
    VERDICT,
    assert_ok,
    chart_rows,
    chart_spec,
    charts_of,
    elements,
    kind,
    markdown_values,
    open_page,
)
from streamlit.testing.v1 import AppTest

import frame
from posenc.charts import spec as chart_style

PAGES = frame.existing_pages()
IDS = [p.url_path or "home" for p in PAGES]
MAX_ROWS = 5000  # the guide's limit per figure ("≤ 5,000 data rows per figure")

# A sentence a student could type or a link could carry: a remote image, inline math, raw HTML, bold, and a
# word no page prints by itself. None of it may reach an element the browser renders as Markdown.
HOSTILE_PARTS = ("![x](http://127.0.0.1:9/x.png)", "$x$", "<b>html</b>", "**bold**", "zyzzyva")
HOSTILE = "the cat zyzzyva chased ![x](http://127.0.0.1:9/x.png) $x$ the <b>html</b> **bold** mouse"

_opened: dict[str, AppTest] = {}


def at_defaults(info: frame.PageInfo) -> AppTest:
    """The page at its defaults, opened once per test session (properties only read it)."""
    if info.path not in _opened:
        _opened[info.path] = open_page(info.path)
    return _opened[info.path]


def in_order(at: AppTest) -> list:
    """The main area's elements in document order (blocks included)."""
    return list(elements(at))


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_opens_without_an_exception_or_an_error_box(info):
    at = at_defaults(info)
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_chart_has_a_description(info):
    at = assert_ok(at_defaults(info))
    for i, chart in enumerate(charts_of(at)):
        description = chart_spec(chart).get("description")
        assert isinstance(description, str) and description.strip(), f"chart {i + 1} has no description"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_chart_has_the_house_style(info):
    """Drawn through posenc.charts.spec.figure + frame.chart: the house text colour and legends below."""
    at = assert_ok(at_defaults(info))
    for i, chart in enumerate(charts_of(at)):
        config = chart_spec(chart).get("config", {})
        assert config.get("axis", {}).get("labelColor") == chart_style.TEXT, f"chart {i + 1}: no house config"
        assert config.get("legend", {}).get("orient") == "bottom", f"chart {i + 1}: legend not below"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_chart_ships_at_most_5000_rows(info):
    at = assert_ok(at_defaults(info))
    for i, chart in enumerate(charts_of(at)):
        rows = chart_rows(chart)
        assert rows <= MAX_ROWS, f"chart {i + 1} ({chart_spec(chart).get('description', '')[:60]!r}): {rows} rows"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_table_is_sent_as_built_from_its_columns(info):
    """Tables go through frame.table / frame.strip: one Arrow table built from the columns. A pandas DataFrame
    would carry pandas' schema metadata, and Streamlit would convert it column by column on every run."""
    at = assert_ok(at_defaults(info))
    for i, t in enumerate(list(at.dataframe) + list(at.table)):
        schema = pa.ipc.open_stream(getattr(t.proto, "arrow_data", t.proto).data).schema
        assert b"pandas" not in (schema.metadata or {}), f"table {i + 1} ({schema.names[:3]}) came from pandas"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_student_text_never_reaches_markdown(info):
    """The sentence comes in through a link (as a shared link would carry it)."""
    at = open_page(info.path, query={"sentence": HOSTILE})
    assert_ok(at)
    assert at.text_input(key="sentence").value == HOSTILE  # the page really got the hostile sentence
    rendered = markdown_values(at)
    for part in HOSTILE_PARTS:
        leaks = [v for v in rendered if part in v]
        assert not leaks, f"{part!r} reached Markdown: {leaks[:3]}"


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_predict_comes_before_its_chart(info):
    at = assert_ok(at_defaults(info))
    order = in_order(at)
    predicts = [i for i, e in enumerate(order) if kind(e) == "markdown" and e.value.startswith("**Predict.**")]
    for i in predicts:
        assert any(kind(e) == "vega_lite_chart" for e in order[i + 1:]), \
            f"no chart after the Predict question {order[i].value[:80]!r}"
    # The answer is hidden until the student picks: no reveal toggle any more.
    reveal = [w.key for w in (*at.toggle, *at.checkbox, *at.button) if str(w.key or "").endswith("_reveal")]
    assert not reveal, reveal


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_every_check_is_a_verdict(info):
    at = assert_ok(at_defaults(info))
    old = [v for v in markdown_values(at) if any(mark in v for mark in OLD_CHECK_MARKS)]
    assert not old, f"old check lines remain: {old[:3]}"
    for m in at.markdown:
        if m.value.startswith((HOLDS, FAILS)):
            parsed = VERDICT.match(m.value)
            assert parsed, f"a verdict without “— claim: measured”: {m.value!r}"
            assert parsed["claim"].strip() and parsed["measured"].strip(), m.value


def heading_levels(at: AppTest) -> list[tuple[int, str]]:
    """(level, text) of every heading in the main area, in document order: st.title 1, st.header 2,
    st.subheader 3, and Markdown "#"-headings at their level."""
    levels = {"title": 1, "header": 2, "subheader": 3}
    out = []
    for e in elements(at):
        k = kind(e)
        if k in levels:
            out.append((levels[k], str(e.value)))
        elif k == "markdown" and str(e.value).lstrip().startswith("#"):
            hashes = len(str(e.value).lstrip()) - len(str(e.value).lstrip().lstrip("#"))
            out.append((hashes, str(e.value)))
    return out


@pytest.mark.parametrize("info", PAGES, ids=IDS)
def test_title_is_the_page_lists_and_headings_do_not_skip(info):
    at = assert_ok(at_defaults(info))
    levels = heading_levels(at)
    assert levels, "no heading at all"
    assert levels[0] == (1, info.title), f"the first heading is {levels[0]}, not the h1 {info.title!r}"
    assert [t for lvl, t in levels if lvl == 1] == [info.title], "more than one h1"
    for (prev, _), (lvl, text) in zip(levels, levels[1:]):
        assert lvl <= prev + 1, f"h{prev} → h{lvl} skips a level at {text[:60]!r}"


"""Every row of docs/HARDENING.md, checked: the page opens on that link with no exception and says what the
table says it says."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs

import pytest

import frame
from conftest import assert_ok, deep_link, page_text

DOC = Path(__file__).resolve().parent.parent / "docs" / "HARDENING.md"
ROW = re.compile(r"^\|\s*(\S+)\s*\|\s*`([^`]*)`\s*\|\s*([^|]+?)\s*\|\s*`([^`]*)`\s*\|\s*$")


def expand(text: str) -> str:
    text = re.sub(r"\{(\d+) words\}", lambda m: " ".join(f"w{i}" for i in range(int(m[1]))), text)
    return re.sub(r"\{(\d+) chars\}", lambda m: "a" * int(m[1]), text)


def rows() -> list[tuple[str, str, str, str]]:
    found = [ROW.match(line) for line in DOC.read_text(encoding="utf-8").splitlines()]
    return [m.groups() for m in found if m and m[1] != "page"]


def test_the_table_has_rows_for_every_page_with_controls():
    pages = {r[0] for r in rows()}
    with_controls = {p.url_path for p in frame.existing_pages() if p.url_path}
    assert with_controls <= pages, with_controls - pages


@pytest.mark.parametrize("page,link,what,says", rows(), ids=[f"{r[0]}{r[1]}"[:60] for r in rows()])
def test_row(page, link, what, says):
    info = next(p for p in frame.existing_pages() if p.url_path == page)
    at = assert_ok(deep_link(info.path, parse_qs(expand(link.lstrip("?")), keep_blank_values=True)))
    assert at.title and at.title[0].value == info.title
    text = page_text(at) + "\n" + "\n".join(str(r.label) for r in at.radio)  # a Predict's question too
    if says == "—":
        assert not at.error, [e.value for e in at.error]
    else:
        assert says in text, text[-1500:]
    # Whatever the link held, none of it reaches Markdown.
    for _key, values in parse_qs(expand(link.lstrip("?"))).items():
        for v in values:
            if len(v) > 3 and not v.replace(" ", "").isalnum():
                assert all(v not in m.value for m in at.markdown)

"""The page frame: everything a page script needs besides the math (Streamlit lives here and in lessons/).

- ``frame.pages``: the page list (section, title, script, URL path, blurb).
- ``frame.urlstate``: controls bound to the URL (``slider``, ``number``, ``select``, ``toggle``, ``text``,
  ``tabs``, ``expander``), clamped with a notice when a link is bad; the one private Streamlit use, quarantined.
- ``frame.skeleton``: the question-first page — ``with page(PATH, lead)`` (title, a lead that poses the
  question) → ``@section`` (h2, a fragment) holding ``predict`` (compact) → the key chart → ``Question.answer``
  (once the student picked) → prose; ``verdict`` writes into the page's one folded Checks block (a one-line
  summary stays on the main path) → ``deeper`` (asides) → ``show_code`` → ``bridge``.
- ``frame.predict``: Predict questions and their answers (class mode hooks in here).
- ``frame.live``: ``chart`` (the one way to draw a ``posenc.charts.spec.Figure``), in-chart controls in the
  address, play buttons, tap to read.
- ``frame.theme``: the one stylesheet (focus rings, presentation mode). ``table`` / ``strip``: the one way to
  show a table.
- ``frame.net``: Nagle's algorithm off on the server's sockets, once per process (Streamlit 1.67 leaves it on: each
  rerun's messages waited 40 ms for the browser's delayed ACK).
- ``frame.parts``: the running example (``example``), word pickers, formulas, show-the-code, the glossary
  (``term``), and the caching idiom (``@frame.cached``).

Imports point down only: lessons → frame → posenc. Positions on screen are 1-based, as in the chapter.
"""

from __future__ import annotations

from .pages import PAGES, ROOT, PageInfo, existing_pages, next_page, page_info
from .parts import (
    DEFAULT_D,
    DEFAULT_SEED,
    DEFAULT_SENTENCE,
    GLOSSARY,
    Example,
    cached,
    example,
    formula,
    require,
    sidebar_example,
    sidebar_slot,
    term,
    tokens_or_stop,
    warm,
    warmed,
    word_choice,
    word_pair,
)
from .skeleton import (
    Page,
    Question,
    bridge,
    chart,
    deeper,
    glossary,
    page,
    predict,
    presenting,
    section,
    share_link,
    show_code,
    shown_when,
    strip,
    style,
    table,
    verdict,
)
from .urlstate import (
    MAX_CHARS,
    STREAMLIT_PARAMS,
    begin_run,
    expander,
    flag_in_address,
    number,
    select,
    slider,
    tabs,
    text,
    toggle,
    unknown_params_notice,
)

"""The page list: section, title, script, URL path and one-line blurb of every page, in the chapter's order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PageInfo:
    section: str
    path: str
    title: str
    icon: str
    url_path: str
    blurb: str


PAGES: list[PageInfo] = [
    PageInfo("Home", "lessons/home.py", "Home", ":material/home:", "",
             "What the app is and how to use it in class."),
    PageInfo("Why order is lost", "lessons/attention.py", "Attention in one screen", ":material/hub:",
             "attention", "Queries, keys, values, scores and softmax, on your sentence: the machine the chapter is about."),
    PageInfo("Why order is lost", "lessons/scramble.py", "The sentence scramble", ":material/shuffle:",
             "scramble", "Without positions, attention cannot tell “the cat chased the mouse” from its scramble."),
    PageInfo("Fixes that fail", "lessons/fixes.py", "Obvious fixes that fail", ":material/build:",
             "fixes", "The raw index, index ÷ length, multiplying, one-hot — and how each breaks."),
    PageInfo("Vectors per position", "lessons/learned.py", "A learned table", ":material/table_rows:",
             "learned", "One trained vector per position: no row past N_max, rows that don't know their neighbours."),
    PageInfo("Vectors per position", "lessons/binary.py", "Binary codes", ":material/counter_1:",
             "binary", "Bits that flip at rates 1, 2, 4, …: compact, but 7 and 8 are strangers."),
    PageInfo("Rotations", "lessons/sinusoids.py", "Sinusoids", ":material/waves:",
             "sinusoids", "Smooth bits: any position on demand, and a shift is a rotation."),
    PageInfo("Rotations", "lessons/rope.py", "RoPE", ":material/rotate_right:",
             "rope", "Rotate q and k: the score depends on the gap alone."),
    PageInfo("Rotations", "lessons/explains.py", "What this finally explains", ":material/lightbulb:",
             "explains", "The two “the”s and the scrambled sentence, resolved."),
    PageInfo("Put it to the test", "lessons/lab.py", "Put it to the test", ":material/science:",
             "lab", "Train a tiny attention model with each scheme and see which one still works on longer text."),
    PageInfo("Beyond", "lessons/stretch.py", "Stretching the context", ":material/open_in_full:",
             "stretch", "Past the training length: RoPE's slow pairs meet angles they never saw; PI, NTK and YaRN."),
    PageInfo("Beyond", "lessons/beyond.py", "Other ways to say where", ":material/straighten:",
             "beyond", "ALiBi's distance penalty, RoPE's long-term decay, and what float precision does to positions."),
    PageInfo("In class", "lessons/teach.py", "Teach with it", ":material/groups:",
             "teach", "Class mode: every Predict becomes a live vote of the hall (join code, QR, reveal)."),
]


def existing_pages() -> list[PageInfo]:
    """The pages whose scripts exist (the navigation lists only those)."""
    return [p for p in PAGES if (ROOT / p.path).exists()]


def page_info(path: str) -> PageInfo:
    """The entry of the page whose script is ``path`` (e.g. "lessons/rope.py")."""
    for p in PAGES:
        if p.path == path:
            return p
    raise KeyError(path)


def next_page(path: str) -> PageInfo | None:
    pages = existing_pages()
    for i, p in enumerate(pages):
        if p.path == path and i + 1 < len(pages):
            return pages[i + 1]
    return None

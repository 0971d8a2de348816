"""Static check: every st.cache_data / st.cache_resource in the app is bounded with max_entries.

The caches are shared by every session of a server, so an unbounded one grows with every new sentence a
student types. Scans app.py, frame/ and lessons/*.py (posenc/ has no Streamlit).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from bench import ROOT

KINDS = ("cache_data", "cache_resource")


@dataclass(frozen=True)
class Cache:
    file: str
    line: int
    function: str
    kind: str
    max_entries: str | None  # the source text of the argument, None when missing

    @property
    def bounded(self) -> bool:
        return self.max_entries not in (None, "None")


def _kind(node: ast.expr) -> str | None:
    """'cache_data' for st.cache_data / streamlit.cache_data / cache_data (called or not); 'frame.cached' for the
    page frame's own idiom (@frame.cached: st.cache_data bounded by its max_entries, 32 unless given)."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute) and target.attr in KINDS:
        return target.attr
    if isinstance(target, ast.Name) and target.id in KINDS:
        return target.id
    if isinstance(target, ast.Attribute) and target.attr == "cached" and isinstance(target.value, ast.Name) \
            and target.value.id == "frame":
        return "frame.cached"
    return None


def _no_arguments(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    a = fn.args
    return not (a.posonlyargs or a.args or a.kwonlyargs or a.vararg or a.kwarg)


def _max_entries(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call):
        for kw in node.keywords:
            if kw.arg == "max_entries":
                return ast.unparse(kw.value)
    return None


def app_files() -> list[Path]:
    return [ROOT / "app.py", *sorted((ROOT / "frame").rglob("*.py")),
            *sorted((ROOT / "lessons").glob("*.py"))]


def find_caches(files: list[Path] | None = None) -> list[Cache]:
    out: list[Cache] = []
    for path in files or app_files():
        rel = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(), filename=rel)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for dec in node.decorator_list:
                    kind = _kind(dec)
                    if kind:
                        bound = _max_entries(dec)
                        if bound is None and kind == "frame.cached":
                            bound = "32 (frame.cached's default)"
                        if bound is None and _no_arguments(node):
                            bound = "1 (no arguments: one entry)"
                        out.append(Cache(rel, dec.lineno, node.name, kind, bound))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and _kind(node.func):
                # st.cache_data(max_entries=…)(fn)
                name = ast.unparse(node.args[0]) if node.args else "?"
                out.append(Cache(rel, node.lineno, name, _kind(node.func) or "", _max_entries(node.func)))
            elif (isinstance(node, ast.Call) and _kind(node.func) and node.args
                  and isinstance(node.args[0], (ast.Name, ast.Attribute, ast.Lambda))):
                # st.cache_data(fn, max_entries=…)
                out.append(Cache(rel, node.lineno, ast.unparse(node.args[0])[:40], _kind(node.func) or "",
                                 _max_entries(node)))
    return sorted(out, key=lambda c: (c.file, c.line))

"""Static check: every st.cache_data / st.cache_resource / @frame.cached in app.py, frame/ and lessons/*.py is
bounded. The caches are shared by every session of a server: an unbounded one grows with every sentence typed."""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass

from bench import ROOT

KINDS = ("cache_data", "cache_resource")


def _frame_default() -> str:
    """frame.cached's bound when none is given, read from its signature (the one home of that number)."""
    from frame.parts import cached

    return f"{inspect.signature(cached).parameters['max_entries'].default} (frame.cached's default)"


@dataclass(frozen=True)
class Cache:
    file: str
    line: int
    function: str
    kind: str
    max_entries: str | None  # the source text of the bound, None when missing

    @property
    def bounded(self) -> bool:
        return self.max_entries not in (None, "None")


def _kind(node: ast.expr) -> str | None:
    """'cache_data' for st.cache_data / cache_data (called or not), …; 'frame.cached' for @frame.cached."""
    target = node.func if isinstance(node, ast.Call) else node
    name = getattr(target, "attr", getattr(target, "id", None))
    if name == "cached" and getattr(getattr(target, "value", None), "id", None) == "frame":
        return "frame.cached"
    return name if name in KINDS else None


def _max_entries(node: ast.expr) -> str | None:
    keywords = node.keywords if isinstance(node, ast.Call) else []
    return next((ast.unparse(k.value) for k in keywords if k.arg == "max_entries"), None)


def find_caches() -> list[Cache]:
    out: list[Cache] = []
    for path in [ROOT / "app.py", *sorted((ROOT / "frame").rglob("*.py")), *sorted((ROOT / "lessons").glob("*.py"))]:
        rel = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(), filename=rel)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                for dec in (d for d in node.decorator_list if _kind(d)):
                    bound = _max_entries(dec) or (_frame_default() if _kind(dec) == "frame.cached" else
                                                  None if a.posonlyargs or a.args or a.kwonlyargs or a.vararg
                                                  or a.kwarg else "1 (no arguments: one entry)")
                    out.append(Cache(rel, dec.lineno, node.name, _kind(dec), bound))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and _kind(node.func):
                name = ast.unparse(node.args[0]) if node.args else "?"  # st.cache_data(max_entries=…)(fn)
                out.append(Cache(rel, node.lineno, name, _kind(node.func), _max_entries(node.func)))
            elif isinstance(node, ast.Call) and _kind(node.func) and node.args and isinstance(
                    node.args[0], (ast.Name, ast.Attribute, ast.Lambda)):  # st.cache_data(fn, max_entries=…)
                kind = _kind(node.func)
                out.append(Cache(rel, node.lineno, ast.unparse(node.args[0])[:40], kind, _max_entries(node) or (
                    _frame_default() if kind == "frame.cached" else None)))
    return sorted(out, key=lambda c: (c.file, c.line))

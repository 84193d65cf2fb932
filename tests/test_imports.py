"""The package's modules import one another in one direction: no circle, however lazy the
import (the store and its dialects, the live hub and its backends, a campaign over its
classic game)."""

from __future__ import annotations

import ast
from pathlib import Path

from companion import PROJECT_ROOT

PACKAGE = Path(PROJECT_ROOT) / "companion"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rsplit(".", 1)[0]
                target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
                for alias in node.names:
                    if f"{target}.{alias.name}" in modules:
                        imported.add(f"{target}.{alias.name}")
                    elif target in modules:
                        imported.add(target)
            elif isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names if alias.name in modules}
        # A package's __init__ is imported before any of its modules: not an edge back.
        graph[name] = {m for m in imported if m != name and not name.startswith(m + ".")}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_no_module_of_the_package_imports_itself_through_others():
    graph = import_graph()
    assert graph["companion.store"] and graph["companion.games.explorers_campaign"]  # it reads imports
    assert circles(graph) == []


def test_the_finder_sees_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]



def test_no_sql_is_rewritten_by_pattern_in_the_package():
    """The store's statements are SQLAlchemy Core, compiled by each dialect (dialects.py):
    no module rewrites SQL text (placeholders, JSON fields, IS NOT) for the other database."""
    import re
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"re\.(sub|compile)\([^)]*(json_extract|COLLATE|IS NOT|\\\?|INTEGER PRIMARY|REAL)",
                             text), path
        assert "def translate(" not in text, path

"""Every import in pe_explorer points down one stack: maths, state, derived, the plotting kit and
the workarounds, views, the page, then the entry points (notebook and worker)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "components"

# The floors, lowest first. A module may import from its own floor or any floor below it.
FLOORS = {
    "maths": 0,
    "state": 1,
    "derived": 2,
    "plotkit": 3,
    "fixes": 3,  # workarounds of Panel, Bokeh and Plotly; the plotting kit wraps some of them
    "views": 4,
    "ui": 5,
    "entry": 6,
}
STATE_MODULES = {"state", "urlstate"}
ENTRY_MODULES = {"worker", "notebook", "cli", "hub", "__init__"}


def floor_of(module: str) -> str:
    """The floor of a module of pe_explorer, named by its dotted path inside the package."""
    head = module.split(".")[0]
    if head in {"plotkit", "fixes", "views", "ui"}:
        return head
    if head in STATE_MODULES:
        return "state"
    if head == "derived":
        return "derived"
    if head in ENTRY_MODULES:
        return "entry"
    return "maths"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module inside pe_explorer) in a file, lazy ones too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                target = [*base, *(node.module.split(".") if node.module else [])]
            elif node.module and node.module.startswith("pe_explorer"):
                target = node.module.split(".")[1:]
            else:
                continue
            if target:
                found.append((node.lineno, ".".join(target)))
            else:  # `from . import x` at the package's root
                found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("pe_explorer."):
                    found.append((node.lineno, alias.name.split(".", 1)[1]))
    return found


def all_imports() -> list[tuple[str, int, str]]:
    return [
        (module_name(path), line, target)
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, target in imported_modules(path)
    ]


def test_the_graph_is_read() -> None:
    """The reader finds the imports it judges (a reader that finds none would pass anything)."""
    imports = all_imports()
    assert ("views.heatmap", 0, "plotkit.charts") in {(m, 0, t) for m, _, t in imports}
    assert any(m == "ui.page" and t.startswith("views") for m, _, t in imports)
    assert len(imports) > 150


@pytest.mark.parametrize(
    ("module", "target", "upward"),
    [("views.rope", "ui.page", True), ("derived", "encoding", False), ("fixes.x", "ui", True)],
)
def test_floor_rule(module: str, target: str, upward: bool) -> None:
    assert (FLOORS[floor_of(target)] > FLOORS[floor_of(module)]) is upward


def test_every_import_points_down() -> None:
    upward = [
        f"{module}:{line} imports {target} ({floor_of(module)} -> {floor_of(target)})"
        for module, line, target in all_imports()
        if FLOORS[floor_of(target)] > FLOORS[floor_of(module)]
    ]
    assert not upward, "\n".join(upward)


def test_nothing_imports_the_worker() -> None:
    importers = [m for m, _, t in all_imports() if t == "worker" and m != "worker"]
    assert not importers


def test_ui_reaches_views_only_through_the_table() -> None:
    """The page knows the views by their table (pe_explorer.views), never a view module."""
    reached = [
        f"{m} imports {t}"
        for m, _, t in all_imports()
        if floor_of(m) in {"ui", "entry"} and t.startswith("views.")
    ]
    assert not reached, "\n".join(reached)


def test_views_do_not_import_each_other() -> None:
    crossing = [
        f"{m} imports {t}"
        for m, _, t in all_imports()
        if m.startswith("views.") and t.startswith("views.") and t != m
    ]
    assert not crossing, "\n".join(crossing)

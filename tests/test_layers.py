"""The import rules of the layers, checked on the source (every import, also under TYPE_CHECKING).

- core imports only core (and the standard library): no adapters, no services, no front ends, no Textual.
- the front ends (cli, tui, mcp) reach adapters only through `smig_tui.services`.
- nothing below a front end imports a front end.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "smig_tui"
FRONT_ENDS = ("cli", "tui", "mcp")


def _imports(path: Path, source: str | None = None) -> list[str]:
    """Every module a file imports, absolute names (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = path.relative_to(PACKAGE.parent).with_suffix("").parts[: -node.level]
                base = ".".join((*parts, base) if base else parts)
            names.append(base)
            names += [f"{base}.{alias.name}" for alias in node.names if base == "smig_tui.adapters"]
    return names


def _modules(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


def test_core_imports_only_core() -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in _modules("core")
        for name in _imports(path)
        if (name.startswith("smig_tui.") and not name.startswith("smig_tui.core"))
        or name.split(".")[0] in ("textual", "rich", "tiktoken", "openai", "platformdirs")
    }
    assert not wrong, sorted(wrong)


def test_front_ends_reach_adapters_only_through_services() -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for layer in FRONT_ENDS
        for path in _modules(layer)
        for name in _imports(path)
        if name.startswith("smig_tui.adapters")
    }
    assert not wrong, sorted(wrong)


def test_nothing_below_the_front_ends_imports_them() -> None:
    below = [*_modules("core"), *_modules("adapters"), PACKAGE / "services.py"]
    wrong = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in below
        for name in _imports(path)
        if name.startswith(tuple(f"smig_tui.{layer}" for layer in FRONT_ENDS))
    }
    assert not wrong, sorted(wrong)


def test_the_checker_sees_every_form_of_import() -> None:
    """Plain, from, relative and TYPE_CHECKING imports are all seen (the rules above are not blind)."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "import smig_tui.adapters.fs\n"
        "from ..adapters import clipboard\n"
        "from .widgets.plan_table import PlanTable\n"
        "if TYPE_CHECKING:\n"
        "    from smig_tui.adapters.search_index import SearchHit\n"
    )
    seen = _imports(PACKAGE / "tui" / "app.py", source)
    assert {
        "smig_tui.adapters.fs",
        "smig_tui.adapters.clipboard",
        "smig_tui.tui.widgets.plan_table",
        "smig_tui.adapters.search_index",
    } <= set(seen)

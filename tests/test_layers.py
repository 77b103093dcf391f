"""The import rules of the layers, checked on the source (every import, also under TYPE_CHECKING).

- core imports only core (and the standard library): no adapters, no services, no front ends, no Textual.
- the front ends (cli, tui, mcp) reach adapters only through `smig_tui.services`, and the services
  only through the package itself (its `__init__` names the whole surface, not its modules).
- nothing below a front end imports a front end.
- the services' feature modules are layered: each imports only the ones before it in `SERVICES_ORDER`
  (so features build on each other without circles, and none imports the composition root).
- an agent's package is a plugin: no module outside it imports it (the registry finds it through
  the `smig.agents` entry points), and it imports no other agent's package, nor services or a front end.
- no import cycles, among any modules (every import counts: lazy ones inside functions and those under
  TYPE_CHECKING too, since a cycle of types shows a type living in the wrong module).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "smig_tui"
FRONT_ENDS = ("cli", "tui", "mcp")


def _imports(path: Path, source: str | None = None, with_names: bool = False) -> list[str]:
    """Every module a file imports, absolute names (relative imports resolved); `with_names` also gives
    `package.name` for each name a `from package import name` takes (the module, when it is one)."""
    if source is None:
        return list(_file_imports(path, with_names))
    return _imports_in(path, ast.parse(source), with_names)


@functools.cache
def _file_imports(path: Path, with_names: bool) -> tuple[str, ...]:
    """`_imports` of a file as it is on disk, read once per process: eight tests look at every module
    (about 0.7 s of CPU each when each parsed them all again); the files do not change during a run."""
    return tuple(_imports_in(path, ast.parse(path.read_text(encoding="utf-8")), with_names))


def _imports_in(path: Path, tree: ast.Module, with_names: bool) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = path.relative_to(PACKAGE.parent).with_suffix("").parts[: -node.level]
                base = ".".join((*parts, base) if base else parts)
            if with_names:
                names += [f"{base}.{alias.name}" for alias in node.names]
            else:
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
    below = [*_modules("core"), *_modules("adapters"), *_modules("services"), PACKAGE / "plugins.py"]
    wrong = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in below
        for name in _imports(path)
        if name.startswith(tuple(f"smig_tui.{layer}" for layer in FRONT_ENDS))
    }
    assert not wrong, sorted(wrong)


def test_front_ends_reach_the_services_only_through_the_package() -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for layer in FRONT_ENDS
        for path in _modules(layer)
        for name in _imports(path)
        if name.startswith("smig_tui.services.")
    }
    assert not wrong, sorted(wrong)


SERVICES_ORDER = (
    "base",
    "sessions",
    "counting",
    "models",
    "plan",
    "summary",
    "migrate",
    "export",
    "search",
    "memory",
    "archive",
    "frontend",
    "root",
    "doctor",
    "json_shapes",
    "__init__",
)
"""The services' modules, each allowed to import only those before it: the features over `base`,
then `root` joining them, `doctor` reporting over the whole, `json_shapes` rendering every object, and the
package naming the surface."""


def test_the_service_features_are_layered_without_circles() -> None:
    assert {path.stem for path in _modules("services")} == set(SERVICES_ORDER)
    wrong = set()
    for path in _modules("services"):
        allowed = {f"smig_tui.services.{name}" for name in SERVICES_ORDER[: SERVICES_ORDER.index(path.stem)]}
        for name in _imports(path, with_names=True):
            if name == "smig_tui.services" or name.startswith("smig_tui.services."):
                module = ".".join(name.split(".")[:3])
                if module not in allowed:
                    wrong.add(f"{path.relative_to(PACKAGE)}: {module}")
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


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (`from package import module` names the module)."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for imported in _imports(path, with_names=True):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                graph[name].add(imported)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_there_are_no_import_cycles() -> None:
    assert not _cycles(_graph())


def test_the_cycle_finder_finds_a_cycle_of_types() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


def _agent_package(module: str) -> str | None:
    """`smig_tui.adapters.agents.<agent>` for a module inside an agent's package, else None."""
    parts = module.split(".")
    if parts[:3] == ["smig_tui", "adapters", "agents"] and len(parts) > 3:
        package = ".".join(parts[:4])
        return package if (PACKAGE / "adapters" / "agents" / parts[3]).is_dir() else None
    return None


BUILDS_ON = {
    "smig_tui.adapters.agents.kilo": (
        "smig_tui.adapters.agents.opencode",
        "Kilo Code keeps OpenCode's storage: its package hands OpenCode's reader and writer its own Variant",
    ),
}
"""An agent package that is a descendant of another agent's client, the one it may import, and why."""


def test_an_agents_package_is_reached_only_through_the_entry_points() -> None:
    wrong = {
        f"{module}: {imported}"
        for module, imports in _graph().items()
        for imported in imports
        if (package := _agent_package(imported)) is not None
        and (home := _agent_package(module)) != package
        and BUILDS_ON.get(home or "", ("",))[0] != package
    }
    assert not wrong, sorted(wrong)


def test_an_agent_builds_only_on_the_agent_it_descends_from_never_the_reverse() -> None:
    graph = _graph()
    for descendant, (ancestor, _why) in BUILDS_ON.items():
        assert any(
            _agent_package(i) == ancestor for m, imports in graph.items() if m.startswith(descendant) for i in imports
        )
        assert not any(
            i.startswith(descendant) for m, imports in graph.items() if _agent_package(m) == ancestor for i in imports
        )


def test_an_agents_package_imports_no_service_and_no_front_end() -> None:
    above = ("smig_tui.services", "smig_tui.plugins", *(f"smig_tui.{layer}" for layer in FRONT_ENDS))
    wrong = {
        f"{module}: {imported}"
        for module, imports in _graph().items()
        if _agent_package(module) is not None
        for imported in imports
        if imported.startswith(above)
    }
    assert not wrong, sorted(wrong)


def test_no_test_module_imports_another() -> None:
    """Shared test helpers live in helper modules and conftest files, never in a module of tests."""
    tests = Path(__file__).parent
    wrong = {
        f"{path.relative_to(tests)}: {name}"
        for path in tests.rglob("*.py")
        for name in _imports(path)
        if name.rpartition(".")[2].startswith("test_")
    }
    assert not wrong, sorted(wrong)

"""Which copy of a compiled module to import: the extension the build made, or the module's source.

Python imports an extension before the source beside it, so in a checkout an edited module would run
as it was last built. smig imports every module from its source instead when ``SMIG_TUI_PURE=1`` or when
any extension in a checkout is older than its source (``pip install -e .`` builds them again). An
installed package was built from its sources in one go, so it is not checked.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

PURE_ENV = "SMIG_TUI_PURE"
PACKAGE = Path(__file__).resolve().parent


class SourceFinder:
    """Finds smig's modules by their ``.py`` file, so that no extension beside one is imported (a meta
    path finder; `importlib.abc` is not imported for its base class: it costs 9 ms of imports)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("smig_tui.") or not path:
            return None
        name = fullname.rpartition(".")[2]
        for folder in path:
            source = Path(folder, name + ".py")
            if source.is_file():
                return importlib.util.spec_from_file_location(fullname, source)
        return None  # a package, or nothing: the usual finders answer


def extensions_stale(package: Path = PACKAGE) -> bool:
    """Whether a checkout holds an extension older than its source (an installed package is not checked)."""
    if not (package.parent / "pyproject.toml").is_file():
        return False
    for folder, _, files in os.walk(package):
        for file in files:
            if not file.endswith((".so", ".pyd")):
                continue
            source = Path(folder, file.partition(".")[0] + ".py")
            try:
                if source.stat().st_mtime > Path(folder, file).stat().st_mtime:
                    return True
            except FileNotFoundError:
                continue
    return False


def choose_copies() -> None:
    """Import the sources from now on when asked to or when the extensions are stale; else change nothing."""
    if any(isinstance(finder, SourceFinder) for finder in sys.meta_path):
        return
    if os.environ.get(PURE_ENV) == "1" or extensions_stale():
        sys.meta_path.insert(0, SourceFinder())


def is_compiled(module: ModuleType) -> bool:
    """Whether a module was imported from an extension rather than its source."""
    return not str(getattr(module, "__file__", "") or "").endswith(".py")


def readers_compiled() -> bool:
    """Whether this process reads sessions with the compiled modules: built, not stale, not `SMIG_TUI_PURE=1`
    (the JSONL reader, which every reader uses, stands for them all: they are built together)."""
    import smig_tui.adapters.jsonl

    return is_compiled(smig_tui.adapters.jsonl)

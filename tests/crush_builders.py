"""The Crush databases of tests/fixtures/crush (built from Crush's schema, not written by Crush), for the Crush tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from smig_devtools.corpus import SessionEntry
from smig_devtools.crush_corpus import generate_crush

MAKE = Path(__file__).parent / "fixtures" / "crush" / "make.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("crush_fixture_make", MAKE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make = _load()
"""tests/fixtures/crush/make.py: `build(global_data, root)` and the session ids it writes."""


def install(home: Path) -> dict[str, Path]:
    """The two fixture projects under `home/work`, and Crush's projects list where it looks by default
    (`~/.local/share/crush/projects.json`)."""
    built: dict[str, Path] = make.build(home / ".local" / "share" / "crush", home / "work")
    return built


def fixture_home(root: Path) -> dict[str, str]:
    """A home holding the fixture projects: its environment for smig."""
    install(root)
    return {"CRUSH_GLOBAL_DATA": str(root / ".local" / "share" / "crush"), "HOME": str(root)}


def generated_home(root: Path) -> dict[str, str]:
    """A Crush home of three generated sessions in two projects: its environment for smig."""
    entries = [
        SessionEntry(
            "claude",
            "main",
            f"s{number}",
            "",
            str(root / "work" / f"p{number % 2}"),
            prompt=f"task {number}",
            size=size,
        )
        for number, size in enumerate((3_000, 40_000, 150_000))
    ]
    for entry in entries:
        Path(entry.cwd).mkdir(parents=True, exist_ok=True)
    generate_crush(root / "crush", entries)
    return {"CRUSH_GLOBAL_DATA": str(root / "crush"), "HOME": str(root)}

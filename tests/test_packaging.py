"""What the wheel holds: smig's package and its data, not the repository's developer tools.

`smig_devtools` (benchmark, corpus generators, calibration, a Node script) stays in the repository:
the packages setuptools finds with pyproject's own rules, and the data files its globs take, are read
here as the build reads them.
"""

from __future__ import annotations

import tomllib
from fnmatch import fnmatchcase
from pathlib import Path

ROOT = Path(__file__).parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _found_packages() -> list[str]:
    """The packages setuptools' `packages.find` takes: folders with an `__init__.py` whose dotted name
    matches an `include` pattern (shell-style, as setuptools matches them)."""
    include = SETUPTOOLS["packages"]["find"]["include"]
    tops = [folder for folder in ROOT.iterdir() if (folder / "__init__.py").is_file()]
    names = [".".join(init.parent.relative_to(ROOT).parts) for top in tops for init in top.rglob("__init__.py")]
    return [name for name in names if any(fnmatchcase(name, pattern) for pattern in include)]


def test_the_wheel_takes_smig_tui_and_not_the_developer_tools() -> None:
    packages = _found_packages()
    assert "smig_tui" in packages and "smig_tui.adapters.agents.codex" in packages
    assert all(name.split(".")[0] == "smig_tui" for name in packages), packages
    assert "smig_devtools" in {folder.name for folder in ROOT.iterdir()}  # it exists, in the repository only
    assert not list((ROOT / "smig_tui").rglob("*devtools*"))


def test_the_package_data_is_data_smig_reads_and_no_script() -> None:
    globs = SETUPTOOLS["package-data"]["smig_tui"]
    shipped = {path for pattern in globs for path in (ROOT / "smig_tui").glob(pattern) if path.is_file()}
    assert {path.suffix for path in shipped} <= {".typed", ".json", ".tcss"}, sorted(map(str, shipped))
    scripts = [path for path in (ROOT / "smig_tui").rglob("*") if path.suffix in {".js", ".mjs", ".cjs", ".sh"}]
    assert not scripts

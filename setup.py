"""Build smig: the modules that read, count and redact sessions compiled with mypyc where it can, pure
Python elsewhere.

Reading a 500 MB session is per-record Python; compiled, it takes 11-17% less CPU, and redacting its
texts about 15% less (docs/performance.md). Everything else is in pyproject.toml. A module opts in with the line
``# smig: compiled`` as its first line; ``SMIG_TUI_PURE=1`` builds without compiling, and a build whose
compiler fails installs the pure Python with a warning. smig_tui/compiled.py picks the copy to import.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
MARKER = "# smig: compiled"
PURE_ENV = "SMIG_TUI_PURE"
# The commands that build code; pip also runs this file for the metadata alone (egg_info, dist_info).
BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}
# In pip's isolated build, smig's dependencies (orjson, zstd, ...) are not installed, so their values are Any.
MYPY_OPTIONS = ["--no-warn-return-any"]


def compiled_modules() -> list[str]:
    """The modules whose first line is the marker, as paths from the project's root."""
    found = []
    for path in sorted((ROOT / "smig_tui").rglob("*.py")):
        with path.open(encoding="utf-8") as source:
            first = source.readline()
        if first.startswith(MARKER):
            found.append(path.relative_to(ROOT).as_posix())
    return found


def extensions() -> list[Extension]:
    """mypyc's extensions for the marked modules, or none when asked for pure Python or mypyc is missing."""
    if os.environ.get(PURE_ENV) == "1" or not BUILDING.intersection(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("smig: mypyc is not installed; installing pure Python", file=sys.stderr)
        return []
    os.chdir(ROOT)  # mypyc names its modules by their paths from here
    try:
        return mypycify(MYPY_OPTIONS + compiled_modules(), opt_level="3", group_name="smig_tui")
    except (Exception, SystemExit) as error:  # mypyc exits on a type error: the pure Python still works
        print(f"smig: mypyc could not compile ({error!r}); installing pure Python", file=sys.stderr)
        return []


class OptionalBuildExt(build_ext):  # type: ignore[misc]  # setuptools' commands are untyped
    """Compile the extensions, or, when the C compiler fails, remove what it made and install pure Python."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:
            print(f"smig: compiling failed ({type(error).__name__}); installing pure Python", file=sys.stderr)
            for output in self.get_outputs():
                Path(output).unlink(missing_ok=True)
            self.extensions: list[Extension] = []


if __name__ == "__main__":  # as pip's build runs it; tests/test_compiled.py imports it
    setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})

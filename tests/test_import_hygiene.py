"""Headless entry points must never load Textual; the core must stay free of third-party imports."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return set(out.split())


def test_cli_and_services_do_not_import_textual() -> None:
    loaded = _loaded_after("import smig_tui.cli.main, smig_tui.services\nsmig_tui.cli.main.build_parser()")
    assert "textual" not in loaded
    assert "smig_tui.tui" not in loaded


@pytest.mark.parametrize("forbidden", ["textual", "rich", "tiktoken", "openai", "platformdirs"])
def test_core_is_pure(forbidden: str) -> None:
    code = (
        "import pkgutil, importlib, smig_tui.core as core\n"
        "for m in pkgutil.iter_modules(core.__path__):\n"
        "    importlib.import_module('smig_tui.core.' + m.name)"
    )
    assert forbidden not in _loaded_after(code)


LISTING_NEEDS_NONE_OF = (
    "smig_tui.core.plans",
    "smig_tui.core.replan",
    "smig_tui.core.migration",
    "smig_tui.core.redact",
    "smig_tui.adapters.agents.codex.load",
    "smig_tui.adapters.agents.claude.load",
    "smig_tui.adapters.split_read",
)
"""Planning, migration, redaction and full reads: imported by the commands that use them, not by
`smig list` (a warm listing is mostly interpreter start and imports; these doubled its imports)."""


def test_the_listing_path_imports_no_reading_or_planning_code() -> None:
    loaded = _loaded_after(
        "import smig_tui.cli.main, smig_tui.cli.sessions, smig_tui.services\n"
        "smig_tui.cli.main.build_parser(['list'])\n"
        "smig_tui.services.build_services({'HOME': '/nonexistent', 'SMIG_TUI_HOME': '/nonexistent/smig'})"
    )
    assert not loaded.intersection(LISTING_NEEDS_NONE_OF), sorted(loaded.intersection(LISTING_NEEDS_NONE_OF))


def test_a_search_on_a_fresh_index_imports_no_reader(tmp_path: Path) -> None:
    """Every agent names what its listing reads: when none of it changed, no reader is built or imported."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "SMIG_TUI_HOME": str(tmp_path / "smig")}
    for key in [key for key in env if key.endswith(("_HOME", "_DIR", "_DB")) and key != "SMIG_TUI_HOME"]:
        del env[key]  # every agent's home under the temp HOME
    search = "from smig_tui.cli.main import main\nmain(['search', 'heron'])"
    subprocess.run([sys.executable, "-c", search], check=True, capture_output=True, env=env)  # builds the index
    out = subprocess.run(
        [sys.executable, "-c", search + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)), file=sys.stderr)"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stderr
    from smig_tui.plugins import agent_profiles

    unwatched = {profile.id for profile in agent_profiles() if profile.watched is None}  # listed every time
    readers = [name for name in out.split() if re.fullmatch(r"smig_tui\.adapters\.agents\.\w+\.source", name)]
    assert [name for name in readers if name.split(".")[3] not in unwatched] == []
    assert not {"smig_tui.adapters.search_reading", "tempfile", "platformdirs"} & set(out.split())
    # its table needs no JSON writer, and reads no session line (about 5 ms and 7 ms of imports)
    assert not {"orjson", "msgspec", "smig_tui.core.json_text"} & set(out.split())

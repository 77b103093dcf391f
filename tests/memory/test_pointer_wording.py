"""smig's pointer lines and Codex's bundle name no fixed list of agents, and what earlier versions wrote is
still known as smig's own.

Before, OpenCode's and Kilo's `AGENTS.md` line said "(Codex, Claude Code, Gemini CLI)" and Codex's bundle
was headed "Claude Code memory", though each holds every other agent's notes. A file holding an older
line must not leak it into the notes other agents get, nor get a second line on the next sync; a bundle
with the old heading is replaced whole.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from smig_tui.adapters.agents.claude.memory import project_name as claude_project_name
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.agent_rules import installed
from smig_tui.core.memory_model import MARKER
from smig_tui.core.memory_sync import is_pointer_line, pointer_line
from smig_tui.services import Services

OLD_LINES = {
    "opencode": "- At session start, also read {bundle}: the user's memory from their other coding "
    "agents (Codex, Claude Code, Gemini CLI), synced by smig.",
    "kilo": "- At session start, also read {bundle}: the user's memory from their other coding "
    "agents (Codex, Claude Code, Gemini CLI), synced by smig.",
    "pi": "- At session start, also read {bundle}: the user's memory from their other coding agents, synced by smig.",
}
"""The lines smig wrote before this version, word for word."""
OLD_CODEX_LINE = (
    "- At session start, also read {bundle}: the user's Claude Code memory "
    "(preferences, feedback, project notes), synced by smig."
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _sync() -> str:
    out, err = io.StringIO(), io.StringIO()
    ctx = Context(out=Output(stdout=out, stderr=err))
    ctx.__dict__["services"] = Services(paths=resolve_paths())
    assert main(["memory", "sync"], ctx) == 0, err.getvalue()
    return out.getvalue()


def _rules_file(agent: str, home: Path) -> Path:
    folder = {"opencode": ".config/opencode", "kilo": ".config/kilo", "pi": ".pi/agent"}[agent]
    return home / folder / "AGENTS.md"


def test_the_pointer_line_names_no_agent() -> None:
    line = pointer_line("/x/smig_memory.md")
    assert is_pointer_line(line, "/x/smig_memory.md") and not is_pointer_line(line, "/y/smig_memory.md")
    assert not any(rules.name in line for rules in installed())


@pytest.mark.parametrize("agent", sorted(OLD_LINES))
def test_an_older_pointer_line_is_stripped_and_not_added_again(isolated_homes: dict[str, Path], agent: str) -> None:
    home = isolated_homes["home"]
    rules = _rules_file(agent, home)
    bundle = rules.parent / "smig_memory.md"
    old = OLD_LINES[agent].format(bundle=bundle)
    before = f"- PUFFIN-{agent} keep answers short\n{old}\n"
    _write(rules, before)
    _write(isolated_homes["codex"] / "memories" / "memory_summary.md", "# Summary\n- OTTER-17 prefers uv\n")
    _sync()
    _sync()  # a second sync finds nothing to add
    assert rules.read_text(encoding="utf-8") == before  # the old line counts as smig's: no second one
    assert "OTTER-17" in bundle.read_text(encoding="utf-8")
    for other in (
        isolated_homes["codex"] / "memories" / "claude_code_smig.md",
        isolated_homes["claude"] / "smig_memory.md",
    ):
        text = other.read_text(encoding="utf-8")
        assert f"PUFFIN-{agent}" in text  # the agent's notes cross
        assert "also read" not in text and "synced by smig." not in text  # its pointer line does not


def test_a_new_pointer_line_is_stripped_too(isolated_homes: dict[str, Path]) -> None:
    home = isolated_homes["home"]
    rules = _write(_rules_file("opencode", home), "- PUFFIN-9 keep answers short\n")
    _write(isolated_homes["codex"] / "memories" / "memory_summary.md", "# Summary\n- OTTER-17 prefers uv\n")
    _sync()
    written = rules.read_text(encoding="utf-8")
    assert written == f"- PUFFIN-9 keep answers short\n{pointer_line(str(rules.parent / 'smig_memory.md'))}\n"
    _sync()
    assert rules.read_text(encoding="utf-8") == written
    claude_bundle = (isolated_homes["claude"] / "smig_memory.md").read_text(encoding="utf-8")
    assert "PUFFIN-9" in claude_bundle and "also read" not in claude_bundle


def test_codex_s_bundle_holds_every_agent_and_replaces_the_old_heading(isolated_homes: dict[str, Path]) -> None:
    home = isolated_homes["home"]
    codex = isolated_homes["codex"]
    memory = isolated_homes["claude"] / "projects" / claude_project_name(str(home)) / "memory"
    _write(memory / "push.md", "---\nname: push\ndescription: HERON-41 never force-push\ntype: feedback\n---\nNo.\n")
    _write(home / ".config" / "opencode" / "AGENTS.md", "- LYNX-59 answer in British English\n")
    bundle = codex / "memories" / "claude_code_smig.md"
    old_bundle = (
        f"{MARKER}\n\n# Claude Code memory\n\nCopied from Claude Code's memory folders (`projects/*/memory/`) "
        "by `smig memory sync`.\n\n- an old note\n"
    )
    _write(bundle, old_bundle)
    _write(codex / "memories" / "memory_summary.md", "# Summary\n- OTTER-17 prefers uv\n")
    agents_md = _write(codex / "AGENTS.md", f"- be brief\n{OLD_CODEX_LINE.format(bundle=bundle)}\n")
    _sync()
    text = bundle.read_text(encoding="utf-8")
    assert text.startswith(f"{MARKER}\n\n# Memory from the user's other coding agents\n")
    assert "HERON-41" in text and "LYNX-59" in text and "an old note" not in text
    assert "Copied from Claude Code's memory folders" not in text
    assert text.count("# Claude Code memory\n") == 1  # Claude's own section, under the bundle's heading
    assert text.index("# Claude Code memory") < text.index("HERON-41")
    assert agents_md.read_text(encoding="utf-8").count("also read") == 1  # the old line holds; none added

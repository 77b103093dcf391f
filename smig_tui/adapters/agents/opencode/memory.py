"""Provides OpenCode's part in memory sync: its global `AGENTS.md`, and the bundle it is pointed at.

OpenCode keeps memory as one global rules file (`$XDG_CONFIG_HOME/opencode/AGENTS.md`): it crosses
whole (minus smig's own line) to every other agent. OpenCode gets one bundle with the other agents'
memory and a line in its `AGENTS.md` naming it (OpenCode has no import syntax).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from smig_tui.adapters.memory_files import MemoryContext, memory_file
from smig_tui.core.memory_model import AgentMemory, FileRole, MemoryFile, MemoryInputs, MemoryRules, Mode
from smig_tui.core.memory_render import instruction_sections, instructions_head, joined
from smig_tui.core.memory_sync import instruction_sources

AGENT = "opencode"
BUNDLE_NAME = "smig_memory.md"
"""Beside OpenCode's global `AGENTS.md`, which points at it."""
BUNDLE_MAX_BYTES = 32 * 1024
"""OpenCode's model reads the bundle on demand: held to the budget Codex gives its instruction files."""


def config_folder(env: Mapping[str, str], home: Path) -> Path:
    """OpenCode's global config folder, `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`)."""
    xdg = env.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg else home / ".config") / "opencode"


def data_folder(env: Mapping[str, str], home: Path) -> Path:
    """OpenCode's data folder (its database): present once OpenCode has run."""
    xdg = env.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else home / ".local" / "share") / "opencode"


def read(context: MemoryContext) -> AgentMemory:
    """OpenCode's global `AGENTS.md` and the two files smig may write, when OpenCode is set up here."""
    config = config_folder(context.env, context.home)
    if not (config.is_dir() or data_folder(context.env, context.home).is_dir()):
        return AgentMemory(AGENT)
    rules = config / "AGENTS.md"
    found = memory_file(rules, FileRole.INSTRUCTIONS, AGENT)
    return AgentMemory(
        AGENT,
        (found,) if found is not None else (),
        bundle=str(config / BUNDLE_NAME),
        pointer=str(rules),
        facts={"claude_fallback": _claude_fallback(context, rules)},
    )


def _claude_fallback(context: MemoryContext, rules: Path) -> str:
    """`~/.claude/CLAUDE.md` while OpenCode reads it in place of a missing global `AGENTS.md`.

    OpenCode takes the first of `<config>/AGENTS.md` and `$HOME/.claude/CLAUDE.md` that exists,
    unless `OPENCODE_DISABLE_CLAUDE_CODE(_PROMPT)` is set (checked against OpenCode 1.18).
    """
    if rules.exists():
        return ""
    if any(
        context.env.get(name, "").strip().lower() in ("1", "true")
        for name in ("OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT")
    ):
        return ""
    fallback = context.home / ".claude" / "CLAUDE.md"
    return str(fallback) if fallback.is_file() else ""


def pointer_line(bundle_path: str) -> str:
    """The line smig adds to OpenCode's global `AGENTS.md` (OpenCode has no import syntax)."""
    return (
        f"- At session start, also read {bundle_path}: the user's memory from their other coding "
        "agents (Codex, Claude Code, Gemini CLI), synced by smig."
    )


def _creating_refused(memory: AgentMemory, path: str) -> str:
    """Why smig must not create OpenCode's `AGENTS.md` ('' when it may): while it is absent OpenCode
    reads Claude's `CLAUDE.md` instead, and would stop once it exists."""
    fallback = memory.facts.get("claude_fallback")
    if not fallback:
        return ""
    return (
        f"Not creating {path}: OpenCode now reads {fallback} as its global "
        "rules and would stop once this file exists; copy that file there yourself and run again."
    )


def _sources(memory: AgentMemory) -> tuple[MemoryFile, ...]:
    return instruction_sources(memory.files, pointer_line(memory.bundle))


def _section(
    _inputs: MemoryInputs, files: Sequence[MemoryFile], mode: Mode, _folders: bool, _headed: bool
) -> list[str]:
    return instruction_sections(files, mode)


def _render(
    _inputs: MemoryInputs,
    _sources: Sequence[MemoryFile],
    _mode: Mode,
    _folders: bool,
    sections: Callable[..., list[str]],
) -> str:
    """The bundle OpenCode is pointed at: every other agent's memory."""
    return joined(instructions_head() + sections())


RULES = MemoryRules(
    "OpenCode global rules file (AGENTS.md)",
    _sources,
    _section,
    _render,
    lambda memory: BUNDLE_MAX_BYTES,
    BUNDLE_MAX_BYTES,
    lambda memory: (memory.bundle, pointer_line(memory.bundle)),
    creating_refused=_creating_refused,
)

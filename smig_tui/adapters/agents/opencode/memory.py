"""Provides OpenCode's part in memory sync: its global `AGENTS.md`, and the bundle it is pointed at.

OpenCode keeps memory as one global rules file (`$XDG_CONFIG_HOME/opencode/AGENTS.md`): it crosses
whole (minus smig's own line) to every other agent. OpenCode gets one bundle with the other agents'
memory and a line in its `AGENTS.md` naming it (OpenCode has no import syntax). A descendant
keeping the same global `AGENTS.md` in its own config folder takes part the same way (`reader`,
`rules_for` with its `Variant`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from smig_tui.adapters.agents.opencode.variant import OPENCODE, Variant
from smig_tui.adapters.memory_files import MemoryContext, memory_file
from smig_tui.core.memory_model import AgentMemory, FileRole, MemoryFile, MemoryRules
from smig_tui.core.memory_render import instructions_bundle, instructions_section
from smig_tui.core.memory_sync import instruction_sources, pointer_line

BUNDLE_NAME = "smig_memory.md"
"""Beside OpenCode's global `AGENTS.md`, which points at it."""
BUNDLE_MAX_BYTES = 32 * 1024
"""OpenCode's model reads the bundle on demand: held to the budget Codex gives its instruction files."""


def config_folder(env: Mapping[str, str], home: Path, variant: Variant = OPENCODE) -> Path:
    """OpenCode's global config folder, `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`)."""
    if variant.config_dir_env and env.get(variant.config_dir_env):
        return Path(env[variant.config_dir_env])
    xdg = env.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg else home / ".config") / variant.folder


def data_folder(env: Mapping[str, str], home: Path, variant: Variant = OPENCODE) -> Path:
    """OpenCode's data folder (its database): present once OpenCode has run."""
    xdg = env.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else home / ".local" / "share") / variant.folder


def reader(variant: Variant) -> Callable[[MemoryContext], AgentMemory]:
    """How memory sync reads the variant's global `AGENTS.md` and the two files smig may write for it."""

    def read_variant(context: MemoryContext) -> AgentMemory:
        config = config_folder(context.env, context.home, variant)
        if not (config.is_dir() or data_folder(context.env, context.home, variant).is_dir()):
            return AgentMemory(variant.agent)
        rules = config / "AGENTS.md"
        found = memory_file(rules, FileRole.INSTRUCTIONS, variant.agent)
        return AgentMemory(
            variant.agent,
            (found,) if found is not None else (),
            bundle=str(config / BUNDLE_NAME),
            pointer=str(rules),
            facts={"claude_fallback": _claude_fallback(context, rules, variant)},
        )

    return read_variant


read = reader(OPENCODE)
"""OpenCode's global `AGENTS.md` and the two files smig may write, when OpenCode is set up here."""


def _claude_fallback(context: MemoryContext, rules: Path, variant: Variant) -> str:
    """`~/.claude/CLAUDE.md` while OpenCode reads it in place of a missing global `AGENTS.md`.

    OpenCode takes the first of `<config>/AGENTS.md` and `$HOME/.claude/CLAUDE.md` that exists,
    unless `OPENCODE_DISABLE_CLAUDE_CODE(_PROMPT)` is set (checked against OpenCode 1.18).
    """
    if rules.exists():
        return ""
    if any(context.env.get(name, "").strip().lower() in ("1", "true") for name in variant.claude_code_switches):
        return ""
    fallback = context.home / ".claude" / "CLAUDE.md"
    return str(fallback) if fallback.is_file() else ""


def _creating_refused(name: str) -> Callable[[AgentMemory, str], str]:
    def refused(memory: AgentMemory, path: str) -> str:
        """Why smig must not create the client's `AGENTS.md` ('' when it may): while it is absent the
        client reads Claude's `CLAUDE.md` instead, and would stop once it exists."""
        fallback = memory.facts.get("claude_fallback")
        if not fallback:
            return ""
        return (
            f"Not creating {path}: {name} now reads {fallback} as its global "
            "rules and would stop once this file exists; copy that file there yourself and run again."
        )

    return refused


def _sources(memory: AgentMemory) -> tuple[MemoryFile, ...]:
    return instruction_sources(memory.files, pointer_line(memory.bundle), memory.bundle)


def rules_for(variant: Variant) -> MemoryRules:
    """How memory sync writes to the variant: a bundle beside its global `AGENTS.md`, and a line naming it."""
    return MemoryRules(
        f"{variant.name} global rules file (AGENTS.md)",
        _sources,
        instructions_section,
        instructions_bundle,
        lambda memory: BUNDLE_MAX_BYTES,
        BUNDLE_MAX_BYTES,
        lambda memory: (memory.bundle, pointer_line(memory.bundle)),
        creating_refused=_creating_refused(variant.name),
    )


RULES = rules_for(OPENCODE)

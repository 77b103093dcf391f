"""Provides the I/O of memory sync: reading the four agents' memory files and applying a MemoryPlan.

Reads are read-only; the only files written are the bundles smig owns (marker-checked again under
the lock), one appended line in each agent's global instructions or index (Claude's `CLAUDE.md`, or a
project's `MEMORY.md` with `--project`; Codex's `AGENTS.md`, Gemini CLI's `GEMINI.md`, OpenCode's
`AGENTS.md`), and smig's own state file. Retiring an earlier sync's Claude bundle deletes only that
marker-checked file and takes only smig's line out of its `MEMORY.md`.
Every write is atomic and re-checked against the text the plan was made from.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from smig_tui.adapters.fs import atomic_write, file_lock
from smig_tui.adapters.paths import Paths
from smig_tui.core.errors import SmigError
from smig_tui.core.memory_model import CLAUDE_USER_BUNDLE_NAME, GEMINI_BUNDLE_NAME, OPENCODE_BUNDLE_NAME
from smig_tui.core.memory_sync import (
    CLAUDE_BUNDLE_NAME,
    CODEX_BUNDLE_NAME,
    Action,
    FileRole,
    MemoryFile,
    MemoryInputs,
    MemoryPlan,
    MemoryState,
    PlannedWrite,
    SyncTargets,
    claude_project_name,
    is_owned,
)

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Only this much of a memory file is read: past it a bundle falls back to an index anyway."""
_MAX_PROJECT_NAME = 200


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """What applying a plan did."""

    written: tuple[PlannedWrite, ...] = ()
    skipped: tuple[str, ...] = ()
    """One sentence per planned write that was not made (the file changed since planning)."""
    state_written: bool = False


@dataclass
class MemoryStore:
    """Reads both agents' memory and applies plans, under smig's memory lock."""

    paths: Paths
    home: Path = field(default_factory=lambda: Path(os.environ.get("HOME") or Path.home()))

    @property
    def state_dir(self) -> Path:
        """Where smig keeps memory-sync state and its lock."""
        return self.paths.data_dir / "memory"

    @property
    def state_file(self) -> Path:
        """Hashes of what smig wrote and obstructions it reported."""
        return self.state_dir / "state.json"

    @property
    def codex_memories(self) -> Path:
        """Codex's memory root."""
        return self.paths.codex_home / "memories"

    def claude_memory_dir(self, project: str | None = None) -> Path:
        """The Claude memory folder of `project` (default: the home folder's project)."""
        folder = _memory_root(project) if project else str(self.home)
        name = claude_project_name(folder)
        projects = self.paths.claude_projects
        if len(name) > _MAX_PROJECT_NAME and projects.is_dir():
            # Claude appends a runtime-specific hash to long names: a folder it made is the truth.
            prefix = name[:_MAX_PROJECT_NAME] + "-"
            for existing in sorted(projects.iterdir()):
                if existing.name.startswith(prefix):
                    return existing / "memory"
        return projects / name / "memory"

    def targets(self, project: str | None = None) -> SyncTargets:
        """The files a sync may write (Gemini CLI's and OpenCode's only when they are set up here).

        Claude's bundle is user memory by default (imported by `CLAUDE.md`, loaded in every project);
        `project` puts it in that project's memory instead, loaded only there.
        """
        claude_dir = self.claude_memory_dir(project)
        if project:
            claude_bundle, claude_index = claude_dir / CLAUDE_BUNDLE_NAME, claude_dir / "MEMORY.md"
        else:
            claude_home = self.paths.claude_home
            claude_bundle, claude_index = claude_home / CLAUDE_USER_BUNDLE_NAME, claude_home / "CLAUDE.md"
        gemini, opencode = self.gemini_home, self.opencode_config
        gemini_set_up = gemini.is_dir()
        opencode_set_up = opencode.is_dir() or self.opencode_data.is_dir()
        return SyncTargets(
            claude_bundle=str(claude_bundle),
            claude_index=str(claude_index),
            codex_bundle=str(self.codex_memories / CODEX_BUNDLE_NAME),
            codex_agents=str(self.codex_instructions()),
            gemini_bundle=str(gemini / GEMINI_BUNDLE_NAME) if gemini_set_up else "",
            gemini_memory=str(gemini / self.gemini_context_names()[0]) if gemini_set_up else "",
            opencode_bundle=str(opencode / OPENCODE_BUNDLE_NAME) if opencode_set_up else "",
            opencode_agents=str(opencode / "AGENTS.md") if opencode_set_up else "",
            claude_user=not project,
            claude_legacy_bundle="" if project else str(claude_dir / CLAUDE_BUNDLE_NAME),
            claude_legacy_index="" if project else str(claude_dir / "MEMORY.md"),
        )

    @property
    def gemini_home(self) -> Path:
        """Gemini CLI's folder (`$GEMINI_CLI_HOME/.gemini`, default `~/.gemini`)."""
        return self.paths.gemini_home or self.home / ".gemini"

    def gemini_context_names(self) -> list[str]:
        """The context file names Gemini CLI loads: `context.fileName` (a name or a list), else GEMINI.md.

        Gemini's `save_memory` tool writes to the first, so smig's import line goes there too.
        """
        text = _read_text(self.gemini_home / "settings.json")
        try:
            settings = json.loads(text) if text else {}
        except ValueError:
            settings = {}
        context = settings.get("context") if isinstance(settings, dict) else None
        names = context.get("fileName") if isinstance(context, dict) else None
        if isinstance(names, str):
            names = [names]
        chosen = [name for name in names or () if isinstance(name, str) and name and "/" not in name]
        return chosen or ["GEMINI.md"]

    @property
    def opencode_config(self) -> Path:
        """OpenCode's global config folder, `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`)."""
        xdg = os.environ.get("XDG_CONFIG_HOME")
        return (Path(xdg) if xdg else self.home / ".config") / "opencode"

    @property
    def opencode_data(self) -> Path:
        """OpenCode's data folder (its database): present once OpenCode has run."""
        xdg = os.environ.get("XDG_DATA_HOME")
        return (Path(xdg) if xdg else self.home / ".local" / "share") / "opencode"

    def opencode_claude_fallback(self, targets: SyncTargets) -> str:
        """`~/.claude/CLAUDE.md` while OpenCode reads it in place of a missing global `AGENTS.md`.

        OpenCode takes the first of `<config>/AGENTS.md` and `$HOME/.claude/CLAUDE.md` that exists,
        unless `OPENCODE_DISABLE_CLAUDE_CODE(_PROMPT)` is set (checked against OpenCode 1.18).
        """
        if not targets.opencode_agents or Path(targets.opencode_agents).exists():
            return ""
        if any(
            os.environ.get(name, "").strip().lower() in ("1", "true")
            for name in ("OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT")
        ):
            return ""
        fallback = self.home / ".claude" / "CLAUDE.md"
        return str(fallback) if fallback.is_file() else ""

    def codex_instructions(self) -> Path:
        """Codex's global instructions: a non-empty `AGENTS.override.md` wins over `AGENTS.md`."""
        override = self.paths.codex_home / "AGENTS.override.md"
        text = _read_text(override)
        if text is not None and text.strip():
            return override
        return self.paths.codex_home / "AGENTS.md"

    def read_inputs(self, project: str | None = None) -> MemoryInputs:
        """Read everything the planner needs; nothing is written."""
        targets = self.targets(project)
        paths = (
            targets.claude_bundle,
            targets.claude_index,
            targets.codex_bundle,
            targets.codex_agents,
            targets.gemini_bundle,
            targets.gemini_memory,
            targets.opencode_bundle,
            targets.opencode_agents,
            targets.claude_legacy_bundle,
            targets.claude_legacy_index,
        )
        return MemoryInputs(
            codex_files=tuple(self._codex_files()),
            claude_files=tuple(self._claude_files()),
            targets=targets,
            current={path: _read_text(Path(path)) for path in paths if path},
            state=self.read_state(),
            codex_root=str(self.codex_memories),
            claude_memory_off=self._claude_memory_off(targets.claude_user),
            gemini_files=tuple(self._gemini_files(targets)),
            opencode_files=tuple(self._opencode_files(targets)),
            opencode_claude_fallback=self.opencode_claude_fallback(targets),
        )

    def read_state(self) -> MemoryState:
        """The state of the last run (empty when there is none)."""
        text = _read_text(self.state_file)
        return MemoryState.from_json(text) if text is not None else MemoryState()

    def _claude_memory_off(self, user: bool) -> str:
        """Why Claude Code will not load the bundle ('' when it will).

        User memory (`CLAUDE.md`) is off only with `CLAUDE_CODE_DISABLE_CLAUDE_MDS`; a project's
        `MEMORY.md` is auto memory, off by its own env switch or user setting (checked against 2.1.332).
        """
        if user:
            if os.environ.get("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "").strip() in ("1", "true"):
                return "CLAUDE_CODE_DISABLE_CLAUDE_MDS is set"
            return ""
        if os.environ.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "").strip() in ("1", "true"):
            return "CLAUDE_CODE_DISABLE_AUTO_MEMORY is set"
        text = _read_text(self.paths.claude_home / "settings.json")
        try:
            settings = json.loads(text) if text else {}
        except ValueError:
            return ""
        if isinstance(settings, dict) and settings.get("autoMemoryEnabled") is False:
            return "`autoMemoryEnabled` is false in settings.json"
        return ""

    def _codex_files(self) -> Iterator[MemoryFile]:
        """Codex's current memory layout, read-only; recaps newest first."""
        root = self.codex_memories
        for name, role in (
            ("memory_summary.md", FileRole.SUMMARY),
            ("MEMORY.md", FileRole.HANDBOOK),
            ("raw_memories.md", FileRole.RAW),
        ):
            found = _memory_file(root / name, role)
            if found is not None:
                yield found
        recaps = root / "rollout_summaries"
        if recaps.is_dir():
            files = [path for path in recaps.glob("*.md") if path.is_file()]
            files.sort(key=lambda path: (-path.stat().st_mtime, path.name))
            for path in files:
                found = _memory_file(path, FileRole.RECAP)
                if found is not None:
                    yield found

    def _claude_files(self) -> Iterator[MemoryFile]:
        """Every topic file under `projects/*/memory/` (the planner drops sync tools' own)."""
        projects = self.paths.claude_projects
        if not projects.is_dir():
            return
        home_name = self.claude_memory_dir().parent.name
        for project in sorted(projects.iterdir()):
            memory = project / "memory"
            if not memory.is_dir():
                continue
            for path in sorted(memory.glob("*.md")):
                if path.name in ("MEMORY.md", CLAUDE_BUNDLE_NAME) or not path.is_file():
                    continue
                found = _memory_file(path, FileRole.TOPIC, project.name, project.name == home_name)
                if found is not None:
                    yield found

    def _gemini_files(self, targets: SyncTargets) -> Iterator[MemoryFile]:
        """Gemini CLI's global context files (where `save_memory` writes), when Gemini is set up."""
        if not targets.gemini_bundle:
            return
        for name in self.gemini_context_names():
            found = _memory_file(self.gemini_home / name, FileRole.INSTRUCTIONS, agent="gemini")
            if found is not None:
                yield found

    def _opencode_files(self, targets: SyncTargets) -> Iterator[MemoryFile]:
        """OpenCode's global `AGENTS.md`, when OpenCode is set up."""
        if targets.opencode_agents:
            found = _memory_file(Path(targets.opencode_agents), FileRole.INSTRUCTIONS, agent="opencode")
            if found is not None:
                yield found

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold smig's memory-sync lock; a second run gets LockedError at once."""
        with file_lock(self.state_dir / "lock", what="memory sync"):
            yield

    def apply(self, plan: MemoryPlan) -> ApplyResult:
        """Make the plan's writes under the lock, each re-checked against its planned-from text."""
        with self.locked():
            written: list[PlannedWrite] = []
            skipped: list[str] = []
            for write in plan.writes:
                problem = self._check_unchanged(write)
                if problem:
                    skipped.append(problem)
                    continue
                self._write(write)
                written.append(write)
            state_written = False
            if plan.state_changed and not skipped:
                atomic_write(self.state_file, plan.state_after.to_json())
                state_written = True
            return ApplyResult(tuple(written), tuple(skipped), state_written)

    def _check_unchanged(self, write: PlannedWrite) -> str:
        """Say why a planned write must not go ahead ('' when the file is as planned)."""
        current = _read_text(Path(write.path))
        if current != write.before:
            return f"Skipped {write.path}: it changed since the plan was made; run the sync again."
        if write.action in (Action.UPDATE, Action.DELETE) and current is not None and not is_owned(current):
            return f"Skipped {write.path}: it lost smig's generated-by marker, so it is left alone."
        return ""

    def _write(self, write: PlannedWrite) -> None:
        """Write one planned file atomically, keeping an existing file's permissions."""
        if write.action is Action.DELETE:
            _delete_owned(Path(write.path))
            return
        # Replace the file a symlink points at, so a MEMORY.md kept in a dotfiles repo stays linked.
        path = Path(os.path.realpath(write.path))
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o600 if write.owned else 0o644
        try:
            # A file that was absent at planning time is created without clobbering a newcomer.
            atomic_write(path, write.after, mode=mode, overwrite=write.before is not None)
        except OSError as error:
            raise SmigError(f"Cannot write {path}: {error.strerror or error}.") from error


def _delete_owned(path: Path) -> None:
    """Remove a bundle smig owns; anything but a regular file (a link, a folder) is left alone."""
    if path.is_symlink() or not path.is_file():
        raise SmigError(f"Not removing {path}: it is not a regular file.")
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as error:
        raise SmigError(f"Cannot remove {path}: {error.strerror or error}.") from error


def _memory_root(project: str) -> str:
    """The folder Claude keys a project's memory by: its git root, the main one for a worktree."""
    start = Path(os.path.abspath(os.path.expanduser(project)))
    for folder in (start, *start.parents):
        marker = folder / ".git"
        if marker.is_dir():
            return str(folder)
        if marker.is_file():
            # A worktree's `.git` file says `gitdir: <main>/.git/worktrees/<name>`.
            gitdir = marker.read_text(encoding="utf-8", errors="replace").partition("gitdir:")[2]
            main = Path(gitdir.strip())
            if main.parent.name == "worktrees" and main.parent.parent.name == ".git":
                return str(main.parent.parent.parent)
            return str(folder)
    return str(start)


def _read_text(path: Path, limit: int = -1) -> str | None:
    """A file's text (its first `limit` bytes), None when absent; bad bytes are replaced."""
    try:
        kind = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise SmigError(f"Cannot read {path}: {error.strerror or error}.") from error
    if not stat.S_ISREG(kind) and not stat.S_ISDIR(kind):
        # A pipe or device would block the read or be written over: never smig's to touch.
        raise SmigError(f"Not reading {path}: it is not a regular file.")
    try:
        with path.open("rb") as handle:
            raw = handle.read(limit)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError as error:
        raise SmigError(f"Expected a file but found a folder at {path}.") from error
    except OSError as error:
        raise SmigError(f"Cannot read {path}: {error.strerror or error}.") from error
    return raw.decode("utf-8", errors="replace")


def _memory_file(
    path: Path, role: FileRole, project: str | None = None, home: bool = False, agent: str = ""
) -> MemoryFile | None:
    """Read one memory file (None when absent); raw notes only cross as a path, so only a head."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    text = _read_text(path, 4096 if role is FileRole.RAW else MAX_FILE_BYTES)
    if text is None:
        return None
    return MemoryFile(str(path), role, text, size, project, home, agent)

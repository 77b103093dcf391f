"""Provides what a migration writes as a native session: its destinations, its turns, lineage and files.

Plain data shared by the core (`handoff`, `migration`), the writer protocol (`ports.NativeWriter`) and
every agent's writer; it imports only the models, so none of them import each other through it.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, ClassVar

from smig_tui.core.agent_rules import in_choice_order, refused_destination
from smig_tui.core.models import Role


class Destination(str):
    """Where `smig migrate --to` can put the result: smig's store, an export, or an agent (its id).

    The agents are plugins, so this is a checked string rather than a closed enum: `destinations()`
    lists every valid one and `parse_destination` checks one that comes in.
    """

    __slots__ = ()
    STORE: ClassVar[Destination]
    MARKDOWN: ClassVar[Destination]
    JSON: ClassVar[Destination]

    @property
    def value(self) -> str:
        """The destination as a plain string (as a `StrEnum` member gave it)."""
        return str.__str__(self)


Destination.STORE = Destination("store")
Destination.MARKDOWN = Destination("markdown")
Destination.JSON = Destination("json")


def native_destinations() -> tuple[Destination, ...]:
    """Every installed agent smig can write sessions for, in the order a user picks among them (a
    read-only agent is none)."""
    return tuple(Destination(rules.id) for rules in in_choice_order() if not rules.read_only)


def destinations() -> tuple[Destination, ...]:
    """Every destination: smig's store, each installed agent, then the two exports."""
    return (Destination.STORE, *native_destinations(), Destination.MARKDOWN, Destination.JSON)


def parse_destination(name: str) -> Destination:
    """`name` as a destination; ValueError naming the valid ones when it is none."""
    for destination in destinations():
        if destination == name:
            return destination
    refused = refused_destination(name)
    if refused:
        raise ValueError(refused)
    valid = ", ".join(destinations())
    raise ValueError(f"{name!r} is not a destination (valid: {valid})")


EXPORT_SUFFIXES = {Destination.MARKDOWN: ".md", Destination.JSON: ".json"}


def export_targets(out: PurePath, wanted: Collection[Destination]) -> dict[Destination, PurePath]:
    """Where `--out` puts each export asked for: that file for one kind; for both, its name with each
    kind's suffix."""
    kinds = [kind for kind in EXPORT_SUFFIXES if kind in wanted]
    return {kind: out if len(kinds) == 1 else out.with_suffix(EXPORT_SUFFIXES[kind]) for kind in kinds}


def receiving_agent_of(destinations: set[Destination]) -> str | None:
    """The one agent a migration is written for, whose overhead its plan takes off; None when there is
    no native destination or several (then the agent the target model's provider implies counts)."""
    native = [destination.value for destination in native_destinations() if destination in destinations]
    return native[0] if len(native) == 1 else None


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of a native session as written: strictly alternating, tools flattened to text."""

    role: Role
    """USER or ASSISTANT only."""
    text: str
    timestamp: str | None = None
    source_ids: tuple[str, ...] = ()
    """Ids of the migrated messages merged into this turn."""


@dataclass(frozen=True, slots=True)
class Lineage:
    """Where a written session came from, recorded in it and in storage."""

    source_agent: str
    source_id: str
    source_path: str
    migration_id: str
    omitted: int = 0
    """Conversation messages the plan left out (`plans.left_out`; 0 when migrated as-is)."""
    strategy: str = "as-is"
    omitted_tokens: int = 0
    """Their tokens, as the placeholder states them."""
    target: str | None = None
    """The model the plan was sized for (the written session may record another the agent runs)."""
    origin_cwd: str | None = None
    """The source's working directory when the session was written for another folder (`--cwd`)."""

    def as_json(self) -> dict[str, Any]:
        """As a written session records it (`smigLineage`), in the field names of the agents' JSON."""
        return {
            "sourceAgent": self.source_agent,
            "sourceId": self.source_id,
            "sourcePath": self.source_path,
            "migrationId": self.migration_id,
            "strategy": self.strategy,
            "omitted": self.omitted,
            "omittedTokens": self.omitted_tokens,
            "planningTarget": self.target,
            "originCwd": self.origin_cwd,
        }


def shown_command(argv: Sequence[str], cwd: str | None) -> str:
    """The one line a user pastes to continue: change to the folder, then the client's command line."""
    line = shlex.join(argv)
    return f"cd {shlex.quote(cwd)} && {line}" if cwd else line


@dataclass(frozen=True, slots=True)
class NativeOutput:
    """A native session written (or, in a dry run, that would be written) for a target agent.

    How to continue it is kept as data (`argv` run in `cwd`) and the command shown is derived from
    it, so what smig prints and what `--continue` starts cannot disagree.
    """

    agent: str
    path: str
    session_id: str
    argv: tuple[str, ...]
    """The receiving client's command line that continues the session: `("claude", "--resume", ID)`."""
    cwd: str | None = None
    """The folder to run it in: the project the session was written for (None: any)."""

    def __post_init__(self) -> None:
        if isinstance(self.argv, str):  # a shell line would be started word by word, letter by letter
            raise TypeError("NativeOutput.argv is the command's words, not a shell line")

    @property
    def resume_command(self) -> str:
        """The exact command that continues the session, as shown and copied."""
        return shown_command(self.argv, self.cwd)


@dataclass(frozen=True, slots=True)
class ContinueLatest:
    """Which session a client's "continue the latest" picks in the migration's folder, right after the commit.

    A home the client has used for months holds sessions of the user's own, some newer than the
    migrated conversation; each client picks by its own rule (file time, start time, its index), so
    the result says which one it will pick rather than leaving the user to find out.
    """

    agent: str
    command: str
    """What the user types in the folder: `codex resume --last`, `claude -c`, …"""
    folder: str
    picks: str | None
    """The id of the session it picks; None when it picks nothing or smig cannot tell."""
    migration: bool
    """True when it picks the migration."""
    sentence: str
    """The fact in one sentence, with the way to the migration when it is not the pick."""


def continue_fact(output: NativeOutput, command: str, folder: str, picks: str | None, why: str = "") -> ContinueLatest:
    """The fact about a client's "continue the latest" in `folder` after `output` was written, in one sentence.

    `why` says, as a clause, why the pick is not the migration or cannot be told."""
    resume = output.resume_command.split(" && ", 1)[-1]
    if picks == output.session_id:
        sentence = f"`{command}` in {folder} continues this migration."
    elif picks:
        sentence = f"`{command}` in {folder} picks session {picks}{why}, not this migration; `{resume}` continues it."
    else:
        sentence = f"`{command}` in {folder} may not pick this migration{why}; `{resume}` continues it."
    return ContinueLatest(output.agent, command, folder, picks, picks == output.session_id, sentence)


@dataclass(frozen=True, slots=True)
class PlannedFile:
    """A file a migration will create: its bytes are ready before anything is written."""

    destination: Destination
    path: str
    data: str
    mtime: float | None = None
    overwrite: bool = False
    native: NativeOutput | None = None

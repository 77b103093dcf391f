"""Provides the read-back check of a written native session: smig's own reader must see the plan.

A writer bug, a full disk or a client-format drift could leave a session that resumes with
messages missing, reordered or altered. So after writing, the file is read back with the same
reader `smig list` uses and compared with what the plan meant to write: the number of messages,
their order and roles, and a hash of every text. The first difference is reported in one sentence.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from smig_tui.core.errors import SmigError
from smig_tui.core.models import ReadWarning, Role, Session, SessionInfo
from smig_tui.core.native import NativeOutput, Turn
from smig_tui.core.ports import NativeWriter, WarningSink


class ReadBackError(SmigError):
    """A written native session does not read back as planned."""


@dataclass(frozen=True, slots=True)
class Expected:
    """One message a native session should read back as: its role and the hash of its text."""

    role: Role
    sha256: str

    @classmethod
    def of(cls, role: Role, text: str) -> Expected:
        """The expectation for a message with this role and text."""
        return cls(role, _digest(text))


def expected_from(turns: Sequence[Turn], preamble: str | None = None) -> tuple[Expected, ...]:
    """What a session written from `turns` (after a separate model-visible `preamble`) reads back as."""
    head = (Expected.of(Role.USER, preamble),) if preamble else ()
    return head + tuple(Expected.of(turn.role, turn.text) for turn in turns)


PathT_contra = TypeVar("PathT_contra", contravariant=True)


class ListsOneFile(Protocol[PathT_contra]):
    """A reader that lists one session file by its path (`describe`) and loads what it listed."""

    def describe(self, path: PathT_contra, warn: WarningSink, /) -> SessionInfo | None: ...

    def load(self, info: SessionInfo, warn: WarningSink, /) -> Session: ...


def read_listed(source: ListsOneFile[PathT_contra], path: PathT_contra, name: str) -> Session:
    """A written session file read as `smig list` reads it: listed by `source`, then loaded.

    A writer's `read_back` for an agent that keeps one file per session: `name` is the agent's display
    name for the sentence when the reader does not list the file at all.
    """
    info = source.describe(path, _quiet)
    if info is None:
        raise ReadBackError(f"The written {name} session {path} cannot be read back.")
    return source.load(info, _quiet)


def _quiet(_: ReadWarning) -> None:
    """Drop a reader's warning: a difference is what `verify` reports, in its own words."""


def verify(writer: NativeWriter, output: NativeOutput, expected: Sequence[Expected]) -> None:
    """Raise ReadBackError naming the first difference between the written session and the plan.

    The session is read by its writer's `read_back`: the reader `smig list` uses for that agent.
    """
    try:
        session = writer.read_back(output)
    except ReadBackError:
        raise
    except (SmigError, OSError, ValueError) as error:
        raise ReadBackError(
            f"The written {output.agent} session {output.path} cannot be read back ({error})."
        ) from error
    got = [Expected.of(message.role, message.text) for message in session.messages]
    where = f"The written {output.agent} session {output.path}"
    if len(got) != len(expected):
        raise ReadBackError(f"{where} reads back {len(got)} messages where the plan wrote {len(expected)}.")
    for number, (back, meant) in enumerate(zip(got, expected, strict=True), start=1):
        if back.role is not meant.role:
            raise ReadBackError(
                f"{where} reads back message {number} as {back.role.value}, where the plan wrote {meant.role.value}."
            )
        if back.sha256 != meant.sha256:
            raise ReadBackError(
                f"{where} reads back message {number} with other text than the plan wrote "
                f"(sha256 {back.sha256[:12]} instead of {meant.sha256[:12]})."
            )


def _digest(text: str) -> str:
    """sha256 of a text (surrogates kept, as readers keep them)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

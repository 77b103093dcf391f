"""Provides the export feature: a session or a plan's result as Markdown, JSON, OpenAI chat or a memory note."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smig_tui.services.base import ServicesBase
from smig_tui.services.plan import migrated_messages

if TYPE_CHECKING:
    from smig_tui.core.export import ExportFormat
    from smig_tui.core.models import Message, Plan, Session


class Exports(ServicesBase):
    """Renders streamed and redacted, written only where the output-path rules allow."""

    def with_texts(self, messages: Sequence[Message]) -> Iterator[Message]:
        """The messages with their whole texts in hand, the ones left on disk read back a batch at a time
        (in file order, one open per batch) rather than one open per text."""
        from smig_tui.adapters.redact_pool import read_in_batches

        return read_in_batches(messages)

    def export(self, session: Session, fmt: ExportFormat, plan: Plan | None = None, redact: bool = True) -> str:
        """Render a session (or a plan's migrated conversation) as Markdown, JSON, OpenAI chat or a memory note."""
        return "".join(self.export_chunks(session, fmt, plan, redact))

    def export_chunks(
        self, session: Session, fmt: ExportFormat, plan: Plan | None = None, redact: bool = True
    ) -> Iterator[str]:
        """`export` in pieces: Markdown streams message by message, each redacted as it is written,
        so a whole huge session is neither redacted twice nor held in memory as one document."""
        from smig_tui.core import export
        from smig_tui.core.handoff import redact_header, redact_plan, redact_title

        fmt = export.ExportFormat(fmt)
        messages = migrated_messages(plan) if plan is not None else session.messages
        if fmt is export.ExportFormat.MEMORY:
            from smig_tui.adapters.redact_pool import redacted_in_batches
            from smig_tui.core.memory_markdown import to_memory_markdown
            from smig_tui.core.redact import redact as redact_text

            if not redact:
                yield to_memory_markdown(session, plan)
                return
            # The note cuts what it quotes, so what it reads is redacted first: a few messages of the
            # session (no tool output), read back and redacted a batch at a time.
            note = to_memory_markdown(redact_title(session), plan, redacted_in_batches)
            yield redact_text(note).text
            return
        if redact:
            session = redact_header(session)  # renderers read only its title and goal
            plan = redact_plan(plan) if plan is not None else None
        from smig_tui.adapters.redact_pool import batches, read_batches, redacted_batches, worth_workers

        prepare = partial(redacted_batches, parallel=worth_workers(messages)) if redact else read_batches
        if fmt is export.ExportFormat.MARKDOWN:
            yield from export.markdown_chunks(session, messages, plan, prepare)
            return
        # JSON streams too: each batch read back and redacted as it is written, one object at a time
        # (a whole 500 MB session as objects and one string peaked at 1.1-1.8 GB).
        from smig_tui.core.json_text import LazyList, blocks, indented_json

        read = chain.from_iterable(prepare(batches(messages)))
        data: Any = (
            LazyList(export.streamed_openai_messages(read))
            if fmt is export.ExportFormat.OPENAI
            else export.to_record(session, read, plan, lazy=True)
        )
        yield from blocks(indented_json(data))
        yield "\n"

    def check_output(self, out: Path, force: bool = False, source: str | None = None) -> Path:
        """Refuse a bad output path before any work is done (see `output_paths`); return where it writes."""
        from smig_tui.adapters.output_paths import agent_folders, check_output_path

        folders = agent_folders(self.agents, self.paths, self.env)
        return check_output_path(out, self.paths, force=force, sources=[source] if source else [], agents=folders)

    def save_export(self, text: str | Iterable[str], out: Path, force: bool = False, source: str | None = None) -> Path:
        """Write an export atomically where the output-path rules allow (see `output_paths`).

        An existing regular file is replaced only with `force`; `source` (the session read) never is.
        """
        from smig_tui.adapters.fs import atomic_write

        target = self.check_output(out, force, source)
        atomic_write(target, text, mode=0o600, overwrite=force, make_parents=False)
        return target

    def copy_text(self, text: str) -> str:
        """Put text on the clipboard (OSC 52 on a terminal, else a system tool); says which."""
        import sys

        from smig_tui.adapters.clipboard import copy_to_clipboard

        return copy_to_clipboard(text, use_terminal=sys.stdout.isatty())

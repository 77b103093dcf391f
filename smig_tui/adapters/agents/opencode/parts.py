# smig: compiled with mypyc where it can (setup.py)
"""Provides the read of one OpenCode session's part rows, in message order, as the conversion asks.

A 500 MB session has about 200,000 parts, each a JSON row parsed and handed on one at a time: this
loop is per-row Python, so it lives apart from the listing's code to be compiled (loading only).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from smig_tui.adapters.json_parse import parse
from smig_tui.adapters.stored_text import FILE_BYTES, TextPacker, packed
from smig_tui.core.models import ReadWarning, StoredText
from smig_tui.core.ports import WarningSink

PARTS_IN_ORDER = (
    "SELECT m.id, p.id, p.data FROM message m CROSS JOIN part p ON p.message_id = m.id "
    "WHERE m.session_id = ? AND p.session_id = ? ORDER BY m.time_created, m.id, p.id"
)
"""A session's parts in its messages' order, each message's by id: the messages' index gives their
order and the parts' index each one's (CROSS JOIN keeps SQLite to that plan: no sort of the whole)."""


class RowSource:
    """Where the rows come from, to name in a warning: the database file and whose it is."""

    def __init__(self, database: Path, warn: WarningSink, name: str) -> None:
        self.database, self.warn, self.name = database, warn, name

    def json_object(self, data: object) -> dict[str, Any] | None:
        """One row's JSON object, or None with a warning when it does not parse."""
        try:
            parsed = parse(data) if isinstance(data, str | bytes) else None
        except (ValueError, RecursionError):  # damaged or nested too deeply
            parsed = None
        if not isinstance(parsed, dict):
            self.warn(ReadWarning(str(self.database), None, f"skipped a {self.name} record that is not a JSON object"))
            return None
        return parsed


class PartsInOrder:
    """Each message's parts, from one pass over `PARTS_IN_ORDER` as the conversion asks for them in
    message order. Every part is parsed, the skipped messages' too (a damaged one is a warning, as
    when they were all read first). The texts of the messages they become are packed (`pack`) from the
    first part in a big database (`packer`: how big the session is, is known only once its parts are
    read, and packing from 64 MB of them on held the first 64 MB's outputs whole, about 50 MB of a 500 MB
    session), else once 64 MB are read."""

    def __init__(
        self,
        cursor: Iterator[tuple[str, str, Any]],
        order: dict[str, int],
        rows: RowSource,
        packer: TextPacker | None = None,
    ) -> None:
        self._cursor, self._order, self._rows = cursor, order, rows
        self._row: tuple[str, str, Any] | None = next(cursor, None)
        self._read = 0
        self._packer = packer

    def of(self, message_id: str) -> tuple[dict[str, Any], ...]:
        """The parts of `message_id`, the parts of the messages before it passed over."""
        place = self._order[message_id]
        parts = []
        row = self._row
        while row is not None and self._order[row[0]] <= place:
            owner, part_id, data = row
            part = self._part(part_id, data)
            if part is not None and owner == message_id:
                parts.append(part)
            row = next(self._cursor, None)
        self._row = row
        return tuple(parts)

    def pack(self, text: str) -> str | StoredText:
        """A message's body of `text`: packed once the session counts as big (a dense one's short texts,
        held as strings, were 130 MB of a 709 MB database's session), else the text itself."""
        return text if self._packer is None else packed(text, self._packer)

    def drain(self) -> None:
        """Parse the parts no kept message asked for (a reverted tail's), for their warnings."""
        while self._row is not None:
            self._part(self._row[1], self._row[2])
            self._row = next(self._cursor, None)

    def _part(self, part_id: str, data: Any) -> dict[str, Any] | None:
        part = self._rows.json_object(data)
        if part is None:
            return None
        if self._packer is None and isinstance(data, str | bytes):
            self._read += len(data)
            if self._read >= FILE_BYTES:
                self._packer = TextPacker()  # a big session: from here on its texts are packed
        part["id"] = part_id
        return part

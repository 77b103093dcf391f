# smig: compiled with mypyc where it can (setup.py)
"""Provides the parse of one Gemini CLI session file into its metadata and message records.

Gemini CLI 0.61.0 appends JSON lines to `session-*.jsonl`: a metadata line (`sessionId`,
`projectHash`, `startTime`, `kind`, …), message records (`id`, `type`, `content`, …; a record with
a known id replaces the earlier one in place, as the client updates a reply with its tool calls and
token figures), `{"$set": {...}}` metadata updates (a `messages` array there replaces the whole
conversation, as on resume or compression) and `{"$rewindTo": id}`, which drops that message and
everything after it. Older releases wrote one JSON document (`session-*.json`) holding `messages`.
The rules follow the client's own `loadConversationRecord`, so smig sees the conversation it resumes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.content_parts import pack_response_outputs
from smig_tui.adapters.agents.file_sessions import open_lines
from smig_tui.adapters.json_parse import fast_loads, parse
from smig_tui.adapters.stored_text import FILE_BYTES, TextPacker


@dataclass
class ConversationFile:
    """What a session file holds, in the client's order, with where each message record was last seen."""

    meta: dict[str, Any] = field(default_factory=dict)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Message records by id, in conversation order."""
    lines: dict[str, int] = field(default_factory=dict)
    """1-based line of each message's latest record (the document's line 1 for a legacy file)."""
    damaged: list[int] = field(default_factory=list)
    """Lines that are not JSON (a half-written last line while the client writes, or damage)."""
    legacy: bool = False
    """One JSON document (before Gemini CLI wrote JSON lines)."""

    @property
    def session_id(self) -> str | None:
        value = self.meta.get("sessionId")
        return value if isinstance(value, str) and value else None


class NotASession(ValueError):
    """The file is neither a JSON-lines session nor a whole session document."""


def read_conversation(path: Path, pack: bool = False) -> ConversationFile:
    """Parse a session file, tolerating damaged lines; raise NotASession when nothing is usable.

    Lines are read one at a time: the whole file as bytes and then as a list of lines held 1 GB of a
    500 MB session before a record was parsed. With `pack`, a big file's long tool outputs are packed
    as they are read (`pack_outputs`): a reader must hold every record until the last line, since a
    later one may replace or rewind it, and the client records each output twice.
    """
    packer = TextPacker() if pack and path.stat().st_size >= FILE_BYTES else None
    if packer is not None and _starts_as_document(path):
        streamed = _stream_document(path, packer)
        if streamed is not None:
            return streamed
    with open_lines(path) as handle:
        parsed = _parse_lines(handle, packer)
    if parsed.session_id and isinstance(parsed.meta.get("projectHash"), str):
        return parsed
    return _parse_document(path.read_bytes(), parsed)


def _parse_lines(lines: Iterable[bytes], packer: TextPacker | None = None) -> ConversationFile:
    conversation = ConversationFile()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = parse(line)
        except (ValueError, RecursionError):  # damaged or nested too deeply
            conversation.damaged.append(number)
            continue
        if isinstance(record, dict):
            if packer is not None:
                pack_outputs(record, packer)
            _apply(conversation, record, number)
        else:
            conversation.damaged.append(number)
    return conversation


def _apply(conversation: ConversationFile, record: dict[str, Any], number: int) -> None:
    """Fold one line into the conversation, as the client does."""
    messages = conversation.messages
    if isinstance(record.get("$rewindTo"), str):
        ids = list(messages)
        target = record["$rewindTo"]
        for removed in ids[ids.index(target) :] if target in messages else ids:
            del messages[removed]
    elif isinstance(record.get("id"), str):
        messages[record["id"]] = record
        conversation.lines[record["id"]] = number
    elif isinstance(record.get("$set"), dict):
        update = record["$set"]
        if isinstance(update.get("messages"), list):
            messages.clear()
            _add_all(conversation, update["messages"], number)
        conversation.meta.update({key: value for key, value in update.items() if key != "messages"})
    elif isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
        started = conversation.meta.get("startTime")  # a resume writes the metadata again, restamped
        conversation.meta.update({key: value for key, value in record.items() if key != "messages"})
        if started:
            conversation.meta["startTime"] = started
        if isinstance(record.get("messages"), list):
            _add_all(conversation, record["messages"], number)


def _add_all(conversation: ConversationFile, records: list[Any], number: int) -> None:
    for message in records:
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            conversation.messages[message["id"]] = message
            conversation.lines[message["id"]] = number


def _parse_document(raw: bytes, lines: ConversationFile) -> ConversationFile:
    """A legacy `.json` session: one document with `sessionId` and `messages`."""
    try:
        document = json.loads(raw)
    except RecursionError:
        if lines.session_id:
            return lines
        raise NotASession("not a readable Gemini CLI session (its JSON is nested too deeply)") from None
    except ValueError as error:
        if lines.session_id:  # JSON lines with a metadata line that lacks projectHash: keep what there is
            return lines
        where = f" at line {error.lineno}, column {error.colno}" if isinstance(error, json.JSONDecodeError) else ""
        raise NotASession(f"not a readable Gemini CLI session (its JSON is cut off or damaged{where})") from error
    if not isinstance(document, dict) or not isinstance(document.get("sessionId"), str):
        raise NotASession("not a Gemini CLI session (no sessionId)")
    conversation = ConversationFile(legacy=True)
    conversation.meta = {key: value for key, value in document.items() if key != "messages"}
    if isinstance(document.get("messages"), list):
        _add_all(conversation, document["messages"], 1)
    return conversation


def _starts_as_document(path: Path) -> bool:
    """Whether the file starts as one JSON document: pretty-printed (its first line a lone brace), or on
    a first line longer than a megabyte (a metadata line is short) or that is the whole file."""
    with path.open("rb") as handle:
        head = handle.readline(_CHUNK)
    return head.strip() == b"{" or not head.endswith(b"\n")


def _stream_document(path: Path, packer: TextPacker) -> ConversationFile | None:
    """A big session written as one document, parsed a message at a time with its long outputs packed as
    each is parsed (whole, the file, its text and its records held 1.6 GB of a 500 MB session); the very
    conversation the whole parse gives. None when it is not one well-formed document (damaged, or lines
    after it): the caller then parses it as before, which words what is wrong."""
    try:
        with path.open("r", encoding="utf-8", errors="surrogatepass", newline="") as handle:
            stream = _Stream(handle)
            document = stream.document(packer)
    except (ValueError, OSError):
        return None
    if not stream.newline_inside:  # one line: read as the lines reader reads a line
        parsed = ConversationFile()
        _apply(parsed, document, 1)
        if parsed.session_id and isinstance(parsed.meta.get("projectHash"), str):
            return parsed
    if not isinstance(document.get("sessionId"), str):
        return None
    conversation = ConversationFile(legacy=True)
    conversation.meta = {key: value for key, value in document.items() if key != "messages"}
    if isinstance(document.get("messages"), list):
        _add_all(conversation, document["messages"], 1)
    return conversation


_CHUNK = 1 << 20
_WHITESPACE = " \t\n\r"
_MESSAGE_START = "\n    {"
_MESSAGE_END = "\n    }"
"""How the client's own write (`JSON.stringify(conversation, null, 2)`) opens and closes each message of
the document: no other line of a message starts with four spaces and a brace (its keys are indented six,
and a string holds no raw line break), so the first such line after a message's start is its end."""
_MISSES = 3
"""Messages whose end the indentation did not give before the stream stops looking for it there."""


class _Stream:
    """The text of a file read on as a parse needs it: each value is decoded whole by the JSON decoder
    once enough text is in hand (a value cut by the buffer's end is tried again on twice the text)."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self._decoder = json.JSONDecoder()
        self._text = ""
        self._pos = 0
        self._eof = False
        self._newline_read = False
        self.newline_inside = False
        """Whether a line break came before the document's end (not one line)."""
        self._misses = 0
        self.standard_parses = 0
        """Values the standard decoder parsed (the messages of a document the client indented are not)."""

    def _more(self) -> None:
        if self._eof:
            raise ValueError("the document is cut off")
        self._newline_read = self._newline_read or self._text.find("\n", 0, self._pos) >= 0
        rest = self._text[self._pos :]
        read = self._handle.read(max(_CHUNK, len(rest)))
        self._eof = not read
        self._text, self._pos = rest + read, 0

    def _peek(self) -> str:
        """The next character that is not whitespace ("" at the end of the file)."""
        while True:
            text, pos = self._text, self._pos
            while pos < len(text) and text[pos] in _WHITESPACE:
                pos += 1
            self._pos = pos
            if pos < len(text) or self._eof:
                return text[pos] if pos < len(text) else ""
            self._more()

    def _take(self, expected: str) -> str:
        found = self._peek()
        if found not in expected or not found:
            raise ValueError(f"expected one of {expected!r}")
        self._pos += 1
        return found

    def _value(self) -> Any:
        self.standard_parses += 1
        self._peek()
        while True:
            try:
                value, end = self._decoder.raw_decode(self._text, self._pos)
            except ValueError:
                self._more()  # raises at the end of the file: damaged
                continue
            if end == len(self._text) and not self._eof:
                self._more()  # a number may go on past the buffer
                continue
            self._pos = end
            return value

    def document(self, packer: TextPacker) -> dict[str, Any]:
        """The whole document, each message's long outputs packed as the message is parsed."""
        document: dict[str, Any] = {}
        self._take("{")
        if self._peek() == "}":
            self._pos += 1
        else:
            while True:
                key = self._value()
                if not isinstance(key, str):
                    raise ValueError("a key is not a string")
                self._take(":")
                if key == "messages" and self._peek() == "[":
                    document[key] = self._messages(packer)
                else:
                    document[key] = self._value()
                if self._take(",}") == "}":
                    break
        self.newline_inside = self._newline_read or self._text.find("\n", 0, self._pos) >= 0
        if self._peek():
            raise ValueError("more after the document")
        return document

    def _messages(self, packer: TextPacker) -> list[Any]:
        self._take("[")
        if len(self._text) - self._pos < len(_MESSAGE_START) and not self._eof:
            self._more()
        indented = self._text.startswith(_MESSAGE_START, self._pos)
        messages: list[Any] = []
        if self._peek() == "]":
            self._pos += 1
            return messages
        while True:
            message = self._message() if indented and self._misses < _MISSES else self._value()
            if isinstance(message, dict):
                pack_outputs(message, packer)
            messages.append(message)
            if self._take(",]") == "]":
                return messages

    def _message(self) -> Any:
        """The next message of an indented document, parsed by msgspec up to the line that closes it
        (`_MESSAGE_END`): the standard decoder took 1.0 s of the 2.7 s read of a 500 MB document, msgspec
        0.4 s. A JSON object's extent is fixed by its braces, so text that parses whole as one object is
        exactly the value the standard decoder would read there; what does not (a document indented
        otherwise) is read by the standard decoder, and after a few such messages only by it."""
        self._peek()
        end = self._find(_MESSAGE_END)  # reading on moves the text: the message starts at `_pos` after
        if end >= 0:
            end += len(_MESSAGE_END)
            value = fast_loads(self._text[self._pos : end])
            if isinstance(value, dict):
                self._pos = end
                return value
        self._misses += 1
        return self._value()

    def _find(self, text: str) -> int:
        """Where `text` next occurs from the current position, reading on as needed; -1 when it does not."""
        while True:
            at = self._text.find(text, self._pos)
            if at >= 0 or self._eof:
                return at
            self._more()


def pack_outputs(record: dict[str, Any], packer: TextPacker) -> None:
    """Swap each long tool output (`functionResponse.response.output`, in a reply's calls and in the user
    record that answers them, also inside a `$set` of messages) for a `PackedText` in place; the
    converter takes one as the result's body as it is."""
    for message in _messages_of(record):
        parts = [message.get("content")]
        for call in message.get("toolCalls") or ():
            if isinstance(call, dict):
                parts.append(call.get("result"))
        for content in parts:
            pack_response_outputs(content, packer)


def _messages_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    update = record.get("$set")
    listed = update.get("messages") if isinstance(update, dict) else record.get("messages")
    found = [message for message in listed if isinstance(message, dict)] if isinstance(listed, list) else []
    return [record, *found] if isinstance(record.get("id"), str) else found

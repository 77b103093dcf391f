# smig: compiled with mypyc where it can (setup.py)
"""Provides quick tests on Claude Code lines and fields, so bulky records skip the JSON parser."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

LINK_ONLY_TYPES = frozenset({b"progress", b"attachment"})
"""Records that can sit on the parent chain but carry no conversation: only their links matter."""
SKIPPED_TYPES = frozenset({b"file-history-snapshot", b"queue-operation"})
"""Records with no uuid and nothing a reader needs."""

PROJECT_DIR_ENV = "CLAUDE_CODE_PROJECT_DIR_NAME"
"""Since 2.1.234 it names the `projects/` folder of every session the client starts or resumes."""
_PROJECT_DIR_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What 2.1.332 accepts; anything else (a dot, a slash, 65+ characters) is ignored for the default."""

_TYPE_KEY = b'"type":"'
_PARENT_PREFIX = re.compile(rb'\{"parentUuid":(?:null|"([^"\\]*)")')
_UUID_KEY = b'"uuid":"'
_TIMESTAMP_KEY = b'"timestamp":"'


def project_dir_override(environ: Mapping[str, str]) -> str | None:
    """The project folder name `CLAUDE_CODE_PROJECT_DIR_NAME` sets, when Claude Code would use it."""
    name = environ.get(PROJECT_DIR_ENV, "")
    return name if _PROJECT_DIR_NAME.fullmatch(name) else None


def first_type(raw: bytes) -> bytes | None:
    """Return the value of the first `"type"` key in a line.

    Claude Code writes the envelope before `data`/`message`, so for the bulky record kinds this is
    the record type; for `user`/`assistant` lines it is at worst a nested block type, which is never
    one of the skipped kinds, so a false skip cannot happen on them.
    """
    start = raw.find(_TYPE_KEY)
    if start < 0:
        return None
    start += len(_TYPE_KEY)
    end = raw.find(b'"', start)
    return raw[start:end] if end > 0 else None


def links(raw: bytes) -> tuple[str, str | None] | None:
    """Read (uuid, parentUuid) from a line's bytes, or None when its layout is not the usual one.

    The usual layout starts with `parentUuid` and ends with the record's own `uuid`, after any
    nested `data` that may hold uuids of its own; hence the last `"uuid"` key is the record's.
    """
    match = _PARENT_PREFIX.match(raw)
    if match is None:
        return None
    start = raw.rfind(_UUID_KEY)
    if start < 0:
        return None
    start += len(_UUID_KEY)
    end = raw.find(b'"', start)
    if end <= start:
        return None
    parent = match.group(1)
    try:
        return raw[start:end].decode("utf-8"), parent.decode("utf-8") if parent else None
    except UnicodeDecodeError:
        return None


def own_timestamp(raw: bytes) -> str | None:
    """Read a line's own timestamp from its bytes: the last one, after any nested data."""
    start = raw.rfind(_TIMESTAMP_KEY)
    if start < 0:
        return None
    start += len(_TIMESTAMP_KEY)
    end = raw.find(b'"', start)
    try:
        value = raw[start:end].decode("ascii") if end > start else ""
    except UnicodeDecodeError:
        return None
    return value if is_timestamp(value) else None


def is_timestamp(value: Any) -> bool:
    """Tell whether a field looks like the ISO 8601 time Claude Code writes."""
    return isinstance(value, str) and value[:2] in ("19", "20") and "T" in value


def looks_absolute(value: Any) -> bool:
    """Tell whether a record's cwd is a usable absolute path (POSIX or Windows)."""
    if not isinstance(value, str) or not value:
        return False
    return value.startswith(("/", "\\\\")) or (len(value) > 2 and value[1] == ":" and value[2] in "\\/")

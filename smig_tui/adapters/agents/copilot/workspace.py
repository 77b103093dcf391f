"""Provides `workspace.yaml`, the metadata Copilot CLI keeps beside a session's events: read and written.

Copilot CLI 1.0.102 writes flat `key: value` lines (`id`, `cwd`, `name`, `user_named`, …), quoting a
value as YAML needs it; its picker lists a session under `name`. smig reads only those flat scalars
(no YAML library: a block or a list is not a scalar smig needs) and writes values double-quoted,
JSON's escapes being YAML's.
"""

from __future__ import annotations

import json
from pathlib import Path

MAX_BYTES = 64 * 1024
"""More than any workspace.yaml holds: a bigger file is not read (it is not Copilot's)."""


def _scalar(raw: str) -> str:
    """One flat YAML scalar: double-quoted (JSON's escapes), single-quoted (`''` for a quote) or plain."""
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            decoded = json.loads(value)
        except ValueError:
            return value[1:-1]
        return decoded if isinstance(decoded, str) else value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value.split(" #", 1)[0].rstrip()


def read_workspace(path: Path) -> dict[str, str]:
    """The flat scalars of a `workspace.yaml` (empty when it is missing, too big or unreadable)."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return {}
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line[0] in " \t#-" or ":" not in line:
            continue
        key, _, value = line.partition(":")
        if key.strip() and value.strip():
            fields[key.strip()] = _scalar(value)
    return fields


PLAIN = frozenset({"id", "created_at", "updated_at"})
"""Fields written plain, as the client writes them (a UUID, ISO times: nothing YAML reads otherwise)."""


def render_workspace(fields: dict[str, str | int | bool]) -> str:
    """A `workspace.yaml` with these fields in order: text double-quoted, ids, times, numbers and booleans plain."""
    lines = []
    for key, value in fields.items():
        if isinstance(value, bool):
            shown = "true" if value else "false"
        elif isinstance(value, int) or key in PLAIN:
            shown = str(value)
        else:
            shown = json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {shown}\n")
    return "".join(lines)

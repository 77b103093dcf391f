"""Provides reading of OpenCode's legacy `storage/` JSON tree (installs from before the database).

Layout: `session/<projectID>/<sessionID>.json` (the session info), `message/<sessionID>/<id>.json`
(each message's info) and `part/<messageID>/<id>.json` (each part). OpenCode copies this tree into
its database on upgrade, so the source lists a tree session only when the database lacks its id.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.opencode.convert import Row, as_dict, facts_of, iso_ms
from smig_tui.core.models import Agent, ReadWarning, SessionInfo
from smig_tui.core.ports import WarningSink

TITLE_WIDTH = 120
"""Characters of a session's title kept in its listing entry (redacted before it is cut)."""


def stored_sessions(storage: Path) -> Iterator[Path]:
    """Every session info file of the tree (none when there is no tree)."""
    root = storage / "session"
    if not root.is_dir():
        return
    yield from sorted(root.glob("*/ses_*.json"))


def describe_stored(path: Path, warn: WarningSink) -> SessionInfo | None:
    """The listing entry of one session info file (None, with a warning, when unreadable)."""
    from smig_tui.core.redact import redacted_line  # not at import: `smig list` without OpenCode needs none

    data = _read(path, warn)
    if data is None or not isinstance(data.get("id"), str):
        return None
    times = as_dict(data.get("time"))
    parent = data.get("parentID") if isinstance(data.get("parentID"), str) else None
    stat = path.stat()
    return SessionInfo(
        id=data["id"],
        agent=Agent("opencode"),
        path=str(path),
        cwd=data.get("directory") or None,
        title=redacted_line(data.get("title"), TITLE_WIDTH),
        created=iso_ms(times.get("created")),
        updated=iso_ms(times.get("updated")),
        source_version=data.get("version"),
        origin="opencode",
        parent_id=parent,
        is_subagent=parent is not None,
        size=stat.st_size,
        mtime=stat.st_mtime,
        project=data.get("slug"),
    )


def load_stored_rows(storage: Path, info: SessionInfo, warn: WarningSink) -> list[Row]:
    """The session's messages with their parts, in id order (ids are time-ordered)."""
    rows = []
    for message_path in sorted((storage / "message" / info.id).glob("msg_*.json")):
        message = _read(message_path, warn)
        if message is None:
            continue
        message_id = str(message.get("id") or message_path.stem)
        parts = []
        for part_path in sorted((storage / "part" / message_id).glob("prt_*.json")):
            part = _read(part_path, warn)
            if part is not None:
                parts.append({**part, "id": part.get("id") or part_path.stem})
        rows.append(Row(facts_of(message, message_id), tuple(parts)))
    return rows


def _read(path: Path, warn: WarningSink) -> dict[str, Any] | None:
    """One JSON object file, or None with a warning naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        warn(ReadWarning(str(path), None, f"skipped an unreadable OpenCode file ({error})"))
        return None
    except RecursionError:
        warn(ReadWarning(str(path), None, "skipped an OpenCode file whose JSON is nested too deeply"))
        return None
    if not isinstance(data, dict):
        warn(ReadWarning(str(path), None, "skipped an OpenCode file that is not a JSON object"))
        return None
    return data

"""Builders for sessions and plans used by the commit/export tests (no reader or planner needed)."""

from __future__ import annotations

import json
from pathlib import Path

from smig_tui.core.models import (
    Agent,
    Decision,
    Kind,
    Message,
    Plan,
    PlanItem,
    Role,
    Session,
    SessionInfo,
    Strategy,
)

CONVERSATION: tuple[tuple[Role, Kind, str, str | None], ...] = (
    (Role.USER, Kind.TEXT, "# AGENTS.md instructions for /proj", None),
    (Role.USER, Kind.TEXT, "Fix the flaky parser test ZEBRA-41 in src/parser.py", None),
    (Role.ASSISTANT, Kind.REASONING, "thinking about it", None),
    (Role.ASSISTANT, Kind.TEXT, "Let me look at the parser first.", None),
    (Role.ASSISTANT, Kind.TOOL_CALL, '{"command": ["bash", "-lc", "pytest -q tests/test_parser.py"]}', "shell"),
    (Role.TOOL, Kind.TOOL_RESULT, "1 failed: test_unicode", "shell"),
    (Role.ASSISTANT, Kind.TOOL_CALL, '{"file_path": "src/parser.py", "old_string": "a", "new_string": "b"}', "Edit"),
    (Role.TOOL, Kind.TOOL_RESULT, "The file src/parser.py has been updated.", "Edit"),
    (Role.ASSISTANT, Kind.TEXT, "Fixed: the tokenizer now handles PELICAN-77 code points.", None),
    (Role.USER, Kind.TEXT, "Great, now add a regression test OSPREY-93.", None),
    (Role.ASSISTANT, Kind.TEXT, "Added tests/test_parser.py::test_osprey, all green.", None),
)


CODEX = Agent("codex")


def make_session(
    folder: Path,
    agent: Agent = CODEX,
    cwd: str | None = "/work/proj",
    session_id: str = "019b7f94-51b4-7593-922e-ba12b5b73b52",
) -> Session:
    """A small session whose source file exists on disk (so it can be hashed)."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / f"{session_id}.jsonl"
    source.write_text(json.dumps({"source": "fake", "id": session_id}) + "\n", encoding="utf-8")
    messages = []
    for index, (role, kind, text, tool) in enumerate(CONVERSATION):
        messages.append(
            Message(
                index=index,
                id=f"m{index}",
                role=role,
                kind=kind,
                body=text,
                tool_name=tool,
                call_id=f"c{index // 2}" if tool else None,
                timestamp=f"2026-01-02T10:00:{index:02d}.000Z",
                injected=index == 0,
            )
        )
    info = SessionInfo(
        id=session_id,
        agent=agent,
        path=str(source),
        cwd=cwd,
        title="Fix the flaky parser",
        model="gpt-5-codex",
        created="2026-01-02T10:00:00.000Z",
        updated="2026-01-02T10:00:10.000Z",
        size=source.stat().st_size,
        mtime=source.stat().st_mtime,
    )
    return Session(info=info, messages=tuple(messages), extra={"git_branch": "main"})


def make_plan(session: Session, target: str = "gpt-5.5", keep_last: int | None = None) -> Plan:
    """As-is when `keep_last` is None, else a truncation keeping the newest `keep_last` messages."""
    total = len(session.messages)
    kept_from = 0 if keep_last is None else total - keep_last
    items = tuple(
        PlanItem(
            message=message,
            tokens=10,
            kept=message.index >= kept_from,
            reason="newest" if message.index >= kept_from else "over budget",
        )
        for message in session.messages
    )
    fits = keep_last is None
    decision = Decision(
        target=target, session_tokens=10 * total, window=10 * total if fits else 50, reserve=0, fits=fits
    )
    placeholder = (
        None
        if fits
        else (
            f"[smig: {kept_from} earlier messages omitted ({10 * kept_from} tokens). "
            f"The conversation began with: «{session.messages[1].text}»]"
        )
    )
    return Plan(
        strategy=Strategy.AS_IS if fits else Strategy.TRUNCATE,
        decision=decision,
        items=items,
        placeholder=placeholder,
        tokens_before=10 * total,
        tokens_after=10 * (total - kept_from) + (12 if placeholder else 0),
    )


def install_shared_fixture(original: Path, codex_home: Path, claude_home: Path) -> Path | None:
    """Lay a real fixture file out where its agent keeps sessions; None when it names no session."""
    lines = [line for line in original.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    if original.parent.name == "codex":
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("type") == "session_meta":
                thread = record["payload"]["id"]
                target = codex_home / "sessions" / "2026" / "01" / "01" / f"rollout-2026-01-01T00-00-00-{thread}.jsonl"
                break
        else:
            return None
    else:
        session_id = None
        for line in lines:
            try:
                session_id = json.loads(line).get("sessionId") or session_id
            except ValueError:
                continue
            if session_id:
                break
        if not session_id:
            return None
        target = claude_home / "projects" / "-fixture" / f"{session_id}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(original.read_bytes())
    return target

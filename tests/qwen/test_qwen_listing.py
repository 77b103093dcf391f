"""The cheap listing of a Qwen Code session (its records' first bytes, a few records parsed) equals the
whole read field by field but the message count, on every recorded file, on generated homes and on
odd files; where the file's lines cannot say (a rewind, a compression with no reply after it, a
damaged line) it declines and the whole read answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import listing_equality as equality
import pytest

from smig_devtools.qwen_corpus import generate_qwen
from smig_tui.adapters.agents.qwen import source as qwen_source
from smig_tui.adapters.agents.qwen.listing import listing_from_ends, whole_listing
from smig_tui.adapters.agents.qwen.records import read_session
from smig_tui.adapters.agents.qwen.source import QwenSource
from smig_tui.core.models import SessionInfo

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "qwen"
RECORDED = sorted(REAL.rglob("*.jsonl"))
COMPACT = next(path for path in RECORDED if "work-compact" in str(path))
CHAT = next(path for path in RECORDED if "work-chat" in str(path))


def same_as_whole(path: Path, cheap_expected: bool) -> None:
    equality.same_as_whole(path, cheap_expected, listing_from_ends, lambda p: whole_listing(read_session(p)))


def described(path: Path, monkeypatch: pytest.MonkeyPatch, cheap: bool) -> tuple[SessionInfo | None, list[str]]:
    return equality.described(QwenSource(path.parent), qwen_source, path, monkeypatch, cheap)


@pytest.mark.parametrize("path", RECORDED, ids=[p.parent.parent.name or p.name for p in RECORDED])
def test_every_recorded_session_lists_cheaply_as_the_whole_read_does(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    same_as_whole(path, cheap_expected=True)
    equality.same_entry(QwenSource(path.parent), qwen_source, path, monkeypatch)


def test_generated_sessions_list_cheaply_as_the_whole_read_does(tmp_path: Path) -> None:
    entries = equality.generated_entries(tmp_path)
    generate_qwen(tmp_path / "made", entries)
    files = sorted((tmp_path / "made").rglob("*.jsonl"))
    assert len(files) == len(entries)
    for path in files:
        same_as_whole(path, cheap_expected=True)


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(path: Path, records: list[dict[str, Any]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records) + tail, encoding="utf-8")
    return path


def _chained(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with their `parentUuid`s made a straight chain again."""
    out, parent = [], None
    for record in records:
        out.append({**record, "parentUuid": parent})
        parent = record["uuid"]
    return out


def _system(base: dict[str, Any], uuid: str, subtype: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A system record as the client writes a rename: its first keys in the client's order."""
    return {
        "uuid": uuid,
        "parentUuid": base["uuid"],
        "sessionId": base["sessionId"],
        "timestamp": base["timestamp"],
        "type": "system",
        "subtype": subtype,
        "cwd": base["cwd"],
        "version": base["version"],
        "systemPayload": payload,
    }


def test_renames_anywhere_give_the_last_title_and_an_empty_one_keeps_it(tmp_path: Path) -> None:
    records = _records(CHAT)
    middle = len(records) // 2
    renamed = [
        *records[:2],
        _system(records[1], "r-1", "custom_title", {"customTitle": "first name"}),
        *records[2:middle],
        _system(records[middle], "r-2", "custom_title", {"customTitle": "Picked name", "titleSource": "manual"}),
        *records[middle:],
        _system(records[-1], "r-3", "custom_title", {"customTitle": ""}),
    ]
    path = _write(tmp_path / "renamed.jsonl", _chained(renamed))
    same_as_whole(path, cheap_expected=True)
    cheap = listing_from_ends(path)
    assert cheap is not None and cheap.title == "Picked name"


def test_a_rewind_is_read_whole(tmp_path: Path) -> None:
    """A rewind points back into the chain: what follows the turn rewound to is a dead branch."""
    records = _records(CHAT)
    user = next(r for r in records[1:] if r["type"] == "user")
    rewound = _system(records[-1], "rewind-1", "rewind", {"targetTurnIndex": 0})
    retyped = {
        **user,
        "uuid": "again-1",
        "parentUuid": "rewind-1",
        "message": {"role": "user", "parts": [{"text": "Start over"}]},
    }
    path = _write(tmp_path / "rewound.jsonl", [*records, {**rewound, "parentUuid": None}, retyped])
    same_as_whole(path, cheap_expected=False)
    assert whole_listing(read_session(path)).first_prompt == "Start over"  # the chain's, not the file's first


def test_a_compression_with_no_reply_after_it_is_read_whole_and_one_with_a_reply_is_not(tmp_path: Path) -> None:
    records = _records(COMPACT)
    compression = next(n for n, r in enumerate(records) if r.get("subtype") == "chat_compression")
    path = _write(tmp_path / "cut.jsonl", records[: compression + 1])
    same_as_whole(path, cheap_expected=False)
    same_as_whole(COMPACT, cheap_expected=True)


def test_a_half_written_last_line_a_glued_line_and_a_reordered_record_are_read_whole(tmp_path: Path) -> None:
    records = _records(CHAT)
    half = _write(tmp_path / "half.jsonl", records, tail='{"uuid": "half-writ')
    same_as_whole(half, cheap_expected=False)
    glued_text = "".join(json.dumps(r, separators=(",", ":")) + ("" if n == 3 else "\n") for n, r in enumerate(records))
    glued = tmp_path / "glued.jsonl"
    glued.write_text(glued_text, encoding="utf-8")
    same_as_whole(glued, cheap_expected=False)
    reordered = _write(tmp_path / "reordered.jsonl", [*records[:-1], dict(reversed(list(records[-1].items())))])
    same_as_whole(reordered, cheap_expected=False)


def test_a_line_bigger_than_any_window_and_a_reply_without_figures(tmp_path: Path) -> None:
    records = _records(CHAT)
    last = records[-1]
    huge = {**last, "message": {"role": "model", "parts": [{"text": "x" * 3_000_000}]}}
    huge.pop("usageMetadata", None)
    huge.pop("model", None)
    path = _write(tmp_path / "huge.jsonl", [*records[:-1], {**huge, "uuid": "big"}])
    same_as_whole(path, cheap_expected=True)
    cheap = listing_from_ends(path)
    assert cheap is not None and cheap.model == "qwen3-coder-plus" and cheap.context_tokens  # from the reply before


def test_a_session_with_nothing_said_is_not_listed_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records(CHAT)
    quiet = [_system(records[0], "s-1", "attribution_snapshot", {}), _system(records[0], "s-2", "ui_telemetry", {})]
    path = _write(tmp_path / "quiet.jsonl", _chained(quiet))
    same_as_whole(path, cheap_expected=False)  # no prompt typed: the whole read decides
    assert described(path, monkeypatch, cheap=True) == described(path, monkeypatch, cheap=False) == (None, [])

"""The cheap listing of a Pi session (its entries' first bytes, a few entries parsed) equals the whole
read field by field but the message count, on every recorded file, on generated homes and on odd
files (names anywhere, branches, compactions, aborted replies, huge lines); where the lines cannot say
(a compaction the last reply is not after, a damaged line) it declines and the whole read answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import listing_equality as equality
import pytest

from smig_devtools.pi_corpus import generate_pi
from smig_tui.adapters.agents.pi import source as pi_source
from smig_tui.adapters.agents.pi.listing import listing_from_ends, whole_listing
from smig_tui.adapters.agents.pi.records import read_session
from smig_tui.adapters.agents.pi.source import PiSource
from smig_tui.core.models import SessionInfo

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "pi"
RECORDED = sorted(REAL.rglob("*.jsonl"))
COMPACT = next(path for path in RECORDED if "work-compact" in str(path))
TOOLS = next(path for path in RECORDED if "work-tools" in str(path))


def same_as_whole(path: Path, cheap_expected: bool) -> None:
    equality.same_as_whole(path, cheap_expected, listing_from_ends, lambda p: whole_listing(read_session(p)))


def described(path: Path, monkeypatch: pytest.MonkeyPatch, cheap: bool) -> tuple[SessionInfo | None, list[str]]:
    return equality.described(PiSource(path.parent), pi_source, path, monkeypatch, cheap)


@pytest.mark.parametrize("path", RECORDED, ids=[p.parent.name for p in RECORDED])
def test_every_recorded_session_lists_cheaply_as_the_whole_read_does(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    same_as_whole(path, cheap_expected=True)
    equality.same_entry(PiSource(path.parent), pi_source, path, monkeypatch)


def test_generated_sessions_list_cheaply_as_the_whole_read_does(tmp_path: Path) -> None:
    entries = equality.generated_entries(tmp_path)
    generate_pi(tmp_path / "made", entries)
    files = sorted((tmp_path / "made").rglob("*.jsonl"))
    assert len(files) == len(entries)
    for path in files:
        same_as_whole(path, cheap_expected=True)


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(path: Path, entries: list[dict[str, Any]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries) + tail, encoding="utf-8")
    return path


def _entry(kind: str, entry_id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": "2026-12-05T03:00:00.000Z", **fields}


def _reply(entry_id: str, parent: str, model: str, total: int, stop: str = "stop") -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": f"from {model}"}],
        "model": model,
        "usage": {"input": total, "output": 0, "totalTokens": total},
        "stopReason": stop,
        "timestamp": 1764903600000,
    }
    return _entry("message", entry_id, parent, message=message)


def test_names_anywhere_the_last_one_counts_and_an_empty_one_clears(tmp_path: Path) -> None:
    entries = _entries(TOOLS)
    named = [*entries[:3], _entry("session_info", "n1", entries[2]["id"], name="  Middle name  "), *entries[3:]]
    path = _write(tmp_path / "named.jsonl", named)
    same_as_whole(path, cheap_expected=True)
    cheap = listing_from_ends(path)
    assert cheap is not None and cheap.name == "Middle name"
    cleared = _write(tmp_path / "cleared.jsonl", [*named, _entry("session_info", "n2", named[-1]["id"], name="")])
    same_as_whole(cleared, cheap_expected=True)
    assert (listing_from_ends(cleared) or whole_listing(read_session(cleared))).name is None


def test_a_branch_back_to_an_earlier_entry_lists_what_the_path_says(tmp_path: Path) -> None:
    """The last entry's path leaves a newer branch abandoned: its model and figures are not the session's."""
    entries = _entries(TOOLS)
    first_user = next(e for e in entries if e.get("type") == "message" and e["message"]["role"] == "user")
    kept = _reply("k1", first_user["id"], "kept-model", 4_321)
    abandoned = _reply("b1", "k1", "abandoned-model", 99_999)
    back = _entry("message", "u2", "k1", message={"role": "user", "content": "Go on from there"})
    path = _write(tmp_path / "branched.jsonl", [*entries, kept, abandoned, back])
    same_as_whole(path, cheap_expected=True)
    cheap = listing_from_ends(path)
    assert cheap is not None and (cheap.model, cheap.context_tokens) == ("kept-model", 4_321)


def test_an_aborted_last_reply_leaves_the_one_before_it(tmp_path: Path) -> None:
    entries = _entries(TOOLS)
    path = _write(
        tmp_path / "aborted.jsonl", [*entries, _reply("x1", entries[-1]["id"], "aborted-model", 7, "aborted")]
    )
    same_as_whole(path, cheap_expected=True)
    cheap = listing_from_ends(path)
    assert cheap is not None and cheap.model != "aborted-model" and cheap.context_tokens != 7


def test_a_compaction_with_no_reply_after_it_is_read_whole_and_one_with_a_reply_is_not(tmp_path: Path) -> None:
    entries = _entries(COMPACT)
    compaction = next(n for n, e in enumerate(entries) if e.get("type") == "compaction")
    same_as_whole(_write(tmp_path / "cut.jsonl", entries[: compaction + 1]), cheap_expected=False)
    same_as_whole(COMPACT, cheap_expected=True)


def test_a_half_written_last_line_and_a_reordered_entry_are_read_whole(tmp_path: Path) -> None:
    entries = _entries(TOOLS)
    same_as_whole(_write(tmp_path / "half.jsonl", entries, tail='{"type":"message","id":"half-writ'), False)
    reordered = dict(reversed(list(entries[-1].items())))
    same_as_whole(_write(tmp_path / "reordered.jsonl", [*entries[:-1], reordered]), cheap_expected=False)


def test_a_line_bigger_than_any_window(tmp_path: Path) -> None:
    entries = _entries(TOOLS)
    huge = _entry("message", "h1", entries[-1]["id"], message={"role": "user", "content": "y" * 3_000_000})
    path = _write(tmp_path / "huge.jsonl", [*entries, huge])
    same_as_whole(path, cheap_expected=True)


def test_a_session_with_nothing_said_is_not_listed_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entries = _entries(TOOLS)
    quiet = [entries[0], _entry("model_change", "m1", None, provider="fake", modelId="fake-coder")]
    path = _write(tmp_path / "quiet.jsonl", quiet)
    same_as_whole(path, cheap_expected=True)
    assert described(path, monkeypatch, cheap=True) == described(path, monkeypatch, cheap=False) == (None, [])

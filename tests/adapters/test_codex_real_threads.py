"""The Codex reader against threads the real Codex CLI 0.171.0 wrote: each must read as what the model saw.

The fixtures under tests/fixtures/real/codex were made with the harness (see their README): for each
thread, `expected.json` is the last request Codex sent for it plus the reply, normalized. Forks
(`history_base`), a Codex-compressed `.jsonl.zst`, a compressed parent of a fork, both forms of one
rollout side by side, and an auto-compaction are covered.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli

from smig_tui.adapters import stored_text, zstd_files
from smig_tui.adapters.agents.codex import scan as codex_scan
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.migration_commit import file_fingerprint
from smig_tui.adapters.paths import resolve_paths
from smig_tui.adapters.source_check import source_status
from smig_tui.core.models import ReadWarning
from smig_tui.services import Services

REAL = Path(__file__).parent.parent / "fixtures" / "real" / "codex"
PARENT = "01a23b77-b3cb-73e2-a662-c285a7ef902e"
FORK = "01a23b77-ba4f-7b02-98a6-18e397590485"
GRANDCHILD = "01a23b78-db78-7dd2-bcf7-a002f58cba32"
COMPACTED = "01a23b78-7adb-74e3-8126-e86b52049d09"
COMPRESSED = "01a23b78-167b-7f32-b718-2bab157d4425"
REVERTED = "01a23b89-18b2-74f2-a65a-6314008766f2"
DAY = Path("sessions/2026/12/03")


def _expected(scenario: str) -> dict[str, Any]:
    return json.loads((REAL / scenario / "expected.json").read_text(encoding="utf-8"))


def _install(scenario: str, codex_home: Path) -> None:
    """Copy a scenario's CODEX_HOME, with the mtimes the client left (a checkout sets them all to now)."""
    shutil.copytree(REAL / scenario / "codex_home", codex_home, dirs_exist_ok=True)
    for rel, mtime in _expected(scenario)["mtimes"].items():
        os.utime(codex_home / rel, (mtime, mtime))


def _run(argv: list[str]) -> tuple[int, str, str]:
    return run_cli(argv, lambda _paths: CodexSource(codex_home()))


def _shown(thread: str) -> list[tuple[Any, ...]]:
    """`smig show --json` of a thread, as (role, kind, text, call_id, tool name) without injected context."""
    code, stdout, stderr = _run(["show", "--json", thread])
    assert code == 0, stderr
    return [
        _row(m["role"], m["kind"], m["text"], m["call_id"], m["tool_name"])
        for m in json.loads(stdout)["messages"]
        if not m["injected"]
    ]


def _row(role: str, kind: str, text: str, call_id: str | None, name: str | None) -> tuple[Any, ...]:
    """One comparable item; a compaction summary is a plain user text to the model."""
    kind = "text" if kind == "summary" else kind
    return role, kind, text, call_id, name if kind == "tool_call" else None


def _seen(scenario: str, thread: str) -> list[tuple[Any, ...]]:
    return [
        _row(i["role"], i["kind"], i["text"], i["call_id"], i["name"]) for i in _expected(scenario)["threads"][thread]
    ]


@pytest.mark.parametrize(
    ("scenario", "thread"),
    [
        ("fork_lineage", PARENT),  # multi-turn tools, 25,000-line output, resumed; compressed by Codex
        ("fork_lineage", FORK),  # `codex exec fork`: history_base = PARENT
        ("fork_lineage", GRANDCHILD),  # a fork of the fork, resumed after its grandparent was compressed
        ("auto_compaction", COMPACTED),  # auto-compaction in the middle of a tool turn, then resumed
        ("compressed", COMPRESSED),  # a rollout Codex compressed (then resumed from, see README)
        ("compressed_and_plain", COMPRESSED),  # the .zst and the newer plain copy Codex materialised
        ("revert_segments", REVERTED),  # app-server thread/revert: a second file of the thread, cut back
    ],
)
def test_show_equals_what_the_model_saw(isolated_homes: dict[str, Path], scenario: str, thread: str) -> None:
    _install(scenario, isolated_homes["codex"])
    assert _shown(thread) == _seen(scenario, thread)


def test_fork_lineage_lists_each_thread_once_with_its_parent(isolated_homes: dict[str, Path]) -> None:
    _install("fork_lineage", isolated_homes["codex"])
    code, stdout, stderr = _run(["list", "--all", "--json"])
    assert code == 0 and stderr == ""
    rows = {row["id"]: row for row in json.loads(stdout)}
    assert sorted(rows) == sorted([PARENT, FORK, GRANDCHILD])
    assert rows[PARENT]["path"].endswith(".jsonl.zst")
    assert rows[FORK]["parent_id"] == PARENT and rows[GRANDCHILD]["parent_id"] == FORK
    assert rows[PARENT]["title"] == "TOOLS-B: go"  # from the compressed head
    # 0.171.0 writes no user_message events: the picker's prompt is the item_completed UserMessage
    assert codex_scan.scan_head(rows[FORK]["path"]).prompt == "remember the fork"
    assert rows[PARENT]["context_tokens"] == 240  # from the compressed tail's last token_count


@pytest.mark.parametrize("newer", [".jsonl", ".jsonl.zst"])
def test_both_forms_of_one_rollout_list_once_and_the_newer_wins(isolated_homes: dict[str, Path], newer: str) -> None:
    _install("compressed_and_plain", isolated_homes["codex"])
    day = isolated_homes["codex"] / DAY
    [plain] = day.glob("*.jsonl")
    zst = plain.with_name(plain.name + ".zst")
    old, new = (zst, plain) if newer == ".jsonl" else (plain, zst)
    os.utime(old, (1_790_000_000, 1_790_000_000))
    os.utime(new, (1_790_000_100, 1_790_000_100))
    code, stdout, _ = _run(["list", "--all", "--json"])
    rows = json.loads(stdout)
    assert code == 0 and [row["path"] for row in rows] == [str(new)]


def test_compressed_thread_plans_and_migrates_like_a_plain_one(isolated_homes: dict[str, Path]) -> None:
    _install("compressed", isolated_homes["codex"])
    code, stdout, stderr = _run(["plan", "--json", "--target", "gpt-5.5", COMPRESSED])
    assert code == 0, stderr
    compressed_plan = json.loads(stdout)
    out = isolated_homes["home"] / "compressed.md"
    code, _, stderr = _run(["migrate", "--target", "gpt-5.5", "--to", "markdown", "--out", str(out), COMPRESSED])
    assert code == 0, stderr
    text = out.read_text(encoding="utf-8")
    assert "TOOLS-A: go" in text and "TOOLS-A done: three commands ran." in text
    by_path = [*(isolated_homes["codex"] / DAY).glob("*.zst")][0]
    code, stdout, _ = _run(["show", "--json", str(by_path)])
    assert code == 0 and json.loads(stdout)["info"]["id"] == COMPRESSED
    by_path.with_suffix("").write_bytes(zstd_files.decompress(by_path.read_bytes()))
    by_path.unlink()
    code, stdout, stderr = _run(["plan", "--json", "--target", "gpt-5.5", COMPRESSED])
    plain_plan = json.loads(stdout)
    assert code == 0 and compressed_plan["tokens_before"] == plain_plan["tokens_before"] > 10_000
    assert compressed_plan["items"] == plain_plan["items"]


def _load(thread: str) -> tuple[list[tuple[Any, ...]], list[ReadWarning]]:
    """A thread's conversation rows and the warnings its full read gave."""
    source = CodexSource(codex_home())
    [info] = [i for i in source.discover(lambda _: None) if i.id == thread]
    warnings: list[ReadWarning] = []
    session = source.load(info, warnings.append)
    rows = [
        _row(m.role.value, m.kind.value, m.text, m.call_id, m.tool_name) for m in session.messages if not m.injected
    ]
    return rows, warnings


def test_a_fork_whose_parent_is_gone_keeps_its_own_turns_with_one_warning(isolated_homes: dict[str, Path]) -> None:
    _install("fork_lineage", isolated_homes["codex"])
    [parent] = (isolated_homes["codex"] / DAY).glob(f"*{PARENT}*")
    parent.unlink()
    rows, warnings = _load(FORK)
    assert rows == _seen("fork_lineage", FORK)[-2:]  # the fork's own prompt and reply
    assert [(Path(w.path).name, w.message) for w in warnings] == [
        (
            f"rollout-2026-12-03T10-33-51-{FORK}.jsonl",
            f"forked from thread {PARENT}, whose rollout is not found; the history it inherited is missing",
        )
    ]
    rows, warnings = _load(GRANDCHILD)  # the fork's own part still comes before the grandchild's
    assert rows == _seen("fork_lineage", GRANDCHILD)[-6:] and len(warnings) == 1
    listing: list[ReadWarning] = []
    listed = [info.id for info in CodexSource(codex_home()).discover(listing.append)]
    assert sorted(listed) == sorted([FORK, GRANDCHILD])  # the orphan still lists, and so does its child
    assert [(Path(w.path).name, w.message) for w in listing] == [
        (
            f"rollout-2026-12-03T10-33-51-{FORK}.jsonl",
            f"forked from thread {PARENT}, whose rollout is not found; the history it inherited is missing",
        )
    ]


def test_a_lineage_loop_stops_with_one_warning(isolated_homes: dict[str, Path]) -> None:
    _install("fork_lineage", isolated_homes["codex"])
    [fork] = (isolated_homes["codex"] / DAY).glob(f"*{FORK}*")
    lines = fork.read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])
    meta["payload"]["history_base"] = {"thread_id": GRANDCHILD}  # the fork now claims its own child
    fork.write_text(json.dumps(meta) + "\n" + "".join(lines[1:]), encoding="utf-8")
    rows, warnings = _load(GRANDCHILD)
    assert rows == _seen("fork_lineage", GRANDCHILD)[-6:]
    assert len(warnings) == 1 and "history lineage loops back to" in warnings[0].message
    assert warnings[0].path.endswith(f"{FORK}.jsonl")


def test_a_reverted_thread_lists_once_from_its_newest_segment(isolated_homes: dict[str, Path]) -> None:
    _install("revert_segments", isolated_homes["codex"])
    code, stdout, _ = _run(["list", "--all", "--json"])
    [row] = json.loads(stdout)
    assert (
        code == 0
        and row["id"] == REVERTED
        and row["path"].endswith(f"{REVERTED}_01a23b89-45c5-7733-83aa-410e784826bf.jsonl")
    )
    assert codex_scan.thread_id_of(row["path"]) == REVERTED
    shown = _shown(REVERTED)
    assert "remember third" not in [text for _, _, text, _, _ in shown]  # the turn the revert took back


@pytest.mark.parametrize("linked", [True, False])
def test_a_thread_in_two_files_lists_once_and_loads_both_in_order(
    isolated_homes: dict[str, Path], linked: bool
) -> None:
    """Split the real compacted thread into two files of the same thread, with or without a history_base."""
    _install("auto_compaction", isolated_homes["codex"])
    [whole] = (isolated_homes["codex"] / DAY).glob("*.jsonl")
    data = whole.read_bytes()
    lines = data.splitlines(keepends=True)
    cut = sum(len(line) for line in lines[: len(lines) // 2])
    meta = json.loads(lines[0])
    if linked:
        meta["payload"]["history_base"] = {"thread_id": COMPACTED, "end_byte_offset": cut}
    second = whole.with_name(whole.name.replace("T10-34-41", "T10-34-59"))
    whole.write_bytes(data[:cut])
    second.write_bytes(json.dumps(meta).encode() + b"\n" + data[cut:])
    rows, warnings = _load(COMPACTED)
    assert warnings == []
    assert rows == _seen("auto_compaction", COMPACTED)
    code, stdout, _ = _run(["list", "--all", "--json"])
    assert code == 0 and [row["path"] for row in json.loads(stdout)] == [str(second)]


@pytest.mark.parametrize("first", ["plain", "compressed"])
def test_a_migration_source_stays_recallable_when_codex_swaps_its_form(
    isolated_homes: dict[str, Path], first: str
) -> None:
    """Migrate today, Codex compresses the idle rollout next week (or materialises it to append)."""
    _install("compressed", isolated_homes["codex"])
    [zst] = (isolated_homes["codex"] / DAY).glob("*.zst")
    plain = zst.with_suffix("")
    content = zstd_files.decompress(zst.read_bytes())
    if first == "plain":
        plain.write_bytes(content)
        zst.unlink()
    recorded = plain if first == "plain" else zst
    sha, size, _ = file_fingerprint(str(recorded))
    assert size == len(content)
    if first == "plain":  # Codex compresses it
        zst.write_bytes(zstd_files.compress(content))
        plain.unlink()
        assert source_status(str(recorded), sha, size) == "unchanged"
    else:  # Codex materialises it and appends a turn
        plain.write_bytes(content + b'{"timestamp":"2026-12-13T00:00:00.000Z","type":"event_msg","payload":{}}\n')
        zst.unlink()
        assert source_status(str(recorded), sha, size) == "grown"
    services = Services(paths=resolve_paths(), sources=[CodexSource(codex_home())])
    assert services.find_session(str(recorded)).id == COMPRESSED
    assert source_status(str(recorded), "0" * 64, size) == "changed"


def test_a_huge_compressed_thread_packs_its_long_texts_and_reads_the_same(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A .zst cannot be entered at a line, so a huge one's long texts are held packed, not left on disk."""
    _install("fork_lineage", isolated_homes["codex"])
    monkeypatch.setattr(stored_text, "FILE_BYTES", 1)  # every file counts as huge
    source = CodexSource(codex_home())
    [info] = [i for i in source.discover(lambda _: None) if i.id == GRANDCHILD]
    session = source.load(info, lambda _: None)
    kinds = {type(m.body).__name__ for m in session.messages}
    assert {"PackedText", "LineText", "str"} <= kinds  # the parent is packed, the fork's own left on disk
    packed = [m for m in session.messages if isinstance(m.body, stored_text.PackedText)]
    assert all(m.text_length == len(m.text) > stored_text.TEXT_CHARS for m in packed)
    rows = [
        _row(m.role.value, m.kind.value, m.text, m.call_id, m.tool_name) for m in session.messages if not m.injected
    ]
    assert rows == _seen("fork_lineage", GRANDCHILD)


def test_a_warm_listing_decompresses_nothing(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The listing cache (path, size, mtime) spares a .zst's streamed tail read on the next run."""
    from smig_tui.adapters.agents.codex import source as codex
    from smig_tui.services import build_services

    _install("fork_lineage", isolated_homes["codex"])
    cold = build_services().list_sessions(include_subagents=True)
    assert any(info.path.endswith(".zst") for info in cold)

    def no_reading(*_args: object) -> None:
        raise AssertionError("a warm listing read a rollout")

    monkeypatch.setattr(codex, "scan_head", no_reading)
    monkeypatch.setattr(codex, "scan_tail", no_reading)
    assert build_services().list_sessions(include_subagents=True) == cold


def test_an_older_fork_that_copied_its_parent_is_not_reported_when_the_parent_is_gone(
    isolated_homes: dict[str, Path],
) -> None:
    """Before history_base a fork copied its parent's items: a deleted parent costs it nothing."""
    _install("fork_lineage", isolated_homes["codex"])
    day = isolated_homes["codex"] / DAY
    [parent] = day.glob(f"*{PARENT}*")
    parent.unlink()
    [fork] = day.glob(f"*{FORK}*")
    lines = fork.read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])
    del meta["payload"]["history_base"]
    fork.write_text(json.dumps(meta) + "\n" + "".join(lines[1:]), encoding="utf-8")
    listing: list[ReadWarning] = []
    infos = {info.id: info for info in CodexSource(codex_home()).discover(listing.append)}
    assert listing == [] and infos[FORK].parent_id == PARENT

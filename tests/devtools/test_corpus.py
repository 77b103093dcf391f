"""Tests for the synthetic corpus generator: valid formats, planned damage, determinism, readers."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from smig_devtools.corpus import KB, MANIFEST, MB, Manifest, SessionEntry, generate, main
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.core.errors import WriteRefusedError
from smig_tui.core.models import ReadWarning


def small(root: Path, seed: int = 11, **kwargs: int) -> Manifest:
    """Generate a 20-session, ~2 MB corpus under `root`."""
    options = {"sessions": 20, "total_bytes": 2 * MB, "seed": seed, **kwargs}
    return generate(root / "codex", root / "claude", **options)


def tree_digest(root: Path) -> dict[str, tuple[str, int]]:
    """Map every file under `root` to its sha256 and mtime, the manifest's timing aside."""
    digest = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != MANIFEST:
            digest[str(path.relative_to(root))] = (
                hashlib.sha256(path.read_bytes()).hexdigest(),
                int(path.stat().st_mtime),
            )
    return digest


@pytest.fixture(scope="module")
def corpus_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    small(root)
    return root


@pytest.fixture
def corpus(corpus_root: Path) -> Manifest:
    manifest = Manifest.load(corpus_root / "codex")
    assert manifest is not None
    return manifest


def read_lines(entry: SessionEntry) -> list[bytes]:
    data = Path(entry.path).read_bytes()
    lines = data.split(b"\n")
    return lines[:-1] if lines and lines[-1] == b"" else lines


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    small(tmp_path / "a", seed=3)
    small(tmp_path / "b", seed=3)
    small(tmp_path / "c", seed=4)
    first, second, other = (tree_digest(tmp_path / name) for name in "abc")
    assert first == second
    assert len(first) > 20
    assert first != other


def test_every_line_parses_except_the_planned_damage(corpus: Manifest) -> None:
    damaged = 0
    for entry in corpus.sessions:
        bad = []
        for number, line in enumerate(read_lines(entry), 1):
            try:
                assert isinstance(json.loads(line), dict)
            except ValueError:
                bad.append(number)
        planned = entry.corrupt_lines + ([entry.truncated_line] if entry.truncated_line else [])
        assert bad == planned, entry.path
        damaged += len(planned)
        if entry.truncated_line:
            assert not Path(entry.path).read_bytes().endswith(b"\n")
    assert damaged >= 2


def test_a_small_corpus_still_holds_every_case(corpus: Manifest) -> None:
    kinds = {(e.agent, e.kind) for e in corpus.sessions}
    assert {
        ("codex", "main"),
        ("codex", "exec"),
        ("codex", "subagent"),
        ("claude", "main"),
        ("claude", "subagent"),
    } <= kinds
    assert any(e.empty and e.size == 0 for e in corpus.sessions)
    assert any(e.compactions for e in corpus.sessions)
    assert any(e.title for e in corpus.sessions)


def test_codex_files_follow_the_rollout_layout(corpus: Manifest) -> None:
    kinds: set[str] = set()
    for entry in corpus.sessions:
        if entry.agent != "codex" or entry.empty:
            continue
        path = Path(entry.path)
        assert re.fullmatch(r"rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-" + re.escape(entry.id) + r"\.jsonl", path.name)
        assert path.parent.parent.parent.parent.name == "sessions"
        assert entry.id[14] == "7"  # UUIDv7
        records = [json.loads(line) for line in read_lines(entry)[:3]]
        assert records[0]["type"] == "session_meta"
        meta = records[0]["payload"]
        assert meta["id"] == entry.id and meta["cwd"] == entry.cwd
        if entry.kind == "exec":
            assert meta["source"] == "exec" and meta["originator"] == "codex_exec"
        if entry.kind == "subagent":
            assert meta["source"]["subagent"]["thread_spawn"]["parent_thread_id"] == entry.parent_id
        kinds |= {
            json.loads(line)["payload"].get("type")
            for line in read_lines(entry)
            if line.startswith(b'{"timestamp"') and line.endswith(b"}}")
        }
    assert {
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "token_count",
        "message",
        "exec_command_end",
        "user_message",
    } <= kinds


def test_claude_uuid_chains_are_real_chains(corpus: Manifest) -> None:
    for entry in corpus.sessions:
        if entry.agent != "claude" or entry.empty:
            continue
        records = []
        for line in read_lines(entry):
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
        uuids = [r["uuid"] for r in records if "uuid" in r]
        assert len(uuids) == len(set(uuids)), entry.path
        known = set(uuids)
        assert all(r["parentUuid"] in known for r in records if r.get("parentUuid"))
        sidechain = {r["isSidechain"] for r in records if "isSidechain" in r}
        assert sidechain == {entry.is_subagent}
        assert all(r["sessionId"] == (entry.parent_id or entry.id) for r in records if "sessionId" in r)
        assert all(r["type"] == "assistant" for r in records if "requestId" in r)


def test_sizes_have_a_long_tail_and_the_requested_total(tmp_path: Path) -> None:
    manifest = generate(
        tmp_path / "x",
        tmp_path / "y",
        sessions=30,
        total_bytes=12 * MB,
        huge=1,
        huge_bytes=4 * MB,
        seed=2,
    )
    sizes = sorted(e.size for e in manifest.sessions if not e.empty)
    assert sizes[-1] >= 4 * MB
    assert sizes[0] >= 8 * KB
    assert 0.8 * 12 * MB <= manifest.total_bytes <= 1.25 * 12 * MB


def test_refuses_to_write_into_a_folder_it_did_not_make(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    foreign = tmp_path / "real-codex"
    foreign.mkdir()
    (foreign / "config.toml").write_text("model = 'x'\n")
    with pytest.raises(WriteRefusedError, match="will not replace it"):
        generate(foreign, tmp_path / "claude", sessions=2, total_bytes=64 * KB)
    assert (foreign / "config.toml").read_text() == "model = 'x'\n"
    assert main(["--codex-home", str(foreign), "--claude-home", str(tmp_path / "c"), "--sessions", "2"]) == 4
    assert "will not replace it" in capsys.readouterr().err


def test_regenerating_over_its_own_corpus_replaces_it(tmp_path: Path) -> None:
    small(tmp_path, seed=5)
    again = small(tmp_path, seed=6)
    on_disk = {str(p) for p in tmp_path.rglob("*.jsonl")}
    assert on_disk == {e.path for e in again.sessions} | {str(tmp_path / "codex" / "session_index.jsonl")}


def services_for(root: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    pytest.importorskip("smig_tui.adapters.agents.codex.source")
    pytest.importorskip("smig_tui.adapters.agents.claude.source")
    from smig_tui.services import build_services

    monkeypatch.setenv("CODEX_HOME", str(root / "codex"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root / "claude"))
    return build_services()


def test_readers_discover_every_readable_session(
    corpus: Manifest, corpus_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = services_for(corpus_root, monkeypatch)
    warnings: list[ReadWarning] = []
    found = {info.path: info for info in services.list_sessions(include_subagents=True, warn=warnings.append)}
    expected = {e.path: e for e in corpus.sessions if not e.empty}
    assert set(found) == set(expected)
    for path, entry in expected.items():
        info = found[path]
        assert (info.id, info.agent.value, info.cwd) == (entry.id, entry.agent, entry.cwd)
        assert info.is_subagent == entry.is_subagent
        assert info.parent_id == entry.parent_id
        if entry.title:
            assert info.title == entry.title
    empty = [e.path for e in corpus.sessions if e.empty]
    assert all(any(w.path == path for w in warnings) for path in empty)
    listed = {info.path for info in services.list_sessions()}
    assert listed == {p for p, e in expected.items() if not e.is_subagent}


def test_damaged_lines_become_warnings_naming_file_and_line(
    corpus: Manifest, corpus_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = services_for(corpus_root, monkeypatch)
    infos = {info.path: info for info in services.list_sessions(include_subagents=True)}
    for entry in corpus.sessions:
        planned = entry.corrupt_lines + ([entry.truncated_line] if entry.truncated_line else [])
        if entry.empty or not planned:
            continue
        warnings: list[ReadWarning] = []
        session = services.load_session(infos[entry.path], warn=warnings.append)
        assert sorted({w.line for w in warnings if w.path == entry.path}) == planned
        assert len(session.messages) > 2


def test_compressed_rollouts_and_forks_read_like_codex_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A share of .jsonl.zst rollouts and forks: each listed once, a fork loads its parent's history first."""
    from smig_tui.adapters.agents.codex.source import CodexSource

    manifest = generate(
        tmp_path / "codex",
        tmp_path / "claude",
        sessions=40,
        total_bytes=3 * MB,
        seed=5,
        compressed_share=0.5,
        fork_share=0.2,
    )
    packed = [e for e in manifest.sessions if e.compressed]
    forks = [e for e in manifest.sessions if e.kind == "fork"]
    assert packed and forks and all(e.path.endswith(".jsonl.zst") and Path(e.path).is_file() for e in packed)
    assert not any(Path(e.path[: -len(".zst")]).exists() for e in packed)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    source = CodexSource(codex_home())
    warnings: list[ReadWarning] = []
    listed = {info.id: info for info in source.discover(warnings.append)}
    assert {e.id for e in packed + forks} <= set(listed)
    for entry in packed:
        assert listed[entry.id].path == entry.path and listed[entry.id].context_tokens
    by_id = {e.id: e for e in manifest.sessions}
    for fork in forks:
        own = source.load(listed[fork.id], warnings.append).messages
        parent = source.load(listed[fork.parent_id], warnings.append).messages
        assert [m.text for m in own[:-2]] == [m.text for m in parent]
        assert own[-2].text == fork.prompt and by_id[fork.parent_id].kind == "main"
    assert all("empty rollout" in w.message or "corrupt" in w.message or "truncated" in w.message for w in warnings)

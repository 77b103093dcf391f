"""A skipped file is reported once per version of the file, and `smig doctor` lists every problem (issue 29)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from cli_runner import smig


@pytest.fixture
def empty_rollout(fake_home: dict[str, Path]) -> Path:
    day = fake_home["codex"] / "sessions" / "2026" / "11" / "25"
    day.mkdir(parents=True)
    empty = day / "rollout-2026-11-25T10-00-00-0199aaaa-0000-7000-8000-000000000009.jsonl"
    empty.write_bytes(b"")
    return empty


def test_an_empty_rollout_warns_once_then_again_when_it_changes(empty_rollout: Path) -> None:
    _, _, first = smig("list")
    assert f"smig: warning: {empty_rollout}: empty rollout file; skipped" in first
    assert "`smig doctor` lists them all" in first
    for argv in (("list",), ("list", "--json"), ("show", "5f0c2a9e")):
        code, _, again = smig(*argv)
        assert code == 0 and again == "", argv  # the next commands print nothing about it
    empty_rollout.write_text("{", encoding="utf-8")  # a new version of the file: a new problem, reported
    _, _, changed = smig("list")
    assert f"smig: warning: {empty_rollout}:" in changed and "no session_meta line" in changed
    assert smig("list")[2] == ""
    empty_rollout.write_bytes(b"")
    os.utime(empty_rollout, ns=(1, 1))  # back to empty, another mtime: warned again
    assert "empty rollout file" in smig("list")[2]


def test_a_damaged_line_of_a_session_read_in_full_is_reported_every_time(fake_home: dict[str, Path]) -> None:
    path = next(fake_home["claude"].rglob("5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c.jsonl"))
    with path.open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    for _ in range(2):  # about the session asked for, not a file skipped: shown each time
        assert "corrupt JSON line skipped" in smig("show", "5f0c2a9e")[2]


def test_doctor_lists_homes_config_tokenizers_and_every_skipped_file(
    empty_rollout: Path, isolated_homes: dict[str, Path]
) -> None:
    smig("list")  # the warning is remembered as shown...
    code, stdout, stderr = smig("doctor")
    assert code == 0 and stderr == ""
    config = isolated_homes["smig"] / "config" / "config.toml"
    assert f"config     {config}: not there (the defaults apply)" in stdout
    assert f"Codex        {isolated_homes['codex']}: 7 sessions (2 sub-agents), 1 skipped" in stdout
    assert "Gemini CLI" in stdout and "OpenCode" in stdout and ": not there" in stdout
    assert f"codex: {empty_rollout}: empty rollout file; skipped" in stdout  # ...and doctor lists it still
    assert (
        re.search(r"o200k_base, o200k_split_digits: (found|missing): ", stdout)
        and "tokenizer files" in stdout
        and "summarizer " in stdout
    )
    report = json.loads(smig("doctor", "--json")[1])
    assert report["config"] == "absent" and report["config_file"] == str(config)
    codex = next(agent for agent in report["agents"] if agent["agent"] == "codex")
    assert codex["found"] and codex["sessions"] == 7 and codex["skipped"] == 1
    assert report["skipped"] == [
        {"agent": "codex", "path": str(empty_rollout), "line": None, "message": "empty rollout file; skipped"}
    ]
    assert {item["encoding"] for item in report["tokenizer_files"]} >= {"o200k_base", "cl100k_base"}
    assert report["summarizer"]["ready"] is False and "OPENAI_API_KEY" in report["summarizer"]["problem"]


def test_doctor_says_a_config_file_does_not_parse_and_exits_1(isolated_homes: dict[str, Path]) -> None:
    config = isolated_homes["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[models\n", encoding="utf-8")
    assert smig("list")[0] == 1  # every other command stops on it
    code, stdout, _ = smig("doctor")
    assert code == 1 and f"config     {config}: does not validate" in stdout and "is not valid TOML" in stdout
    config.write_text('[models."gpt-4o"]\ncontext_window = -1\n[archive]\nauto = "yes"\n', encoding="utf-8")
    code, stdout, _ = smig("doctor", "--json")
    report = json.loads(stdout)
    assert code == 1 and report["config"] == "invalid"
    assert any("context_window must be a positive" in problem for problem in report["config_problems"])
    assert any("archive.auto must be true or false" in problem for problem in report["config_problems"])
    config.write_text("[archive]\nauto = false\n", encoding="utf-8")
    code, stdout, _ = smig("doctor")
    assert code == 0 and f"config     {config}: parses" in stdout


def test_doctor_finds_tokenizer_files_where_tiktoken_would(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    report = json.loads(smig("doctor", "--json")[1])
    o200k = next(item for item in report["tokenizer_files"] if item["encoding"] == "o200k_base")
    assert not o200k["found"] and o200k["folder_from"] == "TIKTOKEN_CACHE_DIR"
    Path(o200k["path"]).write_bytes(b"x")  # the name tiktoken caches the file under
    again = json.loads(smig("doctor", "--json")[1])
    assert next(item for item in again["tokenizer_files"] if item["encoding"] == "o200k_base")["found"]


def test_doctor_names_each_client_found_and_why_one_is_not(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `--continue` would start, before a commit finds out: found on PATH, named by SMIG_<X>_BIN,
    named by it but not runnable, and missing."""
    bin_dir, elsewhere = tmp_path / "bin", tmp_path / "elsewhere"
    for folder, name in ((bin_dir, "codex"), (elsewhere, "claude-2.1")):
        folder.mkdir(exist_ok=True)
        (folder / name).write_text("#!/bin/sh\n", encoding="utf-8")
        (folder / name).chmod(0o755)
    not_runnable = elsewhere / "gemini.txt"
    not_runnable.write_text("", encoding="utf-8")
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("SMIG_CLAUDE_BIN", str(elsewhere / "claude-2.1"))
    monkeypatch.setenv("SMIG_GEMINI_BIN", str(not_runnable))
    monkeypatch.delenv("SMIG_CODEX_BIN", raising=False)
    for unset in (
        "SMIG_OPENCODE_BIN",
        "SMIG_QWEN_BIN",
        "SMIG_KILO_BIN",
        "SMIG_COPILOT_BIN",
        "SMIG_PI_BIN",
        "SMIG_AIDER_BIN",
    ):
        monkeypatch.delenv(unset, raising=False)
    code, stdout, _ = smig("doctor")
    assert code == 0
    clients = stdout.split("clients (what --continue starts)\n")[1].split("\n\n")[0].splitlines()
    assert clients == [
        f"  Codex        {bin_dir / 'codex'}",
        f"  Claude Code  {elsewhere / 'claude-2.1'}",
        f"  Gemini CLI   gemini: not found (SMIG_GEMINI_BIN names {not_runnable}, not an executable)",
        "  OpenCode     opencode: not found (not on PATH, SMIG_OPENCODE_BIN unset)",
        "  Qwen Code    qwen: not found (not on PATH, SMIG_QWEN_BIN unset)",
        "  Kilo Code    kilo: not found (not on PATH, SMIG_KILO_BIN unset)",
        "  Copilot CLI  copilot: not found (not on PATH, SMIG_COPILOT_BIN unset)",
        "  Pi           pi: not found (not on PATH, SMIG_PI_BIN unset)",
        "  Aider        aider: not found (not on PATH, SMIG_AIDER_BIN unset)",
    ]
    report = {agent["agent"]: agent for agent in json.loads(smig("doctor", "--json")[1])["agents"]}
    assert report["codex"]["client"] == str(bin_dir / "codex") and report["codex"]["program"] == "codex"
    assert report["opencode"]["client"] is None and "not on PATH" in report["opencode"]["client_problem"]

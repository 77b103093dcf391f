from __future__ import annotations

import hashlib
import io
import json
import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from smig_tui.adapters import clipboard
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.native import Destination

SESSION = "01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4"


def _run(*argv: str) -> tuple[int, str, str]:
    ctx = Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO()))
    code = main(list(argv), ctx)
    return code, ctx.out.stdout.getvalue(), ctx.out.stderr.getvalue()  # type: ignore[attr-defined]


def _tree(*roots: Path) -> dict[str, tuple[int, int]]:
    """Every file under the roots with its size and mtime, to prove nothing changed."""
    files = {}
    for root in roots:
        for path in root.rglob("*") if root.exists() else []:
            if path.is_file():
                info = path.stat()
                files[str(path)] = (info.st_size, info.st_mtime_ns)
    return files


def _source(fake_home: dict[str, Path]) -> Path:
    [path] = fake_home["codex"].rglob(f"*{SESSION}.jsonl")
    return path


def test_migrate_to_claude_and_markdown(fake_home: dict[str, Path], tmp_path: Path) -> None:
    source = _source(fake_home)
    source_hash = hashlib.sha256(source.read_bytes()).hexdigest()
    out = tmp_path / "handoff.md"
    code, stdout, stderr = _run(
        "migrate",
        SESSION[:13],
        "--target",
        "claude-sonnet-4-5",
        "--to",
        "claude",
        "--to",
        "markdown",
        "--out",
        str(out),
        "--json",
    )
    assert code == 0, stderr
    result = json.loads(stdout)
    [claude_file, md_file] = result["files"]
    assert claude_file["destination"] == "claude" and Path(claude_file["path"]).is_file()
    assert md_file["path"] == str(out) and out.read_text().startswith("# Handoff: ")
    assert result["resume_commands"] == [f"cd /home/user/proj && claude --resume {claude_file['session_id']}"]
    assert result["continue_latest"] == [
        {
            "agent": "claude",
            "command": "claude -c",
            "folder": "/home/user/proj",
            "picks": claude_file["session_id"],
            "migration": True,
            "sentence": "`claude -c` in /home/user/proj continues this migration.",
        }
    ]
    record_path = Path(result["record_path"])
    assert stat.S_IMODE(record_path.stat().st_mode) == 0o600
    stored = json.loads(record_path.read_text())
    assert stored["source"]["sha256"] == source_hash and stored["target"] == "claude-sonnet-4-5"
    assert stored["files"] == [str(out)]
    assert hashlib.sha256(source.read_bytes()).hexdigest() == source_hash

    code, stdout, _ = _run("history", "--json")
    assert code == 0
    [row] = json.loads(stdout)
    assert row["id"] == result["migration_id"] and (row["source"]["agent"], row["source"]["id"]) == ("codex", SESSION)
    code, stdout, _ = _run("history", "show", result["migration_id"])
    assert code == 0 and f"claude --resume {claude_file['session_id']}" in stdout
    code, stdout, _ = _run("history", "--workspace", "/somewhere/else", "--json")
    assert code == 0 and json.loads(stdout) == []


def test_dry_run_writes_nothing(fake_home: dict[str, Path], isolated_homes: dict[str, Path]) -> None:
    # The agents' homes and smig's data folder stay byte-for-byte; only the token cache may warm up.
    watched = (isolated_homes["home"], isolated_homes["smig"] / "data")
    before = _tree(*watched)
    code, stdout, stderr = _run(
        "migrate", SESSION, "--target", "gpt-5.5", "--to", "codex", "--to", "claude", "--dry-run"
    )
    assert code == 0, stderr
    assert "nothing was written" in stderr
    assert "store: would write " in stdout and "codex: would write " in stdout and "claude: would write " in stdout
    assert "resume: cd /home/user/proj && codex resume " in stdout
    assert "latest:" not in stdout  # nothing was written, so no client picks anything new
    assert _tree(*watched) == before
    code, stdout, _ = _run("migrate", SESSION, "--target", "gpt-5.5", "--to", "codex", "--dry-run", "--json")
    planned = json.loads(stdout)
    assert planned["dry_run"] is True and planned["files"][0]["data"].startswith('{"timestamp"')
    assert _tree(*watched) == before


def test_default_destination_is_the_store(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = _run("migrate", SESSION, "--target", "gpt-4o-mini", "--strategy", "truncate")
    assert code == 0
    assert stdout.startswith("Migrated codex session ") and "resume:" not in stdout
    ids = [row["id"] for row in json.loads(_run("history", "--json")[1])]
    code, stdout, _ = _run("history")
    shown = stdout.splitlines()[1].split()[0]  # the shortest unique prefix, which `history show` takes
    assert code == 0 and stdout.count("\n") == 2 and ids[0].startswith(shown) and len(shown) >= 8
    assert _run("history", "show", shown)[1].startswith(f"           id: {ids[0]}\n")


def test_export_formats_and_no_clobber(fake_home: dict[str, Path], tmp_path: Path) -> None:
    code, stdout, _ = _run("export", SESSION, "--format", "openai")
    assert code == 0
    chat = json.loads(stdout)
    roles = [m["role"] for m in chat]
    assert roles and all(a != b for a, b in zip(roles, roles[1:], strict=False)) and roles[0] == "user"
    code, stdout, _ = _run("export", SESSION, "--format", "memory")
    assert code == 0 and stdout.startswith("---\nname: ") and "## Files touched" in stdout
    code, stdout, _ = _run("export", SESSION, "--format", "json", "--target", "gpt-5.5")
    assert code == 0 and json.loads(stdout)["plan"]["target"] == "gpt-5.5"
    out = tmp_path / "x.md"
    out.write_text("mine")
    code, stdout, stderr = _run("export", SESSION, "--out", str(out))
    assert code == 4 and "--force" in stderr and out.read_text() == "mine" and stdout == ""
    code, _, stderr = _run("export", SESSION, "--out", str(out), "--force")
    assert code == 0 and out.read_text().startswith("# Handoff:") and "wrote" in stderr


def test_export_to_clipboard_via_system_tool(
    fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sink = tmp_path / "clipboard.txt"
    tool = bin_dir / "xclip"
    tool.write_text(f"#!/bin/sh\nexec /bin/cat > {sink}\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(clipboard, "TTY_PATH", str(tmp_path / "no-tty" / "tty"))
    code, stdout, stderr = _run("export", SESSION, "--clipboard")
    assert code == 0, stderr
    assert stdout == "" and "via xclip" in stderr
    assert sink.read_text().startswith("# Handoff: ")


def test_clipboard_osc52_and_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tty = tmp_path / "tty"
    tty.write_text("")
    assert clipboard.copy_to_clipboard("héllo", tty_path=str(tty)) == "osc52"
    assert tty.read_text() == "\x1b]52;c;aMOpbGxv\x07"
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(clipboard.ClipboardError, match="--out FILE"):
        clipboard.copy_to_clipboard("x", use_terminal=False)


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (("history", "show", "../../etc/passwd"), 3, "not a migration id"),
        (("migrate", SESSION, "--target", "gpt-5.5", "--to", "claude", "--out", "x.md"), 2, "--to markdown"),
        (("history", "show", "0" * 32), 3, "No stored migration"),
        (("migrate", "nope", "--target", "gpt-5.5"), 3, "No session matches"),
        (("migrate", SESSION, "--target", "no-such-model-xyz"), 3, "Unknown model"),
    ],
)
def test_errors_are_one_sentence(fake_home: dict[str, Path], argv: tuple[str, ...], code: int, message: str) -> None:
    got, stdout, stderr = _run(*argv)
    assert got == code and message in stderr and "Traceback" not in stderr and stdout == ""
    assert [line for line in stderr.splitlines() if line.startswith("smig: error:")] == [stderr.splitlines()[-1]]


def test_migrated_session_is_listed_and_readable(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = _run("migrate", SESSION, "--target", "claude-sonnet-4-5", "--to", "claude", "--json")
    sid = json.loads(stdout)["files"][0]["session_id"]
    code, stdout, _ = _run("list", "--agent", "claude", "--json")
    assert sid in [row["id"] for row in json.loads(stdout)]
    assert os.path.isdir(fake_home["claude"] / "projects" / "-home-user-proj")
    code, stdout, _ = _run("migrate", SESSION, "--target", "gpt-5.5", "--to", "codex")
    assert code == 0 and "  latest: `codex resume --last` in /home/user/proj continues this migration.\n" in stdout


def test_a_summary_plan_without_its_summary_is_refused(fake_home: dict[str, Path]) -> None:
    from smig_tui.core.errors import SmigError
    from smig_tui.core.models import Strategy
    from smig_tui.services import build_services

    services = build_services()
    session = services.load_session(services.find_session(SESSION))
    plan = services.plan(session, "gpt-5.5", Strategy.SUMMARY)
    assert plan.summary is None
    before = _tree(fake_home["claude"])
    with pytest.raises(SmigError, match="has no summary yet"):
        services.migrate(session, plan, {Destination("claude")})
    assert _tree(fake_home["claude"]) == before and services.store.list() == []


def test_secrets_are_redacted_in_everything_written(fake_home: dict[str, Path]) -> None:
    from smig_tui.core.models import Strategy
    from smig_tui.services import build_services

    services = build_services()
    session = services.load_session(services.find_session(SESSION))
    secret = "sk-proj-" + "A1b2C3d4" * 6
    planted = replace(session.messages[-1], body=session.messages[-1].text + f"\nOPENAI_API_KEY={secret}")
    session = replace(session, messages=(*session.messages[:-1], planted))
    plan = services.plan(session, "gpt-5.5", Strategy.TRUNCATE)
    result = services.migrate(session, plan, {Destination("claude"), Destination("codex"), Destination.MARKDOWN})
    assert sum(result.redactions.values()) >= 1
    written = [Path(f.path).read_text() for f in result.files] + [Path(result.record_path).read_text()]
    assert all(secret not in text for text in written) and all("[REDACTED:" in text for text in written)
    assert secret not in services.export(session, "openai") and secret not in services.export(session, "memory")
    raw = services.migrate(session, plan, {Destination("codex")}, redact=False)
    assert raw.redactions == {} and secret in Path(raw.files[0].path).read_text()


def test_migrate_cwd_writes_the_sessions_for_another_project_folder(fake_home: dict[str, Path], tmp_path: Path) -> None:
    moved = tmp_path / "clone" / "proj"
    moved.mkdir(parents=True)
    code, stdout, stderr = _run(
        "migrate", SESSION, "--target", "gpt-5.5", "--to", "codex", "--to", "claude", "--cwd", str(moved), "--json"
    )
    assert code == 0, stderr
    result = json.loads(stdout)
    assert len(result["resume_commands"]) == 2
    for entry in result["files"]:
        if entry["destination"] not in ("claude", "codex"):
            continue
        assert entry["resume_command"].startswith(f"cd {moved} && ")
        text = Path(entry["path"]).read_text(encoding="utf-8")
        first = json.loads(text.splitlines()[0])
        assert (first["payload"]["cwd"] if entry["destination"] == "codex" else first["cwd"]) == str(moved)
        assert "it was recorded in /home/user/proj" in text  # the note says where it came from
    code, _, stderr = _run("migrate", SESSION, "--target", "gpt-5.5", "--to", "markdown", "--cwd", str(moved))
    assert code != 0 and "--cwd names the project folder of a native session" in stderr
    code, _, stderr = _run("migrate", SESSION, "--target", "gpt-5.5", "--to", "codex", "--cwd", "/not/here/proj")
    assert code == 0 and "/not/here/proj is not a folder here; the session is written for it anyway" in stderr

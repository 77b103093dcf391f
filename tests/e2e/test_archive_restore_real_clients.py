"""Proves an archived session the agent lost is restored where the real client resumes it.

The real client writes a session against a fake model server, smig archives it, the file is deleted
(as Claude Code's cleanup or a user would), smig still lists it as archived, `smig archive restore`
writes it back, and the real client resumes it: its next request carries the first conversation.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from client_env import base_env, claude_env, client_binary, codex_home_for, run_client
from fake_model_server import REPLY, FakeModelServer

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output

pytestmark = pytest.mark.e2e
FIRST_PROMPT = "Remember the codeword HERON-451 for later"


def smig(*argv: str) -> tuple[int, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    assert code == 0, out.stderr.getvalue()
    return code, out.stdout.getvalue()


def archive_delete_restore(agent: str, written: Path) -> str:
    """Archive, delete the original, check it lists as archived, restore it; returns the session id."""
    original = written.read_bytes()
    smig("archive")
    written.unlink()
    listed = json.loads(smig("list", "--json", "--all")[1])
    [entry] = [info for info in listed if info["agent"] == agent]
    assert entry["archived"] is True
    _, restored = smig("archive", "restore", entry["id"])
    assert Path(restored.strip()) == written and written.read_bytes() == original
    return str(entry["id"])


def test_claude_code_resumes_a_restored_session(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    claude = client_binary("claude")
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer() as server:
        env = claude_env(isolated_homes, server)
        run_client([claude, "-p", FIRST_PROMPT], project, env)
        [written] = list((isolated_homes["claude"] / "projects").rglob("*.jsonl"))
        session_id = archive_delete_restore("claude", written)
        server.requests.clear()
        run = run_client([claude, "-p", "--resume", session_id, "what was the codeword?"], project, env)
        sent = json.dumps(server.bodies("/messages"), ensure_ascii=False)
    assert REPLY in run.stdout
    assert FIRST_PROMPT in sent and "what was the codeword?" in sent
    assert written.stat().st_size > 0 and session_id in written.name


def test_codex_resumes_a_restored_thread(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    codex = client_binary("codex")
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer() as server:
        codex_home_for(isolated_homes, server)
        env = base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"}
        run_client([codex, "exec", "--skip-git-repo-check", FIRST_PROMPT], project, env)
        [written] = list((isolated_homes["codex"] / "sessions").rglob("rollout-*.jsonl*"))
        thread_id = archive_delete_restore("codex", written)
        size = written.stat().st_size
        server.requests.clear()
        run = run_client(
            [codex, "exec", "--skip-git-repo-check", "resume", thread_id, "what was the codeword?"], project, env
        )
        sent = json.dumps(server.bodies("/responses"), ensure_ascii=False)
    assert REPLY in run.stdout
    assert FIRST_PROMPT in sent and "what was the codeword?" in sent
    assert written.stat().st_size > size  # resumed in place: appended to the restored rollout

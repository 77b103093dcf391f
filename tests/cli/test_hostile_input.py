"""Hostile session content through the CLI: markup-like text prints as written, a deeply nested line
is one warning naming its file and line, and neither ever stops the other sessions from listing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output

CLAUDE = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"
CODEX = "01a1fe68-2300-7c3d-84e5-f6a7b8c9d0e1"
MARKUP = "[/bold] then [/^claude/i] and [link=x]y[/link] :smile:"
NESTED = "[" * 5000 + "]" * 5000


def _run(argv: list[str]) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(argv, Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


def _claude_file(home: dict[str, Path]) -> Path:
    return home["claude"] / "projects" / "-home-user-proj" / f"{CLAUDE}.jsonl"


def _codex_file(home: dict[str, Path]) -> Path:
    return next(home["codex"].rglob(f"*{CODEX}.jsonl"))


def _prefix_first_prompt(path: Path, prefix: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        record = json.loads(line)
        content = record.get("message", {}).get("content") if record.get("type") == "user" else None
        if isinstance(content, str):
            record["message"]["content"] = prefix + content
            lines[number] = json.dumps(record)
            break
    else:
        raise AssertionError("the fixture has no typed prompt")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.usefixtures("exact_tokens")  # offline without tiktoken's file, plan adds the estimate notice
@pytest.mark.parametrize("argv", [["show", CLAUDE], ["show", CLAUDE, "--full"], ["plan", CLAUDE, "--target", "gpt-4o"]])
def test_message_text_that_looks_like_markup_prints_as_written(
    fake_home: dict[str, Path], argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # plan's text column is cut to the width: wide enough for the markup
    _prefix_first_prompt(_claude_file(fake_home), MARKUP + " ")
    code, stdout, stderr = _run(argv)
    assert (code, stderr) == (0, "")
    assert "[/bold] then [/^claude/i]" in stdout


def test_a_deeply_nested_line_is_one_warning_and_every_session_still_lists(fake_home: dict[str, Path]) -> None:
    for path in (_claude_file(fake_home), _codex_file(fake_home)):
        with path.open("a", encoding="utf-8") as handle:
            handle.write(NESTED + "\n" + '{"type":"user","payload":' + NESTED + "}\n")
    before = json.loads(_run(["list", "--json", "--all"])[1])
    code, stdout, stderr = _run(["list", "--all"])
    assert code == 0 and "Traceback" not in stderr
    assert CLAUDE[:8] in stdout and CODEX[:8] in stdout and len(before) >= 8
    for ref, path in ((CLAUDE, _claude_file(fake_home)), (CODEX, _codex_file(fake_home))):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        code, stdout, stderr = _run(["show", ref])
        assert code == 0
        assert stderr.splitlines()[-2:] == [
            f"smig: warning: {path}:{lines - 1}: JSON nested too deeply to read; line skipped",
            f"smig: warning: {path}:{lines}: JSON nested too deeply to read; line skipped",
        ]
        assert _run(["plan", ref, "--target", "gpt-4o"])[0] == 0

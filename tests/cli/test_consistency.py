"""The CLI's commands agree with each other (issue 29): short flags, usage on a bad option, `--limit 0`,
an unknown model, plurals, the order of a summary's problems, and the config file named where it matters."""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path

import pytest
from cli_runner import smig
from migration_builders import make_plan, make_session

from smig_tui.cli.main import COMMANDS, Context, build_parser, main
from smig_tui.cli.output import Output
from smig_tui.cli.plan import plan_line
from smig_tui.services import agent_profiles

CODEX = "01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4"
CLAUDE = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"


def _parsers(parser: argparse.ArgumentParser, path: str = "smig") -> dict[str, argparse.ArgumentParser]:
    found = {path: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= _parsers(sub, f"{path} {name}")
    return found


def test_a_short_flag_means_the_same_in_every_command() -> None:
    meaning: dict[str, set[str]] = {}
    for parser in _parsers(build_parser()).values():
        for action in parser._actions:
            shorts = [o for o in action.option_strings if not o.startswith("--")]
            longs = [o for o in action.option_strings if o.startswith("--")]
            for short in shorts:
                meaning.setdefault(short, set()).update(longs)
    assert all(len(longs) == 1 for longs in meaning.values()), meaning
    assert meaning["-t"] == {"--target"} and meaning["-s"] == {"--strategy"}


@pytest.mark.usefixtures("exact_tokens")
def test_migrate_and_export_take_t_and_s_like_plan(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = smig("migrate", CODEX, "-t", "gpt-4o-mini", "-s", "truncate", "--dry-run")
    assert code == 0 and "to gpt-4o-mini" in stdout, stderr
    code, stdout, _ = smig("export", CODEX, "-t", "gpt-4", "-s", "tools-first", "--format", "json")
    assert code == 0 and json.loads(stdout)
    code, stdout, stderr = smig("export", CODEX, "-s", "tools-first")
    assert code == 2 and stdout == "" and "add --target MODEL" in stderr


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["list", "--bogus"], "usage: smig list "),
        (["plan", CODEX, "-t", "gpt-4", "--pinn", "3"], "usage: smig plan "),
        (["history", "show", "abc", "--bogus"], "usage: smig history show "),
        (["list", "stray"], "usage: smig list "),
    ],
)
def test_an_unknown_option_prints_the_usage_of_its_command(
    argv: list[str], usage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv, Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO())))
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.startswith(usage) and "unrecognized arguments:" in err
    assert "COMMAND" not in err  # not the top-level usage listing every command


def test_limit_zero_means_no_limit_in_list_and_search(fake_home: dict[str, Path]) -> None:
    listed = json.loads(smig("list", "--json")[1])
    assert json.loads(smig("list", "--json", "--limit", "0")[1]) == listed and len(listed) > 1
    assert len(json.loads(smig("list", "--json", "--limit", "1")[1])) == 1
    hits = json.loads(smig("search", "the", "--json", "--limit", "0")[1])
    assert len(hits) > 20 and len(json.loads(smig("search", "the", "--json")[1])) == 20  # the default is 20
    for command in (("list",), ("search", "the")):
        code, stdout, stderr = smig(*command, "--limit", "-1")
        assert code == 2 and stdout == "" and "--limit cannot be negative" in stderr


@pytest.mark.parametrize("name", ["gpt-9000", "gpt-7"])
def test_an_unknown_model_exits_3_with_its_similar_names_labelled(isolated_homes: dict[str, Path], name: str) -> None:
    code, stdout, stderr = smig("models", name)
    lines = stderr.splitlines()
    assert code == 3 and stdout == ""
    assert lines[0].startswith(f"smig: error: Unknown model '{name}'.") and lines[1] == "similar:"
    assert lines[2].split()[0] == "model" and all(line.split()[0].startswith("gpt-") for line in lines[3:])
    assert smig("models", name, "--json")[:2] == (3, "")
    code, stdout, stderr = smig("models", "zzzzzz")
    assert code == 3 and "similar:" not in stderr


def test_counts_and_nouns_agree(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    one = plan_line(make_plan(session, keep_last=1))
    assert ": keeps 1 message, leaves out" in one
    assert ": keeps 2 messages," in plan_line(make_plan(session, keep_last=2))
    shown_as_maybe = [
        f"{path.name}: {line.strip()}"
        for path in (Path(__file__).parents[2] / "smig_tui" / "cli").glob("*.py")
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"\{[^{}]*\}[^\"{]*\(s\)", line)
    ]
    assert not shown_as_maybe  # "2 part(s)": use core.words.plural


def test_a_summary_without_a_key_says_so_before_asking_for_consent(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, stdout, stderr = smig("migrate", CODEX, "-t", "gpt-4", "-s", "summary-tail")
    assert code == 6 and stdout == "" and "No API key for the openai summarizer: set OPENAI_API_KEY" in stderr
    assert "--yes-send" not in stderr
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    code, _, stderr = smig("migrate", CODEX, "-t", "gpt-4", "-s", "summary-tail")
    assert code == 2 and "Confirm with --yes-send" in stderr  # with a key, consent is what is missing
    monkeypatch.delenv("OPENAI_API_KEY")
    code, stdout, stderr = smig("plan", CODEX, "-t", "gpt-4", "-s", "summary-tail")
    assert code == 0 and "summary not written. No API key" in stderr  # plan still previews, and says why


def test_the_config_file_is_named_where_a_user_would_edit_it(fake_home: dict[str, Path], capsys) -> None:
    config = str(fake_home["smig"] / "config" / "config.toml")
    code, _, stderr = smig("plan", CODEX, "-t", "no-such-model-9")
    assert code == 3 and f"add it under [models] in {config}." in stderr
    with pytest.raises(SystemExit):
        main(["models", "--help"], Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO())))
    assert config in " ".join(capsys.readouterr().out.split())
    assert f"config     {config}" in smig("doctor")[1]


def test_help_names_every_agent_of_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    names = [entry.name for entry in agent_profiles()]
    for argv in (["--help"], ["list", "--help"], ["migrate", "--help"]):
        with pytest.raises(SystemExit):
            main(argv, Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO())))
        text = " ".join(capsys.readouterr().out.split())
        writable = [entry.id for entry in agent_profiles() if entry.writer is not None]
        wanted = writable if argv[0] == "migrate" else names
        assert all(name in text for name in wanted), (argv, text)
        if argv[0] == "migrate":  # a read-only agent is no destination: not in --to's choices
            read_only = [entry.id for entry in agent_profiles() if entry.writer is None]
            assert not any(f",{agent}," in text or f"{{{agent}," in text for agent in read_only), text
    assert "Codex or Claude Code conversation" not in " ".join(
        Path(__file__).parents[2].joinpath("pyproject.toml").read_text(encoding="utf-8").split()
    )
    assert set(COMMANDS) >= {"doctor"}

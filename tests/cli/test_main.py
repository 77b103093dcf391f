from __future__ import annotations

import io
from pathlib import Path

import pytest

from smig_tui.cli.main import COMMANDS, Context, build_parser, main
from smig_tui.cli.output import Output


def _subcommands(argv: list[str] | None) -> set[str]:
    parser = build_parser(argv)
    [action] = [a for a in parser._actions if a.dest == "command"]
    return set(action.choices)  # type: ignore[arg-type]


def test_every_listed_command_is_registered_by_its_module() -> None:
    assert _subcommands(None) == set(COMMANDS) | {"tui"}
    for command in COMMANDS:
        assert command in _subcommands([command])


def test_a_named_command_loads_only_its_own_module() -> None:
    assert _subcommands(["list", "--json"]) == {"tui", "list", "show"}
    assert _subcommands(["--json", "history"]) >= {"history", "migrate"}


def test_unknown_command_is_a_usage_error_listing_the_real_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["lsit"], Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO())))
    assert exit_info.value.code == 2
    assert "invalid choice: 'lsit'" in capsys.readouterr().err


def test_smig_error_maps_to_its_exit_code() -> None:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    assert main(["show", "no-such-session"], Context(out=out)) == 3
    assert out.stdout.getvalue() == ""
    assert "No session matches 'no-such-session'" in out.stderr.getvalue()


def test_a_parser_is_built_once_for_the_installed_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    from smig_tui.adapters.agents import registry

    first = build_parser(["show", "x"])
    assert build_parser(["list", "--json"]) is first  # the same command module
    monkeypatch.setattr(registry, "AGENTS", registry.AGENTS[:-1])  # an agent fewer: its choices go
    assert build_parser(["show", "x"]) is not first


def test_models_help_names_the_config_file_of_this_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The parser outlives an environment; the config file's path in its help is the one in force."""
    for home in ("one", "two"):
        monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / home))
        with pytest.raises(SystemExit):
            main(["models", "--help"], Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO())))
        assert f"{tmp_path / home / 'config' / 'config.toml'}\n" in capsys.readouterr().out

"""The config file's one schema: each table's settings are checked in one place, in the same words."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from smig_tui.core.config_schema import TABLES, config_problems, table_of
from smig_tui.core.errors import ConfigError

SRC = Path(__file__).parents[2] / "smig_tui"


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("[plan]\nreserve = -5\n", "c.toml: plan.reserve must be a whole number of tokens (0 or more), not -5."),
        ("[plan]\nharness = 1\n", "c.toml: plan.harness must be true or false, not 1."),
        ("[archive]\nauto = 'yes'\n", "c.toml: archive.auto must be true or false, not 'yes'."),
        ("archive = 3\n", "c.toml: [archive] must be a table."),
        ("[agents]\nclaude = 3\n", "c.toml: [agents.claude] must be a table."),
        ("[agents.claude]\nwindow = 1\n", "c.toml: agents.claude.window is not a setting (known: folders, overhead)."),
        (
            "[providers.mine]\nkind = 'grpc'\n",
            "c.toml: providers.mine.kind must be one of openai, ollama, lmstudio, litellm, not 'grpc'.",
        ),
        (
            "[providers.mine]\nbase_url = 'ftp://x'\n",
            "c.toml: providers.mine.base_url must be an http(s) address, not 'ftp://x'.",
        ),
        ("[summarizer]\ntimeout = 0\n", "c.toml: summarizer.timeout must be a number of seconds above 0, not 0."),
        (
            "[summarizer]\nmax_retries = true\n",
            "c.toml: summarizer.max_retries must be a whole number (0 or more), not True.",
        ),
    ],
)
def test_a_wrong_setting_is_one_sentence_naming_the_file_and_the_key(text: str, sentence: str) -> None:
    config = tomllib.loads(text)
    name = next(iter(config))
    with pytest.raises(ConfigError) as raised:
        table_of(config, name, "c.toml")
    assert str(raised.value) == sentence
    assert config_problems(config, "c.toml") == [sentence]


def test_good_tables_pass_and_an_absent_one_is_empty() -> None:
    config = tomllib.loads(
        "[plan]\nreserve = 8000\nharness = false\n[archive]\nauto = true\n[agents.codex]\noverhead = 9000\n"
        "[summarizer]\nprovider = 'local'\nmodel = 'qwen'\ntimeout = 2.5\n[providers.ollama]\nkind = 'ollama'\n"
        '[models."my-model"]\ncontext_window = 100000\n'
    )
    assert config_problems(config, "c.toml") == []
    assert table_of(config, "plan", "c.toml")["reserve"] == 8000
    assert table_of({}, "archive", "c.toml") == {}


def test_a_table_smig_does_not_read_is_a_problem_the_doctor_reports() -> None:
    [problem] = config_problems({"summariser": {"model": "x"}}, "c.toml")
    assert problem.startswith("c.toml: [summariser] is not a table smig reads (known: [plan], [agents], [models]")


def test_no_feature_refuses_a_setting_by_hand_for_a_table_the_schema_checks() -> None:
    """The tables with a schema are read through `table_of`: no module tests their types itself."""
    hand_checks = []
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for name, table in TABLES.items():
            if table.settings is not None and f'config.get("{name}"' in text and path.name != "config_schema.py":
                hand_checks.append(f"{path.relative_to(SRC)}: {name}")
    assert not hand_checks

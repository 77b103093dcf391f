"""What smig knows about an agent lives in that agent's package: no code elsewhere names one.

Every Python file of `smig_tui` outside `adapters/agents/<agent>/` is read token by token: no
identifier and no string (docstrings and comments are documentation, and may say what an agent
does) may contain an agent's name. The one allowance is the registry's list of the built-in
agents, which mirrors their entry-point declaration in `pyproject.toml`.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from smig_tui.adapters.agents.registry import BUILT_IN

PACKAGE = Path(__file__).parents[1] / "smig_tui"
AGENTS = Path("adapters") / "agents"


def _names(ids: list[str]) -> re.Pattern[str]:
    """Every built-in agent's id anywhere in a token; an id as short as `pi` only between non-letters (so
    `api`, `pipe` and a regex's `[Aa]pi` are not it, while `pi_home` and `"pi"` are)."""
    return re.compile(
        "|".join(re.escape(id) if len(id) > 3 else rf"(?<![a-z\]]){re.escape(id)}(?![a-z])" for id in ids),
        re.IGNORECASE,
    )


NAMES = _names(list(BUILT_IN))
ALLOWED = {
    "adapters/agents/registry.py": "BUILT_IN: the built-in agents' ids and entry points, in their order (as pyproject.toml declares them)",
}
"""Files that may name agents, and why."""


def _docstrings(tree: ast.AST) -> set[tuple[int, int]]:
    """Where each docstring starts: a module's, class's or function's, and an attribute's (a string after an assignment)."""
    starts: set[tuple[int, int]] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for index, statement in enumerate(body):
            is_text = isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            if not is_text or not isinstance(statement.value.value, str):
                continue
            first = index == 0 and isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            after_assignment = index > 0 and isinstance(body[index - 1], ast.Assign | ast.AnnAssign)
            if first or after_assignment:
                starts.add((statement.lineno, statement.col_offset))
    return starts


def agent_names_in(source: str) -> list[tuple[int, str]]:
    """(line, token) of each identifier or string (not a docstring) that names an agent."""
    docstrings = _docstrings(ast.parse(source))
    kinds = {tokenize.NAME, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    return [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type in kinds and NAMES.search(token.string) and token.start not in docstrings
    ]


def _outside_the_agent_packages() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if not (path.relative_to(PACKAGE).parent.parent == AGENTS or AGENTS in path.relative_to(PACKAGE).parents[1:])
    ]


def test_no_code_outside_an_agents_package_names_an_agent() -> None:
    found = [
        f"{path.relative_to(PACKAGE).as_posix()}:{line}: {token[:80]}"
        for path in _outside_the_agent_packages()
        if path.relative_to(PACKAGE).as_posix() not in ALLOWED
        for line, token in agent_names_in(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_scan_covers_the_shared_code_and_skips_only_the_agent_packages() -> None:
    scanned = {path.relative_to(PACKAGE).as_posix() for path in _outside_the_agent_packages()}
    assert {"core/capacity.py", "services/sessions.py", "adapters/agents/profile.py", "mcp/schemas.py"} <= scanned
    assert not any(name.startswith(("adapters/agents/codex/", "adapters/agents/claude/")) for name in scanned)


def test_the_scan_sees_names_in_code_and_strings_but_not_in_documentation() -> None:
    source = (
        '"""Reads what Codex writes."""\n'
        "# a comment about Claude Code is documentation\n"
        "LIMIT = 5\n"
        '"""An attribute docstring naming Gemini CLI."""\n'
        'if agent == "claude":\n'
        "    opencode_home = 1\n"
        'label = f"{x} GEMINI"\n'
    )
    assert [line for line, _ in agent_names_in(source)] == [5, 6, 7]


def test_every_built_in_agent_is_looked_for_and_a_short_id_only_as_a_word() -> None:
    for id in BUILT_IN:
        assert agent_names_in(f"home = {id}_home\n"), id
    source = 'pi_dir = 1\nlabel = "Pi session"\napi = pipe = 2\nPATTERN = r"[Aa]pi\\("\naider_file = 3\n'
    assert [line for line, _ in agent_names_in(source)] == [1, 2, 5]

"""No test depends on the machine being idle: none sleeps, and none fails because a wait ran long.

A test waits for an event the code under test or the test itself sets; the limit on that wait only
stops a hang, so it is far above what a loaded 2-core CI machine needs (`HANG_GUARD`).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
HANG_GUARD = 600
"""Seconds: the least an asserted wait may allow."""


def _problems(source: str) -> list[str]:
    """`sleep(...)` calls, and `assert x.wait(N)` with N below the hang guard, as `line: text`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name == "sleep":
                found.append((node.lineno, "sleeps"))
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Call):
            call = node.test
            if isinstance(call.func, ast.Attribute) and call.func.attr == "wait" and call.args:
                limit = call.args[0]
                if (
                    isinstance(limit, ast.Constant)
                    and isinstance(limit.value, int | float)
                    and limit.value < HANG_GUARD
                ):
                    found.append((node.lineno, f"asserts a wait of {limit.value} s"))
    return [f"{line}: {what}" for line, what in sorted(found)]


def test_no_test_sleeps_or_asserts_a_short_wait() -> None:
    wrong = [
        f"{path.relative_to(TESTS)}:{problem}"
        for path in sorted(TESTS.rglob("*.py"))
        if path != Path(__file__)
        for problem in _problems(path.read_text(encoding="utf-8"))
    ]
    assert not wrong, wrong


def test_the_scan_sees_a_sleep_and_a_short_wait_but_not_a_guard() -> None:
    source = "import time\ntime.sleep(1)\nassert ready.wait(30)\nassert ready.wait(600)\nready.wait(5)\n"
    assert _problems(source) == ["2: sleeps", "3: asserts a wait of 30 s"]

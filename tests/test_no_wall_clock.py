"""No test depends on the machine being idle: none sleeps, and none fails because a wait ran long.

A test waits for an event the code under test or the test itself sets; the limit on that wait only
stops a hang, so it is far above what a loaded 2-core CI machine needs (`HANG_GUARD`). That holds for
every way a test waits: an event, a thread or process joined, a queue read, a child process run or
talked to (`subprocess.run(..., timeout=)`, `communicate`), an anyio scope (`fail_after`) and the fuzz
suite's per-case timer (`deadline`). A limit smig itself is configured with (a summarizer's read
timeout, a lock's wait) is what those tests test, not a wait of the test's own, and is not looked at.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
NOT_SCANNED = (TESTS / "e2e", TESTS / "fixtures")
"""The real clients' tests (each client run is bounded by what that client needs; they run in a process of
their own) and the scripts that record fixtures with the real clients by hand."""
HANG_GUARD = 600
"""Seconds: the least a wait in a test may allow."""
BY_POSITION = {"wait", "join", "result", "fail_after", "move_on_after", "deadline"}
"""Waits whose first argument is the limit: an Event, Thread, Process, Popen or future; anyio's scopes; the
fuzz suite's per-case timer."""
BY_KEYWORD = BY_POSITION | {"get", "communicate", "acquire", "run", "check_output", "check_call", "call", "Popen"}
"""Waits whose `timeout=` is the limit: those, a Queue, a lock, and subprocess's children."""


def _constants(tree: ast.Module) -> dict[str, float]:
    """Module-level `NAME = <number>` assignments (a limit is often named once at the top)."""
    found: dict[str, float] = {}
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if (
            isinstance(value, ast.Constant)
            and isinstance(value.value, int | float)
            and not isinstance(value.value, bool)
        ):
            found.update({target.id: value.value for target in targets if isinstance(target, ast.Name)})
    return found


def _seconds(node: ast.expr | None, constants: dict[str, float]) -> float | None:
    """The number of seconds `node` stands for, when it is a literal or a module constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _limit(call: ast.Call, constants: dict[str, float]) -> float | None:
    """The time limit a waiting call sets, or None when it sets none (or is not a wait)."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    keyword = next((kw.value for kw in call.keywords if kw.arg == "timeout"), None)
    if keyword is not None and name in BY_KEYWORD:
        return _seconds(keyword, constants)
    if call.args and name in BY_POSITION:
        return _seconds(call.args[0], constants)
    return None


def _problems(source: str) -> list[str]:
    """`sleep(...)` calls, and waits whose limit is below the hang guard, as `line: text`."""
    tree = ast.parse(source)
    constants = _constants(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name == "sleep":
            found.append((node.lineno, "sleeps"))
        limit = _limit(node, constants)
        if limit is not None and limit < HANG_GUARD:
            found.append((node.lineno, f"waits at most {limit:g} s"))
    return [f"{line}: {what}" for line, what in sorted(found)]


def test_no_test_sleeps_or_bounds_a_wait_below_the_hang_guard() -> None:
    wrong = [
        f"{path.relative_to(TESTS)}:{problem}"
        for path in sorted(TESTS.rglob("*.py"))
        if path != Path(__file__) and not any(folder in path.parents for folder in NOT_SCANNED)
        for problem in _problems(path.read_text(encoding="utf-8"))
    ]
    assert not wrong, wrong


def test_the_scan_sees_each_kind_of_short_wait_but_not_a_guard_or_smigs_own_timeouts() -> None:
    source = (
        "import time\nLIMIT = 60\nGUARD = 600\n"
        "time.sleep(1)\n"  # 4
        "assert ready.wait(30)\n"  # 5
        "assert ready.wait(600)\n"
        "release.wait(5)\n"  # 7
        "holder.join(30)\n"  # 8
        "child.communicate('done', timeout=30)\n"  # 9
        "subprocess.run(['smig'], timeout=LIMIT)\n"  # 10
        "subprocess.run(['smig'], timeout=GUARD)\n"
        "queue.get(timeout=LIMIT)\n"  # 12
        "with anyio.fail_after(LIMIT):\n    pass\n"  # 13
        "with deadline(30):\n    pass\n"  # 15
        "make_summarizer(server, timeout=0.3)\n"
        "memo.get(1, make)\n"
        "holder.join()\n"
        "', '.join(names)\n"
    )
    assert _problems(source) == [
        "4: sleeps",
        "5: waits at most 30 s",
        "7: waits at most 5 s",
        "8: waits at most 30 s",
        "9: waits at most 30 s",
        "10: waits at most 60 s",
        "12: waits at most 60 s",
        "13: waits at most 60 s",
        "15: waits at most 30 s",
    ]

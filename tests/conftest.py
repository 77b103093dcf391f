"""Shared test setup: every test runs against temp homes, never the real ~/.codex or ~/.claude."""

from __future__ import annotations

import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import smig_tui.adapters.agents.registry  # noqa: F401  # hands the core the agents' rules, as smig does on start
from smig_tui.compiled import PURE_ENV, is_compiled

TESTS = Path(__file__).parent
OWN_FIXTURES = TESTS / "fixtures"
"""Checked-in fixtures: `codex_home/` and `claude_home/` are laid out exactly like the agents' homes."""
PUBLIC_FIXTURES = OWN_FIXTURES / "public"
"""Real public session files of Codex and Claude Code, copied byte for byte (`SOURCES.md` says from where)."""
SHIPPED_TIKTOKEN = OWN_FIXTURES / "tiktoken"
"""tiktoken's o200k_base and cl100k_base files (its README says where they come from)."""

# The test run keeps bytecode caches (git-ignored `__pycache__`) even where PYTHONDONTWRITEBYTECODE is set,
# as on some CI images, and drops the variable for the processes it starts (the benchmark does the same):
# otherwise every xdist worker compiles every test module again (pytest keeps its assertion rewrites as
# bytecode; collection 9.4 -> 3.6 s of CPU per process) and every `python -m smig_tui` a test starts
# compiles smig's modules (about 0.35 s each).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

RAM_TEMP = Path("/dev/shm")
"""Linux's memory-backed folder (tmpfs): where the tests' temp folders go when it has room."""
RAM_TEMP_ROOM = 4 << 30
"""Free bytes the memory folder must have (a container's default 64 MB does not): a fast-loop run writes
about 0.6 GB there; pytest removes a passed test's folder (`tmp_path_retention_policy`), a failed one's
stays for the last three runs."""


def _ram_temp() -> Path | None:
    """The memory folder when temp files may go there: TMPDIR unset, and the folder writable with room."""
    if os.environ.get("TMPDIR") or not RAM_TEMP.is_dir() or not os.access(RAM_TEMP, os.W_OK | os.X_OK):
        return None
    room = os.statvfs(RAM_TEMP)
    return RAM_TEMP if room.f_bavail * room.f_frsize >= RAM_TEMP_ROOM else None


# Every temp folder of the run (pytest's tmp_path, and the processes tests start, whose environment
# carries TMPDIR) lives in memory where it can: smig fsyncs every file and folder it writes, as it
# should, and on a disk each fsync waited about 10 ms (tests/secrets alone made 1,770: 16 s of wall
# time, with the core idle). Set before pytest picks its temp root; the xdist workers inherit it.
if (ram := _ram_temp()) is not None:
    os.environ["TMPDIR"] = str(ram)
    tempfile.tempdir = str(ram)

if not os.environ.get("TIKTOKEN_CACHE_DIR"):
    # tiktoken reads this when it first loads an encoding; the offline copies make counts exact, in a
    # fresh clone too. Tests of the estimate smig falls back to point it elsewhere themselves.
    os.environ["TIKTOKEN_CACHE_DIR"] = str(SHIPPED_TIKTOKEN)


HUGE_ENV = "SMIG_FUZZ_HUGE"
"""Set to 1 to run the tests marked `huge` (100 MB inputs, minutes each: the benchmark's sizes)."""
LONG_GROUPED_E2E = (
    "tests/e2e/test_kilo_real_client.py",
    "tests/e2e/test_lived_in_homes.py",
    "tests/e2e/test_memory_sync_real_clients.py",
    "tests/e2e/test_gemini_real_client.py",
    "tests/e2e/test_continue_real_clients.py",
)
"""The grouped e2e modules that take the most client CPU (measured, most first): they start the run."""
SPREAD_E2E = (
    "tests/e2e/test_mcp_four_clients.py",
    "tests/e2e/test_opencode_real_client.py",
    "tests/e2e/test_aider_real_client.py",
    "tests/e2e/test_pi_real_client.py",
    "tests/e2e/test_mcp_real_clients.py",
    "tests/e2e/test_copilot_real_client.py",
    "tests/e2e/test_qwen_real_client.py",
    "tests/e2e/test_matrix_real_clients.py",
)
"""e2e modules whose cases share only cheap module fixtures (the fake servers): `-n` spreads their cases.

In this order (the most client CPU a case first, the matrix's many small cases last), after every
grouped module: each worker starts on the long units, and the small cases fill in at the end, so
neither worker waits idle while the other finishes one long module.
"""


SLOW_FIRST = (
    "tests/tui/test_screens_fit.py",
    "tests/core/test_redact_gate.py",
    "tests/core/test_redact_ungated.py",
    "tests/secrets/test_secrets_suite.py",
    "tests/devtools/test_bench_rows.py",
    "tests/tui/",
)
"""The fast loop's longest tests (measured: 5-18 s each, every other test under 5 s), which start its run
(a prefix ending in `/` is a folder): started last, as the folders' order had the Pilot tests, one of
them kept a worker busy while the others had finished."""
WORKERS_PER_CORE = 2.5
"""`pytest -n auto` starts this many workers per core outside an e2e run (rounded: five on two cores): a
worker of the fast loop is often asleep rather than computing (Textual's Pilot waits at least 20 ms for
the app to go idle after every key and pause, about half of a TUI test's wall time, with the core idle),
and another worker on the core computes meanwhile. On the idle 2-core machine (2026-12-06, 2,680 tests):
four workers kept the cores 91 % busy (3 min 05-13 s), five 94-96 % (2 min 55 s and 3 min 02 s) for
the same CPU within the machine's own noise, six 97 % but 30 s more CPU (3 min 16 s). An e2e run (`-m
e2e`) keeps one worker per core: the real clients compute nearly all the time (its wall time on two
workers is half its CPU time), so more workers would only add memory and start-up."""


GC_THRESHOLDS = (20_000, 20, 10)
"""The test processes' collector thresholds (Python's are 700, 10, 10). A worker builds and drops
thousands of Textual apps, sessions and plans on a heap that holds every collected test, so the
default thresholds ran a full collection about every 7 s of a TUI test's CPU (0.2 s each) and the
collector took 5-8% of the fast loop's CPU (measured with `gc.callbacks`: 3.7 s of 76 s on four TUI
and secrets modules; 0.7 s with these thresholds, peak RSS 769 -> 804 MB). smig's own code sets no
thresholds: its pauses of the collector (`adapters/gc_pause.py`) are tested as they are."""


def _compiled(module_name: str) -> bool:
    """Whether an imported module of smig's was compiled (setup.py)."""
    module = sys.modules.get(module_name)
    return module is not None and module_name.startswith("smig_tui.") and is_compiled(module)


def _unseen_by_compiled_code(target: object, name: object) -> bool:
    """Whether replacing `target.name` would go unseen by compiled code: it calls the functions and
    classes of its own build directly, not through the module (its constants it does look up)."""
    if isinstance(target, type):
        return _compiled(target.__module__)
    if isinstance(target, ModuleType) and isinstance(name, str) and _compiled(target.__name__):
        current = getattr(target, name, None)
        return callable(current) and _compiled(getattr(current, "__module__", None) or "")
    return False


_plain_setattr = pytest.MonkeyPatch.setattr


def _checked_setattr(self: pytest.MonkeyPatch, target: Any, name: Any = None, *args: Any, **kwargs: Any) -> None:
    """`monkeypatch.setattr`, refused where compiled code would not see the change (the test would
    pass without testing what it says): such a test is marked `source_only`."""
    if _unseen_by_compiled_code(target, name):
        raise pytest.UsageError(
            f"{target!r}.{name} is compiled: mark the test source_only (it then runs with {PURE_ENV}=1)"
        )
    _plain_setattr(self, target, name, *args, **kwargs)


pytest.MonkeyPatch.setattr = _checked_setattr  # type: ignore[method-assign,assignment]


def compiled_run() -> bool:
    """Whether this run imports smig's compiled modules (an installed build; not SMIG_TUI_PURE=1)."""
    return any(_compiled(name) for name in list(sys.modules))


def pytest_configure(config: pytest.Config) -> None:
    """Every test process, the controller and each xdist worker, collects with `GC_THRESHOLDS`."""
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Collect the run's garbage until a pass finds none, then set what is left (the live heap) aside.

    pytest ends each process with five full collections that report what finalizers raise. The first
    finds the garbage (about 1.9 million objects in a fast-loop worker, 3 s); each of the other four
    walked the whole live heap again for nothing (about 0.2 s each, at the run's tail, every worker).
    Here the garbage is collected while pytest's hook still reports, and `gc.freeze` keeps those
    passes to what is made afterwards, where a finalizer's own garbage would be."""
    for _ in range(5):
        if not gc.collect():
            break
    gc.freeze()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: `WORKERS_PER_CORE` workers for each core this process may run on, one per core for an
    e2e run (xdist's own count when PYTEST_XDIST_AUTO_NUM_WORKERS is set)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores if config.getoption("markexpr") == "e2e" else max(1, round(cores * WORKERS_PER_CORE))


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the `huge` tests unless asked for, and under `pytest -n` (`--dist loadgroup`) keep
    each e2e module's tests on one worker (but SPREAD_E2E's); the longest tests first (`_run_order`).

    The huge tests are deselected, not skipped, so that a skip always means something is missing.
    An e2e module's expensive fixture (a home every client has lived in) is built once; every test
    and client run has its own temp home, project and fake servers, so modules and the spread
    modules' cases run side by side. Tests outside e2e go wherever a worker is free, `SLOW_FIRST` first.
    In a run of the compiled modules (setup.py), the `source_only` tests are skipped: they replace a
    function compiled code calls directly, and run with SMIG_TUI_PURE=1 (README, .ci/run).
    """
    if compiled_run():
        pure = pytest.mark.skip(reason=f"replaces a compiled function: runs with {PURE_ENV}=1 (.ci/run does)")
        for item in items:
            if item.get_closest_marker("source_only"):
                item.add_marker(pure)
    if os.environ.get(HUGE_ENV) != "1":
        huge = [item for item in items if item.get_closest_marker("huge")]
        if huge:
            config.hook.pytest_deselected(items=huge)
            items[:] = [item for item in items if not item.get_closest_marker("huge")]
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        if not item.get_closest_marker("e2e"):
            continue
        if not module.startswith("tests/e2e/"):  # .ci/run collects the e2e tests from tests/e2e only
            raise pytest.UsageError(f"{item.nodeid} is marked e2e outside tests/e2e")
        if module not in SPREAD_E2E:
            item.add_marker(pytest.mark.xdist_group(module))
    items.sort(key=_run_order)  # stable: each module's tests, and the modules of one rank, keep their order


def _run_order(item: pytest.Item) -> int:
    """Where a test runs in the order: outside e2e, `SLOW_FIRST`'s tests first, in its order, then the
    rest; in e2e, the long grouped modules, the other groups, then the spread ones' cases in SPREAD_E2E's
    order (a group is one unit of work, so it goes before the small cases that even the workers' ends)."""
    module = item.nodeid.split("::", 1)[0]
    if not item.get_closest_marker("e2e"):
        first = [index for index, prefix in enumerate(SLOW_FIRST) if module.startswith(prefix)]
        return first[0] - len(SLOW_FIRST) if first else 0
    if module in LONG_GROUPED_E2E:
        return LONG_GROUPED_E2E.index(module) - len(LONG_GROUPED_E2E)
    if module in SPREAD_E2E and not item.get_closest_marker("xdist_group"):
        return 1 + SPREAD_E2E.index(module)
    return 0  # a grouped module, or a spread module's own group (the matrix's cases one client server receives)


@pytest.fixture(autouse=True)
def isolated_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Point HOME, CODEX_HOME, CLAUDE_CONFIG_DIR and SMIG_TUI_HOME at empty temp folders."""
    homes = {
        "home": tmp_path / "home",
        "codex": tmp_path / "home" / ".codex",
        "claude": tmp_path / "home" / ".claude",
        "smig": tmp_path / "smig",
    }
    homes["home"].mkdir()
    monkeypatch.setenv("HOME", str(homes["home"]))
    monkeypatch.setenv("CODEX_HOME", str(homes["codex"]))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(homes["claude"]))
    monkeypatch.setenv("SMIG_TUI_HOME", str(homes["smig"]))
    for key in (
        "OPENAI_API_KEY",
        "DEEPSEEK_API_KEY",
        "OPENAI_BASE_URL",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "OPENROUTER_API_KEY",
        "VLLM_API_KEY",
        "CLAUDE_CODE_DISABLE_1M_CONTEXT",
        "GEMINI_CLI_HOME",
        "OPENCODE_DB",
        "QWEN_HOME",
        "QWEN_RUNTIME_DIR",
        "AIDER_CHAT_HISTORY_FILE",
        "KILO_DB",
        "KILO_CONFIG",
        "KILO_CONFIG_DIR",
        "CRUSH_GLOBAL_DATA",
        "CRUSH_GLOBAL_CONFIG",
        "COPILOT_HOME",
        "COPILOT_PROVIDER_MAX_PROMPT_TOKENS",
        "PI_CODING_AGENT_DIR",
        "PI_CODING_AGENT_SESSION_DIR",
    ):
        monkeypatch.delenv(key, raising=False)
    return homes


@pytest.fixture
def fake_home(isolated_homes: dict[str, Path]) -> dict[str, Path]:
    """Fill the temp agent homes with the checked-in fixture trees."""
    for name in ("codex", "claude"):
        tree = OWN_FIXTURES / f"{name}_home"
        if tree.is_dir():
            shutil.copytree(tree, isolated_homes[name], dirs_exist_ok=True)
    return isolated_homes


@pytest.fixture
def shared_fixtures() -> Path:
    """The real public session files of Codex and Claude Code (`tests/fixtures/public`)."""
    return PUBLIC_FIXTURES


@pytest.fixture
def shared_fixture_lines() -> list[str]:
    """Every line of the public JSONL session files, as written (bad UTF-8 replaced), in file order."""
    return [
        line
        for path in sorted(PUBLIC_FIXTURES.rglob("*.jsonl"))
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
    ]


@pytest.fixture
def memory_home(isolated_homes: dict[str, Path]) -> dict[str, Path]:
    """Fill the temp homes with the memory fixtures; `HOME_PROJECT` becomes the home folder's project."""
    for name in ("codex", "claude"):
        shutil.copytree(OWN_FIXTURES / "memory" / f"{name}_home", isolated_homes[name], dirs_exist_ok=True)
    projects = isolated_homes["claude"] / "projects"
    home_project = projects / "".join(c if c.isalnum() and c.isascii() else "-" for c in str(isolated_homes["home"]))
    (projects / "HOME_PROJECT").rename(home_project)
    return {**isolated_homes, "home_project": home_project}


@pytest.fixture(scope="session")
def _tiktoken_loads() -> bool:
    """Whether tiktoken's o200k_base vocabulary loads here (cached, shared, or downloadable)."""
    from smig_tui.adapters.tokenizers.tiktoken_counter import make_counter

    return make_counter("o200k_base").exact


@pytest.fixture
def exact_tokens(_tiktoken_loads: bool) -> None:
    """Skip a test whose expected numbers are exact tiktoken counts when only the estimate is available.

    That happens only when TIKTOKEN_CACHE_DIR names a folder without the file and there is no network
    (the tests ship it, `SHIPPED_TIKTOKEN`): smig then (rightly) falls back to its labelled estimate,
    which other tests cover.
    """
    if not _tiktoken_loads:
        pytest.skip("tiktoken's o200k_base file is not available offline; counts would be estimates")

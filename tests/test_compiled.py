"""The modules setup.py compiles with mypyc: built together or not at all, imported from their sources when
asked or when stale, and reading sessions exactly as their sources do."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from smig_tui import compiled
from smig_tui.compiled import PURE_ENV, SourceFinder, extensions_stale, is_compiled

ROOT = Path(__file__).parents[1]
FIXTURES = Path(__file__).parent / "fixtures"


def _marked_modules() -> list[str]:
    """The dotted names of the modules setup.py compiles, as its own scan finds them."""
    pytest.importorskip("setuptools")
    spec = importlib.util.spec_from_file_location("smig_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)  # defines its functions; setup() runs only as __main__
    return [path.removesuffix(".py").replace("/", ".") for path in setup.compiled_modules()]


def test_the_marked_modules_are_the_readers_and_were_built_together() -> None:
    """Either every marked module is compiled or none is (a build that fell back, or a checkout never
    built): a mix would run one module's old code beside another's new."""
    names = _marked_modules()
    assert {"smig_tui.adapters.jsonl", "smig_tui.adapters.agents.claude.load", "smig_tui.core.tokens"} <= set(names)
    assert "smig_tui.compiled" not in names and "smig_tui" not in names  # they choose which copy to import
    built = {name: is_compiled(importlib.import_module(name)) for name in names}
    assert len(set(built.values())) == 1, built
    assert compiled.readers_compiled() is next(iter(built.values()))  # what the benchmark and CI report


def _imported_from(env: dict[str, str], module: str) -> str:
    code = f"import {module} as m; print(m.__file__)"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout


def test_asked_for_the_sources_every_module_comes_from_its_py_file() -> None:
    env = {**os.environ, PURE_ENV: "1", "PYTHONPATH": str(ROOT)}
    for module in ["smig_tui.adapters.jsonl", "smig_tui.adapters.agents.claude.load", "smig_tui.cli.main"]:
        assert _imported_from(env, module).strip().endswith(module.rpartition(".")[2] + ".py")


def test_the_finder_answers_for_modules_and_leaves_packages_to_the_usual_finders() -> None:
    import smig_tui.adapters

    finder = SourceFinder()
    spec = finder.find_spec("smig_tui.adapters.jsonl", smig_tui.adapters.__path__)
    assert spec is not None and spec.origin is not None and spec.origin.endswith("jsonl.py")
    assert finder.find_spec("smig_tui.adapters.agents", smig_tui.adapters.__path__) is None  # a package
    assert finder.find_spec("json.decoder", None) is None  # not smig's


def _tree(root: Path, *, checkout: bool, extension_age: float) -> Path:
    """A package with one module and its extension, `extension_age` seconds older than the source."""
    package = root / "pkg"
    (package / "sub").mkdir(parents=True)
    source = package / "sub" / "reader.py"
    source.write_text("x = 1\n")
    extension = package / "sub" / "reader.cpython-311-x86_64-linux-gnu.so"
    extension.write_bytes(b"\0")
    stamp = source.stat().st_mtime
    os.utime(extension, (stamp - extension_age, stamp - extension_age))
    if checkout:
        (root / "pyproject.toml").write_text("[project]\n")
    return package


def test_an_extension_older_than_its_source_in_a_checkout_is_stale(tmp_path: Path) -> None:
    assert extensions_stale(_tree(tmp_path / "edited", checkout=True, extension_age=5))
    assert not extensions_stale(_tree(tmp_path / "built", checkout=True, extension_age=-5))
    assert not extensions_stale(_tree(tmp_path / "installed", checkout=False, extension_age=5))  # not checked


def test_a_stale_build_makes_every_import_read_the_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_ENV, raising=False)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.setattr(compiled, "extensions_stale", lambda: True)
    compiled.choose_copies()
    compiled.choose_copies()  # once is enough
    assert [type(finder) for finder in sys.meta_path].count(SourceFinder) == 1
    assert isinstance(sys.meta_path[0], SourceFinder)


_READ_ALL = """
import json, sys
from pathlib import Path
from smig_tui.adapters.agents.claude.load import load_session
from smig_tui.cli.sessions import message_to_dict
from smig_tui.core.models import Agent, SessionInfo
out = {}
for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    warnings = []
    info = SessionInfo(id=path.stem, agent=Agent("claude"), path=str(path), is_subagent=path.name.startswith("agent-"))
    session = load_session(info, warnings.append)
    out[str(path)] = [[message_to_dict(m) for m in session.messages], [str(w) for w in warnings]]
print(json.dumps(out, default=str))
"""


def _built_and_source(script: str, *args: str) -> list[str]:
    """What `script` prints run from the checkout with the built modules (where there are) and with the sources."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return [
        subprocess.run(
            [sys.executable, "-c", script, *args],
            env={**env, PURE_ENV: choice},
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for choice in ("0", "1")
    ]


def test_the_compiled_and_the_source_reads_give_the_same_sessions() -> None:
    """Every real Claude Code transcript of the fixtures, every field of every message and every warning,
    read by the built modules and by their sources."""
    reads = _built_and_source(_READ_ALL, str(FIXTURES / "public" / "claude"))
    sessions = json.loads(reads[0])
    assert len(sessions) >= 10 and sum(len(messages) for messages, _ in sessions.values()) > 200
    assert reads[0] == reads[1]


_READ_EVERY_AGENT = """
import json
from smig_tui.cli.sessions import message_to_dict
from smig_tui.services import build_services
services = build_services()
out = {}
for info in services.list_sessions(include_subagents=True):
    warnings = []
    session = services.load_session(info, warnings.append)
    out[info.agent + " " + info.id] = [[message_to_dict(m) for m in session.messages], [str(w) for w in warnings]]
print(json.dumps(out, default=str, sort_keys=True))
"""


def test_the_compiled_and_the_source_read_gemini_qwen_opencode_and_kilo_alike(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real sessions of Gemini CLI and Qwen Code (their content parts), of OpenCode (a compacted one)
    and of Kilo Code (OpenCode's reader), every field of every message and every warning, read by the
    built modules and by their sources."""
    from kilo_builders import install_database

    databases = isolated_homes["home"] / "databases"
    databases.mkdir()
    with sqlite3.connect(databases / "opencode.db") as connection:
        connection.executescript((FIXTURES / "real" / "opencode" / "compacted.sql").read_text(encoding="utf-8"))
    connection.close()
    monkeypatch.setenv("OPENCODE_DB", str(databases / "opencode.db"))
    monkeypatch.setenv("KILO_DB", str(install_database(databases / "kilo.db")))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(FIXTURES / "gemini" / "home"))
    monkeypatch.setenv("QWEN_HOME", str(FIXTURES / "real" / "qwen" / "home" / ".qwen"))
    reads = _built_and_source(_READ_EVERY_AGENT)
    sessions = json.loads(reads[0])
    assert {key.split()[0] for key in sessions} == {"gemini", "qwen", "opencode", "kilo"}
    assert all(messages for messages, _ in sessions.values())
    assert reads[0] == reads[1]


def test_the_compiled_and_the_source_read_pi_copilot_and_crush_alike(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real sessions of Pi and Copilot CLI and the Crush fixtures (a summary in use, attachments, shell
    output, orphan calls and results), every field of every message and every warning, read by the built
    modules and by their sources."""
    from crush_builders import fixture_home

    home = isolated_homes["home"]
    shutil.copytree(FIXTURES / "real" / "pi" / "home" / ".pi", home / ".pi")
    shutil.copytree(FIXTURES / "real" / "copilot" / "home" / ".copilot", home / ".copilot")
    for name, value in fixture_home(home).items():
        monkeypatch.setenv(name, value)
    reads = _built_and_source(_READ_EVERY_AGENT)
    sessions = json.loads(reads[0])
    assert {key.split()[0] for key in sessions} == {"pi", "copilot", "crush"}
    assert all(messages for messages, _ in sessions.values())
    assert reads[0] == reads[1]


_REDACT_ALL = """
import hashlib, json
from pathlib import Path
from smig_tui.compiled import is_compiled
from smig_tui.core import redact as module
from smig_tui.core.redact import redact, redact_many
from tests.secrets.secret_corpus import TRICKY_CODE, secrets
texts = [planted.text for seed in range(1, 21) for planted in secrets(seed)] + [TRICKY_CODE]
texts += [path.read_text(encoding="utf-8") for path in sorted(Path("smig_tui").rglob("*.py"))]
for path in sorted(Path("tests/fixtures").rglob("*.json*")):
    texts += path.read_text(encoding="utf-8", errors="replace").splitlines()
found = redact_many(texts) + [redact(text) for text in texts[:200]]
digests = [[hashlib.sha1(f.text.encode("utf-8", "surrogatepass")).hexdigest(), sorted(f.counts.items())] for f in found]
print(json.dumps({"compiled": is_compiled(module), "found": digests}))
"""


def test_the_compiled_and_the_source_redaction_agree() -> None:
    """The secrets suite's planted secrets of every kind (twenty seeds), its tricky code, smig's own source
    and every line of the fixtures' sessions, redacted by the built module and by its source: the same
    text out and the same kinds counted, text by text."""
    runs = [json.loads(output) for output in _built_and_source(_REDACT_ALL)]
    assert runs[1]["compiled"] is False and runs[0]["compiled"] >= compiled.readers_compiled()
    built, source = (run["found"] for run in runs)
    assert len(built) > 5_000 and sum(1 for _, counts in built if counts) > 1_000
    assert [index for index, (a, b) in enumerate(zip(built, source, strict=True)) if a != b] == []

"""The output-path rules through `smig export --out` and `smig migrate --to json --out`: only a regular
file (or nothing) is ever replaced, never the source session, never inside the agents' homes, and a
missing folder is reported instead of created. One sentence and an exit code each, nothing written."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from smig_tui.adapters.output_paths import OutputPathError, agent_folders, check_output_path
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.errors import WriteRefusedError

SESSION = "01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4"
REPO = Path(__file__).resolve().parents[2]


def _run(*argv: str) -> tuple[int, str, str]:
    ctx = Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO()))
    code = main(list(argv), ctx)
    return code, ctx.out.stdout.getvalue(), ctx.out.stderr.getvalue()  # type: ignore[attr-defined]


def _source(home: dict[str, Path]) -> Path:
    [path] = home["codex"].rglob(f"*{SESSION}.jsonl")
    return path


WRITERS = [("export", SESSION, "--format", "json"), ("migrate", SESSION, "--target", "gpt-4o", "--to", "json")]


def _one_error(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if not line.startswith("smig: warning: ")]
    assert len(lines) == 1 and lines[0].startswith("smig: error: "), stderr
    return lines[0]


@pytest.mark.parametrize("writer", WRITERS, ids=["export", "migrate"])
def test_a_fifo_is_never_replaced_even_with_force(
    fake_home: dict[str, Path], tmp_path: Path, writer: tuple[str, ...]
) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    link = tmp_path / "link-to-pipe.json"
    link.symlink_to(fifo)
    for target in (fifo, link):
        code, _, stderr = _run(*writer, "--out", str(target), "--force")
        assert code == 4
        assert "FIFO (named pipe); smig writes only regular files" in _one_error(stderr)
    assert fifo.is_fifo() and link.is_symlink()


@pytest.mark.parametrize("writer", WRITERS, ids=["export", "migrate"])
def test_the_source_session_is_never_the_output(
    fake_home: dict[str, Path], tmp_path: Path, writer: tuple[str, ...]
) -> None:
    source = _source(fake_home)
    before = source.read_bytes()
    hard_link = tmp_path / "same-inode.jsonl"
    os.link(source, hard_link)
    spelled_otherwise = source.parent / ".." / source.parent.name / source.name
    for target in (source, hard_link, spelled_otherwise):
        code, _, stderr = _run(*writer, "--out", str(target), "--force")
        assert code == 4
        assert "is the session being read" in _one_error(stderr) or "inside" in stderr
    code, _, stderr = _run(*writer, "--out", str(hard_link), "--force")
    assert "it is the session being read, which smig never modifies" in _one_error(stderr)
    assert source.read_bytes() == before and hard_link.read_bytes() == before


@pytest.mark.parametrize("writer", WRITERS, ids=["export", "migrate"])
def test_nothing_is_written_inside_the_agents_homes(fake_home: dict[str, Path], writer: tuple[str, ...]) -> None:
    for target in (fake_home["claude"] / "projects" / "new.json", fake_home["codex"] / "config.json"):
        code, _, stderr = _run(*writer, "--out", str(target))
        assert code == 4 and "where smig writes only native sessions" in _one_error(stderr)
        assert not target.exists()


@pytest.mark.parametrize("writer", WRITERS, ids=["export", "migrate"])
def test_a_missing_folder_is_reported_not_created(
    fake_home: dict[str, Path], tmp_path: Path, writer: tuple[str, ...]
) -> None:
    target = tmp_path / "nonexist" / "deeper" / "x.json"
    code, _, stderr = _run(*writer, "--out", str(target))
    assert code == 1
    assert _one_error(stderr) == (
        f"smig: error: The folder {target.parent} does not exist; create it first or choose another path."
    )
    assert not (tmp_path / "nonexist").exists()


@pytest.mark.parametrize("writer", WRITERS, ids=["export", "migrate"])
def test_a_folder_as_out_is_one_sentence(fake_home: dict[str, Path], tmp_path: Path, writer: tuple[str, ...]) -> None:
    code, _, stderr = _run(*writer, "--out", str(tmp_path), "--force")
    assert code == 4 and f"{tmp_path} is a folder; name a file inside it" in _one_error(stderr)
    assert tmp_path.is_dir()


def test_a_5000_character_out_path_is_one_sentence(fake_home: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / ("d" * 5000) / "x.md"
    code, _, stderr = _run("export", SESSION, "--out", str(target))
    assert code == 1 and "The output path is too long for the file system" in _one_error(stderr)


def test_force_replaces_a_regular_file_and_follows_a_link_to_one(fake_home: dict[str, Path], tmp_path: Path) -> None:
    existing = tmp_path / "old.md"
    existing.write_text("old", encoding="utf-8")
    code, _, stderr = _run("export", SESSION, "--out", str(existing))
    assert code == 4 and "Pass --force to replace it" in _one_error(stderr)
    assert existing.read_text(encoding="utf-8") == "old"
    link = tmp_path / "link.md"
    link.symlink_to(existing)
    assert _run("export", SESSION, "--out", str(link), "--force")[0] == 0
    assert link.is_symlink() and existing.read_text(encoding="utf-8").startswith("# ")


def test_devices_and_dangling_links_are_refused_before_anything_is_rendered(tmp_path: Path) -> None:
    paths = resolve_paths()
    with pytest.raises(WriteRefusedError, match="a character device"):
        check_output_path("/dev/null", paths, force=True)
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "nowhere" / "x.md")
    with pytest.raises(OutputPathError, match="does not exist"):
        check_output_path(dangling, paths, force=True)
    dangling.unlink()
    dangling.symlink_to(tmp_path / "absent.md")
    with pytest.raises(WriteRefusedError, match="symbolic link to nothing"):
        check_output_path(dangling, paths, force=True)
    assert check_output_path(tmp_path / "new.md", paths) == tmp_path / "new.md"


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp folder other users can reach (pytest's own is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="smig-nonroot-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _as_nobody(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run smig as the unprivileged user `nobody`, where file permissions really apply."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run a command as nobody")
    command = [
        "setpriv",
        "--reuid=nobody",
        "--regid=nogroup",
        "--clear-groups",
        sys.executable,
        "-m",
        "smig_tui",
        *argv,
    ]
    shared = {key: os.environ[key] for key in ("TIKTOKEN_CACHE_DIR",) if key in os.environ}
    # The timeout is a hang guard only: a busy machine is slow, never this slow.
    return subprocess.run(
        command,
        env={**shared, **env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_as_a_non_root_user_an_unwritable_folder_is_one_sentence(fake_home: dict[str, Path], shared_tmp: Path) -> None:
    home = shared_tmp / "home"
    shutil.copytree(fake_home["home"], home, symlinks=True)
    locked = shared_tmp / "locked"
    locked.mkdir(mode=0o755)  # owned by root: nobody may read it but not write in it
    smig_home = shared_tmp / "smig"
    smig_home.mkdir()
    for folder in (home, smig_home):
        subprocess.run(["chown", "-R", "nobody", str(folder)], check=True)
    env = {
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "SMIG_TUI_HOME": str(smig_home),
        "PATH": os.environ.get("PATH", ""),
    }
    for argv in (
        ["export", SESSION, "--out", str(locked / "x.md")],
        ["migrate", SESSION, "--target", "gpt-4o", "--to", "markdown", "--out", str(locked / "x.md")],
    ):
        done = _as_nobody(argv, env)
        assert done.returncode == 4, done.stderr
        assert _one_error(done.stderr) == f"smig: error: Cannot write to the folder {locked}: permission denied."
    assert list(locked.iterdir()) == []
    done = _as_nobody(["export", SESSION, "--out", str(home / "ok.md")], env)
    assert done.returncode == 0 and (home / "ok.md").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "writer",
    [*WRITERS, ("migrate", SESSION, "--target", "gpt-4o", "--to", "json", "--to", "markdown")],
    ids=["export", "migrate", "migrate-both"],
)
def test_a_refused_out_is_refused_before_the_session_is_read(
    fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: tuple[str, ...]
) -> None:
    """Reading a 500 MB session takes seconds: an existing `--out` is refused before that, not after."""
    from smig_tui.services import Services

    read: list[str] = []
    monkeypatch.setattr(Services, "load_session", lambda self, info, warn=None: read.append(info.id))
    existing = tmp_path / "old.json"
    existing.write_text("old", encoding="utf-8")
    for sibling in (tmp_path / "old.md",):  # with --to json and markdown, --out names both by suffix
        sibling.write_text("old", encoding="utf-8")
    code, _, stderr = _run(*writer, "--out", str(existing))
    assert code == 4 and "Pass --force to replace it" in _one_error(stderr)
    assert read == [] and existing.read_text(encoding="utf-8") == "old"


@pytest.mark.parametrize("writer", WRITERS, ids=["export", "migrate"])
def test_every_registered_agents_folder_is_refused(fake_home: dict[str, Path], writer: tuple[str, ...]) -> None:
    """Gemini's `~/.gemini` and OpenCode's data folder as well as Codex's and Claude Code's: the folders
    come from the registry, so each agent added there is refused too."""
    from smig_tui.adapters.agents.registry import AGENTS

    folders = agent_folders(AGENTS, resolve_paths())
    assert set(folders) == {entry.name for entry in AGENTS}
    home = fake_home["home"]
    assert folders["Gemini CLI"] == home / ".gemini"
    assert folders["OpenCode"] == home / ".local" / "share" / "opencode"
    for name, folder in folders.items():
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / "handoff.json"
        code, _, stderr = _run(*writer, "--out", str(target))
        assert code == 4, (name, stderr)
        assert f"it is inside {folder}, {name}'s folder" in _one_error(stderr)
        assert not target.exists()


def test_a_new_agents_folder_is_refused_from_its_registry_entry(fake_home: dict[str, Path], tmp_path: Path) -> None:
    from dataclasses import replace

    from smig_tui.adapters.agents.registry import AGENTS
    from smig_tui.services import build_services

    folder = tmp_path / "newagent-data"
    (folder / "sessions").mkdir(parents=True)
    newcomer = replace(AGENTS[0], rules=replace(AGENTS[0].rules, name="New Agent"), home=lambda _env: folder)
    services = build_services(agents=(*AGENTS, newcomer))
    with pytest.raises(WriteRefusedError, match="New Agent's folder"):
        services.check_output(folder / "sessions" / "out.md")
    # A database file as the home: its folder is refused when named after the agent, else the file alone.
    database = tmp_path / "elsewhere" / "codex.db"
    database.parent.mkdir()
    database.touch()
    as_file = replace(AGENTS[0], home=lambda _env: database)
    assert agent_folders([as_file], resolve_paths()) == {AGENTS[0].name: database}
    assert services.check_output(database.parent / "out.md") == database.parent / "out.md"

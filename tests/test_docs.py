"""Holds README.md and docs/*.md true to the code: links, length, generated blocks, and every snippet run.

Snippet kinds (docs/README.md explains them to writers):
- ```console blocks: each `$ smig …` line runs through the in-process CLI on a temp home holding the
  fixture sessions, in page order; it must exit 0 and print the lines shown under it, in order.
- ```toml blocks parse and pass smig's config loaders (`toml run-config`: also the config of the
  page's later examples; `toml codex-config`: Codex's file, and `toml pyproject`: a plugin's packaging,
  parsed only); ```json blocks parse.
- ```sh blocks: every `smig …` line is accepted by smig's argument parser.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, build_parser, main
from smig_tui.cli.output import Output
from smig_tui.core.config_schema import TABLES

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_MAX_LINES = 250
EXAMPLE_WITHIN = 60
"""The main task's example must start within the README's first screen or so."""
HELP_PYTHON = (3, 11)
"""The Python whose argparse wrote docs/cli.md's help blocks (CI's); other versions lay options out differently."""


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("smig_docs_generator", ROOT / "scripts" / "docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generator = _load_generator()


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


# --- Markdown, read just enough ----------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """A fenced code block: its info string's words, its lines, and the line it starts on (1-based)."""

    info: tuple[str, ...]
    lines: tuple[str, ...]
    start: int

    @property
    def language(self) -> str:
        return self.info[0] if self.info else ""


FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`]*)$")


def blocks(text: str) -> list[Block]:
    found: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        fence, info = match.group(1), tuple(match.group(2).split())
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        found.append(Block(info, tuple(lines[index + 1 : end]), index + 1))
        index = end + 1
    return found


def prose(text: str) -> str:
    """The text outside fenced blocks and inline code, where links live."""
    kept: list[str] = []
    inside: str | None = None
    for line in text.splitlines():
        match = FENCE.match(line)
        if match and (inside is None or line.strip().startswith(inside)):
            inside = None if inside else match.group(1)
            continue
        if inside is None:
            kept.append(re.sub(r"(`+).*?\1", "", line))
    return "\n".join(kept)


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def links(text: str) -> list[str]:
    return LINK.findall(prose(text))


def anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in prose(text).splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        slug = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def _with_code_headings(page: Path) -> str:
    """A page's text with inline code kept in headings (GitHub keeps the words of `code` in anchors)."""
    return re.sub(r"^(#{1,6}\s.*)$", lambda m: m.group(1).replace("`", ""), page.read_text("utf-8"), flags=re.M)


# --- structure -----------------------------------------------------------------------------------


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(README.parent / target.split("#")[0]).resolve() for target in links(README.read_text("utf-8"))}
    missing = [page.name for page in sorted(DOCS.glob("*.md")) if page.resolve() not in linked]
    assert not missing, f"README.md does not link {missing}"


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_relative_links_and_anchors_resolve(page: Path) -> None:
    broken: list[str] = []
    for target in links(page.read_text("utf-8")):
        if re.match(r"^[a-z]+:", target):
            continue  # http(s), mailto: not checked offline
        path_part, _, anchor = target.partition("#")
        destination = (page.parent / path_part).resolve() if path_part else page
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and anchor not in anchors(_with_code_headings(destination)):
            broken.append(f"{target}: no heading with that anchor in {destination.name}")
    assert not broken, f"{page_id(page)}: " + "; ".join(broken)


def test_readme_is_short_and_shows_the_main_task_first() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    example = next(
        (block for block in blocks(text) if block.language == "console" and "$ smig migrate" in "\n".join(block.lines)),
        None,
    )
    assert example is not None, "README.md has no console example ending in `smig migrate`"
    assert example.start <= EXAMPLE_WITHIN, f"the main example starts on line {example.start}"
    verbs = [argv[1] for argv, _ in _commands(example)]
    assert verbs == ["list", "plan", "migrate"]
    assert any("resume:" in line for line in example.lines), "the example shows no resume command"
    for agent in ("Codex CLI", "Claude Code", "Gemini CLI", "OpenCode"):
        assert agent in text.split("\n## ")[0], f"the README's opening does not name {agent}"
    assert "screenshots/hero.svg" in text


def test_the_tui_key_tables_are_generated_from_the_bindings() -> None:
    stale = [page_id(page) for page in pages() if _render_except_help(page) != page.read_text("utf-8")]
    assert not stale, f"stale TUI key tables in {stale}: run python scripts/docs.py"
    assert "<!-- generated: tui-keys -->" in README.read_text("utf-8")


def test_every_command_has_its_help_in_the_cli_page() -> None:
    text = (DOCS / "cli.md").read_text("utf-8")
    named = {match.strip() for match in re.findall(r"<!-- generated: help:([^>]*?) -->", text)}
    missing = [f"smig {name}".strip() for name in generator.command_names() if name not in named]
    assert not missing, f"docs/cli.md has no help block for {missing}"


def test_the_help_blocks_are_current() -> None:
    if sys.version_info[:2] != HELP_PYTHON:
        pytest.skip(f"help blocks are written by Python {HELP_PYTHON[0]}.{HELP_PYTHON[1]}'s argparse (CI's)")
    stale = generator.stale_pages()
    assert not stale, f"stale generated blocks in {[page_id(p) for p in stale]}: run python scripts/docs.py"


def _render_except_help(page: Path) -> str:
    text = page.read_text("utf-8")

    def replace(match: re.Match[str]) -> str:
        if match.group("name").strip().startswith("help:"):
            return match.group(0)
        return f"{match.group(1)}{generator.generator(match.group('name').strip())()}\n{match.group(4)}"

    return generator.BLOCK.sub(replace, text)


def test_the_checker_sees_a_stale_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "README.md"
    page.write_text("<!-- generated: tui-keys -->\n| old |\n<!-- end generated -->\n", encoding="utf-8")
    monkeypatch.setattr(generator, "pages", lambda: [page])
    assert generator.stale_pages() == [page]
    assert generator.main([]) == 0 and generator.stale_pages() == []
    assert "| `q` | Quit |" in page.read_text("utf-8")


# --- snippets ----------------------------------------------------------------------------------


def _commands(block: Block) -> list[tuple[list[str], list[str]]]:
    """Each `$ smig …` line of a console block with the output lines shown under it."""
    found: list[tuple[list[str], list[str]]] = []
    for line in block.lines:
        if line.startswith("$ "):
            found.append((shlex.split(line[2:]), []))
        elif found:
            found[-1][1].append(line)
    return found


ID_SHAPES = (
    re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])"),
)


def expected_pattern(line: str) -> re.Pattern[str]:
    """A shown output line as a pattern: runs of spaces match any spacing, `…` any text, an id any id of its shape."""
    pattern = ""
    for piece in re.split(
        r"(\s+|…|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b)", line.strip()
    ):
        if not piece:
            continue
        if piece.isspace():
            pattern += r"\s+"
        elif piece == "…":
            pattern += ".*?"
        elif any(shape.fullmatch(piece) for shape in ID_SHAPES):
            pattern += ID_SHAPES[0].pattern if "-" in piece else "[0-9a-f]{32}"
        else:
            pattern += re.escape(piece)
    return re.compile(pattern)


def test_expected_pattern() -> None:
    pattern = expected_pattern("  resume: cd /home/user/proj  && codex resume 01a24381-fcc6-7cc0-9ded-bf954b9a9aea")
    assert pattern.search("  resume: cd /home/user/proj && codex resume 0b8a1e0f-3c2d-4e5f-8a9b-0c1d2e3f4a5b")
    assert not pattern.search("  resume: cd /home/user/other && codex resume 0b8a1e0f-3c2d-4e5f-8a9b-0c1d2e3f4a5b")
    assert expected_pattern("wrote ~/.codex/…/rollout-….jsonl (… bytes)").search(
        "wrote ~/.codex/sessions/2026/12/05/rollout-2026-12-05T00.jsonl (11,489 bytes)"
    )
    assert not expected_pattern("keeps 20 messages").search("keeps 19 messages")


def run_smig(argv: list[str], home: Path) -> tuple[int, str]:
    """Exit code and output (stdout, then stderr) of `smig ARGV`, with the home folder written as `~`."""
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(argv, Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    text = out.stdout.getvalue() + out.stderr.getvalue()
    for spelling in {str(home), os.path.realpath(home)}:
        text = text.replace(spelling, "~")
    return code, text


def unmatched(expected: list[str], output: str) -> str | None:
    """The first shown line the output does not print (in order), or None."""
    lines = output.splitlines()
    position = 0
    for shown in expected:
        if not shown.strip() or shown.strip() in ("…", "..."):
            continue
        pattern = expected_pattern(shown)
        while position < len(lines) and not pattern.search(lines[position]):
            position += 1
        if position == len(lines):
            return shown
        position += 1
    return None


@pytest.fixture
def docs_home(fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture homes with smig's folders where a user's are (~/.local/share/smig, …), at 100 columns."""
    for name in ("SMIG_TUI_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "CODEX_SQLITE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "100")
    return fake_home["home"]


CONSOLE_PAGES = [
    page for page in pages() if any(block.language == "console" for block in blocks(page.read_text("utf-8")))
]


@pytest.mark.parametrize("page", CONSOLE_PAGES, ids=page_id)
def test_console_examples_run(page: Path, docs_home: Path, _tiktoken_loads: bool) -> None:
    """Run the page's examples in order; when tiktoken cannot load offline counts are estimates, so only exit codes count."""
    for block in blocks(page.read_text("utf-8")):
        if block.info[:2] == ("toml", "run-config"):
            config = resolve_paths().config_file
            config.parent.mkdir(parents=True, exist_ok=True)
            config.write_text("\n".join(block.lines) + "\n", encoding="utf-8")
        if block.language != "console":
            continue
        for argv, shown in _commands(block):
            assert argv[0] == "smig", f"{page_id(page)}:{block.start}: a console block runs only smig, not {argv[0]}"
            code, output = run_smig(argv[1:], docs_home)
            assert code == 0, f"{page_id(page)}:{block.start}: `{shlex.join(argv)}` exited {code}:\n{output}"
            missing = unmatched(shown, output) if _tiktoken_loads else None
            assert missing is None, (
                f"{page_id(page)}:{block.start}: `{shlex.join(argv)}` no longer prints\n{missing}\nit printed:\n{output}"
            )


def _snippets(language: str) -> list[object]:
    """Every block of `language` in the pages, as test parameters named page:line."""
    return [
        pytest.param(f"{page_id(page)}:{block.start}", block, id=f"{page_id(page)}:{block.start}")
        for page in pages()
        for block in blocks(page.read_text("utf-8"))
        if block.language == language
    ]


@pytest.mark.parametrize(("where", "block"), _snippets("toml"))
def test_toml_snippets_are_accepted(where: str, block: Block, isolated_homes: dict[str, Path]) -> None:
    document = tomllib.loads("\n".join(block.lines))
    if "codex-config" in block.info:
        assert "mcp_servers" in document
        return
    if "pyproject" in block.info:  # a plugin's packaging, parsed only
        assert "project" in document
        return
    if "gemini-policy" in block.info:  # a Gemini CLI policy file (docs/mcp.md), parsed only
        assert document["rule"]
        return
    unknown = set(document) - set(TABLES)
    assert not unknown, f"{where}: tables smig does not read: {sorted(unknown)}"
    config = resolve_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(block.lines) + "\n", encoding="utf-8")
    from smig_tui.adapters.provider_capacity import providers_from_config
    from smig_tui.cli.auto_archive import auto_archive_wanted
    from smig_tui.core.decide import parse_plan_settings
    from smig_tui.services import build_services

    services = build_services()
    assert services.config == document
    parse_plan_settings(services.config, where)
    services.agent_overheads  # noqa: B018 (validates [agents])
    services.capacities  # noqa: B018 (validates [models])
    providers_from_config(services.config, where)
    auto_archive_wanted(services.config, where)
    if "summarizer" in document:
        services.summarizer_for()
    for name in document.get("models", {}):
        assert services.capacities.lookup(name) is not None


@pytest.mark.parametrize(("where", "block"), _snippets("json"))
def test_json_snippets_parse(where: str, block: Block) -> None:
    json.loads("\n".join(block.lines))


@pytest.mark.parametrize(("where", "block"), _snippets("sh"))
def test_sh_smig_lines_parse(where: str, block: Block) -> None:
    joined = "\n".join(block.lines).replace("\\\n", " ")
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if not words or words[0] != "smig":
            continue
        try:
            build_parser(words[1:]).parse_args(words[1:])
        except SystemExit as error:
            pytest.fail(f"{where}: smig does not accept `{shlex.join(words)}` (exit {error.code})")

"""The search index's freshness check (issue 35): a search whose index is up to date reads no listing, and
a session changed, added or removed after indexing is never missed, whatever changed in it."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from search_helpers import message_line, write_rollout

from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.freshness import fingerprint
from smig_tui.core.models import SessionInfo
from smig_tui.core.ports import WarningSink, Watched
from smig_tui.services import build_services

REAL_CLAUDE = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "claude" / "projects"


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The agents whose listing was read (Codex and Claude Code), one entry per listing."""
    read: list[str] = []
    for source_class in (CodexSource, ClaudeSource):
        original = source_class.discover

        def counted(self: object, warn: WarningSink, original: object = original) -> Iterator[SessionInfo]:
            read.append(self.agent.value)  # type: ignore[attr-defined]
            yield from original(self, warn)  # type: ignore[operator]

        monkeypatch.setattr(source_class, "discover", counted)
    return read


def ids_for(query: str) -> list[str]:
    return sorted({hit.session_id for hit in build_services().search(query)})


def test_an_unchanged_home_is_not_listed_again(isolated_homes: dict[str, Path], listings: list[str]) -> None:
    write_rollout(isolated_homes["codex"], [("user", "the heron nests"), ("assistant", "noted")])
    assert len(build_services().search("heron")) == 1
    assert sorted(listings) == ["claude", "codex"]
    listings.clear()
    for _ in range(2):  # a new process each time, as `smig search` runs
        assert len(build_services().search("heron")) == 1
    assert listings == []


def test_a_session_grown_after_indexing_is_found_by_its_new_text(
    isolated_homes: dict[str, Path], listings: list[str]
) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "the heron nests"), ("assistant", "noted")])
    assert ids_for("heron") and ids_for("kingfisher") == []
    with path.open("a", encoding="utf-8") as handle:
        handle.write(message_line("user", "a kingfisher arrived"))
    listings.clear()
    assert ids_for("kingfisher") == ids_for("heron")
    assert listings == ["codex"]  # only the agent whose files changed is listed again


def test_a_session_in_a_new_folder_is_found_and_a_removed_one_leaves(isolated_homes: dict[str, Path]) -> None:
    first = write_rollout(isolated_homes["codex"], [("user", "the heron nests")])
    assert len(ids_for("heron")) == 1
    second = "01a30000-0000-7000-8000-00000000a002"
    write_rollout(isolated_homes["codex"], [("user", "another heron")], session_id=second, day="2027-01-02")
    assert len(ids_for("heron")) == 2  # a new year's folder: only the sessions folder's own entries changed
    first.unlink()
    assert ids_for("heron") == [second]


def test_a_transcript_in_a_new_project_folder_is_found(isolated_homes: dict[str, Path]) -> None:
    write_rollout(isolated_homes["codex"], [("user", "unrelated words")])
    assert build_services().search("unrelated")
    real = next(iter(sorted(REAL_CLAUDE.glob("*/*.jsonl"))))
    target = isolated_homes["claude"] / "projects" / real.parent.name / real.name
    target.parent.mkdir(parents=True)
    shutil.copyfile(real, target)
    assert real.stem in {hit.session_id for hit in build_services().search(_a_word_of(target), limit=50)}


def _a_word_of(transcript: Path) -> str:
    """A word a user typed in a transcript (the first user record's text)."""
    for line in transcript.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        content = record.get("message", {}).get("content") if record.get("type") == "user" else None
        text = content if isinstance(content, str) else None
        words = [word for word in (text or "").split() if word.isalpha() and len(word) > 3]
        if words:
            return words[0]
    raise AssertionError("no user text in the fixture")


def test_a_thread_renamed_in_codex_is_found_under_its_new_title(isolated_homes: dict[str, Path]) -> None:
    write_rollout(isolated_homes["codex"], [("user", "the heron nests")])
    assert [hit.title for hit in build_services().search("heron")] != ["Heron survey"]
    row = {"id": "01a30000-0000-7000-8000-00000000a001", "thread_name": "Heron survey", "updated_at": "2026-12-01"}
    (isolated_homes["codex"] / "session_index.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert [hit.title for hit in build_services().search("heron")] == ["Heron survey"]


def test_the_fingerprint_follows_every_change_a_listing_could_see(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    (root / "2026" / "11").mkdir(parents=True)
    session = root / "2026" / "11" / "a.jsonl"
    session.write_text("one\n")
    names = tmp_path / "names.jsonl"
    watched = [Watched(str(root), tree=True), Watched(str(tmp_path)), Watched(str(names))]
    seen = {fingerprint(watched)}

    def changed() -> bool:
        now = fingerprint(watched)
        new = now not in seen
        seen.add(now)
        return new

    assert not changed()
    with session.open("a") as handle:
        handle.write("two\n")
    assert changed()  # grown
    os.utime(session, ns=(0, 1_000))
    assert changed()  # rewritten in place: same size, another time
    (root / "2027" / "01").mkdir(parents=True)
    assert changed()  # a new folder deep in the tree
    (root / "2027" / "01" / "b.jsonl").write_text("x\n")
    assert changed()
    names.write_text("{}\n")
    assert changed()  # a watched file that was absent
    (tmp_path / "other").mkdir()
    assert changed()  # a folder watched for its own entries
    (tmp_path / "other" / "deep.txt").write_text("x")
    assert not changed()  # below it: not watched
    session.rename(root / "2026" / "11" / "c.jsonl")
    assert changed()


def test_a_link_back_up_the_tree_is_walked_once(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    (root / "p").mkdir(parents=True)
    (root / "p" / "s.jsonl").write_text("x\n")
    (root / "p" / "loop").symlink_to(root)
    assert fingerprint([Watched(str(root), tree=True)]) == fingerprint([Watched(str(root), tree=True)])


REAL_AIDER = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "aider" / "projects"


def test_a_history_in_a_folder_another_agent_just_ran_in_is_found_by_the_same_search(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """Aider's histories are looked for where the other agents' sessions ran: its freshness is checked
    after their listings, so a new session elsewhere in that folder brings its history in at once."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copyfile(REAL_AIDER / "edit" / ".aider.chat.history.md", project / ".aider.chat.history.md")
    assert ids_for("bumping") == []  # no agent has run there yet: nowhere to look
    write_rollout(isolated_homes["codex"], [("user", "the heron nests")], cwd=str(project))
    found = {hit.agent: hit.session_id for hit in build_services().search("bumping")}
    assert list(found) == ["aider"]
    assert build_services().search("bumping")[0].session_id == found["aider"]

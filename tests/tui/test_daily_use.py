"""Pilot tests of issue 19: keyboard paths that do what they say, a message viewer, honest wording."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from conftest import open_session, settle
from screen_fit import assert_fits
from tui_pilot import build_sized, choose_target

from smig_devtools.corpus import MB, generate
from smig_tui.core.models import Agent, Kind, SessionInfo, Strategy
from smig_tui.core.plan_structure import NOT_MIGRATED
from smig_tui.services import Services, build_services
from smig_tui.tui.screens.commit import CommitModal
from smig_tui.tui.screens.commit_result import CommitResultModal
from smig_tui.tui.screens.confirm import ConfirmModal
from smig_tui.tui.screens.message_viewer import MessageViewer
from smig_tui.tui.widgets.plan_table import PLACEHOLDER_KEY
from smig_tui.tui.widgets.preview_tabs import PreviewTabs


@pytest.fixture
def sized(make_app, isolated_homes):
    """The app on the fixture homes with the `roomy-test` and `tiny-test` models configured."""
    return build_sized(make_app, isolated_homes)


def notes(app) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_commit_dialog_arrows_move_the_choice_and_enter_commits_it(make_app, isolated_homes) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        await pilot.press("c")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, CommitModal)
        assert dialog.focused is dialog.query_one("#native")
        assert dialog.chosen == {"store", "claude"}
        claude_where = str(dialog.query_one("#native-where").render())
        assert "claude session" in claude_where
        await pilot.press("down")
        assert dialog.chosen == {"store", "codex"}
        assert "codex session" in str(dialog.query_one("#native-where").render())
        assert dialog.query_one("#confirm").region.bottom <= 24  # the Commit button is on screen
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CommitResultModal)
        result = app.screen.result
        shown = str(app.screen.query_one("#result-lines").render())
    assert "codex resume" in result.resume_commands[0]
    [fact] = result.continue_latest
    assert f"latest   {fact.sentence}" in shown and fact.sentence.endswith("continues this migration.")
    assert not list((isolated_homes["claude"] / "projects").rglob("*.jsonl")) or all(
        str(path) not in {output.path for output in result.outputs}
        for path in (isolated_homes["claude"] / "projects").rglob("*.jsonl")
    )


async def test_enter_on_a_plan_row_opens_the_whole_message_and_pins_from_there(make_app, isolated_homes) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        plan = app.screen.plans.plans[Strategy.TRUNCATE]
        call = next(
            item.message
            for item in plan.dropped
            if item.message.kind is Kind.TOOL_CALL and item.reason == "over budget"
        )
        table = app.screen.query_one(PreviewTabs).table(Strategy.TRUNCATE)
        table.focus()
        table.move_cursor(row=table.get_row_index(call.id))
        await pilot.press("enter")
        await settle(pilot)
        viewer = app.screen
        assert isinstance(viewer, MessageViewer)
        assert viewer.viewed.markdown.startswith(f"**Tool call** `{call.tool_name}`")
        assert "```json" in viewer.viewed.markdown
        arguments = json.loads(call.text)
        assert json.dumps(arguments, indent=2, ensure_ascii=False) in viewer.viewed.markdown
        assert f"#{call.index}" in str(viewer.query_one("#viewer-title").render())
        await pilot.press("p")
        await settle(pilot)
        assert viewer.pinned and call.id in app.screen_stack[0].pins
        assert "Pinned" in str(viewer.query_one("#viewer-state").render())
        kept = {item.message.id: item for item in app.screen_stack[0].plans.plans[Strategy.TRUNCATE].items}
        assert kept[call.id].kept and kept[call.id].reason == "pinned"
        await pilot.press("escape")
        await settle(pilot)
        table.move_cursor(row=0)
        assert table.highlighted_key() == PLACEHOLDER_KEY
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MessageViewer)
        assert app.screen.viewed.markdown == app.screen_stack[0].plans.plans[Strategy.TRUNCATE].placeholder
        assert app.screen.check_action("pin", ()) is None  # greyed out: smig wrote this, nothing to pin


async def test_keys_without_a_session_explain_and_pin_refuses_what_no_plan_keeps(make_app, isolated_homes) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in "cxps":
            await pilot.press(key)
        await pilot.pause()
        said = notes(app)
        assert len(said) == 4 and all("Open a session first" in text for text in said)
        app.clear_notifications()

        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("p")  # the tree has focus: nothing in a table is highlighted
        await pilot.pause()
        assert "Highlight a message in a preview table" in notes(app)[-1]
        assert app.screen.pins == frozenset()
        plan = app.screen.plans.plans[Strategy.TRUNCATE]
        harness = next(item for item in plan.items if item.reason in NOT_MIGRATED)
        table = app.screen.query_one(PreviewTabs).table(Strategy.TRUNCATE)
        table.focus()
        table.move_cursor(row=table.get_row_index(harness.message.id))
        await pilot.press("p")
        await settle(pilot)
        assert app.screen.pins == frozenset()
        assert "cannot be pinned" in notes(app)[-1] and harness.reason in notes(app)[-1]


async def test_summary_without_an_api_key_sends_nothing_and_claims_nothing(make_app, isolated_homes) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        await pilot.press("4")
        await settle(pilot)
        pane = app.screen.query_one(PreviewTabs).summary_pane()
        await pilot.press("s")
        await settle(pilot)
        notice = str(pane.query_one("#notice").render())
        assert "Would send ~" in notice and "Nothing is sent" in notice and "OPENAI_API_KEY" in notice
        assert 'provider = "local"' in notice and "Summary written" not in notice
        assert "Nothing was sent" in notes(app)[-1] and not any("cancelled" in text for text in notes(app))
        assert Strategy.SUMMARY_TAIL not in app.screen.summaries
        assert app.screen.plans.plans[Strategy.SUMMARY_TAIL].summary is None
        await pilot.press("c")
        await pilot.pause()
        assert "needs its summary first" in notes(app)[-1]


async def test_filter_enter_opens_the_first_match_and_counts_follow(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree")
        total = len(tree.sessions)
        progress = app.screen.query_one("#progress")
        assert f"of {total:,} sessions" in str(progress.render())
        wanted = next(info for info in tree.visible_sessions() if info.agent.value == "claude")
        await pilot.press("slash", *wanted.id[:8], "enter")
        await settle(pilot)
        assert str(progress.render()).startswith(f"1 of {total:,} sessions")
        assert app.screen.info == wanted and app.screen.plans is not None
        assert tree.has_focus and tree.cursor_node.data == wanted

        await pilot.press("slash", *"zzz-nothing")
        app.screen.sources.apply_filter()
        await settle(pilot)
        assert "No session matches" in str(progress.render()) and "zzz-nothing" in str(progress.render())
        await pilot.press("escape")
        await settle(pilot)
        assert str(progress.render()).startswith(f"{len(tree.visible_sessions()):,} of {total:,}")


async def test_empty_homes_say_where_smig_looked(empty_app, isolated_homes) -> None:
    app = empty_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # At 80 columns the paths wrap, but every one is there whole, with the agent it belongs to.
        assert_fits(
            app,
            wrapped=[
                "Codex: ~/.codex",
                "Claude Code: ~/.claude",
                "Gemini CLI: ~/.gemini",
                "OpenCode: ~/.local/share/opencode/opencode.db",
            ],
        )


async def test_clipboard_is_worded_honestly_and_wrapped_for_tmux(sized, monkeypatch, tmp_path) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "STY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    # No tmux on PATH: a tmux that cannot be asked gets the passthrough escape (and a real server at
    # that socket is never written to). tests/adapters/test_clipboard_tmux.py drives a real tmux.
    monkeypatch.setenv("PATH", str(tmp_path))
    app, info, _ = sized
    written: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        monkeypatch.setattr(app._driver, "write", written.append)
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "roomy-test")
        await pilot.press("x")
        await settle(pilot)
        await pilot.click("#dest-clipboard")
        await pilot.click("#confirm")
        await settle(pilot)
        said = notes(app)[-1]
        assert said.startswith("Sent the markdown export") and "passed through tmux" in said
        assert "export to a file" in said and "Copied" not in said
        sequence = next(text for text in written if "52;c;" in text)
        assert sequence.startswith("\x1bPtmux;\x1b\x1b]52;c;") and sequence.endswith("\x1b\\")


async def test_clipboard_uses_a_system_tool_when_one_works(sized, monkeypatch, tmp_path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    received = tmp_path / "received.txt"
    tool = bin_dir / "xclip"
    tool.write_text(f"#!/bin/sh\ncat > {received}\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    app, info, _ = sized
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("x")
        await settle(pilot)
        await pilot.click("#dest-clipboard")
        await pilot.click("#confirm")
        await settle(pilot)
        assert notes(app)[-1].startswith("Copied the markdown export") and "with xclip" in notes(app)[-1]
    assert received.read_text(encoding="utf-8") == app.clipboard


async def test_export_onto_an_existing_file_asks_before_replacing(sized, tmp_path) -> None:
    app, info, _ = sized
    target = tmp_path / "mine.md"
    target.write_text("my notes\n")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("x")
        await settle(pilot)
        assert app.screen.query_one("#confirm").region.bottom <= 24
        app.screen.query_one("#export-path").value = str(target)
        await settle(pilot)  # a path longer than the field is shown whole below it: the buttons move down
        assert app.screen.query_one("#confirm").region.bottom <= 24
        await pilot.click("#confirm")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmModal) and str(target) in str(app.screen.query_one("#question").render())
        await pilot.press("n")
        await settle(pilot)
        assert target.read_text() == "my notes\n"
        await pilot.click("#confirm")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert target.read_text() != "my notes\n" and "Handoff" in target.read_text()
        assert not [n for n in app._notifications if n.severity == "error"]


def test_an_errors_hint_is_said_in_the_tuis_words() -> None:
    from smig_tui.core.errors import Hint, WriteRefusedError
    from smig_tui.tui.errors import describe_error

    error = WriteRefusedError("Refusing to overwrite existing file /x/a.md.", hint=Hint.REPLACE)
    assert str(error) == "Refusing to overwrite existing file /x/a.md. Pass --force to replace it."
    assert (
        describe_error(error) == "Refusing to overwrite existing file /x/a.md. Export again and confirm replacing it."
    )
    denied = describe_error(PermissionError(13, "Permission denied", "/srv/out/.a.md.x1y2.tmp"))
    assert denied == "Permission denied (writing in /srv/out)."


@pytest.mark.usefixtures("exact_tokens")
async def test_every_tab_shows_one_session_figure_and_the_gauge_counts_budgets(
    make_app, isolated_homes, tmp_path
) -> None:
    big = big_codex_session(isolated_homes, tmp_path)  # 3× a 200k Claude budget: older messages stay guesses
    app = make_app()
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == big.path)
        await choose_target(pilot, "claude-haiku-4-5")  # a 200k window (the default target holds 1M)
        plans = app.screen.plans.plans
        figures = {plan.decision.session_tokens for plan in plans.values()}
        assert len(figures) == 1
        tabs = app.screen.query_one(PreviewTabs)
        heads = {
            str(tabs.query_one(f"#line-{key}").render()).split(" → ")[0]
            for key in ("truncate", "tools-first", "summary", "summary-tail")
        }
        assert len(heads) == 1
        gauge = app.screen.query_one("#gauge")
        decision = plans[Strategy.TRUNCATE].decision
        shown = str(gauge.render())
        assert f"{decision.session_tokens / decision.budget:,.0f}× the budget" in shown and "%" not in shown
        assert gauge.size.height == 1 and len(shown) <= gauge.size.width
        table = tabs.table(Strategy.TRUNCATE)
        assert not app.screen.plans.exact  # a Claude target's count is a calibrated estimate: every row ≈
        assert all(str(table.get_row_at(row)[4]).startswith("≈") for row in range(1, table.row_count))

        await choose_target(pilot, "gpt-4o")  # exact tokenizer: only the rows still guessed carry ≈
        decision = app.screen.plans.plans[Strategy.TRUNCATE].decision
        estimated = app.screen.plans.estimated
        assert app.screen.plans.exact and decision.partial == bool(estimated)
        assert ("≈" in str(tabs.query_one("#line-truncate").render())) == decision.partial
        marked = set()
        for row in range(table.row_count):
            key = table.coordinate_to_cell_key((row, 0)).row_key.value
            if str(table.get_row_at(row)[4]).startswith("≈"):
                marked.add(key)
        assert marked <= estimated and marked == {key for key in estimated if key in table.rows}
        text_column, why_column = list(table.columns.values())[5:]
        assert text_column.width > 40 and why_column.width == 24  # wider than the old fixed 40, reasons whole


def big_codex_session(isolated_homes, tmp_path) -> SessionInfo:
    """A generated ~2.5 MB Codex session added to the temp Codex home (the corpus writes real formats)."""
    manifest = generate(tmp_path / "gen-codex", tmp_path / "gen-claude", sessions=2, total_bytes=3 * MB, seed=3)
    entry = max((e for e in manifest.sessions if e.agent == "codex"), key=lambda e: e.size)
    source = Path(entry.path)
    copy = isolated_homes["codex"] / source.relative_to(tmp_path / "gen-codex")
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, copy)
    return next(info for info in build_services().list_sessions(agent=Agent("codex")) if info.path == str(copy))


async def test_a_big_session_clears_old_rows_shows_progress_and_escape_cancels(
    make_app, isolated_homes, monkeypatch, tmp_path
) -> None:
    app, small_info, _ = build_sized(make_app, isolated_homes)  # before the big one, which it would pick
    big = big_codex_session(isolated_homes, tmp_path)
    gate = threading.Event()
    real = Services.load_session

    def gated(self, info, warn=lambda _: None):
        if info.path == big.path:
            assert gate.wait(600)  # a hang guard only: released by the test below; never a sleep
        return real(self, info, warn)

    monkeypatch.setattr(Services, "load_session", gated)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        screen.loader.progress_from_bytes, screen.loader.progress_seconds = 1, 0.0
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == small_info.path)
        table = screen.query_one(PreviewTabs).table(Strategy.TRUNCATE)
        assert table.row_count > 0
        await open_session_no_wait(pilot, big)
        assert table.row_count == 0 and screen.reading  # the old rows went at once
        tabs = screen.query_one(PreviewTabs)
        assert tabs.has_class("-loading") and "Escape cancels" in str(tabs.query_one("#loading-text").render())
        await pilot.press("escape")
        gate.set()
        await settle(pilot)
        assert screen.session is None and screen.plans is None and not screen.reading
        assert "Reading cancelled" in str(tabs.query_one("#line-truncate").render())

        await open_session(pilot, lambda i: i.path == big.path)
        bar = tabs.query_one("#loading-bar")
        assert bar.total == big.size and bar.progress == big.size  # every chunk reported, to the last byte
        assert screen.session is not None and screen.plans is not None and not tabs.has_class("-loading")


async def open_session_no_wait(pilot, info: SessionInfo) -> None:
    """Highlight a session and press Enter without waiting for its read."""
    tree = pilot.app.screen.query_one("#tree")
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        if node is not None and node.data is not None and node.data.path == info.path:
            tree.focus()
            tree.move_cursor(node)
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            return
    raise AssertionError("the session is not listed")


async def test_the_read_progress_is_drawn_whole_as_its_figures_grow(make_app) -> None:
    """A progress line whose length is unchanged is drawn again without laying the screen out (a layout
    per report cost the UI thread 6 ms, ten times a second, beside the read); one that grows is laid out
    again, so a figure that gains a digit wraps onto a new line rather than being cut."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tabs = app.screen.query_one(PreviewTabs)
        shown = tabs.query_one("#loading-text")
        total = 500 * 1024 * 1024
        first = "Reading the session… 9.0 of 500.0 MB · Escape cancels"
        shown.styles.width = len(first)  # the line just fits: one more character wraps its last word
        for done_mb in (9.0, 9.5, 9.9, 10.0, 10.5, 99.9, 100.0, 500.0):
            tabs.show_loading(int(done_mb * 1024 * 1024), total)
            await pilot.pause()
            text = f"Reading the session… {done_mb:,.1f} of 500.0 MB · Escape cancels"
            lines = [strip.text.strip() for strip in shown.render_lines(shown.region.reset_offset)]
            assert " ".join(line for line in lines if line) == text
            assert shown.size.height == (1 if len(text) <= len(first) else 2)


async def test_opening_sessions_makes_no_summary_view_until_a_summary_is_shown(make_app) -> None:
    """Opening a session empties every summary pane; a pane whose Markdown view and editor were never
    made stays without them (making both cost each first open 0.1 s of the UI thread before its first
    figures). A pane that showed a summary is emptied for the next session, view and editor alike."""
    from textual.widgets import Markdown, TextArea

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = await open_session(pilot, lambda info: True)
        tabs = app.screen.query_one(PreviewTabs)
        assert app.screen.plans is not None
        assert not tabs.query(Markdown) and not tabs.query(TextArea)
        pane = tabs.summary_pane(Strategy.SUMMARY)
        assert pane is not None
        pane.finish("# The summary\n\nWhat was done.")
        await pilot.pause()
        assert len(pane.query(Markdown)) == 1 and pane.query_one(TextArea).text.startswith("# The summary")
        await open_session(pilot, lambda info: info.path != first.path)
        assert pane.text == "" and pane.has_class("-empty") and pane.query_one(TextArea).text == ""
        assert "What was done" not in pane.query_one(Markdown).source


@pytest.mark.usefixtures("exact_tokens")
async def test_the_listed_agents_tokenizer_is_loaded_while_the_user_reads_the_list(make_app, monkeypatch) -> None:
    """A counter whose ranks an earlier run saved loads its encoding only at its first count (a warm
    `smig plan` counts nothing); the TUI warms it once the sessions are listed, so the first session
    opened does not wait for it."""
    import tiktoken
    from tiktoken_ext import openai_public

    from smig_tui.adapters.paths import resolve_paths
    from smig_tui.adapters.tokenizers import tiktoken_counter

    def fresh(name: str) -> tiktoken.Encoding:  # as a new process's tiktoken gives it, its ranks whole
        return tiktoken.Encoding(**getattr(openai_public, name)())

    monkeypatch.setattr(tiktoken_counter.tiktoken, "get_encoding", fresh)
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})
    saved = tiktoken_counter.SavedLoader(resolve_paths().cache_dir / "tokenizers")
    saved("o200k_base")  # an earlier run saved its ranks
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})  # this run has loaded nothing
    assert saved.ready("o200k_base")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.screen.sources.scanned and "o200k_base" in tiktoken_counter._LOADED

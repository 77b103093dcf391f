"""Plans keep their items as columns (`PlanItems`): every item read must be the one the eager construction built.

The planner used to build a `PlanItem` per message for every plan; now it keeps tokens and fates and
builds an item when it is read. These tests run the real planner, through `Services.plan`, on the
fixture sessions and on a generated session (every strategy, several budgets, with pins) and check
each plan's items against a copy of the eager construction, item for item.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from smig_devtools.corpus import MB, generate
from smig_tui.core import plans as plans_module
from smig_tui.core.models import Agent, Plan, PlanItem, PlanItems, Session, Strategy, fates, kept_indices
from smig_tui.core.plan_structure import NOT_MIGRATED
from smig_tui.core.plans import LEFT_OUT_REASONS, R_OVER, R_SHORTENED, left_out, omitted, result_messages
from smig_tui.services import Services, build_services, json_shapes

OWN_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
STRATEGIES = ("truncate", "tools-first", "summary", "summary-tail", "as-is")


def eager_items(
    state: Any, keep_from: int, dropped: set[int], dropped_reason: dict[int, str], fits_reason: str, over_reason: str
) -> tuple[PlanItem, ...]:
    """The construction plans used before columns: one item per message, then summary + tail's renaming."""
    texts = dict(state.texts)  # the planner used to keep every shortened output's text here
    texts.update({i: f"{head}\n{marker}\n{tail}" if tail else f"{head}\n{marker}" for i, (head, marker, tail) in state.outputs.items()})  # fmt: skip
    items = []
    for i, message in enumerate(state.messages):
        if i in state.skip:
            kept, reason = False, state.skip[i]
        elif i in state.pinned:
            kept, reason = True, state.pinned[i]
        elif i in dropped:
            kept, reason = False, dropped_reason.get(i, R_OVER)
        else:
            kept, reason = (False, R_OVER) if i < keep_from else (True, fits_reason)
        if i in texts and kept:
            item = PlanItem(
                message, state.tokens[i], True, R_SHORTENED, text=texts[i], original_tokens=state.originals[i]
            )
        elif i in texts:
            item = PlanItem(message, state.originals[i], False, reason)
        else:
            item = PlanItem(message, state.tokens[i], kept, reason)
        items.append(item)
    return tuple(replace(it, reason=over_reason) if it.reason == R_OVER else it for it in items)


@pytest.fixture
def checked_items(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Check every `PlanItems` the planner makes against `eager_items`; returns how many were checked."""
    made: list[int] = []
    columns = plans_module._items

    def spy(state: Any, keep_from: int, dropped: set[int], dropped_reason: dict[int, str], fits_reason: str, over_reason: str = R_OVER) -> PlanItems:  # fmt: skip
        items = columns(state, keep_from, dropped, dropped_reason, fits_reason, over_reason)
        expected = eager_items(state, keep_from, dropped, dropped_reason, fits_reason, over_reason)
        assert len(items) == len(expected)
        for i, want in enumerate(expected):
            assert items[i] == want, f"message {i}"
        assert list(fates(items)) == [(it.kept, it.reason, it.tokens) for it in expected]
        assert kept_indices(items) == [i for i, it in enumerate(expected) if it.kept]
        made.append(len(items))
        return items

    monkeypatch.setattr(plans_module, "_items", spy)
    return made


def assert_plan_reads_like_a_tuple(plan: Plan) -> None:
    """Everything read from a plan is what the same items as a tuple give."""
    eager = tuple(plan.items)
    assert list(eager) == [plan.items[i] for i in range(len(plan.items))]  # iterating builds what indexing builds
    as_tuple = replace(plan, items=eager)
    assert plan.kept == as_tuple.kept == tuple(it for it in eager if it.kept)
    assert plan.dropped == as_tuple.dropped
    assert len(plan.dropped) == len(as_tuple.dropped) and list(plan.dropped[1:3]) == list(as_tuple.dropped[1:3])
    assert [plan.kept[i] for i in range(-len(plan.kept), len(plan.kept))] == [*as_tuple.kept, *as_tuple.kept]
    assert left_out(plan) == left_out(as_tuple)
    gone = [it for it in eager if not it.kept and it.reason in LEFT_OUT_REASONS]
    assert left_out(plan) == (len(gone), sum(it.tokens for it in gone))
    assert omitted(plan) == omitted(as_tuple)
    rows = [json_shapes.plan_item_json(item) for item in eager]  # `smig plan --json`'s rows, from the columns
    assert list(json_shapes.plan_item_rows(plan)) == list(json_shapes.plan_item_rows(as_tuple)) == rows
    migratable = [it for it in eager if not it.kept and it.reason not in NOT_MIGRATED]
    assert omitted(plan) == (len(migratable), sum(it.tokens for it in migratable))
    assert result_messages(plan) == result_messages(as_tuple)
    assert plan == as_tuple


def plans_of(services: Services, session: Session, target: str, reserves: list[int]) -> list[Plan]:
    """Every strategy at every reserve, with and without a pinned first prompt, without the harness share."""
    made = []
    for reserve in reserves:
        for strategy in STRATEGIES:
            for pin_first in (False, True):
                made.append(
                    services.plan(session, target, strategy, reserve=reserve, pin_first_user=pin_first, harness=False)
                )
    return made


def test_fixture_sessions_plan_the_same_items_as_the_eager_construction(
    fake_home: dict[str, Path], checked_items: list[int]
) -> None:
    real = OWN_FIXTURES / "real" / "claude" / "projects"
    shutil.copytree(real, fake_home["claude"] / "projects", dirs_exist_ok=True)
    services = build_services()
    sessions = [services.load_session(info) for info in services.list_sessions(include_subagents=True)]
    assert len(sessions) >= 10
    window = services.capacities.lookup("gpt-4o").context_window
    compressed = 0
    for session in sessions:
        for plan in plans_of(services, session, "gpt-4o", [window - 400, window - 3_000, 0]):
            assert_plan_reads_like_a_tuple(plan)
            compressed += not plan.decision.fits
    assert compressed > 50 and len(checked_items) > 300


def test_a_generated_session_plans_the_same_items_as_the_eager_construction(
    isolated_homes: dict[str, Path], tmp_path: Path, checked_items: list[int]
) -> None:
    manifest = generate(tmp_path / "gen-codex", tmp_path / "gen-claude", sessions=2, total_bytes=3 * MB, seed=3)
    entry = max((e for e in manifest.sessions if e.agent == "codex"), key=lambda e: e.size)
    source = Path(entry.path)
    copy = isolated_homes["codex"] / source.relative_to(tmp_path / "gen-codex")
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, copy)
    services = build_services()
    session = services.load_session(next(i for i in services.list_sessions() if i.path == str(copy)))
    window = services.capacities.lookup("gpt-4o").context_window
    reasons: set[str] = set()
    for plan in plans_of(services, session, "gpt-4o", [window - 20_000, window - 100_000]):
        assert_plan_reads_like_a_tuple(plan)
        reasons |= {reason for _, reason, _ in fates(plan.items)}
    assert {R_OVER, R_SHORTENED, "old tool pair dropped", "summarised", "newest"} <= reasons
    assert min(checked_items) == len(session.messages) > 500


def test_plan_items_read_as_a_sequence(fake_home: dict[str, Path]) -> None:
    services = build_services()
    info = next(i for i in services.list_sessions() if i.agent == Agent("codex"))
    session = services.load_session(info)
    window = services.capacities.lookup("gpt-4o").context_window
    plan = services.plan(session, "gpt-4o", Strategy.TRUNCATE, reserve=window - 500, harness=False)
    items = plan.items
    assert isinstance(items, PlanItems)
    eager = tuple(items)
    assert len(items) == len(session.messages) == len(eager)
    assert items[-1] == eager[-1] and items[1:4] == eager[1:4] and items[::-2] == eager[::-2]
    assert items == eager and eager == items and hash(items) == hash(eager)
    assert items != eager[:-1] and items != "not items"
    with pytest.raises(IndexError):
        items[len(eager)]
    assert len(repr(items)) < 80  # Textual and logs may repr a plan: never its every item


def test_a_plans_left_out_figures_are_worked_out_once(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TUI tab words its line on every plan shown and every resize: the tally is kept with the plan."""
    services = build_services()
    sessions = [services.load_session(info) for info in services.list_sessions()]
    session = max(sessions, key=lambda session: len(session.messages))
    window = services.capacities.lookup("gpt-4o").context_window
    plan = services.plan(session, "gpt-4o", Strategy.TRUNCATE, reserve=window - 300, harness=False)
    tallied: list[object] = []
    tally = PlanItems._tally
    monkeypatch.setattr(PlanItems, "_tally", lambda items, reasons: tallied.append(reasons) or tally(items, reasons))

    first = left_out(plan)

    assert first[0] > 0 and left_out(plan) == first and tallied == [LEFT_OUT_REASONS]
    assert omitted(plan) == omitted(plan) and len(tallied) == 3  # every reason but some: asked each time

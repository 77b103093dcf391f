"""The TUI plans the tab on show first, then the others, and plans again only a tab made on fewer counts."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from smig_devtools.corpus import MB, generate
from smig_tui.core.models import Strategy
from smig_tui.services import build_services
from smig_tui.tui import backend


def test_tabs_agree_on_one_figure_and_none_is_planned_twice_on_the_same_counts(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    manifest = generate(tmp_path / "gen-codex", tmp_path / "gen-claude", sessions=2, total_bytes=3 * MB, seed=3)
    entry = max((e for e in manifest.sessions if e.agent == "codex"), key=lambda e: e.size)
    source = Path(entry.path)
    copy = isolated_homes["codex"] / source.relative_to(tmp_path / "gen-codex")
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, copy)
    services = build_services()
    session = services.load_session(next(i for i in services.list_sessions() if i.path == str(copy)))
    made: list[tuple[Strategy, int]] = []
    """Each plan made, with how many messages were counted when it began."""
    plan = services.plan
    capacity = services.capacities.lookup("gpt-4o")

    def recorded(*args: Any, **kwargs: Any) -> Any:
        counted = services.counted_messages(session, capacity)
        result = plan(*args, **kwargs)
        made.append((result.strategy, counted))
        return result

    services.plan = recorded  # type: ignore[method-assign]
    first = Strategy.SUMMARY_TAIL
    yielded = list(backend.plans_visible_first(services, session, "gpt-4o", frozenset(), {}, first))

    assert [list(plans) for plans in yielded] == [[first], list(backend.PLAN_STRATEGIES)]
    final = yielded[-1]
    assert len({each.decision.session_tokens for each in final.values()}) == 1
    assert all(not each.decision.fits for each in final.values())
    assert len(made) > len(final), "the session should need a second round (tools-first counts more)"
    for strategy in backend.PLAN_STRATEGIES:
        begun_on = [counted for planned, counted in made if planned is strategy]
        assert len(begun_on) == len(set(begun_on)), f"{strategy} planned again on the same counts: {begun_on}"
        again = plan(session, "gpt-4o", strategy)
        assert final[strategy] == again, "a tab shows a plan made on older counts"

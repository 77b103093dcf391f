"""The plan table on a session of thousands of messages: rows arrive in chunks as you scroll."""

from __future__ import annotations

from textual.app import App, ComposeResult

from smig_tui.core.models import Decision, Kind, Message, Plan, PlanItem, Role, Strategy
from smig_tui.tui.widgets.plan_table import CHUNK, PLACEHOLDER_KEY, PlanTable


def big_plan(count: int) -> Plan:
    messages = [
        Message(i, f"m{i}", Role.USER if i % 2 == 0 else Role.ASSISTANT, Kind.TEXT, f"message {i}")
        for i in range(count)
    ]
    half = count // 2
    items = tuple(
        PlanItem(m, 10 + i % 7, i >= half, "newest" if i >= half else "over budget") for i, m in enumerate(messages)
    )
    decision = Decision("test", 10 * count, 5 * count, 0, False)
    return Plan(Strategy.TRUNCATE, decision, items, placeholder=f"[smig: {half} earlier messages omitted]")


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PlanTable()


async def test_rows_load_as_the_cursor_reaches_the_end_and_keep_the_highlight() -> None:
    plan = big_plan(3 * CHUNK + 17)
    app = TableApp()
    async with app.run_test(size=(120, 36)) as pilot:
        table = app.query_one(PlanTable)
        table.show_plan(plan, frozenset())
        await pilot.pause()
        assert table.row_count == CHUNK + 1
        assert table.coordinate_to_cell_key((0, 0)).row_key.value == PLACEHOLDER_KEY
        table.focus()
        while table.row_count < len(plan.items) + 1:
            before = table.row_count
            await pilot.press("ctrl+end")
            await pilot.pause()
            assert table.row_count > before, "reaching the end loads the next chunk"
        await pilot.press("ctrl+end")
        await pilot.pause()
        last = plan.items[-1].message
        assert table.highlighted_message() == last
        table.show_plan(plan, frozenset({last.id}))
        await pilot.pause()
        assert table.highlighted_message() == last, "re-planning keeps the cursor on the message"
        assert str(table.get_row_at(table.get_row_index(last.id))[0]) == "📌"

"""Provides the benchmark rows of the TUI (issues 19 and 22) and their in-process Pilot measurements.

Each measurement runs in a fresh child (`bench_children.py tui…`) against the corpus, with its own
smig home, and drives the real `SmigApp` through Textual's Pilot. Every figure is wall time around
awaited UI work, its end looked for each time the app handles a message (`Handled`). A keystroke's
figure is the time the app takes to handle the key and draw the screen again; Pilot's own `press`
also waits for the CPU to go idle (at least 40 ms a key), which says nothing about the app.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the child that measures imports nothing of the corpus generator: its clock runs
    from smig_devtools.corpus import Manifest

FIRST_LAUNCHES = 5
"""First launches with empty caches: the goal is every one of them under a second."""
FIRST_PAINT_GOAL = 0.5
"""Their median, from launch to the first frame with sessions (issue 35; a bare Textual app: 0.22 s)."""
FIRST_FIGURES_GOAL = 2.0
"""From Enter on a session to its gauge and the tab on show, whatever its size (issue 35: 500 MB too;
it was 8 s for a session over 200 MB)."""
FIRST_FIGURES_RUNS = 3
"""Launches that open each big session; the row is their median: one launch's figure moved by a third
with what else the machine ran (the 500 MB Claude Code session's: 2.02, 2.59 and 3.06 s in three runs)."""
TYPED = "refactor the parser"
"""What the filter row types, one key at a time."""
SWITCH_TARGETS = ("gpt-5", "claude-sonnet-4-5", "gpt-5")
"""The first switch counts gpt-5's tokens; the others go back to encodings already counted."""


def tui_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """First paint: every first launch with empty caches, then one with the listing cache warm."""
    from smig_devtools.bench import Row, _reset, child_argv, corpus_env, run_child

    try:
        import smig_tui.tui.app  # noqa: F401
    except ImportError as error:
        return [Row("TUI first paint", None, "s", "< 1 s", None, f"TUI not importable: {error}")]
    smig_home = workdir / "smig-tui"
    firsts = []
    for _ in range(FIRST_LAUNCHES):
        _reset(smig_home)
        firsts.append(run_child(child_argv("tui", f"{time.time():.6f}"), corpus_env(workdir, smig_home)))
    warm = run_child(child_argv("tui", f"{time.time():.6f}"), corpus_env(workdir, smig_home))
    if not all(child.result.get("ok") for child in [*firsts, warm]):
        reason = next(c.result.get("reason", "") for c in [*firsts, warm] if not c.result.get("ok"))
        return [Row("TUI first paint", None, "s", "< 1 s", None, reason)]
    paints = [child.result["paint"] for child in firsts]
    paint = statistics.median(paints)
    r = warm.result
    return [
        Row(
            f"TUI first paint, first launch, empty caches (median of {FIRST_LAUNCHES})",
            paint,
            "s",
            f"<= {FIRST_PAINT_GOAL} s; each < 1 s",
            paint <= FIRST_PAINT_GOAL and max(paints) < 1.0,
            f"from launch: runs {', '.join(f'{p:.2f}' for p in paints)} s, of which interpreter"
            f" {statistics.median(c.result['interpreter'] for c in firsts):.2f} s and imports"
            f" {statistics.median(c.result['imports'] for c in firsts):.2f} s; CPU at first paint"
            f" {statistics.median(c.result['paint_cpu'] for c in firsts):.2f} s, of it the UI thread"
            f" {statistics.median(c.result['paint_ui_cpu'] for c in firsts):.2f} s (medians; the listing runs"
            f" beside it); {firsts[0].result['shown']} sessions at first paint",
        ),
        Row(
            "TUI first paint, next launch, listing cache warm",
            r["paint"],
            "s",
            "< 1 s",
            r["paint"] < 1.0,
            f"from launch; CPU {warm.cpu:.2f} s in all; all {r['total']} sessions in after {r['loaded']:.2f} s;"
            f" app running after {r['start']:.2f} s",
            rss=warm.max_rss_mb,
        ),
    ]


def tui_big_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """On each agent's biggest session: first figures, all tabs, peak RSS; on Codex's, target switch and filter."""
    from smig_devtools.bench import Row, _reset, child_argv, corpus_env, run_child
    from smig_devtools.bench_commands import floor_run
    from smig_devtools.corpus import MB

    rows: list[Any] = []
    for agent in ("codex", "claude"):
        entries = [e for e in manifest.sessions if e.agent == agent and not e.empty]
        if not entries:
            continue
        entry = max(entries, key=lambda e: e.size)
        smig_home = workdir / "smig-tui-big"
        _reset(smig_home)
        mode = "full" if agent == "codex" else "open"
        floor = floor_run(entry.path, corpus_env(workdir, smig_home)).cpu
        child = run_child(child_argv("tui-big", entry.path, mode), corpus_env(workdir, smig_home))
        r = child.result
        if not r.get("ok"):
            rows.append(Row(f"TUI: {agent} big session's first figures", None, "s", "", None, r.get("reason", "")))
            continue
        opened = [r]
        for _ in range(FIRST_FIGURES_RUNS - 1):  # the first figures again, each launch with empty caches
            _reset(smig_home)
            again = run_child(child_argv("tui-big", entry.path, "open"), corpus_env(workdir, smig_home)).result
            if again.get("ok"):
                opened.append(again)
        first = sorted(opened, key=lambda run: run["first_figures"])[(len(opened) - 1) // 2]  # the median run
        runs = ", ".join(f"{run['first_figures']:.2f}" for run in opened)
        huge = entry.size >= 200 * MB
        first_goal = FIRST_FIGURES_GOAL
        all_goal, rss_goal = (12.0, 500.0) if huge else (4.0, 500.0)
        about = f"{entry.size / MB:,.0f} MB {agent} session, {r['messages']:,} messages, {r['sessions']:,} sessions"
        rows += [
            Row(
                f"TUI: first figures of a {about} (median of {len(opened)})",
                first["first_figures"],
                "s",
                f"< {first_goal:g} s",
                first["first_figures"] < first_goal,
                f"Enter to the gauge and the tab on show; launches {runs} s; in the median one, read"
                f" {first['read']:.2f} s, CPU {first['cpu_first']:.2f} s",
                first["cpu_first"] / max(floor, 1e-9),
                r["rss_mb"],
            ),
            Row(
                "  all four tabs planned",
                r["all_tabs"],
                "s",
                f"< {all_goal:g} s",
                r["all_tabs"] < all_goal,
                f"CPU {r['cpu_all']:.2f} s",
                r["cpu_all"] / max(floor, 1e-9),
                r["rss_mb"],
            ),
            Row(
                "  peak RSS of the TUI process",
                r["rss_mb"],
                "MB",
                f"< {rss_goal:g} MB",
                r["rss_mb"] < rss_goal,
                f"CPU {child.cpu:.1f} s for the whole child",
                rss=r["rss_mb"],
            ),
        ]
        if mode != "full":
            continue
        switch = max(r["switch"])
        rows += [
            Row(
                "TUI: switch target on it",
                switch,
                "s",
                "< 0.3 s",
                switch < 0.3,
                "worst of switching to an already-counted encoding and back, until the tab on show is"
                f" planned; {', '.join(f'{t:.2f}' for t in r['switch'])} s, CPU {r['cpu_switch']:.2f} s",
                rss=r["rss_mb"],
            ),
            Row(
                f"TUI: filter keystroke, {r['sessions']:,} sessions",
                r["keystroke_worst"] * 1000,
                "ms",
                "< 50 ms",
                r["keystroke_worst"] < 0.05,
                f"worst of {len(TYPED)} keys handled and drawn, median {r['keystroke_median'] * 1000:.1f} ms;"
                f" UI thread CPU worst {r['keystroke_cpu_worst'] * 1000:.1f} ms; longest UI stall while"
                f" typing {r['stall'] * 1000:.0f} ms",
                rss=r["rss_mb"],
            ),
            Row(
                "  the filter applied after a pause",
                r["filter_apply"] * 1000,
                "ms",
                "< 50 ms",
                r["filter_apply"] < 0.05,
                "worst of narrowing to one word, to all the words, and clearing it again (every session"
                f" back): {', '.join(f'{t * 1000:.0f}' for t in r['applies'])} ms; UI thread CPU worst"
                f" {r['apply_cpu_worst'] * 1000:.1f} ms",
                rss=r["rss_mb"],
            ),
        ]
    return rows


def measure_tui(args: Sequence[str]) -> dict[str, Any]:
    """Time SmigApp from the launch of this process (`args[0]`, the parent's clock) to the first
    frame with sessions in the tree, then to a full scan."""
    launched = float(args[0]) if args else time.time()
    imported = time.time()
    try:
        from smig_tui.tui.app import SmigApp
    except ImportError as error:
        return {"ok": False, "reason": f"TUI not importable: {error}"}
    figures = asyncio.run(_drive_tui(SmigApp, launched))
    figures["imports"] = figures.get("started", imported) - imported
    figures["interpreter"] = imported - launched
    return figures


async def _drive_tui(app_type: Any, launched: float) -> dict[str, Any]:
    """Drive the app with Pilot, looking for the first session in the tree as the app handles each message."""
    from smig_tui.services import build_services
    from smig_tui.tui.widgets.source_tree import SourceTree

    started = time.time()
    app = app_type(services=build_services())
    figures: dict[str, Any] = {"ok": False, "reason": "the tree stayed empty for 60 s", "started": started}
    handled = Handled()
    async with app.run_test(size=(120, 36), message_hook=handled.hook) as pilot:
        figures["start"] = time.time() - launched

        def painted() -> bool:
            return bool(app.screen.query(SourceTree) and app.screen.query_one(SourceTree).root.children)

        await handled.until(painted, 60)
        if painted():
            app.screen._on_timer_update()  # the frame that shows them
            tree = app.screen.query_one(SourceTree)
            figures.update(
                ok=True,
                paint=time.time() - launched,
                paint_cpu=time.process_time(),
                paint_ui_cpu=time.thread_time(),
                shown=len(tree.sessions),
            )
        await handled.until(lambda: not any(w.group == "sources.scan" and not w.is_finished for w in app.workers), 300)
        await pilot.pause()
        figures.update(loaded=time.time() - launched, total=len(app.screen.query_one(SourceTree).sessions))
    return figures


def measure_tui_big(args: Sequence[str]) -> dict[str, Any]:
    """In the TUI: open the session at `args[0]`; with `full`, also switch target and type a filter."""
    try:
        from smig_tui.tui.app import SmigApp
    except ImportError as error:
        return {"ok": False, "reason": f"TUI not importable: {error}"}
    return asyncio.run(_drive_tui_big(SmigApp, args[0], args[1] if len(args) > 1 else "full"))


async def _settle(pilot: Any) -> None:
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


IDLE_LOOK = 0.25
"""How long a figure waits for a message before it looks again anyway (its end comes with a message)."""


class Handled:
    """Wakes the figures waiting in `until` each time the app handles a message (`run_test`'s
    `message_hook`), which is when anything they wait for can change.

    Looking every 5 ms instead woke the event loop 200 times a second, and each wake took the GIL from
    the thread reading a session: a figure of what a user sees that the measurement itself slowed
    (in the TUI, 0.3-0.5 s of a 500 MB session's read). Pilot's `pause()` waits for the CPU to go idle,
    up to a second, which a worker planning the other tabs never lets happen."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.looks = 0
        """How many times `until` looked (a test holds it to the messages, not the clock)."""

    def hook(self, _message: object) -> None:
        self.event.set()

    async def until(self, done: Any, limit: float = 600) -> None:
        """Let the app run until `done()`, looking again after each message it handles."""
        started = time.perf_counter()
        while True:
            self.looks += 1
            if done() or time.perf_counter() - started >= limit:
                return
            self.event.clear()
            try:
                async with asyncio.timeout(IDLE_LOOK):
                    await self.event.wait()
            except TimeoutError:
                pass


async def _drive_tui_big(app_type: Any, path: str, mode: str) -> dict[str, Any]:
    """Drive the app with Pilot; every figure is wall time around awaited UI work, nothing sleeps."""
    from smig_tui.services import build_services

    app = app_type(services=build_services())
    figures: dict[str, Any] = {"ok": False, "reason": f"{path} is not listed"}
    handled = Handled()
    async with app.run_test(size=(120, 40), message_hook=handled.hook) as pilot:
        await _settle(pilot)
        screen = app.screen
        tree = screen.query_one("#tree")
        info = next((i for i in tree.sessions if i.path == path), None)
        if info is None:
            return figures
        cpu, started = time.process_time(), time.perf_counter()
        screen.open_session(info)
        await handled.until(lambda: screen.session is not None)
        read = time.perf_counter() - started
        await handled.until(lambda: screen.plans is not None)
        first, cpu_first = time.perf_counter() - started, time.process_time() - cpu
        await handled.until(lambda: screen.plans is not None and not getattr(screen.plans, "pending", ()))
        figures.pop("reason")
        figures.update(
            ok=screen.plans is not None,
            read=read,
            first_figures=first,
            cpu_first=cpu_first,
            all_tabs=time.perf_counter() - started,
            cpu_all=time.process_time() - cpu,
            messages=len(screen.session.messages) if screen.session else 0,
            sessions=len(tree.sessions),
        )
        await _settle(pilot)
        from smig_devtools.own_usage import own_peak_mb

        figures["rss_mb"] = own_peak_mb()
        if mode != "full":
            return figures
        switches = []
        cpu = time.process_time()
        for target in SWITCH_TARGETS:
            started = time.perf_counter()
            screen.target = target
            screen.plans = None
            screen.replan()
            await handled.until(lambda: screen.plans is not None)
            switches.append(time.perf_counter() - started)
        figures.update(switch=switches[1:], cpu_switch=time.process_time() - cpu)
        await _settle(pilot)
        figures.update(await _type_filter(pilot, screen))
    return figures


async def _type_filter(pilot: Any, screen: Any) -> dict[str, Any]:
    """Type into the filter key by key, timing each key's handling and drawing, and watching the
    event loop for stalls; then time the debounced filter as it applies after a pause."""
    from textual import events

    app = pilot.app
    screen.query_one("#filter").focus()
    await pilot.pause()
    stall = 0.0
    watching = True

    async def watch() -> None:
        nonlocal stall
        while watching:
            before = time.perf_counter()
            await asyncio.sleep(0.002)
            stall = max(stall, time.perf_counter() - before - 0.002)

    watcher = asyncio.create_task(watch())
    keys, cpus = [], []
    for char in TYPED:
        started, cpu = time.perf_counter(), time.thread_time()
        key = events.Key("space" if char == " " else char, char)
        key.set_sender(app)
        app._driver.send_message(key)
        await pilot._wait_for_screen()  # every message the key caused, handled
        app.screen._on_timer_update()  # and the screen drawn
        keys.append(time.perf_counter() - started)
        cpus.append(time.thread_time() - cpu)
    watching = False
    await watcher
    applies, apply_cpus = [], []
    for text in (TYPED.split()[0], TYPED, ""):
        screen.query_one("#filter").value = text
        await pilot._wait_for_screen()
        started, cpu = time.perf_counter(), time.thread_time()
        screen.sources.apply_filter()  # as the debounce runs it after a pause in typing
        await pilot._wait_for_screen()
        app.screen._on_timer_update()
        applies.append(time.perf_counter() - started)
        apply_cpus.append(time.thread_time() - cpu)
    return {
        "keystroke_worst": max(keys),
        "keystroke_median": statistics.median(keys),
        "stall": stall,
        "keystroke_cpu_worst": max(cpus),
        "filter_apply": max(applies),
        "applies": applies,
        "apply_cpu_worst": max(apply_cpus),
    }

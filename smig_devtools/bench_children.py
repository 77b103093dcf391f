"""Provides the benchmark's in-process measurements, each run in a fresh child by `bench.py`.

A child is `python -m smig_devtools.bench_children NAME ARGS...` and imports only what its
measurement needs: the benchmark's own modules (corpus writer, asyncio for the TUI rows) would add
about 11 MB to the peak memory a row reports, which a user's `smig` never holds.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from smig_devtools.own_usage import own_peak_mb
from smig_tui.core.models import Message, Session, SessionInfo
from smig_tui.services import Services, build_services

PLAN_TARGET = "gpt-5"
REPLAN_TARGETS = ("o3", "gpt-5.1", "gpt-4.1")
REPLAN_MESSAGES = 5000


def run_child_measure(name: str, args: Sequence[str]) -> dict[str, Any]:
    """Run the named measurement and return its figures."""
    measures: dict[str, Callable[[Sequence[str]], dict[str, Any]]] = {
        "plan": measure_plan,
        "tokens": measure_tokens,
        "replan": measure_replan,
    }
    if name.startswith(("search-", "archive-")):
        from smig_devtools.bench_search import run_search_measure

        return run_search_measure(name, args)
    if name.startswith("tui"):
        from smig_devtools.bench_tui import measure_tui, measure_tui_big

        return (measure_tui if name == "tui" else measure_tui_big)(args)
    return measures[name](args)


def measure_plan(args: Sequence[str]) -> dict[str, Any]:
    """Find, load and plan one session as `smig plan PATH --target gpt-5` would."""
    services = build_services()
    started = time.perf_counter()
    info = services.find_session(args[0])
    found, cpu = time.perf_counter(), time.process_time()
    session = services.load_session(info)
    loaded, load_cpu = time.perf_counter(), time.process_time() - cpu
    plan = services.plan(session, PLAN_TARGET, "truncate")
    planned = time.perf_counter()
    decision = (
        f"{plan.decision.session_tokens:,} tokens for a {plan.decision.window:,} window, "
        f"{len(plan.kept):,} messages kept ({plan.tokens_after:,} tokens)"
    )
    worker = resource.getrusage(resource.RUSAGE_CHILDREN)  # the second reading process of a huge file, if any
    return {
        "rss_mb": own_peak_mb(),
        "worker_rss_mb": worker.ru_maxrss / 1024,
        "worker_cpu": worker.ru_utime + worker.ru_stime,
        "find": found - started,
        "load": loaded - found,
        "load_cpu": load_cpu,
        "plan": planned - loaded,
        "messages": len(session.messages),
        "decision": decision,
    }


def index_paths(services: Services, paths: Sequence[str]) -> list[SessionInfo]:
    """Return the infos of `paths`, in that order, from one discovery pass."""
    by_path = {info.path: info for info in services.iter_sessions(include_subagents=True)}
    return [by_path[path] for path in paths if path in by_path]


def services_at(home: Path) -> Services:
    """Build fresh Services whose caches live under `home`."""
    return build_services(dict(os.environ, SMIG_TUI_HOME=str(home)))


def measure_tokens(args: Sequence[str]) -> dict[str, Any]:
    """Time smig's counting against raw tiktoken on the same texts, then a cached re-count."""
    import tiktoken  # the baseline smig's counter is measured against, nothing else

    from smig_tui.core.tokens import render_for_count

    text_bytes, paths = float(args[0]) * (1 << 20), args[1:]
    base = Path(os.environ["SMIG_TUI_HOME"])
    services = services_at(base / "a")
    capacity = services.capacities.lookup(PLAN_TARGET)
    sessions, size = [], 0
    for info in index_paths(services, paths):
        session = services.load_session(info)
        sessions.append(session)
        size += sum(len(render_for_count(m)) for m in session.messages)
        if size >= text_bytes:
            break
    texts = [[render_for_count(m) for m in s.messages] for s in sessions]
    encoding = tiktoken.get_encoding(capacity.encoding)
    services.counter_for(capacity).count("warm up")
    raw = min(
        _timed(lambda: [encoding.encode_ordinary_batch(t, num_threads=os.cpu_count() or 1) for t in texts])
        for _ in range(2)
    )
    cold = [_count_all(services_at(base / name), sessions, capacity) for name in ("a", "b")]
    cached = min(_count_all(services_at(base / "a"), sessions, capacity) for _ in range(3))
    return {
        "raw": raw,
        "smig": min(cold),
        "cached": cached,
        "mb": size / (1 << 20),
        "messages": sum(len(s.messages) for s in sessions),
    }


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _count_all(services: Services, sessions: list[Session], capacity: Any) -> float:
    """Seconds for `services.count_session` over all sessions (the encoding loaded beforehand)."""
    services.counter_for(capacity).count("warm up")
    return _timed(lambda: [services.count_session(s, capacity) for s in sessions])


def measure_replan(args: Sequence[str]) -> dict[str, Any]:
    """Plan 5,000 messages for one target, then time plans after switching targets."""
    services = build_services()
    messages: list[Message] = []
    first: Session | None = None
    for info in index_paths(services, args):
        session = services.load_session(info)
        first = first or session
        messages += session.messages
        if len(messages) >= REPLAN_MESSAGES:
            break
    if first is None or len(messages) < REPLAN_MESSAGES:
        return {
            "ok": False,
            "reason": f"the corpus has only {len(messages)} messages in large sessions",
        }
    picked = [replace(m, index=i) for i, m in enumerate(messages[:REPLAN_MESSAGES])]
    session = replace(first, messages=tuple(picked))
    services.plan(session, PLAN_TARGET, "truncate")
    times: list[float] = []
    for _ in range(3):
        for target in REPLAN_TARGETS:
            started = time.perf_counter()
            services.plan(session, target, "truncate")
            times.append(time.perf_counter() - started)
    return {
        "ok": True,
        "messages": len(picked),
        "first": times[0],
        "median": statistics.median(times),
        "worst": max(times),
    }


if __name__ == "__main__":
    print(json.dumps(run_child_measure(sys.argv[1], sys.argv[2:])))

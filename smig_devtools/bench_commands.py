"""Provides the benchmark rows of the commands a user runs on a huge session (issue 22).

`smig plan` (table, `--json`, unbuffered `--json`), `smig migrate` each way and `smig export` to
Markdown, each a real `smig` process on each agent's biggest session, with that process's own CPU
time and peak RSS (from `wait4`, not the largest child so far). Migrations write into scratch agent
homes and exports into a scratch folder, so the corpus stays reusable.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smig_devtools.corpus import MB, Manifest

TARGETS = {"codex": "gpt-5", "claude": "claude-sonnet-5-5", "gemini": "gemini-2.5-pro", "opencode": "claude-sonnet-5-5"}
"""A target of each agent's own family whose window the huge session overflows, so plans drop most of it."""
TABLE_OVER_JSON = 1.2
UNBUFFERED_WRITES = 2
"""Unbuffered output may make at most this many times the buffered run's write() calls: judged on the
calls, not time, since a few hundred thousand extra calls hide in the noise of a shared machine."""
MIGRATE_GOAL = 6.0
EXPORT_GOAL = 7.0
EXPORT_RSS_GOAL = 400.0
"""The goals of issue 22, set for the 500 MB session; at a smaller size they hold with room to spare."""
RSS_GOAL = 400.0
FLOOR_GOAL = 3.0
"""Issue 35: any command on a 500 MB session of any agent within 400 MB, and within 3x the parse floor's CPU."""
HOMES = {
    "codex": "CODEX_HOME",
    "claude": "CLAUDE_CONFIG_DIR",
    "gemini": "GEMINI_CLI_HOME",
    "opencode": "OPENCODE_DB",
    "kilo": "KILO_DB",
    "qwen": "QWEN_HOME",
    "copilot": "COPILOT_HOME",
    "pi": "PI_CODING_AGENT_DIR",
}
"""Each destination's home variable, pointed at a scratch folder (a database file for OpenCode and Kilo Code)."""
DESTINATIONS = (*HOMES, "aider")
"""Every agent smig migrates into (`smig migrate --to`); Aider's history is written into `--cwd`."""
EXPORT_FORMATS = ("markdown", "json", "openai", "memory")
"""Every format of `smig export --format` (a test holds this equal to the CLI's choices)."""


@dataclass(frozen=True)
class Run:
    """One `smig` process: wall time, its own CPU time and peak RSS."""

    seconds: float
    cpu: float
    rss_mb: float
    writes: int | None
    """write() system calls made (from /proc/PID/io, read before the child is reaped), None where unknown."""


def run_smig(argv: list[str], env: dict[str, str], stdout: Path | None, timeout: float | None = None) -> Run:
    """`smig ARGV` measured as `run_process` does."""
    return run_process([sys.executable, "-m", "smig_tui", *argv], env, stdout, timeout)


def run_process(argv: list[str], env: dict[str, str], stdout: Path | None, timeout: float | None = None) -> Run:
    """Run `smig ARGV` with stdout to a file (as `> file` would), or to a pipe this process drains
    (as `| jq` would) when `stdout` is None, and measure that process alone. What earlier rows wrote
    (an export, the search index) is flushed first, so its writeback does not land in this row.
    A process still running after `timeout` seconds is killed (a RuntimeError says so)."""
    os.sync()
    with stdout.open("wb") if stdout else open(os.devnull, "wb") as sink:
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            env=env,
            stdout=sink if stdout else subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        killer = threading.Timer(timeout, proc.kill) if timeout else None
        if killer:
            killer.start()
        if proc.stdout:
            while proc.stdout.read(1 << 16):
                pass
            proc.stdout.close()
        writes = _write_calls(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        if killer:
            killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        error = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[2:5])} failed ({proc.returncode}): {error.strip()[-300:]}")
    from smig_devtools.bench import PEAKS

    PEAKS.append(usage.ru_maxrss / 1024)
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, writes)


def _write_calls(pid: int) -> int | None:
    """Wait for `pid` to exit without reaping it, then read how many write() calls it made."""
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        fields = dict(line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines())
        return int(fields["syscw"])
    except (OSError, KeyError, ValueError, AttributeError):
        return None


def command_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """Plan, show, migrate and export rows for each agent's biggest session."""
    rows: list[Any] = []
    for agent in ("claude", "codex"):
        entries = [e for e in manifest.sessions if e.agent == agent and not e.compressed]
        if entries:
            rows += _rows_for(workdir, max(entries, key=lambda e: e.size))
    return rows


FLOOR_RUNS = 3
"""The parse floor is run this many times and the run of least CPU taken: every `CPU / floor` divides by
it, and one run of it on the same 500 MB transcript took 0.74 s and 1.80 s of CPU in one benchmark run."""


def floor_run(path: str, env: dict[str, str]) -> Run:
    """The parse floor on `path` (`devtools/floor.py`), measured as a command is: the least CPU of
    `FLOOR_RUNS` runs (the least a reader must do, with as little of the machine's noise as it can)."""
    runs = [run_process([sys.executable, "-m", "smig_devtools.floor", path], env, None) for _ in range(FLOOR_RUNS)]
    return min(runs, key=lambda run: run.cpu)


def every_command_rows(
    agent: str,
    path: str,
    size: str,
    env: dict[str, str],
    scratch: Path,
    floor: Run,
    measured: tuple[str, ...] = (),
    destinations: tuple[str, ...] = DESTINATIONS,
) -> list[Any]:
    """`smig show` (table and JSON), `migrate` to each of `destinations` and `export` in every format on one
    session, each with its wall time, CPU, peak RSS and CPU over the parse floor's; goals: 400 MB and 3x the
    floor. `measured`: rows another row already has (`show`, `migrate:codex`, `export:markdown`). Where
    aichat is installed, the OpenAI export runs beside aichat printing the same messages (`aichat_run`)."""
    from smig_devtools.bench import Row

    rows: list[Any] = []

    def row(name: str, run: Run, note: str = "", peer: str = "") -> None:
        ratio = run.cpu / max(floor.cpu, 1e-9)
        rows.append(
            Row(
                f"{name}, {size}",
                run.seconds,
                "s",
                f"<= {RSS_GOAL:.0f} MB, CPU <= {FLOOR_GOAL:g}x floor",
                run.rss_mb <= RSS_GOAL and ratio <= FLOOR_GOAL,
                f"CPU {run.cpu:.1f} s{note}",
                ratio,
                run.rss_mb,
                peer,
            )
        )

    def failed(name: str, error: Exception) -> None:
        rows.append(Row(f"{name}, {size}", None, "s", "", None, f"failed: {error}"[:200]))

    if "show" not in measured:
        row("smig show (table)", run_smig(["show", path], env, None))
        row("smig show --json", run_smig(["show", path, "--json"], env, None))
    for destination in destinations:
        if f"migrate:{destination}" in measured or destination == agent:
            continue  # into its own agent would write into the corpus's home (not measured here)
        name = f"smig migrate {agent} -> {destination}"
        cwd = scratch / f"cwd-{destination}"
        cwd.mkdir(exist_ok=True)
        target = TARGETS.get(destination, "claude-sonnet-5-5")
        argv = ["migrate", path, "--target", target, "--to", destination, "--cwd", str(cwd)]
        client = _client(destination)
        if client is None:
            rows.append(Row(f"{name}, {size}", None, "s", "", None, _no_client(destination)))
            continue
        where = env | _scratch_home(scratch, destination) | client
        try:
            if not client:
                row(name, run_smig(argv, where, scratch / "out", PEER_TIMEOUT))
                continue
            rows.append(client_written_row(f"{name}, {size}", destination, argv, where, scratch, floor))
        except RuntimeError as error:
            failed(name, error)
    aichat = find_peer("aichat")
    for fmt in EXPORT_FORMATS:
        if f"export:{fmt}" in measured:
            continue
        out = scratch / f"export.{fmt}"
        name = f"smig export --format {fmt}"
        try:
            run = run_smig(["export", path, "--format", fmt, "--out", str(out)], env, scratch / "out")
        except RuntimeError as error:
            failed(name, error)
            continue
        written = f"; {out.stat().st_size / MB:,.1f} MB written"
        peer = ""
        if fmt == "openai" and aichat:
            peer_run = aichat_run(aichat, out, env, scratch)
            peer = f"{run.cpu / max(peer_run.cpu, 1e-9):.2f}x aichat"
            written += (
                f"; aichat --session --info on the same messages: {peer_run.seconds:.2f} s, CPU {peer_run.cpu:.1f} s,"
                f" peak RSS {peer_run.rss_mb:,.0f} MB"
            )
        row(name, run, written, peer)
        out.unlink()
    return rows


def client_written_row(
    name: str, destination: str, argv: list[str], env: dict[str, str], scratch: Path, floor: Run
) -> Any:
    """A migration into an agent whose own client writes it (`opencode import`): the whole run's peak and
    CPU (the client's included) and smig's own (`own_usage`), judged on smig's own, beside what the client
    takes to import an empty session (`client_floor`), which no migration can go below."""
    from smig_devtools.bench import Row
    from smig_devtools.own_usage import OWN_USAGE

    own_file = scratch / "own-usage"
    own_file.unlink(missing_ok=True)
    argv = [sys.executable, "-m", "smig_devtools.own_usage", *argv]
    whole = run_process(argv, env | {OWN_USAGE: str(own_file)}, scratch / "out", PEER_TIMEOUT)
    own_mb, own_cpu = (float(value) for value in own_file.read_text(encoding="ascii").split())
    empty = client_floor(destination, env, scratch)
    ratio = own_cpu / max(floor.cpu, 1e-9)
    return Row(
        name,
        whole.seconds,
        "s",
        f"<= {RSS_GOAL:.0f} MB, CPU <= {FLOOR_GOAL:g}x floor (smig's own)",
        own_mb <= RSS_GOAL and ratio <= FLOOR_GOAL,
        f"smig's own process: peak RSS {own_mb:,.0f} MB, CPU {own_cpu:.1f} s; with `{destination} import`:"
        f" peak RSS {whole.rss_mb:,.0f} MB, CPU {whole.cpu:.1f} s; `{destination} import` of an empty session"
        f" alone: peak RSS {empty.rss_mb:,.0f} MB, CPU {empty.cpu:.1f} s",
        ratio,
        whole.rss_mb,
    )


def client_floor(destination: str, env: dict[str, str], scratch: Path) -> Run:
    """`DESTINATION import` of a session with no messages into a scratch database: the client's own cost,
    which every migration into it pays whatever smig does."""
    binary = env[f"SMIG_{destination.upper()}_BIN"]
    home = scratch / f"empty-{destination}"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    document = home / "empty.json"
    stamp = int(time.time() * 1000)
    info: dict[str, object] = {"id": f"ses_{stamp:012x}emptyfloor000000", "slug": "empty", "projectID": "global"}
    info |= {"directory": str(home), "title": "empty", "version": "1", "time": {"created": stamp, "updated": stamp}}
    document.write_text(json.dumps({"info": info, "messages": []}), encoding="utf-8")
    where = env | {HOMES[destination]: str(home / f"{destination}.db"), "HOME": str(home)}
    return run_process([binary, "import", str(document)], where, None, PEER_TIMEOUT)


CLIENT_WRITTEN = ("opencode", "kilo")
"""Destinations whose database only their own client writes: smig has `opencode import` (`kilo import`)
write the migrated session, so those rows need the client (the pinned ones of `tests/e2e`)."""
CLIENT_FOLDERS = ("SMIG_E2E_BIN", "SMIG_E2E_NEW_BIN")


def _client(destination: str) -> dict[str, str] | None:
    """The environment naming the client a migration into `destination` runs (`SMIG_OPENCODE_BIN`), `{}`
    when it runs none, None when it needs one that is not installed (on PATH, `$SMIG_<CLIENT>_BIN`, or the
    pinned clients' folders `$SMIG_E2E_BIN`, `$SMIG_E2E_NEW_BIN`)."""
    if destination not in CLIENT_WRITTEN:
        return {}
    variable = f"SMIG_{destination.upper()}_BIN"
    folders = [os.environ.get(name) for name in (*CLIENT_FOLDERS, "PATH")]
    found = os.environ.get(variable) or shutil.which(destination, path=os.pathsep.join(filter(None, folders)))
    return {variable: found} if found else None


def _no_client(destination: str) -> str:
    """Why a migration into `destination` was not measured."""
    return (
        f"skipped: smig writes it with `{destination} import`, and `{destination}` is not installed (on PATH,"
        f" in $SMIG_{destination.upper()}_BIN, $SMIG_E2E_BIN or $SMIG_E2E_NEW_BIN)"
    )


def _scratch_home(scratch: Path, destination: str) -> dict[str, str]:
    """The environment that sends a migration's native session into a scratch home of `destination`."""
    if destination not in HOMES:
        return {}  # Aider writes its history into the project folder (`--cwd`)
    home = scratch / f"to-{destination}"
    home.mkdir(exist_ok=True)
    where = home / f"{destination}.db" if destination in ("opencode", "kilo") else home
    return {HOMES[destination]: str(where)}


def megabytes(size: int) -> str:
    """A size in MB as a row names it: whole above 10 MB, one decimal below (a tiny corpus's)."""
    return f"{size / MB:,.0f}" if size >= 10 * MB else f"{size / MB:.1f}"


def floor_row(size: str, floor: Run, note: str = "") -> Any:
    """The parse floor itself, the figure every `CPU / floor` divides by."""
    from smig_devtools.bench import Row
    from smig_devtools.floor import PARSER

    return Row(
        f"parse floor ({PARSER}, every record), {size}",
        floor.seconds,
        "s",
        "(reference)",
        None,
        f"CPU {floor.cpu:.2f} s, the least of {FLOOR_RUNS} runs{note}",
        1.0,
        floor.rss_mb,
    )


def _rows_for(workdir: Path, entry: Any) -> list[Any]:
    """The rows of one huge session."""
    from smig_devtools.bench import Row, _reset, corpus_env

    scratch = workdir / "smig-commands"
    _reset(scratch)
    for folder in ("smig", "codex", "claude", "cwd"):
        (scratch / folder).mkdir()
    env = corpus_env(workdir, scratch / "smig")
    env.pop("PYTHONUNBUFFERED", None)  # the buffered baseline; one row sets it
    target = TARGETS[entry.agent]
    size = f"{megabytes(entry.size)} MB {entry.agent}"
    out = scratch / "stdout"
    plan = ["plan", entry.path, "--target", target]
    floor = floor_run(entry.path, env)
    as_json = run_smig([*plan, "--json"], env, None)
    table = run_smig(plan, env, None)
    unbuffered = run_smig([*plan, "--json"], env | {"PYTHONUNBUFFERED": "1"}, None)
    other = "codex" if entry.agent == "claude" else "claude"
    homes = {"codex": "CODEX_HOME", "claude": "CLAUDE_CONFIG_DIR"}
    migrate_env = env | {homes[other]: str(scratch / other)}
    migrate = run_smig(
        ["migrate", entry.path, "--target", TARGETS[other], "--to", other, "--cwd", str(scratch / "cwd")],
        migrate_env,
        out,
    )
    export = run_smig(["export", entry.path, "--format", "markdown", "--out", str(scratch / "export.md")], env, out)
    exported = (scratch / "export.md").stat().st_size / MB
    every = every_command_rows(
        entry.agent, entry.path, size, env, scratch, floor, (f"migrate:{other}", "export:markdown")
    )
    shutil.rmtree(scratch)

    def facts(run: Run) -> str:
        return f"CPU {run.cpu:.1f} s, peak RSS {run.rss_mb:,.0f} MB"

    # The ratios compare CPU time (user + system, so write() calls count): on a machine shared with
    # other work, wall clock swings more than the difference being measured.
    table_ratio = table.cpu / as_json.cpu
    unbuffered_ratio = unbuffered.cpu / as_json.cpu
    return [
        floor_row(size, floor),
        Row(
            f"smig plan --json, {size}",
            as_json.seconds,
            "s",
            f"<= {RSS_GOAL:.0f} MB, CPU <= {FLOOR_GOAL:g}x floor",
            as_json.rss_mb <= RSS_GOAL and as_json.cpu / floor.cpu <= FLOOR_GOAL,
            facts(as_json),
            as_json.cpu / max(floor.cpu, 1e-9),
            as_json.rss_mb,
        ),
        Row(
            f"smig plan (table), {size}",
            table_ratio,
            "x --json",
            f"<= {TABLE_OVER_JSON}x (CPU)",
            table_ratio <= TABLE_OVER_JSON,
            f"table {table.seconds:.2f} s, {facts(table)}; --json {as_json.seconds:.2f} s, {facts(as_json)}",
            table.cpu / max(floor.cpu, 1e-9),
            table.rss_mb,
        ),
        Row(
            f"smig plan --json, PYTHONUNBUFFERED=1, {size}",
            unbuffered_ratio,
            "x buffered",
            f"write() calls <= {UNBUFFERED_WRITES}x buffered",
            _within(unbuffered, as_json),
            f"{unbuffered.seconds:.2f} s, {facts(unbuffered)}; write() calls {_count(unbuffered.writes)} "
            f"(buffered {_count(as_json.writes)})",
            unbuffered.cpu / max(floor.cpu, 1e-9),
            unbuffered.rss_mb,
        ),
        Row(
            f"smig migrate {entry.agent} -> {other}, {size}",
            migrate.seconds,
            "s",
            f"<= {MIGRATE_GOAL:.0f} s",
            migrate.seconds <= MIGRATE_GOAL,
            facts(migrate),
            migrate.cpu / max(floor.cpu, 1e-9),
            migrate.rss_mb,
        ),
        Row(
            f"smig export to Markdown, {size}",
            export.seconds,
            "s",
            f"<= {EXPORT_GOAL:.0f} s, <= {EXPORT_RSS_GOAL:.0f} MB",
            export.seconds <= EXPORT_GOAL and export.rss_mb <= EXPORT_RSS_GOAL,
            f"{facts(export)}; {exported:,.1f} MB written",
            export.cpu / max(floor.cpu, 1e-9),
            export.rss_mb,
        ),
        *every,
    ]


def _count(number: int | None) -> str:
    """A count for a note, or "unknown"."""
    return "unknown" if number is None else f"{number:,}"


def _within(unbuffered: Run, buffered: Run) -> bool:
    """Whether unbuffered output stayed within `UNBUFFERED_WRITES` times the buffered write() calls
    (where /proc does not count them, within 10% of its CPU time)."""
    if unbuffered.writes is None or buffered.writes is None:
        return unbuffered.cpu <= 1.1 * buffered.cpu
    return unbuffered.writes <= UNBUFFERED_WRITES * max(buffered.writes, 1)


PEERS_ENV = "SMIG_BENCH_PEERS"
"""A folder holding peers' executables (an npm prefix's `node_modules/.bin`), searched before PATH."""
PEER_TIMEOUT = 600.0
PEERS = {
    "ccusage": "a Node package: `npm install --prefix DIR --include=optional ccusage@20.0.24`, then"
    " SMIG_BENCH_PEERS=DIR/node_modules/.bin",
    "aichat": "a Rust binary: `cargo install aichat`, or a release binary of github.com/sigoden/aichat on PATH",
}
"""The peers the benchmark runs beside smig where installed, and how to install each."""


def find_peer(name: str) -> str | None:
    """The peer's executable, from `$SMIG_BENCH_PEERS` then PATH, or None when it is not installed."""
    return shutil.which(name, path=os.pathsep.join(filter(None, (os.environ.get(PEERS_ENV), os.environ.get("PATH")))))


def aichat_run(aichat: str, messages: Path, env: dict[str, str], scratch: Path) -> Run:
    """aichat printing the same conversation: the messages of `smig export --format openai` ported to an
    aichat session (its YAML; not measured), then `aichat --session NAME --info`, which loads it, counts its
    tokens and prints it whole, measured as a smig command is."""
    from smig_devtools.bench import in_child

    port = scratch / "aichat"
    (port / "sessions").mkdir(parents=True, exist_ok=True)
    (port / "config.yaml").write_text("model: openai:gpt-4o\nclients:\n- type: openai\n  api_key: sk-bench\n")
    in_child(port_to_aichat, str(messages), str(port / "sessions" / "smig-port.yaml"))
    peer_env = env | {"AICHAT_CONFIG_DIR": str(port)}
    return run_process([aichat, "--session", "smig-port", "--info"], peer_env, None, PEER_TIMEOUT)


def port_to_aichat(openai_export: str, session_file: str) -> int:
    """Write smig's OpenAI export as an aichat session (YAML; JSON is YAML too): one text message per
    message, tool calls and results as text, as aichat keeps a conversation. Returns how many."""
    with open(openai_export, encoding="utf-8") as handle:
        exported = json.load(handle)
    source = exported.get("messages", []) if isinstance(exported, dict) else exported
    messages = []
    for message in source:
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        text = content if isinstance(content, str) else ""
        if message.get("tool_calls"):
            text += json.dumps(message["tool_calls"])
        role = message.get("role")
        messages.append({"role": role if role in ("system", "user", "assistant") else "user", "content": text})
    with open(session_file, "w", encoding="utf-8") as handle:
        # UTF-8 as it is: YAML reads JSON escapes, but not the surrogate pairs json writes for astral characters
        json.dump({"model": "openai:gpt-4o", "messages": messages}, handle, ensure_ascii=False)
    return len(messages)


def peer_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """Peers run on the same corpus in the same run, where installed; a row says so when one is not (and
    its column is left out): ccusage's per-session report beside `smig list --limit 0` with empty smig
    caches, both reading every Codex rollout and Claude transcript; aichat beside `smig export --format
    openai` on each big session (in those rows, `every_command_rows`)."""
    from smig_devtools.bench import Row, _reset, corpus_env

    rows = [
        Row(
            f"peer: {name}",
            None,
            "",
            "",
            None,
            f"{name} is not installed (on PATH or in ${PEERS_ENV}): its column is skipped; {how}",
        )
        for name, how in PEERS.items()
        if find_peer(name) is None
    ]
    found = find_peer("ccusage")
    if found is None:
        return rows
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    home = workdir / "smig-peers"
    _reset(home)
    env = corpus_env(workdir, home)
    peer = run_process([found, "session", "--json", "--offline"], env, None, PEER_TIMEOUT)
    smig = run_smig(["list", "--limit", "0"], env, None, PEER_TIMEOUT)
    ratio = smig.cpu / max(peer.cpu, 1e-9)
    return [
        *rows,
        Row(
            "smig list --limit 0, empty caches (ccusage: session --offline)",
            smig.seconds,
            "s",
            "CPU < 1x ccusage",
            smig.cpu < peer.cpu,
            f"CPU {smig.cpu:.2f} s; {version or 'ccusage'}: {peer.seconds:.2f} s, CPU {peer.cpu:.2f} s, "
            f"peak RSS {peer.rss_mb:,.0f} MB; {len(manifest.sessions):,} session files",
            rss=smig.rss_mb,
            peer=f"{ratio:.2f}x ccusage",
        ),
    ]

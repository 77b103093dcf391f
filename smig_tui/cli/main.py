"""Provides `smig`: argument parsing, dispatch to command modules, and the one map of errors to exit codes.

Exit codes: 0 ok; 1 error; 2 bad usage; 3 not found (session, model, migration); 4 write refused;
5 locked by another smig; 6 summarizer provider failed; 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from smig_tui import __version__
from smig_tui.cli.output import Output
from smig_tui.core.errors import SmigError
from smig_tui.plugins import agent_names, agent_profiles
from smig_tui.services import freeze_for_exit, no_cyclic_gc

if TYPE_CHECKING:  # imported on first use: `smig search` starts no client
    from smig_tui.services import Services, client_launch

COMMANDS = {
    "list": "smig_tui.cli.sessions",
    "show": "smig_tui.cli.sessions",
    "plan": "smig_tui.cli.plan",
    "models": "smig_tui.cli.models",
    "migrate": "smig_tui.cli.migrate",
    "export": "smig_tui.cli.migrate",
    "history": "smig_tui.cli.migrate",
    "summarize": "smig_tui.cli.summarize",
    "memory": "smig_tui.cli.memory",
    "mcp": "smig_tui.cli.mcp_cmd",
    "search": "smig_tui.cli.search",
    "archive": "smig_tui.cli.archive",
    "doctor": "smig_tui.cli.doctor",
}
"""Which module registers each command; each has `register(subparsers)` and sets `handler(args, ctx) -> int`."""
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))


@dataclass
class Context:
    """What a command handler gets: output streams and services built on first use."""

    out: Output = field(default_factory=Output)
    continue_with: client_launch.Launch | None = None
    """A client a command asked to start once smig is done ("continue now")."""
    launcher: Callable[[client_launch.Launch], object] | None = None
    """Starts it in smig's place (None: exec, `client_launch.start`); tests pass a fake."""
    ends_process: bool = False
    """The process ends with the command (the `smig` command, `python -m smig_tui`; not a test's run in
    its own process): what a one-session command leaves alive is kept out of the collector's last passes."""

    @cached_property
    def services(self) -> Services:
        """The composition root, built once."""
        from smig_tui.services import build_services

        return build_services()


_PARSERS: dict[tuple[str, ...], tuple[object, argparse.ArgumentParser]] = {}
"""The parsers built in this process, by command modules, with the agents they were built for."""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser: only the named command's module when `argv` names one, else all of them.

    Importing every command's dependencies would double the start-up time of `smig list`. A process
    that runs several commands (the tests, about 2 ms a parser, most of it argparse looking up
    translations) builds a parser once for the agents installed: parsing never changes a parser, and nothing
    in one depends on the environment (the config file's path in `models --help` is found when shown).
    """
    modules = _modules_for(argv)
    agents = agent_profiles()
    built = _PARSERS.get(modules)
    if built is None or built[0] is not agents:
        built = _PARSERS[modules] = (agents, _new_parser(modules))
    return built[1]


def _new_parser(modules: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="smig",
        description=f"Hand a {agent_names('or')} conversation to another agent and model. With no command, opens the TUI.",
    )
    parser.add_argument("--version", action="version", version=f"smig {__version__}")
    # `prog` as argparse would work it out (no argument comes before the command), without the help
    # formatter it builds for that, which imports shutil: a few ms of every start.
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", prog=parser.prog)
    tui = subparsers.add_parser("tui", help="open the full-screen TUI (the default)")
    tui.set_defaults(handler=run_tui)
    for name in modules:
        importlib.import_module(name).register(subparsers)
    return parser


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """Parse `argv`; an unknown option is reported with the usage of the command it was given to.

    argparse leaves a subcommand's unknown options to the top-level parser, whose usage line then
    lists every command instead of the options the user was looking for.
    """
    parser = build_parser(argv)
    args, extras = parser.parse_known_args(argv)
    if extras:
        _innermost(parser, args).error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def _innermost(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)command parser that `args` was parsed by: `smig history show` gives history's `show`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = getattr(args, action.dest, None)
            if chosen in action.choices:
                return _innermost(action.choices[chosen], args)
    return parser


def _modules_for(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The command modules needed to parse `argv`: the command's own, or all for help and errors."""
    words = [word for word in (argv or ()) if not word.startswith("-")]
    if words and words[0] in COMMANDS:
        return (COMMANDS[words[0]],)
    return COMMAND_MODULES


def run_tui(args: argparse.Namespace, ctx: Context) -> int:
    """Open the TUI; Textual is imported only here so headless commands never load it."""
    with no_cyclic_gc():  # start-up: Textual's and the screens' modules all stay (~15 ms of collections)
        from smig_tui.tui.app import SmigApp

        app = SmigApp(services=ctx.services)
    launch = app.run()
    if app.crash_line:
        ctx.out.error(app.crash_line)
        return 1
    if launch is not None:  # "continue now": Textual has given the terminal back; `main` starts it last
        ctx.out.diag(f"smig: starting {launch.client}: {launch.command}")
        ctx.continue_with = launch
    return 0


def entry() -> int:
    """The `smig` command and `python -m smig_tui`: `main` in a process that ends with it."""
    return main(ctx=Context(ends_process=True))


def main(argv: Sequence[str] | None = None, ctx: Context | None = None) -> int:
    """Run smig with `argv` and return the exit code; a client asked for with "continue now" is
    started last, in smig's place, once the command's output and the terminal are done with."""
    ctx = ctx or Context()
    code = _run(argv, ctx)
    if code != 0 or ctx.continue_with is None:
        return code
    from smig_tui.services import client_launch

    try:
        (ctx.launcher or client_launch.start)(ctx.continue_with)
    except client_launch.ContinueRefused as refused:
        return not_continued(ctx, refused)
    return 0


def not_continued(ctx: Context, refused: client_launch.ContinueRefused) -> int:
    """Why the client was not started, and the command to run later; exit 0, for the migration is written."""
    ctx.out.diag(f"smig: {refused.reason}. Continue later with:")
    ctx.out.data(f"  {refused.command}")
    return 0


ONE_SESSION_COMMANDS = frozenset({"show", "plan", "migrate", "export"})
"""Commands that read one session whole and end: the cyclic collector stays off until they are done.

The readers and the planner pause it while they build (`gc_pause`), but when each pause ends the
next allocations start collections that walk the whole session's objects, and a 500 MB session's
`show`, `plan` or `migrate` then spent 0.2-0.4 s in them for nothing: what those objects are stays
alive until the command returns, and they form no cycles. In a process that ends with the command
(`Context.ends_process`), they are then frozen out of the passes that would follow. The TUI lives
on, and freezes what it reads (`session_loader.keep_out_of_gc`); the MCP server pauses it per
request (`mcp/server.py`)."""


def _run(argv: Sequence[str] | None, ctx: Context) -> int:
    """Parse `argv`, run its command, and map errors to one line and an exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    with no_cyclic_gc():  # start-up: imports and the parser make objects that all stay (about 4 ms of collections)
        args = parse(argv)
    handler = getattr(args, "handler", run_tui)
    if ctx.out.first_time is None:  # a skipped file's warning is shown once per version of the file
        ctx.out.first_time = lambda warning: ctx.services.warned_files.first_time(warning)
    try:
        if getattr(args, "command", None) in ONE_SESSION_COMMANDS:
            with no_cyclic_gc():  # the session's objects stay until the command ends: no collection to walk them
                code = int(handler(args, ctx))
                if ctx.ends_process:
                    freeze_for_exit()  # nor after it (0.2 s on a 500 MB session), nor at exit
        else:
            code = int(handler(args, ctx))
        if code == 0 and getattr(args, "command", None) not in (None, "tui", "mcp", "archive"):
            from smig_tui.cli.auto_archive import auto_archive  # `[archive] auto = true` (issue 20)

            auto_archive(args.command, ctx.services, ctx.out)
        return code
    except SmigError as error:
        ctx.out.error(str(error))
        return error.exit_code
    except KeyboardInterrupt:
        ctx.out.error("interrupted")
        return 130
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`): nothing left to say
        return 0
    except Exception as error:  # the last resort: one line, and a log file for anything unforeseen
        from smig_tui.services import describe_failure

        ctx.out.error(describe_failure(error, f"smig {args.command or 'tui'}"))
        return 1
    finally:
        ctx.out.finish()
        services = ctx.__dict__.get("services")
        if services is not None and "warned_files" in services.__dict__:
            services.warned_files.save()

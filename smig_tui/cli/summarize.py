"""Provides `smig summarize`: stream an LLM handoff summary (running it is the opt-in to send)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from smig_tui.cli.table import SESSION_HELP
from smig_tui.core.errors import NoApiKeyError, SummaryConsentError
from smig_tui.core.models import Message, Plan, Session, Strategy
from smig_tui.core.summary import describe_redactions
from smig_tui.core.words import plural
from smig_tui.services import json_shapes

if TYPE_CHECKING:
    from smig_tui.cli.main import Context
    from smig_tui.core.summary import SummaryResult


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `summarize` to the CLI."""
    parser = subparsers.add_parser(
        "summarize",
        help="write a handoff summary with an LLM (sends the redacted conversation)",
        description="Stream a structured handoff summary to stdout. Running this command is the "
        "consent to send the session, with secrets redacted, to the configured provider; a cached "
        "summary of the same content is reused without sending anything.",
    )
    parser.add_argument("id", help=SESSION_HELP)
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--target-chars", type=int, metavar="N", help="summary length in characters (default 6000)")
    length.add_argument("--target-tokens", type=int, metavar="N", help="summary length as a token budget")
    parser.add_argument("--model", metavar="M", help="summarizer model (overrides [summarizer] model)")
    parser.add_argument("--provider", metavar="P", help="openai, deepseek, local, or a custom name with --base-url")
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1",
    )
    parser.add_argument(
        "--head-of-plan",
        metavar="TARGET",
        help="summarise only the head a summary-tail plan for TARGET drops, within its budget",
    )
    parser.add_argument("--dry-run", action="store_true", help="say what would be sent, send nothing")
    parser.add_argument("--no-cache", action="store_true", help="write a fresh summary even when one is cached")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of streaming")
    parser.set_defaults(handler=run_summarize)


def run_summarize(args: argparse.Namespace, ctx: Context) -> int:
    """Stream the summary to stdout; provider, redactions and progress go to stderr."""
    for flag in ("target_chars", "target_tokens"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            ctx.out.error(f"--{flag.replace('_', '-')} must be a positive number.")
            return 2
    info = ctx.services.find_session(args.id, warn=ctx.out.warn)
    session = ctx.services.load_session(info, warn=ctx.out.warn)
    messages, target_tokens = _selection(args, ctx, session)
    if not messages:
        ctx.out.diag(f"smig: session {session.id} fits {args.head_of_plan} as it is; nothing to summarise")
        return 0
    summarizer = ctx.services.summarizer_for(args.provider, args.model, args.base_url)
    options: dict[str, Any] = {
        "target_chars": args.target_chars,
        "target_tokens": args.target_tokens or target_tokens,
        "head_only": args.head_of_plan is not None,
        "summarizer": summarizer,
    }
    preview = ctx.services.summary_preview(messages, use_cache=not args.no_cache, **options)
    if args.dry_run:
        ctx.out.data(preview.describe())
        if preview.problem:
            ctx.out.diag(f"smig: {preview.problem}")
        return 0
    if preview.problem:
        raise NoApiKeyError(preview.problem)
    ctx.out.diag(f"smig: {preview.describe(verb='sending')}")
    result = _run(ctx, messages, options, stream=not args.json, fresh=args.no_cache)
    if args.json:
        ctx.out.json(json_shapes.summary_json(result))
    _report(ctx, result)
    return 0


def _selection(args: argparse.Namespace, ctx: Context, session: Session) -> tuple[Sequence[Message], int | None]:
    """The messages to summarise (all, or a plan's dropped head) and the plan's summary budget."""
    if not args.head_of_plan:
        return session.messages, None
    plan = ctx.services.plan(session, args.head_of_plan, Strategy.SUMMARY_TAIL)
    ctx.out.diag(
        f"smig: summary-tail plan for {args.head_of_plan}: {plural(len(plan.dropped), 'head message')} "
        f"to summarise within {plural(plan.summary_budget, 'token')}, {len(plan.kept):,} kept verbatim"
    )
    return [item.message for item in plan.dropped], plan.summary_budget


def _run(
    ctx: Context, messages: Sequence[Message], options: dict[str, Any], *, stream: bool, fresh: bool
) -> SummaryResult:
    """Write the summary, streaming deltas to stdout as they arrive."""
    ended = ["\n"]

    def on_delta(piece: str) -> None:
        ctx.out.stdout.write(piece)
        ctx.out.stdout.flush()
        ended[0] = piece[-1:] or ended[0]

    def on_progress(step: str) -> None:
        ctx.out.diag(f"smig: {step}")

    result = ctx.services.summarize(
        messages,
        on_delta=on_delta if stream else None,
        on_progress=on_progress,
        allow_network=True,
        use_cache=not fresh,
        **options,
    )
    if stream and ended[0] != "\n":
        ctx.out.stdout.write("\n")
        ctx.out.stdout.flush()
    return result


def _report(ctx: Context, result: SummaryResult) -> None:
    """Say on stderr who wrote the summary and what it took."""
    how = "from the cache, nothing sent" if result.cached else plural(result.requests, "request")
    cut = "; a reply may be incomplete (output cap reached or stream ended early)" if result.truncated else ""
    ctx.out.diag(
        f"smig: summary by {result.provider}/{result.model}: {plural(len(result.text), 'character')}, "
        f"{plural(result.chunks, 'part')}, {how}; {describe_redactions(result.redactions)}{cut}"
    )


def summarized_plan(
    ctx: Context,
    session: Session,
    target: str,
    strategy: Strategy,
    *,
    yes_send: bool,
    pending_ok: bool = False,
    **plan_options: Any,
) -> Plan:
    """Plan a summary strategy with its summary written (sent only with `--yes-send`, else cached).

    Without consent and without a cached summary, `pending_ok` returns the plan with the summary
    pending (for `smig plan`); otherwise SummaryConsentError says what would be sent and nothing is.
    """

    def on_progress(step: str) -> None:
        ctx.out.diag(f"smig: {step}")

    try:
        plan, result = ctx.services.plan_with_summary(
            session,
            target,
            strategy,
            allow_network=yes_send,
            on_progress=on_progress,
            **plan_options,
        )
    except SummaryConsentError as error:
        # No cached summary: one must be sent for. Without a key it cannot be, whatever the consent,
        # so that is what to say first.
        problem = ctx.services.summary_key_problem()
        if not pending_ok:
            if problem:
                raise NoApiKeyError(problem) from None
            raise
        ctx.out.diag(f"smig: summary not written. {problem or error}")
        return ctx.services.plan(session, target, strategy, **plan_options)
    if result is not None:
        _report(ctx, result)
    return plan

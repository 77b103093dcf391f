"""Provides the turn templates of each agent's format (FORMATS.md Parts 1 and 2), built from a seed."""

from __future__ import annotations

import json
import random

from smig_devtools import corpus_text as text
from smig_devtools.templates import Record, Template, command, slot, tool_output

T = slot("T")


def codex_event(payload: Record) -> Record:
    """Wrap an event_msg payload in the rollout envelope."""
    return {"timestamp": T, "type": "event_msg", "payload": payload}


def codex_item(payload: Record) -> Record:
    """Wrap a response_item payload in the rollout envelope."""
    return {"timestamp": T, "type": "response_item", "payload": payload}


def codex_message(role: str, body: str, phase: str | None = None) -> Record:
    """Return a response_item message (input_text for user/developer, output_text for assistant)."""
    kind = "output_text" if role == "assistant" else "input_text"
    payload: Record = {"type": "message", "role": role, "content": [{"type": kind, "text": body}]}
    if phase:
        payload["phase"] = phase
    return codex_item(payload)


def codex_token_count() -> Record:
    """Return a token_count event whose figures are filled per repeat."""
    last = {
        "input_tokens": slot("NCTX"),
        "cached_input_tokens": 0,
        "output_tokens": 212,
        "reasoning_output_tokens": 64,
        "total_tokens": slot("NCTX"),
    }
    total = {**last, "input_tokens": slot("NTOT"), "total_tokens": slot("NTOT")}
    info = {"total_token_usage": total, "last_token_usage": last, "model_context_window": 258400}
    return codex_event({"type": "token_count", "info": info, "rate_limits": None})


def codex_turn_context() -> Record:
    """Return a turn_context line with the session's cwd and model."""
    sandbox = {
        "type": "workspace-write",
        "network_access": False,
        "exclude_tmpdir_env_var": False,
        "exclude_slash_tmp": False,
    }
    return {
        "timestamp": T,
        "type": "turn_context",
        "payload": {
            "cwd": slot("CWD"),
            "approval_policy": "on-request",
            "sandbox_policy": sandbox,
            "model": slot("MODEL"),
            "effort": "medium",
            "summary": "auto",
        },
    }


def codex_tool_loop(rng: random.Random, call: int) -> list[Record]:
    """Return one exec_command call with its output (and the persisted exec_command_end event)."""
    cmd, output = command(rng), tool_output(rng)
    code = 0 if rng.random() < 0.9 else 1
    args = json.dumps({"cmd": cmd, "workdir": slot("CWD"), "yield_time_ms": 10000})
    end = {
        "type": "exec_command_end",
        "call_id": slot("C", call),
        "turn_id": slot("TURN"),
        "command": ["/bin/bash", "-lc", cmd],
        "cwd": slot("CWD"),
        "stdout": "",
        "stderr": "",
        "aggregated_output": output[:6000],
        "exit_code": code,
        "duration": {"secs": 0, "nanos": rng.randint(1, 10**9 - 1)},
        "formatted_output": "",
        "status": "completed",
    }
    header = (
        f"Chunk ID: {slot('K', call)}\nWall time: {rng.random():.4f} seconds\n"
        f"Process exited with code {code}\nOriginal token count: {len(output) // 4}\nOutput:\n"
    )
    return [
        codex_item(
            {
                "type": "reasoning",
                "summary": [],
                "content": None,
                "encrypted_content": text.opaque(rng, rng.randint(600, 3000)),
            }
        ),
        codex_item(
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": args,
                "call_id": slot("C", call),
            }
        ),
        codex_token_count(),
        codex_event(end),
        codex_item({"type": "function_call_output", "call_id": slot("C", call), "output": header + output}),
    ]


def codex_patch(rng: random.Random, call: int) -> list[Record]:
    """Return an apply_patch custom_tool_call and its output."""
    target = text.path(rng)
    result = json.dumps(
        {
            "output": f"Success. Updated the following files:\nM {target}\n",
            "metadata": {"exit_code": 0, "duration_seconds": 0.0},
        }
    )
    return [
        codex_item(
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": slot("C", call),
                "name": "apply_patch",
                "input": text.patch(rng, rng.randint(4, 80)),
            }
        ),
        codex_item({"type": "custom_tool_call_output", "call_id": slot("C", call), "output": result}),
    ]


def codex_turn(rng: random.Random) -> Template:
    """Return one Codex turn: prompt, reasoning, tool loops, patch, answer, usage, completion."""
    prompt = text.prose(rng, rng.randint(1, 5))
    records: list[Record] = [
        codex_event(
            {
                "type": "task_started",
                "turn_id": slot("TURN"),
                "model_context_window": 258400,
                "collaboration_mode_kind": "default",
            }
        ),
        codex_turn_context(),
        codex_message("user", prompt),
        codex_event({"type": "user_message", "message": prompt, "local_images": [], "text_elements": []}),
    ]
    calls = rng.choice((0, 1, 1, 2, 3, 4, 6))
    for call in range(calls):
        records += codex_tool_loop(rng, call)
    if rng.random() < 0.3:
        records += codex_patch(rng, calls)
    answer = text.prose(rng, rng.randint(2, 12))
    records += [
        codex_message("assistant", answer, "final_answer"),
        codex_event({"type": "agent_message", "message": answer, "phase": "final_answer"}),
        codex_token_count(),
        codex_event({"type": "task_complete", "turn_id": slot("TURN"), "last_agent_message": answer[:200]}),
    ]
    return Template.build(records)


def codex_compaction(rng: random.Random) -> Template:
    """Return a compacted line with replacement_history, then context_compacted and turn_context."""
    history = [
        codex_message("user", text.prose(rng, 2))["payload"],
        codex_message("assistant", text.prose(rng, 6), "final_answer")["payload"],
    ]
    records = [
        {
            "timestamp": T,
            "type": "compacted",
            "payload": {"message": text.prose(rng, 8), "replacement_history": history},
        },
        codex_event({"type": "context_compacted"}),
        codex_turn_context(),
    ]
    return Template.build(records)


def claude_envelope(kind: str, uuid: int, parent: int | None, sidechain: bool) -> Record:
    """Return the fields every Claude conversation record carries (parent None = chain parent)."""
    record: Record = {
        "parentUuid": slot("NPREV") if parent is None else slot("U", parent),
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": slot("CWD"),
        "sessionId": slot("SID"),
        "version": slot("VER"),
        "gitBranch": "main",
        "type": kind,
    }
    if sidechain:
        record["agentId"] = slot("AGENT")
    record["uuid"] = slot("U", uuid)
    record["timestamp"] = T
    return record


def claude_usage() -> Record:
    """Return assistant usage whose cache-read share is filled per repeat."""
    return {
        "input_tokens": 3,
        "cache_creation_input_tokens": 410,
        "cache_read_input_tokens": slot("NCTX"),
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 410},
        "output_tokens": 187,
        "service_tier": "standard",
        "inference_geo": "not_available",
    }


def claude_assistant(uuid: int, parent: int | None, msg: int, block: Record, sidechain: bool) -> Record:
    """Return one split assistant record (one content block of response `msg`)."""
    record = claude_envelope("assistant", uuid, parent, sidechain)
    record["message"] = {
        "model": slot("MODEL"),
        "id": slot("M", msg),
        "type": "message",
        "role": "assistant",
        "content": [block],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": claude_usage(),
    }
    record["requestId"] = slot("R", msg)
    return record


def claude_progress(uuid: int, parent: int, hook: str, tool: int, sidechain: bool) -> Record:
    """Return a hook_progress record for tool_use `tool`, hanging off the chain (not on it)."""
    record = claude_envelope("progress", uuid, parent, sidechain)
    record["data"] = {
        "type": "hook_progress",
        "hookEvent": hook,
        "hookName": f"{hook}:Bash",
        "command": "$HOME/.claude/hooks/notify.sh",
    }
    record["parentToolUseID"] = record["toolUseID"] = slot("TU", tool)
    return record


def claude_tool(rng: random.Random, first: int, parent: int, msg: int, sidechain: bool) -> list[Record]:
    """Return tool_use, its progress records and the tool_result (uuids first..first+3)."""
    output = tool_output(rng)
    use = {
        "type": "tool_use",
        "id": slot("TU", first),
        "name": "Bash",
        "input": {"command": command(rng), "description": text.sentence(rng)[:60]},
        "caller": {"type": "direct"},
    }
    result = claude_envelope("user", first + 2, first, sidechain)
    is_error = rng.random() < 0.08
    result["message"] = {
        "role": "user",
        "content": [
            {
                "tool_use_id": slot("TU", first),
                "type": "tool_result",
                "content": output,
                "is_error": is_error,
            }
        ],
    }
    result["toolUseResult"] = {
        "stdout": output,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    result["sourceToolAssistantUUID"] = slot("U", first)
    return [
        claude_assistant(first, parent, msg, use, sidechain),
        claude_progress(first + 1, first, "PreToolUse", first, sidechain),
        result,
        claude_progress(first + 3, first + 2, "PostToolUse", first, sidechain),
    ]


def claude_turn(rng: random.Random, sidechain: bool) -> Template:
    """Return one Claude turn: prompt, split assistant records, tool pairs, answer, turn_duration."""
    prompt = claude_envelope("user", 0, None, sidechain)
    prompt["message"] = {"role": "user", "content": text.prose(rng, rng.randint(1, 5))}
    prompt["permissionMode"] = "default"
    records: list[Record] = [prompt]
    if rng.random() < 0.4:
        records.append(
            {
                "type": "file-history-snapshot",
                "messageId": slot("U", 0),
                "snapshot": {"messageId": slot("U", 0), "trackedFileBackups": {}, "timestamp": T},
                "isSnapshotUpdate": False,
            }
        )
    thinking = {
        "type": "thinking",
        "thinking": text.prose(rng, rng.randint(1, 6)),
        "signature": text.opaque(rng, rng.randint(200, 900)),
    }
    records.append(claude_assistant(1, 0, 0, thinking, sidechain))
    parent, uuid = 1, 2
    for msg in range(rng.choice((0, 1, 1, 2, 3, 5))):
        records += claude_tool(rng, uuid, parent, msg, sidechain)
        parent, uuid = uuid + 2, uuid + 4
    answer = {"type": "text", "text": text.prose(rng, rng.randint(2, 12))}
    records.append(claude_assistant(uuid, parent, 9, answer, sidechain))
    duration = claude_envelope("system", uuid + 1, uuid, sidechain)
    duration.update({"subtype": "turn_duration", "durationMs": rng.randint(900, 240_000), "isMeta": False})
    records.append(duration)
    return Template.build(records, last_uuid=uuid)


def claude_compaction(rng: random.Random) -> Template:
    """Return a compact_boundary and the compact summary that continues the chain."""
    boundary = claude_envelope("system", 0, None, False)
    boundary.update(
        {
            "parentUuid": None,
            "logicalParentUuid": slot("NPREV"),
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": slot("NCTX")},
        }
    )
    summary = claude_envelope("user", 1, 0, False)
    summary["message"] = {
        "role": "user",
        "content": (
            "This session is being continued from a previous conversation that ran out of context. "
            "The summary below covers the earlier portion of the conversation.\n\nAnalysis:\n" + text.prose(rng, 14)
        ),
    }
    summary["isCompactSummary"] = True
    summary["isVisibleInTranscriptOnly"] = True
    return Template.build([boundary, summary], last_uuid=1)

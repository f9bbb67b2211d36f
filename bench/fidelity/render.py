"""Print a Claude Code transcript or a Codex rollout as a person reads it, for labelling.

    python -m bench.fidelity.render FILE [--results N] [--from LINE] [--to LINE]

Every event is printed with the line of the file it comes from (`L123`), the number a key
cites. This reader is written apart from `session_skill.transcripts` on purpose: a key must
say what the session holds, not what our parser makes of it. It shows the main thread only
(sidechain records are counted, not shown), every typed message and assistant text whole
(pasted blobs clipped), each tool call with what identifies it (the file, the command, the
task, the question and its options, the plan), and each tool result's first characters —
with its error or rejection flag, which decides whether an edit happened.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_TEXT_MAX = 6000  # a typed message or an assistant text longer than this is clipped
_CLAUDE_SKIP = {
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "last-prompt",
    "cost-state",
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "atis-latch",
}


def _clip(text: str, limit: int) -> str:
    text = text.rstrip()
    if len(text) <= limit:
        return text
    return text[:limit] + f" …[{len(text) - limit} more chars]"


def _one_line(text: str, limit: int) -> str:
    return _clip(" ".join(str(text).split()), limit)


def _blocks_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "image":
                    parts.append("[image]")
        return "\n".join(parts)
    return ""


def _tool_call(name: str, args: dict[str, Any]) -> str:
    """One call, by what identifies it."""
    if name in ("Write", "Edit", "MultiEdit", "Read", "NotebookEdit"):
        path = args.get("file_path") or args.get("notebook_path")
        extra = ""
        if name == "Edit":
            old, new = str(args.get("old_string", "")), str(args.get("new_string", ""))
            extra = f" (-{old.count(chr(10)) + 1}/+{new.count(chr(10)) + 1} lines)"
        elif name == "Write":
            extra = f" ({len(str(args.get('content', '')))} chars)"
        return f"{name} {path}{extra}"
    if name in ("Bash", "shell", "exec_command", "shell_command", "local_shell", "exec"):
        cmd = args.get("command", args.get("cmd", args.get("raw", "")))
        if isinstance(cmd, list):
            cmd = " ".join(map(str, cmd))
        wd = args.get("workdir")
        return f"{name} {_one_line(str(cmd), 400)}" + (f"  [workdir {wd}]" if wd else "")
    if name in ("TodoWrite",):
        todos = args.get("todos") or []
        rows = [
            f"      [{t.get('status')}] {t.get('content')}" for t in todos if isinstance(t, dict)
        ]
        return "TodoWrite\n" + "\n".join(rows)
    if name == "update_plan":
        plan = args.get("plan") or []
        rows = [f"      [{t.get('status')}] {t.get('step')}" for t in plan if isinstance(t, dict)]
        note = args.get("explanation")
        return (
            "update_plan" + (f" ({_one_line(note, 300)})" if note else "") + "\n" + "\n".join(rows)
        )
    if name == "TaskCreate":
        about = _one_line(args.get("description", ""), 200)
        return f"TaskCreate subject={args.get('subject')!r} {about}"
    if name == "TaskUpdate":
        keep = {k: v for k, v in args.items() if k in ("taskId", "status", "subject")}
        return f"TaskUpdate {keep}"
    if name in ("AskUserQuestion", "request_user_input"):
        lines = [name]
        for q in args.get("questions") or [args]:
            if not isinstance(q, dict):
                continue
            lines.append(f"      Q: {q.get('question')}")
            for opt in q.get("options") or []:
                label = opt.get("label") if isinstance(opt, dict) else opt
                desc = opt.get("description", "") if isinstance(opt, dict) else ""
                lines.append(f"        - {label}: {_one_line(desc, 160)}")
        return "\n".join(lines)
    if name == "ExitPlanMode":
        plan = str(args.get("plan", ""))
        where = args.get("planFilePath")
        return f"ExitPlanMode {where or ''}\n      PLAN: " + _clip(plan, 3000).replace(
            "\n", "\n      "
        )
    if name == "apply_patch":
        patch = str(args.get("input", args.get("patch", "")))
        heads = [ln for ln in patch.splitlines() if ln.startswith("*** ") and "File" in ln]
        heads += [ln for ln in patch.splitlines() if ln.startswith("*** Move to")]
        return "apply_patch " + "; ".join(heads)
    if name in ("Task", "Agent"):
        what = _one_line(args.get("description", ""), 120)
        prompt = _one_line(args.get("prompt", ""), 300)
        return f"{name} {args.get('subagent_type', '')} {what}: {prompt}"
    if name == "Skill":
        return f"Skill {args}"
    text = json.dumps(args, ensure_ascii=False)
    return f"{name} {_one_line(text, 300)}"


def claude_events(path: Path, results: int) -> Iterator[tuple[int, str]]:
    names: dict[str, str] = {}
    sidechain = 0
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            try:
                rec = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                yield n, "[malformed line]"
                continue
            if not isinstance(rec, dict):
                continue
            kind = rec.get("type")
            if kind == "attachment":
                att = rec.get("attachment") or {}
                if isinstance(att, dict) and att.get("type") == "queued_command":
                    ts = str(rec.get("timestamp", ""))[:19]
                    prompt = att.get("prompt")
                    text = prompt if isinstance(prompt, str) else _blocks_text(prompt)
                    yield (
                        n,
                        f"{ts} USER (typed while the assistant worked): " + _clip(text, _TEXT_MAX),
                    )
                continue
            if kind in _CLAUDE_SKIP:
                continue
            if rec.get("isSidechain"):
                sidechain += 1
                continue
            ts = str(rec.get("timestamp", ""))[:19]
            if kind == "summary":
                yield n, f"SUMMARY {rec.get('summary')}"
            elif kind == "system":
                sub = rec.get("subtype")
                if sub == "compact_boundary":
                    yield n, f"{ts} ===== COMPACT BOUNDARY {rec.get('compactMetadata', '')}"
                elif sub == "local_command":
                    yield n, f"{ts} LOCAL-COMMAND {_one_line(rec.get('content', ''), 300)}"
                elif sub in ("api_error",):
                    yield n, f"{ts} [api error]"
            elif kind == "user":
                yield from _claude_user(n, ts, rec, names, results)
            elif kind == "assistant":
                msg = rec.get("message") or {}
                content = msg.get("content")
                if isinstance(content, str):
                    content = [{"type": "text", "text": content}]
                for block in content or []:
                    if not isinstance(block, dict):
                        continue
                    if block.get("type") == "text" and block.get("text", "").strip():
                        yield n, f"{ts} ASSISTANT: " + _clip(block["text"], _TEXT_MAX)
                    elif block.get("type") == "tool_use":
                        names[str(block.get("id"))] = str(block.get("name"))
                        yield (
                            n,
                            f"{ts} TOOL "
                            + _tool_call(str(block.get("name")), block.get("input") or {}),
                        )
            elif kind not in ("custom-title", "ai-title", "agent-name", "pr-link", "mode"):
                pass
    if sidechain:
        yield 0, f"({sidechain} sidechain records not shown)"


def _claude_user(
    n: int, ts: str, rec: dict[str, Any], names: dict[str, str], results: int
) -> Iterator[tuple[int, str]]:
    msg = rec.get("message") or {}
    content = msg.get("content")
    if rec.get("isCompactSummary"):
        yield n, f"{ts} COMPACT SUMMARY: " + _clip(_blocks_text(content), 1500)
        return
    if rec.get("isMeta"):
        text = _blocks_text(content)
        yield n, f"{ts} META (injected, not typed): " + _one_line(text, 300)
        return
    if isinstance(content, str):
        yield n, f"{ts} USER: " + _clip(content, _TEXT_MAX)
        return
    meta = rec.get("toolUseResult")
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            yield n, f"{ts} USER: " + _clip(block.get("text", ""), _TEXT_MAX)
        elif block.get("type") == "image":
            yield n, f"{ts} USER: [image]"
        elif block.get("type") == "tool_result":
            tid = str(block.get("tool_use_id"))
            flag = " ERROR" if block.get("is_error") else ""
            if isinstance(meta, dict) and meta.get("toolDenialKind"):
                flag += f" DENIED({meta.get('toolDenialKind')})"
            text = _blocks_text(block.get("content"))
            limit = max(results, 800) if block.get("is_error") else results
            if names.get(tid) in ("AskUserQuestion",):
                limit = max(limit, 1500)
            yield n, f"{ts} RESULT({names.get(tid, '?')}){flag}: " + _one_line(text, limit)


def codex_events(path: Path, results: int) -> Iterator[tuple[int, str]]:
    names: dict[str, str] = {}
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            try:
                rec = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                yield n, "[malformed line]"
                continue
            if not isinstance(rec, dict):
                continue
            kind, p = rec.get("type"), rec.get("payload")
            ts = str(rec.get("timestamp", ""))[:19]
            if not isinstance(p, dict):
                continue
            if kind == "session_meta":
                yield n, f"{ts} SESSION_META cwd={p.get('cwd')} id={p.get('id')}"
            elif kind == "compacted":
                yield n, f"{ts} ===== COMPACTED: " + _one_line(p.get("message", ""), 1200)
            elif kind == "event_msg" and p.get("type") == "turn_aborted":
                yield n, f"{ts} [TURN ABORTED {p.get('reason', '')}]"
            elif kind == "response_item":
                t = p.get("type")
                if t == "message":
                    role = p.get("role")
                    text = _blocks_text(p.get("content"))
                    if role == "user" and text.lstrip().startswith(
                        (
                            "<environment_context>",
                            "<user_instructions>",
                            "# AGENTS.md",
                            "<INSTRUCTIONS>",
                            "<permissions",
                            "<skill>",
                            "<turn_aborted>",
                        )
                    ):
                        yield n, f"{ts} INJECTED user-role context: " + _one_line(text, 160)
                    elif role in ("user", "assistant"):
                        yield n, f"{ts} {role.upper()}: " + _clip(text, _TEXT_MAX)
                elif t in ("function_call", "custom_tool_call", "local_shell_call"):
                    name = str(p.get("name") or "shell")
                    names[str(p.get("call_id"))] = name
                    if t == "custom_tool_call":
                        args: Any = {"input": p.get("input", "")}
                        if name != "apply_patch":
                            args = {"raw": p.get("input", "")}
                    elif t == "local_shell_call":
                        args = p.get("action") or {}
                    else:
                        try:
                            args = json.loads(p.get("arguments") or "{}")
                        except ValueError:
                            args = {"raw": p.get("arguments")}
                        if not isinstance(args, dict):
                            args = {"raw": args}
                    yield n, f"{ts} TOOL " + _tool_call(name, args)
                elif t in ("function_call_output", "custom_tool_call_output"):
                    out = p.get("output")
                    text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)
                    yield (
                        n,
                        f"{ts} RESULT({names.get(str(p.get('call_id')), '?')}): "
                        + _one_line(text, results),
                    )


def is_codex(path: Path) -> bool:
    with open(path, "rb") as fh:
        for raw in fh:
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            return isinstance(rec, dict) and "payload" in rec
    return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--results", type=int, default=240, help="characters of each tool result")
    ap.add_argument("--from", dest="start", type=int, default=0)
    ap.add_argument("--to", dest="stop", type=int, default=10**12)
    args = ap.parse_args(argv)
    events = codex_events if is_codex(args.file) else claude_events
    out = sys.stdout
    for n, line in events(args.file, args.results):
        if args.start <= n <= args.stop or n == 0:
            out.write(f"L{n} {line}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

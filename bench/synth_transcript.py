"""Write synthetic Claude Code transcripts of a chosen size, for benchmarks.

The record mix follows real v2.1.x sessions: most lines are `progress` records (some
embedding a sub-agent's messages), assistant responses are split one block per line,
tool results repeat their payload in `toolUseResult`, Read and Bash results are long, and
TodoWrite / TaskCreate / TaskUpdate calls, file-history snapshots, sidechain turns and a
compaction appear along the way. Prose now and then defers something or ends on a
question, so the sweep heuristics have work to do. Output is deterministic for a seed.

`write_conversation` writes another kind of session: tens of thousands of short turns of
plain talk (a request, a short answer, now and then a thinking block or a small tool call),
where nearly every line is a user or assistant record that must be parsed and read, and
the prose heuristics run on every message. `write_edit_heavy` writes a working session in
which every response is a paragraph of prose and one Edit, its result carrying the edited
file's whole text as Claude Code records it.

    python bench/synth_transcript.py out.jsonl 200M
    python bench/synth_transcript.py --conversation out.jsonl 60M
    python bench/synth_transcript.py --edit-heavy out.jsonl 60M
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

CWD = "/home/bench/project"
SESSION_ID = "b3e7c0de-5a1e-4b0c-9d2a-000000000001"

_PROMPTS = [
    "Refactor the {m} module so the {f} function is easier to test",
    "The {m} tests fail intermittently on CI, can you find out why?",
    "Add input validation to {f} and return a clear error message",
    "Speed up {f}: it is the hot spot in the profile of the {m} service",
    "Rename {f} to something clearer and update every caller",
]
_PROSE = [
    "I read {m}.py and the problem is in {f}: it rebuilds the index on every call.",
    "The change keeps the public API intact and moves the caching into a helper.",
    "All tests in tests/test_{m}.py pass after the change.",
    "I updated the docstring of {f} to describe the new behaviour.",
    "The profile shows {f} now takes about a third of the time it took before.",
]
_LOOSE = [
    "We could also memoise {f} per request to avoid the second lookup.",
    "The retry policy for {m} is out of scope here; we should come back to it later.",
    "Should I also add a benchmark for {f} to the CI job?",
    "Alternatively, the {m} index could live in SQLite instead of memory.",
    "I'll leave the logging format as it is for now.",
]
_MODULES = ["parser", "scheduler", "billing", "auth", "search", "export", "cache", "worker"]
_FUNCS = ["load_rows", "resolve_path", "apply_discount", "refresh_token", "rank_results"]


def write_synthetic(path: Path, target_bytes: int, seed: int = 1) -> None:
    """Write a transcript of about `target_bytes` bytes (it stops at the first turn past it)."""
    _write_turns(path, target_bytes, seed, lambda rng, turn, clock, _state: _turn(rng, turn, clock))


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 9, 0, tzinfo=timezone.utc)

    def tick(self, seconds: float) -> str:
        self.now += timedelta(seconds=seconds)
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"


# The session's fields, which Claude Code 2.1.x writes at the end of a record; a record opens
# on its place in the chain, and an assistant record on its message (its first "type" is
# the message's). The pinned 2.1.328 lays its records out so, as do most of the corpus's.
_ENVELOPE_KEYS = ("userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "slug")
_OPENING = {"assistant": ("message", "requestId", "type"), "user": ("promptId", "type")}


def _as_written(record: dict[str, Any]) -> dict[str, Any]:
    """`record`'s keys in the order the client writes them."""
    if "parentUuid" not in record:
        return record
    first = ("parentUuid", "isSidechain", *_OPENING.get(record.get("type", ""), ("type",)))
    order = [k for k in first if k in record]
    order += [k for k in record if k not in order and k not in _ENVELOPE_KEYS]
    order += [k for k in _ENVELOPE_KEYS if k in record]
    return {k: record[k] for k in order}


def _envelope(kind: str, parent: str | None, sidechain: bool = False) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": CWD,
        "sessionId": SESSION_ID,
        "version": "2.1.328",
        "gitBranch": "main",
        "slug": "synthetic-bench-session",
        "type": kind,
    }
    if kind == "user":  # the prompt whose turn it is, on its user records since 2.1.x
        rec["promptId"] = "5f0c1a2b-7d3e-4c5f-8a9b-0c1d2e3f4a5b"
    return rec


def _turn(rng: random.Random, turn: int, _clock: _Clock) -> Iterator[dict[str, Any]]:
    mod, func = rng.choice(_MODULES), rng.choice(_FUNCS)
    fill = {"m": mod, "f": func}
    ids = iter(range(1_000))
    parent: str | None = None

    def uid() -> str:
        return f"{turn:08x}-0000-4000-8000-{next(ids):012d}"

    def user(content: Any, result: Any = None) -> dict[str, Any]:
        nonlocal parent
        rec = _envelope("user", parent)
        rec["message"] = {"role": "user", "content": content}
        rec["uuid"] = parent = uid()
        rec["timestamp"] = _clock.tick(rng.uniform(0.5, 20))
        if result is not None:
            rec["toolUseResult"] = result
        return rec

    def assistant(msg: str, block: dict[str, Any], stop: str | None = None) -> dict[str, Any]:
        nonlocal parent
        rec = _envelope("assistant", parent)
        rec["message"] = {
            "model": "claude-opus-4-5",
            "id": msg,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 4, "cache_read_input_tokens": 91_000, "output_tokens": 210},
        }
        rec["requestId"] = f"req_{turn:016x}"
        rec["uuid"] = parent = uid()
        rec["timestamp"] = _clock.tick(rng.uniform(0.5, 6))
        return rec

    def progress(data: dict[str, Any], tool_id: str) -> dict[str, Any]:
        rec = _envelope("progress", parent)
        rec["data"] = data
        rec["toolUseID"] = f"bash-progress-{next(ids)}"
        rec["parentToolUseID"] = tool_id
        rec["uuid"] = uid()
        rec["timestamp"] = _clock.tick(0.2)
        return rec

    yield {
        "type": "file-history-snapshot",
        "messageId": uid(),
        "snapshot": {
            "messageId": uid(),
            "trackedFileBackups": {
                f"src/{mod}.py": {
                    "backupFileName": f"{turn:016x}@v1",
                    "version": 1,
                    "backupTime": _clock.tick(0),
                }
            },
            "timestamp": _clock.tick(0),
        },
        "isSnapshotUpdate": turn > 0,
    }
    yield user(rng.choice(_PROMPTS).format(**fill) + f" (ticket {turn})")

    msg = f"msg_01{turn:020d}A"
    read_id, edit_id, bash_id = f"toolu_R{turn:018d}", f"toolu_E{turn:018d}", f"toolu_B{turn:018d}"
    yield assistant(msg, {"type": "text", "text": rng.choice(_PROSE).format(**fill)})
    yield assistant(
        msg,
        {
            "type": "tool_use",
            "id": read_id,
            "name": "Read",
            "input": {"file_path": f"{CWD}/src/{mod}.py"},
        },
    )
    source = _source(rng, mod, func, rng.randint(40, 300))
    yield user(
        [{"tool_use_id": read_id, "type": "tool_result", "content": source}],
        {
            "type": "text",
            "file": {
                "filePath": f"{CWD}/src/{mod}.py",
                "content": source,
                "numLines": source.count("\n") + 1,
                "startLine": 1,
            },
        },
    )

    if turn % 3 == 0:
        todos = [
            {
                "content": f"Fix {func} in {mod} (ticket {turn})",
                "status": "completed",
                "activeForm": "Fixing",
            },
            {
                "content": f"Add tests for {func} (ticket {turn})",
                "status": rng.choice(["pending", "in_progress", "completed"]),
                "activeForm": "Adding tests",
            },
        ]
        todo_id = f"toolu_T{turn:018d}"
        yield assistant(
            msg, {"type": "tool_use", "id": todo_id, "name": "TodoWrite", "input": {"todos": todos}}
        )
        yield user(
            [
                {
                    "tool_use_id": todo_id,
                    "type": "tool_result",
                    "content": "Todos have been modified successfully.",
                }
            ],
            {"oldTodos": [], "newTodos": todos},
        )
    if turn % 7 == 0:
        number = turn // 7 + 1  # Claude Code numbers a session's tasks 1, 2, 3, …
        create_id = f"toolu_C{turn:018d}"
        subject = f"Review {func} error handling (ticket {turn})"
        yield assistant(
            msg,
            {
                "type": "tool_use",
                "id": create_id,
                "name": "TaskCreate",
                "input": {"subject": subject, "description": subject},
            },
        )
        yield user(
            [
                {
                    "tool_use_id": create_id,
                    "type": "tool_result",
                    "content": f"Task #{number} created successfully: {subject}",
                }
            ],
            {"task": {"id": str(number), "subject": subject}},
        )
        update_id = f"toolu_U{turn:018d}"
        yield assistant(
            msg,
            {
                "type": "tool_use",
                "id": update_id,
                "name": "TaskUpdate",
                "input": {"taskId": str(number), "status": "completed"},
            },
        )
        yield user(
            [
                {
                    "tool_use_id": update_id,
                    "type": "tool_result",
                    "content": f"Updated task #{number} status",
                }
            ],
            {"success": True, "taskId": str(number), "updatedFields": ["status"]},
        )

    old, new = f"def {func}(rows):", f"def {func}(rows, *, cache=None):"
    yield assistant(
        msg,
        {
            "type": "tool_use",
            "id": edit_id,
            "name": "Edit",
            "input": {
                "replace_all": False,  # first, as real Edits mostly have it
                "file_path": f"{CWD}/src/{mod}_{turn % 50}.py",
                "old_string": old,
                "new_string": new,
            },
        },
    )
    yield user(
        [
            {
                "tool_use_id": edit_id,
                "type": "tool_result",
                "content": f"The file {CWD}/src/{mod}_{turn % 50}.py has been updated.",
            }
        ],
        {
            "filePath": f"{CWD}/src/{mod}_{turn % 50}.py",
            "oldString": old,
            "newString": new,
            "originalFile": source,
            "structuredPatch": [],
        },
    )

    yield assistant(
        msg,
        {
            "type": "tool_use",
            "id": bash_id,
            "name": "Bash",
            "input": {"command": f"pytest -q tests/test_{mod}.py", "description": "Run the tests"},
        },
    )
    output = _pytest_output(rng, mod)
    for step in range(rng.randint(3, 10)):
        yield progress(
            {
                "type": "bash_progress",
                "output": output[: 200 * step],
                "fullOutput": output[: 400 * step],
                "elapsedTimeSeconds": step,
                "totalLines": step * 4,
                "timeoutMs": 120_000,
            },
            bash_id,
        )
    if turn % 4 == 0:
        nested = {
            "type": "assistant",
            "timestamp": _clock.tick(0.1),
            "message": {
                "model": "claude-haiku-4-5",
                "id": f"msg_01SUB{turn:016d}",
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"toolu_S{turn:018d}",
                        "name": "Write",
                        "input": {
                            "file_path": f"{CWD}/scratch/{turn}.md",
                            "content": source[:2000],
                        },
                    }
                ],
            },
        }
        yield progress(
            {
                "message": nested,
                "normalizedMessages": [],
                "type": "agent_progress",
                "prompt": f"Look for other callers of {func}",
                "agentId": "a1b2",
            },
            bash_id,
        )
    yield user(
        [{"tool_use_id": bash_id, "type": "tool_result", "content": output, "is_error": False}],
        {"stdout": output, "stderr": "", "interrupted": False, "isImage": False},
    )

    if turn % 10 == 5:
        side = _envelope("user", None, sidechain=True)
        side["message"] = {"role": "user", "content": f"Search for {func} callers"}
        side["uuid"] = uid()
        side["timestamp"] = _clock.tick(1)
        yield side

    closing = rng.choice(_PROSE).format(**fill)
    if rng.random() < 0.3:
        closing += " " + rng.choice(_LOOSE).format(**fill)
    yield assistant(f"msg_01{turn:020d}B", {"type": "text", "text": closing}, stop="end_turn")
    rec = _envelope("system", parent)
    rec.update(
        {
            "subtype": "turn_duration",
            "durationMs": rng.randint(5_000, 90_000),
            "timestamp": _clock.tick(0.1),
            "uuid": uid(),
            "isMeta": False,
        }
    )
    yield rec
    if turn % 500 == 499:
        rec = _envelope("system", None)
        rec.update(
            {
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "timestamp": _clock.tick(1),
                "uuid": uid(),
                "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": 155_000},
            }
        )
        yield rec
        summary = user("This session is being continued from a previous conversation. " * 40)
        summary["isCompactSummary"] = True
        yield summary


# ---------------------------------------------------------------- conversation-dense

# A long design or debugging conversation. The mix follows real sessions (the shared
# public transcripts): most sentences are plain statements; about one message in ten holds
# a word such as "later", "for now", "follow-up" or "eventually" (in its ordinary sense or
# as a deferral); a quarter of the turns end on a question, answered or walked past; most
# responses open with a thinking block whose signature is a long base64 string.
_NEUTRAL = [
    "{F} builds the {m} index lazily, so the first call after a restart pays for it.",
    "The {m} retry loop gives up after {n} attempts and the delay doubles each time.",
    "The {o} option is read once at start-up, so changing it needs a restart of {m}.",
    "I renamed the {o} option in the {m} config and updated the {n} callers of {f}.",
    "{F} now takes a timeout and passes it through to the {m} client.",
    "The {m} tests pass again after the change to {f}.",
    "The {o} rows are written in one transaction, so a cancelled import leaves nothing behind.",
    "That error comes from {f}: it assumes every {o} has an owner.",
    "The {m} client keeps a pool of {n} connections and reuses them across requests.",
    "Both callers of {f} already handle the empty case, so the guard is safe to remove.",
    "The slow part is the sort inside {f}, which runs once per {o}.",
    "I checked the {m} logs and the {o} job finished in {n} seconds.",
    "The schema stores the {o} id as text, which is why the join in {f} is slow.",
    "The config loader merges the {m} defaults with the environment, the environment wins.",
    "{F} is only called from the {m} worker, never from a request handler.",
    "The fixture for {o} is shared between the {m} tests, so one test changed it for the rest.",
    "The {m} cache key includes the {o} id and the locale.",
    "That flag was added for the {m} migration and nothing reads it any more.",
    "The {o} payload is validated before {f} sees it, so the extra check is redundant.",
    "The deadlock happens when two {o} jobs take the {m} locks in a different order.",
]
# Ordinary uses of the words the deferral markers look for.
_ORDINARY = [
    "A follow-up email is sent by {m} after signup; {f} only queues it.",
    "The later rows of the {o} table come from the {m} backfill, not from {f}.",
    "The {m} replica is eventually consistent, so {f} may read a stale {o}.",
    "Later releases of the {m} client drop the {o} argument.",
    "For now the {m} service runs on a single node.",
    "I will explain the {o} flow step by step so it is easier to follow.",
]
_TALK_LOOSE = [
    "I stubbed out the {o} mailer in {m} for now; {f} logs instead of sending.",
    "The {o} metrics are not wired up yet, {f} only counts them in memory.",
    "We could also precompute the {o} table when {m} starts.",
    "I left the {o} changelog entry for later.",
    "Heads-up: the {m} ARM build is still red because of {o}.",
    "Postponing the {o} cleanup until the {m} migration has landed.",
    "The {o} retry policy is out of scope here; we should come back to it later.",
]
_QUESTIONS = [
    "Should I also add a test for {f} with an empty {o}?",
    "Do you want the {o} flag to stay in the {m} config or move to the CLI?",
    "Which of the two {m} layouts do you prefer for the {o} table?",
    "Shall I remove the unused {o} flag from {m} as well?",
]
_REQUESTS = [
    "Why does {f} return an empty list when the {m} cache is cold?",
    "Can you explain how the {m} retry loop decides when to give up?",
    "Rename the {o} option to something clearer in the {m} config.",
    "Make {f} accept a timeout and pass it through to the {m} client.",
    "What happens to the {o} rows when the {m} import is cancelled halfway?",
    "Please shorten the error message {f} prints for a missing {o}.",
    "ok, and what about the {o} flag in {m}?",
    "Look at the deadlock in the {m} worker next.",
    "The {m} tests are flaky on CI again, any idea why?",
    "Move the {o} validation out of {f} into the schema.",
]
_USER_LOOSE = [
    "save the {o} idea for another time, the {m} bug matters more",
    "not today, but the {m} cache needs an eviction policy for {o}",
    "don't forget we owe the {m} docs a pass",
]
_ANSWERS = [
    "yes",
    "yes please",
    "no, leave it",
    "go with the second one",
    "sure, do it",
    "the CLI",
    "keep it in the config",
    "not needed",
]
_OBJECTS = [
    "batch",
    "tenant",
    "invoice",
    "session",
    "export",
    "webhook",
    "quota",
    "shard",
    "locale",
    "audit",
    "preview",
    "thumbnail",
    "schedule",
    "retention",
    "digest",
]


# Makes one turn's records: (rng, turn number, clock, the state carried between turns).
_TurnMaker = Callable[[random.Random, int, _Clock, dict[str, Any]], Iterator[dict[str, Any]]]


def write_conversation(path: Path, target_bytes: int, seed: int = 2) -> None:
    """Write a conversation-dense transcript of about `target_bytes` bytes."""
    _write_turns(path, target_bytes, seed, _talk)


def _write_turns(path: Path, target_bytes: int, seed: int, turns: _TurnMaker) -> None:
    """Write `turns(rng, turn, clock, state)`'s records, turn after turn, until the file
    holds about `target_bytes` bytes."""
    rng = random.Random(seed)
    clock = _Clock()
    state: dict[str, Any] = {"parent": None, "asked": False}
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for turn in range(1_000_000_000):
            for record in turns(rng, turn, clock, state):
                line = json.dumps(_as_written(record), ensure_ascii=False, separators=(",", ":"))
                line += "\n"
                out.write(line)
                written += len(line.encode("utf-8"))
            if written >= target_bytes:
                return


class _Turn:
    """One turn's record builders: each record chains to the one before (`parentUuid`), and
    every assistant record of the turn is one message (`msg`) with its `usage`."""

    def __init__(self, turn: int, clock: _Clock, state: dict[str, Any], *, tag: str,
                 msg: str, usage: dict[str, Any]) -> None:  # fmt: skip
        self.turn, self.clock, self.state = turn, clock, state
        self.tag, self.msg, self.usage = tag, msg, usage
        self.ids = iter(range(100))

    def uid(self) -> str:
        return f"{self.turn:08x}-{self.tag}-4000-8000-{next(self.ids):012d}"

    def record(self, kind: str, **extra: Any) -> dict[str, Any]:
        rec = _envelope(kind, self.state["parent"])
        rec.update(extra)
        rec["uuid"] = self.state["parent"] = self.uid()
        return rec

    def ask(self, rng: random.Random, fill: dict[str, str], mode: str) -> dict[str, Any]:
        """The user's turn: an answer to the question left last turn, now and then a loose
        end of the user's own, else a request."""
        if self.state["asked"] and rng.random() < 0.5:
            ask = rng.choice(_ANSWERS)
        elif rng.random() < 0.03:
            ask = rng.choice(_USER_LOOSE).format(**fill)
        else:
            ask = rng.choice(_REQUESTS).format(**fill)
        return self.record(
            "user",
            message={"role": "user", "content": ask},
            timestamp=self.clock.tick(rng.uniform(5, 90)),
            permissionMode=mode,
        )

    def reply(self, rng: random.Random, block: dict[str, Any],
              stop: str | None = None) -> dict[str, Any]:  # fmt: skip
        message = {
            "model": "claude-opus-4-5",
            "id": self.msg,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": self.usage,
        }
        # Claude Code writes an assistant record's message before its type.
        envelope = _envelope("assistant", self.state["parent"])
        rec = {k: v for k, v in envelope.items() if k != "type"}
        rec.update(message=message, requestId=f"req_{self.turn:016x}", type="assistant")
        rec["uuid"] = self.state["parent"] = self.uid()
        rec["timestamp"] = self.clock.tick(rng.uniform(1, 8))
        return rec


def _sentence(rng: random.Random, fill: dict[str, str]) -> str:
    roll = rng.random()
    bank = _TALK_LOOSE if roll < 0.02 else _ORDINARY if roll < 0.05 else _NEUTRAL
    return rng.choice(bank).format(**fill)


def _talk(
    rng: random.Random, turn: int, clock: _Clock, state: dict[str, Any]
) -> Iterator[dict[str, Any]]:
    func = rng.choice(_FUNCS) + f"_{turn % 97}"
    fill = {
        "m": rng.choice(_MODULES),
        "f": func,
        "F": func,
        "o": rng.choice(_OBJECTS),
        "n": str(rng.randint(2, 12)),
    }
    t = _Turn(turn, clock, state, tag="1111", msg=f"msg_01C{turn:020d}", usage={
        "input_tokens": 6,
        "cache_creation_input_tokens": 310,
        "cache_read_input_tokens": 48_000,
        "output_tokens": 180,
        "service_tier": "standard",
    })  # fmt: skip
    yield t.ask(rng, fill, "default")
    if rng.random() < 0.6:
        thought = " ".join(_sentence(rng, fill) for _ in range(rng.randint(1, 4)))
        signature = "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789+/")
            for _ in range(rng.randint(300, 900))
        )
        yield t.reply(rng, {"type": "thinking", "thinking": thought, "signature": signature})
    text = " ".join(_sentence(rng, fill) for _ in range(rng.randint(1, 5)))
    if rng.random() < 0.1:
        tool_id = f"toolu_01K{turn:018d}"
        yield t.reply(rng, {"type": "text", "text": text})
        yield t.reply(
            rng,
            {
                "type": "tool_use",
                "id": tool_id,
                "name": "Bash",
                "input": {"command": "git status --short", "description": "Show changes"},
            },
        )
        yield t.record(
            "user",
            message={
                "role": "user",
                "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": " M a"}],
            },
            timestamp=clock.tick(0.5),
            toolUseResult={"stdout": " M a", "stderr": "", "interrupted": False},
        )
        text = _sentence(rng, fill)
    state["asked"] = rng.random() < 0.25
    if state["asked"]:
        text += " " + rng.choice(_QUESTIONS).format(**fill)
    yield t.reply(rng, {"type": "text", "text": text}, stop="end_turn")
    if rng.random() < 0.5:
        yield t.record(
            "system",
            subtype="turn_duration",
            durationMs=rng.randint(2_000, 40_000),
            timestamp=clock.tick(0.1),
            isMeta=False,
        )


# ---------------------------------------------------------------- edit-heavy

# A long working session on a codebase (issue 19 §6): every response is a paragraph of
# prose and one Edit, whose result carries, as Claude Code writes it, the file's whole
# text before the edit (`toolUseResult.originalFile`) and a patch of the change.
_EDIT_FILES = 120  # distinct files the session edits


def write_edit_heavy(path: Path, target_bytes: int, seed: int = 3) -> None:
    """Write an edit-heavy conversation of about `target_bytes` bytes."""
    _write_turns(path, target_bytes, seed, _edit_turn)


def _edit_turn(
    rng: random.Random, turn: int, clock: _Clock, state: dict[str, Any]
) -> Iterator[dict[str, Any]]:
    mod = rng.choice(_MODULES)
    func = rng.choice(_FUNCS) + f"_{turn % 97}"
    fill = {"m": mod, "f": func, "F": func, "o": rng.choice(_OBJECTS), "n": str(rng.randint(2, 12))}
    t = _Turn(turn, clock, state, tag="2222", msg=f"msg_01E{turn:020d}", usage={
        "input_tokens": 6,
        "cache_creation_input_tokens": 420,
        "cache_read_input_tokens": 61_000,
        "output_tokens": 390,
        "service_tier": "standard",
    })  # fmt: skip
    yield t.ask(rng, fill, "acceptEdits")
    text = " ".join(_sentence(rng, fill) for _ in range(rng.randint(3, 6)))
    state["asked"] = rng.random() < 0.25
    if state["asked"]:
        text += " " + rng.choice(_QUESTIONS).format(**fill)
    yield t.reply(rng, {"type": "text", "text": text})

    file_path = f"{CWD}/src/{mod}/{_FUNCS[turn % len(_FUNCS)]}_{turn % _EDIT_FILES}.py"
    original = _file_text(rng, mod, func, rng.randint(30, 120))
    lines = original.split("\n")
    at = rng.randrange(1, len(lines) - 1)
    old = lines[at]
    new = old.replace("rows", "batch", 1) if "rows" in old else old + "  # checked"
    edit_id = f"toolu_01E{turn:018d}"
    yield t.reply(
        rng,
        {
            "type": "tool_use",
            "id": edit_id,
            "name": "Edit",
            "input": {
                "replace_all": False,  # first, as real Edits mostly have it
                "file_path": file_path,
                "old_string": old,
                "new_string": new,
            },
            "caller": {"type": "direct"},
        },
        stop="tool_use",
    )
    first = max(0, at - 4)
    window = lines[first : at + 5]
    window[at - first] = new
    snippet = "\n".join(f"{first + 1 + i:>6}\t{line}" for i, line in enumerate(window))
    hunk = {
        "oldStart": first + 1,
        "oldLines": len(window),
        "newStart": first + 1,
        "newLines": len(window),
        "lines": [
            *(f" {line}" for line in lines[first:at]),
            f"-{old}",
            f"+{new}",
            *(f" {line}" for line in lines[at + 1 : at + 5]),
        ],
    }
    yield t.record(
        "user",
        message={
            "role": "user",
            "content": [
                {
                    "tool_use_id": edit_id,
                    "type": "tool_result",
                    "content": f"The file {file_path} has been updated. Here's the result of "
                    f"running `cat -n` on a snippet of the edited file:\n{snippet}",
                }
            ],
        },
        timestamp=clock.tick(rng.uniform(0.2, 2)),
        toolUseResult={
            "filePath": file_path,
            "oldString": old,
            "newString": new,
            "originalFile": original,
            "structuredPatch": [hunk],
            "userModified": False,
            "replaceAll": False,
        },
        sourceToolAssistantUUID=state["parent"],
    )
    if rng.random() < 0.5:
        yield t.record(
            "system",
            subtype="turn_duration",
            durationMs=rng.randint(4_000, 60_000),
            timestamp=clock.tick(0.1),
            isMeta=False,
        )


def _file_text(rng: random.Random, mod: str, func: str, lines: int) -> str:
    """A source file's text as it stands on disk (no line numbers)."""
    body = [f'"""The {mod} helpers."""', ""]
    for n in range(1, lines - 1):
        kind = n % 7
        if kind == 0:
            body.append(f"def {func}_{n}(rows, limit={rng.randint(1, 999)}):")
        elif kind == 1:
            body.append(f'    """Return the {mod} rows above limit ({rng.random():.4f})."""')
        else:
            body.append(f"    total_{n} = sum(r.value for r in rows if r.key == {n})")
    return "\n".join(body) + "\n"


def _source(rng: random.Random, mod: str, func: str, lines: int) -> str:
    body = []
    for n in range(1, lines + 1):
        kind = n % 7
        if kind == 0:
            body.append(f"{n:>6}\tdef {func}_{n}(rows, limit={rng.randint(1, 999)}):")
        elif kind == 1:
            note = f"Return the {mod} rows above limit ({rng.random():.4f})."
            body.append(f'{n:>6}\t    """{note}"""')
        else:
            body.append(f"{n:>6}\t    total_{n} = sum(r.value for r in rows if r.key == {n})")
    return "\n".join(body)


def _pytest_output(rng: random.Random, mod: str) -> str:
    lines = [f"tests/test_{mod}.py::test_case_{i} PASSED" for i in range(rng.randint(20, 120))]
    return "\n".join(lines) + f"\n{len(lines)} passed in {rng.uniform(0.5, 9):.2f}s"


def _parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().removesuffix("B")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


if __name__ == "__main__":
    writers = {"--conversation": write_conversation, "--edit-heavy": write_edit_heavy}
    args = sys.argv[1:]
    kinds = [a for a in args if a in writers]
    args = [a for a in args if a not in writers]
    if len(args) != 2 or len(kinds) > 1:
        raise SystemExit(
            "usage: synth_transcript.py [--conversation | --edit-heavy] OUT.jsonl SIZE "
            "(e.g. 20M, 200M)"
        )
    writer = writers[kinds[0]] if kinds else write_synthetic
    writer(Path(args[0]), _parse_size(args[1]))

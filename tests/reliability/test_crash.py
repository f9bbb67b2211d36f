"""Writers killed with SIGKILL at random moments (issue 6).

Three streams of trials run side by side, each against its own store. A trial starts one
real `python -m session_skill` process (park, drop, dump, recall, the hook, or a `list`
that sweeps an expired handover), SIGKILLs it after a random delay, and then reads the
whole store back strictly. The delay is drawn around the moment the command writes:
calibrated on an uninterrupted run, then moved after every kill — earlier when the write
had already landed (or the process had finished), later when it had not — so, whatever
the machine's load, kills keep landing just before, during and just after the writes.
One trial in eight runs to the end: an acknowledged write later kills must not undo.

After every trial:
- every store file parses: PARKED.md, each `<slug>.md` is a whole doc, each line of
  dropped.jsonl is one JSON object, LATEST is empty or one valid slug;
- nothing acknowledged before the trial is lost: items and docs are all there, byte for
  byte, except the one item a killed `drop` was removing; and every item ever parked is
  either still in PARKED.md or recorded in dropped.jsonl;
- LATEST names an existing doc, or (after a killed `list` sweep) the hook and `recall`
  treat it as absent;
- temp files left by a killed writer are ignored by readers, and the next write cleans
  them once they are stale (the lock takes only temp files older than TMP_MAX_AGE, since
  `ensure()` writes template files outside the lock).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from session_skill.commands.drop import drop
from session_skill.commands.listing import list_store
from session_skill.commands.park import park
from session_skill.commands.recall import no_pending, recall
from session_skill.hooks import session_start as hook
from session_skill.store.store import TMP_MAX_AGE, Store
from session_skill.times import parse_time

from .conftest import (
    BODY,
    NOW,
    distinct_texts,
    feed,
    hook_payload,
    new_store,
    popen_cli,
    read_store,
    run_cli,
    store_of,
    tmp_files,
    write_doc,
)

NOW_DT = parse_time(NOW)
assert NOW_DT is not None
# Killed trials per kind and stream (runs that finish first, and the uninterrupted
# calibration runs, come on top).
PLAN = {"park": 15, "drop": 15, "dump": 12, "recall": 10, "hook": 12, "list": 4}
STREAMS = 3
COMPLETE_EVERY = 8  # one trial in eight runs to the end: acknowledged writes in between


@dataclass
class Stats:
    trials: Counter[str] = field(default_factory=Counter)
    completed: Counter[str] = field(default_factory=Counter)
    applied: Counter[str] = field(default_factory=Counter)  # killed, but the write landed
    tmp_left: Counter[str] = field(default_factory=Counter)  # killed mid-write


@dataclass
class Stream:
    root: Path
    rng: random.Random
    stats: Stats
    lock: threading.Lock
    items: dict[str, str] = field(default_factory=dict)  # durable open items: slug -> line
    ever: dict[str, str] = field(default_factory=dict)  # every item ever durable
    docs: dict[str, str] = field(default_factory=dict)  # durable docs: slug -> body
    # When, after its start, a kill of this kind of command lands on its write: adjusted
    # after every kill (earlier when the write had landed, later when it had not), so
    # kills keep landing around the write whatever the machine's load.
    write_at: dict[str, float] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    expired: set[str] = field(default_factory=set)  # docs a `list` may sweep
    n: int = 0

    @property
    def store(self) -> Store:
        return Store(self.root)

    def text(self) -> str:
        return self.texts.pop()


def _pending_doc(s: Stream, *, created: str = NOW) -> str:
    slug = f"pend-{s.n}"
    write_doc(s.root, slug, created=created, body=BODY.replace("Ship", f"Ship #{s.n}"))
    with s.store.lock():
        s.store.write_latest(slug)
    s.docs[slug] = BODY.replace("Ship", f"Ship #{s.n}")
    return slug


def _setup(s: Stream, kind: str) -> tuple[list[str], bytes | None, str | None]:
    """argv, stdin and the target (item or doc slug) of one trial."""
    if kind == "park":
        return ["park", s.text()], None, None
    if kind == "drop":
        if len(s.items) < 3:
            for _ in range(3):
                out = park(s.store, s.text(), as_json=False, now=NOW_DT)
                slug = out.text.split()[1]
                line = next(it.line for it in read_store(s.root).items if it.slug == slug)
                s.items[slug] = s.ever[slug] = line
        target = s.rng.choice(sorted(s.items))
        return ["drop", target], None, target
    if kind == "dump":
        name = s.rng.choice(["plan", "retry-work", None])
        body = BODY.replace("Ship", f"Ship dump {s.n}")
        return ["dump", *([name] if name else []), "--file", "-"], body.encode(), None
    if kind == "recall":
        return ["recall"], None, _pending_doc(s)
    if kind == "hook":
        return ["hook", "session-start"], hook_payload(s.root), _pending_doc(s)
    # list: an expired handover that LATEST names, swept by `list`.
    slug = _pending_doc(s, created="2026-10-01T00:00:00Z")
    s.expired.add(slug)
    return ["list"], None, slug


def _trial(s: Stream, kind: str, complete: bool) -> bool:
    s.n += 1
    args, data, target = _setup(s, kind)
    before = read_store(s.root)
    delay = s.rng.uniform(0.75, 1.25) * s.write_at.get(kind, 0.3)
    start = time.monotonic()
    proc = popen_cli(None if kind == "hook" else s.root, *args)
    feed(proc, data or b"")
    killed = False
    if not complete:
        try:
            proc.wait(timeout=delay)
        except Exception:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
    out_b, err_b = proc.communicate(timeout=120)
    elapsed = time.monotonic() - start
    out, err = out_b.decode("utf-8", "replace"), err_b.decode("utf-8", "replace")
    if killed and proc.returncode != -signal.SIGKILL:
        killed = False  # it finished between the end of the wait and the kill
    if not killed:
        assert proc.returncode == 0, (kind, args, out, err)
        assert "Traceback" not in err and "unexpected" not in err, err
        if kind not in s.write_at:
            s.write_at[kind] = 0.8 * elapsed  # calibration: the writes come at the end

    view = read_store(s.root)  # every file parses, or this fails
    with s.lock:
        s.stats.trials[kind] += killed
        s.stats.completed[kind] += not killed
        s.stats.tmp_left[kind] += bool(view.tmp)
    applied = _check(s, kind, target, before, view, killed, out)
    if not complete:  # too late (it finished, or the write had landed): earlier next time
        s.write_at[kind] *= 1.08 if killed and not applied else 0.92
    _check_tmp_handling(s, view)
    return killed


def _check(s: Stream, kind: str, target: str | None, before, view, killed: bool, out: str) -> bool:  # type: ignore[no-untyped-def]
    now_items = {it.slug: it.line for it in view.items}
    logged = {str(r["item"]) for r in view.dropped}
    applied = False

    # Nothing acknowledged is lost: every durable item is still there, byte for byte...
    for slug, line in s.items.items():
        if slug == target and kind == "drop":
            continue
        assert now_items.get(slug) == line, (kind, slug, line, now_items.get(slug))
    # ...every doc too (its frontmatter may have been flipped to consumed; never its body)...
    for slug, body in s.docs.items():
        if kind == "list" and slug in s.expired:
            continue
        assert slug in view.docs, (kind, slug)
        assert view.docs[slug].body == body, (kind, slug)
    # ...and no item ever vanishes without a record in dropped.jsonl.
    for slug in s.ever:
        assert slug in now_items or slug in logged, (kind, slug)
    assert len(view.dropped) - len(before.dropped) <= 1

    new_items = set(now_items) - set(s.items)
    if kind == "park":
        assert len(new_items) <= 1, new_items
        if not killed:
            m = re.match(r"^Parked: (\S+) \(\d+ open\)$", out.strip())
            assert m and new_items == {m.group(1)}, (out, new_items)
        applied = bool(new_items)
        for slug in new_items:  # it is durable now: from here on it must never be lost
            s.items[slug] = s.ever[slug] = now_items[slug]
    else:
        assert not new_items, (kind, new_items)
    if kind == "drop":
        assert target is not None
        if target not in now_items:
            applied = True
            recs = [r for r in view.dropped if r["item"] == target]
            assert recs and recs[-1]["line"] == s.items[target], recs
            del s.items[target]
        assert not (not killed and not applied), out
        if not killed:
            assert out.strip().startswith(f"Dropped: {target} ("), out

    new_docs = set(view.docs) - set(before.docs)
    if kind == "dump":
        assert len(new_docs) <= 1, new_docs
        for slug in new_docs:
            s.docs[slug] = view.docs[slug].body
            applied = True
        if not killed:
            m = re.match(r"^→ \.claude/state/session/(\S+)\.md \(", out)
            assert m and new_docs == {m.group(1)}, (out, new_docs)
            assert view.latest == m.group(1)
    else:
        assert not new_docs, (kind, new_docs)

    if kind in ("recall", "hook"):
        assert target is not None
        meta = view.docs[target].meta
        assert meta["consumed"] in ("false", "true"), meta
        applied = meta["consumed"] == "true"
        if applied:
            assert meta["consumed_by"] == kind
        else:
            assert view.latest == target  # LATEST goes only after the flip
        if not killed:
            assert applied and view.latest is None
            assert f"Ship #{s.n}" in out
        if view.latest == target and applied:
            # Killed between the flip and removing LATEST: the hook sees a consumed doc
            # and stays silent; the next trial's pending doc replaces LATEST anyway.
            assert hook.run(hook_payload(s.root), env={}, now=NOW_DT) == ""

    if kind == "list":
        assert target is not None
        gone = {slug for slug in s.expired if slug not in view.docs}
        for slug in gone:
            del s.docs[slug]
        s.expired -= gone
        if target in gone:
            applied = True
            if view.latest == target:
                # Killed between the delete and blanking LATEST: LATEST names a missing
                # doc, and both readers treat it as absent.
                assert hook.run(hook_payload(s.root), env={}, now=NOW_DT) == ""
                r = recall(s.store, None, peek=True, as_json=False, now=NOW_DT)
                assert r.text == no_pending()
                assert read_store(s.root).latest is None  # recall blanked it
        if not killed:
            assert applied and out.startswith("Swept ") and target in out.splitlines()[0]
    if view.latest is not None and not (kind == "list" and applied):
        assert view.latest in view.docs  # LATEST never names a missing doc
    with s.lock:
        s.stats.applied[kind] += applied and killed
    return applied


def _check_tmp_handling(s: Stream, view) -> None:  # type: ignore[no-untyped-def]
    """Leftover temp files: invisible to readers, gone after the next write once stale."""
    if not view.tmp:
        return
    listing = list_store(s.store, as_json=True, now=NOW_DT).text
    assert ".tmp-" not in listing
    for slug in json.loads(listing)["swept"]:  # `list` sweeps expired docs as it reads
        assert slug in s.expired, slug
        s.expired.discard(slug)
        s.docs.pop(slug, None)
    old = time.time() - TMP_MAX_AGE - 5
    sd = store_of(s.root)
    for name in view.tmp:
        os.utime(sd / name, (old, old), follow_symlinks=False)
    out = park(s.store, s.text(), as_json=False, now=NOW_DT)  # the next write
    slug = out.text.split()[1]
    after = read_store(s.root)
    assert after.tmp == [], after.tmp
    line = next(it.line for it in after.items if it.slug == slug)
    s.items[slug] = s.ever[slug] = line


def _run_stream(idx: int, root: Path, stats: Stats, lock: threading.Lock) -> None:
    rng = random.Random(600 + idx)
    s = Stream(root, rng, stats, lock, texts=distinct_texts(400, seed=700 + idx))
    new_store(root)
    for kind in PLAN:  # calibrate every kind first, uninterrupted
        _trial(s, kind, complete=True)
    left = dict(PLAN)
    for i in range(3 * sum(PLAN.values())):
        if not any(left.values()):
            break
        kind = rng.choice([k for k, n in left.items() if n])
        if _trial(s, kind, complete=(i % COMPLETE_EVERY == COMPLETE_EVERY - 1)):
            left[kind] -= 1
    assert not any(left.values()), left


def test_sigkilled_writers_never_tear_or_lose_anything(tmp_path: Path) -> None:
    stats = Stats()
    lock = threading.Lock()
    roots = [tmp_path / f"stream-{i}" for i in range(STREAMS)]
    for r in roots:
        r.mkdir()
    with ThreadPoolExecutor(STREAMS) as pool:
        for f in [pool.submit(_run_stream, i, r, stats, lock) for i, r in enumerate(roots)]:
            f.result()
    killed = sum(stats.trials.values())
    print(
        f"\ncrash trials: {killed} killed + {sum(stats.completed.values())} completed; "
        f"per kind {dict(stats.trials)}; killed after the write landed {dict(stats.applied)}; "
        f"temp file left behind {dict(stats.tmp_left)}"
    )
    assert killed >= 200
    assert all(stats.trials[k] > 0 for k in PLAN)
    # Kills landed on both sides of the write (before it, and after it), for the writers.
    for k in ("park", "drop", "dump", "recall", "hook"):
        assert 0 < stats.applied[k] < stats.trials[k], (k, stats)


def test_hook_treats_latest_naming_a_missing_doc_as_absent(proj: Path) -> None:
    new_store(proj)
    (store_of(proj) / "LATEST").write_text("gone-doc\n")
    assert hook.run(hook_payload(proj), env={}, now=NOW_DT) == ""
    assert recall(Store(proj), None, peek=False, as_json=False, now=NOW_DT).text == (no_pending())
    assert not (store_of(proj) / "LATEST").exists()


def test_a_drop_interrupted_after_rewriting_parked_md_still_logs_the_item(
    proj: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The deterministic version of a kill between the two writes of a drop."""
    from session_skill.store import fileio

    store = new_store(proj)
    park(store, "keep this one safe please", as_json=False, now=NOW_DT)
    park(store, "kill happens while dropping me", as_json=False, now=NOW_DT)
    before = read_store(proj)
    real_replace = os.replace

    def crash_after_parked(src, dst):  # type: ignore[no-untyped-def]
        real_replace(src, dst)
        if str(dst).endswith("PARKED.md"):
            raise KeyboardInterrupt  # the process dies right after PARKED.md is replaced

    monkeypatch.setattr(fileio.os, "replace", crash_after_parked)
    try:
        drop(store, "kill-happens-while-dropping-me", as_json=False, now=NOW_DT)
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()
    after = read_store(proj)
    for it in before.items:  # each item is still open, or recorded as dropped
        assert it.slug in after.slugs or any(r["item"] == it.slug for r in after.dropped)


def test_leftover_temp_files_are_ignored_then_cleaned_by_the_next_write(proj: Path) -> None:
    """What a writer killed mid-write leaves: half-written temp files beside every kind of
    store file. Readers never see them; the next write removes the stale ones (and only
    those: a fresh one may belong to a live `ensure()` about to link it into place)."""
    store = new_store(proj)
    park(store, "an idea to keep around", as_json=False, now=NOW_DT)
    write_doc(proj, "plan")
    (store_of(proj) / "LATEST").write_text("plan\n")
    sd = store_of(proj)
    torn = {
        ".PARKED.md.tmp-4242-0badf00d": "# Parked items\n\n- **half",
        ".plan-2.md.tmp-4242-0badf00d": "---\nslug: plan-2\ncrea",
        ".LATEST.tmp-4242-0badf00d": "plan-",
        ".plan.md.tmp-4242-0badf00d": "---\nslug: plan\nconsumed: tr",
    }
    fresh = ".PARKED.md.tmp-4343-feedf00d"
    for name, text in torn.items():
        (sd / name).write_text(text)
        old = time.time() - TMP_MAX_AGE - 5
        os.utime(sd / name, (old, old))
    (sd / fresh).write_text("# Parked")

    listing = run_cli(proj, "list", "--json")
    assert listing.code == 0, listing
    data = json.loads(listing.out)
    assert [h["slug"] for h in data["handovers"]] == ["plan"]
    assert [p["slug"] for p in data["parked"]] == ["an-idea-to-keep-around"]
    assert sorted(tmp_files(proj)) == sorted([*torn, fresh])  # `list` only read
    hook_out = hook.run(hook_payload(proj, source="startup"), env={}, now=NOW_DT)
    assert "`plan`" in hook_out and "is pending" in hook_out

    parked = run_cli(proj, "park", "the next write")  # takes the lock: stale ones go
    assert parked.code == 0 and parked.out.startswith("Parked: the-next-write (2 open)"), parked
    assert tmp_files(proj) == [fresh]
    view = read_store(proj)
    assert view.slugs == ["an-idea-to-keep-around", "the-next-write"]
    assert view.latest == "plan" and sorted(view.docs) == ["plan"]

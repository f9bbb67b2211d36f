"""The `## Files touched` table (SPEC §4.4): parse, merge with git and transcript, cap."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

CAP = 25
HEADER = "| File | Change | State | Ref |\n| --- | --- | --- | --- |"
_NUMS = re.compile(r"^\+(\d+)/-(\d+)$")
_SEP_CELL = re.compile(r"^:?-{3,}:?$")


@dataclass
class Row:
    file: str
    change: str = ""
    state: str = ""
    ref: str = "—"
    members: list[Row] = field(default_factory=list)  # leaf rows of a folded `dir/` row

    @property
    def folded(self) -> bool:
        return bool(self.members)

    def leaves(self) -> list[Row]:
        return self.members if self.members else [self]


def _cells(line: str) -> list[str] | None:
    s = line.strip()
    if not (s.startswith("|") and s.endswith("|")) or len(s) < 2:
        return None
    parts = re.split(r"(?<!\\)\|", s[1:-1])
    return [p.strip().replace("\\|", "|") for p in parts]


def parse_rows(section: str) -> tuple[list[Row], list[str]]:
    """Rows of the table in a section, and its other non-empty lines (kept as notes)."""
    rows: list[Row] = []
    notes: list[str] = []
    for line in section.splitlines():
        cells = _cells(line)
        if cells is None:
            if line.strip() and not _is_group_note(line):
                notes.append(line.rstrip())
            continue
        if all(_SEP_CELL.match(c) for c in cells if c) or [c.lower() for c in cells[:1]] == [
            "file"
        ]:
            continue
        cells += [""] * (4 - len(cells))
        name = _file_cell(cells[0])
        if name:
            rows.append(Row(name, cells[1], cells[2], cells[3] or "—"))
    return rows, notes


def _file_cell(cell: str) -> str:
    """`path` (N files) → path; a bare path as written."""
    m = re.match(r"^`([^`]+)`", cell)
    return (m.group(1) if m else cell).strip()


def _is_group_note(line: str) -> bool:
    return "grouped into" in line and "row" in line


def normalize(path: str, root: Path) -> str:
    """Project-relative path with `/`; paths outside the project stay absolute."""
    p = path.strip().strip("`")
    if not p:
        return p
    if os.path.isabs(p):
        try:
            return Path(os.path.normpath(p)).relative_to(root).as_posix()
        except ValueError:
            return os.path.normpath(p)
    return Path(os.path.normpath(p)).as_posix()


def merge(
    model_rows: list[Row],
    git_refs: dict[str, str],
    written: list[str],
    root: Path,
    *,
    skip_prefixes: tuple[str, ...] = (".claude/state/",),
) -> list[Row]:
    """Keep the model's rows (Ref recomputed); add observed paths it left out as `unlisted`."""
    rows: list[Row] = []
    seen: set[str] = set()
    written_rel = [normalize(w, root) for w in written]
    written_set = set(written_rel)
    observed = [
        p for p in dict.fromkeys([*git_refs, *written_rel]) if p and not p.startswith(skip_prefixes)
    ]
    listed = {normalize(r.file, root) for r in model_rows if not r.file.endswith("/")}
    for r in model_rows:
        if r.file.endswith("/"):
            # A directory row (the brief's folded rows, copied by the model): its files are
            # the observed ones under it, with the model's Change/State, so nothing is
            # listed twice and `group` can fold them again.
            prefix = normalize(r.file, root).rstrip("/") + "/"
            under = [p for p in observed if p.startswith(prefix) and p not in listed]
            under = [p for p in under if p not in seen]
            if not under:
                rows.append(r)  # nothing observed under it: keep as written
                continue
            change = "" if _FILES_COUNT.match(r.change.strip()) else r.change
            state = _single_state(r.state)
            for path in under:
                seen.add(path)
                rows.append(Row(path, change, state, _ref(path, git_refs, written_set)))
            continue
        path = normalize(r.file, root)
        if path in seen:
            continue
        seen.add(path)
        rows.append(Row(path, r.change, r.state, _ref(path, git_refs, written_set)))
    for path in observed:
        if path in seen:
            continue
        seen.add(path)
        rows.append(Row(path, "", "unlisted", _ref(path, git_refs, written_set)))
    return rows


_FILES_COUNT = re.compile(r"^(?:\(?\d+ files?\)?)?$")
_STATE_COUNT = re.compile(r"^([\w-]+)(?: ×\d+)?$")


def _single_state(state: str) -> str:
    """`done ×5` or `done` → `done`; a mix (`done ×5, wip ×2`) says nothing per file."""
    m = _STATE_COUNT.match(state.strip())
    return m.group(1) if m else ""


def _ref(path: str, git_refs: dict[str, str], written: set[str]) -> str:
    if path in git_refs:
        return git_refs[path]
    return "—"


def group(rows: list[Row], cap: int = CAP) -> tuple[list[Row], str]:
    """Fold the directory holding the most rows until ≤ cap rows remain; never drop a row."""
    rows = list(rows)
    folded_any = False
    while len(rows) > cap:
        parents = Counter(_parent(r) for r in rows)
        parents.pop("", None)
        if not parents:
            # Everything sits at the top level: one `./` row still beats a long table.
            rows = [_folded(".", [leaf for r in rows for leaf in r.leaves()])]
            folded_any = True
            break
        best = max(parents.items(), key=lambda kv: (kv[1], kv[0].count("/"), kv[0]))[0]
        if parents[best] < 2:
            # Single entries everywhere: lift the deepest one level to let parents gather.
            best = max(parents, key=lambda d: (d.count("/"), d))
        members = [leaf for r in rows if _parent(r) == best for leaf in r.leaves()]
        first = next(i for i, r in enumerate(rows) if _parent(r) == best)
        rest = [r for r in rows if _parent(r) != best]
        rest.insert(min(first, len(rest)), _folded(best, members))
        rows = rest
        folded_any = True
    note = ""
    if folded_any:
        groups = [r for r in rows if r.folded]
        n_files = sum(len(r.members) for r in groups)
        note = (
            f"_{n_files} files grouped into {len(groups)} directory "
            f"row{'s' if len(groups) != 1 else ''} to keep the table at {cap} rows._"
        )
    return rows, note


def _parent(row: Row) -> str:
    path = row.file.rstrip("/")
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _folded(directory: str, members: list[Row]) -> Row:
    states = Counter(m.state or "—" for m in members)
    state = ", ".join(f"{s} ×{n}" for s, n in states.most_common())
    added = removed = 0
    other: Counter[str] = Counter()
    for m in members:
        nm = _NUMS.match(m.ref)
        if nm:
            added += int(nm.group(1))
            removed += int(nm.group(2))
        elif m.ref and m.ref != "—":
            other[m.ref.split(" ")[0]] += 1
    parts = [f"+{added}/-{removed}"] if added or removed else []
    parts += [f"{k} ×{n}" for k, n in other.most_common()]
    return Row(
        f"{directory}/",
        f"{len(members)} files",
        state,
        ", ".join(parts) or "—",
        members=members,
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(rows: list[Row], note: str = "") -> str:
    lines = [HEADER]
    for r in rows:
        name = f"`{r.file}` ({len(r.members)} files)" if r.folded else f"`{r.file}`"
        change = "" if r.folded else r.change
        lines.append(f"| {_cell(name)} | {_cell(change)} | {_cell(r.state)} | {_cell(r.ref)} |")
    if note:
        lines += ["", note]
    return "\n".join(lines)

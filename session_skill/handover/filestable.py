"""The `## Files touched` table (SPEC §4.4): parse, merge with git and transcript, cap."""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
from pathlib import Path

from session_skill import recache
from session_skill.records import field, record

CAP = 25
HEADER = "| File | Change | State | Ref |\n| --- | --- | --- | --- |"
_NUMS = recache.compile(r"^\+(\d+)/-(\d+)\Z")
_SEP_CELL = recache.compile(r"^:?-{3,}:?\Z")


@record
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


# A code span (CommonMark): a run of backticks, then text up to a run of as many (`render`
# fences a name holding backticks with a longer run: `` a`b.py ``).
_CODE_SPAN = recache.compile(r"^(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_FILES_NOTE = recache.compile(r"^\(\d+ files?\)\Z")


def _file_cell(cell: str) -> str:
    """`path` (N files) → path; a bare path as written. A name holding backticks reads back
    from the code span `render` writes (`` a`b.py ``); one written inside single backticks
    (`a`b.py`, a hand-made row) is the text between the first and the last."""
    cell = cell.strip()
    m = _CODE_SPAN.match(cell)
    if m is None:
        return cell
    rest = cell[m.end() :].strip()
    if rest and not _FILES_NOTE.match(rest) and m.group(1) == "`" and cell.endswith("`"):
        return cell[1:-1].strip()
    return m.group(2).strip()  # with the spaces a fence beside a backtick needs


def _is_group_note(line: str) -> bool:
    return "grouped into" in line and "row" in line


_WINDOWS_ABS = recache.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def normalize(path: str, root: Path | str) -> str:
    """Project-relative path with `/`; paths outside the project stay absolute.

    A Windows path (`D:\\repo\\src\\a.py`, a session recorded on Windows) is made relative to
    a Windows root the same way, whatever system reads it, its case folded as Windows does."""
    p = path.strip().strip("`")
    if not p:
        return p
    if _WINDOWS_ABS.match(p):
        return _normalize_windows(p, str(root))
    if os.sep != "/":  # pragma: no cover - a Windows host: pathlib's own rules
        if os.path.isabs(p):
            try:
                return Path(os.path.normpath(p)).relative_to(root).as_posix()
            except ValueError:
                return os.path.normpath(p)
        return Path(os.path.normpath(p)).as_posix()
    # POSIX, on strings (a table of hundreds of files paid pathlib's cost on every one):
    # normalised, an absolute path under the root is the part after it.
    full = os.path.normpath(p)
    if not full.startswith("/") or full.startswith("//"):
        return full  # relative; or `//x`, which POSIX leaves to the system
    base = os.path.normpath(str(root))
    if full == base:
        return "."
    prefix = base if base.endswith("/") else base + "/"
    if full.startswith(prefix):
        return full[len(prefix) :]
    # The project reached through a symlink on one side only (`--project` given through a
    # link and the session run in the real folder, or the reverse): the same file, one row.
    real_base, real = _realpath(base), os.path.realpath(full)
    if real == real_base:
        return "."
    prefix = real_base if real_base.endswith("/") else real_base + "/"
    return real[len(prefix) :] if real.startswith(prefix) else full


@functools.lru_cache(maxsize=8)
def _realpath(path: str) -> str:
    return os.path.realpath(path)


def _normalize_windows(path: str, root: str) -> str:
    import ntpath

    full = ntpath.normpath(path)
    if _WINDOWS_ABS.match(root):
        base = ntpath.normpath(root).rstrip("\\")
        if full.lower().startswith(base.lower() + "\\"):
            return full[len(base) + 1 :].replace("\\", "/")
    return full


def weights_of(weights: dict[str, int], root: Path) -> dict[str, int]:
    """Writes per file, keyed as the table names the files."""
    found: dict[str, int] = {}
    for path, n in weights.items():
        key = normalize(path, root)
        found[key] = found.get(key, 0) + n
    return found


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


_FILES_COUNT = recache.compile(r"^(?:\(?\d+ files?\)?)?\Z")
_STATE_COUNT = recache.compile(r"^([\w-]+)(?: ×\d+)?\Z")


def _single_state(state: str) -> str:
    """`done ×5` or `done` → `done`; a mix (`done ×5, wip ×2`) says nothing per file."""
    m = _STATE_COUNT.match(state.strip())
    return m.group(1) if m else ""


def _ref(path: str, git_refs: dict[str, str], written: set[str]) -> str:
    if path in git_refs:
        return git_refs[path]
    return "—"


def group(
    rows: list[Row], cap: int = CAP, weights: dict[str, int] | None = None
) -> tuple[list[Row], str]:
    """Fold rows into `dir/` rows until ≤ cap remain; never drop a row, never hide a Change,
    never fold into one row for the project root.

    The rest are grouped by the deepest directories they share, with counts
    (`src/api/ (12 files)`), deeper directories first, as far as the cap needs; then the
    files the session worked on most (`weights`: writes per file, two or more) come back out
    of their groups as rows of their own while the cap allows. Rows with the model's Change
    text fold only when the rest cannot reach the cap, the same way, their text carried into
    the group's Change cell. When even that cannot reach it (files at the project root, each
    a row of its own), the table stays over the cap rather than hide them in `./`.
    """
    if len(rows) <= cap:
        return list(rows), ""
    weights = weights or {}
    model = [r for r in rows if not _plain(r)]
    plain = [r for r in rows if _plain(r)]
    folded = _fold_deepest(plain, cap - len(model))
    out = model + folded if folded is not None else _fold_deepest(list(rows), cap, strict=False)
    assert out is not None
    out = _bring_back(out, cap, weights)
    order = {id(r): n for n, r in enumerate(rows)}
    out.sort(key=lambda r: min(order.get(id(m), len(rows)) for m in r.leaves()))
    groups = [r for r in out if r.folded]
    note = ""
    if groups:
        n_files = sum(len(r.members) for r in groups)
        note = (
            f"_{_count(n_files, 'file')} grouped into {len(groups)} directory "
            f"row{'s' if len(groups) != 1 else ''} to keep the table at {cap} rows._"
        )
    return out, note


def _bring_back(rows: list[Row], cap: int, weights: dict[str, int]) -> list[Row]:
    """Take the most worked-on files (two writes or more) out of their groups, while the
    table stays within the cap. Each take adds one row (the file, beside what is left of
    its group; a group left with one file gives way to it), so the takes are counted first
    and every group is rebuilt once."""
    inside = [(m, g) for g in rows if g.folded for m in g.members if weights.get(m.file, 0) >= 2]
    inside.sort(key=lambda mg: -weights.get(mg[0].file, 0))
    taken: dict[int, set[int]] = {}
    n_rows = len(rows)
    for member, group_row in inside:
        if n_rows >= cap:
            break
        out = taken.setdefault(id(group_row), set())
        if len(group_row.members) - len(out) < 2:
            continue  # the group gave way to its last file, a row already
        out.add(id(member))
        n_rows += 1
    if not any(taken.values()):
        return rows
    result: list[Row] = []
    for row in rows:
        gone = taken.get(id(row))
        if not gone:
            result.append(row)
            continue
        result += [m for m in row.members if id(m) in gone]
        left = [m for m in row.members if id(m) not in gone]
        result += [_folded(row.file.rstrip("/"), left)] if len(left) >= 2 else left
    return result


def _fold_deepest(rows: list[Row], budget: int, strict: bool = True) -> list[Row] | None:
    """Fold `rows` (files and earlier `dir/` rows) into at most `budget` rows, each time
    folding the deepest directory that holds two or more of them; never the root. None when
    the budget cannot be met (with `strict`; else as few rows as folding reaches)."""
    if budget < 0 and strict:
        return None
    units = list(rows)
    while len(units) > max(budget, 0):
        directory = _deepest_shared(units)
        if directory is None:
            return None if strict else units
        units = _fold(units, directory)
    return units


def _deepest_shared(units: list[Row]) -> str | None:
    """The deepest directory (not the root) under which two or more rows sit."""
    subtree: Counter[str] = Counter()
    for r in units:
        subtree.update(_ancestors(_key(r)))
    deep = [(d.count("/"), n, d) for d, n in subtree.items() if n >= 2 and d]
    return max(deep)[2] if deep else None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _plain(row: Row) -> bool:
    """No Change text of the model's in it: free to fold first."""
    return not any(leaf.change.strip() for leaf in row.leaves())


def _key(row: Row) -> str:
    """The directory a row stands for (a `dir/` row) or sits in (a file)."""
    path = row.file.rstrip("/")
    if path in ("", "."):
        return ""  # `./`
    return path if row.file.endswith("/") else _dirname(path)


def _dirname(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _under(row: Row, directory: str) -> bool:
    if not directory:
        return True
    key = _key(row)
    return key == directory or key.startswith(directory + "/")


def _ancestors(directory: str) -> list[str]:
    out = []
    while directory:
        out.append(directory)
        directory = _dirname(directory)
    return out


def _fold(rows: list[Row], directory: str) -> list[Row]:
    """`rows` with every row under `directory` (files, and earlier folds below it or of it)
    folded into one `dir/` row, where the first of them stood."""
    taken = [r for r in rows if _under(r, directory)]
    if not taken:
        return rows
    first = rows.index(taken[0])
    ids = {id(r) for r in taken}
    rest = [r for r in rows if id(r) not in ids]
    at = sum(1 for r in rows[:first] if id(r) not in ids)
    rest.insert(at, _folded(directory or ".", [leaf for r in taken for leaf in r.leaves()]))
    return rest


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
        _group_change(directory, members),
        state,
        ", ".join(parts) or "—",
        members=members,
    )


def _group_change(directory: str, members: list[Row]) -> str:
    """The model's Change texts of a group's files: `` `a.py`: text ``, or `text (N files)`."""
    prefix = "" if directory == "." else directory + "/"
    texts: dict[str, list[str]] = {}
    for m in members:
        if m.change.strip():
            name = m.file[len(prefix) :] if prefix and m.file.startswith(prefix) else m.file
            texts.setdefault(" ".join(m.change.split()), []).append(name)
    return "; ".join(
        f"{_code(names[0])}: {text}"
        if len(names) == 1
        else f"{text} ({_count(len(names), 'file')})"
        for text, names in texts.items()
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """`text` as a code span, whatever backticks it holds: fenced by a longer run, and
    spaced from it (CommonMark), so `a`b.py` stays one name: `` a`b.py ``."""
    if "`" not in text:
        return f"`{text}`"
    fence = "`" * (max(len(run) for run in re.findall("`+", text)) + 1)
    return f"{fence} {text} {fence}"


def render(rows: list[Row], note: str = "") -> str:
    lines = [HEADER]
    for r in rows:
        name = f"{_code(r.file)} ({_count(len(r.members), 'file')})" if r.folded else _code(r.file)
        lines.append(f"| {_cell(name)} | {_cell(r.change)} | {_cell(r.state)} | {_cell(r.ref)} |")
    if note:
        lines += ["", note]
    return "\n".join(lines)

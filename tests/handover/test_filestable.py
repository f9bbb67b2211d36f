"""The Files touched table (SPEC §4.4): parse, merge, the 25-row cap, never a silent drop."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.handover import filestable as ft

ROOT = Path("/proj")


def _leaf_paths(rows: list[ft.Row]) -> list[str]:
    return sorted(leaf.file for r in rows for leaf in r.leaves())


def test_parse_rows_reads_the_table_and_keeps_notes() -> None:
    section = (
        "| File | Change | State | Ref |\n"
        "| --- | :---: | --- | --- |\n"
        "| `src/a.py` | added a \\| b | done | +1/-0 |\n"
        "| src/b.py | fixed | wip | |\n"
        "| `src/` (12 files) |  | done ×12 | +40/-2 |\n"
        "\n"
        "A note the model wrote.\n"
        "_12 files grouped into 1 directory row to keep the table at 25 rows._\n"
    )
    rows, notes = ft.parse_rows(section)
    assert [(r.file, r.change, r.state, r.ref) for r in rows] == [
        ("src/a.py", "added a | b", "done", "+1/-0"),
        ("src/b.py", "fixed", "wip", "—"),
        ("src/", "", "done ×12", "+40/-2"),
    ]
    assert notes == ["A note the model wrote."]


@pytest.mark.parametrize(
    ("path", "rel"),
    [
        ("/proj/src/a.py", "src/a.py"),
        ("`src/./b.py`", "src/b.py"),
        ("src/../c.py", "c.py"),
        ("/elsewhere/x.py", "/elsewhere/x.py"),
        ("", ""),
    ],
)
def test_normalize(path: str, rel: str) -> None:
    assert ft.normalize(path, ROOT) == rel


def test_merge_keeps_model_rows_recomputes_ref_and_adds_unlisted() -> None:
    model = [
        ft.Row("src/auth/token.py", "added expiry check", "done", "+999/-999"),
        ft.Row("/proj/docs/notes.md", "wrote notes", "wip", "new"),
        ft.Row("src/auth/token.py", "duplicate row", "wip", ""),
    ]
    git_refs = {
        "src/auth/token.py": "+42/-3",
        "src/auth/new.py": "new",
        ".claude/state/session/PARKED.md": "+1/-0",
    }
    written = ["/proj/scripts/run.sh", "src/auth/token.py"]
    rows = ft.merge(model, git_refs, written, ROOT)
    assert [(r.file, r.change, r.state, r.ref) for r in rows] == [
        ("src/auth/token.py", "added expiry check", "done", "+42/-3"),
        ("docs/notes.md", "wrote notes", "wip", "—"),
        ("src/auth/new.py", "", "unlisted", "new"),
        ("scripts/run.sh", "", "unlisted", "—"),
    ]


def test_merge_expands_a_copied_directory_row() -> None:
    """The brief folds big tables; a model copying `src/` must not make files appear twice."""
    refs = {f"src/m{i}.py": "+1/-1" for i in range(30)} | {"README.md": "+1/-0"}
    skeleton, note = ft.group(ft.merge([], refs, [], ROOT))
    model, _ = ft.parse_rows(ft.render(skeleton, note).replace("unlisted ×30", "done ×30"))
    model.insert(0, ft.Row("src/m0.py", "rewrote m0", "wip"))
    rows = ft.merge(model, refs, [], ROOT)
    assert _leaf_paths(rows) == sorted(refs)
    by_path = {r.file: r for r in rows}
    assert by_path["src/m0.py"].state == "wip" and by_path["src/m0.py"].change == "rewrote m0"
    assert by_path["src/m7.py"].state == "done"
    grouped, note = ft.group(rows)
    assert [r.file for r in grouped] == ["src/", "README.md"]
    assert grouped[0].state == "done ×29, wip ×1"


def test_merge_keeps_a_directory_row_with_nothing_observed_under_it() -> None:
    rows = ft.merge([ft.Row("lib/", "vendored", "done", "—")], {}, [], ROOT)
    assert [(r.file, r.change, r.state) for r in rows] == [("lib/", "vendored", "done")]


def test_group_under_the_cap_changes_nothing() -> None:
    rows = [ft.Row(f"d/f{i}.py") for i in range(25)]
    out, note = ft.group(rows)
    assert out == rows and note == ""


def test_forty_files_in_four_directories() -> None:
    rows = []
    for d, state, ref in [
        ("api", "done", "+2/-1"),
        ("web/ui", "wip", "new"),
        ("core", "done", "+1/-0"),
        ("tests", "needs-test", "deleted"),
    ]:
        rows += [ft.Row(f"{d}/f{i}.py", "c", state, ref) for i in range(10)]
    out, note = ft.group(rows)
    assert len(out) <= 25
    assert _leaf_paths(out) == sorted(r.file for r in rows)
    folded = [r for r in out if r.folded]
    assert note == (
        f"_{sum(len(r.members) for r in folded)} files grouped into {len(folded)} directory "
        f"row{'s' if len(folded) != 1 else ''} to keep the table at 25 rows._"
    )
    text = ft.render(out, note)
    assert len([ln for ln in text.splitlines() if ln.startswith("| `")]) == len(out)
    assert text.endswith(note)


def test_folded_row_counts_states_and_sums_refs() -> None:
    members = (
        [ft.Row(f"a/d{i}.py", "", "done", "+3/-1") for i in range(5)]
        + [ft.Row(f"a/w{i}.py", "", "wip", "new") for i in range(2)]
        + [ft.Row("a/r.py", "", "", "renamed from a/q.py")]
    )
    out, note = ft.group(members + [ft.Row(f"b{i}.py") for i in range(20)])
    row = out[0]
    assert row.file == "a/" and len(row.members) == 8
    assert row.state == "done ×5, wip ×2, — ×1"
    assert row.ref == "+15/-5, new ×2, renamed ×1"
    assert ft.render([row]).splitlines()[-1] == (
        "| `a/` (8 files) |  | done ×5, wip ×2, — ×1 | +15/-5, new ×2, renamed ×1 |"
    )
    assert note == "_8 files grouped into 1 directory row to keep the table at 25 rows._"


def test_many_top_level_files_still_fit() -> None:
    rows = [ft.Row(f"f{i}.py", "", "unlisted", "new") for i in range(30)]
    out, note = ft.group(rows)
    assert len(out) <= 25
    assert _leaf_paths(out) == sorted(r.file for r in rows)
    assert note


def test_single_file_directories_are_lifted_until_they_fit() -> None:
    rows = [ft.Row(f"pkg/m{i}/x.py") for i in range(30)]
    out, note = ft.group(rows)
    assert len(out) <= 25
    assert _leaf_paths(out) == sorted(r.file for r in rows)


paths = st.lists(
    st.lists(st.sampled_from(["a", "b", "c", "src", "lib", "x y"]), min_size=0, max_size=3).flatmap(
        lambda dirs: st.from_regex(r"[a-z]{1,6}\.py", fullmatch=True).map(
            lambda name: "/".join([*dirs, name])
        )
    ),
    max_size=70,
    unique=True,
)


@given(paths, st.integers(min_value=1, max_value=30))
def test_group_never_drops_a_file_and_respects_the_cap(files: list[str], cap: int) -> None:
    rows = [ft.Row(f, "", "done", "+1/-1") for f in files]
    out, note = ft.group(rows, cap)
    assert _leaf_paths(out) == sorted(files)
    assert len(out) <= max(cap, 1)
    if len(files) > cap:
        assert note
        assert sum(int(r.ref.split("/")[0][1:]) for r in out) == len(files)


def test_render_escapes_pipes() -> None:
    text = ft.render([ft.Row("a|b.py", "x | y", "done", "+1/-0")])
    assert text.splitlines()[-1] == "| `a\\|b.py` | x \\| y | done | +1/-0 |"
    rows, _ = ft.parse_rows(text)
    assert (rows[0].file, rows[0].change) == ("a|b.py", "x | y")
